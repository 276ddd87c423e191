//! PostgreSQL (`engine`: its `Engine` and `Server`; `server`: private clusters; `config`: its
//! settings), through tokio-postgres: one connection (and one `Client`, so nothing is pipelined
//! behind the client's back) per virtual client, every statement prepared once per connection,
//! explicit transactions. Errors by SQLSTATE: 40P01 deadlock, 40001 serialization failure,
//! 55P03 lock not available and 23505 unique violation (as sysbench's driver) are retryable; a closed connection or class 08 means reconnect.

mod binary;
mod config;
mod engine;
pub mod server;

use bytes::{BufMut, BytesMut};
use futures_util::StreamExt;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::config::SslMode;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{Client, NoTls, Statement};

pub use config::PostgresConfig;
pub use engine::Postgres;

use super::tls::{self, SessionTls, TlsError, TlsMode, TlsSettings};
use super::{
    BulkPath, BulkText, Connector, EngineError, ErrorClass, Execution, RowChunks, Rows, Session,
    StmtId, UrlProblem, Value,
};

/// The database drivebench creates and uses on every PostgreSQL instance.
pub const DATABASE: &str = "sbtest";

pub struct PgConnector {
    config: tokio_postgres::Config,
    tls: Tls,
    version: String,
}

/// How connections are secured: not at all, or with rustls as the URL's `sslmode` says.
#[derive(Clone)]
enum Tls {
    Off,
    Rustls(tokio_postgres_rustls::MakeRustlsConnect),
}

/// What is wrong with a PostgreSQL URL.
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("{0}")]
    Driver(#[from] tokio_postgres::Error),
}

/// `postgres://user@host:port/db?...` into a driver config (the password comes separately)
/// and how connections are secured: `sslmode` and `sslrootcert` are taken out and read as
/// `engines::tls` says, the rest read by tokio-postgres.
fn parse_url(url: &str, password: Option<&str>) -> Result<(tokio_postgres::Config, Tls), UrlError> {
    let (settings, rest) = TlsSettings::split_url(url, &tls::POSTGRES)?;
    let mut config: tokio_postgres::Config = rest.parse()?;
    if let Some(p) = password {
        config.password(p);
    }
    config.ssl_mode(match settings.mode {
        TlsMode::Disable => SslMode::Disable,
        TlsMode::Prefer => SslMode::Prefer,
        TlsMode::Require | TlsMode::VerifyCa | TlsMode::VerifyFull => SslMode::Require,
    });
    let tls = match settings.session()? {
        SessionTls::Off => Tls::Off,
        SessionTls::On { config, .. } => Tls::Rustls(
            tokio_postgres_rustls::MakeRustlsConnect::new((*config).clone()),
        ),
    };
    Ok((config, tls))
}

/// `EngineOps::check_url` for PostgreSQL.
pub fn check_url(url: &str) -> Result<(), UrlProblem> {
    parse_url(url, None).map(|_| ()).map_err(Into::into)
}

/// The connection phase (TCP, TLS, start-up, authentication) must end within this: a server
/// behind a network that accepts connections and answers nothing would otherwise hold it
/// forever (tokio-postgres bounds only the TCP connect, and only when asked).
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// A connection's driver: the future that moves its requests and answers over the socket.
type Driver =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), tokio_postgres::Error>> + Send>>;

/// A client whose driver runs on a task of its own (the admin and sampling connections).
async fn open(config: &tokio_postgres::Config, tls: &Tls) -> Result<Client, EngineError> {
    let (client, driver) = open_driven(config, tls).await?;
    tokio::spawn(async move {
        if let Err(e) = driver.await {
            tracing::debug!("postgres connection ended: {e}");
        }
    });
    Ok(client)
}

/// A client and its driver, for the caller to poll (`drive`).
async fn open_driven(
    config: &tokio_postgres::Config,
    tls: &Tls,
) -> Result<(Client, Driver), EngineError> {
    let connected = match tls {
        Tls::Off => within_timeout(config.connect(NoTls)).await,
        Tls::Rustls(make) => within_timeout(config.connect(make.clone())).await,
    };
    connected
        .map_err(|_| no_answer(config))?
        .map_err(|e| connect_failed(config, e))
}

/// Connect within `CONNECT_TIMEOUT`; the connection boxed as a `Driver`.
async fn within_timeout<S, T>(
    connecting: impl std::future::Future<
        Output = Result<(Client, tokio_postgres::Connection<S, T>), tokio_postgres::Error>,
    >,
) -> Result<Result<(Client, Driver), tokio_postgres::Error>, tokio::time::error::Elapsed>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    Ok(tokio::time::timeout(CONNECT_TIMEOUT, connecting)
        .await?
        .map(|(client, connection)| (client, Box::pin(connection) as Driver)))
}

/// Run `request` while polling the connection's `driver` in the same task, so an answer
/// reaches the request without waking another task (a spawned driver costs a cross-task wake
/// per statement). A driver that ended (the connection closed) is dropped; the request then
/// fails with the driver's closed-connection error.
async fn drive<T>(driver: &mut Option<Driver>, request: impl std::future::Future<Output = T>) -> T {
    use std::task::Poll;
    let mut request = std::pin::pin!(request);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(v) = request.as_mut().poll(cx) {
            return Poll::Ready(v);
        }
        if let Some(d) = driver.as_mut()
            && let Poll::Ready(ended) = d.as_mut().poll(cx)
        {
            if let Err(e) = ended {
                tracing::debug!("postgres connection ended: {e}");
            }
            *driver = None;
        }
        request.as_mut().poll(cx)
    })
    .await
}

/// Which of the engine I/O queries (`schemas/engine_io/postgres.sql`) the account of `url`
/// cannot run (logged in to the `postgres` database), with the server's words, changing
/// nothing (`plan`'s and `run`'s preflight).
pub async fn unreadable_io_views(
    url: &str,
    password: Option<&str>,
) -> Result<Vec<String>, EngineError> {
    let st = super::engine_io::statements(super::Dialect::Postgres)
        .map_err(|e| EngineError::fatal("SQL", e.to_string()))?;
    let (mut config, tls) = parse_url(url, password)
        .map_err(|e| EngineError::fatal("URL", format!("invalid url: {e}")))?;
    let admin = open(config.dbname("postgres"), &tls)
        .await
        .map_err(|e| e.during("connect"))?;
    let mut out = Vec::new();
    for (name, text, fallback) in super::engine_io::queries_of(&st) {
        let Err(e) = admin.simple_query(&text).await else {
            continue;
        };
        if let Some(f) = fallback
            && admin.simple_query(&f).await.is_ok()
        {
            continue;
        }
        out.push(format!("{name}: {}", classify(e).message));
    }
    Ok(out)
}

/// Log in to `url` as a run would (to the `postgres` database) and ask the server's version,
/// changing nothing (`plan`'s connection probe).
pub async fn reach(url: &str, password: Option<&str>) -> Result<String, EngineError> {
    let (config, tls) = parse_url(url, password)
        .map_err(|e| EngineError::fatal("URL", format!("invalid url: {e}")))?;
    let admin = open(config.clone().dbname("postgres"), &tls)
        .await
        .map_err(|e| e.during("connect"))?;
    Ok(admin
        .query_one("SHOW server_version", &[])
        .await
        .map_err(classify)?
        .get(0))
}

impl PgConnector {
    /// Connect once, create the database if absent, remember the server version.
    pub async fn new(url: &str, password: Option<&str>) -> Result<Self, EngineError> {
        let (mut config, tls) = parse_url(url, password)
            .map_err(|e| EngineError::fatal("URL", format!("invalid url: {e}")))?;
        let db = config
            .get_dbname()
            .filter(|d| !d.is_empty())
            .unwrap_or(DATABASE)
            .to_string();
        let admin = open(config.clone().dbname("postgres"), &tls)
            .await
            .map_err(|e| e.during("connect"))?;
        let exists = admin
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&db])
            .await
            .map_err(classify)?;
        if exists.is_none() {
            admin
                .batch_execute(&format!("CREATE DATABASE \"{}\"", db.replace('"', "\"\"")))
                .await
                .map_err(|e| classify(e).during("create database"))?;
        }
        let version: String = admin
            .query_one("SHOW server_version", &[])
            .await
            .map_err(classify)?
            .get(0);
        config.dbname(&db);
        Ok(PgConnector {
            config,
            tls,
            version,
        })
    }

    /// Settings worth recording with the results.
    pub async fn variables(&self, names: &[&str]) -> Result<Vec<(String, String)>, EngineError> {
        let client = open(&self.config, &self.tls).await?;
        let mut out = Vec::new();
        for name in names {
            if let Ok(row) = client.query_one(&format!("SHOW {name}"), &[]).await {
                out.push((name.to_string(), row.get::<_, String>(0)));
            }
        }
        Ok(out)
    }
}

impl Connector for PgConnector {
    type Session = PgSession;

    async fn connect(&self) -> Result<PgSession, EngineError> {
        let (client, driver) = open_driven(&self.config, &self.tls).await?;
        Ok(PgSession {
            client,
            driver: Some(driver),
            stmts: Vec::new(),
        })
    }

    fn execution(&self) -> Execution {
        Execution::Async
    }

    fn version(&self) -> String {
        format!("PostgreSQL {}", self.version)
    }
}

/// One virtual client's connection; its driver is polled by the client's own task.
pub struct PgSession {
    client: Client,
    driver: Option<Driver>,
    stmts: Vec<Statement>,
}

/// Our value bound to whatever type the server inferred for the parameter.
#[derive(Debug)]
struct Bind<'a>(&'a Value);

impl ToSql for Bind<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match (self.0, ty) {
            (Value::Null, _) => return Ok(IsNull::Yes),
            (Value::Int(i), &Type::INT2) => out.put_i16(i16::try_from(*i)?),
            (Value::Int(i), &Type::INT4) => out.put_i32(i32::try_from(*i)?),
            (Value::Int(i), &Type::INT8) => out.put_i64(*i),
            (Value::Float(f), &Type::FLOAT4) => out.put_f32(*f as f32),
            (Value::Float(f), &Type::FLOAT8) => out.put_f64(*f),
            (Value::Float(f), &Type::NUMERIC) => binary::put_numeric(*f, out)?,
            (Value::Int(i), &Type::NUMERIC) => binary::put_numeric_text(&i.to_string(), out)?,
            (Value::Text(t), &Type::TIMESTAMP | &Type::TIMESTAMPTZ) => {
                binary::put_timestamp(t, out)?
            }
            (Value::Text(t), _) => out.put_slice(t.as_bytes()),
            (v, ty) => return Err(format!("cannot bind {v:?} to a {ty} parameter").into()),
        }
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT2
                | Type::INT4
                | Type::INT8
                | Type::FLOAT4
                | Type::FLOAT8
                | Type::NUMERIC
                | Type::TIMESTAMP
                | Type::TIMESTAMPTZ
                | Type::TEXT
                | Type::BPCHAR
                | Type::VARCHAR
                | Type::NAME
        )
    }

    to_sql_checked!();
}

fn from_row(row: &tokio_postgres::Row, i: usize) -> Value {
    let ty = row.columns()[i].type_();
    let v = match *ty {
        Type::INT2 => row
            .try_get::<_, Option<i16>>(i)
            .ok()
            .flatten()
            .map(|v| Value::Int(v.into())),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(i)
            .ok()
            .flatten()
            .map(|v| Value::Int(v.into())),
        Type::INT8 => row
            .try_get::<_, Option<i64>>(i)
            .ok()
            .flatten()
            .map(Value::Int),
        Type::FLOAT4 => row
            .try_get::<_, Option<f32>>(i)
            .ok()
            .flatten()
            .map(|v| Value::Float(v.into())),
        Type::FLOAT8 => row
            .try_get::<_, Option<f64>>(i)
            .ok()
            .flatten()
            .map(Value::Float),
        Type::NUMERIC | Type::TIMESTAMP | Type::TIMESTAMPTZ => row
            .try_get::<_, Option<Decoded>>(i)
            .ok()
            .flatten()
            .map(|d| d.0),
        _ => row
            .try_get::<_, Option<String>>(i)
            .ok()
            .flatten()
            .map(Value::Text),
    };
    v.unwrap_or(Value::Null)
}

/// A NUMERIC (as Float) or TIMESTAMP (as Text) read from its binary form.
struct Decoded(Value);

impl<'a> tokio_postgres::types::FromSql<'a> for Decoded {
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Decoded(match *ty {
            Type::NUMERIC => Value::Float(binary::numeric_to_f64(raw)?),
            _ => Value::Text(binary::timestamp_to_text(raw)?),
        }))
    }

    fn accepts(ty: &Type) -> bool {
        matches!(*ty, Type::NUMERIC | Type::TIMESTAMP | Type::TIMESTAMPTZ)
    }
}

/// The statement `id` of a session.
fn stmt(stmts: &[Statement], id: StmtId) -> Result<&Statement, EngineError> {
    stmts.get(id).ok_or_else(|| {
        EngineError::fatal("DRIVEBENCH", format!("statement {id} was never prepared"))
    })
}

impl Session for PgSession {
    async fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        // `$` placeholders written without numbers (multi-row load templates) are numbered here.
        let sql = number_placeholders(sql);
        let st = drive(&mut self.driver, self.client.prepare(&sql))
            .await
            .map_err(classify)?;
        self.stmts.push(st);
        Ok(self.stmts.len() - 1)
    }

    async fn execute(&mut self, id: StmtId, params: &[Value]) -> Result<u64, EngineError> {
        let st = stmt(&self.stmts, id)?;
        drive(
            &mut self.driver,
            self.client.execute_raw(st, params.iter().map(Bind)),
        )
        .await
        .map_err(classify)
    }

    async fn query(
        &mut self,
        id: StmtId,
        params: &[Value],
        rows: &mut Rows,
    ) -> Result<(), EngineError> {
        rows.reset(stmt(&self.stmts, id)?.columns().len());
        if !rows.keep_values {
            // Counted only: executed, so the rows arrive and are framed but none is split into
            // its fields; the count is the server's, from the statement's closing tag.
            let n = self.execute(id, params).await?;
            rows.fetched = usize::try_from(n).unwrap_or(usize::MAX);
            return Ok(());
        }
        let st = stmt(&self.stmts, id)?;
        let client = &self.client;
        drive(&mut self.driver, async move {
            let stream = client
                .query_raw(st, params.iter().map(Bind))
                .await
                .map_err(classify)?;
            let mut stream = std::pin::pin!(stream);
            while let Some(row) = stream.next().await {
                let row = row.map_err(classify)?;
                rows.fetched += 1;
                for i in 0..row.len() {
                    rows.values.push(from_row(&row, i));
                }
            }
            Ok(())
        })
        .await
    }

    async fn execute_text(&mut self, sql: &str) -> Result<u64, EngineError> {
        let messages = drive(&mut self.driver, self.client.simple_query(sql))
            .await
            .map_err(classify)?;
        Ok(messages
            .iter()
            .map(|m| match m {
                tokio_postgres::SimpleQueryMessage::CommandComplete(n) => *n,
                _ => 0,
            })
            .sum())
    }

    /// `COPY ... FROM STDIN (FORMAT binary)` with the table's own column types.
    async fn bulk_path(&mut self) -> Result<BulkPath, EngineError> {
        Ok(BulkPath::Stream { auto_ids: false })
    }

    /// One binary `COPY ... FROM STDIN` per table, fed from the chunks as they are generated.
    async fn bulk_load(
        &mut self,
        table: &str,
        columns: &[&str],
        _text: BulkText,
        chunks: RowChunks,
    ) -> Result<u64, EngineError> {
        let client = &self.client;
        drive(&mut self.driver, copy_in(client, table, columns, chunks)).await
    }
}

/// One binary `COPY table (columns) FROM STDIN` fed from `chunks`.
async fn copy_in(
    client: &Client,
    table: &str,
    columns: &[&str],
    mut chunks: RowChunks,
) -> Result<u64, EngineError> {
    let cols = columns.join(", ");
    let probe = client
        .prepare(&format!("SELECT {cols} FROM {table} LIMIT 0"))
        .await
        .map_err(classify)?;
    let types: Vec<Type> = probe.columns().iter().map(|c| c.type_().clone()).collect();
    let sink = client
        .copy_in::<_, bytes::Bytes>(&format!("COPY {table} ({cols}) FROM STDIN (FORMAT binary)"))
        .await
        .map_err(classify)?;
    let writer = BinaryCopyInWriter::new(sink, &types);
    let mut writer = std::pin::pin!(writer);
    while let Some(rows) = chunks.recv().await {
        for row in rows.chunks(columns.len().max(1)) {
            let binds: Vec<Bind<'_>> = row.iter().map(Bind).collect();
            let refs: Vec<&(dyn ToSql + Sync)> =
                binds.iter().map(|b| b as &(dyn ToSql + Sync)).collect();
            writer.as_mut().write(&refs).await.map_err(classify)?;
        }
    }
    writer.finish().await.map_err(classify)
}

/// Number bare `$` placeholders: "($, $)" -> "($1, $2)". Already numbered ones are kept.
fn number_placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let bare = (0..bytes.len())
        .any(|i| bytes[i] == b'$' && !bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
    if !bare {
        return sql.to_string();
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '$' && !chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            n += 1;
            out.push_str(&n.to_string());
        }
    }
    out
}

/// Where `config` connects: "host:port" of its first host, or its socket.
fn place(config: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let port = config.get_ports().first().copied().unwrap_or(5432);
    match config.get_hosts().first() {
        Some(Host::Tcp(host)) => format!("{host}:{port}"),
        Some(Host::Unix(dir)) => format!("socket {}/.s.PGSQL.{port}", dir.display()),
        None => format!("localhost:{port}"),
    }
}

/// A connection `config` could not open: the address and the OS's reason (SQLSTATE 08001,
/// unable to establish), or the server's refusal (e.g. 28P01 bad password) with the address.
fn connect_failed(config: &tokio_postgres::Config, e: tokio_postgres::Error) -> EngineError {
    let place = place(config);
    if e.as_db_error().is_some() {
        let e = classify(e);
        let message = e.message.trim_start_matches("lost connection: ");
        return EngineError {
            message: format!("{place}: {message}"),
            ..e
        };
    }
    EngineError::cannot_connect("08001", &place, &e)
}

/// The connection phase did not end within `CONNECT_TIMEOUT`.
fn no_answer(config: &tokio_postgres::Config) -> EngineError {
    EngineError::new(
        ErrorClass::Reconnect,
        "08001",
        format!(
            "cannot connect to {}: no answer within {} s",
            place(config),
            CONNECT_TIMEOUT.as_secs()
        ),
    )
}

fn classify(e: tokio_postgres::Error) -> EngineError {
    let code = e.code().cloned();
    let message = e
        .as_db_error()
        .map(|d| d.message().to_string())
        .unwrap_or_else(|| e.to_string());
    let class = match &code {
        // 23505: a delete+insert racing another on the same id; sysbench's pgsql driver retries it too.
        Some(c)
            if *c == SqlState::T_R_DEADLOCK_DETECTED
                || *c == SqlState::T_R_SERIALIZATION_FAILURE
                || *c == SqlState::LOCK_NOT_AVAILABLE
                || *c == SqlState::UNIQUE_VIOLATION =>
        {
            ErrorClass::Retryable
        }
        Some(c) if c.code().starts_with("08") || c.code().starts_with("57P") => {
            ErrorClass::Reconnect
        }
        None if e.is_closed() => ErrorClass::Reconnect,
        None if e.as_db_error().is_none() && e.to_string().contains("connection") => {
            ErrorClass::Reconnect
        }
        _ => ErrorClass::Fatal,
    };
    let code = code.map(|c| c.code().to_string()).unwrap_or_else(|| {
        if class == ErrorClass::Reconnect {
            "08006".into()
        } else {
            "CLIENT".into()
        }
    });
    let message = if class == ErrorClass::Reconnect {
        format!("lost connection: {message}")
    } else {
        message
    };
    EngineError::new(class, code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escaped_socket_directory_as_host_is_a_unix_socket() {
        let dir = std::path::Path::new("/tmp/run 1/pg&x");
        let escaped = crate::engines::server::private::url_escaped(dir);
        let url = format!("postgres://postgres@{escaped}:40123/postgres");
        let (config, _) = parse_url(&url, None).unwrap();
        assert_eq!(place(&config), "socket /tmp/run 1/pg&x/.s.PGSQL.40123");
    }

    #[test]
    fn bare_placeholders_are_numbered() {
        assert_eq!(
            number_placeholders("INSERT INTO t VALUES ($, $), ($, $)"),
            "INSERT INTO t VALUES ($1, $2), ($3, $4)"
        );
        assert_eq!(
            number_placeholders("SELECT c FROM t WHERE id = $1::int4"),
            "SELECT c FROM t WHERE id = $1::int4"
        );
        // A statement ending in its placeholder, and one in a comparison.
        assert_eq!(
            number_placeholders("SELECT w_tax FROM warehouse WHERE w_id = $"),
            "SELECT w_tax FROM warehouse WHERE w_id = $1"
        );
        assert_eq!(
            number_placeholders("SELECT 1 WHERE a = $ AND b < $ LIMIT 1"),
            "SELECT 1 WHERE a = $1 AND b < $2 LIMIT 1"
        );
    }
}
