//! Sweep results as sweeps.csv rows (one per point, vdbench-flatfile-like columns), as
//! report.html sections (a latency-vs-IOPS chart per profile, with its latency objective and
//! unsustainable points marked, and its table) and as summary.md tables.

use super::svg::{Chart, Marks, Scale, Series, escape, render, slo_marks};
use crate::results::sweeps::{SweepPointReport, SweepReport};
use drivebench_core::table::Table;
use drivebench_system::io::sweep::SteadyReport;
use std::fmt::Write;

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
        super::table::markdown(s, &points_table(w));
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
        super::table::html(s, &points_table(w));
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
        bands: Vec::new(),
        dots: true,
    })
}

/// A profile's table: one row per point (its target, what it achieved, latency from the
/// intended start, outstanding I/Os measured and by Little's law, CPU, whether it kept up).
fn points_table(w: &SweepReport) -> Table {
    let heads = [
        "target IOPS",
        "IOPS",
        "MiB/s",
        "MB/s",
        "avg µs",
        "p99 µs",
        "p99.9 µs",
        "max µs",
        "outstanding (Little)",
        "CPU %",
        "sustained",
    ];
    let mut t = Table::figures("point", &heads);
    for p in &w.points {
        t.row(vec![
            point_name(p),
            p.target_iops
                .map(|t| format!("{t:.0}"))
                .unwrap_or_else(|| "-".into()),
            format!("{:.0}", p.iops),
            format!("{:.1}", p.mib_s),
            format!("{:.1}", p.mb_s),
            format!("{:.1}", p.latency_us.avg),
            format!("{:.0}", p.latency_us.p99),
            format!("{:.0}", p.latency_us.p999),
            format!("{:.0}", p.latency_us.max),
            format!(
                "{:.1} ({:.1})",
                p.outstanding_mean_ios, p.outstanding_littles_law_ios
            ),
            format!("{:.0}", p.cpu_pct),
            if p.sustainable { "yes" } else { "no" }.to_string(),
        ]);
    }
    t
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
