//! One TPC-C warehouse loaded into a server and checked: the consistency conditions must all
//! hold on a fresh load, two corruptions (rolled back) must fail the conditions they break with
//! the engine's values in the detail, and a second load of the same plan must reuse it. Also a
//! whole CI-sized throughput run on pooled connections.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use drivebench::engines::EngineKind;
use drivebench::engines::{Connector, Session};
use drivebench::workload::tpcc::check::{CheckResult, run_checks};
use drivebench::workload::tpcc::data::LoadParams;
use drivebench::workload::tpcc::load::{TpccLoadJob, load};
use drivebench::workload::tpcc::rand::Constants;
use drivebench::workload::tpcc::schema;
use drivebench_core::rng::Rng;
use tokio_util::sync::CancellationToken;

/// The load of one warehouse (seed 21) through `connector`.
pub fn job<C: Connector>(connector: &Arc<C>, kind: EngineKind) -> TpccLoadJob<C> {
    let mut rng = Rng::for_client(21, 0, 0);
    TpccLoadJob {
        connector: connector.clone(),
        name: format!("{kind:?}-1"),
        reload: false,
        never_load: false,
        schema: Arc::new(schema::schema(kind.dialect()).unwrap()),
        statements: Arc::new(schema::statements(kind.dialect()).unwrap()),
        warehouses: 1,
        params: Arc::new(LoadParams {
            seed: 21,
            constants: Constants::load(&mut rng),
            load_time: "2026-11-30 03:40:00".into(),
        }),
        instance: 0,
        rows_done: Arc::new(AtomicU64::new(0)),
        cancel: CancellationToken::new(),
    }
}

/// Corruptions, the condition each breaks (with a money one among them), and its detail.
const CORRUPTIONS: [(&str, &str, &str); 2] = [
    (
        "UPDATE warehouse SET w_ytd = w_ytd + 0.01",
        "3.3.2.1 ",
        "1 of 1 warehouse violates it; first: warehouse (1): w_ytd = 300000.01, sum(d_ytd) = 300000.00",
    ),
    (
        "UPDATE district SET d_next_o_id = d_next_o_id + 2 WHERE d_w_id = 1 AND d_id = 3",
        "3.3.2.2 ",
        "1 of 10 districts violates it; first: district (1,3): d_next_o_id - 1 = 3002, max(o_id) = 3000, max(no_o_id) = 3000",
    ),
];

/// Load one warehouse through `connector`, run the checks, check the corruptions, load again
/// (reused); gives the results on the fresh load and how long the checks took.
pub async fn load_and_check<C: Connector>(
    connector: Arc<C>,
    kind: EngineKind,
) -> (Vec<CheckResult>, Duration) {
    let report = load(job(&connector, kind)).await.unwrap();
    assert!(!report.reused && report.rows > 299_011, "{report:?}");
    let checks = schema::checks(kind.dialect()).unwrap();
    let mut s = connector.connect().await.unwrap();
    let started = Instant::now();
    let results = run_checks(&mut s, &checks, 1).await.unwrap();
    let took = started.elapsed();
    let begin = if kind == EngineKind::Mssql {
        "BEGIN TRAN"
    } else {
        "BEGIN"
    };
    for (sql, name, detail) in CORRUPTIONS {
        s.execute_text(begin).await.unwrap();
        s.execute_text(sql).await.unwrap();
        let broken = run_checks(&mut s, &checks, 1).await.unwrap();
        s.execute_text("ROLLBACK").await.unwrap();
        let failed: Vec<_> = broken.iter().filter(|r| !r.passed).collect();
        assert!(failed[0].name.starts_with(name), "{sql}: {broken:#?}");
        assert_eq!(failed[0].detail, detail, "{sql}");
    }
    assert_eq!(run_checks(&mut s, &checks, 1).await.unwrap(), results);
    let again = load(job(&connector, kind)).await.unwrap();
    assert!(again.reused, "{again:?}");
    (results, took)
}

/// A CI-sized TPC-C throughput run on a private server where eight terminals share four
/// connections (each held for one transaction) set to `isolation`: every kind runs, tpmC and
/// NOPM are measured, the level reads back as `read_back`, every consistency check passes, and
/// no server is left behind.
pub fn pooled_throughput_run_passes_the_checks(
    scenario: &'static str,
    isolation: &str,
    read_back: &str,
) {
    let r = super::ServerRun::new(scenario);
    let set = format!("workload.isolation={isolation}");
    let (out, result) = r.run(&["workload.connections=4", &set]);
    assert_eq!(out.status.code(), Some(0), "{}", super::text(&out.stderr));
    assert_eq!(result["plan"]["workload"]["connections"], 4);
    every_kind_ran_and_every_check_passed(&result);
    let t = &result["phases"][1]["tpcc"];
    assert!(t["tpmc"].as_f64().unwrap() > 0.0, "{t}");
    assert!(t["nopm"].as_f64().unwrap() > 0.0, "{t}");
    // The level asked for is the one the instance's sessions report.
    assert_eq!(result["plan"]["workload"]["tpcc"]["isolation"], isolation);
    assert_eq!(t["isolation"][0]["level"], read_back, "{t}");
    println!("isolation {isolation} read back as {read_back:?}");
    assert!(
        super::servers_under(&r.target()).is_empty(),
        "no server left running"
    );
}

/// The recorded phase (the second) ran all five kinds, and every consistency check passed.
pub fn every_kind_ran_and_every_check_passed(result: &serde_json::Value) {
    let per_kind = result["phases"][1]["summary"]["per_kind"]
        .as_array()
        .unwrap();
    assert_eq!(per_kind.len(), 5);
    assert!(
        per_kind
            .iter()
            .all(|k| k["transactions"].as_u64().unwrap() > 0),
        "{per_kind:?}"
    );
    let checks = result["checks"].as_array().unwrap();
    assert!(checks.len() >= 13, "{checks:?}");
    assert!(checks.iter().all(|c| c["passed"] == true), "{checks:?}");
}

/// A CI-sized run of `scenario` (with `sets`) where every transaction is one procedure call:
/// no statement of the client-side form runs, New-Orders are counted by the schema, every
/// kind runs, every consistency check passes, and no server is left behind.
pub fn procedures_run_passes_the_checks(scenario: &'static str, sets: &[&str]) {
    let started = Instant::now();
    let r = super::ServerRun::new(scenario);
    let mut all = vec!["workload.procedures=true"];
    all.extend_from_slice(sets);
    let (out, result) = r.run(&all);
    assert_eq!(out.status.code(), Some(0), "{}", super::text(&out.stderr));
    assert_eq!(result["plan"]["workload"]["tpcc"]["procedures"], true);
    every_kind_ran_and_every_check_passed(&result);
    let sample = &result["phases"][1];
    let q = &sample["summary"]["queries"];
    assert_eq!(q["reads"], 0, "{q}");
    assert_eq!(q["writes"], 0, "{q}");
    let calls = q["other"].as_u64().unwrap();
    assert!(calls >= sample["summary"]["transactions"].as_u64().unwrap());
    assert!(sample["tpcc"]["nopm"].as_f64().unwrap() > 0.0, "{sample}");
    assert!(
        super::servers_under(&r.target()).is_empty(),
        "no server left running"
    );
    eprintln!("{scenario} with procedures: {:?}", started.elapsed());
}
