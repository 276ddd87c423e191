//! `drivebench compare`: rank runs of the same workload the way the reviews do — TPS (higher is
//! better), average and p99 latency (lower is better), for TPC-C tpmC first and the TPC-C
//! tables after — grouped by instance count, with each run's distance to the leader and
//! whether its gap to the run ranked above it is more than noise (Welch's t-test on per-interval
//! TPS, autocorrelation accounted for). Runs with I/O sweeps also get the sweep tables; a
//! sweep-only run is listed there but not ranked. Runs with load curves get their peak and SLO
//! figures side by side. This file reads the runs, refuses what cannot be compared and builds
//! the `Comparison`; the files beside it, which never import this one, hold the parts:
//! `entry` (a run as compared) and `ranking` below everything, the sections `tpcc`, `curves`,
//! `sweeps` and `settings`, `model` over them, and the renderers `markdown` and `html` on top.

pub mod curves;
pub mod entry;
mod html;
mod markdown;
pub mod model;
pub mod ranking;
mod settings;
pub mod sweeps;
mod tpcc;

use std::path::Path;

use entry::RunEntry;
use model::Comparison;

use crate::config::units::format_bytes;
use crate::report::result::RunReport;
use crate::report::{RESULT_FILE, read_result};

/// A run to compare: its label (None: named after its drive), where it was read, its report.
pub type Run = (Option<String>, String, RunReport);

/// Read a run directory's result.json, or a result.json itself.
pub fn load(path: &Path) -> Result<RunReport, String> {
    let file = if path.is_dir() {
        path.join(RESULT_FILE)
    } else {
        path.to_path_buf()
    };
    read_result(&file)
}

fn default_label(r: &RunReport, source: &str) -> String {
    match &r.environment.target.device {
        Some(d) => {
            let model = d.model.clone().unwrap_or_else(|| d.name.clone());
            match d.capacity_bytes {
                Some(c) => format!("{model} {}", format_bytes(c)),
                None => model,
            }
        }
        None => source.to_string(),
    }
}

/// The workload identity that must match: benchmark, test and data scale.
fn workload_key(r: &RunReport) -> String {
    let w = &r.plan.workload;
    match (&w.sysbench, &w.tpcc) {
        (Some(o), _) => format!(
            "{:?} {} with {} tables x {} rows",
            w.benchmark,
            o.test.name(),
            o.tables,
            o.table_size
        )
        .to_lowercase(),
        (None, Some(t)) => format!("tpcc with {} warehouses", t.warehouses),
        (None, None) => "none".into(),
    }
}

/// Why the database runs should not be compared: their workloads, when not all the same.
fn workload_mismatch(db_runs: &[Run]) -> Option<String> {
    let keys: Vec<String> = db_runs.iter().map(|(_, _, r)| workload_key(r)).collect();
    if keys.iter().all(|k| *k == keys[0]) {
        return None;
    }
    let list: Vec<String> = db_runs
        .iter()
        .zip(&keys)
        .map(|((_, source, _), k)| format!("{source}: {k}"))
        .collect();
    Some(format!(
        "the runs measure different workloads: {}",
        list.join("; ")
    ))
}

/// The runs' entries, labelled as given or after their drive ("(2)" on a repeated label).
fn entries(runs: &[Run]) -> Result<Vec<RunEntry>, String> {
    let mut entries: Vec<RunEntry> = Vec::new();
    for (label, source, r) in runs {
        let mut label = label.clone().unwrap_or_else(|| default_label(r, source));
        let same = entries
            .iter()
            .filter(|e| e.label.starts_with(&label))
            .count();
        if same > 0 {
            label = format!("{label} ({})", same + 1);
        }
        let entry = RunEntry::new(label, source, r);
        if !entry.ranked && r.sweeps.is_empty() {
            return Err(format!(
                "{source}: no recorded phase measured any transaction, and no sweep ran"
            ));
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// Build the comparison of `runs`. Runs of different workloads are an error unless `force`.
pub fn compare(runs: Vec<Run>, force: bool) -> Result<Comparison, String> {
    if runs.len() < 2 {
        return Err("compare needs at least two runs".into());
    }
    // Sweep-only runs have no database workload to match.
    let db_runs: Vec<Run> = runs
        .iter()
        .filter(|(_, _, r)| !r.plan.instances.is_empty())
        .cloned()
        .collect();
    let mut incomparable = Vec::new();
    if let Some(why) = workload_mismatch(&db_runs) {
        if !force {
            return Err(format!("{why} (--force compares them anyway)"));
        }
        incomparable.push(why);
    }
    let differences = settings::differences(&db_runs);
    let entries = entries(&runs)?;
    let labelled: Vec<(String, &RunReport)> = entries
        .iter()
        .zip(&runs)
        .map(|(e, (_, _, r))| (e.label.clone(), r))
        .collect();
    Ok(Comparison {
        sweeps: sweeps::build(&labelled),
        curves: curves::build(&entries),
        groups: model::groups(&entries),
        runs: entries,
        incomparable,
        differences,
    })
}

/// compare.html.
pub fn html(c: &Comparison) -> String {
    html::page(c)
}

/// compare.md, also printed.
pub fn markdown(c: &Comparison) -> String {
    markdown::page(c)
}
