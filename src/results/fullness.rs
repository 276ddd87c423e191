//! A fullness run's table (fullness.json): one row per fill level, with the figures of the run
//! it made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::run::RunReport;

/// A fullness run's table (fullness.json): one row per level, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FullnessReport {
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
    /// Bytes of its fill file; absent when the run did not get as far.
    pub fill_bytes: Option<u64>,
    /// Of the last recorded phase, all instances.
    pub tps: Option<f64>,
    pub p99_ms: Option<f64>,
    /// What limited the last recorded phase (drive, host_cpu, client, unclear), or how the
    /// run ended when it did not complete.
    pub verdict: String,
}

impl FullnessRow {
    /// The row of a level's finished run.
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
        FullnessRow {
            level_pct,
            run_dir,
            fill_bytes: run
                .start_state
                .as_ref()
                .and_then(|s| s.fill.as_ref())
                .map(|f| f.bytes),
            tps: phase.map(|p| p.summary.tps),
            p99_ms: phase.map(|p| p.summary.latency_ms.p99),
            verdict,
        }
    }
}
