//! What the outputs hand a benchmark when they ask it for its sections (`Benchmark`'s
//! `phase_sections`, `compare_sections`, `merged_figures`): a benchmark's own figures as
//! result.json and compare.json hold them (a field named after the benchmark), a recorded phase,
//! the run's checks, a host's part of a merge, the figure compare ranks a benchmark's runs by.

use serde::Serialize;

use super::tpcc::figures::{InstanceCheck, TpccPhase, TpccRun};
use crate::metrics::summary::Summary;

/// A benchmark's own figures of one phase, as result.json's phase holds them.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseFiguresView<'a> {
    pub tpcc: Option<&'a TpccPhase>,
}

impl PhaseFiguresView<'_> {
    /// TPC-C's tpmC, for a merge's per-host table.
    pub fn tpmc(&self) -> Option<f64> {
        self.tpcc.map(|t| t.tpmc)
    }

    /// TPC-C's NOPM, when read.
    pub fn nopm(&self) -> Option<f64> {
        self.tpcc.and_then(|t| t.nopm)
    }
}

/// The same figures owned: what a merge computes for the merged phase.
#[derive(Debug, Clone, Default)]
pub struct MergedFigures {
    pub tpcc: Option<TpccPhase>,
}

/// A phase as its benchmark's sections read it.
#[derive(Debug, Clone, Copy)]
pub struct PhaseView<'a> {
    pub name: &'a str,
    pub summary: &'a Summary,
    pub figures: PhaseFiguresView<'a>,
}

/// The consistency checks a run holds, and when `drivebench check` last replaced them.
#[derive(Debug, Clone, Copy)]
pub struct RunChecks<'a> {
    pub checks: &'a [InstanceCheck],
    pub checked_at: Option<&'a str>,
}

/// One host's part of a merged phase: its label and its figures of the phase.
#[derive(Debug, Clone, Copy)]
pub struct HostPart<'a> {
    pub label: &'a str,
    pub figures: PhaseFiguresView<'a>,
}

/// A run's own figures of its compared phase, as compare.json's `runs[]` holds them (flattened
/// into the run: a field named after the benchmark).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunFigures {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<TpccRun>,
}

impl RunFigures {
    /// The figures of a run compared on `phase`.
    pub fn of(phase: &PhaseView) -> Self {
        RunFigures {
            tpcc: phase.figures.tpcc.map(|t| TpccRun::of(t, phase.summary)),
        }
    }
}

/// The figure compare ranks a benchmark's runs by before TPS: its key in compare.json's
/// groups, its table's title, the run's value and the decimals shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headline {
    pub key: &'static str,
    pub title: &'static str,
    pub value: f64,
    pub decimals: usize,
}
