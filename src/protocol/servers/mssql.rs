//! Microsoft SQL Server as a `ServerKind`: private sqlservr instances with every file on the
//! target, tiberius connectors, the settings kept with the results, and the limits checked
//! before the clock (user connections, worker threads).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{START_TIMEOUT, ServerKind};
use crate::engine::mssql::{MssqlConfig, MssqlConnector};
use crate::engine::{EngineConfig, EngineError};
use crate::provision::mssql::{MssqlInstance, MssqlSettings};
use crate::scenario::Plan;
use crate::scenario::plan::PlanInstance;

pub struct MssqlServer;

pub fn settings(config: &MssqlConfig) -> MssqlSettings {
    MssqlSettings {
        server_bin: config.server_bin.as_ref().map(PathBuf::from),
        edition: config.edition.clone(),
        max_server_memory_mb: config.max_server_memory_mb(),
    }
}

fn config_of(plan: &Plan) -> MssqlConfig {
    match plan.instances.first().map(|i| &i.config) {
        Some(EngineConfig::Mssql(c)) => c.clone(),
        _ => MssqlConfig::default(),
    }
}

impl ServerKind for MssqlServer {
    type Instance = MssqlInstance;
    type Connector = MssqlConnector;

    fn start(
        _plan: &Plan,
        inst: &PlanInstance,
        dir: &Path,
        _statements: usize,
    ) -> Result<MssqlInstance, String> {
        let EngineConfig::Mssql(config) = &inst.config else {
            return Err("not a SQL Server configuration".into());
        };
        MssqlInstance::start(dir, &settings(config), START_TIMEOUT).map_err(|e| e.to_string())
    }

    fn url(i: &MssqlInstance) -> String {
        i.url()
    }

    fn password(i: &MssqlInstance) -> Option<String> {
        Some(i.password().to_string())
    }

    fn describe(i: &MssqlInstance) -> String {
        format!("127.0.0.1:{} (pid {})", i.port(), i.pid())
    }

    fn stop(i: &mut MssqlInstance) -> Result<(), String> {
        i.stop().map_err(|e| e.to_string())
    }

    fn detach(i: MssqlInstance) -> String {
        i.detach()
    }

    async fn connect(
        plan: &Plan,
        url: &str,
        password: Option<&str>,
    ) -> Result<MssqlConnector, EngineError> {
        MssqlConnector::new(url, password, &config_of(plan)).await
    }

    async fn variables(c: &MssqlConnector) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> = c
            .variables()
            .await
            .unwrap_or_default()
            .into_iter()
            .collect();
        out.insert("version".into(), crate::engine::Connector::version(c));
        out
    }

    fn check_limits(
        plan: &Plan,
        vars: &BTreeMap<String, String>,
        _statements: usize,
    ) -> Result<(), String> {
        check_limits(u64::from(plan.workload.connections()), vars)
    }
}

/// `user connections` (0 = the maximum, 32,767) against the connections the plan opens.
pub fn check_limits(connections: u64, vars: &BTreeMap<String, String>) -> Result<(), String> {
    let need = connections + 10;
    let allowed = vars
        .get("user connections")
        .and_then(|v| v.parse::<u64>().ok())
        .map(|v| if v == 0 { 32_767 } else { v });
    if let Some(have) = allowed
        && have < need
    {
        return Err(format!(
            "the server allows {have} user connections but the plan opens {need}; raise it with \
             EXEC sp_configure 'user connections', 0 (unlimited) and restart, or set \
             workload.connections lower"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_connections_cover_the_plan() {
        let vars = |v: &str| BTreeMap::from([("user connections".to_string(), v.to_string())]);
        assert!(check_limits(1000, &vars("0")).is_ok(), "0 means 32,767");
        assert!(check_limits(1000, &vars("2000")).is_ok());
        let e = check_limits(1000, &vars("500")).unwrap_err();
        assert!(
            e.contains("500 user connections") && e.contains("1010"),
            "{e}"
        );
        assert!(check_limits(40_000, &vars("0")).is_err());
        assert!(
            check_limits(1000, &BTreeMap::new()).is_ok(),
            "unknown: not refused"
        );
    }
}
