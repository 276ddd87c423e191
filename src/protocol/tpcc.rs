//! What a TPC-C run adds to the generic protocol, from `workload::tpcc::probe`: Σ D_NEXT_O_ID
//! at the phase boundaries turned into each recorded phase's TPC-C figures, and the
//! consistency checks of clause 3.3.2 after the last phase, kept in the report.

use std::sync::Arc;

use super::phases::PhaseHooks;
use super::{Ending, RunCtx, Stage};
use crate::engines::Connector;
use crate::results::phase::PhaseReport;
use crate::scenario::plan::{DbPlan, PlanPhase};
use crate::workload::tpcc::figures::phase_figures;
use crate::workload::tpcc::options::TpccOptions;
use crate::workload::tpcc::probe::{self, Instance, NewOrderProbe};

/// The plan's instances as the probe and the checks reach them.
pub fn instances<'a>(plan: DbPlan<'a>) -> Vec<Instance<'a>> {
    plan.db
        .instances
        .iter()
        .map(|i| Instance {
            name: &i.name,
            dialect: i.engine.dialect(),
        })
        .collect()
}

/// TPC-C's phase hooks: Σ D_NEXT_O_ID read before the clock starts and at every phase's end
/// (the schema's count of New-Orders), and each recorded phase's TPC-C figures from it.
pub struct TpccHooks<'a, C: Connector> {
    probe: NewOrderProbe<C>,
    plan: DbPlan<'a>,
    options: &'a TpccOptions,
    /// The count at the last boundary (None: unknown).
    count: Option<u64>,
}

impl<'a, C: Connector> TpccHooks<'a, C> {
    /// Open the probe's sessions on every instance.
    pub async fn open(plan: DbPlan<'a>, connectors: &[Arc<C>], options: &'a TpccOptions) -> Self {
        let probe = NewOrderProbe::open(&instances(plan), connectors, options.isolation).await;
        TpccHooks {
            probe,
            plan,
            options,
            count: None,
        }
    }
}

impl<C: Connector> PhaseHooks for TpccHooks<'_, C> {
    async fn before_start(&mut self) {
        self.count = self.probe.sample().await;
    }

    async fn phase_closed(&mut self, phase: &PlanPhase, closed: &mut PhaseReport) {
        let now = self.probe.sample().await;
        let new_orders = now
            .zip(self.count)
            .map(|(end, start)| end.saturating_sub(start));
        self.count = now;
        if phase.record {
            closed.tpcc = Some(phase_figures(
                &closed.summary,
                self.options,
                self.plan.db.workload.clients,
                self.plan.db.workload.rate,
                self.plan.db.instances.len(),
                new_orders,
                self.probe.isolation(),
            ));
        }
    }
}

/// After the phases: the consistency checks on every instance, failures printed, kept in
/// the report.
pub async fn checks_after_phases<C: Connector>(
    plan: DbPlan<'_>,
    connectors: &[Arc<C>],
    warehouses: u32,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    ctx.console.line("consistency checks (TPC-C 3.3.2)");
    match probe::run_checks(&instances(plan), connectors, warehouses).await {
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
