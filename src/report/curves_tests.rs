//! The load-curve report pieces under test: a synthetic two-instance curve (`sample_curve`,
//! also used by report.html's tests) and the per-instance SLO figures read off it.

use super::curves::*;
use crate::metrics::summary::Latency;
use crate::results::curves::*;
use drivebench_core::curve::SloResult;
use drivebench_core::curve::backlog::Backlog;

/// A synthetic curve for the report tests: peak 500 TPS per instance; the first instance keeps
/// p99 at 4 + pct/5 ms, the second at 2 + pct/10 ms; 110 % falls behind; an SLO step at 70 %;
/// total p99 the worse instance's; objective 20 ms (met at 70 %, missed at 90 %).
pub(crate) fn sample_curve(instances: &[&str]) -> CurveReport {
    let fig = |target: Option<f64>, p99: f64, sustainable: bool| {
        let achieved = target.map_or(500.0, |t| if sustainable { t } else { t * 0.8 });
        PointFigures {
            target_tps: target,
            achieved_tps: achieved,
            transactions: (achieved * 10.0) as u64,
            latency_ms: Latency {
                avg: p99 / 3.0,
                p50: p99 / 4.0,
                p95: p99 * 0.8,
                p99,
                max: p99 * 2.0,
                ..Latency::default()
            },
            service_ms: Latency {
                p99: p99 / 2.0,
                ..Latency::default()
            },
            errors: 0,
            backlog: target.map(|t| Backlog::judge(t, 10.0, (achieved * 10.0) as u64, 1.0, 1.0)),
            sustainable,
        }
    };
    let steps = [
        (PointKind::Max, None),
        (PointKind::Curve, Some(10.0)),
        (PointKind::Curve, Some(50.0)),
        (PointKind::Curve, Some(90.0)),
        (PointKind::Curve, Some(110.0)),
        (PointKind::Slo, Some(70.0)),
    ];
    let points = steps
        .iter()
        .map(|&(kind, pct)| {
            let ok = pct.is_none_or(|p| p <= 100.0);
            let p99s = match pct {
                None => [45.0, 30.0],
                Some(_) if !ok => [50.0, 40.0],
                Some(p) => [4.0 + p / 5.0, 2.0 + p / 10.0],
            };
            let per_instance: Vec<InstancePoint> = instances
                .iter()
                .zip(p99s)
                .map(|(name, p99)| InstancePoint {
                    instance: name.to_string(),
                    figures: fig(pct.map(|p| 5.0 * p), p99, ok),
                })
                .collect();
            let n = per_instance.len() as f64;
            let p99s = per_instance.iter().map(|i| i.figures.latency_ms.p99);
            let worst = p99s.fold(0.0, f64::max);
            CurvePoint {
                kind,
                pct,
                seconds: 10.0,
                total: PointFigures {
                    target_tps: pct.map(|p| 5.0 * p * n),
                    achieved_tps: per_instance.iter().map(|i| i.figures.achieved_tps).sum(),
                    ..fig(pct.map(|p| 5.0 * p * n), worst, ok)
                },
                per_instance,
                telemetry: None,
                engine_io: None,
            }
        })
        .collect();
    CurveReport {
        peak_tps: 500.0 * instances.len() as f64,
        points,
        slo: Some(SloResult {
            p99_ms: 20.0,
            max_rate: Some(350.0 * instances.len() as f64),
            first_miss_rate: Some(450.0 * instances.len() as f64),
        }),
        slo_per_instance: Vec::new(),
        completed: true,
    }
}

#[test]
fn each_instance_gets_its_highest_rate_within_the_objective_and_the_miss_above_it() {
    let c = sample_curve(&["a", "b"]);
    let per = instance_slo(&c.points, 20.0);
    let got: Vec<(&str, Option<f64>, Option<f64>)> = per
        .iter()
        .map(|i| (i.instance.as_str(), i.slo.max_rate, i.slo.first_miss_rate))
        .collect();
    // a: the 70 % step (18 ms) met, 90 % (22 ms) missed; b: 90 % (p99 11 ms) met, 110 %
    // fell behind; the max run (closed loop) counts for neither.
    assert_eq!(
        got,
        vec![
            ("a", Some(350.0), Some(450.0)),
            ("b", Some(450.0), Some(550.0))
        ]
    );
    assert!(per.iter().all(|i| i.slo.p99_ms == 20.0));
    // Met everywhere below the knee, nowhere at all:
    let loose = instance_slo(&c.points, 1000.0);
    assert_eq!(loose[0].slo.first_miss_rate, Some(550.0), "unsustainable");
    let tight = instance_slo(&c.points, 1.0);
    assert_eq!(
        (tight[1].slo.max_rate, tight[1].slo.first_miss_rate),
        (None, Some(50.0))
    );
}

#[test]
fn one_instance_has_no_separate_figure_and_the_markdown_lists_them_when_present() {
    let one = sample_curve(&["a"]);
    assert!(instance_slo(&one.points, 20.0).is_empty());
    let mut two = sample_curve(&["a", "b"]);
    two.slo_per_instance = instance_slo(&two.points, 20.0);
    let mut md = String::new();
    markdown(&mut md, &[two]);
    assert!(
        md.contains("max TPS at p99 <= 20 ms: 700.0 (lowest target that missed 900.0 TPS)"),
        "{md}"
    );
    assert!(
        md.contains("- a: max TPS at p99 <= 20 ms: 350.0 (lowest target that missed 450.0 TPS)"),
        "{md}"
    );
}
