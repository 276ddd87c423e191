//! The sweep step: after the database phases (or alone, for `drivebench sweep`), each sweep
//! entry opens its target (a file allocated under the target directory, or a block device
//! through the destructive-write guard), fills it, then sweeps each profile. The I/O runs on
//! a blocking thread; its events come back here, where each point is printed live and
//! result.json is rewritten, so an interruption or a crash keeps every finished point.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::telemetry::Probe;
use super::{Ending, RunCtx, Stage};
use crate::config::units::format_bytes;
use crate::config::units::format_duration;
use crate::console::Console;
use crate::io::fill::{FillProgress, FillResult, FillSpec, fill};
use crate::io::sweep::{PointKind, SteadySpec, SweepPoint, SweepResult, SweepSpec, run_sweep};
use crate::io::{DirectTarget, IoError, Region, TargetSpec, open_target};
use crate::report::OutputError;
use crate::results::sweeps::{PointDevice, SweepReport};
use crate::scenario::Plan;
use crate::scenario::sweep::{PlanSweep, SweepTarget};
use crate::target::leftovers::remove_marked_file;

/// Open a sweep's target; `target_dir` holds its file.
pub fn open(sweep: &PlanSweep, target_dir: &str) -> Result<DirectTarget, IoError> {
    let path = sweep.target_path(target_dir);
    let spec = match &sweep.target {
        SweepTarget::File { size_bytes, .. } => TargetSpec::File {
            path,
            size_bytes: *size_bytes,
        },
        SweepTarget::Device { destroy_data, .. } => TargetSpec::BlockDevice {
            path,
            destroy_data: *destroy_data,
        },
    };
    open_target(&spec)
}

/// Before a run starts: every device sweep passes the guard now (claimed and released), so a
/// refusal comes before hours of database phases, not after.
pub fn check_devices(plan: &Plan) -> Result<(), DeviceRefused> {
    for (index, s) in plan.sweeps.iter().enumerate() {
        if matches!(s.target, SweepTarget::Device { .. }) {
            open(s, &plan.target_path).map_err(|source| DeviceRefused { index, source })?;
        }
    }
    Ok(())
}

/// A sweep's device that the guard refuses, or that cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error("sweep[{index}]: {source}")]
pub struct DeviceRefused {
    pub index: usize,
    #[source]
    pub source: IoError,
}

/// A sweep whose profiles would read blocks of its file never written since the file was
/// allocated: the filesystem answers those reads without the drive, so the figures would
/// measure the page cache and metadata, not the drive. Refused before anything starts.
#[derive(Debug, thiserror::Error)]
pub enum Unwritten {
    #[error(
        "{path}: fill 0 on a file created now: {profile} would read blocks never written, which \
         the filesystem answers without reaching the drive; fill it first (fill = 1, --fill 1), \
         or sweep a file already written"
    )]
    New { path: String, profile: String },
    #[error(
        "{path}: fill 0, but the file holds blocks never written since it was allocated (from \
         byte {offset} on, inside the {region} the profiles touch): {profile} would read them \
         without reaching the drive; fill it first (fill = 1, --fill 1)"
    )]
    NeverWritten {
        path: String,
        offset: u64,
        region: String,
        profile: String,
    },
    #[error(transparent)]
    Io(#[from] IoError),
}

/// Refuse a sweep without a fill whose profiles read blocks of its file never written: a file
/// this sweep creates, or one with holes or unwritten extents in the region swept.
pub fn check_written(sweep: &PlanSweep, target_dir: &str) -> Result<(), Unwritten> {
    let SweepTarget::File { size_bytes, .. } = sweep.target else {
        return Ok(());
    };
    let Some(reader) = sweep.profiles.iter().find(|p| p.read_pct > 0) else {
        return Ok(());
    };
    if sweep.fill_passes > 0 {
        return Ok(());
    }
    let path = sweep.target_path(target_dir);
    let (shown, profile) = (path.display().to_string(), reader.name.to_string());
    if !path.exists() {
        return Err(Unwritten::New {
            path: shown,
            profile,
        });
    }
    let end = (size_bytes as f64 * sweep.region.end_fraction) as u64;
    match crate::io::first_unwritten(&path, end)? {
        None => Ok(()),
        Some(offset) => Err(Unwritten::NeverWritten {
            path: shown,
            offset,
            region: format_bytes(end),
            profile,
        }),
    }
}

/// [`check_written`] for every sweep of a plan, before it starts; a file an earlier sweep
/// fills and leaves (one that existed before the run) counts as written.
pub fn check_all_written(plan: &Plan) -> Result<(), (usize, Unwritten)> {
    for (i, s) in plan.sweeps.iter().enumerate() {
        let path = s.target_path(&plan.target_path);
        let filled_before = plan.sweeps[..i]
            .iter()
            .any(|e| e.fill_passes > 0 && e.target_path(&plan.target_path) == path);
        if !(filled_before && path.exists()) {
            check_written(s, &plan.target_path).map_err(|e| (i, e))?;
        }
    }
    Ok(())
}

/// Bytes the plan's sweep files will take on the target (files that do not exist yet).
pub fn needed_bytes(plan: &Plan) -> u64 {
    let mut files: Vec<(std::path::PathBuf, u64)> = Vec::new();
    for s in &plan.sweeps {
        if let SweepTarget::File { size_bytes, .. } = s.target {
            let path = s.target_path(&plan.target_path);
            match files.iter_mut().find(|(p, _)| *p == path) {
                Some((_, size)) => *size = (*size).max(size_bytes),
                None => files.push((path, size_bytes)),
            }
        }
    }
    files
        .iter()
        .filter(|(p, _)| !p.exists())
        .map(|(_, size)| size)
        .sum()
}

/// Every sweep of a scenario, after its phases. Files this step created are removed after.
pub async fn run_all(plan: &Plan, ctx: &mut RunCtx<'_>) -> Ending {
    for (i, sweep) in plan.sweeps.iter().enumerate() {
        let path = sweep.target_path(&plan.target_path);
        let created = matches!(sweep.target, SweepTarget::File { .. }) && !path.exists();
        let ending = match open(sweep, &plan.target_path) {
            Ok(target) => run_one(plan.seed, sweep, target, ctx).await,
            Err(e) => Ending::failed(Stage::Sweep(format!("sweep[{i}]")), e),
        };
        if created && let Err(e) = remove_marked_file(&path) {
            ctx.console
                .line(&format!("warning: cannot remove {}: {e}", path.display()));
        }
        if !ending.is_complete() {
            return ending;
        }
    }
    Ending::Complete
}

/// What the I/O thread reports.
enum Event {
    Fill(FillProgress),
    Filled(FillResult),
    Start(usize),
    Point(usize, Box<SweepPoint>),
    Done(usize, Box<SweepResult>),
}

/// One sweep entry on an open target: fill, then each profile; result.json after each point.
pub async fn run_one(
    seed: u64,
    sweep: &PlanSweep,
    target: DirectTarget,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = tokio::spawn({
        let (cancel, stop) = (ctx.cancel.clone(), stop.clone());
        async move {
            cancel.cancelled().await;
            stop.store(true, Ordering::Relaxed);
        }
    });
    let identity = target
        .device
        .clone()
        .or_else(|| crate::target::describe(&target.path).device);
    let path = target.path.display().to_string();
    let size_bytes = target.size_bytes;
    ctx.console.line(&format!(
        "sweep on {path} ({}, direct-I/O alignment {} bytes)",
        format_bytes(target.size_bytes),
        target.alignment.offset_bytes
    ));
    let (tx, mut events) = mpsc::unbounded_channel();
    let job = tokio::task::spawn_blocking({
        let (sweep, stop) = (sweep.clone(), stop.clone());
        move || io_thread(&target, &sweep, seed, &stop, &tx)
    });
    let mut live = Live::new(sweep, path, identity, size_bytes, ctx.console);
    while let Some(ev) = events.recv().await {
        live.event(ev, ctx);
    }
    watcher.abort();
    let ran = job
        .await
        .unwrap_or_else(|e| Err(IoError::Worker(format!("sweep thread: {e}"))));
    match (ran, live.failed) {
        (Err(e), _) => Ending::failed(Stage::Sweep(format!("sweep on {}", live.path)), e),
        (Ok(()), Some(e)) => Ending::failed(Stage::Results, e),
        (Ok(()), None) if stop.load(Ordering::Relaxed) => Ending::Interrupted,
        (Ok(()), None) => Ending::Complete,
    }
}

/// The console and result.json side of one sweep entry: what its events are turned into.
struct Live<'a> {
    sweep: &'a PlanSweep,
    /// The target's path and drive, for the reports.
    path: String,
    identity: Option<crate::target::DeviceIdentity>,
    /// Points in the whole entry, points finished, and the longest a point takes (ms).
    total: usize,
    done: usize,
    point_ms: u64,
    /// The running profile's points so far, and what the drive counted over each.
    partial: Vec<SweepPoint>,
    devices: Vec<Option<PointDevice>>,
    probe: Probe,
    /// When the last fill line was printed (without a progress bar).
    fill_line: Instant,
    bar: Option<indicatif::ProgressBar>,
    /// The first result.json write that failed.
    failed: Option<OutputError>,
}

impl<'a> Live<'a> {
    fn new(
        sweep: &'a PlanSweep,
        path: String,
        identity: Option<crate::target::DeviceIdentity>,
        size_bytes: u64,
        console: &Console,
    ) -> Self {
        let probe = Probe::new(std::path::Path::new(&path), Vec::new());
        Live {
            sweep,
            path,
            identity,
            total: sweep.profiles.len() * sweep.points_per_profile(),
            done: 0,
            point_ms: sweep.warmup_ms + sweep.duration_ms,
            partial: Vec::new(),
            devices: Vec::new(),
            probe,
            fill_line: Instant::now(),
            bar: (sweep.fill_passes > 0)
                .then(|| console.bytes_bar(size_bytes * u64::from(sweep.fill_passes)))
                .flatten(),
            failed: None,
        }
    }

    fn event(&mut self, ev: Event, ctx: &mut RunCtx<'_>) {
        let sweep = self.sweep;
        match ev {
            Event::Fill(p) => self.fill(&p, ctx.console),
            Event::Filled(r) => self.filled(&r, ctx.console),
            Event::Start(i) => {
                let p = &sweep.profiles[i];
                ctx.console
                    .line(&format!("sweep {}: {}", p.name, p.definition()));
                if sweep.steady.is_some() {
                    ctx.console.line(&format!(
                        "sweep {}: steady-state rounds of {} first",
                        p.name,
                        format_duration(Duration::from_millis(sweep.duration_ms))
                    ));
                }
                self.partial.clear();
                self.devices.clear();
                self.probe.restart();
                ctx.report
                    .sweeps
                    .push(partial_report(sweep, i, &self.partial));
            }
            Event::Point(i, p) if p.kind == PointKind::SteadyRound => {
                self.probe.restart();
                ctx.console.line(&format!(
                    "{} steady-state round: {:.0} IOPS, {:.1} MiB/s",
                    sweep.profiles[i].name, p.result.iops, p.result.mib_s
                ));
            }
            Event::Point(i, p) => {
                self.done += 1;
                let left = (self.total.saturating_sub(self.done) as u64) * self.point_ms;
                ctx.console.line(&format!(
                    "{} [{}/{}, at most {} left]",
                    point_line(&sweep.profiles[i].name, &p),
                    self.done,
                    self.total,
                    format_duration(Duration::from_secs(left.div_ceil(1000)))
                ));
                self.devices
                    .push(PointDevice::of(&self.probe.tick(), p.result.iops));
                self.partial.push(*p);
                let r = partial_report(sweep, i, &self.partial);
                self.save(r, ctx);
            }
            Event::Done(i, r) => {
                // A curve stopped by its latency limit skips the rest of its points.
                self.done = (i + 1) * sweep.points_per_profile();
                self.save(SweepReport::from_result(&r), ctx);
            }
        }
    }

    /// Fill progress: on the bar, or a line every 5 s without one.
    fn fill(&mut self, p: &FillProgress, console: &Console) {
        match &self.bar {
            Some(b) => b.set_position(p.bytes_done),
            None if self.fill_line.elapsed() >= Duration::from_secs(5) => {
                self.fill_line = Instant::now();
                console.line(&format!(
                    "fill: {} of {} ({:.0} MB/s, ETA {})",
                    format_bytes(p.bytes_done),
                    format_bytes(p.bytes_total),
                    p.mb_s,
                    format_duration(Duration::from_secs(p.eta_secs.ceil() as u64))
                ));
            }
            None => {}
        }
    }

    /// The fill's end: the bar cleared, and what it wrote at what rate.
    fn filled(&self, r: &FillResult, console: &Console) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        console.line(&format!(
            "fill: {} in {:.1} s ({:.1} MB/s, {:.1} MiB/s){}",
            format_bytes(r.bytes),
            r.seconds,
            r.mb_s,
            r.mib_s,
            if r.stopped_early {
                ", stopped early"
            } else {
                ""
            }
        ));
    }

    /// Put the running profile's newer report in the run report, with the target and drive,
    /// and rewrite result.json.
    fn save(&mut self, mut r: SweepReport, ctx: &mut RunCtx<'_>) {
        (r.target, r.device) = (Some(self.path.clone()), self.identity.clone());
        for (point, device) in r.points.iter_mut().zip(&self.devices) {
            point.device = device.clone();
        }
        replace_last(&mut ctx.report.sweeps, r);
        if let Err(e) = ctx.dir.write_result(ctx.report) {
            self.failed.get_or_insert(e);
        }
    }
}

/// Put a profile's newer report in place of the one its Start event pushed.
fn replace_last(sweeps: &mut Vec<SweepReport>, r: SweepReport) {
    match sweeps.last_mut() {
        Some(last) if last.profile == r.profile => *last = r,
        _ => sweeps.push(r),
    }
}

/// The blocking part: fill, then each profile's sweep, reporting as it goes.
fn io_thread(
    target: &DirectTarget,
    sweep: &PlanSweep,
    seed: u64,
    stop: &AtomicBool,
    tx: &mpsc::UnboundedSender<Event>,
) -> Result<(), IoError> {
    let send = |ev| {
        let _ = tx.send(ev);
    };
    if sweep.fill_passes > 0 {
        let spec = FillSpec {
            passes: sweep.fill_passes,
            seed,
            ..FillSpec::new(Region::WHOLE)
        };
        let r = fill(target, &spec, stop, |p| send(Event::Fill(p)))?;
        send(Event::Filled(r));
    }
    for (i, profile) in sweep.profiles.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        send(Event::Start(i));
        let spec = SweepSpec {
            profile: profile.clone(),
            region: sweep.region,
            warmup_secs: sweep.warmup_ms as f64 / 1000.0,
            point_secs: sweep.duration_ms as f64 / 1000.0,
            curve: sweep.curve.clone(),
            fixed_rate: sweep.rate,
            arrivals: sweep.arrivals,
            engine: sweep.io_engine,
            submit_batch: sweep.submit_batch,
            seed: seed.wrapping_add(i as u64 * 1_000),
            steady: sweep.steady.map(|rule| SteadySpec {
                rule,
                round_secs: sweep.duration_ms as f64 / 1000.0,
            }),
        };
        let r = run_sweep(target, &spec, stop, |p| {
            send(Event::Point(i, Box::new(p.clone())))
        })?;
        send(Event::Done(i, Box::new(r)));
    }
    Ok(())
}

/// The report of a profile whose sweep is still running (or was cut short by a failure).
fn partial_report(sweep: &PlanSweep, i: usize, points: &[SweepPoint]) -> SweepReport {
    let p = &sweep.profiles[i];
    let max_iops = points
        .iter()
        .find(|x| x.kind == PointKind::Max)
        .map_or(0.0, |x| x.result.iops);
    SweepReport::from_result(&SweepResult {
        profile: p.name.to_string(),
        definition: p.definition(),
        threads: p.threads,
        depth: p.depth,
        read_pct: p.read_pct,
        random_pct: p.random_pct,
        max_iops,
        points: points.to_vec(),
        slo: None,
        steady: None,
        stopped_early: true,
    })
}

/// `4k-random-read-128  50 %  target 4120  got 4118 IOPS  16.1 MiB/s  lat avg/p99 240.1/610 µs`
pub fn point_line(profile: &str, p: &SweepPoint) -> String {
    let r = &p.result;
    let what = match (p.kind, p.target_pct) {
        (PointKind::Curve, Some(pct)) => format!("{pct} %"),
        (kind, _) => format!("{kind:?}").to_lowercase(),
    };
    format!(
        "{profile} {what:>6}  target {:>9}  got {:>9.0} IOPS  {:>8.1} MiB/s  lat avg/p99 {:.1}/{} µs{}{}",
        r.target_iops
            .map_or_else(|| "max".to_string(), |t| format!("{t:.0}")),
        r.iops,
        r.mib_s,
        r.schedule_latency_us.avg,
        r.schedule_latency_us.p99,
        if p.sustainable { "" } else { "  (fell behind)" },
        if r.stopped_early {
            "  (stopped early)"
        } else {
            ""
        }
    )
}
