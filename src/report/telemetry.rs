//! What the drive and the host did during a phase, as result.json keeps it: the phase's
//! telemetry summed, the figures per transaction derived from it, the bottleneck verdict with
//! the figures that decided it, and the telemetry of every report interval.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::summary::Summary;
use drivebench_system::telemetry::{
    Bound, IntervalTelemetry, Totals, Verdict, VerdictInput, judge,
};

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

/// summary.md's lines for a phase with telemetry: the verdict and its deciding figures, the
/// drive's figures and per transaction, the host's CPU.
pub fn markdown(s: &mut String, t: &PhaseTelemetry) {
    use std::fmt::Write;
    let v = &t.verdict;
    let _ = writeln!(
        s,
        "\nWhat limited it: **{}** — {}\n",
        bound_name(v.bound),
        v.reason
    );
    let _ = writeln!(s, "| figure | value | threshold |\n|---|---:|---:|");
    for f in &v.deciding {
        let limit = f
            .threshold
            .map_or("-".into(), |x| format!("{x:.1} {}", f.unit));
        let _ = writeln!(s, "| {} | {:.1} {} | {limit} |", f.name, f.value, f.unit);
    }
    let _ = writeln!(s);
    if let Some(line) = drive_line(t) {
        let _ = writeln!(s, "- Drive: {line}");
    }
    if let Some(line) = host_line(&t.summary) {
        let _ = writeln!(s, "- Host: {line}");
    }
}

/// The drive's figures over the phase, and per transaction.
pub fn drive_line(t: &PhaseTelemetry) -> Option<String> {
    let dev = &t.summary.device.as_ref()?.total;
    let d = &t.derived;
    let await_ms = dev.await_ms().map_or("-".into(), |a| format!("{a:.2} ms"));
    let per_tx = match (d.device_ios_per_tx, d.device_written_bytes_per_tx) {
        (Some(ios), Some(written)) => format!(
            "; per transaction {ios:.2} I/Os, {:.1} KiB written, {:.2} flushes",
            written / 1024.0,
            d.device_flushes_per_commit.unwrap_or(0.0)
        ),
        _ => String::new(),
    };
    Some(format!(
        "{} — {:.0} reads/s {:.1} MiB/s, {:.0} writes/s {:.1} MiB/s, await {await_ms}, aqu-sz {:.2}, util {:.0} %, {:.1} flushes/s{per_tx}",
        dev.devices.join("+"),
        dev.read_ops_per_s,
        dev.read_mib_per_s,
        dev.write_ops_per_s,
        dev.write_mib_per_s,
        dev.aqu_sz,
        dev.util_pct,
        dev.flushes_per_s,
    ))
}

/// Host CPU shares, drivebench's and the servers' CPU.
pub fn host_line(t: &IntervalTelemetry) -> Option<String> {
    let c = t.cpu.as_ref()?;
    let mut line = format!(
        "CPU busy {:.0} % (user {:.0}, system {:.0}, iowait {:.0}, steal {:.0})",
        c.busy_pct, c.user_pct, c.system_pct, c.iowait_pct, c.steal_pct
    );
    for p in t.own_process.iter().chain(&t.processes) {
        line += &format!(", {} {:.0} % of a core", p.name, p.cpu_pct);
    }
    Some(line)
}
