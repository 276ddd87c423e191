//! MariaDB and MySQL as an `Engine` and a `Server`: one engine in two flavours that differ in
//! name only (the server found decides which binary runs), private mariadbd/mysqld instances
//! sized for the run, MySQL connectors, the InnoDB variables kept with the results, and the
//! server limits sysbench users trip over (sysbench issue #217).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::server::{MysqlInstance, MysqlKind, MysqlSettings};
use super::{MysqlConfig, MysqlConnector};
use crate::engines::engine_io;
use crate::engines::server::{
    Demand, LimitError, NetworkLogin, Probe, ProvisionError, START_TIMEOUT, Server,
};
use crate::engines::{Advice, Dialect, Engine, EngineConfig, EngineError, EngineOps};
use drivebench_core::config::{Invalid, KeyPath};

/// Variables recorded with each instance's results.
const KEY_VARIABLES: [&str; 10] = [
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_flush_log_at_trx_commit",
    "innodb_flush_method",
    "innodb_io_capacity",
    "max_connections",
    "max_prepared_stmt_count",
    "performance_schema",
    "table_open_cache",
    "version",
];

/// The MySQL family; `MARIADB` says which flavour a scenario named.
pub struct MysqlFamily<const MARIADB: bool>;

/// `engine = "mariadb"`.
pub type Mariadb = MysqlFamily<true>;
/// `engine = "mysql"`.
pub type Mysql = MysqlFamily<false>;

const fn ops(name: &'static str, title: &'static str) -> EngineOps {
    EngineOps {
        name,
        title,
        dialect: Dialect::Mysql,
        is_server: true,
        url_scheme: "mysql",
        single_writer: false,
        stored_procedures: true,
        no_prebuilt: None,
        pid_file: Some(super::server::PID_FILE),
        parse_config,
        settings_schema: MysqlConfig::settings_schema,
        check_url: super::url::check_url,
        // InnoDB: about 1.9 GB per 10M-row table, plus the k index.
        estimate_sysbench_bytes: |rows, k| EngineOps::per_row(rows, k, 190, 215),
        estimate_tpcc_bytes: |w| EngineOps::per_warehouse(w, 110_000_000),
    }
}

const MARIADB_OPS: EngineOps = ops("mariadb", "MariaDB");
const MYSQL_OPS: EngineOps = ops("mysql", "MySQL");

fn parse_config(table: &toml::Table, key: &KeyPath) -> Result<EngineConfig, Invalid> {
    MysqlConfig::from_table(table, key).map(EngineConfig::Mysql)
}

/// Server settings for a private instance sized for the run.
fn settings(config: &MysqlConfig, demand: &Demand) -> MysqlSettings {
    let clients = u64::from(demand.connections);
    let tables = u64::from(demand.tables);
    MysqlSettings {
        server_bin: config.server_bin.as_ref().map(PathBuf::from),
        buffer_pool_bytes: config.buffer_pool_bytes,
        log_file_size_bytes: config.log_file_size_bytes,
        flush_log_at_trx_commit: config.flush_log_at_trx_commit,
        flush_method: config.flush_method.clone(),
        io_capacity: config.io_capacity,
        extra: config.extra.clone(),
        // clients + loaders + a few for us
        max_connections: (clients + 64).min(100_000) as u32,
        max_prepared_stmt_count: (clients * demand.statements_per_client as u64 * 11 / 10 + 1024)
            .min(1_048_576),
        table_open_cache: (tables * clients.min(64) + 400).min(524_288) as u32,
        also_listen: None,
    }
}

impl<const MARIADB: bool> Engine for MysqlFamily<MARIADB> {
    const OPS: &'static EngineOps = if MARIADB { &MARIADB_OPS } else { &MYSQL_OPS };
    type Config = MysqlConfig;
    type Connector = MysqlConnector;

    fn config(c: &EngineConfig) -> Option<&MysqlConfig> {
        match c {
            EngineConfig::Mysql(c) => Some(c),
            _ => None,
        }
    }

    fn cache(config: &MysqlConfig) -> Option<(u64, &'static str)> {
        Some((config.buffer_pool_bytes, "buffer pool"))
    }
}

impl<const MARIADB: bool> Server for MysqlFamily<MARIADB> {
    type Kind = MysqlKind;

    fn start(
        name: &str,
        config: &MysqlConfig,
        demand: &Demand,
        dir: &Path,
    ) -> Result<MysqlInstance, ProvisionError> {
        MysqlInstance::start(name, dir, &settings(config, demand), START_TIMEOUT)
    }

    const LISTENS: bool = true;

    fn start_listening(
        name: &str,
        config: &MysqlConfig,
        demand: &Demand,
        dir: &Path,
        addr: std::net::IpAddr,
    ) -> Result<MysqlInstance, ProvisionError> {
        let settings = MysqlSettings {
            also_listen: Some(addr),
            ..settings(config, demand)
        };
        MysqlInstance::start(name, dir, &settings, START_TIMEOUT)
    }

    /// The account `drivebench`@'%' with the password, every privilege (the loader creates
    /// and drops tables); root stays local with no password.
    fn network_login(i: &MysqlInstance, addr: std::net::IpAddr, password: &str) -> NetworkLogin {
        let host = match addr {
            std::net::IpAddr::V6(a) => format!("[{a}]"),
            std::net::IpAddr::V4(a) => a.to_string(),
        };
        NetworkLogin {
            statements: vec![
                format!("CREATE USER IF NOT EXISTS 'drivebench'@'%' IDENTIFIED BY '{password}'"),
                format!("ALTER USER 'drivebench'@'%' IDENTIFIED BY '{password}'"),
                "GRANT ALL PRIVILEGES ON *.* TO 'drivebench'@'%'".to_string(),
            ],
            url: format!("mysql://drivebench@{host}:{}/", i.port()),
        }
    }

    async fn connect(
        _config: &MysqlConfig,
        url: &str,
        password: Option<&str>,
    ) -> Result<MysqlConnector, EngineError> {
        MysqlConnector::new(url, password).await
    }

    async fn reach(
        _config: &MysqlConfig,
        url: &str,
        password: Option<&str>,
    ) -> Result<String, EngineError> {
        super::reach(url, password).await
    }

    async fn variables(c: &MysqlConnector) -> BTreeMap<String, String> {
        c.variables(&KEY_VARIABLES)
            .await
            .unwrap_or_default()
            .into_iter()
            .collect()
    }

    /// 32 clients on 100 tables prepare 28,864 statements, above MySQL's default 16,382.
    fn missing(config: &MysqlConfig) -> Option<ProvisionError> {
        super::server::locate_server(config.server_bin.as_deref().map(Path::new)).err()
    }

    /// Whether the account may read the engine's I/O views: a note naming what it cannot.
    async fn probe(probe: Probe<'_, Self::Config>) -> Vec<Advice> {
        let Ok(password) = probe.password else {
            return Vec::new();
        };
        let asked = super::unreadable_io_views(probe.url, password.as_deref());
        match tokio::time::timeout(std::time::Duration::from_secs(15), asked).await {
            Ok(Ok(unreadable)) => engine_io::unreadable_note(
                probe.name,
                &unreadable,
                "GRANT SELECT ON performance_schema.* to it",
            )
            .into_iter()
            .collect(),
            Ok(Err(_)) | Err(_) => Vec::new(),
        }
    }

    fn check_limits(demand: &Demand, vars: &BTreeMap<String, String>) -> Result<(), LimitError> {
        let clients = u64::from(demand.connections);
        let needs = [
            ("max_connections", clients + 10),
            (
                "max_prepared_stmt_count",
                clients * demand.statements_per_client as u64,
            ),
        ];
        for (setting, need) in needs {
            if let Some(have) = vars.get(setting).and_then(|v| v.parse::<u64>().ok())
                && have < need
            {
                return Err(LimitError::Setting {
                    setting,
                    have,
                    need,
                    remedy: format!("raise it on the server (SET GLOBAL {setting} = {need})"),
                });
            }
        }
        Ok(())
    }
}
