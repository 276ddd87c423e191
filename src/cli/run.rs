//! `drivebench run SCENARIO`: resolve the plan and hand it to `protocol::entry::run_plan`
//! (preflight, the target, the run directory, the protocol; always a result.json — complete,
//! failed or interrupted), then map its outcome to an exit code.

use std::net::SocketAddr;
use std::path::PathBuf;

use super::{CliError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, ScenarioArgs};
use crate::protocol::entry::{self, EntryError, RunOptions};
use crate::protocol::lifecycle::{Outcome, StartError};
use crate::report::OutputError;
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
    /// Do not sample the drive's and the host's counters nor the engines' own I/O counters
    /// (no telemetry, no verdict, no engine I/O figures); for measuring what the sampling
    /// itself costs. Refused with a `cliff` phase, which reads the drive's write counters.
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
    /// Run the whole scenario once per fill level of its `[target] device`, in percent of the
    /// device, e.g. --fullness 25,50,75,90 (in place of the scenario's target.fill or
    /// target.fullness): one run directory per level under --out and a table of the levels
    /// (fullness.md, fullness.html, fullness.json) beside them.
    #[arg(long, value_name = "PCT,PCT...", value_delimiter = ',')]
    pub fullness: Option<Vec<f64>>,
}

pub async fn run(args: Args) -> Result<i32, CliError> {
    let plan = args.scenario.resolve()?;
    run_plan(plan, &args).await
}

/// `--fullness`: the levels, checked as target.fullness is, in place of the scenario's fill.
fn set_fullness(plan: &mut Plan, levels: &[f64]) -> Result<(), CliError> {
    let invalid = |e: String| CliError::Invalid(format!("--fullness: {e}"));
    let state = plan.start_state.as_mut().ok_or_else(|| {
        invalid(
            "needs target.device, the block device to fill (--set target.device=/dev/...)".into(),
        )
    })?;
    let levels =
        crate::scenario::start_state::check_levels(levels).map_err(|e| invalid(e.to_string()))?;
    state.fill = crate::scenario::start_state::Fill::LevelsPct(levels);
    Ok(())
}

/// Run a resolved plan (`run`, and `curve` with its curve filled in); a fullness run's once
/// per level.
pub async fn run_plan(mut plan: Plan, args: &Args) -> Result<i32, CliError> {
    if args.no_telemetry {
        crate::scenario::refuse_without_telemetry(&plan)
            .map_err(|e| CliError::Invalid(e.to_string()))?;
    }
    if let Some(levels) = &args.fullness {
        set_fullness(&mut plan, levels)?;
    }
    let start_at = start_at(args)?;
    let options = || RunOptions {
        out: args.out.clone(),
        quiet: args.quiet,
        telemetry: !args.no_telemetry,
        metrics_listen: (args.metrics_listen).map(|a| (a, args.metrics_listen_public)),
        start_at,
        abort_exit: EXIT_INTERRUPTED,
        log_to: super::logging::set_log_file,
    };
    let fullness = (plan.start_state.as_ref()).is_some_and(|s| !s.levels_pct().is_empty());
    if fullness {
        return crate::protocol::fullness::run(plan, options)
            .await
            .map(exit_code)
            .map_err(fullness_error);
    }
    entry::run_plan(plan, options())
        .await
        .map(exit_code)
        .map_err(entry_error)
}

/// `--start-at` as an instant.
fn start_at(args: &Args) -> Result<Option<std::time::SystemTime>, CliError> {
    args.start_at
        .as_deref()
        .map(|t| drivebench_core::config::units::parse_start_at(t, std::time::SystemTime::now()))
        .transpose()
        .map_err(|e| CliError::Invalid(format!("--start-at: {e}")))
}

/// A fullness run that stopped before its table was complete: refused (exit 2) or failed.
pub(super) fn fullness_error(e: crate::protocol::fullness::FullnessError) -> CliError {
    match e.is_invalid() {
        true => CliError::Invalid(e.to_string()),
        false => CliError::Failed(e.to_string()),
    }
}

/// A plan that did not run: refused (nothing started) or its results not written.
pub(super) fn entry_error(e: EntryError) -> CliError {
    match e.is_invalid() {
        true => CliError::Invalid(e.to_string()),
        false => CliError::Failed(e.to_string()),
    }
}

/// A run that could not start: an unusable run directory is the caller's mistake.
pub(super) fn start_error(e: StartError) -> CliError {
    entry_error(EntryError::Start(e))
}

pub(super) fn finish_error(e: OutputError) -> CliError {
    entry_error(EntryError::Finish(e))
}

/// The exit status of a run's outcome.
pub(super) fn exit_code(outcome: Outcome) -> i32 {
    match outcome {
        Outcome::Complete => EXIT_OK,
        Outcome::Failed => EXIT_FAILED,
        Outcome::Interrupted => EXIT_INTERRUPTED,
    }
}
