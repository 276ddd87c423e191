//! One instance's load, whatever the benchmark: the plan's part of it as a neutral job, and the
//! benchmark's loader chosen once by `Benchmark::load`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio_util::sync::CancellationToken;

use super::benchmark::Benchmark;
use super::section::PrepareMode;
use super::sysbench::load::{self as sysbench_load, LoadReport};
use super::tpcc::load::{self as tpcc_load, TpccLoadError};
use super::tpcc::options::TpccOptions;
use super::tpcc::procs::{self, TpccSqlError};
use super::tpcc::schema as tpcc_schema;
use super::tpcc::workload::{load_params, timestamp_now};
use crate::engines::statements::NoStatements;
use crate::engines::{Connector, Dialect, EngineError};

/// One instance's load: where, how, and how to report progress.
pub struct InstanceLoad<C: Connector> {
    pub connector: Arc<C>,
    /// The instance's name, for messages (e.g. "mariadb-1").
    pub name: String,
    pub dialect: Dialect,
    pub mode: PrepareMode,
    pub seed: u64,
    /// 0-based position among all instances of the run.
    pub instance: u64,
    /// Advances as rows are committed.
    pub rows_done: Arc<AtomicU64>,
    pub cancel: CancellationToken,
}

/// Why a load did not finish.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("load interrupted")]
    Interrupted,
    #[error(transparent)]
    Sysbench(sysbench_load::LoadError),
    #[error(transparent)]
    Tpcc(TpccLoadError),
    #[error(transparent)]
    Sql(#[from] TpccSqlError),
    #[error("create the TPC-C procedures: {0}")]
    Procedures(#[source] EngineError),
}

impl From<sysbench_load::LoadError> for LoadError {
    fn from(e: sysbench_load::LoadError) -> Self {
        match e {
            sysbench_load::LoadError::Interrupted => LoadError::Interrupted,
            e => LoadError::Sysbench(e),
        }
    }
}

impl From<TpccLoadError> for LoadError {
    fn from(e: TpccLoadError) -> Self {
        match e {
            TpccLoadError::Interrupted => LoadError::Interrupted,
            e => LoadError::Tpcc(e),
        }
    }
}

impl From<NoStatements> for LoadError {
    fn from(e: NoStatements) -> Self {
        LoadError::Sql(e.into())
    }
}

impl Benchmark {
    /// Load (or reuse) one instance's data.
    pub async fn load<C: Connector>(&self, job: InstanceLoad<C>) -> Result<LoadReport, LoadError> {
        match self {
            Benchmark::Sysbench { sysbench: o } => {
                Ok(sysbench_load::prepare(sysbench_load::LoadJob {
                    connector: job.connector,
                    statements: Arc::new(super::sysbench::statements(job.dialect)),
                    opts: o.clone(),
                    mode: job.mode,
                    seed: job.seed,
                    instance: job.instance,
                    rows_done: job.rows_done,
                    cancel: job.cancel,
                })
                .await?)
            }
            Benchmark::Tpcc { tpcc } => load_tpcc(tpcc, job).await,
        }
    }
}

/// TPC-C's load, then its stored procedures when the plan runs them.
async fn load_tpcc<C: Connector>(
    o: &TpccOptions,
    job: InstanceLoad<C>,
) -> Result<LoadReport, LoadError> {
    let dialect = job.dialect;
    let report = tpcc_load::load(tpcc_load::TpccLoadJob {
        connector: job.connector.clone(),
        name: job.name,
        reload: job.mode == PrepareMode::Always,
        never_load: job.mode == PrepareMode::Never,
        schema: Arc::new(tpcc_schema::schema(dialect)?),
        statements: Arc::new(tpcc_schema::statements(dialect)?),
        warehouses: o.warehouses,
        params: Arc::new(load_params(job.seed, timestamp_now())),
        instance: job.instance,
        rows_done: job.rows_done,
        cancel: job.cancel,
    })
    .await?;
    if o.procedures {
        // Loaded now or reused: the procedures are (re)created either way.
        let st = procs::procedures(dialect)?;
        let mut s = job
            .connector
            .connect()
            .await
            .map_err(LoadError::Procedures)?;
        procs::install(&mut s, &st)
            .await
            .map_err(LoadError::Procedures)?;
    }
    Ok(report)
}
