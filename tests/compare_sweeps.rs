//! `drivebench compare` with I/O sweeps: per profile a table of every run's IOPS and p99 at
//! each point, side by side, and the curves overlaid in compare.html; sweep-only runs are
//! listed but not ranked with the database runs.

use crate::common::{bin, read_json, root, run, text};

/// A sweep of `dir/t.dat`, kept for the next one: filled once, when this one creates it (reads
/// of never-written blocks would not reach the drive, and are refused).
fn sweep_run(dir: &std::path::Path, name: &str, labels: &[&str]) -> String {
    let out = dir.join(name);
    let file = dir.join("t.dat");
    let fill = if file.exists() { "0" } else { "1" };
    let mut cmd = bin();
    cmd.args(["sweep", "--quiet", "--keep-file", "--target"])
        .arg(&file)
        .args(["--size", "32MiB", "--fill", fill, "--warmup", "0s"])
        .args(["--duration", "300ms", "--curve", "50,100"]);
    for l in labels {
        cmd.args(["--profile", l]);
    }
    let o = cmd
        .arg("--out")
        .arg(&out)
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    out.display().to_string()
}

#[test]
fn sweeps_are_compared_point_by_point_beside_the_ranking() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let one = sweep_run(
        tmp.path(),
        "one",
        &["4k-random-read-128", "64k-seq-read-16"],
    );
    let two = sweep_run(tmp.path(), "two", &["4k-random-read-128"]);
    let cmp = tmp.path().join("cmp");
    let db = "tests/data/compare/a.json";
    let out = run(&[
        "compare",
        db,
        &one,
        &two,
        "--label",
        &format!("first={one}"),
        "--label",
        &format!("second={two}"),
        "--out",
        cmp.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    assert!(md.contains("| first | "), "{md}");
    assert!(md.contains("- (sweeps only)"), "{md}");
    assert!(md.contains("## I/O sweep 4k-random-read-128"), "{md}");
    assert!(
        md.contains("| point | vda 256.0 GiB IOPS | vda 256.0 GiB p99 µs | first IOPS | first p99 µs | second IOPS | second p99 µs |"),
        "{md}"
    );
    let json = read_json(&cmp.join("compare.json"));
    // Only the database run is ranked.
    assert_eq!(json["groups"][0]["tps"].as_array().unwrap().len(), 1);
    let sweeps = json["sweeps"].as_array().unwrap();
    let profiles: Vec<&str> = sweeps
        .iter()
        .map(|s| s["profile"].as_str().unwrap())
        .collect();
    assert_eq!(profiles, ["4k-random-read-128", "64k-seq-read-16"]);
    let points: Vec<&str> = sweeps[0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["point"].as_str().unwrap())
        .collect();
    assert_eq!(points, ["max", "50 %", "100 %"]);
    for row in sweeps[0]["rows"].as_array().unwrap() {
        let cells = row["cells"].as_array().unwrap();
        assert!(cells[0].is_null(), "the database run has no sweep");
        assert!(cells[1]["iops"].as_f64().unwrap() > 0.0);
        assert!(cells[2]["p99_us"].as_f64().unwrap() > 0.0);
    }
    // The second run did not sweep 64k-seq-read-16.
    assert!(sweeps[1]["rows"][0]["cells"][2].is_null());
    let html = std::fs::read_to_string(cmp.join("compare.html")).unwrap();
    assert!(html.contains("4k-random-read-128: p99 latency vs IOPS"));
}

#[test]
fn two_sweep_only_runs_compare_without_a_ranking() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let one = sweep_run(tmp.path(), "one", &["4k-random-write-128"]);
    let two = sweep_run(tmp.path(), "two", &["4k-random-write-128"]);
    let cmp = tmp.path().join("cmp");
    let out = run(&["compare", &one, &two, "--out", cmp.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = read_json(&cmp.join("compare.json"));
    assert!(json["groups"].as_array().unwrap().is_empty());
    assert_eq!(json["sweeps"][0]["rows"].as_array().unwrap().len(), 3);
}

#[test]
fn a_sweep_only_run_written_before_the_benchmark_enum_still_compares() {
    // Its plan holds `"workload": {"benchmark": "sysbench", "clients": 0, ...}` and no
    // `sysbench` table.
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let old = "tests/data/compare/sweep_only_v1.json";
    let new = sweep_run(tmp.path(), "new", &["4k-random-write-128"]);
    let cmp = tmp.path().join("cmp");
    let out = run(&["compare", old, &new, "--out", cmp.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        read_json(&cmp.join("compare.json"))["groups"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}
