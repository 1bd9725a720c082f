//! Stock set-up for the document and report tests, all over HTTP: products and
//! locations, stock at a location with `POST /api/stock-movements`, reorder points with
//! `POST /api/warehouse-stock`, and the stock and the ledger as `GET /api/products` and
//! `GET /api/stock-movements` show them.
#![allow(dead_code)]

use rocket::http::Status;
use serde_json::{json, Value};

use crate::common::TestApp;

/// Creates a product from `body` (merged over `{entity_id}`); returns its JSON.
pub fn product_with(t: &TestApp, entity: &str, body: Value) -> Value {
    let mut b = json!({ "entity_id": entity });
    for (k, v) in body.as_object().expect("object") {
        b[k] = v.clone();
    }
    let (s, v) = t.post("/api/products", b);
    assert_eq!(s, Status::Created, "{v}");
    v["data"].clone()
}

/// Creates a product named `name`; returns its id.
pub fn product(t: &TestApp, entity: &str, name: &str) -> String {
    id(&product_with(t, entity, json!({ "name": name })))
}

/// Creates a location named `name`; returns its id.
pub fn location(t: &TestApp, entity: &str, name: &str) -> String {
    let (s, v) = t.post(
        "/api/warehouse-locations",
        json!({ "name": name, "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    id(&v["data"])
}

pub fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_owned()
}

/// Posts one movement of `kind` (`purchase`, `sale`, ...) at a location; `Err` carries
/// the refusal message.
pub fn movement(
    t: &TestApp,
    product: &str,
    location: &str,
    qty: &str,
    kind: &str,
) -> Result<(), String> {
    let qty: Value = serde_json::from_str(qty).expect("quantity");
    let (s, v) = t.post(
        "/api/stock-movements",
        json!({ "product_id": product, "location_id": location, "qty": qty, "type": kind }),
    );
    if s == Status::Created {
        Ok(())
    } else {
        Err(v["message"].as_str().unwrap_or_default().to_owned())
    }
}

/// Puts `qty` of a product at a location with a `purchase`.
pub fn purchase(t: &TestApp, product: &str, location: &str, qty: &str) {
    movement(t, product, location, qty, "purchase").expect("purchase");
}

/// Sells `qty` (a positive number) of a product at a location.
pub fn sale(t: &TestApp, product: &str, location: &str, qty: &str) {
    movement(t, product, location, &format!("-{qty}"), "sale").expect("sale");
}

/// Sets the reorder point of the product's existing stock row at a location.
pub fn set_reorder_point(t: &TestApp, product: &str, location: &str, point: &str) {
    let point: Value = serde_json::from_str(point).expect("quantity");
    let (s, v) = t.post(
        "/api/warehouse-stock",
        json!({ "product_id": product, "location_id": location, "reorder_point": point }),
    );
    assert_eq!(s, Status::Ok, "no stock row to update: {v}");
}

/// The product as `GET /api/products` shows it.
pub fn product_view(t: &TestApp, product: &str) -> Value {
    let (s, v) = t.get("/api/products");
    assert_eq!(s, Status::Ok, "{v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == json!(product))
        .cloned()
        .expect("product listed")
}

/// The product's aggregate `stock_qty`.
pub fn stock_qty(t: &TestApp, product: &str) -> Value {
    product_view(t, product)["stock_qty"].clone()
}

/// `(quantity, reserved_quantity)` of the product's stock row at a location, from the
/// product's `stock_levels`; `None` when it has no row there.
pub fn level(t: &TestApp, product: &str, location: &str) -> Option<(Value, Value)> {
    product_view(t, product)["stock_levels"]
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

/// The ledger of a product: `(type, qty, location_id, reference)` in creation order
/// (the list is newest first by date, then creation; these tests never back-date).
pub fn movements(
    t: &TestApp,
    product: &str,
) -> Vec<(String, String, Option<String>, Option<String>)> {
    let (s, v) = t.get(&format!("/api/stock-movements?productId={product}"));
    assert_eq!(s, Status::Ok, "{v}");
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let mut rows: Vec<_> = v["data"]
        .as_array()
        .expect("movements")
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

/// Deactivates a product.
pub fn deactivate_product(t: &TestApp, product: &str) {
    let r = t.put("/api/products", json!({ "id": product, "active": false }));
    assert_eq!(r.0, Status::Ok, "{}", r.1);
}

/// Deactivates a location.
pub fn deactivate_location(t: &TestApp, location: &str) {
    let r = t.put(
        "/api/warehouse-locations",
        json!({ "id": location, "status": "inactive" }),
    );
    assert_eq!(r.0, Status::Ok, "{}", r.1);
}
