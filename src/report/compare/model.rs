//! What `drivebench compare` found, as written to compare.json and rendered in compare.md and
//! compare.html: `Comparison` holds the runs, why they should not be compared (with --force),
//! the settings that differ, per instance count a `Group` of rankings (tpmC, TPS, average and
//! p99 latency), and the sweep, load-curve and replay sections' own types.

use serde::Serialize;

use super::curves::CurveComparison;
use super::entry::RunEntry;
use super::ranking::{Ranked, rank};
use super::replays::ReplayComparison;
use super::sweeps::SweepComparison;

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub runs: Vec<RunEntry>,
    /// Why these runs should not be compared (only present with --force).
    pub incomparable: Vec<String>,
    /// Settings that differ between the runs: per database run, each one's value.
    pub differences: super::settings::Differences,
    /// Differences that change what a figure means, shown above everything (TPC-C runs of
    /// different mixes).
    pub warnings: Vec<String>,
    pub groups: Vec<Group>,
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
                let v = e.verdict.as_ref()?;
                (v.bound != crate::telemetry::Bound::DriveBound).then(|| {
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

/// The warning above a ranking that includes runs that were not drive-bound.
pub const NOT_DRIVE_BOUND: &str =
    "this ranking measures the host, not the drives: these runs were not drive-bound";

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
    /// The rankings of the ranked runs with `instances` instances.
    fn of(runs: &[RunEntry], instances: usize) -> Self {
        let members = members_of(runs, instances);
        let tpcc: Vec<&RunEntry> = members
            .iter()
            .copied()
            .filter(|e| e.tpcc.is_some())
            .collect();
        let tpmc = |e: &RunEntry| e.tpcc.as_ref().map_or(0.0, |t| t.tpmc);
        Group {
            instances,
            tpmc: rank(&tpcc, tpmc, true, false),
            tps: rank(&members, |e| e.tps, true, true),
            latency_avg_ms: rank(&members, |e| e.latency_avg_ms, false, false),
            latency_p99_ms: rank(&members, |e| e.latency_p99_ms, false, false),
        }
    }

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

    /// The runs of this group, in the order given.
    pub fn members<'a>(&self, runs: &'a [RunEntry]) -> Vec<&'a RunEntry> {
        members_of(runs, self.instances)
    }
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
