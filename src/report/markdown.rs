//! summary.md: the run at a glance, in the reviews' shape — per instance and total TPS,
//! average and p99 latency — for every phase, recorded ones first.

use std::fmt::Write;

use crate::results::phase::PhaseReport;

use crate::results::run::RunReport;
use crate::results::status::RunStatus;
use crate::scenario::plan::PlanWorkload;
use drivebench_core::config::units::format_bytes;
use drivebench_core::config::units::format_seconds;

pub fn summary(r: &RunReport) -> String {
    let mut s = String::new();
    let p = &r.plan;
    let _ = writeln!(s, "# drivebench: {}\n", p.name);
    run_lines(&mut s, r);
    workload_lines(&mut s, r);
    if let Some(t) = super::load_table(r) {
        s.push_str("\n## Load\n\n");
        super::table::markdown(&mut s, &t);
    }
    let ordered = r
        .phases
        .iter()
        .filter(|p| p.recorded)
        .chain(r.phases.iter().filter(|p| !p.recorded));
    for phase in ordered {
        phase_table(&mut s, phase);
        if let Some(st) = &phase.steady {
            let _ = writeln!(s, "\nSteady state: {}", st.line());
        }
        if let Some(c) = &phase.cliff {
            super::cliff::markdown(&mut s, c);
        }
        if let Some(t) = &phase.telemetry {
            super::telemetry::markdown(&mut s, t);
        }
        if phase.recorded {
            super::engine_io::markdown(&mut s, phase);
        }
    }
    if r.phases.is_empty() && p.database.is_some() {
        let _ = writeln!(s, "\nNo phase was measured.");
    }
    if let Some(m) = &r.merge {
        super::merge::markdown::markdown(&mut s, m);
    }
    if let Some(sec) = super::health::section(r) {
        super::table::section_markdown(&mut s, &sec, 2);
    }
    super::server_settings::markdown(&mut s, &r.instances);
    super::engine_io::missing_markdown(&mut s, &r.instances);
    for sec in super::benchmark_sections(r) {
        super::table::section_markdown(&mut s, &sec, 2);
    }
    super::curves::markdown(&mut s, &r.curves);
    super::sweeps::markdown(&mut s, &r.sweeps);
    if let Some(c) = &r.capture {
        super::replay::capture_markdown(&mut s, c);
    }
    if let Some(rp) = &r.replay {
        super::replay::replay_markdown(&mut s, rp);
    }
    s
}

/// The run's list items: status, start, target (and its device), host, engine.
fn run_lines(s: &mut String, r: &RunReport) {
    let status = match &r.status {
        RunStatus::Complete { .. } => "complete".to_string(),
        RunStatus::Running => "running (partial results)".to_string(),
        RunStatus::Failed { error } => format!("failed: {error}"),
        RunStatus::Interrupted { .. } => "interrupted (partial results)".to_string(),
    };
    let _ = writeln!(s, "- Status: {status}");
    let _ = writeln!(
        s,
        "- Started: {} (drivebench {})",
        r.started_at, r.drivebench_version
    );
    let t = &r.environment.target;
    let mut target = t.describe();
    if let Some(d) = &t.device {
        let model = d.model.as_deref().unwrap_or("unknown model");
        let cap = d.capacity_bytes.map(format_bytes).unwrap_or_default();
        let _ = write!(target, "; device {} {model} {cap}", d.name);
    }
    let _ = writeln!(s, "- Target: {target}");
    if let Some(state) = &r.start_state {
        let _ = writeln!(s, "- Start state: {}", state.line());
    }
    let _ = writeln!(
        s,
        "- Host: {} ({}, {} CPUs)",
        r.environment.host.hostname, r.environment.host.os, r.environment.host.cpus
    );
    if let Some(i) = r.instances.first() {
        let _ = writeln!(s, "- Engine: {} x {}", r.instances.len(), i.version);
    }
}

/// What ran, in one line: the benchmark's own line with the clients and their pacing.
pub fn workload_line(w: &PlanWorkload) -> String {
    let pacing = match w.rate {
        Some(rate) => format!("open model at {rate} tx/s per instance"),
        None => "closed loop".into(),
    };
    w.benchmark.report_line(w.clients, w.connections(), &pacing)
}

/// The workload's list items: what ran, the time scale, the warnings.
fn workload_lines(s: &mut String, r: &RunReport) {
    let p = &r.plan;
    if let Some(db) = &p.database {
        let _ = writeln!(s, "- Workload: {}", workload_line(&db.workload));
        for phase in &db.phases {
            if let Some(rate) = phase.rate {
                let _ = writeln!(
                    s,
                    "- Phase {}: open model at {rate} tx/s per instance",
                    phase.name
                );
            }
        }
    }
    if p.time_scale != 1.0 {
        let _ = writeln!(
            s,
            "- Time scale: {} (every duration multiplied by it)",
            p.time_scale
        );
    }
    for wng in &r.warnings {
        let _ = writeln!(s, "- Warning: {wng}");
    }
}

fn phase_table(s: &mut String, ph: &PhaseReport) {
    let kind = if ph.recorded {
        "recorded"
    } else {
        "not recorded"
    };
    let dur = format_seconds(ph.summary.seconds);
    let partial = if ph.completed { "" } else { ", stopped early" };
    let _ = writeln!(s, "\n## {} ({kind}, {dur}{partial})\n", ph.name);
    super::table::markdown(s, &super::phase_table(ph));
    let t = &ph.summary;
    let _ = writeln!(
        s,
        "\n{} transactions, {} queries (r/w/o {}/{}/{}). Total latency figures come from merged histograms.",
        t.transactions, t.queries.total, t.queries.reads, t.queries.writes, t.queries.other
    );
}
