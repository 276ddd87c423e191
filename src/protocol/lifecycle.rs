//! A run's lifecycle in one place, for `run`, `curve`, `sweep`, `replay` and `up`: the start
//! (the console's first lines, the stop signals, the live metrics), the caller's protocol,
//! and the finish (stop listening, keep what the run did, the closing lines), which gives the
//! typed [`Outcome`] the CLI maps to an exit code. What is kept is the one difference: a run
//! directory ([`Run`]: plan.json, the log file and the first result.json at the start, the
//! protocol on [`Run::ctx`], the run's status from its [`Ending`], result.json and the files
//! rendered from it at the finish) or `up`'s directory ([`Up`]: up.json and the password file
//! once the servers run), one enum in the finish step.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::signals::{self, OnAbort};
use super::up::{PASSWORD_FILE, UP_FILE, UpRecord};
use super::{Ending, RunCtx, capture, telemetry};
use crate::console::Console;
use crate::engines::server::secret::save_password;
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

/// What every run needs before it starts, `run`'s and `up`'s alike.
pub struct Start {
    /// The run directory, or `up`'s directory, to create.
    pub out: PathBuf,
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
    /// Serve live metrics here while the run lasts (`--metrics-listen`).
    pub live: Option<tokio::net::TcpListener>,
}

/// What a run keeps, and where: the one thing the finish step does differently for a run
/// directory and for `up`.
enum Kept<'a> {
    /// `run`, `curve`, `sweep`, `replay`: result.json (its status from the ending) and the
    /// files rendered from it, the summary when `summary`.
    RunDir {
        dir: &'a RunDir,
        report: &'a mut RunReport,
        summary: bool,
    },
    /// `up`: up.json and the password file once the servers run, their URLs on stdout;
    /// nothing when they do not (`up` stopped them).
    Up {
        dir: &'a Path,
        record: &'a UpRecord,
        password: Option<&'a str>,
    },
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
    /// `up`'s directory already holds up.json.
    #[error(
        "{} exists: its servers may still run; `drivebench down {}` first",
        .0.join(UP_FILE).display(), .0.display()
    )]
    UpRunning(PathBuf),
    /// `up`'s directory cannot be created.
    #[error("{}: {source}", .dir.display())]
    UpDir {
        dir: PathBuf,
        source: std::io::Error,
    },
}

/// How a run ended, as the CLI's exit status sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Complete,
    /// Stopped by an error, or complete with failed consistency checks.
    Failed,
    Interrupted,
}

/// What listens while a run lasts: the stop signals and the live metrics.
struct Listening {
    signals: JoinHandle<()>,
    live: Option<(Arc<LiveMetrics>, CancellationToken)>,
}

/// Say what runs (the first line, then `s.notes`), listen for the stop signals (a second one
/// does `on_abort`) and serve the live metrics.
fn begin(s: Start, on_abort: OnAbort) -> (Console, CancellationToken, Listening) {
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
    let cancel = CancellationToken::new();
    let signals = signals::stop_on_signal(
        cancel.clone(),
        s.stopping,
        s.kill_servers,
        on_abort,
        s.abort_exit,
    );
    let live = s.live.map(|l| serve_live(l, &console));
    (console, cancel, Listening { signals, live })
}

/// Stop listening, keep what the run did as `kept` says, and say how it ended.
fn end(
    listening: Listening,
    console: &Console,
    kept: Kept<'_>,
    ending: &Ending,
) -> Result<Outcome, OutputError> {
    listening.signals.abort();
    if let Some((_, stop)) = &listening.live {
        stop.cancel();
    }
    let outcome = match kept {
        Kept::RunDir {
            dir,
            report,
            summary,
        } => {
            report.finished_at = Some(utc_now());
            let outcome = close(report, ending);
            dir.finish(report)?;
            say_error(ending);
            if summary {
                crate::console::closing_text(&report::markdown::summary(report));
            }
            if let Some(r) = &report.replay {
                console.always(&format!("fidelity: {}", r.fidelity.verdict));
            }
            crate::console::closing_text(&format!("\nResults: {}\n", dir.path.display()));
            outcome
        }
        Kept::Up {
            dir,
            record,
            password,
        } => {
            if ending.is_complete() {
                keep_up(dir, record, password)?;
            }
            say_error(ending);
            outcome_of(ending, None)
        }
    };
    Ok(outcome)
}

fn say_error(ending: &Ending) {
    if let Ending::Failed(e) = ending {
        crate::console::closing_line(&format!("error: {e}"));
    }
}

/// The password file (mode 0600) and up.json in `dir`, and each server's URL on stdout.
fn keep_up(dir: &Path, record: &UpRecord, password: Option<&str>) -> Result<(), OutputError> {
    if let Some(p) = password {
        let file = dir.join(PASSWORD_FILE);
        save_password(&file, p).map_err(|source| OutputError {
            path: file.display().to_string(),
            source,
        })?;
    }
    report::write_json(&dir.join(UP_FILE), record)?;
    for i in &record.instances {
        crate::console::stdout_text(&format!("{}: {} (pid {})\n", i.name, i.url, i.pid));
    }
    Ok(())
}

/// A started run: its directory, report, console and stop signals.
pub struct Run {
    pub dir: RunDir,
    pub report: RunReport,
    pub console: Console,
    pub cancel: CancellationToken,
    listening: Listening,
}

impl Run {
    /// Create the run directory with plan.json and the log file (handed to `log_to`), write
    /// the first result.json (a second stop signal closes it, so it must exist), say what
    /// runs and listen for the stop signals.
    pub fn start(s: Start, report: RunReport, log_to: fn(File)) -> Result<Run, StartError> {
        let dir = RunDir::create(&s.out).map_err(StartError::RunDir)?;
        report::write_json(&s.out.join(report::PLAN_FILE), &report.plan)
            .map_err(StartError::Write)?;
        if let Ok(f) = File::create(s.out.join(report::LOG_FILE)) {
            log_to(f);
        }
        dir.write_result(&report).map_err(StartError::Write)?;
        let on_abort = OnAbort::CloseResults(s.out.clone());
        let (console, cancel, listening) = begin(s, on_abort);
        Ok(Run {
            dir,
            report,
            console,
            cancel,
            listening,
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
            live: self.listening.live.as_ref().map(|(m, _)| &**m),
            start_at: None,
            capture: capture::Capture::Off,
            engine_io: None,
        }
    }

    /// Stop listening, record how the run ended, write result.json and the files rendered
    /// from it, and say so: the error, the summary (when `summary`), a replay's fidelity,
    /// where the results are.
    pub fn finish(mut self, ending: Ending, summary: bool) -> Result<Outcome, OutputError> {
        let kept = Kept::RunDir {
            dir: &self.dir,
            report: &mut self.report,
            summary,
        };
        end(self.listening, &self.console, kept, &ending)
    }
}

/// A started `up`: its directory, the record of what it leaves running, console and stop
/// signals.
pub struct Up {
    pub dir: PathBuf,
    pub record: UpRecord,
    /// The password of every login from the network (`--listen`).
    password: Option<String>,
    pub console: Console,
    pub cancel: CancellationToken,
    listening: Listening,
}

impl Up {
    /// Create `up`'s directory, refused when it holds up.json (its servers may still run),
    /// say what runs and listen for the stop signals.
    pub fn start(s: Start, record: UpRecord, password: Option<String>) -> Result<Up, StartError> {
        if s.out.join(UP_FILE).exists() {
            return Err(StartError::UpRunning(s.out));
        }
        std::fs::create_dir_all(&s.out).map_err(|source| StartError::UpDir {
            dir: s.out.clone(),
            source,
        })?;
        let dir = s.out.clone();
        let (console, cancel, listening) = begin(s, OnAbort::Exit);
        Ok(Up {
            dir,
            record,
            password,
            console,
            cancel,
            listening,
        })
    }

    /// The password of every login from the network (`--listen`), when there is one.
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Stop listening; when the servers run, write the password file and up.json and print
    /// their URLs; say how it ended.
    pub fn finish(self, ending: Ending) -> Result<Outcome, OutputError> {
        let kept = Kept::Up {
            dir: &self.dir,
            record: &self.record,
            password: self.password.as_deref(),
        };
        end(self.listening, &self.console, kept, &ending)
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
    let failed_checks = crate::workload::tpcc::figures::checks_error(&report.checks);
    report.status = match ending {
        Ending::Complete => RunStatus::Complete {
            failed_checks: failed_checks.clone(),
        },
        Ending::Failed(e) => RunStatus::Failed {
            error: e.to_string(),
        },
        Ending::Interrupted => RunStatus::Interrupted {
            why: Some("interrupted".into()),
        },
    };
    outcome_of(ending, failed_checks)
}

/// The outcome of an ending: a complete run with failed checks has failed.
fn outcome_of(ending: &Ending, failed_checks: Option<String>) -> Outcome {
    match (ending, failed_checks) {
        (Ending::Complete, None) => Outcome::Complete,
        (Ending::Complete, Some(_)) | (Ending::Failed(_), _) => Outcome::Failed,
        (Ending::Interrupted, _) => Outcome::Interrupted,
    }
}
