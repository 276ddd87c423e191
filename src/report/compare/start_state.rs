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
    let purge = s.purge.short();
    let fill = s
        .fill
        .as_ref()
        .map_or("no fill".to_owned(), |f| format!("fill {} %", f.share_pct));
    let layout = s.layout.filesystem().map_or("raw device", |f| f.as_str());
    format!("{purge}, {layout}, {fill}")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::start_state::{
        FilesystemReport, FillReport, Layout, PurgeReport, RawLayout,
    };
    use crate::scenario::start_state::Filesystem;

    fn state(label: &str, share: Option<f64>) -> RunStartState {
        let discard = PurgeReport::Discard {
            bytes_discarded: 512 << 20,
            seconds: 0.1,
        };
        purged(label, share, discard)
    }

    fn purged(label: &str, share: Option<f64>, purge: PurgeReport) -> RunStartState {
        RunStartState {
            label: label.into(),
            start_state: share.map(|share_pct| StartStateReport {
                device: "/dev/loop9".into(),
                device_bytes: 512 << 20,
                purge,
                layout: Layout::Filesystem(FilesystemReport {
                    filesystem: Filesystem::Ext4,
                    mkfs: "mkfs.ext4 -F -q -m 0 -E nodiscard /dev/loop9".into(),
                    mount_point: "/mnt".into(),
                    mount_options: vec!["rw".into(), "relatime".into()],
                }),
                fill: Some(FillReport {
                    file: "/mnt/drivebench-fill".into(),
                    share_pct,
                    bytes: 1 << 20,
                    seconds: 1.0,
                    mb_s: 1.0,
                }),
            }),
        }
    }

    #[test]
    fn runs_warn_only_when_their_start_states_differ() {
        let mut raw = state("r", Some(25.0));
        if let Some(s) = raw.start_state.as_mut() {
            s.layout = Layout::Raw {
                layout: RawLayout::Raw,
            };
        }
        let cases: [(&[RunStartState], Option<&str>); 4] = [
            (&[state("a", Some(50.0)), state("b", Some(50.0))], None),
            (
                &[state("a", Some(25.0)), state("b", Some(50.0))],
                Some("a: discarded, ext4, fill 25 %; b: discarded, ext4, fill 50 %"),
            ),
            (
                &[state("a", Some(25.0)), state("b", None)],
                Some("b: unknown (no target.device)"),
            ),
            (
                &[state("a", Some(25.0)), raw],
                Some("r: discarded, raw device, fill 25 %"),
            ),
        ];
        for (states, expected) in cases {
            let got = warning(states);
            match expected {
                None => assert_eq!(got, None),
                Some(part) => {
                    let got = got.expect("a warning");
                    assert!(got.contains("started from different drive states"), "{got}");
                    assert!(got.contains(part), "{got} lacks {part}");
                }
            }
        }
        let (block, crypto) = ("block_erase", "crypto_erase");
        let sanitized = |label, action| {
            let purge = serde_json::json!({"method": "sanitize", "action": action, "seconds": 9.0});
            purged(label, Some(50.0), serde_json::from_value(purge).unwrap())
        };
        let got = warning(&[sanitized("a", block), sanitized("b", crypto)]).expect("a warning");
        assert!(
            got.contains(
                "a: sanitized (block erase), ext4, fill 50 %; b: sanitized (crypto erase)"
            ),
            "{got}"
        );
        assert_eq!(
            warning(&[sanitized("a", block), sanitized("b", block)]),
            None
        );
        let table = table(&[state("a", Some(25.0))]).expect("a table");
        assert_eq!(table.rows.len(), 1);
    }
}
