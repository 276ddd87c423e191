//! Helpers shared by the integration tests: the built binary and a scratch directory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drivebench"))
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(root())
        .output()
        .expect("run drivebench")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `drivebench run scenarios/quickstart.toml --quiet` with a time scale, run directory, target
/// and `--set` overrides.
pub fn run_quickstart(time_scale: &str, out: &Path, target: &Path, sets: &[&str]) -> Output {
    let mut cmd = bin();
    cmd.args([
        "run",
        "scenarios/quickstart.toml",
        "--quiet",
        "--time-scale",
        time_scale,
    ]);
    cmd.arg("--out").arg(out).arg("--target").arg(target);
    for s in sets {
        cmd.args(["--set", s]);
    }
    cmd.current_dir(root()).output().expect("run drivebench")
}
