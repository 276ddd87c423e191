//! PostgreSQL as an `Engine` and a `Server`: private clusters (optionally with the WAL on
//! another drive) sized for the run, tokio-postgres connectors, and the settings kept with the
//! results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::server::{PostgresInstance, PostgresKind, PostgresSettings};
use super::{PgConnector, PostgresConfig};
use crate::engines::engine_io;
use crate::engines::server::{Demand, LimitError, Probe, ProvisionError, START_TIMEOUT, Server};
use crate::engines::{Advice, Dialect, Engine, EngineConfig, EngineError, EngineOps};
use drivebench_core::config::{Invalid, KeyPath};

/// Settings recorded with each instance's results.
const KEY_SETTINGS: [&str; 11] = [
    "shared_buffers",
    "max_wal_size",
    "synchronous_commit",
    "wal_sync_method",
    "checkpoint_timeout",
    "fsync",
    "full_page_writes",
    "max_connections",
    "track_io_timing",
    "track_wal_io_timing",
    "server_version",
];

/// `engine = "postgres"`.
pub struct Postgres;

const OPS: EngineOps = EngineOps {
    name: "postgres",
    title: "PostgreSQL",
    dialect: Dialect::Postgres,
    is_server: true,
    url_scheme: "postgres",
    single_writer: false,
    stored_procedures: true,
    no_prebuilt: None,
    pid_file: Some(super::server::PID_FILE),
    parse_config,
    settings_schema: PostgresConfig::settings_schema,
    check_url: super::check_url,
    // Heap tuple (~218 bytes with CHAR padding and line pointer) plus the primary key.
    estimate_sysbench_bytes: |rows, k| EngineOps::per_row(rows, k, 250, 270),
    estimate_tpcc_bytes: |w| EngineOps::per_warehouse(w, 115_000_000),
};

fn parse_config(table: &toml::Table, key: &KeyPath) -> Result<EngineConfig, Invalid> {
    PostgresConfig::from_table(table, key).map(EngineConfig::Postgres)
}

fn settings(config: &PostgresConfig, demand: &Demand) -> PostgresSettings {
    PostgresSettings {
        server_bin: config.server_bin.as_ref().map(PathBuf::from),
        wal_dir: config.wal_dir.as_ref().map(PathBuf::from),
        shared_buffers_bytes: config.shared_buffers_bytes,
        max_wal_size_bytes: config.max_wal_size_bytes,
        synchronous_commit: config.synchronous_commit.clone(),
        wal_sync_method: config.wal_sync_method.clone(),
        checkpoint_timeout_s: config.checkpoint_timeout_s,
        extra: config.extra.clone(),
        // clients + loaders + a few for us
        max_connections: (demand.connections + 64).min(100_000),
    }
}

impl Engine for Postgres {
    const OPS: &'static EngineOps = &OPS;
    type Config = PostgresConfig;
    type Connector = PgConnector;

    fn config(c: &EngineConfig) -> Option<&PostgresConfig> {
        match c {
            EngineConfig::Postgres(c) => Some(c),
            _ => None,
        }
    }

    fn cache(config: &PostgresConfig) -> Option<(u64, &'static str)> {
        Some((config.shared_buffers_bytes, "shared_buffers"))
    }
}

impl Server for Postgres {
    type Kind = PostgresKind;

    fn start(
        name: &str,
        config: &PostgresConfig,
        demand: &Demand,
        dir: &Path,
    ) -> Result<PostgresInstance, ProvisionError> {
        let mut s = settings(config, demand);
        // Each instance keeps its WAL apart when a wal_dir is given.
        s.wal_dir = s.wal_dir.map(|w| w.join(name));
        PostgresInstance::start(name, dir, &s, START_TIMEOUT)
    }

    async fn connect(
        _config: &PostgresConfig,
        url: &str,
        password: Option<&str>,
    ) -> Result<PgConnector, EngineError> {
        PgConnector::new(url, password).await
    }

    async fn reach(
        _config: &PostgresConfig,
        url: &str,
        password: Option<&str>,
    ) -> Result<String, EngineError> {
        super::reach(url, password).await
    }

    async fn variables(c: &PgConnector) -> BTreeMap<String, String> {
        c.variables(&KEY_SETTINGS)
            .await
            .unwrap_or_default()
            .into_iter()
            .collect()
    }

    fn missing(config: &PostgresConfig) -> Option<ProvisionError> {
        super::server::locate_server(config.server_bin.as_deref().map(Path::new)).err()
    }

    fn unreachable(dir: &Path) -> Option<ProvisionError> {
        match super::server::account::Account::for_server() {
            Ok(Some(account)) => account.check_reachable(dir).err(),
            Ok(None) => None,
            Err(e) => Some(e),
        }
    }

    /// Whether the account may read the engine's I/O views: a note naming what it cannot.
    async fn probe(probe: Probe<'_, Self::Config>) -> Vec<Advice> {
        let Ok(password) = probe.password else {
            return Vec::new();
        };
        let asked = super::unreadable_io_views(probe.url, password.as_deref());
        match tokio::time::timeout(std::time::Duration::from_secs(15), asked).await {
            Ok(Ok(unreadable)) => {
                engine_io::unreadable_note(probe.name, &unreadable, "GRANT pg_read_all_stats to it")
                    .into_iter()
                    .collect()
            }
            Ok(Err(_)) | Err(_) => Vec::new(),
        }
    }

    fn check_limits(demand: &Demand, vars: &BTreeMap<String, String>) -> Result<(), LimitError> {
        let need = u64::from(demand.connections) + 10;
        if let Some(have) = vars
            .get("max_connections")
            .and_then(|v| v.parse::<u64>().ok())
            && have < need
        {
            return Err(LimitError::Setting {
                setting: "max_connections",
                have,
                need,
                remedy: "raise it in postgresql.conf and restart".into(),
            });
        }
        Ok(())
    }
}
