//! One run from several hosts' runs of the same scenario (`drivebench merge`). Per phase: the
//! hosts' instances rebuilt from their histograms and merged, so latency percentiles are those
//! of one histogram of every transaction (never a mean of percentiles); TPS is the hosts' TPS
//! summed; series rows moved onto one clock; the benchmark's own figures merged by the
//! benchmark (TPC-C's tpmC and NOPM summed) and every host's checks listed; the engines' I/O
//! figures per host, their rates summed in total. The reviews' mean of per-instance figures stays, labelled, beside them.
//! Load curves and sweeps are kept per host, not merged.

pub mod markdown;

use crate::results::engine_io::{EngineIoRow, InstanceEngineIo, SpanEngineIo, merged_total};
use crate::results::merge::{HostPhase, MergeReport, MergedHost, MergedPhase, RULES};

use crate::metrics::Recorded;
use crate::metrics::rebuild::{PhaseHistograms, RebuildError, rebuild};
use crate::metrics::summary::{MeanOfInstances, Summary};
use crate::results::phase::{InstancePhase, PhaseReport, SeriesRow};
use crate::results::run::RunReport;
use crate::results::status::{RunStatus, StatusName};
use crate::workload::benchmark::Benchmark;
use crate::workload::views::{HostPart, MergedFigures};
use drivebench_core::config::units::parse_utc;
use drivebench_system::telemetry::clock::ClockState;

/// A host's run to merge.
pub struct HostRun {
    pub label: String,
    pub run_dir: String,
    pub report: RunReport,
}

/// Why runs cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge: give at least two run directories")]
    TooFew,
    #[error("{label}: {why}; merge runs of the same workload, or --force")]
    Workload { label: String, why: String },
    #[error("{label}: its phases never started (no `clock` in result.json)")]
    NotStarted { label: String },
    #[error(
        "{label}: phase {phase} instance {instance}: no histograms beyond the total (result.json from an older drivebench); rerun it"
    )]
    NoHistograms {
        label: String,
        phase: String,
        instance: String,
    },
    #[error("{label}: phase {phase} instance {instance}: {source}")]
    Rebuild {
        label: String,
        phase: String,
        instance: String,
        source: RebuildError,
    },
    #[error("{label}: {what}: {text:?} is not an RFC 3339 time")]
    Time {
        label: String,
        what: &'static str,
        text: String,
    },
}

/// Seconds of each host's phase-clock start after the earliest one, in host order.
fn starts(hosts: &[HostRun]) -> Result<Vec<f64>, MergeError> {
    let mut at = Vec::new();
    for h in hosts {
        let clock = h
            .report
            .clock
            .as_ref()
            .ok_or_else(|| MergeError::NotStarted {
                label: h.label.clone(),
            })?;
        let t = parse_utc(&clock.phases_started_at).map_err(|_| MergeError::Time {
            label: h.label.clone(),
            what: "clock.phases_started_at",
            text: clock.phases_started_at.clone(),
        })?;
        at.push(t);
    }
    let first = at.iter().min().copied().ok_or(MergeError::TooFew)?;
    Ok(at
        .iter()
        .map(|t| t.duration_since(first).map_or(0.0, |d| d.as_secs_f64()))
        .collect())
}

/// Refuse runs of different workloads (unless `force`): another benchmark or options, other
/// clients, other phases. What `force` lets through becomes a warning.
pub fn check_same_workload(hosts: &[HostRun], force: bool) -> Result<Vec<String>, MergeError> {
    let first = &hosts[0];
    let mut warnings = Vec::new();
    for h in &hosts[1..] {
        let (a, b) = (&first.report, &h.report);
        let why = match (&a.plan.database, &b.plan.database) {
            (Some(x), Some(y)) if x.workload.benchmark != y.workload.benchmark => Some(format!(
                "its workload ({}) differs from {}'s ({})",
                benchmark_line(&y.workload.benchmark),
                first.label,
                benchmark_line(&x.workload.benchmark)
            )),
            (Some(x), Some(y)) if x.workload.clients != y.workload.clients => Some(format!(
                "{} clients per instance, {} has {}",
                y.workload.clients, first.label, x.workload.clients
            )),
            (Some(_), Some(_)) if phase_names(a) != phase_names(b) => Some(format!(
                "phases {:?}, {} has {:?}",
                phase_names(b),
                first.label,
                phase_names(a)
            )),
            (Some(_), Some(_)) => None,
            _ => Some("a run without a database part (a sweep)".to_string()),
        };
        match why {
            Some(why) if !force => {
                return Err(MergeError::Workload {
                    label: h.label.clone(),
                    why,
                });
            }
            Some(why) => warnings.push(format!("merged with --force: {}: {why}", h.label)),
            None => {}
        }
    }
    Ok(warnings)
}

fn benchmark_line(b: &Benchmark) -> String {
    serde_json::to_string(b).unwrap_or_else(|_| "?".into())
}

fn phase_names(r: &RunReport) -> Vec<&str> {
    r.phases.iter().map(|p| p.name.as_str()).collect()
}

/// An offset beyond this (or an unknown one) is worth a warning: series of hosts this far
/// apart are not aligned to the report interval's precision.
pub const LARGE_OFFSET_S: f64 = 0.1;

/// Merge the hosts' runs into one run (labels already unique).
pub fn merge(hosts: &[HostRun], force: bool) -> Result<RunReport, MergeError> {
    if hosts.len() < 2 {
        return Err(MergeError::TooFew);
    }
    let mut warnings = check_same_workload(hosts, force)?;
    let skew = starts(hosts)?;
    let first = &hosts[0].report;
    let interval_s = (first.plan.report_interval_ms as f64 / 1000.0).max(1e-3);
    warnings.extend(clock_warnings(hosts, &skew, interval_s));
    let mut phases = Vec::new();
    let mut merged_phases = Vec::new();
    for p in &first.phases {
        if hosts.iter().any(|h| find_phase(h, &p.name).is_none()) {
            warnings.push(format!(
                "phase {}: not measured on every host; left out",
                p.name
            ));
            continue;
        }
        let (phase, merged) = merge_phase(hosts, &skew, &p.name, interval_s)?;
        phases.push(phase);
        merged_phases.push(merged);
    }
    let earliest = skew.iter().position(|s| *s == 0.0).unwrap_or(0);
    let mut report = combined_report(hosts, earliest, warnings);
    report.phases = phases;
    report.merge = Some(MergeReport {
        hosts: merged_hosts(hosts, &skew),
        start_skew_s: skew.iter().copied().fold(0.0, f64::max),
        phases: merged_phases,
        rules: RULES.to_string(),
    });
    Ok(report)
}

fn find_phase<'a>(h: &'a HostRun, name: &str) -> Option<&'a PhaseReport> {
    h.report.phases.iter().find(|p| p.name == name)
}

fn prefixed(label: &str, name: &str) -> String {
    format!("{label}/{name}")
}

/// Warnings about the hosts' clocks: a start skew beyond one report interval, an offset
/// unknown, large or unsynchronised.
fn clock_warnings(hosts: &[HostRun], skew: &[f64], interval_s: f64) -> Vec<String> {
    let mut w = Vec::new();
    for (h, s) in hosts.iter().zip(skew) {
        if *s > interval_s {
            w.push(format!(
                "{}: started its phases {s:.3} s after the first host, more than one report interval ({interval_s} s): series rows of different hosts cover different spans",
                h.label
            ));
        }
        let Some(clock) = &h.report.clock else {
            continue;
        };
        match &clock.state {
            ClockState::Unknown { .. } => w.push(format!(
                "{}: clock offset unknown (neither chrony nor timedatectl answered): the start skew is as the hosts' clocks say",
                h.label
            )),
            ClockState::Chrony { offset_s, .. } if offset_s.abs() > LARGE_OFFSET_S => w.push(
                format!("{}: clock offset {offset_s:+.3} s from NTP time", h.label),
            ),
            ClockState::Chrony {
                synchronized: false,
                ..
            }
            | ClockState::Timedatectl {
                synchronized: false,
            } => w.push(format!("{}: clock not synchronised", h.label)),
            _ => {}
        }
    }
    w
}

fn merged_hosts(hosts: &[HostRun], skew: &[f64]) -> Vec<MergedHost> {
    hosts
        .iter()
        .zip(skew)
        .map(|(h, s)| {
            let clock = h.report.clock.as_ref();
            MergedHost {
                label: h.label.clone(),
                run_dir: h.run_dir.clone(),
                hostname: h.report.environment.host.hostname.clone(),
                complete: h.report.status.is_complete(),
                error: h.report.status.error().map(str::to_string),
                phases_started_at: clock
                    .map(|c| c.phases_started_at.clone())
                    .unwrap_or_default(),
                late_by_s: clock.and_then(|c| c.start_at.as_ref()).map(|a| a.late_by_s),
                skew_s: *s,
                clock: clock.map_or_else(
                    || ClockState::Unknown {
                        why: "no clock record".into(),
                    },
                    |c| c.state.clone(),
                ),
            }
        })
        .collect()
}

/// One phase of every host merged: the phase report and its per-host rows.
fn merge_phase(
    hosts: &[HostRun],
    skew: &[f64],
    name: &str,
    interval_s: f64,
) -> Result<(PhaseReport, MergedPhase), MergeError> {
    let parts: Vec<(&HostRun, &PhaseReport, f64)> = hosts
        .iter()
        .zip(skew)
        .filter_map(|(h, s)| Some((h, find_phase(h, name)?, *s)))
        .collect();
    let base = parts[0].1;
    let kinds: Vec<&str> = (base.summary.per_kind.iter())
        .map(|k| k.kind.as_str())
        .collect();
    let mut all = Recorded::new(kinds.len());
    let mut per_instance = Vec::new();
    let mut series = Vec::new();
    let mut rows = Vec::new();
    for &(h, p, shift) in &parts {
        for ip in &p.per_instance {
            all.merge(&rebuilt(h, p, ip)?);
            per_instance.push(InstancePhase {
                instance: prefixed(&h.label, &ip.instance),
                ..ip.clone()
            });
        }
        series.extend(p.series.iter().map(|row| SeriesRow {
            instance: prefixed(&h.label, &row.instance),
            elapsed_s: ((row.elapsed_s + shift) / interval_s).round() * interval_s,
            ..row.clone()
        }));
        rows.push(host_row(h, p));
    }
    series.sort_by(|a, b| a.elapsed_s.total_cmp(&b.elapsed_s));
    let tps: f64 = rows.iter().map(|r| r.tps).sum();
    let max_seconds = parts
        .iter()
        .map(|p| p.1.summary.seconds)
        .fold(0.0, f64::max);
    // The seconds that make the merged TPS the hosts' TPS summed.
    let seconds = if tps > 0.0 {
        all.transactions() as f64 / tps
    } else {
        max_seconds
    };
    let summary = Summary::from_recorded(&all, &kinds, seconds);
    let refs: Vec<&Summary> = per_instance.iter().map(|p| &p.summary).collect();
    let figures = merged_figures(hosts, &parts, &summary);
    let mut phase = PhaseReport {
        completed: parts.iter().all(|p| p.1.completed),
        mean_of_instances: MeanOfInstances::of(&refs),
        histogram: drivebench_core::histogram::encode(&all.response_total()),
        telemetry: None,
        steady: None,
        cliff: None,
        engine_io: merged_engine_io(&parts, interval_s),
        health: None,
        summary,
        per_instance,
        series,
        ..base.clone()
    };
    phase.set_figures(figures);
    let merged = MergedPhase {
        phase: name.to_string(),
        common_window_s: common_window(&parts),
        hosts: rows,
    };
    Ok((phase, merged))
}

/// One host's row of a merged phase.
fn host_row(h: &HostRun, p: &PhaseReport) -> HostPhase {
    HostPhase {
        label: h.label.clone(),
        transactions: p.summary.transactions,
        tps: p.summary.tps,
        latency_avg_ms: p.summary.latency_ms.avg,
        latency_p99_ms: p.summary.latency_ms.p99,
        tpmc: p.figures().tpmc(),
        nopm: p.figures().nopm(),
        engine_io: p.engine_io.as_ref().and_then(|e| e.total.clone()),
        health: p.health.clone(),
        cliff: p.cliff.clone(),
    }
}

/// The hosts' engine I/O of a phase: every host's instances (prefixed) and interval rows on
/// the earliest host's clock, the total summed; None unless every host sampled it.
fn merged_engine_io(
    parts: &[(&HostRun, &PhaseReport, f64)],
    interval_s: f64,
) -> Option<SpanEngineIo> {
    let mut per_instance = Vec::new();
    let mut series = Vec::new();
    let mut totals = Vec::new();
    for &(h, p, shift) in parts {
        let io = p.engine_io.as_ref()?;
        per_instance.extend(io.per_instance.iter().map(|i| InstanceEngineIo {
            instance: prefixed(&h.label, &i.instance),
            figures: i.figures.clone(),
        }));
        series.extend(io.series.iter().map(|row| EngineIoRow {
            instance: prefixed(&h.label, &row.instance),
            elapsed_s: ((row.elapsed_s + shift) / interval_s).round() * interval_s,
            ..row.clone()
        }));
        totals.push((io.total.as_ref(), p.summary.transactions));
    }
    series.sort_by(|a, b| a.elapsed_s.total_cmp(&b.elapsed_s));
    let total: Option<Vec<_>> = totals.into_iter().map(|(t, n)| Some((t?, n))).collect();
    Some(SpanEngineIo {
        per_instance,
        total: total.map(|t| merged_total(&t)),
        series,
    })
}

/// An instance's phase rebuilt from its summary and histograms.
fn rebuilt(h: &HostRun, p: &PhaseReport, ip: &InstancePhase) -> Result<Recorded, MergeError> {
    let names = || (h.label.clone(), p.name.clone(), ip.instance.clone());
    let hist: &PhaseHistograms = ip.histograms.as_ref().ok_or_else(|| {
        let (label, phase, instance) = names();
        MergeError::NoHistograms {
            label,
            phase,
            instance,
        }
    })?;
    rebuild(&ip.summary, hist).map_err(|source| {
        let (label, phase, instance) = names();
        MergeError::Rebuild {
            label,
            phase,
            instance,
            source,
        }
    })
}

/// From the latest host's start of the phase to the earliest host's end, seconds (0 when
/// they do not overlap).
fn common_window(parts: &[(&HostRun, &PhaseReport, f64)]) -> f64 {
    let start = parts
        .iter()
        .map(|(_, p, shift)| shift + p.start_offset_s)
        .fold(f64::MIN, f64::max);
    let end = parts
        .iter()
        .map(|(_, p, shift)| shift + p.start_offset_s + p.summary.seconds)
        .fold(f64::MAX, f64::min);
    (end - start).max(0.0)
}

/// The benchmark's figures of the merged phase, from the merged summary and the hosts' own
/// (none when a host has none).
fn merged_figures(
    hosts: &[HostRun],
    parts: &[(&HostRun, &PhaseReport, f64)],
    summary: &Summary,
) -> MergedFigures {
    let Some(db) = hosts[0].report.plan.database.as_ref() else {
        return MergedFigures::default();
    };
    let instances = hosts.iter().map(|h| h.report.instances.len()).sum();
    let host_parts: Vec<HostPart> = parts
        .iter()
        .map(|(h, p, _)| HostPart {
            label: &h.label,
            figures: p.figures(),
        })
        .collect();
    let w = &db.workload;
    w.benchmark
        .merged_figures(&host_parts, summary, w.clients, w.rate, instances)
}

/// Everything but the phases: the first host's plan and environment with every host's
/// instances (named `label/instance`), checks, findings and warnings; the worst status.
fn combined_report(hosts: &[HostRun], earliest: usize, mut warnings: Vec<String>) -> RunReport {
    let mut r = hosts[0].report.clone();
    renamed(&mut r, hosts);
    warnings.extend(hosts.iter().flat_map(|h| {
        let kept = (!h.report.curves.is_empty() || !h.report.sweeps.is_empty()).then(|| {
            format!(
                "{}: its load curves and sweeps are not merged; see {}",
                h.label, h.run_dir
            )
        });
        let own = h
            .report
            .warnings
            .iter()
            .map(|w| format!("{}: {w}", h.label));
        kept.into_iter().chain(own).collect::<Vec<_>>()
    }));
    r.warnings = warnings;
    // A run of several hosts: named by them, so it is never taken for one host's own run.
    let names: Vec<&str> = hosts.iter().map(|h| h.label.as_str()).collect();
    r.environment.host.hostname = names.join("+");
    r.curves.clear();
    r.sweeps.clear();
    r.device_stack = None;
    r.capture = None;
    r.replay = None;
    r.status = merged_status(hosts);
    r.started_at = hosts
        .iter()
        .map(|h| h.report.started_at.clone())
        .min()
        .unwrap_or_default();
    r.finished_at = hosts
        .iter()
        .filter_map(|h| h.report.finished_at.clone())
        .max();
    r.clock = hosts[earliest].report.clock.clone().map(|mut c| {
        c.start_at = None;
        c
    });
    r
}

/// Every host's instances, plan instances, checks and findings, named by their host.
fn renamed(r: &mut RunReport, hosts: &[HostRun]) {
    use crate::results::finding::Finding;
    use crate::results::run::InstanceReport;
    use crate::scenario::plan::PlanInstance;
    fn all<T, U>(
        hosts: &[HostRun],
        of: impl Fn(&HostRun) -> &[T],
        f: impl Fn(&str, &T) -> U,
    ) -> Vec<U> {
        hosts
            .iter()
            .flat_map(|h| of(h).iter().map(|x| f(&h.label, x)).collect::<Vec<_>>())
            .collect()
    }
    r.instances = all(
        hosts,
        |h| &h.report.instances,
        |l, i| InstanceReport {
            name: prefixed(l, &i.name),
            ..i.clone()
        },
    );
    r.checks = all(
        hosts,
        |h| &h.report.checks,
        |l, c| {
            let mut c = c.clone();
            c.instance = prefixed(l, &c.instance);
            c
        },
    );
    r.preflight = all(
        hosts,
        |h| &h.report.preflight,
        |l, f| Finding {
            message: format!("{l}: {}", f.message),
            ..f.clone()
        },
    );
    let instances = all(hosts, planned_instances, |l, i| PlanInstance {
        name: prefixed(l, &i.name),
        ..i.clone()
    });
    if let Some(db) = r.plan.database.as_mut() {
        db.instances = instances
            .into_iter()
            .enumerate()
            .map(|(index, i)| PlanInstance { index, ..i })
            .collect();
    }
}

fn planned_instances(h: &HostRun) -> &[crate::scenario::plan::PlanInstance] {
    h.report
        .plan
        .database
        .as_ref()
        .map_or(&[], |d| &d.instances)
}

/// The worst of the hosts' statuses (failed, then interrupted, then running, then complete),
/// with the first host's error named by its label.
fn merged_status(hosts: &[HostRun]) -> RunStatus {
    let rank = |s: &StatusName| match s {
        StatusName::Failed => 3,
        StatusName::Interrupted => 2,
        StatusName::Running => 1,
        StatusName::Complete => 0,
    };
    let error = hosts.iter().find_map(|h| {
        let e = h.report.status.error()?;
        Some(format!("{}: {e}", h.label))
    });
    let worst = hosts
        .iter()
        .map(|h| h.report.status.name())
        .max_by_key(rank);
    match worst.unwrap_or(StatusName::Complete) {
        StatusName::Running => RunStatus::Running,
        StatusName::Complete => RunStatus::Complete {
            failed_checks: error,
        },
        StatusName::Failed => RunStatus::Failed {
            error: error.unwrap_or_else(|| "unknown error".to_string()),
        },
        StatusName::Interrupted => RunStatus::Interrupted { why: error },
    }
}

/// The label of each run directory: its `--label`, else its host name, else (host names
/// repeating) the directory's name, numbered when even those repeat.
pub fn labels(dirs: &[(Option<String>, String, String)]) -> Vec<String> {
    let count = |name: &str| dirs.iter().filter(|(_, _, h)| h == name).count();
    let mut out: Vec<String> = dirs
        .iter()
        .map(|(given, dir, host)| match given {
            Some(l) => l.clone(),
            None if count(host) == 1 => host.clone(),
            None => std::path::Path::new(dir)
                .file_name()
                .map_or_else(|| dir.clone(), |n| n.to_string_lossy().into_owned()),
        })
        .collect();
    for i in 0..out.len() {
        if out[..i].contains(&out[i]) {
            let mut n = 2;
            while out.contains(&format!("{}-{n}", out[i])) {
                n += 1;
            }
            out[i] = format!("{}-{n}", out[i]);
        }
    }
    out
}
