//! What a test needs from the machine beyond the crate (a server binary, a browser, the TDS
//! emulator, a Python package, the Ansible venv), and the one rule when it is missing: outside
//! CI the test prints one `skipped: <test>: <what> (install: <how>)` line and passes; under
//! `CI=true` it fails, so CI never skips by accident. `bash scripts/test.sh` installs all of
//! them.
//!
//! The line is written to the process's stderr directly, not through `eprintln!`, so it shows
//! in `cargo test`'s output although the test passes (the harness captures only the print
//! macros).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One thing a test needs from the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// `mariadbd` (or `mysqld`) and its data-directory installer.
    Mariadb,
    /// PostgreSQL's `postgres` and `initdb`.
    Postgres,
    /// Headless Chromium, which renders report.html.
    Chromium,
    /// The TDS emulator `iridium-server` (not Microsoft SQL Server).
    TdsEmulator,
    /// Python's `prometheus_client`, whose parser reads the live metrics page.
    PrometheusClient,
    /// The Ansible venv (ansible-playbook, ansible-lint), and root for the hosts it makes.
    Ansible,
    /// `mkfs.xfs` (xfsprogs), which makes a start state's XFS.
    Xfs,
}

impl Need {
    /// How to install it.
    fn install(self) -> &'static str {
        match self {
            Need::Mariadb => "apt-get install mariadb-server",
            Need::Postgres => "apt-get install postgresql",
            Need::Chromium => "apt-get install chromium",
            Need::TdsEmulator => {
                "cargo install --locked --root ~/.cache/drivebench-ci iridium_server@0.1.13"
            }
            Need::PrometheusClient => "pip install prometheus_client",
            Need::Ansible => "bash scripts/test.sh makes ~/.cache/drivebench-ci/ansible-venv; root",
            Need::Xfs => "apt-get install xfsprogs",
        }
    }

    /// Why it cannot be used here, when it cannot.
    pub fn missing(self) -> Option<String> {
        match self {
            Need::Mariadb => drivebench::engines::mysql::server::locate_server(None)
                .is_err()
                .then(|| "no mariadbd or mysqld (PATH, /usr/sbin, /usr/libexec)".to_string()),
            Need::Postgres => drivebench::engines::postgres::server::locate_server(None)
                .is_err()
                .then(|| "no postgres and initdb (PATH, /usr/lib/postgresql/*/bin)".to_string()),
            Need::Chromium => chromium()
                .is_none()
                .then(|| "no chromium in /usr/bin".to_string()),
            Need::TdsEmulator => iridium().is_none().then(|| {
                "iridium-server not found (IRIDIUM_SERVER, ~/.cache/drivebench-ci/bin, PATH)"
                    .to_string()
            }),
            Need::PrometheusClient => (!python_has("prometheus_client"))
                .then(|| "python3 cannot import prometheus_client".to_string()),
            Need::Ansible => ansible_missing(),
            Need::Xfs => ["/usr/sbin/mkfs.xfs", "/sbin/mkfs.xfs"]
                .iter()
                .all(|p| !is_executable(Path::new(p)))
                .then(|| "no mkfs.xfs in /usr/sbin or /sbin".to_string()),
        }
    }
}

/// Whether every one of `needs` is here. When one is not: under `CI=true` the test fails
/// naming it; otherwise one `skipped:` line is printed and the caller returns (passes).
pub fn have(needs: &[Need]) -> bool {
    let Some((need, why)) = needs.iter().find_map(|n| n.missing().map(|why| (*n, why))) else {
        return true;
    };
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{test}: CI must have {need:?}: {why} (bash scripts/test.sh installs it)"
    );
    let line = format!("skipped: {test}: {why} (install: {})\n", need.install());
    // Straight to the file descriptor: the harness would hide eprintln! of a passing test.
    let _ = std::io::stderr().write_all(line.as_bytes());
    false
}

/// `need!(Mariadb, Chromium)` at a test's start: return (after the skip line) unless every
/// named `Need` is here; fail under CI=true.
macro_rules! need {
    ($($n:ident),+) => {
        if !$crate::common::needs::have(&[$($crate::common::needs::Need::$n),+]) {
            return;
        }
    };
}
pub(crate) use need;

/// The Chromium binary, when there is one.
pub fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| is_executable(Path::new(p)))
}

/// The TDS emulator's binary: IRIDIUM_SERVER, the CI cache, or PATH.
pub fn iridium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IRIDIUM_SERVER") {
        return Some(PathBuf::from(p)).filter(|p| is_executable(p));
    }
    let cached = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/drivebench-ci/bin/iridium-server"));
    if let Some(p) = cached.filter(|p| is_executable(p)) {
        return Some(p);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("iridium-server"))
            .find(|p| is_executable(p))
    })
}

/// The venv holding ansible-playbook and ansible-lint.
pub fn ansible_venv() -> PathBuf {
    std::env::var_os("DRIVEBENCH_ANSIBLE_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").unwrap_or_default();
            Path::new(&home).join(".cache/drivebench-ci/ansible-venv")
        })
}

fn ansible_missing() -> Option<String> {
    let dir = ansible_venv();
    if !dir.join("bin/ansible-playbook").exists() {
        return Some(format!("no Ansible venv at {}", dir.display()));
    }
    (!rustix::process::geteuid().is_root())
        .then(|| "the Ansible test makes loop devices and users: it needs root".to_string())
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success())
}

/// A regular file with an execute bit (a browser hidden behind /dev/null is not one).
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
