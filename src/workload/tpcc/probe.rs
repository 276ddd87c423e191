//! What a TPC-C run reads from its instances beside the clients' transactions: Σ D_NEXT_O_ID
//! at the phase boundaries (NOPM, counted by the schema rather than the clients), the isolation
//! level each instance's sessions run at (set as the clients' are, then read back), and the
//! consistency checks of clause 3.3.2, each instance on a session of its own.

use std::sync::Arc;

use super::figures::{InstanceCheck, InstanceIsolation};
use super::{check, schema};
use crate::engines::isolation::{self, Isolation};
use crate::engines::{Connector, EngineError, ErrorClass, Rows, Session, StmtId};
use crate::workload::hooks::{CheckError, Instance};

/// One session per instance that reads Σ D_NEXT_O_ID, and the isolation level read back from
/// it.
pub struct NewOrderProbe<C: Connector> {
    sessions: Vec<Option<(C::Session, StmtId)>>,
    rows: Rows,
    isolation: Vec<InstanceIsolation>,
}

impl<C: Connector> NewOrderProbe<C> {
    /// Open the sessions, each set to `level` as the clients' are; an instance whose session
    /// cannot be opened reads as unknown.
    pub async fn open(
        instances: &[Instance<'_>],
        connectors: &[Arc<C>],
        level: Option<Isolation>,
    ) -> Self {
        let mut sessions = Vec::new();
        for (c, inst) in connectors.iter().zip(instances) {
            let sql = schema::statements(inst.dialect)
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
        for (s, inst) in sessions.iter_mut().zip(instances) {
            let read_back = match s {
                Some((session, _)) => session_isolation(session, *inst, level).await,
                None => "unknown (no session)".into(),
            };
            isolation.push(InstanceIsolation {
                instance: inst.name.to_string(),
                consistent_reads: Isolation::from_read_back(&read_back)
                    .is_some_and(|l| l.consistent_reads(inst.dialect)),
                level: read_back,
            });
        }
        NewOrderProbe {
            sessions,
            rows: Rows::default(),
            isolation,
        }
    }

    /// The isolation level each instance's sessions run at, as read back.
    pub fn isolation(&self) -> &[InstanceIsolation] {
        &self.isolation
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

/// Set `level` on `session` as every client's is set, and read the level back; what went
/// wrong, when something did, in place of the level.
async fn session_isolation<S: Session>(
    session: &mut S,
    inst: Instance<'_>,
    level: Option<Isolation>,
) -> String {
    let answer = async {
        let st = isolation::statements(inst.dialect)
            .map_err(|e| EngineError::fatal("DRIVEBENCH", e.to_string()))?;
        if let Some(level) = level {
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

/// Run the consistency checks on every instance, one after another.
pub async fn run_checks<C: Connector>(
    instances: &[Instance<'_>],
    connectors: &[Arc<C>],
    warehouses: u32,
) -> Result<Vec<InstanceCheck>, CheckError> {
    let mut out = Vec::new();
    for (c, inst) in connectors.iter().zip(instances) {
        out.extend(check_instance(&**c, *inst, warehouses).await?);
    }
    Ok(out)
}

/// Run the consistency checks on one instance, on a session of their own.
pub async fn check_instance<C: Connector>(
    c: &C,
    inst: Instance<'_>,
    warehouses: u32,
) -> Result<Vec<InstanceCheck>, CheckError> {
    let st = schema::checks(inst.dialect)?;
    let fail = |source: EngineError| CheckError::Engine {
        instance: inst.name.to_string(),
        source,
    };
    let mut s = c.connect().await.map_err(fail)?;
    let results = check::run_checks(&mut s, &st, warehouses)
        .await
        .map_err(fail)?;
    Ok(results
        .into_iter()
        .map(|r| InstanceCheck {
            instance: inst.name.to_string(),
            name: r.name,
            passed: r.passed,
            detail: r.detail,
        })
        .collect())
}
