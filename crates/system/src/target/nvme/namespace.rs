//! Which NVMe namespace a device node is, as sysfs shows it: its controller's character
//! device (where admin commands go) and its namespace id (the `nsid` attribute); and what a
//! purge refuses from sysfs alone, before anything is touched: a device that is not an NVMe
//! namespace (a loop device, a virtio disk, a partition), and for a sanitize, which erases
//! every namespace of the controller, a controller with more namespaces than the one claimed.

use std::path::{Path, PathBuf};

use crate::health::interface::{self, Interface};
use crate::sysfs::{BlockDevice, SysfsError};

/// The purges the drive does itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvmePurge {
    /// Format NVM of the namespace with a user data erase.
    Format,
    /// Sanitize of the whole controller.
    Sanitize,
}

impl NvmePurge {
    /// As the scenario names it.
    pub fn as_str(self) -> &'static str {
        match self {
            NvmePurge::Format => "format",
            NvmePurge::Sanitize => "sanitize",
        }
    }
}

/// A device node that is an NVMe namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    /// The kernel's name for it (`nvme0n1`).
    pub name: String,
    /// Its controller's character device (`/dev/nvme0`).
    pub controller: PathBuf,
    /// Its namespace id.
    pub nsid: u32,
}

/// Why a device cannot be purged by the drive, known from sysfs before anything is touched.
#[derive(Debug, thiserror::Error)]
pub enum NvmeRefused {
    #[error("\"{}\" needs an NVMe namespace; {device}: {source}", purge.as_str())]
    Inspect {
        purge: NvmePurge,
        device: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("\"{}\" needs an NVMe namespace; {device}: {source}", purge.as_str())]
    Sysfs {
        purge: NvmePurge,
        device: PathBuf,
        #[source]
        source: SysfsError,
    },
    #[error("\"{}\" needs an NVMe namespace; {device} is a partition of {disk}", purge.as_str())]
    Partition {
        purge: NvmePurge,
        device: PathBuf,
        disk: String,
    },
    #[error("\"{}\" needs an NVMe namespace; {device} is {what}", purge.as_str())]
    NotNvme {
        purge: NvmePurge,
        device: PathBuf,
        what: String,
    },
    #[error("{device}: sysfs gives namespace id {nsid}, which names no single namespace")]
    BadNsid { device: PathBuf, nsid: u64 },
    #[error(
        "\"sanitize\" erases every namespace of the controller, and {device}'s has {count}: {}; use \"format\", which erases one namespace",
        names.join(", ")
    )]
    SharedController {
        device: PathBuf,
        count: usize,
        names: Vec<String>,
    },
}

/// The namespace the block device node `device` is, or why `purge` refuses it. Reads sysfs
/// under `/sys`; names the controller under `/dev`.
pub fn check(device: &Path, purge: NvmePurge) -> Result<Namespace, NvmeRefused> {
    let st = rustix::fs::stat(device).map_err(|e| NvmeRefused::Inspect {
        purge,
        device: device.to_path_buf(),
        source: e.into(),
    })?;
    let (major, minor) = (rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev));
    let block = BlockDevice::open(Path::new("/sys"), major, minor).map_err(|source| {
        NvmeRefused::Sysfs {
            purge,
            device: device.to_path_buf(),
            source,
        }
    })?;
    check_block(&block, device, Path::new("/dev"), purge)
}

/// [`check`] of the sysfs directory `block` reached as `device`, device nodes under `dev`. A
/// sanitize is refused when the controller (or, with native multipath, the subsystem) shows
/// any namespace besides this one: the only one left is the device the guard claimed, so none
/// that a sanitize would erase is in use.
pub fn check_block(
    block: &BlockDevice,
    device: &Path,
    dev: &Path,
    purge: NvmePurge,
) -> Result<Namespace, NvmeRefused> {
    let device = device.to_path_buf();
    if block.is_partition() {
        return Err(NvmeRefused::Partition {
            purge,
            disk: block.disk().name(),
            device,
        });
    }
    let not_nvme = |what: String| NvmeRefused::NotNvme {
        purge,
        device: device.clone(),
        what,
    };
    let controller = match interface::of(block, dev) {
        Interface::Nvme { controller } => controller,
        Interface::Ata { .. } => return Err(not_nvme("an ATA disk".into())),
        Interface::NvmeWithoutController { namespace } => {
            return Err(not_nvme(format!(
                "NVMe namespace {namespace}, but sysfs shows no controller for it"
            )));
        }
        Interface::Other { kind } => return Err(not_nvme(format!("a {kind}"))),
    };
    let nsid = block.number("nsid").map_err(|source| NvmeRefused::Sysfs {
        purge,
        device: device.clone(),
        source,
    })?;
    // 0 names no namespace and 0xFFFFFFFF every one: a Format NVM sent with it would erase
    // them all.
    let nsid = match u32::try_from(nsid) {
        Ok(id) if id != 0 && id != u32::MAX => id,
        _ => return Err(NvmeRefused::BadNsid { device, nsid }),
    };
    if purge == NvmePurge::Sanitize {
        let names = sibling_namespaces(block);
        if names.len() > 1 {
            return Err(NvmeRefused::SharedController {
                device,
                count: names.len(),
                names,
            });
        }
    }
    Ok(Namespace {
        name: block.name(),
        controller,
        nsid,
    })
}

/// The namespaces beside `block` under its controller (or, with native multipath, its
/// subsystem): the `nvmeXnY` directories of its parent, itself among them, sorted.
fn sibling_namespaces(block: &BlockDevice) -> Vec<String> {
    let Some(parent) = block.dir().parent() else {
        return vec![block.name()];
    };
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| is_namespace(n))
                .collect()
        })
        .unwrap_or_default();
    if !names.contains(&block.name()) {
        names.push(block.name());
    }
    names.sort();
    names
}

/// `nvme<digits>n<digits>`: a namespace's block device, not a partition (`p`) nor a
/// multipath path (`c`).
fn is_namespace(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_prefix("nvme")
        .and_then(|rest| rest.split_once('n'))
        .is_some_and(|(controller, namespace)| digits(controller) && digits(namespace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    /// A controller `nvme0` under `root` with namespaces `names` (each with its `nsid`), their
    /// `device` links to the controller, and one partition `nvme0n1p1`.
    fn controller(root: &Path, names: &[&str]) -> PathBuf {
        let ctrl = root.join("devices/pci/nvme/nvme0");
        for (i, name) in names.iter().enumerate() {
            let dir = ctrl.join(name);
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("nsid"), format!("{}\n", i + 1)).unwrap();
            symlink(&ctrl, dir.join("device")).unwrap();
        }
        let part = ctrl.join("nvme0n1/nvme0n1p1");
        fs::create_dir_all(&part).unwrap();
        fs::write(part.join("partition"), "1\n").unwrap();
        // Not namespaces: the controller's own attributes and a multipath path.
        fs::create_dir_all(ctrl.join("nvme0c0n1")).unwrap();
        fs::write(ctrl.join("serial"), "S1\n").unwrap();
        ctrl
    }

    fn at(dir: PathBuf, purge: NvmePurge) -> Result<Namespace, NvmeRefused> {
        let node = PathBuf::from("/dev").join(dir.file_name().unwrap());
        check_block(&BlockDevice::at(dir), &node, Path::new("/dev"), purge)
    }

    #[test]
    fn a_single_namespace_is_formatted_and_sanitized() {
        let t = tempfile::tempdir().unwrap();
        let ctrl = controller(t.path(), &["nvme0n1"]);
        for purge in [NvmePurge::Format, NvmePurge::Sanitize] {
            let ns = at(ctrl.join("nvme0n1"), purge).unwrap();
            assert_eq!(
                ns,
                Namespace {
                    name: "nvme0n1".into(),
                    controller: "/dev/nvme0".into(),
                    nsid: 1
                }
            );
        }
    }

    #[test]
    fn sanitize_refuses_a_controller_with_two_namespaces_and_format_does_not() {
        let t = tempfile::tempdir().unwrap();
        let ctrl = controller(t.path(), &["nvme0n1", "nvme0n2"]);
        let ns = at(ctrl.join("nvme0n2"), NvmePurge::Format).unwrap();
        assert_eq!(ns.nsid, 2);
        let e = at(ctrl.join("nvme0n1"), NvmePurge::Sanitize).unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"sanitize\" erases every namespace of the controller, and /dev/nvme0n1's has 2: \
             nvme0n1, nvme0n2; use \"format\", which erases one namespace"
        );
    }

    #[test]
    fn a_partition_a_loop_device_and_a_namespace_without_nsid_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let ctrl = controller(t.path(), &["nvme0n1"]);
        let e = at(ctrl.join("nvme0n1/nvme0n1p1"), NvmePurge::Format).unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"format\" needs an NVMe namespace; /dev/nvme0n1p1 is a partition of nvme0n1"
        );
        let lo = t.path().join("devices/virtual/block/loop3");
        fs::create_dir_all(&lo).unwrap();
        let e = at(lo, NvmePurge::Sanitize).unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"sanitize\" needs an NVMe namespace; /dev/loop3 is a loop device"
        );
        for bad in ["0", "4294967295", "4294967296"] {
            fs::write(ctrl.join("nvme0n1/nsid"), bad).unwrap();
            let e = at(ctrl.join("nvme0n1"), NvmePurge::Format).unwrap_err();
            assert!(matches!(e, NvmeRefused::BadNsid { .. }), "{bad}: {e}");
        }
        fs::remove_file(ctrl.join("nvme0n1/nsid")).unwrap();
        let e = at(ctrl.join("nvme0n1"), NvmePurge::Format).unwrap_err();
        assert!(matches!(e, NvmeRefused::Sysfs { .. }), "{e}");
    }

    #[test]
    fn namespace_names() {
        assert!(is_namespace("nvme0n1") && is_namespace("nvme12n34"));
        for name in ["nvme0", "nvme0n1p1", "nvme0c0n1", "nvmen1", "nvme0n", "sda"] {
            assert!(!is_namespace(name), "{name}");
        }
    }
}
