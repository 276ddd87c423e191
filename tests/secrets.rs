//! Issue 23: an external server's password, given by `password_env` or `password_file`,
//! appears nowhere drivebench writes or shows: not in any file of the run directory (result.json,
//! plan.json, summary.md, report.html, series.csv, drivebench.log, ...) nor the target, not on
//! stdout or stderr (with debug logging), not on the command line of drivebench or of any
//! process it starts. The servers are real MariaDB and PostgreSQL servers the tests start, with
//! an account that needs the password: a run with a wrong one fails, so the right one is used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::needs::need;
use crate::common::{ServerRun, bin, root, text, wait_exit};
use drivebench::engines::{Connector, Session};

const PASSWORD: &str = "Zq7~dbench-PW-9f3c51e8";
const VAR: &str = "DRIVEBENCH_SECRETS_TEST_PW";

/// Every file under `dir` (recursively) whose bytes contain the password.
fn files_holding_the_password(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read(&path)
                .is_ok_and(|b| b.windows(PASSWORD.len()).any(|w| w == PASSWORD.as_bytes()))
            {
                found.push(path);
            }
        }
    }
    found
}

/// Process ids whose parent is `pid`, found again and again until none is new: `pid` and all
/// its descendants, with their command lines.
fn family(pid: u32) -> BTreeMap<u32, String> {
    let mut parents: BTreeMap<u32, u32> = BTreeMap::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // Field 4, after the command name in parentheses.
        let after = &stat[stat.rfind(')').unwrap_or(0) + 1..];
        if let Some(ppid) = after.split_whitespace().nth(1).and_then(|s| s.parse().ok()) {
            parents.insert(p, ppid);
        }
    }
    let mut out = BTreeMap::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        if out.contains_key(&p) {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
        out.insert(p, String::from_utf8_lossy(&cmd).replace('\0', " "));
        todo.extend(parents.iter().filter(|&(_, &pp)| pp == p).map(|(&c, _)| c));
    }
    out
}

/// Wait for `child`, sampling the command lines of it and its descendants every 20 ms; its
/// stdout and stderr are read meanwhile (debug logging fills a pipe).
fn watch(mut child: Child) -> (String, String, Option<i32>, Processes) {
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).unwrap();
            text(&bytes)
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let mut seen = std::collections::BTreeSet::new();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(300) {
        // A process that has exited shows an empty command line: keep what it showed before.
        seen.extend(
            family(child.id())
                .into_iter()
                .filter(|(_, c)| !c.is_empty()),
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = wait_exit(&mut child, Duration::from_secs(1));
    (
        stdout.join().unwrap(),
        stderr.join().unwrap(),
        status.code(),
        seen,
    )
}

/// The processes seen: process id and command line.
type Processes = std::collections::BTreeSet<(u32, String)>;

/// How the run is given the password.
enum Given {
    Env,
    File(PathBuf),
}

/// `drivebench run` of `r`'s scenario against the external server at `url` (user `bench`),
/// with `password` from the environment or a file; returns its output and the command lines
/// of its processes.
fn run_external(
    r: &ServerRun,
    url: &str,
    given: Given,
    password: &str,
) -> (String, String, Option<i32>, Processes) {
    let mut sets = vec![
        "instance.0.provision=external".to_string(),
        format!("instance.0.url=\"{url}\""),
    ];
    let mut cmd = r.command("0.2", &[]);
    match given {
        Given::Env => {
            sets.push(format!("instance.0.password_env=\"{VAR}\""));
            cmd.env(VAR, password);
        }
        Given::File(f) => {
            std::fs::write(&f, format!("{password}\n")).unwrap();
            sets.push(format!("instance.0.password_file=\"{}\"", f.display()));
        }
    }
    for s in &sets {
        cmd.args(["--set", s]);
    }
    cmd.env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    watch(cmd.spawn().unwrap())
}

/// A run with the right password completes and leaves it nowhere; `report` rebuilding the
/// run directory does not bring it back; a wrong password is refused by the server.
fn password_appears_nowhere(r: &ServerRun, url: &str, given: fn(PathBuf) -> Given) {
    let file = r.tmp.path().join("password");
    let (stdout, stderr, code, processes) = run_external(r, url, given(file.clone()), PASSWORD);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(r.out().join("drivebench.log").exists() && r.out().join("report.html").exists());
    let report = bin()
        .arg("report")
        .arg(r.out())
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    for dir in [r.out(), r.target()] {
        assert_eq!(files_holding_the_password(&dir), Vec::<PathBuf>::new());
    }
    for (what, shown) in [
        ("stdout", &stdout),
        ("stderr", &stderr),
        ("report's stdout", &text(&report.stdout)),
    ] {
        assert!(!shown.contains(PASSWORD), "the password is on {what}");
    }
    assert!(
        !processes.is_empty(),
        "drivebench's own command line was sampled"
    );
    for (pid, cmdline) in &processes {
        assert!(!cmdline.contains(PASSWORD), "pid {pid}: {cmdline}");
    }
    eprintln!("command lines sampled: {processes:?}");
    std::fs::remove_dir_all(r.out()).unwrap();
    let (_, err, code, _) = run_external(r, url, given(file), "not-the-password");
    // Refused by the connection probe, before anything starts.
    assert_eq!(code, Some(2), "a wrong password must be refused: {err}");
    assert!(!err.contains("not-the-password"), "{err}");
    assert!(
        !r.out().exists(),
        "refused before the run directory was made"
    );
}

#[test]
fn the_scan_finds_a_password_where_there_is_one() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
    std::fs::write(tmp.path().join("a/b/x.log"), format!("pw={PASSWORD};")).unwrap();
    std::fs::write(tmp.path().join("a/y"), "nothing").unwrap();
    assert_eq!(
        files_holding_the_password(tmp.path()),
        [tmp.path().join("a/b/x.log")]
    );
    let mut sleeper = std::process::Command::new("sleep")
        .arg("5")
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let me = family(std::process::id());
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    let exe = std::env::current_exe().unwrap();
    let exe = exe.file_name().unwrap().to_str().unwrap();
    assert!(me[&std::process::id()].contains(exe), "{me:?}");
    assert_eq!(
        me.get(&sleeper.id()).map(String::as_str),
        Some("sleep 5 "),
        "{me:?}"
    );
}

fn mariadb_with_a_password_account(
    dir: &Path,
) -> drivebench::engines::mysql::server::MysqlInstance {
    use drivebench::engines::mysql::server::{MysqlInstance, MysqlSettings};
    let settings = MysqlSettings {
        server_bin: None,
        buffer_pool_bytes: 64 << 20,
        log_file_size_bytes: None,
        flush_log_at_trx_commit: Some(2),
        flush_method: None,
        io_capacity: None,
        extra: Default::default(),
        max_connections: 200,
        max_prepared_stmt_count: 100_000,
        table_open_cache: 400,
        also_listen: None,
    };
    let server =
        MysqlInstance::start("external", dir, &settings, Duration::from_secs(120)).unwrap();
    let root = format!("mysql://root@127.0.0.1:{}/mysql", server.port());
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let c = drivebench::engines::mysql::MysqlConnector::new(&root, None)
            .await
            .unwrap();
        let mut s = c.connect().await.unwrap();
        for sql in [
            format!("CREATE USER 'bench'@'%' IDENTIFIED BY '{PASSWORD}'"),
            "GRANT ALL ON *.* TO 'bench'@'%'".to_string(),
        ] {
            s.execute_text(&sql).await.unwrap();
        }
    });
    server
}

#[test]
fn a_mariadb_password_from_env_or_file_appears_nowhere() {
    need!(Mariadb);
    let r = ServerRun::new("scenarios/ci-sysbench-mariadb.toml");
    let server = mariadb_with_a_password_account(&r.tmp.path().join("srv"));
    let url = format!(
        "mysql://bench@127.0.0.1:{}/drivebench_secret",
        server.port()
    );
    password_appears_nowhere(&r, &url, |_| Given::Env);
    password_appears_nowhere(&r, &url, Given::File);
}

/// A PostgreSQL cluster whose role `bench` must log in over TCP with its password
/// (scram-sha-256); everything else stays trusted.
fn postgres_with_a_password_role(
    dir: &Path,
) -> drivebench::engines::postgres::server::PostgresInstance {
    use drivebench::engines::postgres::server::{PostgresInstance, PostgresSettings};
    let server = PostgresInstance::start(
        "external",
        dir,
        &PostgresSettings::default(),
        Duration::from_secs(120),
    )
    .unwrap();
    let hba = dir.join("data/pg_hba.conf");
    let trusted = std::fs::read_to_string(&hba).unwrap();
    std::fs::write(
        &hba,
        format!("host all bench 127.0.0.1/32 scram-sha-256\n{trusted}"),
    )
    .unwrap();
    let admin = format!("postgres://postgres@127.0.0.1:{}/postgres", server.port());
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let c = drivebench::engines::postgres::PgConnector::new(&admin, None)
            .await
            .unwrap();
        let mut s = c.connect().await.unwrap();
        for sql in [
            format!("CREATE ROLE bench LOGIN CREATEDB PASSWORD '{PASSWORD}'"),
            "SELECT pg_reload_conf()".to_string(),
        ] {
            s.execute_text(&sql).await.unwrap();
        }
    });
    server
}

#[test]
fn a_postgres_password_from_env_or_file_appears_nowhere() {
    need!(Postgres);
    let r = ServerRun::new("scenarios/ci-sysbench-postgres.toml");
    let server = postgres_with_a_password_role(&r.tmp.path().join("srv"));
    let url = format!(
        "postgres://bench@127.0.0.1:{}/drivebench_secret",
        server.port()
    );
    password_appears_nowhere(&r, &url, |_| Given::Env);
    password_appears_nowhere(&r, &url, Given::File);
}
