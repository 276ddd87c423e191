//! summary.md's section of a merge: the hosts, their clocks and each phase per host.

use std::fmt::Write as _;

use crate::results::merge::MergeReport;
use drivebench_core::table::{Column, Table};

/// summary.md's section of a merged run: the hosts, their clocks, and each phase per host.
pub fn markdown(s: &mut String, m: &MergeReport) {
    let _ = writeln!(
        s,
        "\n## Hosts (merged run)\n\nStart skew: {:.3} s. {}\n",
        m.start_skew_s, m.rules
    );
    let mut hosts = Table::new(vec![
        Column::left("host"),
        Column::left("run directory"),
        Column::left("complete"),
        Column::left("phases started (UTC)"),
        Column::right("skew s"),
        Column::right("late s"),
        Column::left("clock"),
    ]);
    for h in &m.hosts {
        hosts.row(vec![
            h.label.clone(),
            h.run_dir.clone(),
            if h.complete { "yes" } else { "no" }.into(),
            h.phases_started_at.clone(),
            format!("{:.3}", h.skew_s),
            h.late_by_s.map_or("-".into(), |l| format!("{l:.3}")),
            h.clock.line(),
        ]);
    }
    crate::report::table::markdown(s, &hosts);
    let heads = ["transactions", "TPS", "avg ms", "p99 ms", "tpmC", "NOPM"];
    let opt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
    for p in &m.phases {
        let _ = writeln!(
            s,
            "\n### {} per host (common window {:.1} s)\n",
            p.phase, p.common_window_s
        );
        let mut t = Table::figures("host", &heads);
        for h in &p.hosts {
            t.row(vec![
                h.label.clone(),
                h.transactions.to_string(),
                format!("{:.1}", h.tps),
                format!("{:.2}", h.latency_avg_ms),
                format!("{:.2}", h.latency_p99_ms),
                opt(h.tpmc),
                opt(h.nopm),
            ]);
        }
        crate::report::table::markdown(s, &t);
    }
}
