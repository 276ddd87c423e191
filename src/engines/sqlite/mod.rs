//! Embedded SQLite (rusqlite, bundled; `engine`: its `Engine`; `config`: its settings): an instance is a database file under
//! `<target>/<instance-name>/`, one connection per virtual client. Calls block, so sessions are
//! driven from dedicated threads (`Execution::DedicatedThread`), never from async workers.
//! SQLite has one writer at a time: its numbers measure the drive through a single-writer engine.
//! Every connection goes through drivebench's VFS (`vfs`), which counts the database's and its
//! log's reads, writes and syncs, answered by the SQL function `drivebench_io(name)`.

mod config;
mod engine;
mod vfs;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{Connection, OpenFlags, params_from_iter, types::ValueRef};

pub use config::SqliteConfig;
pub use engine::Sqlite;

use super::{
    BulkPath, BulkText, Connector, EngineError, ErrorClass, Execution, RowChunks, Rows, Session,
    StmtId, TxnControl, Value, txn_control,
};

/// Database file name inside the instance directory.
pub const DB_FILE: &str = "drivebench.db";

/// Bytes per loaded sysbench row in a SQLite file (table b-tree), measured on a 40,000-row load.
const ROW_BYTES: u64 = 214;
/// Bytes per row of the `k` index.
const INDEX_ROW_BYTES: u64 = 16;

/// Bytes of `loaded_rows` sysbench rows, with the `k` index when `create_secondary`.
pub fn estimate_sysbench_bytes(loaded_rows: u64, create_secondary: bool) -> u64 {
    let per_row = ROW_BYTES + if create_secondary { INDEX_ROW_BYTES } else { 0 };
    loaded_rows * per_row
}

pub struct SqliteConnector {
    path: PathBuf,
    config: SqliteConfig,
    statements_per_session: usize,
    writers: Arc<tokio::sync::Mutex<()>>,
}

impl SqliteConnector {
    /// A connector for the database in `dir` (created on first connect).
    pub fn new(dir: &Path, config: SqliteConfig, statements_per_session: usize) -> Self {
        SqliteConnector {
            path: dir.join(DB_FILE),
            config,
            statements_per_session,
            writers: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    fn open(&self) -> Result<Connection, EngineError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let c = &self.config;
        let conn = if c.count_io {
            let vfs =
                vfs::register().map_err(|e| EngineError::fatal("SQLITE_ERROR", e.to_string()))?;
            let conn =
                Connection::open_with_flags_and_vfs(&self.path, flags, vfs).map_err(classify)?;
            io_function(&conn).map_err(classify)?;
            conn
        } else {
            Connection::open_with_flags(&self.path, flags).map_err(classify)?
        };
        conn.busy_timeout(std::time::Duration::from_millis(c.busy_timeout_ms))
            .map_err(classify)?;
        if let Some(p) = c.page_size {
            conn.execute_batch(&format!("PRAGMA page_size = {p}"))
                .map_err(classify)?;
        }
        conn.pragma_update(None, "journal_mode", &c.journal_mode)
            .map_err(classify)?;
        conn.execute_batch(&format!("PRAGMA synchronous = {}", c.synchronous))
            .map_err(classify)?;
        if let Some(bytes) = c.cache_size_bytes {
            conn.execute_batch(&format!("PRAGMA cache_size = -{}", (bytes / 1024).max(1)))
                .map_err(classify)?;
        }
        if let Some(bytes) = c.mmap_size_bytes {
            conn.execute_batch(&format!("PRAGMA mmap_size = {bytes}"))
                .map_err(classify)?;
        }
        conn.set_prepared_statement_cache_capacity(self.statements_per_session.max(16));
        Ok(conn)
    }
}

/// `drivebench_io(name)` on `conn`: the VFS's counter `name` of this connection's database
/// (`schemas/engine_io/sqlite.sql`); an unknown name is an error naming it.
fn io_function(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    let io = vfs::counters(conn.path().unwrap_or_default());
    conn.create_scalar_function("drivebench_io", 1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let name = ctx.get::<String>(0)?;
        let value = io.value(&name).ok_or_else(|| {
            rusqlite::Error::UserFunctionError(format!("no I/O counter {name:?}").into())
        })?;
        Ok(i64::try_from(value).unwrap_or(i64::MAX))
    })
}

impl Connector for SqliteConnector {
    type Session = SqliteSession;

    async fn connect(&self) -> Result<SqliteSession, EngineError> {
        Ok(SqliteSession {
            conn: self.open()?,
            sql: Vec::new(),
            role: Vec::new(),
            writers: self.writers.clone(),
            writing: None,
        })
    }

    fn execution(&self) -> Execution {
        Execution::DedicatedThread
    }

    fn version(&self) -> String {
        format!("SQLite {}", rusqlite::version())
    }
}

/// Write transactions of one instance queue here in FIFO order (tokio's mutex is fair), instead
/// of polling SQLite's busy handler, whose growing sleeps let late arrivals overtake waiting
/// clients and turn a short queue into multi-second outliers.
pub struct SqliteSession {
    conn: Connection,
    sql: Vec<String>,
    role: Vec<TxnControl>,
    writers: Arc<tokio::sync::Mutex<()>>,
    writing: Option<tokio::sync::OwnedMutexGuard<()>>,
}

fn to_sql(v: &Value) -> rusqlite::types::ToSqlOutput<'_> {
    use rusqlite::types::ToSqlOutput::Borrowed;
    match v {
        Value::Null => Borrowed(ValueRef::Null),
        Value::Int(i) => Borrowed(ValueRef::Integer(*i)),
        Value::Float(f) => Borrowed(ValueRef::Real(*f)),
        Value::Text(s) => Borrowed(ValueRef::Text(s.as_bytes())),
    }
}

fn from_sql(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Float(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Value::Text(String::from_utf8_lossy(t).into_owned())
        }
    }
}

impl SqliteSession {
    fn statement(&self, stmt: StmtId) -> Result<rusqlite::CachedStatement<'_>, EngineError> {
        let sql = self.sql.get(stmt).ok_or_else(|| {
            EngineError::fatal("DRIVEBENCH", format!("statement {stmt} was never prepared"))
        })?;
        self.conn.prepare_cached(sql).map_err(classify)
    }
}

impl Session for SqliteSession {
    async fn prepare(&mut self, sql: &str) -> Result<StmtId, EngineError> {
        self.conn.prepare_cached(sql).map_err(classify)?;
        self.sql.push(sql.to_string());
        self.role.push(txn_control(sql));
        Ok(self.sql.len() - 1)
    }

    async fn execute(&mut self, stmt: StmtId, params: &[Value]) -> Result<u64, EngineError> {
        let role = self.role.get(stmt).copied().unwrap_or(TxnControl::None);
        if role == TxnControl::BeginWrite && self.writing.is_none() {
            self.writing = Some(self.writers.clone().lock_owned().await);
        }
        let result = {
            let mut st = self.statement(stmt)?;
            st.execute(params_from_iter(params.iter().map(to_sql)))
                .map_err(classify)
        };
        let failed_begin = role == TxnControl::BeginWrite && result.is_err();
        if role == TxnControl::End || failed_begin || (result.is_err() && self.conn.is_autocommit())
        {
            self.writing = None;
        }
        Ok(result? as u64)
    }

    async fn query(
        &mut self,
        stmt: StmtId,
        params: &[Value],
        rows: &mut Rows,
    ) -> Result<(), EngineError> {
        let mut st = self.statement(stmt)?;
        let columns = st.column_count();
        rows.reset(columns);
        let mut cursor = st
            .query(params_from_iter(params.iter().map(to_sql)))
            .map_err(classify)?;
        while let Some(row) = cursor.next().map_err(classify)? {
            rows.fetched += 1;
            for i in 0..columns {
                let v = row.get_ref(i).map_err(classify)?;
                if rows.keep_values {
                    rows.values.push(from_sql(v));
                }
            }
        }
        Ok(())
    }

    /// SQLite's fastest path is a prepared multi-row INSERT in one transaction: the caller's.
    async fn bulk_path(&mut self) -> Result<BulkPath, EngineError> {
        Ok(BulkPath::None)
    }

    async fn bulk_load(
        &mut self,
        _table: &str,
        _columns: &[&str],
        _text: BulkText,
        _chunks: RowChunks,
    ) -> Result<u64, EngineError> {
        Err(EngineError::fatal("DRIVEBENCH", "no bulk path"))
    }

    async fn execute_text(&mut self, sql: &str) -> Result<u64, EngineError> {
        let before = self.conn.total_changes();
        self.conn.execute_batch(sql).map_err(classify)?;
        Ok(self.conn.total_changes().saturating_sub(before))
    }
}

/// Busy and locked are retryable (another writer holds the lock); everything else is fatal.
fn classify(e: rusqlite::Error) -> EngineError {
    use rusqlite::ErrorCode;
    match &e {
        rusqlite::Error::SqliteFailure(f, msg) => {
            let (class, code) = match f.code {
                ErrorCode::DatabaseBusy => (ErrorClass::Retryable, "SQLITE_BUSY"),
                ErrorCode::DatabaseLocked => (ErrorClass::Retryable, "SQLITE_LOCKED"),
                ErrorCode::DiskFull => (ErrorClass::Fatal, "SQLITE_FULL"),
                ErrorCode::SystemIoFailure => (ErrorClass::Fatal, "SQLITE_IOERR"),
                ErrorCode::ConstraintViolation => (ErrorClass::Fatal, "SQLITE_CONSTRAINT"),
                ErrorCode::CannotOpen => (ErrorClass::Fatal, "SQLITE_CANTOPEN"),
                _ => (ErrorClass::Fatal, "SQLITE_ERROR"),
            };
            EngineError::new(class, code, msg.clone().unwrap_or_else(|| f.to_string()))
        }
        other => EngineError::fatal("SQLITE_ERROR", other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_session_prepares_executes_and_queries_with_our_values() {
        let dir = tempfile::tempdir().unwrap();
        let config = SqliteConfig::from_table(
            &toml::Table::new(),
            &drivebench_core::config::KeyPath::root(),
        )
        .unwrap();
        let conn = SqliteConnector::new(dir.path(), config, 8);
        block_on(async {
            let mut s = conn.connect().await.unwrap();
            s.execute_text("CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT)")
                .await
                .unwrap();
            let ins = s.prepare("INSERT INTO t VALUES (?1, ?2)").await.unwrap();
            for i in 1..=3 {
                assert_eq!(
                    s.execute(ins, &[Value::Int(i), Value::Text(format!("v{i}"))])
                        .await
                        .unwrap(),
                    1
                );
            }
            let sel = s
                .prepare("SELECT id, c FROM t WHERE id >= ?1 ORDER BY id")
                .await
                .unwrap();
            let mut rows = Rows::default();
            s.query(sel, &[Value::Int(2)], &mut rows).await.unwrap();
            assert_eq!(rows.len(), 2);
            assert_eq!(rows.get(1, 1), Some(&Value::Text("v3".into())));
            let err = s.execute_text("SELECT * FROM missing").await.unwrap_err();
            assert_eq!(err.class, ErrorClass::Fatal);
        });
        assert!(dir.path().join(DB_FILE).exists());
    }

    #[test]
    fn a_held_write_lock_is_classified_retryable() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = SqliteConfig::from_table(
            &toml::Table::new(),
            &drivebench_core::config::KeyPath::root(),
        )
        .unwrap();
        config.busy_timeout_ms = 1;
        let conn = SqliteConnector::new(dir.path(), config, 8);
        block_on(async {
            let mut a = conn.connect().await.unwrap();
            let mut b = conn.connect().await.unwrap();
            a.execute_text("CREATE TABLE t (x)").await.unwrap();
            a.execute_text("BEGIN IMMEDIATE").await.unwrap();
            let err = b.execute_text("BEGIN IMMEDIATE").await.unwrap_err();
            assert_eq!(
                (err.class, err.code.as_str()),
                (ErrorClass::Retryable, "SQLITE_BUSY")
            );
        });
    }

    #[test]
    fn write_transactions_queue_instead_of_failing_busy() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = SqliteConfig::from_table(
            &toml::Table::new(),
            &drivebench_core::config::KeyPath::root(),
        )
        .unwrap();
        config.busy_timeout_ms = 1;
        let conn = Arc::new(SqliteConnector::new(dir.path(), config, 8));
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let mut a = conn.connect().await.unwrap();
                a.execute_text("CREATE TABLE t (x)").await.unwrap();
                let (begin, commit) = (
                    a.prepare("BEGIN IMMEDIATE").await.unwrap(),
                    a.prepare("COMMIT").await.unwrap(),
                );
                a.execute(begin, &[]).await.unwrap();
                let c2 = conn.clone();
                let waiter = tokio::spawn(async move {
                    let mut b = c2.connect().await.unwrap();
                    let (begin, commit) = (
                        b.prepare("BEGIN IMMEDIATE").await.unwrap(),
                        b.prepare("COMMIT").await.unwrap(),
                    );
                    b.execute(begin, &[]).await.unwrap();
                    b.execute_text("INSERT INTO t VALUES (2)").await.unwrap();
                    b.execute(commit, &[]).await.unwrap();
                });
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                assert!(!waiter.is_finished(), "the second writer waits its turn");
                a.execute_text("INSERT INTO t VALUES (1)").await.unwrap();
                a.execute(commit, &[]).await.unwrap();
                waiter.await.unwrap();
                let sel = a.prepare("SELECT COUNT(*) FROM t").await.unwrap();
                let mut rows = Rows::default();
                a.query(sel, &[], &mut rows).await.unwrap();
                assert_eq!(rows.get(0, 0), Some(&Value::Int(2)));
            });
    }
}
