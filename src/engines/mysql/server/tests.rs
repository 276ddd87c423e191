//! Private instances against the real server binary. These need MariaDB (or MySQL) installed
//! and fail, not skip, without it: CI installs `mariadb-server` for them.

use std::path::Path;
use std::time::Instant;

use super::launch::greets;
use super::*;
use crate::engines::server::test_support::{
    START_TIMEOUT, exclusive, process_exists, shared, timed_start,
};
use crate::engines::server::{has_exited, kill_all_registered};

/// Small settings for a test instance; fails the test when no server binary can be found.
fn settings() -> MysqlSettings {
    if let Err(err) = locate::server(None) {
        panic!("these tests start a real server and none was found: {err}");
    }
    MysqlSettings {
        buffer_pool_bytes: 32 << 20,
        log_file_size_bytes: Some(16 << 20),
        ..MysqlSettings::default()
    }
}

fn start(dir: &Path, settings: &MysqlSettings) -> MysqlInstance {
    timed_start(
        dir,
        |timeout| MysqlInstance::start("test", dir, settings, timeout),
        MysqlInstance::reused_data,
    )
}

#[test]
fn a_started_server_accepts_connections_and_stops_cleanly() {
    let _servers = shared();
    let dir = tempfile::tempdir().unwrap();
    let mut db = start(dir.path(), &settings());
    assert!(!db.reused_data());
    assert!(greets(db.port()), "no greeting on 127.0.0.1:{}", db.port());
    assert_eq!(db.url(), format!("mysql://root@127.0.0.1:{}/", db.port()));
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
fn a_second_start_reuses_the_initialised_data() {
    let _servers = shared();
    let dir = tempfile::tempdir().unwrap();
    let s = settings();
    let mut first = start(dir.path(), &s);
    first.stop().unwrap();
    let marker = first.data_dir().join("drivebench-marker");
    std::fs::write(&marker, "kept").unwrap();
    let installed = std::fs::metadata(dir.path().join("install.log"))
        .unwrap()
        .modified()
        .unwrap();

    let second = start(dir.path(), &s);
    assert!(second.reused_data());
    assert!(marker.exists(), "data directory was re-created");
    let reinstalled = std::fs::metadata(dir.path().join("install.log"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(installed, reinstalled, "the installer ran again");
    assert!(greets(second.port()));
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

#[test]
fn dropping_an_instance_stops_its_server() {
    let _servers = shared();
    let dir = tempfile::tempdir().unwrap();
    let db = start(dir.path(), &settings());
    let (pid, socket) = (db.pid(), db.socket().to_path_buf());
    drop(db);
    assert!(!process_exists(pid), "pid {pid} still exists after drop");
    assert!(!socket.exists());
}

#[test]
fn a_killed_server_leaves_no_process_and_recovers_at_the_next_start() {
    let _servers = shared();
    let dir = tempfile::tempdir().unwrap();
    let s = settings();
    let mut db = start(dir.path(), &s);
    let pid = db.pid();
    db.kill_for_test();
    assert!(!process_exists(pid));
    assert!(db.socket().exists(), "a crash leaves its socket behind");
    drop(db);
    assert!(!process_exists(pid));

    let again = start(dir.path(), &s);
    assert!(again.reused_data());
    assert!(greets(again.port()));
}

#[test]
fn kill_all_registered_terminates_started_servers() {
    let _only_this_test = exclusive();
    let dir = tempfile::tempdir().unwrap();
    let mut db = start(dir.path(), &settings());
    let pid = db.pid();
    let killing = Instant::now();
    kill_all_registered();
    eprintln!("kill_all_registered took {:?}", killing.elapsed());
    assert!(has_exited(pid), "pid {pid} still running");
    db.stop().expect("the server shut down cleanly on SIGTERM");
    assert!(!process_exists(pid));
}

#[test]
fn a_detached_server_keeps_running_and_its_directory_is_refused() {
    let _servers = shared();
    let dir = tempfile::tempdir().unwrap();
    let s = settings();
    let db = start(dir.path(), &s);
    let (pid, port) = (db.pid(), db.port());
    let text = db.detach();
    assert!(
        text.contains("--socket=") && text.contains(&format!("127.0.0.1:{port}")),
        "{text}"
    );
    assert!(greets(port), "detached server is gone");

    let err = MysqlInstance::start("again", dir.path(), &s, START_TIMEOUT).unwrap_err();
    assert!(
        matches!(err, ProvisionError::AlreadyRunning { pid: p, .. } if p == pid),
        "{err}"
    );

    // Clean up as a user would, then reap our former child.
    let raw = rustix::process::Pid::from_raw(pid as i32).unwrap();
    rustix::process::kill_process(raw, rustix::process::Signal::TERM).unwrap();
    rustix::process::waitpid(Some(raw), rustix::process::WaitOptions::empty()).unwrap();
    assert!(!process_exists(pid));
}
