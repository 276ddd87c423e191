//! A database phase with `until = "steady"` on embedded SQLite through the CLI: with a rule
//! the run meets, the precondition ends before its maximum and the sample starts at once;
//! with one no real run meets, it runs to its maximum and says it was not steady. Bad steady
//! input exits 2 naming the key.

use std::path::Path;

use crate::common::{read_json, run_quickstart, text, validate};

/// The quickstart with 1 s reports, a steady precondition of at most `max` and 1 s rounds
/// judged by `rule` (window, range %, slope %), then a 2 s sample.
fn steady_run(dir: &Path, max: &str, (window, range, slope): (u32, f64, f64)) -> serde_json::Value {
    let sets = [
        "report_interval=1s".to_string(),
        "phase.precondition.until=steady".into(),
        format!("phase.precondition.duration={max}"),
        "phase.precondition.steady.round=1s".into(),
        format!("phase.precondition.steady.window={window}"),
        format!("phase.precondition.steady.max_range_pct={range}"),
        format!("phase.precondition.steady.max_slope_pct={slope}"),
        "phase.sample.duration=2s".into(),
        "workload.table_size=2000".into(),
    ];
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    let out_dir = dir.join("run");
    let out = run_quickstart("1", &out_dir, &dir.join("target"), &sets);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = read_json(&out_dir.join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    result
}

#[test]
fn a_steady_precondition_ends_before_its_maximum_and_the_sample_follows_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    // Range and slope within 1000 % of the average: any three rounds with transactions meet it.
    let r = steady_run(tmp.path(), "60s", (3, 1000.0, 1000.0));
    let pre = &r["phases"][0];
    let steady = &pre["steady"];
    assert_eq!(steady["outcome"]["state"], "reached", "{steady}");
    let after = steady["outcome"]["after_s"].as_f64().unwrap();
    assert!((2.5..30.0).contains(&after), "steady after {after} s");
    assert_eq!(steady["rounds_tps"].as_array().unwrap().len(), 3);
    assert_eq!(steady["outcome"]["window"]["first_round"], 0);
    assert_eq!(pre["completed"], true);
    // The sample moved up: it starts where the precondition ended, not at 60 s.
    let sample_start = r["phases"][1]["start_offset_s"].as_f64().unwrap();
    assert!(
        (sample_start - pre["summary"]["seconds"].as_f64().unwrap()).abs() < 0.5,
        "sample at {sample_start} s"
    );
    assert!(r["phases"][1]["steady"].is_null());
    let summary = std::fs::read_to_string(tmp.path().join("run/summary.md")).unwrap();
    assert!(summary.contains("Steady state: steady after "), "{summary}");
}

#[test]
fn a_precondition_that_never_steadies_runs_to_its_maximum_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    // A range of 0.0001 %: no two real rounds of transactions are that close.
    let r = steady_run(tmp.path(), "4s", (2, 0.0001, 0.0001));
    let pre = &r["phases"][0];
    let steady = &pre["steady"];
    assert_eq!(steady["outcome"]["state"], "not_reached", "{steady}");
    assert_eq!(steady["rounds_tps"].as_array().unwrap().len(), 4);
    let last = &steady["outcome"]["last_window"];
    assert_eq!(last["first_round"], 2, "{last}");
    assert_eq!(last["steady"], false);
    assert!(pre["summary"]["seconds"].as_f64().unwrap() >= 3.9);
    assert!(r["phases"][1]["start_offset_s"].as_f64().unwrap() >= 3.9);
    let summary = std::fs::read_to_string(tmp.path().join("run/summary.md")).unwrap();
    assert!(
        summary.contains("Steady state: not steady by its end"),
        "{summary}"
    );
}

#[test]
fn bad_steady_input_exits_2_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["phase.precondition.steady.window=3"], "phase[0].steady"),
        (
            &[
                "phase.precondition.until=steady",
                "phase.precondition.steady.round=7s",
            ],
            "phase[0].steady.round",
        ),
        (
            &[
                "phase.precondition.until=steady",
                "phase.precondition.duration=2m",
            ],
            "phase[0].duration",
        ),
        (&["phase.precondition.until=soon"], "phase[0].until"),
    ];
    for (sets, key) in cases {
        let out = run_quickstart("1", &tmp.path().join("run"), &tmp.path().join("t"), sets);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{sets:?}: {err}");
        assert!(err.contains(key), "{sets:?} should name {key}: {err}");
    }
}
