//! The inputs of the five transactions (2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1) for one terminal:
//! a fixed home warehouse and a fixed district (used by Stock-Level only; the other kinds draw
//! their district). Pure: every draw comes from the terminal's [`Rng`] and the run's NURand
//! [`Constants`].

use super::names::LastName;
use super::rand::{Constants, random};
use super::{DISTRICTS_PER_WAREHOUSE, ITEMS, Kind};
use drivebench_core::rng::Rng;

/// Most order lines of a New-Order.
pub const MAX_ORDER_LINES: usize = 15;
/// The item id a rolled-back New-Order puts on its last line: no ITEM row has it.
pub const UNUSED_ITEM_ID: u32 = ITEMS + 1;

/// One line of a New-Order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderLine {
    pub i_id: u32,
    pub supply_w_id: u32,
    pub quantity: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOrder {
    pub w_id: u32,
    pub d_id: u8,
    pub c_id: u32,
    ol_cnt: u8,
    lines: [OrderLine; MAX_ORDER_LINES],
    /// The last line's item is [`UNUSED_ITEM_ID`]: the transaction must roll back (1 %).
    pub rollback: bool,
}

impl NewOrder {
    /// The 5..=15 order lines.
    pub fn lines(&self) -> &[OrderLine] {
        &self.lines[..usize::from(self.ol_cnt)]
    }

    /// O_ALL_LOCAL: every line is supplied by the home warehouse.
    pub fn all_local(&self) -> bool {
        self.lines().iter().all(|l| l.supply_w_id == self.w_id)
    }
}

/// How Payment and Order-Status find their customer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomerRef {
    Id(u32),
    LastName(LastName),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub w_id: u32,
    pub d_id: u8,
    /// The customer's warehouse and district: the home ones in 85 %, remote in 15 %.
    pub c_w_id: u32,
    pub c_d_id: u8,
    pub customer: CustomerRef,
    /// H_AMOUNT in cents, 1.00..=5,000.00.
    pub h_amount_cents: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderStatus {
    pub w_id: u32,
    pub d_id: u8,
    pub customer: CustomerRef,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub w_id: u32,
    pub o_carrier_id: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockLevel {
    pub w_id: u32,
    pub d_id: u8,
    pub threshold: u8,
}

/// Inputs of one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inputs {
    NewOrder(NewOrder),
    Payment(Payment),
    OrderStatus(OrderStatus),
    Delivery(Delivery),
    StockLevel(StockLevel),
}

impl Inputs {
    pub fn kind(&self) -> Kind {
        match self {
            Inputs::NewOrder(_) => Kind::NewOrder,
            Inputs::Payment(_) => Kind::Payment,
            Inputs::OrderStatus(_) => Kind::OrderStatus,
            Inputs::Delivery(_) => Kind::Delivery,
            Inputs::StockLevel(_) => Kind::StockLevel,
        }
    }
}

/// A terminal (2.4.1.1, 2.8.1.2): its home warehouse and district, fixed for the run, and the
/// number of warehouses remote choices are made among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    pub w_id: u32,
    pub d_id: u8,
    pub warehouses: u32,
}

impl Terminal {
    /// Inputs of a transaction of `kind`.
    pub fn inputs(&self, kind: Kind, c: &Constants, rng: &mut Rng) -> Inputs {
        match kind {
            Kind::NewOrder => Inputs::NewOrder(self.new_order(c, rng)),
            Kind::Payment => Inputs::Payment(self.payment(c, rng)),
            Kind::OrderStatus => Inputs::OrderStatus(OrderStatus {
                w_id: self.w_id,
                d_id: district(rng),
                customer: customer(c, rng),
            }),
            Kind::Delivery => Inputs::Delivery(Delivery {
                w_id: self.w_id,
                o_carrier_id: random(rng, 1, 10) as u8,
            }),
            Kind::StockLevel => Inputs::StockLevel(StockLevel {
                w_id: self.w_id,
                d_id: self.d_id,
                threshold: random(rng, 10, 20) as u8,
            }),
        }
    }

    fn new_order(&self, c: &Constants, rng: &mut Rng) -> NewOrder {
        let d_id = district(rng);
        let c_id = c.customer_id(rng);
        let ol_cnt = random(rng, 5, MAX_ORDER_LINES as i64) as u8;
        let rollback = random(rng, 1, 100) == 1;
        let mut lines = [OrderLine::default(); MAX_ORDER_LINES];
        for (n, line) in lines.iter_mut().take(usize::from(ol_cnt)).enumerate() {
            let last = n + 1 == usize::from(ol_cnt);
            let i_id = c.item_id(rng);
            let supply_w_id = if random(rng, 1, 100) == 1 {
                self.other_warehouse(rng)
            } else {
                self.w_id
            };
            *line = OrderLine {
                i_id: if rollback && last {
                    UNUSED_ITEM_ID
                } else {
                    i_id
                },
                supply_w_id,
                quantity: random(rng, 1, 10) as u8,
            };
        }
        NewOrder {
            w_id: self.w_id,
            d_id,
            c_id,
            ol_cnt,
            lines,
            rollback,
        }
    }

    fn payment(&self, c: &Constants, rng: &mut Rng) -> Payment {
        let d_id = district(rng);
        let (c_w_id, c_d_id) = if random(rng, 1, 100) <= 85 || self.warehouses < 2 {
            (self.w_id, d_id)
        } else {
            (self.other_warehouse(rng), district(rng))
        };
        Payment {
            w_id: self.w_id,
            d_id,
            c_w_id,
            c_d_id,
            customer: customer(c, rng),
            h_amount_cents: random(rng, 100, 500_000) as u32,
        }
    }

    /// A warehouse other than home, uniform among the others; home when it is the only one.
    fn other_warehouse(&self, rng: &mut Rng) -> u32 {
        if self.warehouses < 2 {
            return self.w_id;
        }
        let w = random(rng, 1, i64::from(self.warehouses) - 1) as u32;
        if w >= self.w_id { w + 1 } else { w }
    }
}

fn district(rng: &mut Rng) -> u8 {
    random(rng, 1, i64::from(DISTRICTS_PER_WAREHOUSE)) as u8
}

/// 60 % by last name (NURand(255, 0, 999) with the run constant), 40 % by NURand(1023, 1, 3000).
fn customer(c: &Constants, rng: &mut Rng) -> CustomerRef {
    if random(rng, 1, 100) <= 60 {
        CustomerRef::LastName(LastName::random(c, rng))
    } else {
        CustomerRef::Id(c.customer_id(rng))
    }
}

#[cfg(test)]
mod tests;
