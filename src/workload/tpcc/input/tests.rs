//! Input rules of the five transactions, checked as shares over 100,000 seeded draws.

use super::*;

const DRAWS: usize = 100_000;

fn terminal(warehouses: u32) -> Terminal {
    Terminal {
        w_id: warehouses.min(3),
        d_id: 7,
        warehouses,
    }
}

fn draws(t: Terminal, kind: Kind, seed: u64) -> Vec<Inputs> {
    let mut rng = Rng::for_client(seed, 0, 0);
    let c = Constants::load(&mut rng);
    (0..DRAWS).map(|_| t.inputs(kind, &c, &mut rng)).collect()
}

fn share(hits: usize, of: usize) -> f64 {
    hits as f64 * 100.0 / of as f64
}

fn assert_pct(what: &str, got: f64, nominal: f64, tolerance: f64) {
    assert!(
        (got - nominal).abs() < tolerance,
        "{what}: {got}% vs {nominal}%"
    );
}

fn new_orders(t: Terminal) -> Vec<NewOrder> {
    draws(t, Kind::NewOrder, 1)
        .into_iter()
        .filter_map(|i| match i {
            Inputs::NewOrder(n) => Some(n),
            _ => None,
        })
        .collect()
}

#[test]
fn new_order_rolls_back_one_percent_on_its_last_line() {
    let orders = new_orders(terminal(10));
    assert_eq!(orders.len(), DRAWS);
    let rollbacks = orders.iter().filter(|o| o.rollback).count();
    assert_pct("rollbacks", share(rollbacks, DRAWS), 1.0, 0.15);
    for o in &orders {
        assert!((1..=10).contains(&o.d_id) && (1..=3000).contains(&o.c_id));
        assert!((5..=15).contains(&o.lines().len()));
        let (last, rest) = o.lines().split_last().expect("at least 5 lines");
        assert_eq!(last.i_id == UNUSED_ITEM_ID, o.rollback);
        for l in rest
            .iter()
            .chain(std::iter::once(last).filter(|_| !o.rollback))
        {
            assert!((1..=ITEMS).contains(&l.i_id));
        }
        assert!(o.lines().iter().all(|l| (1..=10).contains(&l.quantity)));
    }
    let mean_lines = orders.iter().map(|o| o.lines().len()).sum::<usize>() as f64 / DRAWS as f64;
    assert!((mean_lines - 10.0).abs() < 0.05, "mean ol_cnt {mean_lines}");
}

#[test]
fn one_percent_of_lines_are_remote_with_several_warehouses() {
    let t = terminal(10);
    let orders = new_orders(t);
    let lines: Vec<&OrderLine> = orders.iter().flat_map(|o| o.lines()).collect();
    let remote = lines.iter().filter(|l| l.supply_w_id != t.w_id).count();
    assert_pct("remote lines", share(remote, lines.len()), 1.0, 0.1);
    let mut used = [false; 11];
    for l in &lines {
        assert!((1..=10).contains(&l.supply_w_id));
        used[l.supply_w_id as usize] = true;
    }
    assert!(
        used[1..].iter().all(|u| *u),
        "every other warehouse supplies some line"
    );
    let not_local = orders.iter().filter(|o| !o.all_local()).count();
    assert_pct("orders not all local", share(not_local, DRAWS), 9.5, 0.5);
}

#[test]
fn one_warehouse_has_nothing_remote() {
    let t = terminal(1);
    assert!(new_orders(t).iter().all(|o| o.all_local()));
    for i in draws(t, Kind::Payment, 2) {
        let Inputs::Payment(p) = i else {
            panic!("not a payment")
        };
        assert_eq!((p.c_w_id, p.c_d_id), (1, p.d_id));
    }
}

#[test]
fn payment_is_15_percent_remote_and_60_percent_by_name() {
    let t = terminal(4);
    let mut remote = 0;
    let mut by_name = 0;
    let mut cents = (u32::MAX, 0);
    for i in draws(t, Kind::Payment, 3) {
        let Inputs::Payment(p) = i else {
            panic!("not a payment")
        };
        assert_eq!(p.w_id, t.w_id);
        assert!((1..=4).contains(&p.c_w_id) && (1..=10).contains(&p.c_d_id));
        if p.c_w_id != t.w_id {
            remote += 1;
        } else {
            assert_eq!(
                p.c_d_id, p.d_id,
                "a home customer is in the chosen district"
            );
        }
        by_name += usize::from(matches!(p.customer, CustomerRef::LastName(_)));
        if let CustomerRef::Id(id) = p.customer {
            assert!((1..=3000).contains(&id));
        }
        cents = (cents.0.min(p.h_amount_cents), cents.1.max(p.h_amount_cents));
    }
    assert_pct("remote payments", share(remote, DRAWS), 15.0, 0.5);
    assert_pct("payments by name", share(by_name, DRAWS), 60.0, 0.5);
    assert!(cents.0 >= 100 && cents.1 <= 500_000 && cents.0 < 1_000 && cents.1 > 499_000);
}

#[test]
fn order_status_is_60_percent_by_name() {
    let t = terminal(2);
    let mut by_name = 0;
    for i in draws(t, Kind::OrderStatus, 4) {
        let Inputs::OrderStatus(o) = i else {
            panic!("not an order-status")
        };
        assert!(o.w_id == t.w_id && (1..=10).contains(&o.d_id));
        by_name += usize::from(matches!(o.customer, CustomerRef::LastName(_)));
    }
    assert_pct("order-status by name", share(by_name, DRAWS), 60.0, 0.5);
}

#[test]
fn delivery_and_stock_level_keep_their_ranges_and_the_terminal_district() {
    let t = terminal(5);
    let mut carriers = [0u32; 11];
    for i in draws(t, Kind::Delivery, 5) {
        let Inputs::Delivery(d) = i else {
            panic!("not a delivery")
        };
        assert_eq!(d.w_id, t.w_id);
        carriers[usize::from(d.o_carrier_id)] += 1;
    }
    assert!(carriers[0] == 0 && carriers[1..].iter().all(|c| *c > 9_000));
    let mut thresholds = [0u32; 21];
    for i in draws(t, Kind::StockLevel, 6) {
        let Inputs::StockLevel(s) = i else {
            panic!("not a stock-level")
        };
        assert_eq!((s.w_id, s.d_id), (t.w_id, t.d_id));
        thresholds[usize::from(s.threshold)] += 1;
    }
    assert!(thresholds[..10].iter().all(|c| *c == 0));
    assert!(thresholds[10..].iter().all(|c| *c > 8_000));
}

#[test]
fn inputs_report_their_kind() {
    let t = terminal(2);
    let mut rng = Rng::for_client(7, 0, 0);
    let c = Constants::load(&mut rng);
    for kind in Kind::ALL {
        assert_eq!(t.inputs(kind, &c, &mut rng).kind(), kind);
    }
}
