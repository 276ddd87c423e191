//! TPC-C (spec rev 5.11). Pure parts: random functions and NURand constants (`rand`),
//! customer last names (`names`), the transaction mix by the deck method (`deck`), the inputs
//! of the five transactions for a terminal (`input`), keying and think times (`pacing`), the
//! tables (`table`) and the initial population's rows (`data`, `rows`). Against a `Session`:
//! the DDL and statements (`schema`), the loader (`load`, with its record of what was loaded),
//! the five transactions (`txn`), the [`Workload`](crate::workload::Workload) that runs them
//! (`workload`) and the consistency checks of clause 3.3.2 (`check`). What a run adds beside
//! the transactions: the probe of NOPM, isolation and the checks on the instances (`probe`),
//! the phase hooks built on it (`hooks`) and each recorded phase's figures (`figures`).

pub mod check;
pub mod data;
pub mod deck;
pub mod figures;
pub mod hooks;
pub mod input;
pub mod load;
pub mod names;
pub mod options;
pub mod pacing;
pub mod probe;
pub mod procs;
pub mod rand;
pub mod report;
pub mod rows;
pub mod schema;
pub mod table;
pub mod txn;
pub mod workload;

/// The five transaction kinds; `index()` is their position in [`KIND_NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

/// Names of the kinds as reported, in `Kind::index` order.
pub const KIND_NAMES: [&str; 5] = [
    "new_order",
    "payment",
    "order_status",
    "delivery",
    "stock_level",
];

impl Kind {
    /// Every kind, in index order.
    pub const ALL: [Kind; 5] = [
        Kind::NewOrder,
        Kind::Payment,
        Kind::OrderStatus,
        Kind::Delivery,
        Kind::StockLevel,
    ];

    pub fn index(self) -> usize {
        match self {
            Kind::NewOrder => 0,
            Kind::Payment => 1,
            Kind::OrderStatus => 2,
            Kind::Delivery => 3,
            Kind::StockLevel => 4,
        }
    }

    pub fn name(self) -> &'static str {
        KIND_NAMES[self.index()]
    }
}

/// Districts per warehouse.
pub const DISTRICTS_PER_WAREHOUSE: u32 = 10;
/// Customers per district.
pub const CUSTOMERS_PER_DISTRICT: u32 = 3_000;
/// Items (the ITEM table is not scaled by warehouses), and stock rows per warehouse.
pub const ITEMS: u32 = 100_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_index_their_names() {
        for (i, k) in Kind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i);
        }
        assert_eq!(Kind::StockLevel.name(), "stock_level");
    }
}
