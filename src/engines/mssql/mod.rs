//! Microsoft SQL Server (`engine`: its `Engine` and `Server`; `server`: private sqlservr
//! instances; `preflight`: what `plan` learns before a run; `config`: its settings), through
//! tiberius (TDS 7.3+, rustls): one connection per virtual client,
//! every statement sent as a parameterised `sp_executesql` request whose text and parameter
//! declaration never change (SQL Server's plan cache, keyed by both, is reused: tiberius does
//! not prepare handles), `@P1..@Pn` placeholders, and T-SQL `BEGIN TRAN` / `COMMIT` /
//! `ROLLBACK` sent as plain batches (inside `sp_executesql` they would unbalance the
//! transaction count). Each session runs with `XACT_ABORT ON`, so any error rolls the whole
//! transaction back, as a deadlock does. The driver's 30 s command timeout is replaced by the
//! plan's `command_timeout`. Errors are classified in `errors`; URLs parsed in `url`.

mod admin;
mod config;
mod engine;
mod errors;
pub mod preflight;
pub mod server;
pub mod url;
mod values;

use futures_util::TryStreamExt;
use tiberius::{Client, QueryItem, ToSql};
use tokio::net::TcpStream;
use tokio_util::compat::{Compat, TokioAsyncWriteCompatExt};

pub use admin::{ServerFacts, create_database_sql, probe, run_batch};
pub use config::{DEFAULT_COMMAND_TIMEOUT, MssqlConfig};
pub use engine::Mssql;
pub use errors::{class_of, classify};
pub use url::MssqlUrl;
pub use values::{Param, declared_type, decode, number_placeholders};

use super::{
    BulkPath, BulkText, Connector, EngineError, Execution, RowChunks, Rows, Session, StmtId,
    TxnControl, Value, txn_control,
};

/// Parameters per request: SQL Server takes at most 2,100, `sp_executesql` uses two of them.
pub const MAX_PARAMS: usize = 2_000;

/// Set on every session: errors roll the whole transaction back; row counts are reported;
/// "YYYY-MM-DD HH:MM:SS" text is year-month-day whatever the login's language.
const SESSION_SETUP: &str = "SET XACT_ABORT ON; SET NOCOUNT OFF; SET DATEFORMAT ymd;";

pub(crate) type Conn = Client<Compat<TcpStream>>;

pub struct MssqlConnector {
    url: MssqlUrl,
    password: Option<String>,
    command_timeout: Option<std::time::Duration>,
    version: String,
}

pub(crate) async fn open(config: tiberius::Config) -> Result<Conn, EngineError> {
    let addr = config.get_addr();
    let tcp = TcpStream::connect(&addr).await.map_err(|e| {
        EngineError::new(
            super::ErrorClass::Reconnect,
            "IO",
            format!("cannot connect to {addr}: {e}"),
        )
    })?;
    let _ = tcp.set_nodelay(true);
    Client::connect(config, tcp.compat_write())
        .await
        .map_err(classify)
}

/// Run a batch and drop whatever it returns.
pub(crate) async fn batch(c: &mut Conn, sql: &str) -> Result<(), EngineError> {
    c.simple_query(sql)
        .await
        .map_err(classify)?
        .into_results()
        .await
        .map_err(classify)?;
    Ok(())
}

/// The first column of the first row of a batch, decoded.
pub(crate) async fn scalar(c: &mut Conn, sql: &str) -> Result<Option<Value>, EngineError> {
    let row = c
        .simple_query(sql)
        .await
        .map_err(classify)?
        .into_row()
        .await
        .map_err(classify)?;
    Ok(row.and_then(|r| r.cells().next().map(|(_, d)| decode(d))))
}

impl MssqlConnector {
    /// Connect once to `master`, create the URL's database if absent (files in
    /// `config.database_dir` when set), and remember the server's version.
    pub async fn new(
        url: &str,
        password: Option<&str>,
        config: &MssqlConfig,
    ) -> Result<Self, EngineError> {
        let url = MssqlUrl::parse(url).map_err(|m| EngineError::fatal("URL", m.to_string()))?;
        let timeout = config.command_timeout();
        let mut admin = open(url.config("master", password, timeout))
            .await
            .map_err(|e| e.during(format!("connect to {}", url.display())))?;
        let db = url.database.clone();
        let exists = scalar(
            &mut admin,
            &format!("SELECT COUNT(*) FROM sys.databases WHERE name = N'{db}'"),
        )
        .await
        .map_err(|e| e.during("look for the database"))?;
        if exists.and_then(|v| v.as_i64()).unwrap_or(0) == 0 {
            let sql = create_database_sql(&db, config.database_dir.as_deref());
            tracing::info!("{sql}");
            batch(&mut admin, &sql)
                .await
                .map_err(|e| e.during(format!("create database {db}")))?;
        }
        let version = scalar(&mut admin, "SELECT @@VERSION")
            .await?
            .map(|v| match v {
                Value::Text(t) => t.lines().next().unwrap_or("").trim().to_string(),
                other => format!("{other:?}"),
            })
            .unwrap_or_else(|| "SQL Server (version unknown)".into());
        let _ = admin.close().await;
        Ok(MssqlConnector {
            url,
            password: password.map(str::to_string),
            command_timeout: timeout,
            version,
        })
    }

    /// The URL the clients use (no password).
    pub fn url(&self) -> &MssqlUrl {
        &self.url
    }

    pub(crate) async fn open_db(&self) -> Result<Conn, EngineError> {
        let config = self.url.config(
            &self.url.database,
            self.password.as_deref(),
            self.command_timeout,
        );
        open(config).await
    }
}

impl Connector for MssqlConnector {
    type Session = MssqlSession;

    async fn connect(&self) -> Result<MssqlSession, EngineError> {
        let mut client = self.open_db().await?;
        batch(&mut client, SESSION_SETUP)
            .await
            .map_err(|e| e.during("session settings"))?;
        Ok(MssqlSession {
            client,
            stmts: Vec::new(),
        })
    }

    fn execution(&self) -> Execution {
        Execution::Async
    }

    fn version(&self) -> String {
        self.version.clone()
    }
}

/// A statement as sent: its text, and whether it is transaction control (a plain batch).
struct Prepared {
    sql: String,
    control: bool,
}

pub struct MssqlSession {
    client: Conn,
    stmts: Vec<Prepared>,
}

/// Statement `id` of a session (a free function, so the client stays borrowable beside it).
fn lookup(stmts: &[Prepared], id: StmtId) -> Result<&Prepared, EngineError> {
    stmts.get(id).ok_or_else(|| {
        EngineError::fatal("DRIVEBENCH", format!("statement {id} was never prepared"))
    })
}

/// The parameter types go into the message; the context is left to the caller, who names the
/// statement.
fn with_params(mut e: EngineError, params: &[Value]) -> EngineError {
    e.message = format!("{} [{}]", e.message, describe(params));
    e
}

/// What a failed statement was sent with, for the error: its parameter types, counted when
/// there are many (a load INSERT has thousands).
fn describe(params: &[Value]) -> String {
    let types: Vec<&str> = params.iter().map(declared_type).collect();
    if types.len() <= 8 {
        return format!("parameters ({})", types.join(", "));
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for t in types {
        match counts.iter_mut().find(|(name, _)| *name == t) {
            Some((_, n)) => *n += 1,
            None => counts.push((t, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(t, n)| format!("{n} {t}")).collect();
    format!("{} parameters ({})", params.len(), parts.join(", "))
}

impl Session for MssqlSession {
    async fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        let control = txn_control(sql) != TxnControl::None;
        self.stmts.push(Prepared {
            sql: number_placeholders(sql),
            control,
        });
        Ok(self.stmts.len() - 1)
    }

    async fn execute(&mut self, stmt: StmtId, params: &[Value]) -> Result<u64, EngineError> {
        let st = lookup(&self.stmts, stmt)?;
        if st.control {
            batch(&mut self.client, &st.sql).await?;
            return Ok(0);
        }
        let binds: Vec<Param<'_>> = params.iter().map(Param).collect();
        let refs: Vec<&dyn ToSql> = binds.iter().map(|b| b as &dyn ToSql).collect();
        let result = self
            .client
            .execute(st.sql.as_str(), &refs)
            .await
            .map_err(|e| with_params(classify(e), params))?;
        Ok(result.total())
    }

    async fn query(
        &mut self,
        stmt: StmtId,
        params: &[Value],
        rows: &mut Rows,
    ) -> Result<(), EngineError> {
        let st = lookup(&self.stmts, stmt)?;
        rows.reset(0);
        let binds: Vec<Param<'_>> = params.iter().map(Param).collect();
        let refs: Vec<&dyn ToSql> = binds.iter().map(|b| b as &dyn ToSql).collect();
        let mut stream = self
            .client
            .query(st.sql.as_str(), &refs)
            .await
            .map_err(|e| with_params(classify(e), params))?;
        // The first result set is the statement's; anything after it is drained.
        while let Some(item) = stream.try_next().await.map_err(classify)? {
            match item {
                QueryItem::Metadata(m) if m.result_index() == 0 => {
                    rows.reset(m.columns().len());
                }
                QueryItem::Row(r) if r.result_index() == 0 => {
                    rows.fetched += 1;
                    if rows.keep_values {
                        rows.values.extend(r.cells().map(|(_, d)| decode(d)));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A plain batch (DDL, sysbench's text inserts); SQL Server reports no count for it here.
    async fn execute_text(&mut self, sql: &str) -> Result<u64, EngineError> {
        batch(&mut self.client, sql).await?;
        Ok(0)
    }

    /// tiberius's bulk insert needs rows typed exactly as the table's columns and is not yet
    /// verified against SQL Server: the loaders use multi-row INSERTs.
    async fn bulk_path(&mut self) -> Result<BulkPath, EngineError> {
        Ok(BulkPath::None)
    }

    async fn bulk_load(
        &mut self,
        table: &str,
        _columns: &[&str],
        _text: BulkText,
        _chunks: RowChunks,
    ) -> Result<u64, EngineError> {
        Err(EngineError::fatal(
            "DRIVEBENCH",
            format!("{table}: SQL Server sessions load with multi-row INSERT, not a bulk stream"),
        ))
    }

    fn max_params(&self) -> usize {
        MAX_PARAMS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_statements_name_their_parameter_types_briefly() {
        assert_eq!(
            describe(&[Value::Int(1), Value::Text("a".into())]),
            "parameters (bigint, nvarchar(4000))"
        );
        let load: Vec<Value> = (0..500)
            .flat_map(|i| [Value::Int(i), Value::Text("c".into())])
            .collect();
        assert_eq!(
            describe(&load),
            "1000 parameters (500 bigint, 500 nvarchar(4000))"
        );
    }
}
