//! A disk's health log, read through its interface: the NVMe SMART log (and the OCP extended
//! log where the drive has one) through the admin passthrough, an ATA disk's SMART table
//! through the SCSI generic ATA pass-through, or why there is none. Never an
//! error: a disk with no readable log is [`HealthRead::Unavailable`] with the reason.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ata::AtaSmart;
use super::interface::{self, Interface};
use super::nvme::{self, NvmeSmart};
use super::ocp::{self, OcpSmart};
use super::{passthru, sgio};
use crate::sysfs::BlockDevice;

/// A drive's health log at one instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "interface", rename_all = "snake_case")]
pub enum HealthLog {
    /// The NVMe SMART / Health Information log, and the OCP extended SMART log when the drive
    /// has one (absent otherwise).
    Nvme {
        smart: NvmeSmart,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ocp: Option<OcpSmart>,
    },
    /// The ATA SMART attribute table.
    Ata { smart: AtaSmart },
}

impl HealthLog {
    /// The drive's temperature, °C, when it gives one.
    pub fn temperature_c(&self) -> Option<f64> {
        match self {
            HealthLog::Nvme { smart, .. } => Some(smart.temperature_c()),
            HealthLog::Ata { smart } => smart.temperature_c(),
        }
    }
}

/// What reading a disk's health log gave.
#[derive(Debug, Clone, PartialEq)]
pub enum HealthRead {
    Read(HealthLog),
    /// No log could be read: the reason says why ("virtio disk: not NVMe or ATA").
    Unavailable {
        reason: String,
    },
}

/// Read the health log of the disk numbered `major:minor` (the whole disk, for a partition).
pub fn read_number(major: u32, minor: u32) -> HealthRead {
    match BlockDevice::open(Path::new("/sys"), major, minor) {
        Ok(device) => read(&device.disk()),
        Err(e) => HealthRead::Unavailable {
            reason: e.to_string(),
        },
    }
}

/// Read `disk`'s (a whole disk's) health log, its device nodes under `/dev`.
pub fn read(disk: &BlockDevice) -> HealthRead {
    read_with_nodes(disk, Path::new("/dev"))
}

/// Read `disk`'s health log, its device nodes under `dev`.
pub fn read_with_nodes(disk: &BlockDevice, dev: &Path) -> HealthRead {
    match interface::of(disk, dev) {
        Interface::Nvme { controller } => read_nvme(&controller),
        Interface::Ata { device } => read_ata(&device),
        other @ (Interface::NvmeWithoutController { .. } | Interface::Other { .. }) => {
            HealthRead::Unavailable {
                reason: other.no_log_reason().unwrap_or_default(),
            }
        }
    }
}

/// The SMART log (its failure is the reason there is no log), then the OCP extended log
/// (absent when the drive refuses log 0xC0 or answers with another GUID).
fn read_nvme(controller: &Path) -> HealthRead {
    let smart = passthru::log_page(controller, nvme::LOG_ID)
        .map_err(|e| e.to_string())
        .and_then(|p| NvmeSmart::parse(&p[..]).map_err(|e| e.to_string()));
    match smart {
        Ok(smart) => {
            let ocp = passthru::log_page(controller, ocp::LOG_ID)
                .ok()
                .and_then(|p| OcpSmart::parse(&p[..]).ok());
            HealthRead::Read(HealthLog::Nvme { smart, ocp })
        }
        Err(reason) => HealthRead::Unavailable { reason },
    }
}

/// The SMART table through the ATA pass-through; its failure, or a page whose checksum does
/// not hold, is the reason there is no log.
fn read_ata(device: &Path) -> HealthRead {
    let smart = sgio::smart_data(device)
        .map_err(|e| e.to_string())
        .and_then(|p| AtaSmart::parse(&p[..]).map_err(|e| e.to_string()));
    match smart {
        Ok(smart) => HealthRead::Read(HealthLog::Ata { smart }),
        Err(reason) => HealthRead::Unavailable { reason },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_nvme_namespace_whose_controller_node_is_no_nvme_device_is_unavailable() {
        let t = tempfile::tempdir().unwrap();
        let sys = t.path().join("sys");
        let ctrl = sys.join("devices/pci/nvme/nvme0");
        std::fs::create_dir_all(&ctrl).unwrap();
        let disk = sys.join("block/nvme0n1");
        std::fs::create_dir_all(&disk).unwrap();
        std::os::unix::fs::symlink(&ctrl, disk.join("device")).unwrap();
        let dev = t.path().join("dev");
        std::fs::create_dir_all(&dev).unwrap();
        std::fs::write(dev.join("nvme0"), b"").unwrap();
        match read_with_nodes(&BlockDevice::at(disk), &dev) {
            HealthRead::Unavailable { reason } => {
                assert!(
                    reason.contains("refused the NVMe admin command"),
                    "{reason}"
                )
            }
            other => panic!("expected unavailable, got {other:?}"),
        }
    }
}
