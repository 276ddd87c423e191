//! Telemetry on real block devices: a loop device with ext4 on it counts the bytes written
//! through its filesystem, and the resolution of a target reaches the loop device through a
//! partition and through device-mapper. Needs root, /dev/loop-control, losetup, mkfs.ext4 and
//! mount (and dmsetup with device-mapper in the kernel for the last test); each test is
//! skipped with a printed reason where they are missing. Every loop device, mapping and mount
//! is undone by a guard, however the test ends.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use drivebench_system::telemetry::{
    DeviceKind, DeviceLevel, DeviceNode, Devices, IntervalTelemetry, Sampler, resolve,
};

const MIB: u64 = 1 << 20;

/// Commands run in reverse order when the test ends, however it ends.
struct Cleanup(Vec<Vec<String>>);

impl Cleanup {
    fn push(&mut self, cmd: &[&str]) {
        self.0.push(cmd.iter().map(|s| s.to_string()).collect());
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        for cmd in self.0.iter().rev() {
            let _ = Command::new(&cmd[0]).args(&cmd[1..]).status();
        }
    }
}

/// Run a command; its trimmed stdout, or an error holding its stderr.
fn run(args: &[&str]) -> std::io::Result<String> {
    let out = Command::new(args[0]).args(&args[1..]).output()?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(std::io::Error::other(format!(
            "{args:?}: {}",
            stderr.trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn unavailable(tools: &[&str]) -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some("not root".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("no /dev/loop-control (no loop devices)".into());
    }
    tools
        .iter()
        .find(|t| run(&["sh", "-c", &format!("command -v {t}")]).is_err())
        .map(|t| format!("{t} is not installed"))
}

/// A scratch image of `bytes` in /var/tmp (not tmpfs), attached to a free loop device.
fn attach(
    dir: &Path,
    bytes: u64,
    partscan: bool,
    cleanup: &mut Cleanup,
) -> std::io::Result<String> {
    let image = dir.join("disk.img");
    std::fs::File::create(&image)?.set_len(bytes)?;
    if partscan {
        write_mbr(&image, bytes)?;
    }
    let image = image.display().to_string();
    let mut args = vec!["losetup", "--find", "--show"];
    if partscan {
        args.push("-P");
    }
    args.push(&image);
    let dev = run(&args)?;
    cleanup.push(&["losetup", "-d", &dev]);
    Ok(dev)
}

/// A minimal MBR: one Linux partition (type 0x83) from sector 2048 to the end.
fn write_mbr(image: &Path, bytes: u64) -> std::io::Result<()> {
    let mut mbr = [0u8; 512];
    let start: u32 = 2048;
    let sectors = u32::try_from(bytes / 512).map_err(std::io::Error::other)? - start;
    mbr[446 + 4] = 0x83;
    mbr[446 + 8..446 + 12].copy_from_slice(&start.to_le_bytes());
    mbr[446 + 12..446 + 16].copy_from_slice(&sectors.to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    let mut file = std::fs::OpenOptions::new().write(true).open(image)?;
    file.write_all(&mbr)?;
    file.sync_all()
}

/// mkfs.ext4 `dev` and mount it on `dir/mnt`; the mount point.
fn mount(dev: &str, dir: &Path, cleanup: &mut Cleanup) -> PathBuf {
    run(&["mkfs.ext4", "-q", "-F", dev]).expect("mkfs.ext4");
    let mnt = dir.join("mnt");
    std::fs::create_dir(&mnt).expect("mkdir mnt");
    let shown = mnt.display().to_string();
    run(&["mount", dev, &shown]).expect("mount");
    cleanup.push(&["umount", &shown]);
    mnt
}

/// Write `bytes` to a new file under `dir` and fsync it.
fn write_synced(dir: &Path, bytes: u64) {
    let mut file = std::fs::File::create(dir.join("data")).expect("create data file");
    let chunk = vec![0x5au8; MIB as usize];
    for _ in 0..bytes / MIB {
        file.write_all(&chunk).expect("write");
    }
    file.sync_all().expect("fsync");
}

fn name_of(dev: &str) -> String {
    Path::new(dev)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn nodes(devices: &Devices) -> &[DeviceNode] {
    match devices {
        Devices::Stack(stack) => &stack.nodes,
        other => panic!("expected a device stack, got {other:?}"),
    }
}

fn assert_loop_member(node: &DeviceNode, name: &str, levels: &[DeviceLevel]) {
    assert_eq!(node.name, name, "{node:?}");
    assert_eq!(node.levels, levels, "{node:?}");
    assert_eq!(node.kind, Some(DeviceKind::Loop), "{node:?}");
    assert!(
        node.evidence
            .as_deref()
            .is_some_and(|e| e.contains("disk.img")),
        "{node:?}"
    );
}

/// Sample around writing `bytes` synced under `mnt`.
fn measure_write(mnt: &Path, bytes: u64) -> (Sampler, IntervalTelemetry) {
    let mut sampler = Sampler::new(mnt, Vec::new());
    let before = sampler.sample();
    write_synced(mnt, bytes);
    let after = sampler.sample();
    let interval = after.interval(&before);
    (sampler, interval)
}

fn print(label: &str, t: &IntervalTelemetry) {
    let Some(d) = &t.device else { return };
    let f = &d.total;
    eprintln!(
        "{label}: {:?} over {:.0} ms: {} bytes written in {} writes ({:.1} MiB/s, {:.1} KiB \
         per write, await {:?} ms), {} flushes, aqu-sz {:.2}, util {:.1} %",
        f.devices,
        t.elapsed_ms,
        f.counts.written_bytes,
        f.counts.writes,
        f.write_mib_per_s,
        f.write_avg_request_kib.unwrap_or(0.0),
        f.write_await_ms,
        f.counts.flushes,
        f.aqu_sz,
        f.util_pct
    );
    eprintln!("{label}: csv {}", t.csv_fields());
}

#[test]
fn a_loop_device_counts_the_bytes_written_through_its_filesystem() {
    if let Some(why) = unavailable(&["losetup", "mkfs.ext4", "mount", "umount"]) {
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").expect("tempdir");
    let mut cleanup = Cleanup(Vec::new());
    let dev = match attach(tmp.path(), 256 * MIB, false, &mut cleanup) {
        Ok(dev) => dev,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let mnt = mount(&dev, tmp.path(), &mut cleanup);
    let (sampler, t) = measure_write(&mnt, 64 * MIB);
    print("loop", &t);

    let name = name_of(&dev);
    let all = [
        DeviceLevel::FilesystemDevice,
        DeviceLevel::WholeDisk,
        DeviceLevel::PhysicalMember,
    ];
    let stack = nodes(sampler.devices());
    assert_eq!(stack.len(), 1, "{stack:?}");
    assert_loop_member(&stack[0], &name, &all);
    let device = t.device.as_ref().expect("device figures");
    assert_eq!(device.level, DeviceLevel::PhysicalMember);
    assert_eq!(device.total.devices, vec![name.clone()]);
    assert_eq!(device.per_device.len(), 1);
    let written = device.total.counts.written_bytes;
    assert!(written >= 64 * MIB, "{written} bytes written: {t:?}");
    assert!(device.total.write_mib_per_s > 0.0, "{t:?}");
    let header = IntervalTelemetry::csv_header();
    assert_eq!(t.csv_fields().split(',').count(), header.split(',').count());
}

/// The sysfs name of the first partition of loop device `name` once it shows up. The loop
/// driver scans the table itself (`losetup -P`) when the kernel has a parser for it; a kernel
/// without one is told about the partition by `partx -a`, which reads the table itself.
fn first_partition(dev: &str, name: &str) -> Option<String> {
    let part = format!("{name}p1");
    let present = || Path::new(&format!("/sys/block/{name}/{part}")).exists();
    for _ in 0..20 {
        if present() {
            return Some(part);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if let Err(e) = run(&["partx", "-a", dev]) {
        eprintln!("partx -a: {e}");
    }
    present().then_some(part)
}

#[test]
fn a_partition_resolves_to_its_loop_device() {
    if let Some(why) = unavailable(&["losetup", "mkfs.ext4", "mount", "umount", "partx"]) {
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").expect("tempdir");
    let mut cleanup = Cleanup(Vec::new());
    let dev = match attach(tmp.path(), 64 * MIB, true, &mut cleanup) {
        Ok(dev) => dev,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let name = name_of(&dev);
    let Some(part) = first_partition(&dev, &name) else {
        eprintln!("skipped: no partition of {dev} appeared");
        return;
    };
    let mnt = mount(&format!("/dev/{part}"), tmp.path(), &mut cleanup);
    let (sampler, t) = measure_write(&mnt, 8 * MIB);
    print("partition", &t);

    let stack = nodes(sampler.devices());
    assert_eq!(stack.len(), 2, "{stack:?}");
    assert_eq!(stack[0].name, part);
    assert_eq!(
        stack[0].levels,
        [DeviceLevel::FilesystemDevice, DeviceLevel::Partition]
    );
    assert_eq!(stack[0].kind, None);
    assert_loop_member(
        &stack[1],
        &name,
        &[DeviceLevel::WholeDisk, DeviceLevel::PhysicalMember],
    );
    let device = t.device.as_ref().expect("device figures");
    assert_eq!(device.total.devices, vec![name]);
    assert!(device.total.counts.written_bytes >= 8 * MIB, "{t:?}");
}

#[test]
fn a_device_mapper_device_resolves_to_its_loop_device() {
    if let Some(why) = unavailable(&["losetup", "mkfs.ext4", "mount", "umount", "dmsetup"]) {
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").expect("tempdir");
    let mut cleanup = Cleanup(Vec::new());
    let size = 64 * MIB;
    let dev = match attach(tmp.path(), size, false, &mut cleanup) {
        Ok(dev) => dev,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let mapping = format!("drivebench-tel-{}", std::process::id());
    let table = format!("0 {} linear {dev} 0", size / 512);
    if let Err(e) = run(&["dmsetup", "create", &mapping, "--table", &table]) {
        eprintln!("skipped: no device-mapper: {e}");
        return;
    }
    cleanup.push(&["dmsetup", "remove", "--retry", &mapping]);
    let mapped = format!("/dev/mapper/{mapping}");
    let mnt = mount(&mapped, tmp.path(), &mut cleanup);
    let devices = resolve(&mnt).expect("resolve");
    let stack = nodes(&devices);
    assert_eq!(stack.len(), 2, "{stack:?}");
    assert!(stack[0].name.starts_with("dm-"), "{stack:?}");
    assert_eq!(
        stack[0].levels,
        [DeviceLevel::FilesystemDevice, DeviceLevel::Mapped]
    );
    let name = name_of(&dev);
    assert_loop_member(
        &stack[1],
        &name,
        &[DeviceLevel::WholeDisk, DeviceLevel::PhysicalMember],
    );
    let (_, t) = measure_write(&mnt, 8 * MIB);
    print("device-mapper", &t);
    let device = t.device.as_ref().expect("device figures");
    assert_eq!(device.total.devices, vec![name]);
    assert!(device.total.counts.written_bytes >= 8 * MIB, "{t:?}");
}
