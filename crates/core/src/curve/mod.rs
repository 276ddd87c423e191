//! Load curves, one mechanism for I/O sweeps and database workloads: after an uncontrolled run
//! measures the maximum rate, each point asks for a percentage of it (over 100 % asks for more
//! than the maximum, showing the saturation knee). The curve stops early once a point's latency
//! passes a threshold; an optional latency objective (SLO) is then searched by bisection
//! between the last point that met it and the first that did not.
//!
//! `CurveDriver` is a state machine: the caller runs whatever rate it is given and reports the
//! outcome, so the same code drives an async database phase or an I/O thread pool.
//!
//! A leaf of the crate: no other module of drivebench is used here. `steady` holds the SNIA
//! steady-state rule that preconditions are judged by; `backlog` whether an open-model point
//! kept up with its schedule; `cliff` where a fixed load's p99 leaves its early level.

pub mod backlog;
pub mod cliff;
pub mod steady;

use serde::{Deserialize, Serialize};

/// What a curve asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CurveSpec {
    /// Points as percentages of the measured maximum, in the order they run.
    pub points_pct: Vec<f64>,
    /// Stop after a point whose mean latency passes this (ms).
    pub stop_mean_ms: Option<f64>,
    /// Stop after a point whose p99 passes this (ms).
    pub stop_p99_ms: Option<f64>,
    /// Search the highest rate whose p99 stays within this (ms).
    pub slo_p99_ms: Option<f64>,
    /// Bisection steps for the SLO search at most.
    pub slo_steps: u32,
}

impl CurveSpec {
    pub const DEFAULT_POINTS: [f64; 6] = [10.0, 50.0, 70.0, 80.0, 90.0, 100.0];
}

/// What one point measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PointOutcome {
    pub target_rate: f64,
    pub achieved_rate: f64,
    pub mean_ms: f64,
    pub p99_ms: f64,
    /// The point kept up with its schedule (no growing backlog).
    pub sustainable: bool,
}

impl PointOutcome {
    fn meets(&self, slo_p99_ms: f64) -> bool {
        self.sustainable && self.p99_ms <= slo_p99_ms
    }
}

/// The SLO search's answer: the highest rate seen to meet the objective, and the lowest seen
/// to miss it above that (the bracket is the answer's confidence).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SloResult {
    pub p99_ms: f64,
    /// Highest achieved rate that met the objective; None if no rate did.
    pub max_rate: Option<f64>,
    /// Lowest target rate above it that missed; None if every rate met it.
    pub first_miss_rate: Option<f64>,
}

/// Which rate to run next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// A curve point: `pct` of the maximum.
    Point {
        pct: f64,
        rate: f64,
    },
    /// A bisection step of the SLO search.
    Slo {
        rate: f64,
    },
    Done,
}

/// Runs a curve one step at a time.
#[derive(Debug, Clone)]
pub struct CurveDriver {
    spec: CurveSpec,
    max_rate: f64,
    next_point: usize,
    stopped: bool,
    /// Outcomes of curve points and SLO steps, in the order they ran.
    pub outcomes: Vec<PointOutcome>,
    /// SLO bracket: (highest met, lowest missed) target rates; None until the search starts.
    bracket: Option<(f64, f64)>,
    slo_steps_done: u32,
}

impl CurveDriver {
    pub fn new(spec: CurveSpec, max_rate: f64) -> Self {
        CurveDriver {
            spec,
            max_rate,
            next_point: 0,
            stopped: false,
            outcomes: Vec::new(),
            bracket: None,
            slo_steps_done: 0,
        }
    }

    /// The next rate to run.
    pub fn next_step(&mut self) -> Step {
        if !self.stopped && self.next_point < self.spec.points_pct.len() {
            let pct = self.spec.points_pct[self.next_point];
            self.next_point += 1;
            return Step::Point {
                pct,
                rate: self.max_rate * pct / 100.0,
            };
        }
        let Some(slo) = self.spec.slo_p99_ms else {
            return Step::Done;
        };
        if self.bracket.is_none() {
            self.bracket = self.initial_bracket(slo);
        }
        match self.bracket {
            Some((met, missed)) if self.slo_steps_done < self.spec.slo_steps => {
                // Close enough: within 1 % of the maximum.
                if missed - met <= self.max_rate * 0.01 {
                    return Step::Done;
                }
                self.slo_steps_done += 1;
                Step::Slo {
                    rate: (met + missed) / 2.0,
                }
            }
            _ => Step::Done,
        }
    }

    /// Report the outcome of the step `next_step` returned.
    pub fn record(&mut self, outcome: PointOutcome) {
        let over = |limit: Option<f64>, v: f64| limit.is_some_and(|l| v > l);
        if self.bracket.is_none()
            && (over(self.spec.stop_mean_ms, outcome.mean_ms)
                || over(self.spec.stop_p99_ms, outcome.p99_ms))
        {
            self.stopped = true;
        }
        if let (Some(slo), Some((met, missed))) = (self.spec.slo_p99_ms, self.bracket) {
            self.bracket = Some(if outcome.meets(slo) {
                (outcome.target_rate.max(met), missed)
            } else {
                (met, outcome.target_rate.min(missed))
            });
        }
        self.outcomes.push(outcome);
    }

    /// Bracket from the curve points: the highest met (0 if none) and the lowest missed above
    /// it, so a noisy miss at a low point does not hide a higher rate that met the objective.
    /// None when nothing above the highest met missed: no latency limit within the curve.
    fn initial_bracket(&self, slo: f64) -> Option<(f64, f64)> {
        let (met, missed) = met_and_missed(&self.outcomes, slo);
        missed.map(|m| (met, m))
    }

    /// The SLO answer once `next_step` has returned `Done`.
    pub fn slo(&self) -> Option<SloResult> {
        let slo = self.spec.slo_p99_ms?;
        Some(SloResult {
            p99_ms: slo,
            max_rate: best_met(&self.outcomes, slo),
            first_miss_rate: self.bracket.map(|(_, missed)| missed),
        })
    }
}

/// The highest target rate that met `slo` (0 if none) and the lowest that missed above it.
fn met_and_missed(outcomes: &[PointOutcome], slo: f64) -> (f64, Option<f64>) {
    let met = outcomes
        .iter()
        .filter(|o| o.meets(slo))
        .map(|o| o.target_rate)
        .fold(0.0, f64::max);
    let missed = outcomes
        .iter()
        .filter(|o| !o.meets(slo) && o.target_rate > met)
        .map(|o| o.target_rate)
        .min_by(f64::total_cmp);
    (met, missed)
}

/// The highest achieved rate among the outcomes that met `slo`.
fn best_met(outcomes: &[PointOutcome], slo: f64) -> Option<f64> {
    outcomes
        .iter()
        .filter(|o| o.meets(slo))
        .map(|o| o.achieved_rate)
        .max_by(f64::total_cmp)
}

/// The SLO figure read off outcomes that already ran, with no search of its own: the highest
/// achieved rate that met it, and the lowest target that missed above the highest target that
/// met it — the bracket a search starts from. A curve's per-instance figures are read so.
pub fn read_off(outcomes: &[PointOutcome], slo: f64) -> SloResult {
    SloResult {
        p99_ms: slo,
        max_rate: best_met(outcomes, slo),
        first_miss_rate: met_and_missed(outcomes, slo).1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server with a knee: p99 grows slowly up to 800/s, then steeply; it cannot go past
    /// 1,000/s.
    fn model(rate: f64) -> PointOutcome {
        let achieved = rate.min(1000.0);
        let p99_ms = if rate <= 800.0 {
            2.0 + rate / 800.0 * 3.0
        } else {
            5.0 + (rate - 800.0) / 10.0
        };
        PointOutcome {
            target_rate: rate,
            achieved_rate: achieved,
            mean_ms: p99_ms / 3.0,
            p99_ms,
            sustainable: rate <= 1000.0,
        }
    }

    fn spec(points: &[f64]) -> CurveSpec {
        CurveSpec {
            points_pct: points.to_vec(),
            stop_mean_ms: None,
            stop_p99_ms: None,
            slo_p99_ms: None,
            slo_steps: 8,
        }
    }

    fn drive(d: &mut CurveDriver) -> Vec<Step> {
        let mut steps = Vec::new();
        loop {
            let step = d.next_step();
            steps.push(step);
            match step {
                Step::Point { rate, .. } | Step::Slo { rate } => d.record(model(rate)),
                Step::Done => return steps,
            }
        }
    }

    #[test]
    fn points_are_percentages_of_the_maximum_in_order() {
        let mut d = CurveDriver::new(spec(&[10.0, 50.0, 120.0]), 1000.0);
        let steps = drive(&mut d);
        assert_eq!(
            steps,
            vec![
                Step::Point {
                    pct: 10.0,
                    rate: 100.0
                },
                Step::Point {
                    pct: 50.0,
                    rate: 500.0
                },
                Step::Point {
                    pct: 120.0,
                    rate: 1200.0
                },
                Step::Done
            ]
        );
        assert!(!d.outcomes[2].sustainable);
        assert_eq!(d.slo(), None);
    }

    #[test]
    fn a_latency_threshold_stops_the_curve_after_the_point_that_passed_it() {
        let mut s = spec(&CurveSpec::DEFAULT_POINTS);
        s.stop_p99_ms = Some(10.0);
        let mut d = CurveDriver::new(s, 1000.0);
        drive(&mut d);
        // 10..80 % stay under 10 ms; 90 % (p99 15 ms) passes it and is the last point run.
        let rates: Vec<f64> = d.outcomes.iter().map(|o| o.target_rate).collect();
        assert_eq!(rates, vec![100.0, 500.0, 700.0, 800.0, 900.0]);
    }

    #[test]
    fn the_slo_search_brackets_the_knee() {
        let mut s = spec(&CurveSpec::DEFAULT_POINTS);
        s.slo_p99_ms = Some(8.0);
        let mut d = CurveDriver::new(s, 1000.0);
        let steps = drive(&mut d);
        assert!(steps.iter().any(|s| matches!(s, Step::Slo { .. })));
        // p99 = 8 ms at exactly 830/s in the model.
        let slo = d.slo().unwrap();
        let (met, missed) = (slo.max_rate.unwrap(), slo.first_miss_rate.unwrap());
        assert!(met <= 830.0 && missed > 830.0, "{slo:?}");
        assert!(missed - met <= 10.0, "within 1 % of the maximum: {slo:?}");
    }

    #[test]
    fn a_noisy_miss_at_a_low_point_does_not_hide_the_knee() {
        let mut s = spec(&[10.0, 50.0, 70.0, 90.0]);
        s.slo_p99_ms = Some(8.0);
        let mut d = CurveDriver::new(s, 1000.0);
        loop {
            match d.next_step() {
                // A single slow outlier at 10 %: its p99 misses.
                Step::Point { pct: 10.0, rate } => d.record(PointOutcome {
                    p99_ms: 40.0,
                    ..model(rate)
                }),
                Step::Point { rate, .. } | Step::Slo { rate } => d.record(model(rate)),
                Step::Done => break,
            }
        }
        let slo = d.slo().unwrap();
        let (met, missed) = (slo.max_rate.unwrap(), slo.first_miss_rate.unwrap());
        assert!(met <= 830.0 && missed > 830.0 && met > 700.0, "{slo:?}");
    }

    #[test]
    fn an_slo_met_everywhere_or_nowhere_says_so() {
        let mut s = spec(&[10.0, 50.0]);
        s.slo_p99_ms = Some(100.0);
        let mut d = CurveDriver::new(s.clone(), 1000.0);
        drive(&mut d);
        let slo = d.slo().unwrap();
        assert_eq!((slo.max_rate, slo.first_miss_rate), (Some(500.0), None));

        s.slo_p99_ms = Some(1.0);
        let mut d = CurveDriver::new(s, 1000.0);
        let steps = drive(&mut d);
        let slo = d.slo().unwrap();
        assert_eq!(slo.max_rate, None, "{steps:?}");
        assert!(slo.first_miss_rate.unwrap() <= 100.0);
    }
}
