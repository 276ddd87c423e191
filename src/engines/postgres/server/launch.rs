//! One attempt to start a configured instance: spawn `postgres -D data` in its own process
//! group with its output appended to the server log, and poll until it lets a TCP client
//! through the start-up handshake, exits, or runs out of time.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use super::account::Account;
use super::config::Layout;
use super::locate::Server;
use super::{ABANDON_GRACE, PostgresInstance};
use crate::engines::server::ProvisionError;
use crate::engines::server::error::{log_len, log_tail};
use crate::engines::server::process::{Readiness, ServerProcess, wait_until_ready};

/// Bound on one readiness probe step (TCP connect, each read of the server's answer).
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// Ports a free port is never taken from: the usual PostgreSQL and MySQL ports, which a system
/// server may want later.
const RESERVED_PORTS: [u16; 2] = [5432, 3306];

/// Protocol 3.0, as the start-up message names it.
const PROTOCOL_3: i32 = 3 << 16;

/// SQLSTATE cannot_connect_now: "the database system is starting up" (or shutting down).
const CANNOT_CONNECT_NOW: &[u8] = b"57P03";

/// One attempt to start the server on `port`.
pub struct Launch<'a> {
    pub name: &'a str,
    pub layout: &'a Layout,
    pub server: &'a Server,
    pub account: Option<&'a Account>,
    pub port: u16,
    pub reused_data: bool,
}

impl Launch<'_> {
    pub fn run(
        self,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<PostgresInstance, ProvisionError> {
        let log = &self.layout.server_log;
        let log_from = log_len(log);
        let mut command = Command::new(&self.server.postgres);
        command.arg("-D").arg(&self.layout.data);
        if let Some(account) = self.account {
            account.apply(&mut command);
        }
        command.current_dir(&self.layout.dir);
        let started = Instant::now();
        let process = ServerProcess::spawn(
            &mut command,
            &self.server.postgres,
            log,
            rustix::process::Signal::INT,
        )?;
        let pid = process.pid();
        // From here on, dropping `instance` stops the server.
        let mut instance = PostgresInstance {
            name: self.name.to_string(),
            layout: self.layout.clone(),
            server: self.server.clone(),
            process,
            port: self.port,
            reused_data: self.reused_data,
        };
        let socket = self.layout.socket(self.port);
        let ready = || socket.exists() && accepts_connections(self.port);
        match wait_until_ready(&mut instance.process, deadline, ready) {
            Readiness::Ready => {
                tracing::info!(name = self.name, pid, port = self.port, elapsed = ?started.elapsed(), "server ready");
                Ok(instance)
            }
            Readiness::Exited(status) => Err(ProvisionError::StartFailed {
                server: self.server.postgres.clone(),
                status: status.to_string(),
                log: log.clone(),
                log_tail: log_tail(log, log_from),
            }),
            Readiness::TimedOut => {
                if let Err(err) = instance.stop_within(ABANDON_GRACE) {
                    tracing::warn!(name = self.name, "{err}");
                }
                Err(ProvisionError::NotReady {
                    server: self.server.postgres.clone(),
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

/// A port on 127.0.0.1 that nothing listens on right now (never 5432 or 3306).
pub fn free_port() -> Result<u16, ProvisionError> {
    crate::engines::server::port::free_port(&RESERVED_PORTS)
}

/// Whether a PostgreSQL server accepts connections on 127.0.0.1:`port`, as `pg_isready` judges
/// it: a start-up message as `postgres` gets an authentication request, or an error other than
/// "the database system is starting up". A session that opens is closed with Terminate.
pub fn accepts_connections(port: u16) -> bool {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, PROBE_TIMEOUT) else {
        return false;
    };
    if stream.set_read_timeout(Some(PROBE_TIMEOUT)).is_err()
        || stream.write_all(&startup_message()).is_err()
    {
        return false;
    }
    // Authentication, parameter statuses and the backend key come before ReadyForQuery.
    for _ in 0..64 {
        let Some((kind, body)) = read_message(&mut stream) else {
            return false;
        };
        match kind {
            // AuthenticationOk goes on; any other request means a password is wanted, which
            // a server only asks for once it accepts connections.
            b'R' if body.starts_with(&[0, 0, 0, 0]) => {}
            b'R' => return true,
            b'S' | b'K' | b'N' => {}
            b'Z' => {
                let _ = stream.write_all(&[b'X', 0, 0, 0, 4]);
                return true;
            }
            b'E' => return sqlstate(&body) != Some(CANNOT_CONNECT_NOW),
            _ => return false,
        }
    }
    false
}

/// The start-up message (protocol 3.0) for user and database `postgres`.
fn startup_message() -> Vec<u8> {
    let mut body = PROTOCOL_3.to_be_bytes().to_vec();
    for text in [
        "user",
        "postgres",
        "database",
        "postgres",
        "application_name",
        "drivebench-probe",
        "",
    ] {
        body.extend_from_slice(text.as_bytes());
        body.push(0);
    }
    let len = i32::try_from(body.len() + 4).expect("a short message");
    let mut message = len.to_be_bytes().to_vec();
    message.extend(body);
    message
}

/// One backend message: its type byte and body.
fn read_message(stream: &mut impl Read) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 5];
    stream.read_exact(&mut head).ok()?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
    let body_len = usize::try_from(len.checked_sub(4)?).ok()?;
    if body_len > 64 * 1024 {
        return None;
    }
    let mut body = vec![0u8; body_len];
    stream.read_exact(&mut body).ok()?;
    Some((head[0], body))
}

/// The SQLSTATE (`C` field) of an ErrorResponse body.
fn sqlstate(body: &[u8]) -> Option<&[u8]> {
    body.split(|&b| b == 0)
        .find_map(|field| field.strip_prefix(b"C"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startup_message_layout() {
        let message = startup_message();
        let len = i32::from_be_bytes(message[..4].try_into().unwrap());
        assert_eq!(usize::try_from(len).unwrap(), message.len());
        assert_eq!(&message[4..8], &[0, 3, 0, 0]);
        assert!(message.ends_with(b"drivebench-probe\0\0"));
    }

    #[test]
    fn messages_and_error_codes() {
        let body = b"SFATAL\0VFATAL\0C57P03\0Mthe database system is starting up\0\0";
        let mut wire = vec![b'E'];
        wire.extend_from_slice(&u32::try_from(body.len() + 4).unwrap().to_be_bytes());
        wire.extend_from_slice(body);
        let (kind, read) = read_message(&mut wire.as_slice()).unwrap();
        assert_eq!(kind, b'E');
        assert_eq!(sqlstate(&read), Some(CANNOT_CONNECT_NOW));
        assert_eq!(sqlstate(b"SFATAL\0\0"), None);
        assert_eq!(read_message(&mut &wire[..7]), None, "truncated");
        assert_eq!(
            read_message(&mut &[b'E', 0, 0, 0, 3][..]),
            None,
            "bad length"
        );
    }

    #[test]
    fn free_ports_avoid_the_usual_database_ports() {
        for _ in 0..20 {
            let port = free_port().unwrap();
            assert!(port != 0 && !RESERVED_PORTS.contains(&port), "{port}");
        }
    }
}
