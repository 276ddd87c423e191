//! The state a run's device was brought to before the load, as result.json's `start_state`
//! keeps it: the device, its purge, the filesystem with the mount options the kernel applied,
//! the fill.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::start_state::Filesystem;
use drivebench_core::config::units::format_bytes;
use drivebench_system::target::nvme::command::{SanitizeAction, SecureErase};

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
    /// NVMe Format NVM of the namespace: what it erased, the LBA format index it kept, how
    /// long the drive took.
    Format {
        secure_erase: SecureErase,
        lba_format: u8,
        seconds: f64,
    },
    /// NVMe Sanitize of the controller: the action, how long until the drive finished it.
    Sanitize {
        action: SanitizeAction,
        seconds: f64,
    },
}

impl PurgeReport {
    /// As a run's start-state line says it: "discarded", "NVMe Format NVM (user data erase,
    /// LBA format 0, 12.5 s)".
    pub fn line(&self) -> String {
        match self {
            PurgeReport::Discard { .. } => "discarded".into(),
            PurgeReport::None => "not purged".into(),
            PurgeReport::Format {
                secure_erase,
                lba_format,
                seconds,
            } => format!(
                "NVMe Format NVM ({}, LBA format {lba_format}, {seconds:.1} s)",
                secure_erase.as_str()
            ),
            PurgeReport::Sanitize { action, seconds } => {
                format!("NVMe Sanitize ({}, {seconds:.1} s)", action.as_str())
            }
        }
    }

    /// As compare's short text says it: "discarded", "formatted (user data erase)".
    pub fn short(&self) -> String {
        match self {
            PurgeReport::Discard { .. } => "discarded".into(),
            PurgeReport::None => "not purged".into(),
            PurgeReport::Format { secure_erase, .. } => {
                format!("formatted ({})", secure_erase.as_str())
            }
            PurgeReport::Sanitize { action, .. } => format!("sanitized ({})", action.as_str()),
        }
    }
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
        let purge = self.purge.line();
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

    /// What two runs must share to have started from the same state: the purge (its method,
    /// and a format's erase or a sanitize's action), the filesystem (or none) and the fill's
    /// share.
    pub fn same_start(&self, other: &StartStateReport) -> bool {
        let share = |s: &StartStateReport| s.fill.as_ref().map(|f| f.share_pct);
        self.purge.short() == other.purge.short()
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

    #[test]
    fn each_purge_is_recorded_by_its_method_and_said_in_a_line() {
        let cases = [
            (
                PurgeReport::Discard {
                    bytes_discarded: 1 << 20,
                    seconds: 0.5,
                },
                serde_json::json!({"method": "discard", "bytes_discarded": 1 << 20, "seconds": 0.5}),
                "discarded",
                "discarded",
            ),
            (
                PurgeReport::None,
                serde_json::json!({"method": "none"}),
                "not purged",
                "not purged",
            ),
            (
                PurgeReport::Format {
                    secure_erase: SecureErase::UserData,
                    lba_format: 1,
                    seconds: 12.25,
                },
                serde_json::json!({"method": "format", "secure_erase": "user_data", "lba_format": 1, "seconds": 12.25}),
                "NVMe Format NVM (user data erase, LBA format 1, 12.2 s)",
                "formatted (user data erase)",
            ),
            (
                PurgeReport::Sanitize {
                    action: SanitizeAction::CryptoErase,
                    seconds: 3.0,
                },
                serde_json::json!({"method": "sanitize", "action": "crypto_erase", "seconds": 3.0}),
                "NVMe Sanitize (crypto erase, 3.0 s)",
                "sanitized (crypto erase)",
            ),
        ];
        for (purge, json, line, short) in cases {
            assert_eq!(serde_json::to_value(&purge).unwrap(), json);
            let back: PurgeReport = serde_json::from_value(json).unwrap();
            assert_eq!(back, purge);
            assert_eq!(purge.line(), line);
            assert_eq!(purge.short(), short);
        }
    }
}
