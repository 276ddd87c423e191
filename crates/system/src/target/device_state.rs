//! A known starting state of a whole block device a run owns: every block discarded
//! (`BLKDISCARD` over the device), a new filesystem made *without* discard (`mkfs.ext4 -E
//! nodiscard`, `mkfs.xfs -K`) and mounted without the `discard` option, so that the blocks a
//! fill writes afterwards stay written. The mount is a [`Mounted`] guard that unmounts on drop;
//! every mount it holds is also registered, so that an abort (a second stop signal, which exits
//! without unwinding) detaches them with [`unmount_all_registered`]. The mount's options are
//! read back from `/proc/self/mountinfo`, so the record proves what the kernel applied.

use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use super::guard::ClaimedDevice;
use super::identity::parse_mountinfo_line;

/// The filesystem made on the device.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Filesystem {
    Ext4,
    Xfs,
}

impl Filesystem {
    /// As mountinfo and the scenario name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Filesystem::Ext4 => "ext4",
            Filesystem::Xfs => "xfs",
        }
    }

    /// The mkfs program and its arguments before the device: forced over whatever is there,
    /// quiet, and without discarding (so a purge's state, not mkfs's, is the starting one);
    /// ext4 with no blocks reserved for root, so the whole filesystem holds data.
    fn mkfs(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Filesystem::Ext4 => ("mkfs.ext4", &["-F", "-q", "-m", "0", "-E", "nodiscard"]),
            Filesystem::Xfs => ("mkfs.xfs", &["-f", "-q", "-K"]),
        }
    }
}

/// Why the device could not be brought to its starting state.
#[derive(Debug, thiserror::Error)]
pub enum DeviceStateError {
    #[error("{device}: {what}: {source}")]
    System {
        device: PathBuf,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("{device}: the device does not support discard (BLKDISCARD: {source})")]
    NoDiscard {
        device: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{program} {device} failed ({status}): {stderr}")]
    Mkfs {
        program: &'static str,
        device: PathBuf,
        status: String,
        stderr: String,
    },
    #[error("cannot run {program} (install e2fsprogs for ext4, xfsprogs for xfs): {source}")]
    NoMkfs {
        program: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("{device} mounted on {mount_point}, but /proc/self/mountinfo does not show it")]
    NotListed {
        device: PathBuf,
        mount_point: PathBuf,
    },
    #[error("{mount_point}: mounted with the discard option ({options}); a fill would not survive")]
    DiscardMounted {
        mount_point: PathBuf,
        options: String,
    },
}

/// A purge by discard: the whole device, how long the kernel took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discarded {
    pub bytes: u64,
    pub seconds: f64,
}

/// The size of a claimed device in bytes.
pub fn device_bytes(device: &ClaimedDevice) -> Result<u64, DeviceStateError> {
    rustix::fs::seek(&device.file, rustix::fs::SeekFrom::End(0))
        .map_err(|e| system(&device.path, "size", e.into()))
}

/// `BLKDISCARD` (`_IO(0x12, 119)`): discard `[offset, offset + len)` of a block device.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// Discard every block of the device: the drive (or the loop device's backing file) is told
/// that nothing on it holds data any more.
pub fn discard_all(device: &ClaimedDevice) -> Result<Discarded, DeviceStateError> {
    let bytes = device_bytes(device)?;
    let range: [u64; 2] = [0, bytes];
    let started = Instant::now();
    // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer, which points at
    // `range`, alive for the call; the descriptor is open for writing.
    let rc = unsafe { libc::ioctl(device.file.as_raw_fd(), BLKDISCARD as _, range.as_ptr()) };
    if rc != 0 {
        let source = std::io::Error::last_os_error();
        return Err(match source.raw_os_error() {
            Some(libc::EOPNOTSUPP) => DeviceStateError::NoDiscard {
                device: device.path.clone(),
                source,
            },
            _ => system(&device.path, "discard (BLKDISCARD)", source),
        });
    }
    Ok(Discarded {
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Make `fs` on `device` without discarding; gives the command line that ran.
pub fn make_filesystem(device: &Path, fs: Filesystem) -> Result<String, DeviceStateError> {
    let (program, args) = fs.mkfs();
    let output = std::process::Command::new(program)
        .args(args)
        .arg(device)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| DeviceStateError::NoMkfs { program, source })?;
    if !output.status.success() {
        return Err(DeviceStateError::Mkfs {
            program,
            device: device.to_path_buf(),
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    Ok(format!("{program} {} {}", args.join(" "), device.display()))
}

/// The mounts held by live [`Mounted`] guards, for [`unmount_all_registered`].
static MOUNTED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A filesystem mounted by drivebench; unmounted on drop.
#[derive(Debug)]
pub struct Mounted {
    pub device: PathBuf,
    pub mount_point: PathBuf,
    pub filesystem: Filesystem,
    /// The mount's options as /proc/self/mountinfo shows them: the mount's own, then the
    /// filesystem's (super block) options.
    pub options: Vec<String>,
}

/// Mount `device` (holding `fs`) on the existing directory `mount_point`, with no option
/// (so no `discard`), and check in mountinfo that it is there without `discard`.
pub fn mount(
    device: &Path,
    mount_point: &Path,
    fs: Filesystem,
) -> Result<Mounted, DeviceStateError> {
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).expect("a path has no NUL byte");
    let (source, target) = (c(device), c(mount_point));
    let fstype = CString::new(fs.as_str()).expect("no NUL byte");
    // SAFETY: every pointer is a NUL-terminated string alive for the call; no data argument.
    let rc = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        let source = std::io::Error::last_os_error();
        return Err(system(device, "mount", source));
    }
    MOUNTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(mount_point.to_path_buf());
    let mut mounted = Mounted {
        device: device.to_path_buf(),
        mount_point: mount_point.to_path_buf(),
        filesystem: fs,
        options: Vec::new(),
    };
    mounted.options = mount_options(mount_point).ok_or_else(|| DeviceStateError::NotListed {
        device: device.to_path_buf(),
        mount_point: mount_point.to_path_buf(),
    })?;
    if mounted.options.iter().any(|o| o == "discard") {
        return Err(DeviceStateError::DiscardMounted {
            mount_point: mount_point.to_path_buf(),
            options: mounted.options.join(","),
        });
    }
    Ok(mounted)
}

/// How long a busy filesystem (an engine's files still being closed) is waited for before it
/// is detached instead.
const UNMOUNT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

impl Drop for Mounted {
    fn drop(&mut self) {
        let started = Instant::now();
        let mut result = unmount(&self.mount_point, 0);
        while matches!(&result, Err(e) if e.raw_os_error() == Some(libc::EBUSY))
            && started.elapsed() < UNMOUNT_WAIT
        {
            std::thread::sleep(std::time::Duration::from_millis(100));
            result = unmount(&self.mount_point, 0);
        }
        if let Err(e) = result {
            tracing::warn!(
                "unmounting {}: {e}; detaching it",
                self.mount_point.display()
            );
            let _ = unmount(&self.mount_point, libc::MNT_DETACH);
        }
        let mut list = MOUNTED.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|p| p != &self.mount_point);
    }
}

fn unmount(mount_point: &Path, flags: libc::c_int) -> std::io::Result<()> {
    let target = CString::new(mount_point.as_os_str().as_bytes()).expect("no NUL byte");
    // SAFETY: a NUL-terminated path alive for the call.
    match unsafe { libc::umount2(target.as_ptr(), flags) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Detach every filesystem a live [`Mounted`] holds: for an exit that skips the guards' drops.
pub fn unmount_all_registered() {
    let list = MOUNTED.lock().unwrap_or_else(|e| e.into_inner());
    for mount_point in list.iter() {
        let _ = unmount(mount_point, libc::MNT_DETACH);
    }
}

/// The options of the mount on `mount_point` (the last one there), from /proc/self/mountinfo.
pub fn mount_options(mount_point: &Path) -> Option<Vec<String>> {
    let table = std::fs::read("/proc/self/mountinfo").ok()?;
    table
        .split(|&b| b == b'\n')
        .filter_map(options_of_line)
        .rfind(|(point, _)| point == mount_point)
        .map(|(_, options)| options)
}

/// A mountinfo line's mount point and options: field 6 (the mount's), then the last field (the
/// super block's), each split at commas, without repeats.
fn options_of_line(line: &[u8]) -> Option<(PathBuf, Vec<String>)> {
    let mount = parse_mountinfo_line(line)?;
    let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    let separator = 6 + fields.get(6..)?.iter().position(|f| *f == b"-")?;
    let mut options: Vec<String> = Vec::new();
    for field in [fields[5], fields.get(separator + 3)?] {
        for option in String::from_utf8_lossy(field).split(',') {
            if !option.is_empty() && !options.iter().any(|o| o == option) {
                options.push(option.to_owned());
            }
        }
    }
    Some((mount.mount_point, options))
}

fn system(device: &Path, what: &'static str, source: std::io::Error) -> DeviceStateError {
    DeviceStateError::System {
        device: device.to_path_buf(),
        what,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_the_mounts_then_the_super_blocks_without_repeats() {
        let cases: [(&str, &str, &[&str]); 2] = [
            (
                "40 27 7:3 / /mnt/db rw,relatime shared:1 - ext4 /dev/loop3 rw,nodiscard",
                "/mnt/db",
                &["rw", "relatime", "nodiscard"],
            ),
            (
                "41 27 7:4 / /mnt/x\\040y rw,noatime - xfs /dev/loop4 rw,attr2,discard,noquota",
                "/mnt/x y",
                &["rw", "noatime", "attr2", "discard", "noquota"],
            ),
        ];
        for (line, point, expected) in cases {
            let (parsed_point, options) = options_of_line(line.as_bytes()).expect(line);
            assert_eq!(parsed_point, PathBuf::from(point));
            assert_eq!(options, expected.to_vec(), "{line}");
        }
        assert_eq!(options_of_line(b"40 27 7:3 / /mnt rw"), None);
    }

    #[test]
    fn the_root_mount_has_options() {
        let options = mount_options(Path::new("/")).expect("/ is mounted");
        assert!(
            options.iter().any(|o| o == "rw" || o == "ro"),
            "{options:?}"
        );
    }

    #[test]
    fn mkfs_never_discards() {
        assert!(Filesystem::Ext4.mkfs().1.contains(&"nodiscard"));
        assert!(Filesystem::Xfs.mkfs().1.contains(&"-K"));
    }
}
