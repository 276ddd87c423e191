//! compare's sweep section: for every profile that any run swept, one table with a row per
//! point (max, then the curve's percentages) and per run its IOPS and p99 at that point, side
//! by side; compare.html also overlays the runs' p99-vs-IOPS curves of the profile.

use std::fmt::Write;

use serde::Serialize;

use crate::report::svg::{Chart, Scale, Series, escape, render};
use crate::report::sweeps::point_name;
use crate::results::run::RunReport;

/// One run's figures at one point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SweepCell {
    pub iops: f64,
    /// From each I/O's intended start, µs.
    pub p99_us: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRow {
    /// "max", "50 %", "fixed".
    pub point: String,
    /// One cell per run of the comparison (None: the run has no such point).
    pub cells: Vec<Option<SweepCell>>,
}

/// One profile across the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepComparison {
    pub profile: String,
    /// Every definition the runs give for the profile (more than one: compared anyway).
    pub definitions: Vec<String>,
    /// Labels of all runs, in the order of the cells.
    pub runs: Vec<String>,
    pub rows: Vec<SweepRow>,
}

/// The sweep tables of `runs` (label, report); empty when no run has sweeps.
pub fn build(runs: &[(String, &RunReport)]) -> Vec<SweepComparison> {
    let mut out: Vec<SweepComparison> = Vec::new();
    let labels: Vec<String> = runs.iter().map(|(l, _)| l.clone()).collect();
    for (i, (_, r)) in runs.iter().enumerate() {
        for w in &r.sweeps {
            let at = match out.iter().position(|c| c.profile == w.profile) {
                Some(at) => at,
                None => {
                    out.push(SweepComparison {
                        profile: w.profile.clone(),
                        definitions: Vec::new(),
                        runs: labels.clone(),
                        rows: Vec::new(),
                    });
                    out.len() - 1
                }
            };
            let c = &mut out[at];
            if !c.definitions.contains(&w.definition) {
                c.definitions.push(w.definition.clone());
            }
            for p in w.points.iter().filter(|p| p.kind != "slo") {
                let point = point_name(p);
                let row = match c.rows.iter().position(|row| row.point == point) {
                    Some(k) => k,
                    None => {
                        c.rows.push(SweepRow {
                            point,
                            cells: vec![None; runs.len()],
                        });
                        c.rows.len() - 1
                    }
                };
                c.rows[row].cells[i] = Some(SweepCell {
                    iops: p.iops,
                    p99_us: p.latency_us.p99,
                });
            }
        }
    }
    out
}

fn cell_text(c: &Option<SweepCell>) -> (String, String) {
    match c {
        Some(c) => (format!("{:.0}", c.iops), format!("{:.0}", c.p99_us)),
        None => ("-".into(), "-".into()),
    }
}

fn note(c: &SweepComparison) -> String {
    match c.definitions.as_slice() {
        [one] => one.clone(),
        many => format!(
            "the runs define this profile differently (compared anyway): {}",
            many.join("; ")
        ),
    }
}

/// compare.md's sweep section.
pub fn markdown(s: &mut String, sweeps: &[SweepComparison]) {
    for c in sweeps {
        let _ = writeln!(s, "\n## I/O sweep {}\n\n{}\n", c.profile, note(c));
        let heads: Vec<String> = c
            .runs
            .iter()
            .map(|r| format!("{r} IOPS | {r} p99 µs"))
            .collect();
        let _ = writeln!(
            s,
            "| point | {} |\n|---|{}",
            heads.join(" | "),
            "---:|---:|".repeat(c.runs.len())
        );
        for row in &c.rows {
            let cells: Vec<String> = row
                .cells
                .iter()
                .map(|x| {
                    let (iops, p99) = cell_text(x);
                    format!("{iops} | {p99}")
                })
                .collect();
            let _ = writeln!(s, "| {} | {} |", row.point, cells.join(" | "));
        }
    }
    if !sweeps.is_empty() {
        let _ = writeln!(
            s,
            "\nSweep p99 is measured from each I/O's intended start; curve points are percentages of each run's own maximum."
        );
    }
}

/// compare.html's sweep section: the table and the runs' curves overlaid.
pub fn html(s: &mut String, sweeps: &[SweepComparison]) {
    if sweeps.is_empty() {
        return;
    }
    s.push_str("<h2>I/O sweeps</h2>");
    for c in sweeps {
        let _ = write!(
            s,
            "<h3>{}</h3><p>{}</p><table><tr><th rowspan=\"2\">point</th>",
            escape(&c.profile),
            escape(&note(c))
        );
        for r in &c.runs {
            let _ = write!(s, "<th colspan=\"2\">{}</th>", escape(r));
        }
        s.push_str("</tr><tr>");
        s.push_str(&"<th>IOPS</th><th>p99 µs</th>".repeat(c.runs.len()));
        s.push_str("</tr>");
        for row in &c.rows {
            let _ = write!(s, "<tr><td>{}</td>", escape(&row.point));
            for x in &row.cells {
                let (iops, p99) = cell_text(x);
                let _ = write!(s, "<td>{iops}</td><td>{p99}</td>");
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
        let series: Vec<Series> = c
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| Series {
                name: r.clone(),
                points: c
                    .rows
                    .iter()
                    .filter(|row| row.point != "max")
                    .filter_map(|row| row.cells[i].map(|x| (x.iops, x.p99_us / 1000.0)))
                    .collect(),
                dashed: false,
            })
            .filter(|series| !series.points.is_empty())
            .collect();
        if !series.is_empty() {
            s.push_str(&render(&Chart {
                title: format!("{}: p99 latency vs IOPS", c.profile),
                x_label: "IOPS achieved".into(),
                y_label: "p99 ms".into(),
                x_scale: Scale::Linear,
                y_scale: Scale::Linear,
                series,
                markers: Vec::new(),
                ..Chart::default()
            }));
        }
    }
}
