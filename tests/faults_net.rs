//! Issue 23: an external server that becomes unreachable mid-phase. A TCP proxy run by the test
//! sits between drivebench and a MariaDB or PostgreSQL server the test starts
//! (`provision = "external"` pointed at the proxy); the test breaks the network there. Each
//! case asserts, as tests/faults.rs does, the exit code, how soon the run ended after the
//! fault, the result.json kept (valid against the result schema) and that nothing drivebench
//! started still runs or holds a file in the run directory or the target.
//!
//! - connections cut once, new ones let through: every client reconnects within the
//!   reconnection window, the run completes and counts the reconnects;
//! - connections cut and the proxy gone (new connections refused): the clients give up after
//!   the window, naming the instance and the refusal;
//! - the proxy goes silent (nothing forwarded, connections kept open): the stall watch stops
//!   the run after `workload.stall_timeout`, naming the instance;
//! - connections cut and new ones accepted but never answered: each reconnection attempt is
//!   bounded by the time left in the window, so the clients give up after the window, not
//!   after the driver's own connect timeout (a minute for drivebench's MySQL client, none for
//!   tokio-postgres).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::common::needs::need;
use crate::common::{ServerRun, external, read_json, validate, wait_exit, wait_for_lines};

const MARIADB: &str = "scenarios/ci-sysbench-mariadb.toml";
const POSTGRES: &str = "scenarios/ci-sysbench-postgres.toml";
/// The clients of the CI scenarios, each with its own connection.
const CLIENTS: u64 = 8;

/// What the proxy does with the connections and bytes it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every byte goes through, both ways.
    Forward,
    /// Nothing goes through: what arrives is held; new connections are accepted and held
    /// without a word (a network that drops every packet past a TCP endpoint that answers).
    Silent,
    /// The listener is closed: new connections are refused.
    Down,
}

/// A TCP proxy on a 127.0.0.1 port of its own in front of a server's port.
struct Proxy {
    port: u16,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

struct Shared {
    upstream: u16,
    mode: Mutex<Mode>,
    /// Both ends of every connection so far, to cut them all at once.
    sockets: Mutex<Vec<TcpStream>>,
    accepted: AtomicUsize,
}

impl Shared {
    fn mode(&self) -> Mode {
        *self.mode.lock().unwrap()
    }

    fn hold(&self, s: &TcpStream) {
        self.sockets.lock().unwrap().push(s.try_clone().unwrap());
    }

    /// A new client connection: held silent, or joined to a new connection to the server.
    fn serve(self: &Arc<Self>, client: TcpStream) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        client.set_nonblocking(false).unwrap();
        self.hold(&client);
        if self.mode() != Mode::Forward {
            return;
        }
        let Ok(server) = TcpStream::connect(("127.0.0.1", self.upstream)) else {
            let _ = client.shutdown(Shutdown::Both);
            return;
        };
        self.hold(&server);
        for (from, to) in [
            (client.try_clone().unwrap(), server.try_clone().unwrap()),
            (server, client),
        ] {
            let shared = self.clone();
            std::thread::spawn(move || shared.pump(from, to));
        }
    }

    /// Copy `from` to `to` until either end closes; what arrives while silent is held back.
    fn pump(&self, mut from: TcpStream, mut to: TcpStream) {
        let mut buf = vec![0; 64 * 1024];
        while let Ok(n @ 1..) = from.read(&mut buf) {
            while self.mode() == Mode::Silent {
                std::thread::sleep(Duration::from_millis(20));
            }
            if self.mode() == Mode::Down || to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    }
}

impl Proxy {
    fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            upstream,
            mode: Mutex::new(Mode::Forward),
            sockets: Mutex::new(Vec::new()),
            accepted: AtomicUsize::new(0),
        });
        let s = shared.clone();
        // The listener lives in this thread: it is closed when the mode becomes Down.
        let acceptor = std::thread::spawn(move || {
            while s.mode() != Mode::Down {
                match listener.accept() {
                    Ok((client, _)) => s.serve(client),
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Proxy {
            port,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// Close both ends of every connection so far (the clients read end-of-file).
    fn cut(&self) {
        for s in self.shared.sockets.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn set(&mut self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = mode;
        if mode == Mode::Down
            && let Some(a) = self.acceptor.take()
        {
            a.join().unwrap();
        }
    }

    fn accepted(&self) -> usize {
        self.shared.accepted.load(Ordering::Relaxed)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.set(Mode::Down);
        self.cut();
    }
}

/// What the test does to the network once the phases are running.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Every connection cut once; new ones go through.
    CutOnce,
    /// Every connection cut and the listener closed.
    CutAndRefuse,
    /// Nothing forwarded any more; connections stay open.
    Silence,
    /// Every connection cut; new ones accepted and never answered.
    CutAndSilence,
}

impl Fault {
    fn apply(self, proxy: &mut Proxy) {
        match self {
            Fault::CutOnce => proxy.cut(),
            Fault::CutAndRefuse => {
                proxy.set(Mode::Down);
                proxy.cut();
            }
            Fault::Silence => proxy.set(Mode::Silent),
            Fault::CutAndSilence => {
                proxy.set(Mode::Silent);
                proxy.cut();
            }
        }
    }
}

/// How a faulted run ended.
struct Outcome {
    code: Option<i32>,
    /// From the fault to drivebench's exit.
    took: Duration,
    stderr: String,
    result: serde_json::Value,
}

/// Run `r`'s scenario against the server on `upstream` through a proxy (`url` with `{port}`
/// for the proxy's port), apply `fault` a few intervals into the first phase, and wait for the
/// run to end (at most `limit` after the fault).
fn run_with_fault(
    r: &ServerRun,
    upstream: u16,
    url: &str,
    (time_scale, sets): (&str, &[&str]),
    fault: Fault,
    limit: Duration,
) -> Outcome {
    let mut proxy = Proxy::start(upstream);
    let url = format!(
        "instance.0.url=\"{}\"",
        url.replace("{port}", &proxy.port.to_string())
    );
    let mut all = vec!["instance.0.provision=external", &url, "report_interval=1s"];
    all.extend_from_slice(sets);
    let mut child: Child = r
        .command(time_scale, &all)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = drain(&mut child);
    // The header and a few one-second rows: clients connected, transactions flowing.
    wait_for_lines(&r.out().join("series.csv"), 4, Duration::from_secs(120));
    let before = proxy.accepted();
    let at = Instant::now();
    fault.apply(&mut proxy);
    let status = wait_exit(&mut child, limit);
    let took = at.elapsed();
    eprintln!(
        "{fault:?}: exit {:?} after {took:?}; {} connection(s) before the fault, {} after",
        status.code(),
        before,
        proxy.accepted() - before
    );
    drop(proxy);
    let result = read_json(&r.out().join("result.json"));
    validate("schemas/json/result.schema.json", &result);
    assert!(
        holders(&r.out()).is_empty() && holders(&r.target()).is_empty(),
        "a process still holds a file of the run: {:?} {:?}",
        holders(&r.out()),
        holders(&r.target())
    );
    Outcome {
        code: status.code(),
        took,
        stderr: stderr.join().unwrap(),
        result,
    }
}

/// Read a child's stderr to its end on a thread.
fn drain(child: &mut Child) -> JoinHandle<String> {
    let mut pipe = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    })
}

/// Processes with a file open under `dir`, or a command line naming it.
fn holders(dir: &Path) -> Vec<u32> {
    let needle = dir.display().to_string();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let named = String::from_utf8_lossy(&cmd).contains(&needle);
        let open = std::fs::read_dir(entry.path().join("fd"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| p.starts_with(dir)));
        if named || open {
            out.push(pid);
        }
    }
    out
}

/// A phase figure summed over the phases.
fn summed(result: &serde_json::Value, field: &str) -> u64 {
    result["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["summary"][field].as_u64().unwrap())
        .sum()
}

/// Connections cut once: every client reconnects (once), the run completes.
fn cut_once_is_survived(r: &ServerRun, upstream: u16, url: &str) {
    let o = run_with_fault(
        r,
        upstream,
        url,
        ("0.5", &[]),
        Fault::CutOnce,
        Duration::from_secs(90),
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.result["complete"], true);
    assert_eq!(summed(&o.result, "reconnects"), CLIENTS, "one per client");
    let sample = &o.result["phases"][1]["summary"];
    assert!(sample["transactions"].as_u64().unwrap() > 0);
    let reconnect_errors: u64 = o.result["phases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["summary"]["errors_by_code"].as_array().unwrap())
        .filter(|e| e["class"] == "reconnect")
        .map(|e| e["count"].as_u64().unwrap())
        .sum();
    assert_eq!(reconnect_errors, CLIENTS, "{}", o.result["phases"]);
}

/// The run stopped by `fault` within `bound`: exit 1, the instance named with `said`, partial
/// results kept with the figures from before the fault.
fn fault_stops_the_run(
    r: &ServerRun,
    (upstream, url, instance): (u16, &str, &str),
    fault: Fault,
    run: (&str, &[&str]),
    (said, bound): (&[&str], Duration),
) {
    let o = run_with_fault(r, upstream, url, run, fault, Duration::from_secs(120));
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    let shown = o.stderr.lines().find(|l| l.starts_with("error: "));
    eprintln!("{fault:?}: {}", shown.unwrap_or("no error line"));
    assert!(o.took < bound, "{fault:?}: exited {:?} after it", o.took);
    let named = format!("instance {instance}");
    assert!(o.stderr.contains(&named), "{}", o.stderr);
    for s in said {
        assert!(o.stderr.contains(s), "{s:?} missing: {}", o.stderr);
    }
    assert_eq!(o.result["status"], "failed");
    assert!(o.result["error"].as_str().unwrap().contains(&named));
    assert!(
        summed(&o.result, "transactions") > 0,
        "the figures before it"
    );
}

/// The engine behind the proxy.
#[derive(Debug, Clone, Copy)]
enum Engine {
    Mariadb,
    Postgres,
}

/// A server the test started, stopped when dropped.
enum Server {
    Mariadb(drivebench::engines::mysql::server::MysqlInstance),
    Postgres(drivebench::engines::postgres::server::PostgresInstance),
}

impl Engine {
    /// A run directory for its CI scenario and a server of it, with the URL of a database
    /// behind the proxy (`{port}`) and the instance's name.
    fn start(self) -> (ServerRun, Server, &'static str, &'static str) {
        match self {
            Engine::Mariadb => {
                let r = ServerRun::new(MARIADB);
                let s = external::mariadb(&r.tmp.path().join("srv"), &[]);
                let url = "mysql://root@127.0.0.1:{port}/drivebench_net";
                (r, Server::Mariadb(s), url, "mariadb-1")
            }
            Engine::Postgres => {
                let r = ServerRun::new(POSTGRES);
                let s = external::postgres(&r.tmp.path().join("srv"), &[]);
                let url = "postgres://postgres@127.0.0.1:{port}/drivebench_net";
                (r, Server::Postgres(s), url, "postgres-1")
            }
        }
    }
}

impl Server {
    fn port(&self) -> u16 {
        match self {
            Server::Mariadb(s) => s.port(),
            Server::Postgres(s) => s.port(),
        }
    }
}

/// `fault_stops_the_run` on a server of `engine` the test starts.
fn stopped_by(engine: Engine, fault: Fault, run: (&str, &[&str]), expect: (&[&str], Duration)) {
    let (r, server, url, instance) = engine.start();
    fault_stops_the_run(&r, (server.port(), url, instance), fault, run, expect);
}

/// Reconnection attempts that fail with `said` for longer than the window stop the run then:
/// neither the stall watch (40 s) nor a driver's connect timeout may be what ends it.
fn gives_up_after_the_window(engine: Engine, fault: Fault, said: &str) {
    stopped_by(
        engine,
        fault,
        ("2", &["workload.stall_timeout=40s"]),
        (
            &["could not reconnect within 10 s", said],
            // The 10 s window, the clients' stop.
            Duration::from_secs(25),
        ),
    );
}

/// Connections cut once: every client reconnects, the run completes.
fn survives_a_cut(engine: Engine) {
    let (r, server, url, _) = engine.start();
    cut_once_is_survived(&r, server.port(), url);
}

#[test]
fn mariadb_connections_cut_once_mid_phase_reconnect_and_the_run_completes() {
    need!(Mariadb);
    survives_a_cut(Engine::Mariadb);
}

#[test]
fn mariadb_behind_a_proxy_that_goes_away_stops_the_run_after_the_reconnect_window() {
    need!(Mariadb);
    gives_up_after_the_window(Engine::Mariadb, Fault::CutAndRefuse, "Connection refused");
}

#[test]
fn mariadb_behind_a_network_gone_silent_is_stopped_by_the_stall_watch_across_phases() {
    need!(Mariadb);
    stopped_by(
        Engine::Mariadb,
        Fault::Silence,
        // Silent from about 3 s into the 10 s precondition; the 5 s sample is shorter than
        // the stall timeout, so only a watch kept across the boundary catches it (at about
        // 11 s) before the run would end as if complete (15 s).
        (
            "1",
            &["workload.stall_timeout=7s", "phase.1.duration=\"5s\""],
        ),
        // 7 s without progress, a 1 s tick, 3 s for the clients.
        (&["hung or unreachable"], Duration::from_secs(20)),
    );
}

#[test]
fn mariadb_reconnects_to_a_silent_network_give_up_after_the_window() {
    need!(Mariadb);
    gives_up_after_the_window(Engine::Mariadb, Fault::CutAndSilence, "no answer");
}

#[test]
fn postgres_connections_cut_once_mid_phase_reconnect_and_the_run_completes() {
    need!(Postgres);
    survives_a_cut(Engine::Postgres);
}

#[test]
fn postgres_reconnects_to_a_silent_network_give_up_after_the_window() {
    need!(Postgres);
    gives_up_after_the_window(Engine::Postgres, Fault::CutAndSilence, "no answer");
}
