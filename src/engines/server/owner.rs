//! Who owns a private server: while a run uses an instance's server, the instance's directory
//! holds `drivebench.owner` with drivebench's pid and the server's. A server whose owner is
//! gone (drivebench was killed with SIGKILL, or the machine's OOM killer took it) keeps
//! running on its own; the next run on the same directory finds it by the engine's pid file,
//! sees from the owner file that it is an orphan of drivebench's, and stops it. A server
//! without an owner file (left running on purpose with `keep_running`, or started by someone
//! else) is never touched: starting there is refused, naming it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::{has_exited, send_signal};

/// The owner file's name in an instance's directory.
pub const OWNER_FILE: &str = "drivebench.owner";

/// How long an orphan gets to shut down cleanly before it is killed.
const ORPHAN_STOP_TIMEOUT: Duration = Duration::from_secs(60);

/// An orphaned server that was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    pub server_pid: u32,
    /// The drivebench process that started it and ended without stopping it.
    pub owner_pid: u32,
    /// It did not stop cleanly in time and was killed.
    pub killed: bool,
}

/// A server another live drivebench run is using.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: its server (pid {server_pid}) belongs to a drivebench run still going (pid \
     {owner_pid}); wait for it or stop it first", .dir.display()
)]
pub struct InUse {
    pub dir: PathBuf,
    pub server_pid: u32,
    pub owner_pid: u32,
}

/// Record that this process owns the server `server_pid` running in `dir`.
pub fn claim(dir: &Path, server_pid: u32) {
    let text = format!("drivebench {}\nserver {server_pid}\n", std::process::id());
    if let Err(err) = std::fs::write(dir.join(OWNER_FILE), text) {
        tracing::warn!(dir = %dir.display(), %err, "cannot write the owner file");
    }
}

/// The server in `dir` is stopped or left running on purpose: nobody owns it any more.
pub fn release(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(OWNER_FILE));
}

/// Stop the server running in `dir` when it is an orphan of drivebench's: its pid file
/// (`pid_file`, relative to `dir`) names a live process, the owner file names that same
/// process, and the drivebench that owned it is gone. Anything else is left as it is.
pub fn reap_orphan(dir: &Path, pid_file: &str) -> Result<Option<Orphan>, InUse> {
    let Some(server_pid) = running_server(dir, pid_file) else {
        return Ok(None);
    };
    let Some((owner_pid, owned_pid)) = owner(dir) else {
        return Ok(None);
    };
    if owned_pid != server_pid {
        return Ok(None);
    }
    if is_drivebench(owner_pid) {
        return Err(InUse {
            dir: dir.to_path_buf(),
            server_pid,
            owner_pid,
        });
    }
    let killed = stop(server_pid);
    release(dir);
    Ok(Some(Orphan {
        server_pid,
        owner_pid,
        killed,
    }))
}

/// Stop the server the pid file `pid_file` in `dir` names, if it runs (`drivebench down`):
/// its pid, and whether it had to be killed.
pub fn stop_running(dir: &Path, pid_file: &str) -> Option<(u32, bool)> {
    let pid = running_server(dir, pid_file)?;
    let killed = stop(pid);
    release(dir);
    Some((pid, killed))
}

/// SIGTERM, then SIGKILL after the timeout; true when it had to be killed.
fn stop(pid: u32) -> bool {
    send_signal(pid, Signal::TERM);
    if wait_gone(pid, ORPHAN_STOP_TIMEOUT) {
        return false;
    }
    super::process::kill_group(pid);
    send_signal(pid, Signal::KILL);
    wait_gone(pid, Duration::from_secs(10));
    true
}

fn wait_gone(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if has_exited(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    has_exited(pid)
}

/// The live process the pid file `pid_file` (relative to `dir`, pid on its first line) names.
pub fn running_server(dir: &Path, pid_file: &str) -> Option<u32> {
    let text = std::fs::read_to_string(dir.join(pid_file)).ok()?;
    let pid: u32 = text.lines().next()?.trim().parse().ok()?;
    (!has_exited(pid)).then_some(pid)
}

/// (drivebench's pid, the server's pid) from the owner file in `dir`.
fn owner(dir: &Path) -> Option<(u32, u32)> {
    let text = std::fs::read_to_string(dir.join(OWNER_FILE)).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<u32>().ok())
    };
    Some((field("drivebench ")?, field("server ")?))
}

/// Whether `pid` is a live drivebench process (not a reused pid of something else).
fn is_drivebench(pid: u32) -> bool {
    !has_exited(pid)
        && std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .is_ok_and(|c| c.trim() == "drivebench")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_without_a_live_server_or_an_owner_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(reap_orphan(dir.path(), "server.pid"), Ok(None)));
        // A live process (this test) in the pid file, but no owner file: not ours to stop.
        std::fs::write(
            dir.path().join("server.pid"),
            format!("{}\n", std::process::id()),
        )
        .unwrap();
        assert!(matches!(reap_orphan(dir.path(), "server.pid"), Ok(None)));
        // An owner file for another server: the pid file's process is not the one it owned.
        std::fs::write(dir.path().join(OWNER_FILE), "drivebench 1\nserver 4\n").unwrap();
        assert!(matches!(reap_orphan(dir.path(), "server.pid"), Ok(None)));
    }

    #[test]
    fn an_orphan_of_a_gone_drivebench_is_stopped_and_its_owner_file_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        std::fs::write(dir.path().join("server.pid"), format!("{}\n", child.id())).unwrap();
        // pid 1 is alive but not drivebench: the owner is gone.
        std::fs::write(
            dir.path().join(OWNER_FILE),
            format!("drivebench 1\nserver {}\n", child.id()),
        )
        .unwrap();
        let reaper = std::thread::spawn(move || {
            let status = child.wait().unwrap();
            (status, child)
        });
        let orphan = reap_orphan(dir.path(), "server.pid").unwrap().unwrap();
        assert_eq!(orphan.owner_pid, 1);
        assert!(!orphan.killed, "sleep stops on SIGTERM");
        let (status, _) = reaper.join().unwrap();
        assert!(!status.success());
        assert!(!dir.path().join(OWNER_FILE).exists());
    }
}
