//! `drivebench merge` (issue 21): two hosts' runs of the same TPC-C scenario, started together
//! with `--start-at`, merged into one run directory: totals are the sum of the hosts', the
//! merged p99 is that of the hosts' histograms merged here independently, TPC-C's tpmC is
//! summed, the result validates against the schema and goes through `report` and `compare`;
//! runs of different workloads are refused unless `--force`.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::common::{bin, read_json, root, run, text, validate};
use serde_json::Value;

/// Start a TPC-C SQLite run (one warehouse, 1 s + 3 s) whose phases begin at `start_at`.
fn spawn_host(dir: &Path, name: &str, start_at: &str) -> (std::process::Child, PathBuf) {
    let out = dir.join(name);
    let child = bin()
        .args([
            "run",
            "scenarios/ci-tpcc-sqlite.toml",
            "--quiet",
            "--time-scale",
            "0.2",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--target")
        .arg(dir.join(format!("target-{name}")))
        .args(["--start-at", start_at])
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    (child, out)
}

fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

fn two_hosts(dir: &Path) -> (PathBuf, PathBuf) {
    let start_at = rfc3339(SystemTime::now() + Duration::from_secs(20));
    let (mut a, dir_a) = spawn_host(dir, "a", &start_at);
    let (mut b, dir_b) = spawn_host(dir, "b", &start_at);
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());
    for d in [&dir_a, &dir_b] {
        let r = read_json(&d.join("result.json"));
        assert_eq!(
            r["clock"]["start_at"]["requested"].as_str().unwrap()[..19],
            start_at[..19],
            "{}",
            r["clock"]
        );
    }
    (dir_a, dir_b)
}

fn merge(args: &[&str]) -> std::process::Output {
    run(&[&["merge"], args].concat())
}

fn p99_of_histograms_merged_here(hosts: &[&Value], phase: &str) -> f64 {
    let mut all = drivebench_core::histogram::new_histogram();
    for r in hosts {
        let p = r["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == phase)
            .unwrap();
        for i in p["per_instance"].as_array().unwrap() {
            let h = drivebench_core::histogram::decode(i["histogram"].as_str().unwrap()).unwrap();
            all.add(&h).unwrap();
        }
    }
    all.value_at_quantile(0.99) as f64 / 1000.0
}

#[test]
fn two_hosts_merge_into_one_run_with_exact_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_hosts(tmp.path());
    let marked = mark_intervals(&a);
    let out = tmp.path().join("merged");
    let (sa, sb, so) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let done = merge(&[
        sa,
        sb,
        "--out",
        so,
        "--label",
        &format!("db1={sa}"),
        "--label",
        &format!("db2={sb}"),
    ]);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    let m = read_json(&out.join("result.json"));
    validate("schemas/json/result.schema.json", &m);
    let (ra, rb) = (
        read_json(&a.join("result.json")),
        read_json(&b.join("result.json")),
    );
    let phase = |r: &Value| -> Value {
        r["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "sample")
            .unwrap()
            .clone()
    };
    let (pa, pb, pm) = (phase(&ra), phase(&rb), phase(&m));
    let tx = |p: &Value| p["summary"]["transactions"].as_u64().unwrap();
    assert_eq!(tx(&pm), tx(&pa) + tx(&pb));
    let f = |v: &Value| v.as_f64().unwrap();
    let tps = f(&pa["summary"]["tps"]) + f(&pb["summary"]["tps"]);
    assert!(
        (f(&pm["summary"]["tps"]) - tps).abs() < 1e-6 * tps,
        "{}",
        pm["summary"]
    );
    let tpmc = f(&pa["tpcc"]["tpmc"]) + f(&pb["tpcc"]["tpmc"]);
    assert!((f(&pm["tpcc"]["tpmc"]) - tpmc).abs() < 1e-6 * tpmc);
    let p99 = p99_of_histograms_merged_here(&[&ra, &rb], "sample");
    assert_eq!(f(&pm["summary"]["latency_ms"]["p99"]), p99);
    let names: Vec<&str> = pm["per_instance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["instance"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["db1/sqlite-1", "db2/sqlite-1"]);
    let merged = &m["merge"];
    assert_eq!(merged["hosts"].as_array().unwrap().len(), 2);
    // Hosts that were ready waited for the same instant; one that loaded past it started late,
    // and a skew beyond a report interval (1 s here) is then said.
    let waited = merged["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| f(&h["late_by_s"]) < 0.1);
    let skew = f(&merged["start_skew_s"]);
    if waited {
        assert!(skew < 0.5, "{merged}");
    }
    let said = m["warnings"].to_string().contains("started its phases");
    assert_eq!(said, skew > 1.0, "{}", m["warnings"]);
    let rows = merged["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["phase"] == "sample")
        .unwrap();
    assert_eq!(rows["hosts"][0]["transactions"].as_u64(), Some(tx(&pa)));
    assert!(f(&rows["common_window_s"]) > 0.0);
    // Each host's drive health stays its own; the merged phase has none of its own.
    for (host, run) in rows["hosts"].as_array().unwrap().iter().zip([&pa, &pb]) {
        assert_eq!(host["health"], run["health"], "{}", host["label"]);
        assert!(host["health"]["state"].is_string(), "{host}");
    }
    assert!(pm.get("health").is_none(), "{pm}");
    assert!(summary_has_health(&out), "the hosts' health in summary.md");
    // Each host's rows keep their interval marks: db1's as marked, db2's none.
    let merged_marks = |host: &str| -> Vec<Value> {
        (pm["series"].as_array().unwrap().iter())
            .filter(|r| r["instance"].as_str().unwrap().starts_with(host))
            .map(|r| r["drive_throttle"].clone())
            .collect()
    };
    assert_eq!(merged_marks("db1/"), marked);
    assert!(merged_marks("db2/").iter().all(Value::is_null));
    let section = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let line = format!(
        "The drive throttled (thermal) in 1 of {} intervals of sample (db1):",
        marked.len()
    );
    assert!(section.contains(&line), "{section}");
    assert!(!section.contains("of sample (db2)"), "{section}");
    let checks = m["checks"].as_array().unwrap();
    assert_eq!(checks.len(), ra["checks"].as_array().unwrap().len() * 2);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("## Hosts (merged run)") && summary.contains("| db2 |"),
        "{summary}"
    );
    // An ordinary run directory: `report` rebuilds it, `compare` takes it.
    std::fs::remove_file(out.join("summary.md")).unwrap();
    let rep = run(&["report", so]);
    assert_eq!(rep.status.code(), Some(0), "{}", text(&rep.stderr));
    assert!(out.join("summary.md").exists());
    let cmp = tmp.path().join("cmp");
    let c = run(&["compare", so, sa, "--out", cmp.to_str().unwrap()]);
    assert_eq!(c.status.code(), Some(0), "{}", text(&c.stderr));
    // The output directory now holds results: refused.
    let again = merge(&[sa, sb, "--out", so]);
    assert_eq!(again.status.code(), Some(2));
    refusals(tmp.path(), &a, &b);
}

/// Other workloads, bad labels, a single run: exit 2 with the reason; `--force` merges.
fn refusals(dir: &Path, a: &Path, b: &Path) {
    let other = dir.join("other");
    let q = common::run_quickstart("0.02", &other, &dir.join("t-q"), &[]);
    assert_eq!(q.status.code(), Some(0), "{}", text(&q.stderr));
    let (sa, sb, so) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        other.to_str().unwrap(),
    );
    let out = dir.join("m2");
    let o = out.to_str().unwrap();
    let refused = merge(&[sa, so, "--out", o]);
    let err = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("workload") && err.contains("--force"), "{err}");
    assert!(!out.exists());
    let forced = merge(&[sa, so, "--out", o, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(text(&forced.stderr).contains("merged with --force"));
    for (args, why) in [
        (vec![sa, "--out", "x"], "at least two"),
        (vec![sa, sb, "--out", "x", "--label", "db1"], "NAME=RUN_DIR"),
        (
            vec![sa, sb, "--out", "x", "--label", "a/b=x"],
            "without '/'",
        ),
        (
            vec![sa, sb, "--out", "x", "--label", "db1=/nowhere"],
            "not one of the run directories",
        ),
    ] {
        let r = merge(&args);
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        assert!(
            text(&r.stderr).contains(why),
            "{args:?}: {}",
            text(&r.stderr)
        );
    }
}

/// Mark host `dir`'s sample intervals as a drive with a health log would have: the first
/// throttled, the rest clear (one instance: one row per interval). The marks, in order.
fn mark_intervals(dir: &Path) -> Vec<Value> {
    let path = dir.join("result.json");
    let mut r = read_json(&path);
    let sample = (r["phases"].as_array_mut().unwrap().iter_mut())
        .find(|p| p["name"] == "sample")
        .unwrap();
    let mut marks = Vec::new();
    for (i, row) in sample["series"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        row["drive_throttle"] = if i == 0 { "throttled" } else { "clear" }.into();
        marks.push(row["drive_throttle"].clone());
    }
    assert!(marks.len() >= 2, "{sample}");
    std::fs::write(&path, r.to_string()).unwrap();
    marks
}

/// summary.md of a run directory has the drive health section, with a row or line per host.
fn summary_has_health(dir: &std::path::Path) -> bool {
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    summary
        .split("## Drive health")
        .nth(1)
        .is_some_and(|s| s.contains("(db1)") || s.contains("db1: drive health: no health log on"))
}
