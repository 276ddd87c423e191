//! The resolved plan: every default filled in, every unit converted, every duration scaled.
//! Written to plan.json before anything runs and embedded in result.json; nothing downstream
//! re-reads the scenario text.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::file::{BenchmarkKind, EngineKind, PrepareMode, Provision};
use crate::engine::EngineConfig;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Plan {
    pub name: String,
    /// The scenario file this plan was resolved from.
    pub scenario_file: String,
    /// `--set` overrides applied, as given.
    pub overrides: Vec<String>,
    /// Factor applied to every duration (1 = as written).
    pub time_scale: f64,
    pub seed: u64,
    pub report_interval_ms: u64,
    pub target_path: String,
    pub instances: Vec<PlanInstance>,
    pub workload: PlanWorkload,
    pub phases: Vec<PlanPhase>,
    pub estimates: Estimates,
    /// Synthetic I/O sweeps, run after the phases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<super::sweep::PlanSweep>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PlanInstance {
    /// e.g. "sqlite-1"; also the instance's directory under the target.
    pub name: String,
    pub engine: EngineKind,
    /// 0-based position among all instances of the run (part of every client's seed).
    pub index: usize,
    pub provision: Provision,
    pub config: EngineConfig,
    /// External servers: where to connect (never holds a password).
    pub url: Option<String>,
    /// External servers: where the password comes from (names only, never the password).
    pub password_env: Option<String>,
    pub password_file: Option<String>,
    /// Local servers: leave running / keep data after the run.
    pub keep_running: bool,
    pub keep_data: bool,
    /// Local servers: pre-built databases to copy instead of loading.
    pub prebuilt_dir: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PlanWorkload {
    pub benchmark: BenchmarkKind,
    /// Virtual clients per instance.
    pub clients: u32,
    /// Open-model target rate per instance (transactions/s); absent = closed loop.
    pub rate: Option<f64>,
    pub prepare: PrepareMode,
    /// Attempts of one transaction before a retryable error stops the phase.
    pub max_attempts: u32,
    pub sysbench: SysbenchOptions,
}

/// sysbench OLTP tests, by their sysbench names.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SysbenchTest {
    OltpReadWrite,
    OltpReadOnly,
    OltpWriteOnly,
    OltpPointSelect,
    OltpUpdateIndex,
    OltpUpdateNonIndex,
    OltpInsert,
    OltpDelete,
}

impl SysbenchTest {
    pub const ALL: [SysbenchTest; 8] = [
        SysbenchTest::OltpReadWrite,
        SysbenchTest::OltpReadOnly,
        SysbenchTest::OltpWriteOnly,
        SysbenchTest::OltpPointSelect,
        SysbenchTest::OltpUpdateIndex,
        SysbenchTest::OltpUpdateNonIndex,
        SysbenchTest::OltpInsert,
        SysbenchTest::OltpDelete,
    ];
    pub fn name(self) -> &'static str {
        match self {
            SysbenchTest::OltpReadWrite => "oltp_read_write",
            SysbenchTest::OltpReadOnly => "oltp_read_only",
            SysbenchTest::OltpWriteOnly => "oltp_write_only",
            SysbenchTest::OltpPointSelect => "oltp_point_select",
            SysbenchTest::OltpUpdateIndex => "oltp_update_index",
            SysbenchTest::OltpUpdateNonIndex => "oltp_update_non_index",
            SysbenchTest::OltpInsert => "oltp_insert",
            SysbenchTest::OltpDelete => "oltp_delete",
        }
    }
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The default random generator, as sysbench's `--rand-type`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RandType {
    Special,
    Uniform,
    Gaussian,
    Pareto,
    Zipfian,
}

impl RandType {
    pub fn name(self) -> &'static str {
        match self {
            RandType::Special => "special",
            RandType::Uniform => "uniform",
            RandType::Gaussian => "gaussian",
            RandType::Pareto => "pareto",
            RandType::Zipfian => "zipfian",
        }
    }
    pub const NAMES: &'static str = "special, uniform, gaussian, pareto, zipfian";
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "special" => RandType::Special,
            "uniform" => RandType::Uniform,
            "gaussian" => RandType::Gaussian,
            "pareto" => RandType::Pareto,
            "zipfian" => RandType::Zipfian,
            _ => return None,
        })
    }
}

/// sysbench's workload options with sysbench's names and (1.0.20) defaults.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SysbenchOptions {
    pub test: SysbenchTest,
    pub tables: u32,
    pub table_size: u32,
    pub range_size: u32,
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_selects: bool,
    pub skip_trx: bool,
    pub auto_inc: bool,
    pub create_secondary: bool,
    pub rand_type: RandType,
    pub rand_spec_pct: u32,
    pub rand_spec_res: u32,
    pub rand_spec_iter: u32,
    pub rand_pareto_h: f64,
    pub rand_zipfian_exp: f64,
}

impl SysbenchOptions {
    /// sysbench 1.0.20's defaults for `test` (oltp_point_select runs one point select).
    pub fn defaults(test: SysbenchTest) -> Self {
        SysbenchOptions {
            test,
            tables: 1,
            table_size: 10_000,
            range_size: 100,
            point_selects: if test == SysbenchTest::OltpPointSelect {
                1
            } else {
                10
            },
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            create_secondary: true,
            rand_type: RandType::Special,
            rand_spec_pct: 1,
            rand_spec_res: 75,
            rand_spec_iter: 12,
            rand_pareto_h: 0.2,
            rand_zipfian_exp: 0.8,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PlanPhase {
    pub name: String,
    /// Offset from the start of the first phase.
    pub start_offset_ms: u64,
    pub duration_ms: u64,
    /// Counted in the recorded summary.
    pub record: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Estimates {
    /// Data size per instance after load (bytes), including the secondary index.
    pub data_bytes_per_instance: u64,
    /// Data size of all instances together.
    pub data_bytes_total: u64,
    /// Rows loaded per instance.
    pub rows_per_instance: u64,
    /// Sum of all phase durations.
    pub phases_total_ms: u64,
    /// Client-side memory estimate (histogram shards and connections), bytes.
    pub client_memory_bytes: u64,
}
