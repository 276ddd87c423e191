//! `drivebench compare` on fixed result.json fixtures (tests/data/compare/): the ranking
//! (golden compare.md), the files it writes, labels, and refusal of incomparable runs.

use crate::common;

use crate::common::{root, run, text};

const A: &str = "tests/data/compare/a.json";
const B: &str = "tests/data/compare/b.json";

#[test]
fn two_quickstart_runs_are_ranked_as_the_golden_file_says() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("cmp");
    let out = run(&[
        "compare",
        A,
        B,
        "--label",
        &format!("eight clients={A}"),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let golden = std::fs::read_to_string(root().join("tests/data/compare/expected.md")).unwrap();
    assert_eq!(text(&out.stdout), golden);
    assert_eq!(
        std::fs::read_to_string(out_dir.join("compare.md")).unwrap(),
        golden
    );
    let json = common::read_json(&out_dir.join("compare.json"));
    assert_eq!(json["groups"][0]["tps"][0]["label"], "vda 256.0 GiB");
    assert_eq!(json["groups"][0]["tps"][1]["label"], "eight clients");
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("eight clients"));
    assert!(!html.to_lowercase().contains("http"));
}

#[test]
fn runs_of_different_workloads_are_refused_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let mut other = common::read_json(&root().join(B));
    other["plan"]["workload"]["sysbench"]["table_size"] = 20_000.into();
    let c = tmp.path().join("c.json");
    std::fs::write(&c, serde_json::to_string(&other).unwrap()).unwrap();
    let out_dir = tmp.path().join("cmp");
    let args = |force: bool| {
        let mut v = vec![
            "compare".to_string(),
            A.into(),
            c.display().to_string(),
            "--out".into(),
            out_dir.display().to_string(),
        ];
        if force {
            v.push("--force".into());
        }
        v
    };
    let refused = run(&args(false).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(refused.status.code(), Some(2));
    let err = text(&refused.stderr);
    assert!(
        err.contains("different workloads") && err.contains("20000 rows"),
        "{err}"
    );
    assert!(!out_dir.exists(), "nothing written");
    let forced = run(&args(true).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(text(&forced.stderr).contains("warning: the runs measure different workloads"));
    assert!(text(&forced.stdout).contains("Compared with --force"));
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        vec!["compare", A],
        vec!["compare", A, "tests/data/compare/missing.json"],
        vec!["compare", A, B, "--label", "x=tests/data/compare/none.json"],
        vec!["compare", A, B, "--label", "no-equals-sign"],
    ] {
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains("error"), "{args:?}");
    }
}

const TPCC_A: &str = "tests/data/compare/tpcc_a.json";
const TPCC_B: &str = "tests/data/compare/tpcc_b.json";

#[test]
fn two_tpcc_runs_are_ranked_by_tpmc_with_per_kind_tails_as_the_golden_file_says() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("cmp");
    let out = run(&[
        "compare",
        TPCC_A,
        TPCC_B,
        "--label",
        &format!("four terminals={TPCC_A}"),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let golden =
        std::fs::read_to_string(root().join("tests/data/compare/expected_tpcc.md")).unwrap();
    assert_eq!(text(&out.stdout), golden);
    let json = common::read_json(&out_dir.join("compare.json"));
    let a = common::read_json(&root().join(TPCC_A));
    let tpmc = a["phases"][0]["tpcc"]["tpmc"].as_f64().unwrap();
    assert_eq!(json["groups"][0]["tpmc"][0]["label"], "four terminals");
    assert_eq!(json["groups"][0]["tpmc"][0]["value"].as_f64(), Some(tpmc));
    assert_eq!(
        json["runs"][0]["tpcc"]["per_kind"][4]["p99_ms"],
        a["phases"][0]["summary"]["per_kind"][4]["latency_ms"]["p99"]
    );
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    for needle in [
        "<h3>tpmC, TPC-C-like (higher is better)</h3>",
        "<h3>TPC-C-like figures (not audited)</h3>",
        "<h3>p90 / p99 response time per kind, ms (lower is better)</h3>",
        &format!("<td>four terminals</td><td>{tpmc:.0}</td>"),
        "<td>stock_level</td>",
    ] {
        assert!(html.contains(needle), "{needle} missing");
    }
    assert!(
        !text(&out.stdout).contains("differ in mix"),
        "both runs dealt the spec's deck"
    );
    // A sysbench comparison has none of it.
    let sysbench = tmp.path().join("sysbench");
    let out = run(&["compare", A, B, "--out", sysbench.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("tpmC"));
    let json = common::read_json(&sysbench.join("compare.json"));
    assert!(json["groups"][0].get("tpmc").is_none());
    assert!(json["runs"][0].get("tpcc").is_none());
}

#[test]
fn a_tpcc_run_and_a_sysbench_run_are_refused_as_different_workloads() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("cmp");
    let out = run(&["compare", A, TPCC_A, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("different workloads")
            && err.contains("tpcc with 1 warehouses")
            && err.contains("sysbench oltp_read_write"),
        "{err}"
    );
    assert!(!out_dir.exists(), "nothing written");
}

/// A copy of fixture `from` whose last recorded phase carries a telemetry verdict `bound`.
fn with_verdict(from: &str, bound: &str, dir: &std::path::Path) -> String {
    let mut r = common::read_json(&root().join(from));
    let phase = r["phases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .rev()
        .find(|p| p["recorded"] == true)
        .unwrap();
    let summary: serde_json::Value = serde_json::json!({
        "elapsed_ms": 1000.0, "device": null, "cpu": null, "memory": null,
        "pressure": {}, "own_process": null, "processes": []
    });
    phase["telemetry"] = serde_json::json!({
        "summary": summary,
        "derived": {"tps": 1.0, "device_iops": null, "device_ios_per_tx": null,
                    "device_read_bytes_per_tx": null, "device_written_bytes_per_tx": null,
                    "device_flushes_per_commit": null},
        "verdict": {"bound": bound, "reason": format!("recorded as {bound}"), "deciding": []},
        "series": []
    });
    let path = dir.join(format!("{bound}.json"));
    std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
    path.display().to_string()
}

#[test]
fn a_ranking_of_runs_that_were_not_drive_bound_is_flagged_per_run() {
    let tmp = tempfile::tempdir().unwrap();
    let host = with_verdict(A, "host_cpu", tmp.path());
    let drive = with_verdict(B, "drive", tmp.path());
    let out_dir = tmp.path().join("cmp");
    let out = run(&["compare", &host, &drive, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    let (top, _) = md.split_once("| run |").unwrap();
    assert!(
        top.contains("this ranking measures the host, not the drives"),
        "{md}"
    );
    assert!(
        top.contains("host-CPU-bound — recorded as host_cpu"),
        "{top}"
    );
    assert!(!top.contains("recorded as drive"), "{top}");
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    assert!(html.contains("this ranking measures the host, not the drives"));
    // Both drive-bound: no warning.
    let sub = tmp.path().join("a");
    std::fs::create_dir(&sub).unwrap();
    let drive_a = with_verdict(A, "drive", &sub);
    let out = run(&["compare", &drive_a, &drive]);
    assert!(!text(&out.stdout).contains("measures the host"));
}

/// `B` changed by `edit`, written into `dir` as `name`; its path.
fn variant(dir: &std::path::Path, name: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v = common::read_json(&root().join(B));
    edit(&mut v);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path.display().to_string()
}

/// compare's stdout (compare.md) and compare.html for `runs`, which must compare.
fn compared(dir: &std::path::Path, runs: &[&str]) -> (String, String) {
    let out_dir = dir.join("cmp");
    let mut args = vec!["compare"];
    args.extend(runs);
    args.extend(["--out", out_dir.to_str().unwrap()]);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    (text(&out.stdout), html)
}

#[test]
fn runs_on_the_same_drive_are_told_apart_by_what_differs_not_by_a_number() {
    // issue 24: "vda 256.0 GiB" and "vda 256.0 GiB (2)".
    let tmp = tempfile::tempdir().unwrap();
    let (md, _) = compared(tmp.path(), &[A, B]);
    assert!(
        md.contains("| vda 256.0 GiB (clients per instance = 8) | tests/data/compare/a.json |")
            && md.contains(
                "| vda 256.0 GiB (clients per instance = 4) | tests/data/compare/b.json |"
            ),
        "{md}"
    );
    assert!(!md.contains("(2)"), "{md}");
    let rerun = variant(tmp.path(), "rerun.json", |v| {
        v["started_at"] = "2026-11-30T03:40:00Z".into();
    });
    let (md, _) = compared(tmp.path(), &[B, &rerun]);
    assert!(
        md.contains("| vda 256.0 GiB (started 02:27:12Z) |")
            && md.contains("| vda 256.0 GiB (started 03:40:00Z) |"),
        "{md}"
    );
    let other = variant(tmp.path(), "other.json", |v| {
        v["plan"]["name"] = "nightly".into();
        v["started_at"] = "2026-11-30T03:40:00Z".into();
    });
    let (md, _) = compared(tmp.path(), &[B, &other]);
    assert!(
        md.contains("| vda 256.0 GiB (quickstart) |") && md.contains("| vda 256.0 GiB (nightly) |"),
        "{md}"
    );
}

#[test]
fn engine_settings_that_differ_are_listed_as_key_equals_value_per_run() {
    // issue 24: the engine config was raw JSON full of nulls, running off compare.html.
    let tmp = tempfile::tempdir().unwrap();
    let bigger = variant(tmp.path(), "cache.json", |v| {
        v["started_at"] = "2026-11-30T03:40:00Z".into();
        v["plan"]["instances"][0]["config"]["sqlite"]["cache_size_bytes"] = (1u64 << 30).into();
        v["plan"]["instances"][0]["config"]["sqlite"]["synchronous"] = "normal".into();
    });
    let (md, html) = compared(tmp.path(), &[B, &bigger]);
    for line in [
        "- vda 256.0 GiB (config.cache_size = default): config.cache_size = default, config.synchronous = full",
        "- vda 256.0 GiB (config.cache_size = 1.0 GiB): config.cache_size = 1.0 GiB, config.synchronous = normal",
    ] {
        assert!(md.contains(line), "{line} missing:\n{md}");
    }
    assert!(!md.contains("null") && !md.contains("journal_mode"), "{md}");
    assert!(html.contains("config.cache_size = 1.0 GiB<br>config.synchronous = normal"));
    assert!(!html.contains("null"));
}

#[test]
fn a_run_compared_with_itself_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(root().join(A), dir.join("result.json")).unwrap();
    let copy = tmp.path().join("copy.json");
    std::fs::copy(root().join(A), &copy).unwrap();
    let (d, f) = (
        dir.display().to_string(),
        dir.join("result.json").display().to_string(),
    );
    let cases = [
        (vec![A, A], "the same result.json"),
        (vec![d.as_str(), f.as_str()], "the same result.json"),
        (
            vec![A, copy.to_str().unwrap()],
            "both started at 2026-11-30T02:17:15Z on host vm",
        ),
    ];
    for (runs, why) in cases {
        let out_dir = tmp.path().join("cmp");
        let mut args = vec!["compare"];
        args.extend(&runs);
        args.extend(["--out", out_dir.to_str().unwrap()]);
        let out = run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{runs:?}: {err}");
        assert!(
            err.contains(&format!(
                "{} and {} are the same run ({why}); compare needs different runs",
                runs[0], runs[1]
            )),
            "{err}"
        );
        assert!(!out_dir.exists(), "nothing written");
    }
}

/// A copy of TPCC_B whose transactions were stored-procedure calls.
fn procedures_copy(dir: &std::path::Path) -> String {
    let mut b = common::read_json(&root().join(TPCC_B));
    b["plan"]["workload"]["tpcc"]["procedures"] = true.into();
    let path = dir.join("tpcc_procedures.json");
    std::fs::write(&path, serde_json::to_vec(&b).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn tpcc_runs_with_and_without_procedures_are_compared_with_a_warning_naming_each_form() {
    let tmp = tempfile::tempdir().unwrap();
    let procs = procedures_copy(tmp.path());
    let out_dir = tmp.path().join("cmp");
    let out = run(&[
        "compare",
        TPCC_A,
        &procs,
        "--label",
        &format!("statements={TPCC_A}"),
        "--label",
        &format!("calls={procs}"),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    let warning = "**Warning: the TPC-C runs differ in procedures, so their throughput and \
         latency differ by the round trips per transaction (one call against one statement per \
         step), not by the drive alone: statements: client-side statements; calls: stored \
         procedures.**";
    assert!(
        md.starts_with(&format!("# drivebench compare\n\n{warning}")),
        "{md}"
    );
    assert!(!md.contains("differ in mix"), "{md}");
    assert!(
        md.contains("- calls: clients per instance = 2, procedures = true"),
        "{md}"
    );
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    assert!(html.contains("<p class=\"warn\"><b>Warning: the TPC-C runs differ in procedures"));
    let json = common::read_json(&out_dir.join("compare.json"));
    assert!(
        json["warnings"][0]
            .as_str()
            .unwrap()
            .contains("calls: stored procedures")
    );
}

/// A copy of TPCC_B whose terminals drew HammerDB's mix instead of dealing the deck.
fn hammerdb_copy(dir: &std::path::Path) -> String {
    let mut b = common::read_json(&root().join(TPCC_B));
    b["plan"]["workload"]["tpcc"]["mix"] = "hammerdb".into();
    b["phases"][0]["tpcc"]["mix_method"] = "hammerdb".into();
    let path = dir.join("tpcc_hammerdb.json");
    std::fs::write(&path, serde_json::to_vec(&b).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn tpcc_runs_of_different_mixes_are_compared_with_a_warning_naming_each_mix() {
    let tmp = tempfile::tempdir().unwrap();
    let hammerdb = hammerdb_copy(tmp.path());
    let out_dir = tmp.path().join("cmp");
    let out = run(&[
        "compare",
        TPCC_A,
        &hammerdb,
        "--label",
        &format!("deck={TPCC_A}"),
        "--label",
        &format!("draw={hammerdb}"),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    let a = common::read_json(&root().join(TPCC_A));
    let share = a["phases"][0]["tpcc"]["mix"][0]["pct"].as_f64().unwrap();
    let warning = format!(
        "**Warning: the TPC-C runs differ in mix, so their tpmC per unit of work differs \
         (New-Order is 45 % of the spec's deck, 43.5 % of HammerDB's draw): deck: spec \
         (New-Order {share:.1} %); draw: hammerdb"
    );
    assert!(
        md.starts_with(&format!("# drivebench compare\n\n{warning}")),
        "{md}"
    );
    assert!(
        md.contains("- draw: clients per instance = 2, mix = hammerdb"),
        "{md}"
    );
    assert!(
        md.contains(&format!("| deck | 10135 | 10087 | spec ({share:.1}) |")),
        "{md}"
    );
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    assert!(html.contains("<p class=\"warn\"><b>Warning: the TPC-C runs differ in mix"));
    let json = common::read_json(&out_dir.join("compare.json"));
    assert_eq!(json["runs"][1]["tpcc"]["mix"], "hammerdb");
    assert!(
        json["warnings"][0]
            .as_str()
            .unwrap()
            .contains("draw: hammerdb")
    );
}
