//! Property tests of documents moving stock (docs/documents-stock.md#the-one-rule) and of
//! stock as at a date (docs/documents-stock.md#stock-as-at-a-date).
//!
//! 1. Random sequences of invoice, bill, credit note and supplier credit creates (a credit
//!    linked to an invoice or bill or not, docs/accounting.md#credit-notes-and-supplier-credits),
//!    status changes, line edits, location
//!    changes, issue date changes (docs/documents-stock.md#dates) and deletes, payments
//!    and refunds recorded and deleted on every kind (docs/accounting.md#payments),
//!    interleaved with plain movements, transfer orders and stock takes, with and without
//!    `allow_negative_stock`. After EACH step the docs/ledger.md#invariants and
//!    docs/documents-stock.md#the-one-rule hold (read through the API,
//!    `common::invariants`, with every `amount_credited` the sum of its posted credits),
//!    every document's `amount_paid` is the sum of its payments and its `amount_due` =
//!    total − paid − credited is never below zero (docs/accounting.md#amount-due), the
//!    ledger, credit and payment checks find nothing (stock over time,
//!    docs/ledger.md#stock-over-time, included without `allow_negative_stock`), every
//!    document answer is a success or a 409 (404 for a deleted one), and a refused request
//!    (any 4xx for a payment) changed nothing at all: no document, payment, movement,
//!    stock row or product figure.
//! 2. Random ledgers over several days (movements, purchases with a unit cost, cost
//!    price PUTs, bills): the valuation as at each day equals a naive replay of the
//!    movements and of the cost prices seen at the end of each day, whole and paged; on
//!    an in-memory database (one connection) and on a database file, where the as-at
//!    report sums the movements on two connections in two threads
//!    (docs/architecture.md#two-readers-one-snapshot).

mod common;

use std::collections::BTreeMap;

use common::invariants::{
    dec, is_posted, try_check_documents, try_check_invariants, try_check_money,
};
use common::stock_fixtures::{get_product, location, num};
use common::{app_with, TestApp};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};

const PRODUCTS: usize = 2;
const LOCATIONS: usize = 2;
const INVOICE_STATUSES: [&str; 4] = ["draft", "sent", "paid", "void"];
const BILL_STATUSES: [&str; 4] = ["draft", "awaiting_payment", "paid", "void"];
const CREDIT_STATUSES: [&str; 4] = ["draft", "posted", "posted", "void"];

/// The kinds of document, by index: invoice, bill, credit note, supplier credit.
const PATHS: [&str; 4] = [
    "/api/invoices",
    "/api/bills",
    "/api/credit-notes",
    "/api/supplier-credits",
];

fn status_of(kind: usize, i: usize) -> &'static str {
    match kind {
        0 => INVOICE_STATUSES[i],
        1 => BILL_STATUSES[i],
        _ => CREDIT_STATUSES[i],
    }
}

/// Purchases (bills, supplier credits) are the supplier's; sales the customer's.
fn is_purchase(kind: usize) -> bool {
    kind % 2 == 1
}

#[derive(Debug, Clone)]
enum Op {
    Create {
        /// An index of [`PATHS`].
        kind: usize,
        status: usize,
        lines: Vec<(usize, i64)>,
        location: Option<usize>,
        /// Credits: the document of the credited kind it names, if any.
        link: Option<usize>,
    },
    Status {
        doc: usize,
        status: usize,
    },
    Lines {
        doc: usize,
        lines: Vec<(usize, i64)>,
    },
    Location {
        doc: usize,
        location: Option<usize>,
    },
    Delete {
        doc: usize,
    },
    /// A PUT of the document's `issue_date`, `days_back` days before today.
    IssueDate {
        doc: usize,
        days_back: i64,
    },
    /// A plain adjustment of `qty` units.
    Move {
        product: usize,
        location: usize,
        qty: i64,
    },
    /// A transfer order of `qty` units, shipped, and received when `receive`.
    Transfer {
        product: usize,
        from: usize,
        qty: i64,
        receive: bool,
    },
    /// A stock take of a location counting its first line at `count` units.
    StockTake {
        location: usize,
        count: i64,
    },
    /// A payment (a refund on a credit) of `amount` pence; None: of exactly what is due.
    Pay {
        doc: usize,
        amount: Option<i64>,
    },
    /// Deletes the `nth` payment of the document.
    Unpay {
        doc: usize,
        nth: usize,
    },
}

fn lines() -> impl Strategy<Value = Vec<(usize, i64)>> {
    prop::collection::vec((0..PRODUCTS, 1i64..=6), 0..3)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..4usize, 0..4usize, lines(), prop::option::weighted(0.8, 0..LOCATIONS),
              prop::option::weighted(0.7, 0..8usize))
            .prop_map(|(kind, status, lines, location, link)| Op::Create { kind, status, lines, location, link }),
        4 => (0..8usize, 0..4usize).prop_map(|(doc, status)| Op::Status { doc, status }),
        2 => (0..8usize, lines()).prop_map(|(doc, lines)| Op::Lines { doc, lines }),
        2 => (0..8usize, prop::option::weighted(0.8, 0..LOCATIONS))
            .prop_map(|(doc, location)| Op::Location { doc, location }),
        1 => (0..8usize).prop_map(|doc| Op::Delete { doc }),
        2 => (0..8usize, 0i64..=12).prop_map(|(doc, days_back)| Op::IssueDate { doc, days_back }),
        2 => (0..PRODUCTS, 0..LOCATIONS, -4i64..=8)
            .prop_filter("not zero", |(_, _, q)| *q != 0)
            .prop_map(|(product, location, qty)| Op::Move { product, location, qty }),
        1 => (0..PRODUCTS, 0..LOCATIONS, 1i64..=5, any::<bool>())
            .prop_map(|(product, from, qty, receive)| Op::Transfer { product, from, qty, receive }),
        1 => (0..LOCATIONS, 0i64..=6).prop_map(|(location, count)| Op::StockTake { location, count }),
        4 => (0..8usize, prop::option::weighted(0.6, 1i64..=3_000))
            .prop_map(|(doc, amount)| Op::Pay { doc, amount }),
        1 => (0..8usize, 0..4usize).prop_map(|(doc, nth)| Op::Unpay { doc, nth }),
    ]
}

struct World {
    t: TestApp,
    entity: String,
    products: Vec<String>,
    locations: Vec<String>,
    customer: String,
    supplier: String,
    /// (kind, id) of every document created (deleted ones stay; a request for them is 404).
    docs: Vec<(usize, String)>,
}

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

fn setup(allow_negative: bool) -> World {
    setup_on(allow_negative, None)
}

/// [`setup`] over the database file `database` (in memory when `None`).
fn setup_on(allow_negative: bool, database: Option<&str>) -> World {
    let mut settings = vec![("allow_negative_stock", json!(allow_negative))];
    if let Some(path) = database {
        settings.push(("database", json!(path)));
    }
    let t = app_with(&settings);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let locations: Vec<String> = (0..LOCATIONS)
        .map(|i| location(&t, &entity, &format!("Location {i}")))
        .collect();
    let products: Vec<String> = (0..PRODUCTS)
        .map(|i| {
            let (s, v) = t.post(
                "/api/products",
                json!({ "name": format!("Product {i}"), "entity_id": entity,
                        "unit_price": 10, "cost_price": 2 + i }),
            );
            assert_eq!(s, Status::Created, "{v}");
            v["data"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    // Opening stock, a week ago: documents may be moved back to it, or before it.
    let week_ago = (t.clock.today() - time::Duration::days(7)).to_string();
    for p in &products {
        for l in &locations {
            let (s, v) = t.post(
                "/api/stock-movements",
                json!({ "product_id": p, "location_id": l, "type": "adjustment", "qty": 5,
                        "date": week_ago }),
            );
            assert_eq!(s, Status::Created, "{v}");
        }
    }
    let contact = |name: &str, kind: &str| {
        let (s, v) = t.post(
            "/api/contacts",
            json!({ "name": name, "type": kind, "entity_id": entity }),
        );
        assert_eq!(s, Status::Created, "{v}");
        v["data"]["id"].as_str().unwrap().to_owned()
    };
    let customer = contact("Customer", "customer");
    let supplier = contact("Supplier", "supplier");
    World {
        t,
        entity,
        products,
        locations,
        customer,
        supplier,
        docs: Vec::new(),
    }
}

impl World {
    fn lines(&self, lines: &[(usize, i64)]) -> Value {
        Value::Array(
            lines
                .iter()
                .map(|(p, q)| json!({ "product_id": self.products[*p], "quantity": q, "unit_price": 3 }))
                .collect(),
        )
    }

    fn location(&self, l: Option<usize>) -> Value {
        l.map_or(Value::Null, |l| json!(self.locations[l]))
    }

    fn doc(&self, i: usize) -> Option<&(usize, String)> {
        if self.docs.is_empty() {
            None
        } else {
            self.docs.get(i % self.docs.len())
        }
    }

    /// The `i`th document (round) of `kind`, if any.
    fn doc_of(&self, kind: usize, i: usize) -> Option<&String> {
        let of: Vec<&String> = self
            .docs
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, id)| id)
            .collect();
        (!of.is_empty()).then(|| of[i % of.len()])
    }

    fn path(kind: usize) -> &'static str {
        PATHS[kind]
    }

    /// Everything a refused request must leave as it was.
    fn fingerprint(&self) -> Vec<Value> {
        [
            "/api/stock-movements",
            "/api/warehouse-stock",
            "/api/products",
            "/api/invoices",
            "/api/bills",
            "/api/credit-notes",
            "/api/supplier-credits",
            "/api/transfer-orders",
            "/api/payments",
        ]
        .iter()
        .map(|p| self.t.get(p).1)
        .collect()
    }
}

/// Sends one request of a document operation; checks a refusal (409, or 404 for a
/// deleted document) changed nothing.
fn single(
    w: &mut World,
    what: &str,
    send: impl FnOnce(&World) -> (Status, Value),
) -> Result<Option<Value>, TestCaseError> {
    refused_or_done(
        w,
        what,
        |s| s == Status::Conflict || s == Status::NotFound,
        send,
    )
}

/// Sends one request; a refusal must be one `expected` allows and change nothing.
fn refused_or_done(
    w: &mut World,
    what: &str,
    expected: impl Fn(Status) -> bool,
    send: impl FnOnce(&World) -> (Status, Value),
) -> Result<Option<Value>, TestCaseError> {
    let before = w.fingerprint();
    let (s, v) = send(w);
    if s.code < 300 {
        return Ok(Some(v));
    }
    if !expected(s) {
        return Err(fail(format!("{what}: unexpected {s}: {v}")));
    }
    if w.fingerprint() != before {
        return Err(fail(format!(
            "{what} was refused ({v}) yet changed something"
        )));
    }
    Ok(None)
}

fn step(w: &mut World, op: &Op) -> Result<(), TestCaseError> {
    match op {
        Op::Create {
            kind,
            status,
            lines,
            location,
            link,
        } => {
            let mut body = json!({
                "contact_id": if is_purchase(*kind) { &w.supplier } else { &w.customer },
                "entity_id": w.entity,
                "status": status_of(*kind, *status),
                "lines": w.lines(lines),
                "location_id": w.location(*location),
            });
            if *kind >= 2 {
                if let Some(original) = link.and_then(|i| w.doc_of(kind - 2, i)) {
                    let field = if *kind == 2 { "invoice_id" } else { "bill_id" };
                    body[field] = json!(original);
                }
            }
            if let Some(v) = single(w, "create", |w| w.t.post(World::path(*kind), body))? {
                w.docs
                    .push((*kind, v["data"]["id"].as_str().unwrap().to_owned()));
            }
        }
        Op::Status { doc, status } => {
            let Some((kind, id)) = w.doc(*doc).cloned() else {
                return Ok(());
            };
            let s = status_of(kind, *status);
            single(w, "status", |w| {
                w.t.put(World::path(kind), json!({ "id": id, "status": s }))
            })?;
        }
        Op::Lines { doc, lines } => {
            let Some((kind, id)) = w.doc(*doc).cloned() else {
                return Ok(());
            };
            let body = json!({ "id": id, "lines": w.lines(lines) });
            single(w, "lines", |w| w.t.put(World::path(kind), body))?;
        }
        Op::Location { doc, location } => {
            let Some((kind, id)) = w.doc(*doc).cloned() else {
                return Ok(());
            };
            let body = json!({ "id": id, "location_id": w.location(*location) });
            single(w, "location", |w| w.t.put(World::path(kind), body))?;
        }
        Op::Delete { doc } => {
            let Some((kind, id)) = w.doc(*doc).cloned() else {
                return Ok(());
            };
            // Posted with movements: refused, whatever else holds.
            let (_, list) = w.t.get(World::path(kind));
            let current = list["data"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["id"] == json!(id))
                .cloned();
            let deleted = single(w, "delete", |w| {
                w.t.delete(World::path(kind), json!({ "id": id }))
            })?;
            if let (Some(d), Some(_)) = (current, deleted) {
                let moved = d["location_id"].is_string()
                    && d["lines"].as_array().is_some_and(|l| !l.is_empty())
                    && is_posted(d["status"].as_str().unwrap());
                if moved {
                    return Err(fail(format!(
                        "a posted document with stock was deleted: {d}"
                    )));
                }
            }
        }
        Op::IssueDate { doc, days_back } => {
            let Some((kind, id)) = w.doc(*doc).cloned() else {
                return Ok(());
            };
            let day = (w.t.clock.today() - time::Duration::days(*days_back)).to_string();
            // A due date before the new issue date is no part of this test.
            let body = json!({ "id": id, "issue_date": day, "due_date": "9999-12-31" });
            single(w, "issue date", |w| w.t.put(World::path(kind), body))?;
        }
        Op::Move {
            product,
            location,
            qty,
        } => {
            let body = json!({ "product_id": w.products[*product], "type": "adjustment",
                               "location_id": w.locations[*location], "qty": qty });
            single(w, "movement", |w| w.t.post("/api/stock-movements", body))?;
        }
        Op::Transfer {
            product,
            from,
            qty,
            receive,
        } => {
            let (s, v) = w.t.post(
                "/api/transfer-orders",
                json!({ "entity_id": w.entity, "source_location_id": w.locations[*from],
                        "destination_location_id": w.locations[(from + 1) % LOCATIONS],
                        "lines": [{ "product_id": w.products[*product], "quantity": qty }] }),
            );
            if s != Status::Created {
                return Err(fail(format!("transfer create: {s} {v}")));
            }
            let id = v["data"]["id"].clone();
            let shipped = single(w, "ship", |w| {
                w.t.put(
                    "/api/transfer-orders",
                    json!({ "id": id, "status": "in_transit" }),
                )
            })?;
            if shipped.is_some() && *receive {
                single(w, "receive", |w| {
                    w.t.put(
                        "/api/transfer-orders",
                        json!({ "id": id, "status": "completed" }),
                    )
                })?;
            }
        }
        Op::StockTake { location, count } => {
            let (s, v) = w.t.post(
                "/api/stock-takes",
                json!({ "entity_id": w.entity, "location_id": w.locations[*location] }),
            );
            if s != Status::Created {
                return Err(fail(format!("stock take create: {s} {v}")));
            }
            let id = v["data"]["id"].clone();
            let Some(line) = v["data"]["lines"].get(0).map(|l| l["id"].clone()) else {
                return Ok(());
            };
            single(w, "count", |w| {
                w.t.put(
                    "/api/stock-takes",
                    json!({ "id": id, "status": "in_progress",
                            "lines": [{ "id": line, "counted_quantity": count }] }),
                )
            })?;
            single(w, "complete", |w| {
                w.t.put(
                    "/api/stock-takes",
                    json!({ "id": id, "status": "completed" }),
                )
            })?;
        }
        Op::Pay { doc, amount } => {
            let Some((kind, id)) = w.doc(*doc).cloned() else {
                return Ok(());
            };
            let amount = match amount {
                Some(p) => num(&Decimal::new(*p, 2).to_string()),
                None => {
                    let (_, v) = w.t.get(&format!("{}?id={id}", World::path(kind)));
                    match v["data"].get(0) {
                        Some(d) if dec(&d["amount_due"]) > Decimal::ZERO => d["amount_due"].clone(),
                        _ => return Ok(()),
                    }
                }
            };
            let body = json!({ "document_id": id, "amount": amount });
            refused_or_done(w, "payment", any_4xx, |w| w.t.post("/api/payments", body))?;
        }
        Op::Unpay { doc, nth } => {
            let Some((_, id)) = w.doc(*doc).cloned() else {
                return Ok(());
            };
            let (_, v) = w.t.get(&format!("/api/payments?documentId={id}"));
            let list = v["data"].as_array().cloned().unwrap_or_default();
            if list.is_empty() {
                return Ok(());
            }
            let p = list[nth % list.len()]["id"].clone();
            refused_or_done(w, "payment delete", any_4xx, |w| {
                w.t.delete("/api/payments", json!({ "id": p }))
            })?;
        }
    }
    Ok(())
}

/// A payment may be refused with any 4xx (a deleted document's is 404, a bad one 400).
fn any_4xx(s: Status) -> bool {
    (400..500).contains(&s.code)
}

fn run(allow_negative: bool, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut w = setup(allow_negative);
    // Issue dates are counted back from today: keep today today.
    w.t.clock.freeze();
    for op in ops {
        step(&mut w, op)?;
        try_check_invariants(&w.t, Some(&w.entity)).map_err(|e| {
            fail(format!(
                "ledger invariants (docs/ledger.md#invariants) broken after {op:?}: {e}"
            ))
        })?;
        try_check_documents(&w.t, Some(&w.entity))
            .map_err(|e| fail(format!("documents move stock (docs/documents-stock.md#the-one-rule) broken after {op:?}: {e}")))?;
        try_check_money(&w.t, Some(&w.entity)).map_err(|e| {
            fail(format!(
                "amount paid and due (docs/accounting.md#amount-due) broken after {op:?}: {e}"
            ))
        })?;
        let conn = w.t.db.conn().unwrap();
        let breaches = stockbook::inventory::check::ledger_breaches(&conn, allow_negative).unwrap();
        prop_assert!(
            breaches.is_empty(),
            "the ledger check after {:?}: {:?}",
            op,
            breaches
        );
        let credited = stockbook::accounting::documents::credited_breaches(&conn).unwrap();
        prop_assert!(
            credited.is_empty(),
            "the credit check after {:?}: {:?}",
            op,
            credited
        );
        let paid = stockbook::accounting::payments::breaches(&conn).unwrap();
        prop_assert!(
            paid.is_empty(),
            "the payment check after {:?}: {:?}",
            op,
            paid
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn documents_keep_the_ledger_and_document_invariants_after_every_step(
        allow_negative in any::<bool>(),
        ops in prop::collection::vec(op(), 1..16),
    ) {
        run(allow_negative, &ops)?;
    }
}

// ---------------------------------------------------------------------------------------
// Stock as at a date against a naive replay

#[derive(Debug, Clone)]
enum Step {
    /// A movement of `qty` units (`location` None: unallocated), a purchase with a unit
    /// cost in pence when `cost` is given.
    Move {
        product: usize,
        location: Option<usize>,
        qty: i64,
        cost: Option<i64>,
    },
    /// A product PUT of `cost_price` in pence.
    Cost { product: usize, cost: i64 },
    /// A paid bill of `qty` units at `price` pence at a location.
    Bill {
        product: usize,
        location: usize,
        qty: i64,
        price: i64,
    },
    /// The clock moves to the next day.
    NextDay,
}

fn day_op() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..PRODUCTS, prop::option::weighted(0.8, 0..LOCATIONS), 1i64..=9, prop::option::of(1i64..=900))
            .prop_map(|(product, location, qty, cost)| Step::Move { product, location, qty, cost }),
        1 => (0..PRODUCTS, 0i64..=900).prop_map(|(product, cost)| Step::Cost { product, cost }),
        2 => (0..PRODUCTS, 0..LOCATIONS, 1i64..=9, 1i64..=900)
            .prop_map(|(product, location, qty, price)| Step::Bill { product, location, qty, price }),
        3 => Just(Step::NextDay),
    ]
}

fn pence(p: i64) -> Value {
    num(&(Decimal::new(p, 2)).to_string())
}

/// The valuation rows as `(product, location or "", quantity, cost_price)`, and the total.
fn rows(v: &Value) -> (Vec<(String, String, Decimal, Decimal)>, Decimal) {
    let mut out: Vec<_> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["product_id"].as_str().unwrap().to_owned(),
                r["location_id"].as_str().unwrap_or("").to_owned(),
                dec(&r["quantity"]),
                dec(&r["cost_price"]),
            )
        })
        .collect();
    out.sort();
    (out, dec(&v["summary"]["totalCostValue"]))
}

/// A database file in a temporary directory of its own, removed on drop.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("stockbook-asof-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }

    fn path(&self) -> String {
        self.0.join("stockbook.db").to_string_lossy().into_owned()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_days(ops: &[Step], file: Option<&TempFile>) -> Result<(), TestCaseError> {
    let path = file.map(TempFile::path);
    let w = setup_on(true, path.as_deref());
    w.t.clock.freeze();
    // Every movement as (date, product, location, qty), and the cost price of each
    // product at the end of each day.
    let mut ledger: Vec<(String, String, String, Decimal)> = Vec::new();
    for m in w.t.get("/api/stock-movements").1["data"]
        .as_array()
        .unwrap()
    {
        ledger.push((
            m["date"].as_str().unwrap().to_owned(),
            m["product_id"]["id"].as_str().unwrap().to_owned(),
            m["location_id"].as_str().unwrap_or("").to_owned(),
            dec(&m["qty"]),
        ));
    }
    let mut cost_at: BTreeMap<(String, String), Decimal> = BTreeMap::new();
    let record_costs = |w: &World, cost_at: &mut BTreeMap<(String, String), Decimal>| {
        for p in &w.products {
            let c = dec(&get_product(&w.t, p)["cost_price"]);
            cost_at.insert((w.t.clock.today().to_string(), p.clone()), c);
        }
    };
    record_costs(&w, &mut cost_at);
    let mut days = vec![w.t.clock.today()];
    for op in ops {
        let today = w.t.clock.today().to_string();
        match op {
            Step::Move {
                product,
                location,
                qty,
                cost,
            } => {
                let mut body = json!({ "product_id": w.products[*product], "qty": qty,
                                       "type": if cost.is_some() { "purchase" } else { "adjustment" } });
                if let Some(l) = location {
                    body["location_id"] = json!(w.locations[*l]);
                }
                if let Some(c) = cost {
                    body["unit_cost"] = pence(*c);
                }
                let (s, v) = w.t.post("/api/stock-movements", body);
                prop_assert_eq!(s, Status::Created, "{}", v);
                ledger.push((
                    today,
                    w.products[*product].clone(),
                    location.map_or(String::new(), |l| w.locations[l].clone()),
                    Decimal::from(*qty),
                ));
            }
            Step::Cost { product, cost } => {
                let (s, v) = w.t.put(
                    "/api/products",
                    json!({ "id": w.products[*product], "cost_price": pence(*cost) }),
                );
                prop_assert_eq!(s, Status::Ok, "{}", v);
            }
            Step::Bill {
                product,
                location,
                qty,
                price,
            } => {
                let (s, v) = w.t.post(
                    "/api/bills",
                    json!({ "contact_id": w.supplier, "entity_id": w.entity, "status": "paid",
                            "location_id": w.locations[*location],
                            "lines": [{ "product_id": w.products[*product], "quantity": qty,
                                        "unit_price": pence(*price) }] }),
                );
                prop_assert_eq!(s, Status::Created, "{}", v);
                ledger.push((
                    today,
                    w.products[*product].clone(),
                    w.locations[*location].clone(),
                    Decimal::from(*qty),
                ));
            }
            Step::NextDay => {
                w.t.clock.advance(86_400);
                days.push(w.t.clock.today());
            }
        }
        record_costs(&w, &mut cost_at);
    }

    for day in days {
        let d = day.to_string();
        let mut qty: BTreeMap<(String, String), Decimal> = BTreeMap::new();
        for (date, p, l, q) in &ledger {
            if *date <= d {
                *qty.entry((p.clone(), l.clone())).or_default() += *q;
            }
        }
        let cost = |p: &str| -> Decimal {
            cost_at
                .iter()
                .rev()
                .find(|((date, pid), _)| pid == p && *date <= d)
                .map(|(_, c)| *c)
                .unwrap()
        };
        let mut want: Vec<(String, String, Decimal, Decimal)> = qty
            .into_iter()
            .filter(|(_, q)| !q.is_zero())
            .map(|((p, l), q)| {
                let c = cost(&p);
                (p, l, q, c)
            })
            .collect();
        want.sort();
        let total: Decimal = want.iter().map(|(_, _, q, c)| q * c).sum();
        let (s, v) = w.t.get(&format!("/api/reports/stock-valuation?asOf={d}"));
        prop_assert_eq!(s, Status::Ok, "{}", v);
        let total =
            total.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
        let (got, got_total) = rows(&v);
        prop_assert_eq!(&got, &want, "as of {}", d);
        prop_assert_eq!(got_total, total, "total as of {}", d);
        // The paged report reads the same quantities.
        let (s, v) =
            w.t.get(&format!("/api/reports/stock-valuation?asOf={d}&limit=1000"));
        prop_assert_eq!(s, Status::Ok, "{}", v);
        let (got, got_total) = rows(&v);
        prop_assert_eq!(&got, &want, "page as of {}", d);
        prop_assert_eq!(got_total, total, "page total as of {}", d);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_valuation_as_at_any_day_equals_a_replay_of_the_ledger_and_the_costs(
        ops in prop::collection::vec(day_op(), 1..16),
    ) {
        run_days(&ops, None)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 8,
        max_shrink_iters: 100,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn on_a_database_file_the_as_at_sums_read_in_two_threads_equal_the_replay(
        ops in prop::collection::vec(day_op(), 1..16),
    ) {
        let file = TempFile::new();
        run_days(&ops, Some(&file))?;
    }
}
