//! TPC-C as stored procedures on PostgreSQL (`procedures = true`), against private clusters the
//! tests start themselves: the procedures change the database exactly as the client-side
//! statements do (one seeded terminal's transactions run both ways into two identically loaded
//! databases leave all nine tables identical, and every call answers as the statements did),
//! a failed call leaves no transaction open and nothing written, and a
//! CI-sized run with procedures passes every consistency check.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use crate::common::needs::need;
use drivebench::engines::postgres::PgConnector;
use drivebench::engines::postgres::server::{PostgresInstance, PostgresSettings};
use drivebench::engines::{Connector, Dialect, Rows, Session, Value};
use drivebench::workload::tpcc::deck::Deck;
use drivebench::workload::tpcc::input::{CustomerRef, Inputs, Payment, Terminal};
use drivebench::workload::tpcc::load::{TpccLoadJob, load};
use drivebench::workload::tpcc::workload::{load_params, run_constants};
use drivebench::workload::tpcc::{procs, schema, txn};
use drivebench_core::rng::Rng;
use tokio_util::sync::CancellationToken;

const SEED: u64 = 22;
/// Transactions of the one terminal (about four decks).
const TRANSACTIONS: usize = 400;
/// The time every transaction stamps (O_ENTRY_D, H_DATE, OL_DELIVERY_D).
const NOW: &str = "2026-12-01 10:00:00";
const TABLES: [&str; 9] = [
    "warehouse",
    "district",
    "customer",
    "history",
    "orders",
    "new_order",
    "order_line",
    "item",
    "stock",
];

fn scratch() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    // The server runs as the postgres user: it must reach its directory below this one.
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    tmp
}

fn start(dir: &std::path::Path) -> PostgresInstance {
    PostgresInstance::start(
        "procs",
        &dir.join("srv"),
        &PostgresSettings::default(),
        Duration::from_secs(120),
    )
    .unwrap()
}

/// Database `db` on `server` with one warehouse loaded from the fixed seed and load time.
async fn loaded(server: &PostgresInstance, db: &str) -> PgConnector {
    let url = format!("postgres://postgres@127.0.0.1:{}/{db}", server.port());
    let connector = Arc::new(PgConnector::new(&url, None).await.unwrap());
    let report = load(TpccLoadJob {
        connector: connector.clone(),
        name: db.to_string(),
        reload: true,
        never_load: false,
        schema: Arc::new(schema::schema(Dialect::Postgres).unwrap()),
        statements: Arc::new(schema::statements(Dialect::Postgres).unwrap()),
        warehouses: 1,
        params: Arc::new(load_params(SEED, "2026-12-01 09:00:00".into())),
        instance: 0,
        rows_done: Arc::new(AtomicU64::new(0)),
        cancel: CancellationToken::new(),
    })
    .await
    .unwrap();
    assert!(report.rows > 299_011, "{report:?}");
    Arc::into_inner(connector).unwrap()
}

/// The terminal's transactions, dealt from its deck with the run's NURand constants.
fn sequence() -> Vec<Inputs> {
    let load = load_params(SEED, String::new());
    let constants = run_constants(SEED, &load.constants);
    let terminal = Terminal {
        w_id: 1,
        d_id: 4,
        warehouses: 1,
    };
    let mut rng = Rng::for_client(SEED, 0, 0);
    let mut deck = Deck::new(&mut rng);
    (0..TRANSACTIONS)
        .map(|_| {
            let kind = deck.deal(&mut rng);
            terminal.inputs(kind, &constants, &mut rng)
        })
        .collect()
}

/// What each transaction answered: rolled back, districts skipped.
type Outcomes = Vec<(bool, u32)>;

async fn run_client_side<S: Session>(s: &mut S, seq: &[Inputs]) -> Outcomes {
    let st = schema::statements(Dialect::Postgres).unwrap();
    let mut c = txn::prepare(s, &st).await.unwrap();
    let mut out = Vec::with_capacity(seq.len());
    for (n, inputs) in seq.iter().enumerate() {
        let counts = match inputs {
            Inputs::NewOrder(t) => txn::new_order(s, &mut c, t, NOW).await,
            Inputs::Payment(t) => txn::payment(s, &mut c, t, NOW).await,
            Inputs::OrderStatus(t) => txn::order_status(s, &mut c, t).await,
            Inputs::Delivery(t) => txn::delivery(s, &mut c, t, NOW).await,
            Inputs::StockLevel(t) => txn::stock_level(s, &mut c, t).await,
        }
        .unwrap_or_else(|e| panic!("transaction {n} {inputs:?}: {e}"));
        out.push((counts.rolled_back, counts.skipped));
    }
    out
}

async fn run_procedures<S: Session>(s: &mut S, seq: &[Inputs]) -> Outcomes {
    let st = procs::procedures(Dialect::Postgres).unwrap();
    procs::install(s, &st).await.unwrap();
    let mut c = procs::prepare(s, &st).await.unwrap();
    let mut out = Vec::with_capacity(seq.len());
    for (n, inputs) in seq.iter().enumerate() {
        let counts = procs::execute(s, &mut c, inputs, NOW)
            .await
            .unwrap_or_else(|e| panic!("call {n} {inputs:?}: {e}"));
        out.push((counts.rolled_back, counts.skipped));
    }
    out
}

/// Every row of `table` as text, sorted.
async fn dump<S: Session>(s: &mut S, table: &str) -> Vec<String> {
    let q = s
        .prepare(&format!("SELECT t::text FROM {table} t ORDER BY 1"))
        .await
        .unwrap();
    let mut rows = Rows::default();
    s.query(q, &[], &mut rows).await.unwrap();
    (0..rows.len())
        .map(|r| match rows.get(r, 0) {
            Some(Value::Text(t)) => t.clone(),
            other => panic!("{table} row {r}: {other:?}"),
        })
        .collect()
}

/// The first rows where two dumps of `table` differ, side by side.
fn first_differences(table: &str, a: &[String], b: &[String]) -> String {
    let mut out = format!(
        "{table}: {} rows client-side, {} with procedures\n",
        a.len(),
        b.len()
    );
    let shown = (0..a.len().max(b.len()))
        .filter(|&i| a.get(i) != b.get(i))
        .take(3);
    for i in shown {
        out.push_str(&format!(
            "  row {i}\n    client-side: {:?}\n    procedures:  {:?}\n",
            a.get(i),
            b.get(i)
        ));
    }
    out
}

/// Empty the NEW-ORDER rows of districts 6 to 10 in a database, so that Delivery's skip path
/// runs too.
async fn empty_districts<S: Session>(s: &mut S) {
    s.execute_text("DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id >= 6")
        .await
        .unwrap();
}

/// The first column of the first row of `sql` as text.
async fn one_text<S: Session>(s: &mut S, sql: &str) -> String {
    let q = s.prepare(sql).await.unwrap();
    let mut rows = Rows::default();
    s.query(q, &[], &mut rows).await.unwrap();
    match rows.get(0, 0) {
        Some(Value::Text(t)) => t.clone(),
        other => panic!("{sql}: {other:?}"),
    }
}

/// Sessions of the database that are inside a transaction block, as `observer` sees them.
async fn open_transactions<S: Session>(observer: &mut S) -> String {
    one_text(
        observer,
        "SELECT count(*)::text FROM pg_stat_activity \
         WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
    )
    .await
}

/// A call that fails after it wrote (a Payment naming no customer: the warehouse's and the
/// district's YTD are raised first) leaves, after `procs::abort`, no transaction open and
/// nothing written. The observer is first shown to see a transaction left open.
async fn a_failed_call_leaves_nothing<S: Session>(s: &mut S, observer: &mut S, seq: &[Inputs]) {
    s.execute_text("BEGIN").await.unwrap();
    s.execute_text("SELECT 1").await.unwrap();
    assert_eq!(open_transactions(observer).await, "1");
    s.execute_text("ROLLBACK").await.unwrap();
    let st = procs::procedures(Dialect::Postgres).unwrap();
    let mut c = procs::prepare(s, &st).await.unwrap();
    let pay = seq
        .iter()
        .find_map(|i| match i {
            Inputs::Payment(p) => Some(p.clone()),
            _ => None,
        })
        .unwrap();
    let bad = Inputs::Payment(Payment {
        customer: CustomerRef::Id(3001),
        ..pay
    });
    let ytd = "SELECT w_ytd::text || ' ' || (SELECT sum(d_ytd) FROM district)::text FROM warehouse";
    let before = one_text(s, ytd).await;
    let e = procs::execute(s, &mut c, &bad, NOW).await.unwrap_err();
    assert!(e.to_string().contains("no customer row"), "{e}");
    procs::abort(s, Dialect::Postgres).await;
    assert_eq!(open_transactions(observer).await, "0");
    assert_eq!(one_text(s, ytd).await, before);
}

#[test]
fn procedures_change_the_database_exactly_as_the_client_side_statements_do() {
    need!(Postgres);
    let tmp = scratch();
    let server = start(tmp.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let started = Instant::now();
    rt.block_on(async {
        let seq = sequence();
        let (a, b) = (
            loaded(&server, "client_side").await,
            loaded(&server, "procedures").await,
        );
        let (mut sa, mut sb) = (a.connect().await.unwrap(), b.connect().await.unwrap());
        empty_districts(&mut sa).await;
        empty_districts(&mut sb).await;
        let loaded_in = started.elapsed();
        let client_side = run_client_side(&mut sa, &seq).await;
        let procedures = run_procedures(&mut sb, &seq).await;
        assert_eq!(client_side, procedures, "answers per transaction");
        let rolled_back = client_side.iter().filter(|o| o.0).count();
        let skipped: u32 = client_side.iter().map(|o| o.1).sum();
        assert!(rolled_back > 0 && skipped > 0, "{rolled_back} {skipped}");
        let mut differences = String::new();
        for table in TABLES {
            let (da, db) = (dump(&mut sa, table).await, dump(&mut sb, table).await);
            if da != db {
                differences.push_str(&first_differences(table, &da, &db));
            }
        }
        assert!(differences.is_empty(), "{differences}");
        let mut observer = b.connect().await.unwrap();
        a_failed_call_leaves_nothing(&mut sb, &mut observer, &seq).await;
        eprintln!(
            "{TRANSACTIONS} transactions ({rolled_back} rolled back, {skipped} districts \
             skipped) both ways, tables identical; loads {loaded_in:?}, total {:?}",
            started.elapsed()
        );
    });
    drop(server);
}
