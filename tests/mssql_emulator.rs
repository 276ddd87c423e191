//! The SQL Server path against a TDS emulator (Iridium SQL), not Microsoft SQL Server: one
//! client logs in with SQL authentication, creates the sysbench and TPC-C schemas from the T-SQL
//! dialect files, loads a small dataset with the loaders' multi-row INSERTs, runs every sysbench
//! statement and every TPC-C transaction inside T-SQL transactions, and checks their effects
//! with SELECTs. What the emulator cannot do is designed around, never bent into the real code:
//! it reports 0 rows affected for every write (so effects are checked with SELECT, and the
//! loaders' own written-row counts cannot be exercised here), silently drops an INSERT of more
//! than about 240 parameters (the load here uses 50-row INSERTs, the loaders 100 to 500), has
//! one fixed database (`iridium_sql`: CREATE DATABASE is not run here), has no `DROP TABLE IF
//! EXISTS` (the dialect files use `IF OBJECT_ID(...) IS NOT NULL DROP TABLE`), and fails
//! concurrent writers (one client).
//! No figure measured here says anything about SQL Server's performance, and none is reported.

use crate::common;
#[path = "mssql_emulator/load.rs"]
mod load;
#[path = "mssql_emulator/tpcc.rs"]
mod tpcc;
#[path = "mssql_emulator/tpcc_data.rs"]
mod tpcc_data;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;

use crate::common::mssql::{Emulator, PASSWORD};
use drivebench::engines::Dialect;
use drivebench::engines::mssql::{MssqlConfig, MssqlConnector, MssqlSession};
use drivebench::engines::{BulkPath, BulkText, Connector, ErrorClass, Rows, Session, Value};
use drivebench::scenario;
use drivebench::workload::feed::{Fed, InsertSql, feed};
use drivebench::workload::sysbench::{self, Call, Sysbench};
use drivebench::workload::{Workload, meta};
use drivebench_core::rng::Rng;
use tokio_util::sync::CancellationToken;

/// The emulator's one database.
pub const DATABASE: &str = "iridium_sql";

/// Connect through the real connector and say what answered.
pub async fn connector(emu: &Emulator) -> MssqlConnector {
    let c = MssqlConnector::new(&emu.url(DATABASE), Some(PASSWORD), &MssqlConfig::default())
        .await
        .unwrap_or_else(|e| panic!("TDS emulator: {e}"));
    let version = c.version();
    assert!(
        version.contains("emulator"),
        "not the TDS emulator: {version}"
    );
    println!("TDS emulator, not Microsoft SQL Server: it reports {version:?}");
    c
}

pub async fn query<S: Session>(s: &mut S, sql: &str, params: &[Value]) -> Rows {
    let id = s.prepare(sql).await.unwrap();
    let mut rows = Rows::default();
    s.query(id, params, &mut rows)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows
}

pub async fn int<S: Session>(s: &mut S, sql: &str, params: &[Value]) -> i64 {
    let rows = query(s, sql, params).await;
    rows.get(0, 0)
        .and_then(Value::as_i64)
        .unwrap_or_else(|| panic!("{sql}: no number in {rows:?}"))
}

#[tokio::test]
async fn tds_emulator_rejects_a_wrong_password_as_a_fatal_login_error() {
    let Some(emu) = Emulator::start() else {
        return;
    };
    let e = match MssqlConnector::new(&emu.url(DATABASE), Some("nope"), &MssqlConfig::default())
        .await
    {
        Ok(_) => panic!("the TDS emulator accepted a wrong password"),
        Err(e) => e,
    };
    assert!(e.to_string().contains("Login failed"), "{e}");
    assert!(
        !e.to_string().contains("nope"),
        "the password is never echoed: {e}"
    );
}

#[tokio::test]
async fn tds_emulator_server_errors_keep_their_numbers_and_classes() {
    let Some(emu) = Emulator::start() else {
        return;
    };
    let c = connector(&emu).await;
    let mut s = c.connect().await.unwrap();
    s.execute_text("CREATE TABLE e (id INT NOT NULL PRIMARY KEY)")
        .await
        .unwrap();
    let missing = s
        .prepare("SELECT id FROM missing_table WHERE id = @P1")
        .await
        .unwrap();
    let mut rows = Rows::default();
    let e = s
        .query(missing, &[Value::Int(1)], &mut rows)
        .await
        .unwrap_err();
    assert_eq!(
        (e.class, e.code.as_str()),
        (ErrorClass::Fatal, "208"),
        "{e}"
    );
    assert!(e.message.contains("missing_table"), "{e}");
    assert!(e.message.contains("[parameters (bigint)]"), "{e}");
    // The session is still usable after a server error.
    let ins = s.prepare("INSERT INTO e (id) VALUES (@P1)").await.unwrap();
    s.execute(ins, &[Value::Int(1)]).await.unwrap();
    let dup = s.execute(ins, &[Value::Int(1)]).await.unwrap_err();
    println!(
        "TDS emulator: a duplicate key is error {} ({:?}): {}",
        dup.code, dup.class, dup.message
    );
    assert_eq!(int(&mut s, "SELECT COUNT(*) FROM e", &[]).await, 1);
}

const TABLE_SIZE: u32 = 1_200;

fn sysbench_rows(table: u32) -> impl FnMut() -> Option<Vec<Value>> {
    let mut rng = Rng::for_client(7, 0, u64::from(table));
    let mut next = 1u32;
    move || {
        if next > TABLE_SIZE {
            return None;
        }
        let n = 700.min(TABLE_SIZE - next + 1);
        let mut rows = Vec::new();
        for id in next..next + n {
            rows.push(Value::Int(i64::from(id)));
            rows.push(Value::Int(i64::from(id % 97)));
            rows.push(Value::Text(sysbench::data::c_value(&mut rng)));
            rows.push(Value::Text(sysbench::data::pad_value(&mut rng)));
        }
        next += n;
        Some(rows)
    }
}

async fn row_of(s: &mut MssqlSession, table: u32, id: i64) -> Option<(i64, String)> {
    let rows = query(
        s,
        &format!("SELECT k, c FROM sbtest{table} WHERE id = @P1"),
        &[Value::Int(id)],
    )
    .await;
    match (rows.get(0, 0), rows.get(0, 1)) {
        (Some(Value::Int(k)), Some(Value::Text(c))) => Some((*k, c.trim_end().to_string())),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tds_emulator_not_sql_server_sysbench_schema_load_and_every_statement() {
    let Some(emu) = Emulator::start() else {
        return;
    };
    let c = connector(&emu).await;
    let st = sysbench::statements(Dialect::Mssql);
    let mut s = c.connect().await.unwrap();

    // The load record: created, written twice (update path), read back.
    s.execute_text(&st.render("meta_create", &[]))
        .await
        .unwrap();
    meta::put(&mut s, &st, "sysbench.state", "loading")
        .await
        .unwrap();
    meta::put(&mut s, &st, "sysbench.state", "complete")
        .await
        .unwrap();
    assert_eq!(
        meta::get(&mut s, &st, "sysbench.state")
            .await
            .unwrap()
            .as_deref(),
        Some("complete")
    );

    // Schema and load: the loader's statements and its multi-row INSERT path.
    for t in 1..=2u32 {
        let ts = t.to_string();
        let table = [("table", ts.as_str())];
        s.execute_text(&st.render("drop_table", &table))
            .await
            .unwrap();
        s.execute_text(&st.render("create_table", &table))
            .await
            .unwrap();
        let insert = InsertSql {
            prefix: st.render("load_insert_prefix", &table),
            row: st.render("load_insert_row", &[]),
            // The emulator silently drops an INSERT of more than about 240 parameters (SQL Server
            // takes 2,100): 50 rows x 4 columns here, where the sysbench loader sends 500.
            rows_per_insert: 50,
            begin: st.render("load_begin", &[]),
            commit: st.render("commit", &[]),
        };
        let done = AtomicU64::new(0);
        let fed = feed(
            &mut s,
            BulkPath::None,
            &format!("sbtest{t}"),
            &["id", "k", "c", "pad"],
            BulkText::Plain,
            &insert,
            sysbench_rows(t),
            &done,
            &CancellationToken::new(),
        )
        .await
        .unwrap_or_else(|e| panic!("load sbtest{t}: {e}"));
        let Fed::Done { generated, .. } = fed else {
            panic!("{fed:?}")
        };
        assert_eq!(generated, u64::from(TABLE_SIZE));
        s.execute_text(&st.render("create_index", &table))
            .await
            .unwrap();
        let count = st.render("count_rows", &table);
        assert_eq!(int(&mut s, &count, &[]).await, i64::from(TABLE_SIZE));
        let exists = st.render("table_exists", &table);
        assert_eq!(int(&mut s, &exists, &[]).await, 1);
    }
    let absent = st.render("table_exists", &[("table", "99")]);
    assert_eq!(int(&mut s, &absent, &[]).await, 0);
    println!(
        "TDS emulator: 2 tables x {TABLE_SIZE} rows loaded with multi-row INSERTs (50 rows, 200 parameters each: the emulator drops larger ones)"
    );

    // One oltp_read_write event through the workload: every statement, inside BEGIN TRAN/COMMIT.
    let sets = [
        "workload.tables=2".to_string(),
        format!("workload.table_size={TABLE_SIZE}"),
    ];
    let plan = scenario::load(
        &common::root().join("scenarios/ci-sysbench-mssql.toml"),
        &sets,
        1.0,
    )
    .unwrap();
    let w = Sysbench::new(
        plan.database
            .as_ref()
            .unwrap()
            .workload
            .benchmark
            .sysbench()
            .unwrap()
            .clone(),
        Dialect::Mssql,
    );
    let mut client = w.setup(&mut s).await.unwrap();
    let mut rng = Rng::for_client(3, 0, 0);
    let mut term = w.terminal(0, &mut rng);
    let calls = w.generate(&mut term, &mut rng, 0);
    // What the event must leave behind, applied in its order (ids repeat under rand_type
    // special: an updated row may be deleted and inserted again in the same event).
    let mut expected: BTreeMap<(u32, i64), Option<(i64, String)>> = BTreeMap::new();
    for call in &calls {
        let key = match call {
            Call::IndexUpdate { table, id } | Call::Delete { table, id } => (*table, *id),
            Call::NonIndexUpdate { table, params } => (*table, params[1].as_i64().unwrap()),
            Call::Insert { table, params } => (*table, params[0].as_i64().unwrap()),
            _ => continue,
        };
        if let std::collections::btree_map::Entry::Vacant(e) = expected.entry(key) {
            e.insert(row_of(&mut s, key.0, key.1).await);
        }
        let text = |v: &Value| match v {
            Value::Text(t) => t.clone(),
            other => panic!("{other:?}"),
        };
        let row = expected.get_mut(&key).unwrap();
        match call {
            Call::IndexUpdate { .. } => row.as_mut().unwrap().0 += 1,
            Call::NonIndexUpdate { params, .. } => row.as_mut().unwrap().1 = text(&params[0]),
            Call::Delete { .. } => *row = None,
            Call::Insert { params, .. } => {
                *row = Some((params[1].as_i64().unwrap(), text(&params[2])))
            }
            _ => {}
        }
    }
    let counts = w.execute(&mut s, &mut client, &calls).await.unwrap();
    assert_eq!(
        (counts.reads, counts.writes),
        (14, 4),
        "oltp_read_write: 10 point selects, 4 ranges; 2 updates, a delete and an insert"
    );
    for ((table, id), want) in &expected {
        let got = row_of(&mut s, *table, *id).await;
        assert_eq!(&got, want, "sbtest{table} id {id} after the event");
    }
    for t in 1..=2 {
        let count = st.render("count_rows", &[("table", &t.to_string())]);
        assert_eq!(int(&mut s, &count, &[]).await, i64::from(TABLE_SIZE));
    }
    // ROLLBACK undoes: an update inside BEGIN TRAN, rolled back, leaves k as it was.
    let k0 = row_of(&mut s, 1, 5).await.unwrap().0;
    for sql in ["BEGIN TRAN", "UPDATE sbtest1 SET k = k + 100 WHERE id = 5"] {
        s.execute_text(sql).await.unwrap();
    }
    let rb = s.prepare(&st.render("rollback", &[])).await.unwrap();
    s.execute(rb, &[]).await.unwrap();
    assert_eq!(row_of(&mut s, 1, 5).await.unwrap().0, k0, "ROLLBACK");
    // The binary end to end on these tables: an external server reached with password_env,
    // the load recorded as complete is reused (the emulator's 0-rows-affected answers would fail
    // the loader's own count check), one client (the emulator fails concurrent writers).
    let sig = drivebench::workload::sysbench::load::signature(&w.options().clone());
    meta::put(&mut s, &st, "sysbench.signature", &sig)
        .await
        .unwrap();
    meta::put(&mut s, &st, "sysbench.state", "complete")
        .await
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let url = format!("instance.0.url=\"{}\"", emu.url(DATABASE));
    let out = common::bin()
        .args([
            "run",
            "scenarios/ci-sysbench-mssql.toml",
            "--quiet",
            "--time-scale",
            "0.1",
        ])
        .arg("--out")
        .arg(tmp.path().join("run"))
        .arg("--target")
        .arg(tmp.path().join("target"))
        .args(["--set", &url, "--set", "workload.clients=1"])
        .args([
            "--set",
            "workload.tables=2",
            "--set",
            &format!("workload.table_size={TABLE_SIZE}"),
        ])
        .env("DRIVEBENCH_MSSQL_PASSWORD", PASSWORD)
        .current_dir(common::root())
        .output()
        .unwrap();
    let err = common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let result = common::read_json(&tmp.path().join("run/result.json"));
    assert_eq!(result["complete"], true);
    let inst = &result["instances"][0];
    assert!(
        inst["version"].as_str().unwrap().contains("emulator"),
        "{inst}"
    );
    assert_eq!(inst["load"]["reused"], true, "{inst}");
    let tx = result["phases"][1]["summary"]["transactions"]
        .as_u64()
        .unwrap();
    assert!(tx > 0, "no transaction completed");
    assert_eq!(
        result["phases"][1]["summary"]["queries"]["reads"]
            .as_u64()
            .unwrap(),
        tx * 14
    );
    for file in ["result.json", "plan.json", "summary.md", "drivebench.log"] {
        if let Ok(text) = std::fs::read_to_string(tmp.path().join("run").join(file)) {
            assert!(!text.contains(PASSWORD), "{file} holds the password");
        }
    }
    assert!(!err.contains(PASSWORD));
    println!(
        "TDS emulator: `drivebench run` against it completed its phases on reused tables (figures not reported: an emulator says nothing about SQL Server)"
    );
    println!(
        "TDS emulator: one oltp_read_write event ran every sysbench statement (point_select, simple_range, sum_range, order_range, distinct_range, index_update, non_index_update, delete, insert, begin, commit) and rollback; effects checked with SELECT"
    );
}
