//! The measured part of a database run: connect every client of every instance as one
//! [`Fleet`], run the phases on it, then the load curve on the same clients, and stop them.
//! Phases and curves are siblings that borrow the fleet in turn.

use std::sync::Arc;

use super::db_curve::CurveRun;
use super::phases::{PhaseHooks, run_phases};
use super::{Ending, RunCtx, Stage};
use crate::clients::Pacing;
use crate::clients::fleet::{Fleet, FleetError, FleetSpec};
use crate::engines::Connector;
use crate::scenario::plan::DbPlan;
use crate::workload::Workload;

/// Connect the fleet, run the phases (with `hooks`), then the plan's curve if any.
pub async fn run_workload<C: Connector, W: Workload>(
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
        rate_controlled: plan.db.curve.is_some(),
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
            live: ctx.live,
        }
        .run()
        .await;
    }
    fleet.stop(matches!(ending, Ending::Failed(_))).await;
    ending
}
