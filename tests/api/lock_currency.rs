//! The lock date (docs/accounting.md#lock-date) and currencies
//! (docs/accounting.md#currencies), over HTTP: every refusal and default, the movements
//! of transfers and stock takes, import rows, and the reports in pounds.

use super::common;

use common::invariants::dec;
use common::stock_fixtures::{id, location, movement, num, product_with, purchase};
use common::{app_with_entity, assert_error, session_contact, TestApp};
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use time::Duration;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// `today + days` as `YYYY-MM-DD`.
fn day(t: &TestApp, days: i64) -> String {
    (t.clock.today() + Duration::days(days)).to_string()
}

/// A fresh app and entity with the clock stopped (no day changes mid-test).
fn books() -> (TestApp, String) {
    let (t, e) = app_with_entity();
    t.clock.freeze();
    (t, e)
}

fn lock(t: &TestApp, entity: &str, date: Value) -> (Status, Value) {
    t.put("/api/entities", json!({ "id": entity, "lock_date": date }))
}

fn locked(t: &TestApp, entity: &str, date: &str) {
    let (s, v) = lock(t, entity, json!(date));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["lock_date"], json!(date));
}

/// Asserts the 409 of the lock date.
fn refused(res: &(Status, Value), date: &str) {
    let m = assert_error(res, Status::Conflict);
    assert_eq!(m, format!("The books are locked up to {date}"));
    assert_eq!(res.1["code"], "books_locked", "{}", res.1);
}

fn created(res: (Status, Value)) -> Value {
    assert_eq!(res.0, Status::Created, "{}", res.1);
    res.1["data"].clone()
}

// ---------------------------------------------------------------------------------------
// The lock date

#[test]
fn the_lock_date_is_set_shown_and_cleared_through_the_entitys_put_and_never_after_today() {
    let (t, e) = books();
    let (_, v) = t.get(&format!("/api/entities?entityId={e}"));
    assert_eq!(v["data"][0]["lock_date"], Value::Null);
    locked(&t, &e, &day(&t, -1));
    let (_, v) = t.get(&format!("/api/entities?entityId={e}"));
    assert_eq!(v["data"][0]["lock_date"], json!(day(&t, -1)));
    // Today may be locked; tomorrow may not.
    locked(&t, &e, &day(&t, 0));
    let r = lock(&t, &e, json!(day(&t, 1)));
    let m = assert_error(&r, Status::BadRequest);
    assert!(m.contains("lock_date") && m.contains("after today"), "{m}");
    let r = lock(&t, &e, json!("31/12/2024"));
    assert!(assert_error(&r, Status::BadRequest).contains("lock_date"));
    let (_, v) = t.get(&format!("/api/entities?entityId={e}"));
    assert_eq!(v["data"][0]["lock_date"], json!(day(&t, 0)));
    // A PUT without it keeps it; null clears it.
    let (s, v) = t.put("/api/entities", json!({ "id": e, "name": "Renamed" }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["lock_date"], json!(day(&t, 0)));
    let (s, v) = lock(&t, &e, Value::Null);
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["lock_date"], Value::Null);
}

#[test]
fn only_the_owner_moves_the_lock_date() {
    let (t, e) = books();
    // Another user (the session is now theirs) cannot see the entity: 404.
    t.signup("eve@example.com");
    let r = lock(&t, &e, json!(day(&t, -1)));
    assert_error(&r, Status::NotFound);
}

#[test]
fn documents_dated_on_or_before_the_lock_date_are_not_created_changed_or_deleted() {
    let (t, e) = books();
    let contact = session_contact(&t, Some(&e), "Ann");
    let lock_day = day(&t, -2);
    for path in ["/api/invoices", "/api/bills"] {
        let new = |date: &str| {
            t.post(
                path,
                json!({ "contact_id": contact, "entity_id": e, "issue_date": date,
                        "lines": [{"description": "Work", "quantity": 1, "unit_price": 10}] }),
            )
        };
        let _ = lock(&t, &e, Value::Null);
        let old = created(new(&day(&t, -3)));
        let on_lock = created(new(&lock_day));
        let open = created(new(&day(&t, -1)));
        locked(&t, &e, &lock_day);

        refused(&new(&lock_day), &lock_day);
        refused(&new(&day(&t, -30)), &lock_day);
        created(new(&day(&t, -1)));
        // A change of a locked document, even of its notes, or to an open date.
        refused(
            &t.put(path, json!({"id": old["id"], "notes": "late"})),
            &lock_day,
        );
        refused(
            &t.put(path, json!({"id": on_lock["id"], "issue_date": day(&t, 0)})),
            &lock_day,
        );
        // An open document moved into the locked days.
        refused(
            &t.put(path, json!({"id": open["id"], "issue_date": lock_day})),
            &lock_day,
        );
        let (s, v) = t.put(path, json!({"id": open["id"], "notes": "fine"}));
        assert_eq!(s, Status::Ok, "{v}");
        refused(&t.delete(path, json!({"id": old["id"]})), &lock_day);
        let (s, v) = t.delete(path, json!({"id": open["id"]}));
        assert_eq!(s, Status::Ok, "{v}");
        // Nothing of a refused change was written.
        let (_, v) = t.get(&format!(
            "{path}?entityId={e}&id={}",
            old["id"].as_str().unwrap()
        ));
        assert_eq!(v["data"][0]["notes"], Value::Null);
        // Cleared, the lock refuses nothing.
        let _ = lock(&t, &e, Value::Null);
        let (s, v) = t.delete(path, json!({"id": old["id"]}));
        assert_eq!(s, Status::Ok, "{v}");
    }
}

#[test]
fn expenses_and_bank_transactions_dated_on_or_before_the_lock_date_are_refused() {
    let (t, e) = books();
    let lock_day = day(&t, -2);
    for (path, body) in [
        (
            "/api/expenses",
            json!({"description": "Paper", "amount": 5, "entity_id": e}),
        ),
        (
            "/api/transactions",
            json!({"description": "Card", "amount": -5, "entity_id": e}),
        ),
    ] {
        let new = |date: &str| {
            let mut b = body.clone();
            b["date"] = json!(date);
            t.post(path, b)
        };
        let _ = lock(&t, &e, Value::Null);
        let old = created(new(&lock_day));
        let open = created(new(&day(&t, -1)));
        locked(&t, &e, &lock_day);
        refused(&new(&lock_day), &lock_day);
        created(new(&day(&t, -1)));
        refused(
            &t.put(path, json!({"id": old["id"], "amount": 6})),
            &lock_day,
        );
        refused(
            &t.put(path, json!({"id": old["id"], "date": day(&t, 0)})),
            &lock_day,
        );
        refused(
            &t.put(path, json!({"id": open["id"], "date": day(&t, -5)})),
            &lock_day,
        );
        refused(&t.delete(path, json!({"id": old["id"]})), &lock_day);
        let (s, v) = t.put(path, json!({"id": open["id"], "date": day(&t, 0)}));
        assert_eq!(s, Status::Ok, "{v}");
        let (s, v) = t.delete(path, json!({"id": open["id"]}));
        assert_eq!(s, Status::Ok, "{v}");
    }
}

#[test]
fn a_stock_movement_dated_on_or_before_the_lock_date_is_refused_located_or_not() {
    let (t, e) = books();
    let main = location(&t, &e, "Main");
    let p = id(&product_with(&t, &e, "Anvil", json!({"sku": "A"})));
    purchase(&t, &p, &main, "5");
    let lock_day = day(&t, -1);
    locked(&t, &e, &lock_day);
    for at in [Some(main.as_str()), None] {
        let mut body = json!({"product_id": p, "type": "purchase", "qty": 1, "date": lock_day});
        if let Some(l) = at {
            body["location_id"] = json!(l);
        }
        refused(&t.post("/api/stock-movements", body.clone()), &lock_day);
        body["date"] = json!(day(&t, 0));
        created(t.post("/api/stock-movements", body));
    }
    let (_, v) = t.get(&format!("/api/stock-movements?productId={p}"));
    assert_eq!(v["data"].as_array().unwrap().len(), 3, "{v}");
}

#[test]
fn a_transfer_and_a_stock_take_cannot_move_stock_on_a_locked_day() {
    let (t, e) = books();
    let main = location(&t, &e, "Main");
    let shop = location(&t, &e, "Shop");
    let p = id(&product_with(&t, &e, "Anvil", json!({"sku": "A"})));
    purchase(&t, &p, &main, "5");
    let order = created(t.post(
        "/api/transfer-orders",
        json!({"source_location_id": main, "destination_location_id": shop, "entity_id": e,
               "lines": [{"product_id": p, "quantity": 2}]}),
    ));
    let take = created(t.post(
        "/api/stock-takes",
        json!({"location_id": main, "entity_id": e}),
    ));
    let (s, v) = t.put(
        "/api/stock-takes",
        json!({"id": take["id"], "status": "in_progress"}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let line = v["data"]["lines"][0]["id"].clone();
    // Their movements are dated today: a lock date of today closes it.
    let today = day(&t, 0);
    locked(&t, &e, &today);
    refused(
        &t.put(
            "/api/transfer-orders",
            json!({"id": order["id"], "status": "in_transit"}),
        ),
        &today,
    );
    refused(
        &t.put(
            "/api/stock-takes",
            json!({"id": take["id"], "status": "completed",
                   "lines": [{"id": line, "counted_quantity": 3}]}),
        ),
        &today,
    );
    let r = movement(&t, &p, Some(&main), "sale", num("-1"));
    refused(&r, &today);
    // Nothing moved, and both are where they were.
    let (_, v) = t.get(&format!("/api/stock-movements?productId={p}"));
    assert_eq!(v["data"].as_array().unwrap().len(), 1, "{v}");
    let (_, v) = t.get(&format!("/api/transfer-orders?entityId={e}"));
    assert_eq!(v["data"][0]["status"], "draft");
    let (_, v) = t.get(&format!("/api/stock-takes?entityId={e}"));
    assert_eq!(v["data"][0]["status"], "in_progress");
    // Reopened (yesterday locked), the transfer goes.
    locked(&t, &e, &day(&t, -1));
    let (s, v) = t.put(
        "/api/transfer-orders",
        json!({"id": order["id"], "status": "in_transit"}),
    );
    assert_eq!(s, Status::Ok, "{v}");
}

#[test]
fn an_import_row_dated_on_or_before_the_lock_date_is_a_row_error_and_the_others_land() {
    let (t, e) = books();
    locked(&t, &e, "2024-06-30");
    let csv = "date,description,amount\n\
               2024-07-01,Paper,10.00\n\
               2024-06-30,Toner,20.00\n\
               2024-07-02,Stamps,5.00\n";
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "expenses", "csv": csv, "entity_id": e}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let r = &v["data"];
    assert_eq!(r["imported"], json!(2), "{r}");
    let failed = r["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{r}");
    assert_eq!(failed[0]["row"], json!(3));
    let m = failed[0]["message"].as_str().unwrap();
    assert!(m.contains("The books are locked up to 2024-06-30"), "{m}");
    let (_, v) = t.get(&format!("/api/expenses?entityId={e}"));
    let mut kept: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["description"].as_str().unwrap())
        .collect();
    kept.sort_unstable();
    assert_eq!(kept, ["Paper", "Stamps"]);

    // Documents too, row by row.
    let csv = "number,contact_name,issue_date,line_description,line_unit_price\n\
               A-1,Alpha Ltd,2024-06-29,Work,100\n\
               A-2,Alpha Ltd,2024-07-01,Work,100\n";
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": e}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["imported"], json!(1), "{v}");
    assert_eq!(v["data"]["failed"][0]["row"], json!(2), "{v}");
}

// ---------------------------------------------------------------------------------------
// Currencies

#[test]
fn payments_dated_on_or_before_the_lock_date_are_not_recorded_or_deleted() {
    let (t, e) = books();
    let contact = session_contact(&t, Some(&e), "Ann");
    let lock_day = day(&t, -2);
    let inv = created(t.post(
        "/api/invoices",
        json!({ "contact_id": contact, "entity_id": e, "issue_date": day(&t, -1), "status": "sent",
                "lines": [{"description": "Work", "quantity": 1, "unit_price": 100, "vat_rate": 0}] }),
    ));
    let pay = |date: &str| {
        t.post(
            "/api/payments",
            json!({"document_id": inv["id"], "amount": 10, "date": date}),
        )
    };
    let _ = lock(&t, &e, Value::Null);
    let early = created(pay(&day(&t, -3)));
    locked(&t, &e, &lock_day);
    refused(&pay(&lock_day), &lock_day);
    refused(
        &t.delete("/api/payments", json!({"id": early["id"]})),
        &lock_day,
    );
    // The compatibility path dates its payment too.
    refused(
        &t.put(
            "/api/invoices",
            json!({"id": inv["id"], "amount_paid": 30, "paid_date": lock_day}),
        ),
        &lock_day,
    );
    let open = created(pay(&day(&t, -1)));
    let (_, v) = t.get(&format!(
        "/api/invoices?entityId={e}&id={}",
        inv["id"].as_str().unwrap()
    ));
    assert_eq!(dec(&v["data"][0]["amount_paid"]), d("20"));
    let (s, v) = t.delete("/api/payments", json!({"id": open["id"]}));
    assert_eq!(s, Status::Ok, "{v}");
}

fn invoice_body(contact: &str, e: &str, extra: Value) -> Value {
    let mut b = json!({"contact_id": contact, "entity_id": e,
                       "lines": [{"description": "Work", "quantity": 2, "unit_price": 10}]});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            b[k] = v;
        }
    }
    b
}

#[test]
fn documents_and_expenses_default_to_pounds_at_one() {
    let (t, e) = books();
    let contact = session_contact(&t, Some(&e), "Ann");
    for path in ["/api/invoices", "/api/bills"] {
        let doc = created(t.post(path, invoice_body(&contact, &e, json!({}))));
        assert_eq!(doc["currency"], "GBP");
        assert_eq!(doc["exchange_rate"], json!(1));
        let doc = created(t.post(
            path,
            invoice_body(&contact, &e, json!({"currency": "GBP", "exchange_rate": 1})),
        ));
        assert_eq!(doc["currency"], "GBP");
    }
    let x = created(t.post(
        "/api/expenses",
        json!({"description": "Paper", "amount": 5, "entity_id": e}),
    ));
    assert_eq!(
        (&x["currency"], &x["exchange_rate"]),
        (&json!("GBP"), &json!(1))
    );
    // Any case is taken and stored in capitals.
    let x = created(t.post(
        "/api/expenses",
        json!({"description": "Hotel", "amount": 80, "entity_id": e, "currency": "eur",
               "exchange_rate": 0.86}),
    ));
    assert_eq!(
        (&x["currency"], &x["exchange_rate"]),
        (&json!("EUR"), &json!(0.86))
    );
    assert_eq!(x["amount"], json!(80));
}

#[test]
fn an_unknown_currency_or_a_missing_or_wrong_rate_is_400_and_writes_nothing() {
    let (t, e) = books();
    let contact = session_contact(&t, Some(&e), "Ann");
    let cases = [
        (json!({"currency": "XYZ", "exchange_rate": 1}), "currency"),
        (json!({"currency": "EURO", "exchange_rate": 1}), "currency"),
        (json!({"currency": "EUR"}), "exchange_rate"),
        (
            json!({"currency": "EUR", "exchange_rate": 0}),
            "exchange_rate",
        ),
        (
            json!({"currency": "EUR", "exchange_rate": -0.5}),
            "exchange_rate",
        ),
        (
            json!({"currency": "EUR", "exchange_rate": 0.1234567}),
            "exchange_rate",
        ),
        (json!({"exchange_rate": 2}), "exchange_rate"),
        (
            json!({"currency": "GBP", "exchange_rate": 0.5}),
            "exchange_rate",
        ),
    ];
    for path in ["/api/invoices", "/api/bills"] {
        for (extra, field) in &cases {
            let r = t.post(path, invoice_body(&contact, &e, extra.clone()));
            let m = assert_error(&r, Status::BadRequest);
            assert!(m.contains(field), "{path} {extra}: {m}");
        }
        let (_, v) = t.get(&format!("{path}?entityId={e}"));
        assert!(v["data"].as_array().unwrap().is_empty(), "{v}");
    }
    for (extra, field) in &cases {
        let mut b = json!({"description": "Paper", "amount": 5, "entity_id": e});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        let m = assert_error(&t.post("/api/expenses", b), Status::BadRequest);
        assert!(m.contains(field), "expense {extra}: {m}");
    }
}

#[test]
fn a_change_of_currency_needs_its_rate_and_pounds_go_back_to_one() {
    let (t, e) = books();
    let contact = session_contact(&t, Some(&e), "Ann");
    for path in ["/api/invoices", "/api/bills", "/api/expenses"] {
        let body = if path == "/api/expenses" {
            json!({"description": "Paper", "amount": 5, "entity_id": e})
        } else {
            invoice_body(&contact, &e, json!({}))
        };
        let doc = created(t.post(path, body));
        let r = t.put(path, json!({"id": doc["id"], "currency": "USD"}));
        assert!(assert_error(&r, Status::BadRequest).contains("exchange_rate"));
        let r = t.put(path, json!({"id": doc["id"], "exchange_rate": 0.5}));
        assert!(assert_error(&r, Status::BadRequest).contains("exchange_rate"));
        let (s, v) = t.put(
            path,
            json!({"id": doc["id"], "currency": "USD", "exchange_rate": 0.79}),
        );
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(
            (&v["data"]["currency"], &v["data"]["exchange_rate"]),
            (&json!("USD"), &json!(0.79))
        );
        // A PUT that names neither keeps both; a new rate alone keeps the currency.
        let field = if path == "/api/expenses" {
            "description"
        } else {
            "notes"
        };
        let (_, v) = t.put(path, json!({"id": doc["id"], field: "More paper"}));
        assert_eq!(
            (&v["data"]["currency"], &v["data"]["exchange_rate"]),
            (&json!("USD"), &json!(0.79))
        );
        let (_, v) = t.put(path, json!({"id": doc["id"], "exchange_rate": 0.8}));
        assert_eq!(
            (&v["data"]["currency"], &v["data"]["exchange_rate"]),
            (&json!("USD"), &json!(0.8))
        );
        let (s, v) = t.put(path, json!({"id": doc["id"], "currency": "GBP"}));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(
            (&v["data"]["currency"], &v["data"]["exchange_rate"]),
            (&json!("GBP"), &json!(1))
        );
    }
}

#[test]
fn a_gbp_document_answers_an_older_client_as_before() {
    let (t, e) = books();
    let contact = session_contact(&t, Some(&e), "Ann");
    let doc = created(t.post(
        "/api/invoices",
        json!({"contact_id": contact, "entity_id": e, "number": "INV-9", "status": "sent",
               "lines": [{"description": "Work", "quantity": 3, "unit_price": 10.5, "vat_rate": 20}],
               "amount_paid": 5}),
    ));
    let (s, v) = t.put("/api/invoices", json!({"id": doc["id"], "notes": "Thanks"}));
    assert_eq!(s, Status::Ok, "{v}");
    let (_, listed) = t.get(&format!("/api/invoices?entityId={e}"));
    for answer in [&doc, &v["data"], &listed["data"][0]] {
        assert_eq!(answer["subtotal"], json!(31.5));
        assert_eq!(answer["vat_total"], json!(6.3));
        assert_eq!(answer["total"], json!(37.8));
        assert_eq!(answer["amount_paid"], json!(5));
        assert_eq!(answer["amount_due"], json!(32.8));
        assert_eq!(answer["lines"][0]["net"], json!(31.5));
        assert_eq!(answer["currency"], "GBP");
        assert_eq!(answer["exchange_rate"], json!(1));
    }
}

#[test]
fn a_eur_bill_values_its_stock_in_pounds_at_its_rate() {
    let (t, e) = books();
    let main = location(&t, &e, "Main");
    let supplier = session_contact(&t, Some(&e), "Euro Parts");
    let p = id(&product_with(
        &t,
        &e,
        "Anvil",
        json!({"sku": "A", "unit_price": 30}),
    ));
    // Two lines of the product: 10 × €20 and 3 × €3.337 (net €10.01; £8.55855 → £8.56).
    let bill = created(t.post(
        "/api/bills",
        json!({"contact_id": supplier, "entity_id": e, "location_id": main,
               "status": "awaiting_payment", "currency": "EUR", "exchange_rate": 0.855,
               "lines": [{"product_id": p, "quantity": 10, "unit_price": 20},
                         {"product_id": p, "quantity": 3, "unit_price": 3.337}]}),
    ));
    assert_eq!(bill["subtotal"], json!(210.01), "{bill}");
    assert_eq!(bill["currency"], "EUR");
    // £171 + £8.56 = £179.56 for 13: £13.8123 a unit.
    let (_, v) = t.get(&format!("/api/stock-movements?productId={p}"));
    let m = &v["data"][0];
    assert_eq!(m["type"], "purchase");
    assert_eq!(dec(&m["unit_cost"]), d("13.8123"));
    let (s, v) = t.get(&format!("/api/reports/stock-valuation?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    let row = &v["data"][0];
    assert_eq!(dec(&row["cost_price"]), d("13.8123"));
    assert_eq!(dec(&row["total_cost"]), d("179.56"));
    // The same bill in pounds would have cost £210.01.
}

#[test]
fn a_eur_invoices_margin_is_in_pounds() {
    let (t, e) = books();
    let main = location(&t, &e, "Main");
    let customer = session_contact(&t, Some(&e), "Client SA");
    let p = id(&product_with(
        &t,
        &e,
        "Anvil",
        json!({"sku": "A", "cost_price": 5}),
    ));
    purchase(&t, &p, &main, "10");
    // 2 × €10 and 1 × €0.01 at 0.85: £17.00 + £0.01 (0.0085 rounds up), per line.
    let inv = created(t.post(
        "/api/invoices",
        json!({"contact_id": customer, "entity_id": e, "location_id": main, "status": "sent",
               "currency": "EUR", "exchange_rate": 0.85,
               "lines": [{"product_id": p, "quantity": 2, "unit_price": 10},
                         {"product_id": p, "quantity": 1, "unit_price": 0.01}]}),
    ));
    assert_eq!(inv["total"], json!(24.01), "{inv}");
    assert_eq!(inv["cost_of_sales"], json!(15), "{inv}");
    let (s, v) = t.get(&format!("/api/reports/gross-margin?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    let row = &v["data"][0];
    assert_eq!(dec(&row["sales"]), d("17.01"));
    assert_eq!(dec(&row["cost_of_sales"]), d("15"));
    assert_eq!(dec(&row["gross_margin"]), d("2.01"));
    assert_eq!(dec(&v["summary"]["sales"]), d("17.01"));
}

#[test]
fn the_public_api_takes_the_same_currency_and_lock_date_rules() {
    let (t, e) = books();
    let contact = session_contact(&t, Some(&e), "Ann");
    let (s, v) = t.post("/api/api-keys", json!({ "name": "k", "entity_id": e }));
    assert_eq!(s, Status::Created, "{v}");
    let key = v["data"]["raw_key"].as_str().unwrap().to_owned();
    let r = t.post_with_key(
        "/api/v1/invoices",
        &key,
        invoice_body(&contact, &e, json!({"currency": "EUR"})),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("exchange_rate"));
    let (s, v) = t.post_with_key(
        "/api/v1/invoices",
        &key,
        invoice_body(
            &contact,
            &e,
            json!({"currency": "EUR", "exchange_rate": 0.85}),
        ),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(
        (&v["data"]["currency"], &v["data"]["exchange_rate"]),
        (&json!("EUR"), &json!(0.85))
    );
    let lock_day = day(&t, -1);
    locked(&t, &e, &lock_day);
    let r = t.post_with_key(
        "/api/v1/invoices",
        &key,
        invoice_body(&contact, &e, json!({"issue_date": lock_day})),
    );
    refused(&r, &lock_day);
}
