//! An engine's own I/O counters read through a session: the named queries of
//! `schemas/engine_io/<dialect>.sql` (SQL is data), each returning rows of (counter, value)
//! with drivebench's counter names, summed into one `EngineIoReading`. A query that fails (a
//! view the version lacks, performance_schema off, an account without the right) is named in
//! the reading's `missing` list with the engine's words; the others still count, so a reading
//! never fails a run.

use drivebench_core::engine_io::EngineIoReading;

use super::statements::{NoStatements, Statements};
use super::{Dialect, EngineError, Rows, Session};

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

/// A query of the file on the sampling session.
enum Query {
    Prepared(super::StmtId),
    /// It did not prepare: the engine's words, named in every reading's `missing`.
    Refused(String),
}

/// Prepared once per sampling session: each query by name, in the file's order.
pub struct Reader {
    queries: Vec<(String, Query)>,
    rows: Rows,
}

impl Reader {
    /// Prepare every query of `st` on `s`; one that does not prepare is remembered as missing.
    pub async fn prepare<S: Session>(s: &mut S, st: &Statements) -> Reader {
        let mut queries = Vec::new();
        for name in st.names() {
            let query = match s.prepare(&st.render(name, &[])).await {
                Ok(id) => Query::Prepared(id),
                Err(e) => Query::Refused(one_line(&e)),
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
        for (name, id) in &self.queries {
            let id = match id {
                Query::Prepared(id) => *id,
                Query::Refused(why) => {
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

/// Rows of (counter, value) into the reading; a NULL value (a view with no row yet) adds
/// nothing, a name drivebench does not know is a mistake in the statements file.
fn add_rows(rows: &Rows, reading: &mut EngineIoReading, query: &str) {
    for r in 0..rows.len() {
        let (Some(name), Some(value)) = (rows.get(r, 0), rows.get(r, 1)) else {
            continue;
        };
        let Some(value) = value.as_i64().and_then(|v| u64::try_from(v).ok()) else {
            continue;
        };
        let name = match name {
            super::Value::Text(t) => t.as_str(),
            _ => continue,
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
