//! `drivebench sweep --purge/--fullness` on a real loop device: each level purges the raw
//! device (BLKDISCARD, so its backing file's blocks are freed), writes its first share once and
//! sweeps only that part; one run directory per level with its start state (`layout: raw`),
//! the table of the levels beside them, compare warning of the different starts. Bad input is
//! refused with exit 2 before the device is touched. Without root, loop devices or losetup the
//! tests print one `skipped:` line, and fail under CI=true.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::common::loopfs::{LoopDev, or_skip};
use crate::common::{compare_two, read_json, run, text};

const MIB: u64 = 1 << 20;
const DEVICE_MIB: u64 = 64;

/// A mark written in the device's last MiB: a purge must free it, a refusal leave it.
const MARK: &[u8] = b"drivebench-test-mark";

fn marked_device() -> Option<LoopDev> {
    let dev = or_skip(LoopDev::new(DEVICE_MIB), "make a loop device")?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&dev.image)
        .unwrap();
    f.seek(SeekFrom::Start((DEVICE_MIB - 1) * MIB)).unwrap();
    f.write_all(MARK).unwrap();
    f.sync_all().unwrap();
    Some(dev)
}

/// Whether the device's last MiB still starts with the mark.
fn marked(dev: &LoopDev) -> bool {
    let mut f = std::fs::File::open(&dev.image).unwrap();
    f.seek(SeekFrom::Start((DEVICE_MIB - 1) * MIB)).unwrap();
    let mut head = vec![0; MARK.len()];
    f.read_exact(&mut head).unwrap();
    head == MARK
}

/// `drivebench sweep` of the device with two short profiles (a read and a write) and `extra`.
fn sweep(dev: &LoopDev, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "sweep",
        "--quiet",
        "--target",
        &dev.dev,
        "--destroy-data",
        "--profile",
        "4k-random-read-128",
        "--profile",
        "4k-random-write-128",
        "--warmup",
        "0s",
        "--duration",
        "500ms",
        "--curve",
        "max",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn a_fullness_sweep_fills_and_sweeps_each_level_of_the_raw_device() {
    let Some(dev) = marked_device() else { return };
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("fullness");
    let done = sweep(&dev, &out, &["--fullness", "25,50"]);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    // Purged: the mark is gone; written and swept: the first half only (the writes stayed
    // inside it), give or take the backing filesystem's own blocks.
    assert!(!marked(&dev), "the purge discarded the last MiB");
    let allocated = dev.allocated_bytes();
    assert!(
        (31 * MIB..=33 * MIB).contains(&allocated),
        "{allocated} bytes allocated after the 50 % level"
    );
    let table = read_json(&out.join("fullness.json"));
    let levels = table["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2, "{table}");
    for (row, (level, fill)) in levels.iter().zip([(25.0, 16 * MIB), (50.0, 32 * MIB)]) {
        assert_eq!(row["level_pct"], level, "{row}");
        assert_eq!(row["fill_bytes"], fill, "{row}");
        assert_eq!(row["kind"], "sweep", "{row}");
        let profiles = row["profiles"].as_array().unwrap();
        assert_eq!(profiles.len(), 2, "{row}");
        assert!(profiles.iter().all(|p| p["iops"].as_f64().unwrap() > 0.0));
        let result = read_json(
            &out.join(row["run_dir"].as_str().unwrap())
                .join("result.json"),
        );
        let state = &result["start_state"];
        assert_eq!(state["layout"], "raw", "{state}");
        assert_eq!(state["purge"]["method"], "discard", "{state}");
        assert_eq!(state["fill"]["share_pct"], level, "{state}");
        assert_eq!(
            result["plan"]["sweeps"][0]["region"]["end_fraction"],
            level / 100.0
        );
    }
    let md = std::fs::read_to_string(out.join("fullness.md")).unwrap();
    assert!(
        md.contains("| 25 % | 16 |") && md.contains("| 50 % | 32 |"),
        "{md}"
    );
    assert!(md.contains("4k-random-write-128 IOPS"), "{md}");
    let html = std::fs::read_to_string(out.join("fullness.html")).unwrap();
    assert!(html.contains("Fullness: IOPS per level"), "{html}");
    let (a, b) = (out.join("fill-25pct"), out.join("fill-50pct"));
    let shown = compare_two(&a, &b, &work.path().join("cmp"));
    assert!(
        shown.contains("the runs started from different drive states")
            && shown.contains("raw device, fill 25 %"),
        "{shown}"
    );
}

#[test]
fn bad_purge_and_fullness_flags_are_refused_before_the_device_is_touched() {
    let Some(dev) = marked_device() else { return };
    let work = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 7] = [
        (
            &["--fullness", "0,50"],
            "--fullness: level 0%: must be above 0 %",
        ),
        (
            &["--fullness", "50,100"],
            "--fullness: level 100%: must be below 100 %",
        ),
        (&["--fullness", "50,25"], "--fullness: levels must increase"),
        (
            &["--fullness", "25", "--region", "50%"],
            "--fullness: not with --region",
        ),
        (
            &["--fullness", "25", "--fill", "1"],
            "--fullness: not with --fill",
        ),
        (
            &["--purge", "discard"],
            "--purge discard: profile 4k-random-read-128 reads",
        ),
        (&["--purge", "format", "--fill", "1"], "is a loop device"),
    ];
    for (i, (extra, expected)) in cases.into_iter().enumerate() {
        let out = work.path().join(format!("run{i}"));
        let refused = sweep(&dev, &out, extra);
        let err = text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(expected), "{extra:?}: {err}");
        assert!(!out.exists(), "{extra:?}: nothing written");
    }
    assert!(marked(&dev), "no refusal touched the device");
    let file = work.path().join("t.dat");
    let on_file = run(&[
        "sweep",
        "--target",
        file.to_str().unwrap(),
        "--size",
        "8MiB",
        "--profile",
        "4k-random-read-128",
        "--fullness",
        "50",
    ]);
    assert_eq!(on_file.status.code(), Some(2));
    assert!(
        text(&on_file.stderr).contains("--fullness: only for a block device target"),
        "{}",
        text(&on_file.stderr)
    );
    assert!(!file.exists());
}
