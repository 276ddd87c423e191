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
        engine_io(s, p);
        cliffs(s, p);
    }
}

/// A cliff phase's write cliff per host: each host's drive has its own.
fn cliffs(s: &mut String, p: &crate::results::merge::MergedPhase) {
    for h in &p.hosts {
        let Some(c) = &h.cliff else { continue };
        let _ = writeln!(
            s,
            "\nWrite cliff of {} on {}: {}\n",
            p.phase,
            h.label,
            c.line()
        );
        crate::report::table::markdown(s, &crate::report::cliff::rounds_table(c));
    }
}

/// A phase's engine I/O per host, when the hosts sampled it.
fn engine_io(s: &mut String, p: &crate::results::merge::MergedPhase) {
    if p.hosts.iter().all(|h| h.engine_io.is_none()) {
        return;
    }
    let heads = [
        "log flushes/s",
        "per commit",
        "flush ms",
        "data reads/s",
        "per txn",
        "read ms",
        "bg write MiB/s",
    ];
    let mut t = Table::figures("host", &heads);
    let opt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}"));
    for h in &p.hosts {
        let Some(f) = &h.engine_io else { continue };
        t.row(vec![
            h.label.clone(),
            opt(f.log_flushes_per_s),
            opt(f.log_flushes_per_commit),
            opt(f.log_flush_ms),
            opt(f.data_reads_per_s),
            opt(f.data_reads_per_txn),
            opt(f.data_read_ms),
            opt(f.background_write_mib_s),
        ]);
    }
    let _ = writeln!(s, "\nEngine I/O of {} per host:\n", p.phase);
    crate::report::table::markdown(s, &t);
}
