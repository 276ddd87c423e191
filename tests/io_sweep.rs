//! A profile's curve on a real file: the uncontrolled max run, then paced points at
//! percentages of it, and the stop flag between points.

use std::sync::atomic::AtomicBool;

use drivebench::curve::CurveSpec;
use drivebench::io::sweep::{PointKind, SweepSpec, run_sweep};
use drivebench::io::{
    Arrivals, DirectTarget, EngineChoice, Region, TargetSpec, open_target, profile,
};
use drivebench::report::sweeps;
use drivebench::results::sweeps::SweepReport;

/// Rate and elapsed-time assertions hold on a 2-core machine only when the I/O threads of one
/// test do not share the cores with another's: the timed tests of this file run one at a time.
fn timed() -> std::sync::MutexGuard<'static, ()> {
    static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TIMED.lock().unwrap_or_else(|p| p.into_inner())
}
fn target(dir: &std::path::Path) -> DirectTarget {
    open_target(&TargetSpec::File {
        path: dir.join("target"),
        size_bytes: 64 << 20,
    })
    .expect("open file target")
}

fn spec(points: &[f64]) -> SweepSpec {
    SweepSpec {
        profile: profile("4k-random-write-128").unwrap().clone(),
        region: Region {
            start_fraction: 0.0,
            end_fraction: 0.25,
        },
        warmup_secs: 0.2,
        point_secs: 1.0,
        curve: CurveSpec {
            points_pct: points.to_vec(),
            stop_mean_ms: None,
            stop_p99_ms: None,
            slo_p99_ms: None,
            slo_steps: 0,
        },
        fixed_rate: None,
        arrivals: Arrivals::Uniform,
        engine: EngineChoice::Auto,
        submit_batch: 1,
        seed: 7,
        steady: None,
    }
}

#[test]
fn a_curve_runs_the_max_then_each_point_at_its_share_of_it() {
    let _one_at_a_time = timed();
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let t = target(dir.path());
    let mut seen = Vec::new();
    let r = run_sweep(&t, &spec(&[25.0, 50.0]), &AtomicBool::new(false), |p| {
        seen.push(p.kind)
    })
    .unwrap();
    assert_eq!(seen, [PointKind::Max, PointKind::Curve, PointKind::Curve]);
    assert_eq!(r.points.len(), 3);
    assert!(r.max_iops > 0.0 && !r.stopped_early);
    assert!(r.definition.contains("4 threads x 32 = 128 outstanding"));
    for (p, pct) in r.points[1..].iter().zip([25.0, 50.0]) {
        let target = r.max_iops * pct / 100.0;
        assert_eq!(p.target_pct, Some(pct));
        assert_eq!(p.result.target_iops, Some(target));
        // Well under the maximum the rate is held.
        let err = (p.result.iops - target).abs() / target;
        assert!(err < 0.03, "{pct} %: {} of {target} IOPS", p.result.iops);
        assert!(p.sustainable, "{pct} %: {:?}", p.result.backlog_end_ios);
    }

    // As result.json, sweeps.csv and report.html carry it.
    let report = SweepReport::from_result(&r);
    assert_eq!(report.points[0].kind, "max");
    assert_eq!(report.points[2].target_pct, Some(50.0));
    assert!(report.points[1].latency_us.p99 >= report.points[1].latency_us.p50);
    let csv = sweeps::csv(std::slice::from_ref(&report));
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(
        csv.lines()
            .nth(2)
            .unwrap()
            .starts_with("4k-random-write-128,curve,25.0,")
    );
    let json = serde_json::to_value(&report).unwrap();
    let back: SweepReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, report);
    let mut html = String::new();
    sweeps::html(&mut html, &[report]);
    assert!(html.contains("4k-random-write-128: latency vs IOPS") && html.contains("<svg"));
    assert_eq!(html.matches("<tr>").count(), 4, "header and three points");
}

#[test]
fn the_stop_flag_ends_the_sweep_after_the_current_point() {
    let _one_at_a_time = timed();
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let t = target(dir.path());
    let stop = AtomicBool::new(false);
    let r = run_sweep(&t, &spec(&[50.0, 80.0, 100.0]), &stop, |_| {
        stop.store(true, std::sync::atomic::Ordering::Relaxed)
    })
    .unwrap();
    assert!(r.stopped_early);
    assert_eq!(r.points.len(), 1, "only the max run");
}

#[test]
fn the_fill_writes_exactly_the_region_with_stamped_random_data() {
    let _one_at_a_time = timed();
    use drivebench::io::fill::{FillSpec, fill};
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let t = open_target(&TargetSpec::File {
        path: dir.path().join("target"),
        size_bytes: 16 << 20,
    })
    .unwrap();
    let region = Region {
        start_fraction: 0.25,
        end_fraction: 0.5,
    };
    let spec = FillSpec {
        passes: 2,
        threads: 3,
        ..FillSpec::new(region)
    };
    let r = fill(&t, &spec, &AtomicBool::new(false), |_| {}).unwrap();
    assert_eq!(r.bytes, 2 * (4 << 20));
    assert!(!r.stopped_early && r.mb_s > 0.0);
    let data = std::fs::read(dir.path().join("target")).unwrap();
    let (start, end) = (4 << 20, 8 << 20);
    assert!(
        data[..start].iter().all(|b| *b == 0),
        "nothing before the region"
    );
    assert!(data[end..].iter().all(|b| *b == 0), "nothing after it");
    for sector in (start..end).step_by(4096) {
        let stamp = u64::from_le_bytes(data[sector..sector + 8].try_into().unwrap());
        assert_eq!(stamp, sector as u64, "sector at {sector}");
        assert!(data[sector + 8..sector + 4096].iter().any(|b| *b != 0));
    }

    let stop = AtomicBool::new(true);
    let r = fill(&t, &FillSpec::new(region), &stop, |_| {}).unwrap();
    assert!(r.stopped_early && r.bytes == 0);
}

#[test]
fn steady_state_rounds_run_before_the_curve_until_the_rule_holds_or_the_cap() {
    let _one_at_a_time = timed();
    use drivebench::curve::steady::SteadyRule;
    use drivebench::io::sweep::SteadySpec;
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let t = target(dir.path());
    let mut s = spec(&[]);
    let rule = SteadyRule {
        window: 3,
        max_range_pct: 1000.0,
        max_slope_pct: 1000.0,
        max_rounds: 6,
    };
    s.steady = Some(SteadySpec {
        rule,
        round_secs: 0.3,
    });
    let mut rounds = 0;
    let r = run_sweep(&t, &s, &AtomicBool::new(false), |p| {
        rounds += usize::from(p.kind == PointKind::SteadyRound)
    })
    .unwrap();
    assert!(r.points.iter().all(|p| p.kind != PointKind::SteadyRound));
    let st = r.steady.unwrap();
    // A rule this loose holds at the first full window, each round reported as it ended.
    assert_eq!(st.rounds_iops.len(), 3);
    assert_eq!(rounds, 3);
    assert!(st.steady && st.window.unwrap().first_round == 0);

    // One that cannot hold stops at the cap, unsteady.
    s.steady = Some(SteadySpec {
        rule: SteadyRule {
            max_range_pct: -1.0,
            ..rule
        },
        round_secs: 0.3,
    });
    let st = run_sweep(&t, &s, &AtomicBool::new(false), |_| {})
        .unwrap()
        .steady
        .unwrap();
    assert_eq!(st.rounds_iops.len(), 6);
    assert!(!st.steady);
}
