//! Helpers for the tests that start real servers, shared by every engine.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{PoisonError, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use super::private::{Private, ServerKind};
use super::{ProvisionError, has_exited, kill_all_registered};

/// Bound on a test server's initialisation and start-up.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Hold [`super::TEST_SERVERS`] shared while a test has servers running.
pub fn shared() -> RwLockReadGuard<'static, ()> {
    super::TEST_SERVERS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Hold [`super::TEST_SERVERS`] exclusively, for a test calling [`super::kill_all_registered`].
pub fn exclusive() -> RwLockWriteGuard<'static, ()> {
    super::TEST_SERVERS
        .write()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Whether `pid` names a process, even a zombie.
pub fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Start an instance in `dir` with `start`, failing the test when it does not start (a
/// missing server binary included: these tests need the real server), and say how long it
/// took and whether it reused its data.
pub fn timed_start<K: ServerKind>(
    dir: &Path,
    start: impl FnOnce() -> Result<Private<K>, ProvisionError>,
) -> Private<K> {
    let started = Instant::now();
    let instance = start().unwrap_or_else(|err| panic!("start in {}: {err}", dir.display()));
    eprintln!(
        "started in {:?} (reused data: {})",
        started.elapsed(),
        instance.reused_data()
    );
    instance
}

/// The lifecycle cases every server engine passes, written once: how an engine starts a small
/// test instance in a directory, and how it checks that nothing of a server is left.
pub struct Lifecycle<K: ServerKind> {
    /// Start a small instance in the directory, within [`START_TIMEOUT`].
    pub start: fn(&Path) -> Result<Private<K>, ProvisionError>,
    /// Fail the test unless the server `pid` that ran in the directory left nothing running.
    pub gone: fn(u32, &Path),
    /// The file in the instance directory the initialisation of its data writes.
    pub init_log: &'static str,
}

impl<K: ServerKind> Lifecycle<K> {
    /// Start an instance in `dir`, failing the test when it does not start.
    pub fn started(&self, dir: &Path) -> Private<K> {
        timed_start(dir, || (self.start)(dir))
    }

    /// Whether the instance accepts connections, by its engine's own readiness probe.
    pub fn accepts(&self, instance: &Private<K>) -> bool {
        instance.kind().ready(instance.port(), 0)
    }

    pub fn dropping_an_instance_stops_its_server(&self) {
        let _servers = shared();
        let dir = test_dir();
        let db = self.started(dir.path());
        let pid = db.pid();
        drop(db);
        assert!(!process_exists(pid), "pid {pid} still exists after drop");
        (self.gone)(pid, dir.path());
    }

    pub fn kill_all_registered_terminates_started_servers(&self) {
        let _only_this_test = exclusive();
        let dir = test_dir();
        let mut db = self.started(dir.path());
        let pid = db.pid();
        let killing = Instant::now();
        kill_all_registered();
        eprintln!("kill_all_registered took {:?}", killing.elapsed());
        assert!(has_exited(pid), "pid {pid} still running");
        db.stop()
            .expect("the server shut down cleanly on its stop signal");
        assert!(!process_exists(pid));
        (self.gone)(pid, dir.path());
    }

    pub fn a_detached_server_keeps_running_and_its_directory_is_refused(&self) {
        let _servers = shared();
        let dir = test_dir();
        let db = self.started(dir.path());
        let (pid, port, kind) = (db.pid(), db.port(), db.kind().clone());
        let text = db.detach();
        assert!(text.contains(&port.to_string()), "{text}");
        assert!(kind.ready(port, 0), "detached server is gone");

        let err = (self.start)(dir.path()).unwrap_err();
        assert!(
            matches!(err, ProvisionError::AlreadyRunning { pid: p, .. } if p == pid),
            "{err}"
        );
        // Clean up as a user would, then reap our former child.
        let raw = rustix::process::Pid::from_raw(pid as i32).unwrap();
        rustix::process::kill_process(raw, K::LADDER.signal).unwrap();
        rustix::process::waitpid(Some(raw), rustix::process::WaitOptions::empty()).unwrap();
        assert!(!process_exists(pid));
        (self.gone)(pid, dir.path());
    }

    /// Start, stop and start again in the same directory: the second start reuses the data
    /// (a file left in `data` is still there) without initialising it again. The directory and
    /// the second instance.
    pub fn a_second_start_reuses_the_initialised_data(&self) -> (tempfile::TempDir, Private<K>) {
        let dir = test_dir();
        let mut first = self.started(dir.path());
        first.stop().unwrap();
        let marker = dir.path().join("data").join("drivebench-marker");
        std::fs::write(&marker, "kept").unwrap();
        let init_log = dir.path().join(self.init_log);
        let modified = || std::fs::metadata(&init_log).unwrap().modified().unwrap();
        let initialised = modified();

        let second = self.started(dir.path());
        assert!(second.reused_data());
        assert!(marker.exists(), "data directory was re-created");
        assert_eq!(initialised, modified(), "the data was initialised again");
        assert!(self.accepts(&second));
        (dir, second)
    }

    /// Kill a started server as a crash would, then start again in the same directory: the
    /// directory, the crashed server's port, and the recovered instance (on reused data).
    pub fn killed_then_started(&self) -> (tempfile::TempDir, u16, Private<K>) {
        let dir = test_dir();
        let mut db = self.started(dir.path());
        let (pid, port) = (db.pid(), db.port());
        db.kill_for_test();
        assert!(!process_exists(pid));
        drop(db);
        (self.gone)(pid, dir.path());
        let again = self.started(dir.path());
        assert!(again.reused_data());
        assert!(self.accepts(&again));
        (dir, port, again)
    }
}

/// A temporary directory the server's account can reach even when the tests run as root
/// (a new temporary directory is mode 0700).
pub fn test_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// The `#[test]`s of [`Lifecycle`] every server engine runs, for the lifecycle `$lifecycle`.
macro_rules! lifecycle_tests {
    ($lifecycle:expr) => {
        #[test]
        fn dropping_an_instance_stops_its_server() {
            $lifecycle.dropping_an_instance_stops_its_server();
        }

        #[test]
        fn kill_all_registered_terminates_started_servers() {
            $lifecycle.kill_all_registered_terminates_started_servers();
        }

        #[test]
        fn a_detached_server_keeps_running_and_its_directory_is_refused() {
            $lifecycle.a_detached_server_keeps_running_and_its_directory_is_refused();
        }
    };
}
pub(crate) use lifecycle_tests;
