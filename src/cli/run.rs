//! `drivebench run SCENARIO`: resolve the plan, check the target, create the run directory,
//! run the protocol, and always leave a result.json — complete, failed or interrupted.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use super::{CliError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, ScenarioArgs};
use crate::exporter::serve;
use crate::protocol::lifecycle::{self, Outcome, Run, Start, StartError};
use crate::protocol::{self, preflight};
use crate::report::OutputError;
use crate::results::finding::{Finding, Level};
use crate::results::run::{Environment, RunReport};
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

pub async fn run(args: Args) -> Result<i32, CliError> {
    let plan = args.scenario.resolve()?;
    run_plan(plan, &args).await
}

/// Preflight, external servers' connection probes included: its findings, or exit 2 on the
/// first error, before anything starts.
async fn preflight_or_refuse(plan: &Plan) -> Result<Vec<Finding>, CliError> {
    let mut findings = preflight::check(plan);
    if let Some(db) = &plan.database {
        findings.extend(preflight::external_findings(db).await);
    }
    match findings.iter().find(|f| f.level == Level::Error) {
        Some(f) => Err(CliError::Invalid(format!(
            "preflight: {}",
            f.message.replace("; `run` would refuse", "")
        ))),
        None => Ok(findings),
    }
}

/// Run a resolved plan (`run`, and `curve` with its curve filled in).
pub async fn run_plan(plan: Plan, args: &Args) -> Result<i32, CliError> {
    let live = args
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
    let notes = findings
        .iter()
        .filter(|f| f.level != Level::Ok)
        .map(|f| format!("{}: {}", f.level.as_str(), f.message))
        .collect();
    let environment = Environment {
        host: crate::telemetry::host_info::host_info(),
        target: target_info,
    };
    let mut run = Run::start(Start {
        out: (args.out.clone()).unwrap_or_else(|| lifecycle::default_out(&plan.name)),
        what: plan.name.clone(),
        report: RunReport::start(plan.clone(), environment, findings),
        notes,
        quiet: args.quiet,
        stopping: "stopping clients",
        kill_servers: true,
        abort_exit: EXIT_INTERRUPTED,
        log_to: super::logging::set_log_file,
        live,
    })
    .map_err(start_error)?;
    let mut ctx = run.ctx();
    ctx.telemetry = protocol::telemetry::Telemetry::wanted(!args.no_telemetry);
    ctx.start_at = start_at;
    let ending = protocol::run(&plan, &mut ctx).await;
    let outcome = run.finish(ending, true).map_err(finish_error)?;
    Ok(exit_code(outcome))
}

/// `--start-at` as an instant.
fn start_at(args: &Args) -> Result<Option<std::time::SystemTime>, CliError> {
    args.start_at
        .as_deref()
        .map(|t| crate::config::units::parse_start_at(t, std::time::SystemTime::now()))
        .transpose()
        .map_err(|e| CliError::Invalid(format!("--start-at: {e}")))
}

/// A run that could not start: an unusable run directory is the caller's mistake.
pub(super) fn start_error(e: StartError) -> CliError {
    match e {
        StartError::RunDir(e) => CliError::Invalid(e.to_string()),
        StartError::Write(e) => CliError::Failed(e.to_string()),
    }
}

pub(super) fn finish_error(e: OutputError) -> CliError {
    CliError::Failed(format!("writing results: {e}"))
}

/// The exit status of a run's outcome.
pub(super) fn exit_code(outcome: Outcome) -> i32 {
    match outcome {
        Outcome::Complete => EXIT_OK,
        Outcome::Failed => EXIT_FAILED,
        Outcome::Interrupted => EXIT_INTERRUPTED,
    }
}
