//! Entities (businesses, docs/auth.md#entities): created with their standard expense categories,
//! listed, updated, deleted only when empty, and invisible to other users.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

#[test]
fn an_entity_is_created_with_gbp_and_its_standard_expense_categories() {
    let t = app();
    t.signup("ann@example.com");
    let (s, v) = t.post(
        "/api/entities",
        json!({ "name": "  Acme Ltd ", "vat_number": "GB 123 4567 82", "address": "1 High St" }),
    );
    assert_eq!(s, Status::Created);
    let e = &v["data"];
    assert_eq!(e["name"], "Acme Ltd");
    assert_eq!(e["vat_number"], "GB123456782");
    assert_eq!(e["address"], "1 High St");
    assert_eq!(e["vat_scheme"], "standard");
    assert!(e["vat_registered_from"].is_null() && e["flat_rate_percent"].is_null());
    assert_eq!(e["currency"], "GBP");
    assert!(e["created_at"].as_str().unwrap().ends_with('Z'));
    let id = e["id"].as_str().unwrap().to_owned();
    let n: i64 =
        t.db.read_sync(move |c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM expense_categories WHERE entity_id = ?1 AND standard = 1",
                [id],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(
        n,
        i64::try_from(stockbook::entities::STANDARD_EXPENSE_CATEGORIES.len()).unwrap()
    );
}

#[test]
fn entities_are_listed_by_name_and_can_be_filtered_and_paged() {
    let t = app();
    t.signup("ann@example.com");
    let b = t.entity("beta");
    let a = t.entity("Alpha");
    t.entity("gamma");
    let (_, v) = t.get("/api/entities");
    let names: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Alpha", "beta", "gamma"]);
    let (_, v) = t.get(&format!("/api/entities?entityId={b}"));
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert_eq!(v["data"][0]["id"], json!(b));
    let (_, v) = t.get("/api/entities?limit=1&offset=0");
    assert_eq!(v["data"][0]["id"], json!(a));
    let (_, v) = t.get("/api/entities?limit=2&offset=2");
    assert_eq!(v["data"][0]["name"], "gamma");
}

#[test]
fn an_entity_update_returns_the_whole_record_and_can_clear_optional_fields() {
    let (t, id) = app_with_entity();
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": id, "vat_number": "GB123456782", "address": "Leeds" }),
    );
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"]["name"], "Acme Ltd");
    assert_eq!(v["data"]["vat_number"], "GB123456782");
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": id, "name": "Acme Trading", "vat_number": null }),
    );
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"]["name"], "Acme Trading");
    assert_eq!(v["data"]["vat_number"], Value::Null);
    assert_eq!(v["data"]["address"], "Leeds");
    assert_eq!(v["data"]["currency"], "GBP");
    let (_, list) = t.get("/api/entities");
    assert_eq!(list["data"][0], v["data"]);
    assert_eq!(
        assert_error(
            &t.put("/api/entities", json!({ "id": id, "name": "" })),
            Status::BadRequest
        ),
        "Missing required field: name"
    );
}

#[test]
fn an_empty_entity_can_be_deleted() {
    let (t, id) = app_with_entity();
    let (s, v) = t.delete("/api/entities", json!({ "id": id }));
    assert_eq!(s, Status::Ok);
    assert_eq!(v, json!({ "data": { "success": true } }));
    assert_eq!(t.get("/api/entities").1["data"], json!([]));
    assert_error(
        &t.delete("/api/entities", json!({ "id": id })),
        Status::NotFound,
    );
    let left: i64 =
        t.db.read_sync(|c| {
            Ok(c.query_row("SELECT COUNT(*) FROM expense_categories", [], |r| r.get(0))?)
        })
        .unwrap();
    assert_eq!(left, 0);
}

#[test]
fn an_entity_holding_a_record_cannot_be_deleted() {
    let (t, id) = app_with_entity();
    let owner = t.get("/api/auth/me").1["data"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let eid = id.clone();
    t.db.write_sync(move |tx| {
        tx.execute(
            "INSERT INTO expense_categories (id, owner_id, entity_id, name, standard, created_at)
             VALUES (?1, ?2, ?3, 'Dog food', 0, '2025-01-01T00:00:00Z')",
            [uuid::Uuid::new_v4().to_string(), owner, eid],
        )?;
        Ok(())
    })
    .unwrap();
    let msg = assert_error(
        &t.delete("/api/entities", json!({ "id": id })),
        Status::Conflict,
    );
    assert!(msg.contains("records"), "{msg}");
    // Refused means nothing changed: the entity and its standard categories remain.
    assert_eq!(t.get("/api/entities").1["data"][0]["id"], json!(id));
    let eid = id.clone();
    let standard: i64 =
        t.db.read_sync(move |c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM expense_categories WHERE entity_id = ?1 AND standard = 1",
                [eid],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert!(standard > 0);
    // Once the record is gone, the entity can go.
    t.db.write_sync(|tx| {
        tx.execute("DELETE FROM expense_categories WHERE standard = 0", [])?;
        Ok(())
    })
    .unwrap();
    assert_eq!(t.delete("/api/entities", json!({ "id": id })).0, Status::Ok);
}

#[test]
fn another_users_entity_behaves_exactly_like_an_unknown_one() {
    let t = app();
    t.signup("ann@example.com");
    let anns = t.entity("Ann's shop");
    t.signup("bob@example.com");
    t.entity("Bob's shop");
    let unknown = uuid::Uuid::new_v4().to_string();

    // Not in Bob's list, and a 404 as a filter, in a PUT and in a DELETE, like an unknown id.
    let (_, list) = t.get("/api/entities");
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["name"], "Bob's shop");
    for id in [&anns, &unknown] {
        let msg = assert_error(
            &t.get(&format!("/api/entities?entityId={id}")),
            Status::NotFound,
        );
        assert_eq!(msg, format!("Entity not found: {id}"));
        let msg = assert_error(
            &t.put("/api/entities", json!({ "id": id, "name": "Mine now" })),
            Status::NotFound,
        );
        assert_eq!(msg, format!("Entity not found: {id}"));
        let msg = assert_error(
            &t.delete("/api/entities", json!({ "id": id })),
            Status::NotFound,
        );
        assert_eq!(msg, format!("Entity not found: {id}"));
    }

    // Ann's entity is untouched.
    t.login("ann@example.com");
    let (_, list) = t.get("/api/entities");
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["id"], json!(anns));
    assert_eq!(list["data"][0]["name"], "Ann's shop");
}

#[test]
fn an_entity_can_be_created_and_listed() {
    let (t, id) = app_with_entity();
    let (s, v) = t.get("/api/entities");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"][0]["id"], json!(id));
}

/// docs/vat.md#the-entitys-vat-settings: HMRC's check digits, the schemes, and the flat
/// rate scheme's percentage.
#[test]
fn vat_settings_are_checked_and_kept() {
    let (t, entity) = app_with_entity();
    // 8·1+7·2+6·3+5·4+4·5+3·6+2·7 = 112; 112 + 82 = 194 = 2·97 (HMRC's modulus 97 rule).
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_number": "123456782", "vat_registered_from": "2025-04-01" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["vat_number"], "GB123456782");
    assert_eq!(v["data"]["vat_registered_from"], "2025-04-01");
    // One digit changed: the check digits no longer match.
    let res = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_number": "GB123456783" }),
    );
    assert!(assert_error(&res, Status::BadRequest).contains("check digits"));
    let res = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_number": "GB12345678" }),
    );
    assert!(assert_error(&res, Status::BadRequest).contains("nine digits"));
    let res = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_scheme": "annual" }),
    );
    assert!(assert_error(&res, Status::BadRequest).contains("vat_scheme"));
    // The flat rate scheme needs its percentage, sent with it or kept from before.
    let res = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_scheme": "flat_rate" }),
    );
    assert!(assert_error(&res, Status::BadRequest).contains("flat_rate_percent"));
    let res = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_scheme": "flat_rate", "flat_rate_percent": 100.5 }),
    );
    assert_error(&res, Status::BadRequest);
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_scheme": "flat_rate", "flat_rate_percent": 8.5 }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["flat_rate_percent"], json!(8.5));
    let res = t.put(
        "/api/entities",
        json!({ "id": entity, "flat_rate_percent": null }),
    );
    assert!(assert_error(&res, Status::BadRequest).contains("flat_rate_percent"));
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": entity, "vat_scheme": "cash" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["vat_scheme"], "cash");
    // Nothing refused was written.
    let (_, v) = t.get("/api/entities");
    let e = &v["data"][0];
    assert_eq!(e["vat_number"], "GB123456782");
    assert_eq!(e["flat_rate_percent"], json!(8.5));
    // A create is checked the same way.
    let res = t.post(
        "/api/entities",
        json!({ "name": "B", "vat_number": "GB999999999" }),
    );
    assert_error(&res, Status::BadRequest);
    let (s, v) = t.post(
        "/api/entities",
        json!({ "name": "C", "vat_scheme": "flat_rate", "flat_rate_percent": 12 }),
    );
    assert_eq!(s, Status::Created, "{v}");
}
