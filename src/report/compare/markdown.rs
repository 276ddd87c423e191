//! compare.md (also printed): the runs, the settings that differ, and per instance count the
//! ranking tables (and the benchmark's own sections), then the load curves' SLO figures, the sweep
//! tables and the replays, in the same order as compare.html.

use std::fmt::Write;

use super::curves;
use super::model::Comparison;
use super::ranking::{ALPHA, section};
use super::replays;
use super::sweeps;

/// compare.md, also printed.
pub fn page(c: &Comparison) -> String {
    let mut s = String::from("# drivebench compare\n\n");
    let limited = c.not_drive_bound();
    if !limited.is_empty() {
        let _ = writeln!(s, "**Warning: {}.**\n", super::model::NOT_DRIVE_BOUND);
        for line in &limited {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
    }
    for w in &c.warnings {
        let _ = writeln!(s, "**Warning: {w}.**\n");
    }
    s.push_str(
        "| run | source | scenario | started | compared phase | complete |\n|---|---|---|---|---|---|\n",
    );
    for e in &c.runs {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            e.label,
            e.source,
            e.scenario,
            e.started_at,
            e.phase,
            if e.complete { "yes" } else { "no (partial)" }
        );
    }
    if let Some(t) = super::start_state::table(&c.start_states) {
        s.push_str("\nStart states:\n\n");
        crate::report::table::markdown(&mut s, &t);
    }
    if let Some(t) = super::cliff::table(&c.cliffs) {
        s.push_str("\nWrite cliffs:\n\n");
        crate::report::table::markdown(&mut s, &t);
    }
    if let Some(t) = c.limits() {
        s.push_str("\nWhat limited each run:\n\n");
        crate::report::table::markdown(&mut s, &t);
    }
    for why in &c.incomparable {
        let _ = writeln!(s, "\n**Compared with --force:** {why}");
    }
    if !c.differences.is_empty() {
        s.push_str("\nSettings that differ (compared anyway):\n\n");
        for run in &c.differences.runs {
            let _ = writeln!(s, "- {}: {}", run.label, run.text());
        }
    }
    for g in &c.groups {
        let _ = writeln!(s, "\n## {} instance(s) per run", g.instances);
        for (title, rows, decimals) in g.tables() {
            crate::report::table::section_markdown(&mut s, &section(title, rows, decimals), 3);
        }
        for sec in g.sections(&c.runs) {
            crate::report::table::section_markdown(&mut s, &sec, 3);
        }
    }
    if let Some(cc) = &c.curves {
        curves::markdown(&mut s, cc, &c.runs);
    }
    sweeps::markdown(&mut s, &c.sweeps);
    if let Some(rc) = &c.replays {
        replays::markdown(&mut s, rc);
    }
    let _ = writeln!(
        s,
        "\n\"vs above\": Welch's t-test on per-interval TPS against the run ranked just above, each series' sample size reduced for its lag-1 autocorrelation; significant when p < {ALPHA}."
    );
    s
}
