//! The device's start state in the outputs: its one line in summary.md and report.html, and a
//! fullness run's table (fullness.md): level, fill, TPS and p99 (a sweep's: each profile's
//! IOPS and p99) and what limited each level's run.

use std::fmt::Write;

use super::svg::{Chart, Series, escape, render};
use crate::results::fullness::{FullnessReport, FullnessRow, LevelFigures, LevelProfile};
use drivebench_core::table::{Column, Table};

/// The fullness table: one row per level; a sweep's with each profile's IOPS and p99.
pub fn fullness_table(f: &FullnessReport) -> Table {
    let profiles = profile_names(f);
    let mut columns = vec![Column::right("level"), Column::right("fill MiB")];
    if profiles.is_empty() {
        columns.extend([Column::right("TPS"), Column::right("p99 ms")]);
    }
    for p in &profiles {
        columns.extend([
            Column::right(&format!("{p} IOPS")),
            Column::right(&format!("{p} p99 µs")),
        ]);
    }
    columns.extend([Column::left("verdict"), Column::left("run")]);
    let mut t = Table::new(columns);
    for row in &f.levels {
        let mut cells = vec![
            format!("{} %", row.level_pct),
            or_dash(
                row.fill_bytes
                    .map(|b| format!("{:.0}", b as f64 / (1u64 << 20) as f64)),
            ),
        ];
        cells.extend(figures(row, &profiles));
        cells.extend([row.verdict.clone(), row.run_dir.clone()]);
        t.row(cells);
    }
    t
}

fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "-".into())
}

/// The profiles a sweep's levels ran, in their first order; empty for a scenario's levels.
fn profile_names(f: &FullnessReport) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for row in &f.levels {
        if let LevelFigures::Sweep { profiles } = &row.measured {
            for p in profiles {
                if !names.contains(&p.profile) {
                    names.push(p.profile.clone());
                }
            }
        }
    }
    names
}

/// A row's figure cells: TPS and p99, or each profile's IOPS and p99.
fn figures(row: &FullnessRow, profiles: &[String]) -> Vec<String> {
    match &row.measured {
        LevelFigures::Database { tps, p99_ms } if profiles.is_empty() => vec![
            or_dash(tps.map(|v| format!("{v:.1}"))),
            or_dash(p99_ms.map(|v| format!("{v:.2}"))),
        ],
        LevelFigures::Database { .. } => vec!["-".into(); 2 * profiles.len()],
        LevelFigures::Sweep { profiles: ran } => (profiles.iter())
            .flat_map(|name| {
                let p = ran.iter().find(|p| &p.profile == name);
                [
                    or_dash(p.map(|p| format!("{:.0}", p.iops))),
                    or_dash(p.map(|p| format!("{:.0}", p.p99_us))),
                ]
            })
            .collect(),
    }
}

/// What each level started from, in a sentence.
fn how(f: &FullnessReport) -> String {
    let sweep = (f.levels.iter()).any(|r| matches!(r.measured, LevelFigures::Sweep { .. }));
    match sweep {
        true => format!(
            "Device {}: purged and its first share written before each level's sweep, which \
             touches only that part; one sweep per level.",
            f.device
        ),
        false => format!(
            "Device {}: purged, a filesystem made without discard and filled to each level \
             before the load; one run per level.",
            f.device
        ),
    }
}

/// fullness.md: the scenario and device, then the table.
pub fn fullness_markdown(f: &FullnessReport) -> String {
    let mut s = format!("# drivebench fullness: {}\n\n", f.scenario);
    let _ = writeln!(s, "{}\n", how(f));
    super::table::markdown(&mut s, &fullness_table(f));
    s
}

/// A chart against the fill level: one series per name, each point `value` of a row (rows
/// without one are left out).
fn level_chart(
    f: &FullnessReport,
    title: &str,
    y: &str,
    names: &[String],
    value: impl Fn(&FullnessRow, &str) -> Option<f64>,
) -> Chart {
    Chart {
        title: title.into(),
        x_label: "fill level, % of the device".into(),
        y_label: y.into(),
        series: (names.iter())
            .map(|name| Series {
                name: name.clone(),
                points: (f.levels.iter())
                    .filter_map(|r| Some((r.level_pct, value(r, name)?)))
                    .collect(),
                dashed: false,
            })
            .collect(),
        dots: true,
        ..Chart::default()
    }
}

/// fullness.html: the same table, then TPS and p99 (or each profile's IOPS and p99) against
/// the fill level.
pub fn fullness_html(f: &FullnessReport) -> String {
    let mut s = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivebench fullness</title><style>",
    );
    s.push_str(super::html::STYLE);
    let _ = write!(
        s,
        "</style></head><body><h1>drivebench fullness: {}</h1><p>{}</p>",
        escape(&f.scenario),
        escape(&how(f))
    );
    super::table::html(&mut s, &fullness_table(f));
    let profiles = profile_names(f);
    let charts = match profiles.is_empty() {
        true => {
            let db = |r: &FullnessRow| match r.measured {
                LevelFigures::Database { tps, p99_ms } => Some((tps, p99_ms)),
                LevelFigures::Sweep { .. } => None,
            };
            let tps = ["TPS".to_owned()];
            let p99 = ["p99 ms".to_owned()];
            [
                level_chart(f, "Fullness: TPS per level", "TPS", &tps, |r, _| db(r)?.0),
                level_chart(f, "Fullness: p99 per level", "p99 ms", &p99, |r, _| {
                    db(r)?.1
                }),
            ]
        }
        false => [
            level_chart(f, "Fullness: IOPS per level", "IOPS", &profiles, |r, n| {
                profile_at(r, n).map(|p| p.iops)
            }),
            level_chart(
                f,
                "Fullness: p99 per level",
                "p99 µs",
                &profiles,
                |r, n| profile_at(r, n).map(|p| p.p99_us),
            ),
        ],
    };
    for chart in &charts {
        s.push_str(&render(chart));
    }
    s.push_str("</body></html>");
    s
}

/// A sweep level's figures of one profile.
fn profile_at<'a>(r: &'a FullnessRow, name: &str) -> Option<&'a LevelProfile> {
    match &r.measured {
        LevelFigures::Sweep { profiles } => profiles.iter().find(|p| p.profile == name),
        LevelFigures::Database { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_level_with_dashes_for_what_a_run_did_not_reach() {
        let row = |level_pct, fill_bytes, tps: Option<f64>| FullnessRow {
            level_pct,
            run_dir: format!("fill-{level_pct}pct"),
            fill_bytes,
            verdict: "drive".into(),
            measured: LevelFigures::Database {
                tps,
                p99_ms: tps.map(|_| 2.5),
            },
        };
        let f = FullnessReport {
            scenario: "s".into(),
            device: "/dev/loop9".into(),
            levels: vec![
                row(25.0, Some(128 << 20), Some(812.34)),
                row(50.0, None, None),
            ],
        };
        let md = fullness_markdown(&f);
        assert!(
            md.contains("| 25 % | 128 | 812.3 | 2.50 | drive | fill-25pct |"),
            "{md}"
        );
        assert!(
            md.contains("| 50 % | - | - | - | drive | fill-50pct |"),
            "{md}"
        );
        let html = fullness_html(&f);
        assert!(html.contains("Fullness: TPS per level"), "{html}");
        assert!(html.contains("fill-25pct"), "{html}");
        assert_eq!(html.matches("<svg").count(), 2, "{html}");
    }
}
