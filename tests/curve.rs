//! Database load curves end to end on embedded SQLite through the CLI: `drivebench curve`
//! runs the scenario's phases then the curve, and the run directory holds `curves[]` in
//! result.json (valid against the committed schema), curves.csv, the summary.md section and
//! report.html's load-curve section (rendered in headless Chromium), all checked by
//! `common::curve`; a scenario without `[[curve]]` gets the default points; bad curve input
//! exits 2.

use crate::common::curve::check_curve_run;
use crate::common::{render_in_chromium, root, run, text};

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
    let result = check_curve_run(&out_dir, &[10.0, 50.0, 90.0], 20.0);
    let curve = &result["curves"][0];
    assert_eq!(
        curve["points"][1]["per_instance"][0]["instance"],
        "sqlite-1"
    );
    assert!(curve["points"][1]["total"]["backlog"]["sustainable"].is_boolean());
    // Every point says what limited it, from the drive's and the host's figures over its span;
    // a paced point counts its clients' late starts, the closed-loop max run does not.
    for p in curve["points"].as_array().unwrap() {
        let t = &p["telemetry"];
        let bound = t["verdict"]["bound"].as_str().unwrap_or_default();
        assert!(
            ["drive", "host_cpu", "client", "unclear"].contains(&bound),
            "{t}"
        );
        assert!(
            t["summary"]["cpu"]["busy_pct"].as_f64().unwrap() > 0.0,
            "{t}"
        );
        assert!(
            (t["derived"]["tps"].as_f64().unwrap() - p["total"]["achieved_tps"].as_f64().unwrap())
                .abs()
                < 1e-6
        );
    }
    let summary = std::fs::read_to_string(out_dir.join("summary.md")).unwrap();
    assert!(
        summary.contains("What limited each point:\n\n- max: **"),
        "{summary}"
    );
    // --quiet still prints the answer.
    let stderr = text(&out.stderr) + &stdout;
    assert!(stderr.contains("max TPS at p99 <= 20 ms: "), "{stderr}");
    let html = out_dir.join("report.html");
    // The overview charts (TPS, latency, the drive's operations, throughput and await, host
    // CPU), the distribution of the recorded precondition, the engine's I/O latency beside the
    // drive's await (SQLite's counting VFS times its syncs and reads), and the curve.
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<svg").count(), 9);
    assert!(
        page.contains("<ul class=\"limits\"><li><b>max: "),
        "no point verdicts"
    );
    render_in_chromium(&html, tmp.path());
}

/// A curve's points are results of their own: a run whose only phase is an unrecorded
/// precondition is accepted and reports its curve.
#[test]
fn a_curve_after_an_unrecorded_precondition_is_the_run_s_result() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let target = tmp.path().join("target");
    let scenario = root().join("scenarios/ci-curve-sqlite.toml");
    let args = |cmd: &'static str| {
        [
            cmd.to_string(),
            scenario.display().to_string(),
            "--set".into(),
            "phase.precondition.record=false".into(),
            "--out".into(),
            out_dir.display().to_string(),
            "--target".into(),
            target.display().to_string(),
            "--quiet".into(),
        ]
    };
    let argv = args("run");
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = check_curve_run(&out_dir, &[10.0, 50.0, 90.0], 20.0);
    assert_eq!(result["phases"][0]["recorded"], false);
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
