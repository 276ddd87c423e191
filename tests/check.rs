//! `drivebench check RUN_DIR`: the TPC-C consistency checks run again on a finished run's
//! SQLite database (which a run keeps), written back into result.json; a corrupted row fails
//! the check it breaks (exit 1); a run that is not TPC-C, an unknown instance or a database
//! that is gone are refused (exit 2) with the instance named.

mod common;

use std::path::Path;

use common::{read_json, root, run, text, tpcc_sqlite_run};

fn check(run_dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["check", run_dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn check_passes_on_a_finished_run_and_fails_the_check_a_corrupted_row_breaks() {
    let tmp = tempfile::tempdir().unwrap();
    let run_dir = tpcc_sqlite_run(tmp.path());
    let before = read_json(&run_dir.join("result.json"));
    let n = before["checks"].as_array().unwrap().len();
    assert!(n >= 13, "{}", before["checks"]);
    assert!(before.get("checked_at").is_none());

    let ok = check(&run_dir, &[]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    let stdout = text(&ok.stdout);
    assert!(
        stdout.contains(&format!("{n} of {n} checks passed")),
        "{stdout}"
    );
    assert!(
        stdout.contains("pass sqlite-1 3.3.2.1 W_YTD = sum(D_YTD)"),
        "{stdout}"
    );
    let after = read_json(&run_dir.join("result.json"));
    assert!(after["checked_at"].is_string());
    assert_eq!(
        after["checks"], before["checks"],
        "same checks, same results"
    );
    assert_eq!(after["phases"], before["phases"], "nothing else changes");

    // One warehouse's YTD off by a cent breaks condition 1 (W_YTD = sum(D_YTD)).
    let db = rusqlite::Connection::open(tmp.path().join("target/sqlite-1/drivebench.db")).unwrap();
    db.execute(
        "UPDATE warehouse SET w_ytd = w_ytd + 1.00 WHERE w_id = 1",
        [],
    )
    .unwrap();
    drop(db);
    let bad = check(&run_dir, &[]);
    assert_eq!(bad.status.code(), Some(1), "{}", text(&bad.stderr));
    let stdout = text(&bad.stdout);
    assert!(
        stdout.contains("FAIL sqlite-1 3.3.2.1 W_YTD = sum(D_YTD): 1 of 1 warehouse violates it"),
        "{stdout}"
    );
    let result = read_json(&run_dir.join("result.json"));
    let failed: Vec<&str> = result["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        !failed.is_empty() && failed.iter().all(|f| f.starts_with("3.3.2.")),
        "{failed:?}"
    );
    assert!(failed[0].starts_with("3.3.2.1 "), "{failed:?}");
    assert_eq!(
        result["checks"].as_array().unwrap().len(),
        n,
        "replaced, not appended"
    );
    let error = result["error"].as_str().unwrap();
    assert!(
        error.starts_with("consistency checks failed: sqlite-1: 3.3.2.1 "),
        "{error}"
    );
    let summary = std::fs::read_to_string(run_dir.join("summary.md")).unwrap();
    assert!(summary.contains("- FAILED sqlite-1: 3.3.2.1 "), "{summary}");
    assert!(
        summary.contains("re-run by `drivebench check`"),
        "{summary}"
    );
    let html = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    assert!(
        html.contains("<li class=\"fail\">sqlite-1: 3.3.2.1 W_YTD = sum(D_YTD): 1 of 1 warehouse")
    );

    // Bad input: an instance the run does not have, and a database that is gone.
    let unknown = check(&run_dir, &["--instance", "sqlite-9"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown.stderr).contains("no instance sqlite-9 in this run (it has: sqlite-1)"),
        "{}",
        text(&unknown.stderr)
    );
    std::fs::remove_dir_all(tmp.path().join("target/sqlite-1")).unwrap();
    let gone = check(&run_dir, &["--instance", "sqlite-1"]);
    assert_eq!(gone.status.code(), Some(2));
    let err = text(&gone.stderr);
    assert!(
        err.contains("instance sqlite-1 is not reachable: its database")
            && err.contains("drivebench.db is gone"),
        "{err}"
    );
    assert!(
        !tmp.path().join("target/sqlite-1").exists(),
        "check creates nothing"
    );
    assert_eq!(read_json(&run_dir.join("result.json")), result, "untouched");
}

#[test]
fn a_sysbench_run_or_a_missing_result_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("tests/data/compare/a.json"),
        tmp.path().join("result.json"),
    )
    .unwrap();
    let out = check(tmp.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a TPC-C run (sysbench oltp_read_write"),
        "{}",
        text(&out.stderr)
    );
    let missing = check(&tmp.path().join("nowhere"), &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("nowhere/result.json"));
}
