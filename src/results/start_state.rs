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
    /// What is on the device: a filesystem made for the run, or nothing (a sweep's raw device).
    #[serde(flatten)]
    pub layout: Layout,
    /// The fill written before the load; absent without `fill`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<FillReport>,
}

/// What the run put on the device before the load.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum Layout {
    /// A filesystem made without discard, mounted on the run's target directory.
    Filesystem(FilesystemReport),
    /// No filesystem: an ad-hoc sweep on the raw device (`"layout": "raw"`).
    Raw { layout: RawLayout },
}

/// The one value of `layout` on a raw device.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RawLayout {
    Raw,
}

/// The filesystem made on the device and its mount.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FilesystemReport {
    pub filesystem: Filesystem,
    /// The mkfs command line that made it (never with discard).
    pub mkfs: String,
    /// Where it was mounted: the run's target directory.
    pub mount_point: String,
    /// The mount's options as /proc/self/mountinfo showed them (never "discard").
    pub mount_options: Vec<String>,
}

impl Layout {
    /// "ext4 mounted rw,relatime", or "no filesystem (raw device)".
    fn text(&self) -> String {
        match self {
            Layout::Filesystem(f) => format!(
                "{} mounted {}",
                f.filesystem.as_str(),
                f.mount_options.join(",")
            ),
            Layout::Raw { .. } => "no filesystem (raw device)".to_owned(),
        }
    }

    /// The filesystem made, None on a raw device.
    pub fn filesystem(&self) -> Option<Filesystem> {
        match self {
            Layout::Filesystem(f) => Some(f.filesystem),
            Layout::Raw { .. } => None,
        }
    }
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

/// The fill written before the load, incompressible data: a file on the new filesystem,
/// fsynced, or on a raw device its first `bytes`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FillReport {
    /// Its path on the filesystem; on a raw device, the device.
    pub file: String,
    /// The share of the device asked for, %.
    pub share_pct: f64,
    pub bytes: u64,
    pub seconds: f64,
    /// Write rate, 10^6 bytes per second.
    pub mb_s: f64,
}

impl FillReport {
    /// The record of a fill of `share_pct` % written into `file`.
    pub fn of(
        file: String,
        share_pct: f64,
        done: &drivebench_system::io::fill::FillResult,
    ) -> Self {
        FillReport {
            file,
            share_pct,
            bytes: done.bytes,
            seconds: done.seconds,
            mb_s: done.mb_s,
        }
    }
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
            "{} ({}): {purge}, {}, {fill}",
            self.device,
            format_bytes(self.device_bytes),
            self.layout.text()
        )
    }

    /// What two runs must share to have started from the same state: the purge, the
    /// filesystem (or none) and the fill's share.
    pub fn same_start(&self, other: &StartStateReport) -> bool {
        let share = |s: &StartStateReport| s.fill.as_ref().map(|f| f.share_pct);
        std::mem::discriminant(&self.purge) == std::mem::discriminant(&other.purge)
            && self.layout.filesystem() == other.layout.filesystem()
            && share(self) == share(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filesystem_and_a_raw_device_read_back_as_written() {
        let fs = serde_json::json!({
            "device": "/dev/loop3", "device_bytes": 1024, "purge": {"method": "none"},
            "filesystem": "ext4", "mkfs": "mkfs.ext4 -E nodiscard /dev/loop3",
            "mount_point": "/mnt", "mount_options": ["rw"]
        });
        let read: StartStateReport = serde_json::from_value(fs.clone()).unwrap();
        assert_eq!(read.layout.filesystem(), Some(Filesystem::Ext4));
        assert_eq!(serde_json::to_value(&read).unwrap(), fs);
        let raw = serde_json::json!({
            "device": "/dev/loop3", "device_bytes": 1024, "purge": {"method": "none"},
            "layout": "raw"
        });
        let read: StartStateReport = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(read.layout.filesystem(), None);
        assert_eq!(serde_json::to_value(&read).unwrap(), raw);
        assert!(
            read.line().contains("no filesystem (raw device)"),
            "{}",
            read.line()
        );
        let neither = serde_json::json!({
            "device": "/dev/loop3", "device_bytes": 1024, "purge": {"method": "none"}
        });
        assert!(serde_json::from_value::<StartStateReport>(neither).is_err());
    }
}
