//! How compare names each run: as `--label` gave it, else after its drive ("vda 256.0 GiB");
//! runs that would share a name are told apart by what differs between them: the scenario,
//! else the settings that differ, else the start time ("vda 256.0 GiB (started 02:27:12Z)").

use super::settings::{differing_keys, facts, value_of};
use crate::config::units::format_bytes;
use crate::results::run::RunReport;

/// The drive's model and capacity, else where the run was read.
fn drive_label(r: &RunReport, source: &str) -> String {
    match &r.environment.target.device {
        Some(d) => {
            let model = d.model.clone().unwrap_or_else(|| d.name.clone());
            match d.capacity_bytes {
                Some(c) => format!("{model} {}", format_bytes(c)),
                None => model,
            }
        }
        None => source.to_string(),
    }
}

/// Every run's label, in the order given; no two alike.
pub fn labels(runs: &[(Option<String>, String, RunReport)]) -> Vec<String> {
    let mut out: Vec<String> = runs
        .iter()
        .map(|(label, source, r)| label.clone().unwrap_or_else(|| drive_label(r, source)))
        .collect();
    let bases = out.clone();
    for base in &bases {
        let group: Vec<usize> = (0..runs.len()).filter(|&i| out[i] == *base).collect();
        if group.len() < 2 {
            continue;
        }
        let reports: Vec<&RunReport> = group.iter().map(|&i| &runs[i].2).collect();
        for (&i, tag) in group.iter().zip(telling_apart(&reports)) {
            out[i] = format!("{base} ({tag})");
        }
    }
    out
}

/// What tells `reports` apart, one tag each: the first of scenario name, settings that differ
/// and start time that gives every one a tag of its own; their position when none does.
fn telling_apart(reports: &[&RunReport]) -> Vec<String> {
    let distinct = |tags: &[String]| (1..tags.len()).all(|i| !tags[..i].contains(&tags[i]));
    let scenario: Vec<String> = reports.iter().map(|r| r.plan.name.clone()).collect();
    if distinct(&scenario) {
        return scenario;
    }
    let all: Vec<Vec<(String, String)>> = reports.iter().map(|r| facts(r)).collect();
    let keys = differing_keys(&all);
    let tags = |keys: &[String]| -> Vec<String> {
        all.iter()
            .map(|f| {
                let each: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{k} = {}", value_of(f, k)))
                    .collect();
                each.join(", ")
            })
            .collect()
    };
    // One setting that differs in every run says enough; else all of those that differ.
    let one = keys
        .iter()
        .map(|k| tags(std::slice::from_ref(k)))
        .find(|t| distinct(t));
    if let Some(t) = one.or_else(|| Some(tags(&keys)).filter(|t| !keys.is_empty() && distinct(t))) {
        return t;
    }
    let started = started_tags(reports);
    if distinct(&started) {
        return started;
    }
    (1..=reports.len()).map(|n| n.to_string()).collect()
}

/// "started 02:27:12Z" when every run started the same day, else the whole timestamp.
fn started_tags(reports: &[&RunReport]) -> Vec<String> {
    let day = |r: &RunReport| r.started_at.split_once('T').map(|(d, _)| d.to_string());
    let same_day = reports
        .iter()
        .all(|r| day(r).is_some() && day(r) == day(reports[0]));
    reports
        .iter()
        .map(|r| match r.started_at.split_once('T') {
            Some((_, time)) if same_day => format!("started {time}"),
            _ => format!("started {}", r.started_at),
        })
        .collect()
}
