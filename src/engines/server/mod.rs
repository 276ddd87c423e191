//! The private-server lifecycle the server engines (MariaDB/MySQL, PostgreSQL, SQL Server)
//! share, so that a run's database data lives on the drive under test: the `Server` trait each
//! of them implements (start, stop, detach, connect, the settings kept with the results, the
//! limits checked before the clock), and the pieces their private instances are built from:
//! initialise a data directory, start the server as a child process on a free 127.0.0.1 port,
//! wait until it accepts connections, and stop it cleanly on every exit path (or leave it
//! running when asked). The protocol drives the lifecycle; nothing here reads a plan.
//!
//! Every server started here is recorded in a process-wide registry of child PIDs, so that an
//! emergency exit (a second Ctrl-C, which skips the orderly teardown) can still stop them with
//! [`kill_all_registered`]. Servers run in their own process group: a terminal's Ctrl-C reaches
//! drivebench only, which then decides how to stop them.

pub(crate) mod error;
pub(crate) mod init;
pub(crate) mod locate;
pub mod owner;
pub(crate) mod port;
pub mod private;
pub(crate) mod process;
pub mod secret;
#[cfg(test)]
pub(crate) mod test_support;

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::{Advice, Engine, EngineError};
pub use error::ProvisionError;

use self::private::{Private, ServerKind};

/// How long a private server may take to accept connections.
pub const START_TIMEOUT: Duration = Duration::from_secs(120);

/// What a run asks of each server instance, read from the plan by the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Demand {
    /// Connections the clients of one instance open.
    pub connections: u32,
    /// Tables the workload uses.
    pub tables: u32,
    /// Statements each connection prepares.
    pub statements_per_client: usize,
}

/// How other hosts log in to a private server opened to the network (`drivebench up --listen`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkLogin {
    /// Run once, as the local superuser; they hold the password (never logged).
    pub statements: Vec<String>,
    /// The URL other hosts connect to (no password).
    pub url: String,
}

/// A private instance of the server engine `S`.
pub type Instance<S> = Private<<S as Server>::Kind>;

/// What a server engine provides to the lifecycle the protocol drives.
pub trait Server: Engine {
    /// What its private instances are made of (they stop themselves when dropped).
    type Kind: ServerKind;
    /// Start a private instance called `name` in `dir`, sized for `demand`. Blocking.
    fn start(
        name: &str,
        config: &Self::Config,
        demand: &Demand,
        dir: &Path,
    ) -> Result<Instance<Self>, ProvisionError>;
    /// `drivebench up --listen`: whether this engine's private servers can listen for other
    /// hosts (else they listen on 127.0.0.1 only, with a trusted local login).
    const LISTENS: bool = false;
    /// Start as [`start`](Self::start) does, listening on `addr` as well as 127.0.0.1 (only
    /// called when [`LISTENS`](Self::LISTENS)).
    fn start_listening(
        name: &str,
        config: &Self::Config,
        demand: &Demand,
        dir: &Path,
        _addr: std::net::IpAddr,
    ) -> Result<Instance<Self>, ProvisionError> {
        Self::start(name, config, demand, dir)
    }
    /// The statements, run as the instance's local superuser, that give the login of
    /// [`NetworkLogin::url`] the password `password` from any host, and that URL (at `addr`).
    fn network_login(
        _i: &Instance<Self>,
        _addr: std::net::IpAddr,
        _password: &str,
    ) -> NetworkLogin {
        NetworkLogin::default()
    }
    fn url(i: &Instance<Self>) -> String {
        i.url()
    }
    /// The password clients of a private instance log in with (none: trusted local login).
    fn password(_i: &Instance<Self>) -> Option<String> {
        None
    }
    /// Where a private instance in `dir` keeps the password its clients log in with, for
    /// reaching it again once left running (none: trusted local login).
    fn password_file(_dir: &Path) -> Option<PathBuf> {
        None
    }
    /// e.g. "127.0.0.1:40123 (pid 4242)".
    fn describe(i: &Instance<Self>) -> String {
        i.describe()
    }
    /// The process id of the server (the parent of its worker processes, if it has any).
    fn pid(i: &Instance<Self>) -> u32 {
        i.pid()
    }
    /// Clean shutdown. Blocking.
    fn stop(i: &mut Instance<Self>) -> Result<(), ProvisionError> {
        i.stop()
    }
    /// Leave running; how to connect.
    fn detach(i: Instance<Self>) -> String {
        i.detach()
    }
    fn connect(
        config: &Self::Config,
        url: &str,
        password: Option<&str>,
    ) -> impl Future<Output = Result<Self::Connector, EngineError>> + Send;
    /// Log in to an external server at `url` as a run would and answer its version, changing
    /// nothing: the connection probe of `plan` and of `run` before anything starts.
    fn reach(
        config: &Self::Config,
        url: &str,
        password: Option<&str>,
    ) -> impl Future<Output = Result<String, EngineError>> + Send;
    /// Settings worth keeping with the results.
    fn variables(c: &Self::Connector) -> impl Future<Output = BTreeMap<String, String>> + Send;
    /// Whether the server allows what the run needs (connections, prepared statements).
    fn check_limits(demand: &Demand, vars: &BTreeMap<String, String>) -> Result<(), LimitError>;
    /// Why a private instance with `config` cannot be started on this host, when something it
    /// needs is not installed (checked before anything starts).
    fn missing(_config: &Self::Config) -> Option<ProvisionError> {
        None
    }
    /// Why a private instance's directory `dir` (not created yet) cannot be used by the
    /// system account the server runs as, when it cannot (checked before anything starts).
    fn unreachable(_dir: &Path) -> Option<ProvisionError> {
        None
    }
    /// What preflight learns from an external server without changing it (nothing, unless the
    /// engine asks it).
    fn probe(_probe: Probe<'_, Self::Config>) -> impl Future<Output = Vec<Advice>> + Send {
        async { Vec::new() }
    }
}

/// An external server preflight may ask about.
#[derive(Debug)]
pub struct Probe<'a, C> {
    /// The instance's name in the plan.
    pub name: &'a str,
    pub config: &'a C,
    pub url: &'a str,
    /// The password from `password_env` or `password_file`, or why it could not be read.
    pub password: Result<Option<String>, PasswordError>,
    /// Connections the clients of one instance open.
    pub connections: u64,
    /// Estimated bytes of one instance's data.
    pub data_bytes: u64,
}

/// Why the password of an external instance could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("instance {instance}: password_env {var} is not set")]
    EnvNotSet { instance: String, var: String },
    #[error("instance {instance}: password_file {file}: {source}")]
    File {
        instance: String,
        file: String,
        #[source]
        source: std::io::Error,
    },
}

/// The password of external instance `instance`: from the environment variable `env`, else
/// the file `file` (its trailing newline removed), else none.
pub fn external_password(
    instance: &str,
    env: Option<&str>,
    file: Option<&str>,
) -> Result<Option<String>, PasswordError> {
    if let Some(var) = env {
        return std::env::var(var)
            .map(Some)
            .map_err(|_| PasswordError::EnvNotSet {
                instance: instance.to_string(),
                var: var.to_string(),
            });
    }
    if let Some(file) = file {
        return std::fs::read_to_string(file)
            .map(|s| Some(s.trim_end_matches(['\n', '\r']).to_string()))
            .map_err(|source| PasswordError::File {
                instance: instance.to_string(),
                file: file.to_string(),
                source,
            });
    }
    Ok(None)
}

/// A server setting too low for the run, and how to raise it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// A setting below what the run needs.
    #[error("{setting} is {have} but the plan needs {need}; {remedy}")]
    Setting {
        setting: &'static str,
        have: u64,
        need: u64,
        remedy: String,
    },
    /// The server allows fewer of something than the run opens.
    #[error("the server allows {have} {what} but the plan opens {need}; {remedy}")]
    Allows {
        what: &'static str,
        have: u64,
        need: u64,
        remedy: String,
    },
}

/// How long [`kill_all_registered`] waits for servers to exit after SIGTERM before SIGKILL.
const EMERGENCY_GRACE: Duration = Duration::from_secs(10);

/// How often process state is polled while waiting for an exit.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(25);

/// Servers started by this process that are still running: PID and the signal that asks that
/// engine for a prompt clean shutdown (SIGTERM for mariadbd, SIGINT "fast" for PostgreSQL,
/// whose SIGTERM would wait for every client to disconnect).
static RUNNING: Mutex<Vec<(u32, Signal)>> = Mutex::new(Vec::new());

fn running() -> std::sync::MutexGuard<'static, Vec<(u32, Signal)>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn register(pid: u32, stop: Signal) {
    running().push((pid, stop));
}

pub(crate) fn unregister(pid: u32) {
    running().retain(|&(p, _)| p != pid);
}

/// Stop every server this process started and has not stopped, detached or killed yet: its stop
/// signal to each, wait up to 10 s for all of them to exit, then SIGKILL the rest. For the emergency exit
/// path; it never panics. Exited servers stay unreaped (zombies) until their
/// instance is stopped or dropped, or this process exits.
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
pub(crate) fn wait_for_exit(
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
pub(crate) fn send_signal(pid: u32, signal: Signal) -> bool {
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
pub(crate) fn has_exited(pid: u32) -> bool {
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
