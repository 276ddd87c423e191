//! One model of a block device as sysfs shows it: `/sys/dev/block/MAJ:MIN` links to the
//! device's directory; a partition's directory holds a `partition` attribute and sits inside
//! its whole disk's; a stacked device (device-mapper, md) lists its members in `slaves/`; the
//! attributes are small text files. The drive under test's identity, the telemetry's device
//! stack and the capture's traced disk are all read through [`BlockDevice`].

use std::path::{Path, PathBuf};

/// Why a device's sysfs entry could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SysfsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} holds {text:?}, not {expected}")]
    Parse {
        path: PathBuf,
        text: String,
        expected: &'static str,
    },
}

/// A block device's sysfs directory, links resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDevice {
    dir: PathBuf,
}

impl BlockDevice {
    /// The device `major:minor` in the sysfs tree at `sys` (normally `/sys`).
    pub fn open(sys: &Path, major: u32, minor: u32) -> Result<BlockDevice, SysfsError> {
        let link = sys.join(format!("dev/block/{major}:{minor}"));
        std::fs::canonicalize(&link)
            .map(|dir| BlockDevice { dir })
            .map_err(|source| SysfsError::Read { path: link, source })
    }

    /// The device at a sysfs directory already resolved.
    pub fn at(dir: PathBuf) -> BlockDevice {
        BlockDevice { dir }
    }

    /// Its directory under /sys/devices.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The kernel's name for it (`sda`, `nvme0n1p2`, `dm-0`).
    pub fn name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Whether `rel` (a file or folder below the device's directory) is there.
    pub fn has(&self, rel: &str) -> bool {
        self.dir.join(rel).exists()
    }

    pub fn is_partition(&self) -> bool {
        self.has("partition")
    }

    /// The whole disk: itself, or for a partition the disk holding it.
    pub fn disk(&self) -> BlockDevice {
        match self.dir.parent() {
            Some(parent) if self.is_partition() => BlockDevice::at(parent.to_path_buf()),
            _ => self.clone(),
        }
    }

    /// An attribute without surrounding whitespace; `None` when missing, unreadable or blank.
    pub fn attribute(&self, rel: &str) -> Option<String> {
        let value = std::fs::read_to_string(self.dir.join(rel)).ok()?;
        let value = value.trim();
        (!value.is_empty()).then(|| value.to_owned())
    }

    /// An attribute holding one decimal number.
    pub fn number(&self, rel: &str) -> Result<u64, SysfsError> {
        let path = self.dir.join(rel);
        let text = std::fs::read_to_string(&path).map_err(|source| SysfsError::Read {
            path: path.clone(),
            source,
        })?;
        text.trim().parse().map_err(|_| SysfsError::Parse {
            text: text.trim().to_owned(),
            path,
            expected: "a decimal number",
        })
    }

    /// Its device number, from the `dev` attribute (`MAJ:MIN`).
    pub fn number_pair(&self) -> Result<(u32, u32), SysfsError> {
        let path = self.dir.join("dev");
        let text = std::fs::read_to_string(&path).map_err(|source| SysfsError::Read {
            path: path.clone(),
            source,
        })?;
        let parsed = text
            .trim()
            .split_once(':')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
        parsed.ok_or_else(|| SysfsError::Parse {
            text: text.trim().to_owned(),
            path,
            expected: "MAJ:MIN",
        })
    }

    /// The members a stacked device is built on (`slaves/`), by name; none when it has none.
    pub fn members(&self) -> Result<Vec<BlockDevice>, SysfsError> {
        let slaves = self.dir.join("slaves");
        let read_error = |source| SysfsError::Read {
            path: slaves.clone(),
            source,
        };
        let entries = match std::fs::read_dir(&slaves) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(read_error(e)),
        };
        let mut members = Vec::new();
        for entry in entries {
            let path = entry.map_err(read_error)?.path();
            members.push(BlockDevice::at(
                std::fs::canonicalize(&path).map_err(read_error)?,
            ));
        }
        members.sort_by_key(BlockDevice::name);
        Ok(members)
    }

    /// The name of the driver bound to the device (`device/driver` links to it).
    pub fn driver(&self) -> Option<String> {
        let link = std::fs::read_link(self.dir.join("device/driver")).ok()?;
        Some(link.file_name()?.to_string_lossy().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sysfs tree with a disk `vda` (252:0) holding the partition `vda1` (252:1).
    fn tree() -> tempfile::TempDir {
        let sys = tempfile::tempdir().unwrap();
        let disk = sys.path().join("devices/virtual/block/vda");
        std::fs::create_dir_all(disk.join("vda1")).unwrap();
        std::fs::create_dir_all(disk.join("slaves")).unwrap();
        std::fs::write(disk.join("dev"), "252:0\n").unwrap();
        std::fs::write(disk.join("size"), " 2048\n").unwrap();
        std::fs::write(disk.join("vda1/dev"), "252:1\n").unwrap();
        std::fs::write(disk.join("vda1/partition"), "1\n").unwrap();
        std::fs::write(disk.join("vda1/size"), "not a number\n").unwrap();
        std::fs::create_dir_all(sys.path().join("dev/block")).unwrap();
        std::os::unix::fs::symlink(disk.clone(), sys.path().join("dev/block/252:0")).unwrap();
        std::os::unix::fs::symlink(disk.join("vda1"), sys.path().join("dev/block/252:1")).unwrap();
        sys
    }

    #[test]
    fn a_partition_leads_to_its_disk_and_attributes_parse() {
        let sys = tree();
        let part = BlockDevice::open(sys.path(), 252, 1).unwrap();
        assert_eq!(part.name(), "vda1");
        assert!(part.is_partition());
        assert_eq!(part.number_pair().unwrap(), (252, 1));
        let disk = part.disk();
        assert_eq!(disk.name(), "vda");
        assert!(!disk.is_partition());
        assert_eq!(disk.disk(), disk);
        assert_eq!(disk.number("size").unwrap(), 2048);
        assert!(disk.members().unwrap().is_empty());
        assert_eq!(disk.attribute("size").as_deref(), Some("2048"));
        assert_eq!(disk.attribute("absent"), None);
    }

    #[test]
    fn what_cannot_be_read_is_a_typed_error_naming_the_file() {
        let sys = tree();
        let err = BlockDevice::open(sys.path(), 9, 9).unwrap_err();
        assert!(err.to_string().contains("dev/block/9:9"), "{err}");
        let part = BlockDevice::open(sys.path(), 252, 1).unwrap();
        let err = part.number("size").unwrap_err();
        assert!(matches!(err, SysfsError::Parse { .. }), "{err}");
        assert!(err.to_string().contains("not a decimal number"), "{err}");
    }
}
