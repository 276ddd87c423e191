//! result.json: the source of truth of a run. Everything else (summary.md, series.csv, later
//! reports and comparisons) is derived from it. The paths docs/outputs.md lists stay; fields
//! may be added.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::finding::Finding;
use super::phase::PhaseReport;
use super::status::RunStatus;
use crate::scenario::Plan;
use crate::workload::sysbench::load::LoadReport;
use drivebench_core::config::units::utc_now;
use drivebench_system::target::TargetInfo;
use drivebench_system::telemetry::host_info::HostInfo;

/// The layout this build writes. 2: a sweep-only run's plan has no `workload` or `estimates`
/// (1 wrote a placeholder workload of 0 clients).
pub const SCHEMA_VERSION: u32 = 2;

/// The oldest layout this build still reads.
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct RunReport {
    pub schema_version: u32,
    pub drivebench_version: String,
    /// How the run stands, with its error: result.json's `complete`, `status` and `error`.
    #[serde(flatten)]
    pub status: RunStatus,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub finished_at: Option<String>,
    pub plan: Plan,
    pub environment: Environment,
    /// The state `[target] device` was brought to before the load (purge, filesystem, fill);
    /// absent without a device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_state: Option<super::start_state::StartStateReport>,
    pub instances: Vec<InstanceReport>,
    pub phases: Vec<PhaseReport>,
    /// What preflight found before the run (dataset vs cache regime, space, limits).
    #[serde(default)]
    pub preflight: Vec<Finding>,
    /// Synthetic I/O sweeps, one per profile run (absent when none ran).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<super::sweeps::SweepReport>,
    /// Consistency checks run after the phases (TPC-C, clause 3.3.2), per instance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<crate::workload::tpcc::figures::InstanceCheck>,
    /// RFC 3339, UTC: when `drivebench check` last replaced `checks` (absent: the run's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked_at: Option<String>,
    /// Database load curves (`[[curve]]`), absent when none ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<super::curves::CurveReport>,
    pub warnings: Vec<String>,
    /// The devices under the target that telemetry read, as resolved when the phases began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_stack: Option<drivebench_system::telemetry::Devices>,
    /// The block I/O capture of the run's captured phases (`[capture]`, `--capture`): its
    /// summary; the trace itself is in the run directory's capture/.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<crate::capture::CaptureSummary>,
    /// A run made by `drivebench replay`: the replay of a capture on a target, with its fidelity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<crate::replay::ReplayReport>,
    /// When the phase clock started, against `--start-at` when given, and the host clock's
    /// state then; absent before the phases began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<drivebench_system::telemetry::clock::ClockReport>,
    /// A run made by `drivebench merge` of several hosts' runs: the hosts, their clocks and
    /// each phase's figures per host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<super::merge::MergeReport>,
}

impl RunReport {
    /// The report of a run that is starting: nothing measured yet.
    pub fn start(plan: Plan, environment: Environment, preflight: Vec<Finding>) -> Self {
        RunReport {
            schema_version: SCHEMA_VERSION,
            drivebench_version: env!("CARGO_PKG_VERSION").to_string(),
            status: RunStatus::Running,
            started_at: utc_now(),
            finished_at: None,
            plan,
            environment,
            start_state: None,
            instances: Vec::new(),
            phases: Vec::new(),
            preflight,
            sweeps: Vec::new(),
            checks: Vec::new(),
            checked_at: None,
            curves: Vec::new(),
            device_stack: None,
            clock: None,
            merge: None,
            capture: None,
            replay: None,
            warnings: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Environment {
    pub host: HostInfo,
    pub target: TargetInfo,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct InstanceReport {
    pub name: String,
    pub engine: String,
    /// Engine name and version, e.g. "SQLite 3.50.4".
    pub version: String,
    /// Where the instance keeps its data.
    pub data_path: String,
    /// Server engines: the URL clients connected to (a private server's own, an external one's
    /// from the plan); never a password. Absent for SQLite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub load: Option<LoadReport>,
    /// Effective server variables (server engines), e.g. innodb_buffer_pool_size.
    #[serde(default)]
    pub variables: std::collections::BTreeMap<String, String>,
    /// The copy from `prebuilt_dir` this instance's data came from, if any.
    #[serde(default)]
    pub prebuilt: Option<CopyReport>,
    /// What its engine could not tell of its own I/O (a view, a setting, a right), as the
    /// first reading found; absent when it told everything or was not sampled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_io_missing: Vec<String>,
}

/// One instance's copy from the pre-built directory.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CopyReport {
    pub source: String,
    pub bytes: u64,
    pub seconds: f64,
    pub bytes_per_s: f64,
}
