//! Private instances against the real server binary. These need MariaDB (or MySQL) installed
//! and fail, not skip, without it: CI installs `mariadb-server` for them.

use std::path::Path;
use std::time::Instant;

use super::launch::greets;
use super::*;
use crate::engines::server::test_support::{
    Lifecycle, START_TIMEOUT, lifecycle_tests, process_exists, shared, timed_start,
};

/// Small settings for a test instance (a start without a server binary fails the test, naming
/// where it looked).
fn settings() -> MysqlSettings {
    MysqlSettings {
        buffer_pool_bytes: 32 << 20,
        log_file_size_bytes: Some(16 << 20),
        ..MysqlSettings::default()
    }
}

fn start(dir: &Path, settings: &MysqlSettings) -> MysqlInstance {
    timed_start(dir, || {
        MysqlInstance::start("test", dir, settings, START_TIMEOUT)
    })
}

#[test]
fn a_started_server_accepts_connections_and_stops_cleanly() {
    let _servers = shared();
    let dir = tempfile::tempdir().unwrap();
    let mut db = start(dir.path(), &settings());
    assert!(!db.reused_data());
    assert!(greets(db.port()), "no greeting on 127.0.0.1:{}", db.port());
    let prefix = format!("mysql://root@127.0.0.1:{}/?socket=%2F", db.port());
    assert!(db.url().starts_with(&prefix), "{}", db.url());
    assert_ne!(db.port(), 3306);
    assert!(db.socket().exists());
    assert!(db.error_log().exists());
    assert!(db.data_dir().join("mysql").is_dir());
    assert!(
        db.server_version().contains("Ver"),
        "{}",
        db.server_version()
    );
    let pid = db.pid();
    assert!(process_exists(pid));

    let stopping = Instant::now();
    db.stop().unwrap();
    eprintln!("stopped in {:?}", stopping.elapsed());
    assert!(!process_exists(pid), "pid {pid} still exists after stop");
    assert!(!db.socket().exists(), "socket left behind");
    db.stop().expect("a second stop is a no-op");
}

#[test]
fn an_unknown_extra_variable_fails_with_the_log_tail() {
    let _servers = shared();
    let dir = tempfile::tempdir().unwrap();
    let mut bad = settings();
    bad.extra
        .insert("no_such_variable".to_string(), "1".to_string());

    // A new directory: the installer's bootstrap server refuses the variable.
    let err = MysqlInstance::start("bad", dir.path(), &bad, START_TIMEOUT).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ProvisionError::Init { .. }), "{text}");
    assert!(text.contains("no_such_variable"), "{text}");
    assert!(
        !dir.path().join("data").exists(),
        "a failed init left a data directory"
    );

    // An initialised directory: the server itself refuses it at start.
    start(dir.path(), &settings()).stop().unwrap();
    let err = MysqlInstance::start("bad", dir.path(), &bad, START_TIMEOUT).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ProvisionError::StartFailed { .. }), "{text}");
    assert!(
        text.contains("unknown variable 'no_such_variable=1'"),
        "{text}"
    );
    assert!(text.contains("error.log"), "{text}");
}

/// Small settings, started within the test bound; nothing of a server is left once its
/// process is gone (it has no workers; a crash leaves its socket, which a stop removes).
const LIFECYCLE: Lifecycle<MysqlKind> = Lifecycle {
    start: |dir| MysqlInstance::start("test", dir, &settings(), START_TIMEOUT),
    gone: |pid, _| assert!(!process_exists(pid), "pid {pid} still exists"),
    init_log: "install.log",
};

lifecycle_tests!(LIFECYCLE);

#[test]
fn a_second_start_reuses_the_initialised_data() {
    let _servers = shared();
    LIFECYCLE.a_second_start_reuses_the_initialised_data();
}

#[test]
fn a_killed_server_leaves_no_process_and_recovers_at_the_next_start() {
    let _servers = shared();
    let (_dir, _, again) = LIFECYCLE.killed_then_started();
    assert!(greets(again.port()));
}
