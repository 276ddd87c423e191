//! drivebench's own client for the MySQL client/server protocol, used by the benchmark sessions:
//! text queries, server-side prepared statements, binary result rows read straight out of one
//! receive buffer, MariaDB's bulk execution (COM_STMT_BULK_EXECUTE) and LOAD DATA LOCAL INFILE.
//! A result row the workload does not keep costs a length check: no packet copy, no per-row
//! allocation and no decode, which is most of the client's CPU per transaction with a
//! general-purpose driver (sysbench's transactions fetch about 300 rows each). TCP (with TLS
//! when the URL's `ssl-mode` asks for it), or the server's unix socket when the URL names one
//! (`?socket=PATH`). The connection phase (`login`) speaks
//! `mysql_native_password` and `caching_sha2_password`, its fast path and its full
//! authentication.

mod binary;
pub mod login;

use std::io;

use tokio::net::{TcpStream, UnixStream};

use super::RETRYABLE_CODES;
use crate::engines::{EngineError, ErrorClass, NotPlain, RowChunks, Rows, Value};
use drivebench_mysql_wire::auth;
use drivebench_mysql_wire::packet::{Cursor, Framed, MAX_PAYLOAD, Malformed, Stream};
use drivebench_mysql_wire::response::{Column, ErrPacket, OkPacket};
use login::Target;

const COM_QUERY: u8 = 0x03;
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_CLOSE: u8 = 0x19;
const COM_STMT_BULK_EXECUTE: u8 = 0xfa;
const MORE_RESULTS: u16 = 0x0008;
/// The connection phase (TCP, greeting, authentication) must end within this.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// LOAD DATA LOCAL INFILE content goes in packets of at most this size.
const INFILE_PACKET: usize = 1 << 20;
/// A COM_STMT_BULK_EXECUTE's rows stop once they reach this size, well under any server's
/// default max_allowed_packet.
const BULK_PACKET: usize = 1 << 20;

/// A prepared statement on one connection.
#[derive(Debug, Clone, Copy)]
pub struct Stmt {
    id: u32,
    params: u16,
}

pub struct Conn {
    io: Framed,
    deprecate_eof: bool,
    /// The server takes COM_STMT_BULK_EXECUTE (MariaDB).
    bulk: bool,
    /// Column types of the current binary result.
    columns: Vec<Column>,
    /// A command was sent and its response not read to the end: the caller gave up on it (its
    /// future was dropped), so what comes next on the wire belongs to that command.
    pending: bool,
}

/// What a result set's rows go into.
enum Sink<'a> {
    /// Text rows: read and dropped.
    Discard,
    /// Binary rows: counted, and their values kept when `rows.keep_values`.
    Binary(&'a mut Rows),
}

fn lost(e: io::Error) -> EngineError {
    EngineError::new(
        ErrorClass::Reconnect,
        "2013",
        format!("lost connection: {e}"),
    )
}

fn malformed(_: Malformed) -> EngineError {
    EngineError::fatal("CLIENT", "malformed packet from the server")
}

/// The server's ERR packet, classified by its code.
fn server_error(p: &[u8]) -> EngineError {
    let err = ErrPacket::parse(p);
    let class = if RETRYABLE_CODES.contains(&err.code) {
        ErrorClass::Retryable
    } else {
        ErrorClass::Fatal
    };
    EngineError::new(
        class,
        err.code.to_string(),
        String::from_utf8_lossy(err.message).into_owned(),
    )
}

/// Affected rows and status flags of an OK packet (or an EOF-marked OK after rows).
fn ok_packet(p: &[u8]) -> Result<(u64, u16), Malformed> {
    OkPacket::parse(p).map(|ok| (ok.affected_rows, ok.status))
}

impl Conn {
    /// Open a session as `t` says; the connection phase must end within `CONNECT_TIMEOUT`.
    pub async fn connect(t: &Target) -> Result<Conn, EngineError> {
        tokio::time::timeout(CONNECT_TIMEOUT, Self::connect_inner(t))
            .await
            .unwrap_or_else(|_| {
                let why = format!("no answer within {} s", CONNECT_TIMEOUT.as_secs());
                Err(cannot_connect(t, why))
            })
    }

    async fn connect_inner(t: &Target) -> Result<Conn, EngineError> {
        let stream = match &t.socket {
            Some(path) => Stream::Unix(
                UnixStream::connect(path)
                    .await
                    .map_err(|e| cannot_connect(t, e))?,
            ),
            None => {
                let s = TcpStream::connect((t.host.as_str(), t.port))
                    .await
                    .map_err(|e| cannot_connect(t, e))?;
                s.set_nodelay(true).map_err(lost)?;
                Stream::Tcp(s)
            }
        };
        let (io, agreed) = login::login(Framed::new(stream), t).await?;
        Ok(Conn {
            io,
            deprecate_eof: agreed.flags & auth::DEPRECATE_EOF != 0,
            bulk: agreed.mariadb & auth::MARIADB_STMT_BULK_OPERATIONS != 0,
            columns: Vec::new(),
            pending: false,
        })
    }

    /// Run SQL text; rows it returns are read and dropped. Gives the affected rows of the last
    /// result.
    pub async fn query(&mut self, sql: &str) -> Result<u64, EngineError> {
        self.begin()?;
        let r = self.query_inner(sql).await;
        self.end(r)
    }

    async fn query_inner(&mut self, sql: &str) -> Result<u64, EngineError> {
        self.io.command(COM_QUERY).extend_from_slice(sql.as_bytes());
        self.io.send().await.map_err(lost)?;
        self.results(Sink::Discard).await
    }

    pub async fn prepare(&mut self, sql: &str) -> Result<Stmt, EngineError> {
        self.begin()?;
        let r = self.prepare_inner(sql).await;
        self.end(r)
    }

    async fn prepare_inner(&mut self, sql: &str) -> Result<Stmt, EngineError> {
        self.io
            .command(COM_STMT_PREPARE)
            .extend_from_slice(sql.as_bytes());
        self.io.send().await.map_err(lost)?;
        let p = self.io.read().await.map_err(lost)?;
        if p.first() == Some(&0xff) {
            return Err(server_error(p));
        }
        let mut c = Cursor::new(p);
        let parse = |c: &mut Cursor| -> Result<(Stmt, u16), Malformed> {
            c.u8()?;
            let id = c.u32()?;
            let columns = c.u16()?;
            let params = c.u16()?;
            Ok((Stmt { id, params }, columns))
        };
        let (stmt, columns) = parse(&mut c).map_err(malformed)?;
        for defs in [stmt.params, columns] {
            if defs > 0 {
                for _ in 0..defs {
                    self.io.read().await.map_err(lost)?;
                }
                if !self.deprecate_eof {
                    self.io.read().await.map_err(lost)?;
                }
            }
        }
        Ok(stmt)
    }

    /// Release a prepared statement on the server; no response comes back.
    pub async fn close(&mut self, stmt: Stmt) -> Result<(), EngineError> {
        self.begin()?;
        self.io
            .command(COM_STMT_CLOSE)
            .extend_from_slice(&stmt.id.to_le_bytes());
        let r = self.io.send().await.map_err(lost);
        self.end(r)
    }

    /// Execute a prepared statement. Its rows are counted into `rows` (and their values kept
    /// when it says so); gives the affected rows.
    pub async fn execute(
        &mut self,
        stmt: Stmt,
        params: &[Value],
        rows: &mut Rows,
    ) -> Result<u64, EngineError> {
        if params.len() != usize::from(stmt.params) {
            return Err(EngineError::fatal(
                "DRIVEBENCH",
                format!(
                    "the statement takes {} parameters, {} were given",
                    stmt.params,
                    params.len()
                ),
            ));
        }
        self.begin()?;
        let r = self.execute_inner(stmt, params, rows).await;
        self.end(r)
    }

    async fn execute_inner(
        &mut self,
        stmt: Stmt,
        params: &[Value],
        rows: &mut Rows,
    ) -> Result<u64, EngineError> {
        binary::put_execute(self.io.command(COM_STMT_EXECUTE), stmt.id, params);
        self.io.send().await.map_err(lost)?;
        rows.reset(0);
        self.results(Sink::Binary(rows)).await
    }

    /// Whether [`Conn::execute_bulk`] can be used: the server is a MariaDB that agreed to it.
    pub fn bulk(&self) -> bool {
        self.bulk
    }

    /// Execute a prepared statement (one that returns no rows) once for each row of `rows`
    /// (row-major, one value per parameter), many rows to a command; gives the affected rows.
    pub async fn execute_bulk(&mut self, stmt: Stmt, rows: &[Value]) -> Result<u64, EngineError> {
        let width = usize::from(stmt.params);
        if !self.bulk || width == 0 || !rows.len().is_multiple_of(width) {
            return Err(EngineError::fatal(
                "DRIVEBENCH",
                format!(
                    "a bulk execution needs a server that takes it and whole rows of {width} parameters ({} values were given)",
                    rows.len()
                ),
            ));
        }
        self.begin()?;
        let r = self.execute_bulk_inner(stmt, rows, width).await;
        self.end(r)
    }

    async fn execute_bulk_inner(
        &mut self,
        stmt: Stmt,
        mut rows: &[Value],
        width: usize,
    ) -> Result<u64, EngineError> {
        let mut affected = 0;
        while !rows.is_empty() {
            let out = self.io.command(COM_STMT_BULK_EXECUTE);
            let n = binary::put_bulk(out, stmt.id, rows, width, BULK_PACKET);
            self.io.send().await.map_err(lost)?;
            affected += self.results(Sink::Discard).await?;
            rows = &rows[n * width..];
        }
        Ok(affected)
    }

    /// Refuse a command while an abandoned one's response may still be on the wire.
    fn begin(&mut self) -> Result<(), EngineError> {
        if self.pending {
            return Err(EngineError::new(
                ErrorClass::Reconnect,
                "2013",
                "the connection was left in the middle of a command",
            ));
        }
        self.pending = true;
        Ok(())
    }

    /// The command's response was read to its end, unless the connection was lost.
    fn end<T>(&mut self, r: Result<T, EngineError>) -> Result<T, EngineError> {
        if !matches!(&r, Err(e) if e.class == ErrorClass::Reconnect) {
            self.pending = false;
        }
        r
    }

    /// Read every result of one command.
    async fn results(&mut self, mut sink: Sink<'_>) -> Result<u64, EngineError> {
        loop {
            let p = self.io.read().await.map_err(lost)?;
            let (affected, status) = match p.first() {
                Some(0x00) => ok_packet(p).map_err(malformed)?,
                Some(0xff) => return Err(server_error(p)),
                Some(0xfb) => {
                    // LOCAL INFILE asked for by text this session did not send as a load:
                    // send nothing, which loads nothing.
                    self.io.payload();
                    self.io.send().await.map_err(lost)?;
                    continue;
                }
                _ => {
                    let n = Cursor::new(p).lenenc().map_err(malformed)?.unwrap_or(0);
                    self.result_set(n as usize, &mut sink).await?
                }
            };
            if status & MORE_RESULTS == 0 {
                return Ok(affected);
            }
        }
    }

    /// Column definitions, then rows up to the closing EOF or OK; gives that packet's status.
    async fn result_set(
        &mut self,
        n: usize,
        sink: &mut Sink<'_>,
    ) -> Result<(u64, u16), EngineError> {
        let keep = matches!(sink, Sink::Binary(r) if r.keep_values);
        self.columns.clear();
        for _ in 0..n {
            let p = self.io.read().await.map_err(lost)?;
            if keep {
                self.columns.push(Column::parse(p).map_err(malformed)?);
            }
        }
        if !self.deprecate_eof {
            self.io.read().await.map_err(lost)?;
        }
        if let Sink::Binary(rows) = sink {
            rows.columns = n;
        }
        let mut fetched = 0;
        let status = loop {
            let p = self.io.read().await.map_err(lost)?;
            match p.first() {
                Some(0xfe) if p.len() < MAX_PAYLOAD && (self.deprecate_eof || p.len() < 9) => {
                    break if self.deprecate_eof {
                        ok_packet(p).map_err(malformed)?
                    } else {
                        let mut c = Cursor::new(&p[1..]);
                        c.u16().map_err(malformed)?; // warnings
                        (0, c.u16().map_err(malformed)?)
                    };
                }
                Some(0xff) => return Err(server_error(p)),
                _ => {
                    fetched += 1;
                    if keep && let Sink::Binary(rows) = sink {
                        binary::read_row(p, &self.columns, &mut rows.values).map_err(malformed)?;
                    }
                }
            }
        };
        if let Sink::Binary(rows) = sink {
            rows.fetched += fetched;
        }
        Ok(status)
    }

    /// `sql` must be a LOAD DATA LOCAL INFILE: the server asks for the file and gets the
    /// chunks, each turned into bytes by `encode`, until the channel closes. An error from
    /// `encode` closes the connection, so the server abandons the statement and loads nothing.
    pub async fn load_local(
        &mut self,
        sql: &str,
        chunks: &mut RowChunks,
        encode: impl Fn(&[Value]) -> Result<Vec<u8>, NotPlain>,
    ) -> Result<u64, EngineError> {
        self.begin()?;
        let r = self.load_inner(sql, chunks, encode).await;
        self.end(r)
    }

    async fn load_inner(
        &mut self,
        sql: &str,
        chunks: &mut RowChunks,
        encode: impl Fn(&[Value]) -> Result<Vec<u8>, NotPlain>,
    ) -> Result<u64, EngineError> {
        self.io.command(COM_QUERY).extend_from_slice(sql.as_bytes());
        self.io.send().await.map_err(lost)?;
        let p = self.io.read().await.map_err(lost)?;
        match p.first() {
            Some(0xfb) => {}
            Some(0xff) => return Err(server_error(p)),
            _ => {
                return Err(EngineError::fatal(
                    "CLIENT",
                    "the server did not ask for the local file (is local_infile on?)",
                ));
            }
        }
        while let Some(rows) = chunks.recv().await {
            let data = match encode(&rows) {
                Ok(d) => d,
                Err(why) => {
                    self.io.abort().await;
                    return Err(EngineError::fatal("DRIVEBENCH", why.to_string()));
                }
            };
            for part in data.chunks(INFILE_PACKET) {
                self.io.payload().extend_from_slice(part);
                self.io.send().await.map_err(lost)?;
            }
        }
        self.io.payload();
        self.io.send().await.map_err(lost)?;
        self.results(Sink::Discard).await
    }
}

/// MySQL's "can't connect" (CR_CONN_HOST_ERROR): retried like a lost connection.
fn cannot_connect(t: &Target, why: impl std::fmt::Display) -> EngineError {
    EngineError::new(
        ErrorClass::Reconnect,
        "2003",
        format!("cannot connect to {}: {why}", t.place()),
    )
}

fn unsupported_plugin(plugin: &str, version: &str) -> EngineError {
    EngineError::fatal(
        "CLIENT",
        format!(
            "the server ({version}) asks for the {plugin} authentication plugin; drivebench's \
             session client speaks mysql_native_password and caching_sha2_password"
        ),
    )
}

#[cfg(test)]
#[path = "call_tests.rs"]
mod call_tests;
