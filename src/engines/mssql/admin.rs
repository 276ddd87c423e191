//! What the connector does besides opening sessions: create the database (its files where
//! named), run one administrative batch (provisioning's `sp_configure`), record the server's
//! settings and file paths with the results, and `plan`'s read-only probe of an external server.

use super::DEFAULT_COMMAND_TIMEOUT;
use super::{MssqlConfig, MssqlConnector, MssqlUrl, batch, decode, open, scalar};
use crate::engines::{EngineError, Value};

/// Connect to `url`'s database and run one batch (provisioning's `sp_configure`).
pub async fn run_batch(url: &MssqlUrl, password: &str, sql: &str) -> Result<(), EngineError> {
    let mut c =
        open(url.config(&url.database, Some(password), Some(DEFAULT_COMMAND_TIMEOUT))).await?;
    batch(&mut c, sql).await?;
    let _ = c.close().await;
    Ok(())
}

/// What `plan` learns from an external server without changing it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerFacts {
    pub version: String,
    pub database: String,
    pub database_exists: bool,
    pub max_server_memory_mb: Option<u64>,
    /// 0 = the maximum (32,767).
    pub user_connections: Option<u64>,
    /// Worker threads the server runs (`max_workers_count`).
    pub max_workers: Option<u64>,
}

/// One read-only login to `master`: settings, worker threads, whether the database exists.
pub async fn probe(
    url: &str,
    password: Option<&str>,
    config: &MssqlConfig,
) -> Result<ServerFacts, EngineError> {
    let url = MssqlUrl::parse(url).map_err(|m| EngineError::fatal("URL", m.to_string()))?;
    let mut c = open(url.config("master", password, config.command_timeout())).await?;
    let number = |v: Option<Value>| {
        v.and_then(|v| v.as_i64())
            .and_then(|n| u64::try_from(n).ok())
    };
    let setting = |name: &str| {
        format!("SELECT CAST(value_in_use AS BIGINT) FROM sys.configurations WHERE name = '{name}'")
    };
    let exists = scalar(
        &mut c,
        &format!(
            "SELECT COUNT(*) FROM sys.databases WHERE name = N'{}'",
            url.database
        ),
    )
    .await?;
    let facts = ServerFacts {
        version: scalar(&mut c, "SELECT @@VERSION")
            .await?
            .map(|v| match v {
                Value::Text(t) => t.lines().next().unwrap_or("").trim().to_string(),
                other => format!("{other:?}"),
            })
            .unwrap_or_default(),
        database: url.database.clone(),
        database_exists: number(exists).unwrap_or(0) > 0,
        max_server_memory_mb: number(
            scalar(&mut c, &setting("max server memory (MB)"))
                .await
                .ok()
                .flatten(),
        ),
        user_connections: number(
            scalar(&mut c, &setting("user connections"))
                .await
                .ok()
                .flatten(),
        ),
        max_workers: number(
            scalar(&mut c, "SELECT max_workers_count FROM sys.dm_os_sys_info")
                .await
                .ok()
                .flatten(),
        ),
    };
    let _ = c.close().await;
    Ok(facts)
}

/// `CREATE DATABASE`, with its data and log files in `dir` when one is named.
pub fn create_database_sql(db: &str, dir: Option<&str>) -> String {
    match dir {
        None => format!("CREATE DATABASE [{db}]"),
        Some(dir) => {
            let dir = dir.trim_end_matches('/').replace('\'', "''");
            format!(
                "CREATE DATABASE [{db}] ON PRIMARY (NAME = N'{db}', FILENAME = N'{dir}/{db}.mdf') \
                 LOG ON (NAME = N'{db}_log', FILENAME = N'{dir}/{db}_log.ldf')"
            )
        }
    }
}

impl MssqlConnector {
    /// Server settings and where the database's files are, for the results.
    pub async fn variables(&self) -> Result<Vec<(String, String)>, EngineError> {
        let mut c = self.open_db().await?;
        let mut out = Vec::new();
        let configured = "SELECT name, CAST(value_in_use AS BIGINT) FROM sys.configurations \
             WHERE name IN ('max server memory (MB)', 'user connections', 'max worker threads', \
             'max degree of parallelism')";
        if let Ok(stream) = c.simple_query(configured).await
            && let Ok(rows) = stream.into_first_result().await
        {
            for r in rows {
                let v: Vec<Value> = r.cells().map(|(_, d)| decode(d)).collect();
                if let [Value::Text(name), value] = &v[..] {
                    out.push((
                        name.clone(),
                        value.as_i64().map_or(String::new(), |n| n.to_string()),
                    ));
                }
            }
        }
        // Where the database's and tempdb's files are: they should be on the drive under test.
        let files = [
            (
                "file",
                "SELECT type_desc, physical_name FROM sys.database_files",
            ),
            (
                "tempdb file",
                "SELECT type_desc, physical_name FROM sys.master_files WHERE database_id = 2",
            ),
        ];
        for (prefix, sql) in files {
            let Ok(stream) = c.simple_query(sql).await else {
                continue;
            };
            let Ok(rows) = stream.into_first_result().await else {
                continue;
            };
            let mut paths: Vec<(String, String)> = Vec::new();
            for r in rows {
                let v: Vec<Value> = r.cells().map(|(_, d)| decode(d)).collect();
                if let [Value::Text(kind), Value::Text(path)] = &v[..] {
                    let key = format!("{prefix} {}", kind.to_lowercase());
                    match paths.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, p)) => *p = format!("{p}, {path}"),
                        None => paths.push((key, path.clone())),
                    }
                }
            }
            out.extend(paths);
        }
        if let Ok(Some(Value::Int(n))) = scalar(
            &mut c,
            "SELECT COUNT(*) FROM sys.dm_os_schedulers WHERE status = 'VISIBLE ONLINE'",
        )
        .await
        {
            out.push(("schedulers".into(), n.to_string()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_files_go_where_named() {
        assert_eq!(
            create_database_sql("sbtest", None),
            "CREATE DATABASE [sbtest]"
        );
        assert_eq!(
            create_database_sql("tpcc", Some("/mnt/dut/mssql/")),
            "CREATE DATABASE [tpcc] ON PRIMARY (NAME = N'tpcc', FILENAME = N'/mnt/dut/mssql/tpcc.mdf') \
             LOG ON (NAME = N'tpcc_log', FILENAME = N'/mnt/dut/mssql/tpcc_log.ldf')"
        );
    }
}
