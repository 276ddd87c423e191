//! `drivebench clean TARGET` (issue 24): what drivebench left on a target — a SQLite instance's
//! directory, a sweep file kept, a private MariaDB's directory — listed with sizes, removed only
//! with --yes, never what it did not create, and refused while a server of ours runs there.

use crate::common;

use std::path::Path;

use crate::common::needs::need;
use crate::common::{ServerRun, run, run_quickstart, text};

fn clean(target: &Path, yes: bool) -> std::process::Output {
    let mut args = vec!["clean", target.to_str().unwrap()];
    if yes {
        args.push("--yes");
    }
    run(&args)
}

#[test]
fn a_sqlite_instance_and_a_kept_sweep_file_are_listed_then_removed_and_nothing_else() {
    let tmp = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = tmp.path().join("target");
    let out = run_quickstart("0.05", &tmp.path().join("run"), &target, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sweep = run(&[
        "sweep",
        "--target",
        target.to_str().unwrap(),
        "--size",
        "16MiB",
        "--profile",
        "4k-random-write-128",
        "--curve",
        "max",
        "--warmup",
        "0s",
        "--duration",
        "100ms",
        "--keep-file",
        "--quiet",
        "--out",
        tmp.path().join("sweep").to_str().unwrap(),
    ]);
    assert_eq!(sweep.status.code(), Some(0), "{}", text(&sweep.stderr));
    // Not drivebench's: a file of the user's, and a directory named like an instance.
    std::fs::write(target.join("notes.txt"), "mine").unwrap();
    std::fs::create_dir(target.join("mariadb-2")).unwrap();

    let listed = clean(&target, false);
    let s = text(&listed.stdout);
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    let t = target.display();
    for line in [
        format!("drivebench left in {t}:"),
        format!("  sweep file    16.0 MiB  {t}/drivebench-sweep.dat"),
        "  instance   ".to_string(),
        format!("  {t}/sqlite-1"),
        "  total      ".to_string(),
        format!("  {t}/mariadb-2"),
        format!("remove it with: drivebench clean {t} --yes"),
    ] {
        assert!(s.contains(&line), "{line:?} missing:\n{s}");
    }
    assert!(!s.contains("notes.txt"), "{s}");
    assert!(
        target.join("sqlite-1/drivebench.db").exists(),
        "listing removes nothing"
    );

    let removed = clean(&target, true);
    let s = text(&removed.stdout);
    assert_eq!(removed.status.code(), Some(0), "{}", text(&removed.stderr));
    assert!(s.contains(&format!("removed {t}/sqlite-1 (")), "{s}");
    assert!(s.contains("freed "), "{s}");
    let mut left: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["mariadb-2", "notes.txt"],
        "only what is not ours stays"
    );
    let again = clean(&target, false);
    assert!(text(&again.stdout).contains("nothing of drivebench's in"));
}

#[test]
fn what_is_not_drivebench_s_or_not_there_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mine = tmp.path().join("mine.dat");
    std::fs::write(&mine, "x").unwrap();
    for (path, expect) in [
        (
            mine.clone(),
            "not drivebench's (no marker beside it); left alone",
        ),
        (tmp.path().join("absent"), "No such file"),
    ] {
        let out = clean(&path, true);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(expect), "{}", text(&out.stderr));
    }
    assert!(mine.exists());
}

#[test]
fn a_private_server_left_running_is_not_cleaned_until_it_stops() {
    need!(Mariadb);
    let r = ServerRun::new("scenarios/ci-sysbench-mariadb.toml");
    let target = r.target();
    let stop = common::StopServers(target.clone());
    let (out, _) = r.run(&["instance.0.keep_running=true"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let pids = common::servers_under(&target);
    assert_eq!(pids.len(), 1, "left running");

    let refused = clean(&target, true);
    let err = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}/mariadb-1: a server runs there (pid {}, from mysqld.pid); stop it first",
            target.display(),
            pids[0]
        )),
        "{err}"
    );
    assert!(target.join("mariadb-1/data").is_dir(), "nothing removed");

    drop(stop);
    let removed = clean(&target, true);
    assert_eq!(removed.status.code(), Some(0), "{}", text(&removed.stderr));
    assert!(!target.join("mariadb-1").exists());
}
