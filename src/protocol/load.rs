//! Loading every instance before the phases, whatever the benchmark: one load per instance,
//! all in parallel, with one progress bar over their rows. The benchmark's loader is chosen by
//! `Benchmark::load`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::RunCtx;
use super::stall::{LoadProgress, watch_load};
use crate::engines::Connector;
use crate::scenario::plan::{DatabaseRun, DbPlan};
use crate::workload::load::{InstanceLoad, LoadError};
use crate::workload::section::PrepareMode;
use crate::workload::sysbench::load::LoadReport;

/// Statements each client connection prepares (sizes the servers' statement limits).
pub fn statements_per_client(db: &DatabaseRun) -> usize {
    db.instances.first().map_or(0, |i| {
        db.workload
            .benchmark
            .statements_per_client(i.engine.dialect())
    })
}

/// Why a load did not finish.
#[derive(Debug, thiserror::Error)]
pub enum LoadFailure {
    #[error("load interrupted")]
    Interrupted,
    #[error(transparent)]
    Load(LoadError),
    /// The instance at this index is hung or unreachable.
    #[error("instance {0}: {1}")]
    Stalled(usize, #[source] super::stall::Stalled),
}

impl From<LoadError> for LoadFailure {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::Interrupted => LoadFailure::Interrupted,
            e => LoadFailure::Load(e),
        }
    }
}

/// Load (or reuse) the data of instance `index` through `connector`.
pub async fn load_instance<C: Connector>(
    plan: DbPlan<'_>,
    connector: Arc<C>,
    index: usize,
    mode: PrepareMode,
    rows_done: Arc<AtomicU64>,
    cancel: CancellationToken,
) -> Result<LoadReport, LoadFailure> {
    let inst = &plan.db.instances[index];
    let job = InstanceLoad {
        connector,
        name: inst.name.clone(),
        dialect: inst.engine.dialect(),
        mode,
        seed: plan.seed(),
        instance: index as u64,
        rows_done,
        cancel,
    };
    Ok(plan.db.workload.benchmark.load(job).await?)
}

/// Load every instance in parallel, reporting progress and each instance's load.
pub(super) async fn load_all<C: Connector>(
    plan: DbPlan<'_>,
    connectors: &[Arc<C>],
    ctx: &mut RunCtx<'_>,
) -> Result<(), LoadFailure> {
    let progress = LoadProgress::new(connectors.len());
    let total = plan.db.estimates.rows_per_instance * connectors.len() as u64;
    ctx.console.line(&format!(
        "load: {} instance(s), {} (prepare = {})",
        connectors.len(),
        plan.db.workload.describe(),
        plan.db.workload.prepare.name()
    ));
    let bar = ctx.console.load_bar(total);
    let progress = &progress;
    let cancel = ctx.cancel;
    let tasks: Vec<_> = connectors
        .iter()
        .enumerate()
        .map(|(i, c)| async move {
            let mode = plan.db.workload.prepare;
            let rows = progress.rows[i].clone();
            let r = load_instance(plan, c.clone(), i, mode, rows, cancel.clone()).await;
            progress.ended[i].store(true, Ordering::Relaxed);
            r
        })
        .collect();
    let ticker = async {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if let Some(b) = &bar {
                b.set_position(progress.total());
            }
        }
    };
    let stall_timeout = Duration::from_millis(plan.db.workload.stall_timeout_ms);
    let ended = tokio::select! {
        results = futures_util::future::join_all(tasks) => Ok(results),
        (i, stalled) = watch_load(connectors, progress, stall_timeout) => Err(LoadFailure::Stalled(i, stalled)),
        never = ticker => match never {},
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let results = ended?;
    for (i, r) in results.into_iter().enumerate() {
        let r = r?;
        let name = &plan.db.instances[i].name;
        if r.reused {
            ctx.console
                .line(&format!("load {name}: reused existing data"));
        } else {
            ctx.console.line(&format!(
                "load {name}: {} rows in {:.1} s ({:.0} rows/s)",
                r.rows, r.seconds, r.rows_per_s
            ));
        }
        ctx.report.instances[i].load = Some(r);
    }
    Ok(())
}
