//! The state a run's device was brought to before the load, as result.json's `start_state`
//! keeps it: the device, its purge, the filesystem with the mount options the kernel applied,
//! the fill.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::start_state::Filesystem;
use drivebench_core::config::units::format_bytes;

/// result.json's `start_state`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct StartStateReport {
    /// The whole block device, canonical (e.g. "/dev/loop3").
    pub device: String,
    /// Its capacity, bytes.
    pub device_bytes: u64,
    pub purge: PurgeReport,
    pub filesystem: Filesystem,
    /// The mkfs command line that made it (never with discard).
    pub mkfs: String,
    /// Where it was mounted: the run's target directory.
    pub mount_point: String,
    /// The mount's options as /proc/self/mountinfo showed them (never "discard").
    pub mount_options: Vec<String>,
    /// The fill written before the load; absent without `fill`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<FillReport>,
}

/// How the device was purged.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum PurgeReport {
    /// Every block discarded (BLKDISCARD).
    Discard { bytes_discarded: u64, seconds: f64 },
    /// Not purged.
    None,
}

/// The fill file written on the new filesystem: incompressible data, fsynced.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FillReport {
    /// Its path on the filesystem.
    pub file: String,
    /// The share of the device asked for, %.
    pub share_pct: f64,
    pub bytes: u64,
    pub seconds: f64,
    /// Write rate, 10^6 bytes per second.
    pub mb_s: f64,
}

impl StartStateReport {
    /// One line: "/dev/loop3 (512.0 MiB): discarded, ext4 mounted rw,relatime, filled 50 %
    /// (256.0 MiB at 310 MB/s)".
    pub fn line(&self) -> String {
        let purge = match &self.purge {
            PurgeReport::Discard { .. } => "discarded",
            PurgeReport::None => "not purged",
        };
        let fill = match &self.fill {
            Some(f) => format!(
                "filled {} % ({} at {:.0} MB/s)",
                f.share_pct,
                format_bytes(f.bytes),
                f.mb_s
            ),
            None => "no fill".to_owned(),
        };
        format!(
            "{} ({}): {purge}, {} mounted {}, {fill}",
            self.device,
            format_bytes(self.device_bytes),
            self.filesystem.as_str(),
            self.mount_options.join(",")
        )
    }

    /// What two runs must share to have started from the same state: the purge, the
    /// filesystem and the fill's share.
    pub fn same_start(&self, other: &StartStateReport) -> bool {
        let share = |s: &StartStateReport| s.fill.as_ref().map(|f| f.share_pct);
        std::mem::discriminant(&self.purge) == std::mem::discriminant(&other.purge)
            && self.filesystem == other.filesystem
            && share(self) == share(other)
    }
}
