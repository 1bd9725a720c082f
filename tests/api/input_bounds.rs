//! Input bounds (docs/limits.md#text, issue 11): long CSV cells, capped row-error lists,
//! NUL characters, totals beyond what the ledger can store, the document line cap and
//! dates at the end of the calendar. Every bad input is a 400 (or a 409 for a total the
//! ledger cannot hold) in the error body (docs/conventions.md#errors), never a 500.

use super::common;

use common::stock_fixtures::{location, moved, movement, product, stock_qty};
use common::{app_with_entity, assert_error, TestApp};
use rocket::http::Status;
use serde_json::{json, Value};

fn contact(t: &TestApp, entity: &str, name: &str) -> String {
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": name, "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

fn api_key(t: &TestApp, entity: &str) -> String {
    let (s, v) = t.post(
        "/api/api-keys",
        json!({ "name": "bounds", "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["raw_key"].as_str().unwrap().to_owned()
}

/// `n` rows `xN,abc` under `name,price`: every row fails (`abc` is not a price).
fn bad_price_rows(n: usize) -> String {
    let mut csv = String::from("name,price\n");
    for i in 0..n {
        csv.push_str(&format!("x{i},abc\n"));
    }
    csv
}

// ---------------------------------------------------------------------------------------
// CSV bounds

#[test]
fn a_csv_header_longer_than_1024_characters_is_a_400_naming_its_column() {
    let (t, entity) = app_with_entity();
    let csv = format!("name,{}\nWidget,1\n", "p".repeat(1_025));
    for path in ["/api/import/preview", "/api/import/csv"] {
        let msg = assert_error(
            &t.post(
                path,
                json!({"entityType": "products", "csv": csv, "entity_id": entity}),
            ),
            Status::BadRequest,
        );
        assert!(
            msg.contains("row 1, column 2") && msg.contains("1,024"),
            "{msg}"
        );
        assert!(msg.len() < 300, "{msg}");
    }
    // 1,024 characters (not bytes: `é` is two) are still fine.
    let csv = format!("name,{}\nWidget,1\n", "é".repeat(1_024));
    let (s, v) = t.post(
        "/api/import/preview",
        json!({"entityType": "products", "csv": csv}),
    );
    assert_eq!(s, Status::Ok, "{v}");
}

#[test]
fn a_csv_cell_longer_than_1024_characters_is_a_400_naming_its_row_and_column() {
    let (t, entity) = app_with_entity();
    let csv = format!("name,price\nWidget,1\nGadget,1\n{},2\n", "n".repeat(5_000));
    let msg = assert_error(
        &t.post(
            "/api/import/csv",
            json!({"entityType": "products", "csv": csv, "entity_id": entity}),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("row 4, column 1"), "{msg}");
    // Nothing of the file was imported.
    let (_, v) = t.get(&format!("/api/products?entityId={entity}"));
    assert_eq!(v["data"], json!([]));
}

#[test]
fn row_errors_name_a_long_header_briefly_and_not_in_full() {
    let (t, entity) = app_with_entity();
    let header = format!("price{}", "x".repeat(1_000));
    let csv = format!("name,{header}\nWidget,abc\n");
    let r = t.post(
        "/api/import/preview",
        json!({
            "entityType": "products", "csv": csv, "entity_id": entity,
            "mapping": { header.clone(): "unit_price" },
        }),
    );
    assert_eq!(r.0, Status::Ok, "{}", r.1);
    let errors = r.1["data"]["errors"].as_array().unwrap().clone();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let column = errors[0]["column"].as_str().unwrap();
    assert!(
        column.len() < 100 && column.starts_with("pricexxx"),
        "{column}"
    );
    assert_eq!(errors[0]["columnIndex"], json!(2));
    assert!(errors[0]["message"].as_str().unwrap().len() < 200);
}

#[test]
fn import_answers_list_at_most_1000_row_errors_and_count_them_all() {
    let (t, entity) = app_with_entity();
    let csv = bad_price_rows(1_500);
    // Preview without an entity (file errors only), with one (a dry run), then the run.
    for body in [
        json!({"entityType": "products", "csv": csv}),
        json!({"entityType": "products", "csv": csv, "entity_id": entity}),
    ] {
        let (s, v) = t.post("/api/import/preview", body);
        assert_eq!(s, Status::Ok, "{v}");
        let errors = v["data"]["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1_000);
        assert_eq!(errors[0]["row"], json!(2));
        assert_eq!(errors[999]["row"], json!(1_001));
        assert_eq!(v["data"]["errorCount"], json!(1_500));
    }
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "products", "csv": csv, "entity_id": entity}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let d = &v["data"];
    assert_eq!(d["failed"].as_array().unwrap().len(), 1_000);
    assert_eq!(d["errorCount"], json!(1_500));
    assert_eq!(d["imported"], json!(0));
    // A small file's answer keeps its shape, with the count beside the list.
    let (_, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "products", "csv": bad_price_rows(2), "entity_id": entity}),
    );
    assert_eq!(v["data"]["failed"].as_array().unwrap().len(), 2);
    assert_eq!(v["data"]["errorCount"], json!(2));
}

// ---------------------------------------------------------------------------------------
// NUL

#[test]
fn a_nul_in_a_query_string_is_a_400_on_every_api() {
    let (t, entity) = app_with_entity();
    let key = api_key(&t, &entity);
    for path in [
        "/api/products?q=ab%00cd".to_owned(),
        format!("/api/contacts?entityId={entity}&search=%00"),
        "/api/products?unknown=a%00".to_owned(),
        "/api/products?a%00b=1".to_owned(),
    ] {
        let msg = assert_error(&t.get(&path), Status::BadRequest);
        assert!(msg.contains("NUL"), "{path}: {msg}");
    }
    let msg = assert_error(
        &t.get_with_key("/api/v1/contacts?limit=10&offset=0%00", &key),
        Status::BadRequest,
    );
    assert!(msg.contains("`offset`") && msg.contains("NUL"), "{msg}");
    // A write with a NUL in its query string changes nothing.
    let (s, v) = t.post(
        "/api/contacts?x=%00",
        json!({ "name": "Never", "entity_id": entity }),
    );
    assert_error(&(s, v), Status::BadRequest);
    let (_, v) = t.get(&format!("/api/contacts?entityId={entity}"));
    assert_eq!(v["data"], json!([]));
    // The same queries without the NUL still answer.
    assert_eq!(t.get("/api/products?q=abcd").0, Status::Ok);
}

#[test]
fn a_nul_in_any_json_string_is_a_400_naming_the_field() {
    let (t, entity) = app_with_entity();
    let msg = assert_error(
        &t.post(
            "/api/contacts",
            json!({ "name": "Acme\u{0}Ltd", "entity_id": entity }),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("`name`") && msg.contains("NUL"), "{msg}");
    let c = contact(&t, &entity, "Acme");
    let msg = assert_error(
        &t.post(
            "/api/invoices",
            json!({ "contact_id": c, "lines": [
                { "description": "fine", "unit_price": 1 },
                { "description": "bad\u{0}", "unit_price": 1 },
            ]}),
        ),
        Status::BadRequest,
    );
    assert!(
        msg.contains("`lines[1].description`") && msg.contains("NUL"),
        "{msg}"
    );
    // A key with a NUL, even one the body type ignores: the message names the object
    // that holds it and never echoes the NUL.
    let msg = assert_error(
        &t.post(
            "/api/contacts",
            json!({ "name": "Acme 2", "entity_id": entity, "x\u{0}": 1 }),
        ),
        Status::BadRequest,
    );
    assert_eq!(msg, "Invalid request body: has a key with a NUL character");
    let msg = assert_error(
        &t.post(
            "/api/invoices",
            json!({ "contact_id": c, "lines": [{ "unit_price": 1, "x\u{0}y": 2 }] }),
        ),
        Status::BadRequest,
    );
    assert_eq!(
        msg,
        "Invalid value for field `lines[0]`: has a key with a NUL character"
    );
    // The public API.
    let key = api_key(&t, &entity);
    let msg = assert_error(
        &t.post_with_key(
            "/api/v1/contacts",
            &key,
            json!({ "name": "A\u{0}", "entity_id": entity }),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("`name`") && msg.contains("NUL"), "{msg}");
    let (_, v) = t.get(&format!("/api/contacts?entityId={entity}"));
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
}

#[test]
fn a_csv_with_a_nul_is_a_400_naming_the_csv() {
    let (t, entity) = app_with_entity();
    let csv = "name,price\nWidget,1\nGad\u{0}get,2\n";
    for path in ["/api/import/preview", "/api/import/csv"] {
        let msg = assert_error(
            &t.post(
                path,
                json!({"entityType": "products", "csv": csv, "entity_id": entity}),
            ),
            Status::BadRequest,
        );
        assert!(msg.contains("`csv`") && msg.contains("NUL"), "{msg}");
    }
    let (_, v) = t.get(&format!("/api/products?entityId={entity}"));
    assert_eq!(v["data"], json!([]));
}

// ---------------------------------------------------------------------------------------
// Stock figures past the bound

/// Puts `units` of stock on a product through one purchase written straight into the
/// ledger, as an older version without the stock bound could have, keeping both ledger
/// sums exact.
fn seed_stock(t: &TestApp, product: &str, units: i64) {
    let scaled = units * 1_000;
    let product = product.to_owned();
    t.db.write_sync(move |tx| {
        tx.execute(
            "INSERT INTO stock_movements (id, owner_id, entity_id, product_id, location_id, qty,
                 type, reference, notes, date, unit_cost, created_at)
             SELECT ?1, owner_id, entity_id, id, NULL, ?2, 'purchase', NULL, NULL,
                 '2024-01-01', NULL, '2024-01-01T00:00:00Z'
             FROM products WHERE id = ?3",
            rusqlite::params![uuid::Uuid::new_v4().to_string(), scaled, product],
        )?;
        tx.execute(
            "UPDATE products SET stock_qty = stock_qty + ?1 WHERE id = ?2",
            rusqlite::params![scaled, product],
        )?;
        Ok(())
    })
    .unwrap();
}

const BOUND: i64 = 1_000_000_000_000;

#[test]
fn a_movement_that_would_take_a_stock_figure_past_ten_to_the_twelve_is_refused() {
    let (t, entity) = app_with_entity();
    // A product's stock: each purchase is within the bound, the sum may not pass it.
    let p = product(&t, &entity, "Sand");
    moved(&t, &p, None, "purchase", json!(BOUND - 1));
    moved(&t, &p, None, "purchase", json!(1));
    assert_eq!(stock_qty(&t, &p).to_string(), "1000000000000");
    let res = movement(&t, &p, None, "purchase", json!(0.001));
    let msg = assert_error(&res, Status::Conflict);
    assert!(msg.starts_with("Quantity too large"), "{msg}");
    assert!(msg.contains("1000000000000.001"), "{msg}");
    assert_eq!(stock_qty(&t, &p).to_string(), "1000000000000");

    // A stock row: refused the same way, naming the location, and nothing is kept.
    let q = product(&t, &entity, "Gravel");
    let main = location(&t, &entity, "Main");
    moved(&t, &q, Some(&main), "purchase", json!(BOUND));
    let res = movement(&t, &q, Some(&main), "purchase", json!(1));
    let msg = assert_error(&res, Status::Conflict);
    assert!(
        msg.contains("too large") && msg.contains("at Main"),
        "{msg}"
    );
    assert_eq!(stock_qty(&t, &q).to_string(), "1000000000000");

    // Every figure the API reports stays within what its schema promises.
    let (_, v) = t.get(&format!("/api/products?entityId={entity}"));
    for product in v["data"].as_array().unwrap() {
        let n: f64 = product["stock_qty"].as_f64().unwrap();
        assert!(n.abs() <= BOUND as f64, "{product}");
    }
    common::invariants::check_invariants(&t);
}

#[test]
fn a_stock_figure_already_past_the_bound_may_only_come_back_towards_it() {
    let (t, entity) = app_with_entity();
    let p = product(&t, &entity, "Sand");
    seed_stock(&t, &p, 3 * BOUND);
    let res = movement(&t, &p, None, "purchase", json!(1));
    assert_error(&res, Status::Conflict);
    // A sale takes it down, though the result is still past the bound.
    moved(&t, &p, None, "sale", json!(-BOUND));
    assert_eq!(stock_qty(&t, &p).to_string(), "2000000000000");
    common::invariants::check_invariants(&t);
}

#[test]
fn a_derived_movement_past_the_bound_is_refused() {
    // With negative stock allowed, setting a product's stock from -10^12 to 10^12 would
    // record one adjustment of 2 x 10^12: refused, and the stock stays as it was.
    let t = common::app_with(&[("allow_negative_stock", json!(true))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let p = product(&t, &entity, "Sand");
    moved(&t, &p, None, "sale", json!(-BOUND));
    let res = t.put("/api/products", json!({ "id": p, "stock_qty": BOUND }));
    let msg = assert_error(&res, Status::Conflict);
    assert!(
        msg.contains("movement of") && msg.contains("2000000000000"),
        "{msg}"
    );
    assert_eq!(stock_qty(&t, &p).to_string(), "-1000000000000");
    common::invariants::check_invariants(&t);
}

// ---------------------------------------------------------------------------------------
// The document line cap

fn many(n: usize, line: &Value) -> Value {
    Value::Array(vec![line.clone(); n])
}

#[test]
fn a_document_of_10001_lines_is_a_400_on_every_document_type() {
    let (t, entity) = app_with_entity();
    let c = contact(&t, &entity, "Lines Ltd");
    let p = product(&t, &entity, "Bolt");
    let main = location(&t, &entity, "Main");
    let shop = location(&t, &entity, "Shop");
    let doc_line = json!({ "description": "x", "unit_price": 1 });
    let cases = [
        (
            "/api/invoices",
            json!({ "contact_id": c, "lines": many(10_001, &doc_line) }),
        ),
        (
            "/api/bills",
            json!({ "contact_id": c, "lines": many(10_001, &doc_line) }),
        ),
        (
            "/api/recurring-invoices",
            json!({ "contact_id": c, "interval": "month", "lines": many(10_001, &doc_line) }),
        ),
        (
            "/api/transfer-orders",
            json!({
                "source_location_id": main, "destination_location_id": shop,
                "entity_id": entity,
                "lines": many(10_001, &json!({ "product_id": p, "quantity": 1 })),
            }),
        ),
    ];
    for (path, body) in cases {
        let msg = assert_error(&t.post(path, body), Status::BadRequest);
        assert!(
            msg.contains("`lines`") && msg.contains("10000"),
            "{path}: {msg}"
        );
    }
    // A stock take's counts.
    let (s, take) = t.post(
        "/api/stock-takes",
        json!({ "location_id": main, "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{take}");
    let id = take["data"]["id"].clone();
    let count = json!({ "id": uuid::Uuid::new_v4().to_string(), "counted_quantity": 1 });
    let msg = assert_error(
        &t.put(
            "/api/stock-takes",
            json!({ "id": id, "lines": many(10_001, &count) }),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("`lines`") && msg.contains("10000"), "{msg}");
    // 10,000 lines are fine.
    let (s, v) = t.post(
        "/api/invoices",
        json!({ "contact_id": c, "lines": many(10_000, &doc_line) }),
    );
    assert_eq!(s, Status::Created, "{}", v["message"]);
}

// ---------------------------------------------------------------------------------------
// Dates at the end of the calendar

#[test]
fn an_issue_date_at_the_end_of_the_calendar_without_a_due_date_is_a_400_naming_due_date() {
    let (t, entity) = app_with_entity();
    let c = contact(&t, &entity, "Late Ltd");
    for path in ["/api/invoices", "/api/bills"] {
        let msg = assert_error(
            &t.post(
                path,
                json!({ "contact_id": c, "issue_date": "9999-12-31", "number": "END-1" }),
            ),
            Status::BadRequest,
        );
        assert!(msg.contains("`due_date`"), "{path}: {msg}");
        // With a due date it is a valid document.
        let (s, v) = t.post(
            path,
            json!({ "contact_id": c, "issue_date": "9999-12-31", "due_date": "9999-12-31" }),
        );
        assert_eq!(s, Status::Created, "{path}: {v}");
    }
    let key = api_key(&t, &entity);
    for path in ["/api/v1/invoices", "/api/v1/bills"] {
        let msg = assert_error(
            &t.post_with_key(
                path,
                &key,
                json!({ "contact_id": c, "issue_date": "9999-12-31" }),
            ),
            Status::BadRequest,
        );
        assert!(msg.contains("`due_date`"), "{path}: {msg}");
    }
}

#[test]
fn an_imported_invoice_at_the_end_of_the_calendar_is_a_row_error_and_the_rest_imports() {
    let (t, entity) = app_with_entity();
    let csv = "number,contact_name,issue_date,line_description,line_unit_price\n\
               A-1,Alpha Ltd,2024-03-01,Work,100\n\
               Z-9,Omega Ltd,9999-12-31,Work,100\n\
               B-1,Bravo Ltd,2024-03-02,Work,100\n";
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": entity}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let d = &v["data"];
    assert_eq!(d["imported"], json!(2), "{d}");
    let failed = d["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{d}");
    assert_eq!(failed[0]["row"], json!(3));
    let m = failed[0]["message"].as_str().unwrap();
    assert!(m.contains("due_date"), "{m}");
}
