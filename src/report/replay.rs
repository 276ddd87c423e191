//! The capture and replay sections of summary.md and report.html: a capture's requests by
//! file class and task, device latency per operation and lost events; a replay's latency per
//! operation and file class, schedule lag, the drive's verdict, the fidelity table (recorded
//! against replayed, figure by figure, with the verdict line) and, in report.html, the
//! requests per second recorded and replayed on one chart.

use std::fmt::Write;

use crate::capture::CaptureSummary;
use crate::replay::{LatencyUs, ReplayReport};
use crate::report::svg::{Chart, Scale, Series, escape, render};

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn pct(share: f64) -> String {
    format!("{:.1} %", share * 100.0)
}

/// The capture's tables: classes, latency per operation, the busiest tasks.
pub fn capture_markdown(s: &mut String, c: &CaptureSummary) {
    let _ = writeln!(s, "\n## Block I/O capture\n");
    let _ = writeln!(
        s,
        "{} requests, {:.1} MiB over {:.1} s ({:.0} IOPS, {:.1} MiB/s, read share {}, sequential {}, \
         queue depth mean {:.2} p99 {}, {:.1} flushes/s); the trace is in capture/. Its reader \
         used {:.2} CPU-seconds.",
        c.requests,
        mib(c.bytes),
        c.shape.seconds,
        c.shape.iops,
        c.shape.mib_per_s,
        pct(c.shape.read_share),
        pct(c.shape.sequential_share),
        c.shape.queue_depth.mean,
        c.shape.queue_depth.p99,
        c.shape.flushes_per_s,
        c.reader_cpu_s
    );
    match c.lost_events {
        0 => {}
        n => {
            let _ = writeln!(
                s,
                "\n**{n} events were lost** (the kernel's buffer overflowed): the capture is incomplete."
            );
        }
    }
    let _ = writeln!(
        s,
        "\n| file class | requests | share | MiB | share of bytes | reads | writes | flushes |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for k in &c.classes {
        let n = |op: &str| k.shape.ops.get(op).map_or(0, |o| o.requests);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} | {} | {} | {} | {} |",
            k.class.as_str(),
            k.requests,
            pct(k.request_share),
            mib(k.bytes),
            pct(k.byte_share),
            n("read"),
            n("write"),
            n("flush")
        );
    }
    let _ = writeln!(
        s,
        "\n| operation | completed | device p50 µs | p99 µs | max µs |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|");
    for l in &c.latency {
        let _ = writeln!(
            s,
            "| {} | {} | {:.0} | {:.0} | {:.0} |",
            l.op.as_str(),
            l.completed,
            l.p50_us,
            l.p99_us,
            l.max_us
        );
    }
    let tasks: Vec<String> = c
        .tasks
        .iter()
        .take(6)
        .map(|t| format!("{} {}", t.name, t.requests))
        .collect();
    let _ = writeln!(s, "\nIssuing tasks (requests): {}", tasks.join(", "));
}

fn latency_row(s: &mut String, name: &str, l: &LatencyUs) {
    let _ = writeln!(
        s,
        "| {name} | {} | {:.1} | {} | {} | {} | {} |",
        l.count, l.mean, l.p50, l.p99, l.p999, l.max
    );
}

/// The replay's tables: latency per operation and class, lag, fidelity.
pub fn replay_markdown(s: &mut String, r: &ReplayReport) {
    let _ = writeln!(s, "\n## Replay\n");
    let timing = match r.speed {
        Some(x) if r.timing == "scaled" => format!("scaled, speed {x}"),
        _ => r.timing.clone(),
    };
    let _ = writeln!(
        s,
        "{} of {} requests ({:.1} MiB) in {:.1} s on {} ({} bytes used of {}); timing {timing}, \
         at most {} in flight{}.",
        r.requests,
        r.requests_total,
        mib(r.bytes),
        r.seconds,
        r.target.path,
        r.target.span_bytes,
        r.target.size_bytes,
        r.max_in_flight,
        if r.interrupted { "; interrupted" } else { "" }
    );
    if let Some(v) = &r.verdict {
        let _ = writeln!(
            s,
            "\nWhat limited it: {}: {}",
            crate::results::telemetry::bound_name(v.bound),
            v.reason
        );
    }
    let _ = writeln!(
        s,
        "\nLatency from each request's recorded time (what the database would have waited), µs:\n"
    );
    let _ = writeln!(s, "| | requests | mean | p50 | p99 | p99.9 | max |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
    for (name, l) in &r.latency_us {
        latency_row(s, name, l);
    }
    for (name, l) in &r.latency_by_class_us {
        latency_row(s, &format!("class {name}"), l);
    }
    latency_row(s, "schedule lag", &r.lag_us);
    fidelity_markdown(s, r);
}

/// The fidelity block: the verdict, then each figure recorded against replayed.
pub fn fidelity_markdown(s: &mut String, r: &ReplayReport) {
    let f = &r.fidelity;
    let _ = writeln!(s, "\n### Fidelity: {}\n", f.verdict);
    let _ = writeln!(
        s,
        "| figure | recorded | expected | replayed | deviation | tolerance | |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---|");
    for c in &f.figures {
        let unit = unit_text(c.unit);
        let mark = match (c.judged, c.passed) {
            (false, _) => "not judged",
            (true, true) => "ok",
            (true, false) => "DEVIATED",
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:+.2}{unit} | {:.2}{unit} | {mark} |",
            c.label,
            figure(c.recorded),
            figure(c.expected),
            figure(c.replayed),
            c.deviation,
            c.tolerance
        );
    }
    let _ = writeln!(
        s,
        "\nSchedule lag: p50 {} µs, p99 {} µs, max {} µs.",
        f.lag.p50_us, f.lag.p99_us, f.lag.max_us
    );
}

fn unit_text(u: crate::replay::DeviationUnit) -> &'static str {
    match u {
        crate::replay::DeviationUnit::Count => "",
        crate::replay::DeviationUnit::Points => " pt",
        crate::replay::DeviationUnit::Percent => " %",
        crate::replay::DeviationUnit::Microseconds => " µs",
    }
}

/// A figure in a table: integers as such, fractions with four decimals.
fn figure(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v.abs() < 1.0 {
        format!("{v:.4}")
    } else {
        format!("{v:.2}")
    }
}

/// report.html's capture section.
pub fn capture_html(s: &mut String, c: &CaptureSummary) {
    let mut md = String::new();
    capture_markdown(&mut md, c);
    let _ = write!(s, "<section><pre>{}</pre></section>", escape(&md));
}

/// report.html's replay section: requests per second recorded and replayed, then the tables.
pub fn replay_html(s: &mut String, r: &ReplayReport) {
    let _ = write!(s, "<section><h2>Replay</h2>");
    let replayed: Vec<(f64, f64)> = r
        .per_second
        .iter()
        .map(|row| (row.second as f64, row.issued as f64))
        .collect();
    let recorded: Vec<(f64, f64)> = r
        .source
        .recorded_per_second
        .iter()
        .enumerate()
        .map(|(i, n)| (i as f64, *n as f64))
        .collect();
    let chart = Chart {
        title: "Requests per second: recorded and replayed".into(),
        x_label: "seconds".into(),
        y_label: "requests/s".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: vec![
            Series {
                name: "recorded".into(),
                points: recorded,
                dashed: true,
            },
            Series {
                name: "replayed".into(),
                points: replayed,
                dashed: false,
            },
        ],
        markers: Vec::new(),
        levels: Vec::new(),
        marks: Vec::new(),
        bands: Vec::new(),
        dots: false,
    };
    s.push_str(&render(&chart));
    let mut md = String::new();
    replay_markdown(&mut md, r);
    let _ = write!(s, "<pre>{}</pre></section>", escape(&md));
}
