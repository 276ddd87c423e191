//! TPC-C as stored procedures (`procedures = true`): the five procedures of
//! `schemas/tpcc/<engine>/procedures.sql` are created once per instance before the phases, and a
//! transaction is one call whose inputs are the same generated `Inputs` the client-side form
//! executes statement by statement. The procedure begins and ends the transaction itself and
//! answers whether it rolled back (the 1 % New-Order with an unused item).

use super::input::{CustomerRef, Delivery, NewOrder, OrderStatus, Payment, StockLevel};
use super::input::{Inputs, MAX_ORDER_LINES};
use crate::engines::Dialect;
use crate::engines::statements::NoStatements;
use crate::engines::{EngineError, Rows, Session, Statements, StmtId, Value};
use crate::metrics::StatementCounts;

/// Why TPC-C's statements or procedures are not there for an engine.
#[derive(Debug, thiserror::Error)]
pub enum TpccSqlError {
    #[error(transparent)]
    Statements(#[from] NoStatements),
    #[error("engine {0} has no TPC-C stored procedures")]
    NoProcedures(&'static str),
    #[error(transparent)]
    Isolation(#[from] crate::engines::isolation::IsolationError),
}

/// The procedures' statements file of an engine.
pub fn procedures(dialect: Dialect) -> Result<Statements, TpccSqlError> {
    match dialect {
        Dialect::Mysql => Ok(Statements::parse(
            "schemas/tpcc/mysql/procedures.sql",
            include_str!("../../../schemas/tpcc/mysql/procedures.sql"),
        )?),
        Dialect::Mssql => Ok(Statements::parse(
            "schemas/tpcc/mssql/procedures.sql",
            include_str!("../../../schemas/tpcc/mssql/procedures.sql"),
        )?),
        Dialect::Postgres => Ok(Statements::parse(
            "schemas/tpcc/postgres/procedures.sql",
            include_str!("../../../schemas/tpcc/postgres/procedures.sql"),
        )?),
        other => Err(TpccSqlError::NoProcedures(other.dir())),
    }
}

/// The procedures, in call order.
pub const PROCEDURES: [&str; 5] = [
    "new_order",
    "payment",
    "order_status",
    "delivery",
    "stock_level",
];

/// Create the five procedures afresh (an older drivebench's are dropped first); once per
/// instance, before the phases.
pub async fn install<S: Session>(s: &mut S, st: &Statements) -> Result<(), EngineError> {
    for name in PROCEDURES {
        for step in ["drop", "create"] {
            s.execute_text(&st.render(&format!("{step}_{name}"), &[]))
                .await
                .map_err(|e| e.during(format!("{step} procedure drivebench_{name}")))?;
        }
    }
    Ok(())
}

/// One connection's prepared calls.
pub struct ProcClient {
    calls: Vec<StmtId>,
    rows: Rows,
}

pub async fn prepare<S: Session>(s: &mut S, st: &Statements) -> Result<ProcClient, EngineError> {
    let mut calls = Vec::with_capacity(PROCEDURES.len());
    for name in PROCEDURES {
        calls.push(s.prepare(&st.render(&format!("call_{name}"), &[])).await?);
    }
    Ok(ProcClient {
        calls,
        rows: Rows::default(),
    })
}

fn int(v: impl Into<i64>) -> Value {
    Value::Int(v.into())
}

/// A customer by id, or by last name (the id is NULL then).
fn customer(c: CustomerRef) -> [Value; 2] {
    match c {
        CustomerRef::Id(id) => [int(id), Value::Null],
        CustomerRef::LastName(name) => [Value::Null, Value::Text(name.to_string())],
    }
}

/// The call's parameters for `inputs`, in the procedure's order; `now` is the transaction's
/// time (O_ENTRY_D, H_DATE, OL_DELIVERY_D).
pub fn params(inputs: &Inputs, now: &str) -> Vec<Value> {
    let now = Value::Text(now.to_string());
    match inputs {
        Inputs::NewOrder(t) => new_order(t, now),
        Inputs::Payment(Payment {
            w_id,
            d_id,
            c_w_id,
            c_d_id,
            customer: c,
            h_amount_cents,
        }) => {
            let [id, last] = customer(*c);
            let cents = i64::from(*h_amount_cents);
            vec![
                int(*w_id),
                int(*d_id),
                int(*c_w_id),
                int(*c_d_id),
                id,
                last,
                Value::Float(cents as f64 / 100.0),
                now,
            ]
        }
        Inputs::OrderStatus(OrderStatus {
            w_id,
            d_id,
            customer: c,
        }) => {
            let [id, last] = customer(*c);
            vec![int(*w_id), int(*d_id), id, last]
        }
        Inputs::Delivery(Delivery { w_id, o_carrier_id }) => {
            vec![int(*w_id), int(*o_carrier_id), now]
        }
        Inputs::StockLevel(StockLevel {
            w_id,
            d_id,
            threshold,
        }) => vec![int(*w_id), int(*d_id), int(*threshold)],
    }
}

/// Warehouse, district, customer, line count, all-local, entry date, then item, supplying
/// warehouse and quantity of each of the 15 possible lines (NULL past the order's last).
fn new_order(t: &NewOrder, now: Value) -> Vec<Value> {
    let lines = t.lines();
    let mut p = vec![
        int(t.w_id),
        int(t.d_id),
        int(t.c_id),
        int(lines.len() as i64),
        int(i64::from(t.all_local())),
        now,
    ];
    for n in 0..MAX_ORDER_LINES {
        match lines.get(n) {
            Some(l) => p.extend([int(l.i_id), int(l.supply_w_id), int(l.quantity)]),
            None => p.extend([Value::Null, Value::Null, Value::Null]),
        }
    }
    p
}

/// Run one transaction as its procedure call.
pub async fn execute<S: Session>(
    s: &mut S,
    c: &mut ProcClient,
    inputs: &Inputs,
    now: &str,
) -> Result<StatementCounts, EngineError> {
    let kind = inputs.kind().index();
    let params = params(inputs, now);
    s.query(c.calls[kind], &params, &mut c.rows)
        .await
        .map_err(|e| e.during(format!("drivebench_{}", PROCEDURES[kind])))?;
    let rolled_back = match c.rows.get(0, 0).and_then(Value::as_i64) {
        Some(flag) => flag == 1,
        None => {
            return Err(EngineError::fatal(
                "DRIVEBENCH",
                format!(
                    "drivebench_{} answered no rolled_back row: the procedure is not drivebench's",
                    PROCEDURES[kind]
                ),
            ));
        }
    };
    // Delivery answers the districts it skipped beside the flag.
    let skipped = match inputs {
        Inputs::Delivery(_) => c.rows.get(0, 1).and_then(Value::as_i64).unwrap_or(0),
        _ => 0,
    };
    Ok(StatementCounts {
        other: 1,
        rolled_back,
        skipped: u32::try_from(skipped).unwrap_or(0),
        ..StatementCounts::default()
    })
}

/// After a failed call no transaction may stay open; errors are ignored. SQL Server: one the
/// procedure left open is rolled back (with XACT_ABORT the server has usually done so
/// already). MySQL: a lock wait timeout or a SIGNAL leaves it open, ROLLBACK ends it (and does
/// nothing with none open). PostgreSQL: nothing to do, the CALL ran outside a transaction
/// block, so its error ended the transaction it ran in.
pub async fn abort<S: Session>(s: &mut S, dialect: Dialect) {
    let sql = match dialect {
        Dialect::Mssql => "IF @@TRANCOUNT > 0 ROLLBACK",
        Dialect::Mysql => "ROLLBACK",
        Dialect::Postgres | Dialect::Sqlite => return,
    };
    let _ = s.execute_text(sql).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::tpcc::Kind;
    use crate::workload::tpcc::input::Terminal;
    use crate::workload::tpcc::rand::Constants;
    use drivebench_core::rng::Rng;

    fn placeholders(dialect: Dialect, sql: &str) -> usize {
        match dialect {
            Dialect::Mssql => crate::engines::mssql::number_placeholders(sql)
                .matches("@P")
                .count(),
            Dialect::Mysql => sql.matches('?').count(),
            _ => sql.matches('$').count(),
        }
    }

    #[test]
    fn every_call_binds_as_many_values_as_its_procedure_takes() {
        for dialect in [Dialect::Mssql, Dialect::Mysql, Dialect::Postgres] {
            calls_bind_as_many_values_as_they_take(dialect);
        }
        assert!(procedures(Dialect::Sqlite).is_err());
    }

    fn calls_bind_as_many_values_as_they_take(dialect: Dialect) {
        let st = procedures(dialect).unwrap();
        let terminal = Terminal {
            w_id: 1,
            d_id: 3,
            warehouses: 4,
        };
        let mut rng = Rng::for_client(5, 0, 0);
        let constants = Constants::load(&mut rng);
        for (n, kind) in [
            Kind::NewOrder,
            Kind::Payment,
            Kind::OrderStatus,
            Kind::Delivery,
            Kind::StockLevel,
        ]
        .into_iter()
        .enumerate()
        {
            let inputs = terminal.inputs(kind, &constants, &mut rng);
            let call = st.render(&format!("call_{}", PROCEDURES[n]), &[]);
            assert_eq!(
                params(&inputs, "2026-11-30 06:44:05").len(),
                placeholders(dialect, &call),
                "{call}"
            );
            assert!(st.has(&format!("create_{}", PROCEDURES[n])));
        }
    }

    #[test]
    fn new_order_lines_are_padded_to_fifteen_with_nulls() {
        let terminal = Terminal {
            w_id: 2,
            d_id: 1,
            warehouses: 2,
        };
        let mut rng = Rng::for_client(9, 0, 0);
        let constants = Constants::load(&mut rng);
        let Inputs::NewOrder(t) = terminal.inputs(Kind::NewOrder, &constants, &mut rng) else {
            panic!()
        };
        let p = params(&Inputs::NewOrder(t.clone()), "2026-11-30 06:44:05");
        let n = t.lines().len();
        assert_eq!(p[3], Value::Int(n as i64));
        assert_eq!(p[6], Value::Int(i64::from(t.lines()[0].i_id)));
        assert_eq!(p[8], Value::Int(i64::from(t.lines()[0].quantity)));
        assert!(p[6 + 3 * n..].iter().all(|v| *v == Value::Null));
        assert!(p[6..6 + 3 * n].iter().all(|v| *v != Value::Null));
    }

    #[test]
    fn payment_by_name_sends_no_id_and_money_as_a_decimal() {
        let pay = Inputs::Payment(Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: 2,
            customer: CustomerRef::LastName(crate::workload::tpcc::names::LastName::new(371)),
            h_amount_cents: 12_345,
        });
        let p = params(&pay, "2026-11-30 06:44:05");
        assert_eq!(p[4], Value::Null);
        assert!(matches!(&p[5], Value::Text(t) if !t.is_empty()));
        assert_eq!(p[6], Value::Float(123.45));
    }
}
