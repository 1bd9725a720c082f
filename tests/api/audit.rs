//! The audit trail (docs/audit.md): every kind of change written once with its before and
//! after, in the change's transaction; refused changes write nothing; the trail refuses
//! UPDATE and DELETE; `GET /api/audit` filters, pages and downloads.

use super::common;

use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

/// Every entry of the caller's trail, newest first.
fn trail(t: &TestApp, query: &str) -> Vec<Value> {
    let (s, v) = t.get(&format!("/api/audit?limit=1000{query}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

/// The entries of one record, oldest first.
fn of(t: &TestApp, id: &str) -> Vec<Value> {
    let mut v = trail(t, &format!("&recordId={id}"));
    v.reverse();
    v
}

fn actions(entries: &[Value]) -> Vec<&str> {
    entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect()
}

fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

#[test]
fn a_product_is_created_changed_and_deleted_each_once_with_its_fields() {
    let (t, e) = app_with_entity();
    let me = t.get("/api/auth/me").1["data"]["id"].clone();
    let p = product(&t, &e, "Widget");
    let (s, v) = t.put(
        "/api/products",
        json!({ "id": p, "name": "Gadget", "unit_price": 12.5 }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    // A PUT that changes nothing writes nothing.
    let (s, _) = t.put("/api/products", json!({ "id": p, "name": "Gadget" }));
    assert_eq!(s, Status::Ok);
    let (s, v) = t.delete("/api/products", json!({ "id": p }));
    assert_eq!(s, Status::Ok, "{v}");

    let entries = of(&t, &p);
    assert_eq!(
        actions(&entries),
        ["create", "update", "delete"],
        "{entries:?}"
    );
    for e in &entries {
        assert_eq!(e["record_type"], "product");
        assert_eq!(e["user_id"], me);
        assert_eq!(e["user_email"], "owner@example.com");
    }
    assert_eq!(entries[0]["entity_id"], json!(e));
    assert_eq!(entries[0]["changes"]["name"], json!({ "after": "Widget" }));
    let changed = entries[1]["changes"].as_object().unwrap();
    assert_eq!(
        changed["name"],
        json!({ "before": "Widget", "after": "Gadget" })
    );
    assert!(changed.contains_key("unit_price"), "{changed:?}");
    assert!(
        !changed.contains_key("sku"),
        "only changed fields: {changed:?}"
    );
    assert_eq!(entries[2]["changes"]["name"], json!({ "before": "Gadget" }));
}

#[test]
fn a_movement_a_document_a_payment_and_the_lock_date_each_appear_once() {
    let (t, e) = app_with_entity();
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    let (s, m) = t.post(
        "/api/stock-movements",
        json!({ "product_id": p, "location_id": l, "qty": 5, "type": "purchase", "unit_cost": 2 }),
    );
    assert_eq!(s, Status::Created, "{m}");
    let m = m["data"]["id"].as_str().unwrap().to_owned();
    let entries = of(&t, &m);
    assert_eq!(actions(&entries), ["create"]);
    assert_eq!(entries[0]["record_type"], "movement");
    assert_eq!(
        entries[0]["changes"]["type"],
        json!({ "after": "purchase" })
    );

    let c = session_contact(&t, Some(&e), "Customer");
    let (s, inv) = t.post(
        "/api/invoices",
        json!({ "contact_id": c, "status": "sent",
                "lines": [{ "description": "Work", "unit_price": 100 }] }),
    );
    assert_eq!(s, Status::Created, "{inv}");
    let inv = inv["data"]["id"].as_str().unwrap().to_owned();
    let (s, pay) = t.post(
        "/api/payments",
        json!({ "document_id": inv, "amount": 120 }),
    );
    assert_eq!(s, Status::Created, "{pay}");
    let pay = pay["data"]["id"].as_str().unwrap().to_owned();
    let entries = of(&t, &pay);
    assert_eq!(actions(&entries), ["create"]);
    assert_eq!(entries[0]["record_type"], "payment");
    // The invoice: created, then paid (its status follows the money).
    let entries = of(&t, &inv);
    assert_eq!(actions(&entries), ["create", "update"], "{entries:?}");
    assert_eq!(
        entries[1]["changes"]["status"],
        json!({ "before": "sent", "after": "paid" })
    );

    let (s, v) = t.put("/api/entities", json!({ "id": e, "lock_date": today() }));
    assert_eq!(s, Status::Ok, "{v}");
    let entries = of(&t, &e);
    assert_eq!(actions(&entries), ["create", "update"], "{entries:?}");
    assert_eq!(entries[1]["record_type"], "entity");
    assert_eq!(
        entries[1]["changes"],
        json!({ "lock_date": { "before": null, "after": today() } })
    );
}

#[test]
fn a_refused_change_writes_nothing() {
    let (t, e) = app_with_entity();
    let p = product(&t, &e, "Widget");
    let before = trail(&t, "").len();
    // A sale beyond the stock is refused by the ledger after the checks of its body.
    let (s, v) = t.post(
        "/api/stock-movements",
        json!({ "product_id": p, "qty": -5, "type": "sale" }),
    );
    assert_eq!(s, Status::Conflict, "{v}");
    // A product whose SKU is taken is refused.
    let (s, _) = t.post(
        "/api/products",
        json!({ "name": "Twin", "sku": "TWIN-1", "entity_id": e }),
    );
    let second = t.post(
        "/api/products",
        json!({ "name": "Twin", "sku": "TWIN-1", "entity_id": e }),
    );
    assert_eq!(s, Status::Created);
    assert_eq!(second.0, Status::Conflict, "{second:?}");
    assert_eq!(trail(&t, "").len(), before + 1);
}

#[test]
fn the_trail_refuses_update_and_delete() {
    let (t, e) = app_with_entity();
    product(&t, &e, "Widget");
    let r = t.db.write_sync(|tx| {
        tx.execute("UPDATE audit_log SET action = 'x'", [])?;
        Ok(())
    });
    assert!(format!("{r:?}").contains("append-only"), "{r:?}");
    let r = t.db.write_sync(|tx| {
        tx.execute("DELETE FROM audit_log", [])?;
        Ok(())
    });
    assert!(format!("{r:?}").contains("append-only"), "{r:?}");
}

#[test]
fn the_trail_filters_pages_and_downloads_and_shows_no_one_elses() {
    let (t, e) = app_with_entity();
    let a = product(&t, &e, "Alpha");
    let b = product(&t, &e, "Beta");
    let all = trail(&t, "");
    // Newest first: Beta's creation, Alpha's, ..., the sign-up's sign-in.
    assert_eq!(all[0]["record_id"], json!(b));
    assert_eq!(all[1]["record_id"], json!(a));
    let ids: Vec<i64> = all.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "{ids:?}");
    let (s, v) = t.get("/api/audit?limit=1&offset=1");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert_eq!(v["data"][0]["record_id"], json!(a));
    // Everything but the sign-up's sign-in belongs to the entity (its standard expense
    // categories too).
    let in_entity = trail(&t, &format!("&entityId={e}"));
    assert!(
        in_entity.iter().all(|x| x["entity_id"] == json!(e)),
        "{in_entity:?}"
    );
    assert_eq!(in_entity.len(), all.len() - 1);
    assert_eq!(all.last().unwrap()["action"], "sign_in");
    assert_eq!(
        trail(&t, &format!("&dateFrom={}&dateTo={}", today(), today())).len(),
        all.len()
    );
    assert_eq!(trail(&t, "&dateTo=2000-01-01").len(), 0);
    assert_error(&t.get("/api/audit?dateFrom=yesterday"), Status::BadRequest);
    assert_error(&t.get("/api/audit?format=xml"), Status::BadRequest);
    assert_error(&t.get("/api/audit?limit=1001"), Status::BadRequest);

    let res = t
        .with_session(t.client.get("/api/audit?format=csv"))
        .dispatch();
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(
        res.content_type().unwrap().to_string(),
        "text/csv; charset=utf-8"
    );
    let text = res.into_string().unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "id,at,user_id,user_email,action,record_type,record_id,entity_id,changes"
    );
    assert_eq!(lines.count(), all.len());

    // Another user sees none of it, and not this entity's.
    t.signup("other@example.com");
    let theirs = trail(&t, "");
    assert!(
        theirs.iter().all(|e| e["action"] == "sign_in"),
        "{theirs:?}"
    );
    assert_error(
        &t.get(&format!("/api/audit?entityId={e}")),
        Status::NotFound,
    );
    // Without a session: 401.
    *t.session.borrow_mut() = None;
    assert_error(&t.get("/api/audit"), Status::Unauthorized);
}

#[test]
fn filing_a_vat_return_is_its_creation_and_the_lock_date_it_moves() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post(
        "/api/vat/returns",
        json!({ "entity_id": e, "from": "2026-01-01", "to": "2026-03-31" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let filed = v["data"]["id"].as_str().unwrap().to_owned();
    let entries = of(&t, &filed);
    assert_eq!(actions(&entries), ["create"]);
    assert_eq!(entries[0]["record_type"], "vat_return");
    assert_eq!(
        entries[0]["changes"]["period_to"],
        json!({ "after": "2026-03-31" })
    );
    let entity = of(&t, &e);
    assert_eq!(actions(&entity), ["create", "update"], "{entity:?}");
    assert_eq!(
        entity[1]["changes"]["lock_date"],
        json!({ "before": null, "after": "2026-03-31" })
    );
}
