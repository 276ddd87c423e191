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
use std::time::Duration;

use self::config::Layout;
use crate::engines::server::ProvisionError;
use crate::engines::server::private::{Private, free_port_for, instance_dir};

pub use self::config::PID_FILE;
pub use self::launch::MysqlKind;
pub use self::locate::Flavor;

/// A running private server; stopped when dropped unless [`detach`](Private::detach)ed.
pub type MysqlInstance = Private<MysqlKind>;

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

impl Private<MysqlKind> {
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
    ) -> Result<MysqlInstance, ProvisionError> {
        let server = locate::server(settings.server_bin.as_deref())?;
        let layout = Layout::new(&instance_dir(dir)?);
        std::fs::create_dir_all(&layout.tmp)
            .map_err(ProvisionError::io("create directory", &layout.tmp))?;
        init::clear_leftovers(&layout)?;
        let kind = MysqlKind {
            name: name.to_string(),
            settings: settings.clone(),
            layout,
            server,
        };
        // The installer reads the same file; the port it names matters only once started.
        kind.write_config(free_port_for::<MysqlKind>()?)?;
        let reused_data = init::is_initialised(&kind.layout)?;
        if !reused_data {
            init::initialise(&kind.server, &kind.layout, timeout)?;
        }
        Private::launch(name, kind, reused_data, timeout)
    }

    pub fn socket(&self) -> &Path {
        &self.kind().layout.socket
    }

    pub fn data_dir(&self) -> &Path {
        &self.kind().layout.data
    }

    pub fn error_log(&self) -> &Path {
        &self.kind().layout.error_log
    }

    /// Which server this is and its version line, e.g. "mariadbd  Ver 10.11.19-MariaDB ...".
    pub fn server_version(&self) -> &str {
        &self.kind().server.version
    }

    pub fn flavor(&self) -> Flavor {
        self.kind().server.flavor
    }
}
