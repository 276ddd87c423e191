//! The block devices under a path, from the filesystem's device down to the physical disks
//! whose counters telemetry reads.
//!
//! `stat(path).st_dev` names the filesystem's device; `/sys/dev/block/MAJ:MIN` links to its
//! sysfs directory. A partition (it has a `partition` attribute) belongs to the disk of the
//! directory above it; device-mapper (`dm-N`) and md (`mdN`) devices list their members in
//! `slaves/`, followed down to disks that have none: the physical members. A filesystem with
//! no block device (tmpfs, overlay, procfs; btrfs too, whose `st_dev` is anonymous) has major
//! number 0 and resolves to [`Devices::NoDevice`].

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::TelemetryError;
use crate::sysfs::BlockDevice;

/// The part a device plays between a filesystem and the drives under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceLevel {
    /// The device the filesystem is mounted from (what `stat` names).
    FilesystemDevice,
    /// A partition of a disk.
    Partition,
    /// A whole disk as the kernel lists it in `/sys/block`.
    WholeDisk,
    /// A device-mapper or md device: it maps its I/O onto the members listed in `slaves/`.
    Mapped,
    /// A disk with no members below it: where the I/O leaves the block layer. Telemetry reads
    /// its figures here.
    PhysicalMember,
}

/// What a physical member is, as far as sysfs tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    /// No sign of a virtual device was found (driver, vendor): presumably a real drive.
    Hardware,
    /// A device a hypervisor emulates (virtio, an emulated NVMe or SCSI disk): the host may
    /// answer its I/O from its own cache, and the guest still counts it as device I/O.
    Virtual,
    /// A loop device: its I/O lands in a file on another filesystem, through that
    /// filesystem's page cache unless the loop device uses direct I/O.
    Loop,
}

/// One device of a stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceNode {
    /// Kernel name, e.g. "nvme0n1p2", "dm-0", "loop3".
    pub name: String,
    pub major: u32,
    pub minor: u32,
    /// Every part it plays, top down: a filesystem made on a bare virtio disk is that disk's
    /// filesystem device, whole disk and physical member at once.
    pub levels: Vec<DeviceLevel>,
    /// For a physical member: what kind of device it is.
    pub kind: Option<DeviceKind>,
    /// Why the kind was judged so: "driver virtio_blk", "vendor 0x1af4", "backing file …".
    pub evidence: Option<String>,
}

/// The devices under a path, top down, each once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceStack {
    pub nodes: Vec<DeviceNode>,
}

impl DeviceStack {
    /// The physical members, whose counters the figures are read from.
    pub fn members(&self) -> impl Iterator<Item = &DeviceNode> {
        self.nodes
            .iter()
            .filter(|n| n.levels.contains(&DeviceLevel::PhysicalMember))
    }

    /// The level figures are read at: always the physical members.
    pub fn read_level(&self) -> DeviceLevel {
        DeviceLevel::PhysicalMember
    }
}

/// What lies under a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "resolution", rename_all = "snake_case")]
pub enum Devices {
    /// Block devices, down to the physical members.
    Stack(DeviceStack),
    /// The filesystem has no block device (device number `0:minor`): host figures only.
    NoDevice { major: u32, minor: u32 },
    /// The devices could not be found out (the reason says why): host figures only.
    Unresolved { reason: String },
}

impl Devices {
    /// The stack, when there is one.
    pub fn stack(&self) -> Option<&DeviceStack> {
        match self {
            Devices::Stack(stack) => Some(stack),
            Devices::NoDevice { .. } | Devices::Unresolved { .. } => None,
        }
    }
}

/// Resolve `path` (a block device, or a file or directory — when it does not exist yet, its
/// nearest existing ancestor — on a filesystem) to its devices, reading the real sysfs.
pub fn resolve(path: &Path) -> Result<Devices, TelemetryError> {
    let (major, minor) = device_number(path)?;
    resolve_number(Path::new("/sys"), major, minor)
}

/// The device number of `path` when it is a block device; otherwise of the filesystem holding
/// `path` or its nearest existing ancestor.
fn device_number(path: &Path) -> Result<(u32, u32), TelemetryError> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut first_error = None;
    for candidate in absolute.ancestors() {
        match rustix::fs::stat(candidate) {
            // A block device itself (a sweep's target) is its own device.
            Ok(st)
                if rustix::fs::FileType::from_raw_mode(st.st_mode)
                    == rustix::fs::FileType::BlockDevice
                    && candidate == absolute =>
            {
                return Ok((rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev)));
            }
            Ok(st) => return Ok((rustix::fs::major(st.st_dev), rustix::fs::minor(st.st_dev))),
            Err(errno) => {
                first_error.get_or_insert(errno);
            }
        }
    }
    Err(TelemetryError::Stat {
        path: path.to_path_buf(),
        source: first_error.unwrap_or(rustix::io::Errno::NOENT).into(),
    })
}

/// Resolve the device `major:minor` in the sysfs tree at `sys`.
pub fn resolve_number(sys: &Path, major: u32, minor: u32) -> Result<Devices, TelemetryError> {
    if major == 0 {
        return Ok(Devices::NoDevice { major, minor });
    }
    let top = BlockDevice::open(sys, major, minor)?;
    let mut walk = Walk::default();
    walk.visit(&top, vec![DeviceLevel::FilesystemDevice], 0)?;
    Ok(Devices::Stack(DeviceStack { nodes: walk.nodes }))
}

/// How deep a stack may go: dm over md over dm over partitions is 4; a sysfs that links in a
/// circle (never seen) stops here instead of recursing for ever.
const MAX_DEPTH: usize = 16;

#[derive(Default)]
struct Walk {
    nodes: Vec<DeviceNode>,
}

impl Walk {
    /// Add `device`, reached as `levels`, and what lies below it.
    fn visit(
        &mut self,
        device: &BlockDevice,
        mut levels: Vec<DeviceLevel>,
        depth: usize,
    ) -> Result<(), TelemetryError> {
        let name = device.name();
        if depth > MAX_DEPTH || self.nodes.iter().any(|n| n.name == name) {
            return Ok(());
        }
        if device.is_partition() {
            levels.push(DeviceLevel::Partition);
            self.push(device, levels, None)?;
            return self.visit(&device.disk(), Vec::new(), depth + 1);
        }
        let members = device.members()?;
        if members.is_empty() {
            levels.extend([DeviceLevel::WholeDisk, DeviceLevel::PhysicalMember]);
            return self.push(device, levels, Some(classify(device)));
        }
        levels.push(DeviceLevel::Mapped);
        self.push(device, levels, None)?;
        for member in &members {
            self.visit(member, Vec::new(), depth + 1)?;
        }
        Ok(())
    }

    fn push(
        &mut self,
        device: &BlockDevice,
        levels: Vec<DeviceLevel>,
        kind: Option<(DeviceKind, Option<String>)>,
    ) -> Result<(), TelemetryError> {
        let (major, minor) = device.number_pair()?;
        let (kind, evidence) = kind.map_or((None, None), |(k, e)| (Some(k), e));
        self.nodes.push(DeviceNode {
            name: device.name(),
            major,
            minor,
            levels,
            kind,
            evidence,
        });
        Ok(())
    }
}

/// Drivers of block devices a hypervisor emulates: virtio, Xen's blkfront.
const VIRTUAL_DRIVERS: [&str; 3] = ["virtio_blk", "vbd", "xen_blkfront"];

/// Vendor attributes of emulated devices: PCI ids (virtio and Red Hat's QEMU devices, such as
/// its emulated NVMe) and the SCSI vendor strings of QEMU, VMware, VirtualBox and Hyper-V.
const VIRTUAL_VENDORS: [&str; 6] = ["0x1af4", "0x1b36", "QEMU", "VMware", "VBOX", "Msft"];

/// What kind of physical member `disk` is, and the evidence.
fn classify(disk: &BlockDevice) -> (DeviceKind, Option<String>) {
    if disk.dir().join("loop").is_dir() {
        let evidence = match disk.attribute("loop/backing_file") {
            Some(file) => format!("backing file {file}"),
            None => "loop device".to_owned(),
        };
        return (DeviceKind::Loop, Some(evidence));
    }
    if let Some(driver) = disk
        .driver()
        .filter(|d| VIRTUAL_DRIVERS.contains(&d.as_str()))
    {
        return (DeviceKind::Virtual, Some(format!("driver {driver}")));
    }
    // A SCSI or virtio disk's `device` is the device itself; an NVMe namespace's `device` is
    // its controller, whose own `device` is the PCI function.
    let vendor = ["device/vendor", "device/device/vendor"]
        .into_iter()
        .find_map(|attribute| disk.attribute(attribute))
        .filter(|v| VIRTUAL_VENDORS.contains(&v.as_str()));
    match vendor {
        Some(vendor) => (DeviceKind::Virtual, Some(format!("vendor {vendor}"))),
        None => (DeviceKind::Hardware, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DeviceLevel::*;

    #[test]
    fn a_filesystem_without_a_block_device_has_no_device() {
        // procfs and the tmpfs of /dev/shm have anonymous device numbers on every Linux.
        for path in ["/proc/self", "/dev/shm"] {
            if !Path::new(path).exists() {
                continue;
            }
            let devices = resolve(Path::new(path)).expect("resolve");
            assert!(
                matches!(devices, Devices::NoDevice { major: 0, .. }),
                "{path}: {devices:?}"
            );
        }
    }

    #[test]
    fn a_missing_path_resolves_through_its_nearest_ancestor() {
        let dir = tempfile::tempdir().expect("tempdir");
        let here = resolve(dir.path()).expect("resolve");
        let missing = resolve(&dir.path().join("not/yet/there")).expect("resolve");
        assert_eq!(here, missing);
    }

    #[test]
    fn the_root_filesystem_resolves_to_physical_members_or_no_device() {
        match resolve(Path::new("/")).expect("resolve /") {
            Devices::Stack(stack) => {
                assert!(stack.members().count() >= 1, "{stack:?}");
                assert!(stack.members().all(|m| m.kind.is_some()), "{stack:?}");
                assert_eq!(stack.nodes[0].levels[0], FilesystemDevice);
            }
            Devices::NoDevice { major, .. } => assert_eq!(major, 0),
            other => panic!("{other:?}"),
        }
    }

    fn write(path: &Path, contents: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create sysfs dir");
        }
        std::fs::write(path, contents).expect("write sysfs attribute");
    }

    fn link(target: &Path, at: &Path) {
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).expect("create sysfs dir");
        }
        std::os::unix::fs::symlink(target, at).expect("symlink");
    }

    /// A sysfs laid out like the real one: a virtio disk, a partitioned SCSI disk, a loop
    /// device, dm-0 over the loop device and the SCSI partition, md0 over dm-1 over the
    /// virtio disk. (This kernel has no device-mapper or md to build a real one with; the
    /// integration tests resolve real loop devices and partitions.)
    fn fake_sysfs() -> tempfile::TempDir {
        let sys = tempfile::tempdir().expect("tempdir");
        let root = sys.path();
        let blocks = root.join("devices/virtual/block");
        let virtio = root.join("devices/pci0000:00/0000:00:02.0/virtio1");
        let vda = virtio.join("block/vda");
        write(&vda.join("dev"), "254:0\n");
        write(&virtio.join("vendor"), "0x1af4\n");
        link(
            &root.join("bus/virtio/drivers/virtio_blk"),
            &virtio.join("driver"),
        );
        link(&virtio, &vda.join("device"));
        let scsi = root.join("devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0");
        let sdb = scsi.join("block/sdb");
        write(&sdb.join("dev"), "8:16\n");
        write(&sdb.join("sdb1/dev"), "8:17\n");
        write(&sdb.join("sdb1/partition"), "1\n");
        write(&scsi.join("vendor"), "ATA     \n");
        link(&scsi, &sdb.join("device"));
        write(&blocks.join("loop1/dev"), "7:1\n");
        write(
            &blocks.join("loop1/loop/backing_file"),
            "/var/tmp/disk.img\n",
        );
        write(&blocks.join("dm-0/dev"), "252:0\n");
        link(&blocks.join("loop1"), &blocks.join("dm-0/slaves/loop1"));
        link(&sdb.join("sdb1"), &blocks.join("dm-0/slaves/sdb1"));
        write(&blocks.join("dm-1/dev"), "252:1\n");
        link(&vda, &blocks.join("dm-1/slaves/vda"));
        write(&blocks.join("md0/dev"), "9:0\n");
        link(&blocks.join("dm-1"), &blocks.join("md0/slaves/dm-1"));
        let numbers = [
            ("254:0", vda),
            ("8:17", sdb.join("sdb1")),
            ("252:0", blocks.join("dm-0")),
            ("9:0", blocks.join("md0")),
        ];
        for (number, dir) in numbers {
            link(&dir, &root.join("dev/block").join(number));
        }
        sys
    }

    fn node(name: &str, number: (u32, u32), levels: &[DeviceLevel]) -> DeviceNode {
        DeviceNode {
            name: name.to_owned(),
            major: number.0,
            minor: number.1,
            levels: levels.to_vec(),
            kind: None,
            evidence: None,
        }
    }

    fn member(mut n: DeviceNode, kind: DeviceKind, evidence: Option<&str>) -> DeviceNode {
        n.kind = Some(kind);
        n.evidence = evidence.map(str::to_owned);
        n
    }

    #[test]
    fn stacks_resolve_through_partitions_and_mapped_devices_to_their_members() {
        let sys = fake_sysfs();
        let vda = |levels: &[DeviceLevel]| {
            let n = node("vda", (254, 0), levels);
            member(n, DeviceKind::Virtual, Some("driver virtio_blk"))
        };
        let physical = [WholeDisk, PhysicalMember];
        let cases = [
            (
                (254, 0),
                vec![vda(&[FilesystemDevice, WholeDisk, PhysicalMember])],
            ),
            (
                (8, 17),
                vec![
                    node("sdb1", (8, 17), &[FilesystemDevice, Partition]),
                    member(node("sdb", (8, 16), &physical), DeviceKind::Hardware, None),
                ],
            ),
            (
                (252, 0),
                vec![
                    node("dm-0", (252, 0), &[FilesystemDevice, Mapped]),
                    member(
                        node("loop1", (7, 1), &physical),
                        DeviceKind::Loop,
                        Some("backing file /var/tmp/disk.img"),
                    ),
                    node("sdb1", (8, 17), &[Partition]),
                    member(node("sdb", (8, 16), &physical), DeviceKind::Hardware, None),
                ],
            ),
            (
                (9, 0),
                vec![
                    node("md0", (9, 0), &[FilesystemDevice, Mapped]),
                    node("dm-1", (252, 1), &[Mapped]),
                    vda(&physical),
                ],
            ),
        ];
        for ((major, minor), nodes) in cases {
            let resolved = resolve_number(sys.path(), major, minor).expect("resolve");
            assert_eq!(
                resolved,
                Devices::Stack(DeviceStack { nodes }),
                "{major}:{minor}"
            );
        }
        let err = resolve_number(sys.path(), 8, 32).expect_err("no such device");
        assert!(err.to_string().contains("dev/block/8:32"), "{err}");
    }

    #[test]
    fn the_resolution_serialises_with_snake_case_names() {
        let stack = Devices::Stack(DeviceStack {
            nodes: vec![member(
                node(
                    "loop3",
                    (7, 3),
                    &[FilesystemDevice, WholeDisk, PhysicalMember],
                ),
                DeviceKind::Loop,
                None,
            )],
        });
        let json = serde_json::to_value(&stack).expect("serialise");
        assert_eq!(json["resolution"], "stack");
        assert_eq!(
            json["nodes"][0]["levels"],
            serde_json::json!(["filesystem_device", "whole_disk", "physical_member"])
        );
        assert_eq!(json["nodes"][0]["kind"], "loop");
        let none = serde_json::to_value(Devices::NoDevice {
            major: 0,
            minor: 45,
        })
        .expect("json");
        assert_eq!(none["resolution"], "no_device");
    }
}
