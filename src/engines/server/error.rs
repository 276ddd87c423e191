//! Why a private instance could not be initialised, started or stopped, with what the user
//! needs to act: the paths involved and the last lines the server or its installer wrote.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Lines of a log quoted in an error.
pub const TAIL_LINES: usize = 20;

/// At most this many bytes are read from the end of a log to find its last lines.
const TAIL_WINDOW_BYTES: u64 = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ProvisionError {
    #[error(
        "no database server binary found: looked for {names} in {searched}; set `server_bin` in \
         [instance.config] to the mariadbd or mysqld to use, or install MariaDB with \
         `apt-get install -y mariadb-server`"
    )]
    ServerNotFound { names: String, searched: String },
    #[error(
        "{tool} not found next to {} or in {searched}; it ships with the server \
         (`apt-get install -y mariadb-server`)", .server.display()
    )]
    InstallToolNotFound {
        tool: &'static str,
        server: PathBuf,
        searched: String,
    },
    #[error("cannot run {}: {source}", .program.display())]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {reason}", .path.display())]
    UnusablePath { path: PathBuf, reason: String },
    #[error("extra.{key} cannot be set: drivebench manages it for a private instance")]
    ManagedVariable { key: String },
    #[error("cannot find a free TCP port on 127.0.0.1: {source}")]
    NoFreePort {
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{} is in use by a running server (pid {pid}); stop it (`kill {pid}`) or use another \
         directory", .dir.display()
    )]
    AlreadyRunning { dir: PathBuf, pid: u32 },
    /// Initialising a new data directory in `dir` failed; its files are `dir/error.log`
    /// (the server's messages) and `dir/install.log` (the installer's output).
    #[error(
        "initialising a data directory in {} with {} failed ({outcome})\n\
         --- last lines of {}:\n{log_tail}\n--- last lines of its output ({}):\n{output_tail}",
        .dir.display(), .program.display(), .dir.join("error.log").display(),
        .dir.join("install.log").display()
    )]
    Init {
        dir: PathBuf,
        program: PathBuf,
        outcome: Incomplete,
        output_tail: String,
        log_tail: String,
    },
    #[error(
        "server {} exited during start-up ({status})\n--- last lines of {}:\n{log_tail}",
        .server.display(), .log.display()
    )]
    StartFailed {
        server: PathBuf,
        status: String,
        log: PathBuf,
        log_tail: String,
    },
    #[error(
        "server {} (pid {pid}) did not accept connections on 127.0.0.1:{port} within {timeout:?}; \
         it was stopped\n--- last lines of {}:\n{log_tail}",
        .server.display(), .log.display()
    )]
    NotReady {
        server: PathBuf,
        pid: u32,
        port: u16,
        timeout: Duration,
        log: PathBuf,
        log_tail: String,
    },
    #[error(
        "stopping the server in {} (pid {pid}): {reason}\n--- last lines of {}:\n{log_tail}",
        .dir.display(), .log.display()
    )]
    Stop {
        dir: PathBuf,
        pid: u32,
        reason: String,
        log: PathBuf,
        log_tail: String,
    },
    #[error(
        "no PostgreSQL {tool} found in {searched}; set `server_bin` in [instance.config] to the \
         directory holding postgres and initdb (e.g. /usr/lib/postgresql/15/bin), or install \
         PostgreSQL with `apt-get install -y postgresql`"
    )]
    PostgresNotFound {
        tool: &'static str,
        searched: String,
    },
    #[error("SQL Server is not installed here: no executable {searched}; {hint}")]
    MssqlNotFound {
        searched: String,
        /// What to install or set instead.
        hint: &'static str,
    },
    /// `initdb` could not create a new PostgreSQL data directory in `dir`.
    #[error(
        "initialising a data directory in {} with {} failed ({outcome})\n\
         --- last lines of its output ({}):\n{output_tail}",
        .dir.display(), .program.display(), .log.display()
    )]
    Initdb {
        dir: PathBuf,
        program: PathBuf,
        outcome: Incomplete,
        log: PathBuf,
        output_tail: String,
    },
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ProvisionError {
    pub(crate) fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| ProvisionError::Io {
            action,
            path,
            source,
        }
    }
}

/// Current length of a log file (0 when absent), to quote later only what was appended since.
pub(crate) fn log_len(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// The last [`TAIL_LINES`] lines written to `path` at or after byte `from` (the whole file when
/// it has shrunk below `from` since), or a note saying why there are none.
pub(crate) fn log_tail(path: &Path, from: u64) -> String {
    match read_tail(path, from) {
        Ok(text) if text.trim().is_empty() => "(empty)".to_string(),
        Ok(text) => text,
        Err(err) => format!("(cannot read: {err})"),
    }
}

fn read_tail(path: &Path, from: u64) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let from = if from > len { 0 } else { from };
    let start = from.max(len.saturating_sub(TAIL_WINDOW_BYTES));
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    Ok(lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n"))
}

/// Why a command run to completion did not complete successfully.
#[derive(Debug, thiserror::Error)]
pub enum Incomplete {
    #[error("{0}")]
    Exited(std::process::ExitStatus),
    #[error("did not finish within {0:?}")]
    TimedOut(std::time::Duration),
    #[error("cannot wait for it: {0}")]
    Wait(#[source] std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_quotes_the_last_lines_appended_since_an_offset() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("error.log");
        assert_eq!(log_len(&log), 0);
        assert!(log_tail(&log, 0).starts_with("(cannot read: "));
        std::fs::write(&log, "old run\n").unwrap();
        let from = log_len(&log);
        assert_eq!(log_tail(&log, from), "(empty)");
        let new: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&log, format!("old run\n{new}")).unwrap();
        let tail = log_tail(&log, from);
        assert_eq!(tail.lines().count(), TAIL_LINES);
        assert!(
            tail.starts_with("line 11\n") && tail.ends_with("line 30"),
            "{tail}"
        );
        // A log that shrank (rotated, truncated) is quoted from its start.
        std::fs::write(&log, "fresh\n").unwrap();
        assert_eq!(log_tail(&log, from + 100), "fresh");
    }
}
