//! The drive's health log around the phases: read once before the first phase's clock starts
//! and again as each phase closes (at the boundary, on a blocking thread, never inside a
//! client's transaction), each phase getting the reading before it, the one after it and what
//! changed. A target with no readable log says so in one console line and records why in every
//! phase; nothing fails.
//!
//! Where the first reading succeeded the log is also read at every report tick (started as
//! the tick is taken, awaited just before the interval's rows are written), each interval
//! marked from the readings at its boundaries; a failed reading leaves its intervals
//! unmarked. A disk with no log is never read per interval. A phase's last tick is its
//! boundary: its reading, when it succeeded, is also the phase's closing one.

use std::path::Path;

use drivebench_system::health::interval::{IntervalMarks, ThrottleMark};
use drivebench_system::health::read::{HealthLog, read_number};
use drivebench_system::health::{HealthDelta, HealthRead};
use drivebench_system::telemetry::{Devices, resolve};

use crate::console::Console;
use crate::results::health::{PhaseHealth, unavailable_line};

/// The target's disk and its last reading.
pub struct HealthWatch {
    /// The disk's kernel name ("the target" when none was found).
    device: String,
    /// The disk's device number, when the target has one.
    disk: Option<(u32, u32)>,
    last: HealthRead,
    /// Per-interval readings, when the first reading succeeded.
    intervals: Option<IntervalWatch>,
}

/// What the per-interval readings need: the disk and the marks so far.
struct IntervalWatch {
    disk: (u32, u32),
    marks: IntervalMarks,
}

/// A reading started at a report tick, or none where intervals are not read.
pub enum IntervalRead {
    Skipped,
    Pending(tokio::task::JoinHandle<HealthRead>),
}

impl HealthWatch {
    /// Find the disk under `target` and read it; say so on the console when nothing can be
    /// read.
    pub async fn start(target: &Path, console: &Console) -> HealthWatch {
        let (device, disk, last) = match disk_under(target) {
            DiskUnder::Disk { name, number } => (name, Some(number), read_blocking(number).await),
            DiskUnder::None { reason } => (
                "the target".to_string(),
                None,
                HealthRead::Unavailable { reason },
            ),
        };
        if let HealthRead::Unavailable { reason } = &last {
            console.line(&unavailable_line(&device, reason));
        }
        let intervals = match (&disk, &last) {
            (Some(disk), HealthRead::Read(log)) => Some(IntervalWatch {
                disk: *disk,
                marks: IntervalMarks::new(Some(log.clone())),
            }),
            _ => None,
        };
        HealthWatch {
            device,
            disk,
            last,
            intervals,
        }
    }

    /// Start the reading at a report tick's end, on a blocking thread; none where the disk
    /// had no log at the start.
    pub fn begin_interval(&self) -> IntervalRead {
        match &self.intervals {
            Some(iv) => {
                let (major, minor) = iv.disk;
                IntervalRead::Pending(tokio::task::spawn_blocking(move || {
                    read_number(major, minor)
                }))
            }
            None => IntervalRead::Skipped,
        }
    }

    /// The interval `read` closes: its mark (not read when it failed or was skipped).
    pub async fn end_interval(&mut self, read: IntervalRead) -> ThrottleMark {
        let (IntervalRead::Pending(handle), Some(iv)) = (read, self.intervals.as_mut()) else {
            return ThrottleMark::NotRead;
        };
        let end = match handle.await {
            Ok(HealthRead::Read(log)) => Some(log),
            Ok(HealthRead::Unavailable { .. }) | Err(_) => None,
        };
        iv.marks.close(end)
    }

    /// The reading at the phase's end: the phase that ends now gets the previous reading, this
    /// one and the difference; the next phase starts from this one. Where the phase's last
    /// tick was read, that reading is the phase's end (the drive is not asked twice at one
    /// boundary); otherwise the log is read now.
    pub async fn close_phase(&mut self) -> PhaseHealth {
        let at_tick = (self.intervals.as_ref()).and_then(|iv| iv.marks.last().cloned());
        let now = match (at_tick, &self.disk) {
            (Some(log), _) => HealthRead::Read(log),
            (None, Some(disk)) if matches!(self.last, HealthRead::Read(_)) => {
                read_blocking(*disk).await
            }
            (None, _) => self.last.clone(),
        };
        if let Some(iv) = self.intervals.as_mut() {
            iv.marks.restart(logged(&now));
        }
        let device = self.device.clone();
        let health = match (&self.last, &now) {
            (HealthRead::Read(before), HealthRead::Read(after)) => {
                match HealthDelta::between(before, after) {
                    Ok(delta) => PhaseHealth::Read {
                        device,
                        before: Box::new(before.clone()),
                        after: Box::new(after.clone()),
                        delta,
                    },
                    Err(e) => PhaseHealth::Unavailable {
                        device,
                        reason: e.to_string(),
                    },
                }
            }
            (HealthRead::Unavailable { reason }, _) | (_, HealthRead::Unavailable { reason }) => {
                PhaseHealth::Unavailable {
                    device,
                    reason: reason.clone(),
                }
            }
        };
        self.last = now;
        health
    }
}

/// The log of a reading that succeeded.
fn logged(read: &HealthRead) -> Option<HealthLog> {
    match read {
        HealthRead::Read(log) => Some(log.clone()),
        HealthRead::Unavailable { .. } => None,
    }
}

/// The disk under a target: its kernel name and device number, or why there is none.
enum DiskUnder {
    Disk { name: String, number: (u32, u32) },
    None { reason: String },
}

/// The disk under `target`: the first physical member of its device stack (a stack of several
/// members is read at its first), or why there is none.
fn disk_under(target: &Path) -> DiskUnder {
    let none = |reason: String| DiskUnder::None { reason };
    let stack = match resolve(target) {
        Ok(Devices::Stack(stack)) => stack,
        Ok(Devices::NoDevice { major, minor }) => {
            return none(format!("no block device (device number {major}:{minor})"));
        }
        Ok(Devices::Unresolved { reason }) => return none(reason),
        Err(e) => return none(e.to_string()),
    };
    match stack.members().next() {
        Some(m) => DiskUnder::Disk {
            name: m.name.clone(),
            number: (m.major, m.minor),
        },
        None => none("no physical disk under the target".into()),
    }
}

/// Read `disk` on a blocking thread: the ioctl waits for the drive.
async fn read_blocking((major, minor): (u32, u32)) -> HealthRead {
    tokio::task::spawn_blocking(move || read_number(major, minor))
        .await
        .unwrap_or_else(|e| HealthRead::Unavailable {
            reason: format!("the health read did not finish: {e}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivebench_system::health::nvme::NvmeSmart;

    /// A watch whose first reading succeeded (an NVMe SMART page of zeros at the
    /// specification's length) on the disk numbered `disk`.
    fn watch_on(disk: (u32, u32)) -> HealthWatch {
        let log = HealthLog::Nvme {
            smart: NvmeSmart::parse(&[0u8; 512]).unwrap(),
            ocp: None,
        };
        HealthWatch {
            device: "nvme9n1".into(),
            disk: Some(disk),
            last: HealthRead::Read(log.clone()),
            intervals: Some(IntervalWatch {
                disk,
                marks: IntervalMarks::new(Some(log)),
            }),
        }
    }

    #[tokio::test]
    async fn a_failed_interval_reading_leaves_the_interval_unmarked() {
        // No block device has this number: the reading fails, the interval is not read.
        let mut w = watch_on((u32::MAX, u32::MAX));
        let reading = w.begin_interval();
        assert!(matches!(reading, IntervalRead::Pending(_)));
        assert_eq!(w.end_interval(reading).await, ThrottleMark::NotRead);
    }

    #[tokio::test]
    async fn the_last_tick_reading_closes_the_phase_and_a_failed_one_is_read_again() {
        // No interval read yet: the start reading stands for the last tick's, the disk (which
        // cannot be read) is not asked.
        let mut w = watch_on((u32::MAX, u32::MAX));
        match w.close_phase().await {
            PhaseHealth::Read { delta, .. } => assert!(!delta.throttled),
            other => panic!("expected the tick's reading, got {other:?}"),
        }
        // The last tick's reading failed: the phase's end is read again, and fails here.
        let reading = w.begin_interval();
        assert_eq!(w.end_interval(reading).await, ThrottleMark::NotRead);
        assert!(matches!(
            w.close_phase().await,
            PhaseHealth::Unavailable { .. }
        ));
    }

    #[tokio::test]
    async fn a_disk_without_a_log_is_not_read_per_interval() {
        let mut w = watch_on((u32::MAX, u32::MAX));
        w.intervals = None;
        let reading = w.begin_interval();
        assert!(matches!(reading, IntervalRead::Skipped));
        assert_eq!(w.end_interval(reading).await, ThrottleMark::NotRead);
    }
}
