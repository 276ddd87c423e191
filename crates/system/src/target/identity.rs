//! Which mount and which block device hold a path: `/proc/self/mountinfo`
//! names the filesystem and its device number, sysfs describes the device.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use super::DeviceIdentity;
use crate::sysfs::BlockDevice;

/// One line of `/proc/self/mountinfo`, reduced to what a target needs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Mount {
    pub major: u32,
    pub minor: u32,
    pub mount_point: PathBuf,
    pub fs_type: String,
    pub source: String,
}

/// The mount holding the canonical path `path`, read from this process's
/// mount table; `None` when the table cannot be read.
pub(super) fn mount_of(path: &Path) -> Option<Mount> {
    let table = match std::fs::read("/proc/self/mountinfo") {
        Ok(table) => table,
        Err(err) => {
            tracing::debug!(%err, "cannot read /proc/self/mountinfo");
            return None;
        }
    };
    let mounts: Vec<Mount> = table
        .split(|&b| b == b'\n')
        .filter_map(parse_mountinfo_line)
        .collect();
    find_mount(&mounts, path).cloned()
}

/// Parse one mountinfo line (see proc(5)):
///
/// ```text
/// 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
/// (1)(2)(3)   (4)   (5)      (6)      (7)   (8) (9)    (10)        (11)
/// ```
///
/// Field 7 is zero or more optional fields ended by the `-` separator; the
/// mount point is field 5, type and source follow the separator.
pub(super) fn parse_mountinfo_line(line: &[u8]) -> Option<Mount> {
    // Fields are separated by single spaces; a source may be empty, so empty
    // fields are kept.
    let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    let separator = 6 + fields.get(6..)?.iter().position(|f| *f == b"-")?;
    let (major, minor) = std::str::from_utf8(fields[2]).ok()?.split_once(':')?;
    Some(Mount {
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
        mount_point: PathBuf::from(OsString::from_vec(unescape(fields[4]))),
        fs_type: String::from_utf8_lossy(&unescape(fields.get(separator + 1)?)).into_owned(),
        source: String::from_utf8_lossy(&unescape(fields.get(separator + 2)?)).into_owned(),
    })
}

/// Undo the kernel's octal escaping of space, tab, newline and backslash
/// (`\040`, `\011`, `\012`, `\134`); anything else is kept as it is.
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut rest = field;
    while let Some((&first, tail)) = rest.split_first() {
        let octal = match tail {
            [a, b, c, ..]
                if first == b'\\' && [a, b, c].iter().all(|d| (b'0'..=b'7').contains(d)) =>
            {
                u8::try_from(
                    u32::from(a - b'0') * 64 + u32::from(b - b'0') * 8 + u32::from(c - b'0'),
                )
                .ok()
            }
            _ => None,
        };
        match octal {
            Some(byte) => {
                out.push(byte);
                rest = &tail[3..];
            }
            None => {
                out.push(first);
                rest = tail;
            }
        }
    }
    out
}

/// The mount whose mount point is the longest whole-component prefix of
/// `path`; among equal mount points the last one listed (the one on top)
/// wins.
pub(super) fn find_mount<'a>(mounts: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.components().count())
}

/// Describe the block device `major:minor` from the sysfs tree at `sys`.
/// A partition is reported under its whole disk. Device number 0 means no
/// backing device (tmpfs, overlay, btrfs subvolumes, ...), so `None`.
pub(super) fn device_identity(sys: &Path, major: u32, minor: u32) -> Option<DeviceIdentity> {
    if major == 0 {
        return None;
    }
    let node = BlockDevice::open(sys, major, minor).ok()?;
    let partition = node.is_partition().then(|| node.name());
    let disk = node.disk();
    let read = |attribute: &str| disk.attribute(attribute);
    let read_u64 = |attribute: &str| read(attribute).and_then(|v| v.parse::<u64>().ok());
    Some(DeviceIdentity {
        name: disk.name(),
        partition,
        model: read("device/model"),
        serial: read("device/serial")
            .or_else(|| read("serial"))
            .or_else(|| read("wwid"))
            .or_else(|| read("device/wwid")),
        firmware: read("device/firmware_rev").or_else(|| read("device/rev")),
        capacity_bytes: read_u64("size").and_then(|sectors| sectors.checked_mul(512)),
        logical_block_size: read_u64("queue/logical_block_size"),
        physical_block_size: read_u64("queue/physical_block_size"),
        rotational: read("queue/rotational").and_then(|v| match v.as_str() {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mount(point: &str) -> Mount {
        Mount {
            major: 0,
            minor: 0,
            mount_point: PathBuf::from(point),
            fs_type: String::new(),
            source: String::new(),
        }
    }

    #[test]
    fn mountinfo_lines_parse_into_device_mount_point_type_and_source() {
        // (line, major, minor, mount point, fs type, source)
        let cases: [(&str, u32, u32, &str, &str, &str); 6] = [
            (
                "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard",
                254,
                0,
                "/",
                "ext4",
                "/dev/vda",
            ),
            (
                "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
                98,
                0,
                "/mnt2",
                "ext3",
                "/dev/root",
            ),
            (
                "40 27 259:2 / /data rw shared:7 master:3 propagate_from:2 - xfs /dev/nvme0n1p2 rw",
                259,
                2,
                "/data",
                "xfs",
                "/dev/nvme0n1p2",
            ),
            (
                r"50 27 8:1 / /media/my\040disk rw - vfat /dev/sd\134a1 rw",
                8,
                1,
                "/media/my disk",
                "vfat",
                r"/dev/sd\a1",
            ),
            (
                r"51 27 0:45 / /a\011b\012c\\d rw - tmpfs  rw",
                0,
                45,
                "/a\tb\nc\\\\d",
                "tmpfs",
                "",
            ),
            (
                "60 27 0:52 / /var/lib/docker/overlay2/x/merged rw - overlay overlay rw,lowerdir=/l",
                0,
                52,
                "/var/lib/docker/overlay2/x/merged",
                "overlay",
                "overlay",
            ),
        ];
        for (line, major, minor, point, fs_type, source) in cases {
            let parsed = parse_mountinfo_line(line.as_bytes());
            let expected = Mount {
                major,
                minor,
                mount_point: PathBuf::from(point),
                fs_type: fs_type.to_owned(),
                source: source.to_owned(),
            };
            assert_eq!(parsed, Some(expected), "{line}");
        }
    }

    #[test]
    fn malformed_mountinfo_lines_are_skipped() {
        let cases = [
            "",
            "27 1 254:0 / / rw,relatime ext4 /dev/vda rw",
            "27 1 254:0 / / rw,relatime -",
            "27 1 nodev / / rw - ext4 /dev/vda rw",
            "27 1 254:x / / rw - ext4 /dev/vda rw",
        ];
        for line in cases {
            assert_eq!(parse_mountinfo_line(line.as_bytes()), None, "{line:?}");
        }
    }

    #[test]
    fn non_utf8_mount_points_survive() {
        let parsed = parse_mountinfo_line(b"70 27 8:2 / /m\xff rw - ext4 /dev/sda2 rw");
        let expected = PathBuf::from(OsString::from_vec(b"/m\xff".to_vec()));
        assert_eq!(parsed.map(|m| m.mount_point), Some(expected));
    }

    #[test]
    fn the_longest_whole_component_mount_point_wins() {
        let mounts = [
            mount("/"),
            mount("/work"),
            mount("/workspace/data"),
            mount("/work/a"),
        ];
        // (path, expected mount point)
        let cases = [
            ("/", "/"),
            ("/etc/passwd", "/"),
            ("/work", "/work"),
            ("/work/main/src", "/work"),
            ("/workspace", "/"),
            ("/workspace/data2", "/"),
            ("/workspace/data/run", "/workspace/data"),
            ("/work/a/b", "/work/a"),
            ("/work/ab", "/work"),
        ];
        for (path, expected) in cases {
            let found = find_mount(&mounts, Path::new(path)).map(|m| &m.mount_point);
            assert_eq!(found, Some(&PathBuf::from(expected)), "{path}");
        }
    }

    #[test]
    fn the_last_of_stacked_mounts_wins() {
        let mut lower = mount("/dev/pts");
        lower.minor = 1;
        let mut upper = mount("/dev/pts");
        upper.minor = 2;
        let mounts = [mount("/"), lower, upper];
        let found = find_mount(&mounts, Path::new("/dev/pts/0"));
        assert_eq!(found.map(|m| m.minor), Some(2));
    }

    #[test]
    fn no_mount_matches_without_a_root_mount() {
        assert_eq!(find_mount(&[mount("/work")], Path::new("/home")), None);
    }

    fn write(path: &Path, contents: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create sysfs dir");
        }
        std::fs::write(path, contents).expect("write sysfs attribute");
    }

    /// A fake sysfs with an NVMe disk (partitioned), a virtio disk and a SCSI
    /// disk, laid out like the real one.
    fn fake_sysfs() -> tempfile::TempDir {
        let sys = tempfile::tempdir().expect("create tempdir");
        let root = sys.path();
        let nvme = root.join("devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1");
        write(&nvme.join("size"), "1953525168\n");
        write(&nvme.join("wwid"), "eui.0025385b71b1c2d3\n");
        write(&nvme.join("queue/logical_block_size"), "512\n");
        write(&nvme.join("queue/physical_block_size"), "4096\n");
        write(&nvme.join("queue/rotational"), "0\n");
        write(&nvme.join("nvme0n1p2/partition"), "2\n");
        write(&nvme.join("nvme0n1p2/size"), "1000000\n");
        let controller = root.join("devices/pci0000:00/0000:00:04.0/nvme/nvme0");
        write(
            &controller.join("model"),
            "Samsung SSD 970 EVO Plus 1TB            \n",
        );
        write(&controller.join("serial"), "S4EWNX0R123456      \n");
        write(&controller.join("firmware_rev"), "2B2QEXM7\n");
        std::os::unix::fs::symlink(&controller, nvme.join("device")).expect("symlink");

        let vda = root.join("devices/pci0000:00/0000:00:02.0/virtio1/block/vda");
        write(&vda.join("size"), "536870912\n");
        write(&vda.join("serial"), "overlayblk");
        write(&vda.join("queue/logical_block_size"), "512\n");
        write(&vda.join("queue/physical_block_size"), "4096\n");
        write(&vda.join("queue/rotational"), "1\n");

        let sda = root.join("devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda");
        write(&sda.join("size"), "garbage\n");
        write(&sda.join("device/model"), "WDC WD40EFRX-68N\n");
        write(&sda.join("device/rev"), "0A82\n");
        write(&sda.join("queue/rotational"), "\n");

        write(&root.join("dev/block/.keep"), "");
        let links = [
            ("259:0", &nvme),
            ("259:2", &nvme.join("nvme0n1p2")),
            ("254:0", &vda),
            ("8:0", &sda),
        ];
        for (number, target) in links {
            std::os::unix::fs::symlink(target, root.join("dev/block").join(number))
                .expect("symlink");
        }
        sys
    }

    #[test]
    fn device_identity_reads_the_whole_disk_behind_a_device_number() {
        let sys = fake_sysfs();
        let nvme = DeviceIdentity {
            name: "nvme0n1".to_owned(),
            partition: None,
            model: Some("Samsung SSD 970 EVO Plus 1TB".to_owned()),
            serial: Some("S4EWNX0R123456".to_owned()),
            firmware: Some("2B2QEXM7".to_owned()),
            capacity_bytes: Some(1_953_525_168 * 512),
            logical_block_size: Some(512),
            physical_block_size: Some(4096),
            rotational: Some(false),
        };
        let nvme_partition = DeviceIdentity {
            partition: Some("nvme0n1p2".to_owned()),
            ..nvme.clone()
        };
        let vda = DeviceIdentity {
            name: "vda".to_owned(),
            partition: None,
            model: None,
            serial: Some("overlayblk".to_owned()),
            firmware: None,
            capacity_bytes: Some(536_870_912 * 512),
            logical_block_size: Some(512),
            physical_block_size: Some(4096),
            rotational: Some(true),
        };
        let sda = DeviceIdentity {
            name: "sda".to_owned(),
            partition: None,
            model: Some("WDC WD40EFRX-68N".to_owned()),
            serial: None,
            firmware: Some("0A82".to_owned()),
            capacity_bytes: None,
            logical_block_size: None,
            physical_block_size: None,
            rotational: None,
        };
        // (major, minor, expected identity)
        let cases = [
            (259, 0, Some(nvme)),
            (259, 2, Some(nvme_partition)),
            (254, 0, Some(vda)),
            (8, 0, Some(sda)),
            (0, 45, None),
            (8, 16, None),
        ];
        for (major, minor, expected) in cases {
            assert_eq!(
                device_identity(sys.path(), major, minor),
                expected,
                "{major}:{minor}"
            );
        }
    }

    #[test]
    fn device_identity_without_sysfs_is_none() {
        let empty = tempfile::tempdir().expect("create tempdir");
        assert_eq!(device_identity(empty.path(), 254, 0), None);
    }
}
