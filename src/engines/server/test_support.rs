//! Helpers for the tests that start real servers, shared by every engine.

use std::path::Path;
use std::sync::{PoisonError, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use super::ProvisionError;

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

/// Start an instance in `dir` with `start` (given [`START_TIMEOUT`]), failing the test when it
/// does not start, and say how long it took and whether `reused_data` holds.
pub fn timed_start<T>(
    dir: &Path,
    start: impl FnOnce(Duration) -> Result<T, ProvisionError>,
    reused_data: impl FnOnce(&T) -> bool,
) -> T {
    let started = Instant::now();
    let instance =
        start(START_TIMEOUT).unwrap_or_else(|err| panic!("start in {}: {err}", dir.display()));
    eprintln!(
        "started in {:?} (reused data: {})",
        started.elapsed(),
        reused_data(&instance)
    );
    instance
}
