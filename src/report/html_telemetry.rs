//! report.html's telemetry part, present when the phases carry telemetry: per recorded phase
//! the verdict with its deciding figures and the drive and host lines, then the drive's
//! operations, throughput and await and the host's CPU shares over time, with the phase
//! boundaries, under the TPS chart. Reads result.json's `phases[].telemetry` only.

use std::fmt::Write;

use super::svg::{Series, escape, render};
use super::telemetry::{drive_line, host_line};
use crate::results::run::RunReport;
use crate::results::telemetry::{PhaseTelemetry, bound_name};
use drivebench_system::telemetry::IntervalTelemetry;

/// The verdict of a recorded phase, as a short block.
pub(super) fn verdict(s: &mut String, t: &PhaseTelemetry) {
    let v = t.verdict.judged();
    let _ = write!(
        s,
        "<p><b>What limited it: {}</b> — {}{}</p>",
        bound_name(v.bound),
        escape(&v.reason),
        escape(&super::engine_io::class_suffix(t))
    );
    super::table::html(s, &super::telemetry::deciding(t));
    s.push_str("<ul>");
    for (what, line) in [("Drive", drive_line(t)), ("Host", host_line(&t.summary))] {
        if let Some(line) = line {
            let _ = write!(s, "<li>{what}: {}</li>", escape(&line));
        }
    }
    s.push_str("</ul>");
}

/// The telemetry charts over time, when any phase has telemetry rows.
pub(super) fn over_time(s: &mut String, r: &RunReport, markers: &[(f64, String)]) {
    let rows: Vec<(f64, &IntervalTelemetry)> = r
        .phases
        .iter()
        .filter_map(|p| p.telemetry.as_ref())
        .flat_map(|t| t.series.iter().map(|row| (row.elapsed_s, &row.figures)))
        .collect();
    if rows.is_empty() {
        return;
    }
    let series = |name: &str, dashed: bool, f: &dyn Fn(&IntervalTelemetry) -> Option<f64>| Series {
        name: name.into(),
        points: rows
            .iter()
            .filter_map(|(at, t)| Some((*at, f(t)?)))
            .collect(),
        dashed,
    };
    let dev = |t: &IntervalTelemetry| t.device.as_ref().map(|d| d.total.clone());
    let chart = |title: &str, y: &str, series| super::svg::time_chart(title, y, series, markers);
    if rows.iter().any(|(_, t)| t.device.is_some()) {
        let ops = vec![
            series("reads/s", false, &|t| dev(t).map(|d| d.read_ops_per_s)),
            series("writes/s", false, &|t| dev(t).map(|d| d.write_ops_per_s)),
            series("flushes/s", true, &|t| dev(t).map(|d| d.flushes_per_s)),
        ];
        s.push_str(&render(&chart(
            "Drive: operations per second",
            "ops/s",
            ops,
        )));
        let mib = vec![
            series("read", false, &|t| dev(t).map(|d| d.read_mib_per_s)),
            series("written", false, &|t| dev(t).map(|d| d.write_mib_per_s)),
        ];
        s.push_str(&render(&chart("Drive: throughput", "MiB/s", mib)));
        let wait = vec![
            series("read await", false, &|t| {
                dev(t).and_then(|d| d.read_await_ms)
            }),
            series("write await", false, &|t| {
                dev(t).and_then(|d| d.write_await_ms)
            }),
            series("aqu-sz", true, &|t| dev(t).map(|d| d.aqu_sz)),
        ];
        s.push_str(&render(&chart(
            "Drive: await (ms) and queue",
            "ms / requests",
            wait,
        )));
    }
    let cpu = |f: fn(&drivebench_system::telemetry::CpuFigures) -> f64| {
        move |t: &IntervalTelemetry| t.cpu.as_ref().map(f)
    };
    let shares = vec![
        series("user", false, &cpu(|c| c.user_pct)),
        series("system", false, &cpu(|c| c.system_pct)),
        series("iowait", false, &cpu(|c| c.iowait_pct)),
        series("drivebench", true, &|t| {
            t.own_process.as_ref().and_then(|p| p.host_share_pct)
        }),
    ];
    s.push_str(&render(&chart("Host CPU (share of all CPUs)", "%", shares)));
}
