//! The drive's health log around the phases: read once before the first phase's clock starts
//! and again as each phase closes (at the boundary, on a blocking thread, never inside a
//! client's transaction), each phase getting the reading before it, the one after it and what
//! changed. A target with no readable log says so in one console line and records why in every
//! phase; nothing fails.

use std::path::Path;

use drivebench_system::health::read::read_number;
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
        HealthWatch { device, disk, last }
    }

    /// Read again: the phase that ends now gets the previous reading, this one and the
    /// difference; the next phase starts from this one.
    pub async fn close_phase(&mut self) -> PhaseHealth {
        let now = match &self.disk {
            Some(disk) if matches!(self.last, HealthRead::Read(_)) => read_blocking(*disk).await,
            _ => self.last.clone(),
        };
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
