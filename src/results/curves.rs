//! Database load curves in the results: `curves[]` in result.json (the max run, each point and
//! each SLO step, in total and per instance, with backlog figures, the SLO answer and, with
//! more than one instance, each instance's SLO figure read off the points).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::summary::Latency;
use drivebench_core::curve::backlog::Backlog;
use drivebench_core::curve::{PointOutcome, SloResult, read_off};

/// One `[[curve]]` as it ran.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CurveReport {
    /// Peak TPS of the closed-loop max run, all instances together.
    pub peak_tps: f64,
    /// The max run, then curve points and SLO steps in the order they ran.
    pub points: Vec<CurvePoint>,
    /// "max TPS at p99 <= X ms" over all instances, when the curve has an SLO: the bisection
    /// steered by the total (all instances' TPS summed, p99 of the merged histograms).
    pub slo: Option<SloResult>,
    /// Each instance's own figure when the curve ran on more than one instance and has an SLO
    /// (empty otherwise: one instance's figure is the total). No search of its own: it is read
    /// off the points and SLO steps that ran, as `InstanceSlo` describes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slo_per_instance: Vec<InstanceSlo>,
    /// True when every planned point ran (stop_at_p99 may end it early and still complete).
    pub completed: bool,
}

/// One instance's SLO figure, read off the curve's points and SLO steps (the max run left
/// out, as in the total's search): every instance ran each of them at the same percentage of
/// its own peak, so the figure is only as fine as the rates that ran for the total.
/// `max_rate` is the instance's highest achieved TPS at a point where its own p99 (from the
/// intended start) stayed within `p99_ms` and it kept up with its schedule; `first_miss_rate`
/// is its lowest target TPS that missed (p99 over the objective or not kept up) above the
/// highest target it met — the total's bracket, applied to the instance's own figures. Those
/// two points are the figure's confidence: the instance's limit lies between them.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct InstanceSlo {
    pub instance: String,
    #[serde(flatten)]
    pub slo: SloResult,
}

/// How a point is judged, as summary.md and report.html state it (`Backlog::judge`).
pub const SUSTAINABLE_RULE: &str = "a point is unsustainable when its shortfall, its backlog growth or the backlog left at its end passes 2 % of its scheduled transactions (at least 3 sigma of Poisson arrivals).";

/// The instances of a curve's points, in order (the first point's).
pub fn instance_names(points: &[CurvePoint]) -> Vec<&str> {
    points
        .first()
        .map(|p| p.per_instance.iter().map(|i| i.instance.as_str()).collect())
        .unwrap_or_default()
}

/// The per-instance SLO figures of `points` for objective `p99_ms` (empty with one instance).
pub fn instance_slo(points: &[CurvePoint], p99_ms: f64) -> Vec<InstanceSlo> {
    let names = instance_names(points);
    if names.len() < 2 {
        return Vec::new();
    }
    names
        .into_iter()
        .map(|name| {
            let outcomes: Vec<PointOutcome> = points
                .iter()
                .filter(|p| p.kind != PointKind::Max)
                .filter_map(|p| p.figures(Some(name)))
                .filter_map(|f| {
                    Some(PointOutcome {
                        target_rate: f.target_tps?,
                        achieved_rate: f.achieved_tps,
                        mean_ms: f.latency_ms.avg,
                        p99_ms: f.latency_ms.p99,
                        sustainable: f.sustainable,
                    })
                })
                .collect();
            InstanceSlo {
                instance: name.to_string(),
                slo: read_off(&outcomes, p99_ms),
            }
        })
        .collect()
}

/// What a point is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PointKind {
    /// The closed-loop run measuring the peak.
    Max,
    /// A point at a percentage of the peak.
    Curve,
    /// A bisection step of the SLO search.
    Slo,
}

impl PointKind {
    pub fn name(self) -> &'static str {
        match self {
            PointKind::Max => "max",
            PointKind::Curve => "curve",
            PointKind::Slo => "slo",
        }
    }
}

/// One point's figures over its measured time (settle excluded).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PointFigures {
    /// Target TPS (None for the closed-loop max run).
    pub target_tps: Option<f64>,
    pub achieved_tps: f64,
    pub transactions: u64,
    /// Response time, from the intended start.
    pub latency_ms: Latency,
    /// Service time, from the actual start.
    pub service_ms: Latency,
    /// Failed attempts.
    pub errors: u64,
    /// How far behind the schedule clients fell (None for the max run).
    pub backlog: Option<Backlog>,
    /// Clients kept up with the schedule (always true for the max run).
    pub sustainable: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct InstancePoint {
    pub instance: String,
    #[serde(flatten)]
    pub figures: PointFigures,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CurvePoint {
    pub kind: PointKind,
    /// Percentage of the peak asked for (None for the max run).
    pub pct: Option<f64>,
    /// Seconds measured.
    pub seconds: f64,
    /// All instances together: TPS summed, latency from merged histograms; sustainable when
    /// every instance was.
    pub total: PointFigures,
    pub per_instance: Vec<InstancePoint>,
    /// What the drive and the host did over the measured span, and what limited the point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<super::telemetry::PhaseTelemetry>,
    /// The engines' own I/O figures over the measured span, per instance and in total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_io: Option<super::engine_io::SpanEngineIo>,
}

impl CurvePoint {
    /// The point's name in tables: "max", "50 %", "SLO 72.5 %".
    pub fn label(&self) -> String {
        match (self.kind, self.pct) {
            (PointKind::Max, _) => "max".to_string(),
            (PointKind::Curve, Some(pct)) => format!("{pct} %"),
            (_, pct) => format!("SLO {:.1} %", pct.unwrap_or(0.0)),
        }
    }

    /// The figures of the total (None) or of one instance.
    pub fn figures(&self, instance: Option<&str>) -> Option<&PointFigures> {
        match instance {
            None => Some(&self.total),
            Some(name) => self
                .per_instance
                .iter()
                .find(|i| i.instance == name)
                .map(|i| &i.figures),
        }
    }
}
