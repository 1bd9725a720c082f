mod common;

use common::*;
use rocket::http::Status;
use serde_json::json;

#[test]
fn a_product_needs_only_a_name_and_gets_the_documented_defaults() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post("/api/products", json!({"name": "Widget", "entity_id": e}));
    assert_eq!(s, Status::Created, "{v}");
    let p = &v["data"];
    assert_eq!(p["sku"], "SKU-00001");
    assert_eq!(p["low_stock_threshold"], json!(5));
    assert_eq!(p["unit"], "pcs");
    assert_eq!(p["vat_rate"], json!(20));
    assert_eq!(p["active"], json!(true));
    assert_eq!(p["stock_qty"], json!(0));
    let (_, v) = t.post("/api/products", json!({"name": "Gadget", "entity_id": e}));
    assert_eq!(v["data"]["sku"], "SKU-00002");
}

#[test]
fn decimals_are_exact_end_to_end() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post(
        "/api/products",
        json!({"name": "Rope", "entity_id": e, "unit_price": 0.1, "cost_price": 0.2, "stock_qty": 0.3}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let raw = v["data"].to_string();
    assert!(raw.contains("\"unit_price\":0.1"), "{raw}");
    assert!(raw.contains("\"stock_qty\":0.3"), "{raw}");
    let (s, v) = t.post(
        "/api/products",
        json!({"name": "Bad", "entity_id": e, "stock_qty": 1.0001}),
    );
    let msg = assert_error(&(s, v), Status::BadRequest);
    assert!(msg.contains("stock_qty"), "{msg}");
}

#[test]
fn duplicate_skus_are_refused_ignoring_case() {
    let (t, e) = app_with_entity();
    t.post(
        "/api/products",
        json!({"name": "A", "sku": "abc-1", "entity_id": e}),
    );
    let r = t.post(
        "/api/products",
        json!({"name": "B", "sku": "ABC-1", "entity_id": e}),
    );
    assert!(assert_error(&r, Status::Conflict).contains("ABC-1"));
}

#[test]
fn a_product_with_movements_cannot_be_deleted_but_a_fresh_one_can() {
    let (t, e) = app_with_entity();
    let (_, a) = t.post(
        "/api/products",
        json!({"name": "A", "entity_id": e, "stock_qty": 3}),
    );
    let (_, b) = t.post("/api/products", json!({"name": "B", "entity_id": e}));
    let r = t.delete("/api/products", json!({"id": a["data"]["id"]}));
    assert_error(&r, Status::Conflict);
    let r = t.delete("/api/products", json!({"id": b["data"]["id"]}));
    assert_eq!(r.0, Status::Ok, "{}", r.1);
    assert_eq!(r.1["data"]["success"], json!(true));
}

#[test]
fn another_users_product_is_not_found() {
    let (t, e) = app_with_entity();
    let (_, a) = t.post("/api/products", json!({"name": "A", "entity_id": e}));
    t.signup("intruder@example.com");
    let r = t.put(
        "/api/products",
        json!({"id": a["data"]["id"], "name": "Mine"}),
    );
    assert_error(&r, Status::NotFound);
    let r = t.get(&format!("/api/products?entityId={e}"));
    assert_error(&r, Status::NotFound);
}
