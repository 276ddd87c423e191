//! One engine conformance suite: every case is written once and run for each engine, SQLite,
//! MariaDB, PostgreSQL and SQL Server through the TDS emulator (Iridium SQL, not Microsoft SQL
//! Server). The cases: a private start (the protocol runs, nothing is left running, the data
//! goes), an external server attached as it is, a refused port (the run exits 2 naming
//! host:port), the server killed mid-phase (partial results, exit 1, the instance stopped),
//! one TPC-C warehouse loaded, checked (and broken on purpose) and reused, and a TPC-C run as
//! client-side statements and, where the engine has them, as stored procedures.
//!
//! A case that does not apply to an engine (SQLite has no server to refuse, attach or kill; the
//! emulator is never a private instance, and neither loads a TPC-C warehouse with the loaders'
//! multi-row INSERTs nor takes concurrent writers) says so in one printed line. An engine whose
//! server binary is absent is skipped with one printed line, unless CI=true, where it fails.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use drivebench::engines::EngineKind;
use drivebench::engines::mysql::MysqlConnector;
use drivebench::engines::postgres::PgConnector;
use drivebench::engines::sqlite::{SqliteConfig, SqliteConnector};

use crate::common::mssql::{Emulator, PASSWORD};
use crate::common::needs::{self, Need};
use crate::common::{self, ServerRun, read_json, servers_under, text, wait_exit};

/// An engine under the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Engine {
    Sqlite,
    Mariadb,
    Postgres,
    MssqlEmulator,
}

impl Engine {
    /// The CI-sized sysbench scenario.
    fn sysbench(self) -> &'static str {
        match self {
            Engine::Sqlite => "scenarios/quickstart.toml",
            Engine::Mariadb => "scenarios/ci-sysbench-mariadb.toml",
            Engine::Postgres => "scenarios/ci-sysbench-postgres.toml",
            Engine::MssqlEmulator => "scenarios/ci-sysbench-mssql.toml",
        }
    }

    /// The CI-sized TPC-C scenario.
    fn tpcc(self) -> &'static str {
        match self {
            Engine::Sqlite => "scenarios/ci-tpcc-sqlite.toml",
            Engine::Mariadb => "scenarios/ci-tpcc-mariadb.toml",
            Engine::Postgres => "scenarios/ci-tpcc-postgres.toml",
            Engine::MssqlEmulator => "scenarios/ci-tpcc-mssql.toml",
        }
    }

    /// The name of the first instance of its scenarios.
    fn instance(self) -> &'static str {
        match self {
            Engine::Sqlite => "sqlite-1",
            Engine::Mariadb => "mariadb-1",
            Engine::Postgres => "postgres-1",
            Engine::MssqlEmulator => "mssql-1",
        }
    }

    /// An external URL for a server at `place` (host:port).
    fn url(self, place: &str) -> Option<String> {
        match self {
            Engine::Sqlite => None,
            Engine::Mariadb => Some(format!("mysql://bench@{place}/sbtest")),
            Engine::Postgres => Some(format!("postgres://bench@{place}/sbtest")),
            Engine::MssqlEmulator => Some(format!("mssql://sa@{place}/sbtest?encrypt=none")),
        }
    }

    /// Whether this engine's server can be run here; prints one line and answers false when it
    /// cannot (outside CI: under CI=true an absent server fails the test).
    fn present(self) -> bool {
        let need = match self {
            Engine::Sqlite => return true,
            Engine::Mariadb => Need::Mariadb,
            Engine::Postgres => Need::Postgres,
            Engine::MssqlEmulator => Need::TdsEmulator,
        };
        needs::have(&[need])
    }

    /// Whether `case` applies to this engine; prints why not when it does not.
    fn applies(self, case: &str, not_for: &[(Engine, &str)]) -> bool {
        if let Some((_, why)) = not_for.iter().find(|(e, _)| *e == self) {
            println!("{case} on {self:?}: not applicable: {why}");
            return false;
        }
        self.present()
    }
}

const NO_SERVER: &str = "SQLite is embedded: there is no server";
const NEVER_PRIVATE: &str = "drivebench starts sqlservr, never the emulator";
const NO_BULK_LOAD: &str = "the emulator drops the loaders' multi-row INSERTs and fails \
                            concurrent writers (tests/mssql_emulator.rs runs each transaction)";

/// A private instance (for SQLite: its database file on the target) runs the protocol and
/// leaves nothing behind.
fn private_start(engine: Engine) {
    if !engine.applies("private start", &[(Engine::MssqlEmulator, NEVER_PRIVATE)]) {
        return;
    }
    let r = ServerRun::new(engine.sysbench());
    let (out, result) = r.run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(result["complete"], true);
    let inst = &result["instances"][0];
    let version = inst["version"].as_str().unwrap();
    let expected = match engine {
        Engine::Sqlite => "SQLite",
        Engine::Mariadb => "MariaDB",
        _ => "PostgreSQL",
    };
    assert!(version.contains(expected), "{inst}");
    assert!(inst["load"]["rows_per_s"].as_f64().unwrap() > 0.0, "{inst}");
    let s = &result["phases"][1]["summary"];
    let tx = s["transactions"].as_u64().unwrap();
    assert!(tx > 50, "{s}");
    assert_eq!(s["queries"]["reads"].as_u64().unwrap(), tx * 14);
    assert!(
        servers_under(&r.target()).is_empty(),
        "a server left running"
    );
    // An embedded database is the data itself and stays; a server's directory goes.
    assert_eq!(
        r.target().join(engine.instance()).exists(),
        engine == Engine::Sqlite,
        "data kept only for SQLite (keep_data = false)"
    );
}

/// A server the test started itself, attached with `provision = "external"`.
enum External {
    Mariadb(drivebench::engines::mysql::server::MysqlInstance),
    Postgres(drivebench::engines::postgres::server::PostgresInstance),
    Emulator(Emulator),
}

impl External {
    fn start(engine: Engine, dir: &Path) -> Option<External> {
        match engine {
            Engine::Sqlite => None,
            // Whatever the load path, its rows must be numbered 1..N.
            Engine::Mariadb => Some(External::Mariadb(common::external::mariadb(
                dir,
                &[("auto_increment_increment", "3")],
            ))),
            Engine::Postgres => Some(External::Postgres(common::external::postgres(dir, &[]))),
            Engine::MssqlEmulator => Emulator::start().map(External::Emulator),
        }
    }

    fn url(&self, db: &str) -> String {
        match self {
            External::Mariadb(s) => format!("mysql://root@127.0.0.1:{}/{db}", s.port()),
            External::Postgres(s) => format!("postgres://postgres@127.0.0.1:{}/{db}", s.port()),
            External::Emulator(e) => e.url(db),
        }
    }
}

/// An external server is used as it is: the run creates its database and runs the protocol
/// (the emulator, which takes no concurrent writers, is reached by `plan`, read-only).
fn external_attach(engine: Engine) {
    if !engine.applies("external attach", &[(Engine::Sqlite, NO_SERVER)]) {
        return;
    }
    let r = ServerRun::new(engine.sysbench());
    let Some(server) = External::start(engine, &r.tmp.path().join("srv")) else {
        return;
    };
    if let External::Emulator(_) = server {
        return emulator_is_reached_read_only(r, &server);
    }
    let url = server.url("drivebench_ext");
    let set = format!("instance.0.url=\"{url}\"");
    let (out, result) = r.run(&["instance.0.provision=external", &set]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tx = result["phases"][1]["summary"]["transactions"].as_u64();
    assert!(tx.unwrap() > 0, "{result}");
    assert_eq!(result["plan"]["instances"][0]["url"], url);
    match &server {
        External::Mariadb(server) => crate::mariadb::an_attached_server_keeps_its_ways(server),
        External::Postgres(server) => {
            let keyed = crate::postgres::loaded_tables_are_keyed_as_sysbench_keys_them;
            keyed(server.port(), "drivebench_ext", 10_000);
        }
        External::Emulator(_) => {}
    }
}

/// `plan` against the emulator asks it for its limits and changes nothing.
fn emulator_is_reached_read_only(r: ServerRun, server: &External) {
    let url = format!("instance.0.url=\"{}\"", server.url("not_created"));
    let out = r.env("DRIVEBENCH_MSSQL_PASSWORD", PASSWORD).plan(&[&url]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(s.contains("reached Microsoft SQL Server 2022"), "{s}");
    assert!(s.contains("iridium_sql emulator"), "{s}");
    assert!(s.contains("database not_created does not exist yet"), "{s}");
}

/// An external server with nothing listening is refused before anything starts, naming its
/// address and the OS's reason.
fn refused_port(engine: Engine) {
    if !engine.applies("refused port", &[(Engine::Sqlite, NO_SERVER)]) {
        return;
    }
    let port = common::closed_port();
    let place = format!("127.0.0.1:{port}");
    let url = engine.url(&place).unwrap();
    let run = ServerRun::new(engine.sysbench()).env("DRIVEBENCH_MSSQL_PASSWORD", PASSWORD);
    common::refused_external_run(&run, &url, &place);
}

/// The server killed mid-phase: the run fails within seconds naming the instance, keeps its
/// partial results, and leaves no server running.
fn killed_mid_phase(engine: Engine) {
    let not_for = [
        (Engine::Sqlite, NO_SERVER),
        (Engine::MssqlEmulator, NEVER_PRIVATE),
    ];
    if !engine.applies("server killed mid-phase", &not_for) {
        return;
    }
    let r = ServerRun::new(engine.sysbench());
    let mut child = r.spawn_until_running(Stdio::piped());
    let pids = servers_under(&r.target());
    assert_eq!(pids.len(), 1, "one private server: {pids:?}");
    let killed = Instant::now();
    std::process::Command::new("kill")
        .args(["-KILL", &pids[0].to_string()])
        .status()
        .unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(15));
    assert_eq!(status.code(), Some(1), "after {:?}", killed.elapsed());
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(
        err.contains(engine.instance()) && err.contains("lost connection"),
        "{err}"
    );
    let result = read_json(&r.out().join("result.json"));
    assert_eq!(result["complete"], false);
    assert_eq!(result["status"], "failed");
    let tx = result["phases"][0]["summary"]["transactions"].as_u64();
    assert!(tx.unwrap() > 0, "{result}");
    assert!(servers_under(&r.target()).is_empty());
}

/// One TPC-C warehouse loaded: every consistency check passes, corruptions fail the checks
/// they break, and a second load reuses the first.
fn tpcc_checks_and_reuse(engine: Engine) {
    if !engine.applies(
        "TPC-C checks and reuse",
        &[(Engine::MssqlEmulator, NO_BULK_LOAD)],
    ) {
        return;
    }
    let r = ServerRun::new(engine.tpcc());
    let dir = r.tmp.path().join("srv");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (results, took) = rt.block_on(async {
        match engine {
            Engine::Sqlite => {
                let (table, key) = (toml::Table::new(), drivebench_core::config::KeyPath::root());
                let config = SqliteConfig::from_table(&table, &key).unwrap();
                std::fs::create_dir_all(&dir).unwrap();
                let c = SqliteConnector::new(&dir, config, 64);
                common::tpcc::load_and_check(Arc::new(c), EngineKind::Sqlite).await
            }
            Engine::Mariadb => {
                let server = common::external::mariadb(&dir, &[]);
                let url = format!("mysql://root@127.0.0.1:{}/drivebench_tpcc", server.port());
                let c = MysqlConnector::new(&url, None).await.unwrap();
                common::tpcc::load_and_check(Arc::new(c), EngineKind::Mariadb).await
            }
            _ => {
                let server = common::external::postgres(&dir, &[]);
                let url = format!("postgres://postgres@127.0.0.1:{}/tpcc", server.port());
                let c = PgConnector::new(&url, None).await.unwrap();
                common::tpcc::load_and_check(Arc::new(c), EngineKind::Postgres).await
            }
        }
    });
    println!("checks on 1 warehouse ({engine:?}): {took:?}");
    assert_eq!(results.len(), 13, "{results:#?}");
    assert!(results.iter().all(|r| r.passed), "{results:#?}");
}

/// A CI-sized TPC-C run as client-side statements on pooled connections, then (where the
/// engine has stored procedures) with every transaction one procedure call: every kind runs and
/// every consistency check passes both ways.
fn tpcc_statements_and_procedures(engine: Engine) {
    let case = "TPC-C statements and procedures";
    if !engine.applies(case, &[(Engine::MssqlEmulator, NO_BULK_LOAD)]) {
        return;
    }
    let procedures: &[&str] = match engine {
        Engine::Sqlite => {
            let (out, result) = ServerRun::new(engine.tpcc()).run(&[]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            common::tpcc::every_kind_ran_and_every_check_passed(&result);
            println!("{case} on {engine:?}: no stored procedures, statements only");
            return;
        }
        Engine::Mariadb => {
            let pooled = common::tpcc::pooled_throughput_run_passes_the_checks;
            pooled(engine.tpcc(), "read_committed", "READ-COMMITTED");
            &[]
        }
        _ => {
            let pooled = common::tpcc::pooled_throughput_run_passes_the_checks;
            pooled(engine.tpcc(), "serializable", "serializable");
            // At serializable, eight terminals on two warehouses' hot rows with immediate
            // re-runs can fail one procedure call 100 times in a row on a loaded 2-core host.
            &["workload.isolation=read_committed"]
        }
    };
    common::tpcc::procedures_run_passes_the_checks(engine.tpcc(), procedures);
}

/// The suite's `#[test]`s for one engine.
macro_rules! conformance {
    ($module:ident, $engine:expr) => {
        mod $module {
            #[test]
            fn private_start() {
                super::private_start($engine);
            }

            #[test]
            fn external_attach() {
                super::external_attach($engine);
            }

            #[test]
            fn refused_port() {
                super::refused_port($engine);
            }

            #[test]
            fn killed_mid_phase() {
                super::killed_mid_phase($engine);
            }

            #[test]
            fn tpcc_checks_and_reuse() {
                super::tpcc_checks_and_reuse($engine);
            }

            #[test]
            fn tpcc_statements_and_procedures() {
                super::tpcc_statements_and_procedures($engine);
            }
        }
    };
}

conformance!(sqlite, super::Engine::Sqlite);
conformance!(mariadb, super::Engine::Mariadb);
conformance!(postgres, super::Engine::Postgres);
conformance!(mssql_emulator, super::Engine::MssqlEmulator);
