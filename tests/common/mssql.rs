//! The TDS emulator tier: Iridium SQL (`iridium-server`, a TDS 7.4 server with a T-SQL
//! executor) started on a loopback port of its own, in memory, stopped when dropped. It is
//! not Microsoft SQL Server: it proves the client speaks TDS and that the dialect files parse
//! and do what they say on a T-SQL engine, never how SQL Server performs.
//! `bash scripts/test.sh` installs it (`cargo install --locked --root ~/.cache/drivebench-ci
//! iridium_server@0.1.13`); a missing emulator skips its tests, or fails them under CI=true.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The login the emulator is started with.
pub const USER: &str = "sa";
pub const PASSWORD: &str = "Emulator-Pw-1";

pub struct Emulator {
    child: Child,
    pub port: u16,
}

impl Emulator {
    /// Start the emulator, or None (printing the skip line) when it is not installed.
    pub fn start() -> Option<Emulator> {
        if !super::needs::have(&[super::needs::Need::TdsEmulator]) {
            return None;
        }
        let bin = super::needs::iridium().expect("checked above");
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
            "against the TDS emulator (Iridium SQL) on 127.0.0.1:{port}, not Microsoft SQL Server"
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
