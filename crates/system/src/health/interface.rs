//! Which interface a disk speaks, as sysfs shows it, and so which health log it can have: an
//! NVMe namespace's controller character device (`/dev/nvmeX`, where admin commands go), an
//! ATA disk behind the SCSI layer (`/dev/sdX` whose vendor is "ATA"), or none, with the reason
//! (a virtio disk, a loop or zram device, a SCSI disk that is not ATA).

use std::path::{Path, PathBuf};

use crate::sysfs::BlockDevice;

/// The interface a health log is read through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interface {
    /// An NVMe namespace: `controller` is its controller's character device.
    Nvme { controller: PathBuf },
    /// An ATA disk: `device` is its block device node.
    Ata { device: PathBuf },
    /// An NVMe namespace (`namespace`, its kernel name) whose controller sysfs does not show.
    NvmeWithoutController { namespace: String },
    /// Another kind of disk, with no health log drivebench reads: what it is ("loop device").
    Other { kind: String },
}

impl Interface {
    /// Why a disk speaking this has no health log drivebench reads; `None` for NVMe and ATA.
    pub fn no_log_reason(&self) -> Option<String> {
        match self {
            Interface::Nvme { .. } | Interface::Ata { .. } => None,
            Interface::NvmeWithoutController { namespace } => Some(format!(
                "NVMe namespace {namespace} shows no controller in sysfs"
            )),
            Interface::Other { kind } => Some(format!("{kind}: not NVMe or ATA")),
        }
    }
}

/// What `disk` (a whole disk) speaks; device nodes are named under `dev` (normally `/dev`).
pub fn of(disk: &BlockDevice, dev: &Path) -> Interface {
    let name = disk.name();
    let none = |what: &str| Interface::Other {
        kind: what.to_owned(),
    };
    if name.starts_with("nvme") {
        return match controller(disk) {
            Some(c) => Interface::Nvme {
                controller: dev.join(c),
            },
            None => Interface::NvmeWithoutController { namespace: name },
        };
    }
    let driver = disk.driver();
    if name.starts_with("vd") || driver.as_deref() == Some("virtio_blk") {
        return none("virtio disk");
    }
    if name.starts_with("loop") {
        return none("loop device");
    }
    if name.starts_with("zram") {
        return none("zram device (RAM)");
    }
    if name.starts_with("dm-") || name.starts_with("md") {
        return none("mapped device");
    }
    if name.starts_with("sd") {
        return match disk.attribute("device/vendor") {
            Some(v) if v == "ATA" => Interface::Ata {
                device: dev.join(&name),
            },
            Some(v) => none(&format!("SCSI disk (vendor {v})")),
            None => none("SCSI disk"),
        };
    }
    none(&format!(
        "{name} ({})",
        driver.as_deref().unwrap_or("no driver")
    ))
}

/// The controller a namespace's `device` link names (`nvme0`), or with native multipath the
/// first controller of the subsystem it names (`nvme-subsys0` holding `nvme0`).
fn controller(disk: &BlockDevice) -> Option<String> {
    let dir = std::fs::canonicalize(disk.dir().join("device")).ok()?;
    let own = dir.file_name()?.to_string_lossy().into_owned();
    if is_controller(&own) {
        return Some(own);
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .filter(|n| is_controller(n))
        .collect();
    names.sort();
    names.into_iter().next()
}

/// `nvme` followed by digits only.
fn is_controller(name: &str) -> bool {
    name.strip_prefix("nvme")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    /// A disk directory `name` under `root`, its `device` linked to `device` (made), with a
    /// `driver` link and a `vendor` attribute when given.
    fn disk(root: &Path, name: &str, device: &str, driver: Option<&str>, vendor: Option<&str>) {
        let dev_dir = root.join("devices").join(device);
        fs::create_dir_all(&dev_dir).unwrap();
        let dir = root.join("block").join(name);
        fs::create_dir_all(&dir).unwrap();
        symlink(&dev_dir, dir.join("device")).unwrap();
        if let Some(d) = driver {
            let drv = root.join("drivers").join(d);
            fs::create_dir_all(&drv).unwrap();
            symlink(&drv, dev_dir.join("driver")).unwrap();
        }
        if let Some(v) = vendor {
            fs::write(dev_dir.join("vendor"), format!("{v}     \n")).unwrap();
        }
    }

    #[test]
    fn each_kind_of_disk() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        disk(r, "nvme0n1", "pci/nvme/nvme0", Some("nvme"), None);
        disk(r, "nvme1n1", "virtual/nvme-subsys1", None, None);
        fs::create_dir_all(r.join("devices/virtual/nvme-subsys1/nvme3")).unwrap();
        disk(r, "nvme2n1", "virtual/nvme-subsys2", None, None);
        disk(r, "vda", "virtio1", Some("virtio_blk"), Some("0x1af4"));
        disk(r, "sda", "host0/0:0:0:0", Some("sd"), Some("ATA"));
        disk(r, "sdb", "host1/1:0:0:0", Some("sd"), Some("QEMU"));
        disk(r, "loop3", "virtual/loop3", None, None);
        disk(r, "zram0", "virtual/zram0", None, None);
        disk(r, "mmcblk0", "mmc0", Some("mmcblk"), None);
        let dev = Path::new("/dev");
        let at = |name: &str| of(&BlockDevice::at(r.join("block").join(name)), dev);
        let none = |kind: &str| Interface::Other { kind: kind.into() };
        let cases = [
            (
                "nvme0n1",
                Interface::Nvme {
                    controller: "/dev/nvme0".into(),
                },
            ),
            (
                "nvme1n1",
                Interface::Nvme {
                    controller: "/dev/nvme3".into(),
                },
            ),
            (
                "nvme2n1",
                Interface::NvmeWithoutController {
                    namespace: "nvme2n1".into(),
                },
            ),
            ("vda", none("virtio disk")),
            (
                "sda",
                Interface::Ata {
                    device: "/dev/sda".into(),
                },
            ),
            ("sdb", none("SCSI disk (vendor QEMU)")),
            ("loop3", none("loop device")),
            ("zram0", none("zram device (RAM)")),
            ("mmcblk0", none("mmcblk0 (mmcblk)")),
        ];
        for (name, want) in cases {
            assert_eq!(at(name), want, "{name}");
        }
        let reason = |name: &str| at(name).no_log_reason();
        assert_eq!(reason("nvme0n1"), None);
        assert_eq!(reason("sda"), None);
        assert_eq!(
            reason("loop3").as_deref(),
            Some("loop device: not NVMe or ATA")
        );
        assert_eq!(
            reason("nvme2n1").as_deref(),
            Some("NVMe namespace nvme2n1 shows no controller in sysfs")
        );
    }

    #[test]
    fn controller_names() {
        assert!(is_controller("nvme0") && is_controller("nvme12"));
        assert!(!is_controller("nvme") && !is_controller("nvme-subsys0"));
        assert!(!is_controller("nvme0n1"));
    }
}
