//! The MySQL family: one engine, MariaDB and MySQL its flavours (`engine`: its `Engine` and
//! `Server`; `server`: private mariadbd/mysqld instances; `config`: its settings). mysql_async sets an instance up (creates the database, reads the version
//! and server variables); the benchmark sessions speak the protocol through drivebench's own
//! client in `wire`: one connection per virtual client held for the whole run, server-side
//! prepared statements prepared once per connection, BEGIN/COMMIT/ROLLBACK over the text
//! protocol; loads through COM_STMT_BULK_EXECUTE on MariaDB and LOAD DATA LOCAL INFILE on
//! MySQL, else through prepared multi-row INSERTs (see `bulk_path`). Errors are classified by
//! code: 1213 deadlock, 1205 lock wait timeout and 1020 record changed are retryable; a lost
//! connection means reconnect; the rest is fatal.

mod config;
mod engine;
pub mod server;
pub mod url;
mod wire;

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder};

pub use config::MysqlConfig;
pub use engine::{Mariadb, Mysql, MysqlFamily};

use super::tls;
use super::{
    BulkPath, BulkText, Connector, EngineError, ErrorClass, Execution, RowChunks, Rows, Session,
    StmtId, Value,
};

/// The database drivebench creates and uses on every MySQL/MariaDB instance.
pub const DATABASE: &str = "sbtest";

pub struct MysqlConnector {
    opts: Opts,
    target: wire::login::Target,
    version: String,
    mariadb: bool,
}

/// A first connection to a server, without a database: what `new` and `reach` start from.
struct Admin {
    tls: tls::SessionTls,
    base: Opts,
    db: String,
    conn: Conn,
    opts: OptsBuilder,
}

impl Admin {
    async fn open(url: &str, password: Option<&str>) -> Result<Self, EngineError> {
        let url = url::MysqlUrl::parse(url)
            .map_err(|e| EngineError::fatal("URL", format!("invalid url: {e}")))?;
        let tls = url
            .tls
            .session()
            .map_err(|e| EngineError::fatal("TLS", e.to_string()))?;
        let base = url.opts.clone();
        let db = base
            .db_name()
            .map(str::to_string)
            .unwrap_or_else(|| DATABASE.to_string());
        let admin = OptsBuilder::from_opts(base.clone())
            .pass(password.map(str::to_string))
            .db_name(None::<String>)
            .ssl_opts(url.ssl_opts());
        let prefer = url.tls.mode == tls::TlsMode::Prefer;
        let (conn, opts) = setup_conn(admin, prefer)
            .await
            .map_err(|e| without_tls_hint(e, &url.tls).during("connect"))?;
        Ok(Admin {
            tls,
            base,
            db,
            conn,
            opts,
        })
    }
}

/// Log in to `url` as a run would and ask the server's version, changing nothing (`plan`'s
/// connection probe).
pub async fn reach(url: &str, password: Option<&str>) -> Result<String, EngineError> {
    let mut admin = Admin::open(url, password).await?;
    let version: Option<String> = admin
        .conn
        .query_first("SELECT VERSION()")
        .await
        .map_err(classify)?;
    let _ = admin.conn.disconnect().await;
    Ok(version.unwrap_or_default())
}

/// Which of the engine I/O queries (`schemas/engine_io/mysql.sql`) the account of `url`
/// cannot run, with the server's words, changing nothing (`plan`'s and `run`'s preflight).
pub async fn unreadable_io_views(
    url: &str,
    password: Option<&str>,
) -> Result<Vec<String>, EngineError> {
    let st = super::engine_io::statements(super::Dialect::Mysql)
        .map_err(|e| EngineError::fatal("SQL", e.to_string()))?;
    let mut admin = Admin::open(url, password).await?;
    let mut out = Vec::new();
    for (name, text, fallback) in super::engine_io::queries_of(&st) {
        let Err(e) = admin.conn.query_drop(&text).await else {
            continue;
        };
        if let Some(f) = fallback
            && admin.conn.query_drop(&f).await.is_ok()
        {
            continue;
        }
        out.push(format!("{name}: {}", classify(e).message));
    }
    let _ = admin.conn.disconnect().await;
    Ok(out)
}

impl MysqlConnector {
    /// Connect once to `url` (with `password`, never logged), create the database if absent,
    /// and remember the server version.
    pub async fn new(url: &str, password: Option<&str>) -> Result<Self, EngineError> {
        let Admin {
            tls,
            base,
            db,
            mut conn,
            opts: admin,
        } = Admin::open(url, password).await?;
        conn.query_drop(format!(
            "CREATE DATABASE IF NOT EXISTS `{}`",
            db.replace('`', "``")
        ))
        .await
        .map_err(classify)
        .map_err(|e| e.during("create database"))?;
        let version: Option<String> = conn
            .query_first("SELECT VERSION()")
            .await
            .map_err(classify)?;
        let _ = conn.disconnect().await;
        let target = wire::login::Target {
            host: base.ip_or_hostname().to_string(),
            port: base.tcp_port(),
            socket: base.socket().map(str::to_string),
            user: base.user().unwrap_or_default().to_string(),
            password: password.or(base.pass()).unwrap_or_default().to_string(),
            db: db.clone(),
            tls,
        };
        let opts = admin.db_name(Some(db)).prefer_socket(false).into();
        let version = version.unwrap_or_default();
        Ok(MysqlConnector {
            opts,
            target,
            mariadb: version.contains("MariaDB"),
            version,
        })
    }

    /// Server variables worth recording with the results.
    pub async fn variables(&self, names: &[&str]) -> Result<Vec<(String, String)>, EngineError> {
        let mut conn = connect_within(self.opts.clone()).await?;
        let mut out = Vec::new();
        for name in names {
            let v: Option<(String, String)> = conn
                .query_first(format!("SHOW GLOBAL VARIABLES LIKE '{name}'"))
                .await
                .map_err(classify)?;
            if let Some(v) = v {
                out.push(v);
            }
        }
        let _ = conn.disconnect().await;
        Ok(out)
    }
}

impl Connector for MysqlConnector {
    type Session = MysqlSession;

    async fn connect(&self) -> Result<MysqlSession, EngineError> {
        let conn = wire::Conn::connect(&self.target).await?;
        Ok(MysqlSession {
            conn,
            stmts: Vec::new(),
            mariadb: self.mariadb,
            scratch: Rows::counting(),
        })
    }

    fn execution(&self) -> Execution {
        Execution::Async
    }

    fn version(&self) -> String {
        if self.mariadb {
            format!("MariaDB {}", self.version)
        } else {
            format!("MySQL {}", self.version)
        }
    }
}

/// A prepared statement, or transaction control sent as text.
enum Prepared {
    Server(wire::Stmt),
    Text(String),
}

pub struct MysqlSession {
    conn: wire::Conn,
    stmts: Vec<Prepared>,
    /// The server is a MariaDB (`VERSION()` says so), which loads through INSERT (in bulk
    /// commands where the connection agreed to them: `wire::Conn::bulk`).
    mariadb: bool,
    /// Rows of statements run through `execute`, counted and dropped.
    scratch: Rows,
}

fn is_transaction_control(sql: &str) -> bool {
    super::txn_control(sql) != super::TxnControl::None
}

fn unprepared(id: StmtId) -> EngineError {
    EngineError::fatal("DRIVEBENCH", format!("statement {id} was never prepared"))
}

impl Session for MysqlSession {
    async fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let p = if is_transaction_control(sql) {
            Prepared::Text(sql.to_string())
        } else {
            Prepared::Server(self.conn.prepare(sql).await?)
        };
        self.stmts.push(p);
        Ok(self.stmts.len() - 1)
    }

    async fn execute(&mut self, stmt: StmtId, params: &[Value]) -> Result<u64, EngineError> {
        match self.stmts.get(stmt).ok_or_else(|| unprepared(stmt))? {
            Prepared::Text(sql) => self.conn.query(sql).await,
            Prepared::Server(s) => self.conn.execute(*s, params, &mut self.scratch).await,
        }
    }

    async fn query(
        &mut self,
        stmt: StmtId,
        params: &[Value],
        rows: &mut Rows,
    ) -> Result<(), EngineError> {
        let Prepared::Server(s) = self.stmts.get(stmt).ok_or_else(|| unprepared(stmt))? else {
            return Err(EngineError::fatal(
                "DRIVEBENCH",
                "transaction control statements return no rows",
            ));
        };
        self.conn.execute(*s, params, rows).await.map(|_| ())
    }

    /// The load connection sends text as bytes (`SET NAMES binary`): the server stores it as it
    /// comes, with no conversion from the client's character set to the table's (the loaders'
    /// text is ASCII). MariaDB loads through COM_STMT_BULK_EXECUTE when it agreed to it (every
    /// MariaDB since 10.2): one single-row INSERT, prepared once, over a chunk of rows per
    /// command; on MariaDB 10.11 here that took about a tenth less server CPU per TPC-C load
    /// than the prepared multi-row INSERTs a server without it gets (a twentieth per sysbench
    /// load). MySQL keeps `LOAD DATA LOCAL INFILE` when the server allows local infile (not
    /// measured against INSERT here: no MySQL server in this build's tests).
    async fn bulk_path(&mut self) -> Result<BulkPath, EngineError> {
        self.conn.query("SET NAMES binary").await?;
        if self.mariadb {
            if self.conn.bulk() {
                // The rows carry their keys: InnoDB reserves AUTO_INCREMENT values for a bulk
                // command in growing blocks and leaves the unused ones as gaps.
                tracing::info!("MariaDB: loading with COM_STMT_BULK_EXECUTE");
                return Ok(BulkPath::Stream { auto_ids: false });
            }
            tracing::info!("MariaDB: loading with INSERT (prepared, typed parameters)");
            return Ok(BulkPath::None);
        }
        let stmt = self.conn.prepare("SELECT @@global.local_infile").await?;
        let mut rows = Rows::default();
        self.conn.execute(stmt, &[], &mut rows).await?;
        self.conn.close(stmt).await?;
        if rows.get(0, 0).and_then(Value::as_i64) != Some(1) {
            tracing::info!("local_infile is off on the server: loading with INSERT");
            return Ok(BulkPath::None);
        }
        Ok(BulkPath::Stream { auto_ids: true })
    }

    /// One table's rows as they are generated: through COM_STMT_BULK_EXECUTE where the server
    /// agreed to it (see `bulk_path`), else through one `LOAD DATA LOCAL INFILE`.
    async fn bulk_load(
        &mut self,
        table: &str,
        columns: &[&str],
        text: BulkText,
        chunks: RowChunks,
    ) -> Result<u64, EngineError> {
        if self.conn.bulk() {
            self.bulk_insert(table, columns, chunks).await
        } else {
            self.load_data(table, columns, text, chunks).await
        }
    }

    async fn execute_text(&mut self, sql: &str) -> Result<u64, EngineError> {
        self.conn.query(sql).await
    }
}

/// A bulk-inserting load commits once this many rows have gone in since its last commit.
const BULK_ROWS_PER_COMMIT: u64 = 10_000;

impl MysqlSession {
    /// The chunks through one prepared single-row INSERT, a COM_STMT_BULK_EXECUTE per chunk,
    /// a transaction per `BULK_ROWS_PER_COMMIT` rows.
    async fn bulk_insert(
        &mut self,
        table: &str,
        columns: &[&str],
        mut chunks: RowChunks,
    ) -> Result<u64, EngineError> {
        let sql = format!(
            "INSERT INTO `{table}` ({}) VALUES ({})",
            columns.join(", "),
            vec!["?"; columns.len()].join(", ")
        );
        let stmt = self.conn.prepare(&sql).await?;
        let (mut written, mut uncommitted) = (0, 0);
        self.conn.query("BEGIN").await?;
        while let Some(rows) = chunks.recv().await {
            let inserted = self.conn.execute_bulk(stmt, &rows).await?;
            written += inserted;
            uncommitted += inserted;
            if uncommitted >= BULK_ROWS_PER_COMMIT {
                self.conn.query("COMMIT").await?;
                self.conn.query("BEGIN").await?;
                uncommitted = 0;
            }
        }
        self.conn.query("COMMIT").await?;
        self.conn.close(stmt).await?;
        Ok(written)
    }

    /// One `LOAD DATA LOCAL INFILE` per table, its data streamed from the chunks as they are
    /// generated (no temporary file). Plain rows go without escapes (`ESCAPED BY ''`): the
    /// server's field reader then skips its escape handling, about a tenth of its CPU here.
    /// MySQL's load path; public so that it can be checked against a MariaDB, which accepts
    /// the same statement.
    pub async fn load_data(
        &mut self,
        table: &str,
        columns: &[&str],
        text: BulkText,
        mut chunks: RowChunks,
    ) -> Result<u64, EngineError> {
        // Rows that leave the AUTO_INCREMENT key out are numbered 1, 2, ... whatever the
        // server's defaults (`auto_ids`).
        self.conn
            .query("SET auto_increment_increment = 1, auto_increment_offset = 1")
            .await?;
        let sql = format!(
            "LOAD DATA LOCAL INFILE 'drivebench' INTO TABLE `{table}` CHARACTER SET binary FIELDS TERMINATED BY '\\t' ESCAPED BY '{}' LINES TERMINATED BY '\\n' ({})",
            match text {
                BulkText::Plain => "",
                BulkText::Any => "\\\\",
            },
            columns.join(", ")
        );
        let width = columns.len();
        self.conn
            .load_local(&sql, &mut chunks, |rows| super::tsv(rows, width, text))
            .await
    }
}

/// Server error codes that roll back and re-run the transaction (sysbench's ignore list).
pub const RETRYABLE_CODES: [u16; 3] = [1213, 1205, 1020];

/// The setup connection through mysql_async. With `ssl-mode=PREFERRED` a server that offers
/// no TLS is asked again without it; the options that connected come back with it.
async fn setup_conn(opts: OptsBuilder, prefer: bool) -> Result<(Conn, OptsBuilder), EngineError> {
    match connect_within(opts.clone().into()).await {
        Err(ConnectError(
            _,
            Some(mysql_async::Error::Driver(mysql_async::DriverError::NoClientSslFlagFromServer)),
        )) if prefer => {
            let plain = opts.ssl_opts(None);
            let conn = connect_within(plain.clone().into()).await?;
            Ok((conn, plain))
        }
        other => Ok((other?, opts)),
    }
}

/// Access denied (1045) on a connection without TLS: MariaDB answers so when
/// require_secure_transport is on, with nothing about TLS in its message; say it.
fn without_tls_hint(e: EngineError, tls: &tls::TlsSettings) -> EngineError {
    if e.code != "1045" || tls.mode != tls::TlsMode::Disable {
        return e;
    }
    EngineError {
        message: format!(
            "{} (TLS was not used, ssl-mode={}: MariaDB refuses this way when its \
             require_secure_transport is ON; set ssl-mode in the url then)",
            e.message,
            tls.mode_name()
        ),
        ..e
    }
}

/// A mysql_async connection, its connection phase bounded as the sessions' are.
async fn connect_within(opts: Opts) -> Result<Conn, ConnectError> {
    match tokio::time::timeout(wire::CONNECT_TIMEOUT, Conn::new(opts.clone())).await {
        Ok(conn) => conn.map_err(|e| ConnectError(opts, Some(e))),
        Err(_) => Err(ConnectError(opts, None)),
    }
}

/// A mysql_async connection that did not open: the driver's error, or none when the server
/// did not answer in time.
struct ConnectError(Opts, Option<mysql_async::Error>);

impl From<ConnectError> for EngineError {
    fn from(ConnectError(opts, e): ConnectError) -> Self {
        match e {
            Some(e) => connect_failed(&opts, e),
            None => EngineError::new(
                ErrorClass::Reconnect,
                "2003",
                format!(
                    "cannot connect to {}: no answer within {} s",
                    place(&opts),
                    wire::CONNECT_TIMEOUT.as_secs()
                ),
            ),
        }
    }
}

/// Where `opts` connect: "host:port", or the socket.
fn place(opts: &Opts) -> String {
    match opts.socket() {
        Some(path) => format!("socket {path}"),
        None => format!("{}:{}", opts.ip_or_hostname(), opts.tcp_port()),
    }
}

/// A connection to the server `opts` name that could not be opened: the address and the OS's
/// reason (code 2003, as the mysql client says "Can't connect"), or the server's refusal
/// (e.g. 1045 access denied) with the address in front.
fn connect_failed(opts: &Opts, e: mysql_async::Error) -> EngineError {
    let place = place(opts);
    match e {
        mysql_async::Error::Io(io) => EngineError::cannot_connect("2003", &place, &io),
        other => {
            let e = classify(other);
            EngineError {
                message: format!("{place}: {}", e.message),
                ..e
            }
        }
    }
}

fn classify(e: mysql_async::Error) -> EngineError {
    match e {
        mysql_async::Error::Server(s) => EngineError::new(
            if RETRYABLE_CODES.contains(&s.code) {
                ErrorClass::Retryable
            } else {
                ErrorClass::Fatal
            },
            s.code.to_string(),
            s.message,
        ),
        mysql_async::Error::Io(io) => EngineError::new(
            ErrorClass::Reconnect,
            "2013",
            format!("lost connection: {io}"),
        ),
        mysql_async::Error::Driver(mysql_async::DriverError::ConnectionClosed) => {
            EngineError::new(ErrorClass::Reconnect, "2006", "server has gone away")
        }
        other => EngineError::fatal("CLIENT", other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_data_text_escapes_what_load_data_would_misread() {
        let rows = [
            Value::Int(1),
            Value::Text("a\tb".into()),
            Value::Null,
            Value::Int(-2),
            Value::Text("back\\slash\nnew".into()),
            Value::Float(1.5),
        ];
        assert_eq!(
            String::from_utf8(crate::engines::tsv(&rows, 3, BulkText::Any).unwrap()).unwrap(),
            "1\ta\\tb\t\\N\n-2\tback\\\\slash\\nnew\t1.5\n"
        );
    }

    #[test]
    fn plain_rows_go_as_they_are_and_anything_needing_escapes_is_refused() {
        let plain = [
            Value::Int(7),
            Value::Text("12345678901-23456789012".into()),
            Value::Float(-0.5),
        ];
        assert_eq!(
            crate::engines::tsv(&plain, 3, BulkText::Plain),
            Ok(b"7\t12345678901-23456789012\t-0.5\n".to_vec())
        );
        assert_eq!(
            crate::engines::tsv(&plain, 3, BulkText::Plain),
            crate::engines::tsv(&plain, 3, BulkText::Any)
        );
        for bad in ["a\tb", "a\nb", "a\\b"] {
            let e = crate::engines::tsv(
                &[Value::Int(1), Value::Text(bad.into())],
                2,
                BulkText::Plain,
            );
            assert!(e.unwrap_err().to_string().contains("needs escaping"));
        }
        let e = crate::engines::tsv(&[Value::Int(1), Value::Null], 2, BulkText::Plain);
        assert!(e.unwrap_err().to_string().contains("NULL"));
    }

    #[test]
    fn errors_are_classified_by_code() {
        let server = |code| {
            mysql_async::Error::Server(mysql_async::ServerError {
                code,
                message: "m".into(),
                state: "HY000".into(),
            })
        };
        let cases = [
            (1213, ErrorClass::Retryable),
            (1205, ErrorClass::Retryable),
            (1020, ErrorClass::Retryable),
            (1146, ErrorClass::Fatal),
        ];
        for (code, class) in cases {
            let e = classify(server(code));
            assert_eq!((e.class, e.code), (class, code.to_string()));
        }
        let gone = classify(mysql_async::Error::Driver(
            mysql_async::DriverError::ConnectionClosed,
        ));
        assert_eq!(gone.class, ErrorClass::Reconnect);
    }

    #[test]
    fn transaction_control_goes_over_text() {
        for (sql, text) in [
            ("BEGIN", true),
            ("commit", true),
            ("ROLLBACK", true),
            ("SELECT 1", false),
            ("  START TRANSACTION", true),
        ] {
            assert_eq!(is_transaction_control(sql), text, "{sql}");
        }
    }
}
