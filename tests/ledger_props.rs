//! A property test of the ledger (docs/ledger.md#invariants): random sequences of
//! movements of every type and sign (at a location or none), stock row upserts and PUTs of
//! `quantity`, product PUTs of `stock_qty`, put-aways, and location (de)activation, with and
//! without `allow_negative_stock`. Movements carry random dates: today (sent or left out), days
//! back, or tomorrow (400). After EACH step:
//!
//! - the answer's status is the one a small model of the rules predicts (so a refused
//!   request is refused for the right reason, and an accepted one accepted);
//! - invariants 1 and 2 hold, read through the API and summed in exact decimals
//!   (`common::invariants`);
//! - every stock row and product total equals the model's;
//! - without `allow_negative_stock`, no product's running balance at a location or
//!   unallocated, in date order, ends a day below zero (docs/ledger.md#stock-over-time),
//!   summed from the movement list.
//!
//! At the end of each case `stockbook check`'s ledger check finds nothing.
//!
//! At the end of each case the products' `cost_price` equals the model's weighted average.

mod common;

use std::collections::BTreeMap;

use time::Duration;

use common::invariants::{dec, try_check_invariants};
use common::stock_fixtures::*;
use common::*;
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};
use rocket::http::Status;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{json, Value};

const PRODUCTS: usize = 3;
const LOCATIONS: usize = 3;
const KINDS: [&str; 8] = [
    "purchase",
    "sale",
    "adjustment",
    "return",
    "transfer_in",
    "transfer_out",
    "stock_take",
    "transfer_cancelled",
];

#[derive(Debug, Clone)]
enum Op {
    /// A POST /api/stock-movements; `qty` in thousandths, `unit_cost` in ten-thousandths.
    Move {
        product: usize,
        location: Option<usize>,
        kind: usize,
        qty: i64,
        unit_cost: Option<i64>,
        /// Days from today (positive: the future), or no `date` sent.
        day: Option<i64>,
    },
    /// A POST /api/warehouse-stock.
    Upsert {
        product: usize,
        location: usize,
        quantity: Option<i64>,
        reorder_point: Option<i64>,
    },
    /// A PUT /api/warehouse-stock of `quantity` (skipped while the row does not exist).
    PutRow {
        product: usize,
        location: usize,
        quantity: i64,
    },
    /// A PUT /api/products of `stock_qty`.
    SetStockQty { product: usize, qty: i64 },
    /// A PUT /api/warehouse-locations of `status`.
    SetActive { location: usize, active: bool },
    /// A POST /api/stock/put-away (docs/inventory.md#put-away); `qty` in thousandths.
    PutAway {
        product: usize,
        location: usize,
        qty: i64,
        day: Option<i64>,
    },
}

/// Thousandths: mostly whole units, sometimes any fraction, zero included.
fn qty() -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => (-6i64..=6).prop_map(|x| x * 1000),
        1 => -6000i64..=6000,
    ]
}

/// A movement's date: mostly today (sent or not), often a few days back, sometimes long
/// ago or tomorrow.
fn day() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(0)),
        4 => (-6i64..=-1).prop_map(Some),
        1 => Just(Some(-4000)),
        1 => Just(Some(1)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (
            0..PRODUCTS,
            prop::option::weighted(0.75, 0..LOCATIONS),
            0..KINDS.len(),
            qty(),
            prop::option::weighted(0.3, 0i64..=50_000),
            day(),
        )
            .prop_map(|(product, location, kind, qty, unit_cost, day)| Op::Move {
                product,
                location,
                kind,
                qty,
                unit_cost,
                day,
            }),
        2 => (
            0..PRODUCTS,
            0..LOCATIONS,
            prop::option::weighted(0.8, -2000i64..=8000),
            prop::option::of(0i64..=5000),
        )
            .prop_map(|(product, location, quantity, reorder_point)| Op::Upsert {
                product,
                location,
                quantity,
                reorder_point,
            }),
        2 => (0..PRODUCTS, 0..LOCATIONS, -2000i64..=8000).prop_map(
            |(product, location, quantity)| Op::PutRow {
                product,
                location,
                quantity,
            }
        ),
        1 => (0..PRODUCTS, 0i64..=12_000).prop_map(|(product, qty)| Op::SetStockQty { product, qty }),
        1 => (0..LOCATIONS, prop::bool::weighted(0.4))
            .prop_map(|(location, active)| Op::SetActive { location, active }),
        2 => (0..PRODUCTS, 0..LOCATIONS, qty(), day()).prop_map(|(product, location, qty, day)| {
            Op::PutAway { product, location, qty, day }
        }),
    ]
}

fn thousandths(x: i64) -> Decimal {
    Decimal::new(x, 3).normalize()
}

fn number(d: Decimal) -> Value {
    num(&d.normalize().to_string())
}

/// A place stock is held: (product, location or unallocated).
type Place = (usize, Option<usize>);

/// What the rules say, kept independently of the service.
struct Model {
    allow_negative: bool,
    /// Σ qty per place and day (days from today).
    days: BTreeMap<Place, BTreeMap<i64, Decimal>>,
    rows: BTreeMap<(usize, usize), Decimal>,
    unallocated: [Decimal; PRODUCTS],
    cost: [Decimal; PRODUCTS],
    active: [bool; LOCATIONS],
}

impl Model {
    fn total(&self, p: usize) -> Decimal {
        self.unallocated[p]
            + self
                .rows
                .iter()
                .filter(|((rp, _), _)| *rp == p)
                .map(|(_, q)| *q)
                .sum::<Decimal>()
    }

    fn located(&self, p: usize) -> Decimal {
        self.total(p) - self.unallocated[p]
    }

    /// Would `q` on `day` take the place's balance at the end of that day, or of a later
    /// day with movements, below zero?
    fn short_over_time(&self, place: Place, day: i64, q: Decimal) -> bool {
        let ledger = self.days.get(&place);
        let upto = |d: i64| -> Decimal {
            ledger.map_or(Decimal::ZERO, |l| l.range(..=d).map(|(_, v)| *v).sum())
        };
        let later = ledger
            .into_iter()
            .flat_map(|l| l.range(day + 1..).map(|(d, _)| *d));
        std::iter::once(day)
            .chain(later)
            .any(|d| upto(d) + q < Decimal::ZERO)
    }

    /// Records a movement the service accepted.
    fn record(&mut self, place: Place, day: i64, q: Decimal) {
        *self.days.entry(place).or_default().entry(day).or_default() += q;
    }

    /// Status of setting a row's quantity to `target` (row may be absent).
    fn set_quantity_status(&self, p: usize, l: usize, target: Decimal) -> Option<Status> {
        let cur = self.rows.get(&(p, l)).copied().unwrap_or_default();
        if target == cur {
            return None;
        }
        if !self.active[l] {
            return Some(Status::Conflict);
        }
        if target < Decimal::ZERO && !self.allow_negative {
            return Some(Status::Conflict);
        }
        None
    }
}

struct World {
    t: TestApp,
    products: Vec<String>,
    locations: Vec<String>,
    model: Model,
}

fn setup(allow_negative: bool) -> World {
    let t = app_with(&[("allow_negative_stock", json!(allow_negative))]);
    // The model counts days from today: keep today today.
    t.clock.freeze();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let mut products = Vec::new();
    let mut unallocated = [Decimal::ZERO; PRODUCTS];
    let mut cost = [Decimal::ZERO; PRODUCTS];
    for i in 0..PRODUCTS {
        // Product 0 opens with unallocated stock and a cost.
        let extra = if i == 0 {
            json!({"stock_qty": 3, "cost_price": 2})
        } else {
            json!({})
        };
        if i == 0 {
            unallocated[0] = Decimal::from(3);
            cost[0] = Decimal::from(2);
        }
        let p = product_with(&t, &e, &format!("P{i}"), extra);
        products.push(p["id"].as_str().unwrap().to_owned());
    }
    let locations = (0..LOCATIONS)
        .map(|i| location(&t, &e, &format!("L{i}")))
        .collect();
    World {
        t,
        products,
        locations,
        model: Model {
            allow_negative,
            // Product 0's opening stock, unallocated, today.
            days: BTreeMap::from([((0, None), BTreeMap::from([(0, Decimal::from(3))]))]),
            rows: BTreeMap::new(),
            unallocated,
            cost,
            active: [true; LOCATIONS],
        },
    }
}

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

/// Runs one step: the request, its predicted status, and the model update.
fn step(w: &mut World, op: &Op) -> Result<(), TestCaseError> {
    let m = &mut w.model;
    let t = &w.t;
    let (expected, res) = match *op {
        Op::Move {
            product: p,
            location,
            kind,
            qty,
            unit_cost,
            day,
        } => {
            let kind = KINDS[kind];
            let on = day.unwrap_or(0);
            let q = thousandths(qty);
            let uc = unit_cost.map(|c| Decimal::new(c, 4).normalize());
            let sign_ok = match kind {
                "purchase" | "transfer_in" => q > Decimal::ZERO,
                "sale" | "transfer_out" => q < Decimal::ZERO,
                _ => true,
            };
            let expected = if kind == "transfer_cancelled"
                || q.is_zero()
                || !sign_ok
                || (uc.is_some() && kind != "purchase")
                || on > 0
            {
                Status::BadRequest
            } else {
                let inactive = location.is_some_and(|l| !m.active[l]);
                let short = !m.allow_negative && m.short_over_time((p, location), on, q);
                if inactive || short {
                    Status::Conflict
                } else {
                    Status::Created
                }
            };
            let mut body = json!({"product_id": w.products[p], "type": kind, "qty": number(q)});
            if let Some(l) = location {
                body["location_id"] = json!(w.locations[l]);
            }
            if let Some(c) = uc {
                body["unit_cost"] = number(c);
            }
            if let Some(n) = day {
                body["date"] = json!((t.clock.today() + Duration::days(n)).to_string());
            }
            let res = t.post("/api/stock-movements", body);
            if res.0 == Status::Created && expected == Status::Created {
                if let (true, Some(c)) = (kind == "purchase", uc) {
                    let old = m.total(p);
                    m.cost[p] = if old <= Decimal::ZERO {
                        c
                    } else {
                        ((old * m.cost[p] + q * c) / (old + q))
                            .round_dp_with_strategy(4, RoundingStrategy::MidpointAwayFromZero)
                            .normalize()
                    };
                }
                match location {
                    Some(l) => *m.rows.entry((p, l)).or_default() += q,
                    None => m.unallocated[p] += q,
                }
                m.record((p, location), on, q);
            }
            (expected, res)
        }
        Op::Upsert {
            product: p,
            location: l,
            quantity,
            reorder_point,
        } => {
            let target = quantity.map(thousandths);
            let refused = target.and_then(|q| m.set_quantity_status(p, l, q));
            let exists = m.rows.contains_key(&(p, l));
            let expected = refused.unwrap_or(if exists { Status::Ok } else { Status::Created });
            let mut body = json!({"product_id": w.products[p], "location_id": w.locations[l]});
            if let Some(q) = target {
                body["quantity"] = number(q);
            }
            if let Some(r) = reorder_point {
                body["reorder_point"] = number(thousandths(r));
            }
            let res = t.post("/api/warehouse-stock", body);
            if res.0 == expected && refused.is_none() {
                let row = m.rows.entry((p, l)).or_default();
                if let Some(q) = target {
                    let change = q - *row;
                    *row = q;
                    if !change.is_zero() {
                        m.record((p, Some(l)), 0, change);
                    }
                }
            }
            (expected, res)
        }
        Op::PutRow {
            product: p,
            location: l,
            quantity,
        } => {
            if !m.rows.contains_key(&(p, l)) {
                return Ok(());
            }
            let row = stock_row(t, &w.products[p], &w.locations[l])
                .ok_or_else(|| fail(format!("row {p}/{l} missing")))?;
            let target = thousandths(quantity);
            let refused = m.set_quantity_status(p, l, target);
            let expected = refused.unwrap_or(Status::Ok);
            let res = t.put(
                "/api/warehouse-stock",
                json!({"id": row["id"], "quantity": number(target)}),
            );
            if res.0 == expected && refused.is_none() {
                let before = m.rows.insert((p, l), target).unwrap_or_default();
                if target != before {
                    m.record((p, Some(l)), 0, target - before);
                }
            }
            (expected, res)
        }
        Op::SetStockQty { product: p, qty } => {
            let target = thousandths(qty);
            let expected = if target < m.located(p) {
                Status::Conflict
            } else {
                Status::Ok
            };
            let res = t.put(
                "/api/products",
                json!({"id": w.products[p], "stock_qty": number(target)}),
            );
            if res.0 == Status::Ok && expected == Status::Ok {
                let before = m.unallocated[p];
                m.unallocated[p] = target - m.located(p);
                if m.unallocated[p] != before {
                    m.record((p, None), 0, m.unallocated[p] - before);
                }
            }
            (expected, res)
        }
        Op::PutAway {
            product: p,
            location: l,
            qty,
            day,
        } => {
            let on = day.unwrap_or(0);
            let q = thousandths(qty);
            // The unallocated units must be there whatever allow_negative_stock says.
            let expected = if q <= Decimal::ZERO || on > 0 {
                Status::BadRequest
            } else if !m.active[l] || m.short_over_time((p, None), on, -q) {
                Status::Conflict
            } else {
                Status::Created
            };
            let mut body = json!({"product_id": w.products[p], "location_id": w.locations[l], "qty": number(q)});
            if let Some(n) = day {
                body["date"] = json!((t.clock.today() + Duration::days(n)).to_string());
            }
            let res = t.post("/api/stock/put-away", body);
            if res.0 == Status::Created && expected == Status::Created {
                m.unallocated[p] -= q;
                *m.rows.entry((p, l)).or_default() += q;
                m.record((p, None), on, -q);
                m.record((p, Some(l)), on, q);
            }
            (expected, res)
        }
        Op::SetActive {
            location: l,
            active,
        } => {
            let res = t.put(
                "/api/warehouse-locations",
                json!({"id": w.locations[l], "status": if active { "active" } else { "inactive" }}),
            );
            if res.0 == Status::Ok {
                m.active[l] = active;
            }
            (Status::Ok, res)
        }
    };
    if res.0 != expected {
        return Err(fail(format!(
            "{op:?}: expected {expected}, got {}: {}",
            res.0, res.1
        )));
    }
    if expected.code >= 400 {
        let msg = res.1["message"].as_str().unwrap_or_default();
        if res.1["statusCode"] != json!(expected.code) || msg.is_empty() {
            return Err(fail(format!("{op:?}: not an error body: {}", res.1)));
        }
    }
    Ok(())
}

/// The API agrees with the invariants and with the model.
fn check(w: &World, after: &Op) -> Result<(), TestCaseError> {
    let snap =
        try_check_invariants(&w.t, None).map_err(|e| fail(format!("after {after:?}: {e}")))?;
    let m = &w.model;
    let mut expected_rows = BTreeMap::new();
    for ((p, l), q) in &m.rows {
        expected_rows.insert((w.products[*p].clone(), w.locations[*l].clone()), *q);
    }
    if snap.quantity != expected_rows {
        return Err(fail(format!(
            "after {after:?}: stock rows {:?}, model {:?}",
            snap.quantity, expected_rows
        )));
    }
    for (i, id) in w.products.iter().enumerate() {
        let got = snap.stock_qty.get(id).copied().unwrap_or_default();
        if got != m.total(i) {
            return Err(fail(format!(
                "after {after:?}: product {i} stock_qty {got}, model {}",
                m.total(i)
            )));
        }
    }
    if !m.allow_negative {
        no_day_below_zero(w).map_err(|e| fail(format!("after {after:?}: {e}")))?;
    }
    Ok(())
}

/// docs/ledger.md#stock-over-time, from the movement list: per product and place, the
/// balance at the end of each day with movements is at or above zero.
fn no_day_below_zero(w: &World) -> Result<(), String> {
    let mut days: BTreeMap<(String, String), BTreeMap<String, Decimal>> = BTreeMap::new();
    for mv in movements(&w.t, "") {
        let place = (
            mv["product_id"]["id"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            mv["location_id"]
                .as_str()
                .unwrap_or("unallocated")
                .to_owned(),
        );
        let day = mv["date"].as_str().unwrap_or_default().to_owned();
        *days.entry(place).or_default().entry(day).or_default() += dec(&mv["qty"]);
    }
    for (place, ledger) in days {
        let mut balance = Decimal::ZERO;
        for (day, q) in ledger {
            balance += q;
            if balance < Decimal::ZERO {
                return Err(format!("{place:?} ends {day} at {balance}"));
            }
        }
    }
    Ok(())
}

fn run(allow_negative: bool, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut w = setup(allow_negative);
    for op in ops {
        step(&mut w, op)?;
        check(&w, op)?;
    }
    for (i, id) in w.products.iter().enumerate() {
        let got = dec(&get_product(&w.t, id)["cost_price"]);
        prop_assert_eq!(got, w.model.cost[i], "cost_price of product {}", i);
    }
    let conn = w.t.db.conn().unwrap();
    let breaches = stockbook::inventory::check::ledger_breaches(&conn, allow_negative).unwrap();
    prop_assert!(breaches.is_empty(), "the ledger check: {:?}", breaches);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        max_shrink_iters: 400,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_ledger_invariants_hold_after_every_step(
        allow_negative in any::<bool>(),
        ops in prop::collection::vec(op(), 1..20),
    ) {
        run(allow_negative, &ops)?;
    }
}
