//! Sign-in and sessions under hostile or careless use (issue 11): the absolute session
//! lifetime, sign-out everywhere, the `Secure` cookie, bounded password hashing and body
//! sizes, the configurable public API rate limit, streams a client stops reading, and the
//! caching and content-security headers.

use super::common;

use std::time::{Duration, Instant};

use common::{app, app_with, assert_error, body, TestApp};
use rocket::http::{ContentType, Header, Status};
use serde_json::{json, Value};
use stockbook::auth::password::HashGate;

const DAY: i64 = 86_400;

fn me(t: &TestApp) -> Status {
    t.get("/api/auth/me").0
}

// ---------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------

#[test]
fn a_session_used_every_day_still_ends_at_its_absolute_lifetime() {
    let t = app_with(&[("session_days", json!(14)), ("session_max_days", json!(20))]);
    t.signup("ann@example.com");
    for _ in 0..19 {
        t.clock.advance(DAY);
        assert_eq!(me(&t), Status::Ok);
    }
    t.clock.advance(DAY);
    assert_error(&t.get("/api/auth/me"), Status::Unauthorized);
    // Signing in again starts a new session.
    assert_eq!(t.login("ann@example.com").0, Status::Ok);
    assert_eq!(me(&t), Status::Ok);
}

#[test]
fn the_cookie_never_outlives_the_absolute_lifetime() {
    let t = app_with(&[("session_days", json!(14)), ("session_max_days", json!(20))]);
    t.signup("ann@example.com");
    for _ in 0..18 {
        t.clock.advance(DAY);
        assert_eq!(me(&t), Status::Ok);
    }
    t.clock.advance(DAY);
    let res = t.with_session(t.client.get("/api/auth/me")).dispatch();
    assert_eq!(res.status(), Status::Ok);
    let cookie = res
        .cookies()
        .get("stockbook_session")
        .expect("the cookie slides");
    let max_age = cookie.max_age().unwrap().whole_seconds();
    assert!(max_age <= DAY && max_age > DAY - 60, "{max_age}");
}

#[test]
fn a_maximum_lifetime_shorter_than_the_idle_one_is_refused_naming_the_key() {
    let figment =
        common::test_figment(&[("session_days", json!(30)), ("session_max_days", json!(7))]);
    let e = stockbook::App::from_figment(&figment).err().unwrap();
    assert!(e.contains("`session_max_days`"), "{e}");
}

#[test]
fn sign_out_everywhere_ends_every_session_of_the_user_and_no_other() {
    let t = app();
    t.signup("ann@example.com");
    let laptop = t.session.borrow().clone();
    t.login("ann@example.com");
    let phone = t.session.borrow().clone();
    t.signup("bob@example.com");
    let bob = t.session.borrow().clone();
    // Each session is used (and so cached) first.
    for s in [&laptop, &phone, &bob] {
        *t.session.borrow_mut() = s.clone();
        assert_eq!(me(&t), Status::Ok);
    }
    *t.session.borrow_mut() = phone.clone();
    let res = t
        .with_session(t.client.post("/api/auth/logout-all"))
        .header(ContentType::JSON)
        .body("{}")
        .dispatch();
    assert_eq!(res.status(), Status::Ok);
    let removal = res
        .cookies()
        .get("stockbook_session")
        .map(|c| c.value().to_owned());
    assert_eq!(removal.as_deref(), Some(""), "the cookie is removed");
    assert_eq!(body(res).1, json!({ "data": { "success": true } }));
    for s in [&laptop, &phone] {
        *t.session.borrow_mut() = s.clone();
        assert_eq!(me(&t), Status::Unauthorized);
    }
    *t.session.borrow_mut() = bob;
    assert_eq!(me(&t), Status::Ok);
    let left: i64 =
        t.db.read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))?))
            .unwrap();
    assert_eq!(left, 1);
}

#[test]
fn sign_out_everywhere_needs_a_session() {
    let t = app();
    let res = t
        .client
        .post("/api/auth/logout-all")
        .header(ContentType::JSON)
        .body("{}")
        .dispatch();
    assert_eq!(res.status(), Status::Unauthorized);
}

fn login_cookie_secure(t: &TestApp, forwarded: Option<&str>) -> Option<bool> {
    let mut req = t
        .client
        .post("/api/auth/login")
        .header(ContentType::JSON)
        .body(json!({"email": "ann@example.com", "password": "correct horse"}).to_string());
    if let Some(proto) = forwarded {
        req = req.header(Header::new("X-Forwarded-Proto", proto.to_owned()));
    }
    let res = req.dispatch();
    assert_eq!(res.status(), Status::Ok);
    let cookie = res.cookies().get("stockbook_session").unwrap().clone();
    cookie.secure()
}

#[test]
fn the_cookie_is_secure_behind_a_tls_proxy_or_when_configured() {
    let t = app();
    t.signup("ann@example.com");
    assert_ne!(login_cookie_secure(&t, None), Some(true));
    assert_ne!(login_cookie_secure(&t, Some("http")), Some(true));
    assert_eq!(login_cookie_secure(&t, Some("https")), Some(true));

    let t = app_with(&[("cookie_secure", json!(true))]);
    t.signup("ann@example.com");
    assert_eq!(login_cookie_secure(&t, None), Some(true));

    let t = app_with(&[("cookie_secure", json!("false"))]);
    t.signup("ann@example.com");
    assert_ne!(login_cookie_secure(&t, Some("https")), Some(true));

    let figment = common::test_figment(&[("cookie_secure", json!("sometimes"))]);
    let e = stockbook::App::from_figment(&figment).err().unwrap();
    assert!(e.contains("`cookie_secure`"), "{e}");
}

#[test]
fn the_sign_up_cookie_is_secure_behind_a_tls_proxy() {
    let t = app();
    let res = t
        .client
        .post("/api/auth/signup")
        .header(ContentType::JSON)
        .header(Header::new("X-Forwarded-Proto", "https"))
        .body(json!({"email": "ann@example.com", "password": "correct horse"}).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::Created);
    assert_eq!(
        res.cookies().get("stockbook_session").unwrap().secure(),
        Some(true)
    );
}

// ---------------------------------------------------------------------------------------
// Login flood and body sizes
// ---------------------------------------------------------------------------------------

#[test]
fn when_every_hashing_permit_is_taken_a_sign_in_waits_then_gets_503_and_counts_nothing() {
    let t = app_with(&[("password_hash_concurrency", json!(2))]);
    t.signup("ann@example.com");
    let gate = t.client.rocket().state::<HashGate>().unwrap();
    assert_eq!(gate.available(), 2);
    let held = gate.saturate();
    let started = Instant::now();
    let res = t
        .client
        .post("/api/auth/login")
        .header(ContentType::JSON)
        .body(json!({"email": "ann@example.com", "password": "wrong password"}).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::ServiceUnavailable);
    assert_eq!(res.headers().get_one("Retry-After"), Some("1"));
    assert!(started.elapsed() >= HashGate::WAIT);
    let (_, v) = body(res);
    assert_eq!(v["statusCode"], 503);
    let failures: i64 = t
        .db
        .read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM login_failures", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(failures, 0, "a refused attempt costs no write");
    drop(held);
    assert_eq!(t.login("ann@example.com").0, Status::Ok);
    assert_eq!(gate.available(), 2);
}

fn big_name(bytes: usize) -> Value {
    // A name is at most 200 characters (docs/limits.md#text-lengths): the bulk goes in a
    // field the server ignores.
    json!({ "name": "Shop", "padding": "x".repeat(bytes) })
}

#[test]
fn a_body_above_the_small_limit_is_413_on_every_endpoint_but_the_csv_imports() {
    let t = app();
    // Anonymous.
    let res = t.post("/api/auth/login", big_name(5 << 20));
    let msg = assert_error(&res, Status::PayloadTooLarge);
    assert!(msg.contains("4 MiB") || msg.contains("limit"), "{msg}");
    t.signup("ann@example.com");
    let res = t.post("/api/entities", big_name(5 << 20));
    assert_error(&res, Status::PayloadTooLarge);
    assert_eq!(t.post("/api/entities", big_name(1000)).0, Status::Created);
    // The CSV import endpoints still take large files.
    let csv = format!(
        "name,sku\n{}",
        "Widget with a long enough name,W\n".repeat(170_000)
    );
    assert!(csv.len() > 5 << 20);
    let res = t.post(
        "/api/import/preview",
        json!({ "csv": csv, "entityType": "products", "platform": "generic" }),
    );
    assert_ne!(res.0, Status::PayloadTooLarge, "{}", res.1);
}

#[test]
fn the_small_limit_is_a_setting_and_never_above_limits_json() {
    let t = app_with(&[("limits.body", json!("1 KiB"))]);
    t.signup("ann@example.com");
    assert_error(
        &t.post("/api/entities", big_name(2000)),
        Status::PayloadTooLarge,
    );
    assert_eq!(t.post("/api/entities", big_name(500)).0, Status::Created);
}

// ---------------------------------------------------------------------------------------
// The public API's rate limit
// ---------------------------------------------------------------------------------------

fn new_key(t: &TestApp) -> String {
    let (s, v) = t.post("/api/api-keys", json!({ "name": "k" }));
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["raw_key"].as_str().unwrap().to_owned()
}

#[test]
fn the_rate_limit_is_the_configured_one() {
    let t = app_with(&[("v1_rate_limit", json!(3))]);
    t.signup("ann@example.com");
    let key = new_key(&t);
    for remaining in (0..3).rev() {
        let res = t
            .client
            .get("/api/v1/contacts")
            .header(Header::new("Authorization", format!("Bearer {key}")))
            .dispatch();
        assert_eq!(res.status(), Status::Ok);
        assert_eq!(res.headers().get_one("X-RateLimit-Limit"), Some("3"));
        assert_eq!(
            res.headers().get_one("X-RateLimit-Remaining"),
            Some(remaining.to_string().as_str())
        );
    }
    assert_eq!(
        t.get_with_key("/api/v1/contacts", &key).0,
        Status::TooManyRequests
    );
    let figment = common::test_figment(&[("v1_rate_limit", json!(0))]);
    let e = stockbook::App::from_figment(&figment).err().unwrap();
    assert!(e.contains("`v1_rate_limit`"), "{e}");
}

#[test]
fn a_user_holds_at_most_a_hundred_active_keys() {
    let t = app();
    t.signup("ann@example.com");
    for _ in 0..100 {
        new_key(&t);
    }
    let res = t.post("/api/api-keys", json!({ "name": "one too many" }));
    let msg = assert_error(&res, Status::Conflict);
    assert!(msg.contains("100"), "{msg}");
    let (_, list) = t.get("/api/api-keys?limit=1");
    let id = list["data"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(t.delete("/api/api-keys", json!({ "id": id })).0, Status::Ok);
    new_key(&t);
}

// ---------------------------------------------------------------------------------------
// Streams a client stops reading
// ---------------------------------------------------------------------------------------

#[test]
fn a_stream_the_client_stops_reading_gives_back_its_connection_after_the_timeout() {
    let t = app_with(&[("stream_timeout_secs", json!(1))]);
    t.signup("ann@example.com");
    let entity = t.entity("Acme Ltd");
    let (_, me) = t.get("/api/auth/me");
    let owner = me["data"]["id"].as_str().unwrap().to_owned();
    // About 13 MB of products: far more than the chunks the stream may run ahead.
    t.db.write_sync(|tx| {
        tx.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
             INSERT INTO products (id, owner_id, entity_id, name, sku, description, created_at, updated_at)
             SELECT printf('00000000-0000-4000-8000-%012d', i), ?1, ?2, 'Product ' || i,
                    'SKU-' || i, hex(randomblob(1000)), '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'
             FROM n",
            [&owner, &entity],
        )?;
        Ok(())
    })
    .unwrap();
    // The in-memory database has one connection: the stalled stream holds it.
    let stalled = t.with_session(t.client.get("/api/products")).dispatch();
    assert_eq!(stalled.status(), Status::Ok);
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    let (s, v) = t.get("/api/entities");
    assert_eq!(s, Status::Ok, "{v}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the connection came back only after {:?}",
        started.elapsed()
    );
    // And a stream's permit: another full download works.
    let (s, v) = t.get("/api/products");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"].as_array().unwrap().len(), 6000);
    // The stalled client holds an answer cut short: not valid JSON.
    let text = stalled.into_string().unwrap_or_default();
    assert!(serde_json::from_str::<Value>(&text).is_err());
}

// ---------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------

#[test]
fn every_api_answer_says_no_store() {
    let t = app();
    let anonymous = t.client.get("/api/health").dispatch();
    assert_eq!(
        anonymous.headers().get_one("Cache-Control"),
        Some("no-store")
    );
    let missing = t.client.get("/api/nothing-here").dispatch();
    assert_eq!(missing.status(), Status::NotFound);
    assert_eq!(missing.headers().get_one("Cache-Control"), Some("no-store"));
    t.signup("ann@example.com");
    let res = t
        .with_session(t.client.post("/api/api-keys"))
        .header(ContentType::JSON)
        .body(json!({ "name": "k" }).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::Created);
    assert_eq!(res.headers().get_one("Cache-Control"), Some("no-store"));
    let key = body(res).1["data"]["raw_key"].as_str().unwrap().to_owned();
    let v1 = t
        .client
        .get("/api/v1/contacts")
        .header(Header::new("Authorization", format!("Bearer {key}")))
        .dispatch();
    assert_eq!(v1.status(), Status::Ok);
    assert_eq!(v1.headers().get_one("Cache-Control"), Some("no-store"));
    let refused = t.client.get("/api/v1/contacts").dispatch();
    assert_eq!(refused.headers().get_one("Cache-Control"), Some("no-store"));
}

#[test]
fn the_web_app_has_a_content_security_policy_and_needs_nothing_inline() {
    let t = app();
    let page = t.client.get("/").dispatch();
    assert_eq!(page.status(), Status::Ok);
    let csp = page
        .headers()
        .get_one("Content-Security-Policy")
        .expect("a CSP on the HTML")
        .to_owned();
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{csp}");
    }
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
        "{csp}"
    );
    // The policy holds because the page has no inline script, style or handler.
    let html = page.into_string().unwrap();
    for inline in [
        "<script>",
        "<style",
        " style=",
        " onclick=",
        " onload=",
        "javascript:",
    ] {
        assert!(!html.contains(inline), "inline `{inline}` in index.html");
    }
    assert!(html.contains(r#"<script type="module" src="/app.js">"#));
    // A deep link gets the page, and the policy, too; the API does not need it.
    let deep = t.client.get("/products").dispatch();
    if deep.content_type() == Some(ContentType::HTML) {
        assert!(deep.headers().get_one("Content-Security-Policy").is_some());
    }
}
