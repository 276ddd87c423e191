//! Replays of synthetic captures on a real file (O_DIRECT, so not on tmpfs: under /var/tmp,
//! or the directory `DRIVEBENCH_REPLAY_TEST_DIR` names): counts, completions, the verdict and
//! the report; fast and scaled timing; a cancel; a capture the target cannot take, refused
//! before any I/O. The schedule lag at 20,000 requests/s is printed, never asserted: timing
//! targets are checked by bench scripts, not by tests.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::engine::{Progress, ReplayOptions, replay};
use super::error::ReplayError;
use super::schedule::Timing;
use crate::capture::{DEFAULT_CHUNK_BYTES, FileClass, Flags, NO_COMPLETION, Op, Remap, Request};
use drivebench_system::io::fill::{FillSpec, fill};
use drivebench_system::io::{DirectTarget, Region, TargetSpec, open_target};

/// Where the test files go.
fn test_dir() -> tempfile::TempDir {
    let base = std::env::var_os("DRIVEBENCH_REPLAY_TEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp"));
    tempfile::tempdir_in(base).expect("a temporary directory for the replay target")
}

/// A file for `remap`; `written`: filled once first, as a replay target should be, so reads
/// meet written blocks and writes do not convert unwritten extents.
fn target_for(dir: &tempfile::TempDir, remap: &Remap, written: bool) -> DirectTarget {
    let spec = TargetSpec::File {
        path: dir.path().join("replay.target"),
        size_bytes: remap.span_bytes().max(1 << 20),
    };
    let target = open_target(&spec).expect("open the replay target");
    if written {
        let stop = AtomicBool::new(false);
        fill(&target, &FillSpec::new(Region::WHOLE), &stop, |_| {}).expect("fill the target");
    }
    target
}

/// `n` requests at `per_s`: every 100th a flush, 14 % sequential 16 KiB log writes (some
/// FUA), the rest 4 KiB or 16 KiB data reads (60 %) and writes at random 4 KiB-aligned offsets
/// of 512 MiB. Recorded latencies (1.5 ms reads, 2 ms writes, 3 ms flushes) give the replay
/// about 40 requests in flight at 20,000 requests/s.
fn synthetic(n: usize, per_s: u64) -> Vec<Request> {
    let gap = 1_000_000_000 / per_s;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let log_start = 600u64 << 20;
    let mut log_at = log_start;
    (0..n)
        .map(|i| {
            let issue_ns = i as u64 * gap;
            let base = Request {
                issue_ns,
                complete_ns: issue_ns + 2_000_000,
                sector: 0,
                bytes: 0,
                device: 0,
                task: 0,
                op: Op::Flush,
                flags: Flags::default(),
                class: FileClass::Log,
                phase: 0,
            };
            match i % 100 {
                0 => Request {
                    complete_ns: issue_ns + 3_000_000,
                    ..base
                },
                1..=14 => {
                    let sector = log_at / 512;
                    log_at += 16384;
                    let fua = if i % 500 == 7 { Flags::FUA } else { 0 };
                    Request {
                        op: Op::Write,
                        sector,
                        bytes: 16384,
                        flags: Flags(fua),
                        ..base
                    }
                }
                _ => {
                    let r = next();
                    let read = r % 100 < 60;
                    Request {
                        op: if read { Op::Read } else { Op::Write },
                        complete_ns: issue_ns + if read { 1_500_000 } else { 2_000_000 },
                        sector: (r >> 8) % (512 << 20 >> 12) * 8,
                        bytes: if (r >> 4) % 2 == 0 { 4096 } else { 16384 },
                        class: FileClass::Data,
                        ..base
                    }
                }
            }
        })
        .collect()
}

fn run(
    requests: &[Request],
    timing: Timing,
    cancel: &AtomicBool,
    written: bool,
) -> (
    Result<super::measure::ReplayOutcome, ReplayError>,
    Vec<Progress>,
    Remap,
    DirectTarget,
    tempfile::TempDir,
) {
    let remap = Remap::new(requests, DEFAULT_CHUNK_BYTES);
    let dir = test_dir();
    let target = target_for(&dir, &remap, written);
    let opts = ReplayOptions {
        timing,
        ..ReplayOptions::default()
    };
    let mut seen = Vec::new();
    let out = replay(requests, &remap, &target, &opts, cancel, &mut |p| {
        seen.push(p)
    });
    (out, seen, remap, target, dir)
}

#[test]
fn a_synthetic_capture_is_replayed_at_its_recorded_times_on_a_file() {
    let requests = synthetic(20_000, 20_000);
    let cancel = AtomicBool::new(false);
    let (out, progress, remap, target, _dir) = run(&requests, Timing::Recorded, &cancel, true);
    let out = out.expect("the replay runs");
    assert_eq!(out.requests, 20_000);
    assert_eq!(out.requests_total, 20_000);
    assert!(!out.interrupted);
    assert_eq!(out.items.len(), 20_000);
    assert!(out.items.iter().all(|i| i.complete_ns != NO_COMPLETION));
    let data: u64 = requests
        .iter()
        .filter(|r| r.op != Op::Flush)
        .map(|r| u64::from(r.bytes))
        .sum();
    assert_eq!(out.bytes, data);
    let by_op = |op: Op| out.latency_by_op[op as usize].histogram.len();
    let count = |op: Op| requests.iter().filter(|r| r.op == op).count() as u64;
    for op in [Op::Read, Op::Write, Op::Flush] {
        assert_eq!(by_op(op), count(op), "{op:?}");
    }
    let log = requests
        .iter()
        .filter(|r| r.class == FileClass::Log)
        .count() as u64;
    assert_eq!(
        out.latency_by_class[FileClass::Log as usize]
            .histogram
            .len(),
        log
    );
    assert!(
        progress
            .last()
            .is_some_and(|p| p.completed == 20_000 && p.total == 20_000)
    );
    let report = out.report(&requests, &remap, &target);
    assert_eq!(report.fidelity.recorded.requests, 20_000);
    assert_eq!(report.fidelity.replayed.requests, 20_000);
    assert!(
        report.fidelity.verdict == "faithful" || report.fidelity.verdict.starts_with("deviated: "),
        "{}",
        report.fidelity.verdict
    );
    assert!(!report.per_second.is_empty());
    assert!(serde_json::to_string(&report).is_ok());
    let lag = out.lag.summary();
    println!(
        "replay of 20,000 requests/s for 1 s (recorded timing, cap {} in flight, registered buffers: {}): \
         lag p50 {} µs, p99 {} µs, p99.9 {} µs, max {} µs; latency p99 read {} µs, write {} µs, flush {} µs; \
         service p50 read {} µs, write {} µs; {:.3} s; verdict: {}",
        out.max_in_flight,
        out.registered_buffers,
        lag.p50,
        lag.p99,
        lag.p999,
        lag.max,
        report.latency_us["read"].p99,
        report.latency_us["write"].p99,
        report.latency_us["flush"].p99,
        report.service_us["read"].p50,
        report.service_us["write"].p50,
        out.seconds,
        report.fidelity.verdict
    );
}

#[test]
fn fast_timing_never_has_more_in_flight_than_the_recording() {
    let requests = synthetic(3_000, 20_000);
    let cancel = AtomicBool::new(false);
    let (out, _, remap, target, _dir) = run(&requests, Timing::Fast, &cancel, false);
    let out = out.expect("the replay runs");
    assert_eq!(out.requests, 3_000);
    let report = out.report(&requests, &remap, &target);
    let (recorded, replayed) = (&report.fidelity.recorded, &report.fidelity.replayed);
    assert!(
        replayed.queue_depth.max <= recorded.queue_depth.max,
        "replayed depth {:?} > recorded {:?}",
        replayed.queue_depth,
        recorded.queue_depth
    );
    assert_eq!(report.fidelity.timing, "fast");
    assert!(
        report
            .fidelity
            .figures
            .iter()
            .any(|f| f.figure == "iops" && !f.judged)
    );
}

#[test]
fn scaled_timing_takes_the_recorded_span_divided_by_the_speed() {
    // 2,000 requests over 0.4 s, at speed 4: about 0.1 s.
    let requests = synthetic(2_000, 5_000);
    let cancel = AtomicBool::new(false);
    let (out, _, _, _, _dir) = run(&requests, Timing::Scaled { speed: 4.0 }, &cancel, false);
    let out = out.expect("the replay runs");
    assert_eq!(out.requests, 2_000);
    let last_submit = out.items.iter().map(|i| i.issue_ns).max().unwrap_or(0);
    let recorded_last = requests.last().map_or(0, |r| r.issue_ns);
    assert!(
        last_submit >= recorded_last / 4,
        "{last_submit} < {}",
        recorded_last / 4
    );
}

#[test]
fn a_cancel_stops_submitting_and_drains_what_is_in_flight() {
    // 3 s of requests; cancelled after about 0.3 s.
    let requests = synthetic(600, 200);
    let cancel = AtomicBool::new(false);
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            cancel.store(true, Ordering::Relaxed);
        });
        run(&requests, Timing::Recorded, &cancel, false).0
    });
    let out = out.expect("a cancelled replay returns what it measured");
    assert!(out.interrupted);
    assert!(out.requests > 0 && out.requests < 600, "{}", out.requests);
    assert_eq!(out.items.len() as u64, out.requests);
    assert!(out.items.iter().all(|i| i.complete_ns != NO_COMPLETION));
}

#[test]
fn a_capture_the_target_cannot_take_is_refused_before_any_io() {
    let mut requests = synthetic(100, 1_000);
    requests[10].bytes = 512;
    requests[10].op = Op::Read;
    requests[20].bytes = 512;
    requests[20].op = Op::Read;
    let remap = Remap::new(&requests, DEFAULT_CHUNK_BYTES);
    let dir = test_dir();
    let mut target = target_for(&dir, &remap, false);
    target.alignment.offset_bytes = 4096;
    let cancel = AtomicBool::new(false);
    let mut calls = 0;
    let e = replay(
        &requests,
        &remap,
        &target,
        &ReplayOptions::default(),
        &cancel,
        &mut |_| calls += 1,
    )
    .expect_err("misaligned requests are refused");
    assert!(matches!(e, ReplayError::Misaligned { count: 2, .. }), "{e}");
    assert!(e.to_string().contains("2 × 512 B"), "{e}");
    assert_eq!(calls, 0);
    let small = DirectTarget {
        size_bytes: 1 << 20,
        ..target
    };
    let e = replay(
        &requests,
        &remap,
        &small,
        &ReplayOptions::default(),
        &cancel,
        &mut |_| {},
    )
    .expect_err("a small target is refused");
    assert!(matches!(e, ReplayError::SpanTooLarge { .. }), "{e}");
}
