//! The instance directory between runs: telling an initialised data directory from anything
//! else, initialising a new one with `initdb` (into `data.init`, renamed to `data` only once
//! complete and wired to `drivebench.conf`), checking that a reused one keeps its WAL where the
//! settings say, and refusing a directory a server still runs in.

use std::io::{ErrorKind, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::account::Account;
use super::config::{INCLUDE_LINE, Layout};
use super::locate::Server;
use crate::engines::server::error::log_tail;
use crate::engines::server::init::{NewData, absent_or_empty};
use crate::engines::server::{ProvisionError, has_exited};

/// Whether `layout.data` holds a data directory (its `PG_VERSION`). An empty or absent
/// directory is not; one holding other files is refused rather than overwritten.
pub fn is_initialised(layout: &Layout) -> Result<bool, ProvisionError> {
    if layout.data.join("PG_VERSION").is_file() {
        return Ok(true);
    }
    absent_or_empty(
        &layout.data,
        "holds files but no PostgreSQL data directory (no PG_VERSION); \
         remove it or use another directory",
    )
}

/// Create a new data directory: superuser `postgres`, trust authentication (the instance
/// listens on 127.0.0.1 and its own socket only), UTF8, locale C; WAL in `wal_dir` when given.
pub fn initialise(
    server: &Server,
    layout: &Layout,
    wal_dir: Option<&Path>,
    account: Option<&Account>,
    timeout: Duration,
) -> Result<(), ProvisionError> {
    let mut command = Command::new(&server.initdb);
    command.arg("-D").arg(&layout.data_init).args([
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--locale=C",
    ]);
    if let Some(wal_dir) = wal_dir {
        command.arg("--waldir").arg(wal_dir);
    }
    if let Some(account) = account {
        account.apply(&mut command);
    }
    command.current_dir(&layout.dir);
    let failed = |outcome| ProvisionError::Initdb {
        dir: layout.dir.clone(),
        program: server.initdb.clone(),
        outcome,
        log: layout.initdb_log.clone(),
        output_tail: log_tail(&layout.initdb_log, 0),
    };
    let new = NewData {
        data: &layout.data,
        data_init: &layout.data_init,
        output: &layout.initdb_log,
    };
    // The new directory reads drivebench.conf before it becomes `data`.
    new.initialise(&mut command, timeout, failed, |data_init| {
        append_include(&data_init.join("postgresql.conf"))
    })
}

/// Make a reused data directory (perhaps initialised elsewhere) read `drivebench.conf`.
pub fn ensure_included(layout: &Layout) -> Result<(), ProvisionError> {
    let conf = layout.data.join("postgresql.conf");
    let text = std::fs::read_to_string(&conf).map_err(ProvisionError::io("read", &conf))?;
    if text.lines().any(|line| line.trim() == INCLUDE_LINE) {
        return Ok(());
    }
    append_include(&conf)
}

fn append_include(conf: &Path) -> Result<(), ProvisionError> {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(conf)
        .map_err(ProvisionError::io("open", conf))?;
    writeln!(
        file,
        "\n# drivebench: this instance's settings (port, sockets, sizes), rewritten at every \
         start\n{INCLUDE_LINE}"
    )
    .map_err(ProvisionError::io("append to", conf))
}

/// Fail when a reused data directory keeps its WAL somewhere else than `wal_dir` asks (inside
/// the data directory when `None`): initdb fixed that place, and a benchmark must not measure
/// a different layout than it reports.
pub fn check_wal_location(layout: &Layout, wal_dir: Option<&Path>) -> Result<(), ProvisionError> {
    let pg_wal = layout.data.join("pg_wal");
    let linked = std::fs::read_link(&pg_wal)
        .ok()
        .map(|target| std::fs::canonicalize(&target).unwrap_or(target));
    let reason = match (&linked, wal_dir) {
        (Some(target), Some(wanted)) if target == wanted => return Ok(()),
        (None, None) => return Ok(()),
        (Some(target), Some(wanted)) => format!(
            "links to {}, but wal_dir is {}",
            target.display(),
            wanted.display()
        ),
        (Some(target), None) => format!("links to {}, but no wal_dir is set", target.display()),
        (None, Some(wanted)) => format!(
            "is inside the data directory, but wal_dir is {}",
            wanted.display()
        ),
    };
    Err(ProvisionError::UnusablePath {
        path: pg_wal,
        reason: format!(
            "{reason}; the WAL location is fixed when the data directory is initialised: set \
             wal_dir to match, or remove {} to start afresh",
            layout.dir.display()
        ),
    })
}

/// Refuse a directory a server is still running in (`postmaster.pid` names a live process
/// started with `-D` this data directory); otherwise remove the sockets and socket lock files
/// a crashed server left behind. A stale `postmaster.pid` stays: the server checks it itself.
pub fn refuse_if_running(layout: &Layout) -> Result<(), ProvisionError> {
    let pid = std::fs::read_to_string(layout.dir.join(super::config::PID_FILE))
        .ok()
        .and_then(|text| text.lines().next()?.trim().parse::<u32>().ok());
    if let Some(pid) = pid
        && !has_exited(pid)
        && runs_on(pid, &layout.data)
    {
        return Err(ProvisionError::AlreadyRunning {
            dir: layout.dir.clone(),
            pid,
        });
    }
    let Ok(entries) = std::fs::read_dir(&layout.dir) else {
        return Ok(());
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(lock) = name
            .to_str()
            .filter(|n| n.starts_with(".s.PGSQL.") && n.ends_with(".lock"))
        else {
            continue;
        };
        let owner = std::fs::read_to_string(entry.path())
            .ok()
            .and_then(|text| text.lines().next()?.trim().parse::<u32>().ok());
        if owner.is_some_and(|pid| !has_exited(pid)) {
            continue;
        }
        let socket = layout.dir.join(lock.trim_end_matches(".lock"));
        for path in [entry.path(), socket] {
            match std::fs::remove_file(&path) {
                Err(err) if err.kind() != ErrorKind::NotFound => {
                    tracing::warn!(path = %path.display(), %err, "cannot remove");
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn runs_on(pid: u32, data: &Path) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    args.windows(2)
        .any(|pair| pair[0] == b"-D" && Path::new(std::ffi::OsStr::from_bytes(pair[1])) == data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wal_location_of_a_reused_data_directory() {
        let dir = tempfile::tempdir().unwrap();
        let wal = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir_all(layout.data.join("pg_wal")).unwrap();
        check_wal_location(&layout, None).unwrap();
        let err = check_wal_location(&layout, Some(wal.path())).unwrap_err();
        assert!(
            err.to_string().contains("is inside the data directory"),
            "{err}"
        );

        std::fs::remove_dir(layout.data.join("pg_wal")).unwrap();
        std::os::unix::fs::symlink(wal.path(), layout.data.join("pg_wal")).unwrap();
        check_wal_location(&layout, Some(wal.path())).unwrap();
        for wanted in [None, Some(other.path())] {
            let text = check_wal_location(&layout, wanted).unwrap_err().to_string();
            assert!(
                text.contains(&format!("links to {}", wal.path().display())),
                "{text}"
            );
        }
    }

    #[test]
    fn include_line_is_appended_once() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir(&layout.data).unwrap();
        let conf = layout.data.join("postgresql.conf");
        std::fs::write(&conf, "max_connections = 100\n").unwrap();
        ensure_included(&layout).unwrap();
        ensure_included(&layout).unwrap();
        let text = std::fs::read_to_string(&conf).unwrap();
        assert!(text.starts_with("max_connections = 100\n"), "{text}");
        assert_eq!(text.matches(INCLUDE_LINE).count(), 1, "{text}");
        assert!(text.ends_with(&format!("{INCLUDE_LINE}\n")), "{text}");
    }

    #[test]
    fn a_data_directory_is_recognised_by_its_version_file() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        assert!(!is_initialised(&layout).unwrap());
        std::fs::create_dir(&layout.data).unwrap();
        assert!(!is_initialised(&layout).unwrap());
        assert!(!layout.data.exists(), "an empty data directory is removed");
        std::fs::create_dir(&layout.data).unwrap();
        std::fs::write(layout.data.join("base"), "").unwrap();
        let err = is_initialised(&layout).unwrap_err();
        assert!(err.to_string().contains("no PG_VERSION"), "{err}");
        std::fs::write(layout.data.join("PG_VERSION"), "15\n").unwrap();
        assert!(is_initialised(&layout).unwrap());
    }

    #[test]
    fn stale_socket_files_are_removed_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write(".s.PGSQL.40001", "");
        write(".s.PGSQL.40001.lock", &format!("{}\n/x\n", u32::MAX));
        write(".s.PGSQL.40002", "");
        write(
            ".s.PGSQL.40002.lock",
            &format!("{}\n/x\n", std::process::id()),
        );
        refuse_if_running(&layout).unwrap();
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(!left.iter().any(|n| n.contains("40001")), "{left:?}");
        assert_eq!(left.iter().filter(|n| n.contains("40002")).count(), 2);
    }
}
