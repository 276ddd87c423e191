//! report.html: one self-contained page per run, from result.json only — header (scenario,
//! drive, host, engines, status), summary tables, TPS and latency over time with the phase
//! boundaries, the latency percentile distribution of each recorded phase, loads, warnings and
//! the resolved plan; the sections the run's benchmark shows of its own (`Benchmark::
//! phase_sections`), for a load curve the one `html_curves` writes. Inline CSS and SVG;
//! nothing is fetched, nothing runs.

use std::fmt::Write;

use crate::results::phase::PhaseReport;

use super::svg::{Chart, Scale, Series, escape, render};
use crate::results::finding::Level;
use crate::results::run::RunReport;
use crate::results::status::RunStatus;
use drivebench_core::config::units::format_bytes;
use drivebench_core::config::units::format_seconds;

pub(super) const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 12px}\
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
th:first-child,td:first-child,.l{text-align:left}th{background:#f3f3f3}tr.total td{font-weight:600}\
dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:8px 0}dt{color:#555}dd{margin:0}\
.status{display:inline-block;padding:1px 8px;border-radius:3px;color:#fff}.ok{background:#2b7a3d}.bad{background:#a33}\
.chart{width:100%;max-width:760px;height:auto;display:block;margin:8px 0}\
.chart text{font-size:11px;fill:#333}.ct{font-size:13px!important;font-weight:600}\
.yt{text-anchor:end}.xt,.xl{text-anchor:middle}.yl{text-anchor:middle}\
.grid{stroke:#e5e5e5}.mark{stroke:#888;stroke-dasharray:3 3}.mt{fill:#666!important}\
.level{stroke:#c00000;stroke-dasharray:2 3}.lt{text-anchor:end;fill:#c00000!important}\
.warn{color:#8a5a00}.fail{color:#a33;font-weight:600}pre{background:#f7f7f7;padding:8px;overflow:auto;font-size:12px}\
@media print{.chart{page-break-inside:avoid}}";

pub fn page(r: &RunReport) -> String {
    let mut s = String::new();
    let title = escape(&r.plan.name);
    let _ = write!(
        s,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivebench: {title}</title><style>{STYLE}</style></head><body>"
    );
    header(&mut s, r);
    let recorded = r.phases.iter().filter(|p| p.recorded);
    for phase in recorded.chain(r.phases.iter().filter(|p| !p.recorded)) {
        summary_table(&mut s, phase);
        if let Some(st) = &phase.steady {
            let _ = write!(s, "<p>Steady state: {}</p>", escape(&st.line()));
        }
        if let Some(c) = &phase.cliff {
            super::cliff::html(&mut s, c);
        }
        if let Some(t) = phase.telemetry.as_ref().filter(|_| phase.recorded) {
            super::html_telemetry::verdict(&mut s, t);
        }
        if phase.recorded {
            super::engine_io::html(&mut s, phase);
        }
    }
    if r.phases.is_empty() && r.plan.database.is_some() {
        s.push_str("<p>No phase was measured.</p>");
    }
    if let Some(m) = &r.merge {
        host_cliffs_html(&mut s, m);
    }
    if let Some(sec) = super::health::section(r) {
        super::table::section_html(&mut s, &sec, 2);
    }
    super::server_settings::html(&mut s, &r.instances);
    super::engine_io::missing_html(&mut s, &r.instances);
    for sec in super::benchmark_sections(r) {
        super::table::section_html(&mut s, &sec, 2);
    }
    over_time(&mut s, r);
    for phase in r.phases.iter().filter(|p| p.recorded) {
        distribution(&mut s, phase);
    }
    super::html_curves::section(&mut s, &r.curves);
    super::sweeps::html(&mut s, &r.sweeps);
    if let Some(c) = &r.capture {
        super::replay::capture_html(&mut s, c);
    }
    if let Some(rp) = &r.replay {
        super::replay::replay_html(&mut s, rp);
    }
    loads_and_warnings(&mut s, r);
    let plan = serde_json::to_string_pretty(&r.plan).unwrap_or_default();
    let _ = write!(
        s,
        "<h2>Resolved plan</h2><details><summary>plan.json</summary><pre>{}</pre></details>",
        escape(&plan)
    );
    let _ = write!(
        s,
        "<p style=\"color:#777\">drivebench {} — generated from result.json</p></body></html>",
        escape(&r.drivebench_version)
    );
    s
}

fn header(s: &mut String, r: &RunReport) {
    let (class, status) = match &r.status {
        RunStatus::Complete { .. } => ("ok", "complete".to_string()),
        RunStatus::Running => ("bad", "partial (still running when written)".into()),
        RunStatus::Failed { error } => ("bad", format!("failed: {error}")),
        RunStatus::Interrupted { .. } => ("bad", "interrupted (partial results)".into()),
    };
    let _ = write!(
        s,
        "<h1>{}</h1><span class=\"status {class}\">{}</span><dl>",
        escape(&r.plan.name),
        escape(&status)
    );
    let mut row = |k: &str, v: String| {
        let _ = write!(s, "<dt>{k}</dt><dd>{}</dd>", escape(&v));
    };
    row(
        "Started",
        format!(
            "{}{}",
            r.started_at,
            r.finished_at
                .as_deref()
                .map(|f| format!(", finished {f}"))
                .unwrap_or_default()
        ),
    );
    let t = &r.environment.target;
    let drive = t.describe();
    row("Target", drive);
    if let Some(state) = &r.start_state {
        row("Start state", state.line());
    }
    if let Some(d) = &t.device {
        row(
            "Drive",
            format!(
                "{} {} {}",
                d.name,
                d.model.as_deref().unwrap_or("unknown model"),
                d.capacity_bytes.map(format_bytes).unwrap_or_default()
            ),
        );
    }
    let h = &r.environment.host;
    row(
        "Host",
        format!("{} ({}, {} CPUs)", h.hostname, h.os, h.cpus),
    );
    for i in &r.instances {
        row(&format!("Instance {}", i.name), i.version.clone());
    }
    if let Some(db) = &r.plan.database {
        row("Workload", super::markdown::workload_line(&db.workload));
    }
    if r.plan.time_scale != 1.0 {
        row(
            "Time scale",
            format!("{} (every duration multiplied by it)", r.plan.time_scale),
        );
    }
    s.push_str("</dl>");
}

fn summary_table(s: &mut String, ph: &PhaseReport) {
    let dur = format_seconds(ph.summary.seconds);
    let kind = if ph.recorded {
        "recorded"
    } else {
        "not recorded"
    };
    let partial = if ph.completed { "" } else { ", stopped early" };
    let _ = write!(s, "<h2>{} ({kind}, {dur}{partial})</h2>", escape(&ph.name));
    super::table::html(s, &super::phase_table(ph));
}

/// TPS per instance and in total, and latency, against time since the clock started.
fn over_time(s: &mut String, r: &RunReport) {
    let rows: Vec<_> = r.phases.iter().flat_map(|p| p.series.iter()).collect();
    if rows.is_empty() {
        return;
    }
    let markers: Vec<(f64, String)> = r
        .phases
        .iter()
        .map(|p| (p.start_offset_s, p.name.clone()))
        .collect();
    let names: Vec<&str> = r.instances.iter().map(|i| i.name.as_str()).collect();
    let per = |f: &dyn Fn(&crate::results::phase::SeriesRow) -> f64, name: &str| Series {
        name: name.to_string(),
        points: rows
            .iter()
            .filter(|row| row.instance == name)
            .map(|row| (row.elapsed_s, f(row)))
            .collect(),
        dashed: false,
    };
    let mut tps: Vec<Series> = Vec::new();
    if names.len() > 1 {
        let total = r.phases.iter().flat_map(|p| p.total_tps()).collect();
        tps.push(Series {
            name: "total".into(),
            points: total,
            dashed: false,
        });
    }
    tps.extend(names.iter().map(|n| per(&|row| row.tps, n)));
    let throttled = super::throttle::spans(r);
    let chart = |title: &str, y: &str, series| {
        let mut c = super::svg::time_chart(title, y, series, &markers);
        if !throttled.is_empty() {
            c.bands = vec![super::svg::Bands::throttled(throttled.clone())];
        }
        c
    };
    s.push_str("<h2>Over time</h2>");
    s.push_str(&render(&chart("Transactions per second", "TPS", tps)));
    let mut lat = Vec::new();
    for n in &names {
        let label = |what: &str| {
            if names.len() > 1 {
                format!("{n} {what}")
            } else {
                what.to_string()
            }
        };
        let mut avg = per(&|row| row.latency_avg_ms, n);
        avg.name = label("avg");
        let mut p99 = per(&|row| row.latency_p99_ms, n);
        p99.name = label("p99");
        p99.dashed = true;
        lat.extend([avg, p99]);
    }
    s.push_str(&render(&chart("Latency per interval", "ms", lat)));
    super::html_telemetry::over_time(s, r, &markers);
}

/// What a report says of a phase whose stored histogram is unreadable, and what it does
/// without it; report.html puts it where the chart would be, `report` prints it.
pub fn unreadable_histogram(
    ph: &PhaseReport,
    e: &drivebench_core::histogram::DecodeError,
) -> String {
    format!(
        "phase {}: its latency histogram is unreadable ({e}). The latency-by-percentile chart is \
         left out; TPS, average and percentile latencies come from the summary stored in \
         result.json.",
        ph.name
    )
}

/// Response time by percentile, from the phase's stored histogram (microseconds).
fn distribution(s: &mut String, ph: &PhaseReport) {
    let h = match drivebench_core::histogram::decode(&ph.histogram) {
        Ok(h) => h,
        Err(e) => {
            let text = escape(&unreadable_histogram(ph, &e));
            let _ = write!(s, "<p class=\"warn\">{text}</p>");
            return;
        }
    };
    if h.is_empty() {
        return;
    }
    let mut points = Vec::new();
    let mut p = 0.0;
    while p < 99.9999 {
        points.push((p, h.value_at_quantile(p / 100.0) as f64 / 1000.0));
        // Denser towards the tail: ten steps per nine.
        p += (100.0 - p) * (1.0 - 10f64.powf(-0.1));
    }
    points.push((99.9999, h.max() as f64 / 1000.0));
    let chart = Chart {
        title: format!("{}: latency by percentile", ph.name),
        x_label: "percentile".into(),
        y_label: "ms (log)".into(),
        x_scale: Scale::Nines,
        y_scale: Scale::Log10,
        series: vec![Series {
            name: format!("{} transactions", h.len()),
            points,
            dashed: false,
        }],
        markers: Vec::new(),
        ..Chart::default()
    };
    s.push_str(&render(&chart));
}

fn loads_and_warnings(s: &mut String, r: &RunReport) {
    if let Some(t) = super::load_table(r) {
        s.push_str("<h2>Load</h2>");
        super::table::html(s, &t);
    }
    if !r.preflight.is_empty() || !r.warnings.is_empty() {
        s.push_str("<h2>Preflight and warnings</h2><ul>");
        for f in &r.preflight {
            let class = match f.level {
                Level::Warning | Level::Error => " class=\"warn\"",
                Level::Ok | Level::Note => "",
            };
            let _ = write!(
                s,
                "<li{class}>{}: {}</li>",
                f.level.as_str(),
                escape(&f.message)
            );
        }
        for w in &r.warnings {
            let _ = write!(s, "<li class=\"warn\">warning: {}</li>", escape(w));
        }
        s.push_str("</ul>");
    }
}

/// A merged run's write cliffs, one per host and cliff phase (each host's drive has its own).
fn host_cliffs_html(s: &mut String, m: &crate::results::merge::MergeReport) {
    for p in &m.phases {
        for h in &p.hosts {
            let Some(c) = &h.cliff else { continue };
            let _ = write!(
                s,
                "<h2>Write cliff of {} on {}</h2>",
                escape(&p.phase),
                escape(&h.label)
            );
            super::cliff::html(s, c);
        }
    }
}
