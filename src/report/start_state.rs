//! The device's start state in the outputs: its one line in summary.md and report.html, and a
//! fullness run's table (fullness.md): level, fill, TPS, p99 and what limited each level's run.

use std::fmt::Write;

use crate::results::fullness::FullnessReport;
use drivebench_core::table::{Column, Table};

/// The fullness table: one row per level.
pub fn fullness_table(f: &FullnessReport) -> Table {
    let mut t = Table::new(vec![
        Column::right("level"),
        Column::right("fill MiB"),
        Column::right("TPS"),
        Column::right("p99 ms"),
        Column::left("verdict"),
        Column::left("run"),
    ]);
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for row in &f.levels {
        t.row(vec![
            format!("{} %", row.level_pct),
            or_dash(
                row.fill_bytes
                    .map(|b| format!("{:.0}", b as f64 / (1u64 << 20) as f64)),
            ),
            or_dash(row.tps.map(|v| format!("{v:.1}"))),
            or_dash(row.p99_ms.map(|v| format!("{v:.2}"))),
            row.verdict.clone(),
            row.run_dir.clone(),
        ]);
    }
    t
}

/// fullness.md: the scenario and device, then the table.
pub fn fullness_markdown(f: &FullnessReport) -> String {
    let mut s = format!("# drivebench fullness: {}\n\n", f.scenario);
    let _ = writeln!(
        s,
        "Device {}: purged, a filesystem made without discard and filled to each level before \
         the load; one run per level.\n",
        f.device
    );
    super::table::markdown(&mut s, &fullness_table(f));
    s
}

/// fullness.html: the same table, then TPS and p99 against the fill level (levels whose run
/// measured nothing are left out of the charts).
pub fn fullness_html(f: &FullnessReport) -> String {
    use super::svg::{Chart, Series, escape, render};
    let mut s = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>drivebench fullness</title><style>",
    );
    s.push_str(super::html::STYLE);
    let _ = write!(
        s,
        "</style></head><body><h1>drivebench fullness: {}</h1><p>Device {}: purged, a \
         filesystem made without discard and filled to each level before the load; one run per \
         level.</p>",
        escape(&f.scenario),
        escape(&f.device)
    );
    super::table::html(&mut s, &fullness_table(f));
    let chart =
        |title: &str, y: &str, value: fn(&crate::results::fullness::FullnessRow) -> Option<f64>| {
            Chart {
                title: title.into(),
                x_label: "fill level, % of the device".into(),
                y_label: y.into(),
                series: vec![Series {
                    name: y.into(),
                    points: (f.levels.iter())
                        .filter_map(|r| Some((r.level_pct, value(r)?)))
                        .collect(),
                    dashed: false,
                }],
                dots: true,
                ..Chart::default()
            }
        };
    s.push_str(&render(&chart("Fullness: TPS per level", "TPS", |r| r.tps)));
    s.push_str(&render(&chart("Fullness: p99 per level", "p99 ms", |r| {
        r.p99_ms
    })));
    s.push_str("</body></html>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::fullness::FullnessRow;

    #[test]
    fn one_row_per_level_with_dashes_for_what_a_run_did_not_reach() {
        let row = |level_pct, fill_bytes, tps| FullnessRow {
            level_pct,
            run_dir: format!("fill-{level_pct}pct"),
            fill_bytes,
            tps,
            p99_ms: tps.map(|_| 2.5),
            verdict: "drive".into(),
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
