//! `drivebench check RUN_DIR`: the TPC-C consistency checks run again on a finished run's
//! SQLite database (which a run keeps) and on a private MariaDB left running (at the URL
//! result.json records), written back into result.json; a corrupted row fails the check it
//! breaks (exit 1); a run that is not TPC-C, an unknown instance, a database that is gone and a
//! server that was stopped or is gone are refused (exit 2) with the instance named.

use crate::common;

use std::path::Path;

use crate::common::needs::need;
use crate::common::{read_json, root, run, text, tpcc_sqlite_run};

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
        text(&out.stderr).contains("sysbench oltp_read_write")
            && text(&out.stderr).contains("this benchmark has no consistency checks"),
        "{}",
        text(&out.stderr)
    );
    let missing = check(&tmp.path().join("nowhere"), &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("nowhere/result.json"));
}

const MARIADB_TPCC: &str = r#"
name = "check-tpcc-mariadb"
report_interval = "1s"

[target]
path = "./drivebench-target"

[[instance]]
engine = "mariadb"
keep_running = true

[instance.config]
buffer_pool = "128MiB"

[workload]
benchmark = "tpcc"
warehouses = 1
pacing = "none"
clients = 4

[[phase]]
name = "sample"
duration = "2s"
record = true
"#;

/// A private MariaDB left running (`keep_running = true`): result.json records its URL,
/// `check` reaches it there and sees a corruption; with keep_running = false in the plan, or
/// once the server is gone, it is unreachable (exit 2, named).
#[test]
fn check_reaches_a_private_mariadb_left_running_at_its_recorded_url() {
    need!(Mariadb);
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("tpcc-mariadb.toml");
    std::fs::write(&scenario, MARIADB_TPCC).unwrap();
    let (run_dir, target) = (tmp.path().join("run"), tmp.path().join("target"));
    let stop = common::StopServers(target.clone());
    let out = common::bin()
        .args(["run", scenario.to_str().unwrap(), "--quiet"])
        .arg("--out")
        .arg(&run_dir)
        .arg("--target")
        .arg(&target)
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(common::servers_under(&target).len(), 1, "left running");
    let result = read_json(&run_dir.join("result.json"));
    let url = result["instances"][0]["url"].as_str().unwrap().to_string();
    assert!(url.starts_with("mysql://root@127.0.0.1:"), "{url}");

    let ok = check(&run_dir, &[]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("pass mariadb-1 3.3.2.2 "));

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use drivebench::engines::{Connector, Session};
        let c = drivebench::engines::mysql::MysqlConnector::new(&url, None)
            .await
            .unwrap();
        let mut s = c.connect().await.unwrap();
        s.execute_text(
            "UPDATE district SET d_next_o_id = d_next_o_id + 2 WHERE d_w_id = 1 AND d_id = 3",
        )
        .await
        .unwrap();
    });
    let bad = check(&run_dir, &[]);
    assert_eq!(bad.status.code(), Some(1), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stdout).contains("FAIL mariadb-1 3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID): 1 of 10 districts violates it; first: district (1,3)"),
        "{}",
        text(&bad.stdout)
    );

    // The same run had it not been left running: refused without trying.
    let mut stopped = read_json(&run_dir.join("result.json"));
    stopped["plan"]["instances"][0]["keep_running"] = false.into();
    let other = tmp.path().join("stopped");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(
        other.join("result.json"),
        serde_json::to_string(&stopped).unwrap(),
    )
    .unwrap();
    let refused = check(&other, &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("instance mariadb-1 is not reachable: drivebench stopped this private server at the end of the run (keep_running = false)"),
        "{}",
        text(&refused.stderr)
    );

    drop(stop);
    let gone = check(&run_dir, &[]);
    assert_eq!(gone.status.code(), Some(2));
    let err = text(&gone.stderr);
    assert!(
        err.contains(&format!("instance mariadb-1 is not reachable: {url}: ")),
        "{err}"
    );
}
