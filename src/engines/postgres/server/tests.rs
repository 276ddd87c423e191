//! Private instances against the real PostgreSQL binaries. These need PostgreSQL installed and
//! fail, not skip, without it: CI installs the server for them.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::launch::accepts_connections;
use super::*;
use crate::engines::server::has_exited;
use crate::engines::server::test_support::{
    Lifecycle, START_TIMEOUT, lifecycle_tests, process_exists, shared, test_dir, timed_start,
};

/// How long the backends of a killed postmaster get to notice and exit.
const ORPHAN_GRACE: Duration = Duration::from_secs(10);

/// Small settings for a test instance (a start without a server binary fails the test, naming
/// where it looked).
fn settings() -> PostgresSettings {
    PostgresSettings {
        shared_buffers_bytes: 32 << 20,
        max_wal_size_bytes: Some(256 << 20),
        synchronous_commit: Some("off".to_string()),
        wal_sync_method: Some("fdatasync".to_string()),
        checkpoint_timeout_s: Some(600),
        max_connections: 20,
        ..PostgresSettings::default()
    }
}

fn start(dir: &Path, settings: &PostgresSettings) -> PostgresInstance {
    timed_start(dir, || {
        PostgresInstance::start("test", dir, settings, START_TIMEOUT)
    })
}

/// Live processes in the process group `pid` led (the postmaster and its backends), or whose
/// command line mentions `dir`.
fn processes_of(pid: u32, dir: &Path) -> Vec<String> {
    let dir = dir.to_str().unwrap();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let Some(other) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let group = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<u32>().ok());
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if (group == Some(pid) || cmdline.contains(dir)) && !has_exited(other) {
            found.push(format!("{other}: {cmdline}"));
        }
    }
    found
}

/// Fail unless every process of the server is gone within [`ORPHAN_GRACE`].
fn assert_nothing_left(pid: u32, dir: &Path) {
    let deadline = Instant::now() + ORPHAN_GRACE;
    loop {
        let left = processes_of(pid, dir);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "still running: {left:#?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One statement's result through `psql` (the one installed with the server), connecting to
/// `host` (127.0.0.1 or the socket directory).
fn psql(host: &str, port: u16, sql: &str) -> String {
    let server = locate::server(None).unwrap();
    let output = Command::new(server.postgres.with_file_name("psql"))
        .args(["-X", "-At", "-U", "postgres", "-d", "postgres", "-h", host])
        .args(["-p", &port.to_string(), "-c", sql])
        .env("PGCONNECT_TIMEOUT", "10")
        .output()
        .expect("run psql");
    assert!(
        output.status.success(),
        "psql -h {host} -c {sql:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// One statement's result through `psql` connecting to `url`.
fn psql_url(url: &str, sql: &str) -> String {
    let server = locate::server(None).unwrap();
    let output = Command::new(server.postgres.with_file_name("psql"))
        .args(["-X", "-At", "-d", url, "-c", sql])
        .env("PGCONNECT_TIMEOUT", "10")
        .output()
        .expect("run psql");
    assert!(
        output.status.success(),
        "psql -d {url} -c {sql:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

#[test]
fn a_started_server_accepts_connections_and_stops_cleanly() {
    let _servers = shared();
    let top = test_dir();
    let dir = top.path().join("pg 1");
    let mut db = start(&dir, &settings());
    assert!(!db.reused_data());
    assert_ne!(db.port(), 5432);
    assert!(accepts_connections(db.port()));
    let escaped = std::path::absolute(&dir)
        .unwrap()
        .to_str()
        .unwrap()
        .replace('/', "%2F")
        .replace(' ', "%20");
    assert_eq!(
        db.url(),
        format!("postgres://postgres@{escaped}:{}/postgres", db.port())
    );
    assert_eq!(
        psql_url(&db.url(), "SELECT inet_server_addr() IS NULL"),
        "t",
        "the instance's URL goes through its unix socket"
    );
    assert_eq!(db.socket_dir(), dir.as_path());
    assert!(dir.join(format!(".s.PGSQL.{}", db.port())).exists());
    assert!(db.data_dir().join("PG_VERSION").is_file());
    assert!(db.server_log().is_file());
    let version = db.server_version();
    assert!(
        version.split('.').all(|part| part.parse::<u32>().is_ok()),
        "{version}"
    );
    if rustix::process::getuid().is_root() {
        let owner = std::fs::metadata(db.data_dir()).unwrap().uid();
        assert_ne!(
            owner, 0,
            "the data directory belongs to the server's account"
        );
    }

    let tcp = |sql: &str| psql("127.0.0.1", db.port(), sql);
    let cases = [
        ("SELECT current_user", "postgres"),
        ("SHOW shared_buffers", "32MB"),
        ("SHOW max_connections", "20"),
        ("SHOW max_wal_size", "256MB"),
        ("SHOW synchronous_commit", "off"),
        ("SHOW wal_sync_method", "fdatasync"),
        ("SHOW checkpoint_timeout", "10min"),
        ("SHOW server_encoding", "UTF8"),
        ("SHOW lc_collate", "C"),
        ("SHOW listen_addresses", "127.0.0.1"),
        ("SHOW logging_collector", "off"),
        ("SHOW cluster_name", "test"),
    ];
    for (sql, expected) in cases {
        assert_eq!(tcp(sql), expected, "{sql}");
    }
    assert_eq!(
        psql(dir.to_str().unwrap(), db.port(), "SELECT 1"),
        "1",
        "over the unix socket"
    );
    assert!(tcp("SHOW server_version").starts_with(version), "{version}");

    let pid = db.pid();
    assert!(process_exists(pid));
    let stopping = Instant::now();
    db.stop().unwrap();
    eprintln!("stopped in {:?}", stopping.elapsed());
    assert!(!process_exists(pid), "pid {pid} still exists after stop");
    assert_nothing_left(pid, &dir);
    assert!(
        !dir.join(format!(".s.PGSQL.{}", db.port())).exists(),
        "socket left behind"
    );
    assert!(!db.data_dir().join("postmaster.pid").exists());
    db.stop().expect("a second stop is a no-op");
}

#[test]
fn an_unknown_setting_fails_with_the_log_tail() {
    let _servers = shared();
    let dir = test_dir();
    let mut bad = settings();
    bad.extra
        .insert("no_such_setting".to_string(), "1".to_string());

    let err = PostgresInstance::start("bad", dir.path(), &bad, START_TIMEOUT).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ProvisionError::StartFailed { .. }), "{text}");
    assert!(
        text.contains("unrecognized configuration parameter \"no_such_setting\""),
        "{text}"
    );
    assert!(text.contains("server.log"), "{text}");
    assert!(
        !dir.path().read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".s.PGSQL")),
        "a socket was left behind"
    );

    // The data directory was initialised all the same, and a good setting starts it.
    start(dir.path(), &settings()).stop().unwrap();
}

/// Small settings, started within the test bound; nothing of a server is left once the
/// postmaster's process group is gone.
const LIFECYCLE: Lifecycle<PostgresKind> = Lifecycle {
    start: |dir| PostgresInstance::start("test", dir, &settings(), START_TIMEOUT),
    gone: assert_nothing_left,
    init_log: "initdb.log",
};

lifecycle_tests!(LIFECYCLE);

#[test]
fn a_second_start_reuses_the_initialised_data() {
    let _servers = shared();
    let (_dir, second) = LIFECYCLE.a_second_start_reuses_the_initialised_data();
    let conf = std::fs::read_to_string(second.data_dir().join("postgresql.conf")).unwrap();
    assert_eq!(conf.matches(config::INCLUDE_LINE).count(), 1, "{conf}");
}

#[test]
fn a_killed_server_leaves_no_process_and_recovers_at_the_next_start() {
    let _servers = shared();
    let (dir, port, mut again) = LIFECYCLE.killed_then_started();
    assert!(
        !dir.path().join(format!(".s.PGSQL.{port}")).exists(),
        "the crashed server's socket was cleared"
    );
    again.stop().expect("the recovered server stops cleanly");
    let log = std::fs::read_to_string(again.server_log()).unwrap();
    assert!(log.contains("not properly shut down"), "{log}");
}

#[test]
fn a_server_that_ignores_shutdown_is_killed_with_its_backends() {
    let _servers = shared();
    let dir = test_dir();
    let s = settings();
    let mut db = start(dir.path(), &s);
    let pid = db.pid();
    // No time at all for the fast shutdown nor the immediate one: the next step kills the
    // postmaster's process group. (A stopped postmaster is continued by the stop first, so
    // SIGSTOP no longer makes one that ignores its shutdown.)
    let err = db.stop_within(Duration::ZERO).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("did not finish a fast shutdown") && text.contains("was killed"),
        "{text}"
    );
    assert!(!process_exists(pid));
    assert_nothing_left(pid, dir.path());
    start(dir.path(), &s).stop().expect("recovered and stopped");
}

#[test]
fn wal_dir_puts_the_wal_elsewhere() {
    let _servers = shared();
    let dir = test_dir();
    let elsewhere = test_dir();
    let wal: PathBuf = elsewhere.path().join("wal");
    let mut s = settings();
    s.wal_dir = Some(wal.clone());
    let mut db = start(dir.path(), &s);
    let pg_wal = db.data_dir().join("pg_wal");
    assert_eq!(std::fs::read_link(&pg_wal).unwrap(), wal);
    let segments = std::fs::read_dir(&wal)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().len() == 24)
        .count();
    assert!(segments > 0, "no WAL segment in {}", wal.display());
    db.stop().unwrap();

    // The WAL location is fixed at initialisation: a mismatch is refused, not ignored.
    let err = PostgresInstance::start("test", dir.path(), &settings(), START_TIMEOUT).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&format!("links to {}", wal.display())),
        "{text}"
    );
    start(dir.path(), &s).stop().unwrap();
}
