//! Database load curves in the results: `curves[]` in result.json (the max run, each point and
//! each SLO step, in total and per instance, with backlog figures, the SLO answer and, with
//! more than one instance, each instance's SLO figure read off the points), curves.csv, the
//! live line of a point, and the summary.md section.

use std::fmt::Write;

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

pub const CSV_HEADER: &str = "kind,pct,instance,seconds,target_tps,achieved_tps,transactions,avg_ms,p50_ms,p95_ms,p99_ms,max_ms,service_avg_ms,service_p99_ms,errors,start_lag_first_ms,start_lag_last_ms,behind_at_end,shortfall_pct,sustainable";

/// curves.csv: one row per point and instance plus a "total" row per point.
pub fn csv(curves: &[CurveReport]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for c in curves {
        for p in &c.points {
            let rows = std::iter::once(("total", &p.total)).chain(
                p.per_instance
                    .iter()
                    .map(|i| (i.instance.as_str(), &i.figures)),
            );
            for (name, f) in rows {
                let opt = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_default();
                let b = f.backlog.as_ref();
                let _ = writeln!(
                    s,
                    "{},{},{name},{:.3},{},{:.3},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{},{},{},{},{},{}",
                    p.kind.name(),
                    opt(p.pct),
                    p.seconds,
                    opt(f.target_tps),
                    f.achieved_tps,
                    f.transactions,
                    f.latency_ms.avg,
                    f.latency_ms.p50,
                    f.latency_ms.p95,
                    f.latency_ms.p99,
                    f.latency_ms.max,
                    f.service_ms.avg,
                    f.service_ms.p99,
                    f.errors,
                    opt(b.map(|b| b.start_lag_first_ms)),
                    opt(b.map(|b| b.start_lag_last_ms)),
                    opt(b.map(|b| b.behind_at_end)),
                    opt(b.map(|b| b.shortfall_pct)),
                    f.sustainable
                );
            }
        }
    }
    s
}

/// The live line of a finished point (totals).
pub fn point_line(p: &CurvePoint) -> String {
    let f = &p.total;
    let what = match (p.kind, p.pct) {
        (PointKind::Max, _) => "curve max (closed loop)".to_string(),
        (PointKind::Curve, Some(pct)) => format!("curve {pct} %"),
        (_, pct) => format!("curve SLO step {:.1} %", pct.unwrap_or(0.0)),
    };
    let target = f
        .target_tps
        .map(|t| format!(" of {t:.1}"))
        .unwrap_or_default();
    let lag = f
        .backlog
        .map(|b| {
            format!(
                ", start lag {:.1} -> {:.1} ms",
                b.start_lag_first_ms, b.start_lag_last_ms
            )
        })
        .unwrap_or_default();
    format!(
        "{what}: {:.1} TPS{target}, avg {:.2} ms, p99 {:.2} ms (service p99 {:.2} ms), errors {}{lag}{}",
        f.achieved_tps,
        f.latency_ms.avg,
        f.latency_ms.p99,
        f.service_ms.p99,
        f.errors,
        if f.sustainable { "" } else { ", UNSUSTAINABLE" }
    )
}

/// "max TPS at p99 <= 20 ms: 1234.5 (bracket: met at 1234.5, missed at 1300.0)".
pub fn slo_line(s: &SloResult) -> String {
    let max = s
        .max_rate
        .map_or("none, no rate met it".to_string(), |r| format!("{r:.1}"));
    let miss = s
        .first_miss_rate
        .map_or("no rate tried missed it".to_string(), |r| {
            format!("lowest target that missed {r:.1} TPS")
        });
    format!("max TPS at p99 <= {} ms: {max} ({miss})", s.p99_ms)
}

/// summary.md section.
pub fn markdown(s: &mut String, curves: &[CurveReport]) {
    for c in curves {
        let _ = writeln!(s, "\n## Load curve\n");
        let _ = writeln!(
            s,
            "Peak {:.1} TPS (closed loop). Response time from the intended start; {SUSTAINABLE_RULE}\n",
            c.peak_tps
        );
        let _ = writeln!(
            s,
            "| point | target TPS | TPS | avg ms | p50 ms | p95 ms | p99 ms | max ms | service p99 ms | errors | start lag first/last ms | sustainable |"
        );
        let _ = writeln!(
            s,
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        );
        for p in &c.points {
            let f = &p.total;
            let point = p.label();
            let _ = writeln!(
                s,
                "| {point} | {} | {:.1} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {} |",
                f.target_tps
                    .map(|t| format!("{t:.1}"))
                    .unwrap_or("-".into()),
                f.achieved_tps,
                f.latency_ms.avg,
                f.latency_ms.p50,
                f.latency_ms.p95,
                f.latency_ms.p99,
                f.latency_ms.max,
                f.service_ms.p99,
                f.errors,
                f.backlog
                    .map(|b| format!("{:.1} / {:.1}", b.start_lag_first_ms, b.start_lag_last_ms))
                    .unwrap_or("-".into()),
                if f.sustainable { "yes" } else { "no" }
            );
        }
        limits_markdown(s, &c.points);
        if let Some(slo) = &c.slo {
            let _ = writeln!(s, "\n{}", slo_line(slo));
        }
        if !c.slo_per_instance.is_empty() {
            let _ = writeln!(
                s,
                "\nPer instance, read off the points above (no search of its own):\n"
            );
        }
        for i in &c.slo_per_instance {
            let _ = writeln!(s, "- {}: {}", i.instance, slo_line(&i.slo));
        }
    }
}

/// summary.md's list of what limited each point that has telemetry.
fn limits_markdown(s: &mut String, points: &[CurvePoint]) {
    use super::telemetry::{bound_name, drive_line};
    if points.iter().all(|p| p.telemetry.is_none()) {
        return;
    }
    let _ = writeln!(s, "\nWhat limited each point:\n");
    for p in points {
        let Some(t) = &p.telemetry else { continue };
        let _ = writeln!(
            s,
            "- {}: **{}** — {}",
            p.label(),
            bound_name(t.verdict.bound),
            t.verdict.reason
        );
        if let Some(line) = drive_line(t) {
            let _ = writeln!(s, "  - drive: {line}");
        }
    }
}
