//! `drivebench compare` on fixed result.json fixtures (tests/data/compare/): the ranking
//! (golden compare.md), the files it writes, labels, and refusal of incomparable runs.

mod common;

use common::{root, run, text};

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
