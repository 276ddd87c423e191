//! Server engines (MariaDB, MySQL): start the private instances on the target (or attach to an
//! external server), connect, run the generic protocol, then stop every instance we started —
//! on success, failure and interruption alike — and remove its data unless `keep_data`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::prebuilt::{self, CopyReport};
use super::{Ending, InstanceExtras, RunCtx, run_with};
use crate::engine::EngineConfig;
use crate::engine::mysql::{MysqlConfig, MysqlConnector};
use crate::provision::mariadb::{MariadbInstance, MariadbSettings};
use crate::report::live::Console;
use crate::scenario::Plan;
use crate::scenario::plan::{PlanInstance, Provision};
use crate::workload::sysbench::Sysbench;

/// How long a private server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// Variables recorded with each instance's results.
const KEY_VARIABLES: [&str; 9] = [
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_flush_log_at_trx_commit",
    "innodb_flush_method",
    "innodb_io_capacity",
    "max_connections",
    "max_prepared_stmt_count",
    "table_open_cache",
    "version",
];

/// The password of an external instance, from `password_env` or `password_file`.
pub fn password(inst: &PlanInstance) -> Result<Option<String>, String> {
    if let Some(var) = &inst.password_env {
        return std::env::var(var)
            .map(Some)
            .map_err(|_| format!("instance {}: password_env {var} is not set", inst.name));
    }
    if let Some(file) = &inst.password_file {
        return std::fs::read_to_string(file)
            .map(|s| Some(s.trim_end_matches(['\n', '\r']).to_string()))
            .map_err(|e| format!("instance {}: password_file {file}: {e}", inst.name));
    }
    Ok(None)
}

/// Server settings for a private instance sized from the plan.
fn settings(plan: &Plan, config: &MysqlConfig, statements_per_client: usize) -> MariadbSettings {
    let clients = u64::from(plan.workload.clients);
    let tables = u64::from(plan.workload.sysbench.tables);
    MariadbSettings {
        server_bin: config.server_bin.as_ref().map(PathBuf::from),
        buffer_pool_bytes: config.buffer_pool_bytes,
        log_file_size_bytes: config.log_file_size_bytes,
        flush_log_at_trx_commit: config.flush_log_at_trx_commit,
        flush_method: config.flush_method.clone(),
        io_capacity: config.io_capacity,
        extra: config.extra.clone(),
        // clients + loaders + a few for us
        max_connections: (clients + 64).min(100_000) as u32,
        max_prepared_stmt_count: (clients * statements_per_client as u64 * 11 / 10 + 1024)
            .min(1_048_576),
        table_open_cache: (tables * clients.min(64) + 400).min(524_288) as u32,
    }
}

pub async fn run(plan: &Plan, ctx: &mut RunCtx<'_>) -> Ending {
    let engine = plan.instances[0].engine;
    let statements = Sysbench::new(plan.workload.sysbench.clone(), engine).statements_per_client();
    let target = PathBuf::from(&plan.target_path);
    let mut servers: Vec<(usize, MariadbInstance)> = Vec::new();
    let copies = match copy_prebuilt(plan, statements, ctx).await {
        Ok(c) => c,
        Err(e) => return Ending::Failed(e),
    };
    let mut starts = Vec::new();
    for (i, inst) in plan.instances.iter().enumerate() {
        if inst.provision != Provision::Local {
            continue;
        }
        let EngineConfig::Mysql(config) = &inst.config else {
            return Ending::Failed(format!(
                "instance {}: not a MySQL/MariaDB configuration",
                inst.name
            ));
        };
        let (name, dir, s) = (
            inst.name.clone(),
            target.join(&inst.name),
            settings(plan, config, statements),
        );
        ctx.console
            .line(&format!("starting {name} in {}", dir.display()));
        starts.push((
            i,
            tokio::task::spawn_blocking(move || {
                MariadbInstance::start(&name, &dir, &s, START_TIMEOUT)
            }),
        ));
    }
    let mut failure = None;
    for (i, h) in starts {
        match h.await {
            Ok(Ok(server)) => {
                ctx.console.line(&format!(
                    "{} ready on 127.0.0.1:{} (pid {})",
                    plan.instances[i].name,
                    server.port(),
                    server.pid()
                ));
                servers.push((i, server));
            }
            Ok(Err(e)) => {
                failure.get_or_insert(format!("instance {}: {e}", plan.instances[i].name));
            }
            Err(e) => {
                failure.get_or_insert(format!(
                    "instance {}: start panicked: {e}",
                    plan.instances[i].name
                ));
            }
        }
    }
    let ending = match failure {
        Some(f) => Ending::Failed(f),
        None if ctx.cancel.is_cancelled() => Ending::Interrupted,
        None => connect_and_run(plan, &servers, copies, statements, ctx).await,
    };
    teardown(plan, servers, ctx.console).await;
    ending
}

async fn connect_and_run(
    plan: &Plan,
    servers: &[(usize, MariadbInstance)],
    mut copies: Vec<Option<CopyReport>>,
    statements: usize,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let mut connectors = Vec::new();
    let mut extras = Vec::new();
    for (i, inst) in plan.instances.iter().enumerate() {
        let (url, password) = match servers.iter().find(|(j, _)| *j == i) {
            Some((_, server)) => (server.url(), None),
            None => match password(inst) {
                Ok(p) => (inst.url.clone().unwrap_or_default(), p),
                Err(e) => return Ending::Failed(e),
            },
        };
        let connector = match MysqlConnector::new(&url, password.as_deref(), statements).await {
            Ok(c) => c,
            Err(e) => return Ending::Failed(format!("instance {}: {e}", inst.name)),
        };
        let vars: BTreeMap<String, String> = connector
            .variables(&KEY_VARIABLES)
            .await
            .unwrap_or_default()
            .into_iter()
            .collect();
        if let Err(e) = check_limits(plan, &vars, statements) {
            return Ending::Failed(format!("instance {}: {e}", inst.name));
        }
        extras.push(InstanceExtras {
            variables: vars,
            prebuilt: copies.get_mut(i).and_then(Option::take),
        });
        connectors.push(Arc::new(connector));
    }
    run_with(plan, connectors, extras, ctx).await
}

/// With `prebuilt_dir`: build the pre-built copy if absent, then copy it into every local
/// instance's directory that has no data yet. One entry per instance.
async fn copy_prebuilt(
    plan: &Plan,
    statements: usize,
    ctx: &mut RunCtx<'_>,
) -> Result<Vec<Option<CopyReport>>, String> {
    let mut copies = vec![None; plan.instances.len()];
    let Some((first, dir)) = plan.instances.iter().find_map(|i| {
        i.prebuilt_dir
            .as_ref()
            .filter(|_| i.provision == Provision::Local)
            .map(|d| (i, PathBuf::from(d)))
    }) else {
        return Ok(copies);
    };
    let EngineConfig::Mysql(config) = &first.config else {
        return Ok(copies);
    };
    if !dir.join(prebuilt::key(plan)).join("data").is_dir() {
        ctx.console.line(&format!(
            "building the pre-built database {} (once)",
            dir.join(prebuilt::key(plan)).display()
        ));
    }
    let source =
        prebuilt::build(plan, &dir, &settings(plan, config, statements), ctx.cancel).await?;
    for (i, inst) in plan.instances.iter().enumerate() {
        if inst.provision != Provision::Local || inst.prebuilt_dir.is_none() {
            continue;
        }
        let (src, to) = (
            source.clone(),
            Path::new(&plan.target_path).join(&inst.name),
        );
        let copied = tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&to).map_err(|e| format!("{}: {e}", to.display()))?;
            prebuilt::copy_into(&src, &to)
        })
        .await
        .map_err(|e| e.to_string())??;
        if let Some(c) = &copied {
            ctx.console.line(&format!(
                "{}: copied the pre-built database ({}) in {:.1} s, {}/s",
                inst.name,
                crate::target::format_bytes(c.bytes),
                c.seconds,
                crate::target::format_bytes(c.bytes_per_s as u64)
            ));
        }
        copies[i] = copied;
    }
    Ok(copies)
}

/// The server must allow our connections and prepared statements (sysbench issue #217: a
/// run of 32 clients on 100 tables needs 28,864 statements, above MySQL's default 16,382).
fn check_limits(
    plan: &Plan,
    vars: &BTreeMap<String, String>,
    statements: usize,
) -> Result<(), String> {
    let clients = u64::from(plan.workload.clients);
    let needs = [
        ("max_connections", clients + 10),
        ("max_prepared_stmt_count", clients * statements as u64),
    ];
    for (name, need) in needs {
        if let Some(have) = vars.get(name).and_then(|v| v.parse::<u64>().ok())
            && have < need
        {
            return Err(format!(
                "{name} is {have} but the plan needs {need}; raise it on the server (SET GLOBAL {name} = {need})"
            ));
        }
    }
    Ok(())
}

/// Stop (or leave running) every instance we started; remove data unless `keep_data`.
async fn teardown(plan: &Plan, servers: Vec<(usize, MariadbInstance)>, console: &Console) {
    let mut stops = Vec::new();
    for (i, mut server) in servers {
        let inst = plan.instances[i].clone();
        if inst.keep_running {
            console.always(&format!("{} left running: {}", inst.name, server.detach()));
            continue;
        }
        let data = Path::new(&plan.target_path).join(&inst.name);
        stops.push(tokio::task::spawn_blocking(move || {
            let stopped = server.stop();
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
