//! Whether the clients of an open-model point kept up with its schedule: the shortfall of
//! completed against scheduled transactions, and the start lag's growth and what is left of it
//! at the end, each against a tolerance of Poisson noise. Pure arithmetic on a point's figures.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whether a point kept up with its schedule, and by how much it fell behind. The point's
/// measured span is split in quarters; start lag is actual − intended start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Backlog {
    /// Mean start lag over the first and the last quarter of the point, ms.
    pub start_lag_first_ms: f64,
    pub start_lag_last_ms: f64,
    /// Transactions behind schedule at the end, estimated as last-quarter lag x target rate.
    pub behind_at_end: f64,
    /// Scheduled transactions that did not complete, in % of those scheduled (negative: more
    /// completed than scheduled, Poisson noise).
    pub shortfall_pct: f64,
    /// Transactions the point may fall short or grow its backlog by and still count as
    /// sustainable: 2 % of those scheduled, at least three standard deviations of Poisson
    /// arrivals.
    pub tolerance: f64,
    /// Neither the shortfall, nor the backlog's growth (lag growth x target rate), nor the
    /// backlog left at the end (`behind_at_end`) passed the tolerance: a point that starts far
    /// behind (carried in from its settle) and never drains is not kept up with either.
    pub sustainable: bool,
}

impl Backlog {
    /// Judge a point run at `target_rate` tx/s for `seconds` that completed `transactions`,
    /// with the given first- and last-quarter mean start lags.
    pub fn judge(
        target_rate: f64,
        seconds: f64,
        transactions: u64,
        start_lag_first_ms: f64,
        start_lag_last_ms: f64,
    ) -> Self {
        let scheduled = target_rate * seconds;
        let tolerance = (0.02 * scheduled).max(3.0 * scheduled.sqrt());
        let shortfall = scheduled - transactions as f64;
        let growth = (start_lag_last_ms - start_lag_first_ms) / 1000.0 * target_rate;
        let behind_at_end = start_lag_last_ms / 1000.0 * target_rate;
        Backlog {
            start_lag_first_ms,
            start_lag_last_ms,
            behind_at_end,
            shortfall_pct: if scheduled > 0.0 {
                shortfall / scheduled * 100.0
            } else {
                0.0
            },
            tolerance,
            sustainable: shortfall <= tolerance
                && growth <= tolerance
                && behind_at_end <= tolerance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_is_judged_by_its_shortfall_its_growing_lag_and_what_is_left_at_its_end() {
        // (rate, seconds, done, first lag, last lag) -> sustainable
        let cases = [
            (1000.0, 60.0, 59_500, 1.0, 1.2, true),      // within 2 %
            (1000.0, 60.0, 57_000, 1.0, 1.2, false),     // 5 % short
            (1000.0, 60.0, 59_900, 1.0, 2_000.0, false), // lag grew 2 s = 2,000 tx behind
            (10.0, 10.0, 92, 0.0, 0.0, true),            // 8 % short but within Poisson noise
            (1000.0, 10.0, 9_950, 600.0, 610.0, false),  // 600 ms behind throughout: never drained
            (1000.0, 10.0, 9_950, 600.0, 20.0, true),    // carried in, drained by the end
        ];
        for (rate, secs, done, first, last, ok) in cases {
            let b = Backlog::judge(rate, secs, done, first, last);
            assert_eq!(
                b.sustainable, ok,
                "{rate} {secs} {done} {first} {last}: {b:?}"
            );
        }
        let b = Backlog::judge(1000.0, 60.0, 57_000, 1.0, 500.0);
        assert!((b.shortfall_pct - 5.0).abs() < 1e-9);
        assert!((b.behind_at_end - 500.0).abs() < 1e-9);
    }
}
