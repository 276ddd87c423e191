//! summary.md: the run at a glance, in the reviews' shape — per instance and total TPS,
//! average and p99 latency — for every phase, recorded ones first.

use std::fmt::Write;

use super::result::{PhaseReport, RunReport, RunStatus};
use crate::scenario::units::{format_count, format_duration};
use crate::target::format_bytes;

pub fn summary(r: &RunReport) -> String {
    let mut s = String::new();
    let p = &r.plan;
    let _ = writeln!(s, "# drivebench: {}\n", p.name);
    let status = match r.status {
        RunStatus::Complete => "complete".to_string(),
        RunStatus::Running => "running (partial results)".to_string(),
        RunStatus::Failed => format!("failed: {}", r.error.as_deref().unwrap_or("unknown error")),
        RunStatus::Interrupted => "interrupted (partial results)".to_string(),
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
    let _ = writeln!(
        s,
        "- Host: {} ({}, {} CPUs)",
        r.environment.host.hostname, r.environment.host.os, r.environment.host.cpus
    );
    if let Some(i) = r.instances.first() {
        let _ = writeln!(s, "- Engine: {} x {}", r.instances.len(), i.version);
    }
    let w = &p.workload;
    let pacing = match w.rate {
        Some(rate) => format!("open model at {rate} tx/s per instance"),
        None => "closed loop".into(),
    };
    if !p.instances.is_empty() {
        let _ = writeln!(
            s,
            "- Workload: sysbench {}, {} tables x {} rows, {} clients per instance, {pacing}, rand_type {}",
            w.sysbench.test.name(),
            w.sysbench.tables,
            format_count(u64::from(w.sysbench.table_size)),
            w.clients,
            w.sysbench.rand_type.name()
        );
    }
    if p.time_scale != 1.0 {
        let _ = writeln!(
            s,
            "- Time scale: {} (every duration multiplied by it)",
            p.time_scale
        );
    }
    for i in &r.instances {
        if let Some(l) = &i.load {
            if l.reused {
                let _ = writeln!(s, "- Load {}: reused existing data", i.name);
            } else {
                let _ = writeln!(
                    s,
                    "- Load {}: {} rows in {:.1} s ({:.0} rows/s)",
                    i.name, l.rows, l.seconds, l.rows_per_s
                );
            }
        }
    }
    for wng in &r.warnings {
        let _ = writeln!(s, "- Warning: {wng}");
    }
    let ordered = r
        .phases
        .iter()
        .filter(|p| p.recorded)
        .chain(r.phases.iter().filter(|p| !p.recorded));
    for phase in ordered {
        phase_table(&mut s, phase);
    }
    if r.phases.is_empty() && !p.instances.is_empty() {
        let _ = writeln!(s, "\nNo phase was measured.");
    }
    super::sweeps::markdown(&mut s, &r.sweeps);
    s
}

fn phase_table(s: &mut String, ph: &PhaseReport) {
    let kind = if ph.recorded {
        "recorded"
    } else {
        "not recorded"
    };
    let dur = format_duration(std::time::Duration::from_secs_f64(ph.summary.seconds));
    let partial = if ph.completed { "" } else { ", stopped early" };
    let _ = writeln!(s, "\n## {} ({kind}, {dur}{partial})\n", ph.name);
    let _ = writeln!(
        s,
        "| instance | TPS | QPS | avg latency (ms) | p95 (ms) | p99 (ms) | max (ms) | errors |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for i in &ph.per_instance {
        let _ = writeln!(
            s,
            "| {} | {} |",
            i.instance,
            super::summary_cells(&i.summary).join(" | ")
        );
    }
    let t = &ph.summary;
    let _ = writeln!(
        s,
        "| **total** | **{:.2}** | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} | {} |",
        t.tps,
        t.qps,
        t.latency_ms.avg,
        t.latency_ms.p95,
        t.latency_ms.p99,
        t.latency_ms.max,
        t.errors
    );
    if ph.per_instance.len() > 1 {
        let m = &ph.mean_of_instances;
        let _ = writeln!(
            s,
            "| mean of instances (review style) | | | {:.3} | | {:.3} | | |",
            m.latency_avg_ms, m.latency_p99_ms
        );
    }
    let _ = writeln!(
        s,
        "\n{} transactions, {} queries (r/w/o {}/{}/{}), {} retries. Total latency figures come from merged histograms.",
        t.transactions,
        t.queries.total,
        t.queries.reads,
        t.queries.writes,
        t.queries.other,
        t.retries
    );
    if !t.errors_by_code.is_empty() {
        let codes: Vec<String> = t
            .errors_by_code
            .iter()
            .map(|e| format!("{} x{}", e.code, e.count))
            .collect();
        let _ = writeln!(s, "Errors by code: {}.", codes.join(", "));
    }
}
