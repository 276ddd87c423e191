//! What preflight refuses before anything starts: `plan` shows it as an error finding, `run`
//! exits 2 without creating the run directory or starting a server — a missing `server_bin`, an
//! unset `password_env`, a target that cannot be written.

use std::path::Path;
use std::process::Command;

use crate::common::needs::need;
use crate::common::{run, text};

/// `run` refused before anything started: exit 2, `message` on stderr, no run directory.
fn assert_refused(args: &[&str], out_dir: &Path, message: &str) {
    let out = run(args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(message), "{err}");
    assert!(!out_dir.exists(), "nothing created: {}", out_dir.display());
}

#[test]
fn a_server_bin_that_does_not_exist_is_refused_by_plan_and_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    for (scenario, key) in [
        (
            "scenarios/ci-sysbench-mariadb.toml",
            "instance.0.config.server_bin",
        ),
        (
            "scenarios/ci-sysbench-postgres.toml",
            "instance.0.config.server_bin",
        ),
    ] {
        let set = format!("{key}=\"/nonexistent/server\"");
        let out = run(&["plan", scenario, "--set", &set]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
        assert!(
            text(&out.stderr).contains("/nonexistent/server"),
            "{}",
            text(&out.stderr)
        );
        let target = tmp.path().join("target");
        assert_refused(
            &[
                "run",
                scenario,
                "--set",
                &set,
                "--out",
                out_dir.to_str().unwrap(),
                "--target",
                target.to_str().unwrap(),
            ],
            &out_dir,
            "/nonexistent/server",
        );
        assert!(!target.exists(), "no target created for {scenario}");
    }
}

#[test]
fn an_unset_password_variable_is_an_error_finding_of_plan() {
    let out = run(&[
        "plan",
        "scenarios/ci-sysbench-mariadb.toml",
        "--set",
        "instance.0.provision=external",
        "--set",
        "instance.0.url=\"mysql://bench@127.0.0.1:1/sbtest\"",
        "--set",
        "instance.0.password_env=DRIVEBENCH_TEST_UNSET_PASSWORD",
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("error    instance mariadb-1: password_env DRIVEBENCH_TEST_UNSET_PASSWORD is not set; `run` would refuse"),
        "{stdout}"
    );
}

/// A read-only bind mount over a directory, undone on drop.
struct ReadOnly<'a>(&'a Path);

impl<'a> ReadOnly<'a> {
    fn mount(dir: &'a Path) -> Option<Self> {
        let ok = |args: &[&str]| {
            Command::new("mount")
                .args(args)
                .status()
                .is_ok_and(|s| s.success())
        };
        let d = dir.to_str().unwrap();
        if !ok(&["--bind", d, d]) {
            return None;
        }
        let guard = ReadOnly(dir);
        ok(&["-o", "remount,ro,bind", d]).then_some(guard)
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

#[test]
fn a_read_only_target_is_refused_before_anything_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let Some(_ro) = ReadOnly::mount(&target) else {
        eprintln!("skipped: cannot make a read-only bind mount here (needs root)");
        return;
    };
    let out_dir = tmp.path().join("run");
    assert_refused(
        &[
            "run",
            "scenarios/quickstart.toml",
            "--time-scale",
            "0.01",
            "--out",
            out_dir.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
        ],
        &out_dir,
        "cannot be written",
    );
}

/// A private PostgreSQL runs as its own account when drivebench is root: a target below a
/// directory that account cannot pass is refused by `plan` and by `run` before anything
/// starts, naming the directory and the fix.
#[test]
fn a_target_postgres_cannot_reach_is_refused_before_anything_starts() {
    need!(Postgres);
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: PostgreSQL runs as drivebench's own user when it is not root");
        return;
    }
    // Mode 0700, owned by root: closed to the `postgres` account.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let target = tmp.path().join("target");
    let scenario = "scenarios/ci-sysbench-postgres.toml";
    let shown = tmp.path().display().to_string();
    let out = run(&["plan", scenario, "--target", target.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}{err}", text(&out.stdout));
    assert!(err.contains(&shown) && err.contains("chmod o+x"), "{err}");
    let out_dir = tmp.path().join("run");
    assert_refused(
        &[
            "run",
            scenario,
            "--out",
            out_dir.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
        ],
        &out_dir,
        "cannot reach it",
    );
    assert!(!target.exists(), "no target created");
}

/// A server that accepts the connection but never answers (a hung or blackholed host): the
/// connection probe gives up after its timeout and `run` refuses before anything starts,
/// naming host and port.
#[test]
fn an_external_server_that_never_answers_is_refused_before_anything_starts() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let place = silent.local_addr().unwrap().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("run");
    let url = format!("instance.0.url=\"postgres://bench@{place}/tpcc\"");
    let started = std::time::Instant::now();
    assert_refused(
        &[
            "run",
            "scenarios/ci-sysbench-postgres.toml",
            "--set",
            "instance.0.provision=external",
            "--set",
            &url,
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &out_dir,
        &format!("cannot connect to {place}: no answer within 15 s"),
    );
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
}
