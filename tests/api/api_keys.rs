//! API key management (docs/public-api.md#api-keys, docs/public-api.md#authentication,
//! docs/auth.md#credentials-per-surface): the key is shown once, stored only as a
//! digest, revocable at once, optionally scoped, and each credential works on its own
//! surface only.

use super::common;

use common::*;
use rocket::http::{Cookie, Header, Status};
use serde_json::{json, Value};

fn create_key(t: &TestApp, body: Value) -> Value {
    let (s, v) = t.post("/api/api-keys", body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"].clone()
}

#[test]
fn a_new_key_is_returned_once_with_its_record() {
    let (t, e) = app_with_entity();
    let k = create_key(&t, json!({ "name": "Shop sync", "entity_id": e }));
    let raw = k["raw_key"].as_str().unwrap();
    assert!(raw.starts_with("sbk_"), "{raw}");
    assert_eq!(raw.len(), 44);
    assert!(raw[4..].chars().all(|c| c.is_ascii_alphanumeric()), "{raw}");
    assert_eq!(k["prefix"], json!(&raw[..12]));
    assert_eq!(k["name"], "Shop sync");
    assert_eq!(k["entity_id"], json!(e));
    assert!(k["created_at"].is_string());
    assert!(k["last_used_at"].is_null());
    assert!(k["revoked_at"].is_null());
    assert!(k["id"].is_string());

    let other = create_key(&t, json!({ "name": "Unscoped" }));
    assert!(other["entity_id"].is_null());
    assert_ne!(other["raw_key"], k["raw_key"]);
}

#[test]
fn the_raw_key_never_appears_again_in_any_list_nor_in_the_database() {
    let (t, e) = app_with_entity();
    let k = create_key(&t, json!({ "name": "Once", "entity_id": e }));
    let raw = k["raw_key"].as_str().unwrap().to_owned();

    // Use it, so every trace a use leaves is there too.
    let (s, _) = t.get_with_key("/api/v1/contacts", &raw);
    assert_eq!(s, Status::Ok);

    let (s, list) = t.get("/api/api-keys");
    assert_eq!(s, Status::Ok);
    assert_eq!(list["data"][0]["id"], k["id"]);
    assert!(list["data"][0].get("raw_key").is_none());

    // Every list of both surfaces, as text.
    let session_lists = [
        "/api/api-keys",
        "/api/entities",
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
        "/api/auth/me",
        "/api/openapi.json",
    ];
    for path in session_lists {
        let res = t
            .client
            .get(path)
            .cookie(Cookie::new(
                "stockbook_session",
                t.session.borrow().clone().unwrap(),
            ))
            .dispatch();
        assert_eq!(res.status(), Status::Ok, "{path}");
        let text = res.into_string().unwrap();
        assert!(!text.contains(&raw), "{path} shows the key");
        assert!(!text.contains(&raw[12..]), "{path} shows part of the key");
    }
    for path in [
        "/api/v1/transactions",
        "/api/v1/invoices",
        "/api/v1/bills",
        "/api/v1/contacts",
        "/api/v1/products",
        "/api/v1/employees",
        "/api/v1/categories",
    ] {
        let res = t
            .client
            .get(path)
            .header(Header::new("Authorization", format!("Bearer {raw}")))
            .dispatch();
        assert_eq!(res.status(), Status::Ok, "{path}");
        let text = res.into_string().unwrap();
        assert!(!text.contains(&raw), "{path} shows the key");
    }

    // Only the digest and the display prefix are stored.
    let raw2 = raw.clone();
    let rows: Vec<Vec<Option<String>>> =
        t.db.read_sync(move |c| {
            let mut stmt = c.prepare("SELECT * FROM api_keys")?;
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |r| {
                    (0..n)
                        .map(|i| {
                            Ok(match r.get_ref(i)? {
                                rusqlite::types::ValueRef::Text(b) => {
                                    Some(String::from_utf8_lossy(b).into_owned())
                                }
                                _ => None,
                            })
                        })
                        .collect::<rusqlite::Result<Vec<_>>>()
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
        .unwrap();
    let text: String = rows
        .into_iter()
        .flatten()
        .flatten()
        .collect::<Vec<_>>()
        .join("|");
    assert!(!text.contains(&raw2[12..]), "the key is stored");
    assert!(text.contains(&raw2[..12]), "the prefix is stored");
}

#[test]
fn a_key_needs_a_name_and_may_only_be_scoped_to_an_own_entity() {
    let (t, e) = app_with_entity();
    assert_eq!(
        assert_error(&t.post("/api/api-keys", json!({})), Status::BadRequest),
        "Missing required field: name"
    );
    assert_eq!(
        assert_error(
            &t.post("/api/api-keys", json!({ "name": " " })),
            Status::BadRequest
        ),
        "Missing required field: name"
    );
    assert_error(
        &t.post("/api/api-keys", json!({ "name": "k", "entity_id": "nope" })),
        Status::BadRequest,
    );
    t.signup("other@example.com");
    assert_error(
        &t.post("/api/api-keys", json!({ "name": "k", "entity_id": e })),
        Status::NotFound,
    );
    let (_, v) = t.get("/api/api-keys");
    assert_eq!(v["data"], json!([]), "refused creates keep nothing");
}

#[test]
fn a_revoked_key_stops_working_at_once_and_stays_listed() {
    let (t, _) = app_with_entity();
    let k = create_key(&t, json!({ "name": "Temp" }));
    let raw = k["raw_key"].as_str().unwrap();
    assert_eq!(t.get_with_key("/api/v1/contacts", raw).0, Status::Ok);

    let (s, v) = t.delete("/api/api-keys", json!({ "id": k["id"] }));
    assert_eq!(s, Status::Ok);
    assert_eq!(v, json!({ "data": { "success": true } }));
    let msg = assert_error(
        &t.get_with_key("/api/v1/contacts", raw),
        Status::Unauthorized,
    );
    assert!(msg.contains("revoked"), "{msg}");
    assert_error(
        &t.post_with_key("/api/v1/contacts", raw, json!({ "name": "x" })),
        Status::Unauthorized,
    );

    let (_, list) = t.get("/api/api-keys");
    let revoked_at = list["data"][0]["revoked_at"].clone();
    assert!(revoked_at.is_string(), "{list}");
    assert_eq!(list["data"][0]["id"], k["id"]);
    t.clock.advance(10);
    let (s, _) = t.delete("/api/api-keys", json!({ "id": k["id"] }));
    assert_eq!(s, Status::Ok, "revoking again is harmless");
    let (_, list) = t.get("/api/api-keys");
    assert_eq!(list["data"][0]["revoked_at"], revoked_at);
}

#[test]
fn only_the_owner_can_revoke_a_key() {
    let (t, _) = app_with_entity();
    let k = create_key(&t, json!({ "name": "Mine" }));
    t.signup("other@example.com");
    assert_error(
        &t.delete("/api/api-keys", json!({ "id": k["id"] })),
        Status::NotFound,
    );
    assert_error(
        &t.delete(
            "/api/api-keys",
            json!({ "id": "00000000-0000-4000-8000-000000000000" }),
        ),
        Status::NotFound,
    );
    assert_error(
        &t.delete("/api/api-keys", json!({ "id": "x" })),
        Status::BadRequest,
    );
    assert_eq!(
        t.get_with_key("/api/v1/contacts", k["raw_key"].as_str().unwrap())
            .0,
        Status::Ok
    );
}

#[test]
fn last_used_at_is_null_until_the_key_is_used() {
    let (t, _) = app_with_entity();
    let k = create_key(&t, json!({ "name": "Track" }));
    let (_, list) = t.get("/api/api-keys");
    assert!(list["data"][0]["last_used_at"].is_null());
    t.get_with_key("/api/v1/employees", k["raw_key"].as_str().unwrap());
    let (_, list) = t.get("/api/api-keys");
    assert!(list["data"][0]["last_used_at"].is_string(), "{list}");
}

#[test]
fn a_key_is_not_accepted_on_the_session_api() {
    let (t, _) = app_with_entity();
    let k = create_key(&t, json!({ "name": "Wrong door" }));
    let raw = k["raw_key"].as_str().unwrap();
    for path in [
        "/api/contacts",
        "/api/api-keys",
        "/api/entities",
        "/api/auth/me",
    ] {
        assert_error(&t.get_with_key(path, raw), Status::Unauthorized);
    }
    assert_error(
        &t.post_with_key("/api/contacts", raw, json!({ "name": "x" })),
        Status::Unauthorized,
    );
    assert_error(
        &t.post_with_key("/api/api-keys", raw, json!({ "name": "escalate" })),
        Status::Unauthorized,
    );
}

#[test]
fn a_session_cookie_is_not_accepted_on_the_public_api() {
    let (t, _) = app_with_entity();
    for path in ["/api/v1/contacts", "/api/v1/invoices", "/api/v1/nowhere"] {
        let msg = assert_error(&t.get(path), Status::Unauthorized);
        assert!(msg.contains("session cookie"), "{msg}");
    }
    assert_error(
        &t.post("/api/v1/contacts", json!({ "name": "x" })),
        Status::Unauthorized,
    );
    let (_, v) = t.get("/api/contacts");
    assert_eq!(v["data"], json!([]));
}

#[test]
fn missing_malformed_and_unknown_keys_are_401() {
    let (t, _) = app_with_entity();
    let anon = |h: Option<&str>| {
        let mut req = t.client.get("/api/v1/contacts");
        if let Some(h) = h {
            req = req.header(Header::new("Authorization", h.to_owned()));
        }
        body(req.dispatch())
    };
    assert_error(&anon(None), Status::Unauthorized);
    assert_error(&anon(Some("Basic abc")), Status::Unauthorized);
    assert_error(&anon(Some("Bearer")), Status::Unauthorized);
    assert_error(&anon(Some("Bearer sbk_short")), Status::Unauthorized);
    let forged = format!("Bearer sbk_{}", "a".repeat(40));
    assert_eq!(
        assert_error(&anon(Some(&forged)), Status::Unauthorized),
        "Invalid API key"
    );
    // The scheme is case-insensitive.
    let k = create_key(&t, json!({ "name": "k" }));
    let ok = anon(Some(&format!("bearer {}", k["raw_key"].as_str().unwrap())));
    assert_eq!(ok.0, Status::Ok);
}

#[test]
fn deleting_an_entity_removes_the_keys_scoped_to_it() {
    let (t, e) = app_with_entity();
    let k = create_key(&t, json!({ "name": "Scoped", "entity_id": e }));
    let raw = k["raw_key"].as_str().unwrap();
    let (s, v) = t.delete("/api/entities", json!({ "id": e }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_error(
        &t.get_with_key("/api/v1/contacts", raw),
        Status::Unauthorized,
    );
    let (_, list) = t.get("/api/api-keys");
    assert_eq!(list["data"], json!([]));
}
