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

/// The ids of the trail the signed-in user may read, as the definition in
/// docs/audit.md#reading-the-trail says: the entries of the entities where they are an
/// owner or an accountant, and their own entries without an entity; newest first.
fn readable_ids(t: &TestApp, user: &str) -> Vec<i64> {
    t.db.read_sync(|c| {
        let mut s = c.prepare(
            "SELECT id FROM audit_log
             WHERE entity_id IN (SELECT entity_id FROM members
                                 WHERE user_id = ?1 AND role IN ('owner', 'accountant'))
                OR (entity_id IS NULL AND owner_id = ?1)
             ORDER BY id DESC",
        )?;
        let ids = s
            .query_map([user], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    })
    .unwrap()
}

fn ids(entries: &[Value]) -> Vec<i64> {
    entries.iter().map(|e| e["id"].as_i64().unwrap()).collect()
}

/// Invites `email` into `entity` as `role` and signs them up with the link; their
/// session is the app's from then on. Their user id.
fn join(t: &TestApp, entity: &str, email: &str, role: &str) -> String {
    let (s, v) = t.post(
        "/api/members",
        json!({ "entity_id": entity, "email": email, "role": role }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let url = v["data"]["invite_url"].as_str().unwrap().to_owned();
    let token = url.split_once("token=").unwrap().1.to_owned();
    let res = t
        .client
        .post("/api/auth/signup")
        .header(rocket::http::ContentType::JSON)
        .body(json!({ "email": email, "password": PASSWORD, "invite_token": token }).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::Created);
    let cookie = res
        .cookies()
        .get("stockbook_session")
        .unwrap()
        .value()
        .to_owned();
    *t.session.borrow_mut() = Some(cookie);
    t.get("/api/auth/me").1["data"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Without a filter the page is every business the reader may read and their own
/// entries without one, merged newest first (one ordered read each, migration V32), and
/// it pages without a gap or a repeat; members see only what their role reads.
#[test]
fn the_unfiltered_trail_merges_each_readable_business_and_the_readers_own_entries() {
    let (t, a) = app_with_entity();
    let owner_session = t.session.borrow().clone();
    let owner = t.get("/api/auth/me").1["data"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let b = t.entity("Second shop");
    // Interleaved: A, B and no business in turn.
    for i in 0..4 {
        product(&t, &a, &format!("A{i}"));
        product(&t, &b, &format!("B{i}"));
        let (s, v) = t.post("/api/products", json!({ "name": format!("Own {i}") }));
        assert_eq!(s, Status::Created, "{v}");
    }
    let all = ids(&trail(&t, ""));
    assert_eq!(all, readable_ids(&t, &owner));
    assert!(all.len() > 12, "{all:?}");
    // Pages of every size meet end to end.
    for size in [1, 2, 5, 7] {
        let mut paged = Vec::new();
        for offset in (0..all.len() + size).step_by(size) {
            let (s, v) = t.get(&format!("/api/audit?limit={size}&offset={offset}"));
            assert_eq!(s, Status::Ok, "{v}");
            paged.extend(ids(v["data"].as_array().unwrap()));
        }
        assert_eq!(paged, all, "pages of {size}");
    }
    // With dates: the same entries, and none before today.
    let day = today();
    assert_eq!(
        ids(&trail(&t, &format!("&dateFrom={day}&dateTo={day}"))),
        all
    );
    let (s, v) = t.get(&format!("/api/audit?dateFrom={day}&limit=3&offset=3"));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(ids(v["data"].as_array().unwrap()), all[3..6]);
    assert!(trail(&t, "&dateTo=2000-01-01").is_empty());
    // A user's changes with dates are read by time: the same entries as without.
    let mine = ids(&trail(&t, &format!("&userId={owner}")));
    assert!(!mine.is_empty());
    assert_eq!(
        ids(&trail(
            &t,
            &format!("&userId={owner}&dateFrom={day}&dateTo={day}")
        )),
        mine
    );

    // An accountant of B reads B and their own sign-in; a manager of A only their own.
    let accountant = join(&t, &b, "acc@example.com", "accountant");
    assert_ne!(accountant, owner);
    let theirs = ids(&trail(&t, ""));
    assert_eq!(theirs, readable_ids(&t, &accountant));
    let seen = trail(&t, "");
    assert!(seen.iter().any(|e| e["entity_id"] == json!(b)), "{seen:?}");
    assert!(
        seen.iter()
            .all(|e| e["entity_id"] == json!(b) || e["user_id"] == json!(accountant)),
        "{seen:?}"
    );
    t.session.borrow_mut().clone_from(&owner_session);
    let manager = join(&t, &a, "manager@example.com", "manager");
    let (s, v) = t.post("/api/products", json!({ "name": "Manager's own" }));
    assert_eq!(s, Status::Created, "{v}");
    let seen = trail(&t, "");
    assert_eq!(ids(&seen), readable_ids(&t, &manager));
    assert_eq!(actions(&seen), ["create", "sign_in"], "{seen:?}");
}
