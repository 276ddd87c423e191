//! Servers a test starts itself and hands to drivebench as external ones
//! (`provision = "external"`): a MariaDB with extra server variables, a PostgreSQL cluster with
//! extra settings. Both are stopped when the value is dropped.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use drivebench::engines::mysql::server::{MysqlInstance, MysqlSettings};
use drivebench::engines::postgres::server::{PostgresInstance, PostgresSettings};

/// A MariaDB in `dir` sized for a CI run, with `extra` server variables.
pub fn mariadb(dir: &Path, extra: &[(&str, &str)]) -> MysqlInstance {
    let settings = MysqlSettings {
        buffer_pool_bytes: 64 << 20,
        flush_log_at_trx_commit: Some(2),
        extra: owned(extra),
        max_connections: 200,
        max_prepared_stmt_count: 100_000,
        table_open_cache: 400,
        ..MysqlSettings::default()
    };
    MysqlInstance::start("external", dir, &settings, Duration::from_secs(120)).unwrap()
}

/// A PostgreSQL cluster in `dir` with `extra` settings.
pub fn postgres(dir: &Path, extra: &[(&str, &str)]) -> PostgresInstance {
    let settings = PostgresSettings {
        extra: owned(extra),
        ..PostgresSettings::default()
    };
    PostgresInstance::start("external", dir, &settings, Duration::from_secs(120)).unwrap()
}

fn owned(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}
