//! `[instance.config]` for PostgreSQL: `PostgresSettings` as a scenario file writes them (the
//! settings the reviews and DBAs tune, an optional `wal_dir` for the WAL on another drive, a
//! `server_bin` override and raw `extra = { ... }` settings), resolved into `PostgresConfig`,
//! the form the plan records.

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use drivebench_core::config::settings::{self, AnyCase, Period, RawValue, Size};
use drivebench_core::config::{Invalid, KeyPath};

/// `[instance.config]` for engine = "postgres": the cluster's configuration.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PostgresSettings {
    /// shared_buffers: the server's page cache. Default "128MiB".
    pub shared_buffers: Option<Size>,
    /// max_wal_size: the WAL written between checkpoints before one is forced; absent = the
    /// server's default.
    pub max_wal_size: Option<Size>,
    /// synchronous_commit: what a commit waits for (true and false are on and off); absent =
    /// the server's default (on).
    pub synchronous_commit: Option<AnyCase<SynchronousCommit>>,
    /// wal_sync_method: how WAL writes are forced to the drive; absent = the server's default.
    pub wal_sync_method: Option<AnyCase<WalSyncMethod>>,
    /// checkpoint_timeout: the longest time between automatic checkpoints, e.g. "15m"; absent =
    /// the server's default.
    pub checkpoint_timeout: Option<Period>,
    /// Directory for the WAL (initdb --waldir), e.g. on a second drive; absent = in the data
    /// directory.
    pub wal_dir: Option<String>,
    /// Directory of initdb, pg_ctl and postgres; absent = PATH, then /usr/lib/postgresql/*/bin.
    pub server_bin: Option<String>,
    /// Raw settings written into the instance's configuration as they are, e.g.
    /// `extra = { full_page_writes = "off" }`; true and false are written on and off. Names are
    /// letters, digits, `_` and `.`.
    #[serde(default)]
    #[schemars(extend("propertyNames" = { "pattern": "^[A-Za-z0-9_.]+$" }))]
    pub extra: BTreeMap<String, RawValue>,
}

/// synchronous_commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SynchronousCommit {
    /// The commit waits for its WAL to be flushed (and for synchronous standbys).
    On,
    /// The commit does not wait: the last transactions may be lost in a crash.
    Off,
    /// The commit waits for the local flush only.
    Local,
    /// The commit waits for synchronous standbys to write the WAL (not flush it).
    RemoteWrite,
    /// The commit waits for synchronous standbys to apply the WAL.
    RemoteApply,
}

/// wal_sync_method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WalSyncMethod {
    /// fsync() at each commit.
    Fsync,
    /// fdatasync() at each commit.
    Fdatasync,
    /// WAL files opened with O_SYNC.
    OpenSync,
    /// WAL files opened with O_DSYNC.
    OpenDatasync,
}

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

impl PostgresConfig {
    /// The schema of `[instance.config]` as written (`PostgresSettings`), registered with `generator`.
    pub fn settings_schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<PostgresSettings>()
    }

    /// Read `[instance.config]` (the table at `key`) as `PostgresSettings` and resolve it.
    pub fn from_table(t: &toml::Table, key: &KeyPath) -> Result<Self, Invalid> {
        let s: PostgresSettings = settings::from_table(t, key, "engine postgres")?;
        let extra = settings::raw_settings(&s.extra, &key.key("extra"), '.', ("on", "off"))
            .map_err(|k| Invalid::new(k, "not a setting name"))?;
        Ok(PostgresConfig {
            shared_buffers_bytes: s.shared_buffers.map_or(128 << 20, |b| b.0),
            max_wal_size_bytes: s.max_wal_size.map(|b| b.0),
            synchronous_commit: s.synchronous_commit.map(|m| settings::name(&m.0)),
            wal_sync_method: s.wal_sync_method.map(|m| settings::name(&m.0)),
            checkpoint_timeout_s: s.checkpoint_timeout.map(|p| p.0.as_secs().max(1)),
            wal_dir: s.wal_dir,
            server_bin: s.server_bin,
            extra,
        })
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
