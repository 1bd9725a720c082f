//! The foundation (issue 2): configuration, sign-in (DECISIONS §1), the HTTP conventions
//! and error body (§7, DECISIONS §2), entities and their isolation, and a restart on a
//! real database file.

use super::common;

use common::*;
use rocket::figment::providers::Serialized;
use rocket::figment::Figment;
use rocket::http::{ContentType, Cookie, Status};
use rocket::local::blocking::LocalResponse;
use serde_json::{json, Value};
use stockbook::config::{AppConfig, Plan, SignupMode, Synchronous};

const PASSWORD: &str = "correct horse";

/// Status, JSON body and one header of a response.
fn with_header(res: LocalResponse<'_>, name: &str) -> ((Status, Value), Option<String>) {
    let h = res.headers().get_one(name).map(str::to_owned);
    (body(res), h)
}

fn login_as(t: &TestApp, email: &str, password: &str) -> ((Status, Value), Option<String>) {
    let res = t
        .client
        .post("/api/auth/login")
        .header(ContentType::JSON)
        .body(json!({ "email": email, "password": password }).to_string())
        .dispatch();
    with_header(res, "Retry-After")
}

fn signup_with(t: &TestApp, v: Value) -> (Status, Value) {
    body(
        t.client
            .post("/api/auth/signup")
            .header(ContentType::JSON)
            .body(v.to_string())
            .dispatch(),
    )
}

fn session_rows(t: &TestApp) -> i64 {
    t.db.read_sync(|c| Ok(c.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))?))
        .unwrap()
}

// ---------------------------------------------------------------------------------------
// Configuration (DECISIONS §0)

fn config_with(key: &str, value: Value) -> Result<AppConfig, String> {
    AppConfig::from_figment(&test_figment(&[(key, value)]))
}

#[test]
fn the_defaults_are_those_of_decisions_section_0() {
    let f = Figment::from(rocket::Config::default()).merge(Serialized::defaults(
        stockbook::config::figment_value(&stockbook::config::defaults()),
    ));
    let c = AppConfig::from_figment(&f).unwrap();
    assert_eq!(c.database, "stockbook.db");
    assert_eq!(c.signup, SignupMode::FirstUser);
    assert_eq!(c.plan, Plan::Pro);
    assert!(!c.allow_negative_stock);
    assert_eq!(c.session_days, 14);
    assert_eq!(c.synchronous, Synchronous::Full);
    let rocket: rocket::Config = f.extract().unwrap();
    assert_eq!(
        rocket.limits.get("json"),
        Some(rocket::data::ByteUnit::Mebibyte(32))
    );
    assert_eq!(rocket.port, 8000);
    assert_eq!(rocket.address.to_string(), "127.0.0.1");
}

#[test]
fn a_bad_signup_value_is_refused_naming_the_key() {
    let e = config_with("signup", json!("everyone")).unwrap_err();
    assert!(e.contains("`signup`"), "{e}");
}

#[test]
fn a_bad_plan_is_refused_naming_the_key() {
    let e = config_with("plan", json!("gold")).unwrap_err();
    assert!(e.contains("`plan`"), "{e}");
}

#[test]
fn a_bad_synchronous_value_is_refused_naming_the_key() {
    let e = config_with("synchronous", json!("off")).unwrap_err();
    assert!(e.contains("`synchronous`"), "{e}");
}

#[test]
fn a_session_lifetime_out_of_range_is_refused_naming_the_key() {
    for bad in [json!(0), json!(-3), json!(100_000)] {
        let e = config_with("session_days", bad).unwrap_err();
        assert!(e.contains("`session_days`"), "{e}");
    }
}

#[test]
fn a_value_of_the_wrong_type_is_refused_naming_the_key() {
    let e = config_with("session_days", json!("a fortnight")).unwrap_err();
    assert!(e.contains("`session_days`"), "{e}");
    let e = config_with("allow_negative_stock", json!("maybe")).unwrap_err();
    assert!(e.contains("`allow_negative_stock`"), "{e}");
}

#[test]
fn valid_values_are_accepted() {
    let c = AppConfig::from_figment(&test_figment(&[
        ("signup", json!("first-user")),
        ("plan", json!("essential")),
        ("synchronous", json!("normal")),
        ("session_days", json!(30)),
        ("allow_negative_stock", json!(true)),
    ]))
    .unwrap();
    assert_eq!(c.signup, SignupMode::FirstUser);
    assert_eq!(c.plan, Plan::Essential);
    assert_eq!(c.synchronous, Synchronous::Normal);
    assert_eq!(c.session_days, 30);
    assert!(c.allow_negative_stock);
}

// ---------------------------------------------------------------------------------------
// Health and the web page

#[test]
fn health_answers_ok_and_the_version_without_a_session() {
    let t = app();
    let (s, v) = t.get("/api/health");
    assert_eq!(s, Status::Ok);
    assert_eq!(
        v,
        json!({ "data": { "status": "ok", "version": env!("CARGO_PKG_VERSION") } })
    );
}

#[test]
fn the_sign_in_page_and_its_script_are_served_from_the_binary() {
    let t = app();
    let res = t.client.get("/").dispatch();
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(res.content_type(), Some(ContentType::HTML));
    let html = res.into_string().unwrap();
    assert!(html.contains("app.js"), "{html}");
    let res = t.client.get("/app.js").dispatch();
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(res.content_type(), Some(ContentType::JavaScript));
    let res = t.client.get("/js/api.js").dispatch();
    assert_eq!(res.status(), Status::Ok);
    let res = t.client.get("/app.css").dispatch();
    assert_eq!(res.content_type(), Some(ContentType::CSS));
}

#[test]
fn an_unknown_api_path_is_a_json_404_not_the_web_page() {
    let t = app();
    let res = t.get("/api/no-such-thing");
    let msg = assert_error(&res, Status::NotFound);
    assert!(msg.contains("/api/no-such-thing"), "{msg}");
    let res = t.get("/api/entities/deeper/still");
    assert_error(&res, Status::NotFound);
}

// ---------------------------------------------------------------------------------------
// Sign-up (DECISIONS §1)

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
    assert_eq!(v["data"]["email"], "ann@example.com");
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
        json!({ "data": { "id": v["data"]["id"], "email": "ann@example.com", "name": "Ann" } })
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
// The JSON-only rule and the public API's credential

#[test]
fn mutations_that_are_not_json_are_a_415() {
    let (t, id) = app_with_entity();
    let token = t.session.borrow().clone().unwrap();
    let cookie = || Cookie::new("stockbook_session", token.clone());
    let cases = [
        t.client
            .post("/api/entities")
            .cookie(cookie())
            .header(ContentType::Form)
            .body("name=Evil"),
        t.client
            .post("/api/entities")
            .cookie(cookie())
            .header(ContentType::Plain)
            .body(r#"{"name":"Evil"}"#),
        t.client
            .post("/api/entities")
            .cookie(cookie())
            .body(r#"{"name":"Evil"}"#),
        t.client
            .put("/api/entities")
            .cookie(cookie())
            .header(ContentType::FormData)
            .body(format!(r#"{{"id":"{id}","name":"Evil"}}"#)),
        t.client
            .delete("/api/entities")
            .cookie(cookie())
            .header(ContentType::Text)
            .body(format!(r#"{{"id":"{id}"}}"#)),
        t.client.post("/api/auth/logout").cookie(cookie()),
    ];
    for req in cases {
        let res = body(req.dispatch());
        let msg = assert_error(&res, Status::UnsupportedMediaType);
        assert!(msg.contains("application/json"), "{msg}");
    }
    // Nothing changed, and the session is still alive.
    let (_, list) = t.get("/api/entities");
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["name"], "Acme Ltd");
}

#[test]
fn login_and_signup_are_json_only_too() {
    let t = app();
    let res = body(
        t.client
            .post("/api/auth/signup")
            .header(ContentType::Form)
            .body("email=ann%40example.com&password=correct+horse")
            .dispatch(),
    );
    assert_error(&res, Status::UnsupportedMediaType);
    let res = body(
        t.client
            .post("/api/auth/login")
            .header(ContentType::Form)
            .body("email=ann%40example.com&password=correct+horse")
            .dispatch(),
    );
    assert_error(&res, Status::UnsupportedMediaType);
}

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
// Every status of the error catalogue, each with the §7 body

#[test]
fn malformed_json_is_a_400() {
    let (t, _) = app_with_entity();
    let token = t.session.borrow().clone().unwrap();
    let res = body(
        t.client
            .post("/api/entities")
            .cookie(Cookie::new("stockbook_session", token))
            .header(ContentType::JSON)
            .body(r#"{"name": "Acme""#)
            .dispatch(),
    );
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.starts_with("Malformed JSON"), "{msg}");
}

#[test]
fn a_field_of_the_wrong_type_is_a_400_naming_it() {
    let (t, _) = app_with_entity();
    let res = t.post("/api/entities", json!({ "name": 42 }));
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.contains("`name`"), "{msg}");
    let res = t.post("/api/entities", json!(["not", "an", "object"]));
    assert_error(&res, Status::BadRequest);
}

#[test]
fn a_missing_required_field_is_a_400_with_the_exact_message() {
    let (t, _) = app_with_entity();
    let res = t.post("/api/entities", json!({ "vat_number": "GB123" }));
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "Missing required field: name"
    );
    let res = t.post("/api/entities", json!({ "name": "   " }));
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "Missing required field: name"
    );
    let res = t.post("/api/entities", json!({ "name": null }));
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "Missing required field: name"
    );
}

#[test]
fn a_malformed_uuid_or_query_value_is_a_400() {
    let (t, _) = app_with_entity();
    let msg = assert_error(
        &t.put("/api/entities", json!({ "id": "nope", "name": "X" })),
        Status::BadRequest,
    );
    assert!(msg.contains("`id`"), "{msg}");
    let msg = assert_error(&t.get("/api/entities?entityId=nope"), Status::BadRequest);
    assert!(msg.contains("entityId"), "{msg}");
    let msg = assert_error(&t.get("/api/entities?limit=many"), Status::BadRequest);
    assert!(msg.contains("limit"), "{msg}");
    assert_error(&t.get("/api/entities?offset=-1"), Status::BadRequest);
}

#[test]
fn forbidden_is_a_403() {
    let t = app_with(&[("signup", json!("first-user"))]);
    t.signup("first@example.com");
    let res = signup_with(&t, json!({"email": "x@example.com", "password": PASSWORD}));
    assert_error(&res, Status::Forbidden);
}

#[test]
fn an_unknown_path_is_a_404() {
    let t = app();
    assert_error(&t.get("/api/nothing-here"), Status::NotFound);
    assert_error(&t.post("/api/nothing-here", json!({})), Status::NotFound);
    // A missing file outside the API is a JSON 404 too, never Rocket's HTML page.
    let res = body(t.client.get("/missing.png").dispatch());
    assert_error(&res, Status::NotFound);
}

#[test]
fn a_known_path_with_the_wrong_method_is_a_405() {
    let t = app();
    t.signup("ann@example.com");
    let msg = assert_error(&t.get("/api/auth/login"), Status::MethodNotAllowed);
    assert!(msg.contains("GET"), "{msg}");
    assert_error(&t.post("/api/health", json!({})), Status::MethodNotAllowed);
    let res = body(
        t.client
            .patch("/api/entities")
            .header(ContentType::JSON)
            .body("{}")
            .dispatch(),
    );
    assert_error(&res, Status::MethodNotAllowed);
}

#[test]
fn a_body_over_the_json_limit_is_a_413() {
    let t = app_with(&[("limits.json", json!("1 KiB"))]);
    t.signup("ann@example.com");
    let res = t.post("/api/entities", json!({ "name": "x".repeat(2000) }));
    let msg = assert_error(&res, Status::PayloadTooLarge);
    assert!(msg.contains("limit"), "{msg}");
    assert_eq!(t.get("/api/entities").1["data"], json!([]));
    // Under the limit, the same request works.
    assert_eq!(
        t.post("/api/entities", json!({ "name": "x".repeat(500) }))
            .0,
        Status::Created
    );
}

#[test]
fn unsupported_media_type_is_a_415() {
    let (t, _) = app_with_entity();
    let token = t.session.borrow().clone().unwrap();
    let res = body(
        t.client
            .post("/api/entities")
            .cookie(Cookie::new("stockbook_session", token))
            .header(ContentType::XML)
            .body("<entity/>")
            .dispatch(),
    );
    assert_error(&res, Status::UnsupportedMediaType);
}

#[test]
fn too_many_requests_is_a_429_with_retry_after() {
    let t = app();
    for _ in 0..10 {
        login_as(&t, "nobody@example.com", "whatever1");
    }
    let (res, retry) = login_as(&t, "nobody@example.com", "whatever1");
    assert_error(&res, Status::TooManyRequests);
    assert!(retry.unwrap().parse::<u64>().unwrap() >= 1);
}

#[test]
fn security_headers_are_set_on_every_answer() {
    let t = app();
    for path in ["/", "/api/health", "/api/nothing"] {
        let res = t.client.get(path).dispatch();
        assert_eq!(
            res.headers().get_one("X-Content-Type-Options"),
            Some("nosniff"),
            "{path}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Entities (DECISIONS §1)

#[test]
fn an_entity_is_created_with_gbp_and_its_standard_expense_categories() {
    let t = app();
    t.signup("ann@example.com");
    let (s, v) = t.post(
        "/api/entities",
        json!({ "name": "  Acme Ltd ", "vat_number": "GB123456789", "address": "1 High St" }),
    );
    assert_eq!(s, Status::Created);
    let e = &v["data"];
    assert_eq!(e["name"], "Acme Ltd");
    assert_eq!(e["vat_number"], "GB123456789");
    assert_eq!(e["address"], "1 High St");
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
        json!({ "id": id, "vat_number": "GB1", "address": "Leeds" }),
    );
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"]["name"], "Acme Ltd");
    assert_eq!(v["data"]["vat_number"], "GB1");
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

// ---------------------------------------------------------------------------------------
// A real database file

struct TempDb(std::path::PathBuf);

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut p = self.0.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

#[test]
fn data_written_through_the_api_survives_a_restart() {
    let file =
        TempDb(std::env::temp_dir().join(format!("stockbook-test-{}.db", uuid::Uuid::new_v4())));
    let path = file.0.to_str().unwrap().to_owned();
    let settings = [("database", json!(path))];

    let t = app_with(&settings);
    t.signup("ann@example.com");
    let id = t.entity("Acme Ltd");
    let (mode, fk, sync): (String, i64, i64) =
        t.db.read_sync(|c| {
            Ok((
                c.pragma_query_value(None, "journal_mode", |r| r.get(0))?,
                c.pragma_query_value(None, "foreign_keys", |r| r.get(0))?,
                c.pragma_query_value(None, "synchronous", |r| r.get(0))?,
            ))
        })
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(fk, 1);
    assert_eq!(sync, 2, "synchronous = full by default");
    let token = t.session.borrow().clone().unwrap();
    drop(t);
    assert!(file.0.exists());

    // A new server on the same file: the account, the entity and the session are there.
    let t = app_with(&settings);
    *t.session.borrow_mut() = Some(token);
    assert_eq!(t.get("/api/auth/me").0, Status::Ok);
    *t.session.borrow_mut() = None;
    let (s, _) = t.login("ann@example.com");
    assert_eq!(s, Status::Ok);
    let (_, list) = t.get("/api/entities");
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["id"], json!(id));
    assert_eq!(list["data"][0]["name"], "Acme Ltd");
}

#[test]
fn synchronous_normal_is_applied_to_every_connection() {
    let file =
        TempDb(std::env::temp_dir().join(format!("stockbook-test-{}.db", uuid::Uuid::new_v4())));
    let path = file.0.to_str().unwrap().to_owned();
    let t = app_with(&[("database", json!(path)), ("synchronous", json!("normal"))]);
    // Hold several pooled connections at once so more than one is initialised.
    let conns: Vec<_> = (0..3).map(|_| t.db.conn().unwrap()).collect();
    for c in &conns {
        let sync: i64 = c
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        let fk: i64 = c
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 1);
        assert_eq!(fk, 1);
    }
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
