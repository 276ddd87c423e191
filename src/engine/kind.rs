//! The closed set of engines this build drives, as scenario files name them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Sqlite => "sqlite",
            EngineKind::Mariadb => "mariadb",
            EngineKind::Mysql => "mysql",
            EngineKind::Postgres => "postgres",
            EngineKind::Mssql => "mssql",
        }
    }

    /// Engines that run as a server (provisioned or external) rather than embedded.
    pub fn is_server(self) -> bool {
        !matches!(self, EngineKind::Sqlite)
    }
}
