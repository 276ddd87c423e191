//! The resolved plan: every default filled in, every unit converted, every duration scaled.
//! Written to plan.json before anything runs and embedded in result.json; nothing downstream
//! re-reads the scenario text.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

pub use super::file::Provision;
use crate::engines::EngineConfig;
use crate::engines::EngineKind;
use crate::workload::benchmark::Benchmark;
use crate::workload::section::{BenchmarkKind, PrepareMode};

/// A resolved run: what every run shares, the database part when the run has one, then the
/// synthetic I/O sweeps. A scenario always has a database part; `drivebench sweep` has none.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(try_from = "PlanFile", into = "PlanFile")]
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
    /// `[target] device`: the device brought to a known start before the load (then
    /// `target_path` is where its new filesystem is mounted).
    pub start_state: Option<super::start_state::StartState>,
    /// The database instances, their workload, phases and curve; `None` for a sweep-only run.
    pub database: Option<DatabaseRun>,
    /// Synthetic I/O sweeps, run after the database part.
    pub sweeps: Vec<super::sweep::PlanSweep>,
}

/// The database part of a run: instances loaded and driven through the phases, then the curve.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseRun {
    /// At least one; all of one engine.
    pub instances: Vec<PlanInstance>,
    pub workload: PlanWorkload,
    pub phases: Vec<PlanPhase>,
    /// `[[curve]]`: a load curve after the phases.
    pub curve: Option<super::curve::PlanCurve>,
    pub estimates: Estimates,
    /// `[capture]` or `--capture`: the phases whose block I/O is captured.
    pub capture: Option<super::capture::PlanCapture>,
}

impl Plan {
    /// The plan result.json embeds for a command that runs no scenario (`drivebench sweep`,
    /// `drivebench replay`): named `command`, no database part, the given sweeps.
    pub fn without_database(
        command: &str,
        target: &std::path::Path,
        sweeps: Vec<super::sweep::PlanSweep>,
    ) -> Plan {
        Plan {
            name: command.into(),
            scenario_file: format!("(drivebench {command})"),
            overrides: Vec::new(),
            time_scale: 1.0,
            seed: 1,
            report_interval_ms: 1000,
            target_path: target.display().to_string(),
            start_state: None,
            database: None,
            sweeps,
        }
    }

    /// The instances of the database part (none for a sweep-only run).
    pub fn instances(&self) -> &[PlanInstance] {
        self.database.as_ref().map_or(&[], |d| &d.instances)
    }

    /// The plan seen from its database part, when it has one.
    pub fn database(&self) -> Option<DbPlan<'_>> {
        self.database.as_ref().map(|db| DbPlan { plan: self, db })
    }
}

/// A plan that has a database part, as the database steps read it: the part itself in `db`,
/// the settings every run shares through the methods.
#[derive(Debug, Clone, Copy)]
pub struct DbPlan<'a> {
    pub plan: &'a Plan,
    pub db: &'a DatabaseRun,
}

impl DbPlan<'_> {
    pub fn seed(&self) -> u64 {
        self.plan.seed
    }
    pub fn target_path(&self) -> &str {
        &self.plan.target_path
    }
    pub fn report_interval_ms(&self) -> u64 {
        self.plan.report_interval_ms
    }
}

/// The plan as plan.json and result.json hold it: the database part's keys sit beside the
/// shared ones, and a sweep-only run has no `workload` or `estimates` and empty lists.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Plan")]
struct PlanFile {
    name: String,
    /// The scenario file this plan was resolved from.
    scenario_file: String,
    /// `--set` overrides applied, as given.
    overrides: Vec<String>,
    /// Factor applied to every duration (1 = as written).
    time_scale: f64,
    seed: u64,
    report_interval_ms: u64,
    target_path: String,
    /// `[target] device`: the device brought to a known start before the load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    start_state: Option<super::start_state::StartState>,
    /// Database instances; empty for a sweep-only run.
    #[serde(default)]
    instances: Vec<PlanInstance>,
    /// What the clients run; absent for a sweep-only run.
    #[serde(
        default,
        deserialize_with = "read_workload",
        skip_serializing_if = "Option::is_none"
    )]
    workload: Option<PlanWorkload>,
    #[serde(default)]
    phases: Vec<PlanPhase>,
    /// `[[curve]]`: a load curve after the phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    curve: Option<super::curve::PlanCurve>,
    /// Absent for a sweep-only run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    estimates: Option<Estimates>,
    /// `[capture]`: the phases whose block I/O is captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capture: Option<super::capture::PlanCapture>,
    /// Synthetic I/O sweeps, run after the phases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sweeps: Vec<super::sweep::PlanSweep>,
}

impl JsonSchema for Plan {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        PlanFile::schema_name()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        PlanFile::json_schema(generator)
    }
}

/// Why a plan as read cannot be a plan.
#[derive(Debug, thiserror::Error)]
pub enum PlanFileError {
    #[error("a plan with a workload needs `instances` and `estimates`")]
    Incomplete,
    #[error("a plan without a workload has no instances, phases or curve")]
    Stray,
}

impl TryFrom<PlanFile> for Plan {
    type Error = PlanFileError;
    fn try_from(f: PlanFile) -> Result<Self, Self::Error> {
        let database = match (f.workload, f.estimates) {
            (Some(workload), Some(estimates)) if !f.instances.is_empty() => Some(DatabaseRun {
                instances: f.instances,
                workload,
                phases: f.phases,
                curve: f.curve,
                estimates,
                capture: f.capture,
            }),
            (Some(_), _) => return Err(PlanFileError::Incomplete),
            (None, _)
                if !f.instances.is_empty()
                    || !f.phases.is_empty()
                    || f.curve.is_some()
                    || f.capture.is_some() =>
            {
                return Err(PlanFileError::Stray);
            }
            (None, _) => None,
        };
        Ok(Plan {
            name: f.name,
            scenario_file: f.scenario_file,
            overrides: f.overrides,
            time_scale: f.time_scale,
            seed: f.seed,
            report_interval_ms: f.report_interval_ms,
            target_path: f.target_path,
            start_state: f.start_state,
            database,
            sweeps: f.sweeps,
        })
    }
}

impl From<Plan> for PlanFile {
    fn from(p: Plan) -> Self {
        let (instances, workload, phases, curve, estimates, capture) = match p.database {
            Some(d) => (
                d.instances,
                Some(d.workload),
                d.phases,
                d.curve,
                Some(d.estimates),
                d.capture,
            ),
            None => (Vec::new(), None, Vec::new(), None, None, None),
        };
        PlanFile {
            name: p.name,
            scenario_file: p.scenario_file,
            overrides: p.overrides,
            time_scale: p.time_scale,
            seed: p.seed,
            report_interval_ms: p.report_interval_ms,
            target_path: p.target_path,
            start_state: p.start_state,
            instances,
            workload,
            phases,
            curve,
            estimates,
            capture,
            sweeps: p.sweeps,
        }
    }
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

/// The database workload: one benchmark with its options, and the clients that run it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PlanWorkload {
    /// The benchmark and its options: `"benchmark": "sysbench"` with a `sysbench` table, or
    /// `"benchmark": "tpcc"` with a `tpcc` table.
    #[serde(flatten)]
    pub benchmark: Benchmark,
    /// Virtual clients per instance.
    pub clients: u32,
    /// Connections per instance: one per client, or fewer shared by all clients, each held
    /// only for the duration of a transaction.
    #[serde(default)]
    pub connections: u32,
    /// OS threads driving the network engines' clients; absent in results written before it
    /// was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_threads: Option<u32>,
    /// Open-model target rate per instance (transactions/s); absent = closed loop.
    pub rate: Option<f64>,
    pub prepare: PrepareMode,
    /// Attempts of one transaction before a retryable error stops the phase.
    pub max_attempts: u32,
    /// An instance without a completed transaction or an error for this long stops the run.
    #[serde(default = "PlanWorkload::default_stall_timeout_ms")]
    pub stall_timeout_ms: u64,
}

impl PlanWorkload {
    /// `workload.stall_timeout`'s default: a minute.
    pub const DEFAULT_STALL_TIMEOUT_MS: u64 = 60_000;

    fn default_stall_timeout_ms() -> u64 {
        Self::DEFAULT_STALL_TIMEOUT_MS
    }
}

/// `workload` as read back from plan.json or result.json. A sweep-only result written before
/// the database part became optional holds a placeholder: a sysbench workload of 0 clients
/// without a `sysbench` table; it reads as no workload.
fn read_workload<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PlanWorkload>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    let Some(value) = value else {
        return Ok(None);
    };
    let no_options = BenchmarkKind::ALL
        .iter()
        .all(|k| value.get(k.name()).is_none());
    if no_options && value.get("clients").and_then(|c| c.as_u64()) == Some(0) {
        return Ok(None);
    }
    PlanWorkload::deserialize(value)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

impl PlanWorkload {
    /// Sessions each instance opens for clients.
    pub fn connections(&self) -> u32 {
        if self.connections == 0 {
            self.clients
        } else {
            self.connections.min(self.clients)
        }
    }

    /// Whether clients share a pool of fewer connections.
    pub fn pooled(&self) -> bool {
        self.connections() < self.clients
    }

    /// One line saying what runs, e.g. "sysbench oltp_read_write, 4 tables x 10,000 rows".
    pub fn describe(&self) -> String {
        self.benchmark.describe(self.clients, self.connections())
    }
}

/// One `[[phase]]` as planned: when it starts, how long it runs, its rate and its rounds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PlanPhase {
    pub name: String,
    /// Offset from the start of the first phase.
    pub start_offset_ms: u64,
    pub duration_ms: u64,
    /// Counted in the recorded summary.
    pub record: bool,
    /// Its rounds: none, the steady-state end (`steady`), or the write cliff's (`cliff`).
    #[serde(flatten)]
    pub rounds: PhaseRounds,
    /// Open-loop transactions per second per instance for this phase (else the workload's
    /// pacing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
}

/// What a phase's rounds are for; in plan.json the key (`steady`, `cliff` or neither) says which.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum PhaseRounds {
    /// Ends as soon as its TPS is steady (at the latest after `duration_ms`).
    Steady { steady: PhaseSteady },
    /// Runs its duration; each round's p99 judged against the early level (the write cliff).
    Cliff { cliff: PhaseSteady },
    /// No rounds: the phase runs its duration.
    None {},
}

impl PhaseRounds {
    /// The steady-state end, when the phase has one.
    pub fn steady(&self) -> Option<PhaseSteady> {
        match self {
            PhaseRounds::Steady { steady } => Some(*steady),
            PhaseRounds::Cliff { .. } | PhaseRounds::None {} => None,
        }
    }

    /// The write cliff's rounds, when the phase watches for it.
    pub fn cliff(&self) -> Option<PhaseSteady> {
        match self {
            PhaseRounds::Cliff { cliff } => Some(*cliff),
            PhaseRounds::Steady { .. } | PhaseRounds::None {} => None,
        }
    }
}

/// The steady-state end of a phase: rounds of `round_ms` (a whole number of report
/// intervals), judged by `rule` (`max_rounds`: as many as the phase's maximum holds).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PhaseSteady {
    pub round_ms: u64,
    pub rule: drivebench_core::curve::steady::SteadyRule,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::sysbench::options::{SysbenchOptions, SysbenchTest};
    use crate::workload::tpcc::options::{TpccMix, TpccOptions, TpccPacing};

    fn workload(benchmark: Benchmark) -> PlanWorkload {
        PlanWorkload {
            benchmark,
            clients: 4,
            connections: 4,
            client_threads: Some(1),
            rate: None,
            prepare: PrepareMode::Auto,
            max_attempts: 100,
            stall_timeout_ms: PlanWorkload::DEFAULT_STALL_TIMEOUT_MS,
        }
    }

    #[test]
    fn the_benchmark_is_written_as_its_name_beside_its_options_only() {
        let tpcc = TpccOptions {
            warehouses: 2,
            pacing: TpccPacing::None,
            terminals_per_warehouse: 10,
            procedures: false,
            mix: TpccMix::Hammerdb,
            isolation: None,
        };
        let json = serde_json::to_value(workload(Benchmark::Tpcc { tpcc })).unwrap();
        assert_eq!(json["benchmark"], "tpcc");
        assert_eq!(json["tpcc"]["warehouses"], 2);
        assert_eq!(json["tpcc"]["mix"], "hammerdb");
        assert!(json.get("sysbench").is_none());
        assert_eq!(json["clients"], 4);
    }

    #[test]
    fn a_workload_reads_back_as_written() {
        let sysbench = SysbenchOptions::defaults(SysbenchTest::OltpPointSelect);
        let w = workload(Benchmark::Sysbench { sysbench });
        let back: PlanWorkload = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
        assert_eq!(back, w);
    }

    #[test]
    fn an_old_sweep_only_placeholder_reads_as_no_workload() {
        let old = serde_json::json!({"benchmark": "sysbench", "clients": 0, "connections": 0,
                                     "rate": null, "prepare": "never", "max_attempts": 1});
        assert_eq!(read_workload(old).unwrap(), None);
    }

    fn shared_keys() -> serde_json::Value {
        serde_json::json!({"name": "n", "scenario_file": "s.toml", "overrides": [],
                           "time_scale": 1.0, "seed": 1, "report_interval_ms": 1000,
                           "target_path": "/t"})
    }

    #[test]
    fn a_sweep_only_plan_is_written_without_workload_and_reads_back() {
        let plan: Plan = serde_json::from_value(shared_keys()).unwrap();
        assert!(plan.database.is_none());
        let json = serde_json::to_value(&plan).unwrap();
        assert!(json.get("workload").is_none() && json.get("estimates").is_none());
        assert_eq!(serde_json::from_value::<Plan>(json).unwrap(), plan);
    }

    fn quickstart_json() -> serde_json::Value {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/quickstart.toml");
        let plan = crate::scenario::load(&path, &[], 1.0).unwrap();
        assert!(plan.database.is_some());
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!(serde_json::from_value::<Plan>(json.clone()).unwrap(), plan);
        json
    }

    #[test]
    fn a_plan_with_instances_but_no_workload_is_refused() {
        let mut json = quickstart_json();
        json.as_object_mut().unwrap().remove("workload");
        let err = serde_json::from_value::<Plan>(json).unwrap_err();
        assert!(err.to_string().contains("without a workload"), "{err}");
    }

    #[test]
    fn a_plan_with_a_workload_but_no_instances_is_refused() {
        let mut json = quickstart_json();
        json["instances"] = serde_json::json!([]);
        let err = serde_json::from_value::<Plan>(json).unwrap_err();
        assert!(err.to_string().contains("needs `instances`"), "{err}");
    }

    #[test]
    fn a_workload_with_clients_but_no_options_is_refused_on_reading() {
        let json = serde_json::json!({"benchmark": "sysbench", "clients": 4, "connections": 4,
                                      "rate": null, "prepare": "auto", "max_attempts": 100});
        let err = read_workload(json).unwrap_err();
        assert!(
            err.to_string().contains("missing field `sysbench`"),
            "{err}"
        );
    }

    #[test]
    fn a_benchmark_without_its_options_is_refused() {
        let json = r#"{"benchmark": "tpcc", "clients": 4, "connections": 4, "rate": null,
                       "prepare": "auto", "max_attempts": 100}"#;
        let err = serde_json::from_str::<PlanWorkload>(json).unwrap_err();
        assert!(err.to_string().contains("missing field `tpcc`"), "{err}");
    }
}
