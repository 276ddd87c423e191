//! SQL Server's part of preflight: what `plan` can learn from an external server without
//! changing it (one read-only login to `master`, bounded by a timeout): max server memory
//! against the dataset, `user connections` against the connections the plan opens, and worker
//! threads against them. An unreachable server is a note, not an error: `run` checks the same
//! limits once connected.

use std::time::Duration;

use crate::config::units::format_bytes;
use crate::engine::EngineConfig;
use crate::engine::mssql::{ServerFacts, probe};
use crate::report::result::{Finding, Level};
use crate::scenario::Plan;
use crate::scenario::plan::Provision;

/// How long `plan` waits for an external server.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// `user connections` 0 means the maximum.
const MAX_USER_CONNECTIONS: u64 = 32_767;

fn finding(level: Level, message: String) -> Finding {
    Finding { level, message }
}

/// The worker threads SQL Server (2016 and later, 64-bit) runs with `max worker threads` = 0
/// on a host with `cpus` logical processors.
pub fn default_max_workers(cpus: u64) -> u64 {
    match cpus {
        0..=4 => 512,
        5..=64 => 512 + (cpus - 4) * 16,
        _ => 512 + (cpus - 4) * 32,
    }
}

/// Private instances run on this host: their default worker threads against the connections.
pub fn local_findings(plan: &Plan, cpus: u64) -> Vec<Finding> {
    let local = plan
        .instances
        .iter()
        .any(|i| i.provision == Provision::Local && matches!(i.config, EngineConfig::Mssql(_)));
    let connections = u64::from(plan.workload.connections());
    let workers = default_max_workers(cpus);
    if !local || connections <= workers {
        return Vec::new();
    }
    vec![finding(
        Level::Warning,
        format!(
            "{connections} connections per SQL Server instance but about {workers} worker threads by default on this host's {cpus} CPUs: when more requests run at once than there are workers, they queue (THREADPOOL waits); lower workload.connections"
        ),
    )]
}

/// Findings for every external SQL Server of the plan that answers.
pub async fn external_findings(plan: &Plan) -> Vec<Finding> {
    let mut out = Vec::new();
    for inst in &plan.instances {
        let EngineConfig::Mssql(config) = &inst.config else {
            continue;
        };
        if inst.provision != Provision::External {
            continue;
        }
        let url = inst.url.clone().unwrap_or_default();
        let password = match super::servers::password(inst) {
            Ok(p) => p,
            Err(e) => {
                out.push(finding(
                    Level::Note,
                    format!("{e}: the server's limits were not checked"),
                ));
                continue;
            }
        };
        let probed =
            tokio::time::timeout(PROBE_TIMEOUT, probe(&url, password.as_deref(), config)).await;
        match probed {
            Ok(Ok(facts)) => out.extend(limit_findings(
                &inst.name,
                u64::from(plan.workload.connections()),
                plan.estimates.data_bytes_per_instance,
                &facts,
            )),
            Ok(Err(e)) => out.push(finding(
                Level::Note,
                format!("instance {}: not reachable from here ({e}); `run` checks its limits once connected", inst.name),
            )),
            Err(_) => out.push(finding(
                Level::Note,
                format!("instance {}: no answer within {} s; `run` checks its limits once connected", inst.name, PROBE_TIMEOUT.as_secs()),
            )),
        }
    }
    out
}

/// What a probed server's settings mean for the plan.
pub fn limit_findings(name: &str, connections: u64, data: u64, f: &ServerFacts) -> Vec<Finding> {
    let mut out = vec![finding(
        Level::Ok,
        format!("instance {name}: reached {}", f.version),
    )];
    if let Some(mb) = f.max_server_memory_mb {
        let pool = mb << 20;
        let ratio = data as f64 / pool.max(1) as f64;
        let regime = if ratio >= 3.0 {
            "I/O-bound: most reads miss the buffer pool and reach the drive"
        } else if ratio > 1.0 {
            "partly cached: the drive sees the misses and the writes"
        } else {
            "cache-bound: the data fits in memory, so the drive sees mostly log and checkpoint writes"
        };
        out.push(finding(
            Level::Note,
            format!(
                "instance {name}: dataset {} is {ratio:.1}x its max server memory {}: {regime}",
                format_bytes(data),
                format_bytes(pool)
            ),
        ));
    }
    let need = connections + 10;
    if let Some(user) = f.user_connections {
        let allowed = if user == 0 {
            MAX_USER_CONNECTIONS
        } else {
            user
        };
        if allowed < need {
            out.push(finding(
                Level::Error,
                format!("instance {name}: user connections is {allowed} but the plan opens {need}; raise it with EXEC sp_configure 'user connections', 0 and restart the server; `run` would refuse"),
            ));
        }
    }
    if let Some(workers) = f.max_workers
        && connections > workers
    {
        out.push(finding(
            Level::Warning,
            format!("instance {name}: {connections} connections but {workers} worker threads: when more requests run at once than there are workers, they queue for a worker (THREADPOOL waits) and the latency measures the server's scheduling, not the drive; raise 'max worker threads' or lower workload.connections"),
        ));
    }
    if !f.database_exists {
        out.push(finding(
            Level::Note,
            format!(
                "instance {name}: database {} does not exist yet; `run` creates it",
                f.database
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> ServerFacts {
        ServerFacts {
            version: "Microsoft SQL Server 2022".into(),
            database: "tpcc".into(),
            database_exists: true,
            max_server_memory_mb: Some(48 * 1024),
            user_connections: Some(0),
            max_workers: Some(2_000),
        }
    }

    #[test]
    fn default_worker_threads_follow_the_cpu_count() {
        assert_eq!(default_max_workers(2), 512);
        assert_eq!(default_max_workers(16), 704);
        assert_eq!(default_max_workers(64), 1472);
        assert_eq!(default_max_workers(128), 4480);
    }

    #[test]
    fn the_review_protocols_connections_against_local_worker_threads() {
        let path = std::path::Path::new("scenarios/storagereview-tpcc-mssql.toml");
        let plan = crate::scenario::load(path, &[], 1.0).unwrap();
        let few = local_findings(&plan, 8);
        assert_eq!(few.len(), 1, "1,000 connections, 576 workers on 8 CPUs");
        assert!(
            few[0].message.contains("about 576 worker threads"),
            "{few:?}"
        );
        assert!(
            local_findings(&plan, 64).is_empty(),
            "1,472 workers on 64 CPUs"
        );
    }

    #[test]
    fn server_limits_against_the_plan() {
        let levels = |f: &[Finding]| f.iter().map(|f| f.level).collect::<Vec<_>>();
        let ok = limit_findings("mssql-1", 1_000, 165 << 30, &facts());
        assert_eq!(levels(&ok), [Level::Ok, Level::Note]);
        assert!(
            ok[1]
                .message
                .contains("3.4x its max server memory 48.0 GiB: I/O-bound"),
            "{ok:?}"
        );
        let mut f = facts();
        f.user_connections = Some(500);
        f.max_workers = Some(576);
        f.database_exists = false;
        let bad = limit_findings("mssql-1", 1_000, 1 << 30, &f);
        assert_eq!(
            levels(&bad),
            [
                Level::Ok,
                Level::Note,
                Level::Error,
                Level::Warning,
                Level::Note
            ]
        );
        assert!(
            bad[2]
                .message
                .contains("user connections is 500 but the plan opens 1010")
        );
        assert!(bad[3].message.contains("576 worker threads"));
        assert!(bad[4].message.contains("database tpcc does not exist yet"));
    }
}
