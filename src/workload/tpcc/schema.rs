//! The TPC-C DDL, transaction statements and consistency-check queries of each engine
//! (`schemas/tpcc/<dialect>/`), the DDL checked against the column order the row generators and
//! the loader use.

use crate::engines::Dialect;
use crate::engines::Statements;
use crate::engines::statements::NoStatements;

/// The schema file of an engine.
pub fn schema_text(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => include_str!("../../../schemas/tpcc/sqlite/schema.sql"),
        Dialect::Mysql => {
            include_str!("../../../schemas/tpcc/mysql/schema.sql")
        }
        Dialect::Postgres => include_str!("../../../schemas/tpcc/postgres/schema.sql"),
        Dialect::Mssql => include_str!("../../../schemas/tpcc/mssql/schema.sql"),
    }
}

/// The transaction statements of an engine.
pub fn statements_text(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => include_str!("../../../schemas/tpcc/sqlite/statements.sql"),
        Dialect::Mysql => {
            include_str!("../../../schemas/tpcc/mysql/statements.sql")
        }
        Dialect::Postgres => include_str!("../../../schemas/tpcc/postgres/statements.sql"),
        Dialect::Mssql => include_str!("../../../schemas/tpcc/mssql/statements.sql"),
    }
}

/// The consistency-check queries of an engine (see `check`).
pub fn checks_text(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => include_str!("../../../schemas/tpcc/sqlite/checks.sql"),
        Dialect::Mysql => {
            include_str!("../../../schemas/tpcc/mysql/checks.sql")
        }
        Dialect::Postgres => include_str!("../../../schemas/tpcc/postgres/checks.sql"),
        Dialect::Mssql => include_str!("../../../schemas/tpcc/mssql/checks.sql"),
    }
}

/// The parsed consistency-check queries of an engine.
pub fn checks(dialect: Dialect) -> Result<Statements, NoStatements> {
    Statements::parse("schemas/tpcc checks.sql", checks_text(dialect))
}

/// The parsed transaction statements of an engine.
pub fn statements(dialect: Dialect) -> Result<Statements, NoStatements> {
    Statements::parse("schemas/tpcc statements.sql", statements_text(dialect))
}

/// The parsed schema of an engine.
pub fn schema(dialect: Dialect) -> Result<Statements, NoStatements> {
    Statements::parse("schemas/tpcc schema.sql", schema_text(dialect))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::tpcc::table::Table;

    /// Column names of a CREATE TABLE, in order (lines "  name TYPE ...", not the key).
    fn columns(create: &str) -> Vec<String> {
        create
            .lines()
            .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with("PRIMARY KEY"))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect()
    }

    #[test]
    fn every_engine_creates_the_nine_tables_with_the_generators_column_order() {
        for kind in [
            Dialect::Sqlite,
            Dialect::Mysql,
            Dialect::Postgres,
            Dialect::Mssql,
        ] {
            let st = schema(kind).unwrap();
            for t in Table::ALL {
                let create = st.render(&format!("create_{}", t.name()), &[]);
                assert_eq!(columns(&create), t.columns(), "{kind:?} {}", t.name());
            }
            for index in ["customer_by_name", "orders_by_customer"] {
                assert!(st.has(&format!("create_index_{index}")), "{kind:?} {index}");
            }
        }
    }

    /// Names of the `-- name:` blocks of a file, in order.
    fn names(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.strip_prefix("-- name: "))
            .map(str::trim)
            .collect()
    }

    #[test]
    fn every_engine_has_the_same_statements_and_sqlite_prepares_them_all() {
        let sqlite = names(statements_text(Dialect::Sqlite));
        assert!(sqlite.len() > 30 && sqlite.contains(&"sl_low_stock"));
        for kind in [Dialect::Mysql, Dialect::Postgres, Dialect::Mssql] {
            assert_eq!(names(statements_text(kind)), sqlite, "{kind:?}");
            statements(kind).unwrap();
        }
        let st = statements(Dialect::Sqlite).unwrap();
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(schema_text(Dialect::Sqlite)).unwrap();
        db.execute_batch(&st.render("meta_create", &[])).unwrap();
        // "placeholder" is a fragment (the engine's parameter mark), not a statement.
        for name in sqlite.into_iter().filter(|n| *n != "placeholder") {
            let sql = st.render(name, &[]);
            if let Err(e) = db.prepare(&sql) {
                panic!("{name}: {e}");
            }
        }
    }

    #[test]
    fn every_engine_has_the_same_checks_and_sqlite_prepares_them_all() {
        let sqlite = names(checks_text(Dialect::Sqlite));
        assert!(sqlite.contains(&"population") && sqlite.contains(&"check_12"));
        for kind in [Dialect::Mysql, Dialect::Postgres, Dialect::Mssql] {
            assert_eq!(names(checks_text(kind)), sqlite, "{kind:?}");
            checks(kind).unwrap();
        }
        let st = checks(Dialect::Sqlite).unwrap();
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(schema_text(Dialect::Sqlite)).unwrap();
        for name in sqlite {
            if let Err(e) = db.prepare(&st.render(name, &[])) {
                panic!("{name}: {e}");
            }
        }
    }

    #[test]
    fn the_sqlite_schema_takes_a_generated_warehouse() {
        use crate::workload::tpcc::data::{LoadParams, TableRows};
        use crate::workload::tpcc::rand::Constants;
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(schema_text(Dialect::Sqlite)).unwrap();
        let mut rng = drivebench_core::rng::Rng::for_client(1, 0, 0);
        let params = LoadParams {
            seed: 1,
            constants: Constants::load(&mut rng),
            load_time: "2026-11-30 03:30:00".into(),
        };
        for t in Table::ALL {
            let cols = t.columns();
            let marks = vec!["?"; cols.len()].join(", ");
            let sql = format!(
                "INSERT INTO {} ({}) VALUES ({marks})",
                t.name(),
                cols.join(", ")
            );
            let mut rows = TableRows::new(t, 1, &params);
            let chunk = rows.next_chunk(50).unwrap();
            let tx = db.unchecked_transaction().unwrap();
            for row in chunk.chunks(cols.len()) {
                let values = row.iter().map(|v| match v {
                    crate::engines::Value::Null => rusqlite::types::Value::Null,
                    crate::engines::Value::Int(i) => rusqlite::types::Value::Integer(*i),
                    crate::engines::Value::Float(f) => rusqlite::types::Value::Real(*f),
                    crate::engines::Value::Text(s) => rusqlite::types::Value::Text(s.clone()),
                });
                tx.execute(&sql, rusqlite::params_from_iter(values))
                    .unwrap();
            }
            tx.commit().unwrap();
            let n: i64 = db
                .query_row(&format!("SELECT COUNT(*) FROM {}", t.name()), [], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(n as usize, chunk.len() / cols.len(), "{}", t.name());
        }
    }
}
