//! Transaction isolation (`workload.isolation`): the levels a scenario may ask for, the SQL that
//! sets one for a session and reads the session's level back, per dialect, from
//! `schemas/isolation/<dialect>.sql`. A level is available on an engine exactly when its file
//! has `set_<level>`: snapshot on SQL Server only, serializable only on SQLite (whose
//! transactions are always serializable).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::statements::NoStatements;
use super::{Dialect, EngineError, Rows, Session, Statements, Value};

/// A transaction isolation level, by its ANSI name (snapshot: SQL Server's row versioning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    ReadCommitted,
    RepeatableRead,
    Serializable,
    Snapshot,
}

impl Isolation {
    pub const ALL: [Isolation; 4] = [
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
        Isolation::Snapshot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read_committed",
            Isolation::RepeatableRead => "repeatable_read",
            Isolation::Serializable => "serializable",
            Isolation::Snapshot => "snapshot",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }

    /// A level as an engine reads it back ("READ-COMMITTED", "read committed", ...); None for
    /// one drivebench does not ask for (read uncommitted).
    pub fn from_read_back(text: &str) -> Option<Self> {
        let norm = text.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        Self::from_name(&norm)
    }

    /// Whether a read-only transaction of several statements at this level sees one state of
    /// the database (no fuzzy or phantom reads between its statements: level 3 of clause 3.4
    /// for TPC-C's Order-Status). Repeatable read is a snapshot on MySQL, MariaDB and
    /// PostgreSQL, but locks only the rows read on SQL Server.
    pub fn consistent_reads(self, dialect: Dialect) -> bool {
        match self {
            Isolation::Serializable | Isolation::Snapshot => true,
            Isolation::RepeatableRead => dialect != Dialect::Mssql,
            Isolation::ReadCommitted => false,
        }
    }
}

/// Why isolation cannot be set on an engine.
#[derive(Debug, thiserror::Error)]
pub enum IsolationError {
    #[error(transparent)]
    Statements(#[from] NoStatements),
}

/// The dialect's isolation statements.
pub fn statements(dialect: Dialect) -> Result<Statements, IsolationError> {
    let (source, text) = match dialect {
        Dialect::Sqlite => (
            "schemas/isolation/sqlite.sql",
            include_str!("../../schemas/isolation/sqlite.sql"),
        ),
        Dialect::Mysql => (
            "schemas/isolation/mysql.sql",
            include_str!("../../schemas/isolation/mysql.sql"),
        ),
        Dialect::Postgres => (
            "schemas/isolation/postgres.sql",
            include_str!("../../schemas/isolation/postgres.sql"),
        ),
        Dialect::Mssql => (
            "schemas/isolation/mssql.sql",
            include_str!("../../schemas/isolation/mssql.sql"),
        ),
    };
    Ok(Statements::parse(source, text)?)
}

/// The levels `dialect` can be asked for.
pub fn levels(dialect: Dialect) -> Vec<Isolation> {
    let Ok(st) = statements(dialect) else {
        return Vec::new();
    };
    Isolation::ALL
        .into_iter()
        .filter(|l| st.has(&format!("set_{}", l.name())))
        .collect()
}

/// Set `level` for the rest of the session.
pub async fn set<S: Session>(
    s: &mut S,
    st: &Statements,
    level: Isolation,
) -> Result<(), EngineError> {
    let name = format!("set_{}", level.name());
    s.execute_text(&st.render(&name, &[]))
        .await
        .map_err(|e| e.during(format!("set isolation {}", level.name())))?;
    Ok(())
}

/// The session's isolation level as the engine names it ("REPEATABLE-READ", "read committed").
pub async fn read_back<S: Session>(s: &mut S, st: &Statements) -> Result<String, EngineError> {
    let mut rows = Rows::default();
    let mut first_error = None;
    for name in ["read_back", "read_back_fallback"] {
        if !st.has(name) {
            break;
        }
        let attempt = async {
            let id = s.prepare(&st.render(name, &[])).await?;
            s.query(id, &[], &mut rows).await
        };
        match attempt.await {
            Ok(()) => {
                return Ok(match rows.get(0, 0) {
                    Some(Value::Text(t)) => t.clone(),
                    Some(other) => format!("{other:?}"),
                    None => "unknown".into(),
                });
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error
        .unwrap_or_else(|| EngineError::fatal("DRIVEBENCH", "no read_back statement"))
        .during("read the isolation level back"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_reads_back_and_offers_its_levels_only() {
        let want = [
            (Dialect::Sqlite, vec![Isolation::Serializable]),
            (
                Dialect::Mysql,
                vec![
                    Isolation::ReadCommitted,
                    Isolation::RepeatableRead,
                    Isolation::Serializable,
                ],
            ),
            (
                Dialect::Postgres,
                vec![
                    Isolation::ReadCommitted,
                    Isolation::RepeatableRead,
                    Isolation::Serializable,
                ],
            ),
            (Dialect::Mssql, Isolation::ALL.to_vec()),
        ];
        for (dialect, levels_want) in want {
            assert_eq!(levels(dialect), levels_want, "{dialect:?}");
            assert!(statements(dialect).unwrap().has("read_back"));
        }
    }

    #[test]
    fn levels_read_back_in_each_engines_spelling_are_known() {
        for (text, level) in [
            ("REPEATABLE-READ", Some(Isolation::RepeatableRead)),
            ("read committed", Some(Isolation::ReadCommitted)),
            ("SERIALIZABLE", Some(Isolation::Serializable)),
            ("snapshot", Some(Isolation::Snapshot)),
            ("read uncommitted", None),
        ] {
            assert_eq!(Isolation::from_read_back(text), level, "{text}");
        }
        assert!(Isolation::RepeatableRead.consistent_reads(Dialect::Postgres));
        assert!(!Isolation::RepeatableRead.consistent_reads(Dialect::Mssql));
        assert!(!Isolation::ReadCommitted.consistent_reads(Dialect::Mysql));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn sqlite_sets_serializable_and_reads_it_back() {
        use crate::engines::Connector;
        use crate::engines::sqlite::{SqliteConfig, SqliteConnector};
        let dir = tempfile::tempdir().unwrap();
        let config = SqliteConfig::from_table(
            &toml::Table::new(),
            &drivebench_core::config::KeyPath::root(),
        )
        .unwrap();
        let connector = SqliteConnector::new(dir.path(), config, 4);
        let mut s = connector.connect().await.unwrap();
        let st = statements(Dialect::Sqlite).unwrap();
        set(&mut s, &st, Isolation::Serializable).await.unwrap();
        assert_eq!(read_back(&mut s, &st).await.unwrap(), "serializable");
    }
}
