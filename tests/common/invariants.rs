//! The ledger invariants of docs/ledger.md#invariants, checked through the API only, in
//! exact decimals (`rust_decimal` parsed from the JSON number text, never f64):
//!
//! 1. each stock row's `quantity` = Σ `qty` of the movements of its product at its location
//!    (and every location a product has movements at has a stock row);
//! 2. each product's `stock_qty` = Σ `qty` of all its movements;
//! 3. each stock row's `reserved_quantity` is at least what in-transit transfer orders from
//!    its location hold of its product (the rest is a reservation set by hand). The
//!    in-transit part comes from `GET /api/transfer-orders` when that route answers 200;
//!    otherwise only `reserved_quantity >= 0` is checked.
//!
//! [`check_invariants`] panics with a precise message on a breach and returns the
//! figures it read, so a test can assert more (for example that no hand reservation
//! exists: `snapshot.hand_reserved(product, location) == 0`).

use std::collections::BTreeMap;

use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::Value;

use super::TestApp;

/// An exact decimal from a JSON number, from its text (never through f64).
pub fn dec(v: &Value) -> Decimal {
    match v {
        Value::Number(n) => {
            let s = n.to_string();
            let d = if s.contains(['e', 'E']) {
                Decimal::from_scientific(&s)
            } else {
                Decimal::from_str_exact(&s)
            };
            d.unwrap_or_else(|e| panic!("`{s}` is not a decimal: {e}"))
                .normalize()
        }
        other => panic!("expected a JSON number, got {other}"),
    }
}

/// What the API showed when the invariants were checked.
#[derive(Debug, Clone, Default)]
pub struct LedgerSnapshot {
    /// `(product id, location id)` → the stock row's `quantity`.
    pub quantity: BTreeMap<(String, String), Decimal>,
    /// `(product id, location id)` → the stock row's `reserved_quantity`.
    pub reserved: BTreeMap<(String, String), Decimal>,
    /// product id → `stock_qty`.
    pub stock_qty: BTreeMap<String, Decimal>,
    /// `(product id, location id)` → units held by in-transit transfer orders from that
    /// location; `None` when `GET /api/transfer-orders` did not answer 200.
    pub in_transit: Option<BTreeMap<(String, String), Decimal>>,
    /// Number of movements read.
    pub movements: usize,
}

impl LedgerSnapshot {
    fn key(product: &str, location: &str) -> (String, String) {
        (product.to_owned(), location.to_owned())
    }

    /// The stock row's quantity (0 when there is no row).
    pub fn quantity_at(&self, product: &str, location: &str) -> Decimal {
        self.quantity
            .get(&Self::key(product, location))
            .copied()
            .unwrap_or_default()
    }

    /// `stock_qty` minus the quantities at locations: the unallocated stock.
    pub fn unallocated(&self, product: &str) -> Decimal {
        let located: Decimal = self
            .quantity
            .iter()
            .filter(|((p, _), _)| p == product)
            .map(|(_, q)| *q)
            .sum();
        self.stock_qty.get(product).copied().unwrap_or_default() - located
    }

    /// Units of `product` in transit from `location` (0 when transfers are not served).
    pub fn in_transit_from(&self, product: &str, location: &str) -> Decimal {
        self.in_transit
            .as_ref()
            .and_then(|m| m.get(&Self::key(product, location)).copied())
            .unwrap_or_default()
    }

    /// The part of the row's `reserved_quantity` set by hand.
    pub fn hand_reserved(&self, product: &str, location: &str) -> Decimal {
        self.reserved
            .get(&Self::key(product, location))
            .copied()
            .unwrap_or_default()
            - self.in_transit_from(product, location)
    }
}

/// Checks invariants 1–3 over everything the signed-in user sees; panics on a breach.
pub fn check_invariants(t: &TestApp) -> LedgerSnapshot {
    check_invariants_in(t, None)
}

/// [`check_invariants`] restricted to one entity (`entityId` on every list) when given.
pub fn check_invariants_in(t: &TestApp, entity_id: Option<&str>) -> LedgerSnapshot {
    try_check_invariants(t, entity_id).unwrap_or_else(|e| panic!("ledger invariant broken: {e}"))
}

fn get_list(t: &TestApp, path: &str, entity_id: Option<&str>) -> Result<Vec<Value>, String> {
    let path = match entity_id {
        Some(e) => format!("{path}?entityId={e}"),
        None => path.to_owned(),
    };
    let (s, v) = t.get(&path);
    if s != Status::Ok {
        return Err(format!("GET {path} answered {s}: {v}"));
    }
    v["data"]
        .as_array()
        .cloned()
        .ok_or_else(|| format!("GET {path}: `data` is not an array: {v}"))
}

fn id_of(v: &Value, what: &str) -> Result<String, String> {
    // Expanded references are `{id, ...}`; plain ones are strings.
    let id = if v.is_object() { &v["id"] } else { v };
    id.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{what} has no id: {v}"))
}

/// The same checks, reporting a breach as `Err` (for property tests).
pub fn try_check_invariants(
    t: &TestApp,
    entity_id: Option<&str>,
) -> Result<LedgerSnapshot, String> {
    let mut snap = LedgerSnapshot::default();

    for row in get_list(t, "/api/warehouse-stock", entity_id)? {
        let key = (
            id_of(&row["product_id"], "stock row product")?,
            id_of(&row["location_id"], "stock row location")?,
        );
        if snap.quantity.contains_key(&key) {
            return Err(format!(
                "two stock rows for one product and location: {row}"
            ));
        }
        snap.quantity.insert(key.clone(), dec(&row["quantity"]));
        snap.reserved.insert(key, dec(&row["reserved_quantity"]));
    }
    for p in get_list(t, "/api/products", entity_id)? {
        snap.stock_qty
            .insert(id_of(&p["id"], "product")?, dec(&p["stock_qty"]));
    }

    // Σ qty per product and per (product, location), from the ledger itself.
    let mut by_product: BTreeMap<String, Decimal> = BTreeMap::new();
    let mut by_row: BTreeMap<(String, String), Decimal> = BTreeMap::new();
    let movements = get_list(t, "/api/stock-movements", entity_id)?;
    snap.movements = movements.len();
    for m in &movements {
        let product = id_of(&m["product_id"], "movement product")?;
        let qty = dec(&m["qty"]);
        if qty.is_zero() {
            return Err(format!("a movement with qty 0: {m}"));
        }
        *by_product.entry(product.clone()).or_default() += qty;
        match &m["location_id"] {
            Value::Null => {}
            Value::String(l) => *by_row.entry((product, l.clone())).or_default() += qty,
            other => return Err(format!("a movement's location_id is not a string: {other}")),
        }
    }

    // Invariant 1.
    for (key, q) in &snap.quantity {
        let sum = by_row.get(key).copied().unwrap_or_default();
        if *q != sum {
            return Err(format!(
                "stock row of product {} at location {} holds {q}, its movements sum to {sum}",
                key.0, key.1
            ));
        }
    }
    for (key, sum) in &by_row {
        if !snap.quantity.contains_key(key) {
            return Err(format!(
                "product {} has movements summing to {sum} at location {} but no stock row",
                key.0, key.1
            ));
        }
    }
    // Invariant 2.
    for (p, q) in &snap.stock_qty {
        let sum = by_product.get(p).copied().unwrap_or_default();
        if *q != sum {
            return Err(format!(
                "product {p} has stock_qty {q}, its movements sum to {sum}"
            ));
        }
    }
    for p in by_product.keys() {
        if !snap.stock_qty.contains_key(p) {
            return Err(format!(
                "movements of product {p}, which the product list lacks"
            ));
        }
    }

    // Invariant 3.
    let path = match entity_id {
        Some(e) => format!("/api/transfer-orders?entityId={e}"),
        None => "/api/transfer-orders".to_owned(),
    };
    let (s, v) = t.get(&path);
    if s == Status::Ok {
        let mut held: BTreeMap<(String, String), Decimal> = BTreeMap::new();
        let orders = v["data"]
            .as_array()
            .ok_or_else(|| format!("GET {path}: `data` is not an array: {v}"))?;
        for o in orders.iter().filter(|o| o["status"] == "in_transit") {
            let source = id_of(&o["source_location_id"], "transfer order source")?;
            let lines = o["lines"]
                .as_array()
                .ok_or_else(|| format!("transfer order without lines array: {o}"))?;
            for l in lines {
                let product = id_of(&l["product_id"], "transfer line product")?;
                *held.entry((product, source.clone())).or_default() += dec(&l["quantity"]);
            }
        }
        for (key, h) in &held {
            let r = snap.reserved.get(key).copied().ok_or_else(|| {
                format!(
                    "{h} of product {} in transit from location {} but no stock row there",
                    key.0, key.1
                )
            })?;
            if r < *h {
                return Err(format!(
                    "reserved_quantity {r} of product {} at location {} is below the {h} \
                     held by in-transit transfer orders",
                    key.0, key.1
                ));
            }
        }
        snap.in_transit = Some(held);
    }
    for (key, r) in &snap.reserved {
        if r.is_sign_negative() && !r.is_zero() {
            return Err(format!(
                "negative reserved_quantity {r} of product {} at location {}",
                key.0, key.1
            ));
        }
    }
    Ok(snap)
}

/// Is a document with this status posted (docs/documents-stock.md#the-one-rule)?
pub fn is_posted(status: &str) -> bool {
    matches!(status, "sent" | "paid" | "awaiting_payment" | "posted")
}

/// The invariant of docs/documents-stock.md#the-one-rule, through the API: for each posted
/// invoice (bill) with a `location_id`, its movements (`document_id`) sum, per product, to
/// minus (plus) its lines' quantities of that product, all at its location; for every other
/// document, and for movements of documents that no longer exist, the sums are zero.
pub fn try_check_documents(t: &TestApp, entity_id: Option<&str>) -> Result<(), String> {
    // (document id, product id, location id) → Σ qty.
    let mut moved: BTreeMap<(String, String, String), Decimal> = BTreeMap::new();
    for m in get_list(t, "/api/stock-movements", entity_id)? {
        let Value::String(doc) = &m["document_id"] else {
            if m.get("document_id").is_none() {
                return Err(format!("a movement without a document_id field: {m}"));
            }
            continue;
        };
        let product = id_of(&m["product_id"], "movement product")?;
        let location = m["location_id"].as_str().unwrap_or("").to_owned();
        *moved.entry((doc.clone(), product, location)).or_default() += dec(&m["qty"]);
    }
    let mut wanted: BTreeMap<(String, String, String), Decimal> = BTreeMap::new();
    // original id → (Σ total of its posted credits, its amount_credited, its amount_due)
    let mut credited: BTreeMap<String, Decimal> = BTreeMap::new();
    let mut originals: Vec<(String, Decimal, Decimal)> = Vec::new();
    for (path, sign) in [
        ("/api/invoices", Decimal::NEGATIVE_ONE),
        ("/api/bills", Decimal::ONE),
        ("/api/credit-notes", Decimal::ONE),
        ("/api/supplier-credits", Decimal::NEGATIVE_ONE),
    ] {
        for d in get_list(t, path, entity_id)? {
            let posted = is_posted(d["status"].as_str().unwrap_or_default());
            match (d.get("invoice_id").or_else(|| d.get("bill_id")), posted) {
                (Some(Value::String(original)), true) => {
                    *credited.entry(original.clone()).or_default() += dec(&d["total"]);
                }
                (None, _) => originals.push((
                    id_of(&d["id"], "document")?,
                    dec(&d["amount_credited"]),
                    dec(&d["amount_due"]),
                )),
                _ => {}
            }
            let id = id_of(&d["id"], "document")?;
            let status = d["status"].as_str().unwrap_or_default();
            let Some(location) = d["location_id"].as_str() else {
                continue;
            };
            if !is_posted(status) {
                continue;
            }
            for l in d["lines"].as_array().ok_or("document without lines")? {
                if let Some(p) = l["product_id"].as_str() {
                    *wanted
                        .entry((id.clone(), p.to_owned(), location.to_owned()))
                        .or_default() += sign * dec(&l["quantity"]);
                }
            }
        }
    }
    // docs/accounting.md#amount-due: an original's amount_credited is the sum of its
    // posted credits, and never takes its amount_due below zero.
    for (id, has, due) in originals {
        let should = credited.get(&id).copied().unwrap_or_default();
        if has != should {
            return Err(format!(
                "document {id} has amount_credited {has}, its posted credits sum to {should}"
            ));
        }
        if due < Decimal::ZERO && !should.is_zero() {
            return Err(format!("document {id} is credited below zero due ({due})"));
        }
    }
    for (key, w) in &wanted {
        let m = moved.get(key).copied().unwrap_or_default();
        if *w != m {
            return Err(format!(
                "document {} should hold {w} of product {} at location {}, its movements sum to {m}",
                key.0, key.1, key.2
            ));
        }
    }
    for (key, m) in &moved {
        if !m.is_zero() && !wanted.contains_key(key) {
            return Err(format!(
                "document {} holds nothing of product {} at location {}, yet its movements sum to {m}",
                key.0, key.1, key.2
            ));
        }
    }
    Ok(())
}

/// The money of every invoice, bill, credit note and supplier credit, through the API
/// (docs/accounting.md#payments, docs/accounting.md#amount-due): `amount_paid` is the sum
/// of its payments (refunds on a credit), `amount_due` = `total` − `amount_paid` −
/// `amount_credited` and never below zero, and every payment names a listed document of
/// its `document_type`.
pub fn try_check_money(t: &TestApp, entity_id: Option<&str>) -> Result<(), String> {
    // (document type, document id) → Σ amount.
    let mut paid: BTreeMap<(String, String), Decimal> = BTreeMap::new();
    for p in get_list(t, "/api/payments", entity_id)? {
        let kind = p["document_type"].as_str().unwrap_or_default().to_owned();
        *paid
            .entry((kind, id_of(&p["document_id"], "payment document")?))
            .or_default() += dec(&p["amount"]);
    }
    for (path, kind) in [
        ("/api/invoices", "invoice"),
        ("/api/bills", "bill"),
        ("/api/credit-notes", "credit_note"),
        ("/api/supplier-credits", "supplier_credit"),
    ] {
        for d in get_list(t, path, entity_id)? {
            let id = id_of(&d["id"], "document")?;
            let sum = paid
                .remove(&(kind.to_owned(), id.clone()))
                .unwrap_or_default();
            let (total, has, credited, due) = (
                dec(&d["total"]),
                dec(&d["amount_paid"]),
                dec(&d["amount_credited"]),
                dec(&d["amount_due"]),
            );
            if has != sum {
                return Err(format!(
                    "{kind} {id} has amount_paid {has}, its payments sum to {sum}"
                ));
            }
            if due != total - has - credited {
                return Err(format!(
                    "{kind} {id} has amount_due {due}, not total {total} - paid {has} - credited {credited}"
                ));
            }
            if due < Decimal::ZERO {
                return Err(format!("{kind} {id} owes below zero: amount_due {due}"));
            }
        }
    }
    if let Some(((kind, id), sum)) = paid.into_iter().next() {
        return Err(format!(
            "payments of {sum} name {kind} {id}, which is not listed as one"
        ));
    }
    Ok(())
}

/// [`check_invariants_in`] and [`try_check_documents`]; panics on a breach.
pub fn check_all(t: &TestApp, entity_id: Option<&str>) -> LedgerSnapshot {
    let snap = check_invariants_in(t, entity_id);
    try_check_documents(t, entity_id)
        .unwrap_or_else(|e| panic!("docs/documents-stock.md#the-one-rule invariant broken: {e}"));
    snap
}
