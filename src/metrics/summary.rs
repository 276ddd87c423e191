//! Figures people read: TPS, QPS, latency percentiles in ms, errors by class and code, per
//! transaction kind; computed from `Recorded` data over a measured span of time.

use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Recorded;
use crate::engines::ErrorClass;

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Latency {
    pub avg: f64,
    pub min: f64,
    pub p50: f64,
    /// The percentile TPC-C's response-time limits are on.
    #[serde(default)]
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Latency {
    /// From a histogram of µs values, in ms.
    pub fn from_histogram(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Latency::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Latency {
            avg: h.mean() / 1000.0,
            min: ms(h.min()),
            p50: ms(h.value_at_quantile(0.50)),
            p90: ms(h.value_at_quantile(0.90)),
            p95: ms(h.value_at_quantile(0.95)),
            p99: ms(h.value_at_quantile(0.99)),
            p999: ms(h.value_at_quantile(0.999)),
            max: ms(h.max()),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Queries {
    pub reads: u64,
    pub writes: u64,
    pub other: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ErrorCount {
    pub class: ErrorClass,
    pub code: String,
    pub count: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct KindSummary {
    pub kind: String,
    /// Committed transactions plus those that ended in a rollback their inputs asked for.
    pub transactions: u64,
    pub tps: f64,
    pub latency_ms: Latency,
    /// Transactions that rolled back as their inputs asked (TPC-C's 1 % of New-Orders); part
    /// of `transactions`, not errors.
    #[serde(default)]
    pub rolled_back: u64,
    /// Attempts beyond the first of this kind's transactions.
    #[serde(default)]
    pub retries: u64,
    /// Failed attempts of this kind.
    #[serde(default)]
    pub errors_by_code: Vec<ErrorCount>,
    /// Transactions of this kind in the decks completed during the span (`whole_decks`);
    /// absent when none completed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub in_whole_decks: u64,
    /// Parts these transactions skipped for want of work (TPC-C Delivery's districts with no
    /// undelivered order); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: u64,
    /// Transactions that skipped at least one part; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub with_skips: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Summary {
    /// Seconds the figures cover.
    pub seconds: f64,
    /// Committed transactions (sysbench "events").
    pub transactions: u64,
    pub tps: f64,
    pub qps: f64,
    pub queries: Queries,
    /// Response time: from the intended start (open model) or the actual start (closed loop).
    pub latency_ms: Latency,
    /// Service time: from the actual start of the first attempt.
    pub service_ms: Latency,
    /// Failed attempts, all classes: those retried (`retries`) and the last attempts of
    /// transactions given up (`failed`).
    pub errors: u64,
    pub errors_per_s: f64,
    pub errors_by_code: Vec<ErrorCount>,
    /// Attempts beyond the first of committed transactions: failed attempts that were re-run
    /// until the transaction committed.
    pub retries: u64,
    /// Transactions given up: their last attempt failed and was not retried (attempts ran
    /// out, a fatal error, a connection that could not be replaced). A run with any fails.
    #[serde(default)]
    pub failed: u64,
    pub reconnects: u64,
    pub late_starts: u64,
    /// Transactions whose client woke more than 2 ms after it was due and free (its own lag,
    /// not queueing behind its previous transaction or a pooled connection).
    #[serde(default)]
    pub late_wakes: u64,
    pub max_start_lag_ms: f64,
    /// How late transactions started against their schedule (open model and keyed pacing;
    /// about zero in a closed loop).
    #[serde(default)]
    pub start_lag_ms: Latency,
    /// The client's own part of the start lag: how late clients woke for their transactions
    /// against the schedule, before waiting for a pooled connection.
    #[serde(default)]
    pub wake_lag_ms: Latency,
    /// The pool's part of the start lag: waiting for a free pooled connection (zero without a
    /// pool); long waits mean the server (or too small a pool) holds connections too long.
    #[serde(default)]
    pub pool_wait_ms: Latency,
    pub per_kind: Vec<KindSummary>,
    /// Decks of transaction kinds whose last card was executed in the span (TPC-C with
    /// `mix = "spec"`; a deck begun before the span counts whole); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub whole_decks: u64,
}

impl Summary {
    pub fn from_recorded(r: &Recorded, kinds: &[&str], seconds: f64) -> Self {
        let secs = seconds.max(1e-9);
        let total = r.response_total();
        let transactions = total.len();
        let q = Queries {
            reads: r.reads,
            writes: r.writes,
            other: r.other,
            total: r.reads + r.writes + r.other,
        };
        let errors: u64 = r.errors.values().sum();
        let per_kind = r
            .response
            .iter()
            .enumerate()
            .map(|(i, h)| KindSummary {
                kind: kinds.get(i).copied().unwrap_or("transaction").to_string(),
                transactions: h.len(),
                tps: h.len() as f64 / secs,
                latency_ms: Latency::from_histogram(h),
                rolled_back: r.rolled_back.get(i).copied().unwrap_or(0),
                retries: r.retries.get(i).copied().unwrap_or(0),
                errors_by_code: error_counts(r, Some(i)),
                in_whole_decks: r.in_decks.get(i).copied().unwrap_or(0),
                skipped: r.skipped.get(i).copied().unwrap_or(0),
                with_skips: r.with_skips.get(i).copied().unwrap_or(0),
            })
            .collect();
        Summary {
            seconds,
            transactions,
            tps: transactions as f64 / secs,
            qps: q.total as f64 / secs,
            latency_ms: Latency::from_histogram(&total),
            service_ms: Latency::from_histogram(&r.service),
            errors,
            errors_per_s: errors as f64 / secs,
            errors_by_code: error_counts(r, None),
            queries: q,
            retries: r.retries_total(),
            failed: r.failed,
            reconnects: r.reconnects,
            late_starts: r.late_starts,
            late_wakes: r.late_wakes,
            max_start_lag_ms: r.max_start_lag_us as f64 / 1000.0,
            start_lag_ms: Latency::from_histogram(&r.start_lag),
            // Split only on pooled connections; otherwise all of the start lag is the client's.
            wake_lag_ms: Latency::from_histogram(if r.wake_lag.is_empty() {
                &r.start_lag
            } else {
                &r.wake_lag
            }),
            pool_wait_ms: Latency::from_histogram(&r.pool_wait),
            per_kind,
            whole_decks: r.decks,
        }
    }
}

/// Failed attempts by class and code, of one kind or of all kinds together.
fn error_counts(r: &Recorded, kind: Option<usize>) -> Vec<ErrorCount> {
    let mut by_code: std::collections::BTreeMap<(ErrorClass, &str), u64> = Default::default();
    for ((k, class, code), count) in &r.errors {
        if kind.is_none_or(|want| want == *k) {
            *by_code.entry((*class, code.as_str())).or_default() += count;
        }
    }
    by_code
        .into_iter()
        .map(|((class, code), count)| ErrorCount {
            class,
            code: code.to_string(),
            count,
        })
        .collect()
}

/// The reviews' way of totalling several instances: the plain mean of per-instance figures.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MeanOfInstances {
    /// Always "mean of per-instance values (review style); not a merged percentile".
    pub label: String,
    pub latency_avg_ms: f64,
    pub latency_p99_ms: f64,
}

impl MeanOfInstances {
    pub fn of(per_instance: &[&Summary]) -> Self {
        let n = per_instance.len().max(1) as f64;
        MeanOfInstances {
            label: "mean of per-instance values (review style); not a merged percentile".into(),
            latency_avg_ms: per_instance.iter().map(|s| s.latency_ms.avg).sum::<f64>() / n,
            latency_p99_ms: per_instance.iter().map(|s| s.latency_ms.p99).sum::<f64>() / n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::StatementCounts;
    use std::time::Duration;

    #[test]
    fn summary_rates_follow_counts_and_seconds() {
        let mut r = Recorded::new(1);
        for i in 0..100 {
            let d = Duration::from_micros(1000 + i);
            r.record(
                0,
                d,
                d,
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
        let s = Summary::from_recorded(&r, &["event"], 2.0);
        assert_eq!(s.transactions, 100);
        assert_eq!(s.tps, 50.0);
        assert_eq!(s.qps, 1000.0);
        assert_eq!(s.queries.total, 2000);
        assert!(
            (s.latency_ms.avg - 1.0495).abs() < 0.01,
            "{}",
            s.latency_ms.avg
        );
        assert_eq!(s.per_kind[0].kind, "event");
    }

    #[test]
    fn mean_of_instances_is_labelled_and_plain() {
        let mut a = Recorded::new(1);
        let mut b = Recorded::new(1);
        a.record(
            0,
            Duration::from_millis(2),
            Duration::from_millis(2),
            StatementCounts::default(),
            0,
        );
        b.record(
            0,
            Duration::from_millis(4),
            Duration::from_millis(4),
            StatementCounts::default(),
            0,
        );
        let (sa, sb) = (
            Summary::from_recorded(&a, &[], 1.0),
            Summary::from_recorded(&b, &[], 1.0),
        );
        let m = MeanOfInstances::of(&[&sa, &sb]);
        assert!((m.latency_avg_ms - 3.0).abs() < 0.01);
        assert!(m.label.contains("mean of per-instance"));
    }
}
