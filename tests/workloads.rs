//! Every sysbench test runs end to end on SQLite; an open-model rate is held; a runtime
//! failure exits 1 and still leaves a result.json.

use crate::common::{read_json, run_quickstart, text};

fn quick_run(
    sets: &[&str],
    time_scale: &str,
) -> (std::process::Output, serde_json::Value, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let out = run_quickstart(time_scale, &out_dir, &tmp.path().join("target"), sets);
    let result = if out_dir.join("result.json").exists() {
        read_json(&out_dir.join("result.json"))
    } else {
        serde_json::Value::Null
    };
    (out, result, tmp)
}

#[test]
fn every_sysbench_test_runs_with_its_statement_mix() {
    // (test, reads, writes, other) per transaction with sysbench's defaults
    let cases = [
        ("oltp_read_write", 14, 4, 2),
        ("oltp_read_only", 14, 0, 2),
        ("oltp_write_only", 0, 4, 2),
        ("oltp_point_select", 1, 0, 0),
        ("oltp_update_index", 0, 1, 0),
        ("oltp_update_non_index", 0, 1, 0),
        ("oltp_insert", 0, 1, 0),
        ("oltp_delete", 0, 1, 0),
    ];
    for (test, r, w, o) in cases {
        let set = format!("workload.test={test}");
        let (out, result, _tmp) = quick_run(
            &[&set, "workload.table_size=1000", "workload.clients=2"],
            "0.02",
        );
        assert_eq!(out.status.code(), Some(0), "{test}: {}", text(&out.stderr));
        let s = &result["phases"][1]["summary"];
        let tx = s["transactions"].as_u64().unwrap();
        assert!(tx > 0, "{test} ran no transaction");
        let q = &s["queries"];
        assert_eq!(
            (
                q["reads"].as_u64().unwrap(),
                q["writes"].as_u64().unwrap(),
                q["other"].as_u64().unwrap()
            ),
            (tx * r, tx * w, tx * o),
            "{test}"
        );
    }
}

#[test]
fn an_open_model_rate_is_held_and_latency_counts_from_the_intended_start() {
    let (out, result, _tmp) = quick_run(
        &[
            "workload.rate=300",
            "workload.clients=4",
            "phase.0.duration=1s",
            "phase.1.duration=10s",
        ],
        "1",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = &result["phases"][1]["summary"];
    let tps = s["tps"].as_f64().unwrap();
    assert!((tps - 300.0).abs() / 300.0 < 0.06, "tps {tps} at rate 300");
    // response time (from the intended start) is never below service time
    assert!(s["latency_ms"]["avg"].as_f64().unwrap() >= s["service_ms"]["avg"].as_f64().unwrap());
    assert_eq!(result["plan"]["workload"]["rate"], 300.0);
}

#[test]
fn a_runtime_failure_exits_1_and_keeps_a_result() {
    // prepare = never on an empty target: the load step fails after the run directory exists
    let (out, result, _tmp) = quick_run(&["workload.prepare=never"], "0.02");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("prepare = \"never\""),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(result["complete"], false);
    assert_eq!(result["status"], "failed");
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("no data has been loaded")
    );
}

#[test]
fn identical_instances_run_side_by_side_and_total_as_the_reviews_do() {
    let (out, result, tmp) = quick_run(&["instance.0.count=2", "workload.clients=2"], "0.05");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(tmp.path().join("target/sqlite-1/drivebench.db").exists());
    assert!(tmp.path().join("target/sqlite-2/drivebench.db").exists());
    let sample = &result["phases"][1];
    let per: Vec<&serde_json::Value> = sample["per_instance"].as_array().unwrap().iter().collect();
    assert_eq!(
        per.iter()
            .map(|p| p["instance"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["sqlite-1", "sqlite-2"]
    );
    let tx: u64 = per
        .iter()
        .map(|p| p["summary"]["transactions"].as_u64().unwrap())
        .sum();
    assert_eq!(
        sample["summary"]["transactions"].as_u64().unwrap(),
        tx,
        "totals add up"
    );
    let tps: f64 = per
        .iter()
        .map(|p| p["summary"]["tps"].as_f64().unwrap())
        .sum();
    assert!(
        (sample["summary"]["tps"].as_f64().unwrap() - tps).abs() < 1e-6,
        "TPS is the sum"
    );
    let mean_p99 = per
        .iter()
        .map(|p| p["summary"]["latency_ms"]["p99"].as_f64().unwrap())
        .sum::<f64>()
        / 2.0;
    assert!(
        (sample["mean_of_instances"]["latency_p99_ms"]
            .as_f64()
            .unwrap()
            - mean_p99)
            .abs()
            < 1e-9
    );
    assert!(
        sample["mean_of_instances"]["label"]
            .as_str()
            .unwrap()
            .contains("mean of per-instance")
    );
    let series = sample["series"].as_array().unwrap();
    assert!(
        series.iter().any(|r| r["instance"] == "sqlite-2"),
        "series rows per instance"
    );
}
