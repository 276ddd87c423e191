//! The initial population (4.3.3.1) as streams of rows: [`TableRows`] yields one table's rows
//! for one warehouse (ITEM: the one shared table) in row-major chunks a loader can hand to an
//! engine while the next chunk is generated. Each (table, warehouse) has its own random
//! stream, so tables can be loaded in any order or in parallel and the data stays the same;
//! ORDER and ORDER-LINE share one stream of line counts so O_OL_CNT matches the lines.

use super::rand::{Constants, Selection};
use super::rows::{self, CustomerKey, FIRST_UNDELIVERED_O_ID, OrderKey};
use super::table::Table;
use super::{CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE, ITEMS};
use crate::engines::Value;
use drivebench_core::rng::Rng;

/// Orders per district at load.
pub const ORDERS_PER_DISTRICT: u32 = 3_000;

/// What the whole population depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadParams {
    pub seed: u64,
    /// The load's NURand constants (C_LAST for customers 1001..=3000).
    pub constants: Constants,
    /// C_SINCE, H_DATE, O_ENTRY_D and delivered OL_DELIVERY_D, as the engine's timestamp text.
    pub load_time: String,
}

/// Stream ids: one per table, plus the line counts ORDER and ORDER-LINE share.
fn table_stream(table: Table) -> u64 {
    1 + Table::ALL.iter().position(|t| *t == table).unwrap_or(0) as u64
}
const OL_CNT_STREAM: u64 = 100;

/// One table's rows for one warehouse, generated a chunk at a time.
#[derive(Debug)]
pub struct TableRows {
    table: Table,
    w_id: u32,
    p: LoadParams,
    rng: Rng,
    /// Current district (district-scoped tables), id within it, and order-line position.
    d_id: u32,
    id: u32,
    line: u32,
    ol_cnt: u32,
    /// ORIGINAL rows (ITEM, STOCK) or BC customers (per district): exactly 10 %.
    picks: Selection,
    /// Line counts of this district's orders, in O_ID order.
    ol_cnt_rng: Rng,
    /// O_C_ID of this district's orders: a permutation of 1..=3000.
    customers: Vec<u32>,
}

impl TableRows {
    /// The rows of `table` for warehouse `w_id` (ignored for ITEM).
    pub fn new(table: Table, w_id: u32, params: &LoadParams) -> Self {
        let w = if table.per_warehouse() { w_id } else { 0 };
        let mut rows = TableRows {
            table,
            w_id: w,
            p: params.clone(),
            rng: Rng::for_client(params.seed, table_stream(table), u64::from(w)),
            d_id: 0,
            id: 0,
            line: 0,
            ol_cnt: 0,
            picks: Selection::new(u64::from(ITEMS / 10), u64::from(ITEMS)),
            ol_cnt_rng: Rng::for_client(params.seed, OL_CNT_STREAM, 0),
            customers: Vec::new(),
        };
        rows.start();
        rows
    }

    /// The first id of the table (or of each district).
    fn first_id(&self) -> u32 {
        if self.table == Table::NewOrder {
            FIRST_UNDELIVERED_O_ID
        } else {
            1
        }
    }

    fn start(&mut self) {
        self.id = self.first_id();
        self.d_id = match self.table {
            Table::Item | Table::Warehouse | Table::Stock | Table::District => 0,
            _ => 1,
        };
        if self.d_id == 1 {
            self.enter_district();
        }
    }

    /// Per-district streams and selections for the district `d_id`.
    fn enter_district(&mut self) {
        let key = u64::from(self.w_id) * 16 + u64::from(self.d_id);
        self.ol_cnt_rng = Rng::for_client(self.p.seed, OL_CNT_STREAM, key);
        let n = u64::from(CUSTOMERS_PER_DISTRICT);
        self.picks = Selection::new(n / 10, n);
        self.line = 1;
        if self.table == Table::Orders {
            self.customers = (1..=CUSTOMERS_PER_DISTRICT).collect();
            for i in (1..self.customers.len()).rev() {
                let j = self.rng.uniform(0, i as i64) as usize;
                self.customers.swap(i, j);
            }
        }
    }

    /// The last id of the table (or of each district).
    fn last_id(&self) -> u32 {
        match self.table {
            Table::Item | Table::Stock => ITEMS,
            Table::Warehouse => 1,
            Table::District => DISTRICTS_PER_WAREHOUSE,
            Table::Customer | Table::History => CUSTOMERS_PER_DISTRICT,
            Table::Orders | Table::OrderLine | Table::NewOrder => ORDERS_PER_DISTRICT,
        }
    }

    /// Moves past the current id, into the next district when this one is complete.
    fn advance(&mut self) {
        self.id += 1;
        if self.id > self.last_id() && (1..DISTRICTS_PER_WAREHOUSE).contains(&self.d_id) {
            self.d_id += 1;
            self.id = self.first_id();
            self.enter_district();
        }
    }

    /// Appends the current row; false when the table is complete.
    fn push_row(&mut self, out: &mut Vec<Value>) -> bool {
        if self.id > self.last_id() {
            return false;
        }
        let (rng, w, d, id) = (&mut self.rng, self.w_id, self.d_id, self.id);
        let order = OrderKey {
            o_id: id,
            d_id: d,
            w_id: w,
            entry_d: &self.p.load_time,
        };
        match self.table {
            Table::Item => {
                let original = self.picks.pick(rng);
                rows::item(rng, id, original, out);
            }
            Table::Warehouse => rows::warehouse(rng, w, out),
            Table::Stock => {
                let original = self.picks.pick(rng);
                rows::stock(rng, id, w, original, out);
            }
            Table::District => rows::district(rng, id, w, out),
            Table::Customer => {
                let key = CustomerKey {
                    c_id: id,
                    d_id: d,
                    w_id: w,
                    bad_credit: self.picks.pick(rng),
                    load: &self.p.constants,
                    since: &self.p.load_time,
                };
                rows::customer(rng, &key, out);
            }
            Table::History => rows::history(rng, id, d, w, &self.p.load_time, out),
            Table::Orders => {
                let c_id = self.customers.get(id as usize - 1).copied().unwrap_or(id);
                let ol_cnt = self.ol_cnt_rng.uniform(5, 15) as u32;
                rows::order(rng, &order, c_id, ol_cnt, out);
            }
            Table::OrderLine => {
                if self.line == 1 {
                    self.ol_cnt = self.ol_cnt_rng.uniform(5, 15) as u32;
                }
                rows::order_line(rng, &order, self.line, out);
                if self.line < self.ol_cnt {
                    self.line += 1;
                    return true;
                }
                self.line = 1;
            }
            Table::NewOrder => rows::new_order(id, d, w, out),
        }
        self.advance();
        true
    }

    /// Up to `max_rows` next rows, row-major in `Table::columns` order; None when done.
    pub fn next_chunk(&mut self, max_rows: usize) -> Option<Vec<Value>> {
        let width = self.table.columns().len();
        let mut out = Vec::with_capacity(max_rows.max(1) * width);
        for _ in 0..max_rows.max(1) {
            if !self.push_row(&mut out) {
                break;
            }
        }
        (!out.is_empty()).then_some(out)
    }

    pub fn table(&self) -> Table {
        self.table
    }
}

#[cfg(test)]
mod tests;
