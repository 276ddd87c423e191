//! The drive's health log in summary.md and report.html: a "Drive health" section with one
//! row per phase (per phase and host in a merged run) — the bytes the host wrote and read as
//! the drive counted them, the bytes written to its media and the write amplification where
//! the drive keeps the OCP extended log, the highest temperature, new media errors and whether
//! the drive throttled —, a line per phase saying in which of its report intervals the drive
//! throttled where they were read (from the series rows' marks, counted in `throttle`), and
//! the one line saying why no log was read where none was; and compare's one warning naming
//! each run whose drive throttled, by phase or by interval. Reads result.json's
//! `phases[].health`, `phases[].series[].drive_throttle` and
//! `merge.phases[].hosts[].health` only.

use crate::results::health::{PhaseHealth, unavailable_line};
use crate::results::run::RunReport;
use drivebench_core::config::units::format_bytes;
use drivebench_core::table::{Block, Column, Section, Table, Text};
use drivebench_system::health::HealthDelta;

use super::throttle::{ThrottleCount, count};

/// The section's title.
pub const TITLE: &str = "Drive health";

/// One phase's health as the section shows it: the row's label, the host (in a merged run)
/// and the record.
struct Entry<'a> {
    label: String,
    host: Option<&'a str>,
    health: &'a PhaseHealth,
}

/// The phases' health records, or in a merged run each host's phases'.
fn entries(r: &RunReport) -> Vec<Entry<'_>> {
    match &r.merge {
        Some(m) => (m.phases.iter())
            .flat_map(|p| {
                (p.hosts.iter()).filter_map(|h| {
                    Some(Entry {
                        label: format!("{} ({})", p.phase, h.label),
                        host: Some(&h.label),
                        health: h.health.as_ref()?,
                    })
                })
            })
            .collect(),
        None => (r.phases.iter())
            .filter_map(|p| {
                Some(Entry {
                    label: p.name.clone(),
                    host: None,
                    health: p.health.as_ref()?,
                })
            })
            .collect(),
    }
}

/// The section, when any phase has a health record.
pub fn section(r: &RunReport) -> Option<Section> {
    let entries = entries(r);
    if entries.is_empty() {
        return None;
    }
    let mut sec = Section::new(TITLE).with_class("health");
    let mut lines: Vec<String> = Vec::new();
    let mut t = table();
    let mut throttled = Vec::new();
    for e in &entries {
        match e.health {
            PhaseHealth::Read { device, delta, .. } => {
                t.row(row(&e.label, device, delta));
                if delta.throttled {
                    throttled.push(e.label.clone());
                }
            }
            PhaseHealth::Unavailable { device, reason } => {
                let line = unavailable_line(device, reason);
                let line = match e.host {
                    Some(host) => format!("{host}: {line}"),
                    None => line,
                };
                if !lines.contains(&line) {
                    lines.push(line);
                }
            }
        }
    }
    if !t.rows.is_empty() {
        sec.push(Block::Table(t));
    }
    if !throttled.is_empty() {
        sec.push(Block::classed(
            "warn",
            Text::plain(format!(
                "The drive throttled (thermal) in: {}. Figures of those phases are those of a throttled drive.",
                throttled.join(", ")
            )),
        ));
    }
    for line in super::throttle::phases(r).iter().filter_map(|p| p.line()) {
        sec.push(Block::classed("warn", Text::plain(line)));
    }
    for line in lines {
        sec.push(Block::paragraph(Text::plain(line)));
    }
    Some(sec)
}

fn table() -> Table {
    let mut t = Table::new(vec![
        Column::left("phase"),
        Column::left("device"),
        Column::right("host written"),
        Column::right("host read"),
        Column::right("media written"),
        Column::right("write amplification"),
        Column::right("max °C"),
        Column::right("media errors"),
        Column::right("throttle entries"),
        Column::right("throttle s"),
        Column::left("throttled"),
    ]);
    t.notes.push(
        "Bytes as the drive counted them between the readings before and after each phase \
         (NVMe: units of 512,000 bytes). Media bytes and write amplification (media / host \
         bytes written) come from the OCP extended SMART log, where the drive keeps one."
            .into(),
    );
    t
}

fn row(label: &str, device: &str, d: &HealthDelta) -> Vec<String> {
    let bytes = |b: Option<u64>| b.map_or("-".into(), format_bytes);
    vec![
        label.to_string(),
        device.to_string(),
        bytes(d.host_bytes_written),
        bytes(d.host_bytes_read),
        bytes(d.media_bytes_written),
        d.write_amplification
            .map_or("-".into(), |w| format!("{w:.2}")),
        d.temperature_max_c
            .map_or("-".into(), |c| format!("{c:.0}")),
        d.media_errors.to_string(),
        d.thermal_transitions.to_string(),
        d.thermal_seconds.to_string(),
        if d.throttled { "yes" } else { "no" }.into(),
    ]
}

/// Whether the drive throttled in any phase or interval; None when no phase has a health log
/// read and no interval was read.
pub fn run_throttled(r: &RunReport) -> Option<bool> {
    let read: Vec<&PhaseHealth> = (entries(r).into_iter())
        .map(|e| e.health)
        .filter(|h| matches!(h, PhaseHealth::Read { .. }))
        .collect();
    let intervals = count(r);
    let phase = (!read.is_empty()).then(|| read.iter().any(|h| h.throttled()));
    let interval = intervals.map(|c| c.throttled_intervals > 0);
    match (phase, interval) {
        (None, None) => None,
        (a, b) => Some(a == Some(true) || b == Some(true)),
    }
}

/// One run as compare's warning sees it: its label, whether its drive throttled (None: no log
/// read) and its intervals' count where they were read.
pub struct RunThrottle<'a> {
    pub label: &'a str,
    pub throttled: Option<bool>,
    pub intervals: Option<ThrottleCount>,
}

/// compare's one warning when any run's drive throttled, naming each such run once, with the
/// count of its throttled intervals where they were read: "hot (3 of 120 intervals)".
pub fn compare_warning(runs: &[RunThrottle<'_>]) -> Option<String> {
    let throttled: Vec<String> = (runs.iter())
        .filter(|r| r.throttled == Some(true))
        .map(|r| match r.intervals {
            Some(c) if c.throttled_intervals > 0 => format!(
                "{} ({} of {} intervals)",
                r.label, c.throttled_intervals, c.read_intervals
            ),
            _ => r.label.to_string(),
        })
        .collect();
    (!throttled.is_empty()).then(|| {
        format!(
            "the drive throttled (thermal) during {}: those figures are a throttled drive's, not its sustained performance",
            throttled.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivebench_system::health::interval::ThrottleMark;

    fn run(
        label: &str,
        throttled: Option<bool>,
        counted: Option<(usize, usize)>,
    ) -> RunThrottle<'_> {
        RunThrottle {
            label,
            throttled,
            intervals: counted.map(|(t, n)| ThrottleCount {
                throttled_intervals: t,
                read_intervals: n,
            }),
        }
    }

    #[test]
    fn compare_warns_only_of_throttled_runs() {
        let cool = [run("a", Some(false), Some((0, 120))), run("b", None, None)];
        assert_eq!(compare_warning(&cool), None);
        let w = compare_warning(&[
            run("a", Some(true), None),
            run("b", Some(false), Some((0, 60))),
            run("c", Some(true), Some((3, 120))),
            run("d", Some(true), Some((0, 120))),
        ]);
        assert_eq!(
            w.as_deref(),
            Some(
                "the drive throttled (thermal) during a, c (3 of 120 intervals), d: those figures are a throttled drive's, not its sustained performance"
            )
        );
    }

    #[test]
    fn a_run_throttled_in_an_interval_only_is_throttled() {
        let text = include_str!("../../tests/data/compare/a.json");
        let mut r: RunReport = serde_json::from_str(text).unwrap();
        assert_eq!(run_throttled(&r), None);
        r.phases[1].series[0].drive_throttle = ThrottleMark::Clear;
        assert_eq!(run_throttled(&r), Some(false));
        r.phases[1].series[1].drive_throttle = ThrottleMark::Throttled;
        assert_eq!(run_throttled(&r), Some(true));
        r.phases[1].health = Some(PhaseHealth::Unavailable {
            device: "nvme0n1".into(),
            reason: "a later reading failed".into(),
        });
        let mut md = String::new();
        crate::report::table::section_markdown(&mut md, &section(&r).expect("the section"), 2);
        assert!(
            md.contains(
                "The drive throttled (thermal) in 1 of 6 intervals (4 not read) of sample: 6-8 s."
            ),
            "{md}"
        );
    }
}
