//! `drivebench run SCENARIO`: resolve the plan, check the target, create the run directory,
//! run the protocol, and always leave a result.json — complete, failed or interrupted.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::{CliError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, ScenarioArgs};
use crate::console::Console;
use crate::exporter::{LiveMetrics, serve};
use crate::protocol::{self, Ending, preflight};
use crate::report::{self, RunDir};
use crate::results::run::{Environment, RunReport, RunStatus};
use crate::scenario::Plan;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Run directory to write [default: runs/<name>-<UTC timestamp>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress bars and no interval lines; only the final summary and errors.
    #[arg(long)]
    pub quiet: bool,
    /// Do not sample the drive's and the host's counters (no telemetry, no verdict); for
    /// measuring what the sampling itself costs.
    #[arg(long)]
    pub no_telemetry: bool,
    /// Serve live metrics while the run lasts, at http://ADDR:PORT/metrics in the OpenMetrics
    /// text format Prometheus scrapes: the current phase, each instance's TPS, latency
    /// quantiles, transactions, errors and retries of the last interval, the drive's and the
    /// host's figures. Loopback addresses only, unless --metrics-listen-public.
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics_listen: Option<SocketAddr>,
    /// Allow --metrics-listen on an address other than loopback (anyone who reaches it sees
    /// the run's figures; never passwords).
    #[arg(long, requires = "metrics_listen")]
    pub metrics_listen_public: bool,
    /// Start the phase clock at TIME: RFC 3339 (e.g. 2026-12-02T10:00:00Z) or +DURATION from
    /// now (e.g. +90s). Loading and connecting happen first; a host ready by TIME waits, one
    /// that is not starts at once and records how late (result.json `clock`). For runs on
    /// several hosts that `drivebench merge` combines.
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
}

pub use crate::config::units::utc_now;

fn default_out(plan: &Plan) -> PathBuf {
    let stamp: String = utc_now()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    PathBuf::from("runs").join(format!("{}-{stamp}", plan.name))
}

pub async fn run(args: Args) -> Result<i32, CliError> {
    let plan = args.scenario.resolve()?;
    run_plan(plan, &args).await
}

/// Preflight, external servers' connection probes included: its findings, or exit 2 on the
/// first error, before anything starts.
async fn preflight_or_refuse(
    plan: &Plan,
) -> Result<Vec<crate::results::finding::Finding>, CliError> {
    let mut findings = preflight::check(plan);
    if let Some(db) = &plan.database {
        findings.extend(preflight::external_findings(db).await);
    }
    match findings
        .iter()
        .find(|f| f.level == crate::results::finding::Level::Error)
    {
        Some(f) => Err(CliError::Invalid(format!(
            "preflight: {}",
            f.message.replace("; `run` would refuse", "")
        ))),
        None => Ok(findings),
    }
}

/// Run a resolved plan (`run`, and `curve` with its curve filled in).
pub async fn run_plan(plan: Plan, args: &Args) -> Result<i32, CliError> {
    let listener = args
        .metrics_listen
        .map(|addr| serve::bind(addr, args.metrics_listen_public))
        .transpose()
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    let start_at = start_at(args)?;
    let findings = preflight_or_refuse(&plan).await?;
    if let Some(db) = &plan.database {
        preflight::raise_open_files(db);
    }
    protocol::sweeps::check_devices(&plan).map_err(|e| CliError::Invalid(e.to_string()))?;
    let needed = preflight::needed_bytes(&plan) + protocol::sweeps::needed_bytes(&plan);
    let target_info = crate::target::prepare(Path::new(&plan.target_path), needed)
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    let out = args.out.clone().unwrap_or_else(|| default_out(&plan));
    let mut dir = RunDir::create(&out).map_err(|e| CliError::Invalid(e.to_string()))?;
    report::write_json(&out.join(report::PLAN_FILE), &plan)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    if let Ok(f) = std::fs::File::create(out.join(report::LOG_FILE)) {
        super::logging::set_log_file(f);
    }
    let console = Console::new(args.quiet);
    console.line(&format!(
        "drivebench {}: {} -> {}",
        env!("CARGO_PKG_VERSION"),
        plan.name,
        out.display()
    ));
    for f in &findings {
        if f.level != crate::results::finding::Level::Ok {
            console.line(&format!("{}: {}", f.level.as_str(), f.message));
        }
    }
    let mut report = RunReport::start(
        plan.clone(),
        Environment {
            host: crate::telemetry::host_info::host_info(),
            target: target_info,
        },
        findings,
    );
    // From here on a second stop signal closes result.json: it must exist.
    dir.write_result(&report)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    let cancel = CancellationToken::new();
    let stop_signals = super::stop_on_signal(cancel.clone(), "stopping clients", true, out.clone());
    let live = listener.map(|l| serve_live(l, &console));
    let mut ctx = protocol::RunCtx {
        report: &mut report,
        dir: &mut dir,
        console: &console,
        cancel: &cancel,
        telemetry: protocol::telemetry::Telemetry::wanted(!args.no_telemetry),
        live: live.as_ref().map(|(m, _)| &**m),
        start_at,
        capture: protocol::capture::Capture::Off,
    };
    let ending = protocol::run(&plan, &mut ctx).await;
    stop_signals.abort();
    if let Some((_, stop)) = live {
        stop.cancel();
    }
    report.finished_at = Some(utc_now());
    let code = close(&mut report, &ending);
    dir.finish(&report)
        .map_err(|e| CliError::Failed(format!("writing results: {e}")))?;
    if let Ending::Failed(e) = &ending {
        crate::console::closing_line(&format!("error: {e}"));
    }
    crate::console::closing_text(&crate::report::markdown::summary(&report));
    crate::console::closing_text(&format!("\nResults: {}\n", out.display()));
    Ok(code)
}

/// `--start-at` as an instant.
fn start_at(args: &Args) -> Result<Option<std::time::SystemTime>, CliError> {
    args.start_at
        .as_deref()
        .map(|t| crate::config::units::parse_start_at(t, std::time::SystemTime::now()))
        .transpose()
        .map_err(|e| CliError::Invalid(format!("--start-at: {e}")))
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

/// Record how a run ended in its report and give the exit code: a complete run whose
/// consistency checks failed exits 1 too.
pub(super) fn close(report: &mut RunReport, ending: &Ending) -> i32 {
    match ending {
        Ending::Complete => {
            report.status = RunStatus::Complete;
            report.complete = true;
            report.error = crate::workload::tpcc::figures::checks_error(&report.checks);
            if report.error.is_none() {
                EXIT_OK
            } else {
                EXIT_FAILED
            }
        }
        Ending::Failed(e) => {
            report.status = RunStatus::Failed;
            report.error = Some(e.to_string());
            EXIT_FAILED
        }
        Ending::Interrupted => {
            report.status = RunStatus::Interrupted;
            report.error = Some("interrupted".into());
            EXIT_INTERRUPTED
        }
    }
}
