//! The target a point runs on, open for direct I/O: a regular file (created and fully
//! allocated when absent, never sparse, and marked as drivebench's) or a block device (only through the destructive-write
//! guard in [`crate::target::guard`]).

use std::fs::File;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::direct::{self, DirectAlignment};
use super::error::IoError;
use crate::target::DeviceIdentity;
use crate::target::guard::claim_block_device;
use crate::target::leftovers::{Kind, mark_file};

/// What to open.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetSpec {
    /// A regular file of `size_bytes`: created and allocated with fallocate when absent; an
    /// existing file must be at least that large (only its first `size_bytes` are used).
    File {
        /// Path of the file.
        path: PathBuf,
        /// Bytes the point may touch.
        size_bytes: u64,
    },
    /// A whole block device or partition; its data is destroyed by writes.
    BlockDevice {
        /// Device path (links such as /dev/disk/by-id/... are resolved).
        path: PathBuf,
        /// Explicit consent to overwrite the device.
        destroy_data: bool,
    },
}

/// Whether the target is a file or a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A regular file on a filesystem.
    File,
    /// A block device claimed exclusively.
    BlockDevice,
}

/// An open target: the descriptor (O_DIRECT), its usable size and its alignment rules.
#[derive(Debug)]
pub struct DirectTarget {
    /// Descriptor opened with O_RDWR | O_DIRECT (and O_EXCL for a device).
    pub file: File,
    /// Path as opened.
    pub path: PathBuf,
    /// File or device.
    pub kind: TargetKind,
    /// Bytes that points may address: `[0, size_bytes)`.
    pub size_bytes: u64,
    /// Direct-I/O alignment.
    pub alignment: DirectAlignment,
    /// Device identity (block devices only).
    pub device: Option<DeviceIdentity>,
}

/// statfs magic of tmpfs, where O_DIRECT is accepted but data stays in memory.
const TMPFS_MAGIC: i64 = 0x0102_1994;

/// Open (and for an absent file, create) the target.
pub fn open_target(spec: &TargetSpec) -> Result<DirectTarget, IoError> {
    match spec {
        TargetSpec::File { path, size_bytes } => open_file(path, *size_bytes),
        TargetSpec::BlockDevice { path, destroy_data } => {
            let claimed = claim_block_device(path, *destroy_data)?;
            let size_bytes = rustix::fs::seek(&claimed.file, rustix::fs::SeekFrom::End(0))
                .map_err(|e| system(&claimed.path, "size", e.into()))?;
            Ok(DirectTarget {
                alignment: direct::discover(&claimed.file, true),
                file: claimed.file,
                path: claimed.path,
                kind: TargetKind::BlockDevice,
                size_bytes,
                device: claimed.identity,
            })
        }
    }
}

/// The first byte of `[0, end)` of the file at `path` that holds nothing written since the
/// file was allocated: a hole, or an extent allocated and never written, which ext4, XFS and
/// btrfs report as a hole (reads of it are answered from the filesystem's metadata, without
/// the drive). `None` when all of it was written, or when the filesystem cannot tell (its
/// SEEK_HOLE then answers the end of the file).
pub fn first_unwritten(path: &Path, end: u64) -> Result<Option<u64>, IoError> {
    let file = File::open(path).map_err(|e| system(path, "open", e))?;
    let hole = rustix::fs::seek(&file, rustix::fs::SeekFrom::Hole(0))
        .map_err(|e| system(path, "look for unwritten blocks (SEEK_HOLE)", e.into()))?;
    Ok((hole < end).then_some(hole))
}

fn system(path: &Path, what: &'static str, source: std::io::Error) -> IoError {
    IoError::System {
        path: path.to_path_buf(),
        what,
        source,
    }
}

fn open_direct(path: &Path, create: bool) -> Result<File, IoError> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(create)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EINVAL) => IoError::NoDirectIo {
                path: path.to_path_buf(),
                reason: "the filesystem refuses O_DIRECT (EINVAL)".to_owned(),
            },
            _ => system(path, if create { "create" } else { "open" }, e),
        })
}

fn open_file(path: &Path, size_bytes: u64) -> Result<DirectTarget, IoError> {
    if size_bytes == 0 {
        return Err(IoError::InvalidSpec(format!("{}: size 0", path.display())));
    }
    let existing = match std::fs::metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(system(path, "stat", e)),
    };
    let file = match &existing {
        Some(meta) if meta.file_type().is_block_device() => {
            return Err(IoError::WrongKind {
                path: path.to_path_buf(),
                reason: "a block device; open it as a block device target".to_owned(),
            });
        }
        Some(meta) if !meta.is_file() => {
            return Err(IoError::WrongKind {
                path: path.to_path_buf(),
                reason: "not a regular file".to_owned(),
            });
        }
        Some(meta) if meta.len() < size_bytes => {
            return Err(IoError::TooSmall {
                path: path.to_path_buf(),
                actual_bytes: meta.len(),
                wanted_bytes: size_bytes,
            });
        }
        Some(_) => open_direct(path, false)?,
        None => {
            let file = open_direct(path, true)?;
            let allocated =
                rustix::fs::fallocate(&file, rustix::fs::FallocateFlags::empty(), 0, size_bytes);
            if let Err(e) = allocated {
                let _ = std::fs::remove_file(path);
                return Err(system(
                    path,
                    "fallocate (allocate the whole file)",
                    e.into(),
                ));
            }
            file
        }
    };
    // f_type is i64 here but narrower on other architectures.
    #[allow(clippy::unnecessary_cast)]
    let on_tmpfs = rustix::fs::fstatfs(&file).is_ok_and(|fs| fs.f_type as i64 == TMPFS_MAGIC);
    if on_tmpfs {
        if existing.is_none() {
            let _ = std::fs::remove_file(path);
        }
        return Err(IoError::NoDirectIo {
            path: path.to_path_buf(),
            reason: "tmpfs keeps data in memory, so direct I/O there measures RAM".to_owned(),
        });
    }
    // A file drivebench created is marked as its own, for `drivebench clean`.
    if existing.is_none()
        && let Err(e) = mark_file(path, Kind::SweepFile)
    {
        let _ = std::fs::remove_file(path);
        return Err(system(path, "write the marker beside", e));
    }
    Ok(DirectTarget {
        alignment: direct::discover(&file, false),
        file,
        path: path.to_path_buf(),
        kind: TargetKind::File,
        size_bytes,
        device: None,
    })
}
