//! Database load curves end to end on embedded SQLite through the CLI: `drivebench curve`
//! runs the scenario's phases then the curve, and the run directory holds `curves[]` in
//! result.json (valid against the committed schema), curves.csv and the summary.md section;
//! a scenario without `[[curve]]` gets the default points; bad curve input exits 2.

mod common;

use common::{read_json, root, run, text};

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_sqlite_curve_runs_its_points_and_reports_them_with_the_slo() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let target = tmp.path().join("target");
    let scenario = root().join("scenarios/ci-curve-sqlite.toml");
    let out = run(&[
        "curve",
        scenario.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "--quiet",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        text(&out.stderr),
        stdout
    );
    let result = read_json(&out_dir.join("result.json"));
    let schema = read_json(&root().join("schemas/json/result.schema.json"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&result)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");

    let curve = &result["curves"][0];
    let points = curve["points"].as_array().unwrap();
    let kinds: Vec<&str> = points.iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert_eq!(
        &kinds[..4],
        &["max", "curve", "curve", "curve"],
        "{kinds:?}"
    );
    assert!(kinds[4..].iter().all(|k| *k == "slo"), "{kinds:?}");
    let peak = f(&curve["peak_tps"]);
    assert!(peak > 0.0);
    assert_eq!(f(&points[0]["total"]["achieved_tps"]), peak);
    for (p, pct) in points[1..4].iter().zip([10.0, 50.0, 90.0]) {
        assert_eq!(f(&p["pct"]), pct);
        let target = f(&p["total"]["target_tps"]);
        assert!((target - peak * pct / 100.0).abs() < 1e-6 * peak, "{p}");
        let achieved = f(&p["total"]["achieved_tps"]);
        assert!(achieved > 0.0 && achieved < peak * 1.5, "{p}");
        let lat = &p["total"]["latency_ms"];
        assert!(f(&lat["p99"]) >= f(&lat["p50"]) && f(&lat["max"]) >= f(&lat["p99"]));
        assert!(p["total"]["backlog"]["sustainable"].is_boolean());
        assert_eq!(p["per_instance"][0]["instance"], "sqlite-1");
    }
    assert_eq!(f(&curve["slo"]["p99_ms"]), 20.0);
    assert_eq!(curve["completed"], true);

    let csv = std::fs::read_to_string(out_dir.join("curves.csv")).unwrap();
    assert!(csv.starts_with("kind,pct,instance,"));
    // a total and a per-instance row for each point
    assert_eq!(csv.lines().count(), 1 + 2 * points.len(), "{csv}");
    let summary = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    assert!(summary.contains("## Load curve"), "{summary}");
    assert!(summary.contains("max TPS at p99 <= 20 ms"), "{summary}");
}

#[test]
fn plan_prints_the_curve_and_bad_curve_input_exits_2() {
    let scenario = root().join("scenarios/ci-curve-sqlite.toml");
    let out = run(&["plan", scenario.to_str().unwrap()]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        s.contains("curve max") && s.contains("open model at 10, 50, 90 % of the peak"),
        "{s}"
    );
    assert!(
        s.contains("at most 2 bisection steps for max TPS at p99 <= 20 ms"),
        "{s}"
    );

    // A TPC-C scenario under spec pacing cannot take the default curve either.
    let tpcc = root().join("scenarios/ci-tpcc-sqlite.toml");
    let out = run(&[
        "curve",
        tpcc.to_str().unwrap(),
        "--set",
        "workload.pacing=spec",
        "--set",
        "workload.clients=10",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("workload.pacing = \"none\""), "{err}");
}
