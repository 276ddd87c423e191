//! `[instance.config]` for SQLite: journal mode, synchronous level, busy timeout, cache and mmap
//! sizes, page size. Unknown keys are refused with the list of known ones.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::units::{parse_duration, parse_size};
use crate::config::{Invalid, KeyPath};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SqliteConfig {
    /// PRAGMA journal_mode: wal (default), delete, truncate, persist, memory.
    pub journal_mode: String,
    /// PRAGMA synchronous: off, normal, full (default), extra.
    pub synchronous: String,
    /// How long a statement waits for a lock before SQLITE_BUSY.
    pub busy_timeout_ms: u64,
    /// Page cache per connection, bytes (PRAGMA cache_size); absent = SQLite's default.
    pub cache_size_bytes: Option<u64>,
    /// PRAGMA mmap_size, bytes; absent = SQLite's default (0).
    pub mmap_size_bytes: Option<u64>,
    /// PRAGMA page_size for new databases; absent = SQLite's default (4096).
    pub page_size: Option<u32>,
}

const KNOWN: &str = "journal_mode, synchronous, busy_timeout, cache_size, mmap_size, page_size";

impl SqliteConfig {
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let mut c = SqliteConfig {
            journal_mode: "wal".into(),
            synchronous: "full".into(),
            busy_timeout_ms: 30_000,
            cache_size_bytes: None,
            mmap_size_bytes: None,
            page_size: None,
        };
        for (name, value) in t {
            let k = key.key(name);
            let text = || -> Result<String, Invalid> {
                match value {
                    toml::Value::String(s) => Ok(s.clone()),
                    toml::Value::Integer(i) => Ok(i.to_string()),
                    other => Err(Invalid::new(
                        k.clone(),
                        format!("expected a string, got {}", other.type_str()),
                    )),
                }
            };
            match name.as_str() {
                "journal_mode" => {
                    c.journal_mode = one_of(
                        &text()?,
                        &["wal", "delete", "truncate", "persist", "memory"],
                        &k,
                    )?
                }
                "synchronous" => {
                    c.synchronous = one_of(&text()?, &["off", "normal", "full", "extra"], &k)?
                }
                "busy_timeout" => {
                    c.busy_timeout_ms = parse_duration(&text()?)
                        .map_err(|m| Invalid::new(k.clone(), m))?
                        .as_millis() as u64
                }
                "cache_size" => {
                    c.cache_size_bytes =
                        Some(parse_size(&text()?).map_err(|m| Invalid::new(k.clone(), m))?)
                }
                "mmap_size" => {
                    c.mmap_size_bytes =
                        Some(parse_size(&text()?).map_err(|m| Invalid::new(k.clone(), m))?)
                }
                "page_size" => {
                    let v = match value {
                        toml::Value::Integer(i) => *i,
                        other => {
                            return Err(Invalid::new(
                                k,
                                format!("expected an integer, got {}", other.type_str()),
                            ));
                        }
                    };
                    if !(512..=65536).contains(&v) || (v & (v - 1)) != 0 {
                        return Err(Invalid::new(
                            k,
                            format!("must be a power of two from 512 to 65536, got {v}"),
                        ));
                    }
                    c.page_size = Some(v as u32);
                }
                _ => {
                    return Err(Invalid::new(
                        k,
                        format!("unknown setting for engine sqlite; known: {KNOWN}"),
                    ));
                }
            }
        }
        Ok(c)
    }
}

fn one_of(v: &str, allowed: &[&str], key: &KeyPath) -> Result<String, Invalid> {
    let lower = v.to_ascii_lowercase();
    if allowed.contains(&lower.as_str()) {
        Ok(lower)
    } else {
        Err(Invalid::new(
            key.clone(),
            format!(
                "unknown value {v:?}; expected one of {}",
                allowed.join(", ")
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SqliteConfig, Invalid> {
        let t: toml::Table = toml::from_str(text).unwrap();
        SqliteConfig::from_table(&t, &KeyPath::root().key("config"))
    }

    #[test]
    fn defaults_are_wal_and_full_sync() {
        let c = parse("").unwrap();
        assert_eq!(
            (
                c.journal_mode.as_str(),
                c.synchronous.as_str(),
                c.busy_timeout_ms
            ),
            ("wal", "full", 30_000)
        );
    }

    #[test]
    fn settings_are_validated_and_named() {
        let c = parse("synchronous = \"NORMAL\"\ncache_size = \"64MiB\"\npage_size = 8192\nbusy_timeout = \"5s\"").unwrap();
        assert_eq!(c.synchronous, "normal");
        assert_eq!(c.cache_size_bytes, Some(64 << 20));
        assert_eq!(c.page_size, Some(8192));
        assert_eq!(c.busy_timeout_ms, 5000);
        let cases = [
            ("synchronous = \"sometimes\"", "config.synchronous"),
            ("page_size = 1000", "config.page_size"),
            ("buffer_pool = \"1GiB\"", "config.buffer_pool"),
            ("busy_timeout = \"5\"", "config.busy_timeout"),
        ];
        for (text, key) in cases {
            assert_eq!(parse(text).unwrap_err().key.to_string(), key, "{text}");
        }
    }
}
