//! A fullness run's table (fullness.json): one row per fill level, with the figures of the run
//! it made — a scenario's last recorded phase, or a sweep's profiles.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::run::RunReport;

/// A fullness run's table (fullness.json): one row per level, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FullnessReport {
    /// The scenario's name, or "sweep" for `drivebench sweep --fullness`.
    pub scenario: String,
    pub device: String,
    pub levels: Vec<FullnessRow>,
}

/// One level of a fullness run: its fill and its run's recorded figures.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FullnessRow {
    /// The fill level, % of the device.
    pub level_pct: f64,
    /// Its run directory, relative to the fullness run's.
    pub run_dir: String,
    /// Bytes of its fill; absent when the run did not get as far.
    pub fill_bytes: Option<u64>,
    /// What limited the last recorded phase (drive, host_cpu, client, unclear), "complete"
    /// (a sweep, or no verdict), or how the run ended when it did not complete.
    pub verdict: String,
    /// What the level's run measured.
    #[serde(flatten)]
    pub measured: LevelFigures,
}

/// A level's figures: a database run's or a sweep's.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LevelFigures {
    /// The last recorded phase, all instances; absent when the run measured none.
    Database {
        tps: Option<f64>,
        p99_ms: Option<f64>,
    },
    /// Each swept profile's uncontrolled (max) run.
    Sweep { profiles: Vec<LevelProfile> },
}

/// A profile's max run at one level.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct LevelProfile {
    pub profile: String,
    pub iops: f64,
    pub mib_s: f64,
    /// From each I/O's intended start, µs.
    pub p99_us: f64,
}

impl FullnessRow {
    /// The row of a level's finished run: its sweeps' when it swept and ran no phase, else
    /// its last recorded phase's.
    pub fn of(level_pct: f64, run_dir: String, run: &RunReport) -> FullnessRow {
        let phase = run.phases.iter().rev().find(|p| p.recorded);
        let bound = phase
            .and_then(|p| p.telemetry.as_ref())
            .and_then(|t| serde_json::to_value(t.verdict.judged().bound).ok())
            .and_then(|v| v.as_str().map(str::to_owned));
        let verdict = match (run.status.is_complete(), bound) {
            (true, Some(bound)) => bound,
            (true, None) => "complete".to_owned(),
            (false, _) => serde_json::to_value(run.status.name())
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
        };
        let measured = match (run.plan.database.is_none(), phase) {
            (true, _) => LevelFigures::Sweep {
                profiles: sweep_profiles(run),
            },
            (false, phase) => LevelFigures::Database {
                tps: phase.map(|p| p.summary.tps),
                p99_ms: phase.map(|p| p.summary.latency_ms.p99),
            },
        };
        FullnessRow {
            level_pct,
            run_dir,
            fill_bytes: run
                .start_state
                .as_ref()
                .and_then(|s| s.fill.as_ref())
                .map(|f| f.bytes),
            verdict,
            measured,
        }
    }
}

/// Each swept profile's max point.
fn sweep_profiles(run: &RunReport) -> Vec<LevelProfile> {
    (run.sweeps.iter())
        .filter_map(|s| {
            let max = s.points.iter().find(|p| p.kind == "max")?;
            Some(LevelProfile {
                profile: s.profile.clone(),
                iops: max.iops,
                mib_s: max.mib_s,
                p99_us: max.latency_us.p99,
            })
        })
        .collect()
}
