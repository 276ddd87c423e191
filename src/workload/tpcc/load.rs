//! The TPC-C initial population: create the nine tables, load ITEM once and every warehouse's
//! rows in parallel (warehouses dealt round-robin to workers, one connection each), through the
//! engine's streamed bulk path where it has one and multi-row INSERT otherwise, then the two
//! secondary indexes (or first, where the bulk path builds them by sorting). Every table's
//! written row count is checked against what was generated.
//!
//! The load is recorded in the `drivebench_meta` table the sysbench loader also uses (keys
//! `tpcc.state` and `tpcc.signature`, so both benchmarks can share a database): the state is
//! set to LOADING, with the signature of what is being loaded, before any table is dropped,
//! and to COMPLETE only after the last index is built and every table's rows were counted. A
//! COMPLETE load with the plan's signature is reused; one left LOADING (interrupted, or failed
//! part way) is refused, since its tables are incomplete; one with another signature is loaded
//! afresh. `reload` loads afresh in every case.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::data::{LoadParams, TableRows};
use super::table::Table;
use crate::engines::runner::spawn_on;
use crate::engines::{BulkPath, BulkText, Connector, EngineError, Execution, Session, Statements};
use crate::workload::feed::{Fed, InsertSql, feed};
use crate::workload::meta;
use crate::workload::sysbench::load::LoadReport;

/// Rows per generated chunk (and per transaction on the INSERT path).
const CHUNK_ROWS: usize = 1_000;
/// Rows per multi-row INSERT on the INSERT path.
const ROWS_PER_INSERT: usize = 100;
const INDEXES: [&str; 2] = ["customer_by_name", "orders_by_customer"];
/// Version of the generated data: bump it when the rows generated for the same parameters
/// change, so a load made by an older drivebench is not reused.
const DATA_VERSION: u32 = 1;
const STATE_KEY: &str = "tpcc.state";
const SIGNATURE_KEY: &str = "tpcc.signature";
const COMPLETE: &str = "complete";
const LOADING: &str = "loading";

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
    #[error(
        "{instance}: an earlier TPC-C load ({signature}) did not finish (it was interrupted or \
         failed), so the tables there are incomplete; set reload = true (workload.reload) to \
         load again"
    )]
    Unfinished { instance: String, signature: String },
    #[error("a load worker stopped unexpectedly: {0}")]
    Worker(String),
    #[error("{instance}: prepare = \"never\" but {why}")]
    Missing { instance: String, why: String },
}

fn step(step: impl Into<String>) -> impl FnOnce(EngineError) -> TpccLoadError {
    let step = step.into();
    move |source| TpccLoadError::Engine { step, source }
}

/// What the loaded data depends on, apart from the load time (which only moves dates): a
/// COMPLETE load is reused only when this matches exactly.
pub fn signature(warehouses: u32, params: &LoadParams) -> String {
    format!(
        "warehouses={warehouses} seed={} c_last={} data={DATA_VERSION}",
        params.seed, params.constants.c_last
    )
}

/// One instance's TPC-C load.
pub struct TpccLoadJob<C: Connector> {
    pub connector: Arc<C>,
    /// The instance's name, for messages (e.g. "mariadb-1").
    pub name: String,
    /// Load even when a COMPLETE load with the same signature is there, or an unfinished one.
    pub reload: bool,
    /// prepare = "never": use a finished load of the same signature or fail; never load.
    pub never_load: bool,
    /// The engine's schema.sql and statements.sql (which also holds the `meta_*` statements
    /// of the load record).
    pub schema: Arc<Statements>,
    pub statements: Arc<Statements>,
    pub warehouses: u32,
    pub params: Arc<LoadParams>,
    pub instance: u64,
    /// Advances as rows are generated and handed to the engine.
    pub rows_done: Arc<AtomicU64>,
    pub cancel: CancellationToken,
}

/// Load one instance's data, or reuse a finished load of the same signature (see the module
/// doc); refuses an unfinished load unless `reload`.
pub async fn load<C: Connector>(job: TpccLoadJob<C>) -> Result<LoadReport, TpccLoadError> {
    let started = Instant::now();
    let mut s = job.connector.connect().await.map_err(step("connect"))?;
    if let Some(reused) = begin(&mut s, &job).await? {
        return Ok(reused);
    }
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
    let rows = load_in_parallel(&job, path).await?;
    create_indexes(&mut s, &job.schema).await?;
    meta::put(&mut s, &job.statements, STATE_KEY, COMPLETE)
        .await
        .map_err(step("write the load metadata"))?;
    Ok(LoadReport::loaded(rows, started))
}

/// Read the load record: a COMPLETE load with the plan's signature is reused (its report
/// returned), prepare = "never" refuses anything else, an unfinished load is refused (unless
/// `reload`); otherwise the record is set to LOADING with the plan's signature, and None
/// returned.
async fn begin<C: Connector>(
    s: &mut C::Session,
    job: &TpccLoadJob<C>,
) -> Result<Option<LoadReport>, TpccLoadError> {
    s.execute_text(&job.statements.render("meta_create", &[]))
        .await
        .map_err(step("create the metadata table"))?;
    let sig = signature(job.warehouses, &job.params);
    let state = meta::get(s, &job.statements, STATE_KEY)
        .await
        .map_err(step("read the load metadata"))?;
    let loaded = meta::get(s, &job.statements, SIGNATURE_KEY)
        .await
        .map_err(step("read the load metadata"))?;
    match (state.as_deref(), loaded) {
        _ if job.reload => {}
        (Some(COMPLETE), Some(loaded)) if loaded == sig => {
            return Ok(Some(LoadReport::reused()));
        }
        (state, loaded) if job.never_load => {
            let why = match (state, loaded) {
                (None, _) => "no TPC-C data has been loaded there".to_string(),
                (Some(LOADING), _) => "the TPC-C load there did not finish".to_string(),
                (_, Some(loaded)) => {
                    format!("the data there was loaded with {loaded}, the plan needs {sig}")
                }
                _ => "the TPC-C data there is incomplete".to_string(),
            };
            return Err(TpccLoadError::Missing {
                instance: job.name.clone(),
                why,
            });
        }
        (Some(LOADING), loaded) => {
            return Err(TpccLoadError::Unfinished {
                instance: job.name.clone(),
                signature: loaded.unwrap_or_else(|| "unknown parameters".into()),
            });
        }
        (Some(_), Some(loaded)) => tracing::info!(
            "{}: the TPC-C data there was loaded with {loaded}, the plan needs {sig}: loading again",
            job.name
        ),
        _ => {}
    }
    meta::put(s, &job.statements, STATE_KEY, LOADING)
        .await
        .map_err(step("write the load metadata"))?;
    meta::put(s, &job.statements, SIGNATURE_KEY, &sig)
        .await
        .map_err(step("write the load metadata"))?;
    Ok(None)
}

/// Load ITEM and every warehouse's rows on `path`: warehouses dealt round-robin to workers,
/// each on its own connection. Gives the rows written.
async fn load_in_parallel<C: Connector>(
    job: &TpccLoadJob<C>,
    path: BulkPath,
) -> Result<u64, TpccLoadError> {
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
        let worker = Worker {
            connector: job.connector.clone(),
            st: job.statements.clone(),
            params: job.params.clone(),
            path,
            rows_done: job.rows_done.clone(),
            cancel: job.cancel.clone(),
            total: total.clone(),
        };
        let fut = worker.load(w == 0, warehouses);
        let rx = spawn_on(execution, format!("tpcc-load-{}-{w}", job.instance), fut)
            .map_err(|e| TpccLoadError::Worker(e.to_string()))?;
        handles.push(rx);
    }
    for h in handles {
        h.await
            .map_err(|_| TpccLoadError::Worker("load thread panicked".into()))??;
    }
    Ok(total.load(Ordering::Relaxed))
}

/// One load worker's share of the job.
struct Worker<C: Connector> {
    connector: Arc<C>,
    st: Arc<Statements>,
    params: Arc<LoadParams>,
    path: BulkPath,
    rows_done: Arc<AtomicU64>,
    cancel: CancellationToken,
    /// Rows written by every worker.
    total: Arc<AtomicU64>,
}

impl<C: Connector> Worker<C> {
    /// Load ITEM (when `item`), then every table of each of `warehouses`, on a connection of
    /// its own; adds the rows written to `total`.
    async fn load(self, item: bool, warehouses: Vec<u32>) -> Result<(), TpccLoadError> {
        let mut s = self.connector.connect().await.map_err(step("connect"))?;
        let ctx = Ctx {
            st: &self.st,
            params: &self.params,
            path: self.path,
            rows_done: &self.rows_done,
            cancel: &self.cancel,
        };
        let mut written = 0;
        if item {
            written += load_table(&mut s, &ctx, Table::Item, 1).await?;
        }
        for w_id in warehouses {
            for t in Table::ALL.into_iter().filter(|t| t.per_warehouse()) {
                written += load_table(&mut s, &ctx, t, w_id).await?;
            }
        }
        self.total.fetch_add(written, Ordering::Relaxed);
        Ok(())
    }
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
        // NULL carrier ids and delivery dates.
        BulkText::Any,
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
pub(crate) mod tests;
