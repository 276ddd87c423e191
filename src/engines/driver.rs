//! What an engine is to the rest of drivebench, below the engine folders: the closed set of
//! engines as scenario files name them (`EngineKind`) and their settings (`EngineConfig`), the
//! SQL dialects the `schemas/` directory is organised by (`Dialect`), the `Engine` trait each
//! engine folder implements (with `server::Server` for a server engine) and its `EngineOps`
//! table of names, capabilities and plain functions. Which type each kind is, is for the
//! registry above the folders to say.

use std::future::Future;
use std::pin::Pin;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Connector;
use drivebench_core::config::{Invalid, KeyPath};

/// Engines this build can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// Embedded SQLite (bundled), database files under the target directory.
    Sqlite,
    /// MariaDB server (mariadbd), private on the target or external.
    Mariadb,
    /// MySQL server (mysqld), private on the target or external.
    Mysql,
    /// PostgreSQL server, private on the target or external.
    Postgres,
    /// Microsoft SQL Server (sqlservr on Linux), private on the target or external.
    Mssql,
}

impl EngineKind {
    /// Every engine, in the order scenario files list them.
    pub const ALL: [EngineKind; 5] = [
        EngineKind::Sqlite,
        EngineKind::Mariadb,
        EngineKind::Mysql,
        EngineKind::Postgres,
        EngineKind::Mssql,
    ];
}

/// Engine settings from `[instance.config]`, validated per engine.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum EngineConfig {
    Sqlite(super::sqlite::SqliteConfig),
    /// MySQL and MariaDB share their settings.
    Mysql(super::mysql::MysqlConfig),
    Postgres(super::postgres::PostgresConfig),
    Mssql(super::mssql::MssqlConfig),
}

/// A boxed future, for visitors whose engines' futures have different types.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// The SQL dialects, as `schemas/<benchmark>/<dialect>/` holds their statement files. MariaDB
/// and MySQL share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    Sqlite,
    Mysql,
    Postgres,
    Mssql,
}

impl Dialect {
    /// Its directory under `schemas/<benchmark>/`.
    pub fn dir(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Mysql => "mysql",
            Dialect::Postgres => "postgres",
            Dialect::Mssql => "mssql",
        }
    }
}

/// What an engine found wrong in an external server's URL.
pub type UrlProblem = Box<dyn std::error::Error + Send + Sync>;

/// An engine as data: names, capabilities, and the functions that need no connection.
#[derive(Debug)]
pub struct EngineOps {
    /// As scenario files and results name it: "sqlite", "mariadb", ...
    pub name: &'static str,
    /// As people write it in messages: "SQLite", "PostgreSQL", ...
    pub title: &'static str,
    pub dialect: Dialect,
    /// Runs as a server (private on the target or external) rather than embedded.
    pub is_server: bool,
    /// The scheme of an external server's URL ("" for an embedded engine).
    pub url_scheme: &'static str,
    /// One writer at a time: the write transactions of its clients are serialised.
    pub single_writer: bool,
    /// Runs TPC-C as stored procedures (`procedures = true`).
    pub stored_procedures: bool,
    /// Why a loaded data directory cannot be copied to a new instance (`prebuilt_dir`), when
    /// it cannot.
    pub no_prebuilt: Option<&'static str>,
    /// Where a private instance's server writes its pid (first line), relative to the
    /// instance's directory; none when it writes none.
    pub pid_file: Option<&'static str>,
    /// `[instance.config]` validated into the engine's settings.
    pub parse_config: fn(&toml::Table, &KeyPath) -> Result<EngineConfig, Invalid>,
    /// The JSON Schema of `[instance.config]` as written, registered with the generator.
    pub settings_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    /// What the engine checks in an external server's URL beyond its scheme.
    pub check_url: fn(&str) -> Result<(), UrlProblem>,
    /// Bytes on disk for one instance's sysbench tables: loaded rows, with the `k` index.
    pub estimate_sysbench_bytes: fn(u64, bool) -> u64,
    /// Bytes on disk for one instance's TPC-C tables with this many warehouses.
    pub estimate_tpcc_bytes: fn(u32) -> u64,
}

impl EngineOps {
    /// A URL needs no more than its scheme.
    pub fn any_url(_url: &str) -> Result<(), UrlProblem> {
        Ok(())
    }

    /// Bytes for `loaded_rows` rows at `without` bytes each, or `with` the `k` index.
    pub fn per_row(loaded_rows: u64, create_secondary: bool, without: u64, with: u64) -> u64 {
        loaded_rows * if create_secondary { with } else { without }
    }

    /// The fixed ITEM table plus `per_warehouse` bytes per warehouse.
    pub fn per_warehouse(warehouses: u32, per_warehouse: u64) -> u64 {
        10_000_000 + u64::from(warehouses) * per_warehouse
    }
}

/// What every engine folder implements.
pub trait Engine: Send + Sync + 'static {
    /// Names, capabilities and plain functions.
    const OPS: &'static EngineOps;
    /// Its settings from `[instance.config]`.
    type Config: Clone + Send + Sync + 'static;
    type Connector: Connector;
    /// Its settings inside a plan's `EngineConfig`; `None` for another engine's.
    fn config(c: &EngineConfig) -> Option<&Self::Config>;
    /// The bytes of the cache a private instance keeps data in, and what the engine calls
    /// it ("buffer pool"), when its settings fix one.
    fn cache(_config: &Self::Config) -> Option<(u64, &'static str)> {
        None
    }
    /// What the engine can say about a run of its instances before anything starts.
    fn preflight(_run: &PreflightRun<'_, Self::Config>) -> Vec<Advice> {
        Vec::new()
    }
}

/// What preflight knows of a run, for an engine's own findings.
#[derive(Debug)]
pub struct PreflightRun<'a, C> {
    /// Every instance of the run.
    pub instances: Vec<PreflightInstance<'a, C>>,
    /// Connections the clients of one instance open.
    pub connections: u64,
    /// Logical processors of this host.
    pub cpus: u64,
}

/// One instance of a run, as preflight sees it.
#[derive(Debug)]
pub struct PreflightInstance<'a, C> {
    pub name: &'a str,
    pub config: &'a C,
    /// Attached to a server drivebench does not start (`provision = "external"`).
    pub external: bool,
}

/// How much a preflight finding matters, from all is well to `run` refusing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Ok,
    Note,
    Warning,
    Error,
}

/// What an engine tells preflight.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    pub severity: Severity,
    pub message: String,
}

impl Advice {
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        Advice {
            severity,
            message: message.into(),
        }
    }
}

/// An engine that runs inside drivebench, its data in a directory on the target.
pub trait Embedded: Engine {
    /// A connector to the instance whose data is in `dir` (created on first connect).
    fn open(dir: &std::path::Path, config: &Self::Config, statements: usize) -> Self::Connector;
    /// The file that holds an instance's data in `dir`, to tell whether it is still there.
    fn data_file(dir: &std::path::Path) -> std::path::PathBuf;
}
