//! A private Microsoft SQL Server (`sqlservr` on Linux) with everything on the target: one
//! directory holding `data` (master, model, msdb, tempdb and the benchmark database), `log`
//! (their transaction logs and the server's error log), `backup`, `dump`, and `server.log`
//! (what sqlservr prints). Started on a free 127.0.0.1 port; the `sa` password is random, set
//! when the system databases are created and kept in `sa.password` (mode 0600) so a kept
//! instance can be started again; settings come from SQL Server's documented `MSSQL_*` environment variables
//! (directories, port, edition, process memory limit) and, once it accepts connections, from
//! `sp_configure` (`max server memory (MB)` from `buffer_pool`). Stopped with SIGTERM (SQL
//! Server's clean shutdown) on every exit path, including `Drop`.
//!
//! Where SQL Server is not installed, [`locate`] says what to install; `plan` and `run` report
//! it before anything starts.

mod launch;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::engines::server::ProvisionError;
use crate::engines::server::error::log_tail;
use crate::engines::server::private::{Private, instance_dir};

pub use launch::{MssqlKind, PASSWORD_FILE};

/// A running private server; stopped when dropped unless [`detach`](Private::detach)ed.
pub type MssqlInstance = Private<MssqlKind>;

/// Where Microsoft's mssql-server package installs the server.
pub const DEFAULT_SERVER: &str = "/opt/mssql/bin/sqlservr";

/// What to install, for the error when the server is missing.
pub const INSTALL_HINT: &str = "install SQL Server 2022 for Linux (package mssql-server from \
     Microsoft's repository, https://learn.microsoft.com/sql/linux/quickstart-install-connect-ubuntu; \
     drivebench starts it itself, so skip `mssql-conf setup`), or set `server_bin` in \
     [instance.config] to its sqlservr, or attach to a running server with provision = \"external\" \
     and url = \"mssql://user@host:port/db\"";

/// The line sqlservr prints when it accepts connections.
pub const READY_LINE: &str = "SQL Server is now ready for client connections";

/// Settings of a private instance, already validated.
#[derive(Debug, Clone, PartialEq)]
pub struct MssqlSettings {
    /// The sqlservr binary; absent = [`DEFAULT_SERVER`].
    pub server_bin: Option<PathBuf>,
    /// MSSQL_PID: "Developer", "Evaluation", "Express" or a product key.
    pub edition: String,
    /// `max server memory (MB)`; absent = the server's default (most of the host's memory).
    pub max_server_memory_mb: Option<u64>,
}

/// The sqlservr to run, or why there is none.
pub fn locate(server_bin: Option<&Path>) -> Result<PathBuf, ProvisionError> {
    let path = server_bin.map_or_else(|| PathBuf::from(DEFAULT_SERVER), Path::to_path_buf);
    let executable = std::fs::metadata(&path).is_ok_and(|m| {
        use std::os::unix::fs::PermissionsExt;
        m.is_file() && m.permissions().mode() & 0o111 != 0
    });
    if executable {
        Ok(path)
    } else {
        Err(ProvisionError::MssqlNotFound {
            searched: path.display().to_string(),
            hint: INSTALL_HINT,
        })
    }
}

/// The instance directory's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub dir: PathBuf,
    pub data: PathBuf,
    pub log: PathBuf,
    pub backup: PathBuf,
    pub dump: PathBuf,
    /// What sqlservr prints (its error log, as UTF-8 text).
    pub server_log: PathBuf,
}

impl Layout {
    pub fn new(dir: &Path) -> Self {
        Layout {
            dir: dir.to_path_buf(),
            data: dir.join("data"),
            log: dir.join("log"),
            backup: dir.join("backup"),
            dump: dir.join("dump"),
            server_log: dir.join("server.log"),
        }
    }
}

impl Private<MssqlKind> {
    /// Start sqlservr called `name` with its files in `dir` (created if absent; system
    /// databases created there on the first start, reused after), wait until it accepts
    /// connections (its ready line, then a TCP connect), and apply `max server memory`.
    /// Blocking.
    pub fn start(
        name: &str,
        dir: &Path,
        settings: &MssqlSettings,
        timeout: Duration,
    ) -> Result<MssqlInstance, ProvisionError> {
        let server = locate(settings.server_bin.as_deref())?;
        let layout = Layout::new(&instance_dir(dir)?);
        for d in [&layout.data, &layout.log, &layout.backup, &layout.dump] {
            std::fs::create_dir_all(d).map_err(ProvisionError::io("create directory", d))?;
        }
        let reused_data = layout.data.join("master.mdf").exists();
        let password = launch::instance_password(&layout)?;
        let kind = MssqlKind {
            layout,
            server,
            settings: settings.clone(),
            password,
        };
        let mut instance = Private::launch(name, kind, reused_data, timeout)?;
        let kind = instance.kind();
        if let Err(e) = launch::configure(instance.port(), &kind.password, settings) {
            let path = kind.layout.dir.clone();
            let tail = log_tail(&kind.layout.server_log, 0);
            let _ = instance.stop();
            return Err(ProvisionError::UnusablePath {
                path,
                reason: format!(
                    "configuring the new server failed: {e}\n--- last lines of server.log:\n{tail}"
                ),
            });
        }
        Ok(instance)
    }

    /// The `sa` password of this instance (never written anywhere).
    pub fn password(&self) -> &str {
        &self.kind().password
    }

    pub fn layout(&self) -> &Layout {
        &self.kind().layout
    }
}
