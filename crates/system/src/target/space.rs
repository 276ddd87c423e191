//! How much room the target's filesystem has, and how to say it.

use std::path::Path;

use super::{TargetError, resolve};

/// Size and free space of one filesystem, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Available to an unprivileged user (reserved blocks excluded).
    pub free: u64,
    pub total: u64,
}

/// `statvfs` of the filesystem holding the existing path `path`.
pub(super) fn usage(path: &Path) -> std::io::Result<Usage> {
    let stats = rustix::fs::statvfs(path)?;
    Ok(Usage {
        free: stats.f_bavail.saturating_mul(stats.f_frsize),
        total: stats.f_blocks.saturating_mul(stats.f_frsize),
    })
}

/// The usage of the filesystem holding `path` when it is full, or nearly: less than 1 % of it
/// (and at least 8 MiB) free to an unprivileged user. What a write failing with ENOSPC leaves.
pub fn full(path: &Path) -> Option<Usage> {
    let existing = resolve(path).existing?;
    let u = usage(&existing).ok()?;
    (u.free < (u.total / 100).max(8 << 20)).then_some(u)
}

/// Free bytes available to an unprivileged user (statvfs f_bavail * f_frsize)
/// on the fs holding `path` or its nearest existing ancestor.
pub fn free_space_bytes(path: &Path) -> Result<u64, TargetError> {
    let resolved = resolve(path);
    let error = |source| TargetError::Statvfs {
        path: resolved.full.display().to_string(),
        source,
    };
    let existing = resolved.existing.as_deref().ok_or_else(|| {
        error(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no part of the path exists",
        ))
    })?;
    usage(existing).map(|u| u.free).map_err(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_of_a_missing_path_is_that_of_its_ancestor() {
        let dir = tempfile::tempdir().expect("create tempdir");
        let missing = dir.path().join("not/there/yet");
        assert!(free_space_bytes(&missing).is_ok());
        assert!(!missing.exists());
    }

    #[test]
    fn usage_never_reports_more_free_than_total() {
        let usage = usage(Path::new("/")).expect("statvfs /");
        assert!(usage.total > 0);
        assert!(usage.free <= usage.total);
    }

    #[test]
    fn free_space_of_a_path_with_nothing_existing_is_an_error() {
        // With no existing ancestor (a relative path from a vanished working
        // directory cannot be set up portably) the empty path stands in.
        let err = free_space_bytes(Path::new("")).expect_err("empty path");
        assert!(
            err.to_string()
                .starts_with("target : cannot read free space"),
            "{err}"
        );
    }
}
