//! A private MariaDB (or MySQL) server with its data on the target: one directory holding the
//! data directory, `my.cnf`, socket, pid file and error log; initialised once and reused by
//! later runs; started on a free 127.0.0.1 port with an empty root password; stopped with
//! SIGTERM (InnoDB flushes) on every exit path, including `Drop`.

mod config;
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

use self::config::Layout;
use self::launch::{Launch, free_port};
use self::locate::Server;
use crate::engines::server::ProvisionError;
use crate::engines::server::error::log_tail;
use crate::engines::server::port::start_on_free_port;
use crate::engines::server::process::{KillTarget, ServerProcess, StopOutcome};

pub use self::config::PID_FILE;
pub use self::locate::Flavor;

/// How long a server gets to shut down cleanly after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(120);

/// How long a server that missed its start-up deadline gets after SIGTERM before SIGKILL.
const ABANDON_GRACE: Duration = Duration::from_secs(10);

/// Start attempts, each on a newly picked port, when another process takes the port first.
const PORT_ATTEMPTS: u32 = 5;

/// Server settings for a private instance, already validated by the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct MysqlSettings {
    /// The `mariadbd`/`mysqld` to use; absent = `mariadbd`, then `mysqld`, searched on `PATH`,
    /// in /usr/sbin, /usr/libexec and /usr/local/mysql/bin.
    pub server_bin: Option<PathBuf>,
    /// innodb_buffer_pool_size.
    pub buffer_pool_bytes: u64,
    /// innodb_log_file_size; absent = the server's default.
    pub log_file_size_bytes: Option<u64>,
    /// innodb_flush_log_at_trx_commit; absent = the server's default.
    pub flush_log_at_trx_commit: Option<u8>,
    /// innodb_flush_method (e.g. O_DIRECT); absent = the server's default.
    pub flush_method: Option<String>,
    /// innodb_io_capacity; absent = the server's default.
    pub io_capacity: Option<u64>,
    /// Raw server variables, written as `key = value` after (and replacing) everything else.
    pub extra: BTreeMap<String, String>,
    pub max_connections: u32,
    pub max_prepared_stmt_count: u64,
    pub table_open_cache: u32,
    /// An address listened on besides 127.0.0.1 (`drivebench up --listen`).
    pub also_listen: Option<std::net::IpAddr>,
}

impl Default for MysqlSettings {
    /// The server's own defaults: a 128 MiB buffer pool and MariaDB 10.11's limits.
    fn default() -> Self {
        MysqlSettings {
            server_bin: None,
            buffer_pool_bytes: 128 << 20,
            log_file_size_bytes: None,
            flush_log_at_trx_commit: None,
            flush_method: None,
            io_capacity: None,
            extra: BTreeMap::new(),
            max_connections: 151,
            max_prepared_stmt_count: 16_382,
            table_open_cache: 2_000,
            also_listen: None,
        }
    }
}

/// A running private server; stopped when dropped unless [`detach`](Self::detach)ed.
#[derive(Debug)]
pub struct MysqlInstance {
    name: String,
    layout: Layout,
    server: Server,
    process: ServerProcess,
    port: u16,
    reused_data: bool,
}

impl MysqlInstance {
    /// Initialise `dir` (created if absent; data in `dir/data`, config `dir/my.cnf`, socket
    /// `dir/mysqld.sock`, pid file `dir/mysqld.pid`, error log `dir/error.log`) unless it
    /// already holds an initialised data directory (reused then), start the server on a free
    /// 127.0.0.1 port as a child process, and wait until it accepts connections: its socket
    /// exists and a TCP connection receives the server's greeting. Initialisation and start-up
    /// are each bounded by `timeout`. Blocking: run it off the async workers.
    pub fn start(
        name: &str,
        dir: &Path,
        settings: &MysqlSettings,
        timeout: Duration,
    ) -> Result<Self, ProvisionError> {
        let server = locate::server(settings.server_bin.as_deref())?;
        std::fs::create_dir_all(dir).map_err(ProvisionError::io("create directory", dir))?;
        let dir = std::fs::canonicalize(dir).map_err(ProvisionError::io("resolve", dir))?;
        let layout = Layout::new(&dir);
        std::fs::create_dir_all(&layout.tmp)
            .map_err(ProvisionError::io("create directory", &layout.tmp))?;
        init::clear_leftovers(&layout)?;
        let write_config = |port: u16| {
            let text = config::render(name, &layout, port, server.flavor, settings)?;
            std::fs::write(&layout.config, text)
                .map_err(ProvisionError::io("write", &layout.config))
        };
        // The installer reads the same file; the port it names matters only once started.
        write_config(free_port()?)?;
        let reused_data = init::is_initialised(&layout)?;
        if !reused_data {
            init::initialise(&server, &layout, timeout)?;
        }
        let deadline = Instant::now() + timeout;
        start_on_free_port(PORT_ATTEMPTS, "Bind on TCP/IP port", free_port, |port| {
            write_config(port)?;
            let launch = Launch {
                name,
                layout: &layout,
                server: &server,
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

    pub fn socket(&self) -> &Path {
        &self.layout.socket
    }

    pub fn data_dir(&self) -> &Path {
        &self.layout.data
    }

    pub fn error_log(&self) -> &Path {
        &self.layout.error_log
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Which server this is and its version line, e.g. "mariadbd  Ver 10.11.19-MariaDB ...".
    pub fn server_version(&self) -> &str {
        &self.server.version
    }

    pub fn flavor(&self) -> Flavor {
        self.server.flavor
    }

    /// Whether the data directory was already initialised (by an earlier run) and reused.
    pub fn reused_data(&self) -> bool {
        self.reused_data
    }

    /// `mysql://root@127.0.0.1:PORT/`: root with an empty password, as the instance is
    /// private and listens on 127.0.0.1 only.
    pub fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}/", self.port)
    }

    /// Clean shutdown: SIGTERM, wait up to 120 s for the server to exit (InnoDB flushes), then
    /// SIGKILL; reaps the child and removes a leftover socket or pid file. Idempotent. Fails
    /// when the shutdown was not clean: SIGKILL was needed, or the server had already died.
    pub fn stop(&mut self) -> Result<(), ProvisionError> {
        self.stop_within(STOP_GRACE)
    }

    /// Leave the server running after drivebench exits; returns how to connect to it.
    pub fn detach(mut self) -> String {
        self.process.detach();
        format!(
            "`{} --socket={} -uroot` or TCP 127.0.0.1:{} (pid {}; stop it with `kill {}`)",
            self.server.flavor.client(),
            self.layout.socket.display(),
            self.port,
            self.pid(),
            self.pid()
        )
    }

    /// Kill without a clean shutdown (SIGKILL), as a crash would: the socket and pid file stay.
    pub fn kill_for_test(&mut self) {
        self.process.kill();
    }

    fn stop_within(&mut self, grace: Duration) -> Result<(), ProvisionError> {
        let started = Instant::now();
        let Some(outcome) =
            self.process
                .stop(&[(Signal::TERM, grace)], "SIGTERM", KillTarget::Process)
        else {
            return Ok(());
        };
        let outcome = match outcome {
            StopOutcome::Clean => Ok(()),
            StopOutcome::Failed(reason) => Err(reason),
            StopOutcome::Escalated(_) => Err(format!(
                "it did not exit within {grace:?} of SIGTERM and was killed; InnoDB recovers at \
                 the next start"
            )),
        };
        init::remove_runtime_files(&self.layout);
        tracing::info!(name = %self.name, pid = self.pid(), elapsed = ?started.elapsed(), "server stopped");
        outcome.map_err(|reason| ProvisionError::Stop {
            dir: self.layout.dir.clone(),
            pid: self.pid(),
            reason,
            log: self.layout.error_log.clone(),
            log_tail: log_tail(&self.layout.error_log, 0),
        })
    }
}

impl Drop for MysqlInstance {
    fn drop(&mut self) {
        if self.process.is_running()
            && let Err(err) = self.stop()
        {
            tracing::warn!(name = %self.name, "{err}");
        }
    }
}
