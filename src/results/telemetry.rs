//! What the drive and the host did during a phase, as result.json keeps it: the phase's
//! telemetry summed, the figures per transaction derived from it, the bottleneck verdict with
//! the figures that decided it, and the telemetry of every report interval.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::summary::Summary;
use crate::telemetry::{Bound, IntervalTelemetry, Totals, Verdict, VerdictInput, judge};

/// The telemetry of one report interval, at its end.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TelemetryRow {
    /// Seconds since the first phase started, as `series[].elapsed_s`.
    pub elapsed_s: f64,
    pub figures: IntervalTelemetry,
}

/// A phase's (or a curve point's) telemetry.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PhaseTelemetry {
    /// The whole phase: counts summed, shares over its length, peaks of memory.
    pub summary: IntervalTelemetry,
    /// Device figures per transaction and against TPS.
    pub derived: Derived,
    /// What held the phase back, and the figures that decided it.
    pub verdict: Verdict,
    /// One row per report interval (empty for a curve point).
    #[serde(default)]
    pub series: Vec<TelemetryRow>,
}

/// The drive's work per unit of database work. Absent where the target has no block device
/// or no transaction completed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Derived {
    pub tps: f64,
    /// Device reads and writes per second, all members.
    pub device_iops: Option<f64>,
    /// `device_iops` / `tps`.
    pub device_ios_per_tx: Option<f64>,
    pub device_read_bytes_per_tx: Option<f64>,
    pub device_written_bytes_per_tx: Option<f64>,
    /// Cache flushes per committed transaction (a durable commit costs at least one, unless
    /// commits are grouped or the engine does not flush).
    pub device_flushes_per_commit: Option<f64>,
}

impl PhaseTelemetry {
    /// Close a phase's telemetry: its intervals summed, `summary` of its transactions, and
    /// whether its clients were paced (open model), which makes late starts a figure.
    pub fn close(series: Vec<TelemetryRow>, summary: &Summary, paced: bool) -> Self {
        let mut totals = Totals::default();
        for row in &series {
            totals.add(&row.figures);
        }
        let mut t = Self::of_span(totals.summary(), summary, paced);
        t.series = series;
        t
    }

    /// The telemetry of one measured span without rows of its own (a curve point): `figures`
    /// sampled over it, `summary` of its transactions.
    pub fn of_span(figures: IntervalTelemetry, summary: &Summary, paced: bool) -> Self {
        let late_pct = (paced && summary.transactions > 0)
            .then(|| 100.0 * summary.late_wakes as f64 / summary.transactions as f64);
        PhaseTelemetry {
            verdict: judge(&VerdictInput::from_telemetry(&figures, late_pct)),
            derived: Derived::of(&figures, summary),
            summary: figures,
            series: Vec::new(),
        }
    }

    /// "drive-bound", "host-CPU-bound", … with the reason.
    pub fn verdict_line(&self) -> String {
        format!(
            "{}: {}",
            bound_name(self.verdict.bound),
            self.verdict.reason
        )
    }
}

/// How a bound reads in the outputs.
pub fn bound_name(b: Bound) -> &'static str {
    match b {
        Bound::DriveBound => "drive-bound",
        Bound::HostCpuBound => "host-CPU-bound",
        Bound::ClientBound => "client-bound",
        Bound::Unclear => "unclear",
    }
}

impl Derived {
    fn of(t: &IntervalTelemetry, s: &Summary) -> Self {
        let dev = t.device.as_ref().map(|d| &d.total);
        let tx = s.transactions as f64;
        let per_tx = |n: u64| (tx > 0.0).then(|| n as f64 / tx);
        let iops = dev.map(|d| d.read_ops_per_s + d.write_ops_per_s);
        Derived {
            tps: s.tps,
            device_iops: iops,
            device_ios_per_tx: dev.and_then(|d| per_tx(d.counts.reads + d.counts.writes)),
            device_read_bytes_per_tx: dev.and_then(|d| per_tx(d.counts.read_bytes)),
            device_written_bytes_per_tx: dev.and_then(|d| per_tx(d.counts.written_bytes)),
            device_flushes_per_commit: dev.and_then(|d| per_tx(d.counts.flushes)),
        }
    }
}
