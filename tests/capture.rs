//! Block I/O capture on a real device: an ext4 filesystem on a loop device, an InnoDB-like redo
//! log (`ib_logfile0`, O_DIRECT|O_DSYNC 4 KiB appends) and tablespace (`t1.ibd`, random 16 KiB
//! O_DIRECT writes with fdatasync) written while a phase is traced; the requests are then
//! tagged from the files' extents and written and read back as a capture. Also: a tracer
//! dropped unfinished removes its instance, an orphaned instance is cleaned up, a partition's
//! files are placed on its disk, and partitions and bio-based devices (zram) are refused as
//! devices to trace. Needs root, tracefs and losetup/mkfs.ext4/mount: skipped with a printed
//! reason where they are missing, except under CI=true, where their absence fails the test.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use drivebench::capture::{
    self, FileClass, FileMap, Flags, Op, Request, Tracer, classify, summarize,
};

/// Commands undone in reverse order when the test ends, however it ends.
struct Cleanup(Vec<Vec<String>>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for cmd in self.0.iter().rev() {
            let _ = Command::new(&cmd[0]).args(&cmd[1..]).status();
        }
    }
}

fn sh(args: &[&str]) -> Result<String, String> {
    let o = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args[0]))?;
    if !o.status.success() {
        return Err(format!("{args:?}: {}", String::from_utf8_lossy(&o.stderr)));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// Why this host cannot run the test, if it cannot.
fn unavailable() -> Option<String> {
    if let Err(e) = capture::available() {
        return Some(e.to_string());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("no /dev/loop-control".into());
    }
    ["losetup", "mkfs.ext4", "mount", "umount"]
        .into_iter()
        .find(|t| sh(&["sh", "-c", &format!("command -v {t}")]).is_err())
        .map(|t| format!("{t} is not installed"))
}

/// A page-aligned buffer for O_DIRECT.
struct Aligned {
    bytes: Vec<u8>,
    at: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize, fill: u8) -> Aligned {
        let bytes = vec![fill; len + 4096];
        let at = bytes.as_ptr().align_offset(4096);
        Aligned { bytes, at, len }
    }

    fn get(&self) -> &[u8] {
        &self.bytes[self.at..self.at + self.len]
    }
}

/// An InnoDB-like redo log and tablespace written under `dir`.
fn database_io(dir: &Path) {
    let log = OpenOptions::new()
        .create(true)
        .write(true)
        .custom_flags(libc::O_DIRECT | libc::O_DSYNC)
        .open(dir.join("ib_logfile0"))
        .unwrap();
    let page = Aligned::new(4096, b'L');
    let data = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(dir.join("t1.ibd"))
        .unwrap();
    let block = Aligned::new(16384, b'D');
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..64u64 {
        log.write_all_at(page.get(), i * 4096).unwrap();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data.write_all_at(block.get(), (x % 512) * 16384).unwrap();
        if i % 4 == 3 {
            data.sync_data().unwrap();
        }
    }
}

/// A tablespace of 8 MiB, written and synced before the capture starts.
fn make_tablespace(dir: &Path) {
    let f = File::create(dir.join("t1.ibd")).unwrap();
    f.write_all_at(&vec![0u8; 8 << 20], 0).unwrap();
    f.sync_all().unwrap();
}

/// A loop device over a scratch file, detached (and unmounted) when dropped.
struct LoopDisk {
    dev: String,
    device: capture::CapturedDevice,
    // Dropped before `tmp`: the undo commands run while the image still exists.
    cleanup: Cleanup,
    tmp: tempfile::TempDir,
}

/// A loop device of `bytes` over an image `prepare` wrote first (partitions are scanned), or
/// why there cannot be one here (a failure under CI=true).
fn loop_disk(bytes: u64, prepare: impl FnOnce(&File)) -> Option<LoopDisk> {
    if let Some(why) = unavailable() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must be able to capture block I/O: {why}"
        );
        eprintln!("skipped: {why}");
        return None;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let image = tmp.path().join("disk.img");
    let file = File::create(&image).unwrap();
    file.set_len(bytes).unwrap();
    prepare(&file);
    drop(file);
    let mut cleanup = Cleanup(Vec::new());
    let image = image.to_str().unwrap();
    let dev = sh(&["losetup", "--find", "--show", "--partscan", image]).expect("losetup");
    cleanup
        .0
        .push(vec!["losetup".into(), "-d".into(), dev.clone()]);
    let rdev = std::fs::metadata(&dev).unwrap().rdev();
    let device = capture::device(rustix::fs::major(rdev), rustix::fs::minor(rdev)).unwrap();
    assert_eq!(device.size_bytes, bytes);
    assert_eq!(Path::new(&dev).file_name().unwrap(), device.name.as_str());
    Some(LoopDisk {
        dev,
        device,
        cleanup,
        tmp,
    })
}

#[test]
fn a_phase_on_a_loop_device_is_captured_classified_and_written() {
    let Some(mut disk) = loop_disk(256 << 20, |_| ()) else {
        return;
    };
    sh(&["mkfs.ext4", "-q", &disk.dev]).expect("mkfs.ext4");
    let mnt = disk.tmp.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&["mount", &disk.dev, mnt.to_str().unwrap()]).expect("mount");
    disk.cleanup
        .0
        .push(vec!["umount".into(), mnt.display().to_string()]);

    dropped_and_orphaned_instances_are_removed(&disk.device);
    make_tablespace(&mnt);

    let mut tracer = Tracer::start(vec![disk.device.clone()]).unwrap();
    let instance = tracer.instance_dir().to_owned();
    tracer.begin_phase("sample").unwrap();
    database_io(&mnt);
    tracer.end_phase();
    let (meta, requests) = tracer.finish().unwrap();
    assert!(!instance.exists(), "{} left behind", instance.display());
    let map = FileMap::build(std::slice::from_ref(&mnt), &meta.devices);
    assert_eq!(
        extent_bytes(&disk.dev, &map, "ib_logfile0", 4096),
        vec![b'L'; 4096]
    );
    check_capture(&mnt, meta, requests);
}

/// `length` bytes of the whole disk `dev` where the first extent of `file` starts, read
/// past the page cache.
fn extent_bytes(dev: &str, map: &FileMap, file: &str, length: usize) -> Vec<u8> {
    let index = map
        .files
        .iter()
        .position(|f| f.path == Path::new(file))
        .unwrap() as u32;
    let extent = map.extents().iter().find(|e| e.file == index).unwrap();
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(dev)
        .unwrap();
    let mut buf = Aligned::new(length, 0);
    let at = buf.at;
    f.read_exact_at(&mut buf.bytes[at..at + length], extent.start)
        .unwrap();
    buf.get().to_vec()
}

/// An MBR with one Linux partition from sector `start` to the end of a disk of `sectors`.
fn write_mbr(image: &File, start: u32, sectors: u32) {
    let mut mbr = [0u8; 512];
    let entry = &mut mbr[446..462];
    entry[4] = 0x83;
    entry[8..12].copy_from_slice(&start.to_le_bytes());
    entry[12..16].copy_from_slice(&(sectors - start).to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    image.write_all_at(&mbr, 0).unwrap();
}

/// A filesystem on a partition: its files are mapped at the partition's start plus their
/// offset in it, on the whole disk; the partition itself is refused as a device to trace.
#[test]
fn extents_on_a_partition_are_placed_on_its_disk() {
    let sectors = (64 << 20) / 512;
    let Some(mut disk) = loop_disk(64 << 20, |f| write_mbr(f, 2048, sectors)) else {
        return;
    };
    let part = format!("{}p1", disk.dev);
    if !Path::new(&part).exists() {
        // A kernel without the MBR parser (CONFIG_MSDOS_PARTITION) is told of it instead.
        sh(&["partx", "--add", &disk.dev]).expect("partx --add");
    }
    for _ in 0..50 {
        if Path::new(&part).exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let rdev = std::fs::metadata(&part)
        .expect("the partition's node")
        .rdev();
    let (major, minor) = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
    assert_eq!(capture::whole_disk(major, minor).unwrap(), disk.device);
    let as_device = capture::device(major, minor).unwrap();
    assert_eq!(as_device.size_bytes, (sectors as u64 - 2048) * 512);
    match Tracer::start(vec![as_device]) {
        Err(capture::CaptureError::Partition { .. }) => {}
        other => panic!("a partition was accepted: {:?}", other.err()),
    }
    sh(&["mkfs.ext4", "-q", &part]).expect("mkfs.ext4");
    let mnt = disk.tmp.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&["mount", &part, mnt.to_str().unwrap()]).expect("mount");
    disk.cleanup
        .0
        .push(vec!["umount".into(), mnt.display().to_string()]);
    let f = File::create(mnt.join("t2.ibd")).unwrap();
    f.write_all_at(&vec![b'P'; 1 << 20], 0).unwrap();
    f.sync_all().unwrap();
    let map = FileMap::build(
        std::slice::from_ref(&mnt),
        std::slice::from_ref(&disk.device),
    );
    assert!(map.extents().iter().all(|e| e.start >= 2048 * 512));
    assert_eq!(
        extent_bytes(&disk.dev, &map, "t2.ibd", 8192),
        vec![b'P'; 8192]
    );
}

/// The reader's cost: CPU seconds of the reader thread per million requests captured, while
/// 4 threads write 4 KiB O_DIRECT blocks to a bare loop device for 3 s. Run it with
/// `cargo test --test tests capture:: -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn reader_cost_per_million_requests() {
    let Some(disk) = loop_disk(1 << 30, |_| ()) else {
        return;
    };
    let mut tracer = Tracer::start(vec![disk.device.clone()]).unwrap();
    tracer.begin_phase("load").unwrap();
    let stop = std::time::Instant::now() + std::time::Duration::from_secs(3);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let dev = disk.dev.clone();
            s.spawn(move || {
                let f = OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_DIRECT)
                    .open(&dev)
                    .unwrap();
                let page = Aligned::new(4096, b'x');
                let mut i = t;
                while std::time::Instant::now() < stop {
                    f.write_all_at(page.get(), (i * 7919 % 262_144) * 4096)
                        .unwrap();
                    i += 4;
                }
            });
        }
    });
    tracer.end_phase();
    let cpu = reader_cpu_seconds();
    let (meta, requests) = tracer.finish().unwrap();
    let million = requests.len() as f64 / 1e6;
    println!(
        "{} requests in 3 s ({:.0}/s), {} events lost; reader thread {:.3} CPU s = {:.2} CPU s \
         per million requests; 40 bytes per request in trace.dbc",
        requests.len(),
        requests.len() as f64 / 3.0,
        meta.lost_events,
        cpu,
        cpu / million.max(1e-9)
    );
}

/// CPU seconds (user + system) of this process's thread named "capture-reader".
fn reader_cpu_seconds() -> f64 {
    let tick = 100.0; // USER_HZ on Linux
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() != "capture-reader" {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = after.split(' ').collect();
        let (user, system): (f64, f64) = (f[11].parse().unwrap(), f[12].parse().unwrap());
        println!(
            "reader thread: {:.3} s user, {:.3} s system",
            user / tick,
            system / tick
        );
        return (user + system) / tick;
    }
    panic!("no capture-reader thread");
}

/// A tracer dropped unfinished removes its instance; an instance of a dead process is removed
/// by `clean_orphans`.
fn dropped_and_orphaned_instances_are_removed(device: &capture::CapturedDevice) {
    let tracer = Tracer::start(vec![device.clone()]).unwrap();
    let dir = tracer.instance_dir().to_owned();
    assert!(dir.is_dir());
    drop(tracer);
    assert!(!dir.exists(), "{} left behind", dir.display());

    let pid_max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let orphan_name = format!("drivebench-{}", pid_max + 1);
    let orphan = dir.with_file_name(&orphan_name);
    std::fs::create_dir(&orphan).unwrap();
    std::fs::write(orphan.join("events/block/block_rq_issue/enable"), "1").unwrap();
    let removed = capture::clean_orphans();
    assert!(removed.contains(&orphan_name), "{removed:?}");
    assert!(!orphan.exists());
}

fn check_capture(mnt: &Path, meta: capture::CaptureMeta, mut requests: Vec<Request>) {
    let raw = requests.clone();
    assert!(!requests.is_empty());
    assert_eq!(meta.lost_events, 0);
    assert_eq!(meta.phases.len(), 1);
    assert!(requests.iter().all(|r| r.device == 0 && r.phase == 0));
    assert!(requests.windows(2).all(|w| w[0].issue_ns <= w[1].issue_ns));

    let map = FileMap::build(&[mnt.to_path_buf()], &meta.devices);
    let files = classify(&mut requests, &map, &meta.tasks);
    let class_of = |name: &str| files.files.iter().find(|f| f.path == name).map(|f| f.class);
    assert_eq!(class_of("ib_logfile0"), Some(FileClass::Log));
    assert_eq!(class_of("t1.ibd"), Some(FileClass::Data));

    print_sample(&meta, &requests);
    let count = |class: FileClass, op: Op, bytes: u32| {
        requests
            .iter()
            .filter(|r| r.class == class && r.op == op && r.bytes == bytes)
            .count()
    };
    assert!(count(FileClass::Log, Op::Write, 4096) >= 48, "log writes");
    assert!(
        count(FileClass::Data, Op::Write, 16384) >= 48,
        "data writes"
    );
    let durable =
        |r: &&Request| r.op == Op::Flush || r.flags.has(Flags::FUA) || r.flags.has(Flags::PREFLUSH);
    assert!(requests.iter().any(|r| durable(&r)), "no flush or FUA");
    let flush_of = |class| {
        requests
            .iter()
            .any(|r| r.op == Op::Flush && r.class == class)
    };
    assert!(flush_of(FileClass::Data), "no flush after a data write");
    assert!(
        requests
            .iter()
            .filter(|r| r.op != Op::Flush)
            .all(|r| r.latency_ns().is_some())
    );

    let summary = summarize(&meta, &requests);
    let unknown = &summary.classes[FileClass::Unknown as usize];
    assert_eq!(unknown.class, FileClass::Unknown);
    assert!((0.0..=1.0).contains(&summary.unknown_request_share));
    println!("summary: {}", summary.line());

    let out = tempfile::tempdir().unwrap();
    capture::write(out.path(), &meta, &requests, &files, &summary).unwrap();
    let back = capture::read(out.path()).unwrap();
    assert_eq!((&back.meta, &back.requests), (&meta, &requests));
    assert_eq!((&back.files, &back.summary), (&files, &summary));

    let run = tempfile::tempdir().unwrap();
    let dir: PathBuf = run.path().join("capture");
    let written = capture::write_capture(&dir, meta.clone(), raw, &[mnt.to_path_buf()]).unwrap();
    let back = capture::read(run.path()).unwrap();
    assert_eq!(back.requests, requests);
    assert_eq!(written, summary);
    let iolog = std::fs::read_to_string(dir.join("replay.iolog")).unwrap();
    assert!(iolog.starts_with("fio version 3 iolog\n"));
    assert!(iolog.lines().any(|l| l.ends_with(" datasync 0 0")));
}

/// The first requests, as a reader of this test's output sees what was captured.
fn print_sample(meta: &capture::CaptureMeta, requests: &[Request]) {
    println!("{} requests; tasks {:?}", requests.len(), meta.tasks);
    for r in requests.iter().take(12) {
        println!(
            "{:>9} ns {:>8} {:<8} sector {:>7} {:>6} B flags {:02x} {:<10} {}",
            r.issue_ns,
            r.latency_ns().map_or("-".into(), |l| format!("+{l}")),
            r.op.as_str(),
            r.sector,
            r.bytes,
            r.flags.0,
            r.class.as_str(),
            meta.tasks[usize::from(r.task)]
        );
    }
}

/// zram is bio-based: no block request ever reaches a driver queue, so it is refused as a
/// device to trace (its data can still be a replay target).
#[test]
fn a_bio_based_device_is_refused() {
    let Ok((major, minor)) = std::fs::read_to_string("/sys/block/zram0/dev").map(|t| {
        let (a, b) = t.trim().split_once(':').unwrap();
        (a.parse().unwrap(), b.parse().unwrap())
    }) else {
        eprintln!("skipped: no /sys/block/zram0");
        return;
    };
    let zram = capture::device(major, minor).unwrap();
    match capture::traceable(&zram) {
        Err(e @ capture::CaptureError::BioBased { .. }) => {
            assert!(e.to_string().contains("zram0"), "{e}")
        }
        other => panic!("zram0 was taken as traceable: {other:?}"),
    }
}
