//! sysbench `prepare`: create the tables, load them in parallel (one connection per worker,
//! tables dealt round-robin as sysbench does), build the secondary index (and on PostgreSQL the
//! primary key: `PrimaryKey::AfterLoad`) after the load, check the rows each load wrote, and
//! record the load's parameters so a later run can reuse it (`prepare = auto`). Rows are
//! generated in chunks while the engine loads them: one streamed bulk statement per table where
//! the engine has one, multi-row INSERTs otherwise.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use meta_keys::*;
use tokio_util::sync::CancellationToken;

use super::data;
use super::rand::DefaultRand;
use crate::engines::runner::spawn_on;
use crate::engines::{
    BulkPath, BulkText, Connector, EngineError, Execution, Rows, Session, Statements, Value,
};
use crate::workload::feed::{Fed, InsertSql, feed};
use crate::workload::meta;
use crate::workload::section::PrepareMode;
use crate::workload::sysbench::options::{SysbenchOptions, SysbenchTest};
use drivebench_core::rng::Rng;

/// Rows per multi-row INSERT, and per transaction on the INSERT path.
const ROWS_PER_INSERT: u32 = 500;
const ROWS_PER_COMMIT: u32 = 10_000;
/// Rows per chunk streamed to a bulk load: small enough that the buffers are reused rather
/// than mapped afresh each time.
const ROWS_PER_CHUNK: u32 = 1_000;
/// Columns of a sysbench table, in load order.
const COLUMNS: [&str; 4] = ["id", "k", "c", "pad"];

mod meta_keys {
    pub const SIGNATURE_KEY: &str = "sysbench.signature";
    pub const STATE_KEY: &str = "sysbench.state";
    pub const COMPLETE: &str = "complete";
    pub const LOADING: &str = "loading";
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema, PartialEq)]
pub struct LoadReport {
    /// The data was already there and matched the plan; nothing was loaded.
    pub reused: bool,
    pub rows: u64,
    pub seconds: f64,
    pub rows_per_s: f64,
}

impl LoadReport {
    /// Nothing loaded: the data there was reused.
    pub fn reused() -> Self {
        LoadReport {
            reused: true,
            rows: 0,
            seconds: 0.0,
            rows_per_s: 0.0,
        }
    }

    /// `rows` loaded, from `started` until now.
    pub fn loaded(rows: u64, started: Instant) -> Self {
        let seconds = started.elapsed().as_secs_f64();
        LoadReport {
            reused: false,
            rows,
            seconds,
            rows_per_s: rows as f64 / seconds.max(1e-9),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{step}: {source}")]
    Engine { step: String, source: EngineError },
    #[error("prepare = \"never\" but {0}")]
    Missing(String),
    #[error("the load of sbtest{table} wrote {found} rows, expected {expected}")]
    Count {
        table: u32,
        found: u64,
        expected: u32,
    },
    #[error("load interrupted")]
    Interrupted,
    #[error("a load worker stopped unexpectedly: {0}")]
    Worker(String),
}

fn step(step: impl Into<String>) -> impl FnOnce(EngineError) -> LoadError {
    let step = step.into();
    move |source| LoadError::Engine { step, source }
}

/// Parameters the loaded data depends on; a reuse needs an exact match.
pub fn signature(o: &SysbenchOptions) -> String {
    let empty = o.loaded_rows() == 0;
    format!(
        "tables={} table_size={} secondary={} empty={empty}",
        o.tables, o.table_size, o.create_secondary
    )
}

/// One instance's load: where, what, and how to report progress.
pub struct LoadJob<C: Connector> {
    pub connector: Arc<C>,
    pub statements: Arc<Statements>,
    pub opts: SysbenchOptions,
    pub mode: PrepareMode,
    pub seed: u64,
    pub instance: u64,
    /// Advances as rows are committed.
    pub rows_done: Arc<AtomicU64>,
    pub cancel: CancellationToken,
}

/// Load (or reuse) one instance's tables.
pub async fn prepare<C: Connector>(job: LoadJob<C>) -> Result<LoadReport, LoadError> {
    let started = Instant::now();
    let mut s = job.connector.connect().await.map_err(step("connect"))?;
    if let Some(reused) = begin(&mut s, &job).await? {
        return Ok(reused);
    }
    load_in_parallel(&job).await?;
    meta::put(&mut s, &job.statements, STATE_KEY, COMPLETE)
        .await
        .map_err(step("write the load metadata"))?;
    let rows = job.opts.loaded_rows();
    Ok(LoadReport::loaded(rows, started))
}

/// Read the load record: a complete load with the plan's signature (or tables of another
/// tool that verify) is reused, its report returned; prepare = "never" refuses anything else;
/// otherwise the record is set to LOADING with the plan's signature, and None returned.
async fn begin<C: Connector>(
    s: &mut C::Session,
    job: &LoadJob<C>,
) -> Result<Option<LoadReport>, LoadError> {
    let (st, opts, mode) = (&job.statements, &job.opts, job.mode);
    s.execute_text(&st.render("meta_create", &[]))
        .await
        .map_err(step("create metadata table"))?;
    let sig = signature(opts);
    let have_sig = meta::get(s, st, SIGNATURE_KEY)
        .await
        .map_err(step("read the load metadata"))?;
    let state = meta::get(s, st, STATE_KEY)
        .await
        .map_err(step("read the load metadata"))?;
    let mut complete =
        state.as_deref() == Some(COMPLETE) && have_sig.as_deref() == Some(sig.as_str());
    if !complete && state.is_none() && mode != PrepareMode::Always {
        // Tables loaded by another tool (e.g. `sysbench prepare`): reuse them when they verify.
        complete = verify_tables(s, st, opts).await?;
    }
    match mode {
        PrepareMode::Auto | PrepareMode::Never if complete => {
            return Ok(Some(LoadReport::reused()));
        }
        PrepareMode::Never => {
            let why = match (state.as_deref(), have_sig) {
                (None, _) => "no data has been loaded here".to_string(),
                (Some(LOADING), _) => "the previous load was interrupted".to_string(),
                (_, Some(other)) => {
                    format!("the data here was loaded with {other}, the plan needs {sig}")
                }
                _ => "the data here is incomplete".to_string(),
            };
            return Err(LoadError::Missing(why));
        }
        _ => {}
    }
    if state.as_deref() == Some(LOADING) {
        tracing::warn!("a previous load was interrupted; loading again");
    }
    meta::put(s, st, STATE_KEY, LOADING)
        .await
        .map_err(step("write the load metadata"))?;
    meta::put(s, st, SIGNATURE_KEY, &sig)
        .await
        .map_err(step("write the load metadata"))?;
    Ok(None)
}

/// Load every table: dealt round-robin to workers, each on its own connection, and wait for
/// them all.
async fn load_in_parallel<C: Connector>(job: &LoadJob<C>) -> Result<(), LoadError> {
    // Embedded engines load on our cores; a server works while our workers wait on the network,
    // so a few more workers than cores keep it busy.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let workers = match job.connector.execution() {
        Execution::DedicatedThread => cores,
        Execution::Async => (cores * 2).max(4),
    };
    let workers = (job.opts.tables as usize).min(workers).max(1);
    let mut handles = Vec::new();
    for w in 0..workers {
        let tables: Vec<u32> = (1..=job.opts.tables)
            .filter(|t| (*t as usize - 1) % workers == w)
            .collect();
        let fut = load_worker(job.share(), tables);
        let rx = spawn_on(
            job.connector.execution(),
            format!("load-{}-{w}", job.instance),
            fut,
        )
        .map_err(|e| LoadError::Worker(e.to_string()))?;
        handles.push(rx);
    }
    for h in handles {
        h.await
            .map_err(|_| LoadError::Worker("load thread panicked".into()))??;
    }
    Ok(())
}

impl<C: Connector> LoadJob<C> {
    /// The same job for one of its workers.
    fn share(&self) -> LoadJob<C> {
        LoadJob {
            connector: self.connector.clone(),
            statements: self.statements.clone(),
            opts: self.opts.clone(),
            mode: self.mode,
            seed: self.seed,
            instance: self.instance,
            rows_done: self.rows_done.clone(),
            cancel: self.cancel.clone(),
        }
    }
}

/// One load worker: its `tables` on a connection of its own, each checked against the rows
/// it should have, then their secondary indexes.
async fn load_worker<C: Connector>(job: LoadJob<C>, tables: Vec<u32>) -> Result<(), LoadError> {
    let (st, opts) = (&job.statements, &job.opts);
    let mut s = job.connector.connect().await.map_err(step("connect"))?;
    let path = s.bulk_path().await.map_err(step("choose the load path"))?;
    // The engine's own count of the rows it committed: no scan of the table.
    let expected = if opts.loaded_rows() == 0 {
        0
    } else {
        opts.table_size
    };
    for t in &tables {
        let table = Table {
            number: *t,
            path,
            seed: job.seed,
            instance: job.instance,
        };
        let written = load_table(&mut s, st, opts, table, &job.rows_done, &job.cancel).await?;
        if written != u64::from(expected) {
            return Err(LoadError::Count {
                table: *t,
                found: written,
                expected,
            });
        }
        if let PrimaryKey::AfterLoad = PrimaryKey::of(st) {
            let ts = t.to_string();
            s.execute_text(&st.render("load_primary_key", &[("table", &ts)]))
                .await
                .map_err(step(format!("add the primary key of sbtest{t}")))?;
        }
    }
    if opts.create_secondary {
        for t in &tables {
            create_index(&mut s, st, *t).await?;
        }
    }
    Ok(())
}

/// Whether every table exists with exactly the planned row count.
async fn verify_tables<S: Session>(
    s: &mut S,
    st: &Statements,
    opts: &SysbenchOptions,
) -> Result<bool, LoadError> {
    if opts.loaded_rows() == 0 {
        return Ok(false);
    }
    let mut rows = Rows::default();
    for t in 1..=opts.tables {
        let ts = t.to_string();
        let exists = s
            .prepare(&st.render("table_exists", &[("table", &ts)]))
            .await
            .map_err(step("check tables"))?;
        s.query(exists, &[], &mut rows)
            .await
            .map_err(step("check tables"))?;
        if !matches!(rows.get(0, 0), Some(Value::Int(1))) {
            return Ok(false);
        }
        if count_rows(s, st, t).await? != i64::from(opts.table_size) {
            return Ok(false);
        }
    }
    Ok(true)
}

async fn count_rows<S: Session>(s: &mut S, st: &Statements, table: u32) -> Result<i64, LoadError> {
    let ts = table.to_string();
    let id = s
        .prepare(&st.render("count_rows", &[("table", &ts)]))
        .await
        .map_err(step("count rows"))?;
    let mut rows = Rows::default();
    s.query(id, &[], &mut rows)
        .await
        .map_err(step(format!("count rows of sbtest{table}")))?;
    Ok(rows.get(0, 0).and_then(Value::as_i64).unwrap_or(-1))
}

async fn create_index<S: Session>(s: &mut S, st: &Statements, table: u32) -> Result<(), LoadError> {
    let ts = table.to_string();
    s.execute_text(&st.render("create_index", &[("table", &ts)]))
        .await
        .map_err(step(format!("create index on sbtest{table}")))?;
    Ok(())
}

/// When a loaded table gets its primary key: a dialect whose statements have
/// `load_primary_key` creates the table without it and builds it once the rows are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PrimaryKey {
    /// In `create_table`, maintained row by row as the load inserts.
    InCreate,
    /// `load_create_table`, then `load_primary_key` after the load.
    AfterLoad,
}

impl PrimaryKey {
    fn of(st: &Statements) -> Self {
        if st.has("load_primary_key") {
            PrimaryKey::AfterLoad
        } else {
            PrimaryKey::InCreate
        }
    }

    /// The statement that creates the table to load.
    fn create_statement(self) -> &'static str {
        match self {
            PrimaryKey::InCreate => "create_table",
            PrimaryKey::AfterLoad => "load_create_table",
        }
    }
}

/// The table one `load_table` call fills, and how.
struct Table {
    number: u32,
    path: BulkPath,
    seed: u64,
    instance: u64,
}

/// Generates one table's rows in chunks, deterministically from the seed.
struct RowMaker<'a> {
    opts: &'a SysbenchOptions,
    rng: Rng,
    k_rand: DefaultRand,
    next_id: u32,
    chunk: u32,
    /// Whether rows carry `id` (else the engine numbers them 1, 2, ... as they arrive).
    with_id: bool,
}

impl RowMaker<'_> {
    /// The next chunk (row-major, `COLUMNS` order, or without `id`), or None when the table is
    /// complete. The values do not depend on `with_id`.
    fn next_chunk(&mut self) -> Option<Vec<Value>> {
        let size = self.opts.table_size;
        if self.next_id > size {
            return None;
        }
        let n = self.chunk.min(size - self.next_id + 1);
        let mut rows = Vec::with_capacity(n as usize * COLUMNS.len());
        for i in self.next_id..self.next_id + n {
            if self.with_id {
                rows.push(Value::Int(i64::from(i)));
            }
            let k = self.k_rand.draw(&mut self.rng, 1, i64::from(size));
            rows.push(Value::Int(k));
            rows.push(Value::Text(data::c_value(&mut self.rng)));
            rows.push(Value::Text(data::pad_value(&mut self.rng)));
        }
        self.next_id += n;
        Some(rows)
    }
}

async fn load_table<S: Session>(
    s: &mut S,
    st: &Statements,
    opts: &SysbenchOptions,
    table: Table,
    rows_done: &AtomicU64,
    cancel: &CancellationToken,
) -> Result<u64, LoadError> {
    let number = table.number;
    let ts = number.to_string();
    s.execute_text(&st.render("drop_table", &[("table", &ts)]))
        .await
        .map_err(step(format!("drop sbtest{number}")))?;
    let create = PrimaryKey::of(st).create_statement();
    s.execute_text(&st.render(create, &[("table", &ts)]))
        .await
        .map_err(step(format!("create sbtest{number}")))?;
    if opts.test == SysbenchTest::OltpInsert && !opts.auto_inc {
        return Ok(0);
    }
    // The table was created just now, so its AUTO_INCREMENT key numbers the rows from 1.
    let auto_ids = matches!(table.path, BulkPath::Stream { auto_ids: true });
    let mut maker = RowMaker {
        opts,
        rng: Rng::for_client(table.seed ^ 0x5EED_10AD, table.instance, u64::from(number)),
        k_rand: DefaultRand::new(opts, u64::from(opts.table_size)),
        next_id: 1,
        chunk: match table.path {
            BulkPath::None => ROWS_PER_COMMIT,
            BulkPath::Stream { .. } => ROWS_PER_CHUNK,
        },
        with_id: !auto_ids,
    };
    let table_name = format!("sbtest{number}");
    let insert = InsertSql {
        prefix: st.render("load_insert_prefix", &[("table", &ts)]),
        row: st.render("load_insert_row", &[]),
        rows_per_insert: ROWS_PER_INSERT as usize,
        begin: st.render("load_begin", &[]),
        commit: st.render("commit", &[]),
    };
    let fed = feed(
        s,
        table.path,
        &table_name,
        if auto_ids { &COLUMNS[1..] } else { &COLUMNS },
        // Integers, and text of digits and dashes only.
        BulkText::Plain,
        &insert,
        || maker.next_chunk(),
        rows_done,
        cancel,
    )
    .await
    .map_err(step(format!("load {table_name}")))?;
    match fed {
        Fed::Done { written, .. } => Ok(written),
        Fed::Interrupted => Err(LoadError::Interrupted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::Dialect;
    use crate::workload::sysbench::statements;

    #[test]
    fn only_postgres_builds_its_primary_key_after_the_load() {
        for dialect in [
            Dialect::Sqlite,
            Dialect::Mysql,
            Dialect::Postgres,
            Dialect::Mssql,
        ] {
            let st = statements(dialect);
            let key = PrimaryKey::of(&st);
            let expected = if dialect == Dialect::Postgres {
                PrimaryKey::AfterLoad
            } else {
                PrimaryKey::InCreate
            };
            assert_eq!(key, expected, "{dialect:?}");
            assert!(st.has(key.create_statement()), "{dialect:?}");
            // The table the load creates has no key of its own; the key comes after.
            let created = st.render(key.create_statement(), &[("table", "1")]);
            assert_eq!(
                created.contains("PRIMARY KEY"),
                key == PrimaryKey::InCreate,
                "{created}"
            );
        }
    }
}
