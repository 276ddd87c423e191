//! The drive's health log: its parsers through the public API on pages built from the NVMe
//! and OCP specifications' layouts, the NVMe admin passthrough's and the ATA pass-through's
//! refusal on a real loop device, and
//! a real SQLite run on a loop device's filesystem, whose every phase records why no log was
//! read, once on the console and in summary.md, and whose series rows have no throttle mark
//! (series.csv's `drive_throttled` empty).

use std::path::Path;

use drivebench_system::health::nvme::NvmeSmart;
use drivebench_system::health::ocp::{self, OcpSmart};
use drivebench_system::health::passthru::{self, PassthruError};
use drivebench_system::health::read::{HealthLog, HealthRead, read};
use drivebench_system::health::sgio::{self, SgIoError};
use drivebench_system::health::{HealthDelta, PageError};
use drivebench_system::sysfs::BlockDevice;

use crate::common::loopfs::LoopFs;
use crate::common::{bin, read_json, root, run, text};

/// An NVMe SMART page with the host's data units written (bytes 48-63) and read (32-47), the
/// composite temperature (1-2) and thermal management temperature 1's count (216-219).
fn nvme_page(written: u128, read: u128, kelvin: u16, tmt1: u32) -> Vec<u8> {
    let mut p = vec![0u8; 512];
    p[1..3].copy_from_slice(&kelvin.to_le_bytes());
    p[32..48].copy_from_slice(&read.to_le_bytes());
    p[48..64].copy_from_slice(&written.to_le_bytes());
    p[216..220].copy_from_slice(&tmt1.to_le_bytes());
    p
}

/// An OCP extended SMART page with media bytes written (bytes 0-15) and the log GUID at
/// 496-511, its bytes as the specification lists them lowest first.
fn ocp_page(media_written: u128) -> Vec<u8> {
    let mut p = vec![0u8; 512];
    p[0..16].copy_from_slice(&media_written.to_le_bytes());
    p[496..512].copy_from_slice(&[
        0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5,
        0xAF,
    ]);
    p
}

fn log(nvme: &[u8], ocp: &[u8]) -> HealthLog {
    HealthLog::Nvme {
        smart: NvmeSmart::parse(nvme).unwrap(),
        ocp: Some(OcpSmart::parse(ocp).unwrap()),
    }
}

#[test]
fn a_phase_on_an_ocp_drive_gives_host_and_media_bytes_and_their_ratio() {
    let before = log(&nvme_page(10_000, 500, 310, 0), &ocp_page(8_000_000_000));
    // The host wrote 4,000 units (2.048 GB), the media 6.144 GB: write amplification 3.
    let after = log(&nvme_page(14_000, 700, 325, 1), &ocp_page(14_144_000_000));
    let d = HealthDelta::between(&before, &after).unwrap();
    assert_eq!(d.host_bytes_written, Some(2_048_000_000));
    assert_eq!(d.host_bytes_read, Some(102_400_000));
    assert_eq!(d.media_bytes_written, Some(6_144_000_000));
    assert_eq!(d.write_amplification, Some(3.0));
    assert!((d.temperature_max_c.unwrap() - 51.85).abs() < 1e-9);
    assert_eq!(d.thermal_transitions, 1);
    assert!(
        d.throttled,
        "one entry into thermal management temperature 1"
    );
}

#[test]
fn pages_that_are_not_the_log_are_refused() {
    let mut vendor = ocp_page(1);
    vendor[496..512].copy_from_slice(&[0x11; 16]);
    assert_eq!(
        OcpSmart::parse(&vendor),
        Err(PageError::Guid {
            log: "OCP extended SMART log",
            found: u128::from_le_bytes([0x11; 16]),
            expected: ocp::GUID,
        })
    );
    assert!(matches!(
        NvmeSmart::parse(&nvme_page(1, 1, 300, 0)[..64]),
        Err(PageError::Length { len: 64, .. })
    ));
}

/// A loop device and its filesystem, or None (skipped) where this host cannot make one.
fn loop_fs(mib: u64) -> Option<LoopFs> {
    match LoopFs::new(mib) {
        Ok(fs) => Some(fs),
        Err(why) => {
            assert!(std::env::var("CI").is_err(), "CI runs as root: {why}");
            eprintln!("skipped: {why}");
            None
        }
    }
}

#[test]
fn the_admin_passthrough_is_refused_by_a_loop_device() {
    let Some(fs) = loop_fs(16) else { return };
    match passthru::log_page(Path::new(&fs.dev), 0x02) {
        Err(PassthruError::Refused {
            opcode: 0x02,
            cdw10: 0x007F_0002,
            ..
        }) => {}
        other => panic!("{}: expected the kernel's refusal, got {other:?}", fs.dev),
    }
    match sgio::smart_data(Path::new(&fs.dev)) {
        Err(SgIoError::Refused { .. }) => {}
        other => panic!("{}: expected the kernel's refusal, got {other:?}", fs.dev),
    }
    let name = Path::new(&fs.dev).file_name().unwrap().to_str().unwrap();
    let disk = BlockDevice::at(std::fs::canonicalize(format!("/sys/block/{name}")).unwrap());
    assert_eq!(
        read(&disk),
        HealthRead::Unavailable {
            reason: "loop device: not NVMe or ATA".into()
        }
    );
}

#[test]
fn a_run_on_a_loop_device_says_once_that_it_has_no_health_log() {
    let Some(fs) = loop_fs(256) else { return };
    let out_dir = tempfile::tempdir().unwrap();
    let run_dir = out_dir.path().join("run");
    let out = bin()
        .args(["run", "scenarios/quickstart.toml", "--time-scale", "0.02"])
        .args(["--set", "workload.table_size=1000"])
        .arg("--out")
        .arg(&run_dir)
        .arg("--target")
        .arg(fs.mnt.join("target"))
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let dev = Path::new(&fs.dev).file_name().unwrap().to_str().unwrap();
    let line = format!("drive health: no health log on {dev} (loop device: not NVMe or ATA)");
    assert_eq!(
        stderr.matches(&line).count(),
        1,
        "one line per run:\n{stderr}"
    );
    let result = read_json(&run_dir.join("result.json"));
    let phases = result["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2);
    for p in phases {
        assert_eq!(
            p["health"],
            serde_json::json!({
                "state": "unavailable",
                "device": dev,
                "reason": "loop device: not NVMe or ATA",
            }),
            "{}",
            p["name"]
        );
    }
    // No log: never read per interval, so no row has a mark and the column stays empty.
    let rows: Vec<&serde_json::Value> = (phases.iter())
        .flat_map(|p| p["series"].as_array().unwrap())
        .collect();
    assert!(!rows.is_empty());
    for row in &rows {
        let fields = row.as_object().unwrap();
        assert!(fields.contains_key("late_starts"), "{row}");
        assert!(!fields.contains_key("drive_throttle"), "{row}");
    }
    let csv = std::fs::read_to_string(run_dir.join("series.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = (header.iter().position(|c| *c == "drive_throttled")).expect("the column");
    let lines: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(lines.len(), rows.len());
    for l in lines {
        let cells: Vec<&str> = l.split(',').collect();
        assert_eq!(cells.len(), header.len(), "{l}");
        assert_eq!(cells[col], "", "{l}");
    }
    let summary = std::fs::read_to_string(run_dir.join("summary.md")).unwrap();
    let section = summary.split("## Drive health").nth(1).expect(&summary);
    assert!(section.trim_start().starts_with(&line), "{summary}");
    assert!(!section.contains("intervals of"), "{section}");
    assert_eq!(section.matches(&line).count(), 1, "{summary}");
    let html = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    assert!(html.contains("Drive health</h2>") && html.contains(&line));
}

/// A result fixture whose phases carry a health record read from these pages: the host wrote
/// 4,000 data units, the media three times as much; `tmt1` entries into light throttling,
/// which, when there are any, marked sample's third and fourth intervals (every other one
/// read and clear).
fn fixture_with_health(dir: &Path, fixture: &str, tmt1: u32) -> std::path::PathBuf {
    let mut r = read_json(&root().join(fixture));
    let before = log(&nvme_page(10_000, 500, 310, 0), &ocp_page(8_000_000_000));
    let after = log(
        &nvme_page(14_000, 700, 325, tmt1),
        &ocp_page(14_144_000_000),
    );
    let delta = HealthDelta::between(&before, &after).unwrap();
    let health = serde_json::json!({
        "state": "read",
        "device": "nvme0n1",
        "before": before,
        "after": after,
        "delta": delta,
    });
    for p in r["phases"].as_array_mut().unwrap() {
        p["health"] = health.clone();
        // Read at every interval: clear, but where `tmt1` moved, sample's third and fourth.
        let name = p["name"].clone();
        for (i, row) in p["series"].as_array_mut().unwrap().iter_mut().enumerate() {
            let hot = tmt1 > 0 && name == "sample" && (i == 2 || i == 3);
            row["drive_throttle"] = if hot { "throttled" } else { "clear" }.into();
        }
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("result.json"), r.to_string()).unwrap();
    dir.to_path_buf()
}

#[test]
fn a_throttled_drive_is_marked_in_the_report_and_warned_of_in_compare() {
    let tmp = tempfile::tempdir().unwrap();
    let hot = fixture_with_health(&tmp.path().join("hot"), "tests/data/compare/a.json", 2);
    let cool = fixture_with_health(&tmp.path().join("cool"), "tests/data/compare/b.json", 0);
    let out = run(&["report", hot.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary = std::fs::read_to_string(hot.join("summary.md")).unwrap();
    let section = summary.split("## Drive health").nth(1).expect(&summary);
    for row in [
        "| sample | nvme0n1 | 1.9 GiB | 97.7 MiB | 5.7 GiB | 3.00 | 52 | 0 | 2 | 0 | yes |",
        "| precondition | nvme0n1 | 1.9 GiB |",
    ] {
        assert!(section.contains(row), "{row}\n{section}");
    }
    assert!(
        section.contains("The drive throttled (thermal) in: precondition, sample."),
        "{section}"
    );
    assert!(
        section.contains("The drive throttled (thermal) in 2 of 6 intervals of sample: 8-11 s."),
        "{section}"
    );
    assert!(!section.contains("intervals of precondition"), "{section}");
    let html = std::fs::read_to_string(hot.join("report.html")).unwrap();
    assert!(
        html.contains("<td class=\"l\">yes</td>"),
        "the throttled cell"
    );
    // Shaded on both time-series charts (TPS, latency).
    assert_eq!(html.matches("class=\"band\"").count(), 2, "{html}");
    let csv = std::fs::read_to_string(hot.join("series.csv")).unwrap();
    let marks: Vec<&str> = (csv.lines())
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(
        marks,
        [
            "drive_throttled",
            "no",
            "no",
            "no",
            "no",
            "no",
            "yes",
            "yes",
            "no",
            "no"
        ]
    );
    let cmp = tmp.path().join("cmp");
    let out = run(&[
        "compare",
        hot.join("result.json").to_str().unwrap(),
        cool.join("result.json").to_str().unwrap(),
        "--label",
        &format!("hot={}", hot.join("result.json").display()),
        "--label",
        &format!("cool={}", cool.join("result.json").display()),
        "--out",
        cmp.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = read_json(&cmp.join("compare.json"));
    let flags: Vec<(&str, &serde_json::Value, &serde_json::Value)> =
        (json["runs"].as_array().unwrap().iter())
            .map(|r| {
                let label = r["label"].as_str().unwrap();
                (label, &r["throttled"], &r["throttled_intervals"])
            })
            .collect();
    assert_eq!(
        flags,
        [
            ("hot", &serde_json::json!(true), &serde_json::json!(2)),
            ("cool", &serde_json::json!(false), &serde_json::json!(0))
        ]
    );
    assert_eq!(json["runs"][0]["read_intervals"], 9);
    let md = std::fs::read_to_string(cmp.join("compare.md")).unwrap();
    assert!(
        md.contains("the drive throttled (thermal) during hot (2 of 9 intervals):"),
        "{md}"
    );
    assert_eq!(
        md.matches("the drive throttled").count(),
        1,
        "warned once: {md}"
    );
    assert!(!md.contains("during hot, cool"), "{md}");
}
