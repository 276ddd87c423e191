//! report.html's "Load curves" section, present when the run has `curves[]`: per curve the
//! peak, the SLO answer with its confidence (the neighbouring points that met and missed it),
//! in total and per instance, a chart of p99 and average response time (from the intended
//! start) against achieved TPS — one p99 series per instance plus the total when there are
//! several, the objective as a horizontal line, the answer as a vertical one, unsustainable
//! points circled — and the table of the points. Reads result.json's `curves[]` only.

use std::fmt::Write;

use super::curves::points_table;
use super::svg::{Chart, Marks, Scale, Series, escape, render, slo_marks};
use super::telemetry::{drive_line, host_line};
use crate::results::curves::{
    CurvePoint, CurveReport, PointFigures, PointKind, SUSTAINABLE_RULE, instance_names,
};
use crate::results::telemetry::bound_name;
use drivebench_core::curve::SloResult;

pub(super) fn section(s: &mut String, curves: &[CurveReport]) {
    if curves.is_empty() {
        return;
    }
    s.push_str("<h2>Load curves</h2>");
    for (k, c) in curves.iter().enumerate() {
        let names = instance_names(&c.points);
        let title = if curves.len() > 1 {
            format!("Load curve {}", k + 1)
        } else {
            "Load curve".to_string()
        };
        let _ = write!(
            s,
            "<h3>{title}</h3><p>Peak {:.1} TPS (closed-loop max run{}){}. Each point is an open model at a percentage of each instance's own peak; response time counts from the intended start, service time from the actual start; {SUSTAINABLE_RULE}</p>",
            c.peak_tps,
            if names.len() > 1 {
                format!(", {} instances together", names.len())
            } else {
                String::new()
            },
            if c.completed {
                ""
            } else {
                " — the curve did not finish"
            }
        );
        if let Some(slo) = &c.slo {
            let _ = write!(
                s,
                "<p class=\"slo\">{}</p>",
                slo_text(slo, &c.points, None, "")
            );
        }
        if !c.slo_per_instance.is_empty() {
            s.push_str("<p>Per instance, read off the same points (no search of its own):</p><ul class=\"slo\">");
            for i in &c.slo_per_instance {
                let _ = write!(
                    s,
                    "<li>{}</li>",
                    slo_text(&i.slo, &c.points, Some(&i.instance), &i.instance)
                );
            }
            s.push_str("</ul>");
        }
        s.push_str(&chart(c, &title, &names));
        super::table::html(s, &points_table(&c.points, &[None]));
        limits(s, &c.points);
        if names.len() > 1 {
            s.push_str("<details><summary>per instance</summary>");
            let each: Vec<Option<&str>> = names.iter().map(|n| Some(*n)).collect();
            super::table::html(s, &points_table(&c.points, &each));
            s.push_str("</details>");
        }
    }
}

/// What limited each point that has telemetry, with the drive's and the host's figures.
fn limits(s: &mut String, points: &[CurvePoint]) {
    if points.iter().all(|p| p.telemetry.is_none()) {
        return;
    }
    s.push_str("<p>What limited each point:</p><ul class=\"limits\">");
    for p in points {
        let Some(t) = &p.telemetry else { continue };
        let _ = write!(
            s,
            "<li><b>{}: {}</b> — {}{}",
            escape(&p.label()),
            bound_name(t.verdict.judged().bound),
            escape(&t.verdict.judged().reason),
            escape(&super::engine_io::class_suffix(t))
        );
        for line in [drive_line(t), host_line(&t.summary)].into_iter().flatten() {
            let _ = write!(s, "<br>{}", escape(&line));
        }
        s.push_str("</li>");
    }
    s.push_str("</ul>");
}

/// "Max TPS at p99 ≤ 20 ms: 700.0 — met at SLO 70.0 % (700.0 TPS, p99 18.000 ms); missed
/// above it at 90 % (target 900.0 TPS, p99 22.000 ms, sustainable)", for the total or one
/// instance (`who` leads the text then).
fn slo_text(slo: &SloResult, points: &[CurvePoint], instance: Option<&str>, who: &str) -> String {
    let measured = || {
        points
            .iter()
            .filter(|p| p.kind != PointKind::Max)
            .filter_map(|p| p.figures(instance).map(|f| (p, f)))
    };
    let lead = if who.is_empty() {
        format!("Max TPS at p99 ≤ {} ms", slo.p99_ms)
    } else {
        format!("{}: max TPS at p99 ≤ {} ms", escape(who), slo.p99_ms)
    };
    let met = slo.max_rate.map_or_else(
        || " none: no rate tried met it".to_string(),
        |r| {
            let at = measured()
                .find(|(_, f)| f.achieved_tps == r)
                .map(|(p, f)| {
                    format!(
                        " — met at {} ({:.1} TPS, p99 {:.3} ms)",
                        escape(&p.label()),
                        f.achieved_tps,
                        f.latency_ms.p99
                    )
                })
                .unwrap_or_default();
            format!(" <b>{r:.1}</b>{at}")
        },
    );
    let missed = match slo.first_miss_rate {
        None => "; every rate tried met it, so the limit lies above the highest point".into(),
        Some(m) => measured()
            .find(|(_, f)| f.target_tps == Some(m))
            .map(|(p, f)| {
                format!(
                    "; the lowest above it that missed: {} (target {m:.1} TPS, {:.1} achieved, p99 {:.3} ms{})",
                    escape(&p.label()),
                    f.achieved_tps,
                    f.latency_ms.p99,
                    if f.sustainable { "" } else { ", unsustainable" }
                )
            })
            .unwrap_or_else(|| format!("; the lowest target above it that missed: {m:.1} TPS")),
    };
    format!("{lead}:{met}{missed}.")
}

/// p99 (and avg) against achieved TPS, the measured points in order of TPS.
fn chart(c: &CurveReport, title: &str, names: &[&str]) -> String {
    let mut points: Vec<&CurvePoint> = c
        .points
        .iter()
        .filter(|p| p.kind != PointKind::Max)
        .collect();
    points.sort_by(|a, b| a.total.achieved_tps.total_cmp(&b.total.achieved_tps));
    let line = |name: String, who: Option<&str>, f: fn(&PointFigures) -> f64, dashed| Series {
        name,
        points: points
            .iter()
            .filter_map(|p| p.figures(who))
            .map(|x| (x.achieved_tps, f(x)))
            .collect(),
        dashed,
    };
    let several = names.len() > 1;
    let prefix = if several { "total " } else { "" };
    let mut series = vec![
        line(format!("{prefix}p99"), None, |f| f.latency_ms.p99, false),
        line(format!("{prefix}avg"), None, |f| f.latency_ms.avg, true),
    ];
    let mut whos = vec![None];
    if several {
        for n in names {
            series.push(line(
                format!("{n} p99"),
                Some(n),
                |f| f.latency_ms.p99,
                false,
            ));
            whos.push(Some(*n));
        }
    }
    let unsustainable = points
        .iter()
        .flat_map(|p| whos.iter().filter_map(|w| p.figures(*w)))
        .filter(|f| !f.sustainable)
        .map(|f| (f.achieved_tps, f.latency_ms.p99))
        .collect();
    let (levels, markers) = c
        .slo
        .as_ref()
        .map(|slo| slo_marks(slo, "TPS"))
        .unwrap_or_default();
    render(&Chart {
        title: format!("{title}: latency vs TPS"),
        x_label: if several {
            "TPS achieved (total, and each instance's own)".into()
        } else {
            "TPS achieved".into()
        },
        y_label: "ms from the intended start".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series,
        markers,
        levels,
        marks: vec![Marks::unsustainable(unsustainable)],
        bands: Vec::new(),
        dots: true,
    })
}

#[cfg(test)]
mod tests {
    use super::super::curves_tests::sample_curve;
    use super::*;
    use crate::results::curves::instance_slo;

    fn html(instances: &[&str]) -> String {
        let mut c = sample_curve(instances);
        c.slo_per_instance = instance_slo(&c.points, 20.0);
        let mut s = String::new();
        section(&mut s, &[c]);
        s
    }

    #[test]
    fn one_instance_gets_avg_and_p99_the_objective_the_answer_and_its_neighbours() {
        let s = html(&["a"]);
        assert!(s.starts_with("<h2>Load curves</h2><h3>Load curve</h3><p>Peak 500.0 TPS"));
        assert_eq!(s.matches("<svg").count(), 1);
        assert!(s.contains("class=\"lg\">p99</text>") && s.contains("class=\"lg\">avg</text>"));
        assert!(
            s.contains("class=\"lg\">unsustainable</text>"),
            "110 % circled"
        );
        assert!(s.contains("class=\"level\"") && s.contains("p99 objective 20 ms"));
        assert!(
            s.contains("max 350 TPS at p99 ≤ 20 ms"),
            "the answer marked"
        );
        assert!(s.contains(
            "Max TPS at p99 ≤ 20 ms: <b>350.0</b> — met at SLO 70.0 % (350.0 TPS, p99 18.000 ms); the lowest above it that missed: 90 % (target 450.0 TPS, 450.0 achieved, p99 22.000 ms)."
        ), "{s}");
        assert!(!s.contains("per instance"), "one instance: the total is it");
        // max + 4 curve points + 1 SLO step, header row, no instance column.
        assert_eq!(s.matches("<tr>").count(), 7);
        assert!(s.contains("<tr><td>max</td><td>-</td><td>-</td><td>500.0</td>"));
        assert!(s.contains("<td class=\"fail\">no</td>"));
        assert!(!s.contains("<th>instance</th>"));
    }

    #[test]
    fn several_instances_get_a_series_each_their_own_figure_and_a_table_each() {
        let s = html(&["a", "b"]);
        for legend in ["total p99", "total avg", "a p99", "b p99"] {
            assert!(
                s.contains(&format!("class=\"lg\">{legend}</text>")),
                "{legend}"
            );
        }
        assert!(s.contains("<li>b: max TPS at p99 ≤ 20 ms: <b>450.0</b> — met at 90 % (450.0 TPS, p99 11.000 ms); the lowest above it that missed: 110 % (target 550.0 TPS, 440.0 achieved, p99 40.000 ms, unsustainable).</li>"), "{s}");
        assert!(s.contains("<li>a: max TPS at p99 ≤ 20 ms: <b>350.0</b>"));
        assert!(s.contains("<details><summary>per instance</summary>"));
        // total table 1 + 6, per-instance table 1 + 2 x 6
        assert_eq!(s.matches("<tr>").count(), 7 + 13);
        // Three unsustainable 110 % points circled: total, a, b.
        assert_eq!(s.matches("r=\"5\" fill=\"none\"").count(), 3);
    }

    #[test]
    fn a_curve_without_an_slo_or_a_met_rate_says_so_plainly() {
        let mut c = sample_curve(&["a"]);
        c.slo = Some(SloResult {
            p99_ms: 1.0,
            max_rate: None,
            first_miss_rate: Some(50.0),
        });
        let mut s = String::new();
        section(&mut s, std::slice::from_ref(&c));
        assert!(s.contains("Max TPS at p99 ≤ 1 ms: none: no rate tried met it; the lowest above it that missed: 10 %"), "{s}");
        c.slo = None;
        c.completed = false;
        let mut s = String::new();
        section(&mut s, &[c]);
        assert!(!s.contains("class=\"slo\"") && !s.contains("class=\"level\""));
        assert!(s.contains("the curve did not finish"));
    }
}
