//! `[instance.config]` for MySQL/MariaDB: `MysqlSettings` as a scenario file writes them (the
//! InnoDB settings the reviews tune, a `server_bin` override and raw `extra = { ... }` server
//! variables; sizes accept units, "24GiB"), resolved into `MysqlConfig`, the form the plan
//! records.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use drivebench_core::config::settings::{self, RawValue, Size};
use drivebench_core::config::{Invalid, KeyPath};

/// `[instance.config]` for engine = "mariadb" or "mysql": the server's my.cnf.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MysqlSettings {
    /// innodb_buffer_pool_size: InnoDB's page cache. Default "128MiB".
    pub buffer_pool: Option<Size>,
    /// innodb_log_file_size (the redo log); absent = the server's default.
    pub log_file_size: Option<Size>,
    /// innodb_flush_log_at_trx_commit, 0, 1 or 2 (also as a string); absent = the server's
    /// default (1).
    pub flush_log_at_trx_commit: Option<FlushLogAtTrxCommit>,
    /// innodb_flush_method as the server spells it, e.g. "O_DIRECT"; absent = the server's
    /// default.
    pub flush_method: Option<String>,
    /// innodb_io_capacity: background flushing, I/O operations per second; absent = the
    /// server's default.
    pub io_capacity: Option<u64>,
    /// The server binary (mariadbd or mysqld) to start; absent = searched on PATH and in
    /// /usr/sbin.
    pub server_bin: Option<String>,
    /// Raw server variables written into the instance's my.cnf as they are, e.g.
    /// `extra = { innodb_doublewrite = 0 }`; true and false are written ON and OFF. Names are
    /// letters, digits, `_` and `-`.
    #[serde(default)]
    #[schemars(extend("propertyNames" = { "pattern": "^[A-Za-z0-9_-]+$" }))]
    pub extra: BTreeMap<String, RawValue>,
}

/// innodb_flush_log_at_trx_commit: when the redo log reaches the drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlushLogAtTrxCommit(pub u8);

impl<'de> Deserialize<'de> for FlushLogAtTrxCommit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = RawValue::deserialize(d)?.text("ON", "OFF");
        match v.as_str() {
            "0" | "1" | "2" => Ok(FlushLogAtTrxCommit(v.as_bytes()[0] - b'0')),
            _ => Err(de::Error::custom(format!("must be 0, 1 or 2, got {v}"))),
        }
    }
}

impl JsonSchema for FlushLogAtTrxCommit {
    fn schema_name() -> Cow<'static, str> {
        "FlushLogAtTrxCommit".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "innodb_flush_log_at_trx_commit: when the redo log reaches the drive.",
            "oneOf": [
                { "const": 0, "description": "Written and flushed about once a second." },
                { "const": 1, "description": "Written and flushed at every commit." },
                { "const": 2, "description": "Written at every commit, flushed about once a second." }
            ]
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MysqlConfig {
    /// innodb_buffer_pool_size, bytes.
    pub buffer_pool_bytes: u64,
    /// innodb_log_file_size, bytes; absent = the server's default.
    pub log_file_size_bytes: Option<u64>,
    /// innodb_flush_log_at_trx_commit (0, 1 or 2); absent = the server's default (1).
    pub flush_log_at_trx_commit: Option<u8>,
    /// innodb_flush_method, e.g. "O_DIRECT"; absent = the server's default.
    pub flush_method: Option<String>,
    /// innodb_io_capacity; absent = the server's default.
    pub io_capacity: Option<u64>,
    /// The server binary (mariadbd or mysqld) to start; absent = searched on PATH and in /usr/sbin.
    pub server_bin: Option<String>,
    /// Raw server variables written into the instance's my.cnf.
    pub extra: BTreeMap<String, String>,
}

impl MysqlConfig {
    /// The schema of `[instance.config]` as written (`MysqlSettings`), registered with `generator`.
    pub fn settings_schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<MysqlSettings>()
    }

    /// Read `[instance.config]` (the table at `key`) as `MysqlSettings` and resolve it.
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let s: MysqlSettings = settings::from_table(t, key, "engine mysql/mariadb")?;
        let extra = settings::raw_settings(&s.extra, &key.key("extra"), '-', ("ON", "OFF"))
            .map_err(|k| Invalid::new(k, "not a server variable name"))?;
        Ok(MysqlConfig {
            buffer_pool_bytes: s.buffer_pool.map_or(128 << 20, |b| b.0),
            log_file_size_bytes: s.log_file_size.map(|b| b.0),
            flush_log_at_trx_commit: s.flush_log_at_trx_commit.map(|f| f.0),
            flush_method: s.flush_method,
            io_capacity: s.io_capacity,
            server_bin: s.server_bin,
            extra,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<MysqlConfig, Invalid> {
        let t: toml::Table = toml::from_str(text).unwrap();
        MysqlConfig::from_table(&t, &KeyPath::root().key("config"))
    }

    #[test]
    fn review_settings_parse_with_units() {
        let c = parse("buffer_pool = \"24GiB\"\nflush_log_at_trx_commit = 1\nflush_method = \"O_DIRECT\"\nio_capacity = 2000\nextra = { innodb_doublewrite = 0, skip_name_resolve = true }").unwrap();
        assert_eq!(c.buffer_pool_bytes, 24 << 30);
        assert_eq!(c.flush_log_at_trx_commit, Some(1));
        assert_eq!(c.io_capacity, Some(2000));
        assert_eq!(
            c.extra.get("innodb_doublewrite").map(String::as_str),
            Some("0")
        );
        assert_eq!(
            c.extra.get("skip_name_resolve").map(String::as_str),
            Some("ON")
        );
    }

    #[test]
    fn bad_settings_name_their_key() {
        let cases = [
            ("buffer_pool = \"lots\"", "config.buffer_pool"),
            (
                "flush_log_at_trx_commit = 3",
                "config.flush_log_at_trx_commit",
            ),
            ("synchronous = \"full\"", "config.synchronous"),
            ("extra = 5", "config.extra"),
            ("extra = { \"bad name\" = 1 }", "config.extra.bad name"),
        ];
        for (text, key) in cases {
            assert_eq!(parse(text).unwrap_err().key.to_string(), key, "{text}");
        }
    }
}
