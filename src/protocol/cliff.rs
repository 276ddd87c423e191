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
