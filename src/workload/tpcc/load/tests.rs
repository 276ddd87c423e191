//! One warehouse into SQLite: the spec's cardinalities, then the load record: a finished load
//! is reused, an interrupted one refused until `reload`, another signature loaded afresh.

use super::*;
use crate::engines::Dialect;
use crate::engines::sqlite::{SqliteConfig, SqliteConnector};
use crate::engines::{Rows, Value};
use crate::workload::tpcc::rand::Constants;
use crate::workload::tpcc::schema;

/// A SQLite connector on `dir` (shared with the checks' tests).
pub(crate) fn sqlite(dir: &std::path::Path) -> Arc<SqliteConnector> {
    let config = SqliteConfig::from_table(
        &toml::Table::new(),
        &drivebench_core::config::KeyPath::root(),
    )
    .unwrap();
    Arc::new(SqliteConnector::new(dir, config, 64))
}

/// A one-warehouse load job on `connector` with `seed`.
pub(crate) fn job(connector: &Arc<SqliteConnector>, seed: u64) -> TpccLoadJob<SqliteConnector> {
    let mut rng = drivebench_core::rng::Rng::for_client(seed, 0, 0);
    TpccLoadJob {
        connector: connector.clone(),
        name: "sqlite-1".into(),
        reload: false,
        never_load: false,
        schema: Arc::new(schema::schema(Dialect::Sqlite).unwrap()),
        statements: Arc::new(schema::statements(Dialect::Sqlite).unwrap()),
        warehouses: 1,
        params: Arc::new(LoadParams {
            seed,
            constants: Constants::load(&mut rng),
            load_time: "2026-11-30 03:40:00".into(),
        }),
        instance: 0,
        rows_done: Arc::new(AtomicU64::new(0)),
        cancel: CancellationToken::new(),
    }
}

async fn one_value<S: Session>(s: &mut S, sql: &str) -> Value {
    let id = s.prepare(sql).await.unwrap();
    let mut rows = Rows::default();
    s.query(id, &[], &mut rows).await.unwrap();
    rows.get(0, 0).cloned().unwrap_or(Value::Null)
}

#[tokio::test(flavor = "current_thread")]
async fn one_warehouse_loads_into_sqlite_with_the_spec_cardinalities() {
    let dir = tempfile::tempdir().unwrap();
    let connector = sqlite(dir.path());
    let job = job(&connector, 3);
    let done = job.rows_done.clone();
    let report = load(job).await.unwrap();
    assert!(!report.reused);
    assert_eq!(report.rows, done.load(Ordering::Relaxed));
    let mut s = connector.connect().await.unwrap();
    let mut count =
        async |table: &str| match one_value(&mut s, &format!("SELECT COUNT(*) FROM {table}")).await
        {
            Value::Int(n) => n,
            other => panic!("{other:?}"),
        };
    for (table, n) in [
        ("item", 100_000),
        ("warehouse", 1),
        ("stock", 100_000),
        ("district", 10),
        ("customer", 30_000),
        ("history", 30_000),
        ("orders", 30_000),
        ("new_order", 9_000),
    ] {
        assert_eq!(count(table).await, n, "{table}");
    }
    let lines = count("order_line").await;
    assert!((270_000..330_000).contains(&lines), "{lines} order lines");
    assert_eq!(report.rows as i64, 299_011 + lines);
}

#[tokio::test(flavor = "current_thread")]
async fn a_finished_load_is_reused_unless_reload_and_another_signature_loads_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let connector = sqlite(dir.path());
    assert!(!load(job(&connector, 5)).await.unwrap().reused);
    let mut s = connector.connect().await.unwrap();
    s.execute_text("UPDATE warehouse SET w_name = 'marker'")
        .await
        .unwrap();
    let name = "SELECT w_name FROM warehouse";

    let again = load(job(&connector, 5)).await.unwrap();
    assert!(again.reused && again.rows == 0, "{again:?}");
    assert_eq!(one_value(&mut s, name).await, Value::Text("marker".into()));

    let mut forced = job(&connector, 5);
    forced.reload = true;
    let forced = load(forced).await.unwrap();
    assert!(!forced.reused && forced.rows > 299_011, "{forced:?}");
    assert_ne!(one_value(&mut s, name).await, Value::Text("marker".into()));

    s.execute_text("UPDATE warehouse SET w_name = 'marker'")
        .await
        .unwrap();
    let other = load(job(&connector, 6)).await.unwrap();
    assert!(!other.reused, "another seed is other data");
    assert_ne!(one_value(&mut s, name).await, Value::Text("marker".into()));
    assert_eq!(
        one_value(
            &mut s,
            "SELECT value FROM drivebench_meta WHERE key = 'tpcc.signature'"
        )
        .await,
        Value::Text(signature(1, &job(&connector, 6).params))
    );
}

#[tokio::test(flavor = "current_thread")]
async fn an_interrupted_load_is_refused_until_reload() {
    let dir = tempfile::tempdir().unwrap();
    let connector = sqlite(dir.path());
    let first = job(&connector, 7);
    let (cancel, rows_done) = (first.cancel.clone(), first.rows_done.clone());
    // Cancel part way: once ITEM has started arriving.
    let watcher = tokio::spawn(async move {
        while rows_done.load(Ordering::Relaxed) < 20_000 {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        cancel.cancel();
    });
    let err = load(first).await.unwrap_err();
    assert!(matches!(err, TpccLoadError::Interrupted), "{err}");
    watcher.await.unwrap();

    let err = load(job(&connector, 7)).await.unwrap_err().to_string();
    assert!(
        err.contains("sqlite-1")
            && err.contains("did not finish")
            && err.contains("warehouses=1 seed=7")
            && err.contains("reload = true (workload.reload)"),
        "{err}"
    );

    let mut again = job(&connector, 7);
    again.reload = true;
    assert!(!load(again).await.unwrap().reused);
    assert!(load(job(&connector, 7)).await.unwrap().reused);

    // A load that died without a chance to clean up leaves the same mark.
    let mut s = connector.connect().await.unwrap();
    s.execute_text("UPDATE drivebench_meta SET value = 'loading' WHERE key = 'tpcc.state'")
        .await
        .unwrap();
    let err = load(job(&connector, 7)).await.unwrap_err();
    assert!(matches!(err, TpccLoadError::Unfinished { .. }), "{err}");
}
