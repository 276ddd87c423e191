//! Latency and counters without contention: each instance has a few shards (a client always
//! records into the same one), each holding pre-allocated fixed-bounds HDR histograms
//! (1 µs .. 1 h, 3 significant digits) per transaction kind plus counters. The sampler swaps a
//! shard's data for a spare once per interval and merges; recording never allocates.

pub mod rebuild;
pub mod summary;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::engines::{EngineError, ErrorClass};
use drivebench_core::histogram::{HIGHEST_US, LOWEST_US, new_histogram};

/// What one executed transaction did: its statements by sysbench's classes, whether it ended
/// in a rollback its inputs asked for (TPC-C's 1 % of New-Orders), and how many of its parts
/// found nothing to do (TPC-C Delivery's districts without an undelivered order) — outcomes,
/// not errors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatementCounts {
    pub reads: u32,
    pub writes: u32,
    pub other: u32,
    pub rolled_back: bool,
    pub skipped: u32,
}

/// Shards per instance: enough that clients rarely meet on a lock.
pub fn shard_count(clients: u32) -> u32 {
    clients.clamp(1, 16)
}

/// Rough bytes of one shard (two histogram sets, live and spare: response, service, start lag
/// and its two parts).
pub const SHARD_BYTES_ESTIMATE: u64 = 10 * 190 * 1024;

/// What was recorded in one shard (or merged from several) over some span of time.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Response time (from the intended start) per transaction kind, µs.
    pub response: Vec<Histogram<u64>>,
    /// Service time (from the actual start), all kinds, µs.
    pub service: Histogram<u64>,
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    /// How late transactions started against their schedule (actual − intended start), µs.
    pub start_lag: Histogram<u64>,
    /// The client's own part of the start lag: how late it woke for the transaction against its
    /// intended start, before asking for a pooled connection (timers, runtime, CPU), µs.
    pub wake_lag: Histogram<u64>,
    /// The pool's part of the start lag: waiting for a free pooled connection (none without a
    /// pool), µs.
    pub pool_wait: Histogram<u64>,
    /// Failed attempts by (transaction kind, class, code).
    pub errors: BTreeMap<(usize, ErrorClass, String), u64>,
    /// Attempts beyond the first of committed transactions, per kind.
    pub retries: Vec<u64>,
    /// Transactions given up: their last attempt failed and was not retried.
    pub failed: u64,
    /// Transactions that ended in a rollback their inputs asked for, per kind.
    pub rolled_back: Vec<u64>,
    pub reconnects: u64,
    /// Transactions that started more than 1 ms after their intended start (open model).
    pub late_starts: u64,
    /// Transactions whose client woke more than [`LATE_WAKE`] after it was both due and free:
    /// the client's own lag (timers, runtime, CPU), not queueing behind its previous
    /// transaction or for a pooled connection.
    pub late_wakes: u64,
    pub max_start_lag_us: u64,
    /// Decks of kinds completed (TPC-C's `mix = "spec"`: a terminal executed a deck's last
    /// card).
    pub decks: u64,
    /// Parts skipped (TPC-C Delivery's districts with nothing to deliver), per kind.
    pub skipped: Vec<u64>,
    /// Transactions that skipped at least one part, per kind.
    pub with_skips: Vec<u64>,
    /// Transactions of those decks, per kind.
    pub in_decks: Vec<u64>,
}

/// A client waking later than this after its transaction was due (and it was free) is late.
pub const LATE_WAKE: Duration = Duration::from_millis(2);

impl Recorded {
    pub fn new(kinds: usize) -> Self {
        Recorded {
            response: (0..kinds.max(1)).map(|_| new_histogram()).collect(),
            service: new_histogram(),
            start_lag: new_histogram(),
            wake_lag: new_histogram(),
            pool_wait: new_histogram(),
            reads: 0,
            writes: 0,
            other: 0,
            errors: BTreeMap::new(),
            retries: vec![0; kinds.max(1)],
            failed: 0,
            rolled_back: vec![0; kinds.max(1)],
            reconnects: 0,
            late_starts: 0,
            late_wakes: 0,
            max_start_lag_us: 0,
            decks: 0,
            skipped: vec![0; kinds.max(1)],
            with_skips: vec![0; kinds.max(1)],
            in_decks: vec![0; kinds.max(1)],
        }
    }

    pub fn transactions(&self) -> u64 {
        self.response.iter().map(|h| h.len()).sum()
    }

    /// Response times of all kinds together.
    pub fn response_total(&self) -> Histogram<u64> {
        let mut total = new_histogram();
        for h in &self.response {
            // Same bounds everywhere: adding cannot fail.
            let _ = total.add(h);
        }
        total
    }

    pub fn merge(&mut self, other: &Recorded) {
        for (a, b) in self.response.iter_mut().zip(&other.response) {
            let _ = a.add(b);
        }
        let _ = self.service.add(&other.service);
        let _ = self.start_lag.add(&other.start_lag);
        let _ = self.wake_lag.add(&other.wake_lag);
        let _ = self.pool_wait.add(&other.pool_wait);
        self.reads += other.reads;
        self.writes += other.writes;
        self.other += other.other;
        for (k, v) in &other.errors {
            *self.errors.entry(k.clone()).or_default() += v;
        }
        for (a, b) in self.retries.iter_mut().zip(&other.retries) {
            *a += b;
        }
        for (a, b) in self.rolled_back.iter_mut().zip(&other.rolled_back) {
            *a += b;
        }
        self.failed += other.failed;
        self.reconnects += other.reconnects;
        self.late_starts += other.late_starts;
        self.late_wakes += other.late_wakes;
        self.max_start_lag_us = self.max_start_lag_us.max(other.max_start_lag_us);
        self.decks += other.decks;
        for (a, b) in self.skipped.iter_mut().zip(&other.skipped) {
            *a += b;
        }
        for (a, b) in self.with_skips.iter_mut().zip(&other.with_skips) {
            *a += b;
        }
        for (a, b) in self.in_decks.iter_mut().zip(&other.in_decks) {
            *a += b;
        }
    }

    pub fn reset(&mut self) {
        for h in &mut self.response {
            h.reset();
        }
        self.service.reset();
        self.start_lag.reset();
        self.wake_lag.reset();
        self.pool_wait.reset();
        self.reads = 0;
        self.writes = 0;
        self.other = 0;
        self.errors.clear();
        self.retries.iter_mut().for_each(|n| *n = 0);
        self.failed = 0;
        self.rolled_back.iter_mut().for_each(|n| *n = 0);
        self.reconnects = 0;
        self.late_starts = 0;
        self.late_wakes = 0;
        self.max_start_lag_us = 0;
        self.decks = 0;
        self.skipped.iter_mut().for_each(|n| *n = 0);
        self.with_skips.iter_mut().for_each(|n| *n = 0);
        self.in_decks.iter_mut().for_each(|n| *n = 0);
    }

    #[inline]
    pub fn record(
        &mut self,
        kind: usize,
        response: Duration,
        service: Duration,
        counts: StatementCounts,
        retries: u32,
    ) {
        let r = (response.as_micros() as u64).clamp(LOWEST_US, HIGHEST_US);
        let s = (service.as_micros() as u64).clamp(LOWEST_US, HIGHEST_US);
        // Values are clamped to the histogram's bounds, so recording cannot fail.
        let _ = self.response[kind].record(r);
        let _ = self.service.record(s);
        self.reads += u64::from(counts.reads);
        self.writes += u64::from(counts.writes);
        self.other += u64::from(counts.other);
        self.retries[kind] += u64::from(retries);
        self.rolled_back[kind] += u64::from(counts.rolled_back);
        self.skipped[kind] += u64::from(counts.skipped);
        self.with_skips[kind] += u64::from(counts.skipped > 0);
        let lag = response.saturating_sub(service);
        let _ = self
            .start_lag
            .record((lag.as_micros() as u64).clamp(LOWEST_US, HIGHEST_US));
        if lag > Duration::from_millis(1) {
            self.late_starts += 1;
            self.max_start_lag_us = self.max_start_lag_us.max(lag.as_micros() as u64);
        }
    }

    /// The two parts of a recorded transaction's start lag on pooled connections: the client
    /// waking late for it, and waiting for a connection. Not recorded without a pool, where the
    /// start lag is all the client's own.
    #[inline]
    pub fn record_start_parts(&mut self, wake_lag: Duration, pool_wait: Duration) {
        let us = |d: Duration| (d.as_micros() as u64).clamp(LOWEST_US, HIGHEST_US);
        let _ = self.wake_lag.record(us(wake_lag));
        let _ = self.pool_wait.record(us(pool_wait));
    }

    /// A deck of kinds completed with the transaction just recorded: `per_kind` counts its
    /// transactions of each kind.
    pub fn record_deck(&mut self, per_kind: &[u32]) {
        self.decks += 1;
        for (a, b) in self.in_decks.iter_mut().zip(per_kind) {
            *a += u64::from(*b);
        }
    }

    /// A failed attempt of a transaction of `kind`.
    pub fn record_error(&mut self, kind: usize, e: &EngineError) {
        match self.errors.get_mut(&(kind, e.class, e.code.clone())) {
            Some(n) => *n += 1,
            None => {
                self.errors.insert((kind, e.class, e.code.clone()), 1);
            }
        }
    }

    /// Attempts beyond the first of committed transactions, all kinds.
    pub fn retries_total(&self) -> u64 {
        self.retries.iter().sum()
    }
}

/// One shard: a client's recording target.
pub type Shard = Arc<Mutex<Recorded>>;

/// The shards of one instance and their spares.
pub struct InstanceRecorder {
    kinds: usize,
    shards: Vec<Shard>,
    spares: Vec<Recorded>,
}

impl InstanceRecorder {
    pub fn new(clients: u32, kinds: usize) -> Self {
        let n = shard_count(clients) as usize;
        InstanceRecorder {
            kinds,
            shards: (0..n)
                .map(|_| Arc::new(Mutex::new(Recorded::new(kinds))))
                .collect(),
            spares: (0..n).map(|_| Recorded::new(kinds)).collect(),
        }
    }

    /// The shard client `client` records into.
    pub fn shard_for(&self, client: u32) -> Shard {
        self.shards[client as usize % self.shards.len()].clone()
    }

    /// Everything recorded since the last call; the shards start afresh.
    pub fn collect(&mut self) -> Recorded {
        let mut out = Recorded::new(self.kinds);
        for (shard, spare) in self.shards.iter().zip(self.spares.iter_mut()) {
            {
                let mut live = shard.lock().unwrap_or_else(|p| p.into_inner());
                std::mem::swap(&mut *live, spare);
            }
            out.merge(spare);
            spare.reset();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn collecting_swaps_out_what_was_recorded_and_resets_the_shards() {
        let mut rec = InstanceRecorder::new(8, 1);
        for c in 0..8 {
            rec.shard_for(c).lock().unwrap().record(
                0,
                ms(2),
                ms(2),
                StatementCounts {
                    reads: 14,
                    writes: 4,
                    other: 2,
                    rolled_back: false,
                    skipped: 0,
                },
                0,
            );
        }
        let first = rec.collect();
        assert_eq!(first.transactions(), 8);
        assert_eq!((first.reads, first.writes, first.other), (112, 32, 16));
        // phase reset: the next interval starts from zero
        let second = rec.collect();
        assert_eq!(second.transactions(), 0);
        assert_eq!(second.reads, 0);
    }

    #[test]
    fn merged_histograms_give_exact_counts_and_percentiles() {
        let mut a = Recorded::new(1);
        let mut b = Recorded::new(1);
        for v in 1..=900 {
            a.record(
                0,
                Duration::from_micros(v),
                Duration::from_micros(v),
                StatementCounts::default(),
                0,
            );
        }
        for v in 901..=1000 {
            b.record(
                0,
                Duration::from_micros(v),
                Duration::from_micros(v),
                StatementCounts::default(),
                1,
            );
        }
        a.merge(&b);
        let h = a.response_total();
        assert_eq!(h.len(), 1000);
        assert_eq!(h.value_at_quantile(0.99), 990);
        assert_eq!(h.max(), 1000);
        assert_eq!(a.retries_total(), 100);
    }

    #[test]
    fn late_starts_count_response_beyond_service() {
        let mut r = Recorded::new(1);
        r.record(0, ms(10), ms(2), StatementCounts::default(), 0);
        r.record(0, ms(2), ms(2), StatementCounts::default(), 0);
        assert_eq!((r.late_starts, r.max_start_lag_us), (1, 8000));
        assert_eq!(r.start_lag.len(), 2);
        assert_eq!(r.start_lag.max(), r.start_lag.highest_equivalent(8000));
    }

    #[test]
    fn out_of_bounds_values_are_clamped_not_lost() {
        let mut r = Recorded::new(1);
        r.record(
            0,
            Duration::from_nanos(10),
            Duration::from_nanos(10),
            StatementCounts::default(),
            0,
        );
        r.record(
            0,
            Duration::from_secs(7200),
            Duration::from_secs(7200),
            StatementCounts::default(),
            0,
        );
        assert_eq!(r.transactions(), 2);
    }

    #[test]
    fn errors_are_counted_by_kind_class_and_code() {
        let mut r = Recorded::new(2);
        let busy = EngineError {
            class: ErrorClass::Retryable,
            code: "SQLITE_BUSY".into(),
            message: String::new(),
            context: None,
        };
        r.record_error(1, &busy);
        r.record_error(1, &busy);
        r.record_error(0, &busy);
        let busy_of = |kind| {
            r.errors
                .get(&(kind, ErrorClass::Retryable, "SQLITE_BUSY".to_string()))
                .copied()
        };
        assert_eq!((busy_of(0), busy_of(1)), (Some(1), Some(2)));
    }
}
