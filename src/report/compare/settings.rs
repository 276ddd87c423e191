//! compare's settings that differ between the runs compared (clients, rate, instances, engine,
//! each key of the engine's config, phases, time scale, every benchmark's options): only the
//! keys that differ, as `key = value` per run, and the same facts to tell apart runs that would
//! otherwise share a label.

use std::time::Duration;

use serde::Serialize;

use crate::results::run::RunReport;
use crate::scenario::plan::DatabaseRun;
use crate::workload::benchmark::Benchmark;
use drivebench_core::config::units::{format_bytes, format_duration};

/// The settings that differ, as each run has them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Differences {
    /// Per database run, in the order given: its label and `(setting, value)` for each
    /// setting that differs.
    pub runs: Vec<RunSettings>,
}

/// One run's values of the settings that differ.
#[derive(Debug, Clone, Serialize)]
pub struct RunSettings {
    pub label: String,
    pub settings: Vec<(String, String)>,
}

impl RunSettings {
    /// "clients per instance = 8, config.buffer_pool = 1.0 GiB".
    pub fn text(&self) -> String {
        let each: Vec<String> = self
            .settings
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        each.join(", ")
    }
}

impl Differences {
    pub fn is_empty(&self) -> bool {
        self.runs.first().is_none_or(|r| r.settings.is_empty())
    }
}

/// A setting of the run's database part; "-" for a sweep-only run.
fn of_db(r: &RunReport, fact: impl Fn(&DatabaseRun) -> String) -> String {
    r.plan.database.as_ref().map_or_else(|| "-".into(), fact)
}

/// Every setting compare looks at, by name, in the order listed.
pub(super) fn facts(r: &RunReport) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![
        (
            "clients per instance".into(),
            of_db(r, |d| d.workload.clients.to_string()),
        ),
        (
            "rate".into(),
            of_db(r, |d| match d.workload.rate {
                Some(rate) => format!("{rate}/s"),
                None => "closed loop".into(),
            }),
        ),
        ("instances".into(), r.instances.len().to_string()),
        (
            "engine".into(),
            r.instances
                .first()
                .map_or("none".into(), |i| i.version.clone()),
        ),
    ];
    out.extend(engine_config(r));
    out.extend([
        (
            "phases".into(),
            of_db(r, |d| {
                let p: Vec<String> = d
                    .phases
                    .iter()
                    .map(|p| {
                        format!(
                            "{} {}",
                            p.name,
                            format_duration(Duration::from_millis(p.duration_ms))
                        )
                    })
                    .collect();
                p.join(" + ")
            }),
        ),
        ("time scale".into(), r.plan.time_scale.to_string()),
    ]);
    let benchmark = r.plan.database.as_ref().map(|d| &d.workload.benchmark);
    out.extend(Benchmark::compared_options(benchmark));
    out
}

/// The first instance's engine settings, one `config.KEY` per key ("default" where the
/// engine's own default applies), sizes and durations in their units.
fn engine_config(r: &RunReport) -> Vec<(String, String)> {
    let Some(inst) = r.plan.instances().first() else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(by_engine)) = serde_json::to_value(&inst.config) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for settings in by_engine.values() {
        flatten("config", settings, &mut out);
    }
    out
}

/// `value` under `key` as `(key.sub, text)` pairs.
fn flatten(key: &str, value: &serde_json::Value, out: &mut Vec<(String, String)>) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                flatten(&format!("{key}.{k}"), v, out);
            }
        }
        Value::Null => out.push((unit_free(key).0, "default".into())),
        Value::String(s) => out.push((key.to_string(), s.clone())),
        Value::Number(n) => {
            let (name, unit) = unit_free(key);
            let text = match (unit, n.as_u64()) {
                ("bytes", Some(b)) => format_bytes(b),
                ("ms", Some(ms)) => format_duration(Duration::from_millis(ms)),
                ("s", Some(s)) => format_duration(Duration::from_secs(s)),
                _ => n.to_string(),
            };
            out.push((name, text));
        }
        other => out.push((key.to_string(), other.to_string())),
    }
}

/// A resolved key without its unit suffix, as scenario files write it ("buffer_pool_bytes" ->
/// "buffer_pool", "bytes"); the key itself when it has none.
fn unit_free(key: &str) -> (String, &'static str) {
    for unit in ["bytes", "ms", "s"] {
        if let Some(name) = key.strip_suffix(&format!("_{unit}")) {
            return (name.to_string(), unit);
        }
    }
    (key.to_string(), "")
}

/// The settings that differ between `runs` (labelled), each run's value of each.
pub(super) fn differences(runs: &[(&str, &RunReport)]) -> Differences {
    let all: Vec<Vec<(String, String)>> = runs.iter().map(|(_, r)| facts(r)).collect();
    let differing = differing_keys(&all);
    Differences {
        runs: runs
            .iter()
            .zip(&all)
            .map(|((label, _), facts)| RunSettings {
                label: label.to_string(),
                settings: differing
                    .iter()
                    .map(|k| (k.clone(), value_of(facts, k)))
                    .collect(),
            })
            .collect(),
    }
}

/// The keys whose values are not the same in every one of `all`, in the order first seen.
pub(super) fn differing_keys(all: &[Vec<(String, String)>]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in all.iter().flatten() {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    keys.retain(|k| {
        let first = all.first().map(|f| value_of(f, k));
        all.iter().any(|f| Some(value_of(f, k)) != first)
    });
    keys
}

/// The value of `key` in `facts`, "-" when the run has no such setting.
pub(super) fn value_of(facts: &[(String, String)], key: &str) -> String {
    facts
        .iter()
        .find(|(k, _)| k == key)
        .map_or_else(|| "-".into(), |(_, v)| v.clone())
}
