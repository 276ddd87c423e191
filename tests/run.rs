//! End-to-end runs of the quickstart on embedded SQLite: the run directory, result.json against
//! the committed JSON Schema, the TPS arithmetic, `report` regeneration, and Ctrl-C.

use std::time::{Duration, Instant};

use crate::common::{bin, read_json, root, run, run_quickstart, text, validate, wait_for_lines};

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn quickstart_at_a_tenth_of_its_length_writes_a_complete_run_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let target = tmp.path().join("target");
    let out = run_quickstart("0.1", &out_dir, &target, &[]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    for file in [
        "plan.json",
        "result.json",
        "summary.md",
        "series.csv",
        "drivebench.log",
    ] {
        assert!(out_dir.join(file).exists(), "{file} missing");
    }
    assert!(
        target.join("sqlite-1/drivebench.db").exists(),
        "data lives on the target"
    );

    let result = read_json(&out_dir.join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    assert_eq!(result["complete"], true);
    assert_eq!(result["schema_version"], 2);
    assert_eq!(result["plan"]["time_scale"], 0.1);
    assert!(result["environment"]["target"]["filesystem"].is_string());
    let phases = result["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2);
    assert_eq!(
        (
            phases[0]["recorded"].as_bool(),
            phases[1]["recorded"].as_bool()
        ),
        (Some(false), Some(true))
    );
    let sample = &phases[1];
    let s = &sample["summary"];
    let tx = f(&s["transactions"]);
    let expected = f(&s["tps"]) * f(&sample["planned_duration_s"]);
    assert!(tx > 100.0, "the sample ran transactions: {tx}");
    assert!(
        (tx - expected).abs() / tx < 0.02,
        "transactions {tx} vs tps x duration {expected}"
    );
    // 14 reads, 4 writes, 2 other per oltp_read_write transaction
    assert_eq!(f(&s["queries"]["reads"]), tx * 14.0);
    assert_eq!(f(&s["queries"]["writes"]), tx * 4.0);
    assert_eq!(f(&s["queries"]["other"]), tx * 2.0);
    let lat = &s["latency_ms"];
    assert!(
        f(&lat["avg"]) > 0.0
            && f(&lat["p50"]) <= f(&lat["p99"])
            && f(&lat["p99"]) <= f(&lat["max"])
    );
    // Interval rows add up to the phase (counters reset at the boundary).
    let series_tx: f64 = sample["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| f(&r["transactions"]))
        .sum();
    assert_eq!(series_tx, tx);
    let plan = read_json(&out_dir.join("plan.json"));
    assert_eq!(
        plan, result["plan"],
        "plan.json is the plan embedded in result.json"
    );

    let csv = std::fs::read_to_string(out_dir.join("series.csv")).unwrap();
    let rows = phases
        .iter()
        .map(|p| p["series"].as_array().unwrap().len())
        .sum::<usize>();
    assert_eq!(
        csv.lines().count(),
        rows + 1,
        "one csv row per interval and instance"
    );
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert!(header.contains(&"dev_written_bytes") && header.contains(&"cpu_busy_pct"));
    assert!(csv.lines().all(|l| l.split(',').count() == header.len()));
    let busy = header.iter().position(|c| *c == "cpu_busy_pct").unwrap();
    assert!(
        csv.lines()
            .skip(1)
            .all(|l| !l.split(',').nth(busy).unwrap().is_empty()),
        "every row has the host's CPU figures"
    );
    for p in phases {
        let t = &p["telemetry"];
        assert_eq!(
            t["series"].as_array().unwrap().len(),
            p["series"].as_array().unwrap().len()
        );
        let bound = t["verdict"]["bound"].as_str().unwrap();
        assert!(
            ["drive", "host_cpu", "client", "unclear"].contains(&bound),
            "{bound}"
        );
        assert!(
            t["summary"]["cpu"]["busy_pct"].as_f64().unwrap() > 0.0,
            "{t}"
        );
        assert!(t["derived"]["tps"].as_f64().unwrap() > 0.0);
    }
    assert!(result["device_stack"]["resolution"].is_string());
    let summary = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    assert!(
        summary.contains("| sqlite-1 |") && summary.contains("**total**"),
        "{summary}"
    );
    assert!(summary.contains("What limited it: **"), "{summary}");

    // `report` regenerates the derived files from result.json alone.
    std::fs::remove_file(out_dir.join("summary.md")).unwrap();
    std::fs::remove_file(out_dir.join("series.csv")).unwrap();
    let rep = run(&["report", out_dir.to_str().unwrap()]);
    assert_eq!(rep.status.code(), Some(0), "{}", text(&rep.stderr));
    assert_eq!(
        std::fs::read_to_string(out_dir.join("summary.md")).unwrap(),
        summary
    );
    assert_eq!(
        std::fs::read_to_string(out_dir.join("series.csv")).unwrap(),
        csv
    );

    // A second run reuses the loaded data (prepare = auto) and may not overwrite results.
    let again = run_quickstart("0.1", &out_dir, &target, &[]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "refuses an existing run directory"
    );
    let out2 = tmp.path().join("run2");
    let again = run_quickstart("0.05", &out2, &target, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let r2 = read_json(&out2.join("result.json"));
    assert_eq!(r2["instances"][0]["load"]["reused"], true);
}

#[test]
fn report_refuses_a_directory_without_results() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&["report", tmp.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("result.json"));
}

#[test]
fn a_run_that_does_not_fit_on_the_target_is_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let out = run(&[
        "run",
        "scenarios/storagereview-sysbench-sqlite.toml",
        "--set",
        "workload.table_size=2000000000",
        "--out",
        out_dir.to_str().unwrap(),
        "--target",
        tmp.path().join("t").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("not enough free space"),
        "{}",
        text(&out.stderr)
    );
    assert!(!out_dir.exists(), "no run directory for a refused run");
}

#[test]
fn ctrl_c_stops_within_seconds_and_keeps_what_was_measured() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let mut child = bin()
        .args([
            "run",
            "scenarios/quickstart.toml",
            "--quiet",
            "--set",
            "report_interval=1s",
            "--out",
        ])
        .arg(&out_dir)
        .arg("--target")
        .arg(tmp.path().join("target"))
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // header + two interval rows: the precondition is running
    wait_for_lines(&out_dir.join("series.csv"), 3, Duration::from_secs(60));
    let sent = Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(10),
            "still running 10 s after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    let result = read_json(&out_dir.join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    assert_eq!(result["complete"], false);
    assert_eq!(result["status"], "interrupted");
    let phases = result["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 1, "the precondition, cut short");
    assert_eq!(phases[0]["completed"], false);
    assert!(f(&phases[0]["summary"]["transactions"]) > 0.0);
    assert!(out_dir.join("summary.md").exists());
    // issue 24: the log ends as the terminal did: the interruption, the summary, the results.
    let log = std::fs::read_to_string(out_dir.join("drivebench.log")).unwrap();
    for line in [
        "interrupted (SIGINT): stopping clients and writing partial results",
        "- Status: interrupted (partial results)",
        &format!("Results: {}", out_dir.display()),
    ] {
        assert!(log.contains(line), "{line} missing from the log:\n{log}");
    }
}
