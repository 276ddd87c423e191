//! A one-warehouse population checked against 4.3.3.1: cardinalities, string lengths, the
//! 10 % rules, O_C_ID permutations and the delivered / undelivered split.

use std::collections::HashMap;

use super::*;

fn params() -> LoadParams {
    let mut rng = Rng::for_client(11, 0, 0);
    LoadParams {
        seed: 42,
        constants: Constants::load(&mut rng),
        load_time: "2025-01-01 00:00:00".into(),
    }
}

/// Calls `f` with every row of `table` for warehouse 1; gives the row count.
fn for_each_row(table: Table, p: &LoadParams, mut f: impl FnMut(&[Value])) -> usize {
    let width = table.columns().len();
    let mut rows = TableRows::new(table, 1, p);
    let mut n = 0;
    while let Some(chunk) = rows.next_chunk(1_000) {
        assert_eq!(chunk.len() % width, 0, "{}: ragged chunk", table.name());
        for row in chunk.chunks(width) {
            f(row);
            n += 1;
        }
    }
    n
}

fn col(table: Table, name: &str) -> usize {
    table
        .columns()
        .iter()
        .position(|c| *c == name)
        .unwrap_or_else(|| panic!("{} has no {name}", table.name()))
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        other => panic!("not an int: {other:?}"),
    }
}

fn text(v: &Value) -> &str {
    match v {
        Value::Text(t) => t,
        other => panic!("not text: {other:?}"),
    }
}

/// Text columns and their lengths (4.3.3.1).
const LENGTHS: &[(Table, &str, usize, usize)] = &[
    (Table::Item, "i_name", 14, 24),
    (Table::Item, "i_data", 26, 50),
    (Table::Warehouse, "w_name", 6, 10),
    (Table::Warehouse, "w_street_1", 10, 20),
    (Table::Warehouse, "w_city", 10, 20),
    (Table::Warehouse, "w_state", 2, 2),
    (Table::Warehouse, "w_zip", 9, 9),
    (Table::Stock, "s_dist_01", 24, 24),
    (Table::Stock, "s_dist_10", 24, 24),
    (Table::Stock, "s_data", 26, 50),
    (Table::District, "d_name", 6, 10),
    (Table::District, "d_street_2", 10, 20),
    (Table::District, "d_zip", 9, 9),
    (Table::Customer, "c_first", 8, 16),
    (Table::Customer, "c_middle", 2, 2),
    (Table::Customer, "c_last", 9, 16),
    (Table::Customer, "c_street_1", 10, 20),
    (Table::Customer, "c_state", 2, 2),
    (Table::Customer, "c_phone", 16, 16),
    (Table::Customer, "c_credit", 2, 2),
    (Table::Customer, "c_data", 300, 500),
    (Table::History, "h_data", 12, 24),
    (Table::OrderLine, "ol_dist_info", 24, 24),
];

#[test]
fn one_warehouse_has_the_spec_cardinalities_and_string_lengths() {
    let p = params();
    let expected = [
        (Table::Item, 100_000),
        (Table::Warehouse, 1),
        (Table::Stock, 100_000),
        (Table::District, 10),
        (Table::Customer, 30_000),
        (Table::History, 30_000),
        (Table::Orders, 30_000),
        (Table::NewOrder, 9_000),
    ];
    for (table, rows) in expected {
        let checks: Vec<_> = LENGTHS.iter().filter(|l| l.0 == table).collect();
        let n = for_each_row(table, &p, |row| {
            for (_, name, min, max) in &checks {
                let len = text(&row[col(table, name)]).len();
                assert!((*min..=*max).contains(&len), "{name}: length {len}");
            }
        });
        assert_eq!(n, rows, "{}", table.name());
    }
}

#[test]
fn original_is_in_ten_percent_of_item_and_stock_data() {
    let p = params();
    for (table, data) in [(Table::Item, "i_data"), (Table::Stock, "s_data")] {
        let mut original = 0;
        let n = for_each_row(table, &p, |row| {
            original += usize::from(text(&row[col(table, data)]).contains("ORIGINAL"));
        });
        let pct = original as f64 * 100.0 / n as f64;
        assert!((pct - 10.0).abs() < 1.0, "{}: {pct}%", table.name());
    }
}

#[test]
fn customers_have_bc_credit_in_ten_percent_and_spec_last_names() {
    let p = params();
    let t = Table::Customer;
    let mut bc = 0;
    let mut first_thousand_ok = true;
    for_each_row(t, &p, |row| {
        bc += usize::from(text(&row[col(t, "c_credit")]) == "BC");
        let c_id = int(&row[col(t, "c_id")]);
        if c_id <= 1000 {
            let name = super::super::names::LastName::new((c_id - 1) as u16).to_string();
            first_thousand_ok &= text(&row[col(t, "c_last")]) == name;
        }
        assert_eq!(row[col(t, "c_credit_lim")], Value::Float(50_000.0));
        assert_eq!(row[col(t, "c_balance")], Value::Float(-10.0));
        match row[col(t, "c_discount")] {
            Value::Float(d) => assert!((0.0..=0.5).contains(&d)),
            ref other => panic!("discount {other:?}"),
        }
    });
    assert!(
        (bc as f64 / 300.0 - 10.0).abs() < 1.0,
        "BC share {}%",
        bc as f64 / 300.0
    );
    assert!(
        first_thousand_ok,
        "customers 1..=1000 take names 0..=999 in order"
    );
}

#[test]
fn orders_are_a_customer_permutation_and_lines_match_their_counts() {
    let p = params();
    let t = Table::Orders;
    let mut customers: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut ol_cnt: HashMap<(i64, i64), i64> = HashMap::new();
    for_each_row(t, &p, |row| {
        let (o_id, d_id) = (int(&row[col(t, "o_id")]), int(&row[col(t, "o_d_id")]));
        customers
            .entry(d_id)
            .or_default()
            .push(int(&row[col(t, "o_c_id")]));
        ol_cnt.insert((d_id, o_id), int(&row[col(t, "o_ol_cnt")]));
        let carrier = &row[col(t, "o_carrier_id")];
        if o_id < 2101 {
            assert!((1..=10).contains(&int(carrier)));
        } else {
            assert_eq!(*carrier, Value::Null);
        }
    });
    assert_eq!(customers.len(), 10);
    for ids in customers.values_mut() {
        assert_ne!(ids[..10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "shuffled");
        ids.sort_unstable();
        assert_eq!(*ids, (1..=3000).collect::<Vec<i64>>());
    }
    let l = Table::OrderLine;
    let mut lines: HashMap<(i64, i64), i64> = HashMap::new();
    let n = for_each_row(l, &p, |row| {
        let key = (int(&row[col(l, "ol_d_id")]), int(&row[col(l, "ol_o_id")]));
        let number = lines.entry(key).or_default();
        *number += 1;
        assert_eq!(int(&row[col(l, "ol_number")]), *number);
        let (delivery, amount) = (&row[col(l, "ol_delivery_d")], &row[col(l, "ol_amount")]);
        if key.1 < 2101 {
            assert_eq!(*amount, Value::Float(0.0));
            assert_eq!(text(delivery), p.load_time);
        } else {
            assert_eq!(*delivery, Value::Null);
            assert!(matches!(amount, Value::Float(a) if (0.01..=9_999.99).contains(a)));
        }
    });
    assert_eq!(lines, ol_cnt, "every order has O_OL_CNT lines");
    assert!((5 * 30_000..=15 * 30_000).contains(&n));
    let mean = n as f64 / 30_000.0;
    assert!((mean - 10.0).abs() < 0.1, "mean lines per order {mean}");
}

#[test]
fn new_orders_are_the_last_900_of_each_district() {
    let p = params();
    let mut per_district: HashMap<i64, Vec<i64>> = HashMap::new();
    for_each_row(Table::NewOrder, &p, |row| {
        per_district
            .entry(int(&row[1]))
            .or_default()
            .push(int(&row[0]));
    });
    assert_eq!(per_district.len(), 10);
    for ids in per_district.values() {
        assert_eq!(*ids, (2101..=3000).collect::<Vec<i64>>());
    }
}

#[test]
fn data_does_not_depend_on_the_chunk_size() {
    let p = params();
    let mut a = TableRows::new(Table::OrderLine, 2, &p);
    let mut b = TableRows::new(Table::OrderLine, 2, &p);
    let big = a.next_chunk(5_000).unwrap_or_default();
    let mut small = Vec::new();
    while small.len() < big.len() {
        small.extend(b.next_chunk(7).unwrap_or_default());
    }
    assert_eq!(big, small[..big.len()]);
    let other = TableRows::new(Table::OrderLine, 3, &p).next_chunk(10);
    assert_ne!(other.as_deref(), Some(&big[..100]), "warehouses differ");
}

fn float(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        other => panic!("not a float: {other:?}"),
    }
}

#[test]
fn fixed_values_and_numeric_ranges_follow_the_spec() {
    let p = params();
    let w = Table::Warehouse;
    for_each_row(w, &p, |row| {
        assert_eq!(float(&row[col(w, "w_ytd")]), 300_000.0);
        assert!((0.0..=0.2).contains(&float(&row[col(w, "w_tax")])));
    });
    let d = Table::District;
    for_each_row(d, &p, |row| {
        assert_eq!(float(&row[col(d, "d_ytd")]), 30_000.0);
        assert_eq!(int(&row[col(d, "d_next_o_id")]), 3_001);
        assert!((0.0..=0.2).contains(&float(&row[col(d, "d_tax")])));
    });
    let h = Table::History;
    for_each_row(h, &p, |row| {
        assert_eq!(float(&row[col(h, "h_amount")]), 10.0)
    });
    let i = Table::Item;
    let mut prices = (f64::MAX, 0.0f64);
    for_each_row(i, &p, |row| {
        let price = float(&row[col(i, "i_price")]);
        prices = (prices.0.min(price), prices.1.max(price));
        assert!((1..=10_000).contains(&int(&row[col(i, "i_im_id")])));
    });
    assert!(prices.0 >= 1.0 && prices.1 <= 100.0 && prices.0 < 1.1 && prices.1 > 99.9);
    let s = Table::Stock;
    for_each_row(s, &p, |row| {
        assert!((10..=100).contains(&int(&row[col(s, "s_quantity")])));
        for zero in ["s_ytd", "s_order_cnt", "s_remote_cnt"] {
            assert_eq!(int(&row[col(s, zero)]), 0);
        }
    });
    let c = Table::Customer;
    for_each_row(c, &p, |row| {
        assert_eq!(float(&row[col(c, "c_ytd_payment")]), 10.0);
        assert_eq!(int(&row[col(c, "c_payment_cnt")]), 1);
        assert_eq!(int(&row[col(c, "c_delivery_cnt")]), 0);
    });
}
