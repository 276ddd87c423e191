//! `[instance.config]` for SQL Server: `MssqlSettings` as a scenario file writes them (the
//! memory the buffer pool may take, `max server memory`; the client's command timeout; where an
//! external server puts the database's files; and for private instances the `sqlservr` binary
//! and the edition it runs as), resolved into `MssqlConfig`, the form the plan records.

use std::borrow::Cow;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use drivebench_core::config::settings::{self, Period, RawValue, Size};
use drivebench_core::config::units::parse_duration;
use drivebench_core::config::{Invalid, KeyPath};

/// Default per-request timeout: long enough for an index build on a large TPC-C load, short
/// enough that a hung server does not hold a run forever.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(4 * 3600);

/// `[instance.config]` for engine = "mssql".
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MssqlSettings {
    /// `max server memory`: the buffer pool and the server's other caches, at least "512MiB";
    /// private instances set it, external ones are checked against it when it is given.
    pub buffer_pool: Option<Size>,
    /// The client's timeout for one request (a statement, a load batch, an index build), or
    /// "none"; after a timeout the connection is dropped and reopened. Default "4h".
    pub command_timeout: Option<CommandTimeout>,
    /// External servers: the directory, as the server sees it, for the database's data and log
    /// files when drivebench creates the database (it should be on the drive under test);
    /// absent = the server's default data and log directories.
    pub database_dir: Option<String>,
    /// Private instances: the `sqlservr` binary; absent = /opt/mssql/bin/sqlservr.
    pub server_bin: Option<String>,
    /// Private instances: the edition (MSSQL_PID), e.g. "Evaluation", or a product key. Default
    /// "Developer".
    pub edition: Option<String>,
}

/// A request timeout: a duration, or "none" for none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandTimeout(pub Option<Duration>);

impl<'de> Deserialize<'de> for CommandTimeout {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text =
            RawValue::deserialize(d)?.number_or_text("a duration such as \"4h\", or \"none\"")?;
        if text.trim() == "none" {
            return Ok(CommandTimeout(None));
        }
        parse_duration(&text)
            .map(|d| CommandTimeout(Some(d)))
            .map_err(|m| de::Error::custom(format!("{m}, or \"none\" for no timeout")))
    }
}

impl JsonSchema for CommandTimeout {
    fn schema_name() -> Cow<'static, str> {
        "CommandTimeout".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let period = generator.subschema_for::<Period>();
        json_schema!({
            "description": "A duration, or \"none\" for no timeout.",
            "anyOf": [period, { "const": "none" }]
        })
    }
}

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

impl MssqlConfig {
    /// The schema of `[instance.config]` as written (`MssqlSettings`), registered with `generator`.
    pub fn settings_schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<MssqlSettings>()
    }

    /// Read `[instance.config]` (the table at `key`) as `MssqlSettings` and resolve it.
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let s: MssqlSettings = settings::from_table(t, key, "engine mssql")?;
        let default = MssqlConfig::default();
        if let Some(Size(bytes)) = s.buffer_pool
            && bytes < 512 << 20
        {
            return Err(Invalid::new(
                key.key("buffer_pool"),
                "SQL Server needs at least 512MiB of max server memory",
            ));
        }
        if let Some(e) = &s.edition
            && (e.trim().is_empty() || e.contains(['\n', '\0']))
        {
            return Err(Invalid::new(
                key.key("edition"),
                "expected an edition name or product key",
            ));
        }
        Ok(MssqlConfig {
            buffer_pool_bytes: s.buffer_pool.map(|b| b.0),
            command_timeout_s: s.command_timeout.map_or(default.command_timeout_s, |t| {
                t.0.map(|d| d.as_secs().max(1))
            }),
            database_dir: s.database_dir,
            server_bin: s.server_bin,
            edition: s.edition.unwrap_or(default.edition),
        })
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
