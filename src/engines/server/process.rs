//! The child process of a private server, shared by every engine: spawning it in its own
//! process group with its output appended to a log, the registry entry that lets an emergency
//! exit stop it, its running / stopped / detached state, and stopping it by escalating signals.

use std::fs::{File, OpenOptions};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::error::Incomplete;
use super::{POLL_INTERVAL, ProvisionError, register, send_signal, unregister, wait_for_exit};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Stopped,
    Detached,
}

/// What is killed when every shutdown step has run out of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillTarget {
    /// The server process only.
    Process,
    /// The server's whole process group (the server and, e.g., its backends).
    Group,
}

/// How a [`ServerProcess::stop`] ended.
#[derive(Debug)]
pub enum StopOutcome {
    /// The server exited successfully after the first step's signal (or had already).
    Clean,
    /// The shutdown failed before any escalation; the reason, ready for [`ProvisionError::Stop`].
    Failed(String),
    /// The first step's wait ran out: `Some(i)` when the server exited during step `i`'s wait,
    /// `None` when it was killed after the last step.
    Escalated(Option<usize>),
}

/// A running server's child process, registered for [`super::kill_all_registered`] until it
/// is stopped, killed or detached.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    pid: u32,
    state: State,
}

impl ServerProcess {
    /// Spawn `command` in its own process group, stdin closed and its output appended to `log`,
    /// and register it with `stop` as its clean-shutdown signal.
    pub fn spawn(
        command: &mut Command,
        program: &Path,
        log: &Path,
        stop: Signal,
    ) -> Result<Self, ProvisionError> {
        let output = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(ProvisionError::io("open", log))?;
        let child = spawn_in_group(command, program, output, log)?;
        let pid = child.id();
        register(pid, stop);
        Ok(ServerProcess {
            child,
            pid,
            state: State::Running,
        })
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    pub fn is_running(&self) -> bool {
        self.state == State::Running
    }

    /// The exit status when the server has exited on its own (it is then stopped, reaped and
    /// unregistered); `None` while it runs.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        let status = self.child.try_wait().ok().flatten()?;
        self.state = State::Stopped;
        unregister(self.pid);
        Some(status)
    }

    /// Leave the server running: it is no longer stopped by this process.
    pub fn detach(&mut self) {
        self.state = State::Detached;
        unregister(self.pid);
    }

    /// SIGKILL the server, as a crash would, and reap it; nothing when it is not running.
    pub fn kill(&mut self) {
        if self.state != State::Running {
            return;
        }
        self.state = State::Stopped;
        unregister(self.pid);
        send_signal(self.pid, Signal::KILL);
        if let Err(err) = self.child.wait() {
            tracing::warn!(pid = self.pid, %err, "cannot reap killed server");
        }
    }

    /// Stop the server: each step's signal in turn, waiting up to its duration for the server
    /// to exit, then SIGKILL to `kill`; reaps the child. `None` when it was not running.
    /// `first_signal` names the first step's signal in failure reasons, e.g. "SIGTERM".
    pub fn stop(
        &mut self,
        steps: &[(Signal, Duration)],
        first_signal: &str,
        kill: KillTarget,
    ) -> Option<StopOutcome> {
        if self.state != State::Running {
            return None;
        }
        self.state = State::Stopped;
        unregister(self.pid);
        Some(match self.child.try_wait() {
            Ok(Some(status)) if status.success() => StopOutcome::Clean,
            Ok(Some(status)) => {
                StopOutcome::Failed(format!("the server had already exited ({status})"))
            }
            Ok(None) => self.escalate(steps, first_signal, kill),
            Err(err) => StopOutcome::Failed(format!("cannot wait for it: {err}")),
        })
    }

    fn escalate(
        &mut self,
        steps: &[(Signal, Duration)],
        first_signal: &str,
        kill: KillTarget,
    ) -> StopOutcome {
        let mut steps = steps.iter().enumerate();
        // A stopped server (SIGSTOP, a debugger) acts on no other signal until continued.
        send_signal(self.pid, Signal::CONT);
        if let Some((_, &(signal, wait))) = steps.next() {
            send_signal(self.pid, signal);
            match wait_for_exit(&mut self.child, wait) {
                Ok(Some(status)) if status.success() => return StopOutcome::Clean,
                Ok(Some(status)) => {
                    return StopOutcome::Failed(format!(
                        "it exited with {status} after {first_signal}"
                    ));
                }
                Ok(None) => {}
                Err(err) => return StopOutcome::Failed(format!("cannot wait for it: {err}")),
            }
        }
        for (step, &(signal, wait)) in steps {
            send_signal(self.pid, signal);
            if matches!(wait_for_exit(&mut self.child, wait), Ok(Some(_))) {
                return StopOutcome::Escalated(Some(step));
            }
        }
        match kill {
            KillTarget::Process => {
                send_signal(self.pid, Signal::KILL);
            }
            KillTarget::Group => kill_group(self.pid),
        }
        let _ = self.child.wait();
        StopOutcome::Escalated(None)
    }
}

/// Spawn `command` (`program`) in its own process group, stdin closed, its stdout and stderr
/// written to `output`, the file open at `log`.
pub fn spawn_in_group(
    command: &mut Command,
    program: &Path,
    output: File,
    log: &Path,
) -> Result<Child, ProvisionError> {
    let stderr = output
        .try_clone()
        .map_err(ProvisionError::io("open", log))?;
    command
        .stdin(Stdio::null())
        .stdout(output)
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(|source| ProvisionError::Spawn {
            program: program.to_path_buf(),
            source,
        })
}

/// SIGKILL every process in the process group `leader` leads.
pub fn kill_group(leader: u32) {
    if let Some(group) = i32::try_from(leader).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(group, Signal::KILL);
    }
}

/// How a server's start-up wait ended.
pub enum Readiness {
    Ready,
    /// The server exited first (it is stopped and unregistered).
    Exited(ExitStatus),
    /// `deadline` passed with the server still running.
    TimedOut,
}

/// Poll until `ready` holds, the server exits, or `deadline` passes.
pub fn wait_until_ready(
    process: &mut ServerProcess,
    deadline: Instant,
    mut ready: impl FnMut() -> bool,
) -> Readiness {
    loop {
        if let Some(status) = process.exited() {
            return Readiness::Exited(status);
        }
        if ready() {
            return Readiness::Ready;
        }
        if Instant::now() >= deadline {
            return Readiness::TimedOut;
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// Run a one-off helper (an installer, initdb) spawned in its own process group until it
/// exits, for at most `timeout`; on timeout its whole group is killed (it may run a bootstrap
/// server of its own). The failure reason on error.
pub fn run_to_completion(child: &mut Child, timeout: Duration) -> Result<(), Incomplete> {
    match wait_for_exit(child, timeout) {
        Ok(Some(status)) if status.success() => Ok(()),
        Ok(Some(status)) => Err(Incomplete::Exited(status)),
        Ok(None) => {
            kill_group(child.id());
            let _ = child.wait();
            Err(Incomplete::TimedOut(timeout))
        }
        Err(err) => Err(Incomplete::Wait(err)),
    }
}
