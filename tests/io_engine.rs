//! The direct-I/O engine on real files and real (loop) block devices: no I/O outside the
//! region, rate accuracy under pacing, both engines, clear refusals for misaligned sizes and
//! targets without direct I/O, the stop flag, and the destructive-write guard's matrix.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use drivebench_system::io::{
    Arrivals, BlockSizes, DirectTarget, EngineChoice, IoEngineKind, IoError, Pacing, PointSpec,
    Region, SizeShare, TargetSpec, open_target, run_point,
};
use drivebench_system::target::guard::{GuardError, claim_block_device};

const MIB: u64 = 1 << 20;

/// Rate and elapsed-time assertions hold on a 2-core machine only when the I/O threads of one
/// test do not share the cores with another's: the timed tests of this file run one at a time.
fn timed() -> std::sync::MutexGuard<'static, ()> {
    static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TIMED.lock().unwrap_or_else(|p| p.into_inner())
}

/// A directory on a real filesystem (not /tmp, which may be tmpfs).
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("drivebench-io-")
        .tempdir_in("/var/tmp")
        .expect("tempdir under /var/tmp")
}

fn file_target(dir: &Path, size_bytes: u64) -> DirectTarget {
    let spec = TargetSpec::File {
        path: dir.join("target"),
        size_bytes,
    };
    open_target(&spec).expect("open file target")
}

fn point(engine: EngineChoice) -> PointSpec {
    PointSpec {
        block_sizes: BlockSizes::Fixed(4096),
        read_pct: 100,
        random_pct: 100,
        threads: 2,
        depth: 4,
        region: Region::WHOLE,
        warmup_secs: 0.1,
        duration_secs: 0.5,
        pacing: Pacing::Uncontrolled,
        engine,
        seed: 42,
        submit_batch: 1,
        log_offsets: false,
    }
}

fn never() -> AtomicBool {
    AtomicBool::new(false)
}

#[test]
fn a_new_file_target_is_fully_allocated_and_an_existing_smaller_one_is_refused() {
    let dir = scratch();
    let target = file_target(dir.path(), 16 * MIB);
    let meta = std::fs::metadata(&target.path).expect("stat");
    use std::os::unix::fs::MetadataExt;
    assert_eq!(meta.len(), 16 * MIB);
    assert!(
        meta.blocks() * 512 >= 16 * MIB,
        "sparse: {} blocks",
        meta.blocks()
    );
    drop(target);
    let err = open_target(&TargetSpec::File {
        path: dir.path().join("target"),
        size_bytes: 32 * MIB,
    })
    .expect_err("too small");
    assert!(matches!(err, IoError::TooSmall { .. }), "{err}");
    assert!(
        err.to_string().contains("smaller than the 33554432 bytes"),
        "{err}"
    );
}

#[test]
fn no_io_falls_outside_the_region_and_every_io_is_aligned() {
    let _one_at_a_time = timed();
    let dir = scratch();
    let target = file_target(dir.path(), 16 * MIB);
    let align = target.alignment.offset_bytes;
    for engine in [EngineChoice::IoUring, EngineChoice::Psync] {
        let spec = PointSpec {
            block_sizes: BlockSizes::Mix(vec![
                SizeShare {
                    bytes: 4096,
                    weight_pct: 60,
                },
                SizeShare {
                    bytes: 65536,
                    weight_pct: 30,
                },
                SizeShare {
                    bytes: 12288,
                    weight_pct: 10,
                },
            ]),
            read_pct: 50,
            random_pct: 50,
            region: Region {
                start_fraction: 0.25,
                end_fraction: 0.5,
            },
            submit_batch: 1,
            log_offsets: true,
            ..point(engine)
        };
        let result = run_point(&target, &spec, &never()).expect("run");
        let (start, end) = (4 * MIB, 8 * MIB);
        assert!(result.offset_log.len() as u64 >= result.ios && result.ios > 0);
        // 4 MiB region, at least a few hundred 64 KiB I/Os: sequential streams wrapped.
        let mut sequential_wraps = 0;
        for pair in result.offset_log.windows(2) {
            sequential_wraps += usize::from(pair[1].offset == start);
        }
        for op in &result.offset_log {
            assert!(
                op.offset >= start && op.offset + op.len_bytes <= end,
                "{engine:?}: {op:?} outside [{start}, {end})"
            );
            assert_eq!(op.offset % align, 0, "{engine:?}: {op:?}");
            assert_eq!(op.len_bytes % align, 0, "{engine:?}: {op:?}");
        }
        assert!(result.read_ios > 0 && result.write_ios > 0, "{result:?}");
        assert!(
            sequential_wraps > 0 || result.offset_log.len() < 200,
            "no wrap seen"
        );
    }
}

#[test]
fn a_target_rate_is_held_within_two_percent_by_both_engines() {
    let _one_at_a_time = timed();
    let dir = scratch();
    let target = file_target(dir.path(), 64 * MIB);
    // io_uring submitting each I/O at once and in batches of the depth, then psync.
    for (engine, submit_batch) in [
        (EngineChoice::IoUring, 1),
        (EngineChoice::IoUring, 4),
        (EngineChoice::Psync, 1),
    ] {
        let spec = PointSpec {
            warmup_secs: 0.5,
            duration_secs: 3.0,
            depth: if engine == EngineChoice::Psync { 1 } else { 4 },
            pacing: Pacing::Rate {
                iops: 2000.0,
                arrivals: Arrivals::Uniform,
            },
            submit_batch,
            ..point(engine)
        };
        let r = run_point(&target, &spec, &never()).expect("run");
        assert!(
            (r.iops / 2000.0 - 1.0).abs() < 0.02,
            "{engine:?} batch {submit_batch}: {} IOPS for a 2000 IOPS target",
            r.iops
        );
        assert_eq!(r.target_iops, Some(2000.0));
        assert!(
            r.schedule_latency_us.avg >= r.service_latency_us.avg,
            "{r:?}"
        );
        assert!(
            r.mean_outstanding_ios < f64::from(r.outstanding_max_ios),
            "{r:?}"
        );
    }
}

#[test]
fn both_engines_run_and_report_and_psync_can_be_forced() {
    let _one_at_a_time = timed();
    let dir = scratch();
    let target = file_target(dir.path(), 64 * MIB);
    let auto = run_point(&target, &point(EngineChoice::Auto), &never()).expect("auto");
    match auto.engine {
        IoEngineKind::IoUring => assert_eq!(auto.engine_fallback_reason, None),
        IoEngineKind::Psync => assert!(auto.engine_fallback_reason.is_some()),
    }
    let uring = run_point(&target, &point(EngineChoice::IoUring), &never());
    let batched = PointSpec {
        submit_batch: 4,
        ..point(EngineChoice::IoUring)
    };
    let psync = run_point(&target, &point(EngineChoice::Psync), &never()).expect("psync");
    assert_eq!(psync.engine, IoEngineKind::Psync);
    assert_eq!((psync.os_threads, psync.outstanding_max_ios), (8, 8));
    let mut results = vec![psync];
    match uring {
        Ok(r) => {
            assert_eq!(
                (r.engine, r.os_threads, r.outstanding_max_ios),
                (IoEngineKind::IoUring, 2, 8)
            );
            results.push(r);
            results.push(run_point(&target, &batched, &never()).expect("batched io_uring"));
        }
        Err(e) => println!("io_uring unavailable here, only psync checked: {e}"),
    }
    for r in results {
        assert!(r.ios > 0 && r.iops > 0.0 && r.mib_s > 0.0, "{r:?}");
        assert_eq!(r.bytes, r.ios * 4096);
        assert_eq!((r.read_ios, r.write_ios), (r.ios, 0));
        assert!((r.elapsed_secs - 0.5).abs() < 0.05, "{r:?}");
        assert!(r.service_latency_us.p50 <= r.service_latency_us.p99);
        assert!(r.service_latency_us.p99 <= r.service_latency_us.max);
        assert!(r.cpu_secs > 0.0, "{r:?}");
        // Uncontrolled: Little's law agrees with what was observed, and the slots stay busy
        // when an I/O takes longer than issuing one. A file the host serves from its cache in
        // a few µs completes I/Os as fast as a thread can submit them, and then only the law
        // holds. The two differ only by the I/Os that straddle the window's edges (the law
        // counts a straddling I/O's whole service time, the observation only its part inside),
        // at most one per slot per edge, each at most the longest service time: a stall of the
        // host at an edge moves them apart by that much and no more.
        let edges = 2.0 * f64::from(r.outstanding_max_ios) * r.service_latency_us.max as f64
            / 1e6
            / r.elapsed_secs;
        let gap = (r.littles_law_outstanding_ios - r.mean_outstanding_ios).abs();
        assert!(gap <= 0.05 * r.mean_outstanding_ios + edges, "{r:?}");
        if r.service_latency_us.avg > 50.0 {
            assert!(
                r.mean_outstanding_ios > 0.5 * f64::from(r.outstanding_max_ios),
                "{r:?}"
            );
        }
        assert!(!r.service_histogram_us.is_empty() && !r.stopped_early);
    }
}

#[test]
fn the_stop_flag_ends_a_point_early_with_what_was_measured() {
    let _one_at_a_time = timed();
    let dir = scratch();
    let target = file_target(dir.path(), 16 * MIB);
    let stop = AtomicBool::new(false);
    let spec = PointSpec {
        warmup_secs: 0.0,
        duration_secs: 60.0,
        ..point(EngineChoice::Auto)
    };
    let began = Instant::now();
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            stop.store(true, Ordering::Relaxed);
        });
        run_point(&target, &spec, &stop)
    })
    .expect("run");
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    assert!(result.stopped_early && result.ios > 0, "{result:?}");
    assert!(result.elapsed_secs < 5.0, "{result:?}");
}

#[test]
fn a_block_size_that_is_not_a_multiple_of_the_alignment_is_refused() {
    let dir = scratch();
    let target = file_target(dir.path(), 16 * MIB);
    let spec = PointSpec {
        block_sizes: BlockSizes::Fixed(1000),
        ..point(EngineChoice::Auto)
    };
    let err = run_point(&target, &spec, &never()).expect_err("1000 bytes");
    assert!(
        matches!(
            err,
            IoError::Misaligned {
                block_size_bytes: 1000,
                ..
            }
        ),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("block size 1000 bytes") && message.contains("alignment"),
        "{message}"
    );
}

#[test]
fn targets_without_real_direct_io_are_refused() {
    // tmpfs accepts O_DIRECT but keeps data in memory: refused by name.
    if Path::new("/dev/shm").is_dir() {
        let path = PathBuf::from(format!("/dev/shm/drivebench-io-{}", std::process::id()));
        let err = open_target(&TargetSpec::File {
            path: path.clone(),
            size_bytes: MIB,
        })
        .expect_err("tmpfs");
        assert!(matches!(err, IoError::NoDirectIo { .. }), "{err}");
        assert!(err.to_string().contains("tmpfs"), "{err}");
        assert!(!path.exists(), "a refused target file is removed");
    } else {
        println!("skipped the tmpfs case: no /dev/shm");
    }
    // ramfs refuses O_DIRECT outright (EINVAL); mounting it needs root.
    let dir = scratch();
    let mount_point = dir.path().join("ramfs");
    std::fs::create_dir(&mount_point).expect("mkdir");
    let Ok(()) = run(&[
        "mount",
        "-t",
        "ramfs",
        "drivebench-ramfs",
        path_str(&mount_point),
    ]) else {
        println!("skipped the ramfs case: cannot mount ramfs here");
        return;
    };
    let mut cleanup = Cleanup::default();
    cleanup.push(&["umount", path_str(&mount_point)]);
    let err = open_target(&TargetSpec::File {
        path: mount_point.join("target"),
        size_bytes: MIB,
    })
    .expect_err("ramfs");
    assert!(matches!(err, IoError::NoDirectIo { .. }), "{err}");
    assert!(err.to_string().contains("O_DIRECT"), "{err}");
}

// ---- the destructive-write guard, on loop devices ----

/// Loop-device tests share /dev/loop*: one at a time.
static LOOP_LOCK: Mutex<()> = Mutex::new(());

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// Run a command; its stdout, or a message with its stderr.
fn output(argv: &[&str]) -> Result<String, String> {
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .output()
        .map_err(|e| format!("{}: {e}", argv[0]))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(format!(
            "{argv:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn run(argv: &[&str]) -> Result<(), String> {
    output(argv).map(drop)
}

/// Commands that undo what a test set up, run in reverse order on drop (panics included).
#[derive(Default)]
struct Cleanup(Vec<Vec<String>>);

impl Cleanup {
    fn push(&mut self, argv: &[&str]) {
        self.0.push(argv.iter().map(|s| (*s).to_owned()).collect());
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        while let Some(argv) = self.0.pop() {
            let args: Vec<&str> = argv.iter().map(String::as_str).collect();
            if let Err(e) = output(&args) {
                eprintln!("cleanup: {e}");
            }
        }
    }
}

/// Why loop devices cannot be used here, if they cannot.
fn loop_devices_unavailable() -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some("not root".to_owned());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("no /dev/loop-control".to_owned());
    }
    for tool in ["losetup", "mkfs.ext4", "mkswap", "swapon", "partx"] {
        if output(&["sh", "-c", &format!("command -v {tool}")]).is_err() {
            return Some(format!("{tool} is not installed"));
        }
    }
    None
}

/// A loop device over a new 64 MiB file in `dir`, detached on cleanup.
fn attach(dir: &Path, cleanup: &mut Cleanup, partitions: bool) -> String {
    let image = dir.join(if partitions { "parted.img" } else { "disk.img" });
    let mut bytes = vec![0u8; 64 * MIB as usize];
    if partitions {
        // An MBR with one Linux partition from sector 2048 to the end of the image.
        let entry = &mut bytes[446..462];
        entry[4] = 0x83;
        entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
        entry[12..16].copy_from_slice(&((64 * MIB / 512) as u32 - 2048).to_le_bytes());
        bytes[510..512].copy_from_slice(&[0x55, 0xaa]);
    }
    std::fs::write(&image, &bytes).expect("image");
    let flags = if partitions { "-fP" } else { "-f" };
    let dev = output(&["losetup", flags, "--show", path_str(&image)]).expect("losetup");
    cleanup.push(&["losetup", "-d", &dev]);
    dev
}

/// The first partition of a partitioned loop device, with a device node.
fn first_partition(dev: &str, cleanup: &mut Cleanup) -> String {
    let name = Path::new(dev)
        .file_name()
        .and_then(|n| n.to_str())
        .expect("name");
    let sys = PathBuf::from(format!("/sys/class/block/{name}p1/dev"));
    if !sys.exists() {
        // Partition scanning may not have run: add the partitions by hand.
        let _ = run(&["partx", "-a", dev]);
    }
    cleanup.push(&["partx", "-d", dev]);
    let number = std::fs::read_to_string(&sys).expect("partition 1 in sysfs");
    let (major, minor) = number.trim().split_once(':').expect("major:minor");
    let part = format!("{dev}p1");
    let deadline = Instant::now() + Duration::from_secs(2);
    while !Path::new(&part).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    if !Path::new(&part).exists() {
        // No udev here: make the node ourselves.
        run(&["mknod", &part, "b", major, minor]).expect("mknod");
        cleanup.push(&["rm", "-f", &part]);
    }
    part
}

macro_rules! loop_env {
    () => {{
        if let Some(reason) = loop_devices_unavailable() {
            println!("skipped: loop devices unavailable: {reason}");
            return;
        }
        (
            LOOP_LOCK.lock().unwrap_or_else(|e| e.into_inner()),
            scratch(),
            Cleanup::default(),
        )
    }};
}

#[test]
fn the_guard_accepts_an_idle_loop_device_only_with_destroy_data_and_the_engine_writes_it() {
    let (_lock, dir, mut cleanup) = loop_env!();
    let dev = attach(dir.path(), &mut cleanup, false);
    let err = claim_block_device(Path::new(&dev), false).expect_err("no destroy_data");
    assert!(matches!(err, GuardError::NotConfirmed { .. }), "{err}");
    let claimed = claim_block_device(Path::new(&dev), true).expect("idle device accepted");
    assert_eq!(claimed.path, PathBuf::from(&dev));
    let identity = claimed.identity.as_ref().expect("identity from sysfs");
    assert_eq!(
        Some(identity.name.as_str()),
        Path::new(&dev).file_name().and_then(|n| n.to_str())
    );
    assert_eq!(identity.capacity_bytes, Some(64 * MIB));
    // While claimed, a second exclusive open is refused.
    let err = claim_block_device(Path::new(&dev), true).expect_err("already claimed");
    assert!(matches!(err, GuardError::Busy { .. }), "{err}");
    drop(claimed);

    let target = open_target(&TargetSpec::BlockDevice {
        path: PathBuf::from(&dev),
        destroy_data: true,
    })
    .expect("open device target");
    assert_eq!(target.size_bytes, 64 * MIB);
    let spec = PointSpec {
        read_pct: 0,
        region: Region {
            start_fraction: 0.5,
            end_fraction: 1.0,
        },
        submit_batch: 1,
        log_offsets: true,
        ..point(EngineChoice::Auto)
    };
    let r = run_point(&target, &spec, &never()).expect("write point on the device");
    assert!(r.write_ios > 0, "{r:?}");
    assert!(
        r.offset_log
            .iter()
            .all(|op| op.offset >= 32 * MIB && op.offset + op.len_bytes <= 64 * MIB)
    );
}

#[test]
fn the_guard_refuses_a_loop_device_with_a_mounted_filesystem() {
    let (_lock, dir, mut cleanup) = loop_env!();
    let dev = attach(dir.path(), &mut cleanup, false);
    run(&["mkfs.ext4", "-q", "-F", &dev]).expect("mkfs.ext4");
    let mount_point = dir.path().join("mnt");
    std::fs::create_dir(&mount_point).expect("mkdir");
    run(&["mount", &dev, path_str(&mount_point)]).expect("mount");
    cleanup.push(&["umount", path_str(&mount_point)]);
    let err = claim_block_device(Path::new(&dev), true).expect_err("mounted");
    assert_eq!(
        err.to_string(),
        format!("{dev} is mounted on {}", mount_point.display())
    );
    let err = open_target(&TargetSpec::BlockDevice {
        path: PathBuf::from(&dev),
        destroy_data: true,
    })
    .expect_err("mounted");
    assert!(
        matches!(err, IoError::Guard(GuardError::Mounted { .. })),
        "{err}"
    );
}

#[test]
fn the_guard_refuses_a_loop_device_whose_partition_is_mounted() {
    let (_lock, dir, mut cleanup) = loop_env!();
    let dev = attach(dir.path(), &mut cleanup, true);
    let part = first_partition(&dev, &mut cleanup);
    run(&["mkfs.ext4", "-q", "-F", &part]).expect("mkfs.ext4 on the partition");
    let mount_point = dir.path().join("mnt");
    std::fs::create_dir(&mount_point).expect("mkdir");
    run(&["mount", &part, path_str(&mount_point)]).expect("mount the partition");
    cleanup.push(&["umount", path_str(&mount_point)]);
    let err = claim_block_device(Path::new(&dev), true).expect_err("partition mounted");
    assert_eq!(
        err.to_string(),
        format!("{part} is mounted on {}", mount_point.display())
    );
}

#[test]
fn the_guard_refuses_a_loop_device_used_as_swap() {
    let (_lock, dir, mut cleanup) = loop_env!();
    let dev = attach(dir.path(), &mut cleanup, false);
    run(&["mkswap", "-q", &dev]).expect("mkswap");
    if let Err(e) = run(&["swapon", &dev]) {
        println!("skipped: swapon is not permitted here: {e}");
        return;
    }
    cleanup.push(&["swapoff", &dev]);
    let err = claim_block_device(Path::new(&dev), true).expect_err("swap");
    assert_eq!(err.to_string(), format!("{dev} is in use as swap"));
}

#[test]
fn the_guard_refuses_a_loop_device_held_by_device_mapper() {
    let (_lock, dir, mut cleanup) = loop_env!();
    let dev = attach(dir.path(), &mut cleanup, false);
    let name = format!(
        "drivebench-test-{}",
        Path::new(&dev)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
    );
    let table = format!("0 {} linear {dev} 0", 64 * MIB / 512);
    if let Err(e) = run(&["dmsetup", "create", &name, "--table", &table]) {
        println!("skipped: dmsetup create is not permitted here: {e}");
        return;
    }
    cleanup.push(&["dmsetup", "remove", &name]);
    let err = claim_block_device(Path::new(&dev), true).expect_err("held");
    assert!(matches!(err, GuardError::Held { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("{dev} is held by dm-")),
        "{err}"
    );
}
