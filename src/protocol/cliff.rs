//! The write cliff of a phase at a fixed load: its report ticks gathered into rounds (a whole
//! number of report intervals, as a steady phase's), each closed with its TPS, p99, late
//! starts, the drive's writes and the host's bytes written since the phase began (from the
//! telemetry probe's device counters); the rounds judged at the phase's end by
//! `drivebench_core::curve::cliff`.

use tokio::time::Instant;

use crate::metrics::Recorded;
use crate::metrics::summary::Summary;
use crate::results::cliff::{CliffRound, PhaseCliffReport};
use crate::scenario::plan::PhaseSteady;
use drivebench_core::curve::cliff::{RoundPoint, judge};
use drivebench_system::telemetry::DiskCounts;

/// A cliff phase's rounds so far.
pub(super) struct CliffTrack {
    spec: PhaseSteady,
    /// The phase's own rate, kept in the report.
    rate: Option<f64>,
    ticks_per_round: u64,
    ticks: u64,
    phase_start: Instant,
    round_start: Instant,
    /// The round's transactions, all instances.
    round: Recorded,
    /// The drive's counts over the round (ticks whose counters could not be read add none).
    disk: DiskCounts,
    /// Host bytes written to the drive since the phase began.
    written: u64,
    rounds: Vec<CliffRound>,
}

impl CliffTrack {
    /// Rounds of `spec` counted in report ticks of `interval_ms` from `start`, over
    /// transactions of `kinds` kinds, in a phase at `rate` (its own, if it has one).
    pub fn new(
        (spec, rate): (PhaseSteady, Option<f64>),
        interval_ms: u64,
        kinds: usize,
        start: Instant,
    ) -> Self {
        CliffTrack {
            spec,
            rate,
            ticks_per_round: (spec.round_ms / interval_ms.max(1)).max(1),
            ticks: 0,
            phase_start: start,
            round_start: start,
            round: Recorded::new(kinds),
            disk: DiskCounts::default(),
            written: 0,
            rounds: Vec::new(),
        }
    }

    /// One report tick: its transactions (all instances) and the drive's counts over it; the
    /// round it closes, if it closes one.
    pub fn tick(
        &mut self,
        interval: &Recorded,
        disk: Option<&DiskCounts>,
        kinds: &[&str],
        now: Instant,
    ) -> Option<&CliffRound> {
        self.ticks += 1;
        self.round.merge(interval);
        if let Some(d) = disk {
            self.disk.add(d);
            self.written += d.written_bytes;
        }
        if !self.ticks.is_multiple_of(self.ticks_per_round) {
            return None;
        }
        let secs = (now - self.round_start).as_secs_f64().max(1e-9);
        let summary = Summary::from_recorded(&self.round, kinds, secs);
        self.rounds.push(CliffRound {
            round: self.rounds.len() + 1,
            end_s: (now - self.phase_start).as_secs_f64(),
            tps: summary.tps,
            p99_ms: (summary.transactions > 0).then_some(summary.latency_ms.p99),
            late_starts: summary.late_starts,
            write_mib_per_s: self.disk.written_bytes as f64 / secs / f64::from(1u32 << 20),
            write_iops: self.disk.writes as f64 / secs,
            host_written_bytes: self.written,
        });
        self.round.reset();
        self.disk = DiskCounts::default();
        self.round_start = now;
        self.rounds.last()
    }

    /// The rounds and their judgement.
    pub fn report(self) -> PhaseCliffReport {
        let points: Vec<RoundPoint> = (self.rounds.iter())
            .map(|r| RoundPoint {
                p99_ms: r.p99_ms,
                bytes_written: r.host_written_bytes,
            })
            .collect();
        PhaseCliffReport {
            round_s: self.spec.round_ms as f64 / 1000.0,
            rate: self.rate,
            rule: self.spec.rule,
            judgement: judge(&self.spec.rule, &points),
            rounds: self.rounds,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::metrics::StatementCounts;
    use drivebench_core::curve::cliff::CliffJudgement;
    use drivebench_core::curve::steady::SteadyRule;

    /// `n` transactions of `ms` response time (started `late_ms` after their schedule).
    fn interval(n: u32, ms: u64, late_ms: u64) -> Recorded {
        let mut r = Recorded::new(1);
        for _ in 0..n {
            let service = Duration::from_millis(ms - late_ms);
            let counts = StatementCounts::default();
            r.record(0, Duration::from_millis(ms), service, counts, 0);
        }
        r
    }

    fn written(bytes: u64, writes: u64) -> DiskCounts {
        DiskCounts {
            written_bytes: bytes,
            writes,
            ..DiskCounts::default()
        }
    }

    #[test]
    fn rounds_gather_ticks_count_bytes_from_the_phase_start_and_mark_an_empty_round() {
        let spec = PhaseSteady {
            round_ms: 2000,
            rule: SteadyRule {
                window: 2,
                max_range_pct: 50.0,
                max_slope_pct: 50.0,
                max_rounds: 10,
            },
        };
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut t = CliffTrack::new((spec, Some(10.0)), 1000, 1, t0);
        let mib = 1 << 20;
        let kinds = ["tx"];
        // Round 1: 20 transactions at 10 ms, 4 MiB in 40 writes over 2 s.
        assert!(
            t.tick(&interval(10, 10, 0), Some(&written(mib, 10)), &kinds, at(1))
                .is_none()
        );
        let r = t.tick(
            &interval(10, 10, 0),
            Some(&written(3 * mib, 30)),
            &kinds,
            at(2),
        );
        let r = r.expect("a round closes every 2 ticks").clone();
        assert_eq!((r.round, r.tps, r.late_starts), (1, 10.0, 0));
        assert!((r.p99_ms.unwrap() - 10.0).abs() < 0.1, "{r:?}");
        assert_eq!((r.write_mib_per_s, r.write_iops), (2.0, 20.0));
        assert_eq!(r.host_written_bytes, 4 * mib);
        // Round 2: as round 1, one tick's counters unread.
        t.tick(&interval(10, 10, 0), None, &kinds, at(3));
        t.tick(&interval(10, 11, 0), Some(&written(mib, 10)), &kinds, at(4));
        // Round 3: 10 transactions, 500 ms each, 400 ms of it late; round 4: none completed.
        t.tick(
            &interval(10, 500, 400),
            Some(&written(mib, 1)),
            &kinds,
            at(5),
        );
        t.tick(&Recorded::new(1), None, &kinds, at(6));
        t.tick(&Recorded::new(1), Some(&written(mib, 1)), &kinds, at(7));
        let r4 = t.tick(&Recorded::new(1), None, &kinds, at(8)).unwrap();
        assert_eq!((r4.p99_ms, r4.host_written_bytes), (None, 7 * mib));
        let report = t.report();
        assert_eq!(report.rounds[2].late_starts, 10);
        assert_eq!((report.round_s, report.rate), (2.0, Some(10.0)));
        match report.judgement {
            CliffJudgement::Departed {
                round,
                bytes_written,
                ..
            } => assert_eq!((round, bytes_written), (3, 6 * mib)),
            other => panic!("expected a departure at round 3, got {other:?}"),
        }
    }
}
