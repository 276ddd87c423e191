//! SQL Server's part of preflight: a private instance's default worker threads against the
//! connections the run opens, where an external server puts the database, and what `plan` can
//! learn from an external server without changing it (one read-only login to `master`, bounded
//! by a timeout): max server memory against the dataset, `user connections` against the
//! connections, and worker threads against them. It runs after the connection probe every
//! server engine has (an unreachable server is an error there); should its queries fail
//! still, that is a note: `run` checks the same limits once connected.

use std::time::Duration;

use super::{MssqlConfig, ServerFacts, probe};
use crate::engines::server::Probe;
use crate::engines::{Advice, PreflightRun, Severity};
use drivebench_core::config::units::{format_bytes, format_ratio};

/// How long `plan` waits for an external server.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// `user connections` 0 means the maximum.
const MAX_USER_CONNECTIONS: u64 = 32_767;

fn finding(level: Severity, message: String) -> Advice {
    Advice::new(level, message)
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

/// What the settings of a run's instances say: an external server's database directory, the
/// worker threads of private ones, and how the engine is validated.
pub fn run_findings(run: &PreflightRun<'_, MssqlConfig>) -> Vec<Advice> {
    let mut out = Vec::new();
    for i in &run.instances {
        if i.external && i.config.database_dir.is_none() {
            out.push(finding(
                Severity::Warning,
                format!(
                    "instance {}: no database_dir in [instance.config]: if drivebench creates the database, its data and log files go to the server's default directories, which may not be on the drive under test",
                    i.name
                ),
            ));
        }
    }
    if !run.instances.is_empty() {
        out.push(finding(
            Severity::Note,
            "the SQL Server engine is validated in CI against a TDS emulator (Iridium SQL, not Microsoft SQL Server) and against real SQL Server only when MSSQL_URL is provided to the tests".into(),
        ));
    }
    if run.instances.iter().any(|i| !i.external) {
        out.extend(local_findings(run.connections, run.cpus));
    }
    out
}

/// Private instances run on this host: their default worker threads against the connections.
pub fn local_findings(connections: u64, cpus: u64) -> Vec<Advice> {
    let workers = default_max_workers(cpus);
    if connections <= workers {
        return Vec::new();
    }
    vec![finding(
        Severity::Warning,
        format!(
            "{connections} connections per SQL Server instance but about {workers} worker threads by default on this host's {cpus} CPUs: when more requests run at once than there are workers, they queue (THREADPOOL waits); lower workload.connections"
        ),
    )]
}

/// Findings for an external SQL Server that answers.
pub async fn external_findings(p: Probe<'_, MssqlConfig>) -> Vec<Advice> {
    let password = match p.password {
        Ok(pw) => pw,
        Err(e) => {
            return vec![finding(
                Severity::Note,
                format!("{e}: the server's limits were not checked"),
            )];
        }
    };
    let probed =
        tokio::time::timeout(PROBE_TIMEOUT, probe(p.url, password.as_deref(), p.config)).await;
    match probed {
        Ok(Ok(facts)) => limit_findings(p.name, p.connections, p.data_bytes, &facts),
        Ok(Err(e)) => vec![finding(
            Severity::Note,
            format!(
                "instance {}: not reachable from here ({e}); `run` checks its limits once connected",
                p.name
            ),
        )],
        Err(_) => vec![finding(
            Severity::Note,
            format!(
                "instance {}: no answer within {} s; `run` checks its limits once connected",
                p.name,
                PROBE_TIMEOUT.as_secs()
            ),
        )],
    }
}

/// What a probed server's settings mean for the plan (that it answered, and its version, is
/// said by the connection probe every server engine has).
pub fn limit_findings(name: &str, connections: u64, data: u64, f: &ServerFacts) -> Vec<Advice> {
    let mut out = Vec::new();
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
            Severity::Note,
            format!(
                "instance {name}: dataset {} is {} its max server memory {}: {regime}",
                format_bytes(data),
                format_ratio(ratio),
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
                Severity::Error,
                format!("instance {name}: user connections is {allowed} but the plan opens {need}; raise it with EXEC sp_configure 'user connections', 0 and restart the server; `run` would refuse"),
            ));
        }
    }
    if let Some(workers) = f.max_workers
        && connections > workers
    {
        out.push(finding(
            Severity::Warning,
            format!("instance {name}: {connections} connections but {workers} worker threads: when more requests run at once than there are workers, they queue for a worker (THREADPOOL waits) and the latency measures the server's scheduling, not the drive; raise 'max worker threads' or lower workload.connections"),
        ));
    }
    if !f.database_exists {
        out.push(finding(
            Severity::Note,
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
    fn server_limits_against_the_plan() {
        let levels = |f: &[Advice]| f.iter().map(|f| f.severity).collect::<Vec<_>>();
        let ok = limit_findings("mssql-1", 1_000, 165 << 30, &facts());
        assert_eq!(levels(&ok), [Severity::Note]);
        assert!(
            ok[0]
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
                Severity::Note,
                Severity::Error,
                Severity::Warning,
                Severity::Note
            ]
        );
        assert!(
            bad[1]
                .message
                .contains("user connections is 500 but the plan opens 1010")
        );
        assert!(bad[2].message.contains("576 worker threads"));
        assert!(bad[3].message.contains("database tpcc does not exist yet"));
    }
}
