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
use std::time::{Duration, Instant};

use rustix::process::Signal;

use self::account::Account;
use self::config::Layout;
use self::launch::{Launch, free_port};
use self::locate::Server;
use crate::engines::server::ProvisionError;
use crate::engines::server::error::log_tail;
use crate::engines::server::port::start_on_free_port;
use crate::engines::server::process::{KillTarget, ServerProcess, StopOutcome};

/// How long a server gets to finish a fast shutdown (SIGINT) before an immediate one.
const STOP_GRACE: Duration = Duration::from_secs(120);

/// How long a server gets to finish an immediate shutdown (SIGQUIT) before SIGKILL, at most.
const QUIT_GRACE: Duration = Duration::from_secs(10);

/// How long a server that missed its start-up deadline gets after SIGINT before SIGQUIT.
const ABANDON_GRACE: Duration = Duration::from_secs(10);

/// Start attempts, each on a newly picked port, when another process takes the port first.
const PORT_ATTEMPTS: u32 = 5;

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

/// A running private server; stopped when dropped unless [`detach`](Self::detach)ed.
#[derive(Debug)]
pub struct PostgresInstance {
    name: String,
    layout: Layout,
    server: Server,
    process: ServerProcess,
    port: u16,
    reused_data: bool,
}

impl PostgresInstance {
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
    ) -> Result<Self, ProvisionError> {
        let server = locate::server(settings.server_bin.as_deref())?;
        let account = Account::for_server()?;
        std::fs::create_dir_all(dir).map_err(ProvisionError::io("create directory", dir))?;
        let dir = std::fs::canonicalize(dir).map_err(ProvisionError::io("resolve", dir))?;
        let layout = Layout::new(&dir);
        let wal_dir = match &settings.wal_dir {
            Some(wal) => {
                std::fs::create_dir_all(wal)
                    .map_err(ProvisionError::io("create directory", wal))?;
                Some(std::fs::canonicalize(wal).map_err(ProvisionError::io("resolve", wal))?)
            }
            None => None,
        };
        init::refuse_if_running(&layout)?;
        let write_config = |port: u16| {
            let text = config::render(name, &layout, port, settings)?;
            std::fs::write(&layout.config, text)
                .map_err(ProvisionError::io("write", &layout.config))
        };
        // Settings are checked before initdb spends time; the port is picked again at launch.
        write_config(free_port()?)?;
        if let Some(account) = &account {
            // Logs are written through descriptors drivebench opens, but belong with the rest.
            for log in [&layout.server_log, &layout.initdb_log] {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                    .map_err(ProvisionError::io("create", log))?;
            }
            for path in std::iter::once(&dir).chain(&wal_dir) {
                account.check_reachable(path)?;
                account.hand_over(path)?;
            }
        }
        let reused_data = init::is_initialised(&layout)?;
        if reused_data {
            init::check_wal_location(&layout, wal_dir.as_deref())?;
            init::ensure_included(&layout)?;
        } else {
            init::initialise(
                &server,
                &layout,
                wal_dir.as_deref(),
                account.as_ref(),
                timeout,
            )?;
        }
        let deadline = Instant::now() + timeout;
        start_on_free_port(PORT_ATTEMPTS, "could not bind IPv4", free_port, |port| {
            write_config(port)?;
            let launch = Launch {
                name,
                layout: &layout,
                server: &server,
                account: account.as_ref(),
                port,
                reused_data,
            };
            launch.run(deadline, timeout)
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The postmaster's process id.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// PGDATA.
    pub fn data_dir(&self) -> &Path {
        &self.layout.data
    }

    /// The directory holding the server's unix socket (`psql -h` takes it).
    pub fn socket_dir(&self) -> &Path {
        &self.layout.dir
    }

    pub fn server_log(&self) -> &Path {
        &self.layout.server_log
    }

    /// The server's version number, e.g. "15.20".
    pub fn server_version(&self) -> &str {
        &self.server.version
    }

    /// Whether the data directory was already initialised (by an earlier run) and reused.
    pub fn reused_data(&self) -> bool {
        self.reused_data
    }

    /// `postgres://postgres@127.0.0.1:PORT/postgres`: the superuser without a password, as the
    /// instance is private, listens on 127.0.0.1 only and trusts local connections.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Clean shutdown: SIGINT (fast shutdown: sessions end, a checkpoint is written), wait up
    /// to 120 s, then SIGQUIT (immediate shutdown) for up to 10 s, then SIGKILL to the whole
    /// process group; reaps the postmaster. Idempotent. Fails when the shutdown was not clean:
    /// escalation was needed, or the server had already died.
    pub fn stop(&mut self) -> Result<(), ProvisionError> {
        self.stop_within(STOP_GRACE)
    }

    /// Leave the server running after drivebench exits; returns how to connect to it.
    pub fn detach(mut self) -> String {
        self.process.detach();
        format!(
            "`psql -h {} -p {} -U postgres` or {} (pid {}; stop it with `kill -INT {}`)",
            self.layout.dir.display(),
            self.port,
            self.url(),
            self.pid(),
            self.pid()
        )
    }

    /// Kill the postmaster without a clean shutdown (SIGKILL), as a crash would; its children
    /// notice and exit on their own. The socket and `postmaster.pid` stay behind.
    pub fn kill_for_test(&mut self) {
        self.process.kill();
    }

    /// Fast shutdown, escalating to an immediate one, then to killing the process group.
    fn stop_within(&mut self, grace: Duration) -> Result<(), ProvisionError> {
        let started = Instant::now();
        let steps = [(Signal::INT, grace), (Signal::QUIT, grace.min(QUIT_GRACE))];
        let Some(outcome) = self.process.stop(&steps, "SIGINT", KillTarget::Group) else {
            return Ok(());
        };
        let outcome = match outcome {
            StopOutcome::Clean => Ok(()),
            StopOutcome::Failed(reason) => Err(reason),
            StopOutcome::Escalated(ended_by) => {
                let how = if ended_by.is_some() {
                    "was stopped with SIGQUIT (immediate shutdown)"
                } else {
                    // The backends went with it: they are in the postmaster's process group.
                    "was killed"
                };
                Err(format!(
                    "it did not finish a fast shutdown within {grace:?} of SIGINT and {how}; \
                     crash recovery runs at the next start"
                ))
            }
        };
        tracing::info!(name = %self.name, pid = self.pid(), elapsed = ?started.elapsed(), "server stopped");
        outcome.map_err(|reason| ProvisionError::Stop {
            dir: self.layout.dir.clone(),
            pid: self.pid(),
            reason,
            log: self.layout.server_log.clone(),
            log_tail: log_tail(&self.layout.server_log, 0),
        })
    }
}

impl Drop for PostgresInstance {
    fn drop(&mut self) {
        if self.process.is_running()
            && let Err(err) = self.stop()
        {
            tracing::warn!(name = %self.name, "{err}");
        }
    }
}
