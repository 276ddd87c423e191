//! Ranking runs by one figure: `rank` orders them (higher or lower is better), gives each its
//! distance to the leader and, for TPS, Welch's t-test against the run ranked just above,
//! judged at `ALPHA`; `section` is one ranking as compare.md and compare.html both render it.
//! Shared by the per-instance-count tables and the load-curve section.

use serde::Serialize;

use super::entry::RunEntry;
use crate::report::stats::{Welch, welch};
use drivebench_core::table::{Block, Column, Section, Table};

/// Significance threshold for "more than noise".
pub const ALPHA: f64 = 0.05;

#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    pub rank: usize,
    pub label: String,
    pub value: f64,
    /// Distance to the leader in % of the leader's value (0 for the leader).
    pub vs_leader_pct: f64,
    /// TPS only: the test against the run ranked just above.
    pub vs_previous: Option<Welch>,
}

impl Ranked {
    /// "leader", or the signed distance to it.
    pub fn vs_leader_text(&self) -> String {
        if self.rank == 1 {
            "leader".to_string()
        } else {
            format!("{:+.1}%", self.vs_leader_pct)
        }
    }

    /// The significance cell against the run ranked above (empty for the leader).
    pub fn vs_above_text(&self) -> String {
        match &self.vs_previous {
            Some(w) if w.p_value < ALPHA => format!("{}, significant", p_text(w.p_value)),
            Some(w) => format!("{}, within noise", p_text(w.p_value)),
            None if self.rank == 1 => String::new(),
            None => "too few intervals".into(),
        }
    }
}

/// Rank `members` by `value`; `test`: Welch's t-test on interval TPS against the run above.
pub fn rank(
    members: &[&RunEntry],
    value: fn(&RunEntry) -> f64,
    higher_better: bool,
    test: bool,
) -> Vec<Ranked> {
    let mut order: Vec<&&RunEntry> = members.iter().collect();
    order.sort_by(|a, b| {
        let (x, y) = (value(a), value(b));
        let o = x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal);
        if higher_better { o.reverse() } else { o }
    });
    let leader = order.first().map(|e| value(e)).unwrap_or(0.0);
    order
        .iter()
        .enumerate()
        .map(|(i, e)| Ranked {
            rank: i + 1,
            label: e.label.clone(),
            value: value(e),
            vs_leader_pct: if leader != 0.0 {
                (value(e) - leader) / leader * 100.0
            } else {
                0.0
            },
            vs_previous: (test && i > 0)
                .then(|| welch(&order[i - 1].interval_tps, &e.interval_tps))
                .flatten(),
        })
        .collect()
}

/// "p = 0.042", or "p < 0.001" for the tiny ones.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        format!("p = {p:.3}")
    }
}

/// One ranking as compare.md and compare.html both show it: rank, run, value with
/// `decimals`, vs leader (and vs above when a row has a test).
pub fn section(title: &str, rows: &[Ranked], decimals: usize) -> Section {
    let sig = rows.iter().any(|r| r.vs_previous.is_some());
    let mut columns = vec![
        Column::right("rank"),
        Column::left("run"),
        Column::right("value"),
        Column::right("vs leader"),
    ];
    if sig {
        columns.push(Column::left("vs above"));
    }
    let mut t = Table::new(columns);
    for r in rows {
        let mut cells = vec![
            r.rank.to_string(),
            r.label.clone(),
            format!("{:.*}", decimals, r.value),
            r.vs_leader_text(),
        ];
        if sig {
            cells.push(r.vs_above_text());
        }
        t.row(cells);
    }
    let mut sec = Section::new(title);
    sec.push(Block::Table(t));
    sec
}
