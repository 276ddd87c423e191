//! Preflight: what can be known about a plan before anything starts — target, free space,
//! engine caveats, memory. `plan` prints the findings; `run` refuses on errors.

use std::path::Path;

use serde::Serialize;

use crate::scenario::Plan;
use crate::scenario::plan::{EngineKind, SysbenchTest};
use crate::target::{self, format_bytes};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub level: Level,
    pub message: String,
}

fn finding(level: Level, message: impl Into<String>) -> Finding {
    Finding {
        level,
        message: message.into(),
    }
}

/// Bytes already present in the instances' directories (reused data needs no new space).
pub fn existing_bytes(plan: &Plan) -> u64 {
    let root = Path::new(&plan.target_path);
    plan.instances
        .iter()
        .filter_map(|i| std::fs::read_dir(root.join(&i.name)).ok())
        .flat_map(|rd| rd.filter_map(|e| e.ok()?.metadata().ok()))
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Space the run still needs on the target.
pub fn needed_bytes(plan: &Plan) -> u64 {
    plan.estimates
        .data_bytes_total
        .saturating_sub(existing_bytes(plan))
}

pub fn check(plan: &Plan) -> Vec<Finding> {
    let mut out = Vec::new();
    let path = Path::new(&plan.target_path);
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => out.push(finding(
            Level::Ok,
            format!("target {} exists", plan.target_path),
        )),
        Ok(_) => out.push(finding(
            Level::Error,
            format!("target {} is not a directory", plan.target_path),
        )),
        Err(_) => out.push(finding(
            Level::Note,
            format!("target {} will be created", plan.target_path),
        )),
    }
    let needed = needed_bytes(plan);
    match target::free_space_bytes(path) {
        Ok(free) if free >= needed => out.push(finding(
            Level::Ok,
            format!("free space {} covers the estimated {} of new data", format_bytes(free), format_bytes(needed)),
        )),
        Ok(free) => out.push(finding(
            Level::Error,
            format!("not enough free space: the data needs about {} but only {} is free; `run` would refuse", format_bytes(needed), format_bytes(free)),
        )),
        Err(e) => out.push(finding(Level::Warning, e.to_string())),
    }
    let w = &plan.workload;
    let writes = !matches!(
        w.sysbench.test,
        SysbenchTest::OltpReadOnly | SysbenchTest::OltpPointSelect
    );
    if plan
        .instances
        .iter()
        .any(|i| i.engine == EngineKind::Sqlite)
        && writes
        && w.clients > 1
    {
        out.push(finding(
            Level::Note,
            format!(
                "SQLite has one writer at a time: the write transactions of the {} clients per instance are serialised, so the figures measure the drive through a single-writer engine",
                w.clients
            ),
        ));
    }
    if plan.time_scale != 1.0 {
        out.push(finding(Level::Note, format!("time scale {}: every duration is multiplied by it; figures are not comparable with a full-length run", plan.time_scale)));
    }
    let host = crate::report::host::host_info();
    if let Some(mem) = host.memory_bytes
        && plan.estimates.client_memory_bytes > mem / 2
    {
        out.push(finding(
            Level::Warning,
            format!(
                "client-side memory estimate {} exceeds half of this host's {}",
                format_bytes(plan.estimates.client_memory_bytes),
                format_bytes(mem)
            ),
        ));
    }
    out
}
