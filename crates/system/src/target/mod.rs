//! The drive under test: the directory a benchmark writes into, the
//! filesystem and mount that hold it, the block device underneath, and
//! whether there is room for the data a run is about to write.
//!
//! Facts come from `/proc/self/mountinfo`, `statvfs(3)` and sysfs.
//! [`describe`] is best-effort and never fails: whatever cannot be found is
//! `None`. [`prepare`] is the only function with side effects: it creates the
//! directory and refuses to go on when the data would not fit. [`leftovers`] marks what
//! drivebench creates on a target and finds it again for `drivebench clean`. [`device_state`]
//! brings a whole device the run owns to a known start: discarded, a filesystem made without
//! discard, mounted under a guard. [`nvme`] purges an NVMe namespace by the drive itself
//! (Format NVM, Sanitize) through the health log's admin passthrough.

pub mod device_state;
pub mod guard;
mod identity;
pub mod leftovers;
pub mod nvme;
pub mod space;

use drivebench_core::config::units::format_bytes;
use std::path::{Component, Path, PathBuf};

pub use space::free_space_bytes;

/// Where a run's data lives, as far as it could be found out.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema, PartialEq)]
pub struct TargetInfo {
    /// Absolute path of the target directory (canonicalised where it exists).
    pub path: String,
    /// Filesystem type, e.g. "ext4", "xfs", "overlay".
    pub filesystem: Option<String>,
    /// Mount point of the filesystem holding the target.
    pub mount_point: Option<String>,
    /// What is mounted there, e.g. "/dev/vda" or "tmpfs".
    pub mount_source: Option<String>,
    /// Bytes available to an unprivileged user on that filesystem.
    pub free_bytes: Option<u64>,
    /// Size of that filesystem in bytes.
    pub total_bytes: Option<u64>,
    /// The block device underneath, when the filesystem sits on one.
    pub device: Option<DeviceIdentity>,
}

impl TargetInfo {
    /// "PATH (FS on SOURCE)", or the path alone when the filesystem is unknown.
    pub fn describe(&self) -> String {
        match &self.filesystem {
            Some(fs) => format!(
                "{} ({fs} on {})",
                self.path,
                self.mount_source.as_deref().unwrap_or("?")
            ),
            None => self.path.clone(),
        }
    }
}

/// The block device a filesystem sits on, as described by sysfs.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema, PartialEq)]
pub struct DeviceIdentity {
    /// Kernel name of the whole disk, e.g. "vda", "nvme0n1", "sda".
    pub name: String,
    /// Kernel name of the partition holding the filesystem, e.g. "nvme0n1p2".
    pub partition: Option<String>,
    /// Model string reported by the device.
    pub model: Option<String>,
    /// Serial number (or WWID when no serial is exposed).
    pub serial: Option<String>,
    /// Firmware revision.
    pub firmware: Option<String>,
    /// Size of the whole disk in bytes.
    pub capacity_bytes: Option<u64>,
    /// Smallest unit the device can address, in bytes.
    pub logical_block_size: Option<u64>,
    /// Smallest unit the device writes without read-modify-write, in bytes.
    pub physical_block_size: Option<u64>,
    /// Whether the kernel treats the device as spinning media.
    pub rotational: Option<bool>,
}

/// Why a target directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("target {path}: cannot create directory: {source}")]
    Create {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("target {path}: not a directory")]
    NotADirectory { path: String },
    #[error(
        "target {path}: not enough free space: the data needs about {needed} but only {free} is free on {mount}"
    )]
    NoSpace {
        path: String,
        needed: String,
        free: String,
        mount: String,
    },
    #[error("target {path}: cannot read free space: {source}")]
    Statvfs {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Facts about the target without side effects; `path` may not exist yet
/// (then the nearest existing ancestor is inspected).
pub fn describe(path: &Path) -> TargetInfo {
    let resolved = resolve(path);
    let existing = resolved.existing.as_deref();
    let mount = existing.and_then(identity::mount_of);
    let usage = existing.and_then(|p| space::usage(p).ok());
    let device = mount
        .as_ref()
        .and_then(|m| identity::device_identity(Path::new("/sys"), m.major, m.minor));
    TargetInfo {
        path: resolved.full.to_string_lossy().into_owned(),
        filesystem: mount.as_ref().map(|m| m.fs_type.clone()),
        mount_point: mount
            .as_ref()
            .map(|m| m.mount_point.to_string_lossy().into_owned()),
        mount_source: mount
            .as_ref()
            .map(|m| m.source.clone())
            .filter(|s| !s.is_empty()),
        free_bytes: usage.as_ref().map(|u| u.free),
        total_bytes: usage.as_ref().map(|u| u.total),
        device,
    }
}

/// Create the directory (and parents) if absent, refuse if it is a file,
/// check that `needed_bytes` fits in the free space (NoSpace otherwise), and
/// return describe() of it.
///
/// The space check runs before anything is created, so a refused target
/// leaves the filesystem untouched.
pub fn prepare(path: &Path, needed_bytes: u64) -> Result<TargetInfo, TargetError> {
    let resolved = resolve(path);
    let shown = resolved.full.display().to_string();
    if std::fs::metadata(&resolved.full).is_ok_and(|meta| !meta.is_dir()) {
        return Err(TargetError::NotADirectory { path: shown });
    }
    let free = free_space_bytes(&resolved.full)?;
    if needed_bytes > free {
        let mount = describe(&resolved.full)
            .mount_point
            .or_else(|| resolved.existing.map(|p| p.display().to_string()))
            .unwrap_or_else(|| shown.clone());
        return Err(TargetError::NoSpace {
            path: shown,
            needed: format_bytes(needed_bytes),
            free: format_bytes(free),
            mount,
        });
    }
    std::fs::create_dir_all(&resolved.full).map_err(|source| TargetError::Create {
        path: shown,
        source,
    })?;
    Ok(describe(&resolved.full))
}

/// A path made absolute, split at its nearest existing ancestor.
struct Resolved {
    /// The canonical existing ancestor with the rest of the path appended.
    full: PathBuf,
    /// The canonical nearest existing ancestor, if any could be found.
    existing: Option<PathBuf>,
}

/// Canonicalise `path` component by component for as long as the components
/// exist, then append the rest lexically: components that do not exist
/// cannot be symlinks, so a `..` among them simply drops the one before it.
fn resolve(path: &Path) -> Resolved {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut full = PathBuf::new();
    // How many components at the end of `full` do not exist.
    let mut missing = 0usize;
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                full.pop();
                missing = missing.saturating_sub(1);
            }
            Component::RootDir | Component::Prefix(_) | Component::Normal(_) => {
                full.push(component);
                if missing > 0 {
                    missing += 1;
                } else if let Ok(canonical) = std::fs::canonicalize(&full) {
                    full = canonical;
                } else {
                    missing = 1;
                }
            }
        }
    }
    let mut existing = full.clone();
    for _ in 0..missing {
        existing.pop();
    }
    if existing.as_os_str().is_empty() {
        tracing::debug!(path = %path.display(), "no existing ancestor found");
    }
    Resolved {
        full,
        existing: Some(existing).filter(|p| !p.as_os_str().is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tempdir() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("create tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonicalise tempdir");
        (dir, root)
    }

    #[test]
    fn resolve_appends_missing_components_to_the_nearest_existing_ancestor() {
        let (_dir, root) = tempdir();
        std::fs::create_dir(root.join("a")).expect("mkdir a");
        // (input relative to root, expected full path, expected existing ancestor)
        let cases = [
            ("a", "a", "a"),
            ("a/b/c", "a/b/c", "a"),
            ("x/y", "x/y", ""),
            ("a/../x", "x", ""),
            ("x/../a/b", "a/b", "a"),
            ("x/y/../../a/b/../c", "a/c", "a"),
            ("a/./b", "a/b", "a"),
        ];
        for (input, full, existing) in cases {
            let resolved = resolve(&root.join(input));
            assert_eq!(resolved.full, root.join(full), "full path of {input}");
            let expected_existing = if existing.is_empty() {
                root.clone()
            } else {
                root.join(existing)
            };
            assert_eq!(
                resolved.existing,
                Some(expected_existing),
                "existing ancestor of {input}"
            );
        }
    }

    #[test]
    fn resolve_follows_symlinks_in_the_existing_part() {
        let (_dir, root) = tempdir();
        std::fs::create_dir(root.join("real")).expect("mkdir real");
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).expect("symlink");
        let resolved = resolve(&root.join("link/new"));
        assert_eq!(resolved.full, root.join("real/new"));
        assert_eq!(resolved.existing, Some(root.join("real")));
    }

    #[test]
    fn prepare_creates_a_nested_directory_and_describes_it() {
        let (_dir, root) = tempdir();
        let target = root.join("one/two/three");
        let info = prepare(&target, 0).expect("prepare");
        assert!(target.is_dir());
        assert_eq!(info.path, target.display().to_string());
        assert!(info.free_bytes.is_some());
        assert!(info.total_bytes.is_some());
    }

    #[test]
    fn prepare_accepts_an_existing_directory() {
        let (_dir, root) = tempdir();
        let info = prepare(&root, 1).expect("prepare");
        assert_eq!(info.path, root.display().to_string());
    }

    #[test]
    fn prepare_refuses_a_regular_file() {
        let (_dir, root) = tempdir();
        let file = root.join("file");
        std::fs::write(&file, b"not a directory").expect("write file");
        let err = prepare(&file, 0).expect_err("a file is not a target");
        assert!(
            matches!(&err, TargetError::NotADirectory { path } if *path == file.display().to_string()),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("target {}: not a directory", file.display())
        );
    }

    #[test]
    fn prepare_refuses_data_that_does_not_fit_and_creates_nothing() {
        let (_dir, root) = tempdir();
        let target = root.join("big");
        let err = prepare(&target, u64::MAX).expect_err("16 EiB cannot fit");
        let message = err.to_string();
        let TargetError::NoSpace {
            path,
            needed,
            free,
            mount,
        } = err
        else {
            panic!("expected NoSpace, got {message}");
        };
        assert_eq!(path, target.display().to_string());
        assert_eq!(needed, "16.0 EiB");
        assert!(!free.is_empty());
        assert!(!mount.is_empty());
        for part in [&path, &needed, &free, &mount] {
            assert!(
                message.contains(part.as_str()),
                "{message:?} lacks {part:?}"
            );
        }
        assert!(!target.exists(), "a refused target must not be created");
    }

    #[test]
    fn describe_root_finds_its_filesystem() {
        let info = describe(Path::new("/"));
        assert_eq!(info.path, "/");
        assert!(info.filesystem.is_some(), "{info:?}");
        assert_eq!(info.mount_point.as_deref(), Some("/"));
        assert!(info.total_bytes.is_some_and(|total| total > 0), "{info:?}");
    }

    #[test]
    fn describe_a_missing_path_inspects_its_ancestor() {
        let (_dir, root) = tempdir();
        let missing = root.join("not/yet");
        let info = describe(&missing);
        assert_eq!(info.path, missing.display().to_string());
        assert_eq!(info.filesystem, describe(&root).filesystem);
        assert!(!missing.exists(), "describe must not create anything");
    }
}
