//! The runs' start states in compare: each run's (the device's purge, filesystem and fill), as
//! a table when any run had one, and a warning when they did not all start from the same
//! state — a drive's figures depend on how full and how recently purged it was.

use serde::Serialize;

use crate::results::run::RunReport;
use crate::results::start_state::StartStateReport;
use drivebench_core::table::{Column, Table};

/// One run's start state as compare shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunStartState {
    pub label: String,
    /// Absent: the run had no `[target] device`, its drive's state unknown.
    pub start_state: Option<StartStateReport>,
}

/// Every run's start state, or nothing when no run had one.
pub fn build(labelled: &[(String, &RunReport)]) -> Vec<RunStartState> {
    if labelled.iter().all(|(_, r)| r.start_state.is_none()) {
        return Vec::new();
    }
    labelled
        .iter()
        .map(|(label, r)| RunStartState {
            label: label.clone(),
            start_state: r.start_state.clone(),
        })
        .collect()
}

/// The warning when the runs did not start from one state.
pub fn warning(states: &[RunStartState]) -> Option<String> {
    let first = states.first()?;
    let same = |a: &Option<StartStateReport>, b: &Option<StartStateReport>| match (a, b) {
        (Some(a), Some(b)) => a.same_start(b),
        (None, None) => true,
        _ => false,
    };
    let differ = states
        .iter()
        .any(|s| !same(&s.start_state, &first.start_state));
    differ.then(|| {
        let each: Vec<String> = states
            .iter()
            .map(|s| format!("{}: {}", s.label, short(&s.start_state)))
            .collect();
        format!(
            "the runs started from different drive states ({}); their figures differ by that too",
            each.join("; ")
        )
    })
}

/// "discard, ext4, fill 50 %", or "unknown (no target.device)".
fn short(state: &Option<StartStateReport>) -> String {
    let Some(s) = state else {
        return "unknown (no target.device)".into();
    };
    let purge = match s.purge {
        crate::results::start_state::PurgeReport::Discard { .. } => "discarded",
        crate::results::start_state::PurgeReport::None => "not purged",
    };
    let fill = s
        .fill
        .as_ref()
        .map_or("no fill".to_owned(), |f| format!("fill {} %", f.share_pct));
    format!("{purge}, {}, {fill}", s.filesystem.as_str())
}

/// The table of the runs' start states.
pub fn table(states: &[RunStartState]) -> Option<Table> {
    if states.is_empty() {
        return None;
    }
    let mut t = Table::new(vec![Column::left("run"), Column::left("start state")]);
    for s in states {
        let line = s
            .start_state
            .as_ref()
            .map_or_else(|| short(&None), StartStateReport::line);
        t.row(vec![s.label.clone(), line]);
    }
    Some(t)
}
