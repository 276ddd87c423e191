//! A phase's drive health as result.json keeps it: the drive's health log read before and
//! after the phase and what changed in between, or why no log could be read (a virtio, loop
//! or zram device; a controller that refused the command).

use drivebench_system::health::{HealthDelta, HealthLog};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The drive's health over one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PhaseHealth {
    /// Both readings succeeded: `device` is the disk they were read from.
    Read {
        device: String,
        before: Box<HealthLog>,
        after: Box<HealthLog>,
        delta: HealthDelta,
    },
    /// No health log: `reason` says why.
    Unavailable { device: String, reason: String },
}

impl PhaseHealth {
    /// The drive throttled during the phase (false when nothing could be read).
    pub fn throttled(&self) -> bool {
        match self {
            PhaseHealth::Read { delta, .. } => delta.throttled,
            PhaseHealth::Unavailable { .. } => false,
        }
    }

    /// The one line saying that no log was read, when none was.
    pub fn unavailable_line(&self) -> Option<String> {
        match self {
            PhaseHealth::Read { .. } => None,
            PhaseHealth::Unavailable { device, reason } => Some(unavailable_line(device, reason)),
        }
    }
}

/// `drive health: no health log on vda (virtio disk: not NVMe or ATA)`.
pub fn unavailable_line(device: &str, reason: &str) -> String {
    format!("drive health: no health log on {device} ({reason})")
}
