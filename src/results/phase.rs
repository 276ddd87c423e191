//! A phase as result.json keeps it: its summary over every instance and per instance, its
//! histogram, one series row per report interval and instance, and what the phase-closing
//! computations add (TPC-C figures, telemetry, the engines' I/O figures, the steady-state
//! rounds, the write cliff's rounds).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::summary::{MeanOfInstances, Summary};
use crate::workload::hooks::PhaseFigures;
use crate::workload::views::{MergedFigures, PhaseFiguresView, PhaseView};
use drivebench_system::health::interval::ThrottleMark;

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
    pub tpcc: Option<crate::workload::tpcc::figures::TpccPhase>,
    /// What the drive and the host did, and what held the phase back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<crate::results::telemetry::PhaseTelemetry>,
    /// A phase with `until = "steady"`: its rounds and whether it became steady.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<crate::results::steady::PhaseSteadyReport>,
    /// A phase with `cliff = true`: its rounds against the bytes written, and whether its p99
    /// departed from the early level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliff: Option<crate::results::cliff::PhaseCliffReport>,
    /// The engines' own I/O figures (log flushes, data reads, background writes) per
    /// instance, in total and per report interval; absent without telemetry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_io: Option<crate::results::engine_io::SpanEngineIo>,
    /// The drive's health log before and after the phase with what changed, or why there is
    /// none; absent in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<crate::results::health::PhaseHealth>,
}

impl PhaseReport {
    /// The benchmark's own figures of the phase.
    pub fn figures(&self) -> PhaseFiguresView<'_> {
        PhaseFiguresView {
            tpcc: self.tpcc.as_ref(),
        }
    }

    /// The phase as its benchmark's sections read it.
    pub fn view(&self) -> PhaseView<'_> {
        PhaseView {
            name: &self.name,
            summary: &self.summary,
            figures: self.figures(),
        }
    }

    /// A recorded phase's figures from its benchmark's hooks, kept where result.json keeps them.
    pub fn keep(&mut self, figures: PhaseFigures) {
        match figures {
            PhaseFigures::Tpcc(tpcc) => self.tpcc = Some(tpcc),
        }
    }

    /// The benchmark's figures of the phase replaced (by a merge's).
    pub fn set_figures(&mut self, f: MergedFigures) {
        self.tpcc = f.tpcc;
    }

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
    /// Whether the drive throttled in the interval, from its health log read at the
    /// interval's boundaries; absent when it was not read (no log, a failed read, older
    /// results).
    #[serde(default, skip_serializing_if = "ThrottleMark::is_not_read")]
    pub drive_throttle: ThrottleMark,
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
            drive_throttle: ThrottleMark::NotRead,
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
