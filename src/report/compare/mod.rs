//! `drivebench compare`: rank runs of the same workload the way the reviews do — TPS (higher is
//! better), average and p99 latency (lower is better), the benchmark's headline figure first
//! (TPC-C's tpmC) and its own sections after — grouped by instance count, with each run's distance to the leader and
//! whether its gap to the run ranked above it is more than noise (Welch's t-test on per-interval
//! TPS, autocorrelation accounted for). Runs with I/O sweeps also get the sweep tables; a
//! sweep-only run is listed there but not ranked. Runs with load curves get their peak and SLO
//! figures side by side. Runs made by `drivebench replay` get a section of their own, ranked by
//! p99 per file class when they replay one capture with one timing. This file reads the runs, refuses what cannot be compared and builds
//! the `Comparison`; the files beside it, which never import this one, hold the parts:
//! `entry` (a run as compared) and `ranking` below everything, the sections `curves`,
//! `sweeps`, `replays` and `settings` (with `labels`, which tells runs on the same drive apart by it),
//! `model` over them, and the renderers `markdown` and `html` on top. Runs whose benchmark
//! options change what a figure means (TPC-C's mix or procedures) are compared with the
//! warning their benchmark gives; runs that started from different drive states
//! (`start_state`) with a warning of their own; runs with a write-cliff phase side by side by
//! where their p99 departed (`cliff`).

pub mod cliff;
pub mod curves;
pub mod entry;
mod html;
mod labels;
mod markdown;
pub mod model;
pub mod ranking;
pub mod replays;
#[cfg(test)]
mod replays_tests;
pub mod settings;
pub mod start_state;
pub mod sweeps;

use std::fmt;
use std::path::Path;

use entry::RunEntry;
use model::Comparison;

use crate::report::{RESULT_FILE, ReadError, read_result};
use crate::results::run::RunReport;

/// Why runs cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("compare needs at least two runs")]
    TooFewRuns,
    /// Refused without --force.
    #[error("{0} (--force compares them anyway)")]
    DifferentWorkloads(WorkloadMismatch),
    /// The run read from `run` has neither a measured phase nor a sweep, and is not a replay.
    #[error(
        "{run}: no recorded phase measured any transaction, no sweep ran and it is not a replay"
    )]
    NothingMeasured { run: String },
    /// Two of the runs given are one and the same.
    #[error("{first} and {second} are the same run ({why}); compare needs different runs")]
    SameRun {
        first: String,
        second: String,
        why: String,
    },
}

/// Runs that measure different workloads: each database run's source and workload.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadMismatch {
    /// (source, the workload as `Benchmark::compare_key` names it), in the order given.
    pub workloads: Vec<(String, String)>,
}

impl fmt::Display for WorkloadMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self
            .workloads
            .iter()
            .map(|(source, workload)| format!("{source}: {workload}"))
            .collect();
        write!(
            f,
            "the runs measure different workloads: {}",
            list.join("; ")
        )
    }
}

/// A run to compare: its label (None: named after its drive), where it was read, its report.
pub type Run = (Option<String>, String, RunReport);

/// Read a run directory's result.json, or a result.json itself.
pub fn load(path: &Path) -> Result<RunReport, ReadError> {
    let file = if path.is_dir() {
        path.join(RESULT_FILE)
    } else {
        path.to_path_buf()
    };
    read_result(&file)
}

/// The result.json a source names (a run directory's, or the file itself), resolved.
fn result_file(source: &str) -> Option<std::path::PathBuf> {
    let path = Path::new(source);
    let file = if path.is_dir() {
        path.join(RESULT_FILE)
    } else {
        path.to_path_buf()
    };
    file.canonicalize().ok()
}

/// Two of `runs` that are one and the same: the same result.json (through any path or its run
/// directory), or a copy of it (the same start on the same host).
fn same_run(runs: &[Run]) -> Option<CompareError> {
    for (j, (_, second, b)) in runs.iter().enumerate() {
        for (_, first, a) in &runs[..j] {
            let why = if result_file(first).is_some_and(|f| Some(f) == result_file(second)) {
                "the same result.json".to_string()
            } else if a.started_at == b.started_at
                && a.environment.host.hostname == b.environment.host.hostname
            {
                format!(
                    "both started at {} on host {}",
                    a.started_at, a.environment.host.hostname
                )
            } else {
                continue;
            };
            return Some(CompareError::SameRun {
                first: first.clone(),
                second: second.clone(),
                why,
            });
        }
    }
    None
}

/// The database runs' workloads, when they are not all the same.
fn workload_mismatch(db_runs: &[Run]) -> Option<WorkloadMismatch> {
    let workloads: Vec<(String, String)> = db_runs
        .iter()
        .filter_map(|(_, source, r)| {
            let db = r.plan.database.as_ref()?;
            Some((source.clone(), db.workload.benchmark.compare_key()))
        })
        .collect();
    let differ = workloads.iter().any(|(_, k)| *k != workloads[0].1);
    differ.then_some(WorkloadMismatch { workloads })
}

/// The runs' entries, labelled as given or after their drive, told apart when they share one.
/// A run with no measured phase needs sweeps or a replay (and is not ranked with the others).
fn entries(runs: &[Run]) -> Result<Vec<RunEntry>, CompareError> {
    let mut entries: Vec<RunEntry> = Vec::new();
    for ((_, source, r), label) in runs.iter().zip(labels::labels(runs)) {
        let mut entry = RunEntry::new(label, source, r);
        if !entry.ranked && r.sweeps.is_empty() {
            if r.replay.is_none() {
                return Err(CompareError::NothingMeasured {
                    run: source.clone(),
                });
            }
            entry.phase = "- (replay)".into();
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// What the runs' benchmarks warn of: runs of one benchmark whose options make their figures
/// differ.
fn warnings(entries: &[RunEntry]) -> Vec<String> {
    let compared: Vec<_> = entries.iter().filter_map(model::compared).collect();
    let mut warnings: Vec<String> = model::benchmarks(&compared)
        .into_iter()
        .flat_map(|b| b.compare_warnings(&compared))
        .collect();
    let flags: Vec<super::health::RunThrottle<'_>> = (entries.iter())
        .map(|e| super::health::RunThrottle {
            label: &e.label,
            throttled: e.throttled,
            intervals: e.intervals,
        })
        .collect();
    warnings.extend(super::health::compare_warning(&flags));
    warnings
}

/// Build the comparison of `runs`. Runs of different workloads are an error unless `force`.
pub fn compare(runs: Vec<Run>, force: bool) -> Result<Comparison, CompareError> {
    if runs.len() < 2 {
        return Err(CompareError::TooFewRuns);
    }
    if let Some(same) = same_run(&runs) {
        return Err(same);
    }
    // Sweep-only runs have no database workload to match.
    let db_runs: Vec<Run> = runs
        .iter()
        .filter(|(_, _, r)| r.plan.database.is_some())
        .cloned()
        .collect();
    let mut incomparable = Vec::new();
    if let Some(mismatch) = workload_mismatch(&db_runs) {
        if !force {
            return Err(CompareError::DifferentWorkloads(mismatch));
        }
        incomparable.push(mismatch.to_string());
    }
    let entries = entries(&runs)?;
    let labelled_db: Vec<(&str, &RunReport)> = entries
        .iter()
        .zip(&runs)
        .filter(|(_, (_, _, r))| r.plan.database.is_some())
        .map(|(e, (_, _, r))| (e.label.as_str(), r))
        .collect();
    let differences = settings::differences(&labelled_db);
    let labelled: Vec<(String, &RunReport)> = entries
        .iter()
        .zip(&runs)
        .map(|(e, (_, _, r))| (e.label.clone(), r))
        .collect();
    let start_states = start_state::build(&labelled);
    let mut warnings = warnings(&entries);
    warnings.extend(start_state::warning(&start_states));
    Ok(Comparison {
        cliffs: cliff::build(&labelled),
        start_states,
        sweeps: sweeps::build(&labelled),
        replays: replays::build(&labelled),
        curves: curves::build(&entries),
        groups: model::groups(&entries),
        warnings,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ReadCause;

    #[test]
    fn errors_name_what_failed_and_where() {
        let too_few = compare(Vec::new(), false).unwrap_err();
        assert!(matches!(too_few, CompareError::TooFewRuns));
        assert_eq!(too_few.to_string(), "compare needs at least two runs");
        let mismatch = WorkloadMismatch {
            workloads: vec![
                (
                    "a".into(),
                    "sysbench oltp_read_only with 1 tables x 100 rows".into(),
                ),
                ("b".into(), "sysbench oltp_read_write".into()),
            ],
        };
        assert_eq!(
            CompareError::DifferentWorkloads(mismatch).to_string(),
            "the runs measure different workloads: a: sysbench oltp_read_only with 1 tables x 100 rows; \
             b: sysbench oltp_read_write (--force compares them anyway)"
        );
        // The cause of reading `path`, whose message must start with the path and `text`.
        let read_err = |path: &str, text: &str| {
            let e = load(Path::new(path)).unwrap_err();
            assert!(e.to_string().starts_with(&format!("{path}: {text}")), "{e}");
            e.cause
        };
        let missing = read_err("tests/data/compare/missing.json", "No such file");
        assert!(matches!(missing, ReadCause::Io(_)));
        let not_json = read_err(
            "tests/data/compare/expected.md",
            "not a drivebench result: ",
        );
        assert!(matches!(not_json, ReadCause::NotAResult(_)));
    }
}
