//! The protocol's entries, one per command that runs something: [`run_plan`] (`run`, `curve`)
//! and [`up`] for a scenario's plan, [`sweep`] for an ad-hoc sweep. What the plan's two share
//! comes first — preflight, external servers' connection probes included, refused on its first
//! error; the open-files limit raised; the target prepared for the bytes the plan needs — then
//! each runs on the [`lifecycle`](super::lifecycle) and gives the CLI a typed [`Outcome`] or
//! [`EntryError`].

use std::fs::File;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::lifecycle::{self, Outcome, Run, Start, StartError, Up};
use super::up::{UpError, UpRecord, UpRefused, UpRequest};
use super::{Ending, Stage, preflight, sweeps};
use crate::console::Console;
use crate::exporter::serve::{self, ListenError};
use crate::report::OutputError;
use crate::results::finding::{Finding, Level};
use crate::results::run::{Environment, RunReport};
use crate::scenario::Plan;
use crate::scenario::sweep::{PlanSweep, SweepTarget};
use drivebench_system::io::{DirectTarget, IoError, Pacing, check_point};
use drivebench_system::target::leftovers::remove_marked_file;
use drivebench_system::target::{DeviceIdentity, TargetError, TargetInfo};

/// How `run` (and `curve`) runs a plan.
pub struct RunOptions {
    /// The run directory [default: runs/<name>-<UTC timestamp>].
    pub out: Option<PathBuf>,
    pub quiet: bool,
    /// Sample the drive's and the host's counters.
    pub telemetry: bool,
    /// Serve live metrics at this address; `true`: one other than loopback is allowed.
    pub metrics_listen: Option<(SocketAddr, bool)>,
    /// Start the phase clock at this instant.
    pub start_at: Option<SystemTime>,
    /// The exit status of a run aborted by a second stop signal.
    pub abort_exit: i32,
    /// Where the log goes once the run directory has its log file.
    pub log_to: fn(File),
}

/// How `up` brings a plan's servers up.
pub struct UpOptions {
    /// Its directory: up.json, and the password file with `listen`.
    pub out: PathBuf,
    /// Also listen on this address, with a generated password for logins from the network.
    pub listen: Option<IpAddr>,
    pub quiet: bool,
    /// The exit status of an `up` aborted by a second stop signal.
    pub abort_exit: i32,
}

/// Why a plan did not run: refused before anything started, or its results not written.
#[derive(Debug, thiserror::Error)]
pub enum EntryError {
    #[error(transparent)]
    Listen(#[from] ListenError),
    /// Preflight's first error.
    #[error("preflight: {0}")]
    Preflight(String),
    #[error(transparent)]
    Devices(#[from] sweeps::DeviceRefused),
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The device's start state refused before anything was touched.
    #[error(transparent)]
    StartState(#[from] super::start_state::StartStateRefused),
    #[error("the scenario has no database instances")]
    NoDatabase,
    #[error("target.device: `up` does not bring a device to its start state; use `run`")]
    UpWithDevice,
    /// What `up` refuses before anything starts.
    #[error(transparent)]
    Up(#[from] UpRefused),
    #[error("cannot read /dev/urandom for a password: {0}")]
    Password(std::io::Error),
    /// An ad-hoc sweep refused before anything was written.
    #[error(transparent)]
    Sweep(#[from] SweepRefused),
    #[error(transparent)]
    Start(#[from] StartError),
    #[error("writing results: {0}")]
    Finish(OutputError),
}

impl EntryError {
    /// Invalid input, nothing started (exit code 2), as opposed to a failure.
    pub fn is_invalid(&self) -> bool {
        !matches!(
            self,
            EntryError::Password(_)
                | EntryError::Start(StartError::Write(_))
                | EntryError::Finish(_)
        )
    }
}

/// Run a resolved plan (`run`, and `curve` with its curve filled in): refused before anything
/// starts when it cannot run, else its run directory always left with a result.json —
/// complete, failed or interrupted.
pub async fn run_plan(plan: Plan, o: RunOptions) -> Result<Outcome, EntryError> {
    let live = (o.metrics_listen)
        .map(|(addr, public)| serve::bind(addr, public))
        .transpose()?;
    let findings = preflight_or_refuse(&plan).await?;
    sweeps::check_devices(&plan)?;
    super::start_state::check(&plan)?;
    let needed = preflight::needed_bytes(&plan) + sweeps::needed_bytes(&plan);
    // A device's filesystem is checked for the bytes once it is made (`started`).
    let target = match plan.start_state {
        Some(_) => prepare_target(&plan, 0)?,
        None => prepare_target(&plan, needed)?,
    };
    let start = Start {
        out: (o.out).unwrap_or_else(|| lifecycle::default_out(&plan.name)),
        what: plan.name.clone(),
        notes: notes(&findings),
        quiet: o.quiet,
        stopping: "stopping clients",
        kill_servers: true,
        abort_exit: o.abort_exit,
        live,
    };
    let environment = Environment {
        host: drivebench_system::telemetry::host_info::host_info(),
        target,
    };
    let report = RunReport::start(plan.clone(), environment, findings);
    let mut run = Run::start(start, report, o.log_to)?;
    let mut ctx = run.ctx();
    ctx.telemetry = super::telemetry::Telemetry::wanted(o.telemetry);
    ctx.start_at = o.start_at;
    let (ending, mounted) = match started(&plan, &mut ctx, needed).await {
        Ok(mounted) => (super::run(&plan, &mut ctx).await, mounted),
        Err(ending) => (ending, None),
    };
    let outcome = run.finish(ending, true).map_err(EntryError::Finish);
    // Unmounted only now: the engines are stopped and the results written.
    drop(mounted);
    outcome
}

/// The plan's device brought to its start state and recorded, the target then described and
/// checked for `needed` bytes on its new filesystem; the mount, when there is one.
async fn started(
    plan: &Plan,
    ctx: &mut super::RunCtx<'_>,
    needed: u64,
) -> Result<Option<drivebench_system::target::device_state::Mounted>, super::Ending> {
    let Some(state) = &plan.start_state else {
        return Ok(None);
    };
    let failed = |e: &dyn std::fmt::Display| {
        super::Ending::failed(super::Stage::Setup, super::Reason(e.to_string()))
    };
    let target = Path::new(&plan.target_path);
    let reached = super::start_state::reach(state, target, plan.seed, ctx.cancel).await;
    let reached = reached.map_err(unreached)?;
    ctx.console
        .line(&format!("start state: {}", reached.report.line()));
    ctx.report.start_state = Some(reached.report);
    ctx.report.environment.target = prepare_target(plan, needed).map_err(|e| failed(&e))?;
    Ok(Some(reached.mounted))
}

/// Start a plan's private servers, load and check them as `run` would, and leave them
/// running (`up`): up.json written when they run, those started stopped when not.
pub async fn up(plan: Plan, o: UpOptions) -> Result<Outcome, EntryError> {
    let Some(db) = plan.database() else {
        return Err(EntryError::NoDatabase);
    };
    if plan.start_state.is_some() {
        return Err(EntryError::UpWithDevice);
    }
    super::up::refuse(db, o.listen.is_some())?;
    let findings = preflight_or_refuse(&plan).await?;
    prepare_target(&plan, preflight::needed_bytes(&plan))?;
    let password = (o.listen)
        .map(|_| crate::engines::server::secret::random_hex(12))
        .transpose()
        .map_err(EntryError::Password)?;
    let start = Start {
        out: o.out,
        what: plan.name.clone(),
        notes: notes(&findings),
        quiet: o.quiet,
        stopping: "stopping the servers it started",
        kill_servers: true,
        abort_exit: o.abort_exit,
        live: None,
    };
    let record = UpRecord {
        scenario: plan.scenario_file.clone(),
        started_at: drivebench_core::config::units::utc_now(),
        listen: o.listen,
        instances: Vec::new(),
    };
    let mut up = Up::start(start, record, password)?;
    let req = UpRequest {
        plan: db,
        listen: o.listen.zip(up.password()),
        console: &up.console,
        cancel: &up.cancel,
    };
    let ending = match super::up::up(req).await {
        Ok(instances) => {
            up.record.instances = instances;
            Ending::Complete
        }
        Err(UpError::Interrupted) => Ending::Interrupted,
        Err(e) => Ending::failed(Stage::Setup, e),
    };
    up.finish(ending).map_err(EntryError::Finish)
}

/// What `run` and `up` do before anything starts: preflight (refused on its first error) and
/// the open-files limit raised for the plan's connections. Gives the findings.
async fn preflight_or_refuse(plan: &Plan) -> Result<Vec<Finding>, EntryError> {
    let mut findings = preflight::check(plan);
    if let Some(db) = &plan.database {
        findings.extend(preflight::external_findings(db).await);
    }
    if let Some(f) = findings.iter().find(|f| f.level == Level::Error) {
        let message = f.message.replace("; `run` would refuse", "");
        return Err(EntryError::Preflight(message));
    }
    if let Some(db) = &plan.database {
        preflight::raise_open_files(db);
    }
    Ok(findings)
}

/// The target prepared for `needed` bytes (refused when it cannot hold them).
fn prepare_target(plan: &Plan, needed: u64) -> Result<TargetInfo, EntryError> {
    Ok(drivebench_system::target::prepare(
        Path::new(&plan.target_path),
        needed,
    )?)
}

/// The findings worth a console line.
fn notes(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.level != Level::Ok)
        .map(|f| format!("{}: {}", f.level.as_str(), f.message))
        .collect()
}

/// How `sweep` runs an ad-hoc sweep.
pub struct SweepOptions {
    /// The run directory [default: runs/sweep-<UTC timestamp>].
    pub out: Option<PathBuf>,
    pub quiet: bool,
    /// Keep the file this sweep creates.
    pub keep_file: bool,
    /// The exit status of a sweep aborted by a second stop signal.
    pub abort_exit: i32,
    /// Where the log goes once the run directory has its log file.
    pub log_to: fn(File),
    /// A block device's state reached before it is swept (`--purge`, a fullness level);
    /// None sweeps it as found.
    pub start: Option<super::start_state::RawStart>,
}

/// Why an ad-hoc sweep was refused before anything was written.
#[derive(Debug, thiserror::Error)]
pub enum SweepRefused {
    /// A profile reads blocks never written.
    #[error(transparent)]
    Unwritten(sweeps::Unwritten),
    /// The target cannot be opened.
    #[error(transparent)]
    Open(IoError),
    /// A profile's point does not fit (on its own, or on the target).
    #[error("profile {profile}: {source}")]
    Point {
        profile: String,
        #[source]
        source: IoError,
    },
}

/// An ad-hoc sweep (`drivebench sweep`): its target opened and every profile checked against
/// it before anything is written, then the sweep run as the scenario step runs it, in a run
/// directory of its own; a file it created removed at the end unless kept.
pub async fn sweep(sweep: PlanSweep, o: SweepOptions) -> Result<Outcome, EntryError> {
    let path = sweep.target_path("");
    sweeps::check_written(&sweep, "").map_err(SweepRefused::Unwritten)?;
    let is_device = matches!(sweep.target, SweepTarget::Device { .. });
    let created = !is_device && !path.exists();
    let target = open_checked(&sweep, &path)?;
    let environment = Environment {
        host: drivebench_system::telemetry::host_info::host_info(),
        target: sweep_target_info(&path, target.device.clone(), is_device),
    };
    let start = Start {
        out: (o.out).unwrap_or_else(|| lifecycle::default_out("sweep")),
        what: "sweep".into(),
        notes: sweep.describe(""),
        quiet: o.quiet,
        stopping: "stopping the I/O",
        kill_servers: false,
        abort_exit: o.abort_exit,
        live: None,
    };
    let report = RunReport::start(
        Plan::without_database("sweep", &path, vec![sweep.clone()]),
        environment,
        Vec::new(),
    );
    let mut run = match Run::start(start, report, o.log_to) {
        Ok(run) => run,
        Err(e) => {
            if created {
                let _ = remove_marked_file(&path);
            }
            return Err(e.into());
        }
    };
    let seed = run.report.plan.seed;
    let ending = match o.start {
        Some(start) => match raw_start(target, start, seed, &mut run.ctx()).await {
            Ok(target) => sweeps::run_one(seed, &sweep, target, &mut run.ctx()).await,
            Err(ending) => ending,
        },
        None => sweeps::run_one(seed, &sweep, target, &mut run.ctx()).await,
    };
    if created {
        leave_or_remove(&path, o.keep_file, &run.console);
    }
    run.finish(ending, !o.quiet).map_err(EntryError::Finish)
}

/// How a run ends whose device did not reach its start state.
fn unreached(e: super::start_state::StartStateError) -> super::Ending {
    match e {
        super::start_state::StartStateError::Interrupted => super::Ending::Interrupted,
        e if e.stopped_a_sanitize_wait() => {
            crate::console::closing_line(&e.to_string());
            super::Ending::Interrupted
        }
        e => super::Ending::failed(super::Stage::Setup, super::Reason(e.to_string())),
    }
}

/// The sweep's device brought to `start` and recorded in the run's result; the target back.
async fn raw_start(
    target: DirectTarget,
    start: super::start_state::RawStart,
    seed: u64,
    ctx: &mut super::RunCtx<'_>,
) -> Result<DirectTarget, super::Ending> {
    let reached = super::start_state::reach_raw(target, start, seed, ctx.cancel).await;
    let (target, report) = reached.map_err(unreached)?;
    ctx.console.line(&format!("start state: {}", report.line()));
    ctx.report.start_state = Some(report);
    Ok(target)
}

fn sweep_target_info(path: &Path, device: Option<DeviceIdentity>, is_device: bool) -> TargetInfo {
    if !is_device {
        return drivebench_system::target::describe(path);
    }
    TargetInfo {
        path: path.display().to_string(),
        filesystem: None,
        mount_point: None,
        mount_source: None,
        free_bytes: None,
        total_bytes: None,
        device,
    }
}

/// The file this sweep created: removed, as a `[[sweep]]` in a scenario removes its own, or
/// kept with `--keep-file` (marked as drivebench's) for later sweeps with `--fill 0`.
fn leave_or_remove(path: &Path, keep: bool, console: &Console) {
    let dir = path.parent().unwrap_or(Path::new("."));
    if keep {
        console.always(&format!(
            "kept {} (--keep-file): sweep it again with --fill 0; `drivebench clean {}` removes it",
            path.display(),
            dir.display()
        ));
        return;
    }
    match remove_marked_file(path) {
        Ok(()) => console.always(&format!(
            "removed {}, which this sweep created (--keep-file keeps it)",
            path.display()
        )),
        Err(e) => console.always(&format!(
            "warning: cannot remove {}: {e}; `drivebench clean {}` removes it",
            path.display(),
            dir.display()
        )),
    }
}

/// Every profile's point checked on its own, the target at `path` opened, and every point
/// checked against it; a file this created is removed again when a point does not fit.
fn open_checked(sweep: &PlanSweep, path: &Path) -> Result<DirectTarget, SweepRefused> {
    let points: Vec<_> = sweep
        .profiles
        .iter()
        .map(|p| {
            let mut point = p.spec(sweep.region, 0.0, 1.0, Pacing::Uncontrolled, 1);
            point.engine = sweep.io_engine;
            point.submit_batch = sweep.submit_batch;
            (p.name.clone(), point)
        })
        .collect();
    let bad_point = |name: &str, source: IoError| SweepRefused::Point {
        profile: name.to_string(),
        source,
    };
    for (name, point) in &points {
        point.validate().map_err(|e| bad_point(name, e))?;
    }
    let existed = path.exists();
    let target = sweeps::open(sweep, "").map_err(SweepRefused::Open)?;
    for (name, point) in &points {
        if let Err(e) = check_point(&target, point) {
            if !existed {
                let _ = remove_marked_file(path);
            }
            return Err(bad_point(name, e));
        }
    }
    Ok(target)
}
