//! Starting and stopping private engine instances on the target, so that a run's database data
//! lives on the drive under test: initialise a data directory, write the server's own config
//! file, start the server as a child process on a free 127.0.0.1 port, wait until it accepts
//! connections, and stop it cleanly on every exit path (or leave it running when asked).
//!
//! Every server started here is recorded in a process-wide registry of child PIDs, so that an
//! emergency exit (a second Ctrl-C, which skips the orderly teardown) can still stop them with
//! [`kill_all_registered`]. Servers run in their own process group: a terminal's Ctrl-C reaches
//! drivebench only, which then decides how to stop them.

mod error;
mod init;
mod locate;
pub mod mariadb;
pub mod mssql;
mod port;
pub mod postgres;
mod process;
#[cfg(test)]
mod test_support;

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

pub use error::ProvisionError;
pub use mariadb::{MariadbInstance, MariadbSettings};

/// How long [`kill_all_registered`] waits for servers to exit after SIGTERM before SIGKILL.
const EMERGENCY_GRACE: Duration = Duration::from_secs(10);

/// How often process state is polled while waiting for an exit.
const POLL_INTERVAL: Duration = Duration::from_millis(25);

/// Servers started by this process that are still running: PID and the signal that asks that
/// engine for a prompt clean shutdown (SIGTERM for mariadbd, SIGINT "fast" for PostgreSQL,
/// whose SIGTERM would wait for every client to disconnect).
static RUNNING: Mutex<Vec<(u32, Signal)>> = Mutex::new(Vec::new());

fn running() -> std::sync::MutexGuard<'static, Vec<(u32, Signal)>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

fn register(pid: u32, stop: Signal) {
    running().push((pid, stop));
}

fn unregister(pid: u32) {
    running().retain(|&(p, _)| p != pid);
}

/// Stop every server this process started and has not stopped, detached or killed yet: its stop
/// signal to each, wait up to 10 s for all of them to exit, then SIGKILL the rest. For the emergency exit
/// path; it never panics. Exited servers stay unreaped (zombies) until their
/// [`MariadbInstance`] is stopped or dropped, or this process exits.
pub fn kill_all_registered() {
    let registered = std::mem::take(&mut *running());
    if registered.is_empty() {
        return;
    }
    let pids: Vec<u32> = registered.iter().map(|&(pid, _)| pid).collect();
    tracing::warn!(?pids, "terminating the servers still running");
    for &(pid, stop) in &registered {
        send_signal(pid, stop);
    }
    let deadline = Instant::now() + EMERGENCY_GRACE;
    while Instant::now() < deadline && !pids.iter().all(|&pid| has_exited(pid)) {
        std::thread::sleep(POLL_INTERVAL);
    }
    for &pid in pids.iter().filter(|&&pid| !has_exited(pid)) {
        tracing::warn!(
            pid,
            "server did not exit within {EMERGENCY_GRACE:?} of its stop signal; killing it"
        );
        send_signal(pid, Signal::KILL);
    }
}

/// Wait up to `within` for `child` to exit; `None` when it is still running.
fn wait_for_exit(
    child: &mut std::process::Child,
    within: Duration,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Send `signal` to `pid`; a process that is already gone is not an error.
fn send_signal(pid: u32, signal: Signal) -> bool {
    let Some(target) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    match rustix::process::kill_process(target, signal) {
        Ok(()) => true,
        Err(rustix::io::Errno::SRCH) => false,
        Err(err) => {
            tracing::warn!(pid, %err, "cannot signal process");
            false
        }
    }
}

/// Whether `pid` has stopped running: no such process, or a zombie waiting to be reaped.
fn has_exited(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the command name, which is in parentheses and may contain
        // spaces or parentheses itself.
        Ok(stat) => matches!(
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next()),
            Some('Z' | 'X') | None
        ),
        Err(_) => true,
    }
}

/// Provision tests of every engine hold this shared while they have servers running; a test
/// calling [`kill_all_registered`] holds it exclusively, so it kills only its own server.
#[cfg(test)]
pub(crate) static TEST_SERVERS: std::sync::RwLock<()> = std::sync::RwLock::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_forgets_unregistered_pids() {
        // u32::MAX is never a real pid, so nothing else can be signalled by mistake.
        register(u32::MAX, Signal::TERM);
        assert!(running().iter().any(|&(p, _)| p == u32::MAX));
        unregister(u32::MAX);
        assert!(!running().iter().any(|&(p, _)| p == u32::MAX));
    }

    #[test]
    fn exit_state_of_processes() {
        assert!(
            !has_exited(std::process::id()),
            "this test process is running"
        );
        assert!(has_exited(u32::MAX), "no such process");
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("spawn true");
        let pid = child.id();
        while !has_exited(pid) {
            std::thread::sleep(POLL_INTERVAL);
        }
        child.wait().expect("reap");
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    }
}
