//! Against real PostgreSQL clusters that the tests start themselves (private instances on
//! temporary directories, ports of their own), what is PostgreSQL's own beyond the conformance
//! suite (tests/conformance.rs): side-by-side clusters, retries under contention, Ctrl-C and
//! SIGTERM, loads, pre-built clusters, numerics and timestamps.
//! `bash scripts/test.sh` installs the postgresql binaries when they are missing.

use crate::common;

use std::time::Duration;

use crate::common::needs::need;
use crate::common::{ServerRun, read_json, servers_under, text, wait_exit};

const SCENARIO: &str = "scenarios/ci-sysbench-postgres.toml";

#[test]
fn two_clusters_side_by_side() {
    need!(Postgres);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&["instance.0.count=2", "workload.clients=4"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let per = result["phases"][1]["per_instance"].as_array().unwrap();
    assert_eq!(per.len(), 2);
    // issue 24: the settings in effect, in one column when both clusters share them.
    let summary = std::fs::read_to_string(r.out().join("summary.md")).unwrap();
    assert!(
        summary.contains("| setting | all 2 instances |")
            && summary.contains("| shared_buffers | 128MB |")
            && summary.contains("| wal_sync_method | "),
        "{summary}"
    );
    assert!(
        per.iter()
            .all(|p| p["summary"]["transactions"].as_u64().unwrap() > 0)
    );
    assert!(servers_under(&r.target()).is_empty());
}

#[test]
fn conflicts_under_contention_are_retried_and_counted() {
    need!(Postgres);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&[
        "workload.tables=1",
        "workload.table_size=10",
        "workload.clients=16",
        "workload.range_size=5",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let phases = result["phases"].as_array().unwrap();
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
    assert!(!codes.is_empty(), "16 clients on 10 rows conflict");
    assert!(
        codes
            .iter()
            .all(|c| ["40P01", "40001", "55P03", "23505"].contains(&c.as_str())),
        "{codes:?}"
    );
    // Some work commits; on a loaded 2-core host a short sample may see only conflicts, so
    // the commits are counted over both phases.
    let committed: u64 = phases
        .iter()
        .map(|p| p["summary"]["transactions"].as_u64().unwrap())
        .sum();
    assert!(committed > 0, "{codes:?}");
}

fn stop_by_signal(signal: &str) {
    let r = ServerRun::new(SCENARIO);
    let mut child = r.spawn_until_running(std::process::Stdio::null());
    std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert_eq!(
        wait_exit(&mut child, Duration::from_secs(60)).code(),
        Some(130),
        "after SIG{signal}"
    );
    assert_eq!(
        read_json(&r.out().join("result.json"))["status"],
        "interrupted"
    );
    assert!(
        servers_under(&r.target()).is_empty(),
        "no server left after SIG{signal}"
    );
}

#[test]
fn ctrl_c_stops_the_cluster_and_keeps_partial_results() {
    need!(Postgres);
    stop_by_signal("INT");
}

#[test]
fn sigterm_stops_the_cluster_and_keeps_partial_results() {
    need!(Postgres);
    stop_by_signal("TERM");
}

#[test]
fn a_failed_load_still_stops_the_cluster() {
    need!(Postgres);
    let r = ServerRun::new(SCENARIO);
    let (out, result) = r.run(&["workload.prepare=never"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(result["status"], "failed");
    assert!(servers_under(&r.target()).is_empty());
}

#[test]
fn a_prebuilt_cluster_is_built_once_and_copied_before_every_run() {
    need!(Postgres);
    let pre = ServerRun::new(SCENARIO);
    let set = format!(
        "instance.0.prebuilt_dir=\"{}\"",
        pre.tmp.path().join("pre").display()
    );
    let mut sizes = Vec::new();
    for _ in 0..2 {
        let r = ServerRun::new(SCENARIO);
        let (out, result) = r.run(&[&set, "workload.clients=2"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let inst = &result["instances"][0];
        assert_eq!(inst["load"]["reused"], true, "{inst}");
        sizes.push(inst["prebuilt"]["bytes"].as_u64().unwrap());
        assert!(servers_under(pre.tmp.path()).is_empty() && servers_under(&r.target()).is_empty());
    }
    assert_eq!(sizes[0], sizes[1], "identical bytes every run");
    // issue 24: `drivebench clean` knows the pre-built database as drivebench's.
    let dir = pre.tmp.path().join("pre");
    let listed = common::run(&["clean", dir.to_str().unwrap()]);
    let s = text(&listed.stdout);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    assert!(
        s.contains("  prebuilt ") && s.contains(&format!("{}/postgres-", dir.display())),
        "{s}"
    );
}

#[test]
fn numerics_and_timestamps_round_trip_through_statements_and_copy() {
    need!(Postgres);
    use drivebench::engines::postgres::PgConnector;
    use drivebench::engines::postgres::server::{PostgresInstance, PostgresSettings};
    use drivebench::engines::{BulkText, Connector, Rows, Session, Value};
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let server = PostgresInstance::start(
        "types",
        &tmp.path().join("srv"),
        &PostgresSettings::default(),
        Duration::from_secs(120),
    )
    .unwrap();
    let url = format!(
        "postgres://postgres@127.0.0.1:{}/drivebench_types",
        server.port()
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = PgConnector::new(&url, None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        s.execute_text(
            "CREATE TABLE money (id INT, amount NUMERIC(12,2), rate NUMERIC(4,4), at TIMESTAMP)",
        )
        .await
        .unwrap();
        let insert = s
            .prepare("INSERT INTO money VALUES ($1, $2, $3, $4)")
            .await
            .unwrap();
        let row = |id: i64, amount: f64, rate: f64, at: &str| {
            vec![
                Value::Int(id),
                Value::Float(amount),
                Value::Float(rate),
                Value::Text(at.into()),
            ]
        };
        s.execute(insert, &row(1, -10.5, 0.0832, "2026-11-30 03:25:30"))
            .await
            .unwrap();
        let (tx, rx) = tokio::sync::mpsc::channel(2);
        tx.send(row(2, 4999.99, 0.5, "1999-12-31 23:59:59.25"))
            .await
            .unwrap();
        drop(tx);
        let written = s
            .bulk_load("money", &["id", "amount", "rate", "at"], BulkText::Any, rx)
            .await
            .unwrap();
        assert_eq!(written, 1);
        let q = s
            .prepare("SELECT amount, rate, at, amount::text FROM money ORDER BY id")
            .await
            .unwrap();
        let mut rows = Rows::default();
        s.query(q, &[], &mut rows).await.unwrap();
        assert_eq!(rows.get(0, 0), Some(&Value::Float(-10.5)));
        assert_eq!(rows.get(0, 1), Some(&Value::Float(0.0832)));
        assert_eq!(
            rows.get(0, 2),
            Some(&Value::Text("2026-11-30 03:25:30".into()))
        );
        assert_eq!(rows.get(1, 3), Some(&Value::Text("4999.99".into())));
        assert_eq!(
            rows.get(1, 2),
            Some(&Value::Text("1999-12-31 23:59:59.250000".into()))
        );
        // Counted rows (as sysbench's selects read them) are the server's count, values unkept.
        let series = s
            .prepare("SELECT g, g::text FROM generate_series(1, $1::int) g")
            .await
            .unwrap();
        let mut counted = Rows::counting();
        for n in [250, 0, 1] {
            s.query(series, &[Value::Int(n)], &mut counted)
                .await
                .unwrap();
            assert_eq!((counted.len(), counted.values.len()), (n as usize, 0));
        }
        s.query(q, &[], &mut counted).await.unwrap();
        assert_eq!((counted.len(), counted.columns), (2, 4));
    });
    drop(server);
}

/// The tables drivebench loaded on an attached cluster are keyed as sysbench keys them: the
/// primary key on `id` (which the load builds once the rows are in) and `k_N` on `k`, under
/// sysbench's names, and the key holds every row once.
pub fn loaded_tables_are_keyed_as_sysbench_keys_them(port: u16, db: &str, table_size: i64) {
    use drivebench::engines::postgres::PgConnector;
    use drivebench::engines::{Connector, Rows, Session, Value};
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let url = format!("postgres://postgres@127.0.0.1:{port}/{db}");
        let c = PgConnector::new(&url, None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        let q = s
            .prepare(
                "SELECT i.indexname::text, i.indexdef, COALESCE(c.contype::text, '-') \
                 FROM pg_indexes i LEFT JOIN pg_constraint c ON c.conname = i.indexname \
                 WHERE i.tablename = 'sbtest1' ORDER BY 1",
            )
            .await
            .unwrap();
        let mut rows = Rows::default();
        s.query(q, &[], &mut rows).await.unwrap();
        let text = |r: usize, c: usize| match rows.get(r, c) {
            Some(Value::Text(t)) => t.clone(),
            other => panic!("row {r} column {c}: {other:?}"),
        };
        assert_eq!(rows.fetched, 2, "{:?}", rows.values);
        assert_eq!(text(0, 0), "k_1");
        assert!(text(0, 1).ends_with("USING btree (k)"), "{}", text(0, 1));
        assert_eq!(text(1, 0), "sbtest1_pkey");
        assert!(
            text(1, 1).starts_with("CREATE UNIQUE INDEX"),
            "{}",
            text(1, 1)
        );
        assert_eq!(text(1, 2), "p", "a primary key constraint");
        let q = s
            .prepare("SELECT COUNT(DISTINCT id)::int8, MIN(id)::int8, MAX(id)::int8 FROM sbtest1")
            .await
            .unwrap();
        s.query(q, &[], &mut rows).await.unwrap();
        assert_eq!(
            rows.values,
            [
                Value::Int(table_size),
                Value::Int(1),
                Value::Int(table_size)
            ]
        );
    });
}
