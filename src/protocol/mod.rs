//! The protocol: load every instance, connect every client before the clock, then run the
//! phases in order as barriers — all clients of all instances start together, the sampler
//! closes an interval at every report tick and at every phase boundary (counters reset there),
//! and results are written after each phase. Dispatch on the engine kind happens here, once.
//! `steady` holds the SNIA steady-state rule that preconditions are judged by; `curve` the
//! load-curve and SLO-search mechanism shared by I/O sweeps and database curves; `sweeps` the
//! synthetic I/O sweeps that follow the phases.

pub mod curve;
mod phases;
pub mod prebuilt;
pub mod preflight;
pub mod servers;
pub mod steady;
pub mod sweeps;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::engine::sqlite::SqliteConnector;
use crate::engine::{Connector, EngineConfig};
use crate::report::RunDir;
use crate::report::live::Console;
use crate::report::result::{InstanceReport, RunReport, RunStatus};
use crate::scenario::Plan;
use crate::scenario::plan::EngineKind;
use crate::workload::sysbench::Sysbench;
use crate::workload::sysbench::load::{self, LoadError};

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    Complete,
    Failed(String),
    Interrupted,
}

/// What an engine knows about an instance before the generic protocol starts.
#[derive(Debug, Clone, Default)]
pub struct InstanceExtras {
    /// Effective server variables worth keeping with the results.
    pub variables: BTreeMap<String, String>,
    /// Where its data was copied from (`prebuilt_dir`).
    pub prebuilt: Option<prebuilt::CopyReport>,
}

/// Where a run writes and what it listens to, handed down every protocol step.
pub struct RunCtx<'a> {
    pub report: &'a mut RunReport,
    pub dir: &'a mut RunDir,
    pub console: &'a Console,
    pub cancel: &'a CancellationToken,
}

/// Run the plan's protocol, filling `report` (phases, instances) and writing results as it goes.
pub async fn run(plan: &Plan, ctx: &mut RunCtx<'_>) -> Ending {
    let ending = match plan.instances.first().map(|i| i.engine) {
        None => Ending::Failed("no instances".into()),
        Some(EngineKind::Sqlite) => run_sqlite(plan, ctx).await,
        Some(EngineKind::Mariadb | EngineKind::Mysql | EngineKind::Postgres) => {
            servers::run(plan, ctx).await
        }
    };
    match ending {
        // The engines are stopped by now: the sweeps have the drive to themselves.
        Ending::Complete if !plan.sweeps.is_empty() => sweeps::run_all(plan, ctx).await,
        other => other,
    }
}

async fn run_sqlite(plan: &Plan, ctx: &mut RunCtx<'_>) -> Ending {
    let target = PathBuf::from(&plan.target_path);
    let mut connectors = Vec::new();
    for inst in &plan.instances {
        let EngineConfig::Sqlite(config) = &inst.config else {
            return Ending::Failed(format!(
                "instance {}: not a SQLite configuration",
                inst.name
            ));
        };
        let dir = target.join(&inst.name);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return Ending::Failed(format!(
                "instance {}: cannot create {}: {e}",
                inst.name,
                dir.display()
            ));
        }
        let workload = Sysbench::new(plan.workload.sysbench.clone(), inst.engine);
        connectors.push(Arc::new(SqliteConnector::new(
            &dir,
            config.clone(),
            workload.statements_per_client(),
        )));
    }
    let extras = vec![InstanceExtras::default(); connectors.len()];
    run_with(plan, connectors, extras, ctx).await
}

/// The engine-independent part: load, then the phases.
pub(crate) async fn run_with<C: Connector>(
    plan: &Plan,
    connectors: Vec<Arc<C>>,
    extras: Vec<InstanceExtras>,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let engine = plan.instances.first().map(|i| i.engine);
    let Some(engine) = engine else {
        return Ending::Failed("no instances".into());
    };
    let workload = Arc::new(Sysbench::new(plan.workload.sysbench.clone(), engine));
    ctx.report.instances = plan
        .instances
        .iter()
        .zip(&connectors)
        .zip(extras)
        .map(|((i, c), extras)| InstanceReport {
            name: i.name.clone(),
            engine: i.engine.as_str().to_string(),
            version: c.version(),
            data_path: PathBuf::from(&plan.target_path)
                .join(&i.name)
                .display()
                .to_string(),
            load: None,
            variables: extras.variables,
            prebuilt: extras.prebuilt,
        })
        .collect();
    match load_all(plan, &connectors, ctx).await {
        Ok(()) => {}
        Err(LoadError::Interrupted) => return Ending::Interrupted,
        Err(e) => return Ending::Failed(format!("load: {e}")),
    }
    ctx.report.status = RunStatus::Running;
    if let Err(e) = ctx.dir.write_result(ctx.report) {
        return Ending::Failed(e.to_string());
    }
    phases::run_phases(plan, connectors, workload, ctx).await
}

async fn load_all<C: Connector>(
    plan: &Plan,
    connectors: &[Arc<C>],
    ctx: &mut RunCtx<'_>,
) -> Result<(), LoadError> {
    let rows_done = Arc::new(AtomicU64::new(0));
    let total = plan.estimates.rows_per_instance * connectors.len() as u64;
    ctx.console.line(&format!(
        "load: {} instance(s), {} tables x {} rows each (prepare = {})",
        connectors.len(),
        plan.workload.sysbench.tables,
        plan.workload.sysbench.table_size,
        plan.workload.prepare.name()
    ));
    let bar = ctx.console.load_bar(total);
    let statements = Arc::new(crate::workload::sysbench::statements(
        plan.instances[0].engine,
    ));
    let mut tasks = Vec::new();
    for (i, c) in connectors.iter().enumerate() {
        let fut = load::prepare(load::LoadJob {
            connector: c.clone(),
            statements: statements.clone(),
            opts: plan.workload.sysbench.clone(),
            mode: plan.workload.prepare,
            seed: plan.seed,
            instance: i as u64,
            rows_done: rows_done.clone(),
            cancel: ctx.cancel.clone(),
        });
        tasks.push(fut);
    }
    let ticker = bar.clone().map(|b| {
        let rows_done = rows_done.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(200)).await;
                b.set_position(rows_done.load(std::sync::atomic::Ordering::Relaxed));
            }
        })
    });
    let results = futures_join_all(tasks).await;
    if let Some(t) = ticker {
        t.abort();
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    for (i, r) in results.into_iter().enumerate() {
        let r = r?;
        let name = &plan.instances[i].name;
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

/// Await every future concurrently, keeping their order.
async fn futures_join_all<F: std::future::Future>(futs: Vec<F>) -> Vec<F::Output> {
    let mut pinned: Vec<_> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = (0..pinned.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in pinned.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}
