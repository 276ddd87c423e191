//! compare's list of settings that differ between the runs compared (clients, rate,
//! instances, engine and its config, phases, time scale, sysbench and TPC-C options): one line
//! per setting, each run's value by its source.

use crate::report::result::RunReport;
use crate::scenario::plan::DatabaseRun;

/// How one setting of a run reads.
type Fact = fn(&RunReport) -> String;

/// A setting of the run's database part; "-" for a sweep-only run.
fn of_db(r: &RunReport, fact: impl Fn(&DatabaseRun) -> String) -> String {
    r.plan.database.as_ref().map_or_else(|| "-".into(), fact)
}

/// Settings that differ between runs, one line each ("clients: a = 8, b = 32").
pub(super) fn differences(runs: &[(Option<String>, String, RunReport)]) -> Vec<String> {
    let facts: [(&str, Fact); 10] = [
        ("clients per instance", |r| {
            of_db(r, |d| d.workload.clients.to_string())
        }),
        ("rate", |r| {
            of_db(r, |d| match d.workload.rate {
                Some(rate) => format!("{rate}/s"),
                None => "closed loop".into(),
            })
        }),
        ("instances", |r| r.instances.len().to_string()),
        ("engine", |r| {
            let v: Vec<&str> = r.instances.iter().map(|i| i.version.as_str()).collect();
            v.first().copied().unwrap_or("none").to_string()
        }),
        ("engine config", |r| {
            serde_json::to_string(&r.plan.instances().first().map(|i| &i.config))
                .unwrap_or_default()
        }),
        ("phases", |r| {
            of_db(r, |d| {
                let p: Vec<String> = d
                    .phases
                    .iter()
                    .map(|p| format!("{} {:.0}s", p.name, p.duration_ms as f64 / 1000.0))
                    .collect();
                p.join(" + ")
            })
        }),
        ("time scale", |r| r.plan.time_scale.to_string()),
        ("rand_type", |r| {
            of_db(r, |d| match d.workload.sysbench() {
                Some(o) => o.rand_type.name().to_string(),
                None => "-".into(),
            })
        }),
        ("pacing", |r| {
            of_db(r, |d| match d.workload.tpcc() {
                Some(t) => t.pacing.name().to_string(),
                None => "-".into(),
            })
        }),
        ("terminals per warehouse", |r| {
            of_db(r, |d| match d.workload.tpcc() {
                Some(t) => t.terminals_per_warehouse.to_string(),
                None => "-".into(),
            })
        }),
    ];
    let mut out = Vec::new();
    for (name, fact) in facts {
        let values: Vec<String> = runs.iter().map(|(_, _, r)| fact(r)).collect();
        if values.iter().any(|v| *v != values[0]) {
            let each: Vec<String> = runs
                .iter()
                .zip(&values)
                .map(|((_, src, _), v)| format!("{src} = {v}"))
                .collect();
            out.push(format!("{name}: {}", each.join(", ")));
        }
    }
    out
}
