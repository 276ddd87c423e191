//! The engines' own I/O figures in a run's outputs (issue 33): a CI-sized PostgreSQL run has
//! them in result.json, series.csv, summary.md and report.html; `--no-telemetry` samples none;
//! an engine that tells nothing (SQLite, until drivebench's VFS layer times its syncs) gets
//! its missing notes, once per instance, and the run completes.

use crate::common::needs::need;
use crate::common::{ServerRun, read_json, render_in_chromium, text, tpcc_sqlite_run, validate};

const SCENARIO: &str = "scenarios/ci-sysbench-postgres.toml";

/// The column of `name` in series.csv's header.
fn column(header: &str, name: &str) -> usize {
    header
        .split(',')
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no {name} in {header}"))
}

#[test]
fn a_postgres_run_has_the_engine_figures_in_every_output() {
    need!(Postgres);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&["report_interval=1s"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    validate("schemas/json/result.schema.json", &result);
    let sample = &result["phases"][1];
    let io = &sample["engine_io"];
    let figures = &io["per_instance"][0]["figures"];
    assert!(
        figures["log_flushes_per_s"].as_f64().unwrap() > 0.0,
        "{io:#}"
    );
    assert!(
        figures["log_flushes_per_commit"].as_f64().unwrap() > 0.0,
        "{io:#}"
    );
    assert!(figures["buffer_hit_pct"].as_f64().is_some(), "{io:#}");
    assert!(!io["series"].as_array().unwrap().is_empty(), "{io:#}");
    let csv = std::fs::read_to_string(r.out().join("series.csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    let flushes = column(header, "log_flushes_per_s");
    column(header, "data_read_ms");
    column(header, "background_write_mib_s");
    let filled = lines
        .filter(|l| l.starts_with("sample,"))
        .filter(|l| !l.split(',').nth(flushes).unwrap().is_empty())
        .count();
    assert!(filled > 0, "{csv}");
    let summary = std::fs::read_to_string(r.out().join("summary.md")).unwrap();
    assert!(summary.contains("Engine I/O (sample):"), "{summary}");
    assert!(summary.contains("| log flushes/s |"), "{summary}");
    let html = std::fs::read_to_string(r.out().join("report.html")).unwrap();
    assert!(html.contains("Engine I/O latency (sample)"), "no chart");
    render_in_chromium(&r.out().join("report.html"), r.tmp.path());
}

#[test]
fn a_run_without_telemetry_samples_no_engine_io() {
    need!(Postgres);
    let r = ServerRun::new(SCENARIO);
    let out = r
        .command("0.2", &["report_interval=1s"])
        .arg("--no-telemetry")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = read_json(&r.out().join("result.json"));
    for phase in result["phases"].as_array().unwrap() {
        assert!(phase.get("engine_io").is_none(), "{phase:#}");
    }
    assert!(result["instances"][0].get("engine_io_missing").is_none());
    let summary = std::fs::read_to_string(r.out().join("summary.md")).unwrap();
    assert!(!summary.contains("Engine I/O"), "{summary}");
}

#[test]
fn a_sqlite_run_notes_what_its_engine_could_not_tell_and_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tpcc_sqlite_run(tmp.path());
    let result = read_json(&out_dir.join("result.json"));
    assert_eq!(result["complete"], true, "{result:#}");
    if result["phases"][1].get("engine_io").is_some() {
        // drivebench's VFS layer counts SQLite's syncs: nothing is missing any more.
        return;
    }
    let missing = result["instances"][0]["engine_io_missing"]
        .as_array()
        .unwrap_or_else(|| panic!("no missing notes: {:#}", result["instances"]));
    assert!(
        missing
            .iter()
            .any(|m| m.as_str().unwrap().starts_with("vfs_counters: ")),
        "{missing:?}"
    );
    let summary = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    assert!(summary.contains("## Engine I/O not counted"), "{summary}");
}
