//! MariaDB and MySQL as a `ServerKind`: private mariadbd/mysqld instances sized from the plan,
//! MySQL connectors, the InnoDB variables kept with the results, and the server limits
//! sysbench users trip over (sysbench issue #217).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{START_TIMEOUT, ServerKind};
use crate::engine::mysql::{MysqlConfig, MysqlConnector};
use crate::engine::{EngineConfig, EngineError};
use crate::provision::mariadb::{MariadbInstance, MariadbSettings};
use crate::scenario::Plan;
use crate::scenario::plan::PlanInstance;

/// Variables recorded with each instance's results.
const KEY_VARIABLES: [&str; 9] = [
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_flush_log_at_trx_commit",
    "innodb_flush_method",
    "innodb_io_capacity",
    "max_connections",
    "max_prepared_stmt_count",
    "table_open_cache",
    "version",
];

pub struct MysqlServer;

/// Server settings for a private instance sized from the plan.
fn settings(plan: &Plan, config: &MysqlConfig, statements_per_client: usize) -> MariadbSettings {
    let clients = u64::from(plan.workload.connections());
    let tables = u64::from(plan.workload.tables());
    MariadbSettings {
        server_bin: config.server_bin.as_ref().map(PathBuf::from),
        buffer_pool_bytes: config.buffer_pool_bytes,
        log_file_size_bytes: config.log_file_size_bytes,
        flush_log_at_trx_commit: config.flush_log_at_trx_commit,
        flush_method: config.flush_method.clone(),
        io_capacity: config.io_capacity,
        extra: config.extra.clone(),
        // clients + loaders + a few for us
        max_connections: (clients + 64).min(100_000) as u32,
        max_prepared_stmt_count: (clients * statements_per_client as u64 * 11 / 10 + 1024)
            .min(1_048_576),
        table_open_cache: (tables * clients.min(64) + 400).min(524_288) as u32,
    }
}

impl ServerKind for MysqlServer {
    type Instance = MariadbInstance;
    type Connector = MysqlConnector;

    fn start(
        plan: &Plan,
        inst: &PlanInstance,
        dir: &Path,
        statements: usize,
    ) -> Result<MariadbInstance, String> {
        let EngineConfig::Mysql(config) = &inst.config else {
            return Err("not a MySQL/MariaDB configuration".into());
        };
        MariadbInstance::start(
            &inst.name,
            dir,
            &settings(plan, config, statements),
            START_TIMEOUT,
        )
        .map_err(|e| e.to_string())
    }

    fn url(i: &MariadbInstance) -> String {
        i.url()
    }

    fn describe(i: &MariadbInstance) -> String {
        format!("127.0.0.1:{} (pid {})", i.port(), i.pid())
    }

    fn stop(i: &mut MariadbInstance) -> Result<(), String> {
        i.stop().map_err(|e| e.to_string())
    }

    fn detach(i: MariadbInstance) -> String {
        i.detach()
    }

    async fn connect(
        _plan: &Plan,
        url: &str,
        password: Option<&str>,
    ) -> Result<MysqlConnector, EngineError> {
        MysqlConnector::new(url, password).await
    }

    async fn variables(c: &MysqlConnector) -> BTreeMap<String, String> {
        c.variables(&KEY_VARIABLES)
            .await
            .unwrap_or_default()
            .into_iter()
            .collect()
    }

    /// 32 clients on 100 tables prepare 28,864 statements, above MySQL's default 16,382.
    fn check_limits(
        plan: &Plan,
        vars: &BTreeMap<String, String>,
        statements: usize,
    ) -> Result<(), String> {
        let clients = u64::from(plan.workload.connections());
        let needs = [
            ("max_connections", clients + 10),
            ("max_prepared_stmt_count", clients * statements as u64),
        ];
        for (name, need) in needs {
            if let Some(have) = vars.get(name).and_then(|v| v.parse::<u64>().ok())
                && have < need
            {
                return Err(format!(
                    "{name} is {have} but the plan needs {need}; raise it on the server (SET GLOBAL {name} = {need})"
                ));
            }
        }
        Ok(())
    }
}
