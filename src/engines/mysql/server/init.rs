//! The instance directory between runs: telling an initialised data directory from anything
//! else, initialising a new one (into `data.init`, renamed to `data` only once complete), and
//! clearing the socket and pid file a crashed server leaves behind.

use std::io::ErrorKind;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::config::Layout;
use super::locate::{self, Flavor, Server};
use crate::engines::server::error::{log_len, log_tail};
use crate::engines::server::init::{NewData, absent_or_empty};
use crate::engines::server::{ProvisionError, has_exited};

/// Whether `layout.data` holds an initialised server (its `mysql` system schema). An empty or
/// absent data directory is not; one holding other files is refused rather than overwritten.
pub fn is_initialised(layout: &Layout) -> Result<bool, ProvisionError> {
    if layout.data.join("mysql").is_dir() {
        return Ok(true);
    }
    absent_or_empty(
        &layout.data,
        "holds files but no initialised server (no mysql/ directory); \
         remove it or use another directory",
    )
}

/// Create the system tables in a new data directory: `mariadb-install-db` for MariaDB,
/// `mysqld --initialize-insecure` for MySQL; root gets an empty password either way.
pub fn initialise(
    server: &Server,
    layout: &Layout,
    timeout: Duration,
) -> Result<(), ProvisionError> {
    let mut command = match server.flavor {
        Flavor::Mariadb => {
            let mut command = Command::new(locate::install_tool(&server.path)?);
            command
                .arg(format!("--defaults-file={}", layout.config.display()))
                .arg(format!("--datadir={}", layout.data_init.display()))
                .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
                .arg("--skip-name-resolve");
            // The installation the server belongs to (/usr for /usr/sbin/mariadbd), so that a
            // tarball's installer finds its own server and SQL scripts.
            if let Some(base) = server.path.parent().and_then(Path::parent) {
                command.arg(format!("--basedir={}", base.display()));
            }
            command
        }
        Flavor::Mysql => {
            let mut command = Command::new(&server.path);
            command
                .arg(format!("--defaults-file={}", layout.config.display()))
                .arg("--initialize-insecure")
                .arg(format!("--datadir={}", layout.data_init.display()));
            command
        }
    };
    if rustix::process::getuid().is_root() {
        command.arg("--user=root");
    }
    let program = Path::new(command.get_program()).to_path_buf();
    let log_from = log_len(&layout.error_log);
    let failed = |outcome| ProvisionError::Init {
        dir: layout.dir.clone(),
        program,
        outcome,
        output_tail: log_tail(&layout.install_log, 0),
        log_tail: log_tail(&layout.error_log, log_from),
    };
    let new = NewData {
        data: &layout.data,
        data_init: &layout.data_init,
        output: &layout.install_log,
    };
    new.initialise(&mut command, timeout, failed, |_| Ok(()))
}

/// Refuse a directory a server is still running in (its pid file names a live process started
/// with this directory's `my.cnf`); otherwise remove what a crashed server left behind.
pub fn clear_leftovers(layout: &Layout) -> Result<(), ProvisionError> {
    let pid = std::fs::read_to_string(&layout.pid_file)
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok());
    if let Some(pid) = pid
        && !has_exited(pid)
        && runs_with_config(pid, &layout.config)
    {
        return Err(ProvisionError::AlreadyRunning {
            dir: layout.dir.clone(),
            pid,
        });
    }
    remove_runtime_files(layout);
    Ok(())
}

/// Remove the socket and pid file of a server that is no longer running (best effort).
pub fn remove_runtime_files(layout: &Layout) {
    for path in [&layout.socket, &layout.pid_file] {
        match std::fs::remove_file(path) {
            Err(err) if err.kind() != ErrorKind::NotFound => {
                tracing::warn!(path = %path.display(), %err, "cannot remove");
            }
            _ => {}
        }
    }
}

fn runs_with_config(pid: u32, config: &Path) -> bool {
    let wanted = format!("--defaults-file={}", config.display());
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        cmdline
            .split(|&b| b == 0)
            .any(|arg| arg == wanted.as_bytes())
    })
}
