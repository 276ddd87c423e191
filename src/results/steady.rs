//! How a phase with `until = "steady"` ended: the TPS of each of its rounds and whether (and
//! when) the last window of rounds met the steady-state rule.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::curve::steady::{SteadyRule, SteadyWindow};

/// A steady-state phase's rounds and outcome.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PhaseSteadyReport {
    /// Length of one round, seconds.
    pub round_s: f64,
    /// The rule the rounds were judged by.
    pub rule: SteadyRule,
    /// TPS of each full round, all instances together.
    pub rounds_tps: Vec<f64>,
    pub outcome: SteadyOutcome,
}

/// Whether the phase became steady.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SteadyOutcome {
    /// The window ending `after_s` seconds into the phase met the rule; the phase ended there.
    Reached { after_s: f64, window: SteadyWindow },
    /// The phase ran to its maximum (or was stopped) without a steady window; the last
    /// window judged, when there were enough rounds for one.
    NotReached { last_window: Option<SteadyWindow> },
}

impl PhaseSteadyReport {
    /// "steady after 300 s (rounds 2–6: 1234.5 TPS on average, range 4.2 %, slope 1.1 %)".
    pub fn line(&self) -> String {
        let judged = |w: &SteadyWindow| {
            format!(
                "rounds {}–{}: {:.1} TPS on average, range {:.1} % (≤ {}), slope {:.1} % (≤ {})",
                w.first_round + 1,
                w.first_round + w.values.len(),
                w.average,
                w.range_pct,
                self.rule.max_range_pct,
                w.slope_pct,
                self.rule.max_slope_pct
            )
        };
        match &self.outcome {
            SteadyOutcome::Reached { after_s, window } => {
                format!("steady after {after_s:.0} s ({})", judged(window))
            }
            SteadyOutcome::NotReached { last_window: None } => format!(
                "not steady: {} round(s) of {} s, fewer than the window of {}",
                self.rounds_tps.len(),
                self.round_s,
                self.rule.window
            ),
            SteadyOutcome::NotReached {
                last_window: Some(w),
            } => format!("not steady by its end (last window {})", judged(w)),
        }
    }
}
