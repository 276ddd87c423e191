//! What a TPC-C run adds to the generic protocol: Σ D_NEXT_O_ID read from every instance at
//! the phase boundaries (NOPM, counted by the schema rather than the clients), the isolation
//! level each instance's sessions run at (set as the clients' are, then read back), and the
//! consistency checks of clause 3.3.2 after the last phase, each on a session of its own.

use std::sync::Arc;

use super::phases::PhaseHooks;
use super::{Ending, RunCtx, Stage};
use crate::engines::isolation::{self, Isolation};
use crate::engines::statements::NoStatements;
use crate::engines::{Connector, EngineError, ErrorClass, Rows, Session, StmtId};
use crate::results::phase::PhaseReport;
use crate::results::tpcc::{InstanceCheck, InstanceIsolation, phase_figures};
use crate::scenario::plan::DbPlan;
use crate::scenario::plan::{PlanInstance, PlanPhase};
use crate::workload::tpcc::options::TpccOptions;
use crate::workload::tpcc::{check, schema};

/// One session per instance that reads Σ D_NEXT_O_ID, and the isolation level read back from
/// it.
pub struct NewOrderProbe<C: Connector> {
    sessions: Vec<Option<(C::Session, StmtId)>>,
    rows: Rows,
    isolation: Vec<InstanceIsolation>,
}

impl<C: Connector> NewOrderProbe<C> {
    /// Open the sessions; an instance whose session cannot be opened reads as unknown.
    pub async fn open(plan: DbPlan<'_>, connectors: &[Arc<C>]) -> Self {
        let mut sessions = Vec::new();
        for (c, inst) in connectors.iter().zip(&plan.db.instances) {
            let sql = schema::statements(inst.engine.dialect())
                .map(|st| st.render("sum_next_o_id", &[]))
                .ok();
            let opened = match sql {
                Some(sql) => open(&**c, &sql).await.ok(),
                None => None,
            };
            if opened.is_none() {
                tracing::warn!(
                    "{}: cannot read D_NEXT_O_ID; NOPM will be absent",
                    inst.name
                );
            }
            sessions.push(opened);
        }
        let mut isolation = Vec::new();
        for (s, inst) in sessions.iter_mut().zip(&plan.db.instances) {
            let level = match s {
                Some((session, _)) => session_isolation(session, inst, plan).await,
                None => "unknown (no session)".into(),
            };
            let dialect = inst.engine.dialect();
            isolation.push(InstanceIsolation {
                instance: inst.name.clone(),
                consistent_reads: Isolation::from_read_back(&level)
                    .is_some_and(|l| l.consistent_reads(dialect)),
                level,
            });
        }
        NewOrderProbe {
            sessions,
            rows: Rows::default(),
            isolation,
        }
    }

    /// Σ D_NEXT_O_ID over every instance, or None when one cannot be read.
    pub async fn sample(&mut self) -> Option<u64> {
        let mut total = 0u64;
        for s in &mut self.sessions {
            let (session, stmt) = s.as_mut()?;
            total += read_count(session, *stmt, &mut self.rows).await?;
        }
        Some(total)
    }
}

/// Attempts at reading Σ D_NEXT_O_ID once.
const READ_ATTEMPTS: u64 = 20;

/// Σ D_NEXT_O_ID on one session. The session runs at the clients' isolation level, where even
/// a read-only statement can meet a serialization failure (PostgreSQL's serializable) or a
/// deadlock: those are retried; anything else leaves NOPM absent, saying why.
async fn read_count<S: Session>(s: &mut S, stmt: StmtId, rows: &mut Rows) -> Option<u64> {
    for attempt in 1..=READ_ATTEMPTS {
        match s.query(stmt, &[], rows).await {
            Ok(_) => return u64::try_from(rows.get(0, 0)?.as_i64()?).ok(),
            Err(e) if e.class == ErrorClass::Retryable && attempt < READ_ATTEMPTS => {
                tokio::time::sleep(std::time::Duration::from_millis(5 * attempt)).await;
            }
            Err(e) => {
                tracing::warn!("cannot read D_NEXT_O_ID ({e}); NOPM will be absent");
                return None;
            }
        }
    }
    None
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
        TpccHooks {
            probe: NewOrderProbe::open(plan, connectors).await,
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
                &self.probe.isolation,
            ));
        }
    }
}

/// Set the plan's level on `session` as every client's is set, and read the level back; what
/// went wrong, when something did, in place of the level.
async fn session_isolation<S: Session>(
    session: &mut S,
    inst: &PlanInstance,
    plan: DbPlan<'_>,
) -> String {
    let answer = async {
        let st = isolation::statements(inst.engine.dialect())
            .map_err(|e| EngineError::fatal("DRIVEBENCH", e.to_string()))?;
        if let Some(level) = plan.db.workload.benchmark.tpcc().and_then(|t| t.isolation) {
            isolation::set(session, &st, level).await?;
        }
        isolation::read_back(session, &st).await
    };
    match answer.await {
        Ok(level) => level,
        Err(e) => {
            tracing::warn!("{}: cannot read the isolation level back: {e}", inst.name);
            format!("unknown ({e})")
        }
    }
}

async fn open<C: Connector>(c: &C, sql: &str) -> Result<(C::Session, StmtId), EngineError> {
    let mut s = c.connect().await?;
    let id = s.prepare(sql).await?;
    Ok((s, id))
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
    match run_checks(plan, connectors, warehouses).await {
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

/// Why the consistency checks could not run on an instance.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Statements(#[from] NoStatements),
    #[error("instance {instance}: consistency checks: {source}")]
    Engine {
        instance: String,
        #[source]
        source: EngineError,
    },
}

/// Run the consistency checks on every instance, one after another.
pub async fn run_checks<C: Connector>(
    plan: DbPlan<'_>,
    connectors: &[Arc<C>],
    warehouses: u32,
) -> Result<Vec<InstanceCheck>, CheckError> {
    let mut out = Vec::new();
    for (c, inst) in connectors.iter().zip(&plan.db.instances) {
        out.extend(check_instance(&**c, inst, warehouses).await?);
    }
    Ok(out)
}

/// Run the consistency checks on one instance, on a session of their own.
pub async fn check_instance<C: Connector>(
    c: &C,
    inst: &PlanInstance,
    warehouses: u32,
) -> Result<Vec<InstanceCheck>, CheckError> {
    let st = schema::checks(inst.engine.dialect())?;
    let fail = |source: EngineError| CheckError::Engine {
        instance: inst.name.clone(),
        source,
    };
    let mut s = c.connect().await.map_err(fail)?;
    let results = check::run_checks(&mut s, &st, warehouses)
        .await
        .map_err(fail)?;
    Ok(results
        .into_iter()
        .map(|r| InstanceCheck {
            instance: inst.name.clone(),
            name: r.name,
            passed: r.passed,
            detail: r.detail,
        })
        .collect())
}
