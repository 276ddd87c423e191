//! summary.md's section of a merge: the hosts, their clocks and each phase per host.

use crate::results::merge::MergeReport;

/// summary.md's section of a merged run: the hosts, their clocks, and each phase per host.
pub fn markdown(s: &mut String, m: &MergeReport) {
    use std::fmt::Write as _;
    let _ = writeln!(
        s,
        "\n## Hosts (merged run)\n\nStart skew: {:.3} s. {}\n",
        m.start_skew_s, m.rules
    );
    let _ = writeln!(
        s,
        "| host | run directory | complete | phases started (UTC) | skew s | late s | clock |"
    );
    let _ = writeln!(s, "|---|---|---|---|---:|---:|---|");
    for h in &m.hosts {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.3} | {} | {} |",
            h.label,
            h.run_dir,
            if h.complete { "yes" } else { "no" },
            h.phases_started_at,
            h.skew_s,
            h.late_by_s.map_or("-".into(), |l| format!("{l:.3}")),
            h.clock.line()
        );
    }
    for p in &m.phases {
        let _ = writeln!(
            s,
            "\n### {} per host (common window {:.1} s)\n\n| host | transactions | TPS | avg ms | p99 ms | tpmC | NOPM |\n|---|---:|---:|---:|---:|---:|---:|",
            p.phase, p.common_window_s
        );
        let opt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
        for h in &p.hosts {
            let _ = writeln!(
                s,
                "| {} | {} | {:.1} | {:.2} | {:.2} | {} | {} |",
                h.label,
                h.transactions,
                h.tps,
                h.latency_avg_ms,
                h.latency_p99_ms,
                opt(h.tpmc),
                opt(h.nopm)
            );
        }
    }
}
