//! `drivebench sweep` interrupted: Ctrl-C stops the current point, and everything measured so
//! far is in result.json (status "interrupted") and sweeps.csv, with exit code 130.

use std::path::Path;
use std::time::Duration;

use crate::common::{bin, read_json, root, validate, wait_exit};

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn ctrl_c_keeps_the_points_measured_so_far_and_exits_130() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let out = tmp.path().join("run");
    let mut child = bin()
        .arg("sweep")
        .args(["--target", p(&tmp.path().join("t.dat")), "--size", "32MiB"])
        .args([
            "--profile",
            "4k-random-write-128",
            "--warmup",
            "0s",
            "--duration",
            "500ms",
        ])
        .args([
            "--curve",
            "10,20,30,40,50,60,70,80,90,100",
            "--out",
            p(&out),
        ])
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // result.json is rewritten after every point: wait for the second one.
    let path = out.join("result.json");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|r| {
            r["sweeps"][0]["points"]
                .as_array()
                .is_some_and(|a| a.len() >= 2)
        })
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no point after 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = wait_exit(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(130));
    let r = read_json(&path);
    validate("schemas/json/result.schema.json", &r);
    assert_eq!(
        (r["status"].as_str(), r["complete"].as_bool()),
        (Some("interrupted"), Some(false))
    );
    let w = &r["sweeps"][0];
    assert_eq!(w["stopped_early"], true);
    let n = w["points"].as_array().unwrap().len();
    assert!((2..11).contains(&n), "{n} points");
    let csv = std::fs::read_to_string(out.join("sweeps.csv")).unwrap();
    assert_eq!(csv.lines().count(), n + 1, "{csv}");
}
