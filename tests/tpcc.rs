//! TPC-C end to end on embedded SQLite: a throughput-mode run writes per-kind figures, the
//! TPC-C object of the recorded phase (tpmC matching the schema's NOPM, the mix, the
//! response-time limits) and consistency checks that all pass; result.json matches the
//! committed schema; a second run reuses the load; the full-scale review protocol plans.

use crate::common;

use crate::common::needs::need;
use crate::common::{bin, read_json, root, run, text};

fn run_ci_tpcc(
    scale: &str,
    out: &std::path::Path,
    target: &std::path::Path,
) -> std::process::Output {
    bin()
        .args([
            "run",
            "scenarios/ci-tpcc-sqlite.toml",
            "--quiet",
            "--time-scale",
            scale,
        ])
        .arg("--out")
        .arg(out)
        .arg("--target")
        .arg(target)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn a_throughput_run_on_sqlite_reports_per_kind_figures_and_passes_the_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("target");
    let out = run_ci_tpcc("1", &tmp.path().join("run"), &target);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = read_json(&tmp.path().join("run/result.json"));
    let schema = read_json(&root().join("schemas/json/result.schema.json"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&result),
        "result.json matches its schema"
    );
    assert_eq!(result["plan"]["workload"]["benchmark"], "tpcc");
    assert!(result["plan"]["workload"].get("sysbench").is_none());

    let sample = &result["phases"][1];
    assert_eq!(sample["recorded"], true);
    assert!(
        result["phases"][0].get("tpcc").is_none(),
        "recorded phases only"
    );
    let kinds: Vec<&str> = sample["summary"]["per_kind"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "new_order",
            "payment",
            "order_status",
            "delivery",
            "stock_level"
        ]
    );
    let new_order = &sample["summary"]["per_kind"][0];
    let (n, rolled_back) = (
        new_order["transactions"].as_u64().unwrap(),
        new_order["rolled_back"].as_u64().unwrap(),
    );
    assert!(n > 500, "{n} New-Orders");
    // 1 % roll back by their inputs (about 5 of 500 at the least): counted, not errors.
    assert!(
        rolled_back > 0 && rolled_back * 20 < n,
        "{rolled_back} of {n}"
    );
    assert_eq!(sample["summary"]["errors"], 0);

    let t = &sample["tpcc"];
    let seconds = sample["summary"]["seconds"].as_f64().unwrap();
    // tpmC counts every completed New-Order, the 1 % rolled back included (the spec's rule);
    // the committed-only figure beside it is HammerDB's and BenchBase's.
    let tpmc = t["tpmc"].as_f64().unwrap();
    assert!((tpmc - n as f64 * 60.0 / seconds).abs() < 1e-6);
    let committed = t["tpmc_committed"].as_f64().unwrap();
    assert!((committed - (n - rolled_back) as f64 * 60.0 / seconds).abs() < 1e-6);
    // The schema's count of new orders agrees with the clients' to the boundaries' in-flight
    // transactions.
    let nopm = t["nopm"].as_f64().unwrap();
    assert!(
        (nopm / committed - 1.0).abs() < 0.02,
        "NOPM {nopm} vs committed New-Orders per minute {committed}"
    );
    // Four terminals on one warehouse never find a district without a new order to deliver
    // (900 outstanding per district at load, about as many added as delivered).
    // No level asked: SQLite's own, read back from a session.
    assert_eq!(t["isolation"][0]["level"], "serializable", "{t}");
    assert_eq!(t["isolation"][0]["consistent_reads"], true);
    let skips = &t["delivery_skips"];
    assert_eq!(
        skips["deliveries"],
        sample["summary"]["per_kind"][3]["transactions"]
    );
    assert_eq!(skips["skipped_districts"], 0, "{skips}");
    assert_eq!(skips["over_limit"], false);
    assert!(
        t["efficiency_pct"].is_null(),
        "throughput mode has no efficiency"
    );
    assert_eq!(t["passed"], true, "{t}");
    assert!(
        t["deviations"][0]
            .as_str()
            .unwrap()
            .contains("throughput mode")
    );
    // Four terminals in throughput mode deal dozens of whole decks in 15 s: the minimums are
    // judged over those, exactly.
    assert_eq!(t["mix_method"], "spec");
    assert_eq!(t["mix_judged_over"], "whole_decks", "{t}");
    let decks = sample["summary"]["whole_decks"].as_u64().unwrap();
    assert!(decks >= 4, "{decks} whole decks");
    assert_eq!(
        sample["summary"]["per_kind"][1]["in_whole_decks"].as_u64(),
        Some(43 * decks)
    );
    assert_eq!(t["mix"][1]["judged_pct"].as_f64(), Some(43.0));
    let checks = result["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 13, "{checks:?}");
    assert!(checks.iter().all(|c| c["passed"] == true), "{checks:?}");
    let summary = std::fs::read_to_string(tmp.path().join("run/summary.md")).unwrap();
    assert!(
        summary.contains("TPC-C-like (not audited): tpmC"),
        "{summary}"
    );
    assert!(summary.contains("13 of 13 passed"), "{summary}");

    // The same plan again on the same target: the finished load is reused.
    let out = run_ci_tpcc("0.2", &tmp.path().join("run2"), &target);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let again = read_json(&tmp.path().join("run2/result.json"));
    assert_eq!(again["instances"][0]["load"]["reused"], true);
    assert!(
        again["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["passed"] == true)
    );
}

#[test]
fn a_hammerdb_mix_run_draws_new_order_near_10_of_23_and_says_so_beside_tpmc() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::run_scenario(
        "scenarios/ci-tpcc-sqlite.toml",
        "0.5",
        &tmp.path().join("run"),
        &tmp.path().join("target"),
        &["workload.mix=hammerdb"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = read_json(&tmp.path().join("run/result.json"));
    assert_eq!(result["plan"]["workload"]["tpcc"]["mix"], "hammerdb");
    let sample = &result["phases"][1];
    let t = &sample["tpcc"];
    assert_eq!(t["mix_method"], "hammerdb");
    assert_eq!(t["mix_judged_over"], "all_transactions");
    assert!(sample["summary"].get("whole_decks").is_none(), "no decks");
    let n = sample["summary"]["transactions"].as_u64().unwrap();
    let share = t["new_order_pct"].as_f64().unwrap();
    assert!(n > 1000, "{n} transactions");
    // 10/23 = 43.48 %; the deck's 45 % is more than three standard deviations away at this n.
    assert!((share - 43.48).abs() < 2.0, "New-Order {share} % of {n}");
    assert!(
        t["deviations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.as_str().unwrap().starts_with("mix = \"hammerdb\"")),
        "{t}"
    );
    let summary = std::fs::read_to_string(tmp.path().join("run/summary.md")).unwrap();
    let headline = format!("mix hammerdb random draw 10/10/1/1/1, New-Order {share:.1} %");
    assert!(summary.contains(&headline), "{summary}");
    assert!(summary.contains("over all"), "{summary}");
    let html = std::fs::read_to_string(tmp.path().join("run/report.html")).unwrap();
    assert!(html.contains(&headline), "report.html shows the mix");
    println!("hammerdb mix: New-Order {share:.2} % of {n} transactions");
}

#[test]
fn the_full_scale_review_protocol_plans_with_its_size_and_connections() {
    need!(Mariadb);
    let out = run(&["plan", "scenarios/storagereview-tpcc-mysql.toml"]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        s.contains("1500 warehouses, 15000 virtual users per instance, spec pacing"),
        "{s}"
    );
    assert!(s.contains("mix spec deck 45/43/4/4/4"), "{s}");
    assert!(
        s.contains("1000 connections per instance shared by the 15000 clients"),
        "{s}"
    );
    assert!(s.contains("+2h30m") && s.contains("+3h"), "{s}");
    // ~100 MB per warehouse: 1,500 warehouses are well over 100 GiB per instance.
    assert!(s.contains("153.7 GiB per instance"), "{s}");
    assert!(s.contains("on the client side"), "{s}");
    assert!(
        !s.contains("throughput mode") && !s.contains("terminals_per_warehouse ="),
        "the review protocol is spec-paced: {s}"
    );
    assert!(s.contains("non-spec: Delivery runs in the terminal"), "{s}");
}
