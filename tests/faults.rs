//! Faults a long unattended run meets, against real MariaDB servers the tests start: each case
//! asserts the exit code, how soon the run ended, what was kept in the run directory (valid
//! against the result schema) and that no server was left running.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::loopfs::{LoopFs, sh};
use crate::common::needs::need;
use crate::common::{
    ServerRun, StopServers, bin, read_json, root, run, servers_under, text, validate, wait_exit,
    wait_for_lines,
};

const MARIADB: &str = "scenarios/ci-sysbench-mariadb.toml";

/// Poll result.json until `ready` holds on it (or fail after `limit`).
fn wait_for_result(dir: &Path, limit: Duration, ready: impl Fn(&serde_json::Value) -> bool) {
    let start = Instant::now();
    loop {
        let path = dir.join("result.json");
        let ok = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .is_some_and(|r| ready(&r));
        if ok {
            return;
        }
        assert!(
            start.elapsed() < limit,
            "result.json not as expected in {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// drivebench killed outright mid-phase: the run directory it leaves is readable (the running
/// phase saved at most 10 s before), `report` rebuilds from it, and the next run on the same
/// target stops the server the killed run left behind, saying so.
#[test]
fn drivebench_killed_mid_phase_leaves_a_readable_run_and_the_next_run_stops_its_orphan() {
    need!(Mariadb);
    let r = ServerRun::new(MARIADB);
    let _stop = StopServers(r.target());
    let mut child = r.spawn_until_running(Stdio::null());
    // Into the sample, with the sample so far saved once (every 10 s).
    wait_for_result(&r.out(), Duration::from_secs(90), |res| {
        res["phases"][1]["name"] == "sample" && res["phases"][1]["completed"] == false
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let orphans = servers_under(&r.target());
    assert_eq!(orphans.len(), 1, "the server outlives a killed drivebench");

    let result = read_json(&r.out().join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    let sample = &result["phases"][1];
    assert!(sample["summary"]["transactions"].as_u64().unwrap() > 0);
    // At most the last 10 s of series rows are missing from result.json (1 s intervals).
    let csv = std::fs::read_to_string(r.out().join("series.csv")).unwrap();
    let csv_rows = csv.lines().filter(|l| l.starts_with("sample,")).count();
    let kept = sample["series"].as_array().unwrap().len();
    assert!(
        kept > 0 && csv_rows - kept <= 11,
        "{kept} rows kept of {csv_rows}"
    );
    let rebuilt = run(&["report", r.out().to_str().unwrap()]);
    assert_eq!(rebuilt.status.code(), Some(0), "{}", text(&rebuilt.stderr));
    let summary = std::fs::read_to_string(r.out().join("summary.md")).unwrap();
    assert!(summary.contains("sample"), "{summary}");

    // The next run on the same target: the orphan is found by its pid file and stopped.
    let again = r.tmp.path().join("again");
    let started = Instant::now();
    let out = bin()
        .args(["run", MARIADB, "--quiet", "--time-scale", "0.2"])
        .arg("--out")
        .arg(&again)
        .arg("--target")
        .arg(r.target())
        .current_dir(root())
        .output()
        .unwrap();
    let said = text(&out.stderr) + &text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let expected = format!("stopped the server (pid {})", orphans[0]);
    assert!(said.contains(&expected), "{said}");
    assert!(said.contains("left running"), "{said}");
    assert!(servers_under(&r.target()).is_empty());
    eprintln!("second run took {:?}", started.elapsed());
}

/// A server that hangs (SIGSTOP) mid-phase: its clients wait on their sockets forever, so the
/// stall watch stops the run within `workload.stall_timeout`, naming the instance; the server
/// is continued and stopped, the partial results kept.
#[test]
fn a_hung_server_stops_the_run_within_its_stall_timeout_naming_the_instance() {
    need!(Mariadb);
    let r = ServerRun::new(MARIADB);
    let _stop = StopServers(r.target());
    let mut child = r
        .command("1", &["report_interval=1s", "workload.stall_timeout=5s"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lines(&r.out().join("series.csv"), 3, Duration::from_secs(120));
    let pids = servers_under(&r.target());
    assert_eq!(pids.len(), 1);
    let hung = Instant::now();
    std::process::Command::new("kill")
        .args(["-STOP", &pids[0].to_string()])
        .status()
        .unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(60));
    let took = hung.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    // 5 s without progress, a 1 s tick, 3 s for the clients, the server's stop.
    assert!(
        took < Duration::from_secs(20),
        "exited {took:?} after the hang"
    );
    assert!(
        err.contains("mariadb-1") && err.contains("hung or unreachable"),
        "{err}"
    );
    let result = read_json(&r.out().join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    assert_eq!(result["status"], "failed");
    assert!(
        result["phases"][0]["summary"]["transactions"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(
        servers_under(&r.target()).is_empty(),
        "the hung server is stopped"
    );
    eprintln!("hung server: exit 1 after {took:?}");
}

/// The server killed while the data loads: the run fails within seconds naming the instance
/// and the load, keeps a valid result.json and leaves nothing running.
#[test]
fn a_server_killed_during_the_load_fails_the_run_naming_it() {
    need!(Mariadb);
    let r = ServerRun::new(MARIADB);
    let _stop = StopServers(r.target());
    let mut child = r
        .command(
            "1",
            &["workload.table_size=300000", "workload.prepare=always"],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = r.out().join("drivebench.log");
    let pid = server_in_load(&r);
    let killed = Instant::now();
    std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(60));
    let took = killed.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        took < Duration::from_secs(15),
        "exited {took:?} after the kill"
    );
    assert!(err.contains("mariadb-1") && err.contains("load"), "{err}");
    let result = read_json(&r.out().join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    assert_eq!(result["status"], "failed");
    assert!(servers_under(&r.target()).is_empty());
    // The log holds the fatal error as stderr showed it, and the summary.
    let log = std::fs::read_to_string(&log).unwrap();
    let shown = err.lines().find(|l| l.starts_with("error: "));
    let shown = shown.expect("an error line");
    assert!(log.contains(shown), "{shown} missing from the log:\n{log}");
    assert!(log.contains("- Status: failed: "), "{log}");
    eprintln!("server killed in the load: exit 1 after {took:?}");
}

/// Wait until `r`'s run has started loading, then answer its one server's pid.
fn server_in_load(r: &ServerRun) -> u32 {
    let log = r.out().join("drivebench.log");
    let start = Instant::now();
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("load: 1 instance(s)")) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no load started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let pids = servers_under(&r.target());
    assert_eq!(pids.len(), 1);
    pids[0]
}

/// The server hung (SIGSTOP) while the data loads: no row loaded and no answer to a new
/// connection for the stall timeout stops the run naming the instance; nothing is left
/// running.
#[test]
fn a_server_hung_during_the_load_fails_the_run_within_its_stall_timeout() {
    need!(Mariadb);
    let r = ServerRun::new(MARIADB);
    let _stop = StopServers(r.target());
    let sets = [
        "workload.table_size=300000",
        "workload.prepare=always",
        "workload.stall_timeout=4s",
    ];
    let mut child = r
        .command("1", &sets)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = server_in_load(&r);
    let hung = Instant::now();
    std::process::Command::new("kill")
        .args(["-STOP", &pid.to_string()])
        .status()
        .unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(90));
    let took = hung.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    // 4 s without a row, 4 s for the probe, a 1 s tick, the hung server's stop.
    assert!(
        took < Duration::from_secs(30),
        "exited {took:?} after the hang"
    );
    assert!(
        err.contains("mariadb-1") && err.contains("no row loaded") && err.contains("hung"),
        "{err}"
    );
    let result = read_json(&r.out().join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    assert_eq!(result["status"], "failed");
    assert!(
        servers_under(&r.target()).is_empty(),
        "the hung server is stopped"
    );
    eprintln!("server hung in the load: exit 1 after {took:?}");
}

/// Take every free byte of `fs` with one file.
fn fill(fs: &LoopFs) {
    let free = rustix::fs::statvfs(&fs.mnt).unwrap();
    let bytes = free.f_bavail * free.f_frsize;
    let filler = fs.mnt.join("filler");
    let _ = sh(&[
        "fallocate",
        "-l",
        &bytes.to_string(),
        filler.to_str().unwrap(),
    ]);
    // What fallocate could not take (metadata it needed), a write takes.
    let _ = sh(&[
        "sh",
        "-c",
        &format!("cat /dev/zero >> {}", filler.display()),
    ]);
}

/// Fill the target when `when` appears in the run's log; the run must fail naming the full
/// target and its free space, stop its server and keep a valid result.json.
fn target_full(when: &str, sets: &[&str]) {
    let fs = match LoopFs::new(700) {
        Ok(fs) => fs,
        Err(why) => {
            assert!(std::env::var("CI").is_err(), "CI runs as root: {why}");
            eprintln!("skipped: {why}");
            return;
        }
    };
    let out_dir = tempfile::tempdir().unwrap();
    let target = fs.mnt.join("target");
    let mut child = bin()
        .args(["run", MARIADB, "--quiet", "--time-scale", "1"])
        .arg("--out")
        .arg(out_dir.path().join("run"))
        .arg("--target")
        .arg(&target)
        .args(sets.iter().flat_map(|s| ["--set", s]))
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = out_dir.path().join("run/drivebench.log");
    let start = Instant::now();
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains(when)) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "never saw {when:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    fill(&fs);
    let filled = Instant::now();
    let status = wait_exit(&mut child, Duration::from_secs(90));
    let took = filled.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    let said = format!("the target {} is full: ", target.display());
    assert!(err.contains(&said) && err.contains(" free of "), "{err}");
    let result = read_json(&out_dir.path().join("run/result.json"));
    validate("schemas/json/result.schema.json", &result);
    assert_eq!(result["status"], "failed");
    assert!(result["error"].as_str().unwrap().contains(&said));
    assert!(servers_under(&fs.mnt).is_empty(), "the server is stopped");
    eprintln!("target full at {when:?}: exit 1 after {took:?}");
}

#[test]
fn a_target_filling_up_during_the_load_fails_the_run_saying_so() {
    need!(Mariadb);
    target_full(
        "load: 1 instance(s)",
        &["workload.table_size=200000", "workload.stall_timeout=20s"],
    );
}

#[test]
fn a_target_filling_up_during_a_phase_fails_the_run_saying_so() {
    need!(Mariadb);
    target_full(
        "phase(s)",
        &[
            "report_interval=1s",
            "workload.test=oltp_insert",
            "workload.stall_timeout=20s",
        ],
    );
}
