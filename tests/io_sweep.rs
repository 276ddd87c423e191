//! A profile's curve on a real file: the uncontrolled max run, then paced points at
//! percentages of it, and the stop flag between points.

use std::sync::atomic::AtomicBool;

use drivebench::io::sweep::{PointKind, SweepSpec, run_sweep};
use drivebench::io::{Arrivals, DirectTarget, Region, TargetSpec, open_target, profile};
use drivebench::protocol::curve::CurveSpec;

fn target(dir: &std::path::Path) -> DirectTarget {
    open_target(&TargetSpec::File {
        path: dir.join("target"),
        size_bytes: 64 << 20,
    })
    .expect("open file target")
}

fn spec(points: &[f64]) -> SweepSpec {
    SweepSpec {
        profile: *profile("4k-random-write-128").unwrap(),
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
        arrivals: Arrivals::Uniform,
        seed: 7,
    }
}

#[test]
fn a_curve_runs_the_max_then_each_point_at_its_share_of_it() {
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
}

#[test]
fn the_stop_flag_ends_the_sweep_after_the_current_point() {
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
