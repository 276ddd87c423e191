//! Sweep results as result.json carries them (`sweeps[]`): each profile's points, its
//! latency objective's answer and the drive's own count of each point.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::curve::SloResult;
use crate::io::sweep::{PointKind, SteadyReport, SweepResult};

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct LatencyUs {
    pub avg: f64,
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SweepPointReport {
    /// "max" (the uncontrolled run), "curve", "slo" (a search step) or "fixed" (the one point
    /// of a sweep at a fixed rate).
    pub kind: String,
    /// Percent of the maximum asked for (curve points).
    pub target_pct: Option<f64>,
    pub target_iops: Option<f64>,
    pub iops: f64,
    pub mib_s: f64,
    pub mb_s: f64,
    /// From each I/O's intended start (coordinated-omission correct).
    pub latency_us: LatencyUs,
    /// Submit to complete.
    pub service_latency_us: LatencyUs,
    pub outstanding_mean_ios: f64,
    /// IOPS x mean latency: should agree with the observed mean.
    pub outstanding_littles_law_ios: f64,
    pub cpu_pct: f64,
    pub sustainable: bool,
    pub backlog_end_ios: u64,
    /// Length of the recorded window.
    #[serde(default)]
    pub elapsed_s: f64,
    /// I/Os completed in the recorded window.
    #[serde(default)]
    pub ios: u64,
    /// Mean transfer size.
    #[serde(default)]
    pub bytes_per_io: f64,
    /// Reads among the I/Os, in percent (as issued; the profile's `read_pct` is what was asked).
    #[serde(default)]
    pub read_share_pct: f64,
    /// What the drive under the target counted over the point (warm-up included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<PointDevice>,
}

/// The drive's own count of a sweep point: a cache that answers reads, or a layer that splits
/// or merges requests, shows up as device IOPS away from the tool's.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PointDevice {
    /// The devices counted (the physical members under the target).
    pub devices: Vec<String>,
    pub device_read_iops: f64,
    pub device_write_iops: f64,
    pub device_mib_s: f64,
    pub device_await_ms: Option<f64>,
    pub device_aqu_sz: f64,
    /// Device IOPS (reads + writes) as % of the tool's.
    pub device_vs_tool_pct: Option<f64>,
}

impl PointDevice {
    /// The drive's figures of `t` against the tool's `iops`; None without a block device.
    pub fn of(t: &crate::telemetry::IntervalTelemetry, iops: f64) -> Option<Self> {
        let d = &t.device.as_ref()?.total;
        let device_iops = d.read_ops_per_s + d.write_ops_per_s;
        Some(PointDevice {
            devices: d.devices.clone(),
            device_read_iops: d.read_ops_per_s,
            device_write_iops: d.write_ops_per_s,
            device_mib_s: d.read_mib_per_s + d.write_mib_per_s,
            device_await_ms: d.await_ms(),
            device_aqu_sz: d.aqu_sz,
            device_vs_tool_pct: (iops > 0.0).then(|| 100.0 * device_iops / iops),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SweepReport {
    pub profile: String,
    pub definition: String,
    pub engine: String,
    /// The profile's load and mix as asked for.
    #[serde(default)]
    pub threads: u32,
    #[serde(default)]
    pub depth: u32,
    #[serde(default)]
    pub read_pct: u8,
    #[serde(default)]
    pub random_pct: u8,
    /// IOPS of the uncontrolled run (0 when the sweep ran one point at a fixed rate).
    pub max_iops: f64,
    pub points: Vec<SweepPointReport>,
    pub slo: Option<SloResult>,
    /// The SNIA steady-state precondition, when one ran.
    pub steady: Option<SteadyReport>,
    pub stopped_early: bool,
    /// The file or device swept.
    #[serde(default)]
    pub target: Option<String>,
    /// The drive under it (model, serial, firmware, capacity, block sizes, rotational).
    #[serde(default)]
    pub device: Option<crate::target::DeviceIdentity>,
}

impl SweepReport {
    pub fn from_result(r: &SweepResult) -> Self {
        let lat = |l: &crate::io::LatencySummaryUs| LatencyUs {
            avg: l.avg,
            p50: l.p50 as f64,
            p99: l.p99 as f64,
            p999: l.p999 as f64,
            max: l.max as f64,
        };
        SweepReport {
            profile: r.profile.clone(),
            definition: r.definition.clone(),
            engine: r
                .points
                .first()
                .map(|p| match p.result.engine {
                    crate::io::IoEngineKind::IoUring => "io_uring",
                    crate::io::IoEngineKind::Psync => "psync",
                })
                .unwrap_or_default()
                .to_string(),
            threads: r.threads,
            depth: r.depth,
            read_pct: r.read_pct,
            random_pct: r.random_pct,
            max_iops: r.max_iops,
            points: r
                .points
                .iter()
                .map(|p| SweepPointReport {
                    kind: match p.kind {
                        PointKind::Max => "max",
                        PointKind::Curve => "curve",
                        PointKind::Slo => "slo",
                        PointKind::Fixed => "fixed",
                        PointKind::SteadyRound => "steady_round",
                    }
                    .into(),
                    target_pct: p.target_pct,
                    target_iops: p.result.target_iops,
                    iops: p.result.iops,
                    mib_s: p.result.mib_s,
                    mb_s: p.result.mb_s,
                    latency_us: lat(&p.result.schedule_latency_us),
                    service_latency_us: lat(&p.result.service_latency_us),
                    outstanding_mean_ios: p.result.mean_outstanding_ios,
                    outstanding_littles_law_ios: p.result.littles_law_outstanding_ios,
                    cpu_pct: p.result.cpu_pct,
                    sustainable: p.sustainable,
                    backlog_end_ios: p.result.backlog_end_ios,
                    elapsed_s: p.result.elapsed_secs,
                    ios: p.result.ios,
                    bytes_per_io: p.result.bytes as f64 / p.result.ios.max(1) as f64,
                    device: None,
                    read_share_pct: p.result.read_ios as f64 * 100.0 / p.result.ios.max(1) as f64,
                })
                .collect(),
            slo: r.slo,
            steady: r.steady.clone(),
            stopped_early: r.stopped_early,
            target: None,
            device: None,
        }
    }
}
