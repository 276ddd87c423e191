//! The TPC-C population generator's rows through the loader's multi-row INSERT path on the
//! TDS emulator (not Microsoft SQL Server): WAREHOUSE and DISTRICT of one warehouse and the
//! first 2,000 rows of ITEM and CUSTOMER (the emulator slows down too much on whole tables),
//! which carry every value form the load binds (integers, money and rates as
//! decimal text into NUMERIC, timestamps as text into DATETIME, NULLs, long VARCHARs). The
//! loader itself (`tpcc::load`) cannot run here: it checks the rows the server says it wrote,
//! and the emulator says 0; these tables are counted with SELECT instead. The INSERTs carry at
//! most 200 parameters, since the emulator drops larger ones (the loader sends up to 2,000).

use std::sync::atomic::AtomicU64;

use drivebench::engines::Dialect;
use drivebench::engines::{BulkPath, BulkText, Connector, Session, Value};
use drivebench::workload::feed::{Fed, InsertSql, feed};
use drivebench::workload::tpcc::data::{LoadParams, TableRows};
use drivebench::workload::tpcc::rand::Constants;
use drivebench::workload::tpcc::schema;
use drivebench::workload::tpcc::table::Table;
use drivebench_core::rng::Rng;
use tokio_util::sync::CancellationToken;

use super::common::mssql::Emulator;
use super::{connector, int, query};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tds_emulator_not_sql_server_tpcc_population_through_multi_row_inserts() {
    let Some(emu) = Emulator::start() else {
        return;
    };
    let c = connector(&emu).await;
    let mut s = c.connect().await.unwrap();
    let sch = schema::schema(Dialect::Mssql).unwrap();
    let st = schema::statements(Dialect::Mssql).unwrap();
    let mut rng = Rng::for_client(21, 0, 0);
    let params = LoadParams {
        seed: 21,
        constants: Constants::load(&mut rng),
        load_time: "2026-11-30 03:40:00".into(),
    };
    let tables = [
        (Table::Warehouse, 1),
        (Table::District, 10),
        (Table::Item, 2_000),
        (Table::Customer, 2_000),
    ];
    for (table, expected) in tables {
        s.execute_text(&sch.render(&format!("create_{}", table.name()), &[]))
            .await
            .unwrap();
        let cols = table.columns();
        let mark = st.render("placeholder", &[]);
        let insert = InsertSql {
            prefix: format!("INSERT INTO {} ({}) VALUES", table.name(), cols.join(", ")),
            row: format!("({})", vec![mark.trim(); cols.len()].join(", ")),
            rows_per_insert: 200 / cols.len(),
            begin: st.render("begin", &[]),
            commit: st.render("commit", &[]),
        };
        let mut rows = TableRows::new(table, 1, &params);
        let mut chunks = 2;
        let done = AtomicU64::new(0);
        let fed = feed(
            &mut s,
            BulkPath::None,
            table.name(),
            cols,
            BulkText::Any,
            &insert,
            || {
                chunks -= 1;
                (chunks >= 0).then(|| rows.next_chunk(1_000)).flatten()
            },
            &done,
            &CancellationToken::new(),
        )
        .await
        .unwrap_or_else(|e| panic!("load {}: {e}", table.name()));
        assert!(matches!(fed, Fed::Done { generated, .. } if generated == expected));
        let count = format!("SELECT COUNT(*) FROM {}", table.name());
        assert_eq!(
            int(&mut s, &count, &[]).await,
            expected as i64,
            "{}",
            table.name()
        );
    }
    // Values survive the trip: rates and money as NUMERIC, C_SINCE as the load time.
    let w = query(
        &mut s,
        "SELECT w_tax, w_ytd FROM warehouse WHERE w_id = 1",
        &[],
    )
    .await;
    let tax = w.get(0, 0).and_then(Value::as_f64).unwrap();
    assert!((0.0..=0.2).contains(&tax), "W_TAX {tax}");
    assert_eq!(w.get(0, 1).and_then(Value::as_f64), Some(300_000.0));
    // C_SINCE as the server stored it (text made by the server), and as it travels in TDS:
    // Iridium SQL 0.1.13 sends DATETIME days 100 years early, which SQL Server does not.
    let stored = query(
        &mut s,
        "SELECT CONVERT(VARCHAR(19), c_since, 120), c_credit_lim FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 1",
        &[],
    )
    .await;
    assert_eq!(
        stored.get(0, 0),
        Some(&Value::Text("2026-11-30 03:40:00".into()))
    );
    assert_eq!(stored.get(0, 1).and_then(Value::as_f64), Some(50_000.0));
    let sent = query(
        &mut s,
        "SELECT c_since FROM customer WHERE c_id = 1 AND c_d_id = 1",
        &[],
    )
    .await;
    println!(
        "TDS emulator: C_SINCE stored as 2026-11-30 03:40:00, sent over TDS as {:?} (tiberius decodes DATETIME as SQL Server sends it: see engine::mssql::values tests)",
        sent.get(0, 0)
    );
    let prices = "SELECT COUNT(*) FROM item WHERE i_price < 1.00 OR i_price > 100.00";
    assert_eq!(int(&mut s, "SELECT MAX(i_id) FROM item", &[]).await, 2_000);
    assert_eq!(int(&mut s, prices, &[]).await, 0, "I_PRICE in 1.00..100.00");
    println!(
        "TDS emulator: TPC-C WAREHOUSE, DISTRICT, ITEM and CUSTOMER rows (2,000 each) of the population generator loaded with multi-row INSERTs and counted (no timing: an emulator says nothing about SQL Server)"
    );
}
