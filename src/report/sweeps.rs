//! Sweep results as result.json carries them (`sweeps[]`), as sweeps.csv rows (one per point,
//! vdbench-flatfile-like columns), and as report.html sections (a latency-vs-IOPS chart per
//! profile and its table).

use std::fmt::Write;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::svg::{Chart, Scale, Series, escape, render};
use crate::io::sweep::{PointKind, SteadyReport, SweepResult};
use crate::protocol::curve::SloResult;

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
    /// "max" (the uncontrolled run), "curve" or "slo" (a search step).
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SweepReport {
    pub profile: String,
    pub definition: String,
    pub engine: String,
    pub max_iops: f64,
    pub points: Vec<SweepPointReport>,
    pub slo: Option<SloResult>,
    /// The SNIA steady-state precondition, when one ran.
    pub steady: Option<SteadyReport>,
    pub stopped_early: bool,
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
                .map(|p| format!("{:?}", p.result.engine).to_lowercase())
                .unwrap_or_default(),
            max_iops: r.max_iops,
            points: r
                .points
                .iter()
                .map(|p| SweepPointReport {
                    kind: match p.kind {
                        PointKind::Max => "max",
                        PointKind::Curve => "curve",
                        PointKind::Slo => "slo",
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
                })
                .collect(),
            slo: r.slo,
            steady: r.steady.clone(),
            stopped_early: r.stopped_early,
        }
    }
}

pub const CSV_HEADER: &str = "profile,kind,target_pct,target_iops,iops,mib_s,mb_s,lat_avg_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,service_avg_us,service_p99_us,outstanding_mean,outstanding_littles_law,cpu_pct,sustainable";

/// sweeps.csv: the header and one line per point of every sweep.
pub fn csv(sweeps: &[SweepReport]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    let opt = |v: Option<f64>| v.map(|v| format!("{v:.1}")).unwrap_or_default();
    for w in sweeps {
        for p in &w.points {
            let _ = writeln!(
                s,
                "{},{},{},{},{:.1},{:.2},{:.2},{:.1},{:.0},{:.0},{:.0},{:.0},{:.1},{:.0},{:.2},{:.2},{:.1},{}",
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
                p.sustainable
            );
        }
    }
    s
}

/// report.html section: per profile the latency-vs-IOPS curve (avg and p99) and its table.
pub fn html(s: &mut String, sweeps: &[SweepReport]) {
    if sweeps.is_empty() {
        return;
    }
    s.push_str("<h2>I/O sweeps</h2>");
    for w in sweeps {
        let curve: Vec<&SweepPointReport> = w.points.iter().filter(|p| p.kind == "curve").collect();
        let line = |name: &str, f: fn(&SweepPointReport) -> f64, dashed: bool| Series {
            name: name.into(),
            points: curve.iter().map(|p| (p.iops, f(p) / 1000.0)).collect(),
            dashed,
        };
        let _ = write!(
            s,
            "<h3>{}</h3><p>{} — engine {}, maximum {:.0} IOPS{}</p>",
            escape(&w.profile),
            escape(&w.definition),
            escape(&w.engine),
            w.max_iops,
            if w.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        );
        s.push_str(&render(&Chart {
            title: format!("{}: latency vs IOPS", w.profile),
            x_label: "IOPS achieved".into(),
            y_label: "ms".into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: vec![
                line("avg", |p| p.latency_us.avg, false),
                line("p99", |p| p.latency_us.p99, true),
            ],
            markers: Vec::new(),
        }));
        s.push_str("<table><tr><th>point</th><th>target IOPS</th><th>IOPS</th><th>MiB/s</th><th>MB/s</th><th>avg µs</th><th>p99 µs</th><th>p99.9 µs</th><th>max µs</th><th>outstanding (Little)</th><th>CPU %</th><th>sustained</th></tr>");
        for p in &w.points {
            let name = match (p.kind.as_str(), p.target_pct) {
                ("curve", Some(pct)) => format!("{pct} %"),
                (kind, _) => kind.to_string(),
            };
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
        if let Some(st) = &w.steady {
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
