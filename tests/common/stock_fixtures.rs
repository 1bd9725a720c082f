//! Builders and readers for the inventory tests, all through the session API: products
//! and locations, stock moved with `POST /api/stock-movements`, reorder points with
//! `POST /api/warehouse-stock`, and the stock and the ledger as `GET /api/products`,
//! `GET /api/warehouse-stock` and `GET /api/stock-movements` show them.
//!
//! Quantities go in as JSON numbers written as text ([`num`], or `&str` for the
//! shorthands [`purchase`] and [`sale`]) so that they never pass through `f64`.

use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::invariants::dec;
use super::TestApp;

/// Creates a product in `entity` with extra fields merged in; returns its record.
pub fn product_with(t: &TestApp, entity: &str, name: &str, extra: Value) -> Value {
    let mut body = json!({ "name": name, "entity_id": entity });
    if let Value::Object(m) = extra {
        for (k, v) in m {
            body[k] = v;
        }
    }
    let (s, v) = t.post("/api/products", body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"].clone()
}

/// Creates a product in `entity`; returns its id.
pub fn product(t: &TestApp, entity: &str, name: &str) -> String {
    product_with(t, entity, name, json!({}))["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Creates an active location in `entity`; returns its id.
pub fn location(t: &TestApp, entity: &str, name: &str) -> String {
    let (s, v) = t.post(
        "/api/warehouse-locations",
        json!({ "name": name, "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

pub fn set_location_status(t: &TestApp, id: &str, status: &str) {
    let (s, v) = t.put(
        "/api/warehouse-locations",
        json!({ "id": id, "status": status }),
    );
    assert_eq!(s, Status::Ok, "{v}");
}

/// Deactivates a location.
pub fn deactivate_location(t: &TestApp, location: &str) {
    set_location_status(t, location, "inactive");
}

/// Deactivates a product.
pub fn deactivate_product(t: &TestApp, product: &str) {
    let r = t.put("/api/products", json!({ "id": product, "active": false }));
    assert_eq!(r.0, Status::Ok, "{}", r.1);
}

/// The `id` of a record.
pub fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_owned()
}

/// Posts a movement of `kind` for `qty` (a JSON number) at `location` (or none).
pub fn movement(
    t: &TestApp,
    product: &str,
    location: Option<&str>,
    kind: &str,
    qty: Value,
) -> (Status, Value) {
    let mut body = json!({ "product_id": product, "type": kind, "qty": qty });
    if let Some(l) = location {
        body["location_id"] = json!(l);
    }
    t.post("/api/stock-movements", body)
}

/// Like [`movement`], asserting 201.
pub fn moved(t: &TestApp, product: &str, location: Option<&str>, kind: &str, qty: Value) -> Value {
    let (s, v) = movement(t, product, location, kind, qty);
    assert_eq!(s, Status::Created, "{v}");
    v["data"].clone()
}

/// Puts `qty` of a product at a location with a `purchase`.
pub fn purchase(t: &TestApp, product: &str, location: &str, qty: &str) {
    moved(t, product, Some(location), "purchase", num(qty));
}

/// Sells `qty` (a positive number) of a product at a location.
pub fn sale(t: &TestApp, product: &str, location: &str, qty: &str) {
    moved(t, product, Some(location), "sale", num(&format!("-{qty}")));
}

/// Sets the reorder point of the product's existing stock row at a location.
pub fn set_reorder_point(t: &TestApp, product: &str, location: &str, point: &str) {
    let (s, v) = t.post(
        "/api/warehouse-stock",
        json!({ "product_id": product, "location_id": location, "reorder_point": num(point) }),
    );
    assert_eq!(s, Status::Ok, "no stock row to update: {v}");
}

/// The product as `GET /api/products` shows it.
pub fn get_product(t: &TestApp, id: &str) -> Value {
    let (s, v) = t.get("/api/products");
    assert_eq!(s, Status::Ok, "{v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("product {id} not listed"))
        .clone()
}

pub fn stock_qty(t: &TestApp, product: &str) -> Decimal {
    dec(&get_product(t, product)["stock_qty"])
}

pub fn cost_price(t: &TestApp, product: &str) -> Decimal {
    dec(&get_product(t, product)["cost_price"])
}

/// `(quantity, reserved_quantity)` of the product's stock row at a location, from the
/// product's `stock_levels`; `None` when it has no row there.
pub fn level(t: &TestApp, product: &str, location: &str) -> Option<(Value, Value)> {
    get_product(t, product)["stock_levels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["location_id"]["id"] == json!(location))
        .map(|l| (l["quantity"].clone(), l["reserved_quantity"].clone()))
}

/// Shorthand: the row's quantity and reservation as numbers in JSON.
pub fn at(t: &TestApp, product: &str, location: &str) -> (Value, Value) {
    level(t, product, location).expect("a stock row")
}

/// The stock row of a product at a location, if any, from `GET /api/warehouse-stock`.
pub fn stock_row(t: &TestApp, product: &str, location: &str) -> Option<Value> {
    let (s, v) = t.get(&format!(
        "/api/warehouse-stock?productId={product}&locationId={location}"
    ));
    assert_eq!(s, Status::Ok, "{v}");
    let rows = v["data"].as_array().unwrap();
    assert!(rows.len() <= 1, "duplicate stock rows: {v}");
    rows.first().cloned()
}

/// The quantity at a location (0 when there is no row).
pub fn qty_at(t: &TestApp, product: &str, location: &str) -> Decimal {
    stock_row(t, product, location)
        .map(|r| dec(&r["quantity"]))
        .unwrap_or_default()
}

/// `GET /api/stock-movements<query>` (query starts with `?` or is empty).
pub fn movements(t: &TestApp, query: &str) -> Vec<Value> {
    let (s, v) = t.get(&format!("/api/stock-movements{query}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

/// The ledger of a product: `(type, qty, location_id, reference)` in creation order
/// (the list is newest first by date, then creation; these tests never back-date).
pub fn ledger(t: &TestApp, product: &str) -> Vec<(String, String, Option<String>, Option<String>)> {
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let mut rows: Vec<_> = movements(t, &format!("?productId={product}"))
        .iter()
        .map(|m| {
            (
                m["type"].as_str().expect("type").to_owned(),
                m["qty"].to_string(),
                text(&m["location_id"]),
                text(&m["reference"]),
            )
        })
        .collect();
    rows.reverse();
    rows
}

/// A decimal from text, for expected values.
pub fn d(s: &str) -> Decimal {
    Decimal::from_str_exact(s).unwrap().normalize()
}

/// The owner (user id) of the signed-in session's records, read from `/api/auth/me`.
pub fn me(t: &TestApp) -> String {
    let (s, v) = t.get("/api/auth/me");
    assert_eq!(s, Status::Ok, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

/// Writes an in-transit (or other status) transfer order directly in the database, for
/// tests of rules that read transfer orders without going through their endpoints.
pub fn insert_transfer_order(
    t: &TestApp,
    entity: &str,
    source: &str,
    destination: &str,
    status: &str,
    lines: &[(&str, i64)],
) -> String {
    let owner = me(t);
    let id = uuid::Uuid::new_v4().to_string();
    let status = status.to_owned();
    let entity = entity.to_owned();
    let (source, destination) = (source.to_owned(), destination.to_owned());
    let lines: Vec<(String, i64)> = lines.iter().map(|(p, q)| ((*p).to_owned(), *q)).collect();
    let order = id.clone();
    t.db.write_sync(move |tx| {
        let n: i64 = tx.query_row(
            "SELECT COALESCE(MAX(number_seq), 0) + 1 FROM transfer_orders WHERE entity_id = ?1",
            [&entity],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT INTO transfer_orders (id, owner_id, entity_id, number_seq, number,
                 source_location_id, destination_location_id, status, date_created)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, '2024-01-01T00:00:00Z')",
            rusqlite::params![
                order,
                owner,
                entity,
                n,
                format!("TO-{n:03}"),
                source,
                destination,
                status
            ],
        )?;
        for (p, q) in lines {
            tx.execute(
                "INSERT INTO transfer_order_lines (id, order_id, product_id, quantity)
                 VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![uuid::Uuid::new_v4().to_string(), order, p, q * 1000],
            )?;
        }
        Ok(())
    })
    .expect("insert transfer order");
    id
}

/// A JSON number with exactly this text (for decimals that must not pass through f64).
pub fn num(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}
