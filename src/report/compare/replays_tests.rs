//! compare's replay section, tested on replay-only runs: ranking per file class, the refusal to
//! rank replays of different captures or timings, and the mark on a replay that was not faithful.

use std::collections::BTreeMap;

use super::replays::*;
use crate::capture::Shape;
use crate::metrics::histogram::encode;
use crate::metrics::histogram::new_histogram;
use crate::replay::ReplayReport;
use crate::replay::model::{ReplayHistograms, ReplayTarget, ReplayTargetKind};
use crate::replay::{Fidelity, LagFigures, LatencyUs, ReplaySource};
use crate::results::run::RunReport;
use crate::telemetry::{Bound, Verdict};

const SHA_A: &str = "3f2a9c1b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8";
const SHA_B: &str = "77de00112233445566778899aabbccddeeff00112233445566778899aabbccdd";

/// A replay of capture `sha` with `timing`, whose requests of each class took the
/// latencies given (µs).
fn replay(sha: &str, timing: &str, classes: &[(&str, Vec<u64>)]) -> ReplayReport {
    let mut by_class = BTreeMap::new();
    let mut hists = BTreeMap::new();
    for (class, values) in classes {
        let mut h = new_histogram();
        for v in values {
            h.record(*v).unwrap();
        }
        by_class.insert(
            class.to_string(),
            LatencyUs {
                count: h.len(),
                mean: h.mean(),
                p50: h.value_at_quantile(0.5),
                p90: h.value_at_quantile(0.9),
                p99: h.value_at_quantile(0.99),
                p999: h.value_at_quantile(0.999),
                max: h.max(),
            },
        );
        hists.insert(class.to_string(), encode(&h));
    }
    let requests: u64 = by_class.values().map(|l| l.count).sum();
    ReplayReport {
        timing: timing.into(),
        speed: (timing != "fast").then_some(1.0),
        max_in_flight: 8,
        target: ReplayTarget {
            path: "/var/tmp/drivebench-replay.dat".into(),
            kind: ReplayTargetKind::File,
            size_bytes: 1 << 30,
            span_bytes: 1 << 20,
            align_bytes: 4096,
        },
        source: ReplaySource {
            capture_dir: "runs/cap/capture".into(),
            trace_sha256: sha.into(),
            ..ReplaySource::default()
        },
        requests_total: requests,
        requests,
        bytes: requests * 4096,
        seconds: 10.0,
        interrupted: false,
        registered_buffers: true,
        latency_us: BTreeMap::new(),
        latency_by_class_us: by_class,
        service_us: BTreeMap::new(),
        lag_us: LatencyUs {
            p99: 40,
            ..LatencyUs::default()
        },
        per_second: Vec::new(),
        fidelity: Fidelity {
            timing: timing.into(),
            speed: Some(1.0),
            interrupted: false,
            recorded: Shape::default(),
            replayed: Shape::default(),
            figures: Vec::new(),
            lag: LagFigures::default(),
            faithful: true,
            verdict: "faithful".into(),
        },
        histograms: ReplayHistograms {
            latency_by_class: hists,
            ..ReplayHistograms::default()
        },
        verdict: Some(Verdict {
            bound: Bound::DriveBound,
            deciding: Vec::new(),
            reason: "I/O pressure full 40 %".into(),
        }),
        telemetry: None,
    }
}

/// A replay-only run holding `r`: the sweep-only fixture without its sweeps.
fn run(r: ReplayReport) -> RunReport {
    let path = std::path::Path::new("tests/data/compare/sweep_only_v1.json");
    let mut report = crate::results::read_result(path).unwrap();
    report.sweeps.clear();
    report.plan.sweeps.clear();
    report.plan.name = "replay".into();
    report.plan.scenario_file = "(drivebench replay)".into();
    report.replay = Some(r);
    report
}

/// `n` values: most at `base`, the slowest 2 % at `tail`.
fn lat(n: u64, base: u64, tail: u64) -> Vec<u64> {
    (0..n)
        .map(|i| if i % 50 == 0 { tail } else { base })
        .collect()
}

fn compare(runs: &[(&str, RunReport)]) -> ReplayComparison {
    let labelled: Vec<(String, &RunReport)> =
        runs.iter().map(|(l, r)| (l.to_string(), r)).collect();
    build(&labelled).unwrap()
}

#[test]
fn replays_of_one_capture_are_ranked_by_class_and_merged_p99() {
    // fast: log 100 µs, data 2000 µs (tail); slow: log 900, data 1500.
    let fast = run(replay(
        SHA_A,
        "recorded",
        &[
            ("log", lat(1000, 100, 100)),
            ("data", lat(100, 300, 2000)),
            ("filesystem", vec![50; 10]),
        ],
    ));
    let slow = run(replay(
        SHA_A,
        "recorded",
        &[
            ("log", lat(1000, 900, 900)),
            ("data", lat(100, 300, 1500)),
            ("filesystem", vec![80; 10]),
        ],
    ));
    let c = compare(&[("fast", fast), ("slow", slow)]);
    assert_eq!(c.not_ranked, None);
    assert_eq!(c.classes, ["log", "data", "filesystem"]);
    let order =
        |rows: &[ReplayRanked]| -> Vec<String> { rows.iter().map(|r| r.label.clone()).collect() };
    assert_eq!(order(&c.by_log_p99), ["fast", "slow"]);
    assert_eq!(order(&c.by_data_p99), ["slow", "fast"]);
    assert_eq!(c.by_log_p99[0].vs_leader_pct, 0.0);
    assert!(
        (c.by_log_p99[1].vs_leader_pct - 800.0).abs() < 1.0,
        "{:?}",
        c.by_log_p99
    );
    // All requests: the merged p99 is the 1099th of 1110 values, data's 300 µs for fast
    // and log's 900 µs for slow; no mean of the classes' p99s gives either.
    let fast_all = c.runs[0].p99_us.unwrap();
    let slow_all = c.runs[1].p99_us.unwrap();
    assert!((299..=301).contains(&fast_all), "{fast_all}");
    assert!((899..=901).contains(&slow_all), "{slow_all}");
    assert_eq!(order(&c.by_p99), ["fast", "slow"]);
    assert!(c.not_drive_bound.is_empty());
    let md = {
        let mut s = String::new();
        markdown(&mut s, &c);
        s
    };
    assert!(md.contains("| run | target | timing | capture | requests | lag p99 µs | log p99 µs | data p99 µs | filesystem p99 µs | all p99 µs | what limited it | fidelity |"), "{md}");
    assert!(md.contains("| fast | /var/tmp/drivebench-replay.dat | recorded | 3f2a9c1b4d5e | 1110 of 1110 | 40 |"), "{md}");
    assert!(
        md.contains("### Replays: p99 latency of log requests, µs (lower is better)"),
        "{md}"
    );
    assert!(md.contains("| 2 | slow | 900 | +800.0% |  |"), "{md}");
    assert!(!md.contains("Warning"), "{md}");
    let mut html = String::new();
    super::replays::html(&mut html, &c);
    assert!(
        html.contains("<h3>p99 latency per file class, µs</h3>"),
        "{html}"
    );
    assert!(html.contains("<h3>Replays: p99 latency of all requests, µs (lower is better)</h3>"));
}

#[test]
fn replays_of_different_captures_or_timings_are_listed_not_ranked() {
    let a = run(replay(SHA_A, "recorded", &[("log", vec![100; 10])]));
    let b = run(replay(SHA_B, "recorded", &[("log", vec![200; 10])]));
    let c = compare(&[("a", a.clone()), ("b", b)]);
    let why = c.not_ranked.clone().unwrap();
    assert!(why.contains("different captures"), "{why}");
    assert!(why.contains("3f2a9c1b4d5e: a; 77de00112233: b"), "{why}");
    assert!(c.by_log_p99.is_empty() && c.by_data_p99.is_empty() && c.by_p99.is_empty());
    assert_eq!(c.runs.len(), 2);
    let mut md = String::new();
    markdown(&mut md, &c);
    assert!(
        md.contains("**Warning: not ranked: the replays are of different captures"),
        "{md}"
    );
    assert!(!md.contains("### Replays:"), "{md}");
    assert!(md.contains("| b | "), "{md}");

    let fast = run(replay(SHA_A, "fast", &[("log", vec![50; 10])]));
    let c = compare(&[("a", a), ("f", fast)]);
    let why = c.not_ranked.unwrap();
    assert!(why.contains("differ in timing"), "{why}");
    assert!(why.contains("recorded: a; fast: f"), "{why}");
    assert!(!why.contains("different captures"), "{why}");
    assert!(c.by_p99.is_empty());
}

#[test]
fn a_replay_that_was_not_faithful_is_ranked_and_marked() {
    let good = run(replay(SHA_A, "recorded", &[("log", vec![300; 10])]));
    let mut off = replay(SHA_A, "recorded", &[("log", vec![100; 10])]);
    off.fidelity.faithful = false;
    off.fidelity.verdict =
        "deviated: schedule lag p99 (µs) 0 µs -> 4200 µs (+4200 µs, limit 1000 µs)".into();
    off.verdict = Some(Verdict {
        bound: Bound::HostCpuBound,
        deciding: Vec::new(),
        reason: "CPU busy 97 %".into(),
    });
    let c = compare(&[("good", good), ("off", run(off))]);
    assert_eq!(c.not_ranked, None);
    assert_eq!(c.by_log_p99[0].label, "off");
    assert_eq!(c.by_log_p99[0].mark, "not faithful");
    assert_eq!(c.by_log_p99[1].mark, "");
    assert_eq!(c.runs[1].mark(), "not faithful");
    assert_eq!(c.not_drive_bound, ["off: host-CPU-bound — CPU busy 97 %"]);
    let mut md = String::new();
    markdown(&mut md, &c);
    assert!(
        md.contains("| off | /var/tmp/drivebench-replay.dat | recorded |"),
        "{md}"
    );
    assert!(
        md.contains("**not faithful**: deviated: schedule lag p99"),
        "{md}"
    );
    assert!(
        md.contains("| 1 | off | 100 | leader | not faithful |"),
        "{md}"
    );
    assert!(md.contains("- off (not faithful): its latencies answer another load than the capture's: deviated: schedule lag"), "{md}");
    assert!(md.contains("these replays were not drive-bound"), "{md}");
    let mut html = String::new();
    super::replays::html(&mut html, &c);
    assert!(
        html.contains("<span class=\"fail\">not faithful</span>"),
        "{html}"
    );
}

#[test]
fn compare_takes_replay_only_runs() {
    let mut a = run(replay(SHA_A, "recorded", &[("log", vec![100; 10])]));
    let mut b = run(replay(SHA_A, "recorded", &[("log", vec![200; 10])]));
    a.started_at = "2026-12-02T10:00:00Z".into();
    b.started_at = "2026-12-02T11:00:00Z".into();
    let runs = vec![
        (Some("a".to_string()), "a".to_string(), a),
        (Some("b".to_string()), "b".to_string(), b),
    ];
    let c = crate::report::compare::compare(runs, false).unwrap();
    assert!(c.groups.is_empty());
    assert!(c.runs.iter().all(|e| !e.ranked && e.phase == "- (replay)"));
    let rc = c.replays.as_ref().unwrap();
    assert_eq!(rc.by_log_p99[0].label, "a");
    let md = crate::report::compare::markdown(&c);
    assert!(
        md.contains("| a | a | replay | 2026-12-02T10:00:00Z | - (replay) | yes |"),
        "{md}"
    );
    assert!(md.contains("## Replays"), "{md}");
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["replays"]["by_p99"][1]["label"], "b");
    assert!(crate::report::compare::html(&c).contains("<h2>Replays</h2>"));
}

#[test]
fn no_replay_no_section_and_unreadable_histograms_are_said() {
    let plain = crate::results::read_result(std::path::Path::new(
        "tests/data/compare/sweep_only_v1.json",
    ))
    .unwrap();
    assert_eq!(build(&[("s".into(), &plain)]), None);
    let mut bad = replay(SHA_A, "recorded", &[("log", vec![100; 10])]);
    bad.histograms
        .latency_by_class
        .insert("data".into(), "not base64!".into());
    let c = compare(&[("bad", run(bad))]);
    assert_eq!(c.runs[0].p99_us, None);
    assert!(
        c.runs[0].note.as_ref().unwrap().contains("class data"),
        "{:?}",
        c.runs[0].note
    );
    // One replay alone is listed, not ranked, and needs no reason.
    assert_eq!(c.not_ranked, None);
    assert!(c.rankings().is_empty());
}
