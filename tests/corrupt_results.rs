//! Issue 23: a result.json that is empty, cut short, of another shape, from a future
//! drivebench, not UTF-8, with a number no integer field holds, a directory, or absent, given
//! to `report`, `compare`, `check` and `merge`: exit 2 with an error naming the file, never a panic.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{root, run, text};

const FIXTURE: &str = "tests/data/compare/a.json";

fn fixture() -> serde_json::Value {
    common::read_json(&root().join(FIXTURE))
}

/// Write `bytes` as `dir/NAME/result.json`; returns the run directory.
fn run_dir(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let run = dir.join(name);
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("result.json"), bytes).unwrap();
    run
}

/// Each broken run directory, and what the error must say besides the file's path.
fn broken_runs(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let whole = std::fs::read(root().join(FIXTURE)).unwrap();
    let mut future = fixture();
    future["schema_version"] = 999.into();
    let mut huge = serde_json::to_string(&fixture()).unwrap();
    let at = huge.find("\"transactions\":").unwrap() + "\"transactions\":".len();
    let end = at + huge[at..].find([',', '}']).unwrap();
    huge.replace_range(at..end, "184467440737095516150000");
    let mut non_utf8 = whole.clone();
    non_utf8[200] = 0xff;
    let plan = serde_json::to_vec(&fixture()["plan"]).unwrap();
    let missing = dir.join("no-result");
    std::fs::create_dir_all(&missing).unwrap();
    let is_dir = dir.join("dir-result");
    std::fs::create_dir_all(is_dir.join("result.json")).unwrap();
    vec![
        (run_dir(dir, "empty", b""), "not a drivebench result: EOF"),
        (
            run_dir(dir, "truncated", &whole[..whole.len() / 2]),
            "not a drivebench result: EOF while parsing",
        ),
        (
            run_dir(dir, "foreign", b"{\"a\":1}"),
            "missing field `schema_version`",
        ),
        (run_dir(dir, "plan", &plan), "not a drivebench result"),
        (
            run_dir(dir, "future", &serde_json::to_vec(&future).unwrap()),
            "schema_version 999 is not supported",
        ),
        (
            run_dir(dir, "non-utf8", &non_utf8),
            "did not contain valid UTF-8",
        ),
        (run_dir(dir, "huge", huge.as_bytes()), "expected u64"),
        (missing, "No such file or directory"),
        (is_dir, "Is a directory"),
    ]
}

fn assert_refused(args: &[&str], dir: &Path, why: &str) {
    let out = run(args);
    let err = text(&out.stderr);
    let file = dir.join("result.json").display().to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(&file),
        "{args:?}: the file is not named: {err}"
    );
    assert!(err.contains(why), "{args:?}: expected {why:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn report_refuses_each_broken_result_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (dir, why) in broken_runs(tmp.path()) {
        assert_refused(&["report", dir.to_str().unwrap()], &dir, why);
        assert!(!dir.join("summary.md").exists(), "nothing written");
    }
}

#[test]
fn compare_refuses_each_broken_result_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("cmp");
    for (dir, why) in broken_runs(tmp.path()) {
        let args = [
            "compare",
            FIXTURE,
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        assert_refused(&args, &dir, why);
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn merge_refuses_each_broken_result_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let good = run_dir(
        tmp.path(),
        "good",
        &std::fs::read(root().join(FIXTURE)).unwrap(),
    );
    let out = tmp.path().join("merged");
    for (dir, why) in broken_runs(tmp.path()) {
        let args = [
            "merge",
            good.to_str().unwrap(),
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        assert_refused(&args, &dir, why);
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn check_refuses_each_broken_result_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (dir, why) in broken_runs(tmp.path()) {
        assert_refused(&["check", dir.to_str().unwrap()], &dir, why);
    }
}

#[test]
fn compare_names_a_broken_result_json_given_as_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("cut.json");
    let whole = std::fs::read(root().join(FIXTURE)).unwrap();
    std::fs::write(&file, &whole[..whole.len() / 3]).unwrap();
    let out = run(&["compare", FIXTURE, file.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: not a drivebench result", file.display())),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn report_says_which_phase_histogram_is_unreadable_and_what_it_falls_back_on() {
    let tmp = tempfile::tempdir().unwrap();
    // The recorded phase: the one report.html draws a percentile chart of.
    let at = fixture()["phases"]
        .as_array()
        .unwrap()
        .iter()
        .position(|p| p["recorded"] == true)
        .unwrap();
    let mut cut = fixture();
    let whole = cut["phases"][at]["histogram"].as_str().unwrap().to_owned();
    cut["phases"][at]["histogram"] = whole[..whole.len() / 2].into();
    let mut garbage = fixture();
    garbage["phases"][at]["histogram"] = "not base64 at all!".into();
    for (name, value, why) in [
        ("cut", cut, "histogram"),
        ("garbage", garbage, "invalid base64"),
    ] {
        let dir = run_dir(tmp.path(), name, &serde_json::to_vec(&value).unwrap());
        let out = run(&["report", dir.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {err}");
        let phase = value["phases"][at]["name"].as_str().unwrap();
        assert!(
            err.contains(&format!(
                "warning: phase {phase}: its latency histogram is unreadable ("
            )) && err.contains(why),
            "{name}: {err}"
        );
        assert!(
            err.contains("come from the summary stored in result.json"),
            "{name}: {err}"
        );
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(html.contains("chart is left out"), "{name}: report.html");
    }
    // The fixture itself reads cleanly: no warning.
    let dir = run_dir(
        tmp.path(),
        "whole",
        &serde_json::to_vec(&fixture()).unwrap(),
    );
    let out = run(&["report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!text(&out.stderr).contains("unreadable"));
}
