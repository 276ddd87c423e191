//! The engine registry, above the engine folders: `dispatch`, the one `match` on `EngineKind`
//! in the crate, which hands a visitor the engine's type, and what is found through it (an
//! engine's `EngineOps`, its settings parsed). Adding an engine is a folder under `engines/`,
//! a variant of `EngineKind` and of `EngineConfig` (in `driver`), and an arm here.

use super::driver::{Dialect, Embedded, EngineConfig, EngineKind, EngineOps};
use super::server::Server;
use drivebench_core::config::{Invalid, KeyPath};

impl EngineConfig {
    /// `[instance.config]` of a `kind` instance (none: every default), validated by its engine.
    pub fn from_table(
        kind: EngineKind,
        table: Option<&toml::Table>,
        key: &KeyPath,
    ) -> Result<Self, Invalid> {
        let empty = toml::Table::new();
        (kind.ops().parse_config)(table.unwrap_or(&empty), key)
    }
}

/// Hands `visitor` the engine type of `kind`: the one place that names every engine.
pub fn dispatch<V: EngineVisitor>(kind: EngineKind, visitor: V) -> V::Output {
    match kind {
        EngineKind::Sqlite => visitor.embedded::<super::sqlite::Sqlite>(),
        EngineKind::Mariadb => visitor.server::<super::mysql::Mariadb>(),
        EngineKind::Mysql => visitor.server::<super::mysql::Mysql>(),
        EngineKind::Postgres => visitor.server::<super::postgres::Postgres>(),
        EngineKind::Mssql => visitor.server::<super::mssql::Mssql>(),
    }
}

/// Something done with an engine's type, chosen by [`dispatch`].
pub trait EngineVisitor {
    type Output;
    /// An engine that runs inside drivebench (SQLite).
    fn embedded<E: Embedded>(self) -> Self::Output;
    /// An engine that runs as a server, private on the target or external.
    fn server<E: Server>(self) -> Self::Output;
}

impl EngineKind {
    /// The engine's table of names, capabilities and plain functions.
    pub fn ops(self) -> &'static EngineOps {
        struct Ops;
        impl EngineVisitor for Ops {
            type Output = &'static EngineOps;
            fn embedded<E: Embedded>(self) -> &'static EngineOps {
                E::OPS
            }
            fn server<E: Server>(self) -> &'static EngineOps {
                E::OPS
            }
        }
        dispatch(self, Ops)
    }

    /// As scenario files and results name it: "sqlite", "mariadb", ...
    pub fn as_str(self) -> &'static str {
        self.ops().name
    }

    /// Engines that run as a server (provisioned or external) rather than embedded.
    pub fn is_server(self) -> bool {
        self.ops().is_server
    }

    /// The SQL dialect its statements are written in.
    pub fn dialect(self) -> Dialect {
        self.ops().dialect
    }
}
