//! The command line: one module per subcommand, each with its own `Args` and entry function.
//! Errors become exit codes here: 2 for invalid input (nothing started), 1 for runtime
//! failures, 130 for interruption.

pub mod check;
pub mod clean;
pub mod compare;
pub mod curve;
pub mod docs;
pub mod logging;
pub mod merge;
pub mod plan;
pub mod replay;
pub mod report;
pub mod run;
pub mod schema;
pub mod sweep;
pub mod up;

use clap::{Parser, Subcommand};

/// Application-level evaluation of storage drives: real database engines on the drive under
/// test, sysbench-style OLTP load from many virtual clients, precondition + sample protocol.
#[derive(Debug, Parser)]
#[command(name = "drivebench", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario: load the data on the target, run the phases, write a run directory.
    ///
    /// The data stays on the target for the next run (SQLite always; a server's with
    /// keep_data = true); `drivebench clean TARGET` lists and removes it.
    ///
    /// Exit codes: 0 complete; 1 a runtime failure (what was measured is written, with
    /// "complete": false) or a failed TPC-C consistency check; 2 invalid input, nothing
    /// started; 130 interrupted by Ctrl-C, SIGTERM or SIGHUP (partial results written, servers
    /// stopped).
    Run(run::Args),
    /// Run a scenario's load curve: its phases, then TPS vs p99 from low load to saturation
    /// and the max TPS under its SLO ([[curve]], or the default curve when it has none).
    Curve(curve::Args),
    /// Validate a scenario and print its timeline, data size and preflight findings (no side effects).
    Plan(plan::Args),
    /// Regenerate summary.md, report.html and the CSV files (series, sweeps, curves) of a run directory from its result.json.
    Report(report::Args),
    /// Rank runs of the same workload by TPS, average and p99 latency; write compare.{md,html,json}.
    ///
    /// Runs with load curves also get their peak TPS and "max TPS at p99 <= X ms" side by
    /// side, ranked by that figure when all share the objective and the instance count (said
    /// plainly when not), and in compare.html their p99-vs-TPS curves overlaid; runs with I/O
    /// sweeps get the sweep points side by side.
    Compare(compare::Args),
    /// Run the TPC-C consistency checks again on a finished run's reachable instances.
    ///
    /// Reachable: SQLite databases (a run leaves them in the target), private servers left
    /// running (keep_running = true; result.json records their URL) and external servers (the
    /// plan's URL, the password from the same password_env/password_file). The checks replace
    /// those instances' entries in result.json's `checks`; summary.md and report.html are
    /// rebuilt.
    ///
    /// Exit codes: 0 every check passed; 1 a check failed (or could not run); 2 not a TPC-C
    /// run, a run still running, or an instance that cannot be reached (named, with why).
    Check(check::Args),
    /// Print the JSON Schema of scenario files or of result.json.
    Schema(schema::Args),
    /// Sweep a file or block device with direct I/O: latency-vs-IOPS curves per profile.
    Sweep(Box<sweep::Args>),
    /// Replay a run's captured block I/O (`run --capture`) on a file or block device.
    ///
    /// The capture's requests go to the target at their recorded times (or --speed F times
    /// faster, or --fast: as fast as the recorded concurrency allows), offsets packed into the
    /// span the capture touched, writes with generated data, flushes as fdatasync, discards as
    /// punch-hole or BLKDISCARD, through io_uring with O_DIRECT. Each request's schedule lag,
    /// latency per operation and file class (log, data, temp, filesystem, unknown), the drive's
    /// telemetry and verdict, and the fidelity of the replay against the capture are written to
    /// a run directory that `report` and `compare` take.
    ///
    /// Exit codes: 0 replayed; 1 an I/O failed (what was measured is written); 2 a truncated or
    /// corrupt capture, a target too small, mounted or in use, or requests the target's block
    /// size cannot take (nothing touched); 130 interrupted (partial results written).
    Replay(Box<replay::Args>),
    /// List what drivebench left in a target directory, with sizes; remove it with --yes.
    ///
    /// Lists the instance directories (SQLite's database always stays; a server's with
    /// keep_data = true or after a failed stop), pre-built databases (prebuilt_dir) and sweep
    /// files kept with --keep-file. Only what drivebench created carries its marker (a
    /// .drivebench file inside a directory, .NAME.drivebench beside a file), and only that is
    /// listed or removed; directories merely named like an instance's are named and left alone.
    ///
    /// Exit codes: 0 listed (or removed with --yes); 2 the target does not exist, is not
    /// drivebench's, or a server of ours (its pid file names a live process) or another
    /// process still has files open there; nothing is removed then.
    Clean(clean::Args),
    /// Print a reference page in markdown: every command and option, or every scenario key.
    Docs(docs::Args),
    /// Merge several hosts' runs of the same scenario into one run directory.
    ///
    /// Per phase: TPS and TPC-C tpmC/NOPM summed, latency percentiles from the hosts'
    /// histograms merged (never a mean of percentiles), per-host and per-instance rows (named
    /// HOST/INSTANCE), series on one clock, the common window, every host's checks. Warns when
    /// the hosts' starts differ by more than one report interval or a clock offset is unknown
    /// or large. The result is an ordinary run directory: `report` and `compare` take it.
    ///
    /// Exit codes: 0 merged; 2 a result.json unreadable, runs of different workloads (unless
    /// --force), or the output directory already holding results.
    Merge(merge::Args),
    /// Start a scenario's private servers on the target, load and check them as `run` would,
    /// and leave them running for clients on other hosts (`provision = "external"` there).
    ///
    /// Writes DIR/up.json (each instance's URL and pid; never a password). With --listen ADDR
    /// (MariaDB/MySQL) the servers also listen on ADDR and every login from the network needs
    /// a generated password, kept in DIR/password (mode 0600). `drivebench down DIR` stops
    /// them; their data stays on the target (`drivebench clean` removes it).
    ///
    /// Exit codes: 0 running; 1 a server failed to start or load (those started are stopped);
    /// 2 invalid input, an external or embedded instance, or DIR already holding up.json; 130
    /// interrupted by Ctrl-C, SIGTERM or SIGHUP (those started are stopped).
    Up(up::UpArgs),
    /// Stop the servers `drivebench up --out DIR` left running.
    ///
    /// Exit codes: 0 stopped (or already not running); 1 one had to be killed; 2 DIR holds no
    /// up.json.
    Down(up::DownArgs),
}

/// What `run` and `plan` share: the scenario and the ways to adjust it.
#[derive(Debug, clap::Args)]
pub struct ScenarioArgs {
    /// Scenario file (TOML).
    pub scenario: std::path::PathBuf,
    /// Target directory on the drive under test (overrides target.path).
    #[arg(long, value_name = "PATH")]
    pub target: Option<std::path::PathBuf>,
    /// Override a scenario key, e.g. --set workload.clients=64 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Multiply every duration by F (e.g. 0.01 for a CI-sized replica of a long protocol).
    #[arg(
        long,
        value_name = "F",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    pub time_scale: f64,
    /// Capture every block request the target's drive sees during the recorded phases (or
    /// those `[capture] phases` names) into the run directory's capture/, for `drivebench
    /// replay`. Needs root and the kernel's block tracepoints (tracefs).
    #[arg(long)]
    pub capture: bool,
}

impl ScenarioArgs {
    /// Check the flags and resolve the plan: every error here is exit code 2.
    pub fn resolve(&self) -> Result<crate::scenario::Plan, CliError> {
        if !(self.time_scale.is_finite() && self.time_scale > 0.0) {
            return Err(CliError::Invalid(format!(
                "--time-scale: must be a positive number, got {}",
                self.time_scale
            )));
        }
        let mut plan = crate::scenario::load(&self.scenario, &self.set, self.time_scale)
            .map_err(|e| CliError::Invalid(e.to_string()))?;
        if let Some(t) = &self.target {
            if t.as_os_str().is_empty() {
                return Err(CliError::Invalid("--target: must not be empty".into()));
            }
            plan.target_path = t.display().to_string();
        }
        if let Some(state) = &plan.start_state {
            let device = std::path::Path::new(&state.device);
            drivebench_system::target::guard::check_block_device_unused(device).map_err(|e| {
                CliError::Invalid(format!("{}: target.device: {e}", self.scenario.display()))
            })?;
        }
        if self.capture
            && let Some(db) = plan.database.as_mut()
            && db.capture.is_none()
        {
            db.capture = Some(crate::scenario::capture::PlanCapture::recorded(
                db.phases.iter().map(|p| (p.name.as_str(), p.record)),
            ));
        }
        Ok(plan)
    }
}

/// Exit codes (docs/outputs.md lists them).
pub const EXIT_OK: i32 = 0;
pub const EXIT_FAILED: i32 = 1;
pub const EXIT_INVALID: i32 = 2;
pub const EXIT_INTERRUPTED: i32 = 130;

/// A command's failure and its exit code.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Invalid input; nothing was started.
    #[error("{0}")]
    Invalid(String),
    /// Something failed while running.
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Invalid(_) => EXIT_INVALID,
            CliError::Failed(_) => EXIT_FAILED,
        }
    }
}

/// Run a parsed command line; returns the process exit code.
pub async fn main(cli: Cli) -> i32 {
    let result = match cli.command {
        Command::Run(a) => run::run(a).await,
        Command::Curve(a) => curve::curve(a).await,
        Command::Plan(a) => plan::plan(a).await,
        Command::Report(a) => report::report(a),
        Command::Compare(a) => compare::compare(a),
        Command::Check(a) => check::check(a).await,
        Command::Schema(a) => schema::schema(a),
        Command::Sweep(a) => sweep::sweep(*a).await,
        Command::Replay(a) => replay::replay(*a).await,
        Command::Docs(a) => docs::docs(a),
        Command::Clean(a) => clean::clean(a),
        Command::Merge(a) => merge::merge(a),
        Command::Up(a) => up::up(a).await,
        Command::Down(a) => up::down(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            crate::console::closing_line(&format!("error: {e}"));
            e.exit_code()
        }
    }
}
