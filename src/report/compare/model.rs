//! What `drivebench compare` found, as written to compare.json and rendered in compare.md and
//! compare.html: `Comparison` holds the runs, why they should not be compared (with --force),
//! the settings that differ, per instance count a `Group` of rankings (the benchmark's headline
//! figure, TPS, average and p99 latency) and the benchmark's own sections, and the sweep, load-curve and replay sections' own types.

use serde::Serialize;

use super::curves::CurveComparison;
use super::entry::RunEntry;
use super::ranking::{Ranked, rank};
use super::replays::ReplayComparison;
use super::sweeps::SweepComparison;
use crate::workload::benchmark::{Benchmark, ComparedRun};
use drivebench_core::table::{Column, Table};

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub runs: Vec<RunEntry>,
    /// Why these runs should not be compared (only present with --force).
    pub incomparable: Vec<String>,
    /// Settings that differ between the runs: per database run, each one's value.
    pub differences: super::settings::Differences,
    /// Differences that change what a figure means, shown above everything (the benchmark's
    /// own: runs of one benchmark with options that make their figures differ).
    pub warnings: Vec<String>,
    pub groups: Vec<Group>,
    /// Each run's start state (`[target] device`), when any run had one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub start_states: Vec<super::start_state::RunStartState>,
    /// Each run's write cliff (its first `cliff = true` phase), when any run had one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cliffs: Vec<super::cliff::RunCliff>,
    /// Per profile, the runs' sweep points side by side (empty when no run has sweeps).
    pub sweeps: Vec<SweepComparison>,
    /// The runs' load-curve SLO figures ranked, or why not (absent when no run has a curve).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curves: Option<CurveComparison>,
    /// The runs made by `drivebench replay`, ranked by p99 per file class, or why not (absent
    /// when no run is a replay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replays: Option<ReplayComparison>,
}

impl Comparison {
    /// The ranked runs whose compared phase was not drive-bound, one line each: a ranking that
    /// includes them measures the host (or the client), not the drives.
    pub fn not_drive_bound(&self) -> Vec<String> {
        self.runs
            .iter()
            .filter(|e| e.ranked)
            .filter_map(|e| {
                let v = e.verdict.as_ref()?.judged();
                (v.bound != drivebench_system::telemetry::Bound::DriveBound).then(|| {
                    format!(
                        "{}: {} — {}",
                        e.label,
                        crate::results::telemetry::bound_name(v.bound),
                        v.reason
                    )
                })
            })
            .collect()
    }
}

impl Comparison {
    /// What limited each run's compared phase and, for a drive-bound one, the I/O class with
    /// the figures that decided it; None when no run has telemetry.
    pub fn limits(&self) -> Option<Table> {
        if self.runs.iter().all(|e| e.verdict.is_none()) {
            return None;
        }
        let mut t = Table::new(vec![
            Column::left("run"),
            Column::left("limited by"),
            Column::left("I/O class"),
            Column::left("deciding figures"),
        ]);
        for e in &self.runs {
            let Some(v) = &e.verdict else { continue };
            let bound = crate::results::telemetry::bound_name(v.judged().bound);
            let (class, figures) = match v.class() {
                Some(c) => (c.class.label().to_string(), c.text.clone()),
                None => ("-".to_string(), "-".to_string()),
            };
            t.row(vec![e.label.clone(), bound.to_string(), class, figures]);
        }
        Some(t)
    }
}

/// The warning above a ranking that includes runs that were not drive-bound.
pub const NOT_DRIVE_BOUND: &str =
    "this ranking measures the host, not the drives: these runs were not drive-bound";

#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub instances: usize,
    /// The figure the runs' benchmark ranks them by first (TPC-C's tpmC: no significance
    /// test, the series hold total TPS only), under its own key.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub headline: Option<HeadlineRanking>,
    pub tps: Vec<Ranked>,
    pub latency_avg_ms: Vec<Ranked>,
    pub latency_p99_ms: Vec<Ranked>,
}

/// The ranking by a benchmark's headline figure: its key in compare.json, its title, the
/// decimals shown.
#[derive(Debug, Clone)]
pub struct HeadlineRanking {
    pub key: &'static str,
    pub title: &'static str,
    pub decimals: usize,
    pub ranked: Vec<Ranked>,
}

impl Serialize for HeadlineRanking {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.key, &self.ranked)?;
        map.end()
    }
}

impl Group {
    /// The rankings of the ranked runs with `instances` instances.
    fn of(runs: &[RunEntry], instances: usize) -> Self {
        let members = members_of(runs, instances);
        let headed: Vec<&RunEntry> = members
            .iter()
            .copied()
            .filter(|e| e.headline.is_some())
            .collect();
        let headline = headed.first().and_then(|e| e.headline).map(|h| {
            let value = |e: &RunEntry| e.headline.map_or(0.0, |h| h.value);
            HeadlineRanking {
                key: h.key,
                title: h.title,
                decimals: h.decimals,
                ranked: rank(&headed, value, true, false),
            }
        });
        Group {
            instances,
            headline,
            tps: rank(&members, |e| e.tps, true, true),
            latency_avg_ms: rank(&members, |e| e.latency_avg_ms, false, false),
            latency_p99_ms: rank(&members, |e| e.latency_p99_ms, false, false),
        }
    }

    /// The ranking tables (the headline first when there is one): title, rows, decimals shown.
    pub fn tables(&self) -> Vec<(&'static str, &[Ranked], usize)> {
        let mut tables: Vec<_> = self
            .headline
            .iter()
            .map(|h| (h.title, &h.ranked[..], h.decimals))
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

    /// The sections the group's runs' benchmarks show of their own, one benchmark after
    /// another in the order their first run was given.
    pub fn sections(&self, runs: &[RunEntry]) -> Vec<drivebench_core::table::Section> {
        let members = self.members(runs);
        let compared: Vec<ComparedRun> = members.iter().filter_map(|e| compared(e)).collect();
        benchmarks(&compared)
            .into_iter()
            .flat_map(|b| b.compare_sections(&compared))
            .collect()
    }

    /// The runs of this group, in the order given.
    pub fn members<'a>(&self, runs: &'a [RunEntry]) -> Vec<&'a RunEntry> {
        members_of(runs, self.instances)
    }
}

/// A run as its benchmark is asked about it; None without a database part.
pub fn compared(e: &RunEntry) -> Option<ComparedRun<'_>> {
    Some(ComparedRun {
        label: &e.label,
        benchmark: e.benchmark.as_ref()?,
        figures: &e.figures,
    })
}

/// The benchmarks of `runs`, one of each kind, in the order their first run comes.
pub fn benchmarks<'a>(runs: &[ComparedRun<'a>]) -> Vec<&'a Benchmark> {
    let mut out: Vec<&Benchmark> = Vec::new();
    for r in runs {
        if !out.iter().any(|b| b.kind() == r.benchmark.kind()) {
            out.push(r.benchmark);
        }
    }
    out
}

fn members_of(runs: &[RunEntry], instances: usize) -> Vec<&RunEntry> {
    runs.iter()
        .filter(|e| e.ranked && e.instances == instances)
        .collect()
}

/// One group per instance count among the ranked runs, fewest instances first.
pub fn groups(runs: &[RunEntry]) -> Vec<Group> {
    let mut counts: Vec<usize> = runs
        .iter()
        .filter(|e| e.ranked)
        .map(|e| e.instances)
        .collect();
    counts.sort_unstable();
    counts.dedup();
    counts.into_iter().map(|n| Group::of(runs, n)).collect()
}
