//! Turns a `ScenarioFile` into a `Plan`: defaults, bounds, units, time scaling and estimates.
//! Every failure names the key it is about; positions are added by the caller.

use std::collections::HashSet;
use std::time::Duration;

use super::bounds::{positive_duration, scale_ms};
use super::file::{InstanceSection, ScenarioFile};
use super::plan::*;
use crate::engines::{EngineConfig, EngineKind};
use crate::workload::benchmark::{Benchmark, Resolved};
use crate::workload::section::WorkloadSection;
use drivebench_core::config::bounds::int_in;
use drivebench_core::config::error::{Invalid, KeyPath};

/// Shortest report interval after time scaling.
pub const MIN_REPORT_INTERVAL_MS: u64 = 100;

/// Longest scenario name: the run directory is named `<name>-<UTC stamp>`, and a file name
/// has at most 255 bytes.
pub const MAX_NAME_LEN: usize = 200;

/// The scenario's name, trimmed: letters, digits, '.', '_' or '-', at most [`MAX_NAME_LEN`].
fn check_name<'a>(name: &'a str, root: &KeyPath) -> Result<&'a str, Invalid> {
    let trimmed = name.trim();
    if trimmed.is_empty()
        || !trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return Err(Invalid::new(
            root.key("name"),
            format!("must be a non-empty name of letters, digits, '.', '_' or '-', got {name:?}"),
        ));
    }
    if trimmed.len() > MAX_NAME_LEN {
        return Err(Invalid::new(
            root.key("name"),
            format!(
                "must be at most {MAX_NAME_LEN} characters (it names the run directory), got {}",
                trimmed.len()
            ),
        ));
    }
    Ok(trimmed)
}

/// `seed`: at least 0; 1 when absent.
fn check_seed(seed: Option<i64>, root: &KeyPath) -> Result<u64, Invalid> {
    match seed {
        Some(s) if s < 0 => Err(Invalid::new(
            root.key("seed"),
            format!("must be at least 0, got {s}"),
        )),
        Some(s) => Ok(s as u64),
        None => Ok(1),
    }
}

/// `target.path`, `./drivebench-target` when absent; never empty.
fn target_path(file: &ScenarioFile, root: &KeyPath) -> Result<String, Invalid> {
    let path = file
        .target
        .path
        .clone()
        .unwrap_or_else(|| "./drivebench-target".to_string());
    if path.trim().is_empty() {
        return Err(Invalid::new(
            root.key("target").key("path"),
            "must not be empty",
        ));
    }
    Ok(path)
}

pub fn resolve(
    file: &ScenarioFile,
    source: &str,
    time_scale: f64,
    overrides: &[String],
) -> Result<Plan, Invalid> {
    let root = KeyPath::root();
    let name = check_name(&file.name, &root)?;
    let interval = match &file.report_interval {
        Some(text) => positive_duration(text, root.key("report_interval"))?,
        None => Duration::from_secs(10),
    };
    let report_interval_ms =
        scale_ms(interval, time_scale, &root.key("report_interval"))?.max(MIN_REPORT_INTERVAL_MS);
    let seed = check_seed(file.seed, &root)?;
    let target_path = target_path(file, &root)?;
    let start_state = super::start_state::resolve(&file.target, &root.key("target"))?;
    let instances = resolve_instances(&file.instance, &root.key("instance"))?;
    let workload = resolve_workload(&file.workload, &root.key("workload"))?;
    let phases = super::phases::resolve(
        &file.phase,
        &root.key("phase"),
        time_scale,
        report_interval_ms,
    )?;
    let sweeps = super::sweep::resolve_all(&file.sweep, &root.key("sweep"), time_scale)?;
    let curve = super::curve::resolve(&file.curve, &root.key("curve"), time_scale)?;
    let phase_names: Vec<(&str, bool)> =
        phases.iter().map(|p| (p.name.as_str(), p.record)).collect();
    let capture =
        super::capture::resolve(file.capture.as_ref(), &phase_names, &root.key("capture"))?;
    check_something_recorded(&workload, &phases, curve.is_some(), &root)?;
    check_phase_loads(&workload, &phases, &root.key("phase"))?;

    check_engines_run_workload(&instances, &workload, &root)?;
    let estimates = estimate(&instances, &workload, &phases);
    Ok(Plan {
        name: name.to_string(),
        scenario_file: source.to_string(),
        overrides: overrides.to_vec(),
        time_scale,
        seed,
        report_interval_ms,
        target_path,
        start_state,
        database: Some(DatabaseRun {
            instances,
            workload,
            phases,
            curve,
            estimates,
            capture,
        }),
        sweeps,
    })
}

/// A curve records its points (and needs a workload that lets it set the rate); without one, a
/// recorded phase is the only result.
fn check_something_recorded(
    workload: &PlanWorkload,
    phases: &[PlanPhase],
    has_curve: bool,
    root: &KeyPath,
) -> Result<(), Invalid> {
    if has_curve {
        return workload.benchmark.check_curve(&root.key("curve"));
    }
    if !phases.iter().any(|p| p.record) {
        return Err(Invalid::new(
            root.key("phase"),
            "no phase has record = true and there is no [[curve]], so nothing would be reported",
        ));
    }
    Ok(())
}

/// A phase's `rate` needs clients the rate can pace (not a self-paced workload); a `cliff`
/// phase needs a fixed load: its own rate, the workload's, or the workload's own pacing.
fn check_phase_loads(
    workload: &PlanWorkload,
    phases: &[PlanPhase],
    key: &KeyPath,
) -> Result<(), Invalid> {
    let self_paced = workload.benchmark.self_paced();
    for (i, p) in phases.iter().enumerate() {
        if p.rate.is_some() && self_paced {
            return Err(Invalid::new(
                key.index(i).key("rate"),
                "the workload paces itself (TPC-C spec pacing: keying and think times); \
                 use workload.pacing = \"none\" for a phase rate",
            ));
        }
        let fixed = p.rate.is_some() || workload.rate.is_some() || self_paced;
        if p.rounds.cliff().is_some() && !fixed {
            return Err(Invalid::new(
                key.index(i).key("cliff"),
                "needs a fixed load: set rate on the phase (or workload.rate)",
            ));
        }
    }
    Ok(())
}

/// Workload options that the instances' engines cannot run: what the benchmark's options ask of
/// an engine, a shared connection pool on an embedded engine.
fn check_engines_run_workload(
    instances: &[PlanInstance],
    workload: &PlanWorkload,
    root: &KeyPath,
) -> Result<(), Invalid> {
    let engines: Vec<EngineKind> = instances.iter().map(|i| i.engine).collect();
    workload
        .benchmark
        .check_engines(&engines, &root.key("workload"))?;
    if workload.pooled() && instances.iter().any(|i| !i.engine.is_server()) {
        return Err(Invalid::new(
            root.key("workload").key("connections"),
            "SQLite clients each need their own connection (an embedded engine, one thread per client); remove connections",
        ));
    }
    Ok(())
}

/// Data on disk, rows, phase time and client memory the plan needs.
fn estimate(
    instances: &[PlanInstance],
    workload: &PlanWorkload,
    phases: &[PlanPhase],
) -> Estimates {
    let rows_per_instance = workload.benchmark.loaded_rows();
    let data_bytes_per_instance = instances
        .iter()
        .map(|i| workload.benchmark.data_bytes(i.engine.ops()))
        .max()
        .unwrap_or(0);
    let shards = u64::from(crate::metrics::shard_count(workload.clients));
    // Per connection: driver buffers and prepared statements; per client: its task, RNG and
    // inputs.
    let client_memory_bytes = instances.len() as u64
        * (shards * crate::metrics::SHARD_BYTES_ESTIMATE
            + u64::from(workload.connections()) * 256 * 1024
            + u64::from(workload.clients) * 8 * 1024);
    let phases_total_ms = phases
        .iter()
        .fold(0u64, |sum, p| sum.saturating_add(p.duration_ms));
    Estimates {
        data_bytes_per_instance,
        data_bytes_total: data_bytes_per_instance * instances.len() as u64,
        rows_per_instance,
        phases_total_ms,
        client_memory_bytes,
    }
}

fn resolve_instances(
    sections: &[InstanceSection],
    key: &KeyPath,
) -> Result<Vec<PlanInstance>, Invalid> {
    if sections.is_empty() {
        return Err(Invalid::new(
            key.clone(),
            "at least one [[instance]] is needed",
        ));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        let k = key.index(i);
        if let Some(first) = sections.first()
            && first.engine != s.engine
        {
            return Err(Invalid::new(
                k.key("engine"),
                format!(
                    "a run drives one engine kind; this scenario mixes {} and {} (use one scenario per engine)",
                    first.engine.as_str(),
                    s.engine.as_str()
                ),
            ));
        }
        if !seen.insert(s.engine) {
            return Err(Invalid::new(
                k.key("engine"),
                format!(
                    "engine {:?} appears in two [[instance]] tables; use count = N for identical instances",
                    s.engine.as_str()
                ),
            ));
        }
        let count = int_in(s.count, 1, 1, 64, k.key("count"))?;
        let provision = s.provision.unwrap_or(Provision::Local);
        let config = EngineConfig::from_table(s.engine, s.config.as_ref(), &k.key("config"))?;
        check_provision(s, provision, count, &k)?;
        for n in 1..=count {
            out.push(PlanInstance {
                name: format!("{}-{n}", s.engine.as_str()),
                engine: s.engine,
                index: out.len(),
                provision,
                config: config.clone(),
                url: s.url.clone(),
                password_env: s.password_env.clone(),
                password_file: s.password_file.clone(),
                keep_running: s.keep_running.unwrap_or(false),
                keep_data: s.keep_data.unwrap_or(false),
                prebuilt_dir: s.prebuilt_dir.clone(),
            });
        }
    }
    Ok(out)
}

/// Which keys go with which engine and provisioning mode.
fn check_provision(
    s: &InstanceSection,
    provision: Provision,
    count: u32,
    k: &KeyPath,
) -> Result<(), Invalid> {
    let engine = s.engine.as_str();
    let server_only = [
        ("url", s.url.is_some()),
        ("password_env", s.password_env.is_some()),
        ("password_file", s.password_file.is_some()),
        ("keep_running", s.keep_running.is_some()),
        ("keep_data", s.keep_data.is_some()),
        ("prebuilt_dir", s.prebuilt_dir.is_some()),
    ];
    if !s.engine.is_server() {
        if provision == Provision::External {
            return Err(Invalid::new(
                k.key("provision"),
                "sqlite is embedded: its instances are always local",
            ));
        }
        return match server_only.iter().find(|(_, set)| *set) {
            Some((name, _)) => Err(server_only_key(name, k)),
            None => Ok(()),
        };
    }
    if let Some(why) = s.engine.ops().no_prebuilt
        && s.prebuilt_dir.is_some()
    {
        return Err(Invalid::new(k.key("prebuilt_dir"), why));
    }
    match provision {
        Provision::Local => {
            for name in ["url", "password_env", "password_file"] {
                if server_only.iter().any(|(n, set)| *n == name && *set) {
                    return Err(Invalid::new(
                        k.key(name),
                        format!(
                            "only for provision = \"external\"; a local {engine} instance is started by drivebench"
                        ),
                    ));
                }
            }
        }
        Provision::External => {
            let scheme = s.engine.ops().url_scheme;
            let Some(url) = &s.url else {
                return Err(Invalid::new(
                    k.key("url"),
                    format!(
                        "provision = \"external\" needs url = \"{scheme}://user@host:port/db\""
                    ),
                ));
            };
            check_url(url, scheme, &k.key("url"))?;
            (s.engine.ops().check_url)(url)
                .map_err(|m| Invalid::new(k.key("url"), m.to_string()))?;
            if count > 1 {
                return Err(Invalid::new(
                    k.key("count"),
                    "an external server is one instance; use count = 1",
                ));
            }
            for name in ["keep_running", "keep_data", "prebuilt_dir"] {
                if server_only.iter().any(|(n, set)| *n == name && *set) {
                    return Err(Invalid::new(k.key(name), "only for provision = \"local\""));
                }
            }
        }
    }
    Ok(())
}

/// A server-only key on an embedded engine's instance: which engines take it (from the engine
/// list, so it never goes stale) and, for keep_data, where the data goes anyway.
fn server_only_key(name: &str, k: &KeyPath) -> Invalid {
    let servers: Vec<&str> = EngineKind::ALL
        .iter()
        .filter(|e| e.is_server())
        .map(|e| e.as_str())
        .collect();
    let kept = if name == "keep_data" {
        "; an embedded engine's data always stays in the target (`drivebench clean` lists and removes it)"
    } else {
        ""
    };
    Invalid::new(
        k.key(name),
        format!(
            "only server engines ({}) take this key{kept}",
            servers.join(", ")
        ),
    )
}

/// `<scheme>://user@host:port/db`: right scheme, no password inside.
fn check_url(url: &str, scheme: &str, key: &KeyPath) -> Result<(), Invalid> {
    let rest = url.strip_prefix(&format!("{scheme}://")).or_else(|| {
        (scheme == "postgres")
            .then(|| url.strip_prefix("postgresql://"))
            .flatten()
    });
    let Some(rest) = rest else {
        return Err(Invalid::new(
            key.clone(),
            format!("expected {scheme}://user@host:port/db, got {url:?}"),
        ));
    };
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    if let Some((userinfo, _)) = authority.rsplit_once('@')
        && userinfo.contains(':')
    {
        return Err(Invalid::new(
            key.clone(),
            "must not contain a password; use password_env or password_file",
        ));
    }
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.is_empty() {
        return Err(Invalid::new(key.clone(), format!("no host in {url:?}")));
    }
    Ok(())
}

/// Most client threads a plan may ask for.
const MAX_CLIENT_THREADS: i64 = 1024;

fn resolve_workload(w: &WorkloadSection, key: &KeyPath) -> Result<PlanWorkload, Invalid> {
    if let Some(rate) = w.rate
        && !(rate.is_finite() && rate > 0.0)
    {
        return Err(Invalid::new(
            key.key("rate"),
            format!("must be a positive number of transactions per second, got {rate}"),
        ));
    }
    let max_attempts = int_in(w.max_attempts, 100, 1, 1_000_000, key.key("max_attempts"))?;
    let stall_timeout_ms = match &w.stall_timeout {
        None => PlanWorkload::DEFAULT_STALL_TIMEOUT_MS,
        Some(text) => positive_duration(text, key.key("stall_timeout"))?.as_millis() as u64,
    };
    let Resolved {
        clients,
        benchmark,
        prepare,
    } = Benchmark::resolve(w, key)?;
    let connections = int_in(
        w.connections,
        clients.into(),
        1,
        clients.into(),
        key.key("connections"),
    )?;
    let client_threads = int_in(
        w.client_threads,
        i64::try_from(crate::engines::runner::default_client_threads()).unwrap_or(1),
        1,
        MAX_CLIENT_THREADS,
        key.key("client_threads"),
    )?;
    Ok(PlanWorkload {
        benchmark,
        clients,
        connections,
        client_threads: Some(client_threads),
        rate: w.rate,
        prepare,
        max_attempts,
        stall_timeout_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_threads_default_to_one_per_core() {
        let toml = |extra: &str| {
            format!(
                "name = \"x\"\n[[instance]]\nengine = \"mariadb\"\n[workload]\nbenchmark = \"sysbench\"\n\
                 test = \"oltp_read_write\"\nclients = 8\n{extra}[[phase]]\nname = \"a\"\nduration = \"1s\"\n"
            )
        };
        let threads = |text: &str| {
            let plan = super::super::load_str(text, "x.toml", &[], 1.0).unwrap();
            plan.database.unwrap().workload.client_threads
        };
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert_eq!(threads(&toml("")), Some(u32::try_from(cores).unwrap()));
        assert_eq!(threads(&toml("client_threads = 3\n")), Some(3));
        let e = super::super::load_str(&toml("client_threads = 2000\n"), "x.toml", &[], 1.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("workload.client_threads: must be at most 1024"),
            "{e}"
        );
    }

    #[test]
    fn external_urls_carry_no_password() {
        let key = KeyPath::root().key("url");
        for ok in [
            "mysql://root@127.0.0.1:3306/sbtest",
            "mysql://bench@db1/sbtest",
            "mysql://db1:3307",
        ] {
            assert!(check_url(ok, "mysql", &key).is_ok(), "{ok}");
        }
        let cases = [
            (
                "mysql://root:secret@db1/sbtest",
                "must not contain a password",
            ),
            ("postgres://db1/x", "expected mysql://"),
            ("mysql:///sbtest", "no host"),
            ("postgres://db1/sbtest", "expected mysql://"),
        ];
        for (url, msg) in cases {
            assert!(
                check_url(url, "mysql", &key)
                    .unwrap_err()
                    .message
                    .contains(msg),
                "{url}"
            );
        }
    }
}
