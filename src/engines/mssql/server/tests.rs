//! No SQL Server here: the command line, environment and settings a private instance gets, and
//! the message when sqlservr is missing.

use super::launch::{configure_sql, environment, instance_password, new_password};
use super::*;

fn settings() -> MssqlSettings {
    MssqlSettings {
        server_bin: None,
        edition: "Developer".into(),
        max_server_memory_mb: Some(48 * 1024),
    }
}

#[test]
fn every_file_of_the_instance_is_on_the_target() {
    let layout = Layout::new(Path::new("/mnt/dut/mssql-1"));
    let env = environment(&layout, &settings(), 40123, "Secret1!");
    let get = |k: &str| {
        env.iter()
            .find(|(name, _)| *name == k)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{k} missing"))
    };
    assert_eq!(get("ACCEPT_EULA"), "Y");
    assert_eq!(get("MSSQL_PID"), "Developer");
    assert_eq!(get("MSSQL_TCP_PORT"), "40123");
    assert_eq!(get("MSSQL_IP_ADDRESS"), "127.0.0.1");
    assert_eq!(get("MSSQL_DATA_DIR"), "/mnt/dut/mssql-1/data");
    assert_eq!(get("MSSQL_LOG_DIR"), "/mnt/dut/mssql-1/log");
    assert_eq!(
        get("MSSQL_MASTER_DATA_FILE"),
        "/mnt/dut/mssql-1/data/master.mdf"
    );
    assert_eq!(
        get("MSSQL_MASTER_LOG_FILE"),
        "/mnt/dut/mssql-1/log/mastlog.ldf"
    );
    assert_eq!(get("MSSQL_ERROR_LOG_FILE"), "/mnt/dut/mssql-1/log/errorlog");
    assert_eq!(get("MSSQL_MEMORY_LIMIT_MB"), (48 * 1024 + 2048).to_string());
    for (k, v) in &env {
        if k.ends_with("_DIR") || k.ends_with("_FILE") {
            assert!(v.starts_with("/mnt/dut/mssql-1/"), "{k}={v}");
        }
    }
}

#[test]
fn max_server_memory_comes_from_buffer_pool() {
    assert_eq!(
        configure_sql(&settings()).unwrap(),
        "EXEC sp_configure 'show advanced options', 1; RECONFIGURE; \
         EXEC sp_configure 'max server memory (MB)', 49152; RECONFIGURE;"
    );
    let mut s = settings();
    s.max_server_memory_mb = None;
    assert_eq!(configure_sql(&s), None);
    let env = environment(&Layout::new(Path::new("/t")), &s, 1, "x");
    assert!(!env.iter().any(|(k, _)| *k == "MSSQL_MEMORY_LIMIT_MB"));
}

#[test]
fn passwords_are_random_and_complex() {
    let (a, b) = (new_password().unwrap(), new_password().unwrap());
    assert_ne!(a, b);
    for p in [&a, &b] {
        assert!(p.len() >= 16);
        assert!(p.chars().any(|c| c.is_ascii_uppercase()));
        assert!(p.chars().any(|c| c.is_ascii_lowercase()));
        assert!(p.chars().any(|c| c.is_ascii_digit()));
        assert!(p.chars().any(|c| !c.is_ascii_alphanumeric()));
    }
}

#[test]
fn a_missing_server_names_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("sqlservr");
    let e = locate(Some(&missing)).unwrap_err().to_string();
    assert!(e.contains("SQL Server is not installed"), "{e}");
    assert!(e.contains(&missing.display().to_string()), "{e}");
    assert!(e.contains("mssql-server"), "{e}");
    assert!(e.contains("provision = \"external\""), "{e}");
    // Not executable is not installed either.
    std::fs::write(&missing, "#!/bin/sh\n").unwrap();
    assert!(locate(Some(&missing)).is_err());
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&missing, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(locate(Some(&missing)).unwrap(), missing);
}

#[test]
fn a_server_that_exits_during_start_up_is_reported_with_its_log() {
    // A stand-in that prints like sqlservr and exits: the start-up path's failure report.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("sqlservr");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho \"SQL Server 2022 will run as non-root by default.\"\necho \"ERROR: BootstrapSystemDataDirectories() failure (HRESULT 0x80070005)\"\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut s = settings();
    s.server_bin = Some(fake);
    let e = MssqlInstance::start(
        "test",
        &dir.path().join("inst"),
        &s,
        Duration::from_secs(20),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("exited during start-up"), "{e}");
    assert!(e.contains("BootstrapSystemDataDirectories"), "{e}");
    assert!(!e.contains("MSSQL_SA_PASSWORD"), "{e}");
    for d in ["data", "log", "backup", "dump"] {
        assert!(dir.path().join("inst").join(d).is_dir(), "{d}");
    }
}

#[test]
fn a_kept_instance_keeps_its_password_and_a_new_one_gets_one() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let layout = Layout::new(dir.path());
    std::fs::create_dir_all(&layout.data).unwrap();
    let first = instance_password(&layout).unwrap();
    let file = dir.path().join(PASSWORD_FILE);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), first);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // The system databases exist now: the same password, not a new one.
    std::fs::write(layout.data.join("master.mdf"), b"").unwrap();
    assert_eq!(instance_password(&layout).unwrap(), first);
    std::fs::remove_file(&file).unwrap();
    let e = instance_password(&layout).unwrap_err().to_string();
    assert!(e.contains("not its password"), "{e}");
}
