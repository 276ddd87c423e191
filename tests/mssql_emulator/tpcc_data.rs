//! The hand-made TPC-C dataset of the emulator tests: warehouse 1, its districts, and exactly
//! the customers, items and stock rows the generated New-Orders and the Payments name.

use drivebench::engines::mssql::MssqlSession;
use drivebench::engines::{Session, Value};
use drivebench::workload::tpcc::Kind;
use drivebench::workload::tpcc::input::{Inputs, NewOrder, Terminal, UNUSED_ITEM_ID};
use drivebench::workload::tpcc::names::LastName;
use drivebench::workload::tpcc::rand::Constants;
use drivebench_core::rng::Rng;

use super::query;

pub const NOW: &str = "2026-11-30 06:44:05";
/// Customers 101..=103 share this last name; Payment by name must pick the middle one (102).
pub const SHARED_LAST_NAME: u16 = 371;

/// The first generated New-Order that does (or does not) roll back.
pub fn new_order(rollback: bool) -> NewOrder {
    let terminal = Terminal {
        w_id: 1,
        d_id: 1,
        warehouses: 1,
    };
    let mut rng = Rng::for_client(11, 0, 0);
    let constants = Constants::load(&mut rng);
    loop {
        if let Inputs::NewOrder(t) = terminal.inputs(Kind::NewOrder, &constants, &mut rng)
            && t.rollback == rollback
        {
            return t;
        }
    }
}

pub async fn exec(s: &mut MssqlSession, sql: &str) {
    s.execute_text(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Warehouse 1, its ten districts, the customers and items the inputs name.
pub async fn seed(s: &mut MssqlSession, orders: &[&NewOrder]) {
    exec(s, "INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd) VALUES (1, 'W1', 's1', 's2', 'city', 'ST', '123411111', 0.1000, 300000.00)").await;
    for d in 1..=10 {
        exec(s, &format!("INSERT INTO district (d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id) VALUES ({d}, 1, 'D{d}', 's1', 's2', 'city', 'ST', '123411111', 0.0500, 30000.00, 3001)")).await;
    }
    let mut customers: Vec<(u32, String, &str, &str)> =
        [(101, "AAAA"), (102, "BBBB"), (103, "CCCC")]
            .map(|(c, first)| (c, LastName::new(SHARED_LAST_NAME).to_string(), "BC", first))
            .to_vec();
    for o in orders {
        assert!(!(101..=103).contains(&o.c_id), "pick another seed");
        customers.push((o.c_id, "OUGHTABLEABLE".into(), "GC", "DDDD"));
    }
    customers.sort();
    customers.dedup_by_key(|c| c.0);
    for (c_id, last, credit, first) in &customers {
        for d in 1..=10 {
            exec(s, &format!("INSERT INTO customer (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data) VALUES ({c_id}, {d}, 1, '{first}', 'OE', '{last}', 's1', 's2', 'city', 'ST', '123411111', '0123456789012345', '{NOW}', '{credit}', 50000.00, 0.1000, -10.00, 10.00, 1, 0, 'customer data')")).await;
        }
    }
    let mut items: Vec<u32> = orders
        .iter()
        .flat_map(|o| o.lines().iter().map(|l| l.i_id))
        .filter(|i| *i != UNUSED_ITEM_ID)
        .collect();
    items.sort();
    items.dedup();
    for i in items {
        exec(s, &format!("INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES ({i}, 1, 'item {i}', 12.50, 'item data ORIGINAL')")).await;
        exec(s, &format!("INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data) VALUES ({i}, 1, 50, 'd01', 'd02', 'd03', 'd04', 'd05', 'd06', 'd07', 'd08', 'd09', 'd10', 0, 0, 0, 'stock data')")).await;
    }
}

pub async fn customer(s: &mut MssqlSession, d: u8, c_id: u32) -> (f64, i64, i64, f64) {
    let rows = query(
        s,
        "SELECT c_balance, c_payment_cnt, c_delivery_cnt, c_ytd_payment FROM customer WHERE c_w_id = 1 AND c_d_id = @P1 AND c_id = @P2",
        &[Value::Int(d.into()), Value::Int(c_id.into())],
    )
    .await;
    let v = |c| rows.get(0, c).cloned().unwrap_or(Value::Null);
    (
        v(0).as_f64().unwrap(),
        v(1).as_i64().unwrap(),
        v(2).as_i64().unwrap(),
        v(3).as_f64().unwrap(),
    )
}
