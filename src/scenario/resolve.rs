//! Turns a `ScenarioFile` into a `Plan`: defaults, bounds, units, time scaling and estimates.
//! Every failure names the key it is about; positions are added by the caller.

use std::collections::HashSet;
use std::time::Duration;

use super::bounds::{MAX_CLIENTS, int_in, positive_duration, scale_ms};
use super::file::{InstanceSection, ScenarioFile, WorkloadSection};
use super::plan::*;
use crate::engines::isolation;
use crate::engines::{EngineConfig, EngineKind};
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
        return workload.check_curve(&root.key("curve"));
    }
    if !phases.iter().any(|p| p.record) {
        return Err(Invalid::new(
            root.key("phase"),
            "no phase has record = true and there is no [[curve]], so nothing would be reported",
        ));
    }
    Ok(())
}

/// The engines that run TPC-C as stored procedures, for a message: "a", "b" or "c".
fn engines_with_procedures() -> String {
    let names: Vec<String> = EngineKind::ALL
        .iter()
        .filter(|k| k.ops().stored_procedures)
        .map(|k| format!("\"{}\"", k.as_str()))
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "none".to_string(),
    }
}

/// Workload options that the instances' engines cannot run: TPC-C as stored procedures, an
/// isolation level the engine does not offer, a shared connection pool on an embedded engine.
fn check_engines_run_workload(
    instances: &[PlanInstance],
    workload: &PlanWorkload,
    root: &KeyPath,
) -> Result<(), Invalid> {
    if workload.tpcc().is_some_and(|t| t.procedures)
        && let Some(i) = instances.iter().find(|i| !i.engine.ops().stored_procedures)
    {
        return Err(Invalid::new(
            root.key("workload").key("procedures"),
            format!(
                "{} runs TPC-C as client-side statements only; stored procedures are for engine = {}",
                i.engine.as_str(),
                engines_with_procedures()
            ),
        ));
    }
    if let Some(level) = workload.tpcc().and_then(|t| t.isolation)
        && let Some(i) = instances
            .iter()
            .find(|i| !isolation::levels(i.engine.dialect()).contains(&level))
    {
        let offered: Vec<&str> = isolation::levels(i.engine.dialect())
            .iter()
            .map(|l| l.name())
            .collect();
        return Err(Invalid::new(
            root.key("workload").key("isolation"),
            format!(
                "isolation = \"{}\" is not available on engine = \"{}\", which offers {}",
                level.name(),
                i.engine.as_str(),
                offered.join(", ")
            ),
        ));
    }
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
        .map(|i| match &workload.benchmark {
            Benchmark::Sysbench { sysbench: o } => {
                (i.engine.ops().estimate_sysbench_bytes)(o.loaded_rows(), o.create_secondary)
            }
            Benchmark::Tpcc { tpcc: t } => (i.engine.ops().estimate_tpcc_bytes)(t.warehouses),
        })
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
    let mut prepare = w.prepare.unwrap_or(PrepareMode::Auto);
    let (clients, benchmark) = match w.benchmark {
        BenchmarkKind::Sysbench => {
            only_for(w.benchmark, tpcc_keys(w), key)?;
            let clients = int_in(w.clients, 1, 1, MAX_CLIENTS, key.key("clients"))?;
            let sysbench = resolve_sysbench(w, key)?;
            (clients, Benchmark::Sysbench { sysbench })
        }
        BenchmarkKind::Tpcc => {
            only_for(w.benchmark, sysbench_keys(w), key)?;
            if w.reload == Some(true) {
                if w.prepare == Some(PrepareMode::Never) {
                    return Err(Invalid::new(
                        key.key("reload"),
                        "contradicts prepare = \"never\"",
                    ));
                }
                prepare = PrepareMode::Always;
            }
            let (clients, tpcc) = super::tpcc::resolve(w, key)?;
            (clients, Benchmark::Tpcc { tpcc })
        }
    };
    let connections = int_in(
        w.connections,
        clients.into(),
        1,
        clients.into(),
        key.key("connections"),
    )?;
    Ok(PlanWorkload {
        benchmark,
        clients,
        connections,
        rate: w.rate,
        prepare,
        max_attempts,
        stall_timeout_ms,
    })
}

/// Keys set in the section that belong to another benchmark.
fn only_for(
    benchmark: BenchmarkKind,
    others: Vec<&'static str>,
    key: &KeyPath,
) -> Result<(), Invalid> {
    match others.first() {
        None => Ok(()),
        Some(k) => Err(Invalid::new(
            key.key(k),
            format!("does not apply to benchmark = \"{}\"", benchmark.name()),
        )),
    }
}

fn tpcc_keys(w: &WorkloadSection) -> Vec<&'static str> {
    [
        ("warehouses", w.warehouses.is_some()),
        ("pacing", w.pacing.is_some()),
        (
            "terminals_per_warehouse",
            w.terminals_per_warehouse.is_some(),
        ),
        ("reload", w.reload.is_some()),
        ("procedures", w.procedures.is_some()),
        ("mix", w.mix.is_some()),
        ("isolation", w.isolation.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, set)| set.then_some(k))
    .collect()
}

fn sysbench_keys(w: &WorkloadSection) -> Vec<&'static str> {
    [
        ("test", w.test.is_some()),
        ("tables", w.tables.is_some()),
        ("table_size", w.table_size.is_some()),
        ("range_size", w.range_size.is_some()),
        ("point_selects", w.point_selects.is_some()),
        ("simple_ranges", w.simple_ranges.is_some()),
        ("sum_ranges", w.sum_ranges.is_some()),
        ("order_ranges", w.order_ranges.is_some()),
        ("distinct_ranges", w.distinct_ranges.is_some()),
        ("index_updates", w.index_updates.is_some()),
        ("non_index_updates", w.non_index_updates.is_some()),
        ("delete_inserts", w.delete_inserts.is_some()),
        ("range_selects", w.range_selects.is_some()),
        ("skip_trx", w.skip_trx.is_some()),
        ("auto_inc", w.auto_inc.is_some()),
        ("create_secondary", w.create_secondary.is_some()),
        ("rand_type", w.rand_type.is_some()),
        ("rand_spec_pct", w.rand_spec_pct.is_some()),
        ("rand_spec_res", w.rand_spec_res.is_some()),
        ("rand_spec_iter", w.rand_spec_iter.is_some()),
        ("rand_pareto_h", w.rand_pareto_h.is_some()),
        ("rand_zipfian_exp", w.rand_zipfian_exp.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, set)| set.then_some(k))
    .collect()
}

fn resolve_sysbench(w: &WorkloadSection, key: &KeyPath) -> Result<SysbenchOptions, Invalid> {
    let test = sysbench_test(w, key)?;
    let d = SysbenchOptions::defaults(test);
    let table_size = int_in(
        w.table_size,
        d.table_size.into(),
        1,
        i32::MAX.into(),
        key.key("table_size"),
    )?;
    let (rand_type, rand_pareto_h, rand_zipfian_exp) = rand_distribution(w, &d, key)?;
    let count = |v: Option<i64>, d: u32, name: &str| int_in(v, d.into(), 0, 10_000, key.key(name));
    let flag = |v: Option<bool>, d: bool| v.unwrap_or(d);
    let sysbench = SysbenchOptions {
        test,
        tables: int_in(w.tables, d.tables.into(), 1, 100_000, key.key("tables"))?,
        table_size,
        range_size: int_in(
            w.range_size,
            d.range_size.into(),
            1,
            table_size.into(),
            key.key("range_size"),
        )?,
        point_selects: count(w.point_selects, d.point_selects, "point_selects")?,
        simple_ranges: count(w.simple_ranges, d.simple_ranges, "simple_ranges")?,
        sum_ranges: count(w.sum_ranges, d.sum_ranges, "sum_ranges")?,
        order_ranges: count(w.order_ranges, d.order_ranges, "order_ranges")?,
        distinct_ranges: count(w.distinct_ranges, d.distinct_ranges, "distinct_ranges")?,
        index_updates: count(w.index_updates, d.index_updates, "index_updates")?,
        non_index_updates: count(
            w.non_index_updates,
            d.non_index_updates,
            "non_index_updates",
        )?,
        delete_inserts: count(w.delete_inserts, d.delete_inserts, "delete_inserts")?,
        range_selects: flag(w.range_selects, d.range_selects),
        skip_trx: flag(w.skip_trx, d.skip_trx),
        auto_inc: flag(w.auto_inc, d.auto_inc),
        create_secondary: flag(w.create_secondary, d.create_secondary),
        rand_type,
        rand_spec_pct: int_in(
            w.rand_spec_pct,
            d.rand_spec_pct.into(),
            1,
            100,
            key.key("rand_spec_pct"),
        )?,
        rand_spec_res: int_in(
            w.rand_spec_res,
            d.rand_spec_res.into(),
            0,
            99,
            key.key("rand_spec_res"),
        )?,
        rand_spec_iter: int_in(
            w.rand_spec_iter,
            d.rand_spec_iter.into(),
            1,
            1_000,
            key.key("rand_spec_iter"),
        )?,
        rand_pareto_h,
        rand_zipfian_exp,
    };
    Ok(sysbench)
}

/// The sysbench test a workload names (required).
fn sysbench_test(w: &WorkloadSection, key: &KeyPath) -> Result<SysbenchTest, Invalid> {
    let Some(name) = &w.test else {
        return Err(Invalid::new(
            key.key("test"),
            "is required for benchmark = \"sysbench\" (e.g. test = \"oltp_read_write\")",
        ));
    };
    let test = SysbenchTest::from_name(name).ok_or_else(|| {
        let names: Vec<_> = SysbenchTest::ALL.iter().map(|t| t.name()).collect();
        Invalid::new(
            key.key("test"),
            format!(
                "unknown sysbench test {:?}; known: {}",
                name,
                names.join(", ")
            ),
        )
    })?;
    Ok(test)
}

/// The distribution of the rows the test touches, with its parameters checked.
fn rand_distribution(
    w: &WorkloadSection,
    d: &SysbenchOptions,
    key: &KeyPath,
) -> Result<(RandType, f64, f64), Invalid> {
    let rand_type = match &w.rand_type {
        None => d.rand_type,
        Some(name) => RandType::from_name(name).ok_or_else(|| {
            Invalid::new(
                key.key("rand_type"),
                format!("unknown rand_type {name:?}; known: {}", RandType::NAMES),
            )
        })?,
    };
    let rand_pareto_h = w.rand_pareto_h.unwrap_or(d.rand_pareto_h);
    if !(rand_pareto_h > 0.0 && rand_pareto_h < 1.0) {
        return Err(Invalid::new(
            key.key("rand_pareto_h"),
            format!("must lie strictly between 0 and 1, got {rand_pareto_h}"),
        ));
    }
    let rand_zipfian_exp = w.rand_zipfian_exp.unwrap_or(d.rand_zipfian_exp);
    if !(rand_zipfian_exp.is_finite() && rand_zipfian_exp > 0.0) {
        return Err(Invalid::new(
            key.key("rand_zipfian_exp"),
            format!("must be a positive number, got {rand_zipfian_exp}"),
        ));
    }
    Ok((rand_type, rand_pareto_h, rand_zipfian_exp))
}

impl SysbenchOptions {
    /// Rows `prepare` loads per instance (oltp_insert without auto_inc starts from empty tables).
    pub fn loaded_rows(&self) -> u64 {
        if self.test == SysbenchTest::OltpInsert && !self.auto_inc {
            0
        } else {
            u64::from(self.tables) * u64::from(self.table_size)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
