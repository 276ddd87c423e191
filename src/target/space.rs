//! How much room the target's filesystem has, and how to say it.

use std::path::Path;

use super::{TargetError, resolve};

/// Size and free space of one filesystem, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Usage {
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

/// Human-readable binary size, e.g. 1536 -> "1.5 KiB", 25769803776 -> "24.0 GiB", 512 -> "512 B".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    // Move up a unit when one decimal would round to 1024.0.
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_in_binary_units_with_one_decimal() {
        const KIB: u64 = 1 << 10;
        const MIB: u64 = 1 << 20;
        const GIB: u64 = 1 << 30;
        const TIB: u64 = 1 << 40;
        let cases = [
            (0, "0 B"),
            (1, "1 B"),
            (512, "512 B"),
            (1023, "1023 B"),
            (KIB, "1.0 KiB"),
            (1536, "1.5 KiB"),
            (10 * KIB + 100, "10.1 KiB"),
            (MIB - 1, "1.0 MiB"),
            (MIB, "1.0 MiB"),
            (500 * MIB, "500.0 MiB"),
            (25_769_803_776, "24.0 GiB"),
            (23 * GIB + 400 * MIB, "23.4 GiB"),
            (TIB, "1.0 TiB"),
            (3 * TIB / 2, "1.5 TiB"),
            (1 << 50, "1.0 PiB"),
            (u64::MAX, "16.0 EiB"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(format_bytes(bytes), expected, "{bytes} bytes");
        }
    }

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
