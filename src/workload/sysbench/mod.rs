//! sysbench 1.0 OLTP tests, statement for statement: which statements an event runs, in which
//! order, with which random ids, as sysbench 1.0 runs them. Statement text comes from
//! `schemas/sysbench/<dialect>/statements.sql`.

pub mod data;
pub mod load;
pub mod options;
pub mod rand;

use crate::engines::{Dialect, EngineError, Rows, Session, Statements, StmtId, Value};
use crate::metrics::StatementCounts;
use crate::workload::Workload;
use crate::workload::sysbench::options::{SysbenchOptions, SysbenchTest};
use drivebench_core::rng::Rng;
use rand::DefaultRand;

/// The statements file of a SQL dialect.
pub fn statements(dialect: Dialect) -> Statements {
    let (source, text) = match dialect {
        Dialect::Sqlite => (
            "schemas/sysbench/sqlite/statements.sql",
            include_str!("../../../schemas/sysbench/sqlite/statements.sql"),
        ),
        Dialect::Mysql => (
            "schemas/sysbench/mysql/statements.sql",
            include_str!("../../../schemas/sysbench/mysql/statements.sql"),
        ),
        Dialect::Postgres => (
            "schemas/sysbench/postgres/statements.sql",
            include_str!("../../../schemas/sysbench/postgres/statements.sql"),
        ),
        Dialect::Mssql => (
            "schemas/sysbench/mssql/statements.sql",
            include_str!("../../../schemas/sysbench/mssql/statements.sql"),
        ),
    };
    // Compiled-in files are checked by tests; an unparsable one cannot ship.
    Statements::parse(source, text).unwrap_or_else(|e| panic!("{e}"))
}

/// Per-table prepared statements, in this order.
const TABLE_STATEMENTS: [&str; 9] = [
    "point_select",
    "simple_range",
    "sum_range",
    "order_range",
    "distinct_range",
    "index_update",
    "non_index_update",
    "delete",
    "insert",
];
const POINT: usize = 0;
const SIMPLE: usize = 1;
const SUM: usize = 2;
const ORDER: usize = 3;
const DISTINCT: usize = 4;
const INDEX_UPD: usize = 5;
const NON_INDEX_UPD: usize = 6;
const DELETE: usize = 7;
const INSERT: usize = 8;

fn during(e: EngineError, slot: usize, table: u32) -> EngineError {
    e.during(format!("{} on sbtest{table}", TABLE_STATEMENTS[slot]))
}

/// One statement of an event, with its inputs.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    Begin,
    Commit,
    /// A SELECT: statement slot, table, and its id range (b = a for point selects).
    Read {
        slot: usize,
        table: u32,
        a: i64,
        b: i64,
    },
    IndexUpdate {
        table: u32,
        id: i64,
    },
    /// Bound as they are executed: `[c, id]`.
    NonIndexUpdate {
        table: u32,
        params: [Value; 2],
    },
    Delete {
        table: u32,
        id: i64,
    },
    /// Bound as they are executed: `[id, k, c, pad]`.
    Insert {
        table: u32,
        params: [Value; 4],
    },
    /// oltp_insert's plain-text INSERT.
    InsertText {
        sql: String,
    },
}

pub struct Sysbench {
    opts: SysbenchOptions,
    statements: Statements,
    rand: DefaultRand,
    writes: bool,
}

pub struct SysbenchClient {
    table_stmts: Vec<[StmtId; 9]>,
    begin: StmtId,
    commit: StmtId,
    rollback: StmtId,
    rows: Rows,
    in_txn: bool,
}

impl Sysbench {
    pub fn new(opts: SysbenchOptions, dialect: Dialect) -> Self {
        let writes = !matches!(
            opts.test,
            SysbenchTest::OltpReadOnly | SysbenchTest::OltpPointSelect
        );
        Sysbench {
            rand: DefaultRand::new(&opts, u64::from(opts.table_size)),
            statements: statements(dialect),
            opts,
            writes,
        }
    }

    pub fn options(&self) -> &SysbenchOptions {
        &self.opts
    }

    /// Statements a client prepares (sysbench: 9 per table plus BEGIN and COMMIT).
    pub fn statements_per_client(&self) -> usize {
        9 * self.opts.tables as usize + 3
    }

    fn id(&self, rng: &mut Rng) -> i64 {
        self.rand.draw(rng, 1, i64::from(self.opts.table_size))
    }

    fn table(&self, rng: &mut Rng) -> u32 {
        rng.uniform(1, i64::from(self.opts.tables)) as u32
    }

    fn point_selects(&self, rng: &mut Rng, out: &mut Vec<Call>) {
        let table = self.table(rng);
        for _ in 0..self.opts.point_selects {
            let id = self.id(rng);
            out.push(Call::Read {
                slot: POINT,
                table,
                a: id,
                b: id,
            });
        }
    }

    fn ranges(&self, rng: &mut Rng, out: &mut Vec<Call>) {
        let o = &self.opts;
        for (slot, n) in [
            (SIMPLE, o.simple_ranges),
            (SUM, o.sum_ranges),
            (ORDER, o.order_ranges),
            (DISTINCT, o.distinct_ranges),
        ] {
            let table = self.table(rng);
            for _ in 0..n {
                let a = self.id(rng);
                out.push(Call::Read {
                    slot,
                    table,
                    a,
                    b: a + i64::from(o.range_size) - 1,
                });
            }
        }
    }

    fn updates(
        &self,
        rng: &mut Rng,
        out: &mut Vec<Call>,
        index: bool,
        non_index: bool,
        delete_inserts: bool,
    ) {
        if index {
            let table = self.table(rng);
            for _ in 0..self.opts.index_updates {
                out.push(Call::IndexUpdate {
                    table,
                    id: self.id(rng),
                });
            }
        }
        if non_index {
            let table = self.table(rng);
            for _ in 0..self.opts.non_index_updates {
                let c = data::c_value(rng);
                let id = self.id(rng);
                out.push(Call::NonIndexUpdate {
                    table,
                    params: [Value::Text(c), Value::Int(id)],
                });
            }
        }
        if delete_inserts {
            let table = self.table(rng);
            for _ in 0..self.opts.delete_inserts {
                let id = self.id(rng);
                let k = self.id(rng);
                out.push(Call::Delete { table, id });
                let (c, pad) = (data::c_value(rng), data::pad_value(rng));
                out.push(Call::Insert {
                    table,
                    params: [
                        Value::Int(id),
                        Value::Int(k),
                        Value::Text(c),
                        Value::Text(pad),
                    ],
                });
            }
        }
    }

    fn insert_text(&self, rng: &mut Rng, client: u64, seq: u64) -> Call {
        let table = self.table(rng);
        let k = self.id(rng);
        let c = data::c_value(rng);
        let pad = data::pad_value(rng);
        let t = table.to_string();
        let ks = k.to_string();
        let sql = if self.opts.auto_inc {
            self.statements.render(
                "insert_text_auto",
                &[("table", &t), ("k", &ks), ("c", &c), ("pad", &pad)],
            )
        } else {
            let id = unique_id(client, seq).to_string();
            self.statements.render(
                "insert_text",
                &[
                    ("table", &t),
                    ("id", &id),
                    ("k", &ks),
                    ("c", &c),
                    ("pad", &pad),
                ],
            )
        };
        Call::InsertText { sql }
    }

    /// The calls of one event, in sysbench's order.
    pub fn event(&self, rng: &mut Rng, client: u64, seq: u64) -> Vec<Call> {
        let o = &self.opts;
        let mut out = Vec::with_capacity(24);
        let trx = !o.skip_trx;
        match o.test {
            SysbenchTest::OltpReadWrite
            | SysbenchTest::OltpReadOnly
            | SysbenchTest::OltpWriteOnly => {
                if trx {
                    out.push(Call::Begin);
                }
                if o.test != SysbenchTest::OltpWriteOnly {
                    self.point_selects(rng, &mut out);
                    if o.range_selects {
                        self.ranges(rng, &mut out);
                    }
                }
                if o.test != SysbenchTest::OltpReadOnly {
                    self.updates(rng, &mut out, true, true, true);
                }
                if trx {
                    out.push(Call::Commit);
                }
            }
            SysbenchTest::OltpPointSelect => self.point_selects(rng, &mut out),
            SysbenchTest::OltpUpdateIndex => self.updates(rng, &mut out, true, false, false),
            SysbenchTest::OltpUpdateNonIndex => self.updates(rng, &mut out, false, true, false),
            SysbenchTest::OltpDelete => {
                let table = self.table(rng);
                out.push(Call::Delete {
                    table,
                    id: self.id(rng),
                });
            }
            SysbenchTest::OltpInsert => out.push(self.insert_text(rng, client, seq)),
        }
        out
    }
}

/// A value unique per (client, seq) in the signed 32-bit range, as sysbench's
/// `rand.unique() - 2^31`: an odd-step walk over 2^32 visits every value once (unique while
/// clients < 16,384 and each client inserts fewer than 262,144 rows).
pub fn unique_id(client: u64, seq: u64) -> i64 {
    const STEP: u64 = 2_147_483_647 * 2 + 1 - 2 * 1_000_003; // odd
    let n = seq.wrapping_mul(16_384).wrapping_add(client);
    let v = n.wrapping_mul(STEP) & 0xFFFF_FFFF;
    v as i64 - 2_147_483_648
}

impl Workload for Sysbench {
    type Client = SysbenchClient;
    /// The client's id (sysbench's thread id), part of oltp_insert's unique ids.
    type Terminal = u64;
    type Inputs = Vec<Call>;

    fn kinds(&self) -> &'static [&'static str] {
        &["event"]
    }

    async fn setup<S: Session>(&self, session: &mut S) -> Result<SysbenchClient, EngineError> {
        let mut table_stmts = Vec::with_capacity(self.opts.tables as usize);
        for t in 1..=self.opts.tables {
            let ts = t.to_string();
            let mut ids = [0; 9];
            for (slot, name) in TABLE_STATEMENTS.iter().enumerate() {
                ids[slot] = session
                    .prepare(&self.statements.render(name, &[("table", &ts)]))
                    .await?;
            }
            table_stmts.push(ids);
        }
        let begin_name = if self.writes {
            "begin_write"
        } else {
            "begin_read"
        };
        Ok(SysbenchClient {
            table_stmts,
            begin: session
                .prepare(&self.statements.render(begin_name, &[]))
                .await?,
            commit: session
                .prepare(&self.statements.render("commit", &[]))
                .await?,
            rollback: session
                .prepare(&self.statements.render("rollback", &[]))
                .await?,
            rows: Rows::counting(),
            in_txn: false,
        })
    }

    fn terminal(&self, client: u32, _rng: &mut Rng) -> u64 {
        u64::from(client)
    }

    fn generate(&self, client: &mut u64, rng: &mut Rng, seq: u64) -> Vec<Call> {
        self.event(rng, *client, seq)
    }

    fn kind_of(&self, _inputs: &Vec<Call>) -> usize {
        0
    }

    async fn execute<S: Session>(
        &self,
        s: &mut S,
        c: &mut SysbenchClient,
        calls: &Vec<Call>,
    ) -> Result<StatementCounts, EngineError> {
        let mut n = StatementCounts::default();
        let stmt =
            |c: &SysbenchClient, table: u32, slot: usize| c.table_stmts[table as usize - 1][slot];
        for call in calls {
            match call {
                Call::Begin => {
                    s.execute(c.begin, &[])
                        .await
                        .map_err(|e| e.during("BEGIN"))?;
                    c.in_txn = true;
                    n.other += 1;
                }
                Call::Commit => {
                    s.execute(c.commit, &[])
                        .await
                        .map_err(|e| e.during("COMMIT"))?;
                    c.in_txn = false;
                    n.other += 1;
                }
                Call::Read { slot, table, a, b } => {
                    let id = stmt(c, *table, *slot);
                    if *slot == POINT {
                        s.query(id, &[Value::Int(*a)], &mut c.rows)
                            .await
                            .map_err(|e| during(e, *slot, *table))?;
                    } else {
                        s.query(id, &[Value::Int(*a), Value::Int(*b)], &mut c.rows)
                            .await
                            .map_err(|e| during(e, *slot, *table))?;
                    }
                    n.reads += 1;
                }
                Call::IndexUpdate { table, id } => {
                    s.execute(stmt(c, *table, INDEX_UPD), &[Value::Int(*id)])
                        .await
                        .map_err(|e| during(e, INDEX_UPD, *table))?;
                    n.writes += 1;
                }
                Call::NonIndexUpdate { table, params } => {
                    s.execute(stmt(c, *table, NON_INDEX_UPD), params)
                        .await
                        .map_err(|e| during(e, NON_INDEX_UPD, *table))?;
                    n.writes += 1;
                }
                Call::Delete { table, id } => {
                    s.execute(stmt(c, *table, DELETE), &[Value::Int(*id)])
                        .await
                        .map_err(|e| during(e, DELETE, *table))?;
                    n.writes += 1;
                }
                Call::Insert { table, params } => {
                    s.execute(stmt(c, *table, INSERT), params)
                        .await
                        .map_err(|e| during(e, INSERT, *table))?;
                    n.writes += 1;
                }
                Call::InsertText { sql } => {
                    s.execute_text(sql)
                        .await
                        .map_err(|e| e.during("insert (text)"))?;
                    n.writes += 1;
                }
            }
        }
        Ok(n)
    }

    async fn abort<S: Session>(&self, s: &mut S, c: &mut SysbenchClient) {
        if c.in_txn {
            let _ = s.execute(c.rollback, &[]).await;
            c.in_txn = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(test: SysbenchTest) -> SysbenchOptions {
        SysbenchOptions {
            tables: 4,
            ..SysbenchOptions::defaults(test)
        }
    }

    fn counts(calls: &[Call]) -> (u32, u32, u32) {
        calls.iter().fold((0, 0, 0), |(r, w, o), c| match c {
            Call::Begin | Call::Commit => (r, w, o + 1),
            Call::Read { .. } => (r + 1, w, o),
            _ => (r, w + 1, o),
        })
    }

    #[test]
    fn statements_per_event_match_sysbench() {
        // reads / writes / other per event with sysbench's defaults, as sysbench 1.0 counts them
        let cases = [
            (SysbenchTest::OltpReadWrite, (14, 4, 2)),
            (SysbenchTest::OltpReadOnly, (14, 0, 2)),
            (SysbenchTest::OltpWriteOnly, (0, 4, 2)),
            (SysbenchTest::OltpPointSelect, (1, 0, 0)),
            (SysbenchTest::OltpUpdateIndex, (0, 1, 0)),
            (SysbenchTest::OltpUpdateNonIndex, (0, 1, 0)),
            (SysbenchTest::OltpInsert, (0, 1, 0)),
            (SysbenchTest::OltpDelete, (0, 1, 0)),
        ];
        for (test, expected) in cases {
            let w = Sysbench::new(opts(test), Dialect::Sqlite);
            let mut rng = Rng::for_client(1, 0, 0);
            assert_eq!(
                counts(&w.event(&mut rng, 0, 0)),
                expected,
                "{}",
                test.name()
            );
        }
    }

    #[test]
    fn skip_trx_and_range_selects_off_drop_their_statements() {
        let mut o = opts(SysbenchTest::OltpReadWrite);
        o.skip_trx = true;
        o.range_selects = false;
        let w = Sysbench::new(o, Dialect::Sqlite);
        assert_eq!(
            counts(&w.event(&mut Rng::for_client(1, 0, 0), 0, 0)),
            (10, 4, 0)
        );
    }

    #[test]
    fn event_order_and_ranges_follow_the_script() {
        let w = Sysbench::new(opts(SysbenchTest::OltpReadWrite), Dialect::Sqlite);
        let calls = w.event(&mut Rng::for_client(2, 0, 0), 0, 0);
        assert_eq!(calls.first(), Some(&Call::Begin));
        assert_eq!(calls.last(), Some(&Call::Commit));
        let point_tables: Vec<u32> = calls
            .iter()
            .filter_map(|c| match c {
                Call::Read {
                    slot: POINT, table, ..
                } => Some(*table),
                _ => None,
            })
            .collect();
        assert!(
            point_tables.windows(2).all(|w| w[0] == w[1]),
            "one table per statement group"
        );
        for c in &calls {
            if let Call::Read { slot, a, b, .. } = c
                && *slot != POINT
            {
                assert_eq!(b - a, 99);
            }
        }
        let (del, ins) = (
            calls
                .iter()
                .position(|c| matches!(c, Call::Delete { .. }))
                .unwrap(),
            calls
                .iter()
                .position(|c| matches!(c, Call::Insert { .. }))
                .unwrap(),
        );
        assert_eq!(ins, del + 1);
        if let (Call::Delete { id: a, table: t1 }, Call::Insert { table: t2, params }) =
            (&calls[del], &calls[ins])
        {
            assert_eq!(
                (&Value::Int(*a), t1),
                (&params[0], t2),
                "re-insert the deleted id"
            );
        }
    }

    #[test]
    fn insert_text_uses_unique_ids_without_auto_inc() {
        let mut o = opts(SysbenchTest::OltpInsert);
        o.auto_inc = false;
        let w = Sysbench::new(o, Dialect::Sqlite);
        let Call::InsertText { sql } = &w.event(&mut Rng::for_client(1, 0, 0), 3, 7)[0] else {
            panic!()
        };
        assert!(
            sql.starts_with("INSERT INTO sbtest") && sql.contains(&unique_id(3, 7).to_string()),
            "{sql}"
        );
        let mut seen = std::collections::HashSet::new();
        for client in 0..8 {
            for seq in 0..2000 {
                assert!(seen.insert(unique_id(client, seq)));
            }
        }
    }

    #[test]
    fn every_statement_the_workload_uses_exists_for_every_engine() {
        let s = statements(Dialect::Sqlite);
        for name in TABLE_STATEMENTS.iter().chain(&[
            "begin_read",
            "begin_write",
            "commit",
            "rollback",
            "insert_text",
            "insert_text_auto",
            "create_table",
            "create_index",
            "drop_table",
            "table_exists",
            "count_rows",
            "load_insert_prefix",
            "load_insert_row",
            "load_begin",
            "meta_create",
            "meta_get",
            "meta_put",
        ]) {
            assert!(s.has(name), "{name}");
        }
    }
}
