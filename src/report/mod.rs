//! Outputs of a run, all rendered from the results model (`crate::results`): result.json
//! (written atomically, also after every phase), series.csv (appended as intervals close),
//! summary.md, report.html (inline SVG charts, self-contained), the server settings in effect
//! both show, compare and merge. Renderers only: every table and section is one
//! `drivebench_core::table` value written by `table` in markdown and HTML alike, and a
//! benchmark's own sections come from `Benchmark` (`benchmark_sections`).

pub mod cliff;
pub mod compare;
pub mod curves;
#[cfg(test)]
mod curves_tests;
pub mod engine_io;
pub mod health;
pub mod html;
mod html_curves;
mod html_telemetry;
pub mod markdown;
pub mod merge;
pub mod replay;
pub mod server_settings;
pub mod start_state;
pub mod stats;
pub mod svg;
pub mod sweeps;
pub mod table;
pub mod telemetry;
pub mod throttle;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::results::engine_io::EngineIoRow;
use crate::results::phase::{PhaseReport, SeriesRow};
use crate::results::{ReadError, RunReport, read_result};
use drivebench_core::table::{Column, Table};

use drivebench_system::telemetry::IntervalTelemetry;

pub const PLAN_FILE: &str = "plan.json";
pub const RESULT_FILE: &str = "result.json";
pub const SUMMARY_FILE: &str = "summary.md";
pub const HTML_FILE: &str = "report.html";
pub const SWEEPS_FILE: &str = "sweeps.csv";
pub const CURVES_FILE: &str = "curves.csv";
pub const SERIES_FILE: &str = "series.csv";
pub const LOG_FILE: &str = "drivebench.log";

#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct OutputError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

/// Why `regenerate` failed: the run's result.json could not be read (the run directory given
/// is not one), or a file derived from it could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RegenerateError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Write(#[from] OutputError),
}

fn out_err(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError {
        path: path.display().to_string(),
        source,
    }
}

/// A phase's table: per instance and in total TPS, QPS, avg, p95, p99, max (ms), failed
/// attempts retried, transactions failed; notes: with more than one instance the reviews'
/// mean of instances, and what failed attempts came to.
pub fn phase_table(ph: &PhaseReport) -> Table {
    let figures = [
        "TPS", "QPS", "avg ms", "p95 ms", "p99 ms", "max ms", "retries", "failed",
    ];
    let columns = std::iter::once(Column::left("instance"));
    let mut t = Table::new(columns.chain(figures.map(Column::right)).collect());
    let cells = |name: &str, m: &crate::metrics::summary::Summary| {
        let figures = [
            format!("{:.2}", m.tps),
            format!("{:.2}", m.qps),
            format!("{:.3}", m.latency_ms.avg),
            format!("{:.3}", m.latency_ms.p95),
            format!("{:.3}", m.latency_ms.p99),
            format!("{:.3}", m.latency_ms.max),
            m.retries.to_string(),
            m.failed.to_string(),
        ];
        std::iter::once(name.to_string()).chain(figures).collect()
    };
    for i in &ph.per_instance {
        t.row(cells(&i.instance, &i.summary));
    }
    t.total(cells("total", &ph.summary));
    if ph.per_instance.len() > 1 {
        let m = &ph.mean_of_instances;
        t.notes.push(format!(
            "Mean of instances (review style): avg {:.3} ms, p99 {:.3} ms.",
            m.latency_avg_ms, m.latency_p99_ms
        ));
    }
    t.notes.extend(attempts_note(&ph.summary));
    t
}

/// The instances' loads: rows, seconds and rows per second, or that existing data was reused;
/// None when no instance loaded.
pub fn load_table(r: &RunReport) -> Option<Table> {
    let mut t = Table::figures("instance", &["rows", "seconds", "rows/s"]);
    for i in &r.instances {
        let Some(l) = &i.load else { continue };
        if l.reused {
            let reused = "reused existing data".to_string();
            t.row(vec![i.name.clone(), reused, "-".into(), "-".into()]);
        } else {
            t.row(vec![
                i.name.clone(),
                l.rows.to_string(),
                format!("{:.1}", l.seconds),
                format!("{:.0}", l.rows_per_s),
            ]);
        }
    }
    (!t.rows.is_empty()).then_some(t)
}

/// What the failed attempts of a phase came to, apart: those retried until their transaction
/// committed, and transactions given up; `None` without failed attempts.
fn attempts_note(m: &crate::metrics::summary::Summary) -> Option<String> {
    if m.errors == 0 {
        return None;
    }
    let codes: Vec<String> = m
        .errors_by_code
        .iter()
        .map(|e| format!("{} x{}", e.code, e.count))
        .collect();
    let what = if m.failed == 0 {
        "all retried until their transaction committed".to_string()
    } else {
        format!(
            "{} retried until their transaction committed, {} transaction(s) given up",
            m.retries, m.failed
        )
    };
    Some(format!(
        "{} failed attempts, {what} (by code: {}).",
        m.errors,
        codes.join(", ")
    ))
}

/// The sections the run's benchmark shows of its own (from its figures of the recorded phases
/// and the run's checks), in summary.md and report.html alike.
pub fn benchmark_sections(r: &RunReport) -> Vec<drivebench_core::table::Section> {
    let Some(w) = r.plan.database.as_ref().map(|d| &d.workload) else {
        return Vec::new();
    };
    let phases: Vec<_> = r
        .phases
        .iter()
        .filter(|p| p.recorded)
        .map(PhaseReport::view)
        .collect();
    let checks = crate::workload::views::RunChecks {
        checks: &r.checks,
        checked_at: r.checked_at.as_deref(),
    };
    w.benchmark.phase_sections(&phases, &checks, w.rate)
}

/// Write `bytes` to `path` atomically: temp file, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp).map_err(out_err(&tmp))?;
        f.write_all(bytes).map_err(out_err(&tmp))?;
        f.sync_all().map_err(out_err(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(out_err(path))
}

pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), OutputError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| OutputError {
        path: path.display().to_string(),
        source: e.into(),
    })?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// A run directory being written.
pub struct RunDir {
    pub path: PathBuf,
    series: File,
}

impl RunDir {
    /// Create the directory (refusing one that already holds a result) and start series.csv.
    pub fn create(path: &Path) -> Result<Self, OutputError> {
        std::fs::create_dir_all(path).map_err(out_err(path))?;
        let result = path.join(RESULT_FILE);
        if result.exists() {
            return Err(OutputError {
                path: result.display().to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "a run directory with results already exists here; choose another --out",
                ),
            });
        }
        let series_path = path.join(SERIES_FILE);
        let mut series = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(&series_path)
            .map_err(out_err(&series_path))?;
        writeln!(series, "{}", series_header()).map_err(out_err(&series_path))?;
        Ok(RunDir {
            path: path.to_path_buf(),
            series,
        })
    }

    /// One series.csv row: an instance's interval, then the interval's telemetry (empty cells
    /// when there is none).
    pub fn append_series(
        &mut self,
        row: &SeriesRow,
        telemetry: Option<&IntervalTelemetry>,
        engine_io: Option<&EngineIoRow>,
    ) -> Result<(), OutputError> {
        let p = self.path.join(SERIES_FILE);
        let line = series_line(row, telemetry, engine_io);
        writeln!(self.series, "{line}").map_err(out_err(&p))?;
        self.series.flush().map_err(out_err(&p))
    }

    pub fn write_result(&self, report: &RunReport) -> Result<(), OutputError> {
        let _writing = lock_results();
        write_json(&self.path.join(RESULT_FILE), report)
    }

    /// result.json plus the files derived from it.
    pub fn finish(&self, report: &RunReport) -> Result<(), OutputError> {
        let _writing = lock_results();
        finish_files(&self.path, report)
    }
}

/// series.csv's last column: whether the drive throttled in the interval (`yes`, `no`, empty
/// when its health log was not read).
pub const DRIVE_THROTTLED_COLUMN: &str = "drive_throttled";

/// series.csv's header: the interval's figures, the telemetry columns, the instance's engine
/// I/O columns, then the drive's throttle mark.
pub fn series_header() -> String {
    format!(
        "{},{},{},{DRIVE_THROTTLED_COLUMN}",
        SeriesRow::CSV_HEADER,
        IntervalTelemetry::csv_header(),
        engine_io::csv_header()
    )
}

fn series_line(
    row: &SeriesRow,
    telemetry: Option<&IntervalTelemetry>,
    engine_io: Option<&EngineIoRow>,
) -> String {
    let cells = match telemetry {
        Some(t) => t.csv_fields(),
        None => ",".repeat(IntervalTelemetry::csv_header().matches(',').count()),
    };
    let engine = engine_io::csv_fields(engine_io);
    let throttle = row.drive_throttle.csv_cell();
    format!("{},{cells},{engine},{throttle}", row.csv_line())
}

/// Held while result.json is written, so an abort never interleaves with a write.
static RESULTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn lock_results() -> std::sync::MutexGuard<'static, ()> {
    RESULTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// result.json, summary.md, report.html, and sweeps.csv / curves.csv when there are any.
fn finish_files(dir: &Path, report: &RunReport) -> Result<(), OutputError> {
    write_json(&dir.join(RESULT_FILE), report)?;
    write_atomic(
        &dir.join(SUMMARY_FILE),
        markdown::summary(report).as_bytes(),
    )?;
    if !report.sweeps.is_empty() {
        let csv = sweeps::csv(&report.sweeps);
        write_atomic(&dir.join(SWEEPS_FILE), csv.as_bytes())?;
    }
    if !report.curves.is_empty() {
        let csv = curves::csv(&report.curves);
        write_atomic(&dir.join(CURVES_FILE), csv.as_bytes())?;
    }
    write_atomic(&dir.join(HTML_FILE), html::page(report).as_bytes())
}

/// A run aborted at once (a second stop signal): its last result.json marked interrupted with
/// `why`, and summary.md and report.html written from it. series.csv stays as written live.
/// Holds the results lock for good: the process is about to exit, and nothing may write after.
pub fn close_aborted(dir: &Path, why: &str) -> Result<(), RegenerateError> {
    let writing = lock_results();
    let mut report = read_result(&dir.join(RESULT_FILE))?;
    report.status = crate::results::status::RunStatus::Interrupted {
        why: Some(why.to_string()),
    };
    report.finished_at = Some(drivebench_core::config::units::utc_now());
    finish_files(dir, &report)?;
    std::mem::forget(writing);
    Ok(())
}

/// The recorded phases whose stored latency histogram cannot be read (corrupt or cut short),
/// each with why, for `report` to say so.
pub fn unreadable_histograms(report: &RunReport) -> Vec<String> {
    report
        .phases
        .iter()
        .filter(|p| p.recorded)
        .filter_map(|p| {
            let e = drivebench_core::histogram::decode(&p.histogram).err()?;
            Some(html::unreadable_histogram(p, &e))
        })
        .collect()
}

/// Regenerate summary.md, report.html, series.csv (and sweeps.csv when sweeps ran) of a run
/// directory from its result.json.
pub fn regenerate(dir: &Path) -> Result<RunReport, RegenerateError> {
    let report = read_result(&dir.join(RESULT_FILE))?;
    let mut csv = series_header();
    csv.push('\n');
    for phase in &report.phases {
        // An interval's telemetry row shares its end (elapsed_s) with its instances' rows.
        let at: std::collections::HashMap<u64, &IntervalTelemetry> = phase
            .telemetry
            .iter()
            .flat_map(|t| &t.series)
            .map(|t| (t.elapsed_s.to_bits(), &t.figures))
            .collect();
        let engine_at = |row: &SeriesRow| {
            let rows = phase.engine_io.iter().flat_map(|e| &e.series);
            rows.into_iter().find(|e| {
                e.elapsed_s.to_bits() == row.elapsed_s.to_bits() && e.instance == row.instance
            })
        };
        for row in &phase.series {
            let telemetry = at.get(&row.elapsed_s.to_bits()).copied();
            csv.push_str(&series_line(row, telemetry, engine_at(row)));
            csv.push('\n');
        }
    }
    write_atomic(&dir.join(SERIES_FILE), csv.as_bytes())?;
    if !report.sweeps.is_empty() {
        let csv = sweeps::csv(&report.sweeps);
        write_atomic(&dir.join(SWEEPS_FILE), csv.as_bytes())?;
    }
    if !report.curves.is_empty() {
        write_atomic(
            &dir.join(CURVES_FILE),
            curves::csv(&report.curves).as_bytes(),
        )?;
    }
    write_atomic(
        &dir.join(SUMMARY_FILE),
        markdown::summary(&report).as_bytes(),
    )?;
    write_atomic(&dir.join(HTML_FILE), html::page(&report).as_bytes())?;
    Ok(report)
}
