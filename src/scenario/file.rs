//! The scenario file as written: serde types mirroring the TOML keys one to one, with
//! `deny_unknown_fields` everywhere. Numbers that must be positive are read as signed so a
//! negative value gets a precise message from validation instead of a type error.
//! `[instance.config]` stays a TOML table here, read per engine later; its schema is the
//! engine's settings type, chosen by `engine`.

use crate::engines::{self, EngineKind};
use crate::workload::section::WorkloadSection;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// A whole evaluation: target, engine instances, workload and phases.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name of the scenario: letters, digits, `.`, `_` and `-`, at most 200 characters; used
    /// in the default run directory name.
    pub name: String,
    /// Interval between live lines and series rows, e.g. "10s". Default "10s".
    pub report_interval: Option<String>,
    /// Seed of every random stream (per instance and client). Default 1.
    pub seed: Option<i64>,
    /// The drive under test.
    #[serde(default)]
    pub target: TargetSection,
    /// Engine instances, one table per engine kind.
    pub instance: Vec<InstanceSection>,
    /// What every virtual client does.
    pub workload: WorkloadSection,
    /// Phases run in order.
    pub phase: Vec<PhaseSection>,
    /// Synthetic I/O sweeps, run after the phases.
    #[serde(default)]
    pub sweep: Vec<super::sweep::SweepSection>,
    /// A load curve after the phases (at most one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curve: Vec<super::curve::CurveSection>,
    /// Capture the block requests the target's drive sees during some phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<super::capture::CaptureSection>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetSection {
    /// A directory on the drive under test. Default "./drivebench-target". With `device`: the
    /// directory the device's new filesystem is mounted on (absent or empty).
    pub path: Option<String>,
    /// A whole block device the run owns, brought to a known start before the load: purged,
    /// a filesystem made on it without discard, mounted on `path`, filled. Its data is lost.
    pub device: Option<String>,
    /// Confirms that `device`'s data is destroyed (purge, mkfs). Default false.
    pub destroy_data: Option<bool>,
    /// How `device` is purged first: "discard" (every block, BLKDISCARD; default), "none",
    /// or, for an NVMe namespace only, "format" (NVMe Format NVM with a user data erase) or
    /// "sanitize" (NVMe Sanitize of the whole controller, which must have no other namespace).
    pub purge: Option<PurgeSection>,
    /// The filesystem made on `device` without discard: "ext4" (default) or "xfs".
    pub filesystem: Option<drivebench_system::target::device_state::Filesystem>,
    /// A share of `device`'s capacity written as incompressible data into a fill file on the
    /// new filesystem before the load, e.g. "50%"; below 100 %.
    pub fill: Option<String>,
    /// Fill levels to run the whole scenario at, one run each, e.g. ["25%", "50%", "75%",
    /// "90%"]: increasing, each below 100 %. Not with `fill`.
    pub fullness: Option<Vec<String>>,
}

/// `target.purge` as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PurgeSection {
    /// Discard every block of the device (BLKDISCARD).
    Discard,
    /// Leave the blocks as they are.
    None,
    /// NVMe Format NVM of the namespace with a user data erase (Secure Erase Settings 001b),
    /// keeping its LBA format and protection settings. An NVMe namespace only.
    Format,
    /// NVMe Sanitize of the whole controller: block erase, else crypto erase, waited for.
    /// An NVMe namespace only, the controller's only one.
    Sanitize,
}

/// How an instance comes to exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Provision {
    /// Started privately by drivebench with its data on the target.
    Local,
    /// An existing server reached through `url`.
    External,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InstanceSection {
    pub engine: EngineKind,
    /// Identical instances side by side. Default 1.
    pub count: Option<i64>,
    /// Default "local".
    pub provision: Option<Provision>,
    /// External servers: "mysql://user@host:port/db" (no password in it). TLS is asked for
    /// in it: `ssl-mode=` and `ssl-ca=` (MySQL, MariaDB), `sslmode=` and `sslrootcert=`
    /// (PostgreSQL), `encrypt=` (SQL Server); off by default for MySQL and PostgreSQL.
    pub url: Option<String>,
    /// External servers: environment variable holding the password.
    pub password_env: Option<String>,
    /// External servers: file holding the password.
    pub password_file: Option<String>,
    /// Local servers: leave them running after the run (prints how to connect). Default false.
    pub keep_running: Option<bool>,
    /// Local servers: keep the data directory after the run. Default false.
    pub keep_data: Option<bool>,
    /// Local servers: directory of pre-built databases copied onto the target instead of loading.
    pub prebuilt_dir: Option<String>,
    /// Engine settings, read per engine by `EngineConfig::from_table`; in the schema, the
    /// settings type of the instance's engine (`config_schema`).
    #[schemars(flatten, schema_with = "config_schema")]
    pub config: Option<toml::Table>,
}

/// `config`'s part of the `[[instance]]` schema: the key itself, and for each engine kind "if
/// `engine` is this kind, `config` is its settings type", so that an unknown setting fails
/// validation as it fails `drivebench plan`.
fn config_schema(generator: &mut SchemaGenerator) -> Schema {
    let per_engine: Vec<serde_json::Value> = engines::settings_schemas(generator)
        .into_iter()
        .map(|(kind, settings)| {
            serde_json::json!({
                "if": {
                    "properties": { "engine": { "const": kind.as_str() } },
                    "required": ["engine"]
                },
                "then": { "properties": { "config": settings } }
            })
        })
        .collect();
    json_schema!({
        "properties": {
            "config": {
                "description": "Engine settings, read per `engine`: the scenario JSON Schema \
                                gives each engine's settings type with its keys, and any \
                                other key is refused.",
                "type": "object"
            }
        },
        "allOf": per_engine
    })
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseSection {
    pub name: String,
    /// e.g. "2h", "30s"; the longest the phase may run when `until = "steady"`.
    pub duration: String,
    /// Whether the phase counts in the recorded summary. Default true.
    pub record: Option<bool>,
    /// When the phase ends: after its `duration` (default), or as soon as the TPS of its
    /// rounds is steady (`steady`), at the latest after its `duration`.
    pub until: Option<PhaseUntil>,
    /// The steady-state rule of an `until = "steady"` phase, or the rounds of a `cliff`
    /// phase; defaults as the SNIA rule's.
    pub steady: Option<SteadySection>,
    /// Open-loop transactions per second per instance for this phase: arrivals on a Poisson
    /// schedule shared by the instance's clients, whether or not they keep up (a late start
    /// is counted and its wait is in the response time). Default: the workload's pacing.
    pub rate: Option<f64>,
    /// Watch for the write cliff: the p99 of each round (`[phase.steady]`'s round) against
    /// the early level of the first `window` rounds, with the drive's writes and the host's
    /// cumulative bytes written. A recorded phase at a fixed load (`rate`, `workload.rate` or
    /// TPC-C spec pacing), not with `until = "steady"`. Default false.
    pub cliff: Option<bool>,
}

/// When a phase ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PhaseUntil {
    /// After its `duration`.
    Duration,
    /// When the TPS of its last `window` rounds is steady, or after its `duration`.
    Steady,
}

/// The steady-state rule of a database phase: the TPS of each round (all instances together)
/// is steady when, over the last `window` rounds, max − min is within `max_range_pct` of their
/// average and the least-squares slope times `window − 1` rounds within `max_slope_pct`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteadySection {
    /// Length of one round, a whole multiple of `report_interval`. Default "1m".
    pub round: Option<String>,
    /// Rounds in the measurement window. Default 5.
    pub window: Option<i64>,
    /// Largest allowed max − min of the window, % of its average. Default 20.
    pub max_range_pct: Option<f64>,
    /// Largest allowed slope excursion over the window, % of its average. Default 10.
    pub max_slope_pct: Option<f64>,
}
