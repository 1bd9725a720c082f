//! Accounting records over the session API (docs/accounting.md): CRUD conventions,
//! document totals and numbering, value sets, ownership and references.

use super::common;

use common::*;
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

fn invoice(t: &TestApp, body: Value) -> (Status, Value) {
    t.post("/api/invoices", body)
}

fn ids(v: &Value) -> Vec<String> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

// ----------------------------------------------------------------------------------
// Contacts and the CRUD conventions

#[test]
fn a_contact_is_created_listed_updated_and_deleted_with_the_collection_conventions() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": "  Jane Smith ", "email": "jane@example.com", "entity_id": e,
                "provider": "stripe", "provider_ref": "cus_1" }),
    );
    assert_eq!(s, Status::Created);
    let c = &v["data"];
    assert_eq!(c["name"], "Jane Smith");
    assert_eq!(c["type"], "customer", "type defaults to customer");
    assert_eq!(c["entity_id"], json!(e));
    assert_eq!(c["provider_ref"], "cus_1");
    assert!(c["phone"].is_null());
    let id = c["id"].as_str().unwrap().to_owned();

    let (s, v) = t.get(&format!("/api/contacts?entityId={e}"));
    assert_eq!(s, Status::Ok);
    assert_eq!(ids(&v), vec![id.clone()]);

    let (s, v) = t.put(
        "/api/contacts",
        json!({ "id": id, "type": "supplier", "email": null }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["type"], "supplier");
    assert!(v["data"]["email"].is_null());
    assert_eq!(
        v["data"]["name"], "Jane Smith",
        "PUT returns the whole record"
    );
    assert_eq!(v["data"]["provider"], "stripe");

    let (s, v) = t.delete("/api/contacts", json!({ "id": id }));
    assert_eq!(s, Status::Ok);
    assert_eq!(v, json!({ "data": { "success": true } }));
    let (_, v) = t.get("/api/contacts");
    assert_eq!(v["data"], json!([]));
}

#[test]
fn session_lists_take_limit_and_offset_and_order_names_alphabetically() {
    let (t, e) = app_with_entity();
    for n in ["charlie", "Alpha", "bravo"] {
        contact(&t, &e, n);
    }
    let (_, v) = t.get("/api/contacts");
    let names: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Alpha", "bravo", "charlie"]);
    let (_, v) = t.get("/api/contacts?limit=1&offset=1");
    assert_eq!(v["data"][0]["name"], "bravo");
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert_error(&t.get("/api/contacts?limit=0"), Status::BadRequest);
}

/// docs/conventions.md#lists: `id` keeps one record, for every accounting list; the
/// public API's lists take no such filter.
#[test]
fn session_lists_read_one_record_by_id() {
    let (t, e) = app_with_entity();
    let alpha = contact(&t, &e, "Alpha");
    let bravo = contact(&t, &e, "Bravo");
    let (s, v) = invoice(
        &t,
        json!({ "contact_id": bravo, "entity_id": e,
                "lines": [{ "description": "Work", "quantity": 2, "unit_price": 10 }] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let inv = v["data"].clone();
    invoice(
        &t,
        json!({ "contact_id": alpha, "entity_id": e,
                "lines": [{ "description": "Other", "quantity": 1, "unit_price": 5 }] }),
    );

    let (s, v) = t.get(&format!("/api/contacts?id={bravo}"));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(ids(&v), vec![bravo.clone()]);
    let (_, v) = t.get(&format!(
        "/api/invoices?id={}&entityId={e}",
        inv["id"].as_str().unwrap()
    ));
    assert_eq!(v["data"], json!([inv]), "the whole invoice, with its lines");
    let (_, v) = t.get(&format!("/api/bills?id={}", inv["id"].as_str().unwrap()));
    assert_eq!(v["data"], json!([]), "an invoice is not a bill");
    let e2 = t.entity("Other Ltd");
    let (_, v) = t.get(&format!("/api/contacts?id={bravo}&entityId={e2}"));
    assert_eq!(v["data"], json!([]));
    for path in [
        "/api/contacts?id=bravo",
        "/api/invoices?id=",
        "/api/expenses?id=1",
    ] {
        let m = assert_error(&t.get(path), Status::BadRequest);
        assert!(m.contains("id"), "{path}: {m}");
    }
    t.signup("intruder@example.com");
    let (_, v) = t.get(&format!("/api/contacts?id={bravo}"));
    assert_eq!(v["data"], json!([]));
}

#[test]
fn a_contact_without_a_name_or_with_an_unknown_type_is_refused() {
    let (t, e) = app_with_entity();
    let msg = assert_error(
        &t.post("/api/contacts", json!({ "entity_id": e })),
        Status::BadRequest,
    );
    assert_eq!(msg, "Missing required field: name");
    let msg = assert_error(
        &t.post("/api/contacts", json!({ "name": "  " })),
        Status::BadRequest,
    );
    assert_eq!(msg, "Missing required field: name");
    let msg = assert_error(
        &t.post("/api/contacts", json!({ "name": "X", "type": "vendor" })),
        Status::BadRequest,
    );
    assert!(
        msg.contains("type") && msg.contains("customer, supplier, both"),
        "{msg}"
    );
    let (_, v) = t.get("/api/contacts");
    assert_eq!(v["data"], json!([]), "refused requests change nothing");
}

#[test]
fn a_contact_that_a_document_or_project_uses_cannot_be_deleted() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Used");
    let (s, v) = invoice(&t, json!({ "contact_id": c }));
    assert_eq!(s, Status::Created, "{v}");
    let msg = assert_error(
        &t.delete("/api/contacts", json!({ "id": c })),
        Status::Conflict,
    );
    assert!(msg.contains("Used"), "{msg}");

    let c2 = contact(&t, &e, "Client");
    let (s, _) = t.post("/api/projects", json!({ "name": "P", "contact_id": c2 }));
    assert_eq!(s, Status::Created);
    assert_error(
        &t.delete("/api/contacts", json!({ "id": c2 })),
        Status::Conflict,
    );

    let c3 = contact(&t, &e, "Subscriber");
    let (s, _) = t.post(
        "/api/recurring-invoices",
        json!({ "contact_id": c3, "interval": "month" }),
    );
    assert_eq!(s, Status::Created);
    assert_error(
        &t.delete("/api/contacts", json!({ "id": c3 })),
        Status::Conflict,
    );
}

#[test]
fn another_users_records_behave_exactly_like_unknown_ones() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Private");
    let (_, inv) = invoice(&t, json!({ "contact_id": c }));
    let inv_id = inv["data"]["id"].as_str().unwrap().to_owned();

    t.signup("intruder@example.com");
    let (_, v) = t.get("/api/contacts");
    assert_eq!(v["data"], json!([]));
    let (_, v) = t.get("/api/invoices");
    assert_eq!(v["data"], json!([]));
    let m1 = assert_error(
        &t.put("/api/contacts", json!({ "id": c, "name": "Mine" })),
        Status::NotFound,
    );
    assert_eq!(m1, format!("Contact not found: {c}"));
    let unknown = "00000000-0000-4000-8000-000000000000";
    let m2 = assert_error(
        &t.put("/api/contacts", json!({ "id": unknown, "name": "Mine" })),
        Status::NotFound,
    );
    assert_eq!(m2, format!("Contact not found: {unknown}"));
    assert_error(
        &t.delete("/api/invoices", json!({ "id": inv_id })),
        Status::NotFound,
    );
    assert_error(
        &t.get(&format!("/api/contacts?entityId={e}")),
        Status::NotFound,
    );
    assert_error(
        &t.post("/api/invoices", json!({ "contact_id": c })),
        Status::NotFound,
    );
    assert_error(
        &t.post("/api/contacts", json!({ "name": "X", "entity_id": e })),
        Status::NotFound,
    );
    assert_error(
        &t.put("/api/contacts", json!({ "id": "not-a-uuid" })),
        Status::BadRequest,
    );
}

#[test]
fn records_of_two_entities_never_reference_each_other() {
    let (t, a) = app_with_entity();
    let b = t.entity("Other Ltd");
    let ca = contact(&t, &a, "In A");
    let msg = assert_error(
        &invoice(&t, json!({ "contact_id": ca, "entity_id": b })),
        Status::BadRequest,
    );
    assert!(msg.contains("contact_id"), "{msg}");

    // Without entity_id a document takes its contact's entity.
    let (s, v) = invoice(&t, json!({ "contact_id": ca }));
    assert_eq!(s, Status::Created);
    assert_eq!(v["data"]["entity_id"], json!(a));

    // A product of another entity cannot be a line of it.
    let pid = insert_product(&t, Some(&b));
    let msg = assert_error(
        &invoice(
            &t,
            json!({ "contact_id": ca, "lines": [{ "product_id": pid, "unit_price": 1 }] }),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("lines[0].product_id"), "{msg}");

    let cb = contact(&t, &b, "In B");
    let inv = v["data"]["id"].as_str().unwrap();
    assert_error(
        &t.put("/api/invoices", json!({ "id": inv, "contact_id": cb })),
        Status::BadRequest,
    );
}

/// A product, created directly in the database (the products API lives elsewhere).
fn insert_product(t: &TestApp, entity: Option<&str>) -> String {
    let (_, me) = t.get("/api/auth/me");
    let owner = me["data"]["id"].as_str().unwrap().to_owned();
    let id = uuid::Uuid::new_v4().to_string();
    let entity = entity.map(str::to_owned);
    let pid = id.clone();
    t.db.write_sync(move |tx| {
        tx.execute(
            "INSERT INTO products (id, owner_id, entity_id, name, sku, unit_price, cost_price,
                 vat_rate, created_at, updated_at)
             VALUES (?1, ?2, ?3, 'Widget', ?4, 125000, 80000, 500, 'now', 'now')",
            rusqlite::params![pid, owner, entity, format!("W-{pid}")],
        )?;
        Ok(())
    })
    .unwrap();
    id
}

// ----------------------------------------------------------------------------------
// Invoices and bills

#[test]
fn invoice_totals_sum_lines_rounded_each_at_the_half_penny_with_mixed_vat_rates() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Customer");
    let (s, v) = invoice(
        &t,
        json!({
            "contact_id": c,
            "lines": [
                // 1 × 0.125 = 0.125 → 0.13; VAT 20 % of 0.13 = 0.026 → 0.03
                { "description": "half penny", "quantity": 1, "unit_price": 0.125, "vat_rate": 20 },
                // 3 × 1.415 = 4.245 → 4.25; VAT 5 % = 0.2125 → 0.21
                { "description": "reduced rate", "quantity": 3, "unit_price": 1.415, "vat_rate": 5 },
                // 2 × 9.99 × (1 − 12.5 %) = 17.4825 → 17.48; VAT 20 % = 3.496 → 3.50
                { "description": "discounted", "quantity": 2, "unit_price": 9.99, "discount": 12.5 },
                // zero-rated: 0.005 → 0.01, VAT 0
                { "description": "zero rated", "quantity": 1, "unit_price": 0.005, "vat_rate": 0 },
                // 0.005 → 0.01 again: per-line rounding gives 0.02 where rounding the sum gives 0.01
                { "description": "zero rated 2", "quantity": 1, "unit_price": 0.005, "vat_rate": 0 },
            ]
        }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let d = &v["data"];
    let lines = d["lines"].as_array().unwrap();
    let nets: Vec<String> = lines.iter().map(|l| l["net"].to_string()).collect();
    let vats: Vec<String> = lines.iter().map(|l| l["vat"].to_string()).collect();
    assert_eq!(nets, ["0.13", "4.25", "17.48", "0.01", "0.01"]);
    assert_eq!(vats, ["0.03", "0.21", "3.5", "0", "0"]);
    assert_eq!(lines[2]["vat_rate"], json!(20), "vat_rate defaults to 20");
    assert_eq!(lines[0]["discount"], json!(0), "discount defaults to 0");
    assert_eq!(d["subtotal"].to_string(), "21.88");
    assert_eq!(d["vat_total"].to_string(), "3.74");
    assert_eq!(d["total"].to_string(), "25.62");
    assert_eq!(d["amount_paid"], json!(0));
    assert_eq!(d["status"], "draft");

    // The stored document reads back with the same figures.
    let (_, v) = t.get("/api/invoices");
    assert_eq!(v["data"][0]["total"].to_string(), "25.62");
    assert_eq!(v["data"][0]["lines"].as_array().unwrap().len(), 5);
}

#[test]
fn bill_totals_follow_the_same_rules_and_negative_lines_round_away_from_zero() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Supplier");
    let (s, v) = t.post(
        "/api/bills",
        json!({
            "contact_id": c,
            "status": "awaiting_payment",
            "lines": [
                { "description": "goods", "quantity": 2.5, "unit_price": 3.3333, "vat_rate": 20 },
                { "description": "credit", "quantity": 1, "unit_price": -0.125, "vat_rate": 20 },
            ]
        }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let d = &v["data"];
    // 2.5 × 3.3333 = 8.33325 → 8.33; VAT 1.666 → 1.67
    // −0.125 → −0.13; VAT −0.026 → −0.03
    assert_eq!(d["lines"][0]["net"].to_string(), "8.33");
    assert_eq!(d["lines"][0]["vat"].to_string(), "1.67");
    assert_eq!(d["lines"][1]["net"].to_string(), "-0.13");
    assert_eq!(d["lines"][1]["vat"].to_string(), "-0.03");
    assert_eq!(d["subtotal"].to_string(), "8.2");
    assert_eq!(d["vat_total"].to_string(), "1.64");
    assert_eq!(d["total"].to_string(), "9.84");
    assert!(d["number"].is_null(), "a bill without a number keeps none");
    assert_eq!(d["status"], "awaiting_payment");
}

#[test]
fn invoice_numbers_count_per_entity_and_are_unique_ignoring_case() {
    let (t, a) = app_with_entity();
    let b = t.entity("Second Ltd");
    let ca = contact(&t, &a, "A customer");
    let cb = contact(&t, &b, "B customer");
    let num = |c: &str| {
        let (s, v) = invoice(&t, json!({ "contact_id": c }));
        assert_eq!(s, Status::Created, "{v}");
        v["data"]["number"].as_str().unwrap().to_owned()
    };
    assert_eq!(num(&ca), "INV-0001");
    assert_eq!(num(&ca), "INV-0002");
    assert_eq!(num(&cb), "INV-0001", "each entity counts on its own");

    let msg = assert_error(
        &invoice(&t, json!({ "contact_id": ca, "number": "inv-0002" })),
        Status::Conflict,
    );
    assert!(msg.contains("inv-0002"), "{msg}");
    // The same number in the other entity is fine.
    let (s, _) = invoice(&t, json!({ "contact_id": cb, "number": "INV-0002" }));
    assert_eq!(s, Status::Created);
    // A number given by hand moves the sequence on.
    let (s, _) = invoice(&t, json!({ "contact_id": ca, "number": "INV-0010" }));
    assert_eq!(s, Status::Created);
    assert_eq!(num(&ca), "INV-0011");
    let (s, _) = invoice(&t, json!({ "contact_id": ca, "number": "Special-1" }));
    assert_eq!(s, Status::Created);
    assert_eq!(num(&ca), "INV-0012");

    // Renumbering onto a taken number is refused too.
    let (_, v) = t.get(&format!("/api/invoices?entityId={a}"));
    let any = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["number"] == "Special-1")
        .unwrap()["id"]
        .clone();
    assert_error(
        &t.put("/api/invoices", json!({ "id": any, "number": "INV-0001" })),
        Status::Conflict,
    );
    assert_error(
        &t.put("/api/invoices", json!({ "id": any, "number": null })),
        Status::BadRequest,
    );
}

#[test]
fn a_refused_invoice_keeps_nothing_and_spends_no_number() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Customer");
    let msg = assert_error(
        &invoice(
            &t,
            json!({ "contact_id": c, "lines": [
                { "description": "ok", "unit_price": 1 },
                { "description": "bad", "unit_price": 1, "vat_rate": 120 }
            ] }),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("lines[1].vat_rate"), "{msg}");
    let (_, v) = t.get("/api/invoices");
    assert_eq!(v["data"], json!([]));
    let (_, v) = invoice(&t, json!({ "contact_id": c }));
    assert_eq!(v["data"]["number"], "INV-0001");
}

#[test]
fn bill_numbers_are_unique_per_supplier() {
    let (t, e) = app_with_entity();
    let s1 = contact(&t, &e, "Supplier 1");
    let s2 = contact(&t, &e, "Supplier 2");
    let (s, _) = t.post("/api/bills", json!({ "contact_id": s1, "number": "1001" }));
    assert_eq!(s, Status::Created);
    assert_error(
        &t.post("/api/bills", json!({ "contact_id": s1, "number": "1001" })),
        Status::Conflict,
    );
    let (s, _) = t.post("/api/bills", json!({ "contact_id": s2, "number": "1001" }));
    assert_eq!(s, Status::Created);
    // Bills without numbers never collide.
    for _ in 0..2 {
        let (s, _) = t.post("/api/bills", json!({ "contact_id": s1 }));
        assert_eq!(s, Status::Created);
    }
}

#[test]
fn due_date_defaults_to_thirty_days_after_issue_and_may_not_precede_it() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Customer");
    let (_, v) = invoice(&t, json!({ "contact_id": c, "issue_date": "2024-01-15" }));
    assert_eq!(v["data"]["issue_date"], "2024-01-15");
    assert_eq!(v["data"]["due_date"], "2024-02-14");
    let (_, v) = t.post(
        "/api/bills",
        json!({ "contact_id": c, "issue_date": "2024-12-10" }),
    );
    assert_eq!(v["data"]["due_date"], "2025-01-09");
    let (_, v) = invoice(&t, json!({ "contact_id": c }));
    let today = t.clock.today();
    assert_eq!(v["data"]["issue_date"], json!(today.to_string()));
    assert_error(
        &invoice(
            &t,
            json!({ "contact_id": c, "issue_date": "2024-02-01", "due_date": "2024-01-31" }),
        ),
        Status::BadRequest,
    );
    assert_error(
        &invoice(&t, json!({ "contact_id": c, "issue_date": "2024-02-30" })),
        Status::BadRequest,
    );
}

#[test]
fn document_statuses_are_checked_against_their_own_value_sets() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Both");
    for s in ["draft", "sent", "paid", "void"] {
        let (st, v) = invoice(&t, json!({ "contact_id": c, "status": s }));
        assert_eq!(st, Status::Created, "{v}");
    }
    assert_error(
        &invoice(&t, json!({ "contact_id": c, "status": "awaiting_payment" })),
        Status::BadRequest,
    );
    for s in ["draft", "awaiting_payment", "paid", "void"] {
        let (st, v) = t.post("/api/bills", json!({ "contact_id": c, "status": s }));
        assert_eq!(st, Status::Created, "{v}");
    }
    assert_error(
        &t.post("/api/bills", json!({ "contact_id": c, "status": "sent" })),
        Status::BadRequest,
    );
}

#[test]
fn document_fields_are_validated() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Customer");
    let cases = [
        (json!({}), "Missing required field: contact_id"),
        (
            json!({ "contact_id": null }),
            "Missing required field: contact_id",
        ),
        (json!({ "contact_id": "nope" }), "contact_id"),
        (json!({ "contact_id": c, "amount_paid": -1 }), "amount_paid"),
        (
            json!({ "contact_id": c, "amount_paid": 1.001 }),
            "amount_paid",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "unit_price": 1 }] }),
            "Missing required field: lines[0].description",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "description": "x" }] }),
            "Missing required field: lines[0].unit_price",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": 1.00001 }] }),
            "lines[0].unit_price",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": 1, "quantity": 0 }] }),
            "lines[0].quantity",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": 1, "quantity": 1.0001 }] }),
            "lines[0].quantity",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": 1, "discount": 101 }] }),
            "lines[0].discount",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": 1, "discount": -1 }] }),
            "lines[0].discount",
        ),
        (
            // A string holding a decimal is taken (docs/public-api.md#exact-amounts); one
            // that does not hold one is not.
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": "1 pound" }] }),
            "lines[0].unit_price",
        ),
        (
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": 1e13 }] }),
            "lines[0].unit_price",
        ),
    ];
    for (body, want) in cases {
        let msg = assert_error(&invoice(&t, body.clone()), Status::BadRequest);
        assert!(msg.contains(want), "{body}: {msg}");
    }
    assert_error(
        &invoice(
            &t,
            json!({ "contact_id": "00000000-0000-4000-8000-000000000000" }),
        ),
        Status::NotFound,
    );
}

#[test]
fn a_line_naming_a_product_takes_its_name_price_and_vat_rate() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Customer");
    let p = insert_product(&t, Some(&e));
    let (s, v) = invoice(
        &t,
        json!({ "contact_id": c, "lines": [{ "product_id": p, "quantity": 2 }] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let l = &v["data"]["lines"][0];
    assert_eq!(l["description"], "Widget");
    assert_eq!(l["unit_price"], json!(12.5));
    assert_eq!(l["vat_rate"], json!(5));
    assert_eq!(l["net"], json!(25));
    assert_eq!(l["product_id"], json!(p));
    // A bill takes the cost price.
    let (_, v) = t.post(
        "/api/bills",
        json!({ "contact_id": c, "lines": [{ "product_id": p }] }),
    );
    assert_eq!(v["data"]["lines"][0]["unit_price"], json!(8));
    assert_error(
        &invoice(
            &t,
            json!({ "contact_id": c, "lines": [{ "product_id": "00000000-0000-4000-8000-000000000000" }] }),
        ),
        Status::NotFound,
    );
}

#[test]
fn an_invoice_put_replaces_lines_recomputes_totals_and_returns_the_whole_record() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Customer");
    let (_, v) = invoice(
        &t,
        json!({ "contact_id": c, "lines": [{ "description": "a", "unit_price": 10 }] }),
    );
    let id = v["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(v["data"]["total"], json!(12));
    let (s, v) = t.put(
        "/api/invoices",
        json!({ "id": id, "status": "sent", "amount_paid": 5,
                "lines": [{ "description": "b", "unit_price": 20, "vat_rate": 0 },
                          { "description": "c", "unit_price": 1 }] }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let d = &v["data"];
    assert_eq!(d["status"], "sent");
    assert_eq!(d["number"], "INV-0001");
    assert_eq!(d["subtotal"], json!(21));
    assert_eq!(d["vat_total"], json!(0.2));
    assert_eq!(d["total"], json!(21.2));
    assert_eq!(d["amount_paid"], json!(5));
    assert_eq!(d["lines"].as_array().unwrap().len(), 2);
    assert_eq!(d["contact_name"], "Customer");
    // A PUT without lines keeps them.
    let (_, v) = t.put("/api/invoices", json!({ "id": id, "notes": "thanks" }));
    assert_eq!(v["data"]["lines"].as_array().unwrap().len(), 2);
    assert_eq!(v["data"]["total"], json!(21.2));
    let (_, list) = t.get("/api/invoices");
    assert_eq!(list["data"][0], v["data"]);

    let (s, _) = t.delete("/api/invoices", json!({ "id": id }));
    assert_eq!(s, Status::Ok);
    assert_error(
        &t.delete("/api/invoices", json!({ "id": id })),
        Status::NotFound,
    );
}

// ----------------------------------------------------------------------------------
// The other records

#[test]
fn each_entity_comes_with_standard_expense_categories_and_names_stay_unique() {
    let (t, e) = app_with_entity();
    let (_, v) = t.get(&format!("/api/expense-categories?entityId={e}"));
    let cats = v["data"].as_array().unwrap();
    assert!(cats.len() >= 10);
    assert!(cats.iter().all(|c| c["standard"] == json!(true)));
    let existing = cats[0]["name"].as_str().unwrap().to_uppercase();
    assert_error(
        &t.post(
            "/api/expense-categories",
            json!({ "name": existing, "entity_id": e }),
        ),
        Status::Conflict,
    );
    let (s, v) = t.post(
        "/api/expense-categories",
        json!({ "name": "Software", "code": "7560", "entity_id": e }),
    );
    assert_eq!(s, Status::Created);
    assert_eq!(v["data"]["standard"], json!(false));
    let id = v["data"]["id"].as_str().unwrap().to_owned();
    let (s, v) = t.put("/api/expense-categories", json!({ "id": id, "code": null }));
    assert_eq!(s, Status::Ok);
    assert!(v["data"]["code"].is_null());
    assert_eq!(v["data"]["name"], "Software");
}

#[test]
fn expenses_validate_amounts_and_a_used_category_cannot_be_deleted() {
    let (t, e) = app_with_entity();
    let (_, v) = t.post(
        "/api/expense-categories",
        json!({ "name": "Software", "entity_id": e }),
    );
    let cat = v["data"]["id"].as_str().unwrap().to_owned();
    let (s, v) = t.post(
        "/api/expenses",
        json!({ "description": "Editor licence", "amount": 120, "vat_amount": 20,
                "category_id": cat, "date": "2024-03-01" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(
        v["data"]["entity_id"],
        json!(e),
        "takes the category's entity"
    );
    assert_eq!(v["data"]["amount"], json!(120));
    let id = v["data"]["id"].as_str().unwrap().to_owned();

    assert_eq!(
        assert_error(
            &t.post("/api/expenses", json!({ "description": "x" })),
            Status::BadRequest
        ),
        "Missing required field: amount"
    );
    assert_eq!(
        assert_error(
            &t.post("/api/expenses", json!({ "amount": 1 })),
            Status::BadRequest
        ),
        "Missing required field: description"
    );
    assert_error(
        &t.post("/api/expenses", json!({ "description": "x", "amount": -1 })),
        Status::BadRequest,
    );
    assert_error(
        &t.post(
            "/api/expenses",
            json!({ "description": "x", "amount": 1.005 }),
        ),
        Status::BadRequest,
    );
    assert_error(
        &t.post(
            "/api/expenses",
            json!({ "description": "x", "amount": 1, "date": "01/02/2024" }),
        ),
        Status::BadRequest,
    );

    let msg = assert_error(
        &t.delete("/api/expense-categories", json!({ "id": cat })),
        Status::Conflict,
    );
    assert!(msg.contains("in use"), "{msg}");
    let (s, v) = t.put("/api/expenses", json!({ "id": id, "category_id": null }));
    assert_eq!(s, Status::Ok, "{v}");
    let (s, _) = t.delete("/api/expense-categories", json!({ "id": cat }));
    assert_eq!(s, Status::Ok);
}

#[test]
fn employees_default_to_active_and_update_by_id() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post(
        "/api/employees",
        json!({ "name": "Sam", "email": "sam@example.com", "role": "Packer", "entity_id": e }),
    );
    assert_eq!(s, Status::Created);
    assert_eq!(v["data"]["active"], json!(true));
    let id = v["data"]["id"].as_str().unwrap().to_owned();
    let (_, v) = t.put("/api/employees", json!({ "id": id, "active": false }));
    assert_eq!(v["data"]["active"], json!(false));
    assert_eq!(v["data"]["role"], "Packer");
    assert_error(
        &t.put("/api/employees", json!({ "id": id, "active": "no" })),
        Status::BadRequest,
    );
    let (s, _) = t.delete("/api/employees", json!({ "id": id }));
    assert_eq!(s, Status::Ok);
}

#[test]
fn bank_transactions_carry_signed_amounts_newest_first() {
    let (t, e) = app_with_entity();
    for (d, a) in [("2024-01-01", json!(100.5)), ("2024-02-01", json!(-20.25))] {
        let (s, v) = t.post(
            "/api/transactions",
            json!({ "date": d, "description": "line", "amount": a, "account": "Current",
                    "entity_id": e }),
        );
        assert_eq!(s, Status::Created, "{v}");
    }
    let (_, v) = t.get("/api/transactions");
    assert_eq!(v["data"][0]["amount"], json!(-20.25));
    assert_eq!(v["data"][1]["amount"], json!(100.5));
    assert_error(
        &t.post("/api/transactions", json!({ "description": "no amount" })),
        Status::BadRequest,
    );
}

#[test]
fn projects_and_time_entries_follow_their_value_sets() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post(
        "/api/projects",
        json!({ "name": "Website", "hourly_rate": 55.5, "budget": 1000, "entity_id": e }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["status"], "active");
    let p = v["data"]["id"].as_str().unwrap().to_owned();
    assert_error(
        &t.post("/api/projects", json!({ "name": "X", "status": "paused" })),
        Status::BadRequest,
    );
    assert_error(
        &t.post("/api/projects", json!({ "name": "X", "hourly_rate": -1 })),
        Status::BadRequest,
    );
    for s in ["completed", "archived", "active"] {
        let (st, v) = t.put("/api/projects", json!({ "id": p, "status": s }));
        assert_eq!(st, Status::Ok);
        assert_eq!(v["data"]["status"], s);
    }

    let (s, v) = t.post(
        "/api/time-entries",
        json!({ "project_id": p, "hours": 1.5, "description": "Design" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["billable"], json!(true));
    assert_eq!(
        v["data"]["entity_id"],
        json!(e),
        "an entry takes its project's entity"
    );
    assert_eq!(v["data"]["hours"], json!(1.5));
    for bad in [json!(0), json!(-1), json!(1.555)] {
        assert_error(
            &t.post(
                "/api/time-entries",
                json!({ "project_id": p, "hours": bad }),
            ),
            Status::BadRequest,
        );
    }
    assert_eq!(
        assert_error(
            &t.post("/api/time-entries", json!({ "hours": 1 })),
            Status::BadRequest
        ),
        "Missing required field: project_id"
    );
    let msg = assert_error(
        &t.delete("/api/projects", json!({ "id": p })),
        Status::Conflict,
    );
    assert!(msg.contains("Website"), "{msg}");
}

#[test]
fn recurring_invoices_have_intervals_statuses_and_invoice_lines() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e, "Subscriber");
    let (s, v) = t.post(
        "/api/recurring-invoices",
        json!({ "contact_id": c, "interval": "month", "next_date": "2024-05-01",
                "provider_ref": "sub_123",
                "lines": [{ "description": "Plan", "unit_price": 9.99 }] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let r = &v["data"];
    assert_eq!(r["interval_count"], json!(1));
    assert_eq!(r["status"], "active");
    assert_eq!(r["total"].to_string(), "11.99");
    assert_eq!(r["lines"][0]["vat"].to_string(), "2");
    assert_eq!(r["provider_ref"], "sub_123");
    let id = r["id"].as_str().unwrap().to_owned();
    assert_error(
        &t.post(
            "/api/recurring-invoices",
            json!({ "contact_id": c, "interval": "day" }),
        ),
        Status::BadRequest,
    );
    assert_error(
        &t.post(
            "/api/recurring-invoices",
            json!({ "contact_id": c, "interval": "week", "interval_count": 0 }),
        ),
        Status::BadRequest,
    );
    assert_eq!(
        assert_error(
            &t.post("/api/recurring-invoices", json!({ "contact_id": c })),
            Status::BadRequest
        ),
        "Missing required field: interval"
    );
    let (s, v) = t.put(
        "/api/recurring-invoices",
        json!({ "id": id, "status": "paused", "interval": "year", "interval_count": 2 }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["status"], "paused");
    assert_eq!(v["data"]["lines"].as_array().unwrap().len(), 1);
    assert_error(
        &t.put(
            "/api/recurring-invoices",
            json!({ "id": id, "status": "draft" }),
        ),
        Status::BadRequest,
    );
}

#[test]
fn an_entity_with_accounting_records_cannot_be_deleted() {
    let (t, e) = app_with_entity();
    contact(&t, &e, "Keeps it");
    assert_error(
        &t.delete("/api/entities", json!({ "id": e })),
        Status::Conflict,
    );
}

#[test]
fn every_session_endpoint_needs_a_session() {
    let t = app();
    for path in [
        "/api/contacts",
        "/api/invoices",
        "/api/bills",
        "/api/expenses",
        "/api/expense-categories",
        "/api/employees",
        "/api/transactions",
        "/api/projects",
        "/api/time-entries",
        "/api/recurring-invoices",
    ] {
        assert_error(&t.get(path), Status::Unauthorized);
        assert_error(&t.post(path, json!({})), Status::Unauthorized);
        assert_error(&t.put(path, json!({})), Status::Unauthorized);
        assert_error(&t.delete(path, json!({})), Status::Unauthorized);
    }
}
