//! Each engine's own I/O counters, read through `engines::engine_io` the way the sampler reads
//! them: on a private instance (SQLite's file, a MariaDB, a PostgreSQL cluster), read, commit N
//! write transactions, read again: the log flushes grew by N (one client, so no group commit
//! shares a flush), the data writes grew once the engine wrote its pages, a cold read grew the
//! data reads, the timings are there where the private settings turn them on, and `missing`
//! names only what the engine's version does not count. An account without rights gets
//! notes, never an error; so does the TDS emulator, which has none of SQL Server's views.

use std::future::Future;
use std::time::{Duration, Instant};

use crate::common::needs::need;
use drivebench::engines::engine_io::{Reader, statements};
use drivebench::engines::{Connector, Dialect, Session};
use drivebench_core::engine_io::{EngineIoCounters, EngineIoReading};

/// Write transactions each test commits.
const N: u64 = 40;

async fn read<S: Session>(s: &mut S, dialect: Dialect) -> EngineIoReading {
    let mut reader = Reader::prepare(s, &statements(dialect).unwrap()).await;
    reader.read(s).await
}

/// Commit `N` single-row inserts into `t`, one transaction each.
async fn commit_n<S: Session>(s: &mut S, begin: &str, insert: &str) {
    let (b, i, c) = (
        s.prepare(begin).await.unwrap(),
        s.prepare(insert).await.unwrap(),
        s.prepare("COMMIT").await.unwrap(),
    );
    for _ in 0..N {
        s.execute(b, &[]).await.unwrap();
        s.execute(i, &[]).await.unwrap();
        s.execute(c, &[]).await.unwrap();
    }
}

/// Read until `done` holds (the servers publish some counters a moment late: PostgreSQL's
/// backends flush their statistics within a second, InnoDB's page cleaner writes when it
/// runs), for at most 30 s.
async fn read_until<S: Session>(
    s: &mut S,
    dialect: Dialect,
    what: &str,
    done: impl Fn(&EngineIoCounters) -> bool,
) -> EngineIoReading {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = read(s, dialect).await;
        if done(&r.counters) {
            return r;
        }
        assert!(Instant::now() < deadline, "{what}: {r:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn grew(before: Option<u64>, after: Option<u64>) -> u64 {
    after.unwrap().saturating_sub(before.unwrap())
}

fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Runtime::new().unwrap().block_on(f)
}

#[test]
fn sqlite_counts_its_syncs_writes_and_cold_reads_in_drivebenchs_vfs() {
    use drivebench::engines::sqlite::{SqliteConfig, SqliteConnector};
    let dir = tempfile::tempdir().unwrap();
    let config = SqliteConfig::from_table(
        &toml::Table::new(),
        &drivebench_core::config::KeyPath::root(),
    )
    .unwrap();
    let connector = SqliteConnector::new(dir.path(), config.clone(), 8);
    block_on(async {
        let mut s = connector.connect().await.unwrap();
        s.execute_text("CREATE TABLE t (id INTEGER PRIMARY KEY, c BLOB)")
            .await
            .unwrap();
        let before = read(&mut s, Dialect::Sqlite).await;
        assert_eq!(before.missing, Vec::<String>::new());
        let insert = "INSERT INTO t (c) VALUES (zeroblob(4000))";
        commit_n(&mut s, "BEGIN IMMEDIATE", insert).await;
        s.execute_text("PRAGMA wal_checkpoint(TRUNCATE)")
            .await
            .unwrap();
        let after = read(&mut s, Dialect::Sqlite).await;
        let (b, a) = (&before.counters, &after.counters);
        assert!(
            grew(b.log_flushes, a.log_flushes) >= N,
            "WAL, synchronous = full: a sync per commit"
        );
        assert!(grew(b.log_bytes, a.log_bytes) >= N * 4000);
        assert!(
            grew(b.data_writes, a.data_writes) >= N,
            "the checkpoint wrote the pages"
        );
        assert!(grew(b.data_write_bytes, a.data_write_bytes) >= N * 4000);
        assert!(grew(b.background_write_bytes, a.background_write_bytes) >= N * 4000);
        assert!(a.log_flush_us.is_some() && a.data_write_us.is_some());
        assert_eq!(after.missing, Vec::<String>::new());
    });
    // A new connection has an empty page cache: its reads go to the file.
    let cold = SqliteConnector::new(dir.path(), config, 8);
    block_on(async {
        let mut s = cold.connect().await.unwrap();
        let before = read(&mut s, Dialect::Sqlite).await;
        s.execute_text("SELECT sum(length(c)) FROM t")
            .await
            .unwrap();
        let after = read(&mut s, Dialect::Sqlite).await;
        let (b, a) = (&before.counters, &after.counters);
        assert!(grew(b.data_reads, a.data_reads) >= N, "a 4 KB row per page");
        assert!(grew(b.data_read_bytes, a.data_read_bytes) >= N * 4000);
        assert!(a.data_read_us.is_some());
    });
}

/// What MariaDB 10.8 and later cannot count (schemas/engine_io/mysql.sql says why).
fn mariadb_cannot_count(note: &str) -> bool {
    note.starts_with("innodb_status: no data_flushes (MariaDB 10.8 and later")
        || note.starts_with("file_waits: no log_flush_us (the server does not time")
}

#[test]
fn mariadb_counts_log_flushes_data_writes_and_cold_reads() {
    need!(Mariadb);
    use drivebench::engines::mysql::MysqlConnector;
    use drivebench::engines::mysql::server::{MysqlInstance, MysqlSettings};
    let tmp = tempfile::tempdir().unwrap();
    let settings = MysqlSettings {
        buffer_pool_bytes: 64 << 20,
        flush_log_at_trx_commit: Some(1),
        max_connections: 50,
        max_prepared_stmt_count: 10_000,
        table_open_cache: 400,
        ..MysqlSettings::default()
    };
    let dir = tmp.path().join("srv");
    let start = || MysqlInstance::start("eio", &dir, &settings, Duration::from_secs(120)).unwrap();
    let server = start();
    let url = format!("mysql://root@127.0.0.1:{}/drivebench_eio", server.port());
    block_on(async {
        let c = MysqlConnector::new(&url, None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        s.execute_text("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, c VARCHAR(4000))")
            .await
            .unwrap();
        let before = read(&mut s, Dialect::Mysql).await;
        commit_n(
            &mut s,
            "BEGIN",
            "INSERT INTO t (c) VALUES (REPEAT('x', 4000))",
        )
        .await;
        let after = read(&mut s, Dialect::Mysql).await;
        let (b, a) = (&before.counters, &after.counters);
        assert!(
            grew(b.log_flushes, a.log_flushes) >= N,
            "flush_log_at_trx_commit = 1"
        );
        assert!(grew(b.log_writes, a.log_writes) >= N);
        assert!(grew(b.log_bytes, a.log_bytes) >= N * 4000);
        // The page cleaner writes dirty pages when asked to keep none.
        s.execute_text("SET GLOBAL innodb_max_dirty_pages_pct = 0")
            .await
            .unwrap();
        let written = read_until(&mut s, Dialect::Mysql, "data writes", |c| {
            grew(b.data_write_bytes, c.data_write_bytes) >= N * 4000
        })
        .await;
        let w = &written.counters;
        assert!(grew(b.data_writes, w.data_writes) > 0);
        let background = grew(b.background_write_bytes, w.background_write_bytes);
        assert!(background >= N * 4000);
        assert_eq!(background % 16384, 0, "whole 16 KiB pages flushed");
        assert!(
            grew(b.data_write_us, w.data_write_us) > 0,
            "performance_schema times writes"
        );
        assert!(w.checkpoint_age_bytes.is_some() && w.pending_io.is_some());
        let unexpected: Vec<&String> = after
            .missing
            .iter()
            .filter(|n| !mariadb_cannot_count(n))
            .collect();
        assert!(unexpected.is_empty(), "{:?}", after.missing);
        let vars: Vec<(String, String)> = c.variables(&["performance_schema"]).await.unwrap();
        assert_eq!(vars, [("performance_schema".into(), "ON".into())]);
    });
    drop(server);
    // Restarted with no buffer pool reload: the first read of the table comes from the drive.
    let server = start();
    let nobody_url = format!("mysql://nobody@127.0.0.1:{}/drivebench_eio", server.port());
    let url = format!("mysql://root@127.0.0.1:{}/drivebench_eio", server.port());
    block_on(async {
        let c = MysqlConnector::new(&url, None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        let before = read(&mut s, Dialect::Mysql).await;
        s.execute_text("SELECT sum(length(c)) FROM t")
            .await
            .unwrap();
        let after = read(&mut s, Dialect::Mysql).await;
        let (b, a) = (&before.counters, &after.counters);
        assert!(grew(b.data_reads, a.data_reads) > 0);
        assert!(grew(b.data_read_bytes, a.data_read_bytes) >= N * 4000);
        assert!(
            grew(b.data_read_us, a.data_read_us) > 0,
            "performance_schema times reads"
        );
        assert!(grew(b.data_read_requests, a.data_read_requests) > 0);
        // An account with no PROCESS and no performance_schema grant: notes, no error.
        s.execute_text("CREATE USER 'nobody'@'%' IDENTIFIED BY 'pw'")
            .await
            .unwrap();
        s.execute_text("GRANT CREATE, SELECT ON drivebench_eio.* TO 'nobody'@'%'")
            .await
            .unwrap();
        let nobody = MysqlConnector::new(&nobody_url, Some("pw")).await.unwrap();
        let mut s = nobody.connect().await.unwrap();
        let r = read(&mut s, Dialect::Mysql).await;
        assert!(
            r.counters.log_flushes.is_some(),
            "status needs no privilege: {r:?}"
        );
        assert!(
            r.missing
                .iter()
                .any(|n| n.starts_with("file_waits: ") && n.contains("denied")),
            "{:?}",
            r.missing
        );
    });
    // Preflight says so before a run, as a note: `plan` exits 0.
    let out = crate::common::bin()
        .args(["plan", "scenarios/ci-sysbench-mariadb.toml"])
        .args(["--set", "instance.0.provision=external"])
        .args(["--set", &format!("instance.0.url=\"{nobody_url}\"")])
        .args(["--set", "instance.0.password_env=\"EIO_NOBODY_PW\""])
        .env("EIO_NOBODY_PW", "pw")
        .current_dir(crate::common::root())
        .output()
        .unwrap();
    let said = crate::common::text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let note = said
        .lines()
        .find(|l| l.contains("cannot read some of the engine's I/O figures"))
        .unwrap_or_else(|| panic!("no engine I/O note: {said}"));
    println!("{note}");
    assert!(
        note.contains("file_waits: ") && note.contains("GRANT"),
        "{note}"
    );
    assert!(
        !note.contains("innodb_status"),
        "status needs no privilege: {note}"
    );
}

#[test]
fn postgres_counts_wal_syncs_checkpoint_writes_and_cold_reads() {
    need!(Postgres);
    use drivebench::engines::postgres::PgConnector;
    use drivebench::engines::postgres::server::{PostgresInstance, PostgresSettings};
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let dir = tmp.path().join("srv");
    let settings = PostgresSettings::default();
    let start =
        || PostgresInstance::start("eio", &dir, &settings, Duration::from_secs(120)).unwrap();
    let server = start();
    let url = |port: u16| format!("postgres://postgres@127.0.0.1:{port}/drivebench_eio");
    block_on(async {
        let c = PgConnector::new(&url(server.port()), None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        s.execute_text("CREATE TABLE t (id SERIAL PRIMARY KEY, c TEXT)")
            .await
            .unwrap();
        // Uncompressed, in the row: 4 KB of heap per row.
        s.execute_text("ALTER TABLE t ALTER COLUMN c SET STORAGE PLAIN")
            .await
            .unwrap();
        let before = read(&mut s, Dialect::Postgres).await;
        assert_eq!(before.missing, Vec::<String>::new());
        let b = before.counters.clone();
        commit_n(
            &mut s,
            "BEGIN",
            "INSERT INTO t (c) VALUES (repeat('x', 4000))",
        )
        .await;
        s.execute_text("CHECKPOINT").await.unwrap();
        let after = read_until(&mut s, Dialect::Postgres, "WAL syncs and checkpoint", |a| {
            grew(b.log_flushes, a.log_flushes) >= N
                && grew(b.background_write_bytes, a.background_write_bytes) >= N * 4000
        })
        .await;
        let a = &after.counters;
        assert!(grew(b.log_bytes, a.log_bytes) >= N * 4000);
        assert!(
            grew(b.data_writes, a.data_writes) >= N / 2,
            "two 4 KB rows per 8 KB block"
        );
        assert!(
            grew(b.log_flush_us, a.log_flush_us) > 0,
            "track_wal_io_timing"
        );
        assert!(a.data_read_us.is_some() && a.checkpoint_age_bytes.is_some());
        assert_eq!(after.missing, Vec::<String>::new());
        let vars = c
            .variables(&["track_io_timing", "track_wal_io_timing"])
            .await
            .unwrap();
        assert!(vars.iter().all(|(_, v)| v == "on"), "{vars:?}");
    });
    drop(server);
    let server = start();
    block_on(async {
        let c = PgConnector::new(&url(server.port()), None).await.unwrap();
        let mut s = c.connect().await.unwrap();
        let before = read(&mut s, Dialect::Postgres).await;
        s.execute_text("SELECT sum(length(c)) FROM t")
            .await
            .unwrap();
        let b = before.counters.clone();
        let after = read_until(&mut s, Dialect::Postgres, "cold reads", |a| {
            grew(b.data_reads, a.data_reads) >= N / 2
        })
        .await;
        assert!(
            grew(b.data_read_us, after.counters.data_read_us) > 0,
            "track_io_timing"
        );
        // A role with no grants: the statistics views and functions answer it too.
        s.execute_text("CREATE ROLE nobody LOGIN").await.unwrap();
        let url = format!(
            "postgres://nobody@127.0.0.1:{}/drivebench_eio",
            server.port()
        );
        let nobody = PgConnector::new(&url, None).await.unwrap();
        let mut s = nobody.connect().await.unwrap();
        let r = read(&mut s, Dialect::Postgres).await;
        assert!(r.counters.log_flushes.is_some() && r.counters.data_reads.is_some());
        assert!(r.counters.checkpoint_age_bytes.is_some());
        assert_eq!(r.missing, Vec::<String>::new());
    });
}

#[tokio::test(flavor = "current_thread")]
async fn tds_emulator_not_sql_server_readings_are_notes_not_errors() {
    let Some(emu) = crate::common::mssql::Emulator::start() else {
        return;
    };
    let c = crate::mssql_emulator::connector(&emu).await;
    let mut s = c.connect().await.unwrap();
    let r = read(&mut s, Dialect::Mssql).await;
    println!("the emulator's engine I/O reading: {r:?}");
    let names = statements(Dialect::Mssql).unwrap();
    for name in names.names() {
        let counted = r
            .missing
            .iter()
            .any(|n| n.starts_with(&format!("{name}: ")));
        assert!(
            counted || r.counters != EngineIoCounters::default(),
            "{name}: {r:?}"
        );
    }
}
