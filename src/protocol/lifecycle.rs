//! A run's lifecycle in one place, for `run`, `curve`, `sweep` and `replay`: [`Run::start`]
//! (the run directory, plan.json, the log file, the console's first lines, the first
//! result.json, the stop signals, the live metrics), the caller's protocol on
//! [`Run::ctx`], and [`Run::finish`] (the run's status from its [`Ending`], result.json and
//! the files rendered from it, the closing lines), which gives the typed [`Outcome`] the CLI
//! maps to an exit code.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{Ending, RunCtx, capture, signals, telemetry};
use crate::console::Console;
use crate::exporter::{LiveMetrics, serve};
use crate::report::{self, OutputError, RunDir};
use crate::results::RunReport;
use crate::results::status::RunStatus;
use drivebench_core::config::units::utc_now;

/// `runs/<name>-<UTC timestamp>`: a run directory when none is given.
pub fn default_out(name: &str) -> PathBuf {
    let stamp: String = utc_now()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    PathBuf::from("runs").join(format!("{name}-{stamp}"))
}

/// What a run needs before it starts.
pub struct Start {
    /// The run directory to create.
    pub out: PathBuf,
    /// The report of the run, nothing measured yet; its plan is written as plan.json.
    pub report: RunReport,
    /// What runs, for the console's first line ("drivebench 0.1: WHAT -> OUT").
    pub what: String,
    /// Console lines after the first (preflight findings, the sweep's profiles).
    pub notes: Vec<String>,
    /// No progress bars, no interval lines.
    pub quiet: bool,
    /// What the first stop signal stops ("stopping clients").
    pub stopping: &'static str,
    /// A second stop signal kills the private servers this run started.
    pub kill_servers: bool,
    /// The exit status of a run aborted by a second stop signal.
    pub abort_exit: i32,
    /// Where the log goes once the run directory has its log file.
    pub log_to: fn(File),
    /// Serve live metrics here while the run lasts (`--metrics-listen`).
    pub live: Option<tokio::net::TcpListener>,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The run directory cannot be created, or already holds a result.
    #[error(transparent)]
    RunDir(OutputError),
    /// plan.json or the first result.json cannot be written.
    #[error(transparent)]
    Write(OutputError),
}

/// How a run ended, as the CLI's exit status sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Complete,
    /// Stopped by an error, or complete with failed consistency checks.
    Failed,
    Interrupted,
}

/// A started run: its directory, report, console and stop signals.
pub struct Run {
    pub dir: RunDir,
    pub report: RunReport,
    pub console: Console,
    pub cancel: CancellationToken,
    signals: JoinHandle<()>,
    live: Option<(Arc<LiveMetrics>, CancellationToken)>,
}

impl Run {
    /// Create the run directory with plan.json and the log file, say what runs, write the
    /// first result.json (a second stop signal closes it, so it must exist) and listen for
    /// the stop signals.
    pub fn start(s: Start) -> Result<Run, StartError> {
        let dir = RunDir::create(&s.out).map_err(StartError::RunDir)?;
        report::write_json(&s.out.join(report::PLAN_FILE), &s.report.plan)
            .map_err(StartError::Write)?;
        if let Ok(f) = File::create(s.out.join(report::LOG_FILE)) {
            (s.log_to)(f);
        }
        let console = Console::new(s.quiet);
        let version = env!("CARGO_PKG_VERSION");
        console.line(&format!(
            "drivebench {version}: {} -> {}",
            s.what,
            s.out.display()
        ));
        for line in &s.notes {
            console.line(line);
        }
        dir.write_result(&s.report).map_err(StartError::Write)?;
        let cancel = CancellationToken::new();
        let signals = signals::stop_on_signal(
            cancel.clone(),
            s.stopping,
            s.kill_servers,
            s.out.clone(),
            s.abort_exit,
        );
        let live = s.live.map(|l| serve_live(l, &console));
        Ok(Run {
            dir,
            report: s.report,
            console,
            cancel,
            signals,
            live,
        })
    }

    pub fn path(&self) -> &Path {
        &self.dir.path
    }

    /// The context the protocol's steps write through: no telemetry, no capture, no start
    /// time until the caller sets them.
    pub fn ctx(&mut self) -> RunCtx<'_> {
        RunCtx {
            report: &mut self.report,
            dir: &mut self.dir,
            console: &self.console,
            cancel: &self.cancel,
            telemetry: telemetry::Telemetry::Off,
            live: self.live.as_ref().map(|(m, _)| &**m),
            start_at: None,
            capture: capture::Capture::Off,
        }
    }

    /// Stop listening, record how the run ended, write result.json and the files rendered
    /// from it, and say so: the error, the summary (when `summary`), a replay's fidelity,
    /// where the results are.
    pub fn finish(mut self, ending: Ending, summary: bool) -> Result<Outcome, OutputError> {
        self.signals.abort();
        if let Some((_, stop)) = &self.live {
            stop.cancel();
        }
        self.report.finished_at = Some(utc_now());
        let outcome = close(&mut self.report, &ending);
        self.dir.finish(&self.report)?;
        if let Ending::Failed(e) = &ending {
            crate::console::closing_line(&format!("error: {e}"));
        }
        if summary {
            crate::console::closing_text(&report::markdown::summary(&self.report));
        }
        if let Some(r) = &self.report.replay {
            self.console
                .always(&format!("fidelity: {}", r.fidelity.verdict));
        }
        crate::console::closing_text(&format!("\nResults: {}\n", self.dir.path.display()));
        Ok(outcome)
    }
}

/// Serve the run's live metrics on `listener` until the returned token is cancelled.
fn serve_live(
    listener: tokio::net::TcpListener,
    console: &Console,
) -> (Arc<LiveMetrics>, CancellationToken) {
    let live = Arc::new(LiveMetrics::new());
    let stop = CancellationToken::new();
    if let Ok(addr) = listener.local_addr() {
        console.line(&format!("live metrics: http://{addr}/metrics"));
    }
    tokio::spawn(serve::serve(listener, live.clone(), stop.clone()));
    (live, stop)
}

/// Record how a run ended in its report: a complete run whose consistency checks failed has
/// failed too.
fn close(report: &mut RunReport, ending: &Ending) -> Outcome {
    match ending {
        Ending::Complete => {
            let failed_checks = crate::workload::tpcc::figures::checks_error(&report.checks);
            let outcome = match failed_checks {
                None => Outcome::Complete,
                Some(_) => Outcome::Failed,
            };
            report.status = RunStatus::Complete { failed_checks };
            outcome
        }
        Ending::Failed(e) => {
            report.status = RunStatus::Failed {
                error: e.to_string(),
            };
            Outcome::Failed
        }
        Ending::Interrupted => {
            report.status = RunStatus::Interrupted {
                why: Some("interrupted".into()),
            };
            Outcome::Interrupted
        }
    }
}
