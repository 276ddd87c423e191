//! What the private-server lifecycle needs to know of PostgreSQL: `postgres -D data` (as the
//! server's account when drivebench is root), ready once a TCP client gets through the start-up
//! handshake, stopped with a fast shutdown (SIGINT), then an immediate one (SIGQUIT), then
//! SIGKILL to the whole process group (the postmaster and its backends).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rustix::process::Signal;

use super::PostgresSettings;
use super::account::Account;
use super::config::{self, Layout};
use super::locate::Server;
use crate::engines::server::ProvisionError;
use crate::engines::server::private::{Ladder, ServerKind, url_escaped};
use crate::engines::server::process::KillTarget;

/// Bound on one readiness probe step (TCP connect, each read of the server's answer).
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// Protocol 3.0, as the start-up message names it.
const PROTOCOL_3: i32 = 3 << 16;

/// SQLSTATE cannot_connect_now: "the database system is starting up" (or shutting down).
const CANNOT_CONNECT_NOW: &[u8] = b"57P03";

/// A PostgreSQL instance: its name, settings, files, binaries and the account it runs as.
#[derive(Debug, Clone)]
pub struct PostgresKind {
    pub(super) name: String,
    pub(super) settings: PostgresSettings,
    pub(super) layout: Layout,
    pub(super) server: Server,
    /// The account the server runs as when drivebench is root.
    pub(super) account: Option<Account>,
}

impl PostgresKind {
    /// Write `drivebench.conf` for the server on `port`.
    pub(super) fn write_config(&self, port: u16) -> Result<(), ProvisionError> {
        let text = config::render(&self.name, &self.layout, port, &self.settings)?;
        std::fs::write(&self.layout.config, text)
            .map_err(ProvisionError::io("write", &self.layout.config))
    }
}

impl ServerKind for PostgresKind {
    /// A fast shutdown (SIGINT: sessions end, a checkpoint is written) for up to 120 s, then an
    /// immediate one (SIGQUIT) for up to 10 s, then SIGKILL to the process group; 10 s of fast
    /// shutdown for a server that missed its start-up deadline.
    const LADDER: Ladder = Ladder {
        signal: Signal::INT,
        signal_name: "SIGINT",
        grace: Duration::from_secs(120),
        then: Some((Signal::QUIT, Duration::from_secs(10))),
        kill: KillTarget::Group,
        abandon_grace: Duration::from_secs(10),
    };
    /// The usual PostgreSQL and MySQL ports, which a system server may want later.
    const RESERVED_PORTS: &'static [u16] = &[5432, 3306];
    const BIND_FAILURE: &'static str = "could not bind IPv4";

    fn program(&self) -> &Path {
        &self.server.postgres
    }

    fn dir(&self) -> &Path {
        &self.layout.dir
    }

    fn output_log(&self) -> &Path {
        &self.layout.server_log
    }

    fn command(&self, port: u16) -> Result<Command, ProvisionError> {
        self.write_config(port)?;
        let mut command = Command::new(&self.server.postgres);
        command.arg("-D").arg(&self.layout.data);
        if let Some(account) = &self.account {
            account.apply(&mut command);
        }
        command.current_dir(&self.layout.dir);
        Ok(command)
    }

    /// Its socket exists and a TCP client gets through the start-up handshake.
    fn ready(&self, port: u16, _log_from: u64) -> bool {
        self.layout.socket(port).exists() && accepts_connections(port)
    }

    /// `postgres://postgres@SOCKET_DIR:PORT/postgres`, the directory written with `%XX`
    /// escapes (a host that starts with `/` is a unix socket's directory): the superuser
    /// without a password, as the instance is private and trusts local connections.
    fn url(&self, port: u16) -> String {
        format!(
            "postgres://postgres@{}:{port}/postgres",
            url_escaped(&self.layout.dir)
        )
    }

    fn how_to_connect(&self, port: u16, pid: u32) -> String {
        format!(
            "`psql -h {} -p {port} -U postgres` or {} (pid {pid}; stop it with `kill -INT {pid}`)",
            self.layout.dir.display(),
            self.url(port),
        )
    }

    fn escalated(grace: Duration, ended_by: Option<usize>) -> String {
        let how = if ended_by.is_some() {
            "was stopped with SIGQUIT (immediate shutdown)"
        } else {
            // The backends went with it: they are in the postmaster's process group.
            "was killed"
        };
        format!(
            "it did not finish a fast shutdown within {grace:?} of SIGINT and {how}; crash \
             recovery runs at the next start"
        )
    }
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
    use crate::engines::server::private::free_port_for;

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
            let port = free_port_for::<PostgresKind>().unwrap();
            assert!(
                port != 0 && !PostgresKind::RESERVED_PORTS.contains(&port),
                "{port}"
            );
        }
    }
}
