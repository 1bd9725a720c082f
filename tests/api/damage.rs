//! Damage inside a record (docs/operations.md#damaged-records): a stored value the server
//! cannot read back (text that is not UTF-8, a number stored as text) answers 503 naming
//! the record and pointing to `stockbook check`, on every list and single-record read of
//! both APIs, instead of a bare 500.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

/// Runs `sql` on the app's in-memory database, as damage on disk would leave it.
fn damage(t: &TestApp, sql: &str, id: &str) {
    let conn = t.db.conn().unwrap();
    assert_eq!(conn.execute(sql, [id]).unwrap(), 1, "{sql}");
}

/// Sixty-four bytes that are not UTF-8, stored as TEXT.
const BAD_TEXT: &str = "CAST(x'fffe00c0c1f5f6f7f8f9fafbfcfdfeff80818283848586878889\
                        8a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8\
                        a9aaabacad' AS TEXT)";

fn key(t: &TestApp) -> String {
    let (s, v) = t.post("/api/api-keys", json!({"name": "damage"}));
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["raw_key"].as_str().unwrap().to_owned()
}

/// A 503 in the error body naming `table`, `id` and `column`, pointing to `stockbook check`.
fn assert_names(res: &(Status, Value), table: &str, id: &str, column: &str) {
    let message = assert_error(res, Status::ServiceUnavailable);
    for part in [
        format!("`{table}`"),
        id.to_owned(),
        format!("`{column}`"),
        "stockbook check".to_owned(),
    ] {
        assert!(message.contains(&part), "{part} missing from: {message}");
    }
}

#[test]
fn a_product_whose_notes_are_not_utf8_is_named_by_every_product_read_of_both_apis() {
    let (t, e) = app_with_entity();
    let good = stock_fixtures::product(&t, &e, "Good");
    let bad = stock_fixtures::product(&t, &e, "Bad");
    damage(
        &t,
        &format!("UPDATE products SET notes = {BAD_TEXT} WHERE id = ?1"),
        &bad,
    );
    let key = key(&t);
    // The whole list streamed, a page of it, the public API's list.
    for res in [
        t.get("/api/products"),
        t.get("/api/products?limit=10"),
        t.get(&format!("/api/products?entityId={e}&q=Bad")),
        t.get_with_key("/api/v1/products", &key),
    ] {
        assert_names(&res, "products", &bad, "notes");
    }
    // A write that reads the product back refuses, and changes nothing.
    let res = t.put("/api/products", json!({"id": bad, "name": "Renamed"}));
    assert_names(&res, "products", &bad, "notes");
    // The sound product is still written and read on its own.
    let (s, v) = t.put("/api/products", json!({"id": good, "name": "Still good"}));
    assert_eq!(s, Status::Ok, "{v}");
    let (s, v) = t.get("/api/products?q=Still");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"][0]["id"], json!(good));
}

#[test]
fn a_contact_with_damaged_text_is_named_by_the_list_and_the_single_record_read() {
    let (t, e) = app_with_entity();
    let bad = session_contact(&t, Some(&e), "Bad Ltd");
    damage(
        &t,
        &format!("UPDATE contacts SET name = {BAD_TEXT} WHERE id = ?1"),
        &bad,
    );
    let key = key(&t);
    for res in [
        t.get("/api/contacts"),
        t.get(&format!("/api/contacts?id={bad}")),
        t.get(&format!("/api/contacts?entityId={e}&limit=5")),
        t.get_with_key("/api/v1/contacts", &key),
    ] {
        assert_names(&res, "contacts", &bad, "name");
    }
}

#[test]
fn a_price_stored_as_text_is_named_and_not_a_500() {
    let (t, e) = app_with_entity();
    let bad = stock_fixtures::product(&t, &e, "Priced");
    damage(
        &t,
        "UPDATE products SET unit_price = 'twelve pounds' WHERE id = ?1",
        &bad,
    );
    assert_names(&t.get("/api/products"), "products", &bad, "unit_price");
}

#[test]
fn a_damaged_location_is_named_by_the_location_and_stock_lists() {
    let (t, e) = app_with_entity();
    let loc = stock_fixtures::location(&t, &e, "Back room");
    let product = stock_fixtures::product(&t, &e, "Stocked");
    stock_fixtures::purchase(&t, &product, &loc, "3");
    damage(
        &t,
        &format!("UPDATE warehouse_locations SET name = {BAD_TEXT} WHERE id = ?1"),
        &loc,
    );
    assert_names(
        &t.get("/api/warehouse-locations"),
        "warehouse_locations",
        &loc,
        "name",
    );
    // A stock row shows its location's name: the location is the damaged record.
    assert_names(
        &t.get(&format!("/api/warehouse-stock?productId={product}")),
        "warehouse_locations",
        &loc,
        "name",
    );
}

#[test]
fn a_damaged_document_line_or_status_names_its_own_table() {
    let (t, e) = app_with_entity();
    let contact = session_contact(&t, Some(&e), "Buyer");
    let (s, v) = t.post(
        "/api/invoices",
        json!({
            "entity_id": e, "contact_id": contact, "issue_date": "2026-01-05",
            "due_date": "2026-02-05",
            "lines": [{"description": "Work", "quantity": 1, "unit_price": 10}],
        }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let invoice = v["data"]["id"].as_str().unwrap().to_owned();
    let line = v["data"]["lines"][0]["id"].as_str().unwrap().to_owned();
    damage(
        &t,
        &format!("UPDATE invoice_lines SET description = {BAD_TEXT} WHERE id = ?1"),
        &line,
    );
    assert_names(
        &t.get(&format!("/api/invoices?id={invoice}")),
        "invoice_lines",
        &line,
        "description",
    );

    let from = stock_fixtures::location(&t, &e, "From");
    let to = stock_fixtures::location(&t, &e, "To");
    let order = stock_fixtures::insert_transfer_order(&t, &e, &from, &to, "draft", &[]);
    {
        let conn = t.db.conn().unwrap();
        conn.execute_batch("PRAGMA ignore_check_constraints = ON")
            .unwrap();
    }
    damage(
        &t,
        "UPDATE transfer_orders SET status = 'lost' WHERE id = ?1",
        &order,
    );
    {
        let conn = t.db.conn().unwrap();
        conn.execute_batch("PRAGMA ignore_check_constraints = OFF")
            .unwrap();
    }
    let res = t.get(&format!("/api/transfer-orders?id={order}"));
    assert_names(&res, "transfer_orders", &order, "status");
    assert!(
        res.1["message"]
            .as_str()
            .unwrap()
            .contains("`lost`, not a transfer order status"),
        "{}",
        res.1
    );
}
