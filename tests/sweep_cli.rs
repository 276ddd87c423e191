//! `drivebench sweep`: a run directory with every point in result.json and sweeps.csv, a
//! custom mix at a fixed rate, steady-state rounds, and bad input refused with exit code 2
//! naming the flag before anything is written.

use crate::common;

use std::path::Path;

use crate::common::{bin, read_json, root, text, validate};
use drivebench::report::sweeps::CSV_HEADER;

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn sweep(args: &[&str]) -> std::process::Output {
    bin()
        .arg("sweep")
        .args(args)
        .current_dir(root())
        .output()
        .expect("run drivebench sweep")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn a_sweep_writes_every_point_to_result_json_and_sweeps_csv() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let (file, out) = (tmp.path().join("target.dat"), tmp.path().join("run"));
    let args = [
        "--target",
        p(&file),
        "--size",
        "64MiB",
        "--profile",
        "4k-random-read-128",
        "--warmup",
        "100ms",
        "--duration",
        "300ms",
        "--curve",
        "50,100",
        "--region",
        "50%",
        "--out",
        p(&out),
    ];
    let o = sweep(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let live = text(&o.stderr);
    assert!(live.contains("fill: 64.0 MiB"), "{live}");
    assert!(live.contains("4k-random-read-128   50 %"), "{live}");
    // issue 24: the file it created is removed, as a [[sweep]] in a scenario removes its own.
    assert!(
        live.contains(&format!(
            "removed {}, which this sweep created (--keep-file keeps it)",
            p(&file)
        )),
        "{live}"
    );
    assert!(!file.exists() && !tmp.path().join(".target.dat.drivebench").exists());

    let r = read_json(&out.join("result.json"));
    validate("schemas/json/result.schema.json", &r);
    assert_eq!(
        (r["status"].as_str(), r["complete"].as_bool()),
        (Some("complete"), Some(true))
    );
    assert_eq!(r["environment"]["target"]["path"], p(&file));
    assert_eq!(r["plan"]["sweeps"][0]["fill_passes"], 1);
    assert_eq!(r["plan"]["sweeps"][0]["region"]["end_fraction"], 0.5);
    let sweeps = r["sweeps"].as_array().unwrap();
    assert_eq!(sweeps.len(), 1);
    let w = &sweeps[0];
    assert_eq!(w["profile"], "4k-random-read-128");
    assert_eq!(
        w["definition"],
        "4 KiB, 100 % read, 100 % random, 4 threads x 32 = 128 outstanding"
    );
    assert_eq!(w["target"], p(&file));
    let points = w["points"].as_array().unwrap();
    let kinds: Vec<&str> = points.iter().map(|x| x["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["max", "curve", "curve"]);
    let max = f(&w["max_iops"]);
    assert!(max > 0.0 && max == f(&points[0]["iops"]));
    for (x, pct) in points[1..].iter().zip([50.0, 100.0]) {
        assert_eq!(f(&x["target_pct"]), pct);
        assert_eq!(f(&x["target_iops"]), max * pct / 100.0);
        assert!(f(&x["iops"]) > 0.0 && f(&x["mib_s"]) > 0.0);
        let lat = &x["latency_us"];
        assert!(
            f(&lat["p50"]) <= f(&lat["p99"]) && f(&lat["p99"]) <= f(&lat["max"]),
            "{lat}"
        );
        assert_eq!(f(&x["read_share_pct"]), 100.0);
        assert_eq!(f(&x["bytes_per_io"]), 4096.0);
    }

    let csv = std::fs::read_to_string(out.join("sweeps.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], CSV_HEADER);
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(
        lines[1].starts_with("4k-random-read-128,max,,,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[3].starts_with("4k-random-read-128,curve,100.0,"),
        "{}",
        lines[3]
    );
    assert!(lines[3].ends_with(",4,32,100,100"), "{}", lines[3]);
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("## I/O sweep 4k-random-read-128"), "{md}");
    assert!(!md.contains("Workload: sysbench"), "{md}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("4k-random-read-128: latency vs IOPS"));

    // `report` rebuilds sweeps.csv from result.json alone.
    std::fs::remove_file(out.join("sweeps.csv")).unwrap();
    let o = common::run(&["report", p(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(out.join("sweeps.csv")).unwrap(),
        csv
    );
}

#[test]
fn a_custom_mix_at_a_fixed_rate_runs_one_paced_point() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let out = tmp.path().join("run");
    let o = sweep(&[
        "--target",
        p(tmp.path()),
        "--size",
        "32MiB",
        "--bs",
        "4k/75:16k/25",
        "--read-pct",
        "70",
        "--random-pct",
        "100",
        "--depth",
        "4",
        "--rate",
        "500",
        "--arrivals",
        "poisson",
        "--io-engine",
        "psync",
        "--submit-batch",
        "3",
        "--warmup",
        "0s",
        "--duration",
        "1s",
        "--quiet",
        "--out",
        p(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // The directory's default file, created and removed again.
    let file = tmp.path().join("drivebench-sweep.dat");
    assert!(
        text(&o.stderr).contains(&format!("removed {}", p(&file))),
        "{}",
        text(&o.stderr)
    );
    assert!(!file.exists());
    let r = read_json(&out.join("result.json"));
    let w = &r["sweeps"][0];
    assert_eq!(w["profile"], "custom-4k.75_16k.25-r70-rand100-1x4");
    assert_eq!(w["engine"], "psync");
    assert_eq!(r["plan"]["sweeps"][0]["submit_batch"], 3);
    let points = w["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0]["kind"], "fixed");
    assert_eq!(f(&points[0]["target_iops"]), 500.0);
    assert!(f(&points[0]["ios"]) > 0.0);
    let share = f(&points[0]["read_share_pct"]);
    assert!((50.0..=90.0).contains(&share), "reads {share} %");
}

#[test]
fn bad_input_exits_2_naming_the_flag_and_writes_nothing() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let small = tmp.path().join("small.dat");
    std::fs::write(&small, vec![0u8; 1 << 20]).unwrap();
    let file = tmp.path().join("new.dat");
    let (new, small) = (p(&file), p(&small));
    let base = |extra: &[&'static str]| -> Vec<String> {
        let mut v = vec!["--target", new, "--size", "16MiB"];
        v.extend_from_slice(extra);
        v.into_iter().map(String::from).collect()
    };
    let prof = "4k-random-read-128";
    let mut cases: Vec<(Vec<String>, &str)> = vec![
        (
            base(&["--profile", "nope"]),
            "--profile: unknown profile \"nope\"",
        ),
        (
            base(&["--profile", prof, "--bs", "4k"]),
            "--bs: give either profiles or bs",
        ),
        (
            base(&["--bs", "4k", "--read-pct", "50"]),
            "--random-pct: needed",
        ),
        (
            base(&["--bs", "4k", "--read-pct", "150", "--random-pct", "0"]),
            "--read-pct: must be between 0 and 100, got 150",
        ),
        (
            base(&[
                "--bs",
                "4k/50:8k/40",
                "--read-pct",
                "1",
                "--random-pct",
                "0",
            ]),
            "--bs: the shares",
        ),
        (
            base(&["--profile", prof, "--threads", "0"]),
            "--threads: must be between 1 and 4096",
        ),
        (
            base(&["--profile", prof, "--submit-batch", "0"]),
            "--submit-batch: must be between 1 and 4096",
        ),
        (
            base(&["--profile", prof, "--region", "0%"]),
            "--region: region \"0%\" must be above 0%",
        ),
        (
            base(&["--profile", prof, "--duration", "fast"]),
            "--duration: invalid duration",
        ),
        (
            base(&["--profile", prof, "--curve", "10,abc"]),
            "--curve: expected percentages",
        ),
        (
            base(&["--profile", prof, "--rate", "100", "--curve", "50"]),
            "--curve: not with rate",
        ),
        (
            base(&["--profile", prof, "--rate", "-5"]),
            "--rate: must be",
        ),
        (
            base(&["--profile", prof, "--submit-batch", "-1"]),
            "--submit-batch: must be between 1 and 4096",
        ),
        (
            // issue 24: reads of a file created now never reach the drive without a fill.
            base(&["--profile", prof, "--curve", "max", "--fill", "0"]),
            "fill 0 on a file created now: 4k-random-read-128 would read blocks never written, \
             which the filesystem answers without reaching the drive",
        ),
        (
            base(&["--profile", prof, "--fill", "7"]),
            "--fill: must be between 0 and 4",
        ),
        (
            base(&["--profile", prof, "--region", "0.001%"]),
            "cannot hold one 4096-byte I/O",
        ),
        (
            vec![
                "--target".into(),
                format!("{new}.d/x.dat"),
                "--size".into(),
                "4MiB".into(),
                "--profile".into(),
                prof.into(),
            ],
            ".d does not exist",
        ),
        (
            base(&[
                "--profile",
                prof,
                "--io-engine",
                "psync",
                "--threads",
                "64",
                "--depth",
                "128",
            ]),
            "psync needs threads × depth OS threads",
        ),
        (
            base(&["--profile", prof, "--read-pct", "abc"]),
            "invalid value 'abc' for '--read-pct",
        ),
        (
            base(&["--profile", prof, "--destroy-data"]),
            "--destroy-data: only for a block device",
        ),
        (
            vec![
                "--target".into(),
                new.into(),
                "--profile".into(),
                prof.into(),
            ],
            "--size: needed to create",
        ),
        (
            vec![
                "--target".into(),
                small.into(),
                "--size".into(),
                "16MiB".into(),
                "--profile".into(),
                prof.into(),
            ],
            "smaller than the 16777216 bytes asked for",
        ),
    ];
    // Kept alive until the cases have run.
    let shm = std::fs::metadata("/dev/shm")
        .is_ok_and(|m| m.is_dir())
        .then(|| tempfile::tempdir_in("/dev/shm").unwrap());
    if let Some(shm) = &shm {
        let target = shm.path().join("t.dat").display().to_string();
        cases.push((
            vec![
                "--target".into(),
                target,
                "--size".into(),
                "4MiB".into(),
                "--profile".into(),
                prof.into(),
            ],
            "cannot do direct I/O: tmpfs",
        ));
    }
    let device = ["/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1"]
        .into_iter()
        .find(|d| {
            std::fs::metadata(d)
                .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()))
        });
    match device {
        Some(d) => cases.push((
            vec!["--target".into(), d.into(), "--profile".into(), prof.into()],
            "a block device; writing to it destroys its data: refusing without --destroy-data",
        )),
        None => eprintln!("skipped the block-device case: no block device node found"),
    }
    for (args, expect) in cases {
        let out = tmp.path().join("run");
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        full.extend(["--out", p(&out)]);
        let o = sweep(&full);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(expect),
            "{args:?}:\n  expected {expect:?}\n  got {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists(), "{args:?} created the run directory");
        assert!(!file.exists(), "{args:?} left {} behind", file.display());
    }
}

#[test]
fn steady_state_rounds_run_before_the_max_run_and_their_verdict_is_kept() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let out = tmp.path().join("run");
    let o = sweep(&[
        "--target",
        p(&tmp.path().join("t.dat")),
        "--size",
        "32MiB",
        "--profile",
        "4k-random-read-128",
        "--steady",
        "--curve",
        "max",
        "--warmup",
        "0s",
        "--duration",
        "200ms",
        "--out",
        p(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let live = text(&o.stderr);
    assert!(
        live.contains("4k-random-read-128 steady-state round:"),
        "{live}"
    );
    let r = read_json(&out.join("result.json"));
    validate("schemas/json/result.schema.json", &r);
    let w = &r["sweeps"][0];
    let rounds = w["steady"]["rounds_iops"].as_array().unwrap().len();
    assert!((5..=25).contains(&rounds), "{rounds} rounds");
    let verdict = w["steady"]["steady"].as_bool().unwrap();
    assert!(verdict || rounds == 25, "stopped unsteady before the cap");
    let kinds: Vec<&str> = w["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["max"]);
    assert_eq!(r["plan"]["sweeps"][0]["steady"]["window"], 5);
}

#[test]
fn a_kept_file_is_marked_and_swept_again_without_a_fill_but_an_unwritten_one_is_refused() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let file = tmp.path().join("kept.dat");
    let run = |name: &str, extra: &[&str]| {
        let out = tmp.path().join(name);
        let mut args = vec![
            "--target",
            p(&file),
            "--profile",
            "4k-random-read-128",
            "--curve",
            "max",
            "--warmup",
            "0s",
            "--duration",
            "200ms",
            "--quiet",
            "--out",
            p(&out),
        ];
        args.extend(extra);
        sweep(&args)
    };
    let o = run("first", &["--size", "32MiB", "--keep-file"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("kept "), "{}", text(&o.stderr));
    assert!(file.exists(), "kept");
    let marker = std::fs::read_to_string(tmp.path().join(".kept.dat.drivebench")).unwrap();
    assert!(marker.contains("kind = sweep file"), "{marker}");
    // Filled by the first sweep: --fill 0 measures the drive and is accepted; the file was
    // there before, so it stays.
    let o = run("again", &["--fill", "0"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(file.exists());

    // A file allocated and never written (as fallocate leaves it) is refused with --fill 0.
    let fresh = std::fs::File::create(tmp.path().join("alloc.dat")).unwrap();
    rustix::fs::fallocate(&fresh, rustix::fs::FallocateFlags::empty(), 0, 32 << 20).unwrap();
    drop(fresh);
    std::fs::rename(tmp.path().join("alloc.dat"), &file).unwrap();
    let o = run("unwritten", &["--fill", "0"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "fill 0, but the file holds blocks never written since it was allocated (from byte 0 on"
        ),
        "{err}"
    );
    assert!(!tmp.path().join("unwritten").exists(), "nothing started");
}
