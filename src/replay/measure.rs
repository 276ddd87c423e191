//! From the times the replay loop stamped on each request (intended issue, submission,
//! completion) to what a replay measured: HDR histograms in microseconds of latency
//! (completion − intended: what the database would have waited, so a target that falls behind
//! is charged for it), service time (completion − submission) and schedule lag (submission −
//! intended), per operation and per file class; one row per second; and a shape item per
//! replayed request for the fidelity judgement. Then the report of it all.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;

use super::fidelity::{self, Context, Fidelity, LagFigures};
use super::model::{
    LatencyUs, ReplayHistograms, ReplayReport, ReplaySource, ReplayTarget, ReplayTargetKind,
    SecondRow,
};
use super::schedule::Timing;
use crate::capture::{Capture, FileClass, NO_COMPLETION, Op, Remap, Request, ShapeItem, shape_of};
use drivebench_core::histogram::{HIGHEST_US, encode, new_histogram};
use drivebench_system::io::{DirectTarget, TargetKind};

/// ns to µs, rounded, within the histograms' range.
pub fn ns_to_us(ns: u64) -> u64 {
    (ns.saturating_add(500) / 1000).min(HIGHEST_US)
}

/// One HDR histogram of µs values and the exact sum of what went in, ns.
#[derive(Debug, Clone)]
pub struct LatencyRecord {
    pub histogram: Histogram<u64>,
    pub sum_ns: u128,
}

impl Default for LatencyRecord {
    fn default() -> Self {
        LatencyRecord {
            histogram: new_histogram(),
            sum_ns: 0,
        }
    }
}

impl LatencyRecord {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        // Clamped to the bounds: recording cannot fail.
        let _ = self.histogram.record(ns_to_us(ns));
        self.sum_ns += u128::from(ns);
    }

    pub fn summary(&self) -> LatencyUs {
        let h = &self.histogram;
        if h.is_empty() {
            return LatencyUs::default();
        }
        LatencyUs {
            count: h.len(),
            mean: self.sum_ns as f64 / h.len() as f64 / 1000.0,
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
        }
    }
}

/// The times the loop stamped, indexed like the requests in issue order. Only the first
/// `submitted` are meaningful; after the loop drained, each of them has its completion.
#[derive(Debug)]
pub struct Stamps {
    pub intended_ns: Vec<u64>,
    pub submit_ns: Vec<u64>,
    pub complete_ns: Vec<u64>,
    pub submitted: usize,
}

impl Stamps {
    pub fn new(n: usize) -> Stamps {
        Stamps {
            intended_ns: vec![0; n],
            submit_ns: vec![0; n],
            complete_ns: vec![NO_COMPLETION; n],
            submitted: 0,
        }
    }
}

/// How the loop ran, besides its stamps.
#[derive(Debug, Clone, Copy)]
pub struct RunFacts {
    pub timing: Timing,
    pub max_in_flight: u32,
    pub interrupted: bool,
    pub registered_buffers: bool,
}

/// What a replay measured.
#[derive(Debug, Clone)]
pub struct ReplayOutcome {
    pub timing: Timing,
    /// The cap on requests in flight that was used.
    pub max_in_flight: u32,
    /// Stopped by the cancel flag before the last request.
    pub interrupted: bool,
    pub registered_buffers: bool,
    /// Requests in the capture.
    pub requests_total: u64,
    /// Requests submitted and completed.
    pub requests: u64,
    /// Their data bytes (reads, writes, discards).
    pub bytes: u64,
    /// First submission to last completion, seconds.
    pub seconds: f64,
    /// Completion − intended, by `Op as usize`.
    pub latency_by_op: [LatencyRecord; 4],
    /// Completion − intended, by `FileClass as usize`.
    pub latency_by_class: [LatencyRecord; 5],
    /// Completion − submission, by `Op as usize`.
    pub service_by_op: [LatencyRecord; 4],
    /// Submission − intended.
    pub lag: LatencyRecord,
    pub per_second: Vec<SecondRow>,
    /// One per replayed request, in submission order: issue = submission, on the target
    /// (device 0) at its remapped offset.
    pub items: Vec<ShapeItem>,
}

/// The outcome of a loop over `sorted` (the requests in issue order).
pub fn outcome(
    sorted: &[Request],
    remap: &Remap,
    stamps: &Stamps,
    facts: RunFacts,
) -> ReplayOutcome {
    let mut out = ReplayOutcome {
        timing: facts.timing,
        max_in_flight: facts.max_in_flight,
        interrupted: facts.interrupted,
        registered_buffers: facts.registered_buffers,
        requests_total: sorted.len() as u64,
        requests: 0,
        bytes: 0,
        seconds: 0.0,
        latency_by_op: Default::default(),
        latency_by_class: Default::default(),
        service_by_op: Default::default(),
        lag: LatencyRecord::default(),
        per_second: Vec::new(),
        items: Vec::with_capacity(stamps.submitted),
    };
    let (mut first, mut last) = (u64::MAX, 0u64);
    for (i, r) in sorted.iter().enumerate().take(stamps.submitted) {
        let (intended, submit, complete) = (
            stamps.intended_ns[i],
            stamps.submit_ns[i],
            stamps.complete_ns[i],
        );
        if complete == NO_COMPLETION {
            continue;
        }
        out.latency_by_op[r.op as usize].record(complete.saturating_sub(intended));
        out.latency_by_class[r.class as usize].record(complete.saturating_sub(intended));
        out.service_by_op[r.op as usize].record(complete.saturating_sub(submit));
        out.lag.record(submit.saturating_sub(intended));
        let data = r.op != Op::Flush;
        out.requests += 1;
        out.bytes += if data { u64::from(r.bytes) } else { 0 };
        (first, last) = (first.min(submit), last.max(complete));
        out.items.push(ShapeItem {
            issue_ns: submit,
            complete_ns: complete,
            op: r.op,
            device: 0,
            offset_bytes: remap.target_offset(r).unwrap_or(0),
            bytes: if data { r.bytes } else { 0 },
        });
    }
    out.seconds = last.saturating_sub(first.min(last)) as f64 / 1e9;
    out.per_second = per_second(sorted, stamps);
    out
}

/// The nearest-rank quantile `q` of `values` (reordered); 0 for none.
fn quantile(values: &mut [u64], q: f64) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let rank = ((values.len() as f64 * q).ceil() as usize).clamp(1, values.len());
    *values.select_nth_unstable(rank - 1).1
}

/// What one second gathers before its row is made.
#[derive(Default)]
struct SecondAcc {
    issued: u64,
    completed: u64,
    data_bytes: u64,
    lags_us: Vec<u64>,
    latencies_us: [Vec<u64>; 4],
}

/// One row per second from the replay's start to its last completion.
fn per_second(sorted: &[Request], stamps: &Stamps) -> Vec<SecondRow> {
    const NS: u64 = 1_000_000_000;
    let mut acc: Vec<SecondAcc> = Vec::new();
    let mut at = |ns: u64| -> usize {
        let s = (ns / NS) as usize;
        if acc.len() <= s {
            acc.resize_with(s + 1, SecondAcc::default);
        }
        s
    };
    let mut slots: Vec<(usize, usize, u64, u64, u64, &Request)> = Vec::new();
    for (i, r) in sorted.iter().enumerate().take(stamps.submitted) {
        let (intended, submit, complete) = (
            stamps.intended_ns[i],
            stamps.submit_ns[i],
            stamps.complete_ns[i],
        );
        if complete == NO_COMPLETION {
            continue;
        }
        slots.push((at(submit), at(complete), intended, submit, complete, r));
    }
    for (s_submit, s_complete, intended, submit, complete, r) in slots {
        let a = &mut acc[s_submit];
        a.issued += 1;
        a.lags_us.push(ns_to_us(submit.saturating_sub(intended)));
        let b = &mut acc[s_complete];
        b.completed += 1;
        if matches!(r.op, Op::Read | Op::Write) {
            b.data_bytes += u64::from(r.bytes);
        }
        b.latencies_us[r.op as usize].push(ns_to_us(complete.saturating_sub(intended)));
    }
    acc.into_iter()
        .enumerate()
        .map(|(second, mut a)| {
            let mut latency_p99_us = BTreeMap::new();
            for op in Op::ALL {
                let values = &mut a.latencies_us[op as usize];
                if !values.is_empty() {
                    latency_p99_us.insert(op.as_str().to_owned(), quantile(values, 0.99));
                }
            }
            SecondRow {
                second: second as u64,
                issued: a.issued,
                completed: a.completed,
                mib_per_s: a.data_bytes as f64 / (1024.0 * 1024.0),
                lag_p99_us: quantile(&mut a.lags_us, 0.99),
                latency_p99_us,
            }
        })
        .collect()
}

/// Summaries and encoded histograms of the records that hold anything, by name.
fn by_name<'a>(
    records: impl Iterator<Item = (&'static str, &'a LatencyRecord)>,
) -> (BTreeMap<String, LatencyUs>, BTreeMap<String, String>) {
    records
        .filter(|(_, r)| !r.histogram.is_empty())
        .map(|(name, r)| {
            (
                (name.to_owned(), r.summary()),
                (name.to_owned(), encode(&r.histogram)),
            )
        })
        .unzip()
}

/// Most seconds of a recording counted per second (a week): a corrupt issue time must not
/// ask for a vector of billions.
const MAX_RECORDED_SECONDS: u64 = 7 * 86_400;

/// Requests issued in each second from the first request's issue (the first week's).
fn recorded_per_second(requests: &[Request]) -> Vec<u64> {
    let first = requests.iter().map(|r| r.issue_ns).min().unwrap_or(0);
    let mut counts: Vec<u64> = Vec::new();
    for r in requests {
        let second = (r.issue_ns - first) / 1_000_000_000;
        if second >= MAX_RECORDED_SECONDS {
            continue;
        }
        let s = second as usize;
        if counts.len() <= s {
            counts.resize(s + 1, 0);
        }
        counts[s] += 1;
    }
    counts
}

impl ReplaySource {
    /// The source of a replay of `capture`.
    pub fn of(capture: &Capture) -> ReplaySource {
        ReplaySource {
            capture_dir: capture.dir.display().to_string(),
            trace_sha256: capture.trace_sha256.clone(),
            devices: capture.meta.devices.clone(),
            phases: capture.meta.phases.clone(),
            lost_events: capture.meta.lost_events,
            recorded_per_second: recorded_per_second(&capture.requests),
        }
    }
}

impl ReplayOutcome {
    /// The fidelity of this replay of `requests` (the capture's, in any order).
    pub fn fidelity(&self, requests: &[Request]) -> Fidelity {
        let recorded = shape_of(&fidelity::recorded_items(requests));
        let replayed = shape_of(&self.items);
        let cx = Context {
            timing: self.timing,
            interrupted: self.interrupted,
            lag: LagFigures::of(&self.lag.histogram),
        };
        fidelity::judge(recorded, replayed, cx)
    }

    /// The report of this replay of `requests` through `remap` on `target`.
    pub fn report(
        &self,
        requests: &[Request],
        remap: &Remap,
        target: &DirectTarget,
    ) -> ReplayReport {
        let ops = || Op::ALL.iter().map(|op| op.as_str());
        let (latency_us, latency_h) = by_name(ops().zip(&self.latency_by_op));
        let (service_us, service_h) = by_name(ops().zip(&self.service_by_op));
        let classes = FileClass::ALL.iter().map(|c| c.as_str());
        let (latency_by_class_us, class_h) = by_name(classes.zip(&self.latency_by_class));
        ReplayReport {
            timing: self.timing.name().to_owned(),
            speed: self.timing.speed(),
            max_in_flight: self.max_in_flight,
            source: ReplaySource {
                recorded_per_second: recorded_per_second(requests),
                ..ReplaySource::default()
            },
            target: ReplayTarget {
                path: target.path.display().to_string(),
                kind: match target.kind {
                    TargetKind::File => ReplayTargetKind::File,
                    TargetKind::BlockDevice => ReplayTargetKind::BlockDevice,
                },
                size_bytes: target.size_bytes,
                span_bytes: remap.span_bytes(),
                align_bytes: target.alignment.offset_bytes,
            },
            requests_total: self.requests_total,
            requests: self.requests,
            bytes: self.bytes,
            seconds: self.seconds,
            interrupted: self.interrupted,
            registered_buffers: self.registered_buffers,
            latency_us,
            latency_by_class_us,
            service_us,
            lag_us: self.lag.summary(),
            per_second: self.per_second.clone(),
            fidelity: self.fidelity(requests),
            histograms: ReplayHistograms {
                latency_by_op: latency_h,
                latency_by_class: class_h,
                service_by_op: service_h,
                lag: encode(&self.lag.histogram),
            },
            verdict: None,
            telemetry: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::DEFAULT_CHUNK_BYTES;

    fn req(op: Op, class: FileClass, sector: u64, bytes: u32) -> Request {
        Request {
            device: 3,
            class,
            ..Request::data(op, sector, bytes)
        }
    }

    #[test]
    fn stamps_become_latency_service_lag_rows_and_items() {
        let rs = [
            req(Op::Write, FileClass::Log, 8, 4096),
            req(Op::Flush, FileClass::Log, 0, 0),
            req(Op::Read, FileClass::Data, 2048, 16384),
            req(Op::Read, FileClass::Data, 4096, 4096), // never submitted
        ];
        let remap = Remap::new(&rs, DEFAULT_CHUNK_BYTES);
        let mut st = Stamps::new(rs.len());
        // (intended, submit, complete) in ns.
        let times = [
            (0, 1_000, 101_000),
            (200_000, 200_500, 1_000_300_000),
            (1_000_000_000, 1_000_400_000, 1_000_500_000),
        ];
        for (i, t) in times.into_iter().enumerate() {
            (st.intended_ns[i], st.submit_ns[i], st.complete_ns[i]) = t;
        }
        st.submitted = 3;
        let facts = RunFacts {
            timing: Timing::Recorded,
            max_in_flight: 2,
            interrupted: true,
            registered_buffers: true,
        };
        let o = outcome(&rs, &remap, &st, facts);
        assert_eq!((o.requests, o.bytes), (3, 4096 + 16384));
        assert!((o.seconds - 1.000_499).abs() < 1e-12);
        let log = o.latency_by_class[FileClass::Log as usize].summary();
        assert_eq!(log.count, 2);
        assert!((1_000_100..1_001_100).contains(&log.max), "{log:?}");
        assert!((log.mean - (101.0 + 1_000_100.0) / 2.0).abs() < 1e-9);
        let read = o.latency_by_op[Op::Read as usize].summary();
        assert_eq!((read.count, read.p50), (1, 500));
        assert_eq!(o.service_by_op[Op::Read as usize].summary().max, 100);
        assert_eq!(o.lag.summary().max, 400);
        assert_eq!(o.items.len(), 3);
        assert_eq!((o.items[0].offset_bytes, o.items[0].device), (4096, 0));
        assert_eq!(o.items[2].offset_bytes, 1 << 20);
        assert_eq!(o.per_second.len(), 2);
        let s0 = &o.per_second[0];
        assert_eq!((s0.issued, s0.completed, s0.lag_p99_us), (2, 1, 1));
        assert_eq!(s0.latency_p99_us.get("write"), Some(&101));
        let s1 = &o.per_second[1];
        assert_eq!((s1.issued, s1.completed, s1.lag_p99_us), (1, 2, 400));
        assert_eq!(s1.latency_p99_us.get("flush"), Some(&1_000_100));
        assert!((s1.mib_per_s - 16384.0 / 1048576.0).abs() < 1e-12);
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let mut v: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(quantile(&mut v, 0.99), 99);
        assert_eq!(quantile(&mut v, 0.5), 50);
        assert_eq!(quantile(&mut [7], 0.99), 7);
        assert_eq!(quantile(&mut [], 0.99), 0);
    }
}
