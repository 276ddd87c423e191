//! The verdict names the I/O class on a drive made slow: a loop device on the system disk,
//! throttled for the run's processes by a cgroup-v1 blkio limit (tests/common/loopfs.rs).
//! A commit flush per transaction with the writes throttled must come out "drive: log
//! flushes" (MariaDB and PostgreSQL); a read-only run whose data is far larger than its buffer
//! pool, with the reads throttled, "drive: data reads" (MariaDB, whose data files bypass the
//! page cache; PostgreSQL, whose page cache a cgroup-v1 memory limit keeps small). Needs root, loop devices and blkio throttling: skipped with a word where they
//! are missing, a failure under CI=true.

use std::path::Path;

use crate::common::loopfs::{LoopFs, Throttle, or_skip};
use crate::common::needs::need;
use crate::common::{bin, read_json, root, text};

/// A limit that leaves the other direction free.
const FREE_IOPS: u32 = 1_000_000;

/// The loop filesystem and its throttle, or None (printing why) where there can be none.
fn slow_drive(read_iops: u32, write_iops: u32) -> Option<(LoopFs, Throttle)> {
    slow_drive_in(read_iops, write_iops, None)
}

/// As `slow_drive`, the processes also limited to `memory` bytes, their page cache included.
fn slow_drive_in(
    read_iops: u32,
    write_iops: u32,
    memory: Option<u64>,
) -> Option<(LoopFs, Throttle)> {
    let made = LoopFs::new(2048).and_then(|fs| {
        let throttle = Throttle::new(&fs.maj_min()?, read_iops, write_iops)?;
        let throttle = match memory {
            Some(bytes) => throttle.limit_memory(bytes)?,
            None => throttle,
        };
        Ok((fs, throttle))
    });
    or_skip(made, "throttle a loop device")
}

/// Run `scenario` with `sets` on the slow drive; the recorded phase.
fn verdict_on(drive: &(LoopFs, Throttle), scenario: &str, sets: &[&str]) -> serde_json::Value {
    let (fs, throttle) = drive;
    let out_dir = fs.mnt.join("run");
    let mut cmd = bin();
    cmd.args(["run", scenario, "--quiet", "--out"])
        .arg(&out_dir)
        .arg("--target")
        .arg(fs.mnt.join("target"));
    for s in sets {
        cmd.args(["--set", s]);
    }
    cmd.current_dir(root());
    let out = throttle.wrap(&cmd).output().expect("run drivebench");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = read_json(&out_dir.join("result.json"));
    let phase = result["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["recorded"] == true)
        .expect("a recorded phase")
        .clone();
    let summary = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    println!("{}", verdict_lines(&summary));
    phase
}

/// summary.md's lines that say what limited a phase.
fn verdict_lines(summary: &str) -> String {
    summary
        .lines()
        .filter(|l| l.contains("What limited it"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The recorded `phase` was drive-bound on `class`.
fn assert_class(phase: &serde_json::Value, class: &str) {
    let verdict = &phase["telemetry"]["verdict"];
    let figures = &phase["engine_io"];
    assert_eq!(verdict["bound"], "drive", "{verdict:#}");
    assert_eq!(
        verdict["class"]["class"], class,
        "{verdict:#}\nengine I/O: {figures:#}"
    );
    let text = verdict["class"]["text"].as_str().unwrap();
    assert!(text.starts_with(&class.replace('_', " ")), "{text}");
}

#[test]
fn mariadb_commits_on_a_drive_slow_to_write_wait_on_log_flushes() {
    need!(Mariadb);
    let Some(drive) = slow_drive(FREE_IOPS, 150) else {
        return;
    };
    let phase = verdict_on(
        &drive,
        "scenarios/ci-sysbench-mariadb.toml",
        &["workload.test=oltp_write_only", "workload.table_size=2000"],
    );
    assert_class(&phase, "log_flushes");
}

/// PostgreSQL runs as its own user: it must reach the mount.
fn open_to_postgres(drive: &(LoopFs, Throttle)) {
    let _ = std::fs::set_permissions(
        Path::new(&drive.0.mnt),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    );
}

#[test]
fn postgres_commits_on_a_drive_slow_to_write_wait_on_log_flushes() {
    need!(Postgres);
    let Some(drive) = slow_drive(FREE_IOPS, 150) else {
        return;
    };
    open_to_postgres(&drive);
    let phase = verdict_on(
        &drive,
        "scenarios/ci-sysbench-postgres.toml",
        &["workload.test=oltp_write_only", "workload.table_size=2000"],
    );
    assert_class(&phase, "log_flushes");
}

#[test]
fn mariadb_reads_past_a_small_buffer_pool_on_a_drive_slow_to_read_wait_on_data_reads() {
    need!(Mariadb);
    let Some(drive) = slow_drive(150, FREE_IOPS) else {
        return;
    };
    let phase = verdict_on(
        &drive,
        "scenarios/ci-sysbench-mariadb.toml",
        &[
            "workload.test=oltp_read_only",
            "workload.table_size=100000",
            "instance.0.config.buffer_pool=\"8MiB\"",
            "instance.0.config.flush_method=\"O_DIRECT\"",
        ],
    );
    assert_class(&phase, "data_reads");
}

/// PostgreSQL reads through the page cache: the run's processes are held to 112 MiB, page
/// cache included, with 16 MiB of shared_buffers, so most of the ~100 MiB of tables come from
/// the drive.
#[test]
fn postgres_reads_past_its_caches_on_a_drive_slow_to_read_wait_on_data_reads() {
    need!(Postgres);
    let Some(drive) = slow_drive_in(150, FREE_IOPS, Some(112 << 20)) else {
        return;
    };
    open_to_postgres(&drive);
    let phase = verdict_on(
        &drive,
        "scenarios/ci-sysbench-postgres.toml",
        &[
            "workload.test=oltp_read_only",
            "workload.table_size=100000",
            "instance.0.config.shared_buffers=\"16MiB\"",
        ],
    );
    assert_class(&phase, "data_reads");
}
