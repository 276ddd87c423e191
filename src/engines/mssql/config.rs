//! `[instance.config]` for SQL Server: the memory the buffer pool may take (`max server
//! memory`), the client's command timeout, where an external server puts the database's files,
//! and for private instances the `sqlservr` binary and the edition it runs as.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::units::{parse_duration, parse_size};
use crate::config::{Invalid, KeyPath};

/// Default per-request timeout: long enough for an index build on a large TPC-C load, short
/// enough that a hung server does not hold a run forever.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(4 * 3600);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MssqlConfig {
    /// `max server memory (MB)` as bytes (the buffer pool and the server's other caches);
    /// private instances only set it, external ones are checked against it when given.
    pub buffer_pool_bytes: Option<u64>,
    /// The client's timeout for one request (a statement, a load batch, an index build),
    /// seconds; None = unbounded. After a timeout the connection is dropped and reopened.
    pub command_timeout_s: Option<u64>,
    /// External servers: the directory, as the server sees it, for the database's data and log
    /// files when drivebench creates the database (it should be on the drive under test).
    /// Absent = the server's default data and log directories.
    pub database_dir: Option<String>,
    /// Private instances: the `sqlservr` binary; absent = /opt/mssql/bin/sqlservr.
    pub server_bin: Option<String>,
    /// Private instances: the edition (MSSQL_PID), e.g. "Developer" (default), "Evaluation",
    /// or a product key.
    pub edition: String,
}

impl Default for MssqlConfig {
    fn default() -> Self {
        MssqlConfig {
            buffer_pool_bytes: None,
            command_timeout_s: Some(DEFAULT_COMMAND_TIMEOUT.as_secs()),
            database_dir: None,
            server_bin: None,
            edition: "Developer".into(),
        }
    }
}

const KNOWN: &str = "buffer_pool, command_timeout, database_dir, server_bin, edition";

fn text(v: &toml::Value, k: &KeyPath) -> Result<String, Invalid> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        other => Err(Invalid::new(
            k.clone(),
            format!("expected a string, got {}", other.type_str()),
        )),
    }
}

impl MssqlConfig {
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let mut c = MssqlConfig::default();
        for (name, value) in t {
            let k = key.key(name);
            match name.as_str() {
                "buffer_pool" => {
                    let bytes =
                        parse_size(&text(value, &k)?).map_err(|m| Invalid::new(k.clone(), m))?;
                    if bytes < 512 << 20 {
                        return Err(Invalid::new(
                            k,
                            "SQL Server needs at least 512MiB of max server memory",
                        ));
                    }
                    c.buffer_pool_bytes = Some(bytes);
                }
                "command_timeout" => {
                    let t = text(value, &k)?;
                    c.command_timeout_s = if t.trim() == "none" {
                        None
                    } else {
                        let d = parse_duration(&t).map_err(|m| {
                            Invalid::new(k.clone(), format!("{m}, or \"none\" for no timeout"))
                        })?;
                        Some(d.as_secs().max(1))
                    };
                }
                "database_dir" => c.database_dir = Some(text(value, &k)?),
                "server_bin" => c.server_bin = Some(text(value, &k)?),
                "edition" => {
                    let e = text(value, &k)?;
                    if e.trim().is_empty() || e.contains(['\n', '\0']) {
                        return Err(Invalid::new(k, "expected an edition name or product key"));
                    }
                    c.edition = e;
                }
                _ => {
                    return Err(Invalid::new(
                        k,
                        format!("unknown setting for engine mssql; known: {KNOWN}"),
                    ));
                }
            }
        }
        Ok(c)
    }

    /// The command timeout as the driver takes it.
    pub fn command_timeout(&self) -> Option<Duration> {
        self.command_timeout_s.map(Duration::from_secs)
    }

    /// `max server memory (MB)`.
    pub fn max_server_memory_mb(&self) -> Option<u64> {
        self.buffer_pool_bytes.map(|b| b >> 20)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<MssqlConfig, Invalid> {
        let t: toml::Table = toml::from_str(text).unwrap();
        MssqlConfig::from_table(&t, &KeyPath::root().key("config"))
    }

    #[test]
    fn settings_parse_and_bad_ones_name_their_key() {
        let c = parse(
            "buffer_pool = \"48GiB\"\ncommand_timeout = \"2h\"\ndatabase_dir = \"/mnt/dut/mssql\"",
        )
        .unwrap();
        assert_eq!(c.max_server_memory_mb(), Some(48 * 1024));
        assert_eq!(c.command_timeout(), Some(Duration::from_secs(7200)));
        assert_eq!(c.database_dir.as_deref(), Some("/mnt/dut/mssql"));
        assert_eq!(c.edition, "Developer");
        assert_eq!(
            parse("command_timeout = \"none\"")
                .unwrap()
                .command_timeout(),
            None
        );
        assert_eq!(
            parse("").unwrap().command_timeout(),
            Some(DEFAULT_COMMAND_TIMEOUT),
            "never the driver's 30 s default"
        );
        for (text, key) in [
            ("buffer_pool = \"100MiB\"", "config.buffer_pool"),
            ("command_timeout = \"soon\"", "config.command_timeout"),
            ("shared_buffers = \"1GiB\"", "config.shared_buffers"),
            ("edition = \"\"", "config.edition"),
        ] {
            assert_eq!(parse(text).unwrap_err().key.to_string(), key, "{text}");
        }
    }
}
