//! One attempt to start a configured instance: spawn the server in its own process group with
//! its output appended to the error log, and poll until it greets a TCP client, exits, or runs
//! out of time.

use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use super::config::Layout;
use super::init;
use super::locate::Server;
use super::{ABANDON_GRACE, MysqlInstance};
use crate::engines::server::ProvisionError;
use crate::engines::server::error::{log_len, log_tail};
use crate::engines::server::process::{Readiness, ServerProcess, wait_until_ready};

/// Bound on one readiness probe (TCP connect, then reading the server's greeting).
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// One attempt to start the server on `port`.
pub struct Launch<'a> {
    pub name: &'a str,
    pub layout: &'a Layout,
    pub server: &'a Server,
    pub port: u16,
    pub reused_data: bool,
}

impl Launch<'_> {
    pub fn run(
        self,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<MysqlInstance, ProvisionError> {
        let log = &self.layout.error_log;
        let log_from = log_len(log);
        let mut command = Command::new(&self.server.path);
        command.arg(format!("--defaults-file={}", self.layout.config.display()));
        if rustix::process::getuid().is_root() {
            // mariadbd and mysqld refuse to run as root unless told to.
            command.arg("--user=root");
        }
        let started = Instant::now();
        let process = ServerProcess::spawn(
            &mut command,
            &self.server.path,
            log,
            rustix::process::Signal::TERM,
        )?;
        let pid = process.pid();
        // From here on, dropping `instance` stops the server.
        let mut instance = MysqlInstance {
            name: self.name.to_string(),
            layout: self.layout.clone(),
            server: self.server.clone(),
            process,
            port: self.port,
            reused_data: self.reused_data,
        };
        let ready = || self.layout.socket.exists() && greets(self.port);
        match wait_until_ready(&mut instance.process, deadline, ready) {
            Readiness::Ready => {
                tracing::info!(name = self.name, pid, port = self.port, elapsed = ?started.elapsed(), "server ready");
                Ok(instance)
            }
            Readiness::Exited(status) => {
                init::remove_runtime_files(self.layout);
                Err(ProvisionError::StartFailed {
                    server: self.server.path.clone(),
                    status: status.to_string(),
                    log: log.clone(),
                    log_tail: log_tail(log, log_from),
                })
            }
            Readiness::TimedOut => {
                if let Err(err) = instance.stop_within(ABANDON_GRACE) {
                    tracing::warn!(name = self.name, "{err}");
                }
                Err(ProvisionError::NotReady {
                    server: self.server.path.clone(),
                    pid,
                    port: self.port,
                    timeout,
                    log: log.clone(),
                    log_tail: log_tail(log, log_from),
                })
            }
        }
    }
}

/// A port on 127.0.0.1 that nothing listens on right now (never 3306).
pub fn free_port() -> Result<u16, ProvisionError> {
    crate::engines::server::port::free_port(&[3306])
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
