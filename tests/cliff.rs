//! The write cliff at a fixed load, on a real drive made slow part-way: SQLite
//! `oltp_write_only` at a fixed rate on ext4 over a loop device, whose writes a cgroup-v1
//! blkio limit (tests/common/loopfs.rs) cuts to a few per second after the fourth round; the
//! p99 must depart from its early level at a round after that, with the host's bytes written
//! counted on the loop device. Needs root, loop devices and blkio throttling: skipped with a
//! word where they are missing, a failure under CI=true. And a cliff phase refused with
//! `--no-telemetry` and on a target with no block device (exit 2, nothing started).

use std::io::BufRead;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::loopfs::{LoopFs, Throttle, or_skip};
use crate::common::{bin, read_json, root, text};

/// A limit that leaves writes free.
const FREE_IOPS: u32 = 1_000_000;
/// Report ticks of 1 s; rounds of 2 s; the throttle switched on after this many ticks. The
/// band is ± 1000 %: a busy host's slow round stays within it, 5 write IOPS do not.
const SWITCH_AFTER_TICKS: usize = 8;
const PHASE_TICKS: usize = 24;
/// The unthrottled control's phase.
const HELD_TICKS: usize = 12;

/// The scenario: 40 tx/s for a `seconds`-long cliff phase on `target`.
fn scenario(target: &Path, seconds: usize) -> String {
    format!(
        r#"name = "cliff-test"
report_interval = "1s"

[target]
path = "{}"

[[instance]]
engine = "sqlite"

[workload]
benchmark = "sysbench"
test = "oltp_write_only"
tables = 2
table_size = 1000
clients = 4

[[phase]]
name = "cliff"
duration = "{seconds}s"
rate = 40.0
cliff = true

[phase.steady]
round = "2s"
window = 3
max_range_pct = 1000.0
max_slope_pct = 1000.0
"#,
        target.display()
    )
}

/// The loop filesystem and a throttle group on it that does not limit yet, or None (printing
/// why) where there can be none.
fn drive() -> Option<(LoopFs, Throttle, String)> {
    let made = LoopFs::new(512).and_then(|fs| {
        let maj_min = fs.maj_min()?;
        let throttle = Throttle::new(&maj_min, FREE_IOPS, FREE_IOPS)?;
        Ok((fs, throttle, maj_min))
    });
    or_skip(made, "throttle a loop device")
}

/// Rows series.csv holds of the phase "cliff" so far.
fn ticks(series: &Path) -> usize {
    std::fs::File::open(series).map_or(0, |f| {
        std::io::BufReader::new(f)
            .lines()
            .map_while(Result::ok)
            .filter(|l| l.starts_with("cliff,"))
            .count()
    })
}

/// Wait until the phase has `n` ticks in series.csv (or the run ends, or a minute passes).
fn wait_ticks(series: &Path, n: usize, child: &mut std::process::Child) {
    let start = Instant::now();
    while ticks(series) < n && start.elapsed() < Duration::from_secs(60) {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A finished cliff run: its run directory (kept while `_dir` lives) and the series tick at
/// which the throttle came on, if it did.
struct CliffRun {
    _dir: tempfile::TempDir,
    run_dir: std::path::PathBuf,
    switched_at: Option<usize>,
}

impl CliffRun {
    /// The phase's `cliff` object in result.json.
    fn cliff(&self) -> serde_json::Value {
        read_json(&self.run_dir.join("result.json"))["phases"][0]["cliff"].clone()
    }
}

/// Run a `ticks`-second cliff phase on the drive; with `switch_after`, its writes throttled to
/// 5 IOPS once the phase has that many ticks, and freed again at its end.
fn run_cliff(
    (fs, throttle, maj_min): &(LoopFs, Throttle, String),
    ticks_total: usize,
    switch_after: Option<usize>,
) -> CliffRun {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cliff.toml");
    std::fs::write(&file, scenario(&fs.mnt.join("target"), ticks_total)).unwrap();
    let run_dir = dir.path().join("run");
    let mut cmd = bin();
    cmd.arg("run")
        .arg(&file)
        .args(["--quiet", "--out"])
        .arg(&run_dir)
        .current_dir(root());
    let mut child = throttle
        .wrap(&cmd)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start drivebench");
    let series = run_dir.join("series.csv");
    let switched_at = switch_after.map(|n| {
        wait_ticks(&series, n, &mut child);
        let at = ticks(&series);
        throttle.set_write_iops(maj_min, 5).unwrap();
        wait_ticks(&series, ticks_total, &mut child);
        throttle.set_write_iops(maj_min, FREE_IOPS).unwrap();
        at
    });
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    CliffRun {
        _dir: dir,
        run_dir,
        switched_at,
    }
}

#[test]
fn p99_departs_after_the_drive_turns_slow_at_a_fixed_load() {
    let Some(drive) = drive() else {
        return;
    };
    let run = run_cliff(&drive, PHASE_TICKS, Some(SWITCH_AFTER_TICKS));
    let switched_at = run.switched_at.unwrap();
    let cliff = run.cliff();
    let rounds = cliff["rounds"].as_array().unwrap();
    let written: Vec<u64> = rounds
        .iter()
        .map(|r| r["host_written_bytes"].as_u64().unwrap())
        .collect();
    assert!(written[0] > 0, "the loop device counted writes: {cliff:#}");
    assert!(written.windows(2).all(|w| w[0] <= w[1]), "{written:?}");
    // The fixed rate held while the drive kept up: 40 tx/s over the rounds before the switch.
    let before: Vec<f64> = rounds[..switched_at / 2]
        .iter()
        .map(|r| r["tps"].as_f64().unwrap())
        .collect();
    let mean = before.iter().sum::<f64>() / before.len() as f64;
    assert!((30.0..=50.0).contains(&mean), "{before:?}");
    let judgement = &cliff["judgement"];
    assert_eq!(judgement["state"], "departed", "{cliff:#}");
    // Rounds are 2 ticks: the first round that can hold throttled writes follows the switch.
    let first_slow_round = switched_at / 2 + 1;
    let round = judgement["round"].as_u64().unwrap() as usize;
    assert!(
        round >= first_slow_round,
        "departed at round {round}, the throttle came on at tick {switched_at}: {cliff:#}"
    );
    let summary = std::fs::read_to_string(run.run_dir.join("summary.md")).unwrap();
    let line = summary
        .lines()
        .find(|l| l.starts_with("Write cliff: p99 departed at round"))
        .unwrap_or_else(|| panic!("{summary}"));
    println!("{line}");
    assert!(
        summary.contains("- Phase cliff: open model at 40 tx/s per instance"),
        "{summary}"
    );
    let html = std::fs::read_to_string(run.run_dir.join("report.html")).unwrap();
    assert!(html.contains("Write cliff: p99 per round"), "p99 chart");
    assert!(
        html.contains("the drive's writes per round"),
        "writes chart"
    );
}

/// The control: the same load on the same drive, never throttled, holds its early level.
#[test]
fn p99_holds_its_early_level_while_the_drive_keeps_up() {
    let Some(drive) = drive() else {
        return;
    };
    let run = run_cliff(&drive, HELD_TICKS, None);
    let cliff = run.cliff();
    assert_eq!(cliff["judgement"]["state"], "held", "{cliff:#}");
    assert_eq!(
        cliff["judgement"]["rounds"].as_u64(),
        Some(HELD_TICKS as u64 / 2)
    );
    merge_keeps_each_hosts_cliff(&run, &cliff);
}

/// The run merged with a copy of itself (two "hosts"): each host keeps its own cliff, the
/// merged phase has none of its own, and summary.md shows each host's.
fn merge_keeps_each_hosts_cliff(run: &CliffRun, cliff: &serde_json::Value) {
    let copy = run.run_dir.with_file_name("run-b");
    let cp = std::process::Command::new("cp")
        .arg("-r")
        .arg(&run.run_dir)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(cp.success());
    let out = run.run_dir.with_file_name("merged");
    let merged = bin()
        .arg("merge")
        .args([&run.run_dir, &copy])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    let m = read_json(&out.join("result.json"));
    let hosts = m["merge"]["phases"][0]["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 2, "{m:#}");
    assert!(hosts.iter().all(|h| &h["cliff"] == cliff), "{m:#}");
    assert!(m["phases"][0].get("cliff").is_none(), "{m:#}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("Write cliff of cliff on run-b: p99 held"),
        "{summary}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("Write cliff of cliff on run-b"),
        "report.html"
    );
}

/// `drivebench run file extra --out out`, which must exit 2: its stderr.
fn refused(file: &Path, extra: &[&str], out: &Path) -> String {
    let run = bin()
        .arg("run")
        .arg(file)
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    err
}

#[test]
fn a_cliff_phase_without_telemetry_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    let file = dir.path().join("cliff.toml");
    std::fs::write(&file, scenario(&target, PHASE_TICKS)).unwrap();
    let err = refused(&file, &["--no-telemetry"], &dir.path().join("run"));
    assert!(
        err.contains("phase[0].cliff: needs the drive's write counters"),
        "{err}"
    );
    assert!(
        !target.exists() && !dir.path().join("run").exists(),
        "{err}"
    );
}

#[test]
fn a_cliff_phase_on_a_target_with_no_block_device_is_refused_by_preflight() {
    // tmpfs has no block device under it (device number 0:N).
    let shm = Path::new("/dev/shm");
    let on_tmpfs = rustix::fs::stat(shm).is_ok_and(|st| rustix::fs::major(st.st_dev) == 0);
    if !on_tmpfs {
        eprintln!("skipped: /dev/shm is not a filesystem without a block device here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir_in(shm).unwrap();
    let file = dir.path().join("cliff.toml");
    std::fs::write(&file, scenario(&target.path().join("t"), PHASE_TICKS)).unwrap();
    let err = refused(&file, &[], &dir.path().join("run"));
    assert!(
        err.contains("write cliff: the target") && err.contains("has no block device"),
        "{err}"
    );
    assert!(!dir.path().join("run").exists(), "{err}");
}
