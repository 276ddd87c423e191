//! Runs of a server engine (MariaDB/MySQL, PostgreSQL, SQL Server): start the private
//! instances on the target (or attach to an external server), connect, run the generic protocol,
//! then stop every instance we started — on success, failure and interruption alike — and
//! remove its data unless `keep_data`. What differs per engine sits behind
//! `engines::server::Server`; this lifecycle is written once, reading the plan for it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio_util::sync::CancellationToken;

use super::prebuilt;
use super::{Ending, InstanceExtras, LoadFailure, Reason, RunCtx, RunError, Stage, run_with};
use crate::console::Console;
use crate::engines::server::owner::{self, Orphan};
use crate::engines::server::{
    Demand, Instance, PasswordError, ProvisionError, Server, external_password,
};
use crate::engines::{Engine, EngineError};
use crate::results::run::CopyReport;
use crate::scenario::plan::DbPlan;
use crate::scenario::plan::{PlanInstance, Provision};
use crate::workload::section::PrepareMode;
use drivebench_system::target::leftovers::{Kind, create_marked_dir};

/// The password of an external instance, from `password_env` or `password_file`.
pub fn password(inst: &PlanInstance) -> Result<Option<String>, PasswordError> {
    external_password(
        &inst.name,
        inst.password_env.as_deref(),
        inst.password_file.as_deref(),
    )
}

/// What the plan asks of each server instance.
pub fn demand(plan: DbPlan<'_>) -> Demand {
    Demand {
        connections: plan.db.workload.connections(),
        tables: plan.db.workload.benchmark.tables(),
        statements_per_client: super::statements_per_client(plan.db),
    }
}

/// An instance whose settings are another engine's than the one the run drives.
#[derive(Debug, Clone, thiserror::Error)]
#[error("instance {instance}: not a {engine} configuration")]
pub struct NotConfigured {
    pub instance: String,
    pub engine: &'static str,
}

/// `inst`'s settings for engine `E`, or why it has none.
pub(crate) fn config_of<E: Engine>(inst: &PlanInstance) -> Result<&E::Config, NotConfigured> {
    E::config(&inst.config).ok_or_else(|| NotConfigured {
        instance: inst.name.clone(),
        engine: E::OPS.title,
    })
}

/// Why the pre-built database could not be built or copied into an instance.
#[derive(Debug, thiserror::Error)]
pub enum PrebuiltError {
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Copying its data into an instance's directory failed.
    #[error(transparent)]
    Copy(#[from] super::prebuilt::CopyError),
    #[error("{0}")]
    Task(#[from] tokio::task::JoinError),
    #[error(transparent)]
    NotConfigured(#[from] NotConfigured),
    #[error("pre-built load: {0}")]
    Start(#[source] ProvisionError),
    #[error("{0}")]
    Connect(#[from] EngineError),
    #[error("{0}")]
    Load(#[from] LoadFailure),
    #[error("pre-built server did not stop cleanly: {0}")]
    Stop(#[source] ProvisionError),
}

impl PrebuiltError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| PrebuiltError::Io { path, source }
    }
}

/// Run the plan on engine `E`'s servers.
pub(crate) async fn run_kind<K: Server>(plan: DbPlan<'_>, ctx: &mut RunCtx<'_>) -> Ending {
    let demand = demand(plan);
    let target = PathBuf::from(&plan.target_path());
    let mut servers: Vec<(usize, Instance<K>)> = Vec::new();
    let copies = match copy_prebuilt::<K>(plan, &demand, ctx).await {
        Ok(c) => c,
        Err(e) => return Ending::failed(Stage::Setup, e),
    };
    let mut starts = Vec::new();
    for (i, inst) in plan.db.instances.iter().enumerate() {
        if inst.provision != Provision::Local {
            continue;
        }
        let config = match config_of::<K>(inst) {
            Ok(c) => c.clone(),
            Err(e) => return Ending::failed(Stage::Setup, e),
        };
        let (name, dir) = (inst.name.clone(), target.join(&inst.name));
        if let Err(e) = create_marked_dir(&dir, Kind::Instance) {
            let cause = Reason(format!("cannot create {}: {e}", dir.display()));
            return Ending::failed_on(Stage::Setup, &name, cause);
        }
        if let Err(e) = stop_orphan::<K>(&name, &dir, ctx.console).await {
            return Ending::failed_on(Stage::Setup, &name, e);
        }
        ctx.console
            .line(&format!("starting {name} in {}", dir.display()));
        starts.push((
            i,
            tokio::task::spawn_blocking(move || K::start(&name, &config, &demand, &dir)),
        ));
    }
    let mut failure = None;
    for (i, h) in starts {
        let name = &plan.db.instances[i].name;
        match h.await {
            Ok(Ok(server)) => {
                ctx.console
                    .line(&format!("{name} ready on {}", K::describe(&server)));
                owner::claim(&target.join(name), K::pid(&server));
                servers.push((i, server));
            }
            Ok(Err(e)) => {
                failure.get_or_insert(RunError::new(Stage::Setup, e).on(name));
            }
            Err(e) => {
                let cause = Reason(format!("start panicked: {e}"));
                failure.get_or_insert(RunError::new(Stage::Setup, cause).on(name));
            }
        }
    }
    let ending = match failure {
        Some(f) => Ending::Failed(f),
        None if ctx.cancel.is_cancelled() => Ending::Interrupted,
        None => connect_and_run::<K>(plan, &servers, copies, &demand, ctx).await,
    };
    // Before the teardown frees the instances' space.
    let ending = ending.noting_full_target(&target);
    teardown::<K>(plan, servers, ctx.console).await;
    ending
}

/// Stop the server a killed drivebench left running in `dir` (found by the engine's pid file
/// and the owner file), saying so; a server another live run owns is refused.
async fn stop_orphan<K: Server>(name: &str, dir: &Path, console: &Console) -> Result<(), RunError> {
    let Some(pid_file) = K::OPS.pid_file else {
        return Ok(());
    };
    let d = dir.to_path_buf();
    let reaped = tokio::task::spawn_blocking(move || owner::reap_orphan(&d, pid_file)).await;
    match reaped {
        Ok(Ok(None)) => Ok(()),
        Ok(Ok(Some(Orphan {
            server_pid,
            owner_pid,
            killed,
        }))) => {
            console.always(&format!(
                "{name}: stopped the server (pid {server_pid}) that drivebench pid {owner_pid}                  left running in {} when it ended without stopping it{}",
                dir.display(),
                if killed { " (killed: it did not stop in time)" } else { "" }
            ));
            Ok(())
        }
        Ok(Err(e)) => Err(RunError::new(Stage::Setup, e)),
        Err(e) => Err(RunError::new(
            Stage::Setup,
            Reason(format!("stopping an orphaned server panicked: {e}")),
        )),
    }
}

async fn connect_and_run<K: Server>(
    plan: DbPlan<'_>,
    servers: &[(usize, Instance<K>)],
    mut copies: Vec<Option<CopyReport>>,
    demand: &Demand,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let mut connectors = Vec::new();
    let mut extras = Vec::new();
    for (i, inst) in plan.db.instances.iter().enumerate() {
        let private = servers.iter().find(|(j, _)| *j == i).map(|(_, s)| s);
        let (url, password) = match private {
            Some(server) => (K::url(server), K::password(server)),
            None => match password(inst) {
                Ok(p) => (inst.url.clone().unwrap_or_default(), p),
                Err(e) => return Ending::failed(Stage::Setup, e),
            },
        };
        let config = match config_of::<K>(inst) {
            Ok(c) => c,
            Err(e) => return Ending::failed(Stage::Setup, e),
        };
        let connector = match K::connect(config, &url, password.as_deref()).await {
            Ok(c) => c,
            Err(e) => return Ending::failed_on(Stage::Setup, &inst.name, e),
        };
        let vars = K::variables(&connector).await;
        if let Err(e) = K::check_limits(demand, &vars) {
            return Ending::failed_on(Stage::Setup, &inst.name, e);
        }
        extras.push(InstanceExtras {
            variables: vars,
            prebuilt: copies.get_mut(i).and_then(Option::take),
            url: Some(url),
            pid: private.map(K::pid),
        });
        connectors.push(Arc::new(connector));
    }
    run_with(plan, connectors, extras, ctx).await
}

/// With `prebuilt_dir`: build the pre-built copy if absent, then copy it into every local
/// instance's directory that has no data yet. One entry per instance.
async fn copy_prebuilt<K: Server>(
    plan: DbPlan<'_>,
    demand: &Demand,
    ctx: &mut RunCtx<'_>,
) -> Result<Vec<Option<CopyReport>>, PrebuiltError> {
    let mut copies = vec![None; plan.db.instances.len()];
    let Some((first, dir)) = plan.db.instances.iter().find_map(|i| {
        i.prebuilt_dir
            .as_ref()
            .filter(|_| i.provision == Provision::Local)
            .map(|d| (i, PathBuf::from(d)))
    }) else {
        return Ok(copies);
    };
    if !dir.join(prebuilt::key(plan)).join("data").is_dir() {
        ctx.console.line(&format!(
            "building the pre-built database {} (once)",
            dir.join(prebuilt::key(plan)).display()
        ));
    }
    let source = build_prebuilt::<K>(plan, first, &dir, demand, ctx.cancel).await?;
    for (i, inst) in plan.db.instances.iter().enumerate() {
        if inst.provision != Provision::Local || inst.prebuilt_dir.is_none() {
            continue;
        }
        let (src, to) = (
            source.clone(),
            Path::new(&plan.target_path()).join(&inst.name),
        );
        let copied = tokio::task::spawn_blocking(move || {
            create_marked_dir(&to, Kind::Instance).map_err(PrebuiltError::io(&to))?;
            prebuilt::copy_into(&src, &to).map_err(PrebuiltError::Copy)
        })
        .await??;
        if let Some(c) = &copied {
            ctx.console.line(&format!(
                "{}: copied the pre-built database ({}) in {:.1} s, {}/s",
                inst.name,
                drivebench_core::config::units::format_bytes(c.bytes),
                c.seconds,
                drivebench_core::config::units::format_bytes(c.bytes_per_s as u64)
            ));
        }
        copies[i] = copied;
    }
    Ok(copies)
}

/// Stop (or leave running) every instance we started; remove data unless `keep_data`.
async fn teardown<K: Server>(
    plan: DbPlan<'_>,
    servers: Vec<(usize, Instance<K>)>,
    console: &Console,
) {
    let mut stops = Vec::new();
    for (i, mut server) in servers {
        let inst = plan.db.instances[i].clone();
        let data = Path::new(&plan.target_path()).join(&inst.name);
        if inst.keep_running {
            owner::release(&data);
            console.always(&format!(
                "{} left running: {}",
                inst.name,
                K::detach(server)
            ));
            continue;
        }
        stops.push(tokio::task::spawn_blocking(move || {
            let stopped = K::stop(&mut server);
            if stopped.is_ok() {
                owner::release(&data);
            }
            let removed = if inst.keep_data || stopped.is_err() {
                Ok(())
            } else {
                std::fs::remove_dir_all(&data)
            };
            (inst.name, stopped, removed)
        }));
    }
    for h in stops {
        match h.await {
            Ok((name, Err(e), _)) => console.always(&format!("warning: {name}: {e}")),
            Ok((name, Ok(()), Err(e))) => {
                console.always(&format!("warning: {name}: cannot remove its data: {e}"))
            }
            Ok((name, Ok(()), Ok(()))) => tracing::info!("{name} stopped"),
            Err(e) => console.always(&format!("warning: stopping a server panicked: {e}")),
        }
    }
}

/// Load once into `<dir>/<key>/` (through a temporary directory, renamed when complete).
async fn build_prebuilt<K: Server>(
    plan: DbPlan<'_>,
    inst: &PlanInstance,
    dir: &Path,
    demand: &Demand,
    cancel: &CancellationToken,
) -> Result<PathBuf, PrebuiltError> {
    let done = dir.join(prebuilt::key(plan));
    if done.join("data").is_dir() {
        return Ok(done);
    }
    let building = dir.join(format!("{}.building", prebuilt::key(plan)));
    let _ = std::fs::remove_dir_all(&building);
    create_marked_dir(&building, Kind::Prebuilt).map_err(PrebuiltError::io(&building))?;
    let config = config_of::<K>(inst)?.clone();
    let (name, demand, b) = (inst.name.clone(), *demand, building.clone());
    let mut server = tokio::task::spawn_blocking(move || K::start(&name, &config, &demand, &b))
        .await?
        .map_err(PrebuiltError::Start)?;
    let index = plan
        .db
        .instances
        .iter()
        .position(|i| i.name == inst.name)
        .unwrap_or(0);
    let loaded = async {
        let connector = K::connect(
            config_of::<K>(inst)?,
            &K::url(&server),
            K::password(&server).as_deref(),
        )
        .await?;
        super::load_instance(
            plan,
            Arc::new(connector),
            index,
            PrepareMode::Always,
            Arc::new(AtomicU64::new(0)),
            cancel.clone(),
        )
        .await
        .map_err(PrebuiltError::Load)
    }
    .await;
    let stopped = tokio::task::spawn_blocking(move || K::stop(&mut server)).await?;
    let report = loaded?;
    stopped.map_err(PrebuiltError::Stop)?;
    std::fs::rename(&building, &done).map_err(PrebuiltError::io(&done))?;
    tracing::info!(
        "pre-built {} loaded: {} rows at {:.0} rows/s",
        done.display(),
        report.rows,
        report.rows_per_s
    );
    Ok(done)
}
