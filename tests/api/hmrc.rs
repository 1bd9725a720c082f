//! Filing with HMRC over HTTP (docs/hmrc.md), against the fake HMRC of
//! `common::fake_hmrc`: connecting, obligations, submitting with the receipt kept, HMRC's
//! refusals and faults leaving nothing recorded, the single-use refresh tokens, an
//! interrupted submission resolved after a restart, and the tokens never in clear.

use super::common;

use common::fake_hmrc::{FakeHmrc, NOT_ENDED_KEY, UNKNOWN_VRN};
use common::{assert_error, body, TestApp};
use rocket::http::{Header, Status};
use serde_json::{json, Value};

/// A signed-up owner with an entity registered for VAT under `vat_number`, the app
/// configured for the fake.
fn setup_with(fake: &FakeHmrc, vat_number: &str, extra: &[(&str, Value)]) -> (TestApp, String) {
    let mut settings = vec![("hmrc", fake.config())];
    settings.extend(extra.iter().cloned());
    let t = common::app_with(&settings);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": e, "vat_number": vat_number }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    (t, e)
}

fn setup(fake: &FakeHmrc) -> (TestApp, String) {
    setup_with(fake, "GB123456782", &[])
}

/// Connects `e` to the fake: start, the user's consent, the callback.
fn connect(t: &TestApp, fake: &FakeHmrc, e: &str) {
    let (s, v) = t.get(&format!("/api/hmrc/connect?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    let back = fake.consent(v["data"]["authorize_url"].as_str().unwrap());
    let path = back.strip_prefix("http://stockbook.test").unwrap();
    let res = t.with_session(t.client.get(path.to_owned())).dispatch();
    assert_eq!(res.status(), Status::SeeOther);
    assert_eq!(
        res.headers().get_one("Location"),
        Some("/#/vat?hmrc=connected")
    );
}

/// What the web app sends as `client`.
fn client() -> Value {
    json!({
        "js_user_agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        "screens": [{"width": 1920, "height": 1080, "scaling_factor": 1.25, "colour_depth": 24}],
        "window_size": {"width": 1256, "height": 803},
        "timezone": "UTC+01:00",
        "do_not_track": false,
        "plugins": ["PDF Viewer"],
        "device_id": "beec798b-b366-47fa-b1f8-92cede14a1ce"
    })
}

fn submit(t: &TestApp, e: &str, key: &str) -> (Status, Value) {
    t.post(
        "/api/vat/returns",
        json!({
            "entity_id": e, "from": "2026-04-01", "to": "2026-06-30", "period_key": key,
            "declaration": true, "client": client()
        }),
    )
}

fn count(t: &TestApp, sql: &str) -> i64 {
    t.db.read_sync(|c| Ok(c.query_row(sql, [], |r| r.get(0))?))
        .unwrap()
}

fn lock_date(t: &TestApp, e: &str) -> Value {
    let (_, v) = t.get(&format!("/api/entities?entityId={e}"));
    v["data"][0]["lock_date"].clone()
}

/// A box 1 of £100.50 in the quarter.
fn some_vat(t: &TestApp, e: &str) {
    let (s, v) = t.post(
        "/api/vat/adjustments",
        json!({ "entity_id": e, "date": "2026-05-01", "box": 1, "amount": 100.50, "description": "Postponed import VAT, May" }),
    );
    assert_eq!(s, Status::Created, "{v}");
}

#[test]
fn an_owner_connects_an_entity_with_a_single_use_state_and_pkce_and_can_disconnect() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    let (_, v) = t.get(&format!("/api/hmrc/connection?entityId={e}"));
    assert_eq!(v["data"]["connected"], false);

    let (s, v) = t.get(&format!("/api/hmrc/connect?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    let url = url::Url::parse(v["data"]["authorize_url"].as_str().unwrap()).unwrap();
    let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert_eq!(url.path(), "/oauth/authorize");
    assert_eq!(q["scope"], "read:vat write:vat");
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!(q["redirect_uri"], "http://stockbook.test/api/hmrc/callback");
    let back = fake.consent(url.as_str());
    let path = back
        .strip_prefix("http://stockbook.test")
        .unwrap()
        .to_owned();
    let res = t.with_session(t.client.get(path.clone())).dispatch();
    assert_eq!(
        res.headers().get_one("Location"),
        Some("/#/vat?hmrc=connected")
    );

    // The state is used up.
    let again = body(t.with_session(t.client.get(path)).dispatch());
    assert_error(&again, Status::BadRequest);

    let (_, v) = t.get(&format!("/api/hmrc/connection?entityId={e}"));
    let c = &v["data"];
    assert_eq!(c["connected"], true, "{v}");
    let at = time::OffsetDateTime::parse(
        c["connected_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let until = time::OffsetDateTime::parse(
        c["refresh_expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let days = (until - at).whole_days();
    assert!((546..=549).contains(&days), "18 months on: {days} days");

    // Another user cannot see or forget it.
    let (s, v) = t.delete("/api/hmrc/connection", json!({ "entity_id": e }));
    assert_eq!(s, Status::Ok, "{v}");
    let (_, v) = t.get(&format!("/api/hmrc/connection?entityId={e}"));
    assert_eq!(v["data"]["connected"], false);
    assert_eq!(count(&t, "SELECT count(*) FROM hmrc_connections"), 0);
}

#[test]
fn hmrcs_refusal_at_the_authorisation_page_connects_nothing() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    let (_, v) = t.get(&format!("/api/hmrc/connect?entityId={e}"));
    let url = url::Url::parse(v["data"]["authorize_url"].as_str().unwrap()).unwrap();
    let state = url
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let res = t
        .with_session(t.client.get(format!(
            "/api/hmrc/callback?error=access_denied&state={state}"
        )))
        .dispatch();
    assert_eq!(
        res.headers().get_one("Location"),
        Some("/#/vat?hmrc_error=access_denied")
    );
    let (_, v) = t.get(&format!("/api/hmrc/connection?entityId={e}"));
    assert_eq!(v["data"]["connected"], false);
}

#[test]
fn without_a_connection_or_configuration_hmrc_calls_are_refused_plainly() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    let res = t.get(&format!("/api/vat/obligations?entityId={e}"));
    let m = assert_error(&res, Status::Conflict);
    assert!(m.contains("not connected to HMRC"), "{m}");

    let t = common::app();
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let res = t.get(&format!("/api/hmrc/connect?entityId={e}"));
    let m = assert_error(&res, Status::Conflict);
    assert!(m.contains("hmrc.client_id"), "{m}");
    assert_eq!(res.1["code"], "not_configured");
}

#[test]
fn the_open_obligations_are_hmrcs_in_our_words() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    let (s, v) = t.get(&format!("/api/vat/obligations?entityId={e}&status=O"));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        v["data"],
        json!([{ "period_key": "26A2", "start": "2026-04-01", "end": "2026-06-30", "due": "2026-08-07", "status": "O", "received": null }])
    );
    let req = fake.api_requests().pop().unwrap();
    assert_eq!(req.path, "/organisations/vat/123456782/obligations");
    assert_eq!(req.param("status").as_deref(), Some("O"));
    let res = t.get(&format!("/api/vat/obligations?entityId={e}&status=X"));
    assert_error(&res, Status::BadRequest);
}

#[test]
fn a_submitted_return_sends_the_vat_pages_boxes_and_keeps_hmrcs_receipt_and_locks_the_period() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    some_vat(&t, &e);
    let (_, page) = t.get(&format!(
        "/api/vat/return?entityId={e}&from=2026-04-01&to=2026-06-30"
    ));

    let (s, v) = submit(&t, &e, "26A2");
    assert_eq!(s, Status::Created, "{v}");
    let r = &v["data"];
    assert_eq!(r["method"], "hmrc");
    assert_eq!(r["period_key"], "26A2");
    assert_eq!(r["boxes"], page["data"]["boxes"]);
    assert_eq!(r["receipt"]["formBundleNumber"], "256660290587");
    assert_eq!(r["receipt"]["chargeRefNumber"], "aCxFaNx0FZsCvyWF");
    assert_eq!(r["receipt"]["paymentIndicator"], "BANK");
    assert_eq!(r["receipt"]["processingDate"], "2026-07-16T08:20:27.895Z");
    assert_eq!(
        r["receipt"]["receiptId"],
        "2dd537bc-4244-4ebf-bac9-96321be13cdc"
    );

    let sent = fake.with(|s| s.returns[&("123456782".to_owned(), "26A2".to_owned())].clone());
    assert_eq!(sent["vatDueSales"], json!(100.50));
    assert_eq!(sent["totalVatDue"], json!(100.50));
    assert_eq!(sent["netVatDue"], json!(100.50));
    assert_eq!(sent["totalValueSalesExVAT"], json!(0));
    assert_eq!(sent["finalised"], true);

    // Kept with the returns, the period locked.
    let (_, list) = t.get(&format!("/api/vat/returns?entityId={e}"));
    assert_eq!(list["data"][0]["receipt"], r["receipt"]);
    assert_eq!(lock_date(&t, &e), "2026-06-30");

    // The submitted return as HMRC holds it.
    let (s, v) = t.get(&format!("/api/vat/submitted?entityId={e}&periodKey=26A2"));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["periodKey"], "26A2");
    // A second submission for the period is ours to refuse.
    let res = submit(&t, &e, "26A2");
    assert_error(&res, Status::Conflict);
}

/// Asserts nothing of a refused submission is kept.
fn nothing_recorded(t: &TestApp, e: &str) {
    assert_eq!(count(t, "SELECT count(*) FROM vat_returns"), 0);
    let (_, list) = t.get(&format!("/api/vat/returns?entityId={e}"));
    assert_eq!(list["data"], json!([]));
    assert_eq!(lock_date(t, e), Value::Null);
}

#[test]
fn a_duplicate_submission_is_refused_with_hmrcs_code_and_nothing_recorded() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    // Filed already, from another program.
    fake.with(|s| {
        s.returns.insert(
            ("123456782".into(), "26A2".into()),
            json!({ "periodKey": "26A2" }),
        )
    });
    let res = submit(&t, &e, "26A2");
    let m = assert_error(&res, Status::Conflict);
    assert!(m.contains("DUPLICATE_SUBMISSION"), "{m}");
    nothing_recorded(&t, &e);
}

#[test]
fn a_period_not_ended_is_refused_with_hmrcs_code_and_nothing_recorded() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    let res = submit(&t, &e, NOT_ENDED_KEY);
    let m = assert_error(&res, Status::Conflict);
    assert!(m.contains("TAX_PERIOD_NOT_ENDED"), "{m}");
    nothing_recorded(&t, &e);
}

#[test]
fn a_vat_number_hmrc_does_not_know_is_refused_with_hmrcs_code_and_nothing_recorded() {
    let fake = FakeHmrc::start();
    let (t, e) = setup_with(&fake, &format!("GB{UNKNOWN_VRN}"), &[]);
    connect(&t, &fake, &e);
    let res = submit(&t, &e, "26A2");
    let m = assert_error(&res, Status::BadRequest);
    assert!(m.contains("VRN_INVALID"), "{m}");
    nothing_recorded(&t, &e);
}

#[test]
fn a_fault_on_hmrcs_side_is_a_503_that_says_so_and_nothing_recorded() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    fake.with(|s| s.fail_submissions_with = Some(500));
    let res = submit(&t, &e, "26A2");
    let m = assert_error(&res, Status::ServiceUnavailable);
    assert!(m.contains("HMRC answered HTTP 500"), "{m}");
    nothing_recorded(&t, &e);
    // And when HMRC is back, the same return goes through.
    fake.with(|s| s.fail_submissions_with = None);
    let (s, v) = submit(&t, &e, "26A2");
    assert_eq!(s, Status::Created, "{v}");
}

#[test]
fn hmrc_unreachable_is_a_503_and_nothing_recorded() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    // HMRC goes away (the token is still fresh: no refresh is needed).
    drop(fake);
    let res = submit(&t, &e, "26A2");
    let m = assert_error(&res, Status::ServiceUnavailable);
    assert!(m.contains("HMRC could not be reached"), "{m}");
    nothing_recorded(&t, &e);
}

#[test]
fn a_submission_without_the_declaration_is_refused_before_hmrc_is_called() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    let res = t.post(
        "/api/vat/returns",
        json!({ "entity_id": e, "from": "2026-04-01", "to": "2026-06-30", "period_key": "26A2", "declaration": false }),
    );
    let m = assert_error(&res, Status::BadRequest);
    assert!(m.contains("declaration"), "{m}");
    assert!(fake.api_requests().is_empty());
    nothing_recorded(&t, &e);
    // A bad browser value is refused too, naming it.
    let mut c = client();
    c["device_id"] = json!("not-a-uuid");
    let res = t.post(
        "/api/vat/returns",
        json!({ "entity_id": e, "from": "2026-04-01", "to": "2026-06-30", "period_key": "26A2", "declaration": true, "client": c }),
    );
    let m = assert_error(&res, Status::BadRequest);
    assert!(m.contains("client.device_id"), "{m}");
    nothing_recorded(&t, &e);
}

#[test]
fn an_expired_access_token_is_refreshed_and_the_new_refresh_token_is_the_one_used_next() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    let first = fake.with(|s| s.refresh.iter().next().unwrap().clone());

    // Four hours on, the access token has expired.
    t.clock.advance(4 * 3600 + 10);
    fake.expire_access_tokens();
    let (s, v) = t.get(&format!("/api/vat/obligations?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    let second = fake.with(|s| s.refresh.iter().next().unwrap().clone());
    assert_ne!(first, second);

    t.clock.advance(4 * 3600 + 10);
    fake.expire_access_tokens();
    let (s, v) = t.get(&format!(
        "/api/vat/liabilities?entityId={e}&from=2026-01-01&to=2026-12-31"
    ));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"][0]["type"], "VAT Return Debit Charge");
    fake.with(|s| {
        assert_eq!(s.refreshed_with, vec![first.clone(), second.clone()]);
        assert!(
            s.reused.is_empty(),
            "a used refresh token was sent again: {:?}",
            s.reused
        );
    });
    // Within the access token's life, no refresh.
    let (s, v) = t.get(&format!(
        "/api/vat/payments?entityId={e}&from=2026-01-01&to=2026-12-31"
    ));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"], json!([{"amount": 5, "received": "2026-02-11"}]));
    assert_eq!(fake.with(|s| s.refreshed_with.len()), 2);
}

#[test]
fn a_refresh_token_hmrc_no_longer_takes_asks_the_user_to_connect_again() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    t.clock.advance(4 * 3600 + 10);
    fake.with(|s| {
        s.access.clear();
        s.refresh.clear();
    });
    let res = t.get(&format!("/api/vat/obligations?entityId={e}"));
    let m = assert_error(&res, Status::Conflict);
    assert!(m.contains("connect to HMRC again"), "{m}");
}

/// A directory of its own under the temporary directory, removed at the end.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("stockbook-hmrc-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    fn db(&self) -> String {
        self.0.join("shop.db").to_str().unwrap().to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The app over the database file in `dir`, signed in as the owner.
fn file_app(fake: &FakeHmrc, dir: &TempDir) -> TestApp {
    let t = common::app_with(&[("hmrc", fake.config()), ("database", json!(dir.db()))]);
    let (s, _) = t.login("owner@example.com");
    if s != Status::Ok {
        t.signup("owner@example.com");
    }
    t
}

#[test]
fn a_crash_after_hmrc_accepted_and_before_our_commit_is_resolved_by_reading_the_return_back() {
    let fake = FakeHmrc::start();
    let dir = TempDir::new();
    let (e, user) = {
        let t = file_app(&fake, &dir);
        let e = t.entity("Acme Ltd");
        t.put(
            "/api/entities",
            json!({ "id": e, "vat_number": "GB123456782" }),
        );
        connect(&t, &fake, &e);
        some_vat(&t, &e);
        let user: String =
            t.db.read_sync(|c| Ok(c.query_row("SELECT id FROM users", [], |r| r.get(0))?))
                .unwrap();
        // What the submission writes before it calls HMRC, for two quarters.
        for (key, from, to) in [
            ("26A2", "2026-04-01", "2026-06-30"),
            ("26A3", "2026-07-01", "2026-09-30"),
        ] {
            let body = stockbook::hmrc::vat::ReturnBody {
                entity_id: e.clone(),
                from: from.into(),
                to: to.into(),
                period_key: Some(key.into()),
                declaration: Some(true),
                client: None,
            };
            let scope = stockbook::scope::Scope::user(user.clone());
            let ctx = stockbook::ctx::Ctx::at(t.clock.now(), false);
            let u = user.clone();
            t.db.write_sync(move |tx| {
                stockbook::hmrc::vat::prepare(tx, &scope, &u, &body, key, &ctx).map(|_| ())
            })
            .unwrap();
        }
        // HMRC accepted the first; the process died before it could say so.
        fake.with(|s| {
            s.returns.insert(
                ("123456782".into(), "26A2".into()),
                json!({ "periodKey": "26A2", "vatDueSales": 100.5, "finalised": true }),
            )
        });
        (e, user)
    };
    let t = file_app(&fake, &dir);
    let (s, v) = t.get(&format!("/api/vat/obligations?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    // The accepted one is filed, the other (HMRC never had it) is gone.
    let (_, list) = t.get(&format!("/api/vat/returns?entityId={e}"));
    let list = list["data"].as_array().unwrap().clone();
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["period_key"], "26A2");
    assert_eq!(list[0]["method"], "hmrc");
    assert_eq!(list[0]["filed_by"], user);
    assert_eq!(list[0]["receipt"]["recovered"], true);
    assert_eq!(count(&t, "SELECT count(*) FROM vat_returns"), 1);
    assert_eq!(lock_date(&t, &e), "2026-06-30");
}

#[test]
fn the_database_file_holds_no_hmrc_token_in_clear() {
    let fake = FakeHmrc::start();
    let dir = TempDir::new();
    let t = file_app(&fake, &dir);
    let e = t.entity("Acme Ltd");
    t.put(
        "/api/entities",
        json!({ "id": e, "vat_number": "GB123456782" }),
    );
    connect(&t, &fake, &e);
    t.clock.advance(4 * 3600 + 10);
    fake.expire_access_tokens();
    let (s, v) = t.get(&format!("/api/vat/obligations?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    let issued = fake.with(|s| s.issued.clone());
    assert!(issued.len() >= 4, "{issued:?}");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir.0).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        files += 1;
        for token in &issued {
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "{token} in clear in {}",
                path.display()
            );
        }
    }
    assert!(files >= 2, "the database and its key file");
}

// ---------------------------------------------------------------------------------
// Fraud-prevention headers, each checked against HMRC's rule for WEB_APP_VIA_SERVER.
// Source of every rule: HMRC's "Fraud prevention" specification, "Web application via
// server" page and the header sections it lists (hmrc/txm-fph-specification,
// source/connection-method/partials/<header>.erb), and "Getting it right" (key-value and
// list encodings, US-ASCII with other characters percent encoded).

/// RFC 3986 unreserved characters or a `%XX` escape only: a percent-encoded key or value.
fn percent_encoded(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len()
                    || !(b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
                {
                    return false;
                }
                i += 3;
            }
            c if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') => i += 1,
            _ => return false,
        }
    }
    true
}

/// A key-value structure (`k=v&k=v`), keys and values percent encoded
/// ("Getting it right", key-value encoding); the pairs.
fn key_values(v: &str) -> Vec<(String, String)> {
    v.split('&')
        .map(|pair| {
            let (k, val) = pair
                .split_once('=')
                .unwrap_or_else(|| panic!("not key=value: {v}"));
            assert!(
                percent_encoded(k) && percent_encoded(val),
                "not percent encoded: {v}"
            );
            (k.to_owned(), val.to_owned())
        })
        .collect()
}

fn positive_whole(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && s.parse::<u64>().is_ok_and(|n| n > 0)
}

/// Checks one header against its rule; panics naming the header and the rule.
fn check_header(name: &str, v: &str, user_id: &str) {
    assert!(
        !v.is_empty(),
        "{name} is empty (missing data is omitted, not sent empty)"
    );
    assert!(
        v.bytes().all(|b| (0x20..0x7f).contains(&b)),
        "{name} is not US-ASCII: {v}"
    );
    match name {
        // gov-client-connection-method.erb
        "gov-client-connection-method" => assert_eq!(v, "WEB_APP_VIA_SERVER"),
        // gov-client-browser-js-user-agent.erb: the value as the browser reports it.
        "gov-client-browser-js-user-agent" => assert!(v.starts_with("Mozilla/5.0 ("), "{v}"),
        // gov-client-device-id.erb: a UUID.
        "gov-client-device-id" => assert!(uuid::Uuid::parse_str(v).is_ok(), "{v}"),
        // gov-client-public-ip.erb: a public IPv4 or IPv6 address.
        "gov-client-public-ip" => {
            let ip: std::net::IpAddr = v.parse().unwrap_or_else(|_| panic!("{name}: {v}"));
            assert!(
                stockbook::outbound::blocked_kind(ip).is_none(),
                "{name} not public: {v}"
            );
        }
        // gov-client-public-ip-timestamp.erb: yyyy-MM-ddThh:mm:ss.sssZ, UTC.
        "gov-client-public-ip-timestamp" => {
            let b = v.as_bytes();
            assert_eq!(b.len(), 24, "{v}");
            for (i, c) in b.iter().enumerate() {
                let want = match i {
                    4 | 7 => *c == b'-',
                    10 => *c == b'T',
                    13 | 16 => *c == b':',
                    19 => *c == b'.',
                    23 => *c == b'Z',
                    _ => c.is_ascii_digit(),
                };
                assert!(want, "{name}: {v}");
            }
        }
        // gov-client-public-port.erb: 1-65535, not a server port (80, 443).
        "gov-client-public-port" => {
            let p: u32 = v.parse().unwrap_or_else(|_| panic!("{name}: {v}"));
            assert!((1..=65535).contains(&p) && p != 80 && p != 443, "{v}");
        }
        // gov-client-screens.erb: a list of key-value structures of width, height
        // (positive whole numbers), scaling-factor and colour-depth.
        "gov-client-screens" => {
            for screen in v.split(',') {
                let kv = key_values(screen);
                let keys: Vec<&str> = kv.iter().map(|(k, _)| k.as_str()).collect();
                assert_eq!(
                    keys,
                    ["width", "height", "scaling-factor", "colour-depth"],
                    "{v}"
                );
                assert!(positive_whole(&kv[0].1) && positive_whole(&kv[1].1), "{v}");
                assert!(kv[2].1.parse::<f64>().is_ok_and(|f| f > 0.0), "{v}");
                assert!(positive_whole(&kv[3].1), "{v}");
            }
        }
        // gov-client-timezone.erb: UTC±<hh>:<mm>.
        "gov-client-timezone" => {
            let b = v.as_bytes();
            assert!(
                b.len() == 9
                    && v.starts_with("UTC")
                    && matches!(b[3], b'+' | b'-')
                    && b[4].is_ascii_digit()
                    && b[5].is_ascii_digit()
                    && b[6] == b':'
                    && b[7].is_ascii_digit()
                    && b[8].is_ascii_digit(),
                "{v}"
            );
        }
        // gov-client-user-ids.erb (WEB_APP_VIA_SERVER: no `os` key; the application's
        // own identifier of the user).
        "gov-client-user-ids" => {
            let kv = key_values(v);
            assert_eq!(
                kv,
                vec![("stockbook".to_owned(), user_id.to_owned())],
                "{v}"
            );
        }
        // gov-client-window-size.erb: width and height, positive whole numbers.
        "gov-client-window-size" => {
            let kv = key_values(v);
            assert_eq!(kv.len(), 2, "{v}");
            assert_eq!((kv[0].0.as_str(), kv[1].0.as_str()), ("width", "height"));
            assert!(positive_whole(&kv[0].1) && positive_whole(&kv[1].1), "{v}");
        }
        // gov-vendor-forwarded.erb: a list of by/for key-value structures, public
        // addresses, percent encoded; the first hop's `for` is Gov-Client-Public-IP and
        // the last `by` Gov-Vendor-Public-IP.
        "gov-vendor-forwarded" => {
            for hop in v.split(',') {
                let kv = key_values(hop);
                assert_eq!(kv.len(), 2, "{v}");
                assert_eq!((kv[0].0.as_str(), kv[1].0.as_str()), ("by", "for"), "{v}");
            }
        }
        // gov-vendor-product-name.erb: percent encoded.
        "gov-vendor-product-name" => {
            assert!(percent_encoded(v), "{v}");
            assert_eq!(v, "Stockbook");
        }
        // gov-vendor-public-ip.erb: the public address of the server.
        "gov-vendor-public-ip" => {
            let ip: std::net::IpAddr = v.parse().unwrap_or_else(|_| panic!("{name}: {v}"));
            assert!(stockbook::outbound::blocked_kind(ip).is_none(), "{v}");
        }
        // gov-vendor-version.erb: key-value structure of software and versions.
        "gov-vendor-version" => {
            let kv = key_values(v);
            assert_eq!(kv[0].0, "stockbook", "{v}");
            assert_eq!(kv[0].1, env!("CARGO_PKG_VERSION"), "{v}");
        }
        // gov-client-multi-factor.erb: `type=<TOTP|AUTH_CODE|OTHER>&timestamp=
        // <yyyy-MM-ddThh:mmZ>&unique-reference=<percent-encoded>`, one per factor, comma
        // separated.
        "gov-client-multi-factor" => {
            for factor in v.split(',') {
                let kv = key_values(factor);
                let keys: Vec<&str> = kv.iter().map(|(k, _)| k.as_str()).collect();
                assert_eq!(keys, ["type", "timestamp", "unique-reference"], "{v}");
                assert!(
                    ["TOTP", "AUTH_CODE", "OTHER"].contains(&kv[0].1.as_str()),
                    "{v}"
                );
                // Values are percent-encoded, so the time's colon is `%3A` (the spec's
                // own example: `timestamp=2017-04-21T13%3A23Z`).
                assert!(percent_encoded(&kv[1].1), "{v}");
                let decoded = kv[1].1.replace("%3A", ":");
                let t = decoded.as_bytes();
                assert!(
                    t.len() == 17
                        && t[4] == b'-'
                        && t[10] == b'T'
                        && t[13] == b':'
                        && t[16] == b'Z',
                    "{v}"
                );
                assert!(!kv[2].1.is_empty() && percent_encoded(&kv[2].1), "{v}");
            }
        }
        // gov-vendor-license-ids.erb: Stockbook has no licence keys.
        other => panic!("{other} sent, but no rule allows it here: {v}"),
    }
}

fn gov_headers(req: &common::mock_server::Request) -> Vec<(String, String)> {
    req.headers
        .iter()
        .filter(|(k, _)| k.starts_with("gov-"))
        .cloned()
        .collect()
}

#[test]
fn every_fraud_prevention_header_is_in_hmrcs_format_and_unknowable_ones_are_left_out() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    some_vat(&t, &e);
    let user: String =
        t.db.read_sync(|c| Ok(c.query_row("SELECT id FROM users", [], |r| r.get(0))?))
            .unwrap();

    // Behind a proxy: the client's public address and port, then a private hop.
    let res = body(
        t.with_session(
            t.client
                .post("/api/vat/returns")
                .header(Header::new("X-Forwarded-For", "81.2.69.160:54321, 10.0.0.2"))
                .header(rocket::http::ContentType::JSON)
                .body(
                    json!({
                        "entity_id": e, "from": "2026-04-01", "to": "2026-06-30", "period_key": "26A2",
                        "declaration": true, "client": client()
                    })
                    .to_string(),
                ),
        )
        .dispatch(),
    );
    assert_eq!(res.0, Status::Created, "{}", res.1);
    // A GET sends the browser's values in Stockbook-Client; a LAN request has no proxy.
    let encoded: String =
        url::form_urlencoded::byte_serialize(client().to_string().as_bytes()).collect();
    let res = body(
        t.with_session(
            t.client
                .get(format!("/api/vat/obligations?entityId={e}"))
                .header(Header::new("Stockbook-Client", encoded)),
        )
        .dispatch(),
    );
    assert_eq!(res.0, Status::Ok, "{}", res.1);

    let requests = fake.api_requests();
    assert!(requests.len() >= 2);
    for req in &requests {
        for (name, value) in gov_headers(req) {
            check_header(&name, &value, &user);
        }
    }
    let names = |r: &common::mock_server::Request| -> Vec<String> {
        gov_headers(r).into_iter().map(|(k, _)| k).collect()
    };
    let submitted = requests.iter().find(|r| r.method == "POST").unwrap();
    let sent = names(submitted);
    for want in [
        "gov-client-connection-method",
        "gov-client-browser-js-user-agent",
        "gov-client-device-id",
        "gov-client-public-ip",
        "gov-client-public-ip-timestamp",
        "gov-client-public-port",
        "gov-client-screens",
        "gov-client-timezone",
        "gov-client-user-ids",
        "gov-client-window-size",
        "gov-vendor-product-name",
        "gov-vendor-version",
    ] {
        assert!(
            sent.contains(&want.to_owned()),
            "{want} missing from {sent:?}"
        );
    }
    assert_eq!(
        submitted.header("gov-client-public-ip"),
        Some("81.2.69.160")
    );
    assert_eq!(submitted.header("gov-client-public-port"), Some("54321"));
    assert_eq!(
        submitted.header("gov-client-screens"),
        Some("width=1920&height=1080&scaling-factor=1.25&colour-depth=24")
    );
    // No second factor, no licence, no server address configured: left out.
    for absent in [
        "gov-client-multi-factor",
        "gov-vendor-license-ids",
        "gov-vendor-public-ip",
        "gov-vendor-forwarded",
    ] {
        assert!(
            !sent.contains(&absent.to_owned()),
            "{absent} sent: {sent:?}"
        );
    }
    // Without a proxy nothing about the public address can be known.
    let lan = requests
        .iter()
        .rev()
        .find(|r| r.path.ends_with("/obligations"))
        .unwrap();
    let sent = names(lan);
    assert!(
        sent.contains(&"gov-client-device-id".to_owned()),
        "{sent:?}"
    );
    for absent in [
        "gov-client-public-ip",
        "gov-client-public-ip-timestamp",
        "gov-client-public-port",
    ] {
        assert!(
            !sent.contains(&absent.to_owned()),
            "{absent} sent: {sent:?}"
        );
    }
}

#[test]
fn the_servers_public_address_when_configured_completes_the_forwarded_chain() {
    let fake = FakeHmrc::start();
    let mut config = fake.config();
    config["vendor_public_ip"] = json!("51.140.0.10");
    let t = common::app_with(&[("hmrc", config)]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    t.put(
        "/api/entities",
        json!({ "id": e, "vat_number": "GB123456782" }),
    );
    connect(&t, &fake, &e);
    let user: String =
        t.db.read_sync(|c| Ok(c.query_row("SELECT id FROM users", [], |r| r.get(0))?))
            .unwrap();
    let res = body(
        t.with_session(
            t.client
                .get(format!("/api/vat/obligations?entityId={e}"))
                .header(Header::new("X-Forwarded-For", "2001:4860:4860::8888")),
        )
        .dispatch(),
    );
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    let req = fake.api_requests().pop().unwrap();
    for (name, value) in gov_headers(&req) {
        check_header(&name, &value, &user);
    }
    assert_eq!(req.header("gov-vendor-public-ip"), Some("51.140.0.10"));
    assert_eq!(
        req.header("gov-vendor-forwarded"),
        Some("by=51.140.0.10&for=2001%3A4860%3A4860%3A%3A8888")
    );
    assert_eq!(
        req.header("gov-client-public-ip"),
        Some("2001:4860:4860::8888")
    );
}

#[test]
fn a_submission_retried_with_its_idempotency_key_after_hmrcs_fault_reaches_hmrc_again_and_its_success_replays(
) {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    let send = || {
        let res = t
            .with_session(
                t.client
                    .post("/api/vat/returns")
                    .header(Header::new(
                        "Idempotency-Key",
                        "4d7c4f1e-8d2a-4c43-9a55-0b3f1b8a0c11",
                    ))
                    .header(rocket::http::ContentType::JSON)
                    .body(
                        json!({
                            "entity_id": e, "from": "2026-04-01", "to": "2026-06-30",
                            "period_key": "26A2", "declaration": true, "client": client()
                        })
                        .to_string(),
                    ),
            )
            .dispatch();
        let replayed = res
            .headers()
            .get_one("Idempotent-Replayed")
            .map(str::to_owned);
        (body(res), replayed)
    };
    fake.with(|s| s.fail_submissions_with = Some(503));
    let ((s, v), _) = send();
    assert_eq!(s, Status::ServiceUnavailable, "{v}");
    fake.with(|s| s.fail_submissions_with = None);
    // The fault kept no key: the retry runs.
    let ((s, v), replayed) = send();
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(replayed, None);
    // Once filed, the same key answers the same receipt without calling HMRC.
    let ((s, again), replayed) = send();
    assert_eq!(s, Status::Created, "{again}");
    assert_eq!(replayed.as_deref(), Some("true"));
    assert_eq!(again["data"]["receipt"], v["data"]["receipt"]);
    let posts = fake
        .api_requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .count();
    assert_eq!(posts, 2, "the faulty one and the one that filed");
}

#[test]
fn an_access_token_hmrc_withdraws_before_its_expiry_is_refreshed_once_and_the_call_made_again() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    // No time passes: HMRC simply stops taking the token.
    fake.expire_access_tokens();
    let (s, v) = t.get(&format!("/api/vat/obligations?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(fake.with(|s| s.refreshed_with.len()), 1);
    let calls = fake.api_requests();
    assert_eq!(
        calls.len(),
        2,
        "the refused call and the one after the refresh"
    );
    // The new token is kept and used from then on.
    let (s, _) = t.get(&format!("/api/vat/obligations?entityId={e}"));
    assert_eq!(s, Status::Ok);
    assert_eq!(fake.with(|s| s.refreshed_with.len()), 1);
}

#[test]
fn hmrc_routes_want_a_session_and_the_browsers_values_as_json() {
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    let res = body(
        t.with_session(
            t.client
                .get(format!("/api/vat/obligations?entityId={e}"))
                .header(Header::new("Stockbook-Client", "not%20json")),
        )
        .dispatch(),
    );
    let m = assert_error(&res, Status::BadRequest);
    assert!(m.contains("Stockbook-Client"), "{m}");
    assert!(fake.api_requests().is_empty());
    let res = body(
        t.client
            .get(format!("/api/vat/obligations?entityId={e}"))
            .dispatch(),
    );
    assert_error(&res, Status::Unauthorized);
}

#[test]
fn a_vendor_public_ip_that_is_not_an_address_stops_the_start_naming_the_key() {
    let figment = common::test_figment(&[("hmrc", json!({ "vendor_public_ip": "my-server" }))]);
    let err = stockbook::App::from_figment(&figment)
        .err()
        .expect("refused");
    assert!(err.contains("hmrc.vendor_public_ip"), "{err}");
}

/// `Gov-Client-Multi-Factor` (gov-client-multi-factor.erb) carries the session's second
/// factor: an owner who signed in with a TOTP code sends `type=TOTP`, when the code was
/// given, and a reference unique to the factor; the header is checked by the format rule
/// above.
#[test]
fn a_session_opened_with_a_second_factor_sends_it_to_hmrc() {
    use totp_rs::Secret;
    let fake = FakeHmrc::start();
    let (t, e) = setup(&fake);
    connect(&t, &fake, &e);
    t.clock.freeze();
    let code = |secret: &str| {
        let bytes = Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
        let now = u64::try_from(t.clock.now().unix_timestamp()).unwrap();
        stockbook::auth::two_factor::totp(bytes, "").generate(now)
    };
    let (s, v) = t.post("/api/auth/2fa/setup", json!({}));
    assert_eq!(s, Status::Ok, "{v}");
    let secret = v["data"]["secret"].as_str().unwrap().to_owned();
    let (s, v) = t.post("/api/auth/2fa/enable", json!({ "code": code(&secret) }));
    assert_eq!(s, Status::Ok, "{v}");
    t.clock.advance(30);
    let res = t
        .client
        .post("/api/auth/login")
        .header(rocket::http::ContentType::JSON)
        .body(
            json!({ "email": "owner@example.com", "password": common::PASSWORD, "totp": code(&secret) })
                .to_string(),
        )
        .dispatch();
    assert_eq!(res.status(), Status::Ok);
    let cookie = res
        .cookies()
        .get("stockbook_session")
        .unwrap()
        .value()
        .to_owned();
    *t.session.borrow_mut() = Some(cookie);
    let encoded: String =
        url::form_urlencoded::byte_serialize(client().to_string().as_bytes()).collect();
    let res = body(
        t.with_session(
            t.client
                .get(format!("/api/vat/obligations?entityId={e}"))
                .header(Header::new("Stockbook-Client", encoded)),
        )
        .dispatch(),
    );
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    let user: String =
        t.db.read_sync(|c| Ok(c.query_row("SELECT id FROM users", [], |r| r.get(0))?))
            .unwrap();
    let last = fake.api_requests().into_iter().last().unwrap();
    let mf = last
        .header("gov-client-multi-factor")
        .expect("the factor is sent")
        .to_owned();
    assert!(mf.starts_with("type=TOTP&timestamp="), "{mf}");
    check_header("gov-client-multi-factor", &mf, &user);
}
