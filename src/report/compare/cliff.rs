//! The runs' write cliffs in compare: for each run with a `cliff = true` phase, where its p99
//! left the early level (the host bytes written by then) or that it held — the figure that
//! ranks drives on sustained writes. A table when any run has one; nothing otherwise.

use serde::Serialize;

use crate::results::cliff::PhaseCliffReport;
use crate::results::run::RunReport;
use drivebench_core::curve::cliff::CliffJudgement;
use drivebench_core::table::{Column, Table};

const GIB: f64 = (1u64 << 30) as f64;

/// One run's write cliff as compare shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunCliff {
    pub label: String,
    /// The run's first cliff phase with its rounds and judgement; absent when it had none.
    #[serde(flatten)]
    pub cliff: Option<NamedCliff>,
}

/// A cliff phase by name.
#[derive(Debug, Clone, Serialize)]
pub struct NamedCliff {
    pub phase: String,
    pub cliff: PhaseCliffReport,
}

/// Every run's write cliff, or nothing when no run had a cliff phase.
pub fn build(labelled: &[(String, &RunReport)]) -> Vec<RunCliff> {
    let first = |r: &RunReport| {
        (r.phases.iter()).find_map(|p| {
            p.cliff.as_ref().map(|c| NamedCliff {
                phase: p.name.clone(),
                cliff: c.clone(),
            })
        })
    };
    if labelled.iter().all(|(_, r)| first(r).is_none()) {
        return Vec::new();
    }
    labelled
        .iter()
        .map(|(label, r)| RunCliff {
            label: label.clone(),
            cliff: first(r),
        })
        .collect()
}

/// "after 0.13 GiB", "held over 0.20 GiB", or what kept it from being judged.
fn departure(c: &PhaseCliffReport) -> String {
    let written = c.rounds.last().map_or(0, |r| r.host_written_bytes) as f64 / GIB;
    match &c.judgement {
        CliffJudgement::Departed { bytes_written, .. } => {
            format!("departed after {:.2} GiB", *bytes_written as f64 / GIB)
        }
        CliffJudgement::Held { .. } => format!("held over {written:.2} GiB"),
        CliffJudgement::NeverSteady { .. } => "no early level (never steady)".into(),
        CliffJudgement::StalledEarly { .. } => "no early level (stalled)".into(),
        CliffJudgement::TooFewRounds { .. } => "too few rounds".into(),
    }
}

/// The table of the runs' write cliffs: run, phase, where p99 departed, the judgement's line.
pub fn table(cliffs: &[RunCliff]) -> Option<Table> {
    if cliffs.is_empty() {
        return None;
    }
    let mut t = Table::new(vec![
        Column::left("run"),
        Column::left("phase"),
        Column::left("p99"),
        Column::left("judgement"),
    ]);
    for c in cliffs {
        let row = match &c.cliff {
            Some(NamedCliff { phase, cliff }) => {
                vec![
                    c.label.clone(),
                    phase.clone(),
                    departure(cliff),
                    cliff.line(),
                ]
            }
            None => vec![
                c.label.clone(),
                "-".into(),
                "-".into(),
                "no cliff phase".into(),
            ],
        };
        t.row(row);
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::cliff::CliffRound;
    use drivebench_core::curve::cliff::{Band, EarlyLevel};
    use drivebench_core::curve::steady::SteadyRule;

    fn cliff(judgement: CliffJudgement) -> PhaseCliffReport {
        let round = |n: usize, p99: f64| CliffRound {
            round: n,
            end_s: 10.0 * n as f64,
            tps: 40.0,
            p99_ms: Some(p99),
            late_starts: 0,
            write_mib_per_s: 1.5,
            write_iops: 120.0,
            host_written_bytes: n as u64 * (64 << 20),
        };
        PhaseCliffReport {
            round_s: 10.0,
            rate: Some(40.0),
            rule: SteadyRule {
                window: 3,
                max_range_pct: 100.0,
                max_slope_pct: 100.0,
                max_rounds: 100,
            },
            rounds: (1..=8).map(|n| round(n, 10.0)).collect(),
            judgement,
        }
    }

    fn run(label: &str, c: Option<PhaseCliffReport>) -> RunCliff {
        RunCliff {
            label: label.into(),
            cliff: c.map(|cliff| NamedCliff {
                phase: "cliff".into(),
                cliff,
            }),
        }
    }

    #[test]
    fn the_table_says_where_each_drive_departed_or_that_it_held() {
        let early = EarlyLevel {
            rounds: 3,
            level_ms: 10.0,
        };
        let band = Band {
            low_ms: 0.0,
            high_ms: 20.0,
            pct: 100.0,
        };
        let departed = CliffJudgement::Departed {
            round: 5,
            bytes_written: 5 * (64 << 20),
            early,
            value_ms: Some(900.0),
            band,
        };
        let held = CliffJudgement::Held {
            early,
            band,
            rounds: 8,
        };
        let runs = [
            run("slow", Some(cliff(departed))),
            run("fast", Some(cliff(held))),
            run("plain", None),
        ];
        let t = table(&runs).expect("a table when any run has a cliff");
        let mut md = String::new();
        crate::report::table::markdown(&mut md, &t);
        assert!(
            md.contains("| slow | cliff | departed after 0.31 GiB |"),
            "{md}"
        );
        assert!(md.contains("| fast | cliff | held over 0.50 GiB |"), "{md}");
        assert!(md.contains("| plain | - | - | no cliff phase |"), "{md}");
        assert!(md.contains("p99 departed at round 5"), "{md}");
    }

    #[test]
    fn no_run_with_a_cliff_phase_means_no_table() {
        assert!(table(&[]).is_none());
    }
}
