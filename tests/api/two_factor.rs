//! Two-factor sign-in over HTTP (docs/auth.md#two-factor-sign-in,
//! docs/auth.md#requiring-two-factor): set-up with the QR code, sign-in with and without
//! the code, recovery codes once each, wrong codes counted by the throttle and the trail,
//! the session's factor for HMRC, and an entity that requires it.

use super::common;

use common::*;
use rocket::http::{ContentType, Status};
use serde_json::{json, Value};
use stockbook::auth::two_factor::totp;
use totp_rs::Secret;

/// The current code of `secret` (base32) by the app's clock.
fn code(t: &TestApp, secret: &str) -> String {
    let bytes = Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
    let now = u64::try_from(t.clock.now().unix_timestamp()).unwrap();
    totp(bytes, "").generate(now)
}

/// Signs up `email` and turns two-factor sign-in on; answers the secret and the
/// recovery codes. The clock is frozen, and moved a step on after the set-up's code.
fn with_two_factor(t: &TestApp, email: &str) -> (String, Vec<String>) {
    t.clock.freeze();
    t.signup(email);
    let (s, v) = t.post("/api/auth/2fa/setup", json!({}));
    assert_eq!(s, Status::Ok, "{v}");
    let secret = v["data"]["secret"].as_str().unwrap().to_owned();
    let url = v["data"]["otpauth_url"].as_str().unwrap();
    assert!(url.starts_with("otpauth://totp/Stockbook:"), "{url}");
    assert!(url.contains(&format!("secret={secret}")), "{url}");
    assert!(
        v["data"]["qr_svg"].as_str().unwrap().starts_with("<?xml"),
        "{v}"
    );
    // Not on until confirmed.
    assert_eq!(t.get("/api/auth/2fa").1["data"]["enabled"], json!(false));
    assert_error(
        &t.post("/api/auth/2fa/enable", json!({ "code": "000000" })),
        Status::BadRequest,
    );
    let (s, v) = t.post("/api/auth/2fa/enable", json!({ "code": code(t, &secret) }));
    assert_eq!(s, Status::Ok, "{v}");
    let codes: Vec<String> = v["data"]["recovery_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(codes.len(), 10);
    assert_eq!(
        t.get("/api/auth/2fa").1["data"],
        json!({ "enabled": true, "recovery_codes_left": 10 })
    );
    t.clock.advance(30);
    (secret, codes)
}

fn login_with(t: &TestApp, email: &str, extra: Value) -> (Status, Value) {
    let mut b = json!({ "email": email, "password": PASSWORD });
    for (k, v) in extra.as_object().unwrap() {
        b[k] = v.clone();
    }
    let res = t
        .client
        .post("/api/auth/login")
        .header(ContentType::JSON)
        .body(b.to_string())
        .dispatch();
    if let Some(c) = res.cookies().get("stockbook_session") {
        *t.session.borrow_mut() = Some(c.value().to_owned());
    }
    body(res)
}

fn session_hash(t: &TestApp) -> String {
    stockbook::auth::token::digest(t.session.borrow().as_ref().unwrap())
}

#[test]
fn sign_in_needs_the_code_once_two_factor_is_on_and_a_code_works_once() {
    let t = app();
    let (secret, _) = with_two_factor(&t, "ann@example.com");
    *t.session.borrow_mut() = None;
    let msg = assert_error(
        &login_with(&t, "ann@example.com", json!({})),
        Status::Unauthorized,
    );
    assert_eq!(msg, "Two-factor code required");
    assert!(t.session.borrow().is_none());
    let msg = assert_error(
        &login_with(&t, "ann@example.com", json!({ "totp": "123456" })),
        Status::Unauthorized,
    );
    assert_eq!(msg, "Invalid two-factor code");
    // A wrong password with a right code is the password's 401.
    let res = t
        .client
        .post("/api/auth/login")
        .header(ContentType::JSON)
        .body(json!({ "email": "ann@example.com", "password": "wrong password", "totp": code(&t, &secret) }).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::Unauthorized);

    let now = code(&t, &secret);
    let (s, v) = login_with(&t, "ann@example.com", json!({ "totp": now }));
    assert_eq!(s, Status::Ok, "{v}");
    // The session knows it was opened with TOTP (for HMRC's Gov-Client-Multi-Factor).
    let hash = session_hash(&t);
    let mfa =
        t.db.read_sync(|c| stockbook::auth::session_mfa(c, &hash))
            .unwrap()
            .expect("a second factor");
    assert_eq!(mfa.kind, "TOTP");
    assert_eq!(mfa.at, stockbook::clock::rfc3339(t.clock.now()));
    assert_eq!(mfa.reference.len(), 64);
    assert!(!mfa.reference.contains(&secret));
    // The same code again (same step) is refused.
    *t.session.borrow_mut() = None;
    assert_error(
        &login_with(&t, "ann@example.com", json!({ "totp": now })),
        Status::Unauthorized,
    );
    // The trail: the sign-ins and failures, each once, with how.
    t.clock.advance(30);
    let (s, _) = login_with(&t, "ann@example.com", json!({ "totp": code(&t, &secret) }));
    assert_eq!(s, Status::Ok);
    let (_, v) = t.get("/api/audit?limit=100");
    let mine: Vec<(String, String)> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["record_type"] == "user")
        .map(|e| {
            (
                e["action"].as_str().unwrap().to_owned(),
                e["changes"]["method"]["after"]
                    .as_str()
                    .or(e["changes"]["two_factor"]["after"]
                        .as_bool()
                        .map(|_| "two_factor"))
                    .unwrap()
                    .to_owned(),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = mine.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("sign_in", "totp"),
            ("sign_in_failed", "second_factor"),
            ("sign_in", "totp"),
            ("sign_in_failed", "password"),
            ("sign_in_failed", "second_factor"),
            ("update", "two_factor"),
            ("sign_in", "sign_up"),
        ]
    );
}

#[test]
fn a_recovery_code_works_once() {
    let t = app();
    let (_, codes) = with_two_factor(&t, "ann@example.com");
    *t.session.borrow_mut() = None;
    let (s, v) = login_with(&t, "ann@example.com", json!({ "recovery_code": codes[3] }));
    assert_eq!(s, Status::Ok, "{v}");
    let hash = session_hash(&t);
    let mfa =
        t.db.read_sync(|c| stockbook::auth::session_mfa(c, &hash))
            .unwrap()
            .unwrap();
    assert_eq!(mfa.kind, "OTHER");
    assert_eq!(
        t.get("/api/auth/2fa").1["data"]["recovery_codes_left"],
        json!(9)
    );
    *t.session.borrow_mut() = None;
    let msg = assert_error(
        &login_with(&t, "ann@example.com", json!({ "recovery_code": codes[3] })),
        Status::Unauthorized,
    );
    assert_eq!(msg, "Invalid two-factor code");
    // Typed in capitals without its dash, another one works.
    let typed = codes[4].replace('-', "").to_uppercase();
    let (s, _) = login_with(&t, "ann@example.com", json!({ "recovery_code": typed }));
    assert_eq!(s, Status::Ok);
}

#[test]
fn the_throttle_counts_wrong_codes() {
    let t = app();
    let (secret, _) = with_two_factor(&t, "ann@example.com");
    *t.session.borrow_mut() = None;
    for _ in 0..10 {
        assert_error(
            &login_with(&t, "ann@example.com", json!({ "totp": "000000" })),
            Status::Unauthorized,
        );
    }
    // Right password, right code: the email is locked now.
    let res = login_with(&t, "ann@example.com", json!({ "totp": code(&t, &secret) }));
    assert_error(&res, Status::TooManyRequests);
}

#[test]
fn a_user_without_two_factor_signs_in_as_before_and_its_session_has_no_factor() {
    let t = app();
    t.signup("bob@example.com");
    let (s, _) = t.login("bob@example.com");
    assert_eq!(s, Status::Ok);
    let hash = session_hash(&t);
    let mfa =
        t.db.read_sync(|c| stockbook::auth::session_mfa(c, &hash))
            .unwrap();
    assert_eq!(mfa, None);
    assert_error(
        &t.post("/api/auth/2fa/enable", json!({ "code": "123456" })),
        Status::Conflict,
    );
    assert_error(
        &t.post("/api/auth/2fa/disable", json!({ "code": "123456" })),
        Status::Conflict,
    );
}

#[test]
fn disable_needs_a_current_code_and_then_sign_in_needs_none() {
    let t = app();
    let (secret, _) = with_two_factor(&t, "ann@example.com");
    assert_error(&t.post("/api/auth/2fa/setup", json!({})), Status::Conflict);
    assert_error(
        &t.post("/api/auth/2fa/disable", json!({ "code": "000000" })),
        Status::BadRequest,
    );
    let (s, v) = t.post(
        "/api/auth/2fa/disable",
        json!({ "code": code(&t, &secret) }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        t.get("/api/auth/2fa").1["data"],
        json!({ "enabled": false, "recovery_codes_left": 0 })
    );
    let stored: Option<String> =
        t.db.read_sync(|c| {
            Ok(c.query_row(
                "SELECT totp_secret FROM users WHERE email = 'ann@example.com'",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(stored, None);
    *t.session.borrow_mut() = None;
    let (s, _) = t.login("ann@example.com");
    assert_eq!(s, Status::Ok);
}

#[test]
fn the_secret_is_sealed_at_rest() {
    let t = app();
    let (secret, _) = with_two_factor(&t, "ann@example.com");
    let stored: String =
        t.db.read_sync(|c| Ok(c.query_row("SELECT totp_secret FROM users", [], |r| r.get(0))?))
            .unwrap();
    assert!(stored.starts_with("enc:v1:"), "{stored}");
    assert!(!stored.contains(&secret));
}

#[test]
fn an_entity_can_require_two_factor_only_of_an_owner_who_has_it() {
    let t = app();
    t.signup("bob@example.com");
    let e = t.entity("Bob's");
    let msg = assert_error(
        &t.put("/api/entities", json!({ "id": e, "require_2fa": true })),
        Status::Conflict,
    );
    assert!(msg.contains("two-factor"), "{msg}");
    assert_eq!(
        t.get("/api/entities").1["data"][0]["require_2fa"],
        json!(false)
    );

    let t = app();
    let (secret, _) = with_two_factor(&t, "ann@example.com");
    let e = t.entity("Ann's");
    let (s, v) = t.put("/api/entities", json!({ "id": e, "require_2fa": true }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["require_2fa"], json!(true));
    let (s, _) = t.get(&format!("/api/products?entityId={e}"));
    assert_eq!(s, Status::Ok);
    // Once she turns hers off, the entity is out of reach until she turns it on again.
    let (s, _) = t.post(
        "/api/auth/2fa/disable",
        json!({ "code": code(&t, &secret) }),
    );
    assert_eq!(s, Status::Ok);
    let msg = assert_error(
        &t.get(&format!("/api/products?entityId={e}")),
        Status::Forbidden,
    );
    assert!(msg.contains("two-factor"), "{msg}");
}
