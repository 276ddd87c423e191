//! What the private-server lifecycle needs to know of MariaDB and MySQL: the server started
//! with its `my.cnf`, ready once it greets a TCP client, stopped with SIGTERM (InnoDB flushes)
//! and SIGKILL to the server alone, its socket and pid file cleared once it is gone.

use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rustix::process::Signal;

use super::MysqlSettings;
use super::config::{self, Layout};
use super::init;
use super::locate::Server;
use crate::engines::server::ProvisionError;
use crate::engines::server::private::{Ladder, ServerKind, url_escaped};
use crate::engines::server::process::KillTarget;

/// Bound on one readiness probe (TCP connect, then reading the server's greeting).
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// A MariaDB or MySQL instance: its name, settings, files and server binary.
#[derive(Debug, Clone)]
pub struct MysqlKind {
    pub(super) name: String,
    pub(super) settings: MysqlSettings,
    pub(super) layout: Layout,
    pub(super) server: Server,
}

impl MysqlKind {
    /// Write `my.cnf` for the server on `port`.
    pub(super) fn write_config(&self, port: u16) -> Result<(), ProvisionError> {
        let text = config::render(
            &self.name,
            &self.layout,
            port,
            self.server.flavor,
            &self.settings,
        )?;
        std::fs::write(&self.layout.config, text)
            .map_err(ProvisionError::io("write", &self.layout.config))
    }
}

impl ServerKind for MysqlKind {
    /// SIGTERM, 120 s for InnoDB to flush, then SIGKILL; 10 s for a server that missed its
    /// start-up deadline.
    const LADDER: Ladder = Ladder {
        signal: Signal::TERM,
        signal_name: "SIGTERM",
        grace: Duration::from_secs(120),
        then: None,
        kill: KillTarget::Process,
        abandon_grace: Duration::from_secs(10),
    };
    const RESERVED_PORTS: &'static [u16] = &[3306];
    const BIND_FAILURE: &'static str = "Bind on TCP/IP port";

    fn program(&self) -> &Path {
        &self.server.path
    }

    fn dir(&self) -> &Path {
        &self.layout.dir
    }

    fn output_log(&self) -> &Path {
        &self.layout.error_log
    }

    fn command(&self, port: u16) -> Result<Command, ProvisionError> {
        self.write_config(port)?;
        let mut command = Command::new(&self.server.path);
        command.arg(format!("--defaults-file={}", self.layout.config.display()));
        if rustix::process::getuid().is_root() {
            // mariadbd and mysqld refuse to run as root unless told to.
            command.arg("--user=root");
        }
        Ok(command)
    }

    /// Its socket exists and a TCP connection receives the server's greeting.
    fn ready(&self, port: u16, _log_from: u64) -> bool {
        self.layout.socket.exists() && greets(port)
    }

    /// `mysql://root@127.0.0.1:PORT/?socket=PATH`: root with an empty password, as the
    /// instance is private and listens on 127.0.0.1 only; clients go through the socket (the
    /// server is ready only once it exists).
    fn url(&self, port: u16) -> String {
        format!(
            "mysql://root@127.0.0.1:{port}/?socket={}",
            url_escaped(&self.layout.socket)
        )
    }

    fn how_to_connect(&self, port: u16, pid: u32) -> String {
        format!(
            "`{} --socket={} -uroot` or TCP 127.0.0.1:{port} (pid {pid}; stop it with `kill {pid}`)",
            self.server.flavor.client(),
            self.layout.socket.display(),
        )
    }

    fn escalated(grace: Duration, _ended_by: Option<usize>) -> String {
        format!(
            "it did not exit within {grace:?} of SIGTERM and was killed; InnoDB recovers at the \
             next start"
        )
    }

    fn clear_runtime_files(&self) {
        init::remove_runtime_files(&self.layout);
    }
}

/// Whether a MySQL-protocol server accepts connections on `port`: it sends its greeting
/// (protocol 10) or an error packet (e.g. too many connections) as soon as it accepts one.
pub fn greets(port: u16) -> bool {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, PROBE_TIMEOUT) else {
        return false;
    };
    let mut head = [0u8; 5];
    stream.set_read_timeout(Some(PROBE_TIMEOUT)).is_ok()
        && stream.read_exact(&mut head).is_ok()
        && matches!(head[4], 10 | 0xff)
}
