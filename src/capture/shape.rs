//! The shape of a stream of block requests: counts and bytes per operation, the size
//! histogram, read and sequential shares, the queue depth each request found, flushes per
//! second. One definition for both sides of a fidelity check: what a capture recorded and
//! what a replay issued are measured by the same function.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::{NO_COMPLETION, Op};

/// One request as the shape sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeItem {
    /// Issue time, ns on any clock shared by the stream.
    pub issue_ns: u64,
    /// Completion time on the same clock, or [`NO_COMPLETION`].
    pub complete_ns: u64,
    pub op: Op,
    /// Which device (or target) the offset is on.
    pub device: u16,
    pub offset_bytes: u64,
    pub bytes: u32,
}

/// Requests and bytes of one operation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OpCount {
    pub requests: u64,
    pub bytes: u64,
}

/// Requests of a size up to `up_to_bytes` (and above the previous bucket's bound).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SizeBucket {
    pub up_to_bytes: u64,
    pub requests: u64,
}

/// How many requests were in flight when each was issued (itself included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DepthFigures {
    pub mean: f64,
    pub p50: u32,
    pub p99: u32,
    pub max: u32,
}

/// The shape of a request stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shape {
    pub requests: u64,
    /// Data bytes (reads, writes and discards).
    pub bytes: u64,
    /// From the first issue to the last issue or completion.
    pub seconds: f64,
    pub iops: f64,
    pub mib_per_s: f64,
    /// Per operation, by name.
    pub ops: BTreeMap<String, OpCount>,
    /// Reads, writes and discards by size, in power-of-two buckets.
    pub sizes: Vec<SizeBucket>,
    /// Reads among reads and writes (by count).
    pub read_share: f64,
    /// Reads and writes that start where the previous read or write on the same device ended.
    pub sequential_share: f64,
    pub queue_depth: DepthFigures,
    pub flushes_per_s: f64,
}

/// The shape of `items` (in any order; they are ordered by issue time here).
pub fn shape_of(items: &[ShapeItem]) -> Shape {
    let mut sorted: Vec<ShapeItem> = items.to_vec();
    sorted.sort_by_key(|i| i.issue_ns);
    let Some(first) = sorted.first() else {
        return Shape::default();
    };
    let start = first.issue_ns;
    let end = sorted
        .iter()
        .map(|i| match i.complete_ns {
            NO_COMPLETION => i.issue_ns,
            c => c.max(i.issue_ns),
        })
        .max()
        .unwrap_or(start);
    let seconds = ((end - start) as f64 / 1e9).max(1e-9);
    let mut ops: BTreeMap<String, OpCount> = BTreeMap::new();
    for op in Op::ALL {
        ops.insert(op.as_str().to_owned(), OpCount::default());
    }
    let mut buckets: BTreeMap<u64, u64> = BTreeMap::new();
    for i in &sorted {
        let c = ops.entry(i.op.as_str().to_owned()).or_default();
        c.requests += 1;
        if i.op != Op::Flush {
            c.bytes += u64::from(i.bytes);
            *buckets
                .entry(u64::from(i.bytes).next_power_of_two().max(512))
                .or_default() += 1;
        }
    }
    let count = |op: Op| ops[op.as_str()].requests;
    let bytes: u64 = ops.values().map(|c| c.bytes).sum();
    let rw = count(Op::Read) + count(Op::Write);
    Shape {
        requests: sorted.len() as u64,
        bytes,
        seconds,
        iops: sorted.len() as f64 / seconds,
        mib_per_s: bytes as f64 / seconds / (1024.0 * 1024.0),
        sizes: buckets
            .into_iter()
            .map(|(up_to_bytes, requests)| SizeBucket {
                up_to_bytes,
                requests,
            })
            .collect(),
        read_share: share(count(Op::Read), rw),
        sequential_share: share(sequential(&sorted), rw),
        queue_depth: depths(&sorted),
        flushes_per_s: count(Op::Flush) as f64 / seconds,
        ops,
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Reads and writes that begin where the previous read or write on their device ended.
fn sequential(sorted: &[ShapeItem]) -> u64 {
    let mut next: BTreeMap<u16, u64> = BTreeMap::new();
    let mut n = 0;
    for i in sorted
        .iter()
        .filter(|i| matches!(i.op, Op::Read | Op::Write))
    {
        if next.get(&i.device) == Some(&i.offset_bytes) {
            n += 1;
        }
        next.insert(i.device, i.offset_bytes + u64::from(i.bytes));
    }
    n
}

/// The number in flight at each issue, itself included; requests with no completion count
/// only at their own issue.
fn depths(sorted: &[ShapeItem]) -> DepthFigures {
    let mut completions: Vec<u64> = sorted
        .iter()
        .filter(|i| i.complete_ns != NO_COMPLETION)
        .map(|i| i.complete_ns.max(i.issue_ns))
        .collect();
    completions.sort_unstable();
    let mut done = 0usize;
    let mut found: Vec<u32> = Vec::with_capacity(sorted.len());
    for (n, i) in sorted.iter().enumerate() {
        while done < completions.len() && completions[done] <= i.issue_ns {
            done += 1;
        }
        found.push((n + 1).saturating_sub(done).max(1) as u32);
    }
    let mean = found.iter().map(|&d| f64::from(d)).sum::<f64>() / found.len().max(1) as f64;
    found.sort_unstable();
    let at = |q: f64| found[((found.len() - 1) as f64 * q).round() as usize];
    DepthFigures {
        mean,
        p50: at(0.5),
        p99: at(0.99),
        max: *found.last().unwrap_or(&0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(issue_us: u64, done_us: u64, op: Op, offset: u64, bytes: u32) -> ShapeItem {
        ShapeItem {
            issue_ns: issue_us * 1000,
            complete_ns: done_us * 1000,
            op,
            device: 0,
            offset_bytes: offset,
            bytes,
        }
    }

    #[test]
    fn counts_shares_and_depths() {
        let items = [
            item(0, 100, Op::Write, 0, 4096),
            item(10, 110, Op::Write, 4096, 4096), // sequential, depth 2
            item(20, 30, Op::Read, 1 << 20, 16384), // depth 3
            item(200, 210, Op::Flush, 0, 0),      // depth 1
            item(1_000_000, 1_000_010, Op::Read, 1 << 20 | 16384, 8192), // sequential
        ];
        let s = shape_of(&items);
        assert_eq!(s.requests, 5);
        assert_eq!(s.bytes, 4096 * 2 + 16384 + 8192);
        assert!((s.seconds - 1.00001).abs() < 1e-9);
        assert_eq!(s.ops["write"].requests, 2);
        assert_eq!(s.ops["flush"].requests, 1);
        assert_eq!(s.ops["discard"].requests, 0);
        assert!((s.read_share - 0.5).abs() < 1e-12);
        assert!((s.sequential_share - 0.5).abs() < 1e-12);
        assert_eq!(s.queue_depth.max, 3);
        assert_eq!(s.queue_depth.p50, 1);
        assert!((s.queue_depth.mean - 8.0 / 5.0).abs() < 1e-12);
        let sizes: Vec<(u64, u64)> = s
            .sizes
            .iter()
            .map(|b| (b.up_to_bytes, b.requests))
            .collect();
        assert_eq!(sizes, vec![(4096, 2), (8192, 1), (16384, 1)]);
    }

    #[test]
    fn an_empty_stream_has_a_zero_shape() {
        assert_eq!(shape_of(&[]), Shape::default());
    }
}
