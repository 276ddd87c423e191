//! Database load curves as curves.csv, the live line of a point, and the summary.md section.

use crate::results::curves::{CurvePoint, CurveReport, PointKind, SUSTAINABLE_RULE};
use drivebench_core::curve::SloResult;
use drivebench_core::table::{Cell, Column, Table};
use std::fmt::Write;

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
        super::table::markdown(s, &points_table(&c.points, &[None]));
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

/// The points' table, one row per point of the total (`[None]`) or of each instance named
/// (then with an instance column): target and achieved TPS, latency from the intended start,
/// service p99, errors, the backlog's start lag and shortfall, whether it was sustainable.
pub fn points_table(points: &[CurvePoint], whos: &[Option<&str>]) -> Table {
    let inst = whos.iter().any(Option::is_some);
    let figures = [
        "%",
        "target TPS",
        "TPS",
        "avg ms",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "service p99 ms",
        "errors",
        "start lag first → last ms",
        "shortfall %",
    ];
    let mut columns = Vec::new();
    if inst {
        columns.push(Column::left("instance"));
    }
    columns.push(Column::left("kind"));
    columns.extend(figures.map(Column::right));
    columns.push(Column::right("sustainable"));
    let mut t = Table::new(columns).with_class("curve");
    let opt = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |v| format!("{v:.d$}"));
    for who in whos {
        for p in points {
            let Some(f) = p.figures(*who) else { continue };
            let b = f.backlog.as_ref();
            let l = &f.latency_ms;
            let cells = [
                p.kind.name().to_string(),
                opt(p.pct, 1),
                opt(f.target_tps, 1),
                format!("{:.1}", f.achieved_tps),
                format!("{:.3}", l.avg),
                format!("{:.3}", l.p50),
                format!("{:.3}", l.p95),
                format!("{:.3}", l.p99),
                format!("{:.3}", l.max),
                format!("{:.3}", f.service_ms.p99),
                f.errors.to_string(),
                b.map_or("-".into(), |b| {
                    format!("{:.1} → {:.1}", b.start_lag_first_ms, b.start_lag_last_ms)
                }),
                opt(b.map(|b| b.shortfall_pct), 1),
            ];
            let sustainable = if f.sustainable { "yes" } else { "no" };
            let row = who.map(|w| Cell::from(w.to_string())).into_iter();
            let row = row.chain(cells.into_iter().map(Cell::from));
            let row = row.chain([Cell::judged(sustainable.into(), f.sustainable)]);
            t.cells(row.collect());
        }
    }
    t
}

/// summary.md's list of what limited each point that has telemetry.
fn limits_markdown(s: &mut String, points: &[CurvePoint]) {
    use super::telemetry::drive_line;
    use crate::results::telemetry::bound_name;
    if points.iter().all(|p| p.telemetry.is_none()) {
        return;
    }
    let _ = writeln!(s, "\nWhat limited each point:\n");
    for p in points {
        let Some(t) = &p.telemetry else { continue };
        let _ = writeln!(
            s,
            "- {}: **{}** — {}{}",
            p.label(),
            bound_name(t.verdict.judged().bound),
            t.verdict.judged().reason,
            super::engine_io::class_suffix(t)
        );
        if let Some(line) = drive_line(t) {
            let _ = writeln!(s, "  - drive: {line}");
        }
    }
}
