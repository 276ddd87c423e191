//! The destructive-write guard: a block device is handed out for writing only when the caller
//! confirmed it (`destroy_data`) and nothing uses it or any of its partitions — no mount
//! (/proc/self/mountinfo, by device number and by source), no swap (/proc/swaps), no holder
//! (device-mapper, md, bcache under `/sys/class/block/<dev>/holders/`) — and an `O_EXCL` open
//! succeeds. The exclusive descriptor is kept, so nothing can claim the device meanwhile.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::DeviceIdentity;
use super::identity::{device_identity, parse_mountinfo_line};

/// Why a block device may not be written.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// Writing was not confirmed.
    #[error(
        "{path} is a block device: writing to it destroys its data; refusing without destroy_data"
    )]
    NotConfirmed { path: PathBuf },
    /// The path is not a block device.
    #[error("{path} is not a block device")]
    NotBlockDevice { path: PathBuf },
    /// The path cannot be resolved or inspected.
    #[error("{path}: {source}")]
    Inspect {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The device or one of its partitions is mounted.
    #[error("{device} is mounted on {mount_point}")]
    Mounted { device: String, mount_point: String },
    /// The device or one of its partitions is active swap.
    #[error("{device} is in use as swap")]
    Swap { device: String },
    /// Another block device is built on the device or one of its partitions.
    #[error("{device} is held by {holders}")]
    Held { device: String, holders: String },
    /// The kernel refused the exclusive open.
    #[error("{device} is in use (exclusive open failed: {source})")]
    Busy {
        device: String,
        #[source]
        source: std::io::Error,
    },
}

/// A block device that passed the guard, open for direct reads and writes.
#[derive(Debug)]
pub struct ClaimedDevice {
    /// Exclusive descriptor opened with O_RDWR | O_DIRECT | O_EXCL.
    pub file: File,
    /// Canonical device path, e.g. "/dev/loop3".
    pub path: PathBuf,
    /// What sysfs says about the device (its whole disk for a partition).
    pub identity: Option<DeviceIdentity>,
}

/// One kernel block device: name and number.
#[derive(Debug, Clone, PartialEq)]
struct BlockNode {
    name: String,
    major: u32,
    minor: u32,
}

impl BlockNode {
    fn dev_path(&self) -> String {
        format!("/dev/{}", self.name)
    }
}

/// Run every check on `path` and claim the device, or say exactly why not.
pub fn claim_block_device(path: &Path, destroy_data: bool) -> Result<ClaimedDevice, GuardError> {
    let (canonical, major, minor) = block_device_number(path)?;
    if !destroy_data {
        return Err(GuardError::NotConfirmed { path: canonical });
    }
    check_unused(path, major, minor)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT | libc::O_EXCL)
        .open(&canonical)
        .map_err(|source| GuardError::Busy {
            device: canonical.display().to_string(),
            source,
        })?;
    Ok(ClaimedDevice {
        file,
        identity: device_identity(Path::new("/sys"), major, minor),
        path: canonical,
    })
}

/// The checks of [`claim_block_device`] that need no descriptor: `path` is a block device that
/// nothing mounts, swaps on or holds (the device or any of its partitions). Gives its canonical
/// path. Touches nothing, so `drivebench plan` can ask it.
pub fn check_block_device_unused(path: &Path) -> Result<PathBuf, GuardError> {
    let (canonical, major, minor) = block_device_number(path)?;
    check_unused(path, major, minor)?;
    Ok(canonical)
}

/// The canonical path of `path` and its device number, when it is a block device.
fn block_device_number(path: &Path) -> Result<(PathBuf, u32, u32), GuardError> {
    let inspect = |source| GuardError::Inspect {
        path: path.to_path_buf(),
        source,
    };
    let canonical = std::fs::canonicalize(path).map_err(inspect)?;
    let st = rustix::fs::stat(&canonical).map_err(|e| inspect(e.into()))?;
    if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::BlockDevice {
        return Err(GuardError::NotBlockDevice { path: canonical });
    }
    let (major, minor) = (rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev));
    Ok((canonical, major, minor))
}

/// Refuse a device `major:minor` (reached as `path`) that is mounted, swap or held.
fn check_unused(path: &Path, major: u32, minor: u32) -> Result<(), GuardError> {
    let nodes = device_and_partitions(Path::new("/sys"), major, minor).map_err(|source| {
        GuardError::Inspect {
            path: path.to_path_buf(),
            source,
        }
    })?;
    check_mounts(&nodes)?;
    check_swaps(&nodes)?;
    check_holders(Path::new("/sys"), &nodes)
}

/// The device `major:minor` and, for a whole disk, each of its partitions.
fn device_and_partitions(sys: &Path, major: u32, minor: u32) -> std::io::Result<Vec<BlockNode>> {
    let node = std::fs::canonicalize(sys.join(format!("dev/block/{major}:{minor}")))?;
    let name = node
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut nodes = vec![BlockNode { name, major, minor }];
    for entry in std::fs::read_dir(&node)?.flatten() {
        let dir = entry.path();
        if !dir.join("partition").exists() {
            continue;
        }
        let number = std::fs::read_to_string(dir.join("dev")).unwrap_or_default();
        let Some((ma, mi)) = number.trim().split_once(':') else {
            continue;
        };
        if let (Ok(major), Ok(minor)) = (ma.parse(), mi.parse()) {
            nodes.push(BlockNode {
                name: entry.file_name().to_string_lossy().into_owned(),
                major,
                minor,
            });
        }
    }
    Ok(nodes)
}

/// The (major, minor) of a path when it is a block device.
fn rdev_of(path: &Path) -> Option<(u32, u32)> {
    let st = rustix::fs::stat(path).ok()?;
    (rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::BlockDevice)
        .then(|| (rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev)))
}

fn find_node(nodes: &[BlockNode], number: Option<(u32, u32)>) -> Option<&BlockNode> {
    let (major, minor) = number?;
    nodes.iter().find(|n| n.major == major && n.minor == minor)
}

/// Refuse when a mount's device number or its source device is one of `nodes` (the source
/// check catches filesystems such as btrfs that report an anonymous device number).
fn check_mounts(nodes: &[BlockNode]) -> Result<(), GuardError> {
    let table = std::fs::read("/proc/self/mountinfo").map_err(|source| GuardError::Inspect {
        path: PathBuf::from("/proc/self/mountinfo"),
        source,
    })?;
    for mount in table
        .split(|&b| b == b'\n')
        .filter_map(parse_mountinfo_line)
    {
        let by_number = find_node(nodes, Some((mount.major, mount.minor)));
        let by_source = || {
            mount
                .source
                .starts_with('/')
                .then(|| find_node(nodes, rdev_of(Path::new(&mount.source))))
                .flatten()
        };
        if let Some(node) = by_number.or_else(by_source) {
            return Err(GuardError::Mounted {
                device: node.dev_path(),
                mount_point: mount.mount_point.display().to_string(),
            });
        }
    }
    Ok(())
}

/// The file names listed in /proc/swaps (first column, octal escapes undone).
fn swap_entries(table: &str) -> Vec<PathBuf> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .map(|name| PathBuf::from(name.replace("\\040", " ").replace("\\011", "\t")))
        .collect()
}

fn check_swaps(nodes: &[BlockNode]) -> Result<(), GuardError> {
    let table = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    for entry in swap_entries(&table) {
        let listed = entry.display().to_string();
        let by_name = nodes.iter().find(|n| n.dev_path() == listed);
        if let Some(node) = by_name.or_else(|| find_node(nodes, rdev_of(&entry))) {
            return Err(GuardError::Swap {
                device: node.dev_path(),
            });
        }
    }
    Ok(())
}

fn check_holders(sys: &Path, nodes: &[BlockNode]) -> Result<(), GuardError> {
    for node in nodes {
        let dir = sys.join("class/block").join(&node.name).join("holders");
        let mut holders: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if !holders.is_empty() {
            holders.sort();
            return Err(GuardError::Held {
                device: node.dev_path(),
                holders: holders.join(", "),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_entries_are_the_first_column_after_the_header() {
        let table = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                     /dev/loop3                              partition\t65532\t\t0\t\t-2\n\
                     /swap\\040file                          file\t\t1024\t\t0\t\t-3\n";
        assert_eq!(
            swap_entries(table),
            vec![PathBuf::from("/dev/loop3"), PathBuf::from("/swap file")]
        );
        assert!(swap_entries("Filename Type Size Used Priority\n").is_empty());
    }

    #[test]
    fn a_regular_file_is_not_a_block_device() {
        let file = tempfile::NamedTempFile::new_in("/var/tmp").expect("temp file");
        let err = claim_block_device(file.path(), true).expect_err("a file is refused");
        assert!(matches!(err, GuardError::NotBlockDevice { .. }), "{err}");
    }

    #[test]
    fn a_missing_path_is_refused_with_its_name() {
        let err = claim_block_device(Path::new("/dev/drivebench-no-such-device"), true)
            .expect_err("missing path");
        assert!(
            err.to_string().contains("/dev/drivebench-no-such-device"),
            "{err}"
        );
    }
}
