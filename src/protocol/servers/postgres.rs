//! PostgreSQL as a `ServerKind`: private clusters (optionally with the WAL on another drive)
//! sized from the plan, tokio-postgres connectors, and the settings kept with the results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{START_TIMEOUT, ServerKind};
use crate::engine::postgres::{PgConnector, PostgresConfig};
use crate::engine::{EngineConfig, EngineError};
use crate::provision::postgres::{PostgresInstance, PostgresSettings};
use crate::scenario::Plan;
use crate::scenario::plan::PlanInstance;

/// Settings recorded with each instance's results.
const KEY_SETTINGS: [&str; 9] = [
    "shared_buffers",
    "max_wal_size",
    "synchronous_commit",
    "wal_sync_method",
    "checkpoint_timeout",
    "fsync",
    "full_page_writes",
    "max_connections",
    "server_version",
];

pub struct PostgresServer;

fn settings(plan: &Plan, config: &PostgresConfig) -> PostgresSettings {
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
        max_connections: (plan.workload.connections() + 64).min(100_000),
    }
}

impl ServerKind for PostgresServer {
    type Instance = PostgresInstance;
    type Connector = PgConnector;

    fn start(
        plan: &Plan,
        inst: &PlanInstance,
        dir: &Path,
        _statements: usize,
    ) -> Result<PostgresInstance, String> {
        let EngineConfig::Postgres(config) = &inst.config else {
            return Err("not a PostgreSQL configuration".into());
        };
        let mut s = settings(plan, config);
        // Each instance keeps its WAL apart when a wal_dir is given.
        s.wal_dir = s.wal_dir.map(|w| w.join(&inst.name));
        PostgresInstance::start(&inst.name, dir, &s, START_TIMEOUT).map_err(|e| e.to_string())
    }

    fn url(i: &PostgresInstance) -> String {
        i.url()
    }

    fn describe(i: &PostgresInstance) -> String {
        format!("127.0.0.1:{} (pid {})", i.port(), i.pid())
    }

    fn stop(i: &mut PostgresInstance) -> Result<(), String> {
        i.stop().map_err(|e| e.to_string())
    }

    fn detach(i: PostgresInstance) -> String {
        i.detach()
    }

    async fn connect(
        _plan: &Plan,
        url: &str,
        password: Option<&str>,
    ) -> Result<PgConnector, EngineError> {
        PgConnector::new(url, password).await
    }

    async fn variables(c: &PgConnector) -> BTreeMap<String, String> {
        c.variables(&KEY_SETTINGS)
            .await
            .unwrap_or_default()
            .into_iter()
            .collect()
    }

    fn check_limits(
        plan: &Plan,
        vars: &BTreeMap<String, String>,
        _statements: usize,
    ) -> Result<(), String> {
        let need = u64::from(plan.workload.connections()) + 10;
        if let Some(have) = vars
            .get("max_connections")
            .and_then(|v| v.parse::<u64>().ok())
            && have < need
        {
            return Err(format!(
                "max_connections is {have} but the plan needs {need}; raise it in postgresql.conf and restart"
            ));
        }
        Ok(())
    }
}
