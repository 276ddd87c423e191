//! The TPC-C consistency conditions of clause 3.3.2, run after the recorded phase (or against a
//! fresh load), each as one query from `schemas/tpcc/<engine>/checks.sql` that gives the
//! number of violating units and the first one, so a [`CheckResult`]'s detail can say
//! "ok over 20 districts" or "1 of 10 districts violates it; first: district (1,3):
//! d_next_o_id - 1 = 3005, max(o_id) = 3004, max(no_o_id) = 3000". Money is compared within
//! half a cent (SQLite keeps DECIMAL as REAL; MySQL/MariaDB and PostgreSQL compare exactly).
//!
//! What is checked (every one holds on the initial population of 4.3.3.1 and after any mix of
//! correct transactions, except 11, which only holds before the first Delivery):
//!
//! - **population**: `warehouses` WAREHOUSE rows and 10 DISTRICT rows per warehouse (the
//!   per-district conditions below would pass vacuously on missing districts).
//! - **1** W_YTD = Σ D_YTD per warehouse (300,000.00 = 10 × 30,000.00 at load).
//! - **2** D_NEXT_O_ID − 1 = max(O_ID) = max(NO_O_ID) per district; the NEW-ORDER part does not
//!   apply to a district with no outstanding new orders (as the clause says).
//! - **3** max(NO_O_ID) − min(NO_O_ID) + 1 = count(NEW-ORDER) per district.
//! - **4** Σ O_OL_CNT = count(ORDER-LINE) per district.
//! - **5** O_CARRIER_ID is null ⇔ a NEW-ORDER row exists, per order.
//! - **6** O_OL_CNT = its ORDER-LINE rows, per order.
//! - **7** OL_DELIVERY_D is null ⇔ O_CARRIER_ID is null, per order line.
//! - **8** W_YTD = Σ H_AMOUNT per warehouse (300,000.00 = 30,000 × 10.00 at load).
//! - **9** D_YTD = Σ H_AMOUNT per district (30,000.00 = 3,000 × 10.00 at load).
//! - **10** C_BALANCE = Σ delivered OL_AMOUNT − Σ H_AMOUNT per customer (its orders' delivered
//!   lines, its payments), up to [`PER_CUSTOMER_MAX_WAREHOUSES`] warehouses; above that summed
//!   per district (Σ C_BALANCE of the district's customers against its delivered lines and the
//!   payments made by its customers), and the result's name says so.
//! - **11** count(ORDER) − count(NEW-ORDER) = 2100, for districts with no Delivery yet (their
//!   oldest NEW-ORDER is still 2101); every Delivery moves an order out of NEW-ORDER, so it
//!   cannot hold after one. After a run the check usually reports "not applicable".
//! - **12** C_BALANCE + C_YTD_PAYMENT = Σ delivered OL_AMOUNT per customer, up to the same
//!   scale; summed per district above it.
//!
//! Cost: 4, 6, 7, 10 and 12 read all of ORDER-LINE once each (6 as one primary-key probe per
//! order), 5 and 6 all of ORDER, 8–10 all of HISTORY (grouped once; it has no index), 10 and 12
//! all of CUSTOMER; the rest walk primary-key prefixes per district. The per-customer forms of
//! 10 and 12 join ORDER-LINE to ORDER on the primary key and group the delivered lines by
//! customer (and HISTORY by customer): at 100 warehouses about 30 M lines into 3 M groups,
//! seconds to a minute on a server engine. At 1,500 warehouses that is 450 M lines into 45 M
//! groups, so above [`PER_CUSTOMER_MAX_WAREHOUSES`] the per-district sums run instead: they
//! catch the same kinds of fault (a Delivery that credits no customer, a Payment that debits
//! none) but not a credit to the wrong customer of the right district.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DISTRICTS_PER_WAREHOUSE;
use crate::engines::{EngineError, Rows, Session, Statements, Value};

/// One consistency check's outcome, as result.json's top-level `checks` list holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckResult {
    pub name: String,
    pub passed: bool,
    /// "ok over 10 districts", or how many units violate it and the first one's values.
    pub detail: String,
}

/// Most warehouses at which conditions 10 and 12 are checked per customer (3 M customers).
pub const PER_CUSTOMER_MAX_WAREHOUSES: u32 = 100;

/// What a check counts violations of; its key is that many leading columns.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    Warehouse,
    District,
    Customer,
    Order,
    OrderLine,
}

impl Unit {
    fn keys(self) -> usize {
        match self {
            Unit::Warehouse => 1,
            Unit::District => 2,
            Unit::Customer | Unit::Order => 3,
            Unit::OrderLine => 4,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Unit::Warehouse => "warehouse",
            Unit::District => "district",
            Unit::Customer => "customer",
            Unit::Order => "order",
            Unit::OrderLine => "order line",
        }
    }

    /// "20 districts", "1 warehouse"; order lines are not counted (that would be a scan).
    fn over(self, population: &Population) -> String {
        let n = match self {
            Unit::Warehouse => population.warehouses,
            Unit::District => population.districts,
            Unit::Customer => population.customers,
            Unit::Order => population.orders,
            Unit::OrderLine => {
                return format!("the lines of {}", plural(population.orders, "order"));
            }
        };
        plural(n, self.name())
    }
}

fn plural(n: i64, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// One condition: its result name, query (a `checks.sql` block) and the labels of the values
/// its query returns after the key.
struct Check {
    name: &'static str,
    query: &'static str,
    unit: Unit,
    labels: &'static [&'static str],
}

const CHECKS: [Check; 12] = [
    Check {
        name: "3.3.2.1 W_YTD = sum(D_YTD)",
        query: "check_1",
        unit: Unit::Warehouse,
        labels: &["w_ytd", "sum(d_ytd)"],
    },
    Check {
        name: "3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        query: "check_2",
        unit: Unit::District,
        labels: &["d_next_o_id - 1", "max(o_id)", "max(no_o_id)"],
    },
    Check {
        name: "3.3.2.3 max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)",
        query: "check_3",
        unit: Unit::District,
        labels: &["max(no_o_id) - min(no_o_id) + 1", "count(new_order)"],
    },
    Check {
        name: "3.3.2.4 sum(O_OL_CNT) = count(ORDER-LINE)",
        query: "check_4",
        unit: Unit::District,
        labels: &["sum(o_ol_cnt)", "count(order_line)"],
    },
    Check {
        name: "3.3.2.5 O_CARRIER_ID null <=> NEW-ORDER row",
        query: "check_5",
        unit: Unit::Order,
        labels: &["o_carrier_id", "new_order row"],
    },
    Check {
        name: "3.3.2.6 O_OL_CNT = count(ORDER-LINE) per order",
        query: "check_6",
        unit: Unit::Order,
        labels: &["o_ol_cnt", "order lines"],
    },
    Check {
        name: "3.3.2.7 OL_DELIVERY_D null <=> O_CARRIER_ID null",
        query: "check_7",
        unit: Unit::OrderLine,
        labels: &["ol_delivery_d", "o_carrier_id"],
    },
    Check {
        name: "3.3.2.8 W_YTD = sum(H_AMOUNT)",
        query: "check_8",
        unit: Unit::Warehouse,
        labels: &["w_ytd", "sum(h_amount)"],
    },
    Check {
        name: "3.3.2.9 D_YTD = sum(H_AMOUNT)",
        query: "check_9",
        unit: Unit::District,
        labels: &["d_ytd", "sum(h_amount)"],
    },
    Check {
        name: "3.3.2.10 (summed per district, above 100 warehouses) C_BALANCE = delivered OL_AMOUNT - H_AMOUNT",
        query: "check_10",
        unit: Unit::District,
        labels: &[
            "sum(c_balance)",
            "sum(delivered ol_amount)",
            "sum(h_amount)",
        ],
    },
    Check {
        name: "3.3.2.11 count(ORDER) - count(NEW-ORDER) = 2100 (before any Delivery)",
        query: "check_11",
        unit: Unit::District,
        labels: &["count(orders)", "count(new_order)"],
    },
    Check {
        name: "3.3.2.12 (summed per district, above 100 warehouses) C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT",
        query: "check_12",
        unit: Unit::District,
        labels: &["sum(c_balance + c_ytd_payment)", "sum(delivered ol_amount)"],
    },
];

/// Conditions 10 and 12 per customer, as the clause states them; they replace the per-district
/// sums of `CHECKS` up to [`PER_CUSTOMER_MAX_WAREHOUSES`].
const PER_CUSTOMER: [Check; 2] = [
    Check {
        name: "3.3.2.10 C_BALANCE = delivered OL_AMOUNT - H_AMOUNT (per customer)",
        query: "check_10_customer",
        unit: Unit::Customer,
        labels: &["c_balance", "sum(delivered ol_amount)", "sum(h_amount)"],
    },
    Check {
        name: "3.3.2.12 C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT (per customer)",
        query: "check_12_customer",
        unit: Unit::Customer,
        labels: &["c_balance + c_ytd_payment", "sum(delivered ol_amount)"],
    },
];

/// The form of `check` run at `warehouses`: 10 and 12 per customer where the scale allows.
fn at_scale(check: &'static Check, warehouses: u32) -> &'static Check {
    if warehouses > PER_CUSTOMER_MAX_WAREHOUSES {
        return check;
    }
    match check.query {
        "check_10" => &PER_CUSTOMER[0],
        "check_12" => &PER_CUSTOMER[1],
        _ => check,
    }
}

/// Name of the population check (the first result).
pub const POPULATION: &str = "population: warehouses and their 10 districts";

/// Counts the details are stated against.
struct Population {
    warehouses: i64,
    districts: i64,
    orders: i64,
    customers: i64,
}

/// Run every check on `session` with the engine's parsed `checks.sql`; `warehouses` is the
/// scale the data was loaded with. A failed condition is a result, not an error; errors are
/// the engine's.
pub async fn run_checks<S: Session>(
    session: &mut S,
    statements: &Statements,
    warehouses: u32,
) -> Result<Vec<CheckResult>, EngineError> {
    let mut rows = Rows::default();
    query(session, statements, "population", &mut rows).await?;
    let population = Population {
        warehouses: int(rows.get(0, 0)),
        districts: int(rows.get(0, 1)),
        orders: int(rows.get(0, 2)),
        customers: int(rows.get(0, 3)),
    };
    let want_districts = i64::from(warehouses) * i64::from(DISTRICTS_PER_WAREHOUSE);
    let present =
        population.warehouses == i64::from(warehouses) && population.districts == want_districts;
    let mut results = vec![CheckResult {
        name: POPULATION.into(),
        passed: present,
        detail: if present {
            format!(
                "ok: {} of {}",
                plural(want_districts, "district"),
                plural(i64::from(warehouses), "warehouse")
            )
        } else {
            format!(
                "found {} and {}, expected {} and {}",
                plural(population.warehouses, "warehouse"),
                plural(population.districts, "district"),
                warehouses,
                want_districts
            )
        },
    }];
    for check in &CHECKS {
        let check = at_scale(check, warehouses);
        query(session, statements, check.query, &mut rows).await?;
        let over = if check.query == "check_11" {
            let mut applies = Rows::default();
            query(session, statements, "check_11_applies", &mut applies).await?;
            let n = int(applies.get(0, 0));
            if n == 0 && rows.is_empty() {
                results.push(CheckResult {
                    name: check.name.into(),
                    passed: true,
                    detail: "not applicable: Delivery has run in every district".into(),
                });
                continue;
            }
            let delivered = population.districts - n;
            format!(
                "{} with no Delivery yet{}",
                plural(n, "district"),
                if delivered > 0 {
                    format!(" ({} had one)", plural(delivered, "other"))
                } else {
                    String::new()
                }
            )
        } else {
            check.unit.over(&population)
        };
        results.push(judge(check, &rows, &over));
    }
    Ok(results)
}

/// A check's result from its query's rows: none = passed, else the count and the first one.
fn judge(check: &Check, rows: &Rows, over: &str) -> CheckResult {
    if rows.is_empty() {
        return CheckResult {
            name: check.name.into(),
            passed: true,
            detail: format!("ok over {over}"),
        };
    }
    let k = check.unit.keys();
    let key: Vec<String> = (1..=k).map(|c| show(rows.get(0, c))).collect();
    let values: Vec<String> = check
        .labels
        .iter()
        .enumerate()
        .map(|(i, label)| format!("{label} = {}", show(rows.get(0, 1 + k + i))))
        .collect();
    let violations = int(rows.get(0, 0));
    CheckResult {
        name: check.name.into(),
        passed: false,
        detail: format!(
            "{violations} of {over} {}; first: {} ({}): {}",
            if violations == 1 {
                "violates it"
            } else {
                "violate it"
            },
            check.unit.name(),
            key.join(","),
            values.join(", ")
        ),
    }
}

async fn query<S: Session>(
    s: &mut S,
    st: &Statements,
    name: &str,
    rows: &mut Rows,
) -> Result<(), EngineError> {
    let what = || format!("consistency check {name}");
    let id = s
        .prepare(&st.render(name, &[]))
        .await
        .map_err(|e| e.during(what()))?;
    s.query(id, &[], rows).await.map_err(|e| e.during(what()))
}

/// An integer however the engine returned it (MySQL gives some as DECIMAL text).
fn int(v: Option<&Value>) -> i64 {
    v.and_then(Value::as_i64).unwrap_or(-1)
}

/// A value as the detail shows it: money with two decimals, NULL as "null".
fn show(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "null".into(),
        Some(Value::Int(n)) => n.to_string(),
        Some(Value::Float(f)) => format!("{f:.2}"),
        Some(Value::Text(t)) => t.trim_matches('\'').to_string(),
    }
}

#[cfg(test)]
mod tests;
