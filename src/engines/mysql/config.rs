//! `[instance.config]` for MySQL/MariaDB: the InnoDB settings the reviews tune, a `server_bin`
//! override, and raw `extra = { ... }` server variables. Sizes accept units ("24GiB").

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::units::parse_size;
use crate::config::{Invalid, KeyPath};

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

const KNOWN: &str = "buffer_pool, log_file_size, flush_log_at_trx_commit, flush_method, io_capacity, server_bin, extra";

fn text(v: &toml::Value, k: &KeyPath) -> Result<String, Invalid> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(if *b { "ON" } else { "OFF" }.to_string()),
        other => Err(Invalid::new(
            k.clone(),
            format!("expected a value, got {}", other.type_str()),
        )),
    }
}

fn size(v: &toml::Value, k: &KeyPath) -> Result<u64, Invalid> {
    parse_size(&text(v, k)?).map_err(|m| Invalid::new(k.clone(), m))
}

impl MysqlConfig {
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let mut c = MysqlConfig {
            buffer_pool_bytes: 128 << 20,
            log_file_size_bytes: None,
            flush_log_at_trx_commit: None,
            flush_method: None,
            io_capacity: None,
            server_bin: None,
            extra: BTreeMap::new(),
        };
        for (name, value) in t {
            let k = key.key(name);
            match name.as_str() {
                "buffer_pool" => c.buffer_pool_bytes = size(value, &k)?,
                "log_file_size" => c.log_file_size_bytes = Some(size(value, &k)?),
                "flush_log_at_trx_commit" => {
                    let v = text(value, &k)?;
                    c.flush_log_at_trx_commit = Some(match v.as_str() {
                        "0" => 0,
                        "1" => 1,
                        "2" => 2,
                        _ => return Err(Invalid::new(k, format!("must be 0, 1 or 2, got {v}"))),
                    });
                }
                "flush_method" => c.flush_method = Some(text(value, &k)?),
                "io_capacity" => {
                    let v = text(value, &k)?;
                    c.io_capacity = Some(v.parse().map_err(|_| {
                        Invalid::new(k.clone(), format!("must be a positive integer, got {v}"))
                    })?);
                }
                "server_bin" => c.server_bin = Some(text(value, &k)?),
                "extra" => {
                    let toml::Value::Table(extra) = value else {
                        return Err(Invalid::new(
                            k,
                            "expected a table of server variables, e.g. extra = { innodb_doublewrite = 0 }",
                        ));
                    };
                    for (var, v) in extra {
                        let vk = k.key(var);
                        if !var
                            .chars()
                            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')
                        {
                            return Err(Invalid::new(vk, "not a server variable name"));
                        }
                        c.extra.insert(var.clone(), text(v, &vk)?);
                    }
                }
                _ => {
                    return Err(Invalid::new(
                        k,
                        format!("unknown setting for engine mysql/mariadb; known: {KNOWN}"),
                    ));
                }
            }
        }
        Ok(c)
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
