//! The write cliff at a fixed load: the p99 of each round of a phase held at a fixed rate,
//! judged against its early level. The early level is the mean p99 of the first `window`
//! rounds, which must themselves be steady by the SNIA rule ([`SteadyRule`]: range and slope
//! within their limits); its band is that level ± `max_range_pct` (never below 0). The p99
//! departs at the first later round that begins `window` rounds in a row outside the band (or
//! all the rounds left, when the phase ends sooner); a round with no transaction completed
//! (the drive stalled every client) is outside. A shorter excursion that comes back within the
//! band is not a departure: one slow round is noise a busy host makes, a cliff lasts. The
//! judgement names the departing round and the host bytes written to the drive by its end.

use serde::{Deserialize, Serialize};

use super::steady::{SteadyRule, SteadyWindow};

/// One round's figures the judgement reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundPoint {
    /// None: no transaction completed in the round.
    pub p99_ms: Option<f64>,
    /// Bytes the host wrote to the drive from the phase's start to the round's end.
    pub bytes_written: u64,
}

/// The early level: the mean p99 of the first window of rounds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EarlyLevel {
    /// Rounds 1..=`rounds` (the window) make the level.
    pub rounds: usize,
    /// Their mean p99, ms.
    pub level_ms: f64,
}

/// The p99 values that count as the early level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Band {
    pub low_ms: f64,
    pub high_ms: f64,
    /// ± this % of the early level.
    pub pct: f64,
}

impl Band {
    fn around(level: f64, pct: f64) -> Self {
        let half = level.abs() * pct / 100.0;
        Band {
            low_ms: (level - half).max(0.0),
            high_ms: level + half,
            pct,
        }
    }

    /// Whether a round's p99 is within the band (a round with none is not).
    pub fn holds(&self, v: Option<f64>) -> bool {
        v.is_some_and(|v| (self.low_ms..=self.high_ms).contains(&v))
    }
}

/// Where the p99 went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CliffJudgement {
    /// Round `round` (1-based) was the first outside the band, `bytes_written` by its end.
    Departed {
        round: usize,
        bytes_written: u64,
        early: EarlyLevel,
        /// That round's p99, ms; None when no transaction completed in it.
        value_ms: Option<f64>,
        band: Band,
    },
    /// Every round after the window stayed within the band.
    Held {
        early: EarlyLevel,
        band: Band,
        /// Rounds judged, the window included.
        rounds: usize,
    },
    /// The first window itself was not steady: there is no early level to depart from.
    NeverSteady { window: SteadyWindow },
    /// Round `round` (1-based) of the first window completed no transaction: no early level.
    StalledEarly { round: usize },
    /// Fewer rounds than the window (the phase was stopped early).
    TooFewRounds { rounds: usize, window: usize },
}

/// Judge `rounds` by `rule` (its window and range limit; its slope limit for the first window).
pub fn judge(rule: &SteadyRule, rounds: &[RoundPoint]) -> CliffJudgement {
    let n = rule.window;
    if n == 0 || rounds.len() < n {
        return CliffJudgement::TooFewRounds {
            rounds: rounds.len(),
            window: n,
        };
    }
    let mut values = Vec::with_capacity(n);
    for (i, r) in rounds[..n].iter().enumerate() {
        match r.p99_ms {
            Some(v) => values.push(v),
            None => return CliffJudgement::StalledEarly { round: i + 1 },
        }
    }
    let window = rule.judge(0, &values);
    if !window.steady {
        return CliffJudgement::NeverSteady { window };
    }
    let early = EarlyLevel {
        rounds: n,
        level_ms: window.average,
    };
    let band = Band::around(window.average, rule.max_range_pct);
    let outside = |r: &RoundPoint| !band.holds(r.p99_ms);
    let lasts = |i: usize| rounds[i..(i + n).min(rounds.len())].iter().all(outside);
    match (n..rounds.len())
        .find(|&i| lasts(i))
        .map(|i| (i, &rounds[i]))
    {
        Some((i, r)) => CliffJudgement::Departed {
            round: i + 1,
            bytes_written: r.bytes_written,
            early,
            value_ms: r.p99_ms,
            band,
        },
        None => CliffJudgement::Held {
            early,
            band,
            rounds: rounds.len(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(window: usize, max_range_pct: f64) -> SteadyRule {
        SteadyRule {
            window,
            max_range_pct,
            max_slope_pct: max_range_pct,
            max_rounds: 100,
        }
    }

    /// Rounds of these p99 values, 100 MiB written per round.
    fn rounds(p99: &[f64]) -> Vec<RoundPoint> {
        p99.iter()
            .enumerate()
            .map(|(i, &p99_ms)| RoundPoint {
                p99_ms: Some(p99_ms),
                bytes_written: (i as u64 + 1) * (100 << 20),
            })
            .collect()
    }

    #[test]
    fn a_p99_out_of_its_band_for_a_window_departs_at_the_first_such_round() {
        // Round 6 is an excursion (round 7 is back); rounds 8-10 stay out.
        let r = rounds(&[10.0, 11.0, 9.0, 10.5, 11.9, 30.0, 12.0, 30.0, 31.0, 32.0]);
        match judge(&rule(3, 20.0), &r) {
            CliffJudgement::Departed {
                round,
                bytes_written,
                early,
                value_ms,
                band,
            } => {
                assert_eq!(round, 8);
                assert_eq!(bytes_written, 800 << 20);
                assert_eq!(
                    early,
                    EarlyLevel {
                        rounds: 3,
                        level_ms: 10.0
                    }
                );
                assert_eq!(value_ms, Some(30.0));
                assert!((band.low_ms - 8.0).abs() < 1e-9 && (band.high_ms - 12.0).abs() < 1e-9);
            }
            other => panic!("expected a departure, got {other:?}"),
        }
    }

    #[test]
    fn a_drop_below_the_band_is_a_departure_too_and_the_band_stops_at_zero() {
        let r = rounds(&[10.0, 10.0, 10.0, 7.9]);
        assert!(matches!(
            judge(&rule(3, 20.0), &r),
            CliffJudgement::Departed { round: 4, .. }
        ));
        let b = Band::around(86.1, 1000.0);
        assert_eq!(b.low_ms, 0.0);
        assert!((b.high_ms - 947.1).abs() < 1e-9);
    }

    #[test]
    fn a_round_with_no_transaction_departs_and_in_the_window_leaves_no_level() {
        let mut r = rounds(&[10.0, 10.0, 10.0, 10.0, 10.0]);
        r[3].p99_ms = None;
        r[4].p99_ms = None;
        assert!(matches!(
            judge(&rule(3, 20.0), &r),
            CliffJudgement::Departed {
                round: 4,
                value_ms: None,
                ..
            }
        ));
        r[1].p99_ms = None;
        assert_eq!(
            judge(&rule(3, 20.0), &r),
            CliffJudgement::StalledEarly { round: 2 }
        );
    }

    #[test]
    fn a_p99_within_its_band_to_the_end_or_back_after_an_excursion_held() {
        let r = rounds(&[10.0, 11.0, 9.0, 10.5, 50.0, 51.0, 8.1]);
        assert_eq!(
            judge(&rule(3, 20.0), &r),
            CliffJudgement::Held {
                early: EarlyLevel {
                    rounds: 3,
                    level_ms: 10.0
                },
                band: Band::around(10.0, 20.0),
                rounds: 7,
            }
        );
    }

    #[test]
    fn an_unsteady_first_window_has_no_early_level() {
        // Range 100 % of the mean: no level to depart from, whatever follows.
        let r = rounds(&[5.0, 15.0, 10.0, 100.0]);
        match judge(&rule(3, 20.0), &r) {
            CliffJudgement::NeverSteady { window } => {
                assert_eq!(window.first_round, 0);
                assert!((window.range_pct - 100.0).abs() < 1e-9);
            }
            other => panic!("expected never steady, got {other:?}"),
        }
    }

    #[test]
    fn fewer_rounds_than_the_window_are_not_judged() {
        assert_eq!(
            judge(&rule(3, 20.0), &rounds(&[1.0, 1.0])),
            CliffJudgement::TooFewRounds {
                rounds: 2,
                window: 3
            }
        );
    }
}
