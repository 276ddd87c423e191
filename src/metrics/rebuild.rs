//! An instance's phase as result.json keeps it, rebuilt into the [`Recorded`] it was summarised
//! from: the summary's counts plus the histograms beside it ([`PhaseHistograms`]). Merging the
//! rebuilt figures of several hosts and summarising them again gives exactly what one process
//! measuring all of them would have reported (`drivebench merge`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Recorded;
use super::summary::Summary;
use drivebench_core::histogram::{DecodeError, decode, encode};

/// The histograms of an instance's phase beyond its all-kinds response time (same encoding).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PhaseHistograms {
    /// Response time per transaction kind, in the order of the summary's `per_kind`.
    pub per_kind: Vec<String>,
    /// Service time, all kinds.
    pub service: String,
    pub start_lag: String,
    pub wake_lag: String,
    pub pool_wait: String,
}

impl PhaseHistograms {
    pub fn of(r: &Recorded) -> Self {
        PhaseHistograms {
            per_kind: r.response.iter().map(encode).collect(),
            service: encode(&r.service),
            start_lag: encode(&r.start_lag),
            wake_lag: encode(&r.wake_lag),
            pool_wait: encode(&r.pool_wait),
        }
    }
}

/// Why a phase could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    #[error(transparent)]
    Histogram(#[from] DecodeError),
    #[error("{histograms} kind histograms for {kinds} kinds in the summary")]
    Kinds { histograms: usize, kinds: usize },
    #[error("kind {kind:?}: {histogram} transactions in its histogram, {summary} in its summary")]
    Count {
        kind: String,
        histogram: u64,
        summary: u64,
    },
}

/// The recorded figures behind `summary` and `h`.
pub fn rebuild(summary: &Summary, h: &PhaseHistograms) -> Result<Recorded, RebuildError> {
    let kinds = summary.per_kind.len();
    if h.per_kind.len() != kinds {
        return Err(RebuildError::Kinds {
            histograms: h.per_kind.len(),
            kinds,
        });
    }
    let mut r = Recorded::new(kinds);
    for (i, (k, text)) in summary.per_kind.iter().zip(&h.per_kind).enumerate() {
        r.response[i] = decode(text)?;
        if r.response[i].len() != k.transactions {
            return Err(RebuildError::Count {
                kind: k.kind.clone(),
                histogram: r.response[i].len(),
                summary: k.transactions,
            });
        }
        for e in &k.errors_by_code {
            *r.errors.entry((i, e.class, e.code.clone())).or_default() += e.count;
        }
        r.retries[i] = k.retries;
        r.rolled_back[i] = k.rolled_back;
        r.skipped[i] = k.skipped;
        r.with_skips[i] = k.with_skips;
        r.in_decks[i] = k.in_whole_decks;
    }
    r.service = decode(&h.service)?;
    r.start_lag = decode(&h.start_lag)?;
    r.wake_lag = decode(&h.wake_lag)?;
    r.pool_wait = decode(&h.pool_wait)?;
    r.reads = summary.queries.reads;
    r.writes = summary.queries.writes;
    r.other = summary.queries.other;
    r.failed = summary.failed;
    r.reconnects = summary.reconnects;
    r.late_starts = summary.late_starts;
    r.late_wakes = summary.late_wakes;
    r.max_start_lag_us = (summary.max_start_lag_ms * 1000.0).round() as u64;
    r.decks = summary.whole_decks;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::ErrorClass;
    use crate::metrics::StatementCounts;
    use std::time::Duration;

    #[test]
    fn a_summary_and_its_histograms_rebuild_the_same_summary() {
        let mut r = Recorded::new(2);
        for i in 0..500u64 {
            let d = Duration::from_micros(700 + i * 37);
            let counts = StatementCounts {
                reads: 3,
                writes: 1,
                other: 2,
                rolled_back: false,
                skipped: 0,
            };
            let kind = usize::from(i % 3 != 0);
            r.record(kind, d, d / 2, counts, u32::from(i % 7 == 0));
        }
        r.errors
            .insert((1, ErrorClass::Retryable, "1213".into()), 4);
        r.rolled_back[0] = 3;
        r.reconnects = 2;
        r.max_start_lag_us = 1234;
        let kinds = ["a", "b"];
        let summary = Summary::from_recorded(&r, &kinds, 10.0);
        let back = rebuild(&summary, &PhaseHistograms::of(&r)).unwrap();
        assert_eq!(Summary::from_recorded(&back, &kinds, 10.0), summary);
        let mut wrong = PhaseHistograms::of(&r);
        wrong.per_kind.swap(0, 1);
        assert!(matches!(
            rebuild(&summary, &wrong),
            Err(RebuildError::Count { .. })
        ));
        wrong.per_kind.pop();
        assert!(matches!(
            rebuild(&summary, &wrong),
            Err(RebuildError::Kinds { .. })
        ));
    }
}
