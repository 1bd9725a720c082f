//! Sign-up, sign-in and sessions (docs/auth.md#sign-up): the account and its cookie, the login
//! throttle, logout, the idle lifetime, and which credential each API surface accepts.

use super::common;

use common::*;
use rocket::http::{ContentType, Cookie, Status};
use serde_json::{json, Value};

fn session_rows(t: &TestApp) -> i64 {
    t.db.read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))?))
        .unwrap()
}

// ---------------------------------------------------------------------------------------
// Sign-up (docs/auth.md#sign-up)

#[test]
fn signup_creates_the_account_and_signs_in_with_a_strict_cookie() {
    let t = app();
    let res = t
        .client
        .post("/api/auth/signup")
        .header(ContentType::JSON)
        .body(json!({"email": "Ann@Example.com", "password": PASSWORD, "name": "Ann"}).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::Created);
    let set_cookie = res.headers().get_one("Set-Cookie").unwrap().to_owned();
    let cookie = res.cookies().get("stockbook_session").unwrap().clone();
    let v: Value = res.into_json().unwrap();
    assert_eq!(v["data"]["email"], "Ann@Example.com");
    assert_eq!(v["data"]["name"], "Ann");
    assert!(v["data"]["id"].is_string());
    assert!(v["data"].get("password_hash").is_none());
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Lax"), "{set_cookie}");
    assert!(set_cookie.contains("Path=/"), "{set_cookie}");
    // At least 128 bits of randomness in the token.
    assert!(cookie.value().len() >= 22);

    *t.session.borrow_mut() = Some(cookie.value().to_owned());
    let (s, me) = t.get("/api/auth/me");
    assert_eq!(s, Status::Ok);
    assert_eq!(
        me,
        json!({ "data": { "id": v["data"]["id"], "email": "Ann@Example.com", "name": "Ann" } })
    );
}

#[test]
fn passwords_are_stored_as_argon2id_hashes_and_tokens_as_digests() {
    let t = app();
    t.signup("ann@example.com");
    let token = t.session.borrow().clone().unwrap();
    let (hash, digest): (String, String) = t
        .db
        .read_sync(|c| {
            Ok(c.query_row(
                "SELECT u.password_hash, s.token_hash FROM users u JOIN sessions s ON s.user_id = u.id",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
        .unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    assert!(!hash.contains(PASSWORD));
    assert_eq!(digest, stockbook::auth::token::digest(&token));
    assert_ne!(digest, token);
}

#[test]
fn with_first_user_signup_only_the_first_account_may_sign_up() {
    let t = app_with(&[("signup", json!("first-user"))]);
    t.signup("first@example.com");
    let res = signup_with(
        &t,
        json!({"email": "second@example.com", "password": PASSWORD}),
    );
    let msg = assert_error(&res, Status::Forbidden);
    assert!(msg.to_lowercase().contains("sign-up is closed"), "{msg}");
    assert_eq!(t.login("second@example.com").0, Status::Unauthorized);
}

#[test]
fn with_open_signup_anyone_may_sign_up() {
    let t = app_with(&[("signup", json!("open"))]);
    t.signup("first@example.com");
    t.signup("second@example.com");
    let (s, me) = t.get("/api/auth/me");
    assert_eq!(s, Status::Ok);
    assert_eq!(me["data"]["email"], "second@example.com");
}

#[test]
fn a_taken_email_is_a_409_whatever_its_case() {
    let t = app();
    t.signup("ann@example.com");
    let res = signup_with(
        &t,
        json!({"email": " ANN@example.COM ", "password": PASSWORD}),
    );
    assert_error(&res, Status::Conflict);
}

#[test]
fn a_password_shorter_than_8_characters_is_a_400_naming_the_field() {
    let t = app();
    let res = signup_with(
        &t,
        json!({"email": "ann@example.com", "password": "1234567"}),
    );
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.contains("password"), "{msg}");
    // Eight characters (not bytes) are enough.
    let res = signup_with(
        &t,
        json!({"email": "ann@example.com", "password": "12345678"}),
    );
    assert_eq!(res.0, Status::Created, "{}", res.1);
}

#[test]
fn a_malformed_email_at_signup_is_a_400_naming_the_field() {
    let t = app();
    for bad in [
        "",
        "ann",
        "ann@",
        "@example.com",
        "ann@example",
        "a nn@example.com",
    ] {
        let res = signup_with(&t, json!({"email": bad, "password": PASSWORD}));
        let msg = assert_error(&res, Status::BadRequest);
        assert!(msg.contains("email"), "{bad}: {msg}");
    }
}

#[test]
fn signup_without_a_password_names_the_missing_field() {
    let t = app();
    let res = signup_with(&t, json!({"email": "ann@example.com"}));
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "Missing required field: password"
    );
}

// ---------------------------------------------------------------------------------------
// Login, logout, sessions

#[test]
fn login_with_the_right_password_starts_a_session() {
    let t = app();
    let id = t.signup("ann@example.com")["data"]["id"].clone();
    *t.session.borrow_mut() = None;
    let (s, v) = t.login("ANN@example.com");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"]["id"], id);
    assert_eq!(v["data"]["email"], "ann@example.com");
    let (s, me) = t.get("/api/auth/me");
    assert_eq!(s, Status::Ok);
    assert_eq!(me["data"]["id"], id);
}

#[test]
fn a_wrong_password_an_unknown_email_and_a_malformed_email_get_the_same_401() {
    let t = app();
    t.signup("ann@example.com");
    let (wrong_pw, _) = login_as(&t, "ann@example.com", "not the password");
    let (unknown, _) = login_as(&t, "bob@example.com", PASSWORD);
    let (malformed, _) = login_as(&t, "not an email", PASSWORD);
    let a = assert_error(&wrong_pw, Status::Unauthorized);
    let b = assert_error(&unknown, Status::Unauthorized);
    let c = assert_error(&malformed, Status::Unauthorized);
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert!(wrong_pw.1.get("data").is_none());
}

#[test]
fn after_10_failures_every_attempt_is_a_429_with_retry_after_until_the_window_passes() {
    let t = app();
    t.clock.freeze();
    t.signup("ann@example.com");
    for i in 0..10 {
        let (res, _) = login_as(&t, "ann@example.com", "wrong password");
        assert_error(&res, Status::Unauthorized);
        if i < 9 {
            t.clock.advance(10);
        }
    }
    // The 11th attempt is refused even with the right password.
    let (res, retry) = login_as(&t, "ann@example.com", PASSWORD);
    let msg = assert_error(&res, Status::TooManyRequests);
    assert!(msg.to_lowercase().contains("too many"), "{msg}");
    let retry: i64 = retry.expect("Retry-After header").parse().unwrap();
    // The oldest failure is 90 s old: it leaves the 15-minute window in 810 s.
    assert_eq!(retry, 15 * 60 - 90);
    let (res, _) = login_as(&t, "ann@example.com", "wrong password");
    assert_error(&res, Status::TooManyRequests);

    // Another email is not affected.
    t.signup("bob@example.com");
    assert_eq!(login_as(&t, "bob@example.com", PASSWORD).0 .0, Status::Ok);

    // One second short of the window, still refused; then the right password works.
    t.clock.advance(retry - 1);
    let (res, retry) = login_as(&t, "ann@example.com", PASSWORD);
    assert_error(&res, Status::TooManyRequests);
    assert_eq!(retry.as_deref(), Some("1"));
    t.clock.advance(1);
    let (res, _) = login_as(&t, "ann@example.com", PASSWORD);
    assert_eq!(res.0, Status::Ok, "{}", res.1);
}

#[test]
fn the_throttle_counts_failures_not_the_refused_attempts() {
    let t = app();
    t.signup("ann@example.com");
    for _ in 0..10 {
        login_as(&t, "ann@example.com", "wrong password");
    }
    // Refused attempts do not extend the lock.
    for _ in 0..5 {
        assert_eq!(
            login_as(&t, "ann@example.com", PASSWORD).0 .0,
            Status::TooManyRequests
        );
    }
    t.clock.advance(15 * 60);
    assert_eq!(login_as(&t, "ann@example.com", PASSWORD).0 .0, Status::Ok);
}

#[test]
fn logout_kills_the_session_server_side() {
    let t = app();
    t.signup("ann@example.com");
    let old = t.session.borrow().clone().unwrap();
    let res = t
        .client
        .post("/api/auth/logout")
        .cookie(Cookie::new("stockbook_session", old.clone()))
        .header(ContentType::JSON)
        .dispatch();
    assert_eq!(res.status(), Status::Ok);
    let removal = res.headers().get_one("Set-Cookie").unwrap_or("").to_owned();
    assert_eq!(body(res).1, json!({ "data": { "success": true } }));
    assert!(removal.starts_with("stockbook_session="), "{removal}");
    assert_eq!(session_rows(&t), 0);

    // The old cookie, replayed, is refused.
    *t.session.borrow_mut() = Some(old);
    assert_error(&t.get("/api/auth/me"), Status::Unauthorized);
    assert_error(&t.get("/api/entities"), Status::Unauthorized);
}

#[test]
fn logout_ends_only_its_own_session() {
    let t = app();
    t.signup("ann@example.com");
    let first = t.session.borrow().clone().unwrap();
    t.login("ann@example.com");
    let second = t.session.borrow().clone().unwrap();
    assert_eq!(t.post("/api/auth/logout", json!({})).0, Status::Ok);
    *t.session.borrow_mut() = Some(second);
    assert_error(&t.get("/api/auth/me"), Status::Unauthorized);
    *t.session.borrow_mut() = Some(first);
    assert_eq!(t.get("/api/auth/me").0, Status::Ok);
}

#[test]
fn a_session_expires_after_its_idle_lifetime_and_use_keeps_it_alive() {
    let t = app();
    t.clock.freeze();
    t.signup("ann@example.com");
    let day = 86_400;
    // Used every 13 days, a 14-day session lives on.
    t.clock.advance(13 * day);
    assert_eq!(t.get("/api/auth/me").0, Status::Ok);
    t.clock.advance(13 * day);
    assert_eq!(t.get("/api/auth/me").0, Status::Ok);
    // Idle for 14 days and a second, it is dead.
    t.clock.advance(14 * day + 1);
    assert_error(&t.get("/api/auth/me"), Status::Unauthorized);
    // Signing in again works, and clears the dead session away.
    assert_eq!(t.login("ann@example.com").0, Status::Ok);
    assert_eq!(session_rows(&t), 1);
    assert_eq!(t.get("/api/auth/me").0, Status::Ok);
}

#[test]
fn the_idle_lifetime_follows_session_days() {
    let t = app_with(&[("session_days", json!(1))]);
    t.clock.freeze();
    t.signup("ann@example.com");
    t.clock.advance(86_400 - 60);
    assert_eq!(t.get("/api/auth/me").0, Status::Ok);
    t.clock.advance(86_400 + 1);
    assert_error(&t.get("/api/auth/me"), Status::Unauthorized);
}

#[test]
fn the_session_cookie_lives_as_long_as_the_idle_lifetime() {
    let t = app_with(&[("session_days", json!(3))]);
    let res = t
        .client
        .post("/api/auth/signup")
        .header(rocket::http::ContentType::JSON)
        .body(json!({"email": "max@example.com", "password": "correct horse"}).to_string())
        .dispatch();
    let cookie = res
        .cookies()
        .get("stockbook_session")
        .expect("cookie")
        .clone();
    assert_eq!(cookie.max_age(), Some(rocket::time::Duration::days(3)));
    assert_eq!(cookie.http_only(), Some(true));
}
#[test]
fn protected_paths_need_a_session() {
    let (t, id) = app_with_entity();
    *t.session.borrow_mut() = None;
    let cases = [
        t.get("/api/auth/me"),
        t.get("/api/entities"),
        t.post("/api/entities", json!({ "name": "X" })),
        t.put("/api/entities", json!({ "id": id, "name": "X" })),
        t.delete("/api/entities", json!({ "id": id })),
        t.post("/api/auth/logout", json!({})),
    ];
    for res in &cases {
        assert_error(res, Status::Unauthorized);
    }
    // A made-up cookie is no better than none.
    *t.session.borrow_mut() = Some("forged".into());
    assert_error(&t.get("/api/entities"), Status::Unauthorized);
}

#[test]
fn an_api_key_is_not_accepted_on_the_session_api() {
    let t = app();
    let res = t.get_with_key(
        "/api/entities",
        "sbk_0123456789012345678901234567890123456789",
    );
    let msg = assert_error(&res, Status::Unauthorized);
    assert!(msg.contains("/api/v1"), "{msg}");
}

// ---------------------------------------------------------------------------------------
// The public API's credential

#[test]
fn a_cookie_less_request_to_the_public_api_is_a_401_in_the_error_body() {
    let t = app();
    let res = body(
        t.client
            .get("/api/v1/products")
            .header(ContentType::JSON)
            .dispatch(),
    );
    let msg = assert_error(&res, Status::Unauthorized);
    assert!(msg.contains("API key"), "{msg}");
    let res = body(
        t.client
            .post("/api/v1/invoices")
            .header(ContentType::JSON)
            .body("{}")
            .dispatch(),
    );
    assert_error(&res, Status::Unauthorized);
}

#[test]
fn a_session_cookie_is_not_accepted_on_the_public_api() {
    let t = app();
    t.signup("ann@example.com");
    assert_error(&t.get("/api/v1/contacts"), Status::Unauthorized);
    assert_error(&t.get("/api/v1"), Status::Unauthorized);
}

// ---------------------------------------------------------------------------------------
// Sign-up status (docs/auth.md#sign-up-status)

#[test]
fn the_status_says_first_user_then_closed_without_a_session_and_nothing_else() {
    let t = app_with(&[("signup", json!("first-user"))]);
    let (s, v) = t.get("/api/auth/status");
    assert_eq!(s, Status::Ok);
    assert_eq!(
        v,
        json!({ "data": { "signup": "first-user", "users": false } })
    );
    t.signup("first@example.com");
    // Asked without the session: the answer is public.
    *t.session.borrow_mut() = None;
    let (s, v) = t.get("/api/auth/status");
    assert_eq!(s, Status::Ok);
    assert_eq!(v, json!({ "data": { "signup": "closed", "users": true } }));
}

#[test]
fn the_status_says_open_when_anyone_may_sign_up() {
    let t = app_with(&[("signup", json!("open"))]);
    let (_, v) = t.get("/api/auth/status");
    assert_eq!(v, json!({ "data": { "signup": "open", "users": false } }));
    t.signup("first@example.com");
    let (_, v) = t.get("/api/auth/status");
    assert_eq!(v, json!({ "data": { "signup": "open", "users": true } }));
}
