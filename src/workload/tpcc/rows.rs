//! One row of each table of the initial population, value for value as 4.3.3.1 gives it,
//! appended to a row-major buffer in the column order of [`super::table::Table::columns`].
//! Money is a `Float` of whole cents / 100, rates (tax, discount) of ten-thousandths / 10,000.

use super::names::LastName;
use super::rand::{Constants, a_string, data_string, n_string, push_a_string, random, zip};
use crate::engines::Value;
use drivebench_core::rng::Rng;

/// O_IDs below this are delivered at load (carrier, delivery date, zero amounts); the rest
/// (2101..=3000) are the NEW-ORDER rows.
pub const FIRST_UNDELIVERED_O_ID: u32 = 2101;

fn int(n: impl Into<i64>) -> Value {
    Value::Int(n.into())
}

fn money_cents(cents: i64) -> Value {
    Value::Float(cents as f64 / 100.0)
}

/// A rate in [0, max_ten_thousandths / 10,000], four decimals.
fn rate(rng: &mut Rng, max_ten_thousandths: i64) -> Value {
    Value::Float(random(rng, 0, max_ten_thousandths) as f64 / 10_000.0)
}

fn text(rng: &mut Rng, x: usize, y: usize) -> Value {
    Value::Text(a_string(rng, x, y))
}

/// NAME [6..10], STREET_1, STREET_2, CITY [10..20], STATE (2), ZIP, TAX [0..0.2].
fn name_address_tax(rng: &mut Rng, out: &mut Vec<Value>) {
    out.push(text(rng, 6, 10));
    address(rng, out);
    out.push(rate(rng, 2_000));
}

/// STREET_1, STREET_2, CITY [10..20], STATE (2), ZIP.
fn address(rng: &mut Rng, out: &mut Vec<Value>) {
    for _ in 0..3 {
        out.push(text(rng, 10, 20));
    }
    out.push(text(rng, 2, 2));
    out.push(Value::Text(zip(rng)));
}

pub fn item(rng: &mut Rng, i_id: u32, original: bool, out: &mut Vec<Value>) {
    out.push(int(i_id));
    out.push(int(random(rng, 1, 10_000)));
    out.push(text(rng, 14, 24));
    out.push(money_cents(random(rng, 100, 10_000)));
    out.push(Value::Text(data_string(rng, original)));
}

pub fn warehouse(rng: &mut Rng, w_id: u32, out: &mut Vec<Value>) {
    out.push(int(w_id));
    name_address_tax(rng, out);
    out.push(money_cents(30_000_000));
}

pub fn stock(rng: &mut Rng, i_id: u32, w_id: u32, original: bool, out: &mut Vec<Value>) {
    out.push(int(i_id));
    out.push(int(w_id));
    out.push(int(random(rng, 10, 100)));
    for _ in 0..10 {
        out.push(text(rng, 24, 24));
    }
    out.extend([int(0), int(0), int(0)]);
    out.push(Value::Text(data_string(rng, original)));
}

pub fn district(rng: &mut Rng, d_id: u32, w_id: u32, out: &mut Vec<Value>) {
    out.push(int(d_id));
    out.push(int(w_id));
    name_address_tax(rng, out);
    out.push(money_cents(3_000_000));
    out.push(int(3_001));
}

/// A customer; `bad_credit` gives C_CREDIT "BC" (10 % of them), else "GC".
pub struct CustomerKey<'a> {
    pub c_id: u32,
    pub d_id: u32,
    pub w_id: u32,
    pub bad_credit: bool,
    pub load: &'a Constants,
    pub since: &'a str,
}

pub fn customer(rng: &mut Rng, k: &CustomerKey<'_>, out: &mut Vec<Value>) {
    out.extend([int(k.c_id), int(k.d_id), int(k.w_id)]);
    out.push(text(rng, 8, 16));
    out.push(Value::Text("OE".into()));
    out.push(Value::Text(
        LastName::for_load(k.c_id, k.load, rng).to_string(),
    ));
    address(rng, out);
    out.push(Value::Text(n_string(rng, 16, 16)));
    out.push(Value::Text(k.since.into()));
    out.push(Value::Text(if k.bad_credit { "BC" } else { "GC" }.into()));
    out.push(money_cents(5_000_000));
    out.push(rate(rng, 5_000));
    out.push(money_cents(-1_000));
    out.push(money_cents(1_000));
    out.extend([int(1), int(0)]);
    let mut data = String::with_capacity(500);
    push_a_string(rng, 300, 500, &mut data);
    out.push(Value::Text(data));
}

pub fn history(rng: &mut Rng, c_id: u32, d_id: u32, w_id: u32, date: &str, out: &mut Vec<Value>) {
    out.extend([int(c_id), int(d_id), int(w_id), int(d_id), int(w_id)]);
    out.push(Value::Text(date.into()));
    out.push(money_cents(1_000));
    out.push(text(rng, 12, 24));
}

/// An order of the initial population: its ids and entry date.
pub struct OrderKey<'a> {
    pub o_id: u32,
    pub d_id: u32,
    pub w_id: u32,
    pub entry_d: &'a str,
}

impl OrderKey<'_> {
    fn delivered(&self) -> bool {
        self.o_id < FIRST_UNDELIVERED_O_ID
    }
}

pub fn order(rng: &mut Rng, k: &OrderKey<'_>, c_id: u32, ol_cnt: u32, out: &mut Vec<Value>) {
    out.extend([int(k.o_id), int(k.d_id), int(k.w_id), int(c_id)]);
    out.push(Value::Text(k.entry_d.into()));
    out.push(if k.delivered() {
        int(random(rng, 1, 10))
    } else {
        Value::Null
    });
    out.extend([int(ol_cnt), int(1)]);
}

pub fn order_line(rng: &mut Rng, k: &OrderKey<'_>, ol_number: u32, out: &mut Vec<Value>) {
    out.extend([int(k.o_id), int(k.d_id), int(k.w_id), int(ol_number)]);
    out.push(int(random(rng, 1, 100_000)));
    out.push(int(k.w_id));
    if k.delivered() {
        out.extend([Value::Text(k.entry_d.into()), int(5), money_cents(0)]);
    } else {
        out.extend([Value::Null, int(5), money_cents(random(rng, 1, 999_999))]);
    }
    out.push(text(rng, 24, 24));
}

pub fn new_order(o_id: u32, d_id: u32, w_id: u32, out: &mut Vec<Value>) {
    out.extend([int(o_id), int(d_id), int(w_id)]);
}
