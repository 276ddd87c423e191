//! The `[workload]` section of a scenario file as written: what every benchmark shares (clients,
//! connections, rate, prepare, attempts, stall timeout) and each benchmark's keys, resolved by
//! the benchmark's own `options` module.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Benchmarks this build runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BenchmarkKind {
    /// sysbench's OLTP tests.
    Sysbench,
    /// TPC-C (spec rev 5.11, not audited: "TPC-C-like").
    Tpcc,
}

impl BenchmarkKind {
    pub const ALL: [BenchmarkKind; 2] = [BenchmarkKind::Sysbench, BenchmarkKind::Tpcc];

    pub fn name(self) -> &'static str {
        match self {
            BenchmarkKind::Sysbench => "sysbench",
            BenchmarkKind::Tpcc => "tpcc",
        }
    }
}

/// Most virtual clients one instance may have.
pub const MAX_CLIENTS: i64 = 15_000;

impl PrepareMode {
    pub fn name(self) -> &'static str {
        match self {
            PrepareMode::Auto => "auto",
            PrepareMode::Always => "always",
            PrepareMode::Never => "never",
        }
    }
}

/// Whether to load data before the phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PrepareMode {
    /// Load if absent; reuse if present and its recorded load parameters match.
    Auto,
    /// Drop and load again.
    Always,
    /// Never load; the data must be present.
    Never,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// sysbench | tpcc.
    pub benchmark: BenchmarkKind,
    /// sysbench test name, e.g. "oltp_read_write" (sysbench only, required there).
    pub test: Option<String>,
    /// Virtual clients per instance. Default 1 (sysbench); tpcc: warehouses x
    /// terminals_per_warehouse under spec pacing, warehouses otherwise.
    pub clients: Option<i64>,
    /// Connections per instance shared by the clients, each held for one transaction.
    /// Default: one per client.
    pub connections: Option<i64>,
    /// OS threads that drive the clients of the network engines (every instance's clients dealt
    /// across them; SQLite's clients have a thread each). Default: one per core of the host.
    pub client_threads: Option<i64>,
    /// tpcc: warehouses per instance.
    pub warehouses: Option<i64>,
    /// tpcc: "spec" (keying and think times) or "none" (throughput mode). Default spec.
    pub pacing: Option<String>,
    /// tpcc, spec pacing: terminals per warehouse. Default 10 (other values are non-spec).
    pub terminals_per_warehouse: Option<i64>,
    /// tpcc: load afresh even when a finished load of the same plan is present (same as
    /// prepare = "always"). Default false.
    pub reload: Option<bool>,
    /// tpcc on engines mariadb, mysql, postgres and mssql: run each transaction as one call of
    /// a stored procedure (created before the phases) that begins and ends the transaction
    /// itself, the way HammerDB runs TPC-C. Default false.
    pub procedures: Option<bool>,
    /// tpcc: how each terminal picks its next transaction: "spec" (a deck of 45 New-Order, 43
    /// Payment and 4 of each other kind, 5.2.4.2) or "hammerdb" (an independent random draw
    /// weighted 10/10/1/1/1 of 23, as HammerDB and sysbench-tpcc do: New-Order 43.5 %). Default
    /// spec.
    pub mix: Option<String>,
    /// tpcc: the transaction isolation level every session is set to: "read_committed",
    /// "repeatable_read", "serializable", or "snapshot" (SQL Server only; its database needs
    /// ALLOW_SNAPSHOT_ISOLATION ON). SQLite is always serializable. The level each instance
    /// runs at is read back and recorded. Default: the engine's own (PostgreSQL and SQL Server
    /// read committed, MySQL and MariaDB repeatable read), read back all the same.
    pub isolation: Option<String>,
    /// Transactions per second per instance (open model, Poisson arrivals); absent = closed loop.
    pub rate: Option<f64>,
    /// auto | always | never. Default auto.
    pub prepare: Option<PrepareMode>,
    /// Attempts of one transaction before a retryable error stops the phase. Default 100.
    pub max_attempts: Option<i64>,
    /// How long an instance may go without a completed transaction or an error before the run
    /// stops, naming it (a hung or unreachable server), e.g. "60s"; counted across phase
    /// boundaries; in the load, no row loaded for this long and then no answer to a new
    /// connection within it either. Not scaled by --time-scale. Default "60s".
    pub stall_timeout: Option<String>,
    pub tables: Option<i64>,
    pub table_size: Option<i64>,
    pub range_size: Option<i64>,
    pub point_selects: Option<i64>,
    pub simple_ranges: Option<i64>,
    pub sum_ranges: Option<i64>,
    pub order_ranges: Option<i64>,
    pub distinct_ranges: Option<i64>,
    pub index_updates: Option<i64>,
    pub non_index_updates: Option<i64>,
    pub delete_inserts: Option<i64>,
    pub range_selects: Option<bool>,
    pub skip_trx: Option<bool>,
    pub auto_inc: Option<bool>,
    pub create_secondary: Option<bool>,
    /// special | uniform | gaussian | pareto | zipfian. Default special (sysbench 1.0).
    pub rand_type: Option<String>,
    pub rand_spec_pct: Option<i64>,
    pub rand_spec_res: Option<i64>,
    pub rand_spec_iter: Option<i64>,
    pub rand_pareto_h: Option<f64>,
    pub rand_zipfian_exp: Option<f64>,
}
