//! Sweep results as result.json carries them (`sweeps[]`), as sweeps.csv rows (one per point,
//! vdbench-flatfile-like columns), as report.html sections (a latency-vs-IOPS chart per
//! profile, with its latency objective and unsustainable points marked, and its table) and as
//! summary.md tables.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::svg::{Chart, Marks, Scale, Series, escape, render, slo_marks};
use drivebench_core::curve::SloResult;
use drivebench_system::io::sweep::{PointKind, SteadyReport, SweepResult};

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
    pub fn of(t: &drivebench_system::telemetry::IntervalTelemetry, iops: f64) -> Option<Self> {
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
    pub device: Option<drivebench_system::target::DeviceIdentity>,
}

impl SweepReport {
    pub fn from_result(r: &SweepResult) -> Self {
        let lat = |l: &drivebench_system::io::LatencySummaryUs| LatencyUs {
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
                    drivebench_system::io::IoEngineKind::IoUring => "io_uring",
                    drivebench_system::io::IoEngineKind::Psync => "psync",
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

/// Like vdbench's flatfile: requested and achieved rate, MiB/s and MB/s, latency from the
/// intended start and service time, queue depth observed and by Little's law, CPU, and the
/// point's settings (xfersize as bytes per I/O, threads, depth, rdpct, seekpct).
pub const CSV_HEADER: &str = "profile,kind,target_pct,target_iops,iops,mib_s,mb_s,lat_avg_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,service_avg_us,service_p99_us,outstanding_mean,outstanding_littles_law,cpu_pct,sustainable,elapsed_s,ios,bytes_per_io,read_share_pct,threads,depth,rdpct,seekpct";

/// sweeps.csv: the header and one line per point of every sweep.
pub fn csv(sweeps: &[SweepReport]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    let opt = |v: Option<f64>| v.map(|v| format!("{v:.1}")).unwrap_or_default();
    for w in sweeps {
        for p in &w.points {
            let _ = writeln!(
                s,
                "{},{},{},{},{:.1},{:.2},{:.2},{:.1},{:.0},{:.0},{:.0},{:.0},{:.1},{:.0},{:.2},{:.2},{:.1},{},{:.3},{},{:.0},{:.1},{},{},{},{}",
                w.profile,
                p.kind,
                opt(p.target_pct),
                opt(p.target_iops),
                p.iops,
                p.mib_s,
                p.mb_s,
                p.latency_us.avg,
                p.latency_us.p50,
                p.latency_us.p99,
                p.latency_us.p999,
                p.latency_us.max,
                p.service_latency_us.avg,
                p.service_latency_us.p99,
                p.outstanding_mean_ios,
                p.outstanding_littles_law_ios,
                p.cpu_pct,
                p.sustainable,
                p.elapsed_s,
                p.ios,
                p.bytes_per_io,
                p.read_share_pct,
                w.threads,
                w.depth,
                w.read_pct,
                w.random_pct
            );
        }
    }
    s
}

/// ", maximum N IOPS" when the sweep measured one.
fn max_text(w: &SweepReport) -> String {
    if w.points.iter().any(|p| p.kind == "max") {
        format!(", maximum {:.0} IOPS", w.max_iops)
    } else {
        String::new()
    }
}

/// A point's name in tables: "max", "50 %", "slo", "fixed".
pub fn point_name(p: &SweepPointReport) -> String {
    match (p.kind.as_str(), p.target_pct) {
        ("curve", Some(pct)) => format!("{pct} %"),
        (kind, _) => kind.to_string(),
    }
}

/// summary.md section: per profile one table of its points.
pub fn markdown(s: &mut String, sweeps: &[SweepReport]) {
    for w in sweeps {
        let _ = writeln!(
            s,
            "\n## I/O sweep {}\n\n{} — engine {}{}{}\n",
            w.profile,
            w.definition,
            w.engine,
            max_text(w),
            if w.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        );
        let _ = writeln!(
            s,
            "| point | target IOPS | IOPS | MiB/s | MB/s | avg µs | p99 µs | p99.9 µs | max µs | sustained |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        );
        for p in &w.points {
            let _ = writeln!(
                s,
                "| {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {:.0} | {} |",
                point_name(p),
                p.target_iops
                    .map(|t| format!("{t:.0}"))
                    .unwrap_or_else(|| "-".into()),
                p.iops,
                p.mib_s,
                p.mb_s,
                p.latency_us.avg,
                p.latency_us.p99,
                p.latency_us.p999,
                p.latency_us.max,
                if p.sustainable { "yes" } else { "no" }
            );
        }
    }
    if !sweeps.is_empty() {
        let _ = writeln!(
            s,
            "\nSweep latency is measured from each I/O's intended start (coordinated-omission correct); MiB/s = 2^20 bytes/s, MB/s = 10^6 bytes/s."
        );
    }
}

/// report.html section: per profile the latency-vs-IOPS curve (avg and p99) and its table.
pub fn html(s: &mut String, sweeps: &[SweepReport]) {
    if sweeps.is_empty() {
        return;
    }
    s.push_str("<h2>I/O sweeps</h2>");
    for w in sweeps {
        let _ = write!(
            s,
            "<h3>{}</h3><p>{} — engine {}{}{}</p>",
            escape(&w.profile),
            escape(&w.definition),
            escape(&w.engine),
            max_text(w),
            if w.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        );
        s.push_str(&html_chart(w));
        html_table(s, w);
        if let Some(st) = &w.steady {
            html_steady(s, st);
        }
        if let Some(slo) = &w.slo {
            let _ = write!(
                s,
                "<p>Highest IOPS with p99 ≤ {} ms: {}</p>",
                slo.p99_ms,
                slo.max_rate
                    .map(|r| format!("{r:.0}"))
                    .unwrap_or_else(|| "none of the rates tried".into())
            );
        }
    }
}

/// A profile's latency-vs-IOPS chart: avg and p99 of its curve (or fixed) points, its latency
/// objective, and the points that did not keep up.
fn html_chart(w: &SweepReport) -> String {
    let curve: Vec<&SweepPointReport> = w
        .points
        .iter()
        .filter(|p| p.kind == "curve" || p.kind == "fixed")
        .collect();
    let line = |name: &str, f: fn(&SweepPointReport) -> f64, dashed: bool| Series {
        name: name.into(),
        points: curve.iter().map(|p| (p.iops, f(p) / 1000.0)).collect(),
        dashed,
    };
    let (levels, markers) = w
        .slo
        .as_ref()
        .map(|slo| slo_marks(slo, "IOPS"))
        .unwrap_or_default();
    let unsustainable = curve
        .iter()
        .filter(|p| !p.sustainable)
        .map(|p| (p.iops, p.latency_us.p99 / 1000.0))
        .collect();
    render(&Chart {
        title: format!("{}: latency vs IOPS", w.profile),
        x_label: "IOPS achieved".into(),
        y_label: "ms".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: vec![
            line("avg", |p| p.latency_us.avg, false),
            line("p99", |p| p.latency_us.p99, true),
        ],
        markers,
        levels,
        marks: vec![Marks::unsustainable(unsustainable)],
        dots: true,
    })
}

/// A profile's table: one row per point.
fn html_table(s: &mut String, w: &SweepReport) {
    s.push_str("<table><tr><th>point</th><th>target IOPS</th><th>IOPS</th><th>MiB/s</th><th>MB/s</th><th>avg µs</th><th>p99 µs</th><th>p99.9 µs</th><th>max µs</th><th>outstanding (Little)</th><th>CPU %</th><th>sustained</th></tr>");
    for p in &w.points {
        let name = point_name(p);
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{:.0}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{:.1} ({:.1})</td><td>{:.0}</td><td>{}</td></tr>",
            escape(&name),
            p.target_iops
                .map(|t| format!("{t:.0}"))
                .unwrap_or_else(|| "max".into()),
            p.iops,
            p.mib_s,
            p.mb_s,
            p.latency_us.avg,
            p.latency_us.p99,
            p.latency_us.p999,
            p.latency_us.max,
            p.outstanding_mean_ios,
            p.outstanding_littles_law_ios,
            p.cpu_pct,
            if p.sustainable { "yes" } else { "no" }
        );
    }
    s.push_str("</table>");
}

/// The steady-state verdict under a profile's table: each round's IOPS and the window judged.
fn html_steady(s: &mut String, st: &SteadyReport) {
    let rounds: Vec<String> = st.rounds_iops.iter().map(|r| format!("{r:.0}")).collect();
    let window = st
        .window
        .as_ref()
        .map(|w| {
            format!(
                "; window from round {}: range {:.1} % and slope {:.1} % of its {:.0} IOPS average",
                w.first_round + 1,
                w.range_pct,
                w.slope_pct,
                w.average
            )
        })
        .unwrap_or_default();
    let _ = write!(
        s,
        "<p>Steady state: {} after {} round(s) (IOPS {}){window}.</p>",
        if st.steady { "reached" } else { "not reached" },
        st.rounds_iops.len(),
        rounds.join(", ")
    );
}
