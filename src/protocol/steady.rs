//! The steady-state end of a database phase: the TPS of each round (all instances together,
//! a whole number of report intervals) judged after every round by the shared steady-state
//! rule (`crate::curve::steady`), the same the I/O sweeps use.

use tokio::time::Instant;

use crate::results::steady::{PhaseSteadyReport, SteadyOutcome};
use crate::scenario::plan::PhaseSteady;

/// A steady phase's rounds so far.
pub(super) struct SteadyTrack {
    spec: PhaseSteady,
    ticks_per_round: u64,
    ticks: u64,
    round_tx: u64,
    round_start: Instant,
    rounds: Vec<f64>,
    reached: Option<SteadyOutcome>,
}

impl SteadyTrack {
    /// Rounds of `spec` counted in report ticks of `interval_ms` from `start`.
    pub fn new(spec: PhaseSteady, interval_ms: u64, start: Instant) -> Self {
        SteadyTrack {
            spec,
            ticks_per_round: (spec.round_ms / interval_ms.max(1)).max(1),
            ticks: 0,
            round_tx: 0,
            round_start: start,
            rounds: Vec::new(),
            reached: None,
        }
    }

    /// One report tick's transactions, `after_s` into the phase; true once the last window
    /// of rounds is steady (the phase ends there).
    pub fn tick(&mut self, transactions: u64, now: Instant, after_s: f64) -> bool {
        self.ticks += 1;
        self.round_tx += transactions;
        if !self.ticks.is_multiple_of(self.ticks_per_round) {
            return false;
        }
        let secs = (now - self.round_start).as_secs_f64().max(1e-9);
        self.rounds.push(self.round_tx as f64 / secs);
        self.round_tx = 0;
        self.round_start = now;
        match self.spec.rule.last_window(&self.rounds) {
            Some(window) if window.steady => {
                self.reached = Some(SteadyOutcome::Reached { after_s, window });
                true
            }
            _ => false,
        }
    }

    pub fn report(self) -> PhaseSteadyReport {
        let outcome = self.reached.unwrap_or_else(|| SteadyOutcome::NotReached {
            last_window: self.spec.rule.last_window(&self.rounds),
        });
        PhaseSteadyReport {
            round_s: self.spec.round_ms as f64 / 1000.0,
            rule: self.spec.rule,
            rounds_tps: self.rounds,
            outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::curve::steady::SteadyRule;

    #[test]
    fn rounds_span_whole_report_intervals_and_end_the_phase_once_steady() {
        let spec = PhaseSteady {
            round_ms: 2000,
            rule: SteadyRule {
                window: 2,
                max_range_pct: 10.0,
                max_slope_pct: 10.0,
                max_rounds: 10,
            },
        };
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut t = SteadyTrack::new(spec, 1000, t0);
        // Round 1: 100 + 300 transactions over 2 s; round 2: 500 over 2 s, not steady.
        assert!(!t.tick(100, at(1), 1.0));
        assert!(!t.tick(300, at(2), 2.0));
        assert!(!t.tick(250, at(3), 3.0));
        assert!(!t.tick(250, at(4), 4.0));
        // Round 3: 510 over 2 s, within 10 % of round 2: steady at 6 s.
        assert!(!t.tick(255, at(5), 5.0));
        assert!(t.tick(255, at(6), 6.0));
        let r = t.report();
        assert_eq!(r.rounds_tps, vec![200.0, 250.0, 255.0]);
        assert_eq!(r.round_s, 2.0);
        match r.outcome {
            SteadyOutcome::Reached { after_s, window } => {
                assert_eq!(after_s, 6.0);
                assert_eq!(window.first_round, 1);
            }
            other => panic!("expected steady, got {other:?}"),
        }
    }
}
