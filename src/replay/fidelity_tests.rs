//! The fidelity judgement on hand-built shapes: a faithful replay, each kind of deviation,
//! the order of the verdict, and what scaled, fast and interrupted replays are judged on.

use std::collections::BTreeMap;

use super::fidelity::*;
use super::schedule::Timing;
use crate::capture::shape::{DepthFigures, OpCount, SizeBucket};
use crate::capture::{Op, Request, Shape};

fn ops(read: u64, write: u64, flush: u64) -> BTreeMap<String, OpCount> {
    let mut m = BTreeMap::new();
    for (op, n, size) in [
        ("read", read, 4096),
        ("write", write, 16384),
        ("flush", flush, 0),
    ] {
        m.insert(
            op.to_owned(),
            OpCount {
                requests: n,
                bytes: n * size,
            },
        );
    }
    m.insert("discard".to_owned(), OpCount::default());
    m
}

/// 10,000 requests in 1 s: 6,000 reads of 4 KiB, 3,000 writes of 16 KiB, 1,000 flushes.
fn base() -> Shape {
    Shape {
        requests: 10_000,
        bytes: 6_000 * 4096 + 3_000 * 16384,
        seconds: 1.0,
        iops: 10_000.0,
        mib_per_s: 70.3,
        ops: ops(6_000, 3_000, 1_000),
        sizes: vec![
            SizeBucket {
                up_to_bytes: 4096,
                requests: 6_000,
            },
            SizeBucket {
                up_to_bytes: 16384,
                requests: 3_000,
            },
        ],
        read_share: 6_000.0 / 9_000.0,
        sequential_share: 0.30,
        queue_depth: DepthFigures {
            mean: 4.0,
            p50: 3,
            p99: 12,
            max: 20,
        },
        flushes_per_s: 1_000.0,
    }
}

fn cx(timing: Timing, lag_p99_us: u64) -> Context {
    Context {
        timing,
        interrupted: false,
        lag: LagFigures {
            p50_us: 10,
            p99_us: lag_p99_us,
            max_us: lag_p99_us * 2,
        },
    }
}

fn find<'a>(f: &'a Fidelity, name: &str) -> &'a FigureCheck {
    f.figures
        .iter()
        .find(|c| c.figure == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
}

#[test]
fn a_replay_within_every_tolerance_is_faithful() {
    let mut replayed = base();
    replayed.iops = 9_700.0; // -3 %
    replayed.flushes_per_s = 1_030.0;
    replayed.sequential_share = 0.27; // -3 points
    replayed.queue_depth.mean = 1.5; // -62.5 %: shown, not judged
    replayed.queue_depth.p99 = 30;
    let f = judge(base(), replayed, cx(Timing::Recorded, 400));
    assert!(f.faithful, "{}", f.verdict);
    assert_eq!(f.verdict, "faithful");
    assert_eq!(f.timing, "recorded");
    assert_eq!(f.speed, Some(1.0));
    let iops = find(&f, "iops");
    assert!((iops.deviation + 3.0).abs() < 1e-9 && iops.judged && iops.passed);
    for name in ["queue_depth_mean", "queue_depth_p99"] {
        assert!(
            !find(&f, name).judged && find(&f, name).note.is_some(),
            "{name}"
        );
    }
    assert!((find(&f, "queue_depth_mean").deviation + 62.5).abs() < 1e-9);
    let seq = find(&f, "sequential_share");
    assert!((seq.deviation + 3.0).abs() < 1e-9);
    assert_eq!(find(&f, "size_share_4096").deviation, 0.0);
    // The figures serialize (no infinities) and read back.
    let text = serde_json::to_string(&f).unwrap();
    let back: Fidelity = serde_json::from_str(&text).unwrap();
    assert_eq!(back, f);
}

#[test]
fn each_kind_of_deviation_is_named() {
    type Change = fn(&mut Shape);
    let cases: [(&str, Change, &str); 7] = [
        (
            "requests",
            |s| s.requests = 9_999,
            "requests 10000 -> 9999 (-1)",
        ),
        ("bytes", |s| s.bytes += 4096, "bytes"),
        (
            "read_share",
            |s| s.read_share = 0.70,
            "reads among reads and writes 66.7 % -> 70.0 % (+3.3 points)",
        ),
        (
            "share_flush",
            |s| {
                s.ops.get_mut("flush").unwrap().requests = 700;
            },
            "share of flush requests 10.0 % -> 7.0 % (-3.0 points)",
        ),
        (
            "size_share_8192",
            |s| {
                // Of 9,500: 4 KiB 63.2 % (-3.5), 8 KiB 5.3 % (+5.3), 16 KiB 31.6 % (-1.8).
                let bucket = SizeBucket {
                    up_to_bytes: 8192,
                    requests: 500,
                };
                s.sizes.insert(1, bucket);
            },
            "size share up to 8192 B 0.0 % -> 5.3 % (+5.3 points)",
        ),
        (
            "sequential_share",
            |s| s.sequential_share = 0.10,
            "sequential share 30.0 % -> 10.0 % (-20.0 points)",
        ),
        (
            "iops",
            |s| s.iops = 8_000.0,
            "IOPS 10000.0 -> 8000.0 (-20.0 %)",
        ),
    ];
    for (name, change, text) in cases {
        let mut replayed = base();
        change(&mut replayed);
        let f = judge(base(), replayed, cx(Timing::Recorded, 100));
        assert!(!f.faithful, "{name}");
        assert!(!find(&f, name).passed, "{name}");
        assert!(f.verdict.starts_with("deviated: "), "{}", f.verdict);
        assert!(f.verdict.contains(text), "{name}: {}", f.verdict);
    }
}

#[test]
fn lag_beyond_a_millisecond_deviates_and_failures_come_worst_first() {
    let mut replayed = base();
    replayed.flushes_per_s = 1_100.0; // +10 %: 2 × tolerance
    replayed.read_share = 0.6667 + 0.09; // +9 points: 4.5 × tolerance
    let f = judge(base(), replayed, cx(Timing::Recorded, 1_500)); // 1.5 × the limit
    assert_eq!(
        f.verdict,
        "deviated: reads among reads and writes 66.7 % -> 75.7 % (+9.0 points); \
         flushes per second 1000.0 -> 1100.0 (+10.0 %); \
         schedule lag p99 (µs) 0 µs -> 1500 µs (+1500 µs, limit 1000 µs)"
    );
    assert_eq!(f.lag.p99_us, 1_500);
}

#[test]
fn scaled_replays_are_judged_against_the_recorded_rates_times_the_speed() {
    let mut twice = base();
    twice.iops = 20_000.0;
    twice.flushes_per_s = 2_000.0;
    let f = judge(base(), twice, cx(Timing::Scaled { speed: 2.0 }, 200));
    assert!(f.faithful, "{}", f.verdict);
    assert_eq!(find(&f, "iops").expected, 20_000.0);
    assert_eq!(find(&f, "iops").recorded, 10_000.0);
    let slow = judge(base(), base(), cx(Timing::Scaled { speed: 2.0 }, 200));
    assert!(
        slow.verdict.contains("IOPS 20000.0 -> 10000.0 (-50.0 %)"),
        "{}",
        slow.verdict
    );
}

#[test]
fn fast_replays_are_not_judged_on_rates_or_lag() {
    let mut fast = base();
    fast.iops = 50_000.0;
    fast.flushes_per_s = 5_000.0;
    let f = judge(base(), fast, cx(Timing::Fast, 20_000));
    assert!(f.faithful, "{}", f.verdict);
    assert_eq!(f.speed, None);
    for name in ["iops", "flushes_per_s", "lag_p99_us"] {
        let c = find(&f, name);
        assert!(!c.judged && c.passed && c.note.is_some(), "{name}");
    }
    // The mix still is judged.
    let mut mix = base();
    mix.read_share = 0.5;
    assert!(!judge(base(), mix, cx(Timing::Fast, 0)).faithful);
}

#[test]
fn an_interrupted_replay_is_not_judged_on_its_counts() {
    // The first 40 % of the requests, in the same mix.
    let mut part = base();
    part.requests = 4_000;
    part.ops = ops(2_400, 1_200, 400);
    part.bytes = part.ops.values().map(|c| c.bytes).sum();
    for b in &mut part.sizes {
        b.requests = b.requests * 2 / 5;
    }
    let mut c = cx(Timing::Recorded, 100);
    c.interrupted = true;
    let f = judge(base(), part, c);
    assert!(f.faithful, "{}", f.verdict);
    assert!(f.interrupted);
    assert!(!find(&f, "requests").judged);
}

#[test]
fn an_empty_replay_against_an_empty_recording_is_faithful() {
    let f = judge(Shape::default(), Shape::default(), cx(Timing::Recorded, 0));
    assert!(f.faithful, "{}", f.verdict);
    assert!(serde_json::to_string(&f).is_ok());
}

#[test]
fn recorded_items_put_each_request_at_its_device_offset() {
    use crate::capture::{FileClass, Flags, NO_COMPLETION};
    let r = Request {
        issue_ns: 5,
        complete_ns: NO_COMPLETION,
        sector: 16,
        bytes: 4096,
        device: 1,
        task: 0,
        op: Op::Write,
        flags: Flags::default(),
        class: FileClass::Log,
        phase: 0,
    };
    let flush = Request {
        op: Op::Flush,
        sector: 99,
        bytes: 512,
        ..r
    };
    let items = recorded_items(&[r, flush]);
    assert_eq!(
        (items[0].offset_bytes, items[0].device, items[0].bytes),
        (8192, 1, 4096)
    );
    assert_eq!((items[1].offset_bytes, items[1].bytes), (0, 0));
}
