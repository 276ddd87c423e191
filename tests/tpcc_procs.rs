//! TPC-C as stored procedures (`procedures = true`) on a private MariaDB the tests start
//! themselves: the procedures leave the database exactly as the client-side statements do on
//! the same transactions (the engine-neutral harness is `common::tpcc_equiv`), a failed call
//! leaves no transaction open once aborted, and a CI-sized run with procedures passes every
//! consistency check.
//! `bash scripts/test.sh` installs mariadb-server when it is missing.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::needs::need;
use drivebench::engines::mysql::MysqlConnector;
use drivebench::engines::mysql::server::{MysqlInstance, MysqlSettings};
use drivebench::engines::{Connector, Dialect, EngineKind, Rows, Session, Value};
use drivebench::workload::tpcc::input::Inputs;
use drivebench::workload::tpcc::procs;

fn private_mariadb(dir: &std::path::Path) -> MysqlInstance {
    let settings = MysqlSettings {
        buffer_pool_bytes: 256 << 20,
        flush_log_at_trx_commit: Some(2),
        max_connections: 200,
        max_prepared_stmt_count: 100_000,
        table_open_cache: 400,
        ..MysqlSettings::default()
    };
    MysqlInstance::start("procs", dir, &settings, Duration::from_secs(120)).unwrap()
}

#[test]
fn mariadb_procedures_leave_the_same_database_as_the_client_side_statements() {
    need!(Mariadb);
    let tmp = tempfile::tempdir().unwrap();
    let server = private_mariadb(&tmp.path().join("srv"));
    let started = Instant::now();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let cov = rt.block_on(async {
        let (url_a, url_b) = (
            format!("mysql://root@127.0.0.1:{}/equiv_client", server.port()),
            format!("mysql://root@127.0.0.1:{}/equiv_procs", server.port()),
        );
        let a = Arc::new(MysqlConnector::new(&url_a, None).await.unwrap());
        let b = Arc::new(MysqlConnector::new(&url_b, None).await.unwrap());
        let cov = common::tpcc_equiv::client_side_and_procedures_agree(
            EngineKind::Mariadb,
            a,
            b.clone(),
            7,
            400,
        )
        .await;
        a_failed_call_is_rolled_back_by_abort_and_the_session_goes_on(&b).await;
        cov
    });
    eprintln!("{cov:?} in {:?}", started.elapsed());
    // The sequence went through every kind, a rollback and customers found by last name.
    assert!(cov.per_kind.iter().all(|&n| n >= 10), "{cov:?}");
    assert!(cov.rolled_back >= 1, "{cov:?}");
    assert!(cov.by_last_name >= 50, "{cov:?}");
    drop(server);
}

/// A call that fails after the procedure began its transaction (a warehouse that does not
/// exist: SIGNAL) leaves it open; `procs::abort` rolls it back, and the same session then
/// runs further calls, each answering its row with nothing left on the wire.
async fn a_failed_call_is_rolled_back_by_abort_and_the_session_goes_on(c: &MysqlConnector) {
    let mut s = c.connect().await.unwrap();
    let st = procs::procedures(Dialect::Mysql).unwrap();
    let mut calls = procs::prepare(&mut s, &st).await.unwrap();
    let in_txn = s.prepare("SELECT @@in_transaction").await.unwrap();
    let mut rows = Rows::default();
    let mut inputs = common::tpcc_equiv::sequence(7, 40, 1);
    let Some(Inputs::NewOrder(mut bad)) = inputs
        .iter()
        .find(|i| matches!(i, Inputs::NewOrder(_)))
        .cloned()
    else {
        panic!("no New-Order among {inputs:?}")
    };
    bad.w_id = 99;
    let err = procs::execute(
        &mut s,
        &mut calls,
        &Inputs::NewOrder(bad),
        "2026-11-30 06:44:05",
    )
    .await
    .unwrap_err();
    assert!(err.message.contains("no warehouse row"), "{err}");
    s.query(in_txn, &[], &mut rows).await.unwrap();
    assert_eq!(
        rows.get(0, 0),
        Some(&Value::Int(1)),
        "the procedure left it open"
    );
    procs::abort(&mut s, Dialect::Mysql).await;
    s.query(in_txn, &[], &mut rows).await.unwrap();
    assert_eq!(rows.get(0, 0), Some(&Value::Int(0)), "abort rolled it back");
    for i in inputs.drain(..10) {
        procs::execute(&mut s, &mut calls, &i, "2026-11-30 06:44:06")
            .await
            .unwrap();
        s.query(in_txn, &[], &mut rows).await.unwrap();
        assert_eq!(
            rows.get(0, 0),
            Some(&Value::Int(0)),
            "{i:?} left a transaction"
        );
    }
}
