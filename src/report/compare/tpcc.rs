//! compare's TPC-C section, present when a group has TPC-C runs: from each run's TPC-C-like
//! figures of its compared phase, one table of runs (tpmC, NOPM, the mix with its New-Order
//! share, efficiency when the run has it, whether the mix and response-time limits were met)
//! and one table of transaction kinds with each run's p90 and p99 response time, in compare.md
//! and compare.html alike.

use std::fmt::Write;

use super::entry::{RunEntry, TpccFigures};
use crate::report::svg::escape;

/// The two tables as rows of cells: (header, rows) each.
struct Tables {
    runs: (Vec<String>, Vec<Vec<String>>),
    kinds: (Vec<String>, Vec<Vec<String>>),
}

const RUNS_TITLE: &str = "TPC-C-like figures (not audited)";
const KINDS_TITLE: &str = "p90 / p99 response time per kind, ms (lower is better)";

fn tables(members: &[&RunEntry]) -> Option<Tables> {
    let runs: Vec<(&RunEntry, &TpccFigures)> = members
        .iter()
        .filter_map(|e| e.tpcc.as_ref().map(|t| (*e, t)))
        .collect();
    if runs.is_empty() {
        return None;
    }
    let opt = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |x| format!("{x:.d$}"));
    let run_rows = runs
        .iter()
        .map(|(e, t)| {
            vec![
                e.label.clone(),
                format!("{:.0}", t.tpmc),
                opt(t.nopm, 0),
                format!("{} ({:.1})", t.mix.name(), t.new_order_pct),
                opt(t.efficiency_pct, 1),
                if t.passed { "met" } else { "NOT met" }.to_string(),
            ]
        })
        .collect();
    let mut kinds: Vec<&str> = Vec::new();
    for (_, t) in &runs {
        for k in &t.per_kind {
            if !kinds.contains(&k.kind.as_str()) {
                kinds.push(&k.kind);
            }
        }
    }
    let kind_rows = kinds
        .iter()
        .map(|kind| {
            let mut row = vec![kind.to_string()];
            row.extend(runs.iter().map(|(_, t)| {
                t.per_kind
                    .iter()
                    .find(|k| k.kind == *kind)
                    .map_or("-".to_string(), |k| {
                        format!("{:.3} / {:.3}", k.p90_ms, k.p99_ms)
                    })
            }));
            row
        })
        .collect();
    let mut kind_header = vec!["kind".to_string()];
    kind_header.extend(runs.iter().map(|(e, _)| e.label.clone()));
    Some(Tables {
        runs: (
            [
                "run",
                "tpmC",
                "NOPM",
                "mix (New-Order %)",
                "efficiency %",
                "mix and p90 limits",
            ]
            .map(String::from)
            .to_vec(),
            run_rows,
        ),
        kinds: (kind_header, kind_rows),
    })
}

/// The TPC-C tables of a group's runs in compare.md (nothing for other workloads).
pub fn markdown(s: &mut String, members: &[&RunEntry]) {
    let Some(t) = tables(members) else {
        return;
    };
    for (title, (header, rows)) in [(RUNS_TITLE, t.runs), (KINDS_TITLE, t.kinds)] {
        let _ = writeln!(s, "\n### {title}\n\n| {} |", header.join(" | "));
        let align: Vec<&str> = (0..header.len())
            .map(|i| if i == 0 { "---" } else { "---:" })
            .collect();
        let _ = writeln!(s, "|{}|", align.join("|"));
        for row in rows {
            let _ = writeln!(s, "| {} |", row.join(" | "));
        }
    }
}

/// The same tables in compare.html.
pub fn html(s: &mut String, members: &[&RunEntry]) {
    let Some(t) = tables(members) else {
        return;
    };
    for (title, (header, rows)) in [(RUNS_TITLE, t.runs), (KINDS_TITLE, t.kinds)] {
        let _ = write!(s, "<h3>{}</h3><table class=\"tpcc\"><tr>", escape(title));
        for h in &header {
            let _ = write!(s, "<th>{}</th>", escape(h));
        }
        s.push_str("</tr>");
        for row in rows {
            s.push_str("<tr>");
            for cell in &row {
                let _ = write!(s, "<td>{}</td>", escape(cell));
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
}
