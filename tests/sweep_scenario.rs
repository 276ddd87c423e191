//! `[[sweep]]` in a scenario: `plan` prints it, and `run` sweeps after the database phases on a
//! file under the target directory (removed afterwards), with the points in result.json next
//! to the phases and in sweeps.csv.

use crate::common::{read_json, run, text, validate};

#[test]
fn plan_prints_each_sweep_with_its_profiles_and_time() {
    let out = run(&[
        "plan",
        "scenarios/ci-sweep-sqlite.toml",
        "--time-scale",
        "0.5",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for expect in [
        "sweep[0] (after the phases)",
        "file ./drivebench-target/drivebench-sweep.dat of 64.0 MiB, fill 1 pass(es)",
        "max run, then 50, 100 % of it; each point 250ms warm-up + 1s recorded",
        "4k-random-write-128: 4 KiB, 0 % read, 100 % random, 4 threads x 32 = 128 outstanding",
        "about 7.5s of measuring (2 profile(s) x 3 point(s))",
    ] {
        assert!(s.contains(expect), "{expect:?} not in\n{s}");
    }
    let json = run(&["plan", "scenarios/ci-sweep-sqlite.toml", "--json"]);
    let plan: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        plan["sweeps"][0]["profiles"][1]["name"],
        "4k-random-write-128"
    );
    assert_eq!(plan["sweeps"][0]["duration_ms"], 2000);
}

#[test]
fn a_scenario_sweeps_after_its_phases_and_removes_the_file_it_created() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let (out, target) = (tmp.path().join("run"), tmp.path().join("target"));
    let o = run(&[
        "run",
        "scenarios/ci-sweep-sqlite.toml",
        "--quiet",
        "--time-scale",
        "0.3",
        "--set",
        "sweep.0.curve=[25, 50]",
        "--out",
        out.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let r = read_json(&out.join("result.json"));
    validate("schemas/json/result.schema.json", &r);
    assert_eq!(r["complete"], true);
    let phases: Vec<&str> = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["precondition", "sample"]);
    assert!(r["phases"][1]["summary"]["transactions"].as_u64().unwrap() > 0);
    let sweeps = r["sweeps"].as_array().unwrap();
    let names: Vec<&str> = sweeps
        .iter()
        .map(|w| w["profile"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["4k-random-read-128", "4k-random-write-128"]);
    let file = target.join("drivebench-sweep.dat");
    for w in sweeps {
        let pcts: Vec<Option<f64>> = w["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["target_pct"].as_f64())
            .collect();
        assert_eq!(pcts, [None, Some(25.0), Some(50.0)], "{}", w["profile"]);
        assert_eq!(w["target"], file.to_str().unwrap());
    }
    assert!(!file.exists(), "the sweep file is removed after the run");
    assert!(target.join("sqlite-1").is_dir());
    let csv = std::fs::read_to_string(out.join("sweeps.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("Workload: sysbench oltp_read_write"), "{md}");
    assert!(md.contains("## I/O sweep 4k-random-write-128"), "{md}");
}

#[test]
fn a_sweep_without_a_fill_on_a_file_created_now_is_refused_before_anything_starts() {
    // issue 24: reads of never-written blocks never reach the drive, yet were saved as results.
    let plan = run(&[
        "plan",
        "scenarios/ci-sweep-sqlite.toml",
        "--set",
        "sweep.0.fill=0",
    ]);
    let s = text(&plan.stdout);
    assert!(
        s.contains("error    sweep[0]: ./drivebench-target/drivebench-sweep.dat: fill 0 on a file created now"),
        "{s}"
    );
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let (out, target) = (tmp.path().join("run"), tmp.path().join("target"));
    let o = run(&[
        "run",
        "scenarios/ci-sweep-sqlite.toml",
        "--quiet",
        "--set",
        "sweep.0.fill=0",
        "--out",
        out.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("preflight: sweep[0]: ") && err.contains("fill it first (fill = 1, --fill 1)"),
        "{err}"
    );
    assert!(!out.exists() && !target.exists(), "nothing started");
}
