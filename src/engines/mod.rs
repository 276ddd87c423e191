//! The engines drivebench drives, one folder each (`sqlite`, `mysql` for MariaDB and MySQL,
//! `postgres`, `mssql`), and what they share: the `Connector`/`Session` abstraction that
//! workloads and clients see, our own `Value` and `Rows`, errors classified into `ErrorClass`,
//! `Execution` and its `runner`, named `statements`, and in `driver` the closed sets of
//! engines (`EngineKind`, the plan's `EngineConfig`), the `Engine` trait, its `EngineOps`
//! table and `dispatch`, the one `match` on `EngineKind`. `server` is the private-server lifecycle the three server engines share, `tls` the TLS
//! settings of MySQL and PostgreSQL URLs and their rustls configuration. Nothing here reads
//! a plan: the protocol hands engines what they need.

mod driver;
pub mod engine_io;
pub mod isolation;
pub mod mssql;
pub mod mysql;
pub mod postgres;
mod registry;
pub mod runner;
pub mod server;
pub mod sqlite;
pub mod statements;
pub mod tls;

use std::future::Future;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use driver::{
    Advice, BoxFuture, Dialect, Embedded, Engine, EngineConfig, EngineKind, EngineOps,
    PreflightInstance, PreflightRun, Severity, UrlProblem,
};
pub use registry::{EngineVisitor, dispatch};
pub use statements::Statements;

/// A parameter or result value, independent of any driver's types.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Float(f64),
    Text(String),
}

impl Value {
    /// A number as an integer, however the driver returned it (MySQL gives SUM and DECIMAL as
    /// text); fractions are truncated. None for NULL and for text that is not a number.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Float(f) => Some(*f as i64),
            Value::Text(t) => {
                let t = t.trim();
                t.parse()
                    .ok()
                    .or_else(|| t.parse::<f64>().ok().map(|f| f as i64))
            }
            Value::Null => None,
        }
    }

    /// A number as a float, however the driver returned it (DECIMAL may come as text).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Text(t) => t.trim().parse().ok(),
            Value::Null => None,
        }
    }
}

/// Rows fetched by `Session::query`, row-major; cleared by each query. Every row is always
/// received whole by the driver; `keep_values = false` (a workload that reads nothing back,
/// like sysbench, counts rows) leaves the values unsplit and uncopied, as MariaDB's and
/// PostgreSQL's sessions then only count the rows.
#[derive(Debug)]
pub struct Rows {
    pub columns: usize,
    pub values: Vec<Value>,
    /// Rows fetched by the last query.
    pub fetched: usize,
    pub keep_values: bool,
}

impl Default for Rows {
    fn default() -> Self {
        Rows {
            columns: 0,
            values: Vec::new(),
            fetched: 0,
            keep_values: true,
        }
    }
}

impl Rows {
    /// Rows that are fetched and counted but whose values are not kept.
    pub fn counting() -> Self {
        Rows {
            keep_values: false,
            ..Rows::default()
        }
    }
    /// Start a new result.
    pub fn reset(&mut self, columns: usize) {
        self.columns = columns;
        self.values.clear();
        self.fetched = 0;
    }
    pub fn len(&self) -> usize {
        self.fetched
    }
    pub fn is_empty(&self) -> bool {
        self.fetched == 0
    }
    pub fn get(&self, row: usize, col: usize) -> Option<&Value> {
        if col >= self.columns {
            return None;
        }
        self.values.get(row * self.columns + col)
    }
}

/// What a statement does to the session's transaction, read from its first words. Engines that
/// treat transaction control specially (text protocol, write queue) ask this once per prepare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnControl {
    /// Not transaction control.
    None,
    /// BEGIN / START TRANSACTION (deferred).
    Begin,
    /// BEGIN IMMEDIATE / EXCLUSIVE: takes the write lock up front.
    BeginWrite,
    /// COMMIT, ROLLBACK, END.
    End,
}

pub fn txn_control(sql: &str) -> TxnControl {
    let mut words = sql
        .split_whitespace()
        .map(|w| w.trim_end_matches(';').to_ascii_uppercase());
    match (words.next().as_deref(), words.next().as_deref()) {
        (Some("BEGIN"), Some("IMMEDIATE" | "EXCLUSIVE")) => TxnControl::BeginWrite,
        (Some("BEGIN" | "START"), _) => TxnControl::Begin,
        (Some("COMMIT" | "ROLLBACK" | "END"), _) => TxnControl::End,
        _ => TxnControl::None,
    }
}

/// Index of a statement prepared on one session.
pub type StmtId = usize;

/// What a failed call means for the transaction that made it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Roll back and re-run the whole transaction with the same inputs (deadlock, busy, lock timeout).
    Retryable,
    /// The connection is gone: reconnect, re-prepare, re-run.
    Reconnect,
    /// Anything else: the phase stops.
    Fatal,
}

/// A failed engine call: its class, the engine's code (e.g. `SQLITE_BUSY`), and its message.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}{code}: {message}", context.as_deref().map(|c| format!("{c}: ")).unwrap_or_default())]
pub struct EngineError {
    pub class: ErrorClass,
    pub code: String,
    pub message: String,
    /// What was being done, e.g. the statement: "point_select on sbtest3".
    pub context: Option<String>,
}

impl EngineError {
    /// Attach what was being done when the error happened (kept if already set).
    pub fn during(mut self, what: impl Into<String>) -> Self {
        if self.context.is_none() {
            self.context = Some(what.into());
        }
        self
    }

    /// An error of `class` with the engine's `code` and `message`, no context yet.
    pub fn new(class: ErrorClass, code: impl Into<String>, message: impl Into<String>) -> Self {
        EngineError {
            class,
            code: code.into(),
            message: message.into(),
            context: None,
        }
    }

    pub fn fatal(code: &str, message: impl Into<String>) -> Self {
        EngineError::new(ErrorClass::Fatal, code, message)
    }

    /// A connection to `place` ("host:port", or a socket) that could not be opened, with the
    /// innermost reason `cause` gives (the OS's, e.g. "Connection refused (os error 111)"):
    /// no connection was ever made, so nothing was lost. Reconnecting may still succeed.
    pub fn cannot_connect(code: &str, place: &str, cause: &dyn std::error::Error) -> Self {
        let mut root = cause;
        while let Some(next) = root.source() {
            root = next;
        }
        EngineError::new(
            ErrorClass::Reconnect,
            code,
            format!("cannot connect to {place}: {root}"),
        )
    }
}

/// Where a session's calls may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    /// Calls block the calling thread: each virtual client gets a dedicated OS thread.
    DedicatedThread,
    /// Calls are truly asynchronous: clients run as tasks on the client shards (one
    /// current-thread runtime per core, see `runner`).
    Async,
}

/// One connection of one virtual client.
pub trait Session: Send + 'static {
    /// Prepare a statement once; later calls refer to it by id.
    fn prepare(&mut self, sql: &str) -> impl Future<Output = Result<StmtId, EngineError>> + Send;
    /// Run a prepared statement that returns no rows; gives the affected row count.
    fn execute(
        &mut self,
        stmt: StmtId,
        params: &[Value],
    ) -> impl Future<Output = Result<u64, EngineError>> + Send;
    /// Run a prepared query and fetch every row into `rows`.
    fn query(
        &mut self,
        stmt: StmtId,
        params: &[Value],
        rows: &mut Rows,
    ) -> impl Future<Output = Result<(), EngineError>> + Send;
    /// Run plain SQL text without preparing it (DDL, sysbench's text inserts).
    fn execute_text(&mut self, sql: &str) -> impl Future<Output = Result<u64, EngineError>> + Send;
    /// Whether this session has a bulk path for [`Session::bulk_load`], and how it treats
    /// indexes. Asked once per load connection.
    fn bulk_path(&mut self) -> impl Future<Output = Result<BulkPath, EngineError>> + Send;
    /// Stream `chunks` (row-major, `columns.len()` values per row) into `table` through the
    /// engine's bulk path as one statement, committed when the channel closes; gives the rows
    /// the engine says it wrote. Only called when [`Session::bulk_path`] said
    /// [`BulkPath::Stream`]. `text` says whether the values may need escaping.
    fn bulk_load(
        &mut self,
        table: &str,
        columns: &[&str],
        text: BulkText,
        chunks: RowChunks,
    ) -> impl Future<Output = Result<u64, EngineError>> + Send;
    /// Bound parameters one request may carry (SQL Server: about 2,100); the INSERT path of
    /// the loaders puts fewer rows in one statement when a row's columns would exceed it.
    fn max_params(&self) -> usize {
        usize::MAX
    }
}

/// Rows for [`Session::bulk_load`], a chunk at a time.
pub type RowChunks = tokio::sync::mpsc::Receiver<Vec<Value>>;

/// What the values of a bulk load may hold, so a text-format bulk path knows whether it must
/// escape them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkText {
    /// No NULL, and no tab, newline or backslash in any text: the generator cannot make them
    /// (sysbench's digits and dashes). The engine may send the values as they are; a value that
    /// breaks the promise fails the load.
    Plain,
    /// Anything: escaped where needed.
    Any,
}

/// An engine's bulk-load path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkPath {
    /// None: the loader uses prepared multi-row INSERTs, a transaction per chunk of rows.
    None,
    /// One streamed statement per table. `auto_ids`: the engine numbers an auto-increment key
    /// 1, 2, ... in load order, for less than it costs to read the numbers (MySQL's LOAD DATA),
    /// so the loader leaves such a key out of a freshly created table's rows, as
    /// `sysbench prepare` does. Secondary indexes are created after the load.
    Stream { auto_ids: bool },
}

/// Opens sessions to one instance.
pub trait Connector: Send + Sync + 'static {
    type Session: Session;
    fn connect(&self) -> impl Future<Output = Result<Self::Session, EngineError>> + Send;
    fn execution(&self) -> Execution;
    /// Engine name and version, e.g. "SQLite 3.50.4".
    fn version(&self) -> String;
}

/// A value in rows declared [`BulkText::Plain`] that plain text cannot carry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotPlain {
    #[error("a NULL value in rows declared plain")]
    Null,
    #[error("text {0:?} in rows declared plain needs escaping")]
    Escape(String),
}

/// For the scenario schema: each engine kind with the schema of its `[instance.config]` as
/// written (what `EngineConfig::from_table` reads), registered with `generator`.
pub fn settings_schemas(
    generator: &mut schemars::SchemaGenerator,
) -> Vec<(EngineKind, schemars::Schema)> {
    EngineKind::ALL
        .into_iter()
        .map(|kind| (kind, (kind.ops().settings_schema)(generator)))
        .collect()
}

/// Rows in the text format MySQL's LOAD DATA reads: tab-separated, newline-terminated. `Any`
/// rows get backslash escapes and `\N` for NULL; `Plain` rows go as they are, for a reader with
/// no escape character, and a NULL, or a tab, newline or backslash in a text, is an error naming
/// the value.
pub fn tsv(rows: &[Value], width: usize, text: BulkText) -> Result<Vec<u8>, NotPlain> {
    let mut out = Vec::with_capacity(rows.len() * 48);
    let mut num = itoa::Buffer::new();
    for row in rows.chunks(width.max(1)) {
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                out.push(b'\t');
            }
            match v {
                Value::Null if text == BulkText::Plain => return Err(NotPlain::Null),
                Value::Null => out.extend_from_slice(b"\\N"),
                Value::Int(n) => out.extend_from_slice(num.format(*n).as_bytes()),
                Value::Float(f) => out.extend_from_slice(f.to_string().as_bytes()),
                Value::Text(t) if memchr::memchr3(b'\t', b'\n', b'\\', t.as_bytes()).is_none() => {
                    out.extend_from_slice(t.as_bytes())
                }
                Value::Text(t) if text == BulkText::Plain => {
                    return Err(NotPlain::Escape(t.clone()));
                }
                Value::Text(t) => {
                    for &b in t.as_bytes() {
                        match b {
                            b'\t' => out.extend_from_slice(b"\\t"),
                            b'\n' => out.extend_from_slice(b"\\n"),
                            b'\\' => out.extend_from_slice(b"\\\\"),
                            _ => out.push(b),
                        }
                    }
                }
            }
        }
        out.push(b'\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_from_any_driver_form() {
        assert_eq!(Value::Text("3001".into()).as_i64(), Some(3001));
        assert_eq!(Value::Text(" 42.00 ".into()).as_i64(), Some(42));
        assert_eq!(Value::Float(7.9).as_i64(), Some(7));
        assert_eq!(Value::Text("0.1234".into()).as_f64(), Some(0.1234));
        assert_eq!(Value::Int(3).as_f64(), Some(3.0));
        assert_eq!(Value::Text("x".into()).as_i64(), None);
        assert_eq!(Value::Null.as_f64(), None);
    }

    #[test]
    fn transaction_control_is_read_from_the_first_words() {
        let cases = [
            ("BEGIN", TxnControl::Begin),
            ("begin immediate", TxnControl::BeginWrite),
            ("BEGIN EXCLUSIVE;", TxnControl::BeginWrite),
            ("START TRANSACTION", TxnControl::Begin),
            ("COMMIT", TxnControl::End),
            ("  ROLLBACK", TxnControl::End),
            ("SELECT 1", TxnControl::None),
            ("", TxnControl::None),
        ];
        for (sql, want) in cases {
            assert_eq!(txn_control(sql), want, "{sql:?}");
        }
    }
}
