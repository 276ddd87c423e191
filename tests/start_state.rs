//! A known starting state on a real loop device: the device discarded, ext4 made without
//! discard and mounted without it, filled to a share of its capacity before a small SQLite
//! run; the fill still on the device afterwards and the mount gone. A fullness run gives one
//! row per level, compare warns about runs that started from different states, an interrupted
//! run leaves nothing mounted, and a mounted device, or an NVMe purge (`format`, `sanitize`) of
//! a device that is not an NVMe namespace, is refused before anything is touched. Without
//! root, loop devices, losetup or mkfs.ext4 each test prints one `skipped:` line, and fails
//! under CI=true.

use std::path::Path;

use crate::common::loopfs::{LoopDev, LoopFs, or_skip, sh};
use crate::common::{compare_two, read_json, run, text};

const MIB: u64 = 1 << 20;

/// A loop device of `mib` MiB, or None after the skip line (a failure under CI=true).
fn loop_dev(mib: u64) -> Option<LoopDev> {
    or_skip(LoopDev::new(mib), "make a loop device")
}

/// The start state's mount options: read-write, no discard (the fill survives).
fn assert_mounted_without_discard(state: &serde_json::Value) {
    let options: Vec<&str> = (state["mount_options"].as_array().unwrap().iter())
        .map(|o| o.as_str().unwrap())
        .collect();
    assert!(
        options.contains(&"rw") && !options.contains(&"discard"),
        "{options:?}"
    );
}

/// `drivebench run` of the quickstart, tiny and short, with the device's keys and `extra`.
fn run_on(dev: &LoopDev, mnt: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let device = format!("target.device={}", dev.dev);
    let path = format!("target.path={}", mnt.display());
    let out = out.to_str().unwrap();
    let mut args = vec![
        "run",
        "scenarios/quickstart.toml",
        "--quiet",
        "--time-scale",
        "0.02",
        "--out",
        out,
        "--set",
        &device,
        "--set",
        &path,
        "--set",
        "target.destroy_data=true",
        "--set",
        "workload.tables=1",
        "--set",
        "workload.table_size=200",
        "--set",
        "workload.clients=2",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn a_purged_filled_device_is_recorded_and_its_fill_survives_without_discard() {
    let Some(dev) = loop_dev(512) else { return };
    // Data on the device before the run, which the purge must discard.
    sh(&[
        "dd",
        "if=/dev/urandom",
        &format!("of={}", dev.dev),
        "bs=1M",
        "count=64",
        "oflag=direct",
    ])
    .unwrap();
    assert!(dev.allocated_bytes() >= 64 * MIB);
    let work = tempfile::tempdir().unwrap();
    let (mnt, out) = (work.path().join("mnt"), work.path().join("run"));
    let done = run_on(&dev, &mnt, &out, &["--set", "target.fill=50%"]);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    let state = &read_json(&out.join("result.json"))["start_state"];
    assert_eq!(state["device"], dev.dev.as_str(), "{state}");
    assert_eq!(state["device_bytes"], 512 * MIB);
    assert_eq!(state["purge"]["method"], "discard");
    assert_eq!(state["purge"]["bytes_discarded"], 512 * MIB);
    assert_eq!(state["filesystem"], "ext4");
    assert!(
        state["mkfs"].as_str().unwrap().contains("nodiscard"),
        "{state}"
    );
    assert_mounted_without_discard(state);
    assert_eq!(state["fill"]["share_pct"], 50.0);
    assert_eq!(state["fill"]["bytes"], 256 * MIB);
    assert!(state["fill"]["mb_s"].as_f64().unwrap() > 0.0);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains(&format!(
            "- Start state: {} (512.0 MiB): discarded, ext4",
            dev.dev
        )),
        "{summary}"
    );
    // Unmounted after the run; the fill is still on the device, every byte of it.
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    assert!(!mounts.contains(&dev.dev), "{mounts}");
    assert!(
        dev.allocated_bytes() >= 256 * MIB,
        "{} allocated",
        dev.allocated_bytes()
    );
    let check = work.path().join("check");
    std::fs::create_dir(&check).unwrap();
    sh(&["mount", "-o", "ro", &dev.dev, check.to_str().unwrap()]).unwrap();
    let fill = std::fs::metadata(check.join("drivebench-fill")).map(|m| m.len());
    let _ = sh(&["umount", check.to_str().unwrap()]);
    assert_eq!(fill.unwrap(), 256 * MIB);
}

#[test]
fn a_fullness_run_has_one_row_per_level_and_compare_warns_of_the_different_starts() {
    let Some(dev) = loop_dev(512) else { return };
    let work = tempfile::tempdir().unwrap();
    let (mnt, out) = (work.path().join("mnt"), work.path().join("fullness"));
    let done = run_on(&dev, &mnt, &out, &["--fullness", "25,50"]);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    let table = read_json(&out.join("fullness.json"));
    let levels = table["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2, "{table}");
    for (row, (level, fill)) in levels.iter().zip([(25.0, 128 * MIB), (50.0, 256 * MIB)]) {
        assert_eq!(row["level_pct"], level, "{row}");
        assert_eq!(row["fill_bytes"], fill, "{row}");
        assert!(row["tps"].as_f64().unwrap() > 0.0, "{row}");
        assert!(row["p99_ms"].as_f64().unwrap() > 0.0, "{row}");
        let dir = out.join(row["run_dir"].as_str().unwrap());
        assert_eq!(
            read_json(&dir.join("result.json"))["start_state"]["fill"]["share_pct"],
            level
        );
    }
    let html = std::fs::read_to_string(out.join("fullness.html")).unwrap();
    assert!(html.contains("Fullness: p99 per level"), "{html}");
    let md = std::fs::read_to_string(out.join("fullness.md")).unwrap();
    assert!(
        md.contains("| 25 % | 128 |") && md.contains("| 50 % | 256 |"),
        "{md}"
    );
    let (a, b) = (out.join("fill-25pct"), out.join("fill-50pct"));
    let shown = compare_two(&a, &b, &work.path().join("cmp"));
    assert!(
        shown.contains("the runs started from different drive states"),
        "{shown}"
    );
    assert!(
        shown.contains("fill 25 %") && shown.contains("fill 50 %"),
        "{shown}"
    );
    assert!(shown.contains("Start states:"), "{shown}");
}

#[test]
fn a_mounted_device_is_refused_before_anything_is_touched() {
    let fs = match LoopFs::new(64) {
        Ok(fs) => fs,
        Err(why) => {
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
            eprintln!("skipped: {why}");
            return;
        }
    };
    std::fs::write(fs.mnt.join("keep"), b"still here").unwrap();
    let work = tempfile::tempdir().unwrap();
    let device = format!("target.device={}", fs.dev);
    for command in ["plan", "run"] {
        let done = run(&[
            command,
            "scenarios/quickstart.toml",
            "--set",
            &device,
            "--set",
            "target.destroy_data=true",
            "--set",
            &format!("target.path={}", work.path().join("mnt").display()),
        ]);
        let err = text(&done.stderr);
        assert_eq!(done.status.code(), Some(2), "{command}: {err}");
        assert!(
            err.contains(&format!("target.device: {} is mounted on", fs.dev)),
            "{err}"
        );
    }
    assert_eq!(std::fs::read(fs.mnt.join("keep")).unwrap(), b"still here");
    assert!(!work.path().join("mnt").exists());
}

#[test]
fn an_interrupted_run_unmounts_the_device_and_keeps_its_start_state() {
    let Some(dev) = loop_dev(256) else { return };
    let work = tempfile::tempdir().unwrap();
    let (mnt, out) = (work.path().join("mnt"), work.path().join("run"));
    let device = format!("target.device={}", dev.dev);
    let path = format!("target.path={}", mnt.display());
    let mut child = crate::common::bin()
        .current_dir(crate::common::root())
        .args(["run", "scenarios/quickstart.toml", "--quiet", "--out"])
        .arg(&out)
        .args([
            "--set",
            &device,
            "--set",
            &path,
            "--set",
            "target.destroy_data=true",
        ])
        .args(["--set", "target.fill=25%", "--set", "workload.tables=1"])
        .args(["--set", "workload.table_size=200"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mounted = || {
        std::fs::read_to_string("/proc/self/mounts")
            .unwrap()
            .contains(&dev.dev)
    };
    let started = std::time::Instant::now();
    while !mounted() && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(mounted(), "the device was never mounted");
    // Into the phases (the quickstart's precondition lasts 15 s), then Ctrl-C.
    std::thread::sleep(std::time::Duration::from_secs(3));
    sh(&["kill", "-INT", &child.id().to_string()]).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!mounted(), "still mounted after the run");
    let result = read_json(&out.join("result.json"));
    assert_eq!(result["status"], "interrupted");
    assert_eq!(result["start_state"]["fill"]["bytes"], 64 * MIB);
}

#[test]
fn fullness_levels_from_the_command_line_are_checked_as_the_scenarios_are() {
    let out = run(&["run", "scenarios/quickstart.toml", "--fullness", "25,50"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--fullness: needs target.device"),
        "{}",
        text(&out.stderr)
    );
    let Some(dev) = loop_dev(64) else { return };
    let device = format!("target.device={}", dev.dev);
    let cases = [
        (
            "50,25",
            "--fullness: levels must increase, got 25% after 50%",
        ),
        (
            "25,100",
            "--fullness: level 100%: must be below 100 % of the device",
        ),
        ("0", "--fullness: level 0%: must be above 0 %"),
    ];
    for (levels, expected) in cases {
        let args = [
            "run",
            "scenarios/quickstart.toml",
            "--set",
            &device,
            "--set",
            "target.destroy_data=true",
            "--fullness",
            levels,
        ];
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{levels}");
        assert!(
            text(&out.stderr).contains(expected),
            "{levels}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(
        dev.allocated_bytes(),
        0,
        "nothing was written to the device"
    );
}

#[test]
fn xfs_is_made_without_discard_and_mounted_without_it() {
    crate::common::needs::need!(Xfs);
    let Some(dev) = loop_dev(512) else { return };
    let work = tempfile::tempdir().unwrap();
    let (mnt, out) = (work.path().join("mnt"), work.path().join("run"));
    let extra = ["--set", "target.filesystem=xfs", "--set", "target.fill=40%"];
    let done = run_on(&dev, &mnt, &out, &extra);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    let state = &read_json(&out.join("result.json"))["start_state"];
    assert_eq!(state["filesystem"], "xfs", "{state}");
    assert!(
        state["mkfs"]
            .as_str()
            .unwrap()
            .starts_with("mkfs.xfs -f -q -K "),
        "{state}"
    );
    assert_mounted_without_discard(state);
    assert_eq!(state["fill"]["bytes"], 204 * MIB);
}

#[test]
fn a_target_path_that_is_a_mount_point_is_refused() {
    let Some(dev) = loop_dev(64) else { return };
    let fs = LoopFs::new(64).expect("a loop filesystem, where a loop device could be made");
    let device = format!("target.device={}", dev.dev);
    // Reached through `..`, as a user may write it.
    let path = format!("target.path={}/../mnt", fs.mnt.display());
    let args = [
        "run",
        "scenarios/quickstart.toml",
        "--set",
        &device,
        "--set",
        "target.destroy_data=true",
        "--set",
        &path,
    ];
    let out = run(&args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("already a mount point"), "{err}");
    assert_eq!(
        dev.allocated_bytes(),
        0,
        "nothing was written to the device"
    );
}

#[test]
fn a_purge_by_the_drive_is_refused_on_a_loop_device_before_anything_is_touched() {
    let Some(dev) = loop_dev(64) else { return };
    let first = |dev: &LoopDev| {
        use std::io::Read;
        let mut bytes = vec![0u8; 4 * MIB as usize];
        let mut file = std::fs::File::open(&dev.dev).unwrap();
        file.read_exact(&mut bytes).unwrap();
        bytes
    };
    sh(&[
        "dd",
        "if=/dev/urandom",
        &format!("of={}", dev.dev),
        "bs=1M",
        "count=4",
        "oflag=direct",
    ])
    .unwrap();
    let (before, allocated) = (first(&dev), dev.allocated_bytes());
    let work = tempfile::tempdir().unwrap();
    let mnt = work.path().join("mnt");
    for purge in ["format", "sanitize"] {
        let out_dir = work.path().join(purge);
        let (device, path) = (
            format!("target.device={}", dev.dev),
            format!("target.path={}", mnt.display()),
        );
        let purge_key = format!("target.purge={purge}");
        let args = [
            "run",
            "scenarios/quickstart.toml",
            "--out",
            out_dir.to_str().unwrap(),
            "--set",
            &device,
            "--set",
            "target.destroy_data=true",
            "--set",
            &path,
            "--set",
            &purge_key,
        ];
        let expected = format!(
            "target.purge: \"{purge}\" needs an NVMe namespace; {} is a loop device",
            dev.dev
        );
        // `plan` refuses it from sysfs, `run` at preflight with the device claimed.
        let planned = [&["plan", "scenarios/quickstart.toml"][..], &args[4..]].concat();
        for out in [run(&planned), run(&args)] {
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{purge}: {err}");
            assert!(err.contains(&expected), "{purge}: {err}");
        }
        assert!(
            !work.path().join(purge).exists(),
            "{purge}: a run directory"
        );
    }
    assert_eq!(first(&dev), before, "the device's data was touched");
    assert_eq!(dev.allocated_bytes(), allocated);
    assert!(!mnt.exists(), "the mount point was made");
}
