//! The protocol: load every instance, connect every client before the clock, then run the
//! phases in order as barriers — all clients of all instances start together, the sampler
//! closes an interval at every report tick and at every phase boundary (counters reset there),
//! and results are written after each phase. The engine's type comes from
//! `engines::dispatch`: an embedded engine opens its instances here, a server engine's are
//! started or attached in `servers`. The benchmark is never named here: `measure` asks
//! `Benchmark::drive` for its workload and phase hooks and `Benchmark::run_checks` for its
//! checks, and `recheck` reaches a finished run's instances to run those checks again
//! (`drivebench check`). `sweeps` the synthetic I/O sweeps that follow the phases; `db_curve`
//! runs a `[[curve]]` after the phases with the same clients; `preflight` what can be known
//! before anything starts; `lifecycle` a run from its start to its kept results (a run
//! directory, or `up`'s up.json), around all of these; `entry` the one call per command.

pub mod capture;
mod cliff;
mod db_curve;
mod ending;
mod engine_io;
pub mod entry;
pub mod fullness;
mod health;
pub mod lifecycle;
mod load;
mod measure;
mod phases;
pub mod prebuilt;
pub mod preflight;
pub mod recheck;
pub mod servers;
mod signals;
mod stall;
mod start_at;
pub mod start_state;
mod steady;
pub mod sweeps;
pub mod telemetry;
pub mod up;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::console::Console;
use crate::engines::server::Server;
use crate::engines::{BoxFuture, Connector, Embedded, EngineVisitor, dispatch};
use crate::report::RunDir;
use crate::results::run::{InstanceReport, RunReport};
use crate::results::status::RunStatus;
use crate::scenario::Plan;
use crate::scenario::plan::DbPlan;
use drivebench_system::target::leftovers::{Kind, create_marked_dir};
pub use ending::{Cause, Ending, Reason, RunError, Stage};
pub use load::{LoadFailure, load_instance, statements_per_client};

/// What an engine knows about an instance before the generic protocol starts.
#[derive(Debug, Clone, Default)]
pub struct InstanceExtras {
    /// Effective server variables worth keeping with the results.
    pub variables: BTreeMap<String, String>,
    /// Where its data was copied from (`prebuilt_dir`).
    pub prebuilt: Option<crate::results::run::CopyReport>,
    /// The URL its clients connect to (server engines; never with a password).
    pub url: Option<String>,
    /// The process of a private server (its CPU and memory are sampled with the run's).
    pub pid: Option<u32>,
}

/// Where a run writes and what it listens to, handed down every protocol step.
pub struct RunCtx<'a> {
    pub report: &'a mut RunReport,
    pub dir: &'a mut RunDir,
    pub console: &'a Console,
    pub cancel: &'a CancellationToken,
    /// Drive and host telemetry, sampled from the moment the instances run.
    pub telemetry: telemetry::Telemetry,
    /// The live metrics served while the run lasts (`--metrics-listen`).
    pub live: Option<&'a crate::exporter::LiveMetrics>,
    /// `run --start-at`: the phase clock starts at this instant (loaded and connected before).
    pub start_at: Option<std::time::SystemTime>,
    /// The block I/O capture, once the instances run (`[capture]`, `--capture`).
    pub capture: capture::Capture,
    /// The engines' own I/O counters, sampled with the telemetry once the instances are
    /// loaded; None without telemetry or when no engine counts its I/O.
    pub engine_io: Option<engine_io::EngineIo>,
}

/// Run the plan's protocol, filling `report` (phases, instances) and writing results as it goes.
pub async fn run(plan: &Plan, ctx: &mut RunCtx<'_>) -> Ending {
    let ending = match plan.database() {
        None => Ending::Complete,
        Some(db) => run_database(db, ctx).await,
    };
    match ending {
        // The engines are stopped by now: the sweeps have the drive to themselves.
        Ending::Complete if !plan.sweeps.is_empty() => sweeps::run_all(plan, ctx).await,
        other => other,
    }
}

/// The database part: its engine's instances loaded and driven through the phases and curve.
async fn run_database(plan: DbPlan<'_>, ctx: &mut RunCtx<'_>) -> Ending {
    start_client_threads(plan);
    match plan.db.instances.first().map(|i| i.engine) {
        None => Ending::failed(Stage::Setup, Reason("no instances".into())),
        Some(kind) => dispatch(kind, Run { plan, ctx }).await,
    }
}

/// The plan's client thread count, for the clients and loaders about to start.
fn start_client_threads(plan: DbPlan<'_>) {
    if let Some(n) = plan.db.workload.client_threads {
        crate::engines::runner::use_client_threads(n as usize);
    }
}

/// The run of the plan's engine, as a future.
struct Run<'a, 'r> {
    plan: DbPlan<'a>,
    ctx: &'a mut RunCtx<'r>,
}

impl<'a, 'r> EngineVisitor for Run<'a, 'r> {
    type Output = BoxFuture<'a, Ending>;
    fn embedded<E: Embedded>(self) -> Self::Output {
        Box::pin(run_embedded::<E>(self.plan, self.ctx))
    }
    fn server<E: Server>(self) -> Self::Output {
        Box::pin(servers::run_kind::<E>(self.plan, self.ctx))
    }
}

async fn run_embedded<E: Embedded>(plan: DbPlan<'_>, ctx: &mut RunCtx<'_>) -> Ending {
    let target = PathBuf::from(&plan.target_path());
    let mut connectors = Vec::new();
    for inst in &plan.db.instances {
        let config = match servers::config_of::<E>(inst) {
            Ok(c) => c,
            Err(e) => return Ending::failed(Stage::Setup, e),
        };
        let dir = target.join(&inst.name);
        if let Err(e) = create_marked_dir(&dir, Kind::Instance) {
            return Ending::failed_on(
                Stage::Setup,
                &inst.name,
                Reason(format!("cannot create {}: {e}", dir.display())),
            );
        }
        connectors.push(Arc::new(E::open(
            &dir,
            config,
            statements_per_client(plan.db),
        )));
    }
    let extras = vec![InstanceExtras::default(); connectors.len()];
    run_with(plan, connectors, extras, ctx)
        .await
        .noting_full_target(&target)
}

/// The engine-independent part: load, then the phases.
pub(crate) async fn run_with<C: Connector>(
    plan: DbPlan<'_>,
    connectors: Vec<Arc<C>>,
    extras: Vec<InstanceExtras>,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let servers = plan
        .db
        .instances
        .iter()
        .zip(&extras)
        .filter_map(|(i, e)| Some((i.name.clone(), e.pid?)))
        .collect();
    if matches!(ctx.telemetry, telemetry::Telemetry::Wanted) {
        let probe = telemetry::Probe::new(std::path::Path::new(plan.target_path()), servers);
        ctx.report.device_stack = Some(probe.devices().clone());
        ctx.telemetry = telemetry::Telemetry::Sampling(Box::new(probe));
    }
    if let Err(e) = start_capture(plan, ctx) {
        return Ending::failed(Stage::Setup, e);
    }
    ctx.report.instances = plan
        .db
        .instances
        .iter()
        .zip(&connectors)
        .zip(extras)
        .map(|((i, c), extras)| InstanceReport {
            name: i.name.clone(),
            engine: i.engine.as_str().to_string(),
            version: c.version(),
            data_path: PathBuf::from(&plan.target_path())
                .join(&i.name)
                .display()
                .to_string(),
            url: extras.url,
            load: None,
            variables: extras.variables,
            prebuilt: extras.prebuilt,
            engine_io_missing: Vec::new(),
        })
        .collect();
    match load::load_all(plan, &connectors, ctx).await {
        Ok(()) => {}
        Err(LoadFailure::Interrupted) => return Ending::Interrupted,
        Err(LoadFailure::Stalled(i, stalled)) => {
            return Ending::failed_on(Stage::Load, &plan.db.instances[i].name, stalled);
        }
        Err(e) => return Ending::failed(Stage::Load, e),
    }
    ctx.report.status = RunStatus::Running;
    if let Err(e) = ctx.dir.write_result(ctx.report) {
        return Ending::failed(Stage::Results, e);
    }
    start_engine_io(plan, &connectors, ctx).await;
    let ending = measure::measure(plan, &connectors, ctx).await;
    // The sampling sessions close before the instances stop, on every path.
    ctx.engine_io = None;
    ending
}

/// With telemetry on, a sampling session on every loaded instance for its engine's own I/O
/// counters; what each engine could not tell is noted once, in the report and on the console.
async fn start_engine_io<C: Connector>(
    plan: DbPlan<'_>,
    connectors: &[Arc<C>],
    ctx: &mut RunCtx<'_>,
) {
    if ctx.telemetry.probe().is_none() {
        return;
    }
    let instances: Vec<_> = plan
        .db
        .instances
        .iter()
        .map(|i| (i.name.clone(), i.engine.dialect()))
        .collect();
    let interval = std::time::Duration::from_millis(plan.report_interval_ms());
    let writes = plan.db.workload.benchmark.writes();
    let timeout = engine_io::read_timeout(interval);
    let started = engine_io::open(&instances, connectors, timeout, writes).await;
    for (inst, missing) in ctx.report.instances.iter_mut().zip(started.missing) {
        for m in &missing {
            ctx.console
                .line(&format!("{}: engine I/O: missing {m}", inst.name));
        }
        inst.engine_io_missing = missing;
    }
    ctx.engine_io = started.engine_io;
}

/// Start the plan's capture, if it has one, on the devices under the target.
fn start_capture(
    plan: DbPlan<'_>,
    ctx: &mut RunCtx<'_>,
) -> Result<(), crate::capture::CaptureError> {
    let Some(wanted) = &plan.db.capture else {
        return Ok(());
    };
    let target = std::path::Path::new(plan.target_path());
    let devices = match &ctx.report.device_stack {
        Some(d) => d.clone(),
        None => drivebench_system::telemetry::resolve(target).map_err(|e| {
            crate::capture::CaptureError::Devices {
                path: target.to_path_buf(),
                reason: e.to_string(),
            }
        })?,
    };
    let traced = capture::devices_of(&devices, target)?;
    ctx.console.line(&format!(
        "capturing block I/O on {} during {}",
        traced
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        wanted.phases.join(", ")
    ));
    ctx.capture = capture::Capture::start(wanted, traced)?;
    Ok(())
}
