//! The TPC-C consistency checks again, after the run (`drivebench check RUN_DIR`), against the
//! instances of a finished run that are still reachable: SQLite databases (a run never removes
//! them), private servers left running (`keep_running = true`, at the URL result.json recorded)
//! and external servers (the plan's URL, the password from `password_env`/`password_file`).
//! Every instance is reached before any check runs, so an unreachable one is reported (naming
//! it and why) before minutes of checking are spent on the others.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::servers::{self, MssqlServer, MysqlServer, PostgresServer, ServerKind};
use super::statements_per_client;
use super::tpcc::check_instance;
use crate::engine::EngineKind;
use crate::engine::sqlite::{DB_FILE, SqliteConnector};
use crate::engine::{Connector, EngineConfig};
use crate::report::RunReport;
use crate::report::tpcc::InstanceCheck;
use crate::scenario::plan::{PlanInstance, Provision};

/// How long reaching a server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the checks could not be run again.
#[derive(Debug, thiserror::Error)]
pub enum RecheckError {
    /// The run is not a TPC-C run: it has no consistency checks.
    #[error("not a TPC-C run ({0}); the consistency checks belong to TPC-C")]
    NotTpcc(String),
    /// `--instance` named an instance the run does not have.
    #[error("no instance {name} in this run (it has: {known})")]
    UnknownInstance { name: String, known: String },
    /// An instance cannot be reached any more.
    #[error("instance {instance} is not reachable: {why}")]
    Unreachable { instance: String, why: String },
    /// Reached, but the checks failed to run (a query error, a lost connection).
    #[error("{0}")]
    Failed(String),
}

impl RecheckError {
    /// Input errors (nothing checked) as opposed to failures while checking.
    pub fn is_input(&self) -> bool {
        !matches!(self, RecheckError::Failed(_))
    }
}

/// A reached instance, ready to be checked.
enum Reached {
    Sqlite(SqliteConnector),
    Mysql(<MysqlServer as ServerKind>::Connector),
    Postgres(<PostgresServer as ServerKind>::Connector),
    Mssql(<MssqlServer as ServerKind>::Connector),
}

/// Run the consistency checks again on the named instances (all when `only` is empty).
pub async fn recheck(r: &RunReport, only: &[String]) -> Result<Vec<InstanceCheck>, RecheckError> {
    let Some(tpcc) = &r.plan.workload.tpcc else {
        return Err(RecheckError::NotTpcc(r.plan.workload.describe()));
    };
    let known: Vec<&str> = r.plan.instances.iter().map(|i| i.name.as_str()).collect();
    if let Some(name) = only.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(RecheckError::UnknownInstance {
            name: name.clone(),
            known: known.join(", "),
        });
    }
    let chosen: Vec<&PlanInstance> = r
        .plan
        .instances
        .iter()
        .filter(|i| only.is_empty() || only.contains(&i.name))
        .collect();
    let mut reached = Vec::new();
    for inst in &chosen {
        let unreachable = |why: String| RecheckError::Unreachable {
            instance: inst.name.clone(),
            why,
        };
        reached.push(reach(r, inst).await.map_err(unreachable)?);
    }
    let mut out = Vec::new();
    for (inst, c) in chosen.into_iter().zip(&reached) {
        let checks = match c {
            Reached::Sqlite(c) => check_instance(c, inst, tpcc.warehouses).await,
            Reached::Mysql(c) => check_instance(c, inst, tpcc.warehouses).await,
            Reached::Postgres(c) => check_instance(c, inst, tpcc.warehouses).await,
            Reached::Mssql(c) => check_instance(c, inst, tpcc.warehouses).await,
        };
        out.extend(checks.map_err(RecheckError::Failed)?);
    }
    Ok(out)
}

/// Connect to one instance the way the run did, or say why that is no longer possible.
async fn reach(r: &RunReport, inst: &PlanInstance) -> Result<Reached, String> {
    let statements = statements_per_client(&r.plan);
    let recorded = r.instances.iter().find(|i| i.name == inst.name);
    if inst.engine == EngineKind::Sqlite {
        let EngineConfig::Sqlite(config) = &inst.config else {
            return Err("its plan has no SQLite configuration".into());
        };
        let dir = recorded.map_or_else(
            || Path::new(&r.plan.target_path).join(&inst.name),
            |i| PathBuf::from(&i.data_path),
        );
        let file = dir.join(DB_FILE);
        if !file.is_file() {
            return Err(format!(
                "its database {} is gone (SQLite data stays in the target until removed by hand)",
                file.display()
            ));
        }
        let c = SqliteConnector::new(&dir, config.clone(), statements);
        // Open it once here, so an unreadable file is an unreachable instance.
        c.connect()
            .await
            .map_err(|e| format!("{}: {e}", file.display()))?;
        return Ok(Reached::Sqlite(c));
    }
    let (url, password) = match inst.provision {
        Provision::External => (
            inst.url.clone().unwrap_or_default(),
            servers::password(inst)?,
        ),
        Provision::Local if !inst.keep_running => {
            return Err(
                "drivebench stopped this private server at the end of the run (keep_running = false); \
                 run with keep_running = true to check it afterwards"
                    .into(),
            );
        }
        Provision::Local => match recorded.and_then(|i| i.url.clone()) {
            // A private SQL Server left running keeps its random sa password in its directory.
            Some(url) if inst.engine == EngineKind::Mssql => {
                let file = recorded
                    .map_or_else(
                        || Path::new(&r.plan.target_path).join(&inst.name),
                        |i| PathBuf::from(&i.data_path),
                    )
                    .join(crate::provision::mssql::PASSWORD_FILE);
                let pw = std::fs::read_to_string(&file)
                    .map_err(|e| format!("{}: {e}", file.display()))?;
                (url, Some(pw))
            }
            Some(url) => (url, None),
            None => {
                return Err("result.json records no URL for it (the run never started it)".into());
            }
        },
    };
    let pw = password.as_deref();
    let connect = async {
        let plan = &r.plan;
        match inst.engine {
            EngineKind::Postgres => PostgresServer::connect(plan, &url, pw)
                .await
                .map(Reached::Postgres),
            EngineKind::Mssql => MssqlServer::connect(plan, &url, pw)
                .await
                .map(Reached::Mssql),
            _ => MysqlServer::connect(plan, &url, pw)
                .await
                .map(Reached::Mysql),
        }
    };
    match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(c)) => Ok(c),
        Ok(Err(e)) => Err(format!("{url}: {e}")),
        Err(_) => Err(format!(
            "{url}: no answer within {} s",
            CONNECT_TIMEOUT.as_secs()
        )),
    }
}
