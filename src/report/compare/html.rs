//! compare.html: the ranking tables (and the benchmark's own sections), the load
//! curves' SLO figures with the runs' p99-vs-TPS curves overlaid, the sweep tables with the
//! runs' curves overlaid, the replays (with their p99 per file class as bars), and every
//! ranked run's TPS over its compared phase on one chart, self-contained like report.html.

use std::fmt::Write;

use super::curves;
use super::model::Comparison;
use super::ranking::{ALPHA, section};
use super::replays;
use super::sweeps;
use crate::report::svg::{Chart, Scale, Series, escape, render};

/// compare.html, one self-contained page.
pub fn page(c: &Comparison) -> String {
    let mut s = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivebench compare</title><style>",
    );
    s.push_str(crate::report::html::STYLE);
    s.push_str("</style></head><body><h1>drivebench compare</h1>");
    warnings_and_runs(&mut s, c);
    if let Some(t) = super::start_state::table(&c.start_states) {
        s.push_str("<h2>Start states</h2>");
        crate::report::table::html(&mut s, &t);
    }
    if let Some(t) = super::cliff::table(&c.cliffs) {
        s.push_str("<h2>Write cliffs</h2>");
        crate::report::table::html(&mut s, &t);
    }
    limits(&mut s, c);
    for why in &c.incomparable {
        let _ = write!(
            s,
            "<p class=\"warn\">Compared with --force: {}</p>",
            escape(why)
        );
    }
    differences(&mut s, c);
    for g in &c.groups {
        let _ = write!(s, "<h2>{} instance(s) per run</h2>", g.instances);
        for (title, rows, decimals) in g.tables() {
            crate::report::table::section_html(&mut s, &section(title, rows, decimals), 3);
        }
        for sec in g.sections(&c.runs) {
            crate::report::table::section_html(&mut s, &sec, 3);
        }
    }
    if let Some(cc) = &c.curves {
        curves::html(&mut s, cc, &c.runs);
    }
    sweeps::html(&mut s, &c.sweeps);
    if let Some(rc) = &c.replays {
        replays::html(&mut s, rc);
    }
    interval_chart(&mut s, c);
    s.push_str("</body></html>");
    s
}

/// The warnings over the comparison, then the table of the compared runs.
fn warnings_and_runs(s: &mut String, c: &Comparison) {
    let limited = c.not_drive_bound();
    if !limited.is_empty() {
        let _ = write!(
            s,
            "<p class=\"warn\"><b>Warning: {}.</b></p><ul>",
            super::model::NOT_DRIVE_BOUND
        );
        for line in &limited {
            let _ = write!(s, "<li class=\"warn\">{}</li>", escape(line));
        }
        s.push_str("</ul>");
    }
    for w in &c.warnings {
        let _ = write!(s, "<p class=\"warn\"><b>Warning: {}.</b></p>", escape(w));
    }
    s.push_str("<table><tr><th>run</th><th>source</th><th>scenario</th><th>started</th><th>phase</th><th>complete</th></tr>");
    for e in &c.runs {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            escape(&e.label),
            escape(&e.source),
            escape(&e.scenario),
            escape(&e.started_at),
            escape(&e.phase),
            if e.complete { "yes" } else { "no (partial)" }
        );
    }
    s.push_str("</table>");
}

/// The settings in which the compared runs differ (compared anyway).
fn differences(s: &mut String, c: &Comparison) {
    if c.differences.is_empty() {
        return;
    }
    s.push_str("<h2>Settings that differ (compared anyway)</h2><table><tr><th>run</th><th class=\"l\">setting = value</th></tr>");
    for run in &c.differences.runs {
        let each: Vec<String> = run
            .settings
            .iter()
            .map(|(k, v)| format!("{} = {}", escape(k), escape(v)))
            .collect();
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"l\">{}</td></tr>",
            escape(&run.label),
            each.join("<br>")
        );
    }
    s.push_str("</table>");
}

/// What limited each run, and the I/O class of a drive-bound one.
fn limits(s: &mut String, c: &Comparison) {
    if let Some(t) = c.limits() {
        s.push_str("<p>What limited each run:</p>");
        crate::report::table::html(s, &t);
    }
}

/// Every ranked run's TPS per report interval on one chart, and what "vs above" means
/// (nothing when no run is ranked).
fn interval_chart(s: &mut String, c: &Comparison) {
    let series: Vec<Series> = c
        .runs
        .iter()
        .filter(|e| e.ranked)
        .map(|e| Series {
            name: e.label.clone(),
            points: e
                .interval_tps
                .iter()
                .enumerate()
                .map(|(i, t)| (i as f64 + 1.0, *t))
                .collect(),
            dashed: false,
        })
        .collect();
    if series.is_empty() {
        return;
    }
    s.push_str(&render(&Chart {
        title: "TPS per report interval of the compared phase".into(),
        x_label: "interval".into(),
        y_label: "TPS".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series,
        markers: Vec::new(),
        ..Chart::default()
    }));
    let _ = write!(
        s,
        "<p>\"vs above\": Welch's t-test on per-interval TPS against the run ranked just above, each series' sample size reduced for its lag-1 autocorrelation; significant when p &lt; {ALPHA}.</p>"
    );
}
