//! The capture summary that result.json and capture.json carry: the whole capture's shape
//! (the same [`shape_of`] a replay is measured with), each phase's, each file class's share of
//! requests and bytes with its own shape, the busiest tasks, device latency per operation,
//! lost events and the unknown share, stated even when zero. Also the per-second rows of
//! `capture/per_second.csv`.
//!
//! Bytes are data bytes: reads, writes and discards (a flush moves none). Shares are of all
//! requests (or bytes) in the capture. A shape's rates are over its own span, from its first
//! issue to its last issue or completion, so the whole capture's rates include the gaps
//! between captured phases; each phase's shape has its own.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::{CaptureError, io};
use super::model::{CaptureMeta, FileClass, NO_COMPLETION, Op, Request};
use super::shape::{Shape, ShapeItem, shape_of};

/// A file class's part of the capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClassFigures {
    pub class: FileClass,
    pub requests: u64,
    pub bytes: u64,
    /// Of all requests, 0 to 1.
    pub request_share: f64,
    /// Of all data bytes, 0 to 1.
    pub byte_share: f64,
    pub shape: Shape,
}

/// What one issuing task did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskFigures {
    /// The task's name (`comm`), e.g. "mariadbd", "jbd2/nvme0n1p2-8", "kworker/u8:3".
    pub name: String,
    pub requests: u64,
    pub bytes: u64,
}

/// Device latency (issue to completion) of one operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OpLatency {
    pub op: Op,
    /// Requests of this operation whose completion was seen.
    pub completed: u64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// One captured phase's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseShape {
    pub name: String,
    pub shape: Shape,
}

/// The summary of a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaptureSummary {
    pub requests: u64,
    /// Data bytes (reads, writes, discards).
    pub bytes: u64,
    pub shape: Shape,
    pub phases: Vec<PhaseShape>,
    /// Every class, in the order log, data, temp, filesystem, unknown; empty ones included.
    pub classes: Vec<ClassFigures>,
    /// Tasks by requests issued, most first.
    pub tasks: Vec<TaskFigures>,
    /// Per operation that has completions.
    pub latency: Vec<OpLatency>,
    /// Requests whose completion was not seen (tracing ended first, or the event was lost).
    pub uncompleted: u64,
    /// Events the kernel dropped: the capture misses requests when this is not 0.
    pub lost_events: u64,
    /// CPU-seconds of the trace reader thread (the kernel's reads included).
    pub reader_cpu_s: f64,
    /// Requests that matched no file and no filesystem sign, of all requests.
    pub unknown_request_share: f64,
    /// Their bytes, of all data bytes.
    pub unknown_byte_share: f64,
}

impl CaptureSummary {
    /// One line for the console: requests and bytes, the class shares of requests (unknown
    /// always shown), write latency and lost events.
    pub fn line(&self) -> String {
        let classes: Vec<String> = self
            .classes
            .iter()
            .filter(|c| c.requests > 0 || c.class == FileClass::Unknown)
            .map(|c| format!("{} {:.1} %", c.class.as_str(), c.request_share * 100.0))
            .collect();
        let mut line = format!(
            "{} requests, {:.1} MiB ({})",
            self.requests,
            self.bytes as f64 / (1024.0 * 1024.0),
            classes.join(", ")
        );
        for l in self
            .latency
            .iter()
            .filter(|l| matches!(l.op, Op::Write | Op::Flush))
        {
            line.push_str(&format!(", {} p99 {:.0} us", l.op.as_str(), l.p99_us));
        }
        match self.lost_events {
            0 => line.push_str(", no events lost"),
            n => line.push_str(&format!(", {n} events LOST: the capture is incomplete")),
        }
        line.push_str(&format!(", reader {:.2} CPU-s", self.reader_cpu_s));
        line
    }
}

/// A request as the shape sees it.
pub fn shape_item(r: &Request) -> ShapeItem {
    ShapeItem {
        issue_ns: r.issue_ns,
        complete_ns: r.complete_ns,
        op: r.op,
        device: r.device,
        offset_bytes: r.offset_bytes(),
        bytes: r.bytes,
    }
}

/// Data bytes of a request: none for a flush.
fn data_bytes(r: &Request) -> u64 {
    if r.op == Op::Flush {
        0
    } else {
        u64::from(r.bytes)
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn shape_where(requests: &[Request], keep: impl Fn(&Request) -> bool) -> Shape {
    let items: Vec<ShapeItem> = requests
        .iter()
        .filter(|r| keep(r))
        .map(shape_item)
        .collect();
    shape_of(&items)
}

/// Summarize a capture.
pub fn summarize(meta: &CaptureMeta, requests: &[Request]) -> CaptureSummary {
    let total = requests.len() as u64;
    let bytes: u64 = requests.iter().map(data_bytes).sum();
    let classes: Vec<ClassFigures> = FileClass::ALL
        .into_iter()
        .map(|class| {
            let of = requests.iter().filter(|r| r.class == class);
            let n = of.clone().count() as u64;
            let b: u64 = of.map(data_bytes).sum();
            ClassFigures {
                class,
                requests: n,
                bytes: b,
                request_share: share(n, total),
                byte_share: share(b, bytes),
                shape: shape_where(requests, |r| r.class == class),
            }
        })
        .collect();
    let unknown = &classes[FileClass::Unknown as usize];
    CaptureSummary {
        requests: total,
        bytes,
        shape: shape_where(requests, |_| true),
        phases: meta
            .phases
            .iter()
            .enumerate()
            .map(|(i, p)| PhaseShape {
                name: p.name.clone(),
                shape: shape_where(requests, |r| usize::from(r.phase) == i),
            })
            .collect(),
        unknown_request_share: unknown.request_share,
        unknown_byte_share: unknown.byte_share,
        classes,
        tasks: tasks(meta, requests),
        latency: latency(requests),
        uncompleted: requests
            .iter()
            .filter(|r| r.complete_ns == NO_COMPLETION)
            .count() as u64,
        lost_events: meta.lost_events,
        reader_cpu_s: meta.reader_cpu_s,
    }
}

/// Requests and bytes per task, most requests first.
fn tasks(meta: &CaptureMeta, requests: &[Request]) -> Vec<TaskFigures> {
    let mut per: BTreeMap<u16, (u64, u64)> = BTreeMap::new();
    for r in requests {
        let e = per.entry(r.task).or_default();
        e.0 += 1;
        e.1 += data_bytes(r);
    }
    let mut out: Vec<TaskFigures> = per
        .into_iter()
        .map(|(task, (requests, bytes))| TaskFigures {
            name: meta
                .tasks
                .get(usize::from(task))
                .cloned()
                .unwrap_or_else(|| format!("task {task}")),
            requests,
            bytes,
        })
        .collect();
    out.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// Latency quantiles per operation, from the requests whose completion was seen.
fn latency(requests: &[Request]) -> Vec<OpLatency> {
    Op::ALL
        .into_iter()
        .filter_map(|op| {
            let mut ns: Vec<u64> = requests
                .iter()
                .filter(|r| r.op == op)
                .filter_map(Request::latency_ns)
                .collect();
            if ns.is_empty() {
                return None;
            }
            ns.sort_unstable();
            let at = |q: f64| ns[((ns.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0;
            Some(OpLatency {
                op,
                completed: ns.len() as u64,
                p50_us: at(0.5),
                p99_us: at(0.99),
                max_us: at(1.0),
            })
        })
        .collect()
}

/// One second of the capture (by issue time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SecondRow {
    /// Whole seconds since the capture started.
    pub second: u64,
    /// Requests issued in this second (flushes included).
    pub iops: u64,
    pub read_iops: u64,
    pub write_iops: u64,
    pub flushes: u64,
    /// Data bytes issued, in MiB.
    pub mib_per_s: f64,
    /// Reads among reads and writes.
    pub read_share: f64,
    /// Reads and writes that began where the previous one on their device ended.
    pub sequential_share: f64,
    /// The mean number in flight that the requests of this second found at their issue.
    pub mean_queue_depth: f64,
}

/// Per-second counts while gathering them.
#[derive(Default)]
struct Tally {
    iops: u64,
    reads: u64,
    writes: u64,
    flushes: u64,
    bytes: u64,
    sequential: u64,
    depth_sum: u64,
}

/// The per-second rows: every second a request was issued in, and every second of a captured
/// phase (with zeros when nothing was issued).
pub fn per_second(meta: &CaptureMeta, requests: &[Request]) -> Vec<SecondRow> {
    let mut order: Vec<&Request> = requests.iter().collect();
    order.sort_by_key(|r| r.issue_ns);
    let depths = depths_at_issue(&order);
    let mut seconds: BTreeMap<u64, Tally> = BTreeMap::new();
    for p in &meta.phases {
        let first = p.start_s.max(0.0).floor() as u64;
        let last = (p.start_s + p.seconds).max(0.0).ceil() as u64;
        for s in first..last.max(first + 1) {
            seconds.entry(s).or_default();
        }
    }
    let mut next_offset: BTreeMap<u16, u64> = BTreeMap::new();
    for (r, depth) in order.iter().zip(depths) {
        let t = seconds.entry(r.issue_ns / 1_000_000_000).or_default();
        t.iops += 1;
        t.depth_sum += u64::from(depth);
        t.bytes += data_bytes(r);
        match r.op {
            Op::Read => t.reads += 1,
            Op::Write => t.writes += 1,
            Op::Flush => t.flushes += 1,
            Op::Discard => {}
        }
        if matches!(r.op, Op::Read | Op::Write) {
            if next_offset.get(&r.device) == Some(&r.offset_bytes()) {
                t.sequential += 1;
            }
            next_offset.insert(r.device, r.offset_bytes() + u64::from(r.bytes));
        }
    }
    seconds
        .into_iter()
        .map(|(second, t)| SecondRow {
            second,
            iops: t.iops,
            read_iops: t.reads,
            write_iops: t.writes,
            flushes: t.flushes,
            mib_per_s: t.bytes as f64 / (1024.0 * 1024.0),
            read_share: share(t.reads, t.reads + t.writes),
            sequential_share: share(t.sequential, t.reads + t.writes),
            mean_queue_depth: share(t.depth_sum, t.iops),
        })
        .collect()
}

/// The number in flight each request (in issue order) found at its issue, itself included:
/// the definition of [`shape_of`]'s queue depth.
fn depths_at_issue(order: &[&Request]) -> Vec<u32> {
    let mut completions: Vec<u64> = order
        .iter()
        .filter(|r| r.complete_ns != NO_COMPLETION)
        .map(|r| r.complete_ns.max(r.issue_ns))
        .collect();
    completions.sort_unstable();
    let mut done = 0usize;
    order
        .iter()
        .enumerate()
        .map(|(n, r)| {
            while done < completions.len() && completions[done] <= r.issue_ns {
                done += 1;
            }
            (n + 1).saturating_sub(done).max(1) as u32
        })
        .collect()
}

/// The CSV text of the per-second rows, with a header line.
pub fn per_second_csv(rows: &[SecondRow]) -> String {
    let mut out = String::from(
        "second,iops,read_iops,write_iops,flushes,mib_per_s,read_share,sequential_share,mean_queue_depth\n",
    );
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{:.3},{:.4},{:.4},{:.2}\n",
            r.second,
            r.iops,
            r.read_iops,
            r.write_iops,
            r.flushes,
            r.mib_per_s,
            r.read_share,
            r.sequential_share,
            r.mean_queue_depth
        ));
    }
    out
}

/// Write the per-second rows to `path` as CSV.
pub fn write_per_second_csv(path: &Path, rows: &[SecondRow]) -> Result<(), CaptureError> {
    std::fs::write(path, per_second_csv(rows)).map_err(io("write", path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::model::{CapturedPhase, Flags};

    fn req(
        issue_us: u64,
        done_us: u64,
        op: Op,
        sector: u64,
        bytes: u32,
        task: u16,
        class: FileClass,
    ) -> Request {
        Request {
            issue_ns: issue_us * 1000,
            complete_ns: if done_us == 0 {
                NO_COMPLETION
            } else {
                done_us * 1000
            },
            sector,
            bytes,
            device: 0,
            task,
            op,
            flags: Flags::default(),
            class,
            phase: 0,
        }
    }

    fn meta() -> CaptureMeta {
        CaptureMeta {
            devices: Vec::new(),
            tasks: vec!["mariadbd".into(), "jbd2/loop0-8".into()],
            phases: vec![CapturedPhase {
                name: "sample".into(),
                start_s: 0.0,
                seconds: 2.5,
            }],
            lost_events: 3,
            reader_cpu_s: 0.5,
        }
    }

    fn sample() -> Vec<Request> {
        use FileClass::*;
        vec![
            req(0, 100, Op::Write, 0, 4096, 0, Log),
            req(50, 150, Op::Write, 8, 4096, 0, Log),
            req(200, 1200, Op::Flush, 0, 0, 0, Log),
            req(300, 700, Op::Read, 1000, 16384, 0, Data),
            req(1_500_000, 1_500_300, Op::Write, 5000, 8192, 1, Filesystem),
            req(1_600_000, 0, Op::Write, 9000, 4096, 0, Unknown),
        ]
    }

    #[test]
    fn the_summary_has_every_class_task_and_latency() {
        let s = summarize(&meta(), &sample());
        assert_eq!(s.requests, 6);
        assert_eq!(s.bytes, 4096 * 3 + 16384 + 8192);
        assert_eq!(s.classes.len(), 5);
        let log = &s.classes[0];
        assert_eq!(
            (log.class, log.requests, log.bytes),
            (FileClass::Log, 3, 8192)
        );
        assert!((log.request_share - 0.5).abs() < 1e-12);
        assert_eq!(log.shape.ops["flush"].requests, 1);
        assert_eq!(s.classes[2].requests, 0);
        assert!((s.unknown_request_share - 1.0 / 6.0).abs() < 1e-12);
        assert!((s.unknown_byte_share - 4096.0 / 36864.0).abs() < 1e-12);
        assert_eq!(s.tasks[0].name, "mariadbd");
        assert_eq!((s.tasks[0].requests, s.tasks[1].requests), (5, 1));
        let w = s.latency.iter().find(|l| l.op == Op::Write).unwrap();
        assert_eq!((w.completed, w.p50_us, w.max_us), (3, 100.0, 300.0));
        assert_eq!(s.uncompleted, 1);
        assert_eq!(s.lost_events, 3);
        assert_eq!(s.phases[0].shape.requests, 6);
        assert_eq!(s.shape.requests, 6);
        assert_eq!(
            s.line(),
            "6 requests, 0.0 MiB (log 50.0 %, data 16.7 %, filesystem 16.7 %, unknown 16.7 %), \
             write p99 300 us, flush p99 1000 us, 3 events LOST: the capture is incomplete, \
             reader 0.50 CPU-s"
        );
    }

    #[test]
    fn per_second_rows_cover_the_phase_and_count_what_was_issued() {
        let rows = per_second(&meta(), &sample());
        let seconds: Vec<u64> = rows.iter().map(|r| r.second).collect();
        assert_eq!(seconds, [0, 1, 2]);
        let r0 = &rows[0];
        assert_eq!(
            (r0.iops, r0.read_iops, r0.write_iops, r0.flushes),
            (4, 1, 2, 1)
        );
        assert!((r0.sequential_share - 1.0 / 3.0).abs() < 1e-12);
        // Depths found: 1, 2, then 1 (both writes done by 200 us) and 2 (the flush, itself).
        assert!((r0.mean_queue_depth - 1.5).abs() < 1e-12, "{r0:?}");
        assert_eq!(rows[1].write_iops, 2);
        assert_eq!(rows[2].iops, 0);
        let csv = per_second_csv(&rows);
        assert!(csv.starts_with("second,iops,read_iops,write_iops,flushes,mib_per_s,"));
        assert_eq!(
            csv.lines().nth(1).unwrap(),
            "0,4,1,2,1,0.023,0.3333,0.3333,1.50"
        );
    }
}
