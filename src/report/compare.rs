//! `drivebench compare`: rank runs of the same workload the way the reviews do — TPS (higher is
//! better), average and p99 latency (lower is better), for TPC-C tpmC first and the tables of
//! `compare_tpcc` after — grouped by instance count, with each run's distance to the leader and
//! whether its gap to the run ranked above it is more than noise (Welch's t-test on per-interval
//! TPS, autocorrelation accounted for). Runs with I/O sweeps also get the sweep tables of
//! `compare_sweeps`; a sweep-only run is listed there but not ranked. Runs with load curves
//! get `compare_curves`' peak and SLO figures side by side.

use std::path::Path;

use serde::Serialize;

use super::result::{PhaseReport, RunReport};
use super::stats::{Welch, welch};
use crate::config::units::format_bytes;

/// One run as compared: where it came from and the figures of its recorded phase.
#[derive(Debug, Clone, Serialize)]
pub struct RunEntry {
    pub label: String,
    pub source: String,
    pub scenario: String,
    pub started_at: String,
    pub complete: bool,
    pub instances: usize,
    pub phase: String,
    pub tps: f64,
    pub latency_avg_ms: f64,
    pub latency_p99_ms: f64,
    /// TPC-C runs: tpmC, NOPM, efficiency and per-kind p90/p99 of the compared phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<super::compare_tpcc::TpccFigures>,
    /// Its load curve's peak, SLO figure and points, when it ran one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curve: Option<super::compare_curves::CurveFigures>,
    /// Whether the run has a recorded database phase and is ranked (a sweep-only run is not).
    pub ranked: bool,
    /// Total TPS per report interval of the phase (the samples of the significance test).
    #[serde(skip)]
    pub interval_tps: Vec<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    pub rank: usize,
    pub label: String,
    pub value: f64,
    /// Distance to the leader in % of the leader's value (0 for the leader).
    pub vs_leader_pct: f64,
    /// TPS only: the test against the run ranked just above.
    pub vs_previous: Option<Welch>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub instances: usize,
    /// TPC-C runs: committed New-Orders per minute (no significance test: the series hold
    /// total TPS only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tpmc: Vec<Ranked>,
    pub tps: Vec<Ranked>,
    pub latency_avg_ms: Vec<Ranked>,
    pub latency_p99_ms: Vec<Ranked>,
}

impl Group {
    /// The ranking tables (tpmC first when there is one): title, rows, decimals shown.
    pub fn tables(&self) -> Vec<(&'static str, &[Ranked], usize)> {
        let tpmc = ("tpmC, TPC-C-like (higher is better)", &self.tpmc[..], 0);
        let mut tables: Vec<_> = (!self.tpmc.is_empty())
            .then_some(tpmc)
            .into_iter()
            .collect();
        tables.extend([
            ("TPS (higher is better)", &self.tps[..], 2),
            (
                "Average latency, ms (lower is better)",
                &self.latency_avg_ms,
                3,
            ),
            ("p99 latency, ms (lower is better)", &self.latency_p99_ms, 3),
        ]);
        tables
    }
}

impl Group {
    /// The runs of this group, in the order given.
    pub fn members<'a>(&self, runs: &'a [RunEntry]) -> Vec<&'a RunEntry> {
        runs.iter()
            .filter(|e| e.ranked && e.instances == self.instances)
            .collect()
    }
}

impl Ranked {
    /// "leader", or the signed distance to it.
    pub fn vs_leader_text(&self) -> String {
        if self.rank == 1 {
            "leader".to_string()
        } else {
            format!("{:+.1}%", self.vs_leader_pct)
        }
    }

    /// The significance cell against the run ranked above (empty for the leader).
    pub fn vs_above_text(&self) -> String {
        match &self.vs_previous {
            Some(w) if w.p_value < ALPHA => format!("{}, significant", p_text(w.p_value)),
            Some(w) => format!("{}, within noise", p_text(w.p_value)),
            None if self.rank == 1 => String::new(),
            None => "too few intervals".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub runs: Vec<RunEntry>,
    /// Why these runs should not be compared (only present with --force).
    pub incomparable: Vec<String>,
    /// Settings that differ between the runs.
    pub differences: Vec<String>,
    pub groups: Vec<Group>,
    /// Per profile, the runs' sweep points side by side (empty when no run has sweeps).
    pub sweeps: Vec<super::compare_sweeps::SweepComparison>,
    /// The runs' load-curve SLO figures ranked, or why not (absent when no run has a curve).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curves: Option<super::compare_curves::CurveComparison>,
}

/// Significance threshold for "more than noise".
pub const ALPHA: f64 = 0.05;

/// Read a run directory's result.json, or a result.json itself.
pub fn load(path: &Path) -> Result<RunReport, String> {
    let file = if path.is_dir() {
        path.join(super::RESULT_FILE)
    } else {
        path.to_path_buf()
    };
    super::read_result(&file)
}

/// The phase a run is compared on: its last recorded phase that measured something.
fn compared_phase(r: &RunReport) -> Option<&PhaseReport> {
    r.phases
        .iter()
        .rev()
        .find(|p| p.recorded && p.summary.transactions > 0)
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

/// Build the comparison of `runs` (label or None, source text, report). Incomparable runs are
/// an error unless `force`.
pub fn compare(
    runs: Vec<(Option<String>, String, RunReport)>,
    force: bool,
) -> Result<Comparison, String> {
    if runs.len() < 2 {
        return Err("compare needs at least two runs".into());
    }
    // Sweep-only runs have no database workload to match.
    let db_runs: Vec<_> = runs
        .iter()
        .filter(|(_, _, r)| !r.plan.instances.is_empty())
        .cloned()
        .collect();
    let keys: Vec<String> = db_runs.iter().map(|(_, _, r)| workload_key(r)).collect();
    let mut incomparable = Vec::new();
    if keys.iter().any(|k| *k != keys[0]) {
        let list: Vec<String> = db_runs
            .iter()
            .zip(&keys)
            .map(|((_, src, _), k)| format!("{src}: {k}"))
            .collect();
        let why = format!("the runs measure different workloads: {}", list.join("; "));
        if !force {
            return Err(format!("{why} (--force compares them anyway)"));
        }
        incomparable.push(why);
    }
    let differences = super::compare_settings::differences(&db_runs);
    let mut entries: Vec<RunEntry> = Vec::new();
    for (label, source, r) in &runs {
        let phase = compared_phase(r);
        if phase.is_none() && r.sweeps.is_empty() {
            return Err(format!(
                "{source}: no recorded phase measured any transaction, and no sweep ran"
            ));
        }
        let mut label = label.clone().unwrap_or_else(|| default_label(r, source));
        let same = entries
            .iter()
            .filter(|e| e.label.starts_with(&label))
            .count();
        if same > 0 {
            label = format!("{label} ({})", same + 1);
        }
        entries.push(RunEntry {
            label,
            source: source.clone(),
            scenario: r.plan.name.clone(),
            started_at: r.started_at.clone(),
            complete: r.complete,
            instances: r.instances.len(),
            phase: phase.map_or_else(|| "- (sweeps only)".into(), |p| p.name.clone()),
            tps: phase.map_or(0.0, |p| p.summary.tps),
            latency_avg_ms: phase.map_or(0.0, |p| p.summary.latency_ms.avg),
            latency_p99_ms: phase.map_or(0.0, |p| p.summary.latency_ms.p99),
            tpcc: phase.and_then(super::compare_tpcc::figures),
            curve: super::compare_curves::figures(r),
            ranked: phase.is_some(),
            interval_tps: phase
                .map(|p| p.total_tps().into_iter().map(|(_, tps)| tps).collect())
                .unwrap_or_default(),
        });
    }
    let labelled: Vec<(String, &RunReport)> = entries
        .iter()
        .zip(&runs)
        .map(|(e, (_, _, r))| (e.label.clone(), r))
        .collect();
    let sweeps = super::compare_sweeps::build(&labelled);
    let curves = super::compare_curves::build(&entries);
    let mut counts: Vec<usize> = entries
        .iter()
        .filter(|e| e.ranked)
        .map(|e| e.instances)
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let groups = counts
        .into_iter()
        .map(|n| {
            let members: Vec<&RunEntry> = entries
                .iter()
                .filter(|e| e.ranked && e.instances == n)
                .collect();
            let tpcc: Vec<&RunEntry> = members
                .iter()
                .copied()
                .filter(|e| e.tpcc.is_some())
                .collect();
            let tpmc = |e: &RunEntry| e.tpcc.as_ref().map_or(0.0, |t| t.tpmc);
            Group {
                instances: n,
                tpmc: rank(&tpcc, tpmc, true, false),
                tps: rank(&members, |e| e.tps, true, true),
                latency_avg_ms: rank(&members, |e| e.latency_avg_ms, false, false),
                latency_p99_ms: rank(&members, |e| e.latency_p99_ms, false, false),
            }
        })
        .collect();
    Ok(Comparison {
        runs: entries,
        incomparable,
        differences,
        groups,
        sweeps,
        curves,
    })
}

/// Rank `members` by `value`; `test`: Welch's t-test on interval TPS against the run above.
pub(super) fn rank(
    members: &[&RunEntry],
    value: fn(&RunEntry) -> f64,
    higher_better: bool,
    test: bool,
) -> Vec<Ranked> {
    let mut order: Vec<&&RunEntry> = members.iter().collect();
    order.sort_by(|a, b| {
        let (x, y) = (value(a), value(b));
        let o = x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal);
        if higher_better { o.reverse() } else { o }
    });
    let leader = order.first().map(|e| value(e)).unwrap_or(0.0);
    order
        .iter()
        .enumerate()
        .map(|(i, e)| Ranked {
            rank: i + 1,
            label: e.label.clone(),
            value: value(e),
            vs_leader_pct: if leader != 0.0 {
                (value(e) - leader) / leader * 100.0
            } else {
                0.0
            },
            vs_previous: (test && i > 0)
                .then(|| welch(&order[i - 1].interval_tps, &e.interval_tps))
                .flatten(),
        })
        .collect()
}

/// "p = 0.042", or "p < 0.001" for the tiny ones.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        format!("p = {p:.3}")
    }
}

/// compare.html.
pub fn html(c: &Comparison) -> String {
    super::compare_html::page(c)
}

/// compare.md, also printed.
pub fn markdown(c: &Comparison) -> String {
    super::compare_md::page(c)
}
