//! `[instance.config]` for SQLite: `SqliteSettings` as a scenario file writes them (journal
//! mode, synchronous level, busy timeout, cache and mmap sizes, page size, whether its I/O is counted; an unknown key is
//! refused with the list of known ones), resolved into `SqliteConfig`, the form the plan records.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use drivebench_core::config::settings::{self, AnyCase, Period, Size};
use drivebench_core::config::{Invalid, KeyPath};

/// `[instance.config]` for engine = "sqlite": PRAGMAs set on every connection.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SqliteSettings {
    /// PRAGMA journal_mode, in any case. Default "wal".
    pub journal_mode: Option<AnyCase<JournalMode>>,
    /// PRAGMA synchronous: when SQLite waits for the drive, in any case. Default "full".
    pub synchronous: Option<AnyCase<Synchronous>>,
    /// How long a statement waits for a lock before it fails with SQLITE_BUSY. Default "30s".
    pub busy_timeout: Option<Period>,
    /// Page cache per connection (PRAGMA cache_size); absent = SQLite's default.
    pub cache_size: Option<Size>,
    /// Bytes of the database file read through mmap (PRAGMA mmap_size); absent = SQLite's
    /// default (0).
    pub mmap_size: Option<Size>,
    /// PRAGMA page_size for new databases, bytes: a power of two from 512 to 65536; absent =
    /// SQLite's default (4096).
    #[schemars(extend("enum" = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]))]
    pub page_size: Option<i64>,
    /// Count the database's reads, writes and syncs for the engine I/O figures, in
    /// drivebench's VFS over SQLite's own. Default true; false opens the database with
    /// SQLite's VFS alone (no engine I/O figures: the run names them missing).
    pub count_io: Option<bool>,
}

/// PRAGMA journal_mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JournalMode {
    /// Write-ahead log: readers do not block the writer.
    Wal,
    /// Rollback journal, deleted at each commit.
    Delete,
    /// Rollback journal, truncated to zero bytes at each commit.
    Truncate,
    /// Rollback journal, its header zeroed at each commit.
    Persist,
    /// Rollback journal in memory.
    Memory,
}

/// PRAGMA synchronous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Synchronous {
    /// Never waits for the drive.
    Off,
    /// Waits at critical moments (in WAL mode: at checkpoints, not at commits).
    Normal,
    /// Waits at every commit.
    Full,
    /// As full, and the directory too after a rollback journal is deleted.
    Extra,
}

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
    /// Reads, writes and syncs counted in drivebench's VFS (`count_io`); results written
    /// before the setting existed read as true.
    #[serde(default = "counted")]
    pub count_io: bool,
}

fn counted() -> bool {
    true
}

impl SqliteConfig {
    /// The schema of `[instance.config]` as written (`SqliteSettings`), registered with `generator`.
    pub fn settings_schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<SqliteSettings>()
    }

    /// Read `[instance.config]` (the table at `key`) as `SqliteSettings` and resolve it.
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let s: SqliteSettings = settings::from_table(t, key, "engine sqlite")?;
        let page_size = match s.page_size {
            Some(v) if !(512..=65536).contains(&v) || (v & (v - 1)) != 0 => {
                return Err(Invalid::new(
                    key.key("page_size"),
                    format!("must be a power of two from 512 to 65536, got {v}"),
                ));
            }
            v => v.map(|v| v as u32),
        };
        Ok(SqliteConfig {
            journal_mode: settings::name(&s.journal_mode.map_or(JournalMode::Wal, |m| m.0)),
            synchronous: settings::name(&s.synchronous.map_or(Synchronous::Full, |m| m.0)),
            busy_timeout_ms: s.busy_timeout.map_or(30_000, |p| p.0.as_millis() as u64),
            cache_size_bytes: s.cache_size.map(|b| b.0),
            mmap_size_bytes: s.mmap_size.map(|b| b.0),
            page_size,
            count_io: s.count_io.unwrap_or(true),
        })
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
