//! compare's load-curve section, present when a run has a `[[curve]]`: per run its peak TPS
//! (the closed-loop max run) and its SLO figure ("max TPS at p99 ≤ 20 ms") side by side,
//! ranked by that figure when every run has one under the same objective and the same number
//! of instances — otherwise the section says plainly why the figures are not ranked; and in
//! compare.html the runs' p99-vs-TPS curves overlaid with the shared objective.

use std::fmt::Write;

use serde::Serialize;

use super::entry::{CurveFigures, RunEntry};
use super::ranking::{self, Ranked, rank};
use crate::report::svg::{Chart, Marks, Scale, Series, escape, render};
use crate::report::table;
use drivebench_core::curve::SloResult;
use drivebench_core::table::{Column, Table};

/// The runs' SLO figures against each other.
#[derive(Debug, Clone, Serialize)]
pub struct CurveComparison {
    /// The objective (p99, ms) when every run's curve has the same one.
    pub slo_p99_ms: Option<f64>,
    /// By max TPS within the objective, higher is better (a run where no rate met it counts
    /// as 0); empty when not ranked.
    pub ranking: Vec<Ranked>,
    /// Why the figures are not ranked, when they are not.
    pub not_ranked: Option<String>,
}

/// A run's curve SLO figure, when it ran a curve with an objective.
fn slo_of(e: &RunEntry) -> Option<SloResult> {
    e.curve.as_ref().and_then(|c| c.slo)
}

fn slo_figure(e: &RunEntry) -> f64 {
    slo_of(e).and_then(|s| s.max_rate).unwrap_or(0.0)
}

/// The comparison of the runs' SLO figures; None when no run has a curve.
pub fn build(runs: &[RunEntry]) -> Option<CurveComparison> {
    if runs.iter().all(|e| e.curve.is_none()) {
        return None;
    }
    let list = |f: &dyn Fn(&RunEntry) -> String| {
        runs.iter()
            .map(|e| format!("{}: {}", e.label, f(e)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let without = |f: &dyn Fn(&CurveFigures) -> bool| -> Vec<&str> {
        runs.iter()
            .filter(|e| !e.curve.as_ref().is_some_and(f))
            .map(|e| e.label.as_str())
            .collect()
    };
    let targets: Vec<Option<f64>> = runs.iter().map(|e| slo_of(e).map(|s| s.p99_ms)).collect();
    let no_curve = without(&|_| true);
    let no_slo = without(&|c| c.slo.is_some());
    let not_ranked = if !no_curve.is_empty() {
        Some(format!("{} ran no load curve", no_curve.join(", ")))
    } else if !no_slo.is_empty() {
        Some(format!("the curve of {} has no SLO", no_slo.join(", ")))
    } else if targets.iter().any(|t| *t != targets[0]) {
        Some(format!(
            "the SLO targets differ ({}); a rate within one objective says nothing about another",
            list(&|e| format!("p99 <= {} ms", slo_of(e).map_or(0.0, |s| s.p99_ms)))
        ))
    } else if runs.iter().any(|e| e.instances != runs[0].instances) {
        Some(format!(
            "the runs have different instance counts ({}), so their total TPS are not comparable",
            list(&|e| e.instances.to_string())
        ))
    } else {
        None
    };
    let members: Vec<&RunEntry> = runs.iter().collect();
    Some(CurveComparison {
        slo_p99_ms: if not_ranked.is_none() {
            targets[0]
        } else {
            None
        },
        ranking: if not_ranked.is_none() {
            rank(&members, slo_figure, true, false)
        } else {
            Vec::new()
        },
        not_ranked,
    })
}

/// The side-by-side rows: run, instances, peak TPS, SLO, max TPS within it, lowest target
/// that missed ("-" where a run has no curve or no SLO).
fn rows(runs: &[RunEntry]) -> Vec<[String; 6]> {
    let opt = |v: Option<f64>, none: &str| v.map_or(none.to_string(), |v| format!("{v:.1}"));
    runs.iter()
        .map(|e| {
            let f = e.curve.as_ref();
            let slo = f.and_then(|f| f.slo);
            [
                e.label.clone(),
                e.instances.to_string(),
                opt(f.map(|f| f.peak_tps), "no curve"),
                slo.map_or("-".into(), |s| format!("p99 <= {} ms", s.p99_ms)),
                slo.map_or("-".into(), |s| opt(s.max_rate, "none")),
                slo.map_or("-".into(), |s| opt(s.first_miss_rate, "none missed")),
            ]
        })
        .collect()
}

/// The table's heads; the figure's names its objective when the runs share one.
fn heads(p99_ms: Option<f64>) -> [String; 6] {
    [
        "run".into(),
        "instances".into(),
        "peak TPS (closed loop)".into(),
        "SLO".into(),
        p99_ms.map_or("max TPS within it".into(), |t| {
            format!("max TPS at p99 <= {t} ms")
        }),
        "lowest target that missed".into(),
    ]
}

/// The ranking's title, with `le` for "less than or equal" ("<=" in markdown, "≤" in HTML).
fn ranking_title(p99_ms: Option<f64>, le: &str) -> String {
    format!(
        "Max TPS at p99 {le} {} ms (higher is better)",
        p99_ms.unwrap_or_default()
    )
}

/// The load-curve table of `runs`, with `le` for "less than or equal" ("<=" in markdown, "≤"
/// in HTML).
fn table(cc: &CurveComparison, runs: &[RunEntry], le: &str) -> Table {
    let heads = heads(cc.slo_p99_ms);
    let columns = heads
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let h = h.replace("<=", le);
            match i {
                0 | 3 => Column::left(&h),
                _ => Column::right(&h),
            }
        })
        .collect();
    let mut t = Table::new(columns);
    for row in rows(runs) {
        t.row(row.iter().map(|x| x.replace("<=", le)).collect());
    }
    t
}

/// compare.md's load-curve section: `cc` over `runs`, the runs it was built from.
pub fn markdown(s: &mut String, cc: &CurveComparison, runs: &[RunEntry]) {
    s.push_str("\n## Load curves\n\n");
    table::markdown(s, &table(cc, runs, "<="));
    match &cc.not_ranked {
        Some(why) => {
            let _ = writeln!(s, "\nSLO figures not ranked: {why}.");
        }
        None => table::section_markdown(
            s,
            &ranking::section(&ranking_title(cc.slo_p99_ms, "<="), &cc.ranking, 1),
            3,
        ),
    }
}

/// compare.html's load-curve section: the table, the ranking or why not, the overlay.
pub fn html(s: &mut String, cc: &CurveComparison, runs: &[RunEntry]) {
    s.push_str("<h2>Load curves</h2>");
    table::html(s, &table(cc, runs, "≤"));
    match &cc.not_ranked {
        Some(why) => {
            let _ = write!(
                s,
                "<p class=\"warn\">SLO figures not ranked: {}.</p>",
                escape(&why.replace("<=", "≤"))
            );
        }
        None => table::section_html(
            s,
            &ranking::section(&ranking_title(cc.slo_p99_ms, "≤"), &cc.ranking, 1),
            3,
        ),
    }
    let curves: Vec<(&str, &CurveFigures)> = runs
        .iter()
        .filter_map(|e| e.curve.as_ref().map(|f| (e.label.as_str(), f)))
        .collect();
    let unsustainable = curves
        .iter()
        .flat_map(|(_, f)| f.points.iter().filter(|p| !p.sustainable))
        .map(|p| (p.tps, p.p99_ms))
        .collect();
    s.push_str(&render(&Chart {
        title: "Load curves: p99 latency vs TPS".into(),
        x_label: "TPS achieved (all instances of a run)".into(),
        y_label: "p99 ms from the intended start".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: curves
            .iter()
            .map(|(label, f)| Series {
                name: label.to_string(),
                points: f.points.iter().map(|p| (p.tps, p.p99_ms)).collect(),
                dashed: false,
            })
            .collect(),
        levels: cc
            .slo_p99_ms
            .map(|t| (t, format!("p99 objective {t} ms")))
            .into_iter()
            .collect(),
        marks: vec![Marks::unsustainable(unsustainable)],
        dots: true,
        ..Chart::default()
    }));
}
