//! What result.json keeps of a merge (`RunReport::merge`): the hosts, their clocks and each
//! phase's figures per host.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use drivebench_system::telemetry::clock::ClockState;

/// How `merge` combined the hosts, and what each host measured.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MergeReport {
    pub hosts: Vec<MergedHost>,
    /// Latest minus earliest host's phase-clock start, seconds.
    pub start_skew_s: f64,
    pub phases: Vec<MergedPhase>,
    /// How the figures were combined.
    pub rules: String,
}

/// One host's run in a merge.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MergedHost {
    /// Its label: `--label`, else its host name (its run directory's name when host names repeat).
    pub label: String,
    /// Its run directory as given to `merge`.
    pub run_dir: String,
    pub hostname: String,
    /// Its run ran every phase to its end.
    pub complete: bool,
    /// Why it stopped early, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When its phase clock started (RFC 3339 UTC), and how late against `--start-at`.
    pub phases_started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_by_s: Option<f64>,
    /// Its start after the earliest host's, seconds.
    pub skew_s: f64,
    pub clock: ClockState,
}

/// A phase's common window and each host's figures in it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MergedPhase {
    pub phase: String,
    /// Seconds every host was in the phase: from the latest start to the earliest end.
    pub common_window_s: f64,
    pub hosts: Vec<HostPhase>,
}

/// One host's figures of a phase (all its instances).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HostPhase {
    pub label: String,
    pub transactions: u64,
    pub tps: f64,
    pub latency_avg_ms: f64,
    pub latency_p99_ms: f64,
    /// TPC-C phases: its tpmC and NOPM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpmc: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nopm: Option<f64>,
    /// Its engines' own I/O figures over the phase (all its instances), when sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_io: Option<drivebench_core::engine_io::EngineIoFigures>,
    /// Its drive's health over the phase (each host has its own drive), when read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<crate::results::health::PhaseHealth>,
    /// Its write cliff over the phase (each host's drive has its own), when the phase is a
    /// cliff phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliff: Option<crate::results::cliff::PhaseCliffReport>,
}

pub const RULES: &str = "TPS and TPC-C tpmC/NOPM: the hosts' figures summed; latency: percentiles of the hosts' histograms merged; counts summed; series rows moved onto the earliest host's clock and rounded to the report interval; engine I/O: per host as measured, in total rates summed and ratios weighted by transactions; drive health and write cliffs per host, never combined; load curves and sweeps are kept per host.";
