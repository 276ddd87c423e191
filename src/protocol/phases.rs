//! Phases as barriers, run on a connected [`Fleet`]: one start signal releases every client;
//! the sampler wakes at every report tick and phase boundary, takes the recorded figures out
//! (so counters reset at boundaries), appends series rows, prints the live line, and closes
//! each phase into a `PhaseReport`. A transaction in flight at a boundary is recorded where it
//! ends. What a benchmark adds at the boundaries (TPC-C's NOPM) comes through its
//! [`PhaseHooks`], whose figures are kept in the phase's report.

use std::time::Duration;

use tokio::time::Instant;

use super::cliff::CliffTrack;
use super::health::HealthWatch;
use super::stall::StallWatch;
use super::steady::SteadyTrack;
use super::{Ending, RunCtx, Stage};
use crate::clients::fleet::{Fleet, Wake};
use crate::console::interval_line;
use crate::metrics::Recorded;
use crate::metrics::rebuild::PhaseHistograms;
use crate::metrics::summary::{MeanOfInstances, Summary};
use crate::results::engine_io::{ClosedSpan, EngineIoRow};
use crate::results::phase::{InstancePhase, PhaseReport, SeriesRow};
use crate::results::steady::SteadyOutcome;
use crate::results::telemetry::{PhaseTelemetry, TelemetryRow};
use crate::scenario::plan::DbPlan;
use crate::scenario::plan::PlanPhase;
use crate::workload::hooks::PhaseHooks;
use drivebench_core::histogram;
use drivebench_system::health::interval::ThrottleMark;
use drivebench_system::telemetry::DiskCounts;

/// How often result.json is rewritten with the running phase so far (marked not completed),
/// so that a run killed outright (SIGKILL, the OOM killer, a power cut) keeps its figures up to
/// then: with the default 10 s report interval, at every tick.
const SAVE_EVERY: Duration = Duration::from_secs(10);

/// One phase's sampling so far.
struct Sampled {
    totals: Vec<Recorded>,
    series: Vec<SeriesRow>,
    /// Telemetry of each interval (when the run has a probe).
    telemetry: Vec<TelemetryRow>,
    /// The rounds of an `until = "steady"` phase.
    steady: Option<SteadyTrack>,
    /// The rounds of a `cliff` phase.
    cliff: Option<CliffTrack>,
    last_tick: Instant,
    /// When result.json last held this phase so far.
    last_saved: Instant,
    stop: Option<Ending>,
}

/// Run every phase of the plan on `fleet` (connected, not started yet).
pub async fn run_phases(
    plan: DbPlan<'_>,
    fleet: &mut Fleet,
    kinds: &'static [&'static str],
    hooks: &mut impl PhaseHooks,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    ctx.console.line(&format!(
        "{} clients connected; starting {} phase(s)",
        fleet.len(),
        plan.db.phases.len()
    ));
    hooks.before_start().await;
    let target = std::path::Path::new(plan.target_path());
    let mut health = HealthWatch::start(target, ctx.console).await;
    let t0 = match start_clock(plan, fleet, ctx).await {
        Ok(t0) => t0,
        Err(ending) => return ending,
    };
    let mut phase_start = t0;
    // Kept across phase boundaries: a server that stops answering near the end of one phase
    // is caught in the next, even when each phase is shorter than the stall timeout.
    let mut watch = StallWatch::new(
        plan.db.instances.len(),
        plan.db.workload.stall_timeout_ms,
        t0,
    );
    // How much sooner than planned the steady phases so far ended: later phases move up.
    let mut early = Duration::ZERO;
    for (i, phase) in plan.db.phases.iter().enumerate() {
        if i > 0 {
            set_rate(plan, i, fleet);
        }
        let bar = announce(phase, phase_start, ctx);
        let planned_end = t0
            + Duration::from_millis(phase.start_offset_ms + phase.duration_ms)
                .saturating_sub(early);
        let clock = (t0, phase_start, planned_end);
        ctx.capture.phase_begins(&phase.name);
        let watches = (&mut *fleet, &mut watch, &mut health);
        let sampled = sample_phase(plan, phase, watches, kinds, clock, ctx).await;
        ctx.capture.phase_ends();
        if let Some(b) = bar {
            b.finish();
        }
        let timing = PhaseTiming {
            seconds: (sampled.last_tick - phase_start).as_secs_f64(),
            start_offset_s: (phase_start - t0).as_secs_f64(),
            completed: sampled.stop.is_none(),
        };
        let mut stop = sampled.stop;
        let mut closed = close_phase(plan, phase, kinds, &sampled.totals, sampled.series, timing);
        let paced = plan.db.workload.rate.is_some() || phase.rate.is_some();
        let engine_io = ctx.engine_io.as_mut().map(|e| e.track.close());
        add_telemetry(&mut closed, sampled.telemetry, paced, ctx);
        add_engine_io(phase, &mut closed, engine_io, ctx);
        closed.health = Some(health.close_phase().await);
        if let Some(track) = sampled.steady
            && add_steady(phase, &mut closed, track, ctx)
        {
            early += planned_end.saturating_duration_since(sampled.last_tick);
        }
        add_cliff(phase, &mut closed, sampled.cliff, ctx);
        if let Some(figures) = hooks.phase_ended(&closed.summary, phase.record).await {
            closed.keep(figures);
        }
        ctx.report.phases.push(closed);
        phase_start = sampled.last_tick;
        if let Err(e) = ctx.dir.write_result(ctx.report) {
            stop.get_or_insert(Ending::failed(Stage::Results, e));
        }
        if let Some(s) = stop {
            return s;
        }
    }
    Ending::Complete
}

/// The phase's progress bar, and its name on the live metrics page.
fn announce(
    phase: &PlanPhase,
    phase_start: Instant,
    ctx: &RunCtx<'_>,
) -> Option<crate::console::PhaseBar> {
    if let Some(live) = ctx.live {
        live.set_phase(&phase.name, phase.record);
    }
    ctx.console
        .phase_bar(&phase.name, phase.duration_ms, phase_start)
}

/// The phase's telemetry and its verdict, when the run has a probe.
fn add_telemetry(
    closed: &mut PhaseReport,
    rows: Vec<TelemetryRow>,
    paced: bool,
    ctx: &mut RunCtx<'_>,
) {
    if ctx.telemetry.probe().is_none() {
        return;
    }
    closed.telemetry = Some(PhaseTelemetry::close(rows, &closed.summary, paced));
}

/// The phase's engine I/O figures (when sampled): a drive-bound verdict gets the I/O class
/// they name. Then the verdict line, printed for a recorded phase.
fn add_engine_io(
    phase: &PlanPhase,
    closed: &mut PhaseReport,
    span: Option<ClosedSpan>,
    ctx: &RunCtx<'_>,
) {
    if let Some(span) = span {
        if let (Some(t), Some(total), Some(work)) = (
            closed.telemetry.as_mut(),
            span.engine_io.total.as_ref(),
            span.total_work,
        ) {
            t.name_class(total, work);
        }
        closed.engine_io = Some(span.engine_io);
    }
    if let (true, Some(t)) = (phase.record, &closed.telemetry) {
        ctx.console
            .line(&format!("{}: {}", phase.name, t.verdict_line()));
    }
}

/// An `until = "steady"` phase's report, printed; whether it reached steady state (and so
/// ended before its planned end).
fn add_steady(
    phase: &PlanPhase,
    closed: &mut PhaseReport,
    track: SteadyTrack,
    ctx: &mut RunCtx<'_>,
) -> bool {
    let report = track.report();
    ctx.console
        .always(&format!("{}: {}", phase.name, report.line()));
    let reached = matches!(report.outcome, SteadyOutcome::Reached { .. });
    closed.steady = Some(report);
    reached
}

/// A cliff phase's rounds judged, the judgement printed and kept in its report.
fn add_cliff(
    phase: &PlanPhase,
    closed: &mut PhaseReport,
    track: Option<CliffTrack>,
    ctx: &RunCtx<'_>,
) {
    if let Some(track) = track {
        let report = track.report();
        ctx.console
            .always(&format!("{}: write cliff: {}", phase.name, report.line()));
        closed.cliff = Some(report);
    }
}

/// Phase `i`'s fixed rate set on every instance's clients from now; after a phase with one,
/// a phase without one goes back to the workload's pacing (its rate, or closed loop).
fn set_rate(plan: DbPlan<'_>, i: usize, fleet: &Fleet) {
    let phases = &plan.db.phases;
    let rate = match (phases[i].rate, phases[..i].iter().any(|p| p.rate.is_some())) {
        (Some(r), _) => Some(r),
        (None, true) => plan.db.workload.rate,
        (None, false) => return,
    };
    for control in fleet.controls() {
        match rate {
            Some(r) => control.set_rate(r),
            None => control.set_closed(),
        }
    }
}

/// Release the clients (at `--start-at`, if given) and start the telemetry with them; the
/// clock's record goes into the report.
async fn start_clock(
    plan: DbPlan<'_>,
    fleet: &mut Fleet,
    ctx: &mut RunCtx<'_>,
) -> Result<Instant, Ending> {
    let waited = super::start_at::wait(ctx).await?;
    let t0 = fleet.start();
    set_rate(plan, 0, fleet);
    ctx.report.clock = Some(super::start_at::started(waited));
    if let Some(probe) = ctx.telemetry.probe() {
        probe.restart();
    }
    if let Some(e) = ctx.engine_io.as_mut() {
        e.restart().await;
    }
    Ok(t0)
}

/// Sample one phase at every report tick until its planned end, steady state, a failure or
/// cancellation. `clock` is the run's start, this phase's start and its planned end; `watch`
/// knows when each instance last made progress; `health` reads the drive's log at each tick
/// where it has one.
async fn sample_phase(
    plan: DbPlan<'_>,
    phase: &PlanPhase,
    (fleet, watch, health): (&mut Fleet, &mut StallWatch, &mut HealthWatch),
    kinds: &'static [&'static str],
    (t0, phase_start, planned_end): (Instant, Instant, Instant),
    ctx: &mut RunCtx<'_>,
) -> Sampled {
    let interval = Duration::from_millis(plan.report_interval_ms());
    let mut s = Sampled {
        totals: (0..plan.db.instances.len())
            .map(|_| Recorded::new(kinds.len()))
            .collect(),
        series: Vec::new(),
        telemetry: Vec::new(),
        steady: (phase.rounds.steady())
            .map(|st| SteadyTrack::new(st, plan.report_interval_ms(), phase_start)),
        cliff: (phase.rounds.cliff()).map(|c| {
            let interval_ms = plan.report_interval_ms();
            CliffTrack::new((c, phase.rate), interval_ms, kinds.len(), phase_start)
        }),
        last_tick: phase_start,
        last_saved: phase_start,
        stop: None,
    };
    let mut tick_planned = phase_start;
    loop {
        tick_planned = (tick_planned + interval).min(planned_end);
        let wake = fleet.wait(tick_planned, ctx.cancel).await;
        let now = Instant::now();
        let reading = health.begin_interval();
        let secs = (now - s.last_tick).as_secs_f64();
        let at_s = (now - t0).as_secs_f64();
        let recorded = fleet.collect();
        if let Some((i, stalled)) = watch.check(&recorded, now) {
            let name = &plan.db.instances[i].name;
            s.stop = Some(Ending::failed_on(Stage::Phases, name, stalled));
        }
        let summaries: Vec<Summary> = (recorded.iter())
            .map(|r| Summary::from_recorded(r, kinds, secs))
            .collect();
        let engine_io = match ctx.engine_io.as_mut() {
            Some(e) => e.tick(at_s, &summaries).await,
            None => Vec::new(),
        };
        let interval = Interval {
            at_s,
            secs,
            recorded,
            summaries,
            engine_io,
            drive_throttle: health.end_interval(reading).await,
        };
        let tick = record_interval(plan, phase, interval, kinds, &mut s, ctx);
        s.last_tick = now;
        match wake {
            Wake::Cancelled => s.stop = Some(Ending::Interrupted),
            Wake::Failed(e) => s.stop = Some(Ending::failed(Stage::Phases, e)),
            Wake::Tick => {}
        }
        let steady = rounds_tick(phase, &tick, kinds, (now, phase_start), &mut s, ctx);
        if s.stop.is_some() || steady || tick_planned >= planned_end {
            return s;
        }
        if now - s.last_saved >= SAVE_EVERY {
            save_so_far(plan, phase, kinds, (t0, phase_start), &mut s, ctx);
        }
    }
}

/// What one tick adds to the phase's rounds (steady or cliff); true once a steady phase is
/// steady. A cliff round's figures are printed as it closes.
fn rounds_tick(
    phase: &PlanPhase,
    tick: &Tick,
    kinds: &[&str],
    (now, phase_start): (Instant, Instant),
    s: &mut Sampled,
    ctx: &RunCtx<'_>,
) -> bool {
    if let Some(r) =
        (s.cliff.as_mut()).and_then(|c| c.tick(&tick.total, tick.disk.as_ref(), kinds, now))
    {
        ctx.console.line(&format!("{}: {}", phase.name, r.line()));
    }
    let phase_s = (now - phase_start).as_secs_f64();
    let tx = tick.total.transactions();
    s.steady.as_mut().is_some_and(|t| t.tick(tx, now, phase_s))
}

/// One tick's transactions, all instances, and the drive's counts over it (with telemetry).
struct Tick {
    total: Recorded,
    disk: Option<DiskCounts>,
}

/// What the sampler took at a tick: seconds since the start and the interval's length, each
/// instance's recorded figures and their summary, its engine I/O row (none without engine
/// I/O sampling), and whether the drive throttled in the interval.
struct Interval {
    at_s: f64,
    secs: f64,
    recorded: Vec<Recorded>,
    summaries: Vec<Summary>,
    engine_io: Vec<EngineIoRow>,
    drive_throttle: ThrottleMark,
}

/// One report interval: a series row per instance (appended to series.csv), the instances'
/// totals, and the live line. Returns the interval's transactions, all instances, and the
/// drive's counts.
fn record_interval(
    plan: DbPlan<'_>,
    phase: &PlanPhase,
    iv: Interval,
    kinds: &'static [&'static str],
    s: &mut Sampled,
    ctx: &mut RunCtx<'_>,
) -> Tick {
    let clients = plan.db.workload.clients;
    let telemetry = ctx.telemetry.probe().map(|p| p.tick());
    let mut interval_total = Recorded::new(kinds.len());
    for (i, (r, summary)) in iv.recorded.iter().zip(&iv.summaries).enumerate() {
        let name = &plan.db.instances[i].name;
        let row = SeriesRow {
            drive_throttle: iv.drive_throttle,
            ..SeriesRow::from_summary(&phase.name, name, iv.at_s, clients, summary)
        };
        let engine_io = iv.engine_io.get(i);
        if let Some(live) = ctx.live {
            live.interval(name, summary);
            if let Some(f) = engine_io.and_then(|e| e.figures.as_ref()) {
                live.engine_io(name, f);
            }
        }
        if let Err(e) = ctx.dir.append_series(&row, telemetry.as_ref(), engine_io) {
            s.stop.get_or_insert(Ending::failed(Stage::Results, e));
        }
        s.series.push(row);
        s.totals[i].merge(r);
        interval_total.merge(r);
    }
    if let Some(live) = ctx.live {
        live.tick(iv.at_s);
        if let Some(t) = &telemetry {
            live.telemetry(t);
        }
    }
    let disk = (telemetry.as_ref())
        .and_then(|t| t.device.as_ref())
        .map(|d| d.total.counts);
    if let Some(figures) = telemetry {
        s.telemetry.push(TelemetryRow {
            elapsed_s: iv.at_s,
            figures,
        });
    }
    let summary = Summary::from_recorded(&interval_total, kinds, iv.secs);
    ctx.console.line(&interval_line(
        iv.at_s,
        &phase.name,
        iv.recorded.len(),
        clients,
        &summary,
    ));
    Tick {
        total: interval_total,
        disk,
    }
}

/// Write result.json with the running phase closed as it stands (not completed); the phase
/// itself goes on.
fn save_so_far(
    plan: DbPlan<'_>,
    phase: &PlanPhase,
    kinds: &[&str],
    (t0, phase_start): (Instant, Instant),
    s: &mut Sampled,
    ctx: &mut RunCtx<'_>,
) {
    let timing = PhaseTiming {
        seconds: (s.last_tick - phase_start).as_secs_f64(),
        start_offset_s: (phase_start - t0).as_secs_f64(),
        completed: false,
    };
    let partial = close_phase(plan, phase, kinds, &s.totals, s.series.clone(), timing);
    ctx.report.phases.push(partial);
    let written = ctx.dir.write_result(ctx.report);
    ctx.report.phases.pop();
    if let Err(e) = written {
        s.stop.get_or_insert(Ending::failed(Stage::Results, e));
    }
    s.last_saved = s.last_tick;
}

/// When a phase ran: its measured seconds, its start after the first phase's, and whether it
/// ran to its planned end.
struct PhaseTiming {
    seconds: f64,
    start_offset_s: f64,
    completed: bool,
}

fn close_phase(
    plan: DbPlan<'_>,
    phase: &PlanPhase,
    kinds: &[&str],
    totals: &[Recorded],
    series: Vec<SeriesRow>,
    timing: PhaseTiming,
) -> PhaseReport {
    let seconds = timing.seconds;
    let mut all = Recorded::new(kinds.len());
    let mut per_instance = Vec::new();
    for (i, r) in totals.iter().enumerate() {
        all.merge(r);
        per_instance.push(InstancePhase {
            instance: plan.db.instances[i].name.clone(),
            summary: Summary::from_recorded(r, kinds, seconds),
            histogram: histogram::encode(&r.response_total()),
            histograms: Some(PhaseHistograms::of(r)),
        });
    }
    let refs: Vec<&Summary> = per_instance.iter().map(|p| &p.summary).collect();
    PhaseReport {
        name: phase.name.clone(),
        recorded: phase.record,
        completed: timing.completed,
        planned_duration_s: phase.duration_ms as f64 / 1000.0,
        start_offset_s: timing.start_offset_s,
        clients: plan.db.workload.clients,
        summary: Summary::from_recorded(&all, kinds, seconds),
        mean_of_instances: MeanOfInstances::of(&refs),
        histogram: histogram::encode(&all.response_total()),
        per_instance,
        series,
        tpcc: None,
        telemetry: None,
        steady: None,
        cliff: None,
        engine_io: None,
        health: None,
    }
}
