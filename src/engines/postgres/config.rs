//! `[instance.config]` for PostgreSQL: the settings the reviews and DBAs tune, an optional
//! `wal_dir` (WAL on another drive), a `server_bin` override and raw `extra = { ... }` settings.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::units::{parse_duration, parse_size};
use crate::config::{Invalid, KeyPath};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PostgresConfig {
    /// shared_buffers, bytes.
    pub shared_buffers_bytes: u64,
    /// max_wal_size, bytes; absent = the server's default.
    pub max_wal_size_bytes: Option<u64>,
    /// synchronous_commit: on, off, local, remote_write, remote_apply.
    pub synchronous_commit: Option<String>,
    /// wal_sync_method, e.g. fdatasync.
    pub wal_sync_method: Option<String>,
    /// checkpoint_timeout, seconds.
    pub checkpoint_timeout_s: Option<u64>,
    /// Directory for the WAL (initdb --waldir), e.g. on a second drive.
    pub wal_dir: Option<String>,
    /// Directory of initdb/pg_ctl/postgres; absent = PATH, then /usr/lib/postgresql/*/bin.
    pub server_bin: Option<String>,
    /// Raw settings written into the instance's configuration.
    pub extra: BTreeMap<String, String>,
}

const KNOWN: &str = "shared_buffers, max_wal_size, synchronous_commit, wal_sync_method, checkpoint_timeout, wal_dir, server_bin, extra";

fn text(v: &toml::Value, k: &KeyPath) -> Result<String, Invalid> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(if *b { "on" } else { "off" }.to_string()),
        other => Err(Invalid::new(
            k.clone(),
            format!("expected a value, got {}", other.type_str()),
        )),
    }
}

fn one_of(v: String, allowed: &[&str], k: &KeyPath) -> Result<String, Invalid> {
    if allowed.contains(&v.as_str()) {
        Ok(v)
    } else {
        Err(Invalid::new(
            k.clone(),
            format!(
                "unknown value {v:?}; expected one of {}",
                allowed.join(", ")
            ),
        ))
    }
}

impl PostgresConfig {
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let mut c = PostgresConfig {
            shared_buffers_bytes: 128 << 20,
            max_wal_size_bytes: None,
            synchronous_commit: None,
            wal_sync_method: None,
            checkpoint_timeout_s: None,
            wal_dir: None,
            server_bin: None,
            extra: BTreeMap::new(),
        };
        for (name, value) in t {
            let k = key.key(name);
            let size = || parse_size(&text(value, &k)?).map_err(|m| Invalid::new(k.clone(), m));
            match name.as_str() {
                "shared_buffers" => c.shared_buffers_bytes = size()?,
                "max_wal_size" => c.max_wal_size_bytes = Some(size()?),
                "synchronous_commit" => {
                    c.synchronous_commit = Some(one_of(
                        text(value, &k)?,
                        &["on", "off", "local", "remote_write", "remote_apply"],
                        &k,
                    )?)
                }
                "wal_sync_method" => {
                    c.wal_sync_method = Some(one_of(
                        text(value, &k)?,
                        &["fsync", "fdatasync", "open_sync", "open_datasync"],
                        &k,
                    )?)
                }
                "checkpoint_timeout" => {
                    let d = parse_duration(&text(value, &k)?)
                        .map_err(|m| Invalid::new(k.clone(), m))?;
                    c.checkpoint_timeout_s = Some(d.as_secs().max(1));
                }
                "wal_dir" => c.wal_dir = Some(text(value, &k)?),
                "server_bin" => c.server_bin = Some(text(value, &k)?),
                "extra" => {
                    let toml::Value::Table(extra) = value else {
                        return Err(Invalid::new(
                            k,
                            "expected a table of settings, e.g. extra = { full_page_writes = \"off\" }",
                        ));
                    };
                    for (var, v) in extra {
                        let vk = k.key(var);
                        if !var
                            .chars()
                            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')
                        {
                            return Err(Invalid::new(vk, "not a setting name"));
                        }
                        c.extra.insert(var.clone(), text(v, &vk)?);
                    }
                }
                _ => {
                    return Err(Invalid::new(
                        k,
                        format!("unknown setting for engine postgres; known: {KNOWN}"),
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

    fn parse(text: &str) -> Result<PostgresConfig, Invalid> {
        let t: toml::Table = toml::from_str(text).unwrap();
        PostgresConfig::from_table(&t, &KeyPath::root().key("config"))
    }

    #[test]
    fn settings_parse_with_units_and_bad_ones_name_their_key() {
        let c = parse("shared_buffers = \"8GiB\"\nsynchronous_commit = \"off\"\ncheckpoint_timeout = \"15m\"\nwal_dir = \"/mnt/wal\"").unwrap();
        assert_eq!(c.shared_buffers_bytes, 8 << 30);
        assert_eq!(c.checkpoint_timeout_s, Some(900));
        assert_eq!(c.wal_dir.as_deref(), Some("/mnt/wal"));
        for (text, key) in [
            (
                "synchronous_commit = \"sometimes\"",
                "config.synchronous_commit",
            ),
            ("buffer_pool = \"1GiB\"", "config.buffer_pool"),
            ("checkpoint_timeout = \"5\"", "config.checkpoint_timeout"),
        ] {
            assert_eq!(parse(text).unwrap_err().key.to_string(), key, "{text}");
        }
    }
}
