//! SQLite as an `Engine`: embedded, one database file per instance directory, one writer at a
//! time.

use std::path::{Path, PathBuf};

use super::{DB_FILE, SqliteConfig, SqliteConnector};
use crate::engines::{Dialect, Embedded, Engine, EngineConfig, EngineOps};
use drivebench_core::config::{Invalid, KeyPath};

/// `engine = "sqlite"`.
pub struct Sqlite;

const OPS: EngineOps = EngineOps {
    name: "sqlite",
    title: "SQLite",
    dialect: Dialect::Sqlite,
    is_server: false,
    url_scheme: "",
    single_writer: true,
    stored_procedures: false,
    no_prebuilt: None,
    pid_file: None,
    parse_config,
    settings_schema: SqliteConfig::settings_schema,
    check_url: EngineOps::any_url,
    estimate_sysbench_bytes: super::estimate_sysbench_bytes,
    estimate_tpcc_bytes: |w| EngineOps::per_warehouse(w, 75_000_000),
};

fn parse_config(table: &toml::Table, key: &KeyPath) -> Result<EngineConfig, Invalid> {
    SqliteConfig::from_table(table, key).map(EngineConfig::Sqlite)
}

impl Engine for Sqlite {
    const OPS: &'static EngineOps = &OPS;
    type Config = SqliteConfig;
    type Connector = SqliteConnector;

    fn config(c: &EngineConfig) -> Option<&SqliteConfig> {
        match c {
            EngineConfig::Sqlite(c) => Some(c),
            _ => None,
        }
    }
}

impl Embedded for Sqlite {
    fn open(dir: &Path, config: &SqliteConfig, statements: usize) -> SqliteConnector {
        SqliteConnector::new(dir, config.clone(), statements)
    }

    fn data_file(dir: &Path) -> PathBuf {
        dir.join(DB_FILE)
    }
}
