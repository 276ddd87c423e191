//! A profile's latency-vs-IOPS curve, vdbench style: an uncontrolled run measures the maximum,
//! then every curve point asks for a percentage of it at a paced rate (points over 100 % ask for
//! more than the maximum and show the knee), through the one curve mechanism the database
//! curves use too (`protocol::curve`). Latency is schedule-relative (from each I/O's intended
//! start), so a point that falls behind shows it. A sweep with a fixed rate instead runs that
//! one paced point.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::error::IoError;
use super::profiles::Profile;
use super::result::PointResult;
use super::run::run_point;
use super::spec::{Arrivals, EngineChoice, Pacing, PointSpec, Region};
use super::target::DirectTarget;
use drivebench_core::curve::steady::{SteadyRule, SteadyWindow};
use drivebench_core::curve::{CurveDriver, CurveSpec, PointOutcome, SloResult, Step};

/// What a sweep runs.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    pub profile: Profile,
    pub region: Region,
    /// Warm-up before each point's recorded window.
    pub warmup_secs: f64,
    /// Recorded length of each point (the max run included).
    pub point_secs: f64,
    pub curve: CurveSpec,
    /// Run one point at this rate (IOPS) instead of the max run and the curve.
    pub fixed_rate: Option<f64>,
    pub arrivals: Arrivals,
    pub engine: EngineChoice,
    /// See `PointSpec::submit_batch`.
    pub submit_batch: u32,
    pub seed: u64,
    /// SNIA-style steady state before the max run: uncontrolled rounds of `round_secs` until the
    /// rule holds on IOPS or its round cap is reached.
    pub steady: Option<SteadySpec>,
}

impl SweepSpec {
    /// One point of this sweep's profile, on its region and with its engine settings.
    fn point(&self, warmup_secs: f64, secs: f64, pacing: Pacing, seed: u64) -> PointSpec {
        let mut p = self
            .profile
            .spec(self.region, warmup_secs, secs, pacing, seed);
        p.engine = self.engine;
        p.submit_batch = self.submit_batch;
        p
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadySpec {
    pub rule: SteadyRule,
    pub round_secs: f64,
}

/// The steady-state precondition's verdict: every round's IOPS and the window judged last.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct SteadyReport {
    pub rounds_iops: Vec<f64>,
    pub steady: bool,
    pub window: Option<SteadyWindow>,
}

/// Which step of the sweep a point was.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PointKind {
    /// The uncontrolled run that measures the maximum.
    Max,
    /// A curve point at `target_pct` of the maximum.
    Curve,
    /// A bisection step of the latency-objective search.
    Slo,
    /// The one point of a sweep at a fixed rate.
    Fixed,
    /// A round of the steady-state precondition: reported as it ends, kept only as a figure
    /// of the steady-state verdict, never among the sweep's points.
    SteadyRound,
}

#[derive(Debug, Clone, Serialize)]
pub struct SweepPoint {
    pub kind: PointKind,
    /// Percent of the maximum asked for (None for the max run and SLO steps).
    pub target_pct: Option<f64>,
    /// The point kept up with its schedule: at least 98 % of the target rate, and no more I/Os
    /// behind schedule at the end than it keeps in flight plus 2 % of the target's I/Os.
    pub sustainable: bool,
    pub result: PointResult,
}

#[derive(Debug, Clone, Serialize)]
pub struct SweepResult {
    pub profile: String,
    pub definition: String,
    pub threads: u32,
    pub depth: u32,
    pub read_pct: u8,
    pub random_pct: u8,
    /// IOPS of the uncontrolled run (0 for a sweep at a fixed rate, which has none).
    pub max_iops: f64,
    pub points: Vec<SweepPoint>,
    pub slo: Option<SloResult>,
    pub steady: Option<SteadyReport>,
    /// The stop flag ended the sweep before its last point.
    pub stopped_early: bool,
}

fn sustainable(r: &PointResult) -> bool {
    let Some(target) = r.target_iops else {
        return true;
    };
    let allowance = f64::from(r.outstanding_max_ios) + 0.02 * target * r.elapsed_secs;
    r.iops >= 0.98 * target && (r.backlog_end_ios as f64) <= allowance
}

fn outcome(r: &PointResult, sustainable: bool) -> PointOutcome {
    PointOutcome {
        target_rate: r.target_iops.unwrap_or(r.iops),
        achieved_rate: r.iops,
        mean_ms: r.schedule_latency_us.avg / 1000.0,
        p99_ms: r.schedule_latency_us.p99 as f64 / 1000.0,
        sustainable,
    }
}

/// Run the sweep; `on_point` sees each point (and steady-state round) as it finishes
/// (progress, partial results).
pub fn run_sweep(
    target: &DirectTarget,
    spec: &SweepSpec,
    stop: &AtomicBool,
    mut on_point: impl FnMut(&SweepPoint),
) -> Result<SweepResult, IoError> {
    let steady = match &spec.steady {
        Some(st) => Some(steady_rounds(target, spec, st, stop, &mut on_point)?),
        None => None,
    };
    let mut sweep = Sweeper {
        target,
        spec,
        stop,
        on_point,
        out: SweepResult {
            profile: spec.profile.name.to_string(),
            definition: spec.profile.definition(),
            threads: spec.profile.threads,
            depth: spec.profile.depth,
            read_pct: spec.profile.read_pct,
            random_pct: spec.profile.random_pct,
            max_iops: 0.0,
            points: Vec::new(),
            slo: None,
            steady,
            stopped_early: false,
        },
    };
    match spec.fixed_rate {
        Some(iops) => sweep.fixed(iops)?,
        None => sweep.max_and_curve()?,
    }
    Ok(sweep.out)
}

/// One sweep under way: where it runs, what it reports to, and its result so far.
struct Sweeper<'a, F> {
    target: &'a DirectTarget,
    spec: &'a SweepSpec,
    stop: &'a AtomicBool,
    on_point: F,
    out: SweepResult,
}

impl<F: FnMut(&SweepPoint)> Sweeper<'_, F> {
    /// Run the sweep's `n`th point at `pacing`.
    fn run(&self, pacing: Pacing, n: u64) -> Result<PointResult, IoError> {
        let spec = self.spec;
        let point = spec.point(
            spec.warmup_secs,
            spec.point_secs,
            pacing,
            spec.seed.wrapping_add(n),
        );
        run_point(self.target, &point, self.stop)
    }

    /// A paced point at `iops`.
    fn paced(&self, iops: f64, n: u64) -> Result<PointResult, IoError> {
        let pacing = Pacing::Rate {
            iops,
            arrivals: self.spec.arrivals,
        };
        self.run(pacing, n)
    }

    /// Report a finished point and keep it.
    fn keep(&mut self, p: SweepPoint) {
        (self.on_point)(&p);
        self.out.points.push(p);
    }

    /// The one point of a sweep at a fixed rate (none when stopped before it).
    fn fixed(&mut self, iops: f64) -> Result<(), IoError> {
        if self.stop.load(Ordering::Relaxed) {
            self.out.stopped_early = true;
            return Ok(());
        }
        let result = self.paced(iops, 0)?;
        self.out.stopped_early = result.stopped_early;
        self.keep(SweepPoint {
            kind: PointKind::Fixed,
            target_pct: None,
            sustainable: sustainable(&result),
            result,
        });
        Ok(())
    }

    /// The uncontrolled max run, then the curve's points and latency-objective steps at
    /// rates relative to it, until the curve is done or the sweep stopped.
    fn max_and_curve(&mut self) -> Result<(), IoError> {
        let max = self.run(Pacing::Uncontrolled, 0)?;
        self.out.max_iops = max.iops;
        self.out.stopped_early = max.stopped_early;
        self.keep(SweepPoint {
            kind: PointKind::Max,
            target_pct: None,
            sustainable: true,
            result: max,
        });
        let mut driver = CurveDriver::new(self.spec.curve.clone(), self.out.max_iops);
        let mut n = 1;
        while !self.out.stopped_early && self.out.max_iops > 0.0 {
            let (kind, target_pct, rate) = match driver.next_step() {
                Step::Point { pct, rate } => (PointKind::Curve, Some(pct), rate),
                Step::Slo { rate } => (PointKind::Slo, None, rate),
                Step::Done => break,
            };
            if self.stop.load(Ordering::Relaxed) {
                self.out.stopped_early = true;
                break;
            }
            let result = self.paced(rate, n)?;
            n += 1;
            let kept_up = sustainable(&result);
            driver.record(outcome(&result, kept_up));
            self.out.stopped_early = result.stopped_early;
            self.keep(SweepPoint {
                kind,
                target_pct,
                sustainable: kept_up,
                result,
            });
        }
        self.out.slo = driver.slo();
        Ok(())
    }
}

/// Uncontrolled rounds of the profile until IOPS is steady by `st.rule` or its round cap.
fn steady_rounds(
    target: &DirectTarget,
    spec: &SweepSpec,
    st: &SteadySpec,
    stop: &AtomicBool,
    on_round: &mut impl FnMut(&SweepPoint),
) -> Result<SteadyReport, IoError> {
    let mut rounds = Vec::new();
    while st.rule.wants_more(&rounds) && !stop.load(Ordering::Relaxed) {
        let round = spec.point(
            0.0,
            st.round_secs,
            Pacing::Uncontrolled,
            spec.seed.wrapping_add(1_000_000 + rounds.len() as u64),
        );
        let r = run_point(target, &round, stop)?;
        if r.stopped_early {
            break;
        }
        rounds.push(r.iops);
        on_round(&SweepPoint {
            kind: PointKind::SteadyRound,
            target_pct: None,
            sustainable: true,
            result: r,
        });
    }
    let window = st.rule.last_window(&rounds);
    Ok(SteadyReport {
        steady: window.as_ref().is_some_and(|w| w.steady),
        rounds_iops: rounds,
        window,
    })
}
