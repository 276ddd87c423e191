//! sysbench `prepare`: create the tables, load them in parallel (one connection per worker,
//! tables dealt round-robin as sysbench does), build the secondary index after the load, verify
//! row counts, and record the load's parameters so a later run can reuse it (`prepare = auto`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use meta_keys::*;
use tokio_util::sync::CancellationToken;

use super::data;
use super::rand::DefaultRand;
use crate::clients::runner::spawn_on;
use crate::engine::{Connector, EngineError, Execution, Rows, Session, Statements, Value};
use crate::scenario::plan::{PrepareMode, SysbenchOptions, SysbenchTest};
use crate::workload::Rng;

/// Rows per multi-row INSERT and per load transaction.
const ROWS_PER_INSERT: u32 = 500;
const ROWS_PER_COMMIT: u32 = 10_000;
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

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{step}: {source}")]
    Engine { step: String, source: EngineError },
    #[error("prepare = \"never\" but {0}")]
    Missing(String),
    #[error("table sbtest{table} has {found} rows after the load, expected {expected}")]
    Count {
        table: u32,
        found: i64,
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

async fn meta_get<S: Session>(
    s: &mut S,
    st: &Statements,
    key: &str,
) -> Result<Option<String>, LoadError> {
    let id = s
        .prepare(&st.render("meta_get", &[]))
        .await
        .map_err(step("read load metadata"))?;
    let mut rows = Rows::default();
    s.query(id, &[Value::Text(key.into())], &mut rows)
        .await
        .map_err(step("read load metadata"))?;
    Ok(match rows.get(0, 0) {
        Some(Value::Text(t)) => Some(t.clone()),
        _ => None,
    })
}

async fn meta_put<S: Session>(
    s: &mut S,
    st: &Statements,
    key: &str,
    value: &str,
) -> Result<(), LoadError> {
    let id = s
        .prepare(&st.render("meta_put", &[]))
        .await
        .map_err(step("write load metadata"))?;
    s.execute(id, &[Value::Text(key.into()), Value::Text(value.into())])
        .await
        .map_err(step("write load metadata"))?;
    Ok(())
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
    let LoadJob {
        connector,
        statements: st,
        opts,
        mode,
        seed,
        instance,
        rows_done,
        cancel,
    } = job;
    let opts = &opts;
    let started = Instant::now();
    let mut s = connector.connect().await.map_err(step("connect"))?;
    s.execute_text(&st.render("meta_create", &[]))
        .await
        .map_err(step("create metadata table"))?;
    let sig = signature(opts);
    let have_sig = meta_get(&mut s, &st, SIGNATURE_KEY).await?;
    let state = meta_get(&mut s, &st, STATE_KEY).await?;
    let mut complete =
        state.as_deref() == Some(COMPLETE) && have_sig.as_deref() == Some(sig.as_str());
    if !complete && state.is_none() && mode != PrepareMode::Always {
        // Tables loaded by another tool (e.g. `sysbench prepare`): reuse them when they verify.
        complete = verify_tables(&mut s, &st, opts).await?;
    }
    match mode {
        PrepareMode::Auto | PrepareMode::Never if complete => {
            return Ok(LoadReport {
                reused: true,
                rows: 0,
                seconds: 0.0,
                rows_per_s: 0.0,
            });
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
    meta_put(&mut s, &st, STATE_KEY, LOADING).await?;
    meta_put(&mut s, &st, SIGNATURE_KEY, &sig).await?;

    // Embedded engines load on our cores; a server works while our workers wait on the network,
    // so a few more workers than cores keep it busy.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let workers = match connector.execution() {
        Execution::DedicatedThread => cores,
        Execution::Async => (cores * 2).max(4),
    };
    let workers = (opts.tables as usize).min(workers).max(1);
    let mut handles = Vec::new();
    for w in 0..workers {
        let execution = connector.execution();
        let (connector, st, opts, rows_done, cancel) = (
            connector.clone(),
            st.clone(),
            opts.clone(),
            rows_done.clone(),
            cancel.clone(),
        );
        let tables: Vec<u32> = (1..=opts.tables)
            .filter(|t| (*t as usize - 1) % workers == w)
            .collect();
        let fut = async move {
            let mut s = connector.connect().await.map_err(step("connect"))?;
            for t in &tables {
                load_table(&mut s, &st, &opts, *t, seed, instance, &rows_done, &cancel).await?;
            }
            if opts.create_secondary {
                for t in &tables {
                    let ts = t.to_string();
                    s.execute_text(&st.render("create_index", &[("table", &ts)]))
                        .await
                        .map_err(step(format!("create index on sbtest{t}")))?;
                }
            }
            Ok::<(), LoadError>(())
        };
        let rx = spawn_on(execution, format!("load-{instance}-{w}"), fut)
            .map_err(|e| LoadError::Worker(e.to_string()))?;
        handles.push(rx);
    }
    for h in handles {
        h.await
            .map_err(|_| LoadError::Worker("load thread panicked".into()))??;
    }
    let expected = if opts.loaded_rows() == 0 {
        0
    } else {
        opts.table_size
    };
    for t in 1..=opts.tables {
        let found = count_rows(&mut s, &st, t).await?;
        if found != i64::from(expected) {
            return Err(LoadError::Count {
                table: t,
                found,
                expected,
            });
        }
    }
    meta_put(&mut s, &st, STATE_KEY, COMPLETE).await?;
    let rows = opts.loaded_rows();
    let seconds = started.elapsed().as_secs_f64();
    Ok(LoadReport {
        reused: false,
        rows,
        seconds,
        rows_per_s: rows as f64 / seconds.max(1e-9),
    })
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
    Ok(match rows.get(0, 0) {
        Some(Value::Int(n)) => *n,
        Some(Value::Text(t)) => t.parse().unwrap_or(-1),
        _ => -1,
    })
}

#[allow(clippy::too_many_arguments)]
async fn load_table<S: Session>(
    s: &mut S,
    st: &Statements,
    opts: &SysbenchOptions,
    table: u32,
    seed: u64,
    instance: u64,
    rows_done: &AtomicU64,
    cancel: &CancellationToken,
) -> Result<(), LoadError> {
    let ts = table.to_string();
    s.execute_text(&st.render("drop_table", &[("table", &ts)]))
        .await
        .map_err(step(format!("drop sbtest{table}")))?;
    s.execute_text(&st.render("create_table", &[("table", &ts)]))
        .await
        .map_err(step(format!("create sbtest{table}")))?;
    if opts.test == SysbenchTest::OltpInsert && !opts.auto_inc {
        return Ok(());
    }
    let mut rng = Rng::for_client(seed ^ 0x5EED_10AD, instance, u64::from(table));
    let k_rand = DefaultRand::new(opts, u64::from(opts.table_size));
    let prefix = st.render("load_insert_prefix", &[("table", &ts)]);
    let row = st.render("load_insert_row", &[]);
    let insert_sql = |n: u32| format!("{prefix} {}", vec![row.as_str(); n as usize].join(", "));
    let full = s
        .prepare(&insert_sql(ROWS_PER_INSERT))
        .await
        .map_err(step("prepare load insert"))?;
    let begin = s
        .prepare(&st.render("load_begin", &[]))
        .await
        .map_err(step("prepare load"))?;
    let commit = s
        .prepare(&st.render("commit", &[]))
        .await
        .map_err(step("prepare load"))?;
    let table_name = format!("sbtest{table}");
    let mut bulk = true;
    let mut rows: Vec<Value> = Vec::with_capacity(ROWS_PER_COMMIT as usize * 4);
    let mut id = 1u32;
    while id <= opts.table_size {
        if cancel.is_cancelled() {
            return Err(LoadError::Interrupted);
        }
        let n = ROWS_PER_COMMIT.min(opts.table_size - id + 1);
        rows.clear();
        for i in id..id + n {
            rows.push(Value::Int(i64::from(i)));
            rows.push(Value::Int(k_rand.draw(
                &mut rng,
                1,
                i64::from(opts.table_size),
            )));
            rows.push(Value::Text(data::c_value(&mut rng)));
            rows.push(Value::Text(data::pad_value(&mut rng)));
        }
        let what = || format!("load {table_name}");
        if bulk {
            bulk = s
                .bulk_load(&table_name, &COLUMNS, &rows)
                .await
                .map_err(step(what()))?;
        }
        if !bulk {
            s.execute(begin, &[]).await.map_err(step(what()))?;
            for part in rows.chunks(ROWS_PER_INSERT as usize * 4) {
                let stmt = if part.len() == ROWS_PER_INSERT as usize * 4 {
                    full
                } else {
                    s.prepare(&insert_sql(part.len() as u32 / 4))
                        .await
                        .map_err(step("prepare load insert"))?
                };
                s.execute(stmt, part).await.map_err(step(what()))?;
            }
            s.execute(commit, &[]).await.map_err(step(what()))?;
        }
        id += n;
        rows_done.fetch_add(u64::from(n), Ordering::Relaxed);
    }
    Ok(())
}
