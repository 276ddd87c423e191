//! Against a real Microsoft SQL Server, when one is reachable: MSSQL_URL names it
//! (`mssql://user@host:port/db?encrypt=..&trust_server_certificate=..`, the database is
//! created if absent) and MSSQL_PASSWORD holds the password. The same suite as the other
//! server engines: a CI-sized sysbench run through the binary, one TPC-C warehouse loaded
//! (multi-row INSERTs, written rows counted), checked for consistency, corrupted and reused,
//! and CI-sized TPC-C throughput runs, as client-side statements and as stored procedures,
//! whose consistency checks must pass. Without MSSQL_URL
//! every test prints why it did not run; the TDS emulator tests (tests/mssql_emulator.rs) are
//! not a substitute for these.

use crate::common;

use std::path::Path;

use crate::common::{read_json, run_scenario, text};
use drivebench::engines::EngineKind;
use drivebench::engines::mssql::{MssqlConfig, MssqlConnector};

/// The server's URL, or None after saying why the test does not run.
fn server(test: &str) -> Option<String> {
    match std::env::var("MSSQL_URL") {
        Ok(url) if !url.is_empty() => {
            assert!(
                std::env::var("MSSQL_PASSWORD").is_ok(),
                "MSSQL_URL is set: set MSSQL_PASSWORD too"
            );
            Some(url)
        }
        _ => {
            println!("{test}: skipped: set MSSQL_URL to run against SQL Server");
            None
        }
    }
}

/// Run a CI scenario against the server; its result.json.
fn run_against(url: &str, scenario: &str, dir: &Path, sets: &[&str]) -> serde_json::Value {
    let url_set = format!("instance.0.url=\"{url}\"");
    let mut all = vec![
        url_set.as_str(),
        "instance.0.password_env=\"MSSQL_PASSWORD\"",
    ];
    all.extend_from_slice(sets);
    let out_dir = dir.join("run");
    let out = run_scenario(scenario, "0.5", &out_dir, &dir.join("target"), &all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let password = std::env::var("MSSQL_PASSWORD").unwrap();
    for file in ["result.json", "plan.json", "summary.md"] {
        let content = std::fs::read_to_string(out_dir.join(file)).unwrap();
        assert!(!content.contains(&password), "{file} holds the password");
    }
    assert!(!err.contains(&password), "the password was logged");
    read_json(&out_dir.join("result.json"))
}

#[test]
fn sql_server_sysbench_run_through_the_binary() {
    let Some(url) = server("sysbench on SQL Server") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let result = run_against(&url, "scenarios/ci-sysbench-mssql.toml", tmp.path(), &[]);
    assert_eq!(result["complete"], true);
    let inst = &result["instances"][0];
    let version = inst["version"].as_str().unwrap();
    assert!(version.starts_with("Microsoft SQL Server"), "{version}");
    assert!(
        !version.contains("emulator"),
        "MSSQL_URL names the TDS emulator: {version}"
    );
    assert!(inst["load"]["rows_per_s"].as_f64().unwrap() > 0.0, "{inst}");
    let s = &result["phases"][1]["summary"];
    let tx = s["transactions"].as_u64().unwrap();
    assert!(tx > 0, "{s}");
    assert_eq!(s["queries"]["reads"].as_u64().unwrap(), tx * 14);
}

#[test]
fn sql_server_tpcc_warehouse_loads_checks_and_is_reused() {
    let Some(url) = server("TPC-C load and checks on SQL Server") else {
        return;
    };
    let password = std::env::var("MSSQL_PASSWORD").unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (results, took) = rt.block_on(async {
        let connector = MssqlConnector::new(&url, Some(&password), &MssqlConfig::default())
            .await
            .unwrap();
        common::tpcc::load_and_check(std::sync::Arc::new(connector), EngineKind::Mssql).await
    });
    eprintln!("checks on 1 warehouse (SQL Server): {took:?}");
    assert_eq!(results.len(), 13, "{results:#?}");
    assert!(results.iter().all(|r| r.passed), "{results:#?}");
}

#[test]
fn sql_server_tpcc_throughput_run_passes_the_consistency_checks() {
    let Some(url) = server("TPC-C run on SQL Server") else {
        return;
    };
    tpcc_run(&url, "workload.procedures=false");
}

#[test]
fn sql_server_tpcc_as_stored_procedures_passes_the_consistency_checks() {
    let Some(url) = server("TPC-C as stored procedures on SQL Server") else {
        return;
    };
    tpcc_run(&url, "workload.procedures=true");
}

/// A CI-sized TPC-C run on a fresh load: every kind ran, every consistency check passes.
fn tpcc_run(url: &str, form: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let result = run_against(
        url,
        "scenarios/ci-tpcc-mssql.toml",
        tmp.path(),
        &["workload.connections=4", "workload.reload=true", form],
    );
    let per_kind = result["phases"][1]["summary"]["per_kind"]
        .as_array()
        .unwrap();
    assert!(
        per_kind
            .iter()
            .all(|k| k["transactions"].as_u64().unwrap() > 0),
        "{per_kind:?}"
    );
    let checks = result["checks"].as_array().unwrap();
    assert!(
        checks.len() >= 13 && checks.iter().all(|c| c["passed"] == true),
        "{checks:?}"
    );
}
