//! The fill of a start state: one file on the new filesystem, allocated whole and written
//! sequentially with the I/O engine's fill (seeded random data, every 4 KiB stamped with its
//! offset, so nothing compresses or deduplicates), then fsynced.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::results::start_state::FillReport;
use drivebench_system::io::fill::{FillSpec, fill};
use drivebench_system::io::{IoError, Region, TargetSpec, open_target};

/// The fill file's name in the filesystem's root.
pub const FILL_FILE: &str = "drivebench-fill";

/// The fill's unit: its size is rounded down to whole MiB.
const MIB: u64 = 1 << 20;

/// Bytes of a fill of `share_pct` % of a device of `device_bytes`, in whole MiB.
pub fn fill_bytes(device_bytes: u64, share_pct: f64) -> u64 {
    let bytes = (device_bytes as f64 * share_pct / 100.0) as u64;
    bytes / MIB * MIB
}

/// Write `bytes` of incompressible data into `dir`/[`FILL_FILE`], until done or `stop`.
pub fn write(
    dir: &Path,
    bytes: u64,
    share_pct: f64,
    seed: u64,
    stop: &AtomicBool,
) -> Result<FillReport, IoError> {
    let path = dir.join(FILL_FILE);
    let target = open_target(&TargetSpec::File {
        path: path.clone(),
        size_bytes: bytes,
    })?;
    let spec = FillSpec {
        seed,
        ..FillSpec::new(Region::WHOLE)
    };
    let done = fill(&target, &spec, stop, |_| {})?;
    Ok(FillReport::of(path.display().to_string(), share_pct, &done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_is_its_share_in_whole_mib() {
        let cases = [
            (512 * MIB, 50.0, 256 * MIB),
            (512 * MIB, 90.0, 460 * MIB),
            (1000 * MIB + 5, 25.0, 250 * MIB),
            (3 * MIB, 10.0, 0),
        ];
        for (device, share, expected) in cases {
            assert_eq!(fill_bytes(device, share), expected, "{device} {share}");
        }
    }
}
