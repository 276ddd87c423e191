//! A cliff phase in the outputs: its judgement line, its rounds as one table (summary.md and
//! report.html alike) and, in report.html, two charts against the host's GiB written — the
//! p99 of each round with the early level and its band, and the drive's write MiB/s.

use std::fmt::Write;

use super::svg::{Chart, Scale, Series, escape, render};
use crate::results::cliff::PhaseCliffReport;
use drivebench_core::curve::cliff::CliffJudgement;
use drivebench_core::table::Table;

/// The rounds: TPS, p99, late starts, the drive's writes and the bytes written by each end.
pub fn rounds_table(c: &PhaseCliffReport) -> Table {
    let mut t = Table::figures(
        "round",
        &[
            "end s",
            "TPS",
            "p99 ms",
            "late starts",
            "write MiB/s",
            "write IOPS",
            "GiB written",
        ],
    )
    .with_class("cliff");
    let departed = match c.judgement {
        CliffJudgement::Departed { round, .. } => Some(round),
        _ => None,
    };
    for r in &c.rounds {
        let mark = if departed == Some(r.round) {
            " ←"
        } else {
            ""
        };
        t.row(vec![
            format!("{}{mark}", r.round),
            format!("{:.0}", r.end_s),
            format!("{:.1}", r.tps),
            r.p99_ms.map_or("–".into(), |v| format!("{v:.2}")),
            r.late_starts.to_string(),
            format!("{:.2}", r.write_mib_per_s),
            format!("{:.0}", r.write_iops),
            format!("{:.3}", r.host_written_gib()),
        ]);
    }
    let rate = c
        .rate
        .map_or(String::new(), |r| format!(" at {r} tx/s per instance"));
    t.notes.push(format!(
        "Rounds of {} s{rate}; p99 of the response time from the intended start (– : no \
         transaction completed); GiB written by the host to the drive since the phase began.",
        c.round_s
    ));
    t
}

pub fn markdown(s: &mut String, c: &PhaseCliffReport) {
    let _ = writeln!(s, "\nWrite cliff: {}\n", c.line());
    super::table::markdown(s, &rounds_table(c));
}

pub fn html(s: &mut String, c: &PhaseCliffReport) {
    let _ = write!(s, "<p>Write cliff: {}</p>", escape(&c.line()));
    super::table::html(s, &rounds_table(c));
    s.push_str(&render(&p99_chart(c)));
    s.push_str(&render(&writes_chart(c)));
}

/// A chart over the host's GiB written, with the departure marked.
fn against_written(c: &PhaseCliffReport, title: &str, y: &str, points: Vec<(f64, f64)>) -> Chart {
    let markers = match &c.judgement {
        CliffJudgement::Departed {
            round,
            bytes_written,
            ..
        } => vec![(
            *bytes_written as f64 / (1u64 << 30) as f64,
            format!("p99 departed (round {round})"),
        )],
        _ => Vec::new(),
    };
    Chart {
        title: title.into(),
        x_label: "GiB written by the host since the phase began".into(),
        y_label: y.into(),
        series: vec![Series {
            name: y.into(),
            points,
            dashed: false,
        }],
        markers,
        dots: true,
        ..Chart::default()
    }
}

/// p99 of each round (log scale: a cliff spans decades), the early level and its top.
fn p99_chart(c: &PhaseCliffReport) -> Chart {
    let points = (c.rounds.iter())
        .filter_map(|r| Some((r.host_written_gib(), r.p99_ms?)))
        .collect();
    let mut chart = against_written(c, "Write cliff: p99 per round", "p99 ms", points);
    chart.y_scale = Scale::Log10;
    let early = match &c.judgement {
        CliffJudgement::Departed { early, band, .. } | CliffJudgement::Held { early, band, .. } => {
            Some((early, band))
        }
        CliffJudgement::NeverSteady { .. }
        | CliffJudgement::StalledEarly { .. }
        | CliffJudgement::TooFewRounds { .. } => None,
    };
    if let Some((e, b)) = early {
        chart.levels = vec![
            (e.level_ms, format!("early level {:.2} ms", e.level_ms)),
            (b.high_ms, format!("band top (+{} %)", b.pct)),
        ];
    }
    chart
}

fn writes_chart(c: &PhaseCliffReport) -> Chart {
    let points = (c.rounds.iter())
        .map(|r| (r.host_written_gib(), r.write_mib_per_s))
        .collect();
    against_written(
        c,
        "Write cliff: the drive's writes per round",
        "write MiB/s",
        points,
    )
}
