//! The TPC-C initial population: create the nine tables, load ITEM once and every warehouse's
//! rows in parallel (warehouses dealt round-robin to workers, one connection each), through the
//! engine's streamed bulk path where it has one and multi-row INSERT otherwise, then the two
//! secondary indexes (or first, where the bulk path builds them by sorting). Every table's
//! written row count is checked against what was generated.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::data::{LoadParams, TableRows};
use super::table::Table;
use crate::clients::runner::spawn_on;
use crate::engine::{BulkPath, Connector, EngineError, Execution, Session, Statements};
use crate::workload::feed::{Fed, InsertSql, feed};
use crate::workload::sysbench::load::LoadReport;

/// Rows per generated chunk (and per transaction on the INSERT path).
const CHUNK_ROWS: usize = 1_000;
/// Rows per multi-row INSERT on the INSERT path.
const ROWS_PER_INSERT: usize = 100;
const INDEXES: [&str; 2] = ["customer_by_name", "orders_by_customer"];

#[derive(Debug, thiserror::Error)]
pub enum TpccLoadError {
    #[error("{step}: {source}")]
    Engine { step: String, source: EngineError },
    #[error("{table} of warehouse {w_id}: the engine wrote {written} rows of {generated}")]
    Count {
        table: &'static str,
        w_id: u32,
        written: u64,
        generated: u64,
    },
    #[error("load interrupted")]
    Interrupted,
    #[error("a load worker stopped unexpectedly: {0}")]
    Worker(String),
}

fn step(step: impl Into<String>) -> impl FnOnce(EngineError) -> TpccLoadError {
    let step = step.into();
    move |source| TpccLoadError::Engine { step, source }
}

/// One instance's TPC-C load.
pub struct TpccLoadJob<C: Connector> {
    pub connector: Arc<C>,
    /// The engine's schema.sql and statements.sql.
    pub schema: Arc<Statements>,
    pub statements: Arc<Statements>,
    pub warehouses: u32,
    pub params: Arc<LoadParams>,
    pub instance: u64,
    /// Advances as rows are generated and handed to the engine.
    pub rows_done: Arc<AtomicU64>,
    pub cancel: CancellationToken,
}

pub async fn load<C: Connector>(job: TpccLoadJob<C>) -> Result<LoadReport, TpccLoadError> {
    let started = Instant::now();
    let mut s = job.connector.connect().await.map_err(step("connect"))?;
    for t in Table::ALL.iter().rev() {
        s.execute_text(&format!("DROP TABLE IF EXISTS {}", t.name()))
            .await
            .map_err(step(format!("drop {}", t.name())))?;
    }
    for t in Table::ALL {
        s.execute_text(&job.schema.render(&format!("create_{}", t.name()), &[]))
            .await
            .map_err(step(format!("create {}", t.name())))?;
    }
    let path = s.bulk_path().await.map_err(step("choose the load path"))?;
    let indexes_first = path
        == BulkPath::Stream {
            indexes_first: true,
        };
    if indexes_first {
        create_indexes(&mut s, &job.schema).await?;
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let execution = job.connector.execution();
    let workers = match execution {
        Execution::DedicatedThread => 1,
        Execution::Async => (cores * 2).max(4),
    }
    .min(job.warehouses.max(1) as usize);
    let total = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for w in 0..workers {
        let warehouses: Vec<u32> = (1..=job.warehouses)
            .filter(|id| (*id as usize - 1) % workers == w)
            .collect();
        let (connector, st, params, rows_done, cancel, total) = (
            job.connector.clone(),
            job.statements.clone(),
            job.params.clone(),
            job.rows_done.clone(),
            job.cancel.clone(),
            total.clone(),
        );
        let fut = async move {
            let mut s = connector.connect().await.map_err(step("connect"))?;
            let ctx = Ctx {
                st: &st,
                params: &params,
                path,
                rows_done: &rows_done,
                cancel: &cancel,
            };
            let mut written = 0;
            if w == 0 {
                written += load_table(&mut s, &ctx, Table::Item, 1).await?;
            }
            for w_id in warehouses {
                for t in Table::ALL.into_iter().filter(|t| t.per_warehouse()) {
                    written += load_table(&mut s, &ctx, t, w_id).await?;
                }
            }
            total.fetch_add(written, Ordering::Relaxed);
            Ok::<(), TpccLoadError>(())
        };
        let rx = spawn_on(execution, format!("tpcc-load-{}-{w}", job.instance), fut)
            .map_err(|e| TpccLoadError::Worker(e.to_string()))?;
        handles.push(rx);
    }
    for h in handles {
        h.await
            .map_err(|_| TpccLoadError::Worker("load thread panicked".into()))??;
    }
    if !indexes_first {
        create_indexes(&mut s, &job.schema).await?;
    }
    let rows = total.load(Ordering::Relaxed);
    let seconds = started.elapsed().as_secs_f64();
    Ok(LoadReport {
        reused: false,
        rows,
        seconds,
        rows_per_s: rows as f64 / seconds.max(1e-9),
    })
}

async fn create_indexes<S: Session>(s: &mut S, schema: &Statements) -> Result<(), TpccLoadError> {
    for index in INDEXES {
        s.execute_text(&schema.render(&format!("create_index_{index}"), &[]))
            .await
            .map_err(step(format!("create index {index}")))?;
    }
    Ok(())
}

struct Ctx<'a> {
    st: &'a Statements,
    params: &'a LoadParams,
    path: BulkPath,
    rows_done: &'a AtomicU64,
    cancel: &'a CancellationToken,
}

/// Load one table's rows of one warehouse (ITEM: `w_id` is ignored); gives the rows written.
async fn load_table<S: Session>(
    s: &mut S,
    ctx: &Ctx<'_>,
    table: Table,
    w_id: u32,
) -> Result<u64, TpccLoadError> {
    let cols = table.columns();
    let mark = ctx.st.render("placeholder", &[]);
    let insert = InsertSql {
        prefix: format!("INSERT INTO {} ({}) VALUES", table.name(), cols.join(", ")),
        row: format!("({})", vec![mark.trim(); cols.len()].join(", ")),
        rows_per_insert: ROWS_PER_INSERT,
        begin: ctx.st.render("begin", &[]),
        commit: ctx.st.render("commit", &[]),
    };
    let mut rows = TableRows::new(table, w_id, ctx.params);
    let fed = feed(
        s,
        ctx.path,
        table.name(),
        cols,
        &insert,
        || rows.next_chunk(CHUNK_ROWS),
        ctx.rows_done,
        ctx.cancel,
    )
    .await
    .map_err(step(format!("load {} of warehouse {w_id}", table.name())))?;
    match fed {
        Fed::Done { written, generated } if written != generated => Err(TpccLoadError::Count {
            table: table.name(),
            w_id,
            written,
            generated,
        }),
        Fed::Done { written, .. } => Ok(written),
        Fed::Interrupted => Err(TpccLoadError::Interrupted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sqlite::{SqliteConfig, SqliteConnector};
    use crate::engine::{Rows, Value};
    use crate::scenario::plan::EngineKind;
    use crate::workload::tpcc::rand::Constants;
    use crate::workload::tpcc::schema;

    #[tokio::test(flavor = "current_thread")]
    async fn one_warehouse_loads_into_sqlite_with_the_spec_cardinalities() {
        let dir = tempfile::tempdir().unwrap();
        let config =
            SqliteConfig::from_table(&toml::Table::new(), &crate::scenario::KeyPath::root())
                .unwrap();
        let connector = Arc::new(SqliteConnector::new(dir.path(), config, 64));
        let mut rng = crate::workload::Rng::for_client(3, 0, 0);
        let job = TpccLoadJob {
            connector: connector.clone(),
            schema: Arc::new(schema::schema(EngineKind::Sqlite).unwrap()),
            statements: Arc::new(schema::statements(EngineKind::Sqlite).unwrap()),
            warehouses: 1,
            params: Arc::new(LoadParams {
                seed: 3,
                constants: Constants::load(&mut rng),
                load_time: "2026-11-30 03:40:00".into(),
            }),
            instance: 0,
            rows_done: Arc::new(AtomicU64::new(0)),
            cancel: CancellationToken::new(),
        };
        let done = job.rows_done.clone();
        let report = load(job).await.unwrap();
        assert_eq!(report.rows, done.load(Ordering::Relaxed));
        let mut s = connector.connect().await.unwrap();
        let mut count = async |table: &str| {
            let id = s
                .prepare(&format!("SELECT COUNT(*) FROM {table}"))
                .await
                .unwrap();
            let mut rows = Rows::default();
            s.query(id, &[], &mut rows).await.unwrap();
            match rows.get(0, 0) {
                Some(Value::Int(n)) => *n,
                other => panic!("{other:?}"),
            }
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
}
