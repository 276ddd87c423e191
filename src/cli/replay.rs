//! `drivebench replay CAPTURE --target PATH`: a run's captured block requests put on another
//! file or block device. Everything is checked before the target is touched: the capture
//! (truncated, changed, out-of-range records), the target (a mounted or used device, a file
//! too small for the remapped span, an alignment the capture's requests do not keep). Then the
//! file is filled (so reads reach the drive), the requests are replayed on a thread of their
//! own, the drive's telemetry is read around it, and a run directory gets result.json (with
//! `replay`: latency per operation and file class, schedule lag, fidelity, verdict),
//! summary.md and report.html.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{CliError, EXIT_INTERRUPTED};
use crate::capture::{Capture, Remap};
use crate::console::Console;
use crate::protocol::lifecycle::{self, Run, Start};
use crate::protocol::{Ending, Reason, Stage};
use crate::replay::{ReplayOptions, ReplayReport, Timing};
use crate::results::run::{Environment, RunReport};
use crate::scenario::plan::Plan;
use drivebench_system::io::{DirectTarget, TargetKind, TargetSpec, open_target};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The capture: a run directory made with --capture (its capture/ is read) or that
    /// capture/ directory itself.
    #[arg(value_name = "CAPTURE")]
    pub capture: PathBuf,
    /// File to replay on (created at the capture's remapped span, or --size, and filled when
    /// absent; an existing file's contents are overwritten), a directory (the file
    /// drivebench-replay.dat inside it), or a block device (with --destroy-data).
    #[arg(long, value_name = "PATH")]
    pub target: PathBuf,
    /// Size of a file to create, e.g. 8GiB [default: the capture's remapped span].
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Replay at the recorded times divided by F (2 = twice as fast) [default: 1, the recorded
    /// times].
    #[arg(
        long,
        value_name = "F",
        allow_negative_numbers = true,
        conflicts_with = "fast"
    )]
    pub speed: Option<f64>,
    /// Replay as fast as the recorded concurrency allows: a request goes once as many requests
    /// have completed as had completed before it in the recording.
    #[arg(long)]
    pub fast: bool,
    /// Cap on requests in flight [default: the most the recording had in flight].
    #[arg(long, value_name = "N")]
    pub max_in_flight: Option<u32>,
    /// Sequential write passes over a file before the replay (0 or 1) [default: 1 for a file
    /// created now, 0 otherwise]. 0 on a new file is refused when the capture reads: the
    /// filesystem answers reads of never-written blocks without the drive.
    #[arg(long, value_name = "N")]
    pub fill: Option<u32>,
    /// Allow writing to a block device (destroys its data). The device must also be unused:
    /// not mounted, not swap, no holders, and exclusively openable.
    #[arg(long)]
    pub destroy_data: bool,
    /// Keep the file this replay creates (removed at the end otherwise).
    #[arg(long)]
    pub keep_file: bool,
    /// Run directory to write [default: runs/replay-<UTC timestamp>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress lines; only the final summary and errors.
    #[arg(long)]
    pub quiet: bool,
}

/// The file name used when --target is a directory.
pub const DEFAULT_FILE: &str = "drivebench-replay.dat";

/// What the flags ask for, checked.
struct Request {
    timing: Timing,
    target: TargetSpec,
    /// A file this replay creates (removed at the end unless --keep-file).
    creates: bool,
    fill: bool,
}

fn invalid(m: impl Into<String>) -> CliError {
    CliError::Invalid(m.into())
}

fn timing(a: &Args) -> Result<Timing, CliError> {
    match (a.fast, a.speed) {
        (true, _) => Ok(Timing::Fast),
        (false, None) => Ok(Timing::Recorded),
        (false, Some(s)) if s.is_finite() && s > 0.0 => Ok(if s == 1.0 {
            Timing::Recorded
        } else {
            Timing::Scaled { speed: s }
        }),
        (false, Some(s)) => Err(invalid(format!(
            "--speed: must be a number above 0, got {s}"
        ))),
    }
}

/// The target the flags name, with the capture's span as the default file size.
fn target_spec(a: &Args, span_bytes: u64, reads: bool) -> Result<Request, CliError> {
    if a.target.as_os_str().is_empty() {
        return Err(invalid("--target: must not be empty"));
    }
    let path = std::path::absolute(&a.target).unwrap_or_else(|_| a.target.clone());
    let meta = std::fs::metadata(&path).ok();
    let timing = timing(a)?;
    if a.fill.is_some_and(|n| n > 1) {
        return Err(invalid("--fill: 0 or 1"));
    }
    if meta
        .as_ref()
        .is_some_and(|m| m.file_type().is_block_device())
    {
        if !a.destroy_data {
            return Err(invalid(format!(
                "--target {}: a block device; replaying writes destroys its data: refusing without --destroy-data",
                path.display()
            )));
        }
        if a.size.is_some() || a.fill.is_some_and(|n| n > 0) {
            return Err(invalid(
                "--size and --fill: only for a file target; a device is used as it is",
            ));
        }
        return Ok(Request {
            timing,
            target: TargetSpec::BlockDevice {
                path,
                destroy_data: true,
            },
            creates: false,
            fill: false,
        });
    }
    if a.destroy_data {
        return Err(invalid("--destroy-data: only for a block device target"));
    }
    file_target(a, (path, meta), span_bytes, reads, timing)
}

/// A file target (or a directory to put one in): its size, and whether it is created and
/// filled now.
fn file_target(
    a: &Args,
    (path, meta): (std::path::PathBuf, Option<std::fs::Metadata>),
    span_bytes: u64,
    reads: bool,
    timing: Timing,
) -> Result<Request, CliError> {
    let file = match &meta {
        Some(m) if m.is_dir() => path.join(DEFAULT_FILE),
        Some(m) if !m.is_file() => {
            return Err(invalid(format!(
                "--target {}: neither a regular file, a directory nor a block device",
                path.display()
            )));
        }
        _ => path,
    };
    if let Some(parent) = file.parent()
        && !parent.is_dir()
    {
        return Err(invalid(format!(
            "--target {}: directory {} does not exist",
            file.display(),
            parent.display()
        )));
    }
    let existing = std::fs::metadata(&file).ok().map(|m| m.len());
    let size_bytes = match (&a.size, existing) {
        (Some(s), _) => drivebench_core::config::units::parse_size(s)
            .map_err(|e| invalid(format!("--size: {e}")))?,
        (None, Some(len)) => len,
        (None, None) => span_bytes,
    };
    if size_bytes < span_bytes {
        return Err(invalid(format!(
            "--target {}: {size_bytes} bytes, but the capture's remapped span is {span_bytes} bytes: \
             use a larger file (--size)",
            file.display()
        )));
    }
    let creates = existing.is_none();
    let fill = a.fill.map_or(creates, |n| n == 1);
    if creates && !fill && reads {
        return Err(invalid(format!(
            "--fill 0 on a file created now: the capture reads, and reads of blocks never written are \
             answered by the filesystem without the drive; fill it (--fill 1) or give a written file ({})",
            file.display()
        )));
    }
    Ok(Request {
        timing,
        target: TargetSpec::File {
            path: file,
            size_bytes,
        },
        creates,
        fill,
    })
}

/// Read the capture: its own errors are invalid input (exit 2).
fn read_capture(path: &Path) -> Result<Capture, CliError> {
    crate::capture::read(path).map_err(|e| invalid(format!("{}: {e}", path.display())))
}

pub async fn replay(args: Args) -> Result<i32, CliError> {
    let capture = read_capture(&args.capture)?;
    let remap = Remap::new(&capture.requests, crate::capture::DEFAULT_CHUNK_BYTES);
    let reads = capture
        .requests
        .iter()
        .any(|r| r.op == crate::capture::Op::Read);
    let asked = target_spec(&args, remap.span_bytes(), reads)?;
    let opts = ReplayOptions {
        timing: asked.timing,
        max_in_flight: args.max_in_flight,
        ..ReplayOptions::default()
    };
    if args.max_in_flight == Some(0) {
        return Err(invalid("--max-in-flight: must be at least 1"));
    }
    crate::replay::check_capture(&capture.requests, opts.timing, opts.max_in_flight)
        .map_err(|e| invalid(e.to_string()))?;
    let target = open_checked(&asked, &capture, &remap)?;
    let path = target.path.clone();
    let out = (args.out.clone()).unwrap_or_else(|| lifecycle::default_out("replay"));
    let phases: Vec<&str> = capture
        .meta
        .phases
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let environment = Environment {
        host: drivebench_system::telemetry::host_info::host_info(),
        target: target_info(&target),
    };
    let start = Start {
        out,
        what: format!(
            "replay of {} ({} requests, {} captured) on {}",
            args.capture.display(),
            capture.requests.len(),
            phases.join(", "),
            path.display()
        ),
        notes: Vec::new(),
        quiet: args.quiet,
        stopping: "stopping the replay",
        kill_servers: false,
        abort_exit: EXIT_INTERRUPTED,
        live: None,
    };
    let report = RunReport::start(
        Plan::without_database("replay", &path, Vec::new()),
        environment,
        Vec::new(),
    );
    let mut run = match Run::start(start, report, super::logging::set_log_file) {
        Ok(run) => run,
        Err(e) => {
            remove_created(&asked, &path);
            return Err(super::run::start_error(e));
        }
    };
    let job = Job {
        capture,
        remap,
        target,
        opts,
        fill: asked.fill,
        quiet: args.quiet,
    };
    let ending = run_replay(job, &mut run).await;
    if asked.creates {
        leave_or_remove(&path, args.keep_file, &run.console);
    }
    let outcome = (run.finish(ending, !args.quiet)).map_err(super::run::finish_error)?;
    Ok(super::run::exit_code(outcome))
}

/// The target opened (a device through the guard) and checked against the capture; a file
/// created for it is removed again when it does not fit.
fn open_checked(
    asked: &Request,
    capture: &Capture,
    remap: &Remap,
) -> Result<DirectTarget, CliError> {
    let target = open_target(&asked.target).map_err(|e| invalid(format!("--target: {e}")))?;
    let fit = crate::replay::TargetFit {
        path: &target.path,
        size_bytes: target.size_bytes,
        align_bytes: target.alignment.offset_bytes,
        block_device: target.kind == TargetKind::BlockDevice,
    };
    if let Err(e) = crate::replay::check_target(&capture.requests, remap, fit) {
        let path = target.path.clone();
        drop(target);
        remove_created(asked, &path);
        return Err(invalid(format!("--target: {e}")));
    }
    Ok(target)
}

fn remove_created(asked: &Request, path: &Path) {
    if asked.creates {
        let _ = drivebench_system::target::leftovers::remove_marked_file(path);
    }
}

/// What the replay thread is given.
struct Job {
    capture: Capture,
    remap: Remap,
    target: DirectTarget,
    opts: ReplayOptions,
    fill: bool,
    quiet: bool,
}

/// Fill and replay on a thread of its own, halted by the run's first stop signal; how it
/// ended, its figures in the run's report.
async fn run_replay(job: Job, run: &mut Run) -> Ending {
    let halt = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (cancel, halt) = (run.cancel.clone(), halt.clone());
        tokio::spawn(async move {
            cancel.cancelled().await;
            halt.store(true, Ordering::Relaxed);
        })
    };
    let done = tokio::task::spawn_blocking(move || {
        let Job {
            capture,
            remap,
            target,
            opts,
            fill,
            quiet,
        } = job;
        replay_blocking(capture, remap, target, opts, fill, &halt, quiet)
    })
    .await;
    watcher.abort();
    match record_outcome(&mut run.report, done) {
        Ending::Complete if run.cancel.is_cancelled() => Ending::Interrupted,
        ending => ending,
    }
}

/// The replay's outcome into its report: how it ended.
fn record_outcome(
    report: &mut RunReport,
    done: Result<Result<Done, ThreadError>, tokio::task::JoinError>,
) -> Ending {
    match done {
        Ok(Ok(done)) => {
            report.device_stack = Some(done.devices);
            let interrupted = done.report.interrupted;
            report.replay = Some(done.report);
            if interrupted {
                Ending::Interrupted
            } else {
                Ending::Complete
            }
        }
        Ok(Err(e)) => Ending::failed(Stage::Replay, e),
        Err(e) => Ending::failed(
            Stage::Replay,
            Reason(format!("the replay thread failed: {e}")),
        ),
    }
}

/// What the replay thread hands back.
struct Done {
    report: ReplayReport,
    devices: drivebench_system::telemetry::Devices,
}

/// Why the replay thread gave up.
#[derive(Debug, thiserror::Error)]
enum ThreadError {
    #[error("filling {path}: {source}")]
    Fill {
        path: PathBuf,
        #[source]
        source: drivebench_system::io::IoError,
    },
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
}

/// Fill (when asked), then replay with the drive's telemetry read around it.
fn replay_blocking(
    capture: Capture,
    remap: Remap,
    target: DirectTarget,
    opts: ReplayOptions,
    fill: bool,
    halt: &AtomicBool,
    quiet: bool,
) -> Result<Done, ThreadError> {
    let say = |text: &str| {
        tracing::info!("{text}");
        if !quiet {
            crate::console::stderr_line(text);
        }
    };
    if fill {
        say(&format!(
            "filling {} ({} bytes) so that reads reach the drive",
            target.path.display(),
            target.size_bytes
        ));
        let spec = drivebench_system::io::fill::FillSpec::new(drivebench_system::io::Region::WHOLE);
        drivebench_system::io::fill::fill(&target, &spec, halt, |_| {}).map_err(|source| {
            ThreadError::Fill {
                path: target.path.clone(),
                source,
            }
        })?;
    }
    let mut probe = crate::protocol::telemetry::Probe::new(&target.path, Vec::new());
    let devices = probe.devices().clone();
    probe.restart();
    let mut last_line = std::time::Instant::now();
    let outcome = crate::replay::replay(
        &capture.requests,
        &remap,
        &target,
        &opts,
        halt,
        &mut |p| {
            if last_line.elapsed().as_secs() >= 5 {
                last_line = std::time::Instant::now();
                say(&format!(
                    "replay: {}/{} requests, {:.0} s, {} in flight, lag p99 {:.3} ms (max {:.3} ms)",
                    p.completed,
                    p.total,
                    p.elapsed_s,
                    p.in_flight,
                    p.lag_p99_us as f64 / 1000.0,
                    p.lag_max_us as f64 / 1000.0
                ));
            }
        },
    )?;
    let figures = probe.tick();
    let mut report = outcome.report(&capture.requests, &remap, &target);
    report.source = crate::replay::ReplaySource::of(&capture);
    report.verdict = Some(drivebench_system::telemetry::judge(
        &drivebench_system::telemetry::VerdictInput::from_telemetry(&figures, None),
    ));
    report.telemetry = Some(figures);
    Ok(Done { report, devices })
}

fn target_info(target: &DirectTarget) -> drivebench_system::target::TargetInfo {
    match target.kind {
        TargetKind::File => drivebench_system::target::describe(&target.path),
        TargetKind::BlockDevice => drivebench_system::target::TargetInfo {
            path: target.path.display().to_string(),
            filesystem: None,
            mount_point: None,
            mount_source: None,
            free_bytes: None,
            total_bytes: None,
            device: target.device.clone(),
        },
    }
}

/// The file this replay created: removed, or kept with --keep-file.
fn leave_or_remove(path: &Path, keep: bool, console: &Console) {
    if keep {
        console.always(&format!(
            "kept {} (--keep-file); `drivebench clean {}` removes it",
            path.display(),
            path.parent().unwrap_or(Path::new(".")).display()
        ));
        return;
    }
    if let Err(e) = drivebench_system::target::leftovers::remove_marked_file(path) {
        console.always(&format!("warning: cannot remove {}: {e}", path.display()));
    }
}
