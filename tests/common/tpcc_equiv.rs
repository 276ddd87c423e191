//! The stored procedures of `procedures = true` against the client-side statements, for any
//! engine that has both: two databases loaded identically (one TPC-C warehouse, the same seed),
//! the same seeded single-terminal sequence of transactions (deck order) run once through
//! `txn` into the first and once through `procs::execute` into the second, with the same `now`;
//! then every one of the nine tables, dumped in key order, must be identical value for value,
//! and each transaction must have answered the same (rolled back, districts skipped).

use std::sync::Arc;

use drivebench::engines::{Connector, EngineKind, Rows, Session, Value};
use drivebench::metrics::StatementCounts;
use drivebench::workload::tpcc::deck::Dealer;
use drivebench::workload::tpcc::input::{CustomerRef, Inputs, Terminal};
use drivebench::workload::tpcc::options::TpccMix;
use drivebench::workload::tpcc::workload::{load_params, run_constants};
use drivebench::workload::tpcc::{procs, schema, txn};
use drivebench_core::rng::Rng;

/// The transaction time both forms write (O_ENTRY_D, H_DATE, OL_DELIVERY_D).
pub const NOW: &str = "2026-11-30 06:44:05";

/// The nine tables, each with the columns its dump is ordered by (its key; HISTORY has none,
/// so all its columns).
pub const TABLES: [(&str, &str); 9] = [
    ("warehouse", "w_id"),
    ("district", "d_w_id, d_id"),
    ("customer", "c_w_id, c_d_id, c_id"),
    (
        "history",
        "h_c_w_id, h_c_d_id, h_c_id, h_w_id, h_d_id, h_date, h_amount, h_data",
    ),
    ("orders", "o_w_id, o_d_id, o_id"),
    ("new_order", "no_w_id, no_d_id, no_o_id"),
    ("order_line", "ol_w_id, ol_d_id, ol_o_id, ol_number"),
    ("item", "i_id"),
    ("stock", "s_w_id, s_i_id"),
];

/// What the sequence covered, so a test can insist on the paths that matter.
#[derive(Debug, Default)]
pub struct Coverage {
    pub per_kind: [u32; 5],
    pub rolled_back: u32,
    pub by_last_name: u32,
    pub rows_compared: usize,
}

/// `n` transactions of one terminal (warehouse 1 of `warehouses`, district 3) in deck order,
/// from a fixed seed.
pub fn sequence(seed: u64, n: usize, warehouses: u32) -> Vec<Inputs> {
    let load = load_params(seed, String::new());
    let constants = run_constants(seed, &load.constants);
    let mut rng = Rng::for_client(seed, 0, 0);
    let mut dealer = Dealer::new(TpccMix::Spec, &mut rng);
    let terminal = Terminal {
        w_id: 1,
        d_id: 3,
        warehouses,
    };
    (0..n)
        .map(|_| {
            let kind = dealer.next(&mut rng);
            terminal.inputs(kind, &constants, &mut rng)
        })
        .collect()
}

/// Run `inputs` through the client-side statements on `s`; each transaction's answer.
pub async fn run_client_side<S: Session>(
    s: &mut S,
    kind: EngineKind,
    inputs: &[Inputs],
) -> Vec<StatementCounts> {
    let st = schema::statements(kind.dialect()).unwrap();
    let mut c = txn::prepare(s, &st).await.unwrap();
    let mut out = Vec::with_capacity(inputs.len());
    for (n, i) in inputs.iter().enumerate() {
        let r = match i {
            Inputs::NewOrder(t) => txn::new_order(s, &mut c, t, NOW).await,
            Inputs::Payment(t) => txn::payment(s, &mut c, t, NOW).await,
            Inputs::OrderStatus(t) => txn::order_status(s, &mut c, t).await,
            Inputs::Delivery(t) => txn::delivery(s, &mut c, t, NOW).await,
            Inputs::StockLevel(t) => txn::stock_level(s, &mut c, t).await,
        };
        out.push(r.unwrap_or_else(|e| panic!("client-side transaction {n} ({i:?}): {e}")));
    }
    out
}

/// Create the procedures on `s` and run `inputs` as calls; each transaction's answer.
pub async fn run_procedures<S: Session>(
    s: &mut S,
    kind: EngineKind,
    inputs: &[Inputs],
) -> Vec<StatementCounts> {
    let st = procs::procedures(kind.dialect()).unwrap();
    procs::install(s, &st).await.unwrap();
    let mut c = procs::prepare(s, &st).await.unwrap();
    let mut out = Vec::with_capacity(inputs.len());
    for (n, i) in inputs.iter().enumerate() {
        let r = procs::execute(s, &mut c, i, NOW).await;
        out.push(r.unwrap_or_else(|e| panic!("procedure call {n} ({i:?}): {e}")));
    }
    out
}

/// Every row of `table` in `order`, as the engine gives the values back.
pub async fn dump<S: Session>(s: &mut S, table: &str, order: &str) -> Rows {
    let q = s
        .prepare(&format!("SELECT * FROM {table} ORDER BY {order}"))
        .await
        .unwrap();
    let mut rows = Rows::default();
    s.query(q, &[], &mut rows).await.unwrap();
    rows
}

/// The first difference between two dumps of `table`, if any: the row and both versions.
pub fn first_difference(table: &str, a: &Rows, b: &Rows) -> Option<String> {
    if a.columns != b.columns {
        return Some(format!("{table}: {} vs {} columns", a.columns, b.columns));
    }
    let width = a.columns.max(1);
    let rows_a: Vec<&[Value]> = a.values.chunks(width).collect();
    let rows_b: Vec<&[Value]> = b.values.chunks(width).collect();
    for (n, (x, y)) in rows_a.iter().zip(&rows_b).enumerate() {
        if x != y {
            return Some(format!(
                "{table} row {n} (in key order):\n  client-side {x:?}\n  procedures  {y:?}"
            ));
        }
    }
    (rows_a.len() != rows_b.len()).then(|| {
        format!(
            "{table}: {} rows client-side, {} with procedures",
            rows_a.len(),
            rows_b.len()
        )
    })
}

/// Load both databases, run the sequence of `n` transactions (seed `seed`) through each form,
/// and compare every table. Panics naming the first difference; gives what was covered.
pub async fn client_side_and_procedures_agree<C: Connector>(
    kind: EngineKind,
    client_side: Arc<C>,
    procedures: Arc<C>,
    seed: u64,
    n: usize,
) -> Coverage {
    for c in [&client_side, &procedures] {
        let report = drivebench::workload::tpcc::load::load(super::tpcc::job(c, kind))
            .await
            .unwrap();
        assert!(!report.reused, "{report:?}");
    }
    let inputs = sequence(seed, n, 1);
    let mut a = client_side.connect().await.unwrap();
    let mut b = procedures.connect().await.unwrap();
    let answers_a = run_client_side(&mut a, kind, &inputs).await;
    let answers_b = run_procedures(&mut b, kind, &inputs).await;
    let mut cov = coverage(&inputs);
    for (n, (x, y)) in answers_a.iter().zip(&answers_b).enumerate() {
        assert_eq!(
            (x.rolled_back, x.skipped),
            (y.rolled_back, y.skipped),
            "transaction {n} ({:?}) answered differently (rolled back, skipped)",
            inputs[n]
        );
        cov.rolled_back += u32::from(x.rolled_back);
    }
    let mut differences = Vec::new();
    for (table, order) in TABLES {
        let (da, db) = (
            dump(&mut a, table, order).await,
            dump(&mut b, table, order).await,
        );
        assert!(!da.is_empty(), "{table} is empty");
        cov.rows_compared += da.len();
        differences.extend(first_difference(table, &da, &db));
    }
    assert!(
        differences.is_empty(),
        "the two forms left different databases:\n{}",
        differences.join("\n")
    );
    cov
}

fn coverage(inputs: &[Inputs]) -> Coverage {
    let mut cov = Coverage::default();
    for i in inputs {
        cov.per_kind[i.kind().index()] += 1;
        match i {
            Inputs::Payment(p) if matches!(p.customer, CustomerRef::LastName(_)) => {
                cov.by_last_name += 1
            }
            Inputs::OrderStatus(o) if matches!(o.customer, CustomerRef::LastName(_)) => {
                cov.by_last_name += 1
            }
            _ => {}
        }
    }
    cov
}
