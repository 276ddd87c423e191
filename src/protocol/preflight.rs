//! Preflight: what can be known about a plan before anything starts — target, free space,
//! engine caveats, memory. `plan` prints the findings; `run` refuses on errors.

use std::path::Path;

use crate::config::units::format_bytes;
use crate::engine::EngineConfig;
use crate::engine::EngineKind;
pub use crate::report::result::{Finding, Level};
use crate::scenario::Plan;
use crate::scenario::plan::{Provision, SysbenchTest};
use crate::target::{self};

fn finding(level: Level, message: impl Into<String>) -> Finding {
    Finding {
        level,
        message: message.into(),
    }
}

/// Bytes already present in the instances' directories (reused data needs no new space).
pub fn existing_bytes(plan: &Plan) -> u64 {
    let root = Path::new(&plan.target_path);
    plan.instances
        .iter()
        .filter_map(|i| std::fs::read_dir(root.join(&i.name)).ok())
        .flat_map(|rd| rd.filter_map(|e| e.ok()?.metadata().ok()))
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Space the run still needs on the target.
pub fn needed_bytes(plan: &Plan) -> u64 {
    plan.estimates
        .data_bytes_total
        .saturating_sub(existing_bytes(plan))
}

pub fn check(plan: &Plan) -> Vec<Finding> {
    let mut out = Vec::new();
    let path = Path::new(&plan.target_path);
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => out.push(finding(
            Level::Ok,
            format!("target {} exists", plan.target_path),
        )),
        Ok(_) => out.push(finding(
            Level::Error,
            format!("target {} is not a directory", plan.target_path),
        )),
        Err(_) => out.push(finding(
            Level::Note,
            format!("target {} will be created", plan.target_path),
        )),
    }
    let needed = needed_bytes(plan);
    match target::free_space_bytes(path) {
        Ok(free) if free >= needed => out.push(finding(
            Level::Ok,
            format!("free space {} covers the estimated {} of new data", format_bytes(free), format_bytes(needed)),
        )),
        Ok(free) => out.push(finding(
            Level::Error,
            format!("not enough free space: the data needs about {} but only {} is free; `run` would refuse", format_bytes(needed), format_bytes(free)),
        )),
        Err(e) => out.push(finding(Level::Warning, e.to_string())),
    }
    let w = &plan.workload;
    let writes = w.sysbench.as_ref().is_none_or(|o| {
        !matches!(
            o.test,
            SysbenchTest::OltpReadOnly | SysbenchTest::OltpPointSelect
        )
    });
    if plan
        .instances
        .iter()
        .any(|i| i.engine == EngineKind::Sqlite)
        && writes
        && w.clients > 1
    {
        out.push(finding(
            Level::Note,
            format!(
                "SQLite has one writer at a time: the write transactions of the {} clients per instance are serialised, so the figures measure the drive through a single-writer engine",
                w.clients
            ),
        ));
    }
    if plan.time_scale != 1.0 {
        out.push(finding(Level::Note, format!("time scale {}: every duration is multiplied by it; figures are not comparable with a full-length run", plan.time_scale)));
    }
    if let Some(missing) = missing_server(plan) {
        out.push(finding(Level::Error, missing));
    }
    mssql_findings(plan, &mut out);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    out.extend(super::mssql_preflight::local_findings(plan, cpus));
    let host = crate::report::host::host_info();
    server_findings(plan, host.memory_bytes, &mut out);
    open_files(plan, &mut out);
    if let Some(mem) = host.memory_bytes
        && plan.estimates.client_memory_bytes > mem / 2
    {
        out.push(finding(
            Level::Warning,
            format!(
                "client-side memory estimate {} exceeds half of this host's {}",
                format_bytes(plan.estimates.client_memory_bytes),
                format_bytes(mem)
            ),
        ));
    }
    out
}

/// The engine's cache (InnoDB buffer pool, shared_buffers) against the dataset — which regime
/// the run measures — and against host memory.
fn server_findings(plan: &Plan, memory: Option<u64>, out: &mut Vec<Finding>) {
    let pools: Vec<(u64, &str)> = plan
        .instances
        .iter()
        .filter(|i| i.provision == Provision::Local)
        .filter_map(|i| match &i.config {
            EngineConfig::Mysql(c) => Some((c.buffer_pool_bytes, "buffer pool")),
            EngineConfig::Postgres(c) => Some((c.shared_buffers_bytes, "shared_buffers")),
            EngineConfig::Mssql(c) => c.buffer_pool_bytes.map(|b| (b, "max server memory")),
            EngineConfig::Sqlite(_) => None,
        })
        .collect();
    let Some(&(pool, cache)) = pools.first() else {
        return;
    };
    let data = plan.estimates.data_bytes_per_instance;
    let ratio = data as f64 / pool.max(1) as f64;
    let regime = if ratio >= 3.0 {
        format!(
            "I/O-bound: most reads miss the {cache} and reach the drive (the reviews keep about 10x)"
        )
    } else if ratio > 1.0 {
        "partly cached: the drive sees the misses and the writes".to_string()
    } else {
        format!(
            "cache-bound: the data fits in the {cache}, so the drive sees mostly log and page writes"
        )
    };
    out.push(finding(
        Level::Note,
        format!(
            "dataset {} per instance is {ratio:.1}x the {} {cache}: {regime}",
            format_bytes(data),
            format_bytes(pool)
        ),
    ));
    let total: u64 = pools.iter().map(|(p, _)| p).sum();
    if let Some(mem) = memory
        && total > mem
    {
        out.push(finding(
            Level::Error,
            format!(
                "{} instance(s) with {} of {cache} need {} of memory but this host has {}; `run` would refuse",
                pools.len(),
                format_bytes(pool),
                format_bytes(total),
                format_bytes(mem)
            ),
        ));
    }
}

/// A server engine a local instance needs but this host does not have (SQL Server: sqlservr),
/// naming what to install. `plan` and `run` both exit 2 on it.
pub fn missing_server(plan: &Plan) -> Option<String> {
    plan.instances
        .iter()
        .filter(|i| i.provision == Provision::Local)
        .find_map(|i| match &i.config {
            EngineConfig::Mssql(c) => {
                crate::provision::mssql::locate(c.server_bin.as_deref().map(Path::new))
                    .err()
                    .map(|e| format!("instance {}: {e}", i.name))
            }
            _ => None,
        })
}

/// SQL Server: where an external server puts the database, and what was verified where.
fn mssql_findings(plan: &Plan, out: &mut Vec<Finding>) {
    let mut any = false;
    for i in &plan.instances {
        let EngineConfig::Mssql(c) = &i.config else {
            continue;
        };
        any = true;
        if i.provision == Provision::External && c.database_dir.is_none() {
            out.push(finding(
                Level::Warning,
                format!(
                    "instance {}: no database_dir in [instance.config]: if drivebench creates the database, its data and log files go to the server's default directories, which may not be on the drive under test",
                    i.name
                ),
            ));
        }
    }
    if any {
        out.push(finding(
            Level::Note,
            "the SQL Server engine is validated in CI against a TDS emulator (Iridium SQL, not Microsoft SQL Server) and against real SQL Server only when MSSQL_URL is provided to the tests",
        ));
    }
}

/// Connections we hold need file descriptors: the open-files limit must cover them.
fn open_files(plan: &Plan, out: &mut Vec<Finding>) {
    if !plan.instances.iter().any(|i| i.engine.is_server()) {
        return;
    }
    let need = needed_files(plan);
    let lim = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    let (soft, hard) = (
        lim.current.unwrap_or(u64::MAX),
        lim.maximum.unwrap_or(u64::MAX),
    );
    if need > hard {
        out.push(finding(
            Level::Error,
            format!("{need} connections need more open files than the hard limit {hard} (raise it with ulimit -Hn or limits.conf); `run` would refuse"),
        ));
    } else if need > soft {
        out.push(finding(
            Level::Note,
            format!(
                "the open-files limit will be raised from {soft} to {hard} for {need} connections"
            ),
        ));
    }
}

/// File descriptors the client side needs: one per connection plus headroom.
pub fn needed_files(plan: &Plan) -> u64 {
    u64::from(plan.workload.connections()) * plan.instances.len() as u64 + 256
}

/// Raise the soft open-files limit to the hard one when the run needs more than the soft.
pub fn raise_open_files(plan: &Plan) {
    let lim = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    if lim.current.is_some_and(|soft| soft < needed_files(plan)) {
        let raised = rustix::process::Rlimit {
            current: lim.maximum,
            maximum: lim.maximum,
        };
        if let Err(e) = rustix::process::setrlimit(rustix::process::Resource::Nofile, raised) {
            tracing::warn!("cannot raise the open-files limit: {e}");
        }
    }
}
