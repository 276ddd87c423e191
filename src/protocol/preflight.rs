//! Preflight: what can be known about a plan before anything starts — target, free space,
//! sweeps that would read never-written blocks,
//! engine caveats (each engine's own through `Engine::preflight`), each external server
//! reached by a login that changes nothing (`Server::reach`, naming host and port when it
//! fails) and what it answers (`Server::probe`), memory. `plan` prints the findings; `run`
//! refuses on errors, with exit 2, before anything starts.

use std::path::Path;

use super::servers::{config_of, password};
use crate::engines::server::{Probe, Server};
use crate::engines::{
    Advice, BoxFuture, Embedded, Engine, EngineVisitor, PreflightInstance, PreflightRun, Severity,
    dispatch,
};
use crate::results::finding::{Finding, Level};
use crate::scenario::Plan;
use crate::scenario::plan::{DatabaseRun, Provision};
use drivebench_core::config::units::{format_bytes, format_ratio};
use drivebench_system::target::{self};

fn finding(level: Level, message: impl Into<String>) -> Finding {
    Finding {
        level,
        message: message.into(),
    }
}

/// Bytes already present in the instances' directories (reused data needs no new space).
pub fn existing_bytes(plan: &Plan) -> u64 {
    let root = Path::new(&plan.target_path);
    plan.instances()
        .iter()
        .filter_map(|i| std::fs::read_dir(root.join(&i.name)).ok())
        .flat_map(|rd| rd.filter_map(|e| e.ok()?.metadata().ok()))
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Space the run's database part still needs on the target.
pub fn needed_bytes(plan: &Plan) -> u64 {
    plan.database.as_ref().map_or(0, |db| {
        db.estimates
            .data_bytes_total
            .saturating_sub(existing_bytes(plan))
    })
}

/// What can be known before anything starts: the target, then the database part.
pub fn check(plan: &Plan) -> Vec<Finding> {
    let mut out = target_findings(plan);
    if plan.time_scale != 1.0 {
        out.push(finding(Level::Note, format!("time scale {}: every duration is multiplied by it; figures are not comparable with a full-length run", plan.time_scale)));
    }
    if let Some(db) = &plan.database {
        database_findings(db, &plan.target_path, &mut out);
    }
    out
}

/// The target directory and its free space against the data to be written.
fn target_findings(plan: &Plan) -> Vec<Finding> {
    let mut out = Vec::new();
    let path = Path::new(&plan.target_path);
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => match rustix::fs::access(path, rustix::fs::Access::WRITE_OK) {
            Ok(()) => out.push(finding(
                Level::Ok,
                format!("target {} exists", plan.target_path),
            )),
            Err(e) => out.push(finding(
                Level::Error,
                format!(
                    "target {} cannot be written ({e}); `run` would refuse",
                    plan.target_path
                ),
            )),
        },
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
        // The data goes on the device's filesystem, made at the start: checked then.
        _ if plan.start_state.is_some() => out.push(finding(
            Level::Note,
            format!("the estimated {} of new data is checked against the device's new filesystem once it is made", format_bytes(needed)),
        )),
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
    if let Err((i, e)) = super::sweeps::check_all_written(plan) {
        out.push(finding(
            Level::Error,
            format!("sweep[{i}]: {e}; `run` would refuse"),
        ));
    }
    out
}

/// The engine, the clients' writes and memory, the open-files limit.
fn database_findings(db: &DatabaseRun, target: &str, out: &mut Vec<Finding>) {
    single_writer(db, out);
    capture_findings(db, target, out);
    cliff_findings(db, target, out);
    for inst in db
        .instances
        .iter()
        .filter(|i| i.provision == Provision::External)
    {
        if let Err(e) = password(inst) {
            out.push(finding(Level::Error, format!("{e}; `run` would refuse")));
        }
    }
    if let Some(missing) = missing_server(db, target) {
        out.push(finding(Level::Error, missing));
    }
    let host = drivebench_system::telemetry::host_info::host_info();
    if let Some(kind) = db.instances.first().map(|i| i.engine) {
        out.extend(dispatch(
            kind,
            EngineFindings {
                db,
                cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
                memory: host.memory_bytes,
            },
        ));
    }
    open_files(db, out);
    if let Some(mem) = host.memory_bytes
        && db.estimates.client_memory_bytes > mem / 2
    {
        out.push(finding(
            Level::Warning,
            format!(
                "client-side memory estimate {} exceeds half of this host's {}",
                format_bytes(db.estimates.client_memory_bytes),
                format_bytes(mem)
            ),
        ));
    }
}

/// A single-writer engine (SQLite) serialises the writes of many clients: say so.
fn single_writer(db: &DatabaseRun, out: &mut Vec<Finding>) {
    let w = &db.workload;
    let writes = w.benchmark.writes();
    if let Some(i) = db.instances.iter().find(|i| i.engine.ops().single_writer)
        && writes
        && w.clients > 1
    {
        out.push(finding(
            Level::Note,
            format!(
                "{} has one writer at a time: the write transactions of the {} clients per instance are serialised, so the figures measure the drive through a single-writer engine",
                i.engine.ops().title,
                w.clients
            ),
        ));
    }
}

/// A report finding of what an engine advises.
fn advised(a: Advice) -> Finding {
    let level = match a.severity {
        Severity::Ok => Level::Ok,
        Severity::Note => Level::Note,
        Severity::Warning => Level::Warning,
        Severity::Error => Level::Error,
    };
    finding(level, a.message)
}

/// What the plan's engine says about its instances, then its cache against the data.
struct EngineFindings<'a> {
    db: &'a DatabaseRun,
    cpus: u64,
    memory: Option<u64>,
}

impl EngineFindings<'_> {
    fn of<E: Engine>(self) -> Vec<Finding> {
        let db = self.db;
        let instances = db
            .instances
            .iter()
            .filter_map(|i| {
                Some(PreflightInstance {
                    name: &i.name,
                    config: E::config(&i.config)?,
                    external: i.provision == Provision::External,
                })
            })
            .collect();
        let run = PreflightRun {
            instances,
            connections: u64::from(db.workload.connections()),
            cpus: self.cpus,
        };
        let mut out: Vec<Finding> = E::preflight(&run).into_iter().map(advised).collect();
        let pools: Vec<(u64, &str)> = run
            .instances
            .iter()
            .filter(|i| !i.external)
            .filter_map(|i| E::cache(i.config))
            .collect();
        cache_findings(db, &pools, self.memory, &mut out);
        out
    }
}

impl EngineVisitor for EngineFindings<'_> {
    type Output = Vec<Finding>;
    fn embedded<E: Embedded>(self) -> Vec<Finding> {
        self.of::<E>()
    }
    fn server<E: Server>(self) -> Vec<Finding> {
        self.of::<E>()
    }
}

/// The engine's cache (InnoDB buffer pool, shared_buffers) of each private instance against
/// the dataset — which regime the run measures — and against host memory.
fn cache_findings(
    db: &DatabaseRun,
    pools: &[(u64, &str)],
    memory: Option<u64>,
    out: &mut Vec<Finding>,
) {
    let Some(&(pool, cache)) = pools.first() else {
        return;
    };
    let data = db.estimates.data_bytes_per_instance;
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
            "dataset {} per instance is {} the {} {cache}: {regime}",
            format_bytes(data),
            format_ratio(ratio),
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
pub fn missing_server(db: &DatabaseRun, target: &str) -> Option<String> {
    struct Missing<'a>(&'a DatabaseRun, &'a str);
    impl EngineVisitor for Missing<'_> {
        type Output = Option<String>;
        fn embedded<E: Embedded>(self) -> Option<String> {
            None
        }
        fn server<E: Server>(self) -> Option<String> {
            self.0
                .instances
                .iter()
                .filter(|i| i.provision == Provision::Local)
                .find_map(|i| {
                    let dir = Path::new(&self.1).join(&i.name);
                    let missing =
                        E::missing(config_of::<E>(i).ok()?).or_else(|| E::unreachable(&dir))?;
                    Some(format!("instance {}: {missing}", i.name))
                })
        }
    }
    dispatch(db.instances.first()?.engine, Missing(db, target))
}

/// What the plan's external servers answer about their limits (`plan` only: it reaches them
/// without changing them; `run` checks the same once connected).
pub async fn external_findings(db: &DatabaseRun) -> Vec<Finding> {
    struct External<'a>(&'a DatabaseRun);
    impl<'a> EngineVisitor for External<'a> {
        type Output = BoxFuture<'a, Vec<Advice>>;
        fn embedded<E: Embedded>(self) -> Self::Output {
            Box::pin(async { Vec::new() })
        }
        fn server<E: Server>(self) -> Self::Output {
            let db = self.0;
            Box::pin(async move {
                let mut out = Vec::new();
                for inst in &db.instances {
                    let Some(config) = E::config(&inst.config) else {
                        continue;
                    };
                    if inst.provision != Provision::External {
                        continue;
                    }
                    let url = inst.url.clone().unwrap_or_default();
                    let password = password(inst);
                    // An unreadable password is an error finding already.
                    let Ok(pw) = &password else { continue };
                    let reached = reach::<E>(&inst.name, config, &url, pw.as_deref()).await;
                    let answered = reached.severity == Severity::Ok;
                    out.push(reached);
                    if !answered {
                        continue;
                    }
                    out.extend(
                        E::probe(Probe {
                            name: &inst.name,
                            config,
                            url: &url,
                            password,
                            connections: u64::from(db.workload.connections()),
                            data_bytes: db.estimates.data_bytes_per_instance,
                        })
                        .await,
                    );
                }
                out
            })
        }
    }
    let Some(first) = db.instances.first() else {
        return Vec::new();
    };
    let advice = dispatch(first.engine, External(db)).await;
    advice.into_iter().map(advised).collect()
}

/// How long the connection probe waits for an external server.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(15);

/// The connection probe: log in to an external instance as the run would, changing nothing.
/// Not reached is an error (`run` refuses before anything starts), naming host and port.
async fn reach<E: Server>(name: &str, config: &E::Config, url: &str, pw: Option<&str>) -> Advice {
    match tokio::time::timeout(PROBE_TIMEOUT, E::reach(config, url, pw)).await {
        Ok(Ok(version)) => Advice::new(Severity::Ok, format!("instance {name}: reached {version}")),
        Ok(Err(e)) => Advice::new(
            Severity::Error,
            format!("instance {name}: {}; `run` would refuse", e.message),
        ),
        Err(_) => Advice::new(
            Severity::Error,
            format!(
                "instance {name}: cannot connect to {}: no answer within {} s; `run` would refuse",
                authority(url),
                PROBE_TIMEOUT.as_secs()
            ),
        ),
    }
}

/// The host and port part of a URL, as written (no user, no password).
fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let hostport = rest.split(['/', '?']).next().unwrap_or(rest);
    hostport.rsplit_once('@').map_or(hostport, |(_, h)| h)
}

/// Connections we hold need file descriptors: the open-files limit must cover them.
fn open_files(db: &DatabaseRun, out: &mut Vec<Finding>) {
    if !db.instances.iter().any(|i| i.engine.is_server()) {
        return;
    }
    let need = needed_files(db);
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
pub fn needed_files(db: &DatabaseRun) -> u64 {
    u64::from(db.workload.connections()) * db.instances.len() as u64 + 256
}

/// Raise the soft open-files limit to the hard one when the run needs more than the soft.
pub fn raise_open_files(db: &DatabaseRun) {
    let lim = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    if lim.current.is_some_and(|soft| soft < needed_files(db)) {
        let raised = rustix::process::Rlimit {
            current: lim.maximum,
            maximum: lim.maximum,
        };
        if let Err(e) = rustix::process::setrlimit(rustix::process::Resource::Nofile, raised) {
            tracing::warn!("cannot raise the open-files limit: {e}");
        }
    }
}

/// A `cliff` phase reads the drive's write counters: the target must be on a block device.
fn cliff_findings(db: &DatabaseRun, target: &str, out: &mut Vec<Finding>) {
    let Some(phase) = db.phases.iter().find(|p| p.rounds.cliff().is_some()) else {
        return;
    };
    let on = |what: String| format!("phase {}: write cliff: {what}", phase.name);
    match drivebench_system::telemetry::resolve(Path::new(target)) {
        Ok(d) if d.stack().is_some() => out.push(finding(
            Level::Ok,
            on("the drive's write counters are read under the target".into()),
        )),
        Ok(_) => out.push(finding(
            Level::Error,
            on(format!(
                "the target {target} has no block device to count the bytes written on; \
                 `run` would refuse"
            )),
        )),
        Err(e) => out.push(finding(
            Level::Error,
            on(format!("{e}; `run` would refuse")),
        )),
    }
}

/// `[capture]`: whether this host can trace the target's drive (root, tracefs, the block
/// tracepoints) and which devices it would trace.
fn capture_findings(db: &DatabaseRun, target: &str, out: &mut Vec<Finding>) {
    let Some(capture) = &db.capture else {
        return;
    };
    if let Err(e) = crate::capture::trace::available() {
        out.push(finding(
            Level::Error,
            format!("capture: {e}; `run` would refuse"),
        ));
        return;
    }
    let path = Path::new(target);
    let devices = drivebench_system::telemetry::resolve(path)
        .map_err(|e| e.to_string())
        .and_then(|d| super::capture::devices_of(&d, path).map_err(|e| e.to_string()));
    match devices {
        Ok(devices) => out.push(finding(
            Level::Ok,
            format!(
                "capture: block requests of {} during {} (tracefs block_rq_issue/complete)",
                devices
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                capture.phases.join(", ")
            ),
        )),
        Err(e) => out.push(finding(
            Level::Error,
            format!("capture: {e}; `run` would refuse"),
        )),
    }
    if db
        .instances
        .iter()
        .any(|i| i.provision == Provision::External)
    {
        out.push(finding(
            Level::Note,
            "capture: an external server's files are not under the target, so its requests \
             are classed only as filesystem or unknown",
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::engines::mssql::preflight::local_findings;

    #[test]
    fn the_review_protocols_connections_against_local_worker_threads() {
        let path = std::path::Path::new("scenarios/storagereview-tpcc-mssql.toml");
        let plan = crate::scenario::load(path, &[], 1.0).unwrap();
        let db = plan.database.expect("a scenario has a database part");
        let connections = u64::from(db.workload.connections());
        let few = local_findings(connections, 8);
        assert_eq!(few.len(), 1, "1,000 connections, 576 workers on 8 CPUs");
        assert!(
            few[0].message.contains("about 576 worker threads"),
            "{few:?}"
        );
        assert!(
            local_findings(connections, 64).is_empty(),
            "1,472 workers on 64 CPUs"
        );
    }
}
