//! Helpers shared by the integration tests: the built binary, a scratch directory, rendering a
//! report in headless Chromium, one TPC-C warehouse loaded and checked (`tpcc`), the stored
//! procedures run against the client-side statements on the same transactions (`tpcc_equiv`),
//! what a load-curve run directory must hold (`curve`), the SQL Server test servers (`mssql`),
//! MariaDB and PostgreSQL servers started to be attached as external ones (`external`), and
//! certificates for TLS tests (`certs`).
#![allow(dead_code)]

pub mod certs;
pub mod curve;
pub mod external;
pub mod loopfs;
pub mod mssql;
pub mod needs;
pub mod tpcc;
pub mod tpcc_equiv;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drivebench"))
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(root())
        .output()
        .expect("run drivebench")
}

/// `drivebench compare A B --out OUT`, checked to exit 0: its stdout.
pub fn compare_two(a: &Path, b: &Path, out: &Path) -> String {
    let compared = run(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        compared.status.code(),
        Some(0),
        "{}",
        text(&compared.stderr)
    );
    text(&compared.stdout)
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `drivebench run scenarios/quickstart.toml --quiet` with a time scale, run directory, target
/// and `--set` overrides.
pub fn run_quickstart(time_scale: &str, out: &Path, target: &Path, sets: &[&str]) -> Output {
    run_scenario("scenarios/quickstart.toml", time_scale, out, target, sets)
}

/// `drivebench run SCENARIO --quiet` with a time scale, run directory, target and `--set`
/// overrides.
pub fn run_scenario(
    scenario: &str,
    time_scale: &str,
    out: &Path,
    target: &Path,
    sets: &[&str],
) -> Output {
    let mut cmd = bin();
    cmd.args(["run", scenario, "--quiet", "--time-scale", time_scale]);
    cmd.arg("--out").arg(out).arg("--target").arg(target);
    for s in sets {
        cmd.args(["--set", s]);
    }
    cmd.current_dir(root()).output().expect("run drivebench")
}

/// A tiny TPC-C run on SQLite (scenarios/ci-tpcc-sqlite.toml at a fifth of its length: one
/// warehouse, 1 s + 3 s) into `dir/run` with its target in `dir/target`; returns the run
/// directory.
pub fn tpcc_sqlite_run(dir: &Path) -> PathBuf {
    let out_dir = dir.join("run");
    let out = run_scenario(
        "scenarios/ci-tpcc-sqlite.toml",
        "0.2",
        &out_dir,
        &dir.join("target"),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out_dir
}

/// Wait until `path` has at least `n` lines (a run's series.csv: the phases are running).
pub fn wait_for_lines(path: &Path, n: usize, limit: std::time::Duration) {
    let start = std::time::Instant::now();
    while std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0)
        < n
    {
        assert!(
            start.elapsed() < limit,
            "{} did not reach {n} lines in {limit:?}",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A local TCP port with nothing listening on it: bound, then released.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("its address").port()
}

/// `drivebench run` of `r`'s scenario against an external server at `url` with nothing
/// listening: the connection probe refuses it before anything starts (exit 2, no run
/// directory) naming the address and the OS's reason, never a "lost" connection, since none
/// was made; `plan` shows the same as an error finding.
pub fn refused_external_run(r: &ServerRun, url: &str, place: &str) {
    let url = format!("instance.0.url=\"{url}\"");
    let sets = ["instance.0.provision=external", url.as_str()];
    let (out, _) = r.run(&sets);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let reason = format!("cannot connect to {place}: Connection refused (os error 111)");
    assert!(err.contains(&reason), "{err}");
    assert!(!err.contains("lost"), "{err}");
    assert!(!r.out().exists(), "nothing created: {}", r.out().display());
    let planned = r.plan(&sets);
    let shown = text(&planned.stdout);
    assert!(
        shown.contains(&reason) && shown.contains("`run` would refuse"),
        "{shown}"
    );
}

/// Wait for a child to exit; fails the test after `limit`.
pub fn wait_exit(
    child: &mut std::process::Child,
    limit: std::time::Duration,
) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(start.elapsed() < limit, "still running after {limit:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// PIDs of database servers (mariadbd, mysqld, postgres) whose command line mentions `dir`.
pub fn servers_under(dir: &Path) -> Vec<u32> {
    let needle = dir.display().to_string();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let exe = std::fs::read_link(entry.path().join("exe")).unwrap_or_default();
        let server = exe
            .file_name()
            .is_some_and(|n| n == "mariadbd" || n == "mysqld" || n == "postgres");
        if server && cmd.contains(&needle) {
            out.push(pid);
        }
    }
    out
}

/// Stops the servers a test left running under a directory (`keep_running = true`), on every
/// exit path.
pub struct StopServers(pub PathBuf);

impl Drop for StopServers {
    fn drop(&mut self) {
        for pid in servers_under(&self.0) {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
        let start = std::time::Instant::now();
        while !servers_under(&self.0).is_empty()
            && start.elapsed() < std::time::Duration::from_secs(120)
        {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

/// A run of a server scenario in a scratch directory the servers' own user can enter.
pub struct ServerRun {
    pub tmp: tempfile::TempDir,
    scenario: &'static str,
    /// Environment variables drivebench runs with (e.g. an external server's password).
    envs: Vec<(&'static str, &'static str)>,
}

impl ServerRun {
    pub fn new(scenario: &'static str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        // PostgreSQL runs as the postgres user: it must reach the target below this directory
        std::fs::set_permissions(
            tmp.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        ServerRun {
            tmp,
            scenario,
            envs: Vec::new(),
        }
    }
    /// Run drivebench with `key` set to `value` in its environment.
    pub fn env(mut self, key: &'static str, value: &'static str) -> Self {
        self.envs.push((key, value));
        self
    }
    pub fn scenario(&self) -> &'static str {
        self.scenario
    }
    pub fn out(&self) -> PathBuf {
        self.tmp.path().join("run")
    }
    pub fn target(&self) -> PathBuf {
        self.tmp.path().join("target")
    }
    pub fn command(&self, time_scale: &str, sets: &[&str]) -> Command {
        let mut cmd = bin();
        cmd.args(["run", self.scenario, "--quiet", "--time-scale", time_scale]);
        cmd.arg("--out")
            .arg(self.out())
            .arg("--target")
            .arg(self.target());
        for s in sets {
            cmd.args(["--set", s]);
        }
        cmd.current_dir(root()).envs(self.envs.iter().copied());
        cmd
    }
    /// `drivebench plan` of the scenario with `sets`.
    pub fn plan(&self, sets: &[&str]) -> Output {
        let mut cmd = bin();
        cmd.args(["plan", self.scenario]);
        for s in sets {
            cmd.args(["--set", s]);
        }
        let cmd = cmd.current_dir(root()).envs(self.envs.iter().copied());
        cmd.output().expect("run drivebench plan")
    }
    /// At a fifth of its length; result.json when one was written.
    pub fn run(&self, sets: &[&str]) -> (Output, serde_json::Value) {
        let out = self.command("0.2", sets).output().unwrap();
        let path = self.out().join("result.json");
        let result = if path.exists() {
            read_json(&path)
        } else {
            serde_json::Value::Null
        };
        (out, result)
    }
    /// At full length, returned once its first interval rows are written.
    pub fn spawn_until_running(&self, stderr: std::process::Stdio) -> std::process::Child {
        let child = self
            .command("1", &["report_interval=1s"])
            .stdout(std::process::Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap();
        wait_for_lines(
            &self.out().join("series.csv"),
            3,
            std::time::Duration::from_secs(120),
        );
        child
    }
}

/// Check `instance` against a committed JSON Schema (e.g. "schemas/json/result.schema.json").
pub fn validate(schema_file: &str, instance: &serde_json::Value) {
    let schema = read_json(&root().join(schema_file));
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "does not match {schema_file}:\n{}",
        errors.join("\n")
    );
}

/// Render `page` in headless Chromium: no console messages, a screenshot of real size. Skips
/// (one printed line; a failure under CI=true) when there is no Chromium.
pub fn render_in_chromium(page: &Path, dir: &Path) {
    if !needs::have(&[needs::Need::Chromium]) {
        return;
    }
    let browser = needs::chromium().expect("checked above");
    let shot = dir.join("report.png");
    let profile = dir.join("profile");
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1100,2400",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let console: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}
