//! Credit notes and supplier credits (docs/accounting.md#credit-notes-and-supplier-credits):
//! numbering, the link to the credited invoice or bill and its refusals, `amount_credited`
//! on both sides through every change, the stock they move back
//! (docs/documents-stock.md#costs), the public API and `stockbook check`, over HTTP.

use super::common;

use common::invariants::{check_all, dec};
use common::stock_fixtures::{location, moved, movements, product_with, qty_at};
use common::{app_with, app_with_entity, assert_error, TestApp};
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

struct Shop {
    t: TestApp,
    entity: String,
    floor: String,
    customer: String,
    supplier: String,
}

fn contact(t: &TestApp, entity: &str, name: &str, kind: &str) -> String {
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": name, "type": kind, "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

fn shop() -> Shop {
    let (t, entity) = app_with_entity();
    shop_from(t, entity)
}

fn shop_from(t: TestApp, entity: String) -> Shop {
    let floor = location(&t, &entity, "Shop floor");
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": entity, "default_location_id": floor }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let customer = contact(&t, &entity, "Ann Buyer", "customer");
    let supplier = contact(&t, &entity, "Mug Supplies Ltd", "supplier");
    Shop {
        t,
        entity,
        floor,
        customer,
        supplier,
    }
}

/// A line of `qty` at £10 plus 20 % VAT: £12 a unit.
fn line(product: &str, qty: i64) -> Value {
    json!({ "product_id": product, "quantity": qty, "unit_price": 10 })
}

/// A line without product of £`price` plus 20 % VAT.
fn service(price: i64) -> Value {
    json!({ "description": "Service", "quantity": 1, "unit_price": price })
}

impl Shop {
    fn stocked(&self, name: &str, qty: i64, cost: &str) -> String {
        let p = product_with(
            &self.t,
            &self.entity,
            name,
            json!({ "unit_price": 10, "cost_price": common::stock_fixtures::num(cost) }),
        )["id"]
            .as_str()
            .unwrap()
            .to_owned();
        moved(&self.t, &p, Some(&self.floor), "adjustment", json!(qty));
        p
    }

    fn create(&self, path: &str, body: Value) -> Value {
        let (s, v) = self.t.post(path, body);
        assert_eq!(s, Status::Created, "{v}");
        v["data"].clone()
    }

    fn invoice(&self, status: &str, lines: Value) -> Value {
        self.create(
            "/api/invoices",
            json!({ "contact_id": self.customer, "entity_id": self.entity, "status": status,
                    "lines": lines }),
        )
    }

    fn bill(&self, status: &str, lines: Value) -> Value {
        self.create(
            "/api/bills",
            json!({ "contact_id": self.supplier, "entity_id": self.entity, "status": status,
                    "lines": lines }),
        )
    }

    fn credit_note(&self, extra: Value) -> (Status, Value) {
        let mut body = json!({ "contact_id": self.customer, "entity_id": self.entity });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        self.t.post("/api/credit-notes", body)
    }

    fn created_credit_note(&self, extra: Value) -> Value {
        let r = self.credit_note(extra);
        assert_eq!(r.0, Status::Created, "{}", r.1);
        r.1["data"].clone()
    }

    fn get(&self, path: &str, id: &Value) -> Value {
        let (s, v) = self.t.get(&format!("{path}?id={}", id.as_str().unwrap()));
        assert_eq!(s, Status::Ok, "{v}");
        v["data"][0].clone()
    }

    fn put(&self, path: &str, body: Value) -> (Status, Value) {
        self.t.put(path, body)
    }

    fn check(&self) {
        check_all(&self.t, Some(&self.entity));
        let conn = self.t.db.conn().unwrap();
        let found = stockbook::accounting::documents::credited_breaches(&conn).unwrap();
        assert!(found.is_empty(), "{found:?}");
    }
}

// ---------------------------------------------------------------------------------------
// The kinds

#[test]
fn credit_notes_are_numbered_cn_per_entity_and_supplier_credits_carry_the_suppliers_number() {
    let s = shop();
    let a = s.created_credit_note(json!({}));
    let b = s.created_credit_note(json!({}));
    assert_eq!(a["number"], json!("CN-0001"));
    assert_eq!(b["number"], json!("CN-0002"));
    assert_eq!(a["status"], json!("draft"));
    assert_eq!(a["invoice_id"], Value::Null);
    assert!(a.get("bill_id").is_none(), "{a}");
    let r = s.credit_note(json!({ "number": "cn-0002" }));
    assert!(assert_error(&r, Status::Conflict).contains("already exists"));
    // Another entity counts from 1 again.
    let other = s.t.entity("Other Ltd");
    let them = contact(&s.t, &other, "Bob", "customer");
    let c = s.create(
        "/api/credit-notes",
        json!({ "contact_id": them, "entity_id": other }),
    );
    assert_eq!(c["number"], json!("CN-0001"));

    let sc = s.create(
        "/api/supplier-credits",
        json!({ "contact_id": s.supplier, "entity_id": s.entity }),
    );
    assert_eq!(sc["number"], Value::Null);
    assert_eq!(sc["bill_id"], Value::Null);
    s.create(
        "/api/supplier-credits",
        json!({ "contact_id": s.supplier, "entity_id": s.entity, "number": "SC-9" }),
    );
    let r = s.t.post(
        "/api/supplier-credits",
        json!({ "contact_id": s.supplier, "entity_id": s.entity, "number": "sc-9" }),
    );
    assert!(assert_error(&r, Status::Conflict).contains("supplier"));
    // Invoices and bills do not answer a link field.
    let inv = s.invoice("draft", json!([]));
    assert!(
        inv.get("invoice_id").is_none() && inv.get("bill_id").is_none(),
        "{inv}"
    );
}

#[test]
fn a_credit_status_is_draft_posted_or_void() {
    let s = shop();
    let r = s.credit_note(json!({ "status": "sent" }));
    assert!(assert_error(&r, Status::BadRequest).contains("status"));
    let c = s.created_credit_note(json!({ "status": "posted", "lines": [service(5)] }));
    assert_eq!(c["status"], json!("posted"));
    // Unlinked: nothing applied, all of it left to refund.
    assert_eq!(dec(&c["amount_credited"]), d("0"));
    assert_eq!(dec(&c["amount_due"]), d("6"));
}

// ---------------------------------------------------------------------------------------
// Links

#[test]
fn a_credit_note_may_credit_only_a_posted_invoice_of_its_own_entity_and_customer() {
    let s = shop();
    let sent = s.invoice("sent", json!([service(10)]));
    let draft = s.invoice("draft", json!([service(10)]));
    let void = s.invoice("void", json!([service(10)]));

    let r = s.credit_note(json!({ "invoice_id": "not-a-uuid" }));
    assert!(assert_error(&r, Status::BadRequest).contains("invoice_id"));
    let r = s.credit_note(json!({ "invoice_id": "00000000-0000-4000-8000-000000000000" }));
    assert_error(&r, Status::NotFound);
    let r = s.credit_note(json!({ "invoice_id": draft["id"] }));
    assert!(assert_error(&r, Status::Conflict).contains("draft"));
    let r = s.credit_note(json!({ "invoice_id": void["id"] }));
    assert!(assert_error(&r, Status::Conflict).contains("void"));

    // Another customer of the same entity.
    let carl = contact(&s.t, &s.entity, "Carl", "customer");
    let r = s.t.post(
        "/api/credit-notes",
        json!({ "contact_id": carl, "entity_id": s.entity, "invoice_id": sent["id"] }),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("another customer"));

    // Another entity's invoice.
    let other = s.t.entity("Other Ltd");
    let them = contact(&s.t, &other, "Bob", "customer");
    let theirs = s.create(
        "/api/invoices",
        json!({ "contact_id": them, "entity_id": other, "status": "sent",
                "lines": [service(10)] }),
    );
    let r = s.credit_note(json!({ "invoice_id": theirs["id"] }));
    assert!(assert_error(&r, Status::BadRequest).contains("invoice_id"));

    let c = s.created_credit_note(json!({ "invoice_id": sent["id"] }));
    assert_eq!(c["invoice_id"], sent["id"]);
    // Moving the credit to another customer while it names the invoice is refused too.
    let r = s.t.put(
        "/api/credit-notes",
        json!({ "id": c["id"], "contact_id": carl }),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("another customer"));

    // A bill is not an invoice: a supplier credit links bills only.
    let bill = s.bill("awaiting_payment", json!([service(10)]));
    let r = s.credit_note(json!({ "invoice_id": bill["id"] }));
    assert_error(&r, Status::NotFound);
    let sc = s.create(
        "/api/supplier-credits",
        json!({ "contact_id": s.supplier, "entity_id": s.entity, "bill_id": bill["id"],
                "status": "posted", "lines": [service(4)] }),
    );
    assert_eq!(sc["bill_id"], bill["id"]);
    let b = s.get("/api/bills", &bill["id"]);
    assert_eq!(dec(&b["amount_credited"]), d("4.8"));
    assert_eq!(dec(&b["amount_due"]), d("7.2"));
    s.check();
}

#[test]
fn a_posted_linked_credit_adds_its_total_to_the_invoice_through_post_edit_relink_void_and_delete() {
    let s = shop();
    let inv = s.invoice("sent", json!([service(100)])); // £120
    let other = s.invoice("sent", json!([service(50)])); // £60
    let cn = s.created_credit_note(json!({ "invoice_id": inv["id"], "lines": [service(10)] }));
    // A draft applies nothing.
    assert_eq!(dec(&cn["amount_credited"]), d("0"));
    assert_eq!(
        dec(&s.get("/api/invoices", &inv["id"])["amount_credited"]),
        d("0")
    );

    // Posted: £12 credited, the invoice's due falls by as much; the credit has nothing
    // left to refund.
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "status": "posted" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(dec(&v["data"]["amount_credited"]), d("12"));
    assert_eq!(dec(&v["data"]["amount_due"]), d("0"));
    let i = s.get("/api/invoices", &inv["id"]);
    assert_eq!(dec(&i["amount_credited"]), d("12"));
    assert_eq!(dec(&i["amount_due"]), d("108"));
    s.check();

    // Edited lines: the invoice follows.
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "lines": [service(20)] }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(
        dec(&s.get("/api/invoices", &inv["id"])["amount_credited"]),
        d("24")
    );

    // Relinked to another invoice: the first gets it back, the second takes it.
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "invoice_id": other["id"] }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(
        dec(&s.get("/api/invoices", &inv["id"])["amount_credited"]),
        d("0")
    );
    assert_eq!(
        dec(&s.get("/api/invoices", &other["id"])["amount_credited"]),
        d("24")
    );

    // A posted linked credit cannot be deleted: it is voided first.
    let r = s.t.delete("/api/credit-notes", json!({ "id": cn["id"] }));
    assert!(assert_error(&r, Status::Conflict).contains("void it"));
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "status": "void" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(dec(&v["data"]["amount_credited"]), d("0"));
    assert_eq!(
        dec(&s.get("/api/invoices", &other["id"])["amount_credited"]),
        d("0")
    );
    assert_eq!(
        dec(&s.get("/api/invoices", &other["id"])["amount_due"]),
        d("60")
    );
    s.check();

    // Unlinked (null), then deleted.
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "invoice_id": null }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(v["data"]["invoice_id"], Value::Null);
    let (st, v) = s.t.delete("/api/credit-notes", json!({ "id": cn["id"] }));
    assert_eq!(st, Status::Ok, "{v}");
    s.check();
}

#[test]
fn credits_beyond_what_the_invoice_has_due_are_refused_and_change_nothing() {
    let s = shop();
    let inv = s.create(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "sent",
                "lines": [service(100)], "amount_paid": 100 }),
    ); // £120 total, £20 due
    let first = s.created_credit_note(
        json!({ "invoice_id": inv["id"], "status": "posted", "lines": [service(10)] }),
    ); // £12
    let r = s.credit_note(
        json!({ "invoice_id": inv["id"], "status": "posted", "lines": [service(10)] }),
    );
    let msg = assert_error(&r, Status::Conflict);
    assert!(msg.contains("8.00") || msg.contains("8"), "{msg}");
    // Refused: no second credit note was written, the invoice is as it was.
    let (_, list) = s.t.get("/api/credit-notes");
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "{list}");
    let i = s.get("/api/invoices", &inv["id"]);
    assert_eq!(dec(&i["amount_credited"]), d("12"));
    assert_eq!(dec(&i["amount_due"]), d("8"));

    // Raising the first beyond the due is refused too; up to it is fine.
    let r = s.put(
        "/api/credit-notes",
        json!({ "id": first["id"], "lines": [service(17)] }),
    );
    assert_error(&r, Status::Conflict);
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": first["id"], "lines": [{ "description": "All of it", "quantity": 1,
                                                "unit_price": common::stock_fixtures::num("16.6667"),
                                                "vat_rate": 20 }] }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    let i = s.get("/api/invoices", &inv["id"]);
    assert_eq!(dec(&i["amount_due"]), d("0"));
    s.check();
}

#[test]
fn an_invoice_with_a_posted_credit_is_not_voided_redrafted_recontacted_lowered_or_deleted() {
    let s = shop();
    let inv = s.invoice("sent", json!([service(100)]));
    let cn = s.created_credit_note(
        json!({ "invoice_id": inv["id"], "status": "posted", "lines": [service(50)] }),
    );
    for status in ["void", "draft"] {
        let r = s.put(
            "/api/invoices",
            json!({ "id": inv["id"], "status": status }),
        );
        assert!(assert_error(&r, Status::Conflict).contains("CN-0001"));
    }
    let carl = contact(&s.t, &s.entity, "Carl", "customer");
    let r = s.put(
        "/api/invoices",
        json!({ "id": inv["id"], "contact_id": carl }),
    );
    assert_error(&r, Status::Conflict);
    let r = s.put(
        "/api/invoices",
        json!({ "id": inv["id"], "lines": [service(40)] }),
    );
    assert_error(&r, Status::Conflict);
    // Paid stays posted: allowed.
    let (st, v) = s.put(
        "/api/invoices",
        json!({ "id": inv["id"], "status": "paid" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    let r = s.t.delete("/api/invoices", json!({ "id": inv["id"] }));
    assert!(assert_error(&r, Status::Conflict).contains("credit note"));

    // Once the credit is void the invoice may be voided; still named, it is not deleted.
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "status": "void" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    let (st, v) = s.put(
        "/api/invoices",
        json!({ "id": inv["id"], "status": "void" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    let r = s.t.delete("/api/invoices", json!({ "id": inv["id"] }));
    assert_error(&r, Status::Conflict);
    // A void credit cannot be posted against a void invoice.
    let r = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "status": "posted" }),
    );
    assert!(assert_error(&r, Status::Conflict).contains("void"));
    let (st, v) = s.t.delete("/api/credit-notes", json!({ "id": cn["id"] }));
    assert_eq!(st, Status::Ok, "{v}");
    let (st, v) = s.t.delete("/api/invoices", json!({ "id": inv["id"] }));
    assert_eq!(st, Status::Ok, "{v}");
    s.check();
}

// ---------------------------------------------------------------------------------------
// Stock

#[test]
fn a_credit_note_takes_goods_back_at_the_cost_its_invoice_booked_and_voiding_sends_them_out() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.invoice("sent", json!([line(&mug, 3)]));
    // A purchase at £8 since moves the cost price away from the £4 the sale booked.
    s.bill(
        "awaiting_payment",
        json!([{ "product_id": mug, "quantity": 10, "unit_price": 8 }]),
    );
    let (_, p) = s.t.get(&format!("/api/products?id={mug}"));
    let cost_now = dec(&p["data"][0]["cost_price"]);
    assert!(cost_now > d("6"), "{p}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("17"));

    let cn = s.created_credit_note(
        json!({ "invoice_id": inv["id"], "status": "posted", "lines": [line(&mug, 2)] }),
    );
    assert_eq!(cn["location_id"], json!(s.floor));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("19"));
    let ms = movements(&s.t, &format!("?documentId={}", cn["id"].as_str().unwrap()));
    assert_eq!(ms.len(), 1, "{ms:?}");
    assert_eq!(ms[0]["type"], json!("return"));
    assert_eq!(dec(&ms[0]["qty"]), d("2"));
    assert_eq!(dec(&ms[0]["unit_cost"]), d("4"));
    assert_eq!(ms[0]["reference"], json!("CN-0001"));
    s.check();

    // Unlinked: at the product's cost now.
    let loose = s.created_credit_note(json!({ "status": "posted", "lines": [line(&mug, 1)] }));
    let ms = movements(
        &s.t,
        &format!("?documentId={}", loose["id"].as_str().unwrap()),
    );
    assert_eq!(dec(&ms[0]["unit_cost"]), cost_now);

    // Voided: the goods leave again, at the cost they came back at.
    let (st, v) = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "status": "void" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("18"));
    let ms = movements(&s.t, &format!("?documentId={}", cn["id"].as_str().unwrap()));
    let back: Vec<&Value> = ms.iter().filter(|m| dec(&m["qty"]) < d("0")).collect();
    assert_eq!(back.len(), 1, "{ms:?}");
    assert_eq!(dec(&back[0]["qty"]), d("-2"));
    assert_eq!(dec(&back[0]["unit_cost"]), d("4"));
    s.check();
}

#[test]
fn a_posted_supplier_credit_sends_goods_back_and_voiding_it_brings_them_in_again() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let bill = s.bill("awaiting_payment", json!([line(&mug, 5)]));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("15"));
    let sc = s.create(
        "/api/supplier-credits",
        json!({ "contact_id": s.supplier, "entity_id": s.entity, "bill_id": bill["id"],
                "status": "posted", "lines": [line(&mug, 2)] }),
    );
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("13"));
    let ms = movements(&s.t, &format!("?documentId={}", sc["id"].as_str().unwrap()));
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0]["type"], json!("return"));
    assert_eq!(dec(&ms[0]["qty"]), d("-2"));
    s.check();
    // More than the shelf holds is refused like a sale.
    let r = s.t.post(
        "/api/supplier-credits",
        json!({ "contact_id": s.supplier, "entity_id": s.entity, "status": "posted",
                "lines": [line(&mug, 50)] }),
    );
    assert_error(&r, Status::Conflict);
    let (st, v) = s.put(
        "/api/supplier-credits",
        json!({ "id": sc["id"], "status": "void" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("15"));
    let b = s.get("/api/bills", &bill["id"]);
    assert_eq!(dec(&b["amount_credited"]), d("0"));
    s.check();
}

// ---------------------------------------------------------------------------------------
// The public API, events and the check

#[test]
fn the_public_api_creates_and_lists_credit_notes_with_the_same_rules() {
    let s = shop();
    let inv = s.invoice("sent", json!([service(10)]));
    let (st, v) = s.t.post(
        "/api/api-keys",
        json!({ "name": "till", "entity_id": s.entity }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let key = v["data"]["raw_key"].as_str().unwrap().to_owned();
    let (st, v) = s.t.post_with_key(
        "/api/v1/credit-notes",
        &key,
        json!({ "contact_id": s.customer, "invoice_id": inv["id"], "status": "posted",
                "lines": [service(5)] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    assert_eq!(v["data"]["number"], json!("CN-0001"));
    assert_eq!(v["data"]["invoice_id"], inv["id"]);
    let (st, v) = s.t.post_with_key(
        "/api/v1/credit-notes",
        &key,
        json!({ "contact_id": s.customer, "invoice_id": inv["id"], "status": "posted",
                "lines": [service(10)] }),
    );
    assert_eq!(st, Status::Conflict, "{v}");
    let (st, v) = s.t.get_with_key("/api/v1/credit-notes", &key);
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(v["data"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["limit"], json!(50));
    assert_eq!(
        dec(&s.get("/api/invoices", &inv["id"])["amount_credited"]),
        d("6")
    );
    s.check();
}

#[test]
fn posting_a_credit_writes_its_event_and_the_invoices_in_the_same_transaction() {
    let t = app_with(&[("webhooks_allow_private", json!(true))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let s = shop_from(t, entity);
    let (st, v) = s.t.post(
        "/api/webhooks",
        json!({"url": "https://127.0.0.1:9/hook", "events": ["*"], "entity_id": null}),
    );
    assert_eq!(st, Status::Created, "{v}");
    let inv = s.invoice("sent", json!([service(10)]));
    s.created_credit_note(json!({ "invoice_id": inv["id"], "status": "posted",
                                  "lines": [service(5)] }));
    let events: Vec<(String, String)> = s
        .t
        .db
        .read_sync(|c| {
            let mut stmt = c.prepare("SELECT type, body FROM webhook_deliveries ORDER BY rowid")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .unwrap();
    let types: Vec<&str> = events.iter().map(|(t, _)| t.as_str()).collect();
    assert!(types.contains(&"credit_note.updated"), "{types:?}");
    let last_invoice = events
        .iter()
        .rev()
        .find(|(t, _)| t == "invoice.updated")
        .unwrap();
    assert!(
        last_invoice.1.contains("\"amount_credited\":6"),
        "{}",
        last_invoice.1
    );
    let (_, hooks) = s.t.get("/api/webhooks");
    let names: Vec<&str> = hooks["event_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"credit_note.updated") && names.contains(&"supplier_credit.updated"));
}

#[test]
fn the_check_names_a_document_whose_amount_credited_disagrees_with_its_credits() {
    let s = shop();
    let inv = s.invoice("sent", json!([service(10)]));
    let cn = s.created_credit_note(json!({ "invoice_id": inv["id"], "status": "posted",
                                           "lines": [service(5)] }));
    s.check();
    let conn = s.t.db.conn().unwrap();
    conn.execute(
        "UPDATE invoices SET amount_credited = 100 WHERE id = ?1",
        [inv["id"].as_str().unwrap()],
    )
    .unwrap();
    conn.execute(
        "UPDATE credit_notes SET amount_credited = 0 WHERE id = ?1",
        [cn["id"].as_str().unwrap()],
    )
    .unwrap();
    let found = stockbook::accounting::documents::credited_breaches(&conn).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("Invoice INV-0001") && found[0].contains("say 6"),
        "{found:?}"
    );
    assert!(found[1].contains("Credit note CN-0001"), "{found:?}");
}

#[test]
fn a_credit_written_as_history_is_applied_to_its_invoice_as_a_created_one_is() {
    let s = shop();
    let inv = s.invoice("sent", json!([service(100)]));
    let scope = s.t.db.read_sync(|c| {
        Ok(c.query_row(
            "SELECT owner_id FROM invoices WHERE id = ?1",
            [inv["id"].as_str().unwrap()],
            |r| r.get::<_, String>(0),
        )?)
    });
    let owner = scope.unwrap();
    let entity = s.entity.clone();
    let customer = s.customer.clone();
    let invoice_id = inv["id"].as_str().unwrap().to_owned();
    let cn =
        s.t.db
            .write_sync(move |tx| {
                let body: stockbook::accounting::documents::CreateDocument =
                    serde_json::from_value(json!({
                        "contact_id": customer, "entity_id": entity, "status": "posted",
                        "invoice_id": invoice_id, "provider": "xero",
                        "lines": [{ "description": "Refund", "quantity": 1, "unit_price": 10 }],
                    }))
                    .unwrap();
                stockbook::accounting::documents::create_with(
                    tx,
                    &stockbook::scope::Scope::user(owner),
                    stockbook::accounting::documents::DocKind::CreditNote,
                    body,
                    &stockbook::ctx::Ctx::at(time::OffsetDateTime::now_utc(), false),
                    stockbook::accounting::documents::Numbering::KeepNull,
                )
            })
            .unwrap();
    assert_eq!(cn.number, None);
    assert_eq!(
        dec(&s.get("/api/invoices", &inv["id"])["amount_credited"]),
        d("12")
    );
    s.check();
}

#[test]
fn a_refunded_credit_is_not_applied_to_an_invoice_as_well() {
    let s = shop();
    let inv = s.invoice("sent", json!([service(100)]));
    let cn = s.created_credit_note(
        json!({ "status": "posted", "lines": [service(10)], "amount_paid": 12 }),
    );
    assert_eq!(dec(&cn["amount_due"]), d("0"));
    let r = s.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "invoice_id": inv["id"] }),
    );
    assert!(assert_error(&r, Status::Conflict).contains("refunded"));
    assert_eq!(
        dec(&s.get("/api/invoices", &inv["id"])["amount_credited"]),
        d("0")
    );
    s.check();
}
