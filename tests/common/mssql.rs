//! The TDS emulator tier: Iridium SQL (`iridium-server`, a TDS 7.4 server with a T-SQL
//! executor) started on a loopback port of its own, in memory, stopped when dropped. It is
//! not Microsoft SQL Server: it proves the client speaks TDS and that the dialect files parse
//! and do what they say on a T-SQL engine, never how SQL Server performs.
//! .ci/run installs it (`cargo install --locked --root ~/.cache/drivebench-ci
//! iridium_server@0.1.13`) and sets DRIVEBENCH_REQUIRE_TDS_EMULATOR=1, so there a missing
//! emulator fails the tests instead of skipping them.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The login the emulator is started with.
pub const USER: &str = "sa";
pub const PASSWORD: &str = "Emulator-Pw-1";

pub struct Emulator {
    child: Child,
    pub port: u16,
}

fn binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IRIDIUM_SERVER") {
        return Some(PathBuf::from(p));
    }
    let cached = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/drivebench-ci/bin/iridium-server"));
    if let Some(p) = cached.filter(|p| p.is_file()) {
        return Some(p);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("iridium-server"))
            .find(|p| p.is_file())
    })
}

/// Why the emulator cannot be started here, when it cannot.
pub fn missing() -> Option<String> {
    binary().is_none().then(|| {
        "iridium-server not found (IRIDIUM_SERVER, ~/.cache/drivebench-ci/bin, PATH); .ci/run \
         installs it"
            .to_string()
    })
}

impl Emulator {
    /// Start the emulator, or None (printing why) when it is not installed and not required.
    pub fn start(test: &str) -> Option<Emulator> {
        let Some(bin) = binary() else {
            let why = "iridium-server not found (IRIDIUM_SERVER, ~/.cache/drivebench-ci/bin, PATH); \
                       .ci/run installs it";
            if std::env::var("DRIVEBENCH_REQUIRE_TDS_EMULATOR").as_deref() == Ok("1") {
                panic!("{test}: {why}");
            }
            println!("{test}: skipped: {why}");
            return None;
        };
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let child = Command::new(&bin)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--memory", "--no-tls", "--pool-max", "2000"])
            .args(["--user", USER, "--password", PASSWORD])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
        let emulator = Emulator { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the TDS emulator did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        println!(
            "{test}: against the TDS emulator (Iridium SQL) on 127.0.0.1:{port}, not Microsoft SQL Server"
        );
        Some(emulator)
    }

    /// The drivebench URL of a database on it (no TLS: the emulator runs without).
    pub fn url(&self, db: &str) -> String {
        format!("mssql://{USER}@127.0.0.1:{}/{db}?encrypt=none", self.port)
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
