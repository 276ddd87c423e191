//! The engines' own I/O figures in the outputs: series.csv's columns per instance and
//! interval, summary.md's and report.html's table per phase (each instance's figures beside
//! the drive's await over the phase), the verdict's I/O class with its deciding figures, the
//! instances' missing notes, and report.html's chart per recorded phase of the engines' I/O
//! latency over time next to the drive's await. Reads result.json's `phases[].engine_io`,
//! `instances[].engine_io_missing` and the verdict's `class` only.

use std::fmt::Write;
use std::sync::LazyLock;

use super::svg::{Series, escape, render, time_chart};
use crate::results::engine_io::{EngineIoRow, SpanEngineIo};
use crate::results::phase::PhaseReport;
use crate::results::run::InstanceReport;
use crate::results::telemetry::PhaseTelemetry;
use drivebench_core::engine_io::{ClassJudgement, EngineIoFigures};
use drivebench_core::table::{Column, Table};

type Figure = fn(&EngineIoFigures) -> Option<f64>;

/// series.csv's engine I/O columns, in order, with the figure each shows.
const COLUMNS: [(&str, Figure); 17] = [
    ("log_flushes_per_s", |f| f.log_flushes_per_s),
    ("log_flushes_per_commit", |f| f.log_flushes_per_commit),
    ("log_flush_ms", |f| f.log_flush_ms),
    ("log_mib_s", |f| f.log_mib_s),
    ("data_reads_per_s", |f| f.data_reads_per_s),
    ("data_reads_per_txn", |f| f.data_reads_per_txn),
    ("data_read_ms", |f| f.data_read_ms),
    ("buffer_hit_pct", |f| f.buffer_hit_pct),
    ("data_writes_per_s", |f| f.data_writes_per_s),
    ("data_write_mib_s", |f| f.data_write_mib_s),
    ("data_write_ms", |f| f.data_write_ms),
    ("background_write_mib_s", |f| f.background_write_mib_s),
    ("free_page_waits_per_s", |f| f.free_page_waits_per_s),
    ("pending_io", |f| f.pending_io.map(|n| n as f64)),
    ("checkpoint_age_mib", |f| f.checkpoint_age_mib),
    ("log_wait_share_pct", |f| f.log_wait_share_pct),
    ("data_read_wait_share_pct", |f| f.data_read_wait_share_pct),
];

static HEADER: LazyLock<String> = LazyLock::new(|| COLUMNS.map(|(name, _)| name).join(","));

/// The engine I/O column names of series.csv, comma-separated.
pub fn csv_header() -> &'static str {
    HEADER.as_str()
}

/// An interval's engine I/O cells (empty without figures), three decimals.
pub fn csv_fields(row: Option<&EngineIoRow>) -> String {
    let figures = row.and_then(|r| r.figures.as_ref());
    COLUMNS
        .iter()
        .map(|(_, f)| match figures.and_then(f) {
            Some(v) => format!("{v:.3}"),
            None => String::new(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn cell(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

/// A phase's engine I/O: per instance and in total, the drive's await over the phase beside
/// the engines' own latencies.
pub fn table(io: &SpanEngineIo, telemetry: Option<&PhaseTelemetry>) -> Table {
    let mut t = Table::new(vec![
        Column::left("instance"),
        Column::right("log flushes/s"),
        Column::right("per commit"),
        Column::right("flush ms"),
        Column::right("drive write ms"),
        Column::right("data reads/s"),
        Column::right("per txn"),
        Column::right("read ms"),
        Column::right("drive read ms"),
        Column::right("buffer hit %"),
        Column::right("bg write MiB/s"),
    ]);
    let drive = telemetry.map(|t| t.drive_await()).unwrap_or_default();
    let cells = |name: &str, f: Option<&EngineIoFigures>| {
        let get = |x: Figure| f.and_then(x);
        vec![
            name.to_string(),
            cell(get(|f| f.log_flushes_per_s), 1),
            cell(get(|f| f.log_flushes_per_commit), 2),
            cell(get(|f| f.log_flush_ms), 3),
            cell(drive.write_ms, 3),
            cell(get(|f| f.data_reads_per_s), 1),
            cell(get(|f| f.data_reads_per_txn), 2),
            cell(get(|f| f.data_read_ms), 3),
            cell(drive.read_ms, 3),
            cell(get(|f| f.buffer_hit_pct), 1),
            cell(get(|f| f.background_write_mib_s), 2),
        ]
    };
    for i in &io.per_instance {
        t.row(cells(&i.instance, i.figures.as_ref()));
    }
    if io.per_instance.len() > 1 {
        t.total(cells("total", io.total.as_ref()));
    }
    let missed = io.series.iter().filter(|r| r.figures.is_none()).count();
    if missed > 0 {
        t.notes.push(format!(
            "{missed} interval reading(s) missed (their figures fall in the next interval)."
        ));
    }
    t
}

/// The figures an I/O class rests on, against their limits.
pub fn class_table(c: &ClassJudgement) -> Table {
    let mut t = Table::new(vec![
        Column::left("figure"),
        Column::right("value"),
        Column::right("threshold"),
    ]);
    for f in &c.deciding {
        let limit = f
            .threshold
            .map_or("-".into(), |x| format!("{x:.2} {}", f.unit));
        t.row(vec![
            f.name.clone(),
            format!("{:.2} {}", f.value, f.unit),
            limit,
        ]);
    }
    t
}

/// "; drive: log flushes: 1.02 per commit at 4.80 ms …" after a drive-bound verdict's reason
/// when it names a class; empty otherwise.
pub fn class_suffix(t: &PhaseTelemetry) -> String {
    t.verdict
        .class()
        .map_or(String::new(), |c| format!("; drive: {}", c.text))
}

/// summary.md's engine I/O of a phase: the class of its verdict with its figures, and the
/// table.
pub fn markdown(s: &mut String, phase: &PhaseReport) {
    let Some(io) = &phase.engine_io else { return };
    let telemetry = phase.telemetry.as_ref();
    if let Some(c) = telemetry.and_then(|t| t.verdict.class()) {
        let _ = writeln!(s, "\nWhat decided the I/O class ({}):\n", c.class.label());
        super::table::markdown(s, &class_table(c));
    }
    let _ = writeln!(s, "\nEngine I/O ({}):\n", phase.name);
    super::table::markdown(s, &table(io, telemetry));
}

/// The instances' missing engine I/O notes, once per instance.
pub fn missing_markdown(s: &mut String, instances: &[InstanceReport]) {
    if instances.iter().all(|i| i.engine_io_missing.is_empty()) {
        return;
    }
    let _ = writeln!(s, "\n## Engine I/O not counted\n");
    for i in instances {
        for m in &i.engine_io_missing {
            let _ = writeln!(s, "- {}: {m}", i.name);
        }
    }
}

/// report.html's engine I/O of a recorded phase: the class, the table and the latency chart.
pub fn html(s: &mut String, phase: &PhaseReport) {
    let Some(io) = &phase.engine_io else { return };
    let telemetry = phase.telemetry.as_ref();
    if let Some(c) = telemetry.and_then(|t| t.verdict.class()) {
        let _ = write!(
            s,
            "<p>What decided the I/O class ({}):</p>",
            c.class.label()
        );
        super::table::html(s, &class_table(c));
    }
    let _ = write!(s, "<p>Engine I/O ({}):</p>", escape(&phase.name));
    super::table::html(s, &table(io, telemetry));
    latency_chart(s, phase, io);
}

/// The instances' missing engine I/O notes, once per instance.
pub fn missing_html(s: &mut String, instances: &[InstanceReport]) {
    if instances.iter().all(|i| i.engine_io_missing.is_empty()) {
        return;
    }
    s.push_str("<h2>Engine I/O not counted</h2><ul>");
    for i in instances {
        for m in &i.engine_io_missing {
            let _ = write!(s, "<li>{}: {}</li>", escape(&i.name), escape(m));
        }
    }
    s.push_str("</ul>");
}

/// The engines' log flush and data read latency per instance over the phase, and the drive's
/// read and write await (dashed) from the phase's telemetry.
fn latency_chart(s: &mut String, phase: &PhaseReport, io: &SpanEngineIo) {
    let mut series = Vec::new();
    for i in &io.per_instance {
        let rows: Vec<&EngineIoRow> = (io.series.iter())
            .filter(|r| r.instance == i.instance)
            .collect();
        for (what, f) in [
            ("log flush", (|f| f.log_flush_ms) as Figure),
            ("data read", |f| f.data_read_ms),
        ] {
            let points: Vec<(f64, f64)> = (rows.iter())
                .filter_map(|r| Some((r.elapsed_s, f(r.figures.as_ref()?)?)))
                .collect();
            if !points.is_empty() {
                series.push(Series {
                    name: format!("{what} ms ({})", i.instance),
                    points,
                    dashed: false,
                });
            }
        }
    }
    if series.is_empty() {
        s.push_str(
            "<p>The engines did not time their log flushes or data reads in this phase \
             (PostgreSQL: track_wal_io_timing and track_io_timing off; MariaDB: \
             performance_schema's file instruments off, and 10.8 and later never time \
             their redo log flushes): the drive's await alone.</p>",
        );
    }
    if let Some(t) = &phase.telemetry {
        let dev = |row: &crate::results::telemetry::TelemetryRow, read: bool| {
            let d = &row.figures.device.as_ref()?.total;
            if read {
                d.read_await_ms
            } else {
                d.write_await_ms
            }
        };
        for (name, read) in [("drive read await", true), ("drive write await", false)] {
            series.push(Series {
                name: name.into(),
                points: (t.series.iter())
                    .filter_map(|row| Some((row.elapsed_s, dev(row, read)?)))
                    .collect(),
                dashed: true,
            });
        }
    }
    if series.iter().all(|x| x.points.is_empty()) {
        return;
    }
    let title = format!(
        "Engine I/O latency ({}) next to the drive's await",
        phase.name
    );
    s.push_str(&render(&time_chart(&title, "ms", series, &[])));
}
