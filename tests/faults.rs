//! Faults a long unattended run meets, against real MariaDB servers the tests start: each case
//! asserts the exit code, how soon the run ended, what was kept in the run directory (valid
//! against the result schema) and that no server was left running.

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{
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
