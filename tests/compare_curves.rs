//! `drivebench compare` with load curves (fixtures: two real SQLite curve runs of
//! scenarios/ci-curve-sqlite.toml in tests/data/compare/): each run's peak TPS and "max TPS at
//! p99 <= 20 ms" side by side, ranked by that figure; the p99-vs-TPS curves overlaid in
//! compare.html; runs with different objectives, without a curve, or with different instance
//! counts are listed but their SLO figures not ranked, saying why.

use std::path::{Path, PathBuf};

use crate::common::curve::f;
use crate::common::{read_json, root, run, text};
use serde_json::Value;

const A: &str = "tests/data/compare/curve_a.json";
const B: &str = "tests/data/compare/curve_b.json";

/// compare A and `b` (a path) labelled "a" and "b" into `dir/cmp`: stdout and compare.json.
fn compare(dir: &Path, b: &str) -> (String, Value, PathBuf) {
    let out_dir = dir.join("cmp");
    let out = run(&[
        "compare",
        A,
        b,
        "--label",
        &format!("a={A}"),
        "--label",
        &format!("b={b}"),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = read_json(&out_dir.join("compare.json"));
    (text(&out.stdout), json, out_dir)
}

/// B changed by `edit`, written into `dir`.
fn changed_b(dir: &Path, edit: impl FnOnce(&mut Value)) -> String {
    let mut b = read_json(&root().join(B));
    edit(&mut b);
    let path = dir.join("b.json");
    std::fs::write(&path, serde_json::to_string(&b).unwrap()).unwrap();
    path.display().to_string()
}

#[test]
fn runs_with_curves_are_ranked_by_their_slo_figure_beside_their_peaks() {
    let tmp = tempfile::tempdir().unwrap();
    let (md, json, out_dir) = compare(tmp.path(), B);
    let curve = |file: &str| read_json(&root().join(file))["curves"][0].clone();
    let (a, b) = (curve(A), curve(B));
    let figure = |c: &Value| f(&c["slo"]["max_rate"]);
    assert!(figure(&a) != figure(&b), "the fixtures differ");
    let mut expected = vec![("a", figure(&a)), ("b", figure(&b))];
    expected.sort_by(|x, y| y.1.total_cmp(&x.1));
    let ranking: Vec<(&str, f64)> = json["curves"]["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["label"].as_str().unwrap(), f(&r["value"])))
        .collect();
    assert_eq!(ranking, expected);
    assert_eq!(f(&json["curves"]["slo_p99_ms"]), 20.0);
    assert!(json["curves"]["not_ranked"].is_null());
    assert_eq!(json["runs"][0]["curve"]["peak_tps"], a["peak_tps"]);

    assert!(md.contains("\n## Load curves\n"), "{md}");
    for (label, c) in [("a", &a), ("b", &b)] {
        let row = format!(
            "| {label} | 1 | {:.1} | p99 <= 20 ms | {:.1} | {:.1} |",
            f(&c["peak_tps"]),
            figure(c),
            f(&c["slo"]["first_miss_rate"])
        );
        assert!(md.contains(&row), "{row}\n{md}");
    }
    let leader = format!("| 1 | {} | {:.1} | leader |", expected[0].0, expected[0].1);
    assert!(md.contains("### Max TPS at p99 <= 20 ms (higher is better)"));
    assert!(md.contains(&leader), "{leader}\n{md}");

    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    for needle in [
        "<h2>Load curves</h2>",
        "<h3>Max TPS at p99 ≤ 20 ms (higher is better)</h3>",
        "Load curves: p99 latency vs TPS",
        "p99 objective 20 ms",
        "class=\"lg\">a</text>",
        "class=\"lg\">b</text>",
    ] {
        assert!(html.contains(needle), "{needle} missing");
    }
    // One overlaid series per run, a dot per measured point (the max run left out).
    let measured = |c: &Value| c["points"].as_array().unwrap().len() - 1;
    let dots = html.matches("r=\"2.5\"").count();
    assert_eq!(dots, measured(&a) + measured(&b));
}

#[test]
fn slo_figures_under_different_targets_are_listed_not_ranked() {
    let tmp = tempfile::tempdir().unwrap();
    let b = changed_b(tmp.path(), |b| {
        b["curves"][0]["slo"]["p99_ms"] = 50.0.into();
    });
    let (md, json, out_dir) = compare(tmp.path(), &b);
    let why = "SLO figures not ranked: the SLO targets differ (a: p99 <= 20 ms, b: p99 <= 50 ms)";
    assert!(md.contains(why), "{md}");
    assert!(
        md.contains("| b | 1 | ") && md.contains(" | p99 <= 50 ms | "),
        "{md}"
    );
    assert!(!md.contains("### Max TPS at p99"), "{md}");
    assert!(json["curves"]["ranking"].as_array().unwrap().is_empty());
    assert!(json["curves"]["slo_p99_ms"].is_null());
    let html = std::fs::read_to_string(out_dir.join("compare.html")).unwrap();
    assert!(html.contains("<p class=\"warn\">SLO figures not ranked: the SLO targets differ (a: p99 ≤ 20 ms, b: p99 ≤ 50 ms)"));
    assert!(
        !html.contains("p99 objective"),
        "no shared objective to draw"
    );
}

#[test]
fn a_run_without_a_curve_or_with_other_instance_counts_is_not_ranked() {
    let tmp = tempfile::tempdir().unwrap();
    let b = changed_b(tmp.path(), |b| {
        b.as_object_mut().unwrap().remove("curves");
    });
    let (md, json, _) = compare(tmp.path(), &b);
    assert!(
        md.contains("SLO figures not ranked: b ran no load curve."),
        "{md}"
    );
    assert!(md.contains("| b | 1 | no curve | - | - | - |"), "{md}");
    assert!(json["runs"][1].get("curve").is_none());

    let tmp = tempfile::tempdir().unwrap();
    let b = changed_b(tmp.path(), |b| {
        let mut second = b["instances"][0].clone();
        second["name"] = "sqlite-2".into();
        b["instances"].as_array_mut().unwrap().push(second);
    });
    let (md, _, _) = compare(tmp.path(), &b);
    assert!(
        md.contains("the runs have different instance counts (a: 1, b: 2)"),
        "{md}"
    );

    // Runs without curves have no such section.
    let out_dir = tmp.path().join("plain");
    let out = run(&[
        "compare",
        "tests/data/compare/a.json",
        "tests/data/compare/b.json",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("Load curves"));
    assert!(
        read_json(&out_dir.join("compare.json"))
            .get("curves")
            .is_none()
    );
}
