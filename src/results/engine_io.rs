//! The engines' own I/O figures as result.json keeps them: per report interval and instance
//! (`EngineIoRow`), and per phase or curve point (`SpanEngineIo`): each instance's figures
//! between its first and last reading in the span, and the total (the instances' counters
//! summed). `EngineIoTrack` follows every instance's readings through the phases and puts
//! each reading beside the clients' work since the previous one, so a missed reading widens
//! the next interval instead of losing it. The arithmetic is `drivebench_core::engine_io`'s.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::summary::Summary;
use drivebench_core::engine_io::{ClientWork, EngineIoCounters, EngineIoFigures};

/// One instance's engine I/O over one report interval.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct EngineIoRow {
    /// Seconds since the first phase started, as `series[].elapsed_s`.
    pub elapsed_s: f64,
    pub instance: String,
    /// Since the instance's previous reading; absent when this one was missed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<EngineIoFigures>,
    /// Why there are no figures (a reading slower than its timeout, a closed session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One instance's figures over a phase or curve point.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct InstanceEngineIo {
    pub instance: String,
    /// Between its first and last reading in the span; absent without two readings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<EngineIoFigures>,
}

/// A phase's (or curve point's) engine I/O.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SpanEngineIo {
    pub per_instance: Vec<InstanceEngineIo>,
    /// All instances: counters summed (a counter one instance lacks is absent), their
    /// clients' work summed; absent when an instance has no figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<EngineIoFigures>,
    /// One row per report interval and instance (empty for a curve point).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<EngineIoRow>,
}

impl SpanEngineIo {
    /// The instance's figures over the span.
    pub fn of(&self, instance: &str) -> Option<&EngineIoFigures> {
        self.per_instance
            .iter()
            .find(|i| i.instance == instance)?
            .figures
            .as_ref()
    }
}

/// Several hosts' totals as one (`merge`), each with its transactions: rates and counts
/// summed; per-commit and per-transaction figures, shares and the buffer hit rate averaged
/// weighted by transactions; mean latencies weighted by their requests' rate; the checkpoint
/// age the largest. A figure one host lacks is absent.
pub fn merged_total(parts: &[(&EngineIoFigures, u64)]) -> EngineIoFigures {
    let sum = |f: Figure| -> Option<f64> { parts.iter().map(|(p, _)| f(p)).sum() };
    let weighted = |f: Figure, w: &dyn Fn(&EngineIoFigures, u64) -> Option<f64>| {
        let (mut num, mut den) = (0.0, 0.0);
        for (p, txns) in parts {
            let weight = w(p, *txns)?;
            num += f(p)? * weight;
            den += weight;
        }
        (den > 0.0).then(|| num / den)
    };
    let by_txns = |f: Figure| weighted(f, &|_, t| Some(t as f64));
    EngineIoFigures {
        log_flushes_per_s: sum(|f| f.log_flushes_per_s),
        log_flushes_per_commit: by_txns(|f| f.log_flushes_per_commit),
        log_flush_ms: weighted(|f| f.log_flush_ms, &|p, _| p.log_flushes_per_s),
        log_mib_s: sum(|f| f.log_mib_s),
        data_reads_per_s: sum(|f| f.data_reads_per_s),
        data_reads_per_txn: by_txns(|f| f.data_reads_per_txn),
        data_read_ms: weighted(|f| f.data_read_ms, &|p, _| p.data_reads_per_s),
        buffer_hit_pct: by_txns(|f| f.buffer_hit_pct),
        data_writes_per_s: sum(|f| f.data_writes_per_s),
        data_write_mib_s: sum(|f| f.data_write_mib_s),
        data_write_ms: weighted(|f| f.data_write_ms, &|p, _| p.data_writes_per_s),
        background_write_mib_s: sum(|f| f.background_write_mib_s),
        free_page_waits_per_s: sum(|f| f.free_page_waits_per_s),
        pending_io: parts.iter().map(|(p, _)| p.pending_io).sum(),
        checkpoint_age_mib: parts
            .iter()
            .map(|(p, _)| p.checkpoint_age_mib)
            .try_fold(0.0, |m: f64, a| Some(m.max(a?))),
        log_wait_share_pct: by_txns(|f| f.log_wait_share_pct),
        data_read_wait_share_pct: by_txns(|f| f.data_read_wait_share_pct),
    }
}

type Figure = fn(&EngineIoFigures) -> Option<f64>;

/// What one instance's clients did over a span: intervals summed.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WorkSum {
    pub seconds: f64,
    pub transactions: u64,
    pub commits: u64,
    /// Transactions × their mean latency, ms.
    pub latency_ms: f64,
}

impl WorkSum {
    /// An interval's work from its summary; `writes`: whether the benchmark's transactions
    /// write (a read-only one commits nothing that flushes the log).
    pub fn of(s: &Summary, writes: bool) -> Self {
        WorkSum {
            seconds: s.seconds,
            transactions: s.transactions,
            commits: if writes { s.transactions } else { 0 },
            latency_ms: s.transactions as f64 * s.latency_ms.avg,
        }
    }

    fn add(&mut self, o: WorkSum) {
        self.seconds += o.seconds;
        self.transactions += o.transactions;
        self.commits += o.commits;
        self.latency_ms += o.latency_ms;
    }

    /// Instances side by side: their work summed over the same wall time (the longest).
    fn beside(mut self, o: WorkSum) -> Self {
        let seconds = self.seconds.max(o.seconds);
        self.add(o);
        self.seconds = seconds;
        self
    }

    pub fn work(&self) -> ClientWork {
        ClientWork {
            seconds: self.seconds,
            transactions: self.transactions,
            commits: self.commits,
            mean_latency_ms: if self.transactions > 0 {
                self.latency_ms / self.transactions as f64
            } else {
                0.0
            },
        }
    }
}

/// One instance's readings: the last one, the work since it, and the span's first reading
/// with the work from it to the last.
#[derive(Debug, Clone)]
struct InstanceTrack {
    name: String,
    last: Option<EngineIoCounters>,
    since_last: WorkSum,
    span_first: Option<EngineIoCounters>,
    span_work: WorkSum,
}

impl InstanceTrack {
    /// The span's figures: None without two readings over some work.
    fn figures(&self) -> Option<EngineIoFigures> {
        let (first, last) = (self.span_first.as_ref()?, self.last.as_ref()?);
        (self.span_work.seconds > 0.0)
            .then(|| EngineIoFigures::between(first, last, self.span_work.work()))
    }
}

/// Why an instance has no reading at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Missed {
    #[error("its engine told no I/O counter")]
    NotCounted,
    #[error("the previous reading was still running")]
    StillRunning,
    #[error("the sampling session ended")]
    SessionEnded,
    #[error("no reading within the tick's timeout")]
    TimedOut,
}

/// A reading of one instance at a tick, or why there is none.
pub type Reading = Result<EngineIoCounters, Missed>;

/// A span closed: what result.json keeps, and the total work the total figures are over (for
/// the verdict's class).
#[derive(Debug, Clone, PartialEq)]
pub struct ClosedSpan {
    pub engine_io: SpanEngineIo,
    pub total_work: Option<ClientWork>,
}

/// Every instance's readings through the phases (and curve points).
#[derive(Debug, Clone)]
pub struct EngineIoTrack {
    instances: Vec<InstanceTrack>,
    rows: Vec<EngineIoRow>,
}

impl EngineIoTrack {
    /// The instances by name, each with its reading when sampling starts (None: not read).
    pub fn new(first: Vec<(String, Option<EngineIoCounters>)>) -> Self {
        EngineIoTrack {
            instances: first
                .into_iter()
                .map(|(name, c)| InstanceTrack {
                    name,
                    span_first: c.clone(),
                    last: c,
                    since_last: WorkSum::default(),
                    span_work: WorkSum::default(),
                })
                .collect(),
            rows: Vec::new(),
        }
    }

    /// A new span starts at these readings (the clock starts, a curve point is measured):
    /// what came before is not counted.
    pub fn restart(&mut self, readings: Vec<Reading>) {
        for (t, r) in self.instances.iter_mut().zip(readings) {
            // Without a reading now, the span starts at the instance's next one.
            t.last = r.ok();
            t.since_last = WorkSum::default();
            t.span_first = t.last.clone();
            t.span_work = WorkSum::default();
        }
    }

    /// One interval ending at `elapsed_s`: each instance's reading (or why none) and its
    /// clients' work in the interval. Gives the interval's rows, also kept for the span.
    pub fn interval(
        &mut self,
        elapsed_s: f64,
        readings: Vec<Reading>,
        work: &[WorkSum],
    ) -> Vec<EngineIoRow> {
        let mut rows = Vec::new();
        for ((t, r), w) in self.instances.iter_mut().zip(readings).zip(work) {
            t.since_last.add(*w);
            let (figures, note) = match r {
                Ok(now) => (t.reading(now), None),
                Err(why) => (None, Some(why.to_string())),
            };
            rows.push(EngineIoRow {
                elapsed_s,
                instance: t.name.clone(),
                figures,
                note,
            });
        }
        self.rows.extend(rows.iter().cloned());
        rows
    }

    /// Close the span: each instance's figures between its first and last reading, the
    /// total, the rows; the next span starts at the last readings.
    pub fn close(&mut self) -> ClosedSpan {
        let per_instance = self
            .instances
            .iter()
            .map(|t| InstanceEngineIo {
                instance: t.name.clone(),
                figures: t.figures(),
            })
            .collect();
        let total = self.total();
        let series = std::mem::take(&mut self.rows);
        for t in &mut self.instances {
            t.span_first = t.last.clone();
            // The work since a missed last reading is the next span's, with its next reading.
            t.span_work = WorkSum::default();
        }
        ClosedSpan {
            engine_io: SpanEngineIo {
                per_instance,
                total: total.as_ref().map(|(f, _)| f.clone()),
                series,
            },
            total_work: total.map(|(_, w)| w),
        }
    }

    /// The instances' counters summed at the span's first and last reading, over their work
    /// side by side; None when an instance has no figures.
    fn total(&self) -> Option<(EngineIoFigures, ClientWork)> {
        if self.instances.iter().any(|t| t.figures().is_none()) {
            return None;
        }
        let first =
            EngineIoCounters::sum(self.instances.iter().filter_map(|t| t.span_first.as_ref()));
        let last = EngineIoCounters::sum(self.instances.iter().filter_map(|t| t.last.as_ref()));
        let work = self
            .instances
            .iter()
            .fold(WorkSum::default(), |acc, t| acc.beside(t.span_work))
            .work();
        Some((EngineIoFigures::between(&first, &last, work), work))
    }
}

impl InstanceTrack {
    /// A reading arrived: the figures since the previous one (None for the first).
    fn reading(&mut self, now: EngineIoCounters) -> Option<EngineIoFigures> {
        let pending = std::mem::take(&mut self.since_last);
        let figures = self
            .last
            .as_ref()
            .map(|before| EngineIoFigures::between(before, &now, pending.work()));
        match self.span_first {
            Some(_) => self.span_work.add(pending),
            None => self.span_first = Some(now.clone()),
        }
        self.last = Some(now);
        figures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(flushes: u64, flush_us: u64, reads: u64) -> EngineIoCounters {
        EngineIoCounters {
            log_flushes: Some(flushes),
            log_flush_us: Some(flush_us),
            data_reads: Some(reads),
            ..Default::default()
        }
    }

    /// `txns` transactions (all committing) in 10 s at 5 ms each.
    fn work(txns: u64) -> WorkSum {
        WorkSum {
            seconds: 10.0,
            transactions: txns,
            commits: txns,
            latency_ms: txns as f64 * 5.0,
        }
    }

    fn track(names: &[&str]) -> EngineIoTrack {
        EngineIoTrack::new(
            names
                .iter()
                .map(|n| (n.to_string(), Some(at(0, 0, 0))))
                .collect(),
        )
    }

    #[test]
    fn a_phase_is_its_first_and_last_reading_over_the_work_between() {
        let mut t = track(&["a"]);
        t.restart(vec![Ok(at(100, 1_000, 10))]);
        let rows = t.interval(10.0, vec![Ok(at(1_100, 2_001_000, 10))], &[work(1_000)]);
        assert_eq!(
            rows[0].figures.as_ref().unwrap().log_flushes_per_s,
            Some(100.0)
        );
        t.interval(20.0, vec![Ok(at(3_100, 6_001_000, 510))], &[work(1_000)]);
        let closed = t.close();
        let f = closed.engine_io.of("a").unwrap();
        assert_eq!(f.log_flushes_per_s, Some(150.0));
        assert_eq!(f.log_flushes_per_commit, Some(1.5));
        assert_eq!(f.log_flush_ms, Some(2.0));
        assert_eq!(f.data_reads_per_txn, Some(0.25));
        assert_eq!(closed.engine_io.series.len(), 2);
        assert_eq!(closed.total_work.unwrap().transactions, 2_000);
        // The next phase starts at the last reading.
        t.interval(30.0, vec![Ok(at(3_600, 7_001_000, 510))], &[work(500)]);
        let next = t.close();
        assert_eq!(
            next.engine_io.of("a").unwrap().log_flushes_per_s,
            Some(50.0)
        );
        assert_eq!(next.engine_io.series.len(), 1);
    }

    #[test]
    fn a_missed_reading_has_a_note_and_its_work_goes_to_the_next_interval() {
        let mut t = track(&["a"]);
        let rows = t.interval(10.0, vec![Err(Missed::TimedOut)], &[work(1_000)]);
        assert_eq!(rows[0].figures, None);
        assert_eq!(
            rows[0].note.as_deref(),
            Some("no reading within the tick's timeout")
        );
        let rows = t.interval(20.0, vec![Ok(at(2_000, 0, 0))], &[work(1_000)]);
        let f = rows[0].figures.as_ref().unwrap();
        assert_eq!(f.log_flushes_per_s, Some(100.0), "20 s, 2000 flushes");
        assert_eq!(f.log_flushes_per_commit, Some(1.0));
        let closed = t.close();
        assert_eq!(
            closed.engine_io.of("a").unwrap().log_flushes_per_commit,
            Some(1.0)
        );
    }

    #[test]
    fn the_total_sums_the_instances_counters_over_their_work_side_by_side() {
        let mut t = track(&["a", "b"]);
        t.interval(
            10.0,
            vec![Ok(at(1_000, 1_000_000, 0)), Ok(at(3_000, 9_000_000, 0))],
            &[work(1_000), work(1_000)],
        );
        let closed = t.close();
        let total = closed.engine_io.total.unwrap();
        assert_eq!(
            total.log_flushes_per_s,
            Some(400.0),
            "summed over the same 10 s"
        );
        assert_eq!(total.log_flushes_per_commit, Some(2.0));
        assert_eq!(total.log_flush_ms, Some(2.5));
        let w = closed.total_work.unwrap();
        assert_eq!((w.seconds, w.transactions), (10.0, 2_000));
    }

    #[test]
    fn an_instance_without_figures_leaves_no_total() {
        let mut t = EngineIoTrack::new(vec![("a".into(), Some(at(0, 0, 0))), ("b".into(), None)]);
        t.interval(
            10.0,
            vec![Ok(at(10, 0, 0)), Err(Missed::NotCounted)],
            &[work(10), work(10)],
        );
        let closed = t.close();
        assert!(closed.engine_io.of("a").is_some());
        assert_eq!(closed.engine_io.of("b"), None);
        assert_eq!(closed.engine_io.total, None);
        assert_eq!(closed.total_work, None);
    }

    #[test]
    fn merged_hosts_sum_their_rates_and_weigh_their_ratios() {
        let a = EngineIoFigures {
            log_flushes_per_s: Some(100.0),
            log_flushes_per_commit: Some(1.0),
            log_flush_ms: Some(2.0),
            ..Default::default()
        };
        let b = EngineIoFigures {
            log_flushes_per_s: Some(300.0),
            log_flushes_per_commit: Some(2.0),
            log_flush_ms: Some(4.0),
            ..Default::default()
        };
        let m = merged_total(&[(&a, 100), (&b, 300)]);
        assert_eq!(m.log_flushes_per_s, Some(400.0));
        assert_eq!(m.log_flushes_per_commit, Some(1.75));
        assert_eq!(m.log_flush_ms, Some(3.5));
        assert_eq!(m.data_reads_per_s, None, "no host counted it");
    }

    #[test]
    fn a_read_only_benchmark_commits_nothing_that_flushes() {
        let mut s = Summary::from_recorded(&crate::metrics::Recorded::new(1), &["tx"], 10.0);
        s.transactions = 100;
        assert_eq!(WorkSum::of(&s, false).commits, 0);
        assert_eq!(WorkSum::of(&s, true).commits, 100);
    }
}
