//! The checks on one warehouse loaded into SQLite: all pass on the initial population and
//! after a correct Delivery and Payment written by hand; each corruption (inside a transaction
//! that is rolled back afterwards) fails exactly the conditions it breaks, with a detail that
//! points at the first violating row.

use super::*;
use crate::engines::Connector;
use crate::engines::Dialect;
use crate::engines::sqlite::SqliteSession;
use crate::workload::tpcc::load::{load, tests as load_tests};
use crate::workload::tpcc::schema;

/// The short name of a result: "population", or the condition number.
fn short(name: &str) -> &str {
    match name.strip_prefix("3.3.2.") {
        Some(rest) => rest.split(' ').next().unwrap_or(rest),
        None => name.split(':').next().unwrap_or(name),
    }
}

/// Run the checks after `sql` inside a transaction, then roll it back; gives the results.
async fn after(s: &mut SqliteSession, st: &Statements, sql: &str) -> Vec<CheckResult> {
    s.execute_text(&format!("BEGIN; {sql}")).await.unwrap();
    let results = run_checks(s, st, 1).await.unwrap();
    s.execute_text("ROLLBACK").await.unwrap();
    results
}

fn failed(results: &[CheckResult]) -> Vec<&str> {
    results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| short(&r.name))
        .collect()
}

fn detail<'a>(results: &'a [CheckResult], short_name: &str) -> &'a str {
    &results
        .iter()
        .find(|r| short(&r.name) == short_name)
        .unwrap_or_else(|| panic!("no check {short_name}"))
        .detail
}

/// A correct Delivery of district (1,1)'s oldest new order, and a correct Payment of 12.34
/// by customer (1,2,5) at its home district.
const DELIVERY_AND_PAYMENT: &str = "
    DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2101;
    UPDATE orders SET o_carrier_id = 3 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2101;
    UPDATE order_line SET ol_delivery_d = '2026-12-01 00:00:00'
     WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101;
    UPDATE customer SET c_delivery_cnt = c_delivery_cnt + 1,
           c_balance = c_balance + (SELECT SUM(ol_amount) FROM order_line
                                     WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101)
     WHERE c_w_id = 1 AND c_d_id = 1
       AND c_id = (SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2101);
    UPDATE warehouse SET w_ytd = w_ytd + 12.34 WHERE w_id = 1;
    UPDATE district SET d_ytd = d_ytd + 12.34 WHERE d_w_id = 1 AND d_id = 2;
    UPDATE customer SET c_balance = c_balance - 12.34, c_ytd_payment = c_ytd_payment + 12.34,
           c_payment_cnt = c_payment_cnt + 1
     WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 5;
    INSERT INTO history VALUES (5, 2, 1, 2, 1, '2026-12-01 00:00:00', 12.34, 'pay');";

/// (what, SQL, the conditions it breaks, the first of them, words its detail must contain)
const CORRUPTIONS: &[(&str, &str, &[&str], &str)] = &[
    (
        "w_ytd one cent up",
        "UPDATE warehouse SET w_ytd = w_ytd + 0.01",
        &["1", "8"],
        "1 of 1 warehouse violates it; first: warehouse (1): w_ytd = 300000.01, sum(d_ytd) = 300000.00",
    ),
    (
        "d_next_o_id bumped",
        "UPDATE district SET d_next_o_id = d_next_o_id + 2 WHERE d_w_id = 1 AND d_id = 3",
        &["2"],
        "1 of 10 districts violates it; first: district (1,3): d_next_o_id - 1 = 3002, max(o_id) = 3000, max(no_o_id) = 3000",
    ),
    (
        "a new_order row deleted",
        "DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 4 AND no_o_id = 2500",
        &["3", "5", "11"],
        "district (1,4): max(no_o_id) - min(no_o_id) + 1 = 900, count(new_order) = 899",
    ),
    (
        "an order line deleted",
        "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 5 AND ol_o_id = 10 AND ol_number = 1",
        &["4", "6"],
        "district (1,5): sum(o_ol_cnt) = ",
    ),
    (
        "a delivered order's carrier cleared",
        "UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 5",
        &["5", "7"],
        "order (1,2,5): o_carrier_id = null, new_order row = no",
    ),
    (
        "an order's line count changed",
        "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 6 AND o_id = 8",
        &["4", "6"],
        "district (1,6): sum(o_ol_cnt) = ",
    ),
    (
        "a delivered line's date cleared",
        "UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 6 AND ol_o_id = 7 AND ol_number = 2",
        &["7"],
        "1 of the lines of 30000 orders violates it; first: order line (1,6,7,2): ol_delivery_d = null, o_carrier_id = ",
    ),
    (
        "a payment of 5.00 recorded in history only",
        "UPDATE history SET h_amount = h_amount + 5 WHERE h_c_w_id = 1 AND h_c_d_id = 7 AND h_c_id = 1",
        &["8", "9", "10"],
        "warehouse (1): w_ytd = 300000.00, sum(h_amount) = 300005.00",
    ),
    (
        "d_ytd one unit up",
        "UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 8",
        &["1", "9"],
        "warehouse (1): w_ytd = 300000.00, sum(d_ytd) = 300001.00",
    ),
    (
        "a customer's balance changed",
        "UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = 1 AND c_d_id = 9 AND c_id = 1",
        &["10", "12"],
        "1 of 30000 customers violates it; first: customer (1,9,1): c_balance = -9.00, sum(delivered ol_amount) = 0.00, sum(h_amount) = 10.00",
    ),
    (
        "a customer's ytd payment changed",
        "UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 9 AND c_id = 1",
        &["12"],
        "customer (1,9,1): c_balance + c_ytd_payment = 1.00, sum(delivered ol_amount) = 0.00",
    ),
    (
        "a delivery credited to the wrong customer of the right district",
        "UPDATE customer SET c_balance = c_balance + 7 WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 11;
         UPDATE customer SET c_balance = c_balance - 7 WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 12",
        &["10", "12"],
        "2 of 30000 customers violate it; first: customer (1,3,11): c_balance = -3.00",
    ),
    (
        "a delivered order removed with its lines",
        "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 10 AND ol_o_id = 1;
         DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 10 AND o_id = 1",
        &["11"],
        "1 of 10 districts with no Delivery yet violates it; first: district (1,10): count(orders) = 2999, count(new_order) = 900",
    ),
    (
        "a district missing",
        "DELETE FROM district WHERE d_w_id = 1 AND d_id = 10",
        &["population", "1"],
        "found 1 warehouse and 9 districts, expected 1 and 10",
    ),
];

#[tokio::test(flavor = "current_thread")]
async fn a_fresh_load_passes_and_each_corruption_fails_exactly_its_conditions() {
    let dir = tempfile::tempdir().unwrap();
    let connector = load_tests::sqlite(dir.path());
    load(load_tests::job(&connector, 9)).await.unwrap();
    let st = schema::checks(Dialect::Sqlite).unwrap();
    let mut s = connector.connect().await.unwrap();

    let started = std::time::Instant::now();
    let fresh = run_checks(&mut s, &st, 1).await.unwrap();
    eprintln!("checks on 1 warehouse (SQLite): {:?}", started.elapsed());
    assert_eq!(fresh.len(), 13, "{fresh:#?}");
    assert_eq!(failed(&fresh), Vec::<&str>::new(), "{fresh:#?}");
    assert_eq!(
        detail(&fresh, "population"),
        "ok: 10 districts of 1 warehouse"
    );
    assert_eq!(detail(&fresh, "1"), "ok over 1 warehouse");
    assert_eq!(detail(&fresh, "2"), "ok over 10 districts");
    assert_eq!(detail(&fresh, "6"), "ok over 30000 orders");
    assert_eq!(
        detail(&fresh, "11"),
        "ok over 10 districts with no Delivery yet"
    );

    let ok = after(&mut s, &st, DELIVERY_AND_PAYMENT).await;
    assert_eq!(failed(&ok), Vec::<&str>::new(), "{ok:#?}");
    assert_eq!(
        detail(&ok, "11"),
        "ok over 9 districts with no Delivery yet (1 other had one)"
    );

    // Within half a cent is equal (SQLite keeps money as REAL).
    let near = after(&mut s, &st, "UPDATE warehouse SET w_ytd = w_ytd + 0.004").await;
    assert_eq!(failed(&near), Vec::<&str>::new(), "{near:#?}");

    for (what, sql, breaks, first_detail) in CORRUPTIONS {
        let results = after(&mut s, &st, sql).await;
        assert_eq!(failed(&results), *breaks, "{what}: {results:#?}");
        let d = detail(&results, breaks[0]);
        assert!(d.contains(first_detail), "{what}: {d}");
    }
    // Rolled back: all pass again.
    assert_eq!(run_checks(&mut s, &st, 1).await.unwrap(), fresh);
}

#[test]
fn conditions_10_and_12_are_per_customer_up_to_100_warehouses_and_say_so_above() {
    let names = |w: u32| -> Vec<&str> {
        CHECKS
            .iter()
            .map(|c| at_scale(c, w).name)
            .filter(|n| n.starts_with("3.3.2.10") || n.starts_with("3.3.2.12"))
            .collect()
    };
    assert!(names(100).iter().all(|n| n.ends_with("(per customer)")));
    assert!(names(101).iter().all(|n| n.contains("summed per district")));
    assert_eq!(at_scale(&CHECKS[9], 1).unit, Unit::Customer);
    assert_eq!(at_scale(&CHECKS[9], 1500).unit, Unit::District);
}

#[tokio::test(flavor = "current_thread")]
async fn after_a_delivery_in_every_district_condition_11_does_not_apply() {
    let dir = tempfile::tempdir().unwrap();
    let connector = load_tests::sqlite(dir.path());
    load(load_tests::job(&connector, 10)).await.unwrap();
    let st = schema::checks(Dialect::Sqlite).unwrap();
    let mut s = connector.connect().await.unwrap();
    // Deliver order 2101 of every district the way Delivery does.
    s.execute_text(
        "BEGIN;
         UPDATE customer SET c_delivery_cnt = c_delivery_cnt + 1,
                c_balance = c_balance + (SELECT SUM(ol_amount) FROM order_line
                  WHERE ol_w_id = c_w_id AND ol_d_id = c_d_id AND ol_o_id = 2101)
          WHERE (c_w_id, c_d_id, c_id) IN (SELECT o_w_id, o_d_id, o_c_id FROM orders WHERE o_id = 2101);
         UPDATE order_line SET ol_delivery_d = '2026-12-01 00:00:00' WHERE ol_o_id = 2101;
         UPDATE orders SET o_carrier_id = 1 WHERE o_id = 2101;
         DELETE FROM new_order WHERE no_o_id = 2101;
         COMMIT;",
    )
    .await
    .unwrap();
    let results = run_checks(&mut s, &st, 1).await.unwrap();
    assert_eq!(failed(&results), Vec::<&str>::new(), "{results:#?}");
    assert_eq!(
        detail(&results, "11"),
        "not applicable: Delivery has run in every district"
    );
    // The check for 1 warehouse finds the population short when told 2 were loaded.
    let two = run_checks(&mut s, &st, 2).await.unwrap();
    assert_eq!(failed(&two), vec!["population"]);
}
