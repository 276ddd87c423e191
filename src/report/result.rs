//! result.json: the source of truth of a run. Everything else (summary.md, series.csv, later
//! reports and comparisons) is derived from it. The paths docs/outputs.md lists stay; fields
//! may be added.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::host::HostInfo;
use crate::metrics::summary::{MeanOfInstances, Summary};
use crate::scenario::Plan;
use crate::workload::sysbench::load::LoadReport;
use drivebench_core::config::units::utc_now;
use drivebench_system::target::TargetInfo;

/// The layout this build writes. 2: a sweep-only run's plan has no `workload` or `estimates`
/// (1 wrote a placeholder workload of 0 clients).
pub const SCHEMA_VERSION: u32 = 2;

/// The oldest layout this build still reads.
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct RunReport {
    pub schema_version: u32,
    pub drivebench_version: String,
    /// True only when every phase ran to its end.
    pub complete: bool,
    pub status: RunStatus,
    /// Why the run stopped early, when it did.
    pub error: Option<String>,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub finished_at: Option<String>,
    pub plan: Plan,
    pub environment: Environment,
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
    pub checks: Vec<super::tpcc::InstanceCheck>,
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
    pub clock: Option<super::clock::ClockReport>,
    /// A run made by `drivebench merge` of several hosts' runs: the hosts, their clocks and
    /// each phase's figures per host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<super::merge::model::MergeReport>,
}

impl RunReport {
    /// The report of a run that is starting: nothing measured yet.
    pub fn start(plan: Plan, environment: Environment, preflight: Vec<Finding>) -> Self {
        RunReport {
            schema_version: SCHEMA_VERSION,
            drivebench_version: env!("CARGO_PKG_VERSION").to_string(),
            complete: false,
            status: RunStatus::Running,
            error: None,
            started_at: utc_now(),
            finished_at: None,
            plan,
            environment,
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

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    Complete,
    Failed,
    Interrupted,
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
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PhaseReport {
    pub name: String,
    /// Counted in the recorded summary (phase `record = true`).
    pub recorded: bool,
    /// Ran to its planned end.
    pub completed: bool,
    pub planned_duration_s: f64,
    /// Offset of the phase's start from the first phase's start, seconds.
    pub start_offset_s: f64,
    /// Virtual clients per instance.
    pub clients: u32,
    /// All instances: TPS summed, latency from merged histograms.
    pub summary: Summary,
    /// The reviews' mean of per-instance latency figures, labelled as such.
    pub mean_of_instances: MeanOfInstances,
    pub per_instance: Vec<InstancePhase>,
    /// One row per report interval and instance.
    pub series: Vec<SeriesRow>,
    /// Response-time histogram of the whole phase, all instances (HdrHistogram V2 + DEFLATE, base64, µs).
    pub histogram: String,
    /// TPC-C figures of a recorded phase (tpmC, NOPM, efficiency, mix, response-time limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<super::tpcc::TpccPhase>,
    /// What the drive and the host did, and what held the phase back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<super::telemetry::PhaseTelemetry>,
    /// A phase with `until = "steady"`: its rounds and whether it became steady.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<super::steady::PhaseSteadyReport>,
}

impl PhaseReport {
    /// Total TPS at each report tick, (elapsed_s, tps): the instances' rows of a tick summed.
    pub fn total_tps(&self) -> Vec<(f64, f64)> {
        let mut ticks: Vec<(f64, f64)> = Vec::new();
        for row in &self.series {
            match ticks
                .iter_mut()
                .find(|(t, _)| (t - row.elapsed_s).abs() < 1e-6)
            {
                Some(tick) => tick.1 += row.tps,
                None => ticks.push((row.elapsed_s, row.tps)),
            }
        }
        ticks
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct InstancePhase {
    pub instance: String,
    pub summary: Summary,
    /// This instance's response-time histogram (same encoding as the phase's).
    pub histogram: String,
    /// The rest of its histograms (per kind, service time, start lag), from which `merge`
    /// rebuilds the phase exactly; absent in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<crate::metrics::rebuild::PhaseHistograms>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SeriesRow {
    pub phase: String,
    pub instance: String,
    /// Seconds since the first phase started, at the end of the interval.
    pub elapsed_s: f64,
    /// Length of the interval, seconds.
    pub interval_s: f64,
    pub clients: u32,
    pub transactions: u64,
    pub tps: f64,
    pub qps: f64,
    pub reads_per_s: f64,
    pub writes_per_s: f64,
    pub other_per_s: f64,
    pub latency_avg_ms: f64,
    pub latency_p50_ms: f64,
    pub latency_p95_ms: f64,
    pub latency_p99_ms: f64,
    pub latency_max_ms: f64,
    pub errors: u64,
    pub errors_per_s: f64,
    pub retries: u64,
    pub late_starts: u64,
}

impl SeriesRow {
    pub const CSV_HEADER: &'static str = "phase,instance,elapsed_s,interval_s,clients,transactions,tps,qps,reads_per_s,writes_per_s,other_per_s,latency_avg_ms,latency_p50_ms,latency_p95_ms,latency_p99_ms,latency_max_ms,errors,errors_per_s,retries,late_starts";

    pub fn from_summary(
        phase: &str,
        instance: &str,
        elapsed_s: f64,
        clients: u32,
        s: &Summary,
    ) -> Self {
        let secs = s.seconds.max(1e-9);
        SeriesRow {
            phase: phase.to_string(),
            instance: instance.to_string(),
            elapsed_s,
            interval_s: s.seconds,
            clients,
            transactions: s.transactions,
            tps: s.tps,
            qps: s.qps,
            reads_per_s: s.queries.reads as f64 / secs,
            writes_per_s: s.queries.writes as f64 / secs,
            other_per_s: s.queries.other as f64 / secs,
            latency_avg_ms: s.latency_ms.avg,
            latency_p50_ms: s.latency_ms.p50,
            latency_p95_ms: s.latency_ms.p95,
            latency_p99_ms: s.latency_ms.p99,
            latency_max_ms: s.latency_ms.max,
            errors: s.errors,
            errors_per_s: s.errors_per_s,
            retries: s.retries,
            late_starts: s.late_starts,
        }
    }

    pub fn csv_line(&self) -> String {
        format!(
            "{},{},{:.3},{:.3},{},{},{:.2},{:.2},{:.2},{:.2},{:.2},{:.3},{:.3},{:.3},{:.3},{:.3},{},{:.2},{},{}",
            csv_field(&self.phase),
            csv_field(&self.instance),
            self.elapsed_s,
            self.interval_s,
            self.clients,
            self.transactions,
            self.tps,
            self.qps,
            self.reads_per_s,
            self.writes_per_s,
            self.other_per_s,
            self.latency_avg_ms,
            self.latency_p50_ms,
            self.latency_p95_ms,
            self.latency_p99_ms,
            self.latency_max_ms,
            self.errors,
            self.errors_per_s,
            self.retries,
            self.late_starts
        )
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A preflight finding's weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    pub level: Level,
    pub message: String,
}

/// One instance's copy from the pre-built directory.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CopyReport {
    pub source: String,
    pub bytes: u64,
    pub seconds: f64,
    pub bytes_per_s: f64,
}
