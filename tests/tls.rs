//! Issue 23: TLS with external MariaDB and PostgreSQL servers the tests start, with
//! certificates the tests make (openssl) and TLS required by the server (MariaDB
//! `require_secure_transport = ON`; PostgreSQL `hostssl` lines only in pg_hba.conf). A run
//! whose URL verifies the server against the CA completes (so every session, the setup
//! connection and the benchmark sessions alike, went over TLS: the server refuses anything
//! else); a run without TLS is refused by the server, saying why, and a run that trusts another
//! CA fails verification, saying so — both found by the connection probe, exit 2 before
//! anything starts; `plan` refuses bad TLS settings with exit 2, naming the key.

use crate::common;

use std::path::Path;
use std::process::Command;

use crate::common::certs::{self, Certs};
use crate::common::needs::need;
use crate::common::{ServerRun, external, run, text, validate};

/// `drivebench run` of `r`'s scenario at a tenth of its length against the external server
/// at `url`: exit code, stderr, and result.json when written.
fn run_at(r: &ServerRun, url: &str) -> (Option<i32>, String, serde_json::Value) {
    let _ = std::fs::remove_dir_all(r.out());
    let set = format!("instance.0.url=\"{url}\"");
    let out = r
        .command("0.1", &["instance.0.provision=external", &set])
        .output()
        .unwrap();
    let path = r.out().join("result.json");
    let result = if path.exists() {
        common::read_json(&path)
    } else {
        serde_json::Value::Null
    };
    (out.status.code(), text(&out.stderr), result)
}

/// The three runs against one server: verified, plain, the wrong CA.
fn verified_plain_and_wrong_ca(
    r: &ServerRun,
    (verified, plain, wrong): (&str, &str, &str),
    refusal: &str,
) {
    let (code, err, result) = run_at(r, verified);
    assert_eq!(code, Some(0), "{err}");
    validate("schemas/json/result.schema.json", &result);
    assert!(
        result["phases"][1]["summary"]["transactions"]
            .as_u64()
            .unwrap()
            > 0
    );
    // Both refused by the connection probe, before anything starts (exit 2).
    let (code, err, _) = run_at(r, plain);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(refusal), "{err}");
    let (code, err, _) = run_at(r, wrong);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("invalid peer certificate") && err.contains("UnknownIssuer"),
        "{err}"
    );
    eprintln!("the wrong CA: {}", err.lines().last().unwrap_or(""));
}

/// `plan` with `url`: exit 2 and `said` on stderr.
fn plan_refuses(scenario: &str, url: &str, said: &str) {
    let set = format!("instance.0.url=\"{url}\"");
    let out = run(&[
        "plan",
        scenario,
        "--set",
        "instance.0.provision=external",
        "--set",
        &set,
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("instance.0.url") && err.contains(said),
        "{err}"
    );
}

#[test]
fn mariadb_requiring_tls_takes_verified_sessions_and_refuses_the_rest() {
    need!(Mariadb);
    let r = ServerRun::new("scenarios/ci-sysbench-mariadb.toml");
    let c: Certs = certs::generate(&r.tmp.path().join("certs"));
    let server = external::mariadb(
        &r.tmp.path().join("srv"),
        &[
            ("ssl_ca", c.ca.to_str().unwrap()),
            ("ssl_cert", c.server_cert.to_str().unwrap()),
            ("ssl_key", c.server_key.to_str().unwrap()),
            ("require_secure_transport", "ON"),
        ],
    );
    let base = format!("mysql://root@127.0.0.1:{}/drivebench_tls", server.port());
    verified_plain_and_wrong_ca(
        &r,
        (
            &format!("{base}?ssl-mode=VERIFY_IDENTITY&ssl-ca={}", c.ca.display()),
            &base,
            &format!("{base}?ssl-mode=VERIFY_CA&ssl-ca={}", c.other_ca.display()),
        ),
        "Access denied for user 'root'@'127.0.0.1' (using password: NO) (TLS was not used, \
         ssl-mode=DISABLED: MariaDB refuses this way when its require_secure_transport is ON",
    );
}

/// The server's key as PostgreSQL wants it: no access for others, owned by the account the
/// server runs as (`postgres` when the tests run as root).
fn key_for_postgres(c: &Certs) -> std::path::PathBuf {
    let key = c.server_key.with_file_name("postgres.key");
    std::fs::copy(&c.server_key, &key).unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    if rustix::process::geteuid().is_root() {
        let ok = Command::new("chown")
            .args(["postgres:postgres", key.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(ok.success());
    }
    key
}

/// TCP only with TLS: `hostssl` lines and nothing else for TCP; the server reloads them.
fn hostssl_only(data: &Path, pid: u32) {
    std::fs::write(
        data.join("pg_hba.conf"),
        "local all all trust\nhostssl all all 127.0.0.1/32 trust\n",
    )
    .unwrap();
    let ok = Command::new("kill")
        .args(["-HUP", &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    std::thread::sleep(std::time::Duration::from_millis(500));
}

#[test]
fn postgres_with_hostssl_only_takes_verified_sessions_and_refuses_the_rest() {
    need!(Postgres);
    let r = ServerRun::new("scenarios/ci-sysbench-postgres.toml");
    let c = certs::generate(&r.tmp.path().join("certs"));
    let key = key_for_postgres(&c);
    let server = external::postgres(
        &r.tmp.path().join("srv"),
        &[
            ("ssl", "on"),
            ("ssl_cert_file", c.server_cert.to_str().unwrap()),
            ("ssl_key_file", key.to_str().unwrap()),
        ],
    );
    hostssl_only(server.data_dir(), server.pid());
    let base = format!(
        "postgres://postgres@127.0.0.1:{}/drivebench_tls",
        server.port()
    );
    verified_plain_and_wrong_ca(
        &r,
        (
            &format!("{base}?sslmode=verify-full&sslrootcert={}", c.ca.display()),
            &format!("{base}?sslmode=disable"),
            &format!(
                "{base}?sslmode=verify-ca&sslrootcert={}",
                c.other_ca.display()
            ),
        ),
        "no encryption",
    );
}

#[test]
fn plan_refuses_bad_tls_settings_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing-ca.pem");
    let cases = [
        (
            "scenarios/ci-sysbench-mariadb.toml",
            "mysql://root@db1/sb?ssl-mode=SOMETIMES".to_string(),
            "ssl-mode=SOMETIMES: expected DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY"
                .to_string(),
        ),
        (
            "scenarios/ci-sysbench-mariadb.toml",
            format!("mysql://root@db1/sb?ssl-mode=VERIFY_CA&ssl-ca={}", missing.display()),
            format!("ssl-ca={}: No such file", missing.display()),
        ),
        (
            "scenarios/ci-sysbench-mariadb.toml",
            "mysql://root@db1/sb?require_ssl=true".to_string(),
            "require_ssl: use ssl-mode".to_string(),
        ),
        (
            "scenarios/ci-sysbench-postgres.toml",
            "postgres://postgres@db1/sb?sslmode=verify".to_string(),
            "sslmode=verify: expected disable, prefer, require, verify-ca, verify-full".to_string(),
        ),
        (
            "scenarios/ci-sysbench-postgres.toml",
            format!("postgres://postgres@db1/sb?sslmode=verify-full&sslrootcert={}", missing.display()),
            format!("sslrootcert={}: No such file", missing.display()),
        ),
    ];
    for (scenario, url, said) in cases {
        plan_refuses(scenario, &url, &said);
    }
}
