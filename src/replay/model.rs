//! What a replay reports, as plain data for result.json: the timing, the target and the span
//! of it used, what was replayed, latency (from the intended issue time: what the database
//! would have waited), service time and schedule lag summaries in microseconds per operation
//! and per file class, one row per second, the fidelity judgement, and the HDR histograms
//! (µs, `drivebench_core::histogram::encode`) so `compare` can merge replays later.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::fidelity::Fidelity;
use crate::capture::{CapturedDevice, CapturedPhase};

/// Latency figures in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencyUs {
    pub count: u64,
    /// Exact, from nanosecond sums.
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

/// One second of the replay (from its start).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SecondRow {
    pub second: u64,
    /// Requests submitted in this second.
    pub issued: u64,
    /// Requests completed in this second.
    pub completed: u64,
    /// Bytes read and written by the requests completed in this second, MiB/s.
    pub mib_per_s: f64,
    /// Schedule lag p99 of the requests submitted in this second, µs.
    pub lag_p99_us: u64,
    /// Latency p99 (from the intended issue time) of the requests completed in this second,
    /// per operation that completed any, µs.
    pub latency_p99_us: BTreeMap<String, u64>,
}

/// Whether the replay target is a file or a block device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplayTargetKind {
    File,
    BlockDevice,
}

/// The target of a replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplayTarget {
    pub path: String,
    pub kind: ReplayTargetKind,
    /// Usable bytes of the target.
    pub size_bytes: u64,
    /// Bytes the remapped capture spans, from offset 0.
    pub span_bytes: u64,
    /// Direct-I/O alignment of offsets and lengths, bytes.
    pub align_bytes: u64,
}

/// The encoded HDR histograms (µs) of a replay, by operation or file class name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplayHistograms {
    pub latency_by_op: BTreeMap<String, String>,
    pub latency_by_class: BTreeMap<String, String>,
    pub service_by_op: BTreeMap<String, String>,
    pub lag: String,
}

/// The capture a replay came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplaySource {
    /// The capture's directory; empty when the requests did not come from one.
    pub capture_dir: String,
    /// SHA-256 of the capture's trace.dbc: replays of one capture share it.
    #[serde(default)]
    pub trace_sha256: String,
    /// The traced devices.
    pub devices: Vec<CapturedDevice>,
    /// The captured phases.
    pub phases: Vec<CapturedPhase>,
    /// Events the kernel dropped while capturing (the capture is incomplete when not 0).
    pub lost_events: u64,
    /// Requests issued in each second of the recording, from its first request.
    pub recorded_per_second: Vec<u64>,
}

/// The replay's section of result.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReplayReport {
    /// "recorded", "scaled" or "fast".
    pub timing: String,
    /// The speed of scaled timing (1 when recorded; absent when fast).
    pub speed: Option<f64>,
    /// The cap on requests in flight.
    pub max_in_flight: u32,
    pub target: ReplayTarget,
    /// The capture replayed.
    #[serde(default)]
    pub source: ReplaySource,
    /// Requests in the capture.
    pub requests_total: u64,
    /// Requests replayed (submitted and completed).
    pub requests: u64,
    /// Data bytes of the replayed requests (reads, writes, discards).
    pub bytes: u64,
    /// From the first submission to the last completion, seconds.
    pub seconds: f64,
    /// The replay stopped before its last request (cancelled).
    pub interrupted: bool,
    /// Whether buffers were registered with the ring (fixed-buffer reads and writes).
    pub registered_buffers: bool,
    /// Completion − intended issue time, per operation that occurred.
    pub latency_us: BTreeMap<String, LatencyUs>,
    /// Completion − intended issue time, per file class that occurred.
    pub latency_by_class_us: BTreeMap<String, LatencyUs>,
    /// Completion − submission, per operation that occurred.
    pub service_us: BTreeMap<String, LatencyUs>,
    /// Submission − intended issue time.
    pub lag_us: LatencyUs,
    pub per_second: Vec<SecondRow>,
    pub fidelity: Fidelity,
    pub histograms: ReplayHistograms,
    /// What limited the replay (drive, host CPU, ...), from the telemetry; set by the caller.
    #[serde(default)]
    pub verdict: Option<drivebench_system::telemetry::Verdict>,
    /// The drive's and host's figures over the replay; set by the caller.
    #[serde(default)]
    pub telemetry: Option<drivebench_system::telemetry::IntervalTelemetry>,
}
