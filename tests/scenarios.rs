//! Scenario files: every shipped scenario loads, every malformed one in tests/data/bad exits 2
//! with a message naming its key (first line of each file: `# expect: <text>`), and `--set`
//! overrides go through the same validation.

use crate::common;

use crate::common::needs::need;
use crate::common::{root, run, text};
use drivebench::scenario;

#[test]
fn every_shipped_scenario_loads() {
    let (mut n, mut with_sweeps) = (0, 0);
    for entry in std::fs::read_dir(root().join("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            // A scenario that owns a whole device has it named on the command line.
            let text = std::fs::read_to_string(&path).unwrap();
            let sets: Vec<String> = match text.contains("--set target.device=") {
                true => vec!["target.device=/dev/drivebench-example".into()],
                false => Vec::new(),
            };
            let plan = scenario::load(&path, &sets, 1.0).unwrap_or_else(|e| panic!("{e}"));
            n += 1;
            with_sweeps += usize::from(!plan.sweeps.is_empty());
        }
    }
    assert!(with_sweeps >= 1, "ci-sweep-sqlite.toml has a [[sweep]]");
    assert!(
        n >= 2,
        "scenarios/ holds the quickstart and the review protocol"
    );
}

#[test]
fn malformed_scenarios_exit_2_naming_the_key_and_never_panic() {
    let dir = root().join("tests/data/bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 15, "at least 15 malformed scenarios");
    for path in files {
        let content = std::fs::read_to_string(&path).unwrap();
        let expect = content
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{}: no `# expect:` line", path.display()));
        let file = path.to_str().unwrap();
        let plan_args = ["plan", file];
        let run_args = ["run", file, "--out", "/nonexistent/never-created"];
        for args in [&plan_args[..], &run_args[..]] {
            let cmd = args[0];
            let out = run(args);
            let err = text(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{cmd} {}: {err}",
                path.display()
            );
            assert!(
                err.contains(expect),
                "{cmd} {}:\n  expected {expect:?}\n  got {err}",
                path.display()
            );
            assert!(
                err.contains(path.file_name().unwrap().to_str().unwrap()),
                "names the file: {err}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
}

#[test]
fn errors_point_at_line_and_column() {
    let out = run(&["plan", "tests/data/bad/negative_clients.toml"]);
    assert_eq!(
        text(&out.stderr).trim(),
        "error: tests/data/bad/negative_clients.toml:15:1: workload.clients: must be at least 1, got -3"
    );
}

#[test]
fn overrides_use_dotted_keys_and_the_same_validation() {
    let q = root().join("scenarios/quickstart.toml");
    let cases: &[(&[&str], Result<u32, &str>)] = &[
        (&["workload.clients=64"], Ok(64)),
        (
            &["workload.clients=-3"],
            Err("--set workload.clients=-3: workload.clients: must be at least 1, got -3"),
        ),
        (&["workload.bogus=1"], Err("workload.bogus: unknown key")),
        (&["workload.clients"], Err("expected KEY=VALUE")),
        (&["phase[5].duration=1s"], Err("index 5 is out of range")),
        (
            &["workload=3"],
            Err("workload: invalid type: integer `3`, expected a table"),
        ),
        (
            &["phase=3"],
            Err("phase: invalid type: integer `3`, expected a list"),
        ),
        (
            &["instance.config.cache_size=1GiB"],
            Err(
                "instance is a list of 1; address one entry by its position, e.g. instance.0.config.cache_size",
            ),
        ),
        (
            &["phase.nosuch.duration=1s"],
            Err(
                "phase is a list of 2; address one entry by its position or its name (precondition, sample), e.g. phase.0.duration",
            ),
        ),
    ];
    for (sets, expected) in cases {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        match (scenario::load(&q, &sets, 1.0), expected) {
            (Ok(plan), Ok(clients)) => {
                assert_eq!(plan.database.as_ref().unwrap().workload.clients, *clients)
            }
            (Err(e), Err(msg)) => assert!(e.to_string().contains(msg), "{sets:?}: {e}"),
            (got, want) => panic!("{sets:?}: got {got:?}, want {want:?}"),
        }
    }
    let plan = scenario::load(&q, &["phase.1.duration=1m".into()], 1.0).unwrap();
    assert_eq!(
        plan.database.as_ref().unwrap().phases[1].duration_ms,
        60_000
    );
    let name = plan.database.as_ref().unwrap().phases[0].name.clone();
    let by_name = format!("phase.{name}.duration=2m");
    let plan = scenario::load(&q, &[by_name], 1.0).unwrap();
    assert_eq!(
        plan.database.as_ref().unwrap().phases[0].duration_ms,
        120_000
    );
}

#[test]
fn time_scale_scales_durations_not_counts() {
    let q = root().join("scenarios/quickstart.toml");
    let plan = scenario::load(&q, &[], 0.1).unwrap();
    assert_eq!(
        plan.database
            .as_ref()
            .unwrap()
            .phases
            .iter()
            .map(|p| p.duration_ms)
            .collect::<Vec<_>>(),
        [1500, 3000]
    );
    assert_eq!(
        plan.database.as_ref().unwrap().phases[1].start_offset_ms,
        1500
    );
    assert_eq!(
        (
            plan.database.as_ref().unwrap().workload.clients,
            plan.database
                .as_ref()
                .unwrap()
                .workload
                .benchmark
                .sysbench()
                .map(|o| o.tables)
        ),
        (8, Some(4))
    );
    let out = run(&["plan", "scenarios/quickstart.toml", "--time-scale", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--time-scale"));
    // issue 24: a negative scale is a range error, not clap's "unexpected argument".
    let out = run(&["plan", "scenarios/quickstart.toml", "--time-scale", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--time-scale: must be a positive number, got -1"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_review_protocol_plans_as_a_three_hour_timeline() {
    let out = run(&["plan", "scenarios/storagereview-sysbench-sqlite.toml"]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        s.contains("100 tables x 10,000,000 rows, 32 clients"),
        "{s}"
    );
    assert!(
        s.contains("precondition") && s.contains("2h") && s.contains("+2h") && s.contains("+3h"),
        "{s}"
    );
    assert!(s.contains("1,000,000,000 rows per instance"), "{s}");
}

#[test]
fn the_review_mysql_protocol_plans_with_its_regime_and_is_refused_here() {
    need!(Mariadb);
    let out = run(&["plan", "scenarios/storagereview-sysbench-mysql.toml"]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        s.contains("mysql-1 (local), mysql-2 (local), mysql-3 (local), mysql-4 (local)"),
        "{s}"
    );
    assert!(s.contains("+2h") && s.contains("+3h"), "{s}");
    assert!(
        s.contains("8.3x the 24.0 GiB buffer pool: I/O-bound"),
        "{s}"
    );
    // buffer pools larger than any host's memory: run refuses before starting anything
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&[
        "run",
        "scenarios/storagereview-sysbench-mysql.toml",
        "--set",
        "workload.table_size=1000",
        "--set",
        "instance.0.config.buffer_pool=\"64TiB\"",
        "--out",
        tmp.path().join("run").to_str().unwrap(),
        "--target",
        tmp.path().join("t").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("of buffer pool need"),
        "{}",
        text(&out.stderr)
    );
    assert!(!tmp.path().join("run").exists());
}

#[test]
fn a_missing_password_variable_is_invalid_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&[
        "run",
        "scenarios/ci-sysbench-mariadb.toml",
        "--set",
        "instance.0.provision=external",
        "--set",
        "instance.0.url=\"mysql://bench@127.0.0.1:1/sbtest\"",
        "--set",
        "instance.0.password_env=DRIVEBENCH_TEST_UNSET_PASSWORD",
        "--out",
        tmp.path().join("run").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("password_env DRIVEBENCH_TEST_UNSET_PASSWORD is not set"));
}

#[test]
fn the_postgres_protocol_plans_four_clusters_over_three_hours() {
    need!(Postgres);
    let out = run(&["plan", "scenarios/sysbench-postgres.toml"]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        s.contains(
            "postgres-1 (local), postgres-2 (local), postgres-3 (local), postgres-4 (local)"
        ),
        "{s}"
    );
    assert!(s.contains("+2h") && s.contains("+3h"), "{s}");
    assert!(s.contains("x the 4.0 GiB shared_buffers: I/O-bound"), "{s}");
}

#[test]
fn a_small_dataset_is_a_share_of_the_cache_not_0_0x() {
    need!(Mariadb);
    // issue 24: "0.0x the 128.0 MiB buffer pool" read as no data at all.
    let out = run(&["plan", "scenarios/ci-sysbench-mariadb.toml"]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!s.contains("0.0x") && !s.contains("0.1x"), "{s}");
    assert!(
        s.contains("% of the 128.0 MiB buffer pool: cache-bound"),
        "{s}"
    );
}

#[test]
fn the_review_sql_server_protocol_plans_in_full_and_names_what_to_install_here() {
    // SQL Server is not installed on the build machines: plan prints the whole timeline, then
    // exits 2 naming what to install; run refuses the same way before anything starts.
    let out = run(&["plan", "scenarios/storagereview-tpcc-mssql.toml"]);
    let (s, err) = (text(&out.stdout), text(&out.stderr));
    assert!(
        s.contains("mssql-1 (local), mssql-2 (local), mssql-3 (local), mssql-4 (local)"),
        "{s}"
    );
    assert!(
        s.contains("1500 warehouses, 15000 virtual users per instance"),
        "{s}"
    );
    assert!(s.contains("+2h30m") && s.contains("+3h"), "{s}");
    assert!(s.contains("48.0 GiB max server memory"), "{s}");
    assert!(s.contains("validated in CI against a TDS emulator"), "{s}");
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("SQL Server is not installed here"), "{err}");
    assert!(
        err.contains("/opt/mssql/bin/sqlservr") && err.contains("mssql-server"),
        "{err}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&[
        "run",
        "scenarios/storagereview-tpcc-mssql.toml",
        "--set",
        "workload.warehouses=1",
        "--set",
        "workload.connections=10",
        "--set",
        "instance.0.count=1",
        "--set",
        "instance.0.config.buffer_pool=\"1GiB\"",
        "--out",
        tmp.path().join("run").to_str().unwrap(),
        "--target",
        tmp.path().join("t").to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("SQL Server is not installed here"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!tmp.path().join("run").exists(), "nothing started");
    // With a server binary named, the same plan is accepted.
    let out = run(&[
        "plan",
        "scenarios/storagereview-tpcc-mssql.toml",
        "--set",
        "instance.0.config.server_bin=\"/bin/true\"",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The scenario runs the stored-procedure form, as HammerDB does; the client-side form is
    // one --set away.
    assert!(
        text(&out.stdout).contains("each transaction one stored-procedure call"),
        "{}",
        text(&out.stdout)
    );
    let out = run(&[
        "plan",
        "scenarios/storagereview-tpcc-mssql.toml",
        "--set",
        "instance.0.config.server_bin=\"/bin/true\"",
        "--set",
        "workload.procedures=false",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stdout).contains("stored-procedure"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn the_sql_server_sysbench_scenarios_plan() {
    let out = run(&[
        "plan",
        "scenarios/sysbench-mssql.toml",
        "--set",
        "instance.0.config.server_bin=\"/bin/true\"",
    ]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        s.contains("sysbench oltp_read_write, 100 tables x 10,000,000 rows"),
        "{s}"
    );
    // External servers: the database's files go where database_dir says, or a warning.
    let out = run(&["plan", "scenarios/ci-sysbench-mssql.toml"]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(s.contains("mssql-1 (external)"), "{s}");
    assert!(s.contains("no database_dir"), "{s}");
}

#[test]
fn a_curve_plan_ends_once_and_counts_the_curve_in_its_total() {
    need!(Mariadb);
    // issue 24: "end" was listed after the phases and again after the curve, and the total
    // left the curve out.
    let out = run(&["plan", "scenarios/curve-sysbench-mariadb.toml"]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ends = s
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("end"))
        .count();
    assert_eq!(ends, 1, "{s}");
    assert!(
        s.contains("total at most 19m: 5m of phases and at most 14m of curve, plus the load"),
        "{s}"
    );
}

#[test]
fn output_into_a_closed_pipe_does_not_panic() {
    // Found walking the docs for issue 24: `drivebench plan --json | head` panicked with
    // "failed printing to stdout: Broken pipe".
    for args in [
        &["plan", "scenarios/quickstart.toml", "--json"][..],
        &["schema", "result"][..],
    ] {
        let mut child = common::bin()
            .args(args)
            .current_dir(common::root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn plan_and_run_agree_on_the_longest_scenario_name() {
    let scenario = root().join("scenarios/quickstart.toml");
    let scenario = scenario.to_str().unwrap();
    let too_long = format!("name={}", "n".repeat(201));
    let out = run(&["plan", scenario, "--set", &too_long]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("name") && err.contains("at most 200 characters") && err.contains("201"),
        "{err}"
    );
    // The longest name accepted plans, and runs into its default run directory.
    let longest = "n".repeat(200);
    let set = format!("name={longest}");
    let out = run(&["plan", scenario, "--set", &set]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tmp = tempfile::tempdir().unwrap();
    let out = common::bin()
        .args([
            "run",
            scenario,
            "--set",
            &set,
            "--time-scale",
            "0.01",
            "--quiet",
        ])
        .args(["--target", tmp.path().join("target").to_str().unwrap()])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let runs: Vec<String> = std::fs::read_dir(tmp.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(runs.len(), 1);
    assert!(runs[0].starts_with(&format!("{longest}-")), "{runs:?}");
}
