//! Payments over HTTP (docs/accounting.md#payments, docs/accounting.md#status-follows-money,
//! docs/accounting.md#amount_paid-and-status-paid-on-documents): recording and deleting,
//! every refusal, `amount_paid` as the payments' sum, the status following the money, the
//! compatibility path of documents, the public API and the webhook event.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

fn contact(t: &TestApp, entity: &str) -> String {
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": "Customer", "type": "both", "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

/// A document of `path` (`/api/invoices`, `/api/bills`) totalling 120 (100 + 20 % VAT).
fn document(t: &TestApp, path: &str, c: &str, extra: Value) -> Value {
    let mut body = json!({ "contact_id": c,
        "lines": [{ "description": "Work", "unit_price": 100 }] });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (s, v) = t.post(path, body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"].clone()
}

fn sent_invoice(t: &TestApp, c: &str) -> String {
    document(t, "/api/invoices", c, json!({ "status": "sent" }))["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn pay(t: &TestApp, doc: &str, amount: Value, date: Option<&str>) -> (Status, Value) {
    let mut body = json!({ "document_id": doc, "amount": amount });
    if let Some(d) = date {
        body["date"] = json!(d);
    }
    t.post("/api/payments", body)
}

fn invoice(t: &TestApp, id: &str) -> Value {
    let (s, v) = t.get(&format!("/api/invoices?id={id}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"][0].clone()
}

fn bill(t: &TestApp, id: &str) -> Value {
    let (s, v) = t.get(&format!("/api/bills?id={id}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"][0].clone()
}

fn payments_of(t: &TestApp, doc: &str) -> Vec<Value> {
    let (s, v) = t.get(&format!("/api/payments?documentId={doc}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

#[test]
fn payments_add_up_to_amount_paid_and_the_invoice_becomes_paid_then_sent_again() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);

    let (s, v) = pay(&t, &inv, json!(20.5), Some("2025-01-10"));
    assert_eq!(s, Status::Created, "{v}");
    let p = &v["data"];
    assert_eq!(p["document_id"], json!(inv));
    assert_eq!(p["document_type"], "invoice");
    assert_eq!(p["entity_id"], json!(e));
    assert_eq!(p["date"], "2025-01-10");
    assert_eq!(p["amount"], json!(20.5));
    assert!(p["method"].is_null());
    let d = invoice(&t, &inv);
    assert_eq!(
        (
            d["amount_paid"].clone(),
            d["amount_due"].clone(),
            d["status"].clone()
        ),
        (json!(20.5), json!(99.5), json!("sent"))
    );

    let (s, v) = t.post(
        "/api/payments",
        json!({ "document_id": inv, "amount": 99.5, "method": " bank ", "reference": "BACS 42" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["date"], json!(today()), "date defaults to today");
    assert_eq!(v["data"]["method"], "bank");
    let last = v["data"]["id"].as_str().unwrap().to_owned();
    let d = invoice(&t, &inv);
    assert_eq!(
        (
            d["amount_paid"].clone(),
            d["amount_due"].clone(),
            d["status"].clone()
        ),
        (json!(120), json!(0), json!("paid"))
    );
    let listed = payments_of(&t, &inv);
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], json!(last), "newest date first");

    let (s, v) = t.delete("/api/payments", json!({ "id": last }));
    assert_eq!(s, Status::Ok, "{v}");
    let d = invoice(&t, &inv);
    assert_eq!(
        (
            d["amount_paid"].clone(),
            d["amount_due"].clone(),
            d["status"].clone()
        ),
        (json!(20.5), json!(99.5), json!("sent"))
    );
    assert_eq!(payments_of(&t, &inv).len(), 1);
    assert_error(
        &t.delete("/api/payments", json!({ "id": last })),
        Status::NotFound,
    );
}

#[test]
fn a_bill_paid_in_full_becomes_paid_and_awaits_payment_again_when_a_payment_goes() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let b = document(
        &t,
        "/api/bills",
        &c,
        json!({ "status": "awaiting_payment" }),
    );
    let id = b["id"].as_str().unwrap();
    let (s, v) = pay(&t, id, json!(120), None);
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["document_type"], "bill");
    assert_eq!(bill(&t, id)["status"], "paid");
    t.delete("/api/payments", json!({ "id": v["data"]["id"] }));
    let d = bill(&t, id);
    assert_eq!(
        (d["status"].clone(), d["amount_paid"].clone()),
        (json!("awaiting_payment"), json!(0))
    );
}

#[test]
fn a_payment_is_refused_with_the_field_and_changes_nothing() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    for (body, status, field) in [
        (
            json!({ "document_id": inv, "amount": 0 }),
            Status::BadRequest,
            "amount",
        ),
        (
            json!({ "document_id": inv, "amount": -5 }),
            Status::BadRequest,
            "amount",
        ),
        (
            json!({ "document_id": inv, "amount": 1.001 }),
            Status::BadRequest,
            "amount",
        ),
        (
            json!({ "document_id": inv, "amount": 1, "date": "2999-01-01" }),
            Status::BadRequest,
            "future",
        ),
        (
            json!({ "document_id": inv, "amount": 1, "date": "2025-02-30" }),
            Status::BadRequest,
            "date",
        ),
        (
            json!({ "document_id": "nope", "amount": 1 }),
            Status::BadRequest,
            "document_id",
        ),
        (json!({ "amount": 1 }), Status::BadRequest, "document_id"),
        (
            json!({ "document_id": "00000000-0000-4000-8000-000000000000", "amount": 1 }),
            Status::NotFound,
            "Document not found",
        ),
        (
            json!({ "document_id": inv, "amount": 120.01 }),
            Status::Conflict,
            "more than the 120.00 due",
        ),
    ] {
        let r = t.post("/api/payments", body.clone());
        let msg = assert_error(&r, status);
        assert!(msg.contains(field), "{body}: {msg}");
    }
    assert!(payments_of(&t, &inv).is_empty());
    let d = invoice(&t, &inv);
    assert_eq!(
        (d["amount_paid"].clone(), d["status"].clone()),
        (json!(0), json!("sent"))
    );
}

#[test]
fn draft_and_void_documents_take_no_payment() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    for status in ["draft", "void"] {
        let d = document(&t, "/api/invoices", &c, json!({ "status": status }));
        let msg = assert_error(
            &pay(&t, d["id"].as_str().unwrap(), json!(1), None),
            Status::Conflict,
        );
        assert!(msg.contains(&format!("is {status}")), "{msg}");
    }
}

#[test]
fn another_users_document_and_payment_are_not_found() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    let (_, v) = pay(&t, &inv, json!(10), None);
    let payment = v["data"]["id"].as_str().unwrap().to_owned();
    t.signup("other@example.com");
    assert_error(&pay(&t, &inv, json!(1), None), Status::NotFound);
    assert_error(
        &t.delete("/api/payments", json!({ "id": payment })),
        Status::NotFound,
    );
    let (s, v) = t.get("/api/payments");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"], json!([]));
}

#[test]
fn the_payments_api_needs_a_session() {
    let t = app();
    let (s, _) = t.get("/api/payments");
    assert_eq!(s, Status::Unauthorized);
}

#[test]
fn the_list_filters_by_document_entity_and_id_and_refuses_a_bad_document_id() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let a = sent_invoice(&t, &c);
    let b = sent_invoice(&t, &c);
    let (_, pa) = pay(&t, &a, json!(1), None);
    pay(&t, &b, json!(2), None);
    assert_eq!(payments_of(&t, &a).len(), 1);
    let (_, v) = t.get(&format!("/api/payments?entityId={e}"));
    assert_eq!(v["data"].as_array().unwrap().len(), 2);
    let (_, v) = t.get(&format!(
        "/api/payments?id={}",
        pa["data"]["id"].as_str().unwrap()
    ));
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    let (_, v) = t.get("/api/payments?limit=1&offset=1");
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert_error(&t.get("/api/payments?documentId=nope"), Status::BadRequest);
}

#[test]
fn a_document_sent_with_amount_paid_records_it_as_one_dated_payment() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let d = document(
        &t,
        "/api/invoices",
        &c,
        json!({ "status": "sent", "amount_paid": 50, "paid_date": "2025-03-04" }),
    );
    let id = d["id"].as_str().unwrap();
    assert_eq!(
        (d["amount_paid"].clone(), d["amount_due"].clone()),
        (json!(50), json!(70))
    );
    let ps = payments_of(&t, id);
    assert_eq!(ps.len(), 1);
    assert_eq!(
        (ps[0]["amount"].clone(), ps[0]["date"].clone()),
        (json!(50), json!("2025-03-04"))
    );

    // A higher amount_paid records the difference, dated today by default.
    let (s, v) = t.put("/api/invoices", json!({ "id": id, "amount_paid": 80 }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["amount_paid"], json!(80));
    let ps = payments_of(&t, id);
    assert_eq!(ps.len(), 2);
    assert_eq!(
        (ps[0]["amount"].clone(), ps[0]["date"].clone()),
        (json!(30), json!(today()))
    );
    // The same amount records nothing; a lower one is refused.
    let (s, _) = t.put("/api/invoices", json!({ "id": id, "amount_paid": 80 }));
    assert_eq!(s, Status::Ok);
    assert_eq!(payments_of(&t, id).len(), 2);
    let msg = assert_error(
        &t.put("/api/invoices", json!({ "id": id, "amount_paid": 79.99 })),
        Status::Conflict,
    );
    assert!(msg.contains("below"), "{msg}");
    // Enough to settle it makes it paid.
    let (_, v) = t.put("/api/invoices", json!({ "id": id, "amount_paid": 120 }));
    assert_eq!(v["data"]["status"], "paid");
}

#[test]
fn amount_paid_on_a_draft_or_beyond_the_total_or_in_the_future_is_refused() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let base = json!({ "contact_id": c, "lines": [{ "description": "Work", "unit_price": 100 }] });
    let with = |extra: Value| {
        let mut b = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    assert_error(
        &t.post("/api/invoices", with(json!({ "amount_paid": 5 }))),
        Status::Conflict,
    );
    assert_error(
        &t.post(
            "/api/invoices",
            with(json!({ "status": "sent", "amount_paid": 121 })),
        ),
        Status::Conflict,
    );
    let msg = assert_error(
        &t.post(
            "/api/invoices",
            with(json!({ "status": "sent", "amount_paid": 5, "paid_date": "2999-01-01" })),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("paid_date"), "{msg}");
    let (_, v) = t.get("/api/invoices");
    assert_eq!(v["data"], json!([]), "a refused create left nothing");
    let (_, v) = t.get("/api/payments");
    assert_eq!(v["data"], json!([]));
}

#[test]
fn status_paid_records_what_is_due_and_refuses_an_amount_paid_that_leaves_some_due() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    pay(&t, &inv, json!(20), Some("2025-01-01"));
    let msg = assert_error(
        &t.put(
            "/api/invoices",
            json!({ "id": inv, "status": "paid", "amount_paid": 100 }),
        ),
        Status::Conflict,
    );
    assert!(msg.contains("20.00 still due"), "{msg}");
    assert_eq!(
        invoice(&t, &inv)["status"],
        "sent",
        "the refused PUT changed nothing"
    );
    let (s, v) = t.put(
        "/api/invoices",
        json!({ "id": inv, "status": "paid", "paid_date": "2025-02-01" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        (
            v["data"]["amount_paid"].clone(),
            v["data"]["status"].clone()
        ),
        (json!(120), json!("paid"))
    );
    let ps = payments_of(&t, &inv);
    assert_eq!(
        (ps[0]["amount"].clone(), ps[0]["date"].clone()),
        (json!(100), json!("2025-02-01"))
    );

    // A draft made paid with its amount: the status first, then one payment.
    let d = document(&t, "/api/invoices", &c, json!({}));
    let id = d["id"].as_str().unwrap();
    let (s, v) = t.put(
        "/api/invoices",
        json!({ "id": id, "status": "paid", "amount_paid": 120 }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(payments_of(&t, id).len(), 1);
    // A draft made sent with part of it.
    let d = document(&t, "/api/invoices", &c, json!({}));
    let id = d["id"].as_str().unwrap();
    let (s, v) = t.put(
        "/api/invoices",
        json!({ "id": id, "status": "sent", "amount_paid": 12 }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        (v["data"]["status"].clone(), v["data"]["amount_due"].clone()),
        (json!("sent"), json!(108))
    );
    // Created paid: its total is one payment.
    let d = document(&t, "/api/bills", &c, json!({ "status": "paid" }));
    assert_eq!(
        (d["amount_paid"].clone(), d["amount_due"].clone()),
        (json!(120), json!(0))
    );
}

#[test]
fn a_paid_invoice_whose_lines_grow_owes_again_and_its_total_cannot_drop_below_what_is_paid() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    pay(&t, &inv, json!(120), None);
    let (s, v) = t.put(
        "/api/invoices",
        json!({ "id": inv, "lines": [{ "description": "More", "unit_price": 200 }] }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        (v["data"]["status"].clone(), v["data"]["amount_due"].clone()),
        (json!("sent"), json!(120))
    );
    let msg = assert_error(
        &t.put(
            "/api/invoices",
            json!({ "id": inv, "lines": [{ "description": "Less", "unit_price": 10 }] }),
        ),
        Status::Conflict,
    );
    assert!(msg.contains("below"), "{msg}");
    assert_eq!(invoice(&t, &inv)["total"], json!(240));
}

#[test]
fn deleting_a_document_deletes_its_payments() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    pay(&t, &inv, json!(10), None);
    let (s, v) = t.delete("/api/invoices", json!({ "id": inv }));
    assert_eq!(s, Status::Ok, "{v}");
    let (_, v) = t.get("/api/payments");
    assert_eq!(v["data"], json!([]));
}

#[test]
fn a_voided_document_keeps_its_payments_and_takes_no_more() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    pay(&t, &inv, json!(10), None);
    let (s, v) = t.put("/api/invoices", json!({ "id": inv, "status": "void" }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["amount_paid"], json!(10));
    assert_error(&pay(&t, &inv, json!(1), None), Status::Conflict);
}

#[test]
fn the_public_api_lists_and_records_payments_through_the_key() {
    let (t, e) = app_with_entity();
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    let (s, v) = t.post("/api/api-keys", json!({ "name": "k", "entity_id": e }));
    assert_eq!(s, Status::Created, "{v}");
    let key = v["data"]["raw_key"].as_str().unwrap().to_owned();
    let (s, v) = t.post_with_key(
        "/api/v1/payments",
        &key,
        json!({ "document_id": inv, "amount": 120, "method": "card" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(invoice(&t, &inv)["status"], "paid");
    let (s, v) = t.get_with_key("/api/v1/payments", &key);
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        (v["limit"].clone(), v["offset"].clone()),
        (json!(50), json!(0))
    );
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert_error(
        &t.post_with_key(
            "/api/v1/payments",
            &key,
            json!({ "document_id": inv, "amount": 1 }),
        ),
        Status::Conflict,
    );
    let (s, _) = t.get("/api/v1/payments");
    assert_eq!(s, Status::Unauthorized);
}

#[test]
fn a_payment_fires_the_documents_webhook_event() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let c = contact(&t, &e);
    let inv = sent_invoice(&t, &c);
    let (s, v) = t.post(
        "/api/webhooks",
        json!({ "url": "https://127.0.0.1:9/hook", "events": ["invoice.updated"] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let events = || -> i64 {
        t.db.read_sync(|c| {
            Ok(c.query_row("SELECT COUNT(*) FROM webhook_deliveries", [], |r| r.get(0))?)
        })
        .unwrap()
    };
    assert_eq!(events(), 0);
    let (_, v) = pay(&t, &inv, json!(10), None);
    assert_eq!(events(), 1);
    t.delete("/api/payments", json!({ "id": v["data"]["id"] }));
    assert_eq!(events(), 2);
    assert_error(&pay(&t, &inv, json!(1000), None), Status::Conflict);
    assert_eq!(events(), 2, "a refused payment fires nothing");
}
