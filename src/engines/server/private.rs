//! The one private-server lifecycle every server engine uses: a start on a free 127.0.0.1 port
//! (retried on another port when some other process takes it first), the child in its own
//! process group and in the registry the emergency kill reads, the wait for readiness, the stop
//! ladder (the clean-shutdown signal, its grace, an optional harder signal, then SIGKILL),
//! detaching for `drivebench up`, and `Drop` stopping what is still running. What differs
//! between engines (command line and config, readiness probe, stop signals and their wording,
//! the files it leaves behind) is a [`ServerKind`]; what an engine does before the first start
//! (locate the binary, initialise the data directory, bootstrap its account) stays with it.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::ProvisionError;
use super::error::{log_len, log_tail};
use super::port::{free_port, start_on_free_port};
use super::process::{KillTarget, Readiness, ServerProcess, StopOutcome, wait_until_ready};

/// Start attempts, each on a newly picked port, when another process takes the port first.
const PORT_ATTEMPTS: u32 = 5;

/// `path`, made absolute, as it may stand in a URL (a host or a query value): every byte but
/// letters, digits and `-._~` written as `%XX`, so a socket path with spaces, `?` or `&`
/// survives the parse, and one under a relative `--target` still starts with `/`.
pub fn url_escaped(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How an engine's server is asked to stop, and how hard it is pushed when it does not.
#[derive(Debug, Clone, Copy)]
pub struct Ladder {
    /// The clean-shutdown signal (also the one the emergency kill sends).
    pub signal: Signal,
    /// Its name in failure reasons, e.g. "SIGTERM".
    pub signal_name: &'static str,
    /// How long a clean shutdown may take.
    pub grace: Duration,
    /// A harder shutdown tried after the grace, for at most this long, before SIGKILL.
    pub then: Option<(Signal, Duration)>,
    /// What SIGKILL is sent to at the end.
    pub kill: KillTarget,
    /// The grace of a server that missed its start-up deadline.
    pub abandon_grace: Duration,
}

impl Ladder {
    fn steps(&self, grace: Duration) -> Vec<(Signal, Duration)> {
        let then = self.then.map(|(signal, cap)| (signal, grace.min(cap)));
        std::iter::once((self.signal, grace)).chain(then).collect()
    }
}

/// What one server engine's private instances are made of: the hooks the lifecycle calls. A
/// value holds what a start needs once the data directory is ready (layout, located binary,
/// account), and stays with the running instance.
pub trait ServerKind: Clone + Debug + Send + 'static {
    /// How the server is stopped.
    const LADDER: Ladder;
    /// Ports a free port is never taken from (the usual ports a system server may want).
    const RESERVED_PORTS: &'static [u16];
    /// What the server's log says when another process holds its port.
    const BIND_FAILURE: &'static str;
    /// The server binary.
    fn program(&self) -> &Path;
    /// The instance's directory.
    fn dir(&self) -> &Path;
    /// The log the server's output is appended to.
    fn output_log(&self) -> &Path;
    /// The command starting the server on `port`, its configuration written for that port.
    fn command(&self, port: u16) -> Result<Command, ProvisionError>;
    /// Whether the server accepts connections on `port`; `log_from` is where this start's
    /// lines begin in [`output_log`](Self::output_log).
    fn ready(&self, port: u16, log_from: u64) -> bool;
    /// How clients of the instance on `port` connect (no password): through its unix socket
    /// where the engine has one, which costs client and server less CPU a statement than TCP
    /// over loopback.
    fn url(&self, port: u16) -> String;
    /// How a user reaches the server left running on `port` as `pid`, and how to stop it.
    fn how_to_connect(&self, port: u16, pid: u32) -> String;
    /// Why a stop was not clean when the first signal's `grace` ran out: `ended_by` is the
    /// ladder step the server exited during, `None` when it was killed.
    fn escalated(grace: Duration, ended_by: Option<usize>) -> String;
    /// Remove what a server that is no longer running leaves behind (best effort).
    fn clear_runtime_files(&self) {}
}

/// The directory `dir` of a new instance, created if absent, as an absolute path.
pub fn instance_dir(dir: &Path) -> Result<PathBuf, ProvisionError> {
    std::fs::create_dir_all(dir).map_err(ProvisionError::io("create directory", dir))?;
    std::fs::canonicalize(dir).map_err(ProvisionError::io("resolve", dir))
}

/// A port on 127.0.0.1 that nothing listens on right now, never one `K` reserves.
pub fn free_port_for<K: ServerKind>() -> Result<u16, ProvisionError> {
    free_port(K::RESERVED_PORTS)
}

/// A running private server; stopped when dropped unless [`detach`](Self::detach)ed.
#[derive(Debug)]
pub struct Private<K: ServerKind> {
    name: String,
    kind: K,
    process: ServerProcess,
    port: u16,
    reused_data: bool,
}

impl<K: ServerKind> Private<K> {
    /// Start the server `kind` describes on a free 127.0.0.1 port as a child process in its own
    /// process group, and wait until it accepts connections; up to [`PORT_ATTEMPTS`] ports
    /// while another process takes the picked one first. Start-up is bounded by `timeout`.
    /// `reused_data`: the data directory was initialised by an earlier run. Blocking.
    pub fn launch(
        name: &str,
        kind: K,
        reused_data: bool,
        timeout: Duration,
    ) -> Result<Self, ProvisionError> {
        let deadline = Instant::now() + timeout;
        start_on_free_port(PORT_ATTEMPTS, K::BIND_FAILURE, free_port_for::<K>, |port| {
            let log_from = log_len(kind.output_log());
            let instance = Self::spawn(name, kind.clone(), port, reused_data)?;
            instance.wait_ready(log_from, deadline, timeout)
        })
    }

    fn spawn(name: &str, kind: K, port: u16, reused_data: bool) -> Result<Self, ProvisionError> {
        let mut command = kind.command(port)?;
        let process = ServerProcess::spawn(
            &mut command,
            kind.program(),
            kind.output_log(),
            K::LADDER.signal,
        )?;
        // From here on, dropping the instance stops the server.
        Ok(Private {
            name: name.to_string(),
            kind,
            process,
            port,
            reused_data,
        })
    }

    /// Wait until the server just spawned accepts connections; `log_from`: where its lines
    /// begin in its log.
    fn wait_ready(
        mut self,
        log_from: u64,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Self, ProvisionError> {
        let started = Instant::now();
        let log = self.kind.output_log().to_path_buf();
        let (pid, port) = (self.pid(), self.port);
        let ready = || self.kind.ready(port, log_from);
        match wait_until_ready(&mut self.process, deadline, ready) {
            Readiness::Ready => {
                tracing::info!(name = self.name, pid, port, elapsed = ?started.elapsed(), "server ready");
                Ok(self)
            }
            Readiness::Exited(status) => {
                self.kind.clear_runtime_files();
                Err(ProvisionError::StartFailed {
                    server: self.kind.program().to_path_buf(),
                    status: status.to_string(),
                    log_tail: log_tail(&log, log_from),
                    log,
                })
            }
            Readiness::TimedOut => {
                if let Err(err) = self.stop_within(K::LADDER.abandon_grace) {
                    tracing::warn!(name = self.name, "{err}");
                }
                Err(ProvisionError::NotReady {
                    server: self.kind.program().to_path_buf(),
                    pid,
                    port,
                    timeout,
                    log_tail: log_tail(&log, log_from),
                    log,
                })
            }
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's process id (the parent of its worker processes, if it has any).
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// What the engine knows of this instance (its layout, its binary).
    pub fn kind(&self) -> &K {
        &self.kind
    }

    /// Whether the data directory was already initialised (by an earlier run) and reused.
    pub fn reused_data(&self) -> bool {
        self.reused_data
    }

    /// How clients connect (no password).
    pub fn url(&self) -> String {
        self.kind.url(self.port)
    }

    /// e.g. "127.0.0.1:40123 (pid 4242)".
    pub fn describe(&self) -> String {
        format!("127.0.0.1:{} (pid {})", self.port, self.pid())
    }

    /// Clean shutdown down the engine's ladder: its signal, its grace, its harder signal if it
    /// has one, then SIGKILL; reaps the child and clears the runtime files. Idempotent. Fails
    /// when the shutdown was not clean: escalation was needed, or the server had already died.
    pub fn stop(&mut self) -> Result<(), ProvisionError> {
        self.stop_within(K::LADDER.grace)
    }

    /// Leave the server running after drivebench exits; returns how to connect to it.
    pub fn detach(mut self) -> String {
        self.process.detach();
        self.kind.how_to_connect(self.port, self.pid())
    }

    /// Kill without a clean shutdown (SIGKILL), as a crash would: runtime files stay behind.
    pub fn kill_for_test(&mut self) {
        self.process.kill();
    }

    /// [`stop`](Self::stop) with `grace` for the clean shutdown.
    pub(crate) fn stop_within(&mut self, grace: Duration) -> Result<(), ProvisionError> {
        let started = Instant::now();
        let ladder = K::LADDER;
        let steps = ladder.steps(grace);
        let Some(outcome) = self.process.stop(&steps, ladder.signal_name, ladder.kill) else {
            return Ok(());
        };
        let outcome = match outcome {
            StopOutcome::Clean => Ok(()),
            StopOutcome::Failed(reason) => Err(reason),
            StopOutcome::Escalated(ended_by) => Err(K::escalated(grace, ended_by)),
        };
        self.kind.clear_runtime_files();
        tracing::info!(name = %self.name, pid = self.pid(), elapsed = ?started.elapsed(), "server stopped");
        outcome.map_err(|reason| ProvisionError::Stop {
            dir: self.kind.dir().to_path_buf(),
            pid: self.pid(),
            reason,
            log: self.kind.output_log().to_path_buf(),
            log_tail: log_tail(self.kind.output_log(), 0),
        })
    }
}

impl<K: ServerKind> Drop for Private<K> {
    fn drop(&mut self) {
        if self.process.is_running()
            && let Err(err) = self.stop()
        {
            tracing::warn!(name = %self.name, "{err}");
        }
    }
}
