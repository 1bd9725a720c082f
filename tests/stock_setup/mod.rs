//! Stock set-up for the document and report tests: products and locations over HTTP,
//! stock at a location through the ledger itself (`apply_movement`), and the stock as
//! `GET /api/products` shows it.
//!
//! The located movements go straight to the ledger because the warehouse-stock and
//! stock-movement endpoints are built on another branch; once merged, `movement` can post
//! to `/api/stock-movements` instead.
#![allow(dead_code)]

use rocket::http::Status;
use serde_json::{json, Value};
use stockbook::clock::rfc3339;
use stockbook::db::decimal::Qty;
use stockbook::inventory::ledger::{self, MovementType, NewMovement, Origin};
use stockbook::inventory::{location_ref, product_ref};
use stockbook::scope::Scope;

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

/// Applies one client movement at a location through the ledger; `Err` carries the
/// refusal message.
pub fn movement(
    t: &TestApp,
    product: &str,
    location: &str,
    qty: &str,
    kind: MovementType,
) -> Result<(), String> {
    let qty: Qty = qty.parse().expect("quantity");
    let (product, location) = (product.to_owned(), location.to_owned());
    let now = rfc3339(t.clock.now());
    let today = t.clock.today();
    t.db.write_sync(move |tx| {
        let owner: String = tx.query_row(
            "SELECT owner_id FROM products WHERE id = ?1",
            [&product],
            |r| r.get(0),
        )?;
        let scope = Scope::user(owner);
        let p = product_ref(tx, &scope, &product)?;
        let l = location_ref(tx, &scope, &location)?;
        ledger::apply_movement(
            tx,
            &NewMovement {
                product: &p,
                location: Some(&l),
                qty,
                kind,
                reference: None,
                notes: None,
                date: today,
                unit_cost: None,
                origin: Origin::Client,
            },
            false,
            &now,
        )
    })
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Puts `qty` of a product at a location with a `purchase`.
pub fn purchase(t: &TestApp, product: &str, location: &str, qty: &str) {
    movement(t, product, location, qty, MovementType::Purchase).expect("purchase");
}

/// Sells `qty` (a positive number) of a product at a location.
pub fn sale(t: &TestApp, product: &str, location: &str, qty: &str) {
    movement(t, product, location, &format!("-{qty}"), MovementType::Sale).expect("sale");
}

/// Sets a stock row's reorder point (not a stock change; the warehouse-stock PUT does this
/// once merged).
pub fn set_reorder_point(t: &TestApp, product: &str, location: &str, point: &str) {
    let point: Qty = point.parse().expect("quantity");
    let (product, location) = (product.to_owned(), location.to_owned());
    t.db
        .write_sync(move |tx| {
            let n = tx.execute(
                "UPDATE warehouse_stock SET reorder_point = ?1 WHERE product_id = ?2 AND location_id = ?3",
                rusqlite::params![point, product, location],
            )?;
            assert_eq!(n, 1, "no stock row");
            Ok(())
        })
        .unwrap();
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

/// The ledger of a product: `(type, qty, location_id, reference)` in creation order.
pub fn movements(
    t: &TestApp,
    product: &str,
) -> Vec<(String, String, Option<String>, Option<String>)> {
    let product = product.to_owned();
    t.db.read_sync(move |conn| {
        let mut stmt = conn.prepare(
            "SELECT type, qty, location_id, reference FROM stock_movements
                 WHERE product_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt
            .query_map([&product], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Qty>(1)?.to_string(),
                    r.get(2)?,
                    r.get(3)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
    .unwrap()
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
