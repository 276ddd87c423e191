//! A private PostgreSQL server with its data on the target: one directory holding the data
//! directory (`data`, PGDATA), the settings file `drivebench.conf`, the unix socket and the
//! server log `server.log`; initialised once with `initdb` and reused by later runs; started
//! on a free 127.0.0.1 port with a trusted `postgres` superuser; stopped with a fast shutdown
//! (SIGINT) on every exit path, including `Drop`.
//!
//! Settings live in `dir/drivebench.conf`, rewritten at every start and read by the server
//! through one `include '../drivebench.conf'` line appended to `data/postgresql.conf` after
//! initdb. `include` rather than `include_if_exists`: without the file the server would fall
//! back to port 5432 and the system's socket directory, so a missing file must fail the start.
//! The path is relative to the data directory, so the whole instance directory can be copied
//! elsewhere. `postgresql.auto.conf` (ALTER SYSTEM) is left to the user and still wins.
//!
//! PostgreSQL refuses to run as root: when drivebench is root, initdb and the server run as the
//! `postgres` system user (else `nobody`), and the instance directory and WAL directory are
//! handed over to that user at every start.

pub(crate) mod account;
mod config;
pub use self::config::PID_FILE;
mod init;
mod launch;
mod locate;

/// Whether a server binary is there to start (`server_bin`, or the usual places): checked
/// before anything starts.
pub fn locate_server(server_bin: Option<&std::path::Path>) -> Result<(), ProvisionError> {
    locate::server(server_bin).map(|_| ())
}
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use self::account::Account;
use self::config::Layout;
use crate::engines::server::ProvisionError;
use crate::engines::server::private::{Private, free_port_for, instance_dir};

pub use self::launch::PostgresKind;

/// A running private server; stopped when dropped unless [`detach`](Private::detach)ed.
pub type PostgresInstance = Private<PostgresKind>;

/// Server settings for a private instance, already validated by the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct PostgresSettings {
    /// The directory holding `postgres` and `initdb`, or the `postgres` binary itself; absent =
    /// `postgres` searched on `PATH`, then in /usr/lib/postgresql/*/bin, highest version first.
    pub server_bin: Option<PathBuf>,
    /// Where the WAL goes (`initdb --waldir`; `data/pg_wal` links to it), e.g. another drive;
    /// absent = inside the data directory. Fixed when the data directory is initialised.
    pub wal_dir: Option<PathBuf>,
    /// shared_buffers.
    pub shared_buffers_bytes: u64,
    /// max_wal_size; absent = the server's default.
    pub max_wal_size_bytes: Option<u64>,
    /// synchronous_commit (on, off, local, remote_write, remote_apply); absent = on.
    pub synchronous_commit: Option<String>,
    /// wal_sync_method (e.g. fdatasync, open_datasync); absent = the server's default.
    pub wal_sync_method: Option<String>,
    /// checkpoint_timeout; absent = the server's default.
    pub checkpoint_timeout_s: Option<u64>,
    /// Raw server settings, written as `key = 'value'` after (and replacing) everything else.
    pub extra: BTreeMap<String, String>,
    pub max_connections: u32,
}

impl Default for PostgresSettings {
    /// The server's own defaults: 128 MiB of shared buffers and 100 connections.
    fn default() -> Self {
        PostgresSettings {
            server_bin: None,
            wal_dir: None,
            shared_buffers_bytes: 128 << 20,
            max_wal_size_bytes: None,
            synchronous_commit: None,
            wal_sync_method: None,
            checkpoint_timeout_s: None,
            extra: BTreeMap::new(),
            max_connections: 100,
        }
    }
}

impl Private<PostgresKind> {
    /// Initialise `dir` (created if absent; PGDATA `dir/data`, settings `dir/drivebench.conf`,
    /// socket `dir/.s.PGSQL.<port>`, server log `dir/server.log`, initdb output
    /// `dir/initdb.log`) unless `dir/data` already holds a data directory (its `PG_VERSION`;
    /// reused then), start `postgres -D dir/data` on a free 127.0.0.1 port as a child process
    /// in its own process group, and wait until it accepts connections: its socket exists and
    /// a TCP client gets through the start-up handshake. Initialisation and start-up are each
    /// bounded by `timeout`. Blocking: run it off the async workers.
    pub fn start(
        name: &str,
        dir: &Path,
        settings: &PostgresSettings,
        timeout: Duration,
    ) -> Result<PostgresInstance, ProvisionError> {
        let server = locate::server(settings.server_bin.as_deref())?;
        let account = Account::for_server()?;
        let layout = Layout::new(&instance_dir(dir)?);
        let wal_dir = settings.wal_dir.as_deref().map(instance_dir).transpose()?;
        init::refuse_if_running(&layout)?;
        let kind = PostgresKind {
            name: name.to_string(),
            settings: settings.clone(),
            layout,
            server,
            account,
        };
        // Settings are checked before initdb spends time; the port is picked again at launch.
        kind.write_config(free_port_for::<PostgresKind>()?)?;
        if let Some(account) = &kind.account {
            account.take_over(&kind.layout, wal_dir.as_deref())?;
        }
        let reused_data = init::is_initialised(&kind.layout)?;
        if reused_data {
            init::check_wal_location(&kind.layout, wal_dir.as_deref())?;
            init::ensure_included(&kind.layout)?;
        } else {
            let account = kind.account.as_ref();
            init::initialise(
                &kind.server,
                &kind.layout,
                wal_dir.as_deref(),
                account,
                timeout,
            )?;
        }
        Private::launch(name, kind, reused_data, timeout)
    }

    /// PGDATA.
    pub fn data_dir(&self) -> &Path {
        &self.kind().layout.data
    }

    /// The directory holding the server's unix socket (`psql -h` takes it).
    pub fn socket_dir(&self) -> &Path {
        &self.kind().layout.dir
    }

    pub fn server_log(&self) -> &Path {
        &self.kind().layout.server_log
    }

    /// The server's version number, e.g. "15.20".
    pub fn server_version(&self) -> &str {
        &self.kind().server.version
    }
}
