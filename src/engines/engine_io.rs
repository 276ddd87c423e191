//! An engine's own I/O counters read through a session: the named queries of
//! `schemas/engine_io/<dialect>.sql` (SQL is data), each returning rows of (counter, value)
//! with drivebench's counter names, summed into one `EngineIoReading`. A query that fails (a
//! view the version lacks, an account without the right) is named in the reading's `missing`
//! list with the engine's words; the others still count, so a reading never fails a run.
//!
//! Versions: a query `NAME_fallback` is `NAME`'s alternative for the versions where `NAME`
//! does not prepare (a view or column renamed or moved, as PostgreSQL 17 moved the
//! checkpointer's columns); only when both fail is `NAME` missing. Settings: a row whose value
//! is NULL is a counter the engine does not keep as it runs (a timing setting off,
//! performance_schema off); it is named in `missing`, with the row's optional third column
//! saying why.
use drivebench_core::engine_io::EngineIoReading;

use super::statements::{NoStatements, Statements};
use super::{Advice, Dialect, EngineError, Rows, Session, Severity, Value};

/// The statements file of `dialect`, compiled in.
pub fn statements(dialect: Dialect) -> Result<Statements, NoStatements> {
    let (source, text) = match dialect {
        Dialect::Sqlite => (
            "schemas/engine_io/sqlite.sql",
            include_str!("../../schemas/engine_io/sqlite.sql"),
        ),
        Dialect::Mysql => (
            "schemas/engine_io/mysql.sql",
            include_str!("../../schemas/engine_io/mysql.sql"),
        ),
        Dialect::Postgres => (
            "schemas/engine_io/postgres.sql",
            include_str!("../../schemas/engine_io/postgres.sql"),
        ),
        Dialect::Mssql => (
            "schemas/engine_io/mssql.sql",
            include_str!("../../schemas/engine_io/mssql.sql"),
        ),
    };
    Statements::parse(source, text)
}

/// Prepared once per sampling session: each query's id, in the file's order.
pub struct Reader {
    queries: Vec<(String, Query)>,
    rows: Rows,
}

/// One query of the file on this session.
enum Query {
    Ready(super::StmtId),
    /// It did not prepare, nor did its fallback: the engine's words, for every reading's note.
    Missing(String),
}

impl Reader {
    /// Prepare every query of `st` on `s`, or its `_fallback` where it does not prepare; one
    /// that does not prepare either way is remembered as missing.
    pub async fn prepare<S: Session>(s: &mut S, st: &Statements) -> Reader {
        let mut queries = Vec::new();
        for (name, text, fallback) in queries_of(st) {
            let why = match s.prepare(&text).await {
                Ok(id) => {
                    queries.push((name.to_string(), Query::Ready(id)));
                    continue;
                }
                Err(e) => one_line(&e),
            };
            let query = match fallback {
                None => Query::Missing(why),
                Some(fallback) => match s.prepare(&fallback).await {
                    Ok(id) => Query::Ready(id),
                    Err(e) => Query::Missing(format!("{why}; {name}{FALLBACK}: {}", one_line(&e))),
                },
            };
            queries.push((name.to_string(), query));
        }
        Reader {
            queries,
            rows: Rows::default(),
        }
    }

    /// One reading: every query run, its rows added up; a failing one named in `missing`.
    pub async fn read<S: Session>(&mut self, s: &mut S) -> EngineIoReading {
        let mut reading = EngineIoReading::default();
        for (name, query) in &self.queries {
            let id = match query {
                Query::Ready(id) => *id,
                Query::Missing(why) => {
                    reading.missing.push(format!("{name}: {why}"));
                    continue;
                }
            };
            match s.query(id, &[], &mut self.rows).await {
                Ok(()) => add_rows(&self.rows, &mut reading, name),
                Err(e) => reading.missing.push(format!("{name}: {}", one_line(&e))),
            }
        }
        reading
    }
}

/// The suffix of a query's alternative for other versions.
const FALLBACK: &str = "_fallback";

/// Every query of `st` but the fallbacks: its name, its text and its fallback's text.
pub fn queries_of(st: &Statements) -> impl Iterator<Item = (&str, String, Option<String>)> {
    st.names()
        .filter(|name| !name.strip_suffix(FALLBACK).is_some_and(|base| st.has(base)))
        .map(|name| {
            let fallback = format!("{name}{FALLBACK}");
            let fallback = st.has(&fallback).then(|| st.render(&fallback, &[]));
            (name, st.render(name, &[]), fallback)
        })
}

/// Preflight's note on an external server whose account cannot read some of the engine's I/O
/// views (`unreadable`: each query's name and the server's words), with how to grant it; none
/// when every query ran. The run goes on without those figures.
pub fn unreadable_note(instance: &str, unreadable: &[String], grant: &str) -> Option<Advice> {
    if unreadable.is_empty() {
        return None;
    }
    Some(Advice::new(
        Severity::Note,
        format!(
            "instance {instance}: this account cannot read some of the engine's I/O figures \
             ({}); the run goes on without them ({grant})",
            unreadable.join("; ")
        ),
    ))
}

/// Rows of (counter, value[, why]) into the reading; a NULL value is a counter the engine does
/// not keep (named in `missing`, with the why when the row gives one); a name drivebench does
/// not know is a mistake in the statements file.
fn add_rows(rows: &Rows, reading: &mut EngineIoReading, query: &str) {
    for r in 0..rows.len() {
        let Some(Value::Text(name)) = rows.get(r, 0) else {
            continue;
        };
        let value = rows.get(r, 1).and_then(Value::as_i64);
        let Some(value) = value.map(|v| u64::try_from(v).unwrap_or(0)) else {
            let why = match rows.get(r, 2) {
                Some(Value::Text(why)) => format!(" ({why})"),
                _ => String::new(),
            };
            reading.missing.push(format!("{query}: no {name}{why}"));
            continue;
        };
        if !reading.counters.add(name, value) {
            reading
                .missing
                .push(format!("{query}: unknown counter {name:?}"));
        }
    }
}

fn one_line(e: &EngineError) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::Connector;
    use crate::engines::sqlite::{SqliteConfig, SqliteConnector};

    fn sqlite(dir: &std::path::Path) -> SqliteConnector {
        let config = SqliteConfig::from_table(
            &toml::Table::new(),
            &drivebench_core::config::KeyPath::root(),
        )
        .unwrap();
        SqliteConnector::new(dir, config, 4)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn every_dialects_file_parses_and_sqlite_reads_all_its_counters() {
        for d in [
            Dialect::Sqlite,
            Dialect::Mysql,
            Dialect::Postgres,
            Dialect::Mssql,
        ] {
            assert!(statements(d).unwrap().names().count() > 0, "{d:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let mut s = sqlite(dir.path()).connect().await.unwrap();
        s.execute_text("CREATE TABLE t (x)").await.unwrap();
        let mut reader = Reader::prepare(&mut s, &statements(Dialect::Sqlite).unwrap()).await;
        let before = reader.read(&mut s).await;
        assert_eq!(before.missing, Vec::<String>::new());
        s.execute_text("INSERT INTO t VALUES (1)").await.unwrap();
        let after = reader.read(&mut s).await;
        let (b, a) = (&before.counters, &after.counters);
        assert!(a.log_flushes.unwrap() > b.log_flushes.unwrap());
        assert!(a.log_bytes.unwrap() > b.log_bytes.unwrap());
        assert!(a.data_reads.is_some() && a.background_write_bytes.is_some());
        assert_eq!(a.pending_io, None);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn sqlite_with_count_io_off_has_no_counters_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let table: toml::Table = toml::from_str("count_io = false").unwrap();
        let config =
            SqliteConfig::from_table(&table, &drivebench_core::config::KeyPath::root()).unwrap();
        assert!(!config.count_io);
        let mut s = SqliteConnector::new(dir.path(), config, 4)
            .connect()
            .await
            .unwrap();
        s.execute_text("CREATE TABLE t (x)").await.unwrap();
        let mut reader = Reader::prepare(&mut s, &statements(Dialect::Sqlite).unwrap()).await;
        let r = reader.read(&mut s).await;
        assert_eq!(r.counters, Default::default());
        assert!(
            r.missing.iter().any(|m| m.contains("drivebench_io")),
            "{:?}",
            r.missing
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_fallback_stands_in_and_null_values_are_named_with_their_reason() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = sqlite(dir.path()).connect().await.unwrap();
        let st = Statements::parse(
            "test.sql",
            "-- name: moved\nSELECT 'log_writes', n FROM old_view\n\
             -- name: moved_fallback\nSELECT 'log_writes', 7\n\
             -- name: gone\nSELECT 'data_reads', n FROM no_view\n\
             -- name: gone_fallback\nSELECT 'data_reads', n FROM nor_this\n\
             -- name: timing\nSELECT 'log_flush_us', NULL, 'timing is off'\n\
             UNION ALL SELECT 'data_read_us', NULL, NULL\n\
             UNION ALL SELECT 'log_flushes', 3, NULL\n\
             UNION ALL SELECT 'bogus', 1, NULL\n",
        )
        .unwrap();
        let mut reader = Reader::prepare(&mut s, &st).await;
        let r = reader.read(&mut s).await;
        assert_eq!(r.counters.log_writes, Some(7));
        assert_eq!(r.counters.log_flushes, Some(3), "{:?}", r.missing);
        assert_eq!(r.counters.log_flush_us, None);
        assert_eq!(r.missing.len(), 4, "{:?}", r.missing);
        assert!(
            r.missing[0].starts_with("gone: SQLITE_ERROR: no such table: no_view; gone_fallback: ")
        );
        assert_eq!(r.missing[1], "timing: no log_flush_us (timing is off)");
        assert_eq!(r.missing[2], "timing: no data_read_us");
        assert_eq!(r.missing[3], "timing: unknown counter \"bogus\"");
    }
}
