//! `Idempotency-Key` on every POST (docs/idempotency.md): the same key and body answer the
//! first answer again without running the request; another body is 422; a request still
//! running is 409; without a key nothing changes.

use std::sync::Arc;

use super::common;

use common::{app_with, app_with_entity, assert_error, body, session_contact, TestApp};
use rocket::http::{ContentType, Cookie, Header, Status};
use rocket::local::blocking::LocalResponse;
use serde_json::{json, Value};

/// A POST with the session and an `Idempotency-Key`.
fn post_keyed<'c>(t: &'c TestApp, path: &str, key: &str, v: &Value) -> LocalResponse<'c> {
    t.with_session(t.client.post(path.to_owned()))
        .header(ContentType::JSON)
        .header(Header::new("Idempotency-Key", key.to_owned()))
        .body(v.to_string())
        .dispatch()
}

fn count(t: &TestApp, table: &str) -> i64 {
    t.db.read_sync(|c| Ok(c.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))?))
        .unwrap()
}

fn invoice_body(t: &TestApp, e: &str, lines: usize) -> Value {
    let c = session_contact(t, Some(e), "Client");
    let lines: Vec<Value> = (0..lines)
        .map(
            |i| json!({ "description": format!("Work item {i}"), "quantity": 2, "unit_price": 10 }),
        )
        .collect();
    json!({ "contact_id": c, "entity_id": e, "lines": lines })
}

#[test]
fn two_identical_invoice_posts_with_one_key_make_one_invoice_and_the_same_answer() {
    // One line fits the 512 bytes the wrapper peeks at; forty are read by the body guard.
    for lines in [1, 40] {
        let (t, e) = app_with_entity();
        let inv = invoice_body(&t, &e, lines);
        assert_eq!(inv.to_string().len() > 512, lines == 40);
        let first = post_keyed(&t, "/api/invoices", "double-click-1", &inv);
        assert_eq!(first.headers().get_one("Idempotent-Replayed"), None);
        let (s1, v1) = body(first);
        assert_eq!(s1, Status::Created, "{v1}");
        let again = post_keyed(&t, "/api/invoices", "double-click-1", &inv);
        assert_eq!(again.headers().get_one("Idempotent-Replayed"), Some("true"));
        assert_eq!(again.content_type(), Some(ContentType::JSON));
        let (s2, v2) = body(again);
        assert_eq!((s2, &v2), (Status::Created, &v1));
        assert_eq!(count(&t, "invoices"), 1, "{lines} lines");
    }
}

#[test]
fn without_a_key_two_posts_make_two_invoices_as_before() {
    let (t, e) = app_with_entity();
    let inv = invoice_body(&t, &e, 1);
    assert_eq!(t.post("/api/invoices", inv.clone()).0, Status::Created);
    assert_eq!(t.post("/api/invoices", inv).0, Status::Created);
    assert_eq!(count(&t, "invoices"), 2);
    assert_eq!(count(&t, "idempotency_keys"), 0);
}

#[test]
fn the_same_key_with_another_body_or_path_is_422_and_runs_nothing() {
    let (t, e) = app_with_entity();
    let inv = invoice_body(&t, &e, 1);
    assert_eq!(
        body(post_keyed(&t, "/api/invoices", "k1", &inv)).0,
        Status::Created
    );
    let mut other = inv.clone();
    other["lines"][0]["quantity"] = json!(3);
    let msg = assert_error(
        &body(post_keyed(&t, "/api/invoices", "k1", &other)),
        Status::UnprocessableEntity,
    );
    assert!(msg.contains("Idempotency-Key"), "{msg}");
    let r = body(post_keyed(
        &t,
        "/api/contacts",
        "k1",
        &json!({"name": "X", "entity_id": e}),
    ));
    assert_error(&r, Status::UnprocessableEntity);
    assert_eq!(count(&t, "invoices"), 1);
    assert_eq!(count(&t, "contacts"), 1);
}

#[test]
fn keys_are_per_user_and_per_api_key() {
    let (t, e) = app_with_entity();
    let (_, k) = t.post("/api/api-keys", json!({"name": "k"}));
    let api_key = k["data"]["raw_key"].as_str().unwrap().to_owned();
    let contact = json!({"name": "Same", "entity_id": e});
    assert_eq!(
        body(post_keyed(&t, "/api/contacts", "shared", &contact)).0,
        Status::Created
    );
    // The same key from an API key of the same user is another caller's key.
    let v1 = |key: &str| {
        body(
            t.client
                .post("/api/v1/contacts")
                .header(Header::new("Authorization", format!("Bearer {api_key}")))
                .header(Header::new("Idempotency-Key", key.to_owned()))
                .header(ContentType::JSON)
                .body(contact.to_string())
                .dispatch(),
        )
    };
    let (s, first) = v1("shared");
    assert_eq!(s, Status::Created, "{first}");
    assert_eq!(v1("shared"), (Status::Created, first));
    // Another user's same key is theirs.
    t.signup("other@example.com");
    let e2 = t.entity("Other Ltd");
    let r = body(post_keyed(
        &t,
        "/api/contacts",
        "shared",
        &json!({"name": "Same", "entity_id": e2}),
    ));
    assert_eq!(r.0, Status::Created, "{}", r.1);
    assert_eq!(count(&t, "contacts"), 3);
}

#[test]
fn a_key_over_255_characters_or_two_keys_are_400_and_run_nothing() {
    let (t, e) = app_with_entity();
    let contact = json!({"name": "X", "entity_id": e});
    let r = body(post_keyed(&t, "/api/contacts", &"x".repeat(256), &contact));
    assert!(assert_error(&r, Status::BadRequest).contains("Idempotency-Key"));
    let two = t
        .with_session(t.client.post("/api/contacts"))
        .header(ContentType::JSON)
        .header(Header::new("Idempotency-Key", "a"))
        .header(Header::new("Idempotency-Key", "b"))
        .body(contact.to_string())
        .dispatch();
    assert_error(&body(two), Status::BadRequest);
    assert_eq!(count(&t, "contacts"), 0);
    assert_eq!(
        body(post_keyed(&t, "/api/contacts", &"x".repeat(255), &contact)).0,
        Status::Created
    );
    // An empty key is none: the request runs, and keeps no key.
    assert_eq!(
        body(post_keyed(&t, "/api/contacts", "", &contact)).0,
        Status::Created
    );
    assert_eq!(count(&t, "idempotency_keys"), 1);
}

#[test]
fn a_refused_request_keeps_no_key_and_its_corrected_retry_runs() {
    let (t, e) = app_with_entity();
    let bad = json!({"contact_id": uuid::Uuid::new_v4().to_string(), "entity_id": e});
    assert_error(
        &body(post_keyed(&t, "/api/invoices", "fix-me", &bad)),
        Status::NotFound,
    );
    assert_eq!(count(&t, "idempotency_keys"), 0);
    let good = invoice_body(&t, &e, 1);
    assert_eq!(
        body(post_keyed(&t, "/api/invoices", "fix-me", &good)).0,
        Status::Created
    );
}

#[test]
fn the_key_is_written_with_the_request_and_forgotten_after_24_hours() {
    let (t, e) = app_with_entity();
    t.clock.freeze();
    let inv = invoice_body(&t, &e, 1);
    assert_eq!(
        body(post_keyed(&t, "/api/invoices", "day", &inv)).0,
        Status::Created
    );
    let status: Option<i64> = t
        .db
        .read_sync(|c| Ok(c.query_row("SELECT status FROM idempotency_keys", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(status, Some(201));
    t.clock.advance(24 * 60 * 60 - 1);
    assert_eq!(
        body(post_keyed(&t, "/api/invoices", "day", &inv)).0,
        Status::Created
    );
    assert_eq!(count(&t, "invoices"), 1);
    t.clock.advance(1);
    assert_eq!(
        body(post_keyed(&t, "/api/invoices", "day", &inv)).0,
        Status::Created
    );
    assert_eq!(count(&t, "invoices"), 2);
    // The expired key was replaced, not kept beside the new one.
    assert_eq!(count(&t, "idempotency_keys"), 1);
}

#[test]
fn a_key_whose_answer_was_lost_in_a_crash_is_409_not_run_again() {
    let (t, e) = app_with_entity();
    let inv = invoice_body(&t, &e, 1);
    assert_eq!(
        body(post_keyed(&t, "/api/invoices", "lost", &inv)).0,
        Status::Created
    );
    // As a stop between the request's commit and the answer's leaves it.
    t.db.write_sync(|tx| {
        tx.execute("UPDATE idempotency_keys SET status = NULL, body = NULL", [])?;
        Ok(())
    })
    .unwrap();
    let msg = assert_error(
        &body(post_keyed(&t, "/api/invoices", "lost", &inv)),
        Status::Conflict,
    );
    assert!(msg.contains("answer"), "{msg}");
    assert_eq!(count(&t, "invoices"), 1);
}

#[test]
fn sign_up_and_sign_in_ignore_the_key() {
    let t = app_with(&[]);
    let up = json!({"email": "a@example.com", "password": common::PASSWORD});
    let r = t
        .client
        .post("/api/auth/signup")
        .header(ContentType::JSON)
        .header(Header::new("Idempotency-Key", "k"))
        .body(up.to_string())
        .dispatch();
    assert_eq!(r.status(), Status::Created);
    for _ in 0..2 {
        let r = t
            .client
            .post("/api/auth/login")
            .header(ContentType::JSON)
            .header(Header::new("Idempotency-Key", "k"))
            .body(up.to_string())
            .dispatch();
        assert_eq!(r.status(), Status::Ok);
        assert!(r.cookies().get("stockbook_session").is_some());
    }
    assert_eq!(count(&t, "idempotency_keys"), 0);
}

#[test]
fn concurrent_posts_with_one_key_on_a_database_file_make_one_invoice() {
    let dir = std::env::temp_dir().join(format!("stockbook-idem-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("stockbook.db").to_string_lossy().into_owned();
    let t = app_with(&[("database", json!(path))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let inv = invoice_body(&t, &e, 3);
    let session = t.session.borrow().clone().unwrap();
    let rt = rocket::tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let figment = common::test_figment(&[("database", json!(path))]);
    let answers = rt.block_on(async move {
        let app = stockbook::App::from_figment(&figment).unwrap();
        let client = Arc::new(
            rocket::local::asynchronous::Client::untracked(stockbook::build_rocket(figment, app))
                .await
                .unwrap(),
        );
        let start = Arc::new(rocket::tokio::sync::Barrier::new(8));
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (client, start, session, inv) =
                (client.clone(), start.clone(), session.clone(), inv.clone());
            tasks.push(rocket::tokio::spawn(async move {
                start.wait().await;
                let res = client
                    .post("/api/invoices")
                    .header(ContentType::JSON)
                    .header(Header::new("Idempotency-Key", "burst"))
                    .cookie(Cookie::new("stockbook_session", session))
                    .body(inv.to_string())
                    .dispatch()
                    .await;
                let status = res.status();
                let v: Value = serde_json::from_str(&res.into_string().await.unwrap()).unwrap();
                (status, v)
            }));
        }
        let mut out = Vec::new();
        for task in tasks {
            out.push(task.await.unwrap());
        }
        out
    });
    let created: Vec<&Value> = answers
        .iter()
        .filter(|(s, _)| *s == Status::Created)
        .map(|(_, v)| &v["data"]["id"])
        .collect();
    assert!(!created.is_empty(), "{answers:?}");
    assert!(created.iter().all(|id| *id == created[0]), "{answers:?}");
    for (s, v) in &answers {
        assert!(*s == Status::Created || *s == Status::Conflict, "{s}: {v}");
    }
    assert_eq!(count(&t, "invoices"), 1);
    drop(t);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_keyed_public_api_post_counts_once_against_the_rate_limit() {
    let (t, e) = app_with_entity();
    let (_, k) = t.post("/api/api-keys", json!({"name": "k"}));
    let api_key = k["data"]["raw_key"].as_str().unwrap().to_owned();
    let res = t
        .client
        .post("/api/v1/contacts")
        .header(Header::new("Authorization", format!("Bearer {api_key}")))
        .header(Header::new("Idempotency-Key", "once"))
        .header(ContentType::JSON)
        .body(json!({"name": "A", "entity_id": e}).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::Created);
    let limit: u32 = res
        .headers()
        .get_one("X-RateLimit-Limit")
        .unwrap()
        .parse()
        .unwrap();
    let left: u32 = res
        .headers()
        .get_one("X-RateLimit-Remaining")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(left, limit - 1);
}
