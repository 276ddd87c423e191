//! Microsoft SQL Server as an `Engine` and a `Server`: private sqlservr instances with every
//! file on the target, tiberius connectors, the settings kept with the results, the limits
//! checked before the clock (user connections), and what preflight learns (see `preflight`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::server::{MssqlInstance, MssqlKind, MssqlSettings, PASSWORD_FILE};
use super::{MssqlConfig, MssqlConnector, MssqlUrl};
use crate::engines::server::{Demand, LimitError, Probe, ProvisionError, START_TIMEOUT, Server};
use crate::engines::{
    Advice, Connector, Dialect, Engine, EngineConfig, EngineError, EngineOps, PreflightRun,
    UrlProblem,
};
use drivebench_core::config::{Invalid, KeyPath};

/// `engine = "mssql"`.
pub struct Mssql;

const OPS: EngineOps = EngineOps {
    name: "mssql",
    title: "SQL Server",
    dialect: Dialect::Mssql,
    is_server: true,
    url_scheme: "mssql",
    single_writer: false,
    stored_procedures: true,
    no_prebuilt: Some(
        "not for mssql: SQL Server's master database records every file's absolute path, so \
         a copied instance would point at the pre-built one; keep_data = true keeps a loaded \
         instance on the target for the next run instead",
    ),
    pid_file: None,
    parse_config,
    settings_schema: MssqlConfig::settings_schema,
    check_url,
    // Row (~200 bytes with CHAR padding), clustered index, the k index; pages not full.
    estimate_sysbench_bytes: |rows, k| EngineOps::per_row(rows, k, 225, 245),
    estimate_tpcc_bytes: |w| EngineOps::per_warehouse(w, 110_000_000),
};

fn parse_config(table: &toml::Table, key: &KeyPath) -> Result<EngineConfig, Invalid> {
    MssqlConfig::from_table(table, key).map(EngineConfig::Mssql)
}

fn check_url(url: &str) -> Result<(), UrlProblem> {
    MssqlUrl::parse(url).map(|_| ()).map_err(Into::into)
}

pub fn settings(config: &MssqlConfig) -> MssqlSettings {
    MssqlSettings {
        server_bin: config.server_bin.as_ref().map(PathBuf::from),
        edition: config.edition.clone(),
        max_server_memory_mb: config.max_server_memory_mb(),
    }
}

impl Engine for Mssql {
    const OPS: &'static EngineOps = &OPS;
    type Config = MssqlConfig;
    type Connector = MssqlConnector;

    fn config(c: &EngineConfig) -> Option<&MssqlConfig> {
        match c {
            EngineConfig::Mssql(c) => Some(c),
            _ => None,
        }
    }

    fn cache(config: &MssqlConfig) -> Option<(u64, &'static str)> {
        config.buffer_pool_bytes.map(|b| (b, "max server memory"))
    }

    fn preflight(run: &PreflightRun<'_, MssqlConfig>) -> Vec<Advice> {
        super::preflight::run_findings(run)
    }
}

impl Server for Mssql {
    type Kind = MssqlKind;

    fn start(
        name: &str,
        config: &MssqlConfig,
        _demand: &Demand,
        dir: &Path,
    ) -> Result<MssqlInstance, ProvisionError> {
        MssqlInstance::start(name, dir, &settings(config), START_TIMEOUT)
    }

    fn password(i: &MssqlInstance) -> Option<String> {
        Some(i.password().to_string())
    }

    /// A private SQL Server keeps its random sa password in its directory.
    fn password_file(dir: &Path) -> Option<PathBuf> {
        Some(dir.join(PASSWORD_FILE))
    }

    async fn connect(
        config: &MssqlConfig,
        url: &str,
        password: Option<&str>,
    ) -> Result<MssqlConnector, EngineError> {
        MssqlConnector::new(url, password, config).await
    }

    async fn reach(
        config: &MssqlConfig,
        url: &str,
        password: Option<&str>,
    ) -> Result<String, EngineError> {
        Ok(super::probe(url, password, config).await?.version)
    }

    async fn variables(c: &MssqlConnector) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> = c
            .variables()
            .await
            .unwrap_or_default()
            .into_iter()
            .collect();
        out.insert("version".into(), c.version());
        out
    }

    fn check_limits(demand: &Demand, vars: &BTreeMap<String, String>) -> Result<(), LimitError> {
        check_limits(u64::from(demand.connections), vars)
    }

    fn missing(config: &MssqlConfig) -> Option<ProvisionError> {
        super::server::locate(config.server_bin.as_deref().map(Path::new)).err()
    }

    async fn probe(probe: Probe<'_, MssqlConfig>) -> Vec<Advice> {
        super::preflight::external_findings(probe).await
    }
}

/// `user connections` (0 = the maximum, 32,767) against the connections the plan opens.
pub fn check_limits(connections: u64, vars: &BTreeMap<String, String>) -> Result<(), LimitError> {
    let need = connections + 10;
    let allowed = vars
        .get("user connections")
        .and_then(|v| v.parse::<u64>().ok())
        .map(|v| if v == 0 { 32_767 } else { v });
    if let Some(have) = allowed
        && have < need
    {
        return Err(LimitError::Allows {
            what: "user connections",
            have,
            need,
            remedy: "raise it with EXEC sp_configure 'user connections', 0 (unlimited) and \
                     restart, or set workload.connections lower"
                .into(),
        });
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
        let e = check_limits(1000, &vars("500")).unwrap_err().to_string();
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
