//! One run as compare sees it: where it came from, the phase it is compared on with that
//! phase's TPS and latency, its TPS per report interval (the samples of the significance test),
//! and when it has them its benchmark's own figures and its load curve's peak, SLO figure and
//! points. The ranking and every section read runs through `RunEntry`; this file imports
//! nothing else of compare.

use serde::Serialize;

use crate::report::throttle::ThrottleCount;
use crate::results::curves::PointKind;
use crate::results::phase::PhaseReport;
use crate::results::run::RunReport;
use crate::workload::benchmark::Benchmark;
use crate::workload::views::{Headline, RunFigures};
use drivebench_core::curve::SloResult;

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
    /// The benchmark's own figures of the compared phase, under its name.
    #[serde(flatten)]
    pub figures: RunFigures,
    /// Its load curve's peak, SLO figure and points, when it ran one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curve: Option<CurveFigures>,
    /// Whether the run has a recorded database phase and is ranked (a sweep-only run is not).
    pub ranked: bool,
    /// What limited the compared phase, when the run has telemetry; a drive-bound one with
    /// the I/O class the engines' figures named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::results::telemetry::PhaseVerdict>,
    /// Whether the drive throttled (thermal) in any phase or interval, from its health log;
    /// absent when no health log was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttled: Option<bool>,
    /// Its intervals marked throttled and marked at all, where its intervals were read.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<ThrottleCount>,
    /// Total TPS per report interval of the phase (the samples of the significance test).
    #[serde(skip)]
    pub interval_tps: Vec<f64>,
    /// The run's benchmark, when it has a database part.
    #[serde(skip)]
    pub benchmark: Option<Benchmark>,
    /// The figure its benchmark ranks runs by before TPS, when it has one.
    #[serde(skip)]
    pub headline: Option<Headline>,
}

impl RunEntry {
    /// The entry of report `r`, read from `source` and shown as `label`.
    pub fn new(label: String, source: &str, r: &RunReport) -> Self {
        let phase = compared_phase(r);
        let figures = phase.map_or_else(RunFigures::default, |p| RunFigures::of(&p.view()));
        let benchmark = r
            .plan
            .database
            .as_ref()
            .map(|d| d.workload.benchmark.clone());
        RunEntry {
            label,
            source: source.to_string(),
            scenario: r.plan.name.clone(),
            started_at: r.started_at.clone(),
            complete: r.status.is_complete(),
            instances: r.instances.len(),
            phase: phase.map_or_else(|| "- (sweeps only)".into(), |p| p.name.clone()),
            tps: phase.map_or(0.0, |p| p.summary.tps),
            latency_avg_ms: phase.map_or(0.0, |p| p.summary.latency_ms.avg),
            latency_p99_ms: phase.map_or(0.0, |p| p.summary.latency_ms.p99),
            headline: benchmark.as_ref().and_then(|b| b.headline(&figures)),
            figures,
            benchmark,
            curve: curve_figures(r),
            ranked: phase.is_some(),
            verdict: phase
                .and_then(|p| p.telemetry.as_ref())
                .map(|t| t.verdict.clone()),
            throttled: crate::report::health::run_throttled(r),
            intervals: crate::report::throttle::count(r),
            interval_tps: phase
                .map(|p| p.total_tps().into_iter().map(|(_, tps)| tps).collect())
                .unwrap_or_default(),
        }
    }
}

/// The phase a run is compared on: its last recorded phase that measured something.
fn compared_phase(r: &RunReport) -> Option<&PhaseReport> {
    r.phases
        .iter()
        .rev()
        .find(|p| p.recorded && p.summary.transactions > 0)
}

/// One measured point of a run's curve (total over its instances).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurveCell {
    pub tps: f64,
    /// From the intended start.
    pub p99_ms: f64,
    pub sustainable: bool,
}

/// A run's curve as compared: its first `curves[]` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurveFigures {
    pub peak_tps: f64,
    pub slo: Option<SloResult>,
    /// Curve points and SLO steps (not the max run), in order of achieved TPS.
    pub points: Vec<CurveCell>,
}

/// The curve figures of `r`, when it ran a curve.
pub fn curve_figures(r: &RunReport) -> Option<CurveFigures> {
    let c = r.curves.first()?;
    let mut points: Vec<CurveCell> = c
        .points
        .iter()
        .filter(|p| p.kind != PointKind::Max)
        .map(|p| CurveCell {
            tps: p.total.achieved_tps,
            p99_ms: p.total.latency_ms.p99,
            sustainable: p.total.sustainable,
        })
        .collect();
    points.sort_by(|a, b| a.tps.total_cmp(&b.tps));
    Some(CurveFigures {
        peak_tps: c.peak_tps,
        slo: c.slo,
        points,
    })
}
