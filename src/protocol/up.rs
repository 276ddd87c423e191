//! `drivebench up`: a scenario's private server instances started on the target, loaded and
//! checked as `run` would, then left running for clients on other hosts (`provision =
//! "external"` there); `drivebench down` stops them. With `--listen ADDR` the servers also
//! listen on ADDR and every login from the network needs a generated password.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::servers::{NotConfigured, config_of, demand};
use super::{LoadFailure, load_instance};
use crate::console::Console;
use crate::engines::server::owner;
use crate::engines::server::{Instance, LimitError, ProvisionError, Server};
use crate::engines::{BoxFuture, Connector, Embedded, EngineError, EngineKind, EngineVisitor};
use crate::engines::{Session, dispatch};
use crate::scenario::plan::{DbPlan, Provision};
use drivebench_system::target::leftovers::{Kind, create_marked_dir};

/// The record of what `up` left running, in its directory.
pub const UP_FILE: &str = "up.json";
/// The password of network logins (`--listen`), mode 0600.
pub const PASSWORD_FILE: &str = "password";

/// What `up` left running, as DIR/up.json records it (never a password).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UpRecord {
    pub scenario: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// The address the servers listen on besides 127.0.0.1 (`--listen`).
    pub listen: Option<IpAddr>,
    pub instances: Vec<UpInstance>,
}

/// One server left running.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UpInstance {
    pub name: String,
    pub engine: EngineKind,
    /// What clients connect to: on the `--listen` address with its login, else 127.0.0.1.
    pub url: String,
    pub pid: u32,
    /// Its directory on the target.
    pub data_path: String,
}

/// What `up` refuses before anything starts.
#[derive(Debug, thiserror::Error)]
pub enum UpRefused {
    #[error("instance {0}: drivebench up starts private servers; {1}")]
    NotPrivate(String, &'static str),
    #[error("--listen: {0}'s private servers listen on 127.0.0.1 only in this drivebench")]
    NoListen(&'static str),
}

/// Why `up` did not leave the servers running (it stopped those it had started).
#[derive(Debug, thiserror::Error)]
pub enum UpError {
    #[error(transparent)]
    Refused(#[from] UpRefused),
    #[error(transparent)]
    NotConfigured(#[from] NotConfigured),
    #[error("{0}: cannot create its directory: {1}")]
    Dir(String, std::io::Error),
    #[error("{0}: {1}")]
    Start(String, ProvisionError),
    #[error("{0}: {1}")]
    Engine(String, EngineError),
    #[error("{0}: {1}")]
    Limits(String, LimitError),
    #[error("{0}: load: {1}")]
    Load(String, LoadFailure),
    #[error("{0}: its start panicked: {1}")]
    Panicked(String, String),
    #[error("interrupted")]
    Interrupted,
}

/// What `up` refuses before anything starts: an instance that is not a private server, and
/// `--listen` (`listen`) on an engine whose servers cannot listen for other hosts.
pub fn refuse(plan: DbPlan<'_>, listen: bool) -> Result<(), UpRefused> {
    if let Some(i) = (plan.db.instances.iter()).find(|i| i.provision != Provision::Local) {
        return Err(UpRefused::NotPrivate(
            i.name.clone(),
            "this one is external",
        ));
    }
    match plan.db.instances.first() {
        None => Ok(()),
        Some(i) => dispatch(
            i.engine,
            Refuse {
                name: &i.name,
                listen,
            },
        ),
    }
}

/// What `up` refuses of an engine kind.
struct Refuse<'a> {
    name: &'a str,
    listen: bool,
}

impl EngineVisitor for Refuse<'_> {
    type Output = Result<(), UpRefused>;
    fn embedded<E: Embedded>(self) -> Self::Output {
        Err(UpRefused::NotPrivate(
            self.name.to_string(),
            "an embedded engine has no server",
        ))
    }
    fn server<E: Server>(self) -> Self::Output {
        match self.listen && !E::LISTENS {
            true => Err(UpRefused::NoListen(E::OPS.title)),
            false => Ok(()),
        }
    }
}

/// What `up` was asked for.
pub struct UpRequest<'a> {
    pub plan: DbPlan<'a>,
    /// With `--listen`: the address and the password of every login from the network.
    pub listen: Option<(IpAddr, &'a str)>,
    pub console: &'a Console,
    pub cancel: &'a CancellationToken,
}

/// Start, load and check the plan's private instances (as [`refuse`] allows), and leave them
/// running.
pub async fn up(req: UpRequest<'_>) -> Result<Vec<UpInstance>, UpError> {
    refuse(req.plan, req.listen.is_some())?;
    super::start_client_threads(req.plan);
    let Some(kind) = req.plan.db.instances.first().map(|i| i.engine) else {
        return Ok(Vec::new());
    };
    dispatch(kind, Up(req)).await
}

struct Up<'a>(UpRequest<'a>);

impl<'a> EngineVisitor for Up<'a> {
    type Output = BoxFuture<'a, Result<Vec<UpInstance>, UpError>>;
    fn embedded<E: Embedded>(self) -> Self::Output {
        let name = self.0.plan.db.instances[0].name.clone();
        Box::pin(async move {
            Err(UpRefused::NotPrivate(name, "an embedded engine has no server").into())
        })
    }
    fn server<E: Server>(self) -> Self::Output {
        Box::pin(up_kind::<E>(self.0))
    }
}

async fn up_kind<K: Server>(req: UpRequest<'_>) -> Result<Vec<UpInstance>, UpError> {
    let mut started = Vec::new();
    let result = match start_all::<K>(&req, &mut started).await {
        Ok(()) => set_up::<K>(&req, &started).await,
        Err(e) => Err(e),
    };
    let target = PathBuf::from(req.plan.target_path());
    for (i, server) in started {
        let dir = target.join(&req.plan.db.instances[i].name);
        if result.is_ok() {
            owner::release(&dir);
            K::detach(server);
        } else {
            let mut s = server;
            let _ = tokio::task::spawn_blocking(move || K::stop(&mut s)).await;
            owner::release(&dir);
        }
    }
    result
}

/// Start every instance (in parallel), each claimed by this process until it is handed over.
async fn start_all<K: Server>(
    req: &UpRequest<'_>,
    started: &mut Vec<(usize, Instance<K>)>,
) -> Result<(), UpError> {
    let demand = demand(req.plan);
    let target = PathBuf::from(req.plan.target_path());
    let mut starts = Vec::new();
    for (i, inst) in req.plan.db.instances.iter().enumerate() {
        let config = config_of::<K>(inst)?.clone();
        let (name, dir) = (inst.name.clone(), target.join(&inst.name));
        create_marked_dir(&dir, Kind::Instance).map_err(|e| UpError::Dir(name.clone(), e))?;
        req.console
            .line(&format!("starting {name} in {}", dir.display()));
        let listen = req.listen.map(|(addr, _)| addr);
        starts.push((
            i,
            tokio::task::spawn_blocking(move || match listen {
                Some(addr) => K::start_listening(&name, &config, &demand, &dir, addr),
                None => K::start(&name, &config, &demand, &dir),
            }),
        ));
    }
    let mut failure = None;
    for (i, h) in starts {
        let name = &req.plan.db.instances[i].name;
        match h.await {
            Ok(Ok(server)) => {
                owner::claim(&target.join(name), K::pid(&server));
                started.push((i, server));
            }
            Ok(Err(e)) => {
                failure.get_or_insert(UpError::Start(name.clone(), e));
            }
            Err(e) => {
                failure.get_or_insert(UpError::Panicked(name.clone(), e.to_string()));
            }
        }
    }
    failure.map_or(Ok(()), Err)
}

/// Connect to each started instance, check its limits, load it, open it to the network.
async fn set_up<K: Server>(
    req: &UpRequest<'_>,
    started: &[(usize, Instance<K>)],
) -> Result<Vec<UpInstance>, UpError> {
    let demand = demand(req.plan);
    let mut out = Vec::new();
    for (i, server) in started {
        let inst = &req.plan.db.instances[*i];
        let name = || inst.name.clone();
        let config = config_of::<K>(inst)?;
        let local = K::url(server);
        let connector = K::connect(config, &local, K::password(server).as_deref())
            .await
            .map_err(|e| UpError::Engine(name(), e))?;
        let vars = K::variables(&connector).await;
        K::check_limits(&demand, &vars).map_err(|e| UpError::Limits(name(), e))?;
        let connector = Arc::new(connector);
        let load = load_instance(
            req.plan,
            connector.clone(),
            *i,
            req.plan.db.workload.prepare,
            Arc::new(AtomicU64::new(0)),
            req.cancel.clone(),
        )
        .await;
        match load {
            Ok(r) => req
                .console
                .line(&format!("{}: {} rows ready", inst.name, r.rows)),
            Err(LoadFailure::Interrupted) => return Err(UpError::Interrupted),
            Err(e) => return Err(UpError::Load(name(), e)),
        }
        let url = match req.listen {
            None => local,
            Some((addr, password)) => {
                let login = K::network_login(server, addr, password);
                let mut s = connector
                    .connect()
                    .await
                    .map_err(|e| UpError::Engine(name(), e))?;
                for sql in &login.statements {
                    s.execute_text(sql).await.map_err(|e| {
                        UpError::Engine(name(), e.during("create the network login"))
                    })?;
                }
                login.url
            }
        };
        out.push(UpInstance {
            name: inst.name.clone(),
            engine: inst.engine,
            url,
            pid: K::pid(server),
            data_path: Path::new(req.plan.target_path())
                .join(&inst.name)
                .display()
                .to_string(),
        });
    }
    Ok(out)
}

/// Stop what `up` left running (`drivebench down`): each instance whose pid file still names
/// a live server. Returns, per instance, its name and what was done.
pub fn down(record: &UpRecord) -> Vec<(String, DownOutcome)> {
    record
        .instances
        .iter()
        .map(|i| {
            let outcome = match i.engine.ops().pid_file {
                None => DownOutcome::NotRunning,
                Some(pid_file) => match owner::stop_running(Path::new(&i.data_path), pid_file) {
                    None => DownOutcome::NotRunning,
                    Some((pid, killed)) => DownOutcome::Stopped { pid, killed },
                },
            };
            (i.name.clone(), outcome)
        })
        .collect()
}

/// What `down` did to one instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownOutcome {
    /// Stopped (killed when it did not stop within the grace).
    Stopped { pid: u32, killed: bool },
    /// Its pid file names no live process: already stopped.
    NotRunning,
}
