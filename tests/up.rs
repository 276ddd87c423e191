//! `drivebench up` and `down` (issue 21) against a real MariaDB: the private server started,
//! loaded and left running with a network login (`--listen`, a generated password kept mode
//! 0600), a run of the clients elsewhere (`provision = "external"`) against its URL, then
//! `down` stops it; refusals exit 2 before anything starts.

use std::os::unix::fs::PermissionsExt as _;

use crate::common::needs::need;
use crate::common::{read_json, run, text};

#[test]
fn up_leaves_a_loaded_server_that_external_clients_run_against_and_down_stops_it() {
    need!(Mariadb);
    let tmp = tempfile::tempdir().unwrap();
    let (target, dir) = (tmp.path().join("target"), tmp.path().join("up"));
    let (t, d) = (target.to_str().unwrap(), dir.to_str().unwrap());
    let scenario = "scenarios/ci-sysbench-mariadb.toml";
    let small = ["--set", "workload.table_size=2000", "--time-scale", "0.1"];
    let up = run(&[
        &[
            "up",
            scenario,
            "--quiet",
            "--target",
            t,
            "--out",
            d,
            "--listen",
            "127.0.0.1",
        ][..],
        &small,
    ]
    .concat());
    assert_eq!(up.status.code(), Some(0), "{}", text(&up.stderr));
    let record = read_json(&dir.join("up.json"));
    let url = record["instances"][0]["url"].as_str().unwrap().to_string();
    let pid = record["instances"][0]["pid"].as_u64().unwrap() as i32;
    assert!(url.starts_with("mysql://drivebench@127.0.0.1:"), "{url}");
    assert!(text(&up.stdout).contains(&url));
    let password = dir.join("password");
    let mode = std::fs::metadata(&password).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let secret = std::fs::read_to_string(&password).unwrap();
    assert_eq!(secret.len(), 24);
    assert!(
        !std::fs::read_to_string(dir.join("up.json"))
            .unwrap()
            .contains(&secret)
    );
    // A second `up` into the same directory is refused: its servers still run.
    let again = run(&[&["up", scenario, "--target", t, "--out", d][..], &small].concat());
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    // The clients, as a load host runs them: external, with the password from the file.
    let out = tmp.path().join("run");
    let sets = [
        "instance.0.provision=external".to_string(),
        format!("instance.0.url={url}"),
        format!("instance.0.password_file={}", password.display()),
    ];
    let mut args = vec![
        "run",
        scenario,
        "--quiet",
        "--target",
        t,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(small);
    for s in &sets {
        args.extend(["--set", s.as_str()]);
    }
    let r = run(&args);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let result = read_json(&out.join("result.json"));
    assert!(
        result["phases"][1]["summary"]["transactions"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(
        result["instances"][0]["load"]["reused"], true,
        "{}",
        result["instances"][0]["load"]
    );
    let down = run(&["down", d]);
    assert_eq!(down.status.code(), Some(0), "{}", text(&down.stderr));
    assert!(text(&down.stdout).contains("stopped"));
    // Gone, or a zombie its new parent has not reaped yet.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .trim_start()
        .chars()
        .next();
    assert!(matches!(state, None | Some('Z' | 'X')), "pid {pid}: {stat}");
    assert!(!dir.join("up.json").exists() && !password.exists());
    let gone = run(&["down", d]);
    assert_eq!(gone.status.code(), Some(2));
}

#[test]
fn up_refuses_an_embedded_engine_and_listen_where_unsupported() {
    need!(Postgres);
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("up");
    let t = tmp.path().join("t");
    let out = run(&[
        "up",
        "scenarios/quickstart.toml",
        "--target",
        t.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("embedded engine has no server"),
        "{}",
        text(&out.stderr)
    );
    assert!(!d.join("up.json").exists());
    let pg = run(&[
        "up",
        "scenarios/ci-sysbench-postgres.toml",
        "--target",
        t.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
        "--listen",
        "192.0.2.1",
    ]);
    assert_eq!(pg.status.code(), Some(2), "{}", text(&pg.stderr));
    assert!(
        text(&pg.stderr)
            .contains("--listen: PostgreSQL's private servers listen on 127.0.0.1 only"),
        "{}",
        text(&pg.stderr)
    );
    assert!(!t.join("postgres-1").exists(), "nothing started");
}
