//! The measured part of a database run: the benchmark's workload and phase hooks opened
//! (`Benchmark::drive`), every client of every instance connected as one [`Fleet`], the phases
//! run on it, then the load curve on the same clients, the clients stopped, and the
//! benchmark's checks run. Phases and curves are siblings that borrow the fleet in turn.

use std::sync::Arc;

use super::db_curve::CurveRun;
use super::phases::run_phases;
use super::{Ending, RunCtx, Stage};
use crate::clients::Pacing;
use crate::clients::fleet::{Fleet, FleetError, FleetSpec};
use crate::engines::Connector;
use crate::scenario::plan::DbPlan;
use crate::workload::Workload;
use crate::workload::hooks::{Drive, Instance, Instances, PhaseHooks};

/// The plan's instances as a benchmark's hooks and checks reach them.
fn instances<'a>(plan: DbPlan<'a>) -> Vec<Instance<'a>> {
    plan.db
        .instances
        .iter()
        .map(|i| Instance {
            name: &i.name,
            dialect: i.engine.dialect(),
        })
        .collect()
}

/// The benchmark's workload on the loaded instances: the phases and the curve, then, when
/// they completed, its checks.
pub async fn measure<C: Connector>(
    plan: DbPlan<'_>,
    connectors: &[Arc<C>],
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let on = Instances {
        instances: instances(plan),
        connectors,
        clients: plan.db.workload.clients,
        rate: plan.db.workload.rate,
        seed: plan.seed(),
    };
    let benchmark = &plan.db.workload.benchmark;
    let driven = benchmark
        .drive(
            &on,
            Measure {
                plan,
                ctx: &mut *ctx,
                connectors,
            },
        )
        .await;
    match driven {
        Ok(Ending::Complete) => checks_after_phases(plan, &on, ctx).await,
        Ok(ending) => ending,
        Err(e) => Ending::failed(Stage::Setup, e),
    }
}

/// The phases and the curve, once the benchmark has opened its workload and hooks.
struct Measure<'a, 'r, C: Connector> {
    plan: DbPlan<'a>,
    ctx: &'a mut RunCtx<'r>,
    connectors: &'a [Arc<C>],
}

impl<C: Connector> Drive for Measure<'_, '_, C> {
    type Output = Ending;
    async fn drive<W: Workload, H: PhaseHooks>(self, workload: Arc<W>, hooks: &mut H) -> Ending {
        run_workload(self.plan, self.connectors, workload, hooks, self.ctx).await
    }
}

/// After the phases: the benchmark's checks on every instance (when it has some), failures
/// printed, kept in the report.
async fn checks_after_phases<C: Connector>(
    plan: DbPlan<'_>,
    on: &Instances<'_, C>,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let benchmark = &plan.db.workload.benchmark;
    let Some(title) = benchmark.checks() else {
        return Ending::Complete;
    };
    ctx.console.line(title);
    match benchmark.run_checks(&on.instances, on.connectors).await {
        Ok(checks) => {
            for c in checks.iter().filter(|c| !c.passed) {
                ctx.console.always(&format!(
                    "check failed on {}: {}: {}",
                    c.instance, c.name, c.detail
                ));
            }
            ctx.report.checks = checks;
            Ending::Complete
        }
        Err(e) => Ending::failed(Stage::Checks, e),
    }
}

/// Connect the fleet, run the phases (with `hooks`), then the plan's curve if any.
async fn run_workload<C: Connector, W: Workload>(
    plan: DbPlan<'_>,
    connectors: &[Arc<C>],
    workload: Arc<W>,
    hooks: &mut impl PhaseHooks,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let kinds = workload.kinds();
    let clients = plan.db.workload.clients;
    let spec = FleetSpec {
        instances: plan.db.instances.iter().map(|i| i.name.clone()).collect(),
        clients,
        pooled_connections: plan
            .db
            .workload
            .pooled()
            .then(|| plan.db.workload.connections()),
        seed: plan.seed(),
        pacing: Pacing::for_workload(&*workload, plan.db.workload.rate, clients),
        max_attempts: plan.db.workload.max_attempts,
        rate_controlled: plan.db.curve.is_some() || plan.db.phases.iter().any(|p| p.rate.is_some()),
    };
    if let Some(n) = spec.pooled_connections {
        for name in &spec.instances {
            ctx.console.line(&format!(
                "{name}: opening {n} connections shared by {clients} clients"
            ));
        }
    }
    let mut fleet = match Fleet::connect(&spec, connectors, workload, kinds.len(), ctx.cancel).await
    {
        Ok(f) => f,
        Err(FleetError::Interrupted) => return Ending::Interrupted,
        Err(e) => return Ending::failed(Stage::Setup, e),
    };
    let mut ending = run_phases(plan, &mut fleet, kinds, hooks, ctx).await;
    if let Some(failed) = super::capture::finish(plan, ctx)
        && ending.is_complete()
    {
        ending = failed;
    }
    if let (Ending::Complete, Some(curve)) = (&ending, &plan.db.curve) {
        ending = CurveRun {
            plan,
            curve,
            fleet: &mut fleet,
            kinds,
            report: ctx.report,
            dir: ctx.dir,
            console: ctx.console,
            cancel: ctx.cancel,
            telemetry: &mut ctx.telemetry,
            engine_io: ctx.engine_io.as_mut(),
            live: ctx.live,
        }
        .run()
        .await;
    }
    fleet.stop(matches!(ending, Ending::Failed(_))).await;
    ending
}
