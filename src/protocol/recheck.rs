//! A benchmark's checks again, after the run (`drivebench check RUN_DIR`), against the
//! instances of a finished run that are still reachable: SQLite databases (a run never removes
//! them), private servers left running (`keep_running = true`, at the URL result.json recorded)
//! and external servers (the plan's URL, the password from `password_env`/`password_file`).
//! Every instance is reached before any check runs, so an unreachable one is reported (naming
//! it and why) before minutes of checking are spent on the others; what is checked is the
//! benchmark's (`Benchmark::run_checks`, TPC-C's consistency checks).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::servers::{self, NotConfigured, config_of};
use super::statements_per_client;
use crate::engines::EngineError;
use crate::engines::server::PasswordError;
use crate::engines::server::Server;
use crate::engines::{BoxFuture, Connector, Embedded, EngineVisitor, dispatch};
use crate::results::RunReport;
use crate::scenario::plan::{PlanInstance, Provision};
use crate::workload::benchmark::Benchmark;
use crate::workload::hooks::{CheckError, Instance};
use crate::workload::tpcc::figures::InstanceCheck;

/// How long reaching a server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the checks could not be run again.
#[derive(Debug, thiserror::Error)]
pub enum RecheckError {
    /// The run is a sweep: it has no database instances.
    #[error("a sweep: no database instances to check")]
    NoDatabase,
    /// The run's benchmark (as the run describes it) has no checks.
    #[error("{0}: this benchmark has no consistency checks")]
    NoChecks(String),
    /// `--instance` named an instance the run does not have.
    #[error("no instance {name} in this run (it has: {known})")]
    UnknownInstance { name: String, known: String },
    /// An instance cannot be reached any more.
    #[error("instance {instance} is not reachable: {why}")]
    Unreachable {
        instance: String,
        #[source]
        why: Unreachable,
    },
    /// Reached, but the checks failed to run (a query error, a lost connection).
    #[error(transparent)]
    Failed(#[from] CheckError),
}

/// Why a finished run's instance cannot be reached again.
#[derive(Debug, thiserror::Error)]
pub enum Unreachable {
    #[error(transparent)]
    NotConfigured(#[from] NotConfigured),
    #[error(
        "its database {} is gone ({engine} data stays in the target until removed by hand)",
        .file.display()
    )]
    Gone { file: PathBuf, engine: &'static str },
    #[error("{}: {source}", .file.display())]
    Open { file: PathBuf, source: EngineError },
    #[error(transparent)]
    Password(#[from] PasswordError),
    #[error(
        "drivebench stopped this private server at the end of the run (keep_running = false); \
         run with keep_running = true to check it afterwards"
    )]
    Stopped,
    #[error("{}: {source}", .file.display())]
    PasswordFile {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("result.json records no URL for it (the run never started it)")]
    NoUrl,
    #[error("{url}: {source}")]
    Connect { url: String, source: EngineError },
    #[error("{url}: no answer within {} s", CONNECT_TIMEOUT.as_secs())]
    Timeout { url: String },
}

impl RecheckError {
    /// Input errors (nothing checked) as opposed to failures while checking.
    pub fn is_input(&self) -> bool {
        !matches!(self, RecheckError::Failed(_))
    }
}

/// Run the consistency checks again on the named instances (all when `only` is empty).
pub async fn recheck(r: &RunReport, only: &[String]) -> Result<Vec<InstanceCheck>, RecheckError> {
    let Some(db) = &r.plan.database else {
        return Err(RecheckError::NoDatabase);
    };
    if db.workload.benchmark.checks().is_none() {
        return Err(RecheckError::NoChecks(db.workload.describe()));
    }
    let known: Vec<&str> = db.instances.iter().map(|i| i.name.as_str()).collect();
    if let Some(name) = only.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(RecheckError::UnknownInstance {
            name: name.clone(),
            known: known.join(", "),
        });
    }
    let chosen: Vec<&PlanInstance> = db
        .instances
        .iter()
        .filter(|i| only.is_empty() || only.contains(&i.name))
        .collect();
    // A run drives one engine kind: its instances are all reached the same way.
    let Some(kind) = chosen.first().map(|i| i.engine) else {
        return Ok(Vec::new());
    };
    let benchmark = &db.workload.benchmark;
    dispatch(
        kind,
        Recheck {
            r,
            chosen,
            benchmark,
        },
    )
    .await
}

/// Reach every chosen instance, then run the benchmark's checks on each.
struct Recheck<'a> {
    r: &'a RunReport,
    chosen: Vec<&'a PlanInstance>,
    benchmark: &'a Benchmark,
}

impl<'a> EngineVisitor for Recheck<'a> {
    type Output = BoxFuture<'a, Result<Vec<InstanceCheck>, RecheckError>>;
    fn embedded<E: Embedded>(self) -> Self::Output {
        Box::pin(self.run(|r, inst| Box::pin(reach_embedded::<E>(r, inst))))
    }
    fn server<E: Server>(self) -> Self::Output {
        Box::pin(self.run(|r, inst| Box::pin(reach_server::<E>(r, inst))))
    }
}

impl<'a> Recheck<'a> {
    async fn run<C: Connector>(
        self,
        reach: impl Fn(&'a RunReport, &'a PlanInstance) -> BoxFuture<'a, Result<C, Unreachable>>,
    ) -> Result<Vec<InstanceCheck>, RecheckError> {
        let mut reached = Vec::new();
        for inst in &self.chosen {
            let unreachable = |why: Unreachable| RecheckError::Unreachable {
                instance: inst.name.clone(),
                why,
            };
            reached.push(Arc::new(reach(self.r, inst).await.map_err(unreachable)?));
        }
        let chosen: Vec<Instance> = (self.chosen.iter())
            .map(|i| Instance {
                name: &i.name,
                dialect: i.engine.dialect(),
            })
            .collect();
        Ok(self.benchmark.run_checks(&chosen, &reached).await?)
    }
}

/// Where the run kept an instance's data.
fn data_dir(r: &RunReport, inst: &PlanInstance) -> PathBuf {
    r.instances
        .iter()
        .find(|i| i.name == inst.name)
        .map_or_else(
            || Path::new(&r.plan.target_path).join(&inst.name),
            |i| PathBuf::from(&i.data_path),
        )
}

/// Open an embedded instance's data again, or say why that is no longer possible.
async fn reach_embedded<E: Embedded>(
    r: &RunReport,
    inst: &PlanInstance,
) -> Result<E::Connector, Unreachable> {
    let config = config_of::<E>(inst)?;
    let dir = data_dir(r, inst);
    let file = E::data_file(&dir);
    if !file.is_file() {
        return Err(Unreachable::Gone {
            file,
            engine: E::OPS.title,
        });
    }
    let statements = r.plan.database.as_ref().map_or(0, statements_per_client);
    let c = E::open(&dir, config, statements);
    // Open it once here, so an unreadable file is an unreachable instance.
    if let Err(source) = c.connect().await {
        return Err(Unreachable::Open { file, source });
    }
    Ok(c)
}

/// Connect to a server instance the way the run did, or say why that is no longer possible.
async fn reach_server<E: Server>(
    r: &RunReport,
    inst: &PlanInstance,
) -> Result<E::Connector, Unreachable> {
    let recorded = r.instances.iter().find(|i| i.name == inst.name);
    let (url, password) = match inst.provision {
        Provision::External => (
            inst.url.clone().unwrap_or_default(),
            servers::password(inst)?,
        ),
        Provision::Local if !inst.keep_running => {
            return Err(Unreachable::Stopped);
        }
        Provision::Local => match recorded.and_then(|i| i.url.clone()) {
            // A private server left running may keep its password in its directory.
            Some(url) => match E::password_file(&data_dir(r, inst)) {
                Some(file) => {
                    let pw = match std::fs::read_to_string(&file) {
                        Ok(pw) => pw,
                        Err(source) => return Err(Unreachable::PasswordFile { file, source }),
                    };
                    (url, Some(pw))
                }
                None => (url, None),
            },
            None => {
                return Err(Unreachable::NoUrl);
            }
        },
    };
    let config = config_of::<E>(inst)?;
    let connect = E::connect(config, &url, password.as_deref());
    match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(c)) => Ok(c),
        Ok(Err(source)) => Err(Unreachable::Connect { url, source }),
        Err(_) => Err(Unreachable::Timeout { url }),
    }
}
