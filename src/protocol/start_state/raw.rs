//! An ad-hoc sweep's raw device brought to a known state before it sweeps, through the
//! sweep's own exclusive descriptor: every block discarded (`--purge discard`), then, for a
//! fullness level, its first share written sequentially with incompressible data (the I/O
//! engine's fill: seeded random data, every 4 KiB stamped with its offset). No filesystem:
//! the record's layout is `raw`.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

use super::{StartStateError, stop_flag};
use crate::results::start_state::{FillReport, Layout, RawLayout, StartStateReport};
use crate::scenario::start_state::Purge;
use drivebench_system::io::fill::{FillSpec, fill};
use drivebench_system::io::{DirectTarget, Region};
use drivebench_system::target::device_state::{self, DeviceStateError};
use drivebench_system::target::guard::ClaimedDevice;

/// The state a sweep's raw device is brought to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawStart {
    pub purge: Purge,
    /// The share of the device written from its first byte, %; None for no fill.
    pub fill_pct: Option<f64>,
}

impl RawStart {
    /// The part of the device a sweep at this state touches: the filled part, or all of it.
    pub fn region(&self) -> Region {
        Region {
            start_fraction: 0.0,
            end_fraction: self.fill_pct.map_or(1.0, |pct| pct / 100.0),
        }
    }
}

/// Bring the device `target` opened to `start` on a blocking thread, stopped between fill
/// writes when `cancel` fires; the target is handed back with the record.
pub async fn reach_raw(
    target: DirectTarget,
    start: RawStart,
    seed: u64,
    cancel: &CancellationToken,
) -> Result<(DirectTarget, StartStateReport), StartStateError> {
    let (stop, watcher) = stop_flag(cancel);
    let work = tokio::task::spawn_blocking(move || {
        let report = reach_blocking(&target, start, seed, &stop);
        report.map(|r| (target, r))
    });
    let reached = work.await.unwrap_or(Err(StartStateError::Interrupted));
    watcher.abort();
    reached
}

fn reach_blocking(
    target: &DirectTarget,
    start: RawStart,
    seed: u64,
    stop: &AtomicBool,
) -> Result<StartStateReport, StartStateError> {
    let system = |source| DeviceStateError::System {
        device: target.path.clone(),
        what: "duplicate the descriptor",
        source,
    };
    let device = ClaimedDevice {
        file: target.file.try_clone().map_err(system)?,
        path: target.path.clone(),
        identity: target.device.clone(),
    };
    let device_bytes = device_state::device_bytes(&device)?;
    let purge = super::purge(&device, start.purge, stop)?;
    let fill = match start.fill_pct {
        Some(share_pct) => Some(fill_share(target, start, share_pct, seed, stop)?),
        None => None,
    };
    Ok(StartStateReport {
        device: target.path.display().to_string(),
        device_bytes,
        purge,
        layout: Layout::Raw {
            layout: RawLayout::Raw,
        },
        fill,
    })
}

/// The device's first `share_pct` % written once, sequentially.
fn fill_share(
    target: &DirectTarget,
    start: RawStart,
    share_pct: f64,
    seed: u64,
    stop: &AtomicBool,
) -> Result<FillReport, StartStateError> {
    let spec = FillSpec {
        seed,
        ..FillSpec::new(start.region())
    };
    let done = fill(target, &spec, stop, |_| {})?;
    if stop.load(Ordering::Relaxed) {
        return Err(StartStateError::Interrupted);
    }
    Ok(FillReport::of(
        target.path.display().to_string(),
        share_pct,
        &done,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_sweeps_its_filled_part_and_no_fill_the_whole_device() {
        let at = |fill_pct| RawStart {
            purge: Purge::Discard,
            fill_pct,
        };
        assert_eq!(at(Some(25.0)).region().end_fraction, 0.25);
        assert_eq!(at(None).region(), Region::WHOLE);
    }
}
