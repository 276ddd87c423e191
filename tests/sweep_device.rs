//! `drivebench sweep` on a block device (a loop device over a scratch file): refused without
//! --destroy-data and while mounted, each with exit code 2 naming the reason; swept when idle,
//! with the device's identity in result.json. Needs root and losetup/mkfs.ext4/mount; skipped
//! with a printed reason where they are missing.

use std::path::Path;
use std::process::Command;

use crate::common::{bin, read_json, root, text};

/// Commands undone in reverse order when the test ends, however it ends.
struct Cleanup(Vec<Vec<String>>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for cmd in self.0.iter().rev() {
            let _ = Command::new(&cmd[0]).args(&cmd[1..]).status();
        }
    }
}

fn sh(args: &[&str]) -> Result<String, String> {
    let o = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args[0]))?;
    if !o.status.success() {
        return Err(format!("{args:?}: {}", text(&o.stderr)));
    }
    Ok(text(&o.stdout).trim().to_string())
}

fn unavailable() -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some("not root".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("no /dev/loop-control".into());
    }
    ["losetup", "mkfs.ext4", "mount", "umount"]
        .into_iter()
        .find(|t| sh(&["sh", "-c", &format!("command -v {t}")]).is_err())
        .map(|t| format!("{t} is not installed"))
}

fn sweep(dev: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .args(["sweep", "--target", dev, "--profile", "4k-random-write-128"])
        .args(["--warmup", "0s", "--duration", "300ms", "--curve", "50"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn a_block_device_is_swept_only_with_consent_and_when_idle() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let image = tmp.path().join("disk.img");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let mut cleanup = Cleanup(Vec::new());
    let dev = match sh(&["losetup", "-f", "--show", image.to_str().unwrap()]) {
        Ok(dev) => dev,
        Err(e) => {
            eprintln!("skipped: losetup failed: {e}");
            return;
        }
    };
    cleanup
        .0
        .push(vec!["losetup".into(), "-d".into(), dev.clone()]);
    let out = tmp.path().join("run");

    let o = sweep(&dev, &out, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("refusing without --destroy-data"),
        "{}",
        text(&o.stderr)
    );

    sh(&["mkfs.ext4", "-q", &dev]).expect("mkfs.ext4");
    let mnt = tmp.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&["mount", &dev, mnt.to_str().unwrap()]).expect("mount");
    cleanup
        .0
        .push(vec!["umount".into(), mnt.display().to_string()]);
    let o = sweep(&dev, &out, &["--destroy-data"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{dev} is mounted on {}", mnt.display())),
        "{err}"
    );
    assert!(!out.exists());
    sh(&["umount", mnt.to_str().unwrap()]).expect("umount");

    let o = sweep(&dev, &out, &["--destroy-data", "--fill", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let r = read_json(&out.join("result.json"));
    let name = Path::new(&dev).file_name().unwrap().to_str().unwrap();
    assert_eq!(r["environment"]["target"]["path"], dev.as_str());
    assert_eq!(r["environment"]["target"]["device"]["name"], name);
    assert_eq!(
        r["environment"]["target"]["device"]["capacity_bytes"],
        64 << 20
    );
    assert_eq!(r["sweeps"][0]["device"]["name"], name);
    assert_eq!(r["sweeps"][0]["points"].as_array().unwrap().len(), 2);
    assert_eq!(
        r["plan"]["sweeps"][0]["target"]["device"]["destroy_data"],
        true
    );

    // Direct I/O on the bare device: the drive counts what the tool issued.
    let out = tmp.path().join("reads");
    let reads = || {
        bin()
            .args(["sweep", "--target", &dev, "--profile", "4k-random-read-128"])
            .args(["--warmup", "0s", "--duration", "4s", "--curve", "50"])
            .args(["--destroy-data", "--fill", "0", "--out"])
            .arg(&out)
            .current_dir(root())
            .output()
            .unwrap()
    };
    // After the writes above, udev may still hold the device open for a moment to probe it.
    let mut o = reads();
    for _ in 0..20 {
        if !text(&o.stderr).contains("is in use") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
        o = reads();
    }
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let r = read_json(&out.join("result.json"));
    for p in r["sweeps"][0]["points"].as_array().unwrap() {
        let d = &p["device"];
        assert_eq!(d["devices"][0], name, "{d}");
        let pct = d["device_vs_tool_pct"].as_f64().unwrap();
        assert!(
            (98.0..=102.0).contains(&pct),
            "device {pct:.2} % of the tool's IOPS: {p}"
        );
    }
}
