//! The write cliff of a phase held at a fixed load: each round's TPS, p99, start lateness and
//! the drive's writes against the host's cumulative bytes written, and where the p99 departed
//! from its early level (`drivebench_core::curve::cliff`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use drivebench_core::curve::cliff::{Band, CliffJudgement, EarlyLevel};
use drivebench_core::curve::steady::SteadyRule;

const GIB: f64 = (1u64 << 30) as f64;

/// A cliff phase's rounds and judgement.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PhaseCliffReport {
    /// Length of one round, seconds.
    pub round_s: f64,
    /// The phase's own rate, tx/s per instance; None when the workload's pacing held the load.
    pub rate: Option<f64>,
    /// The rule: its window makes the early level, its `max_range_pct` the band.
    pub rule: SteadyRule,
    pub rounds: Vec<CliffRound>,
    pub judgement: CliffJudgement,
}

/// One round, all instances together.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CliffRound {
    /// 1-based.
    pub round: usize,
    /// Seconds from the phase's start to the round's end.
    pub end_s: f64,
    pub tps: f64,
    /// p99 of the response time (from the intended start), ms; None when no transaction
    /// completed in the round.
    pub p99_ms: Option<f64>,
    /// Transactions that started later than their schedule.
    pub late_starts: u64,
    /// The drive's writes over the round, MiB/s and requests/s.
    pub write_mib_per_s: f64,
    pub write_iops: f64,
    /// Bytes the host wrote to the drive from the phase's start to the round's end.
    pub host_written_bytes: u64,
}

impl CliffRound {
    /// "12.34 ms", or "none completed".
    pub fn p99_text(&self) -> String {
        self.p99_ms
            .map_or("none completed".into(), |v| format!("{v:.2} ms"))
    }

    pub fn host_written_gib(&self) -> f64 {
        self.host_written_bytes as f64 / GIB
    }

    /// "round 3: 40.1 TPS, p99 12.30 ms, 5 late, drive writes 1.80 MiB/s 140 IOPS, 0.070 GiB
    /// written".
    pub fn line(&self) -> String {
        format!(
            "round {}: {:.1} TPS, p99 {}, {} late, drive writes {:.2} MiB/s {:.0} IOPS, \
             {:.3} GiB written",
            self.round,
            self.tps,
            self.p99_text(),
            self.late_starts,
            self.write_mib_per_s,
            self.write_iops,
            self.host_written_gib()
        )
    }
}

impl PhaseCliffReport {
    /// "p99 departed at round 10 after 0.13 GiB written: 86.10 ms → 8626.17 ms (early level
    /// rounds 1–3: 86.10 ms (band 0.00–947.10 ms, ± 1000 %))".
    pub fn line(&self) -> String {
        let early = |e: &EarlyLevel, b: &Band| {
            format!(
                "early level rounds 1–{}: {:.2} ms (band {:.2}–{:.2} ms, ± {} %)",
                e.rounds, e.level_ms, b.low_ms, b.high_ms, b.pct
            )
        };
        match &self.judgement {
            CliffJudgement::Departed {
                round,
                bytes_written,
                early: e,
                value_ms,
                band,
            } => format!(
                "p99 departed at round {round} after {:.2} GiB written: {:.2} ms → {} ({})",
                *bytes_written as f64 / GIB,
                e.level_ms,
                value_ms.map_or("no transaction completed".into(), |v| format!("{v:.2} ms")),
                early(e, band)
            ),
            CliffJudgement::Held {
                early: e,
                band,
                rounds,
            } => {
                let gib = self.rounds.last().map_or(0.0, CliffRound::host_written_gib);
                format!(
                    "p99 held its early level over {rounds} rounds, {gib:.2} GiB written ({})",
                    early(e, band)
                )
            }
            CliffJudgement::NeverSteady { window } => format!(
                "no early level: p99 of rounds 1–{} not steady (range {:.1} % ≤ {}, \
                 slope {:.1} % ≤ {})",
                window.values.len(),
                window.range_pct,
                self.rule.max_range_pct,
                window.slope_pct,
                self.rule.max_slope_pct
            ),
            CliffJudgement::StalledEarly { round } => format!(
                "no early level: round {round} of the first {} completed no transaction",
                self.rule.window
            ),
            CliffJudgement::TooFewRounds { rounds, window } => format!(
                "not judged: {rounds} round(s) of {} s, fewer than the window of {window}",
                self.round_s
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(judgement: CliffJudgement) -> PhaseCliffReport {
        PhaseCliffReport {
            round_s: 10.0,
            rate: Some(40.0),
            rule: SteadyRule {
                window: 3,
                max_range_pct: 1000.0,
                max_slope_pct: 1000.0,
                max_rounds: 18,
            },
            rounds: Vec::new(),
            judgement,
        }
    }

    #[test]
    fn the_judgement_line_names_the_round_the_bytes_the_values_and_the_band() {
        let early = EarlyLevel {
            rounds: 3,
            level_ms: 86.1,
        };
        let band = Band {
            low_ms: 0.0,
            high_ms: 947.1,
            pct: 1000.0,
        };
        let departed = |value_ms| {
            report(CliffJudgement::Departed {
                round: 10,
                bytes_written: 139_586_437,
                early,
                value_ms,
                band,
            })
            .line()
        };
        assert_eq!(
            departed(Some(8626.17)),
            "p99 departed at round 10 after 0.13 GiB written: 86.10 ms → 8626.17 ms (early \
             level rounds 1–3: 86.10 ms (band 0.00–947.10 ms, ± 1000 %))"
        );
        assert!(departed(None).contains("86.10 ms → no transaction completed ("));
        let stalled = report(CliffJudgement::StalledEarly { round: 2 }).line();
        assert_eq!(
            stalled,
            "no early level: round 2 of the first 3 completed no transaction"
        );
    }
}
