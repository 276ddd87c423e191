//! Against real MariaDB servers that the tests start themselves (private instances on
//! temporary directories, ports of their own), what is MariaDB's own beyond the conformance
//! suite (tests/conformance.rs): side-by-side instances, what an attached server still does,
//! deadlocks under contention, Ctrl-C, SIGTERM and SIGHUP, loads and pre-built databases.
//! `bash scripts/test.sh` installs mariadb-server when it is missing.

use std::time::Duration;

use crate::common::needs::need;
use crate::common::{ServerRun, read_json, servers_under, text, validate, wait_exit};

const SCENARIO: &str = "scenarios/ci-sysbench-mariadb.toml";

#[test]
fn two_instances_side_by_side_keep_their_data_when_asked() {
    need!(Mariadb);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&[
        "instance.0.count=2",
        "instance.0.keep_data=true",
        "workload.clients=4",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let per = result["phases"][1]["per_instance"].as_array().unwrap();
    assert_eq!(per.len(), 2);
    assert!(
        per.iter()
            .all(|p| p["summary"]["transactions"].as_u64().unwrap() > 0)
    );
    assert!(r.target().join("mariadb-1").exists() && r.target().join("mariadb-2").exists());
    assert!(servers_under(&r.target()).is_empty());
}

/// What an external MariaDB a conformance run attached (tests/conformance.rs) still does as
/// it did: the loaded ids run 1..N whatever its auto_increment_increment, text round-trips,
/// sessions log in with a password and through its unix socket.
pub fn an_attached_server_keeps_its_ways(
    server: &drivebench::engines::mysql::server::MysqlInstance,
) {
    loaded_ids_run_from_one_to_the_table_size(server.port(), 10_000);
    bulk_text_round_trips_and_plain_refuses_what_needs_escaping(server.port());
    sessions_log_in_with_a_password_and_read_typed_values_back(server.port());
    sessions_reach_the_server_through_its_unix_socket(server.socket());
}

/// drivebench's session client against an account with a password: the right one logs in and
/// prepared statements give back each type as the server sent it; a wrong one is the server's
/// access-denied error, not a retry.
fn sessions_log_in_with_a_password_and_read_typed_values_back(port: u16) {
    use drivebench::engines::mysql::MysqlConnector;
    use drivebench::engines::{Connector, ErrorClass, Rows, Session, Value};
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut s = root_session(port).await;
        for sql in [
            "DROP USER IF EXISTS 'bench'@'%'",
            "CREATE USER 'bench'@'%' IDENTIFIED BY 's3cret pw'",
            "GRANT ALL ON drivebench_auth.* TO 'bench'@'%'",
        ] {
            s.execute_text(sql).await.unwrap();
        }
        let url = format!("mysql://bench@127.0.0.1:{port}/drivebench_auth");
        let c = MysqlConnector::new(&url, Some("s3cret pw")).await.unwrap();
        let mut s = c.connect().await.unwrap();
        let q = s
            .prepare(
                "SELECT CAST(? AS SIGNED) + 1, CAST(200 AS UNSIGNED), CONCAT(?, '!'), NULL, \
                 TIMESTAMP'2024-12-31 23:59:58', 0.25e0, DATE'2024-01-02', \
                 CAST('-26:03:04' AS TIME), 1.50",
            )
            .await
            .unwrap();
        let mut rows = Rows::default();
        s.query(
            q,
            &[Value::Int(-6), Value::Text("h\u{e9}llo".into())],
            &mut rows,
        )
        .await
        .unwrap();
        assert_eq!(
            rows.values,
            [
                Value::Int(-5),
                Value::Int(200),
                Value::Text("h\u{e9}llo!".into()),
                Value::Null,
                Value::Text("2024-12-31 23:59:58".into()),
                Value::Float(0.25),
                Value::Text("2024-01-02".into()),
                Value::Text("-26:03:04".into()),
                Value::Text("1.50".into()),
            ]
        );
        let err = s.query(q, &[Value::Int(1)], &mut rows).await.unwrap_err();
        assert!(err.message.contains("parameters"), "{err}");
        // A call given up half way leaves its response on the wire: the session refuses
        // further calls as a lost connection, which the clients answer by reconnecting.
        let slow = s.prepare("SELECT SLEEP(0.5)").await.unwrap();
        let call = s.query(slow, &[], &mut rows);
        let gave_up = tokio::time::timeout(std::time::Duration::from_millis(50), call).await;
        assert!(gave_up.is_err());
        let err = s.query(slow, &[], &mut rows).await.unwrap_err();
        assert_eq!(err.class, ErrorClass::Reconnect, "{err}");
        // The password changes under the connector: its next session is refused by the server.
        root_session(port)
            .await
            .execute_text("ALTER USER 'bench'@'%' IDENTIFIED BY 'another'")
            .await
            .unwrap();
        let err = c.connect().await.err().unwrap();
        assert_eq!(
            (err.class, err.code.as_str()),
            (ErrorClass::Fatal, "1045"),
            "{err}"
        );
    });
}

async fn root_session(port: u16) -> drivebench::engines::mysql::MysqlSession {
    use drivebench::engines::Connector;
    let root = format!("mysql://root@127.0.0.1:{port}/drivebench_auth");
    let c = drivebench::engines::mysql::MysqlConnector::new(&root, None);
    c.await.unwrap().connect().await.unwrap()
}

/// The loaded ids run 1 by 1 whatever the server's `auto_increment_increment`, and the text
/// sent as bytes (`SET NAMES binary`) is stored as sysbench's digit groups; the run's DELETE and
/// INSERT pairs keep the same ids.
fn loaded_ids_run_from_one_to_the_table_size(port: u16, rows: i64) {
    use drivebench::engines::{Rows, Session, Value};
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let mut s = root_session(port).await;
        let mut got = Rows::default();
        for t in 1..=4 {
            let sql = format!(
                "SELECT MIN(id), MAX(id), COUNT(*), \
                 SUM(c REGEXP '^[0-9]{{11}}(-[0-9]{{11}}){{9}}$' AND pad REGEXP '^[0-9]{{11}}(-[0-9]{{11}}){{4}}$') \
                 FROM drivebench_ext.sbtest{t}"
            );
            let q = s.prepare(&sql).await.unwrap();
            s.query(q, &[], &mut got).await.unwrap();
            assert_eq!(
                got.values,
                [
                    Value::Int(1),
                    Value::Int(rows),
                    Value::Int(rows),
                    Value::Text(rows.to_string())
                ],
                "sbtest{t}"
            );
        }
    });
}

/// A URL naming the server's unix socket: the benchmark sessions connect through it too (the
/// server sees them from `localhost`, not from a TCP address).
fn sessions_reach_the_server_through_its_unix_socket(socket: &std::path::Path) {
    use drivebench::engines::mysql::MysqlConnector;
    use drivebench::engines::{Connector, Rows, Session, Value};
    let path = socket.display().to_string().replace('/', "%2F");
    let url = format!("mysql://root@localhost/drivebench_ext?socket={path}");
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let c = MysqlConnector::new(&url, None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        let q = s
            .prepare("SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
            .await
            .unwrap();
        let mut rows = Rows::default();
        s.query(q, &[], &mut rows).await.unwrap();
        assert_eq!(rows.values, [Value::Text("localhost".into())]);
    });
}

/// MariaDB's load path (COM_STMT_BULK_EXECUTE) reads back every value as it was sent, NULLs
/// and control characters included, over more rows than one command carries. LOAD DATA
/// (MySQL's load path; MariaDB accepts the same statement) with and without escapes: each reads
/// back what was sent, and rows declared plain that hold a tab fail the load with a message
/// naming the value.
fn bulk_text_round_trips_and_plain_refuses_what_needs_escaping(port: u16) {
    use drivebench::engines::mysql::{MysqlConnector, MysqlSession};
    use drivebench::engines::{BulkPath, BulkText, Connector, Rows, Session, Value};
    let url = format!("mysql://root@127.0.0.1:{port}/drivebench_bulk");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = MysqlConnector::new(&url, None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        // Choosing the load path leaves no prepared statement behind on the server; MariaDB
        // loads through COM_STMT_BULK_EXECUTE with the keys in the rows, and the load
        // connection sends text as bytes.
        let count = s
            .prepare("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")
            .await
            .unwrap();
        let mut before = Rows::default();
        s.query(count, &[], &mut before).await.unwrap();
        let path = s.bulk_path().await.unwrap();
        assert_eq!(path, BulkPath::Stream { auto_ids: false });
        let mut after = Rows::default();
        s.query(count, &[], &mut after).await.unwrap();
        assert_eq!(after.values, before.values);
        let charset = s.prepare("SELECT @@character_set_client").await.unwrap();
        s.query(charset, &[], &mut after).await.unwrap();
        assert_eq!(after.values, [Value::Text("binary".into())]);
        let fresh = async |s: &mut MysqlSession| {
            s.execute_text("DROP TABLE IF EXISTS t").await.unwrap();
            s.execute_text("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(40) NULL)")
                .await
                .unwrap();
        };
        let chunks = |rows: Vec<Vec<Value>>| {
            let (tx, rx) = tokio::sync::mpsc::channel(rows.len().max(1));
            for r in rows {
                tx.try_send(r).unwrap();
            }
            rx
        };
        let read = async |s: &mut MysqlSession| {
            let q = s.prepare("SELECT id, v FROM t ORDER BY id").await.unwrap();
            let mut rows = Rows::default();
            s.query(q, &[], &mut rows).await.unwrap();
            rows.values
        };
        let any = vec![
            Value::Int(1),
            Value::Text("tab\there\\ and\nnewline".into()),
            Value::Int(2),
            Value::Null,
        ];
        // 12,002 rows in three commands, with a commit on the way.
        let long: Vec<Value> = (3..12_003)
            .flat_map(|i| [Value::Int(i), Value::Text(format!("{i:040}"))])
            .collect();
        fresh(&mut s).await;
        let sent = chunks(vec![
            any.clone(),
            long[..4_000].to_vec(),
            long[4_000..].to_vec(),
        ]);
        let loaded = s.bulk_load("t", &["id", "v"], BulkText::Plain, sent).await;
        assert_eq!(loaded.unwrap(), 12_002);
        let mut all = any.clone();
        all.extend(long);
        assert_eq!(read(&mut s).await, all);

        let plain = vec![
            Value::Int(1),
            Value::Text("12345678901-23456789012".into()),
            Value::Int(2),
            Value::Text(String::new()),
        ];
        fresh(&mut s).await;
        let loaded = s.load_data(
            "t",
            &["id", "v"],
            BulkText::Plain,
            chunks(vec![plain.clone()]),
        );
        assert_eq!(loaded.await.unwrap(), 2);
        assert_eq!(read(&mut s).await, plain);
        fresh(&mut s).await;
        let loaded = s.load_data("t", &["id", "v"], BulkText::Any, chunks(vec![any.clone()]));
        assert_eq!(loaded.await.unwrap(), 2);
        assert_eq!(read(&mut s).await, any);
        fresh(&mut s).await;
        let err = s
            .load_data("t", &["id", "v"], BulkText::Plain, chunks(vec![any]))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("needs escaping"), "{err}");
    });
}

#[test]
fn deadlocks_under_contention_are_retried_and_counted() {
    need!(Mariadb);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&[
        "workload.tables=1",
        "workload.table_size=10",
        "workload.clients=16",
        "workload.range_size=5",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let phases = result["phases"].as_array().unwrap();
    let errors: u64 = phases
        .iter()
        .map(|p| p["summary"]["errors"].as_u64().unwrap())
        .sum();
    let codes: Vec<String> = phases
        .iter()
        .flat_map(|p| {
            p["summary"]["errors_by_code"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["code"].as_str().unwrap().to_string())
        })
        .collect();
    assert!(errors > 0, "16 clients on 10 rows deadlock");
    assert!(
        codes
            .iter()
            .all(|c| c == "1213" || c == "1205" || c == "1020"),
        "{codes:?}"
    );
    assert!(phases[1]["summary"]["transactions"].as_u64().unwrap() > 0);
    assert!(phases[1]["summary"]["retries"].as_u64().unwrap() > 0);
    // issue 24: retried-then-committed is not shown as errors; given-up transactions apart.
    assert!(phases.iter().all(|p| p["summary"]["failed"] == 0));
    let summary = std::fs::read_to_string(r.out().join("summary.md")).unwrap();
    assert!(summary.contains("| retries | failed |"), "{summary}");
    assert!(
        summary
            .contains("failed attempts, all retried until their transaction committed (by code: "),
        "{summary}"
    );
    // issue 24: the server settings in effect, not only in result.json.
    assert!(
        summary.contains("## Server settings in effect"),
        "{summary}"
    );
    assert!(summary.contains("| innodb_flush_method | "), "{summary}");
    let html = std::fs::read_to_string(r.out().join("report.html")).unwrap();
    assert!(html.contains("<h2>Server settings in effect</h2>"));
    assert!(html.contains("<td>innodb_buffer_pool_size</td>"));
    assert!(html.contains("<th>retries</th><th>failed</th>"));
    assert!(html.contains("all retried until their transaction committed"));
}

/// Send `signal` to a run in its precondition; it must stop its servers, write its partial
/// results and exit 130. With `hang_up_terminal`, the run's stdout and stderr are pipes whose
/// reading end is closed first, as when an SSH session drops (writes then fail with EPIPE).
fn stop_by_signal(signal: &str, hang_up_terminal: bool) {
    let r = ServerRun::new(SCENARIO);
    let mut child = r.spawn_until_running(std::process::Stdio::piped());
    if hang_up_terminal {
        drop(child.stderr.take());
    }
    std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(60));
    if !hang_up_terminal {
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert!(err.contains(&format!("interrupted (SIG{signal})")), "{err}");
    }
    assert_eq!(status.code(), Some(130), "after SIG{signal}");
    let result = read_json(&r.out().join("result.json"));
    assert_eq!(result["status"], "interrupted");
    validate("schemas/json/result.schema.json", &result);
    assert!(r.out().join("summary.md").exists());
    assert!(
        servers_under(&r.target()).is_empty(),
        "no server left after SIG{signal}"
    );
}

#[test]
fn ctrl_c_stops_the_server_and_keeps_partial_results() {
    need!(Mariadb);
    stop_by_signal("INT", false);
}

#[test]
fn sigterm_stops_the_server_and_keeps_partial_results() {
    need!(Mariadb);
    stop_by_signal("TERM", false);
}

#[test]
fn sighup_with_the_terminal_gone_stops_the_server_and_keeps_partial_results() {
    need!(Mariadb);
    stop_by_signal("HUP", true);
}

/// Two different stop signals at once (they cannot merge into one): the first starts the
/// orderly stop, the second aborts it — servers killed, results closed, exit 130.
#[test]
fn a_second_signal_aborts_at_once_and_still_closes_the_results() {
    need!(Mariadb);
    let r = ServerRun::new(SCENARIO);
    let mut child = r.spawn_until_running(std::process::Stdio::piped());
    for signal in ["-INT", "-TERM"] {
        std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
    }
    let status = wait_exit(&mut child, Duration::from_secs(30));
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let result = read_json(&r.out().join("result.json"));
    assert_eq!(result["status"], "interrupted");
    let why = result["error"].as_str().unwrap();
    assert!(why.starts_with("aborted by a second SIGTERM"), "{why}");
    assert!(err.contains("aborted by a second SIGTERM"), "{err}");
    validate("schemas/json/result.schema.json", &result);
    assert!(r.out().join("summary.md").exists());
    assert!(servers_under(&r.target()).is_empty(), "no server left");
}

#[test]
fn mariadb_loads_through_bulk_execute_and_needs_no_local_infile() {
    need!(Mariadb);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&[
        "instance.0.config.extra.local_infile=\"OFF\"",
        "workload.table_size=2345",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let log = std::fs::read_to_string(r.out().join("drivebench.log")).unwrap();
    assert!(log.contains("loading with COM_STMT_BULK_EXECUTE"), "{log}");
    let load = &result["instances"][0]["load"];
    assert_eq!(load["rows"], 4 * 2345, "{load}");
    assert!(
        result["phases"][1]["summary"]["transactions"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn a_failed_load_still_stops_the_server() {
    need!(Mariadb);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&["workload.prepare=never"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(result["status"], "failed");
    assert!(servers_under(&r.target()).is_empty());
}

#[test]
fn a_prebuilt_database_is_built_once_and_copied_before_every_run() {
    need!(Mariadb);
    let pre = tempfile::tempdir().unwrap();
    let set = format!("instance.0.prebuilt_dir=\"{}\"", pre.path().display());
    let mut sizes = Vec::new();
    for _ in 0..2 {
        let r = ServerRun::new(SCENARIO);
        let (out, result) = r.run(&[&set, "workload.clients=2"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let inst = &result["instances"][0];
        assert_eq!(
            inst["load"]["reused"], true,
            "the copy is used, not reloaded: {inst}"
        );
        let bytes = inst["prebuilt"]["bytes"].as_u64().unwrap();
        assert!(bytes > 1_000_000 && inst["prebuilt"]["bytes_per_s"].as_f64().unwrap() > 0.0);
        sizes.push(bytes);
        assert!(servers_under(pre.path()).is_empty() && servers_under(&r.target()).is_empty());
    }
    assert_eq!(sizes[0], sizes[1], "identical bytes every run");
    let built: Vec<_> = std::fs::read_dir(pre.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(built.len(), 1, "one pre-built copy: {built:?}");
}
