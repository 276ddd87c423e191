//! SNIA PTS steady state: a tracking variable (IOPS, MB/s, TPS) measured once per round is
//! steady when, over the last `window` rounds, its data excursion (max − min) is within
//! `max_range_pct` of the window's average and its slope excursion (least-squares slope times
//! the window's width in rounds, `window − 1`) is within `max_slope_pct` of that average.
//! The PTS defaults are a 5-round window, 20 % and 10 %, and at most 25 rounds.

use serde::{Deserialize, Serialize};

/// The rule a series of rounds is judged by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SteadyRule {
    /// Rounds in the measurement window.
    pub window: usize,
    /// Largest allowed max − min, in % of the window average.
    pub max_range_pct: f64,
    /// Largest allowed |slope × (window − 1)|, in % of the window average.
    pub max_slope_pct: f64,
    /// Rounds after which the precondition stops, steady or not.
    pub max_rounds: usize,
}

impl Default for SteadyRule {
    fn default() -> Self {
        SteadyRule {
            window: 5,
            max_range_pct: 20.0,
            max_slope_pct: 10.0,
            max_rounds: 25,
        }
    }
}

/// One window's figures and whether they meet the rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SteadyWindow {
    /// Index of the window's first round (0-based) and its rounds' values.
    pub first_round: usize,
    pub values: Vec<f64>,
    pub average: f64,
    pub range_pct: f64,
    /// Least-squares slope per round, and its excursion over the window in % of the average.
    pub slope: f64,
    pub slope_pct: f64,
    pub steady: bool,
}

impl SteadyRule {
    /// The window ending at the last round, or None while there are fewer rounds than the
    /// window (or the window is empty).
    pub fn last_window(&self, rounds: &[f64]) -> Option<SteadyWindow> {
        if self.window == 0 || rounds.len() < self.window {
            return None;
        }
        let first_round = rounds.len() - self.window;
        Some(self.judge(first_round, &rounds[first_round..]))
    }

    /// The first window that meets the rule, if any.
    pub fn first_steady(&self, rounds: &[f64]) -> Option<SteadyWindow> {
        if self.window == 0 {
            return None;
        }
        rounds
            .windows(self.window)
            .enumerate()
            .map(|(i, w)| self.judge(i, w))
            .find(|w| w.steady)
    }

    /// Whether the precondition loop should run another round after `rounds`.
    pub fn wants_more(&self, rounds: &[f64]) -> bool {
        rounds.len() < self.max_rounds && !self.last_window(rounds).is_some_and(|w| w.steady)
    }

    /// The window of `values`, whose first round is `first_round`, judged by the rule.
    pub fn judge(&self, first_round: usize, values: &[f64]) -> SteadyWindow {
        let n = values.len() as f64;
        let average = values.iter().sum::<f64>() / n;
        let max = values.iter().copied().fold(f64::MIN, f64::max);
        let min = values.iter().copied().fold(f64::MAX, f64::min);
        // Least-squares slope against the round number 0..n.
        let x_mean = (n - 1.0) / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, y) in values.iter().enumerate() {
            let dx = i as f64 - x_mean;
            sxy += dx * (y - average);
            sxx += dx * dx;
        }
        let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let pct = |v: f64| {
            if average.abs() > f64::EPSILON {
                v / average.abs() * 100.0
            } else if v.abs() > f64::EPSILON {
                f64::INFINITY
            } else {
                0.0
            }
        };
        let range_pct = pct(max - min);
        let slope_pct = pct((slope * (n - 1.0)).abs());
        SteadyWindow {
            first_round,
            values: values.to_vec(),
            average,
            range_pct,
            slope,
            slope_pct,
            steady: range_pct <= self.max_range_pct && slope_pct <= self.max_slope_pct,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_noisy_series_is_steady_and_a_falling_one_is_not() {
        let rule = SteadyRule::default();
        let flat = [100.0, 104.0, 97.0, 102.0, 99.0];
        let w = rule.last_window(&flat).unwrap();
        assert!(w.steady, "{w:?}");
        assert!((w.average - 100.4).abs() < 1e-9);
        assert!((w.range_pct - 7.0 / 100.4 * 100.0).abs() < 1e-9);

        // Range 16 % (within 20 %) but a steady fall: slope 4/round over 4 rounds = 16 % > 10 %.
        let falling = [108.0, 104.0, 100.0, 96.0, 92.0];
        let w = rule.last_window(&falling).unwrap();
        assert!((w.slope + 4.0).abs() < 1e-9, "{w:?}");
        assert!((w.slope_pct - 16.0).abs() < 1e-9);
        assert!(w.range_pct < 20.0 && !w.steady);

        // No trend but a 30 % spread.
        let spread = [100.0, 130.0, 100.0, 130.0, 100.0];
        assert!(!rule.last_window(&spread).unwrap().steady);
    }

    #[test]
    fn a_drive_settling_after_its_fresh_state_becomes_steady_at_the_right_round() {
        // Fresh-out-of-box IOPS falling to a plateau, as a write-saturation run shows.
        let rounds = [
            400.0, 300.0, 220.0, 170.0, 140.0, 120.0, 112.0, 110.0, 109.0, 111.0, 110.0, 108.0,
        ];
        let rule = SteadyRule::default();
        let w = rule.first_steady(&rounds).unwrap();
        assert_eq!(w.first_round, 5, "{w:?}");
        assert!(rule.wants_more(&rounds[..8]));
        assert!(!rule.wants_more(&rounds[..10]));
        assert_eq!(rule.last_window(&rounds[..3]), None);
    }

    #[test]
    fn the_round_cap_ends_an_unsteady_precondition() {
        let rule = SteadyRule {
            max_rounds: 6,
            ..SteadyRule::default()
        };
        let zigzag = [100.0, 200.0, 100.0, 200.0, 100.0, 200.0];
        assert!(rule.wants_more(&zigzag[..5]));
        assert!(!rule.wants_more(&zigzag));
        assert_eq!(rule.first_steady(&zigzag), None);
    }

    #[test]
    fn zero_values_do_not_divide_by_zero() {
        let rule = SteadyRule::default();
        assert!(rule.last_window(&[0.0; 5]).unwrap().steady);
        let w = rule.last_window(&[0.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
        assert!(!w.steady);
    }
}
