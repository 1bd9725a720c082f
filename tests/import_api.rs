//! API and OAuth import through the HTTP API (§4.10, DECISIONS §11): connections,
//! the FreeAgent OAuth flow, and `POST /api/import/migrate` against local servers that
//! speak each platform's documented protocol (tests/platform_mocks), into the database
//! and back out through the GET endpoints.
//!
//! The app's connector retry policy records its waits instead of sleeping (`App::retry`),
//! so a 429 with `Retry-After` or an outage costs no time and the waits can be checked.

mod common;
mod platform_mocks;

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::mock_server::{MockServer, Request, Response};
use common::{assert_error, body, TestApp};
use platform_mocks::*;
use rocket::http::{ContentType, Cookie, Header, Status};
use rocket::local::blocking::Client;
use serde_json::{json, Value};
use stockbook::connectors::RetryPolicy;

type Waits = Arc<Mutex<Vec<Duration>>>;

/// An app whose connectors record their back-off waits, with `platforms` configured.
fn net_app_with(extra: &[(&str, Value)]) -> (TestApp, Waits) {
    let figment = common::test_figment(extra);
    let mut app = stockbook::App::from_figment(&figment).expect("app config");
    let waits: Waits = Arc::default();
    let w = waits.clone();
    app.retry = RetryPolicy::with_sleep(move |d| w.lock().unwrap().push(d));
    let clock = app.clock.clone();
    let db = app.db.clone();
    let client = Client::untracked(stockbook::build_rocket(figment, app)).expect("valid rocket");
    (
        TestApp {
            client,
            clock,
            db,
            session: RefCell::new(None),
        },
        waits,
    )
}

/// A signed-in owner with one entity, the platforms pointed at local servers.
fn net_app(platforms: Value) -> (TestApp, String, Waits) {
    let (t, waits) = net_app_with(&[("platforms", platforms)]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    (t, entity, waits)
}

fn connect(t: &TestApp, platform: &str, entity: &str, credentials: Value) -> Value {
    let res = t.post(
        "/api/import/connections",
        json!({"platform": platform, "entity_id": entity, "credentials": credentials}),
    );
    assert_eq!(res.0, Status::Created, "{}", res.1);
    res.1["data"].clone()
}

fn migrate(t: &TestApp, platform: &str, entity_type: &str, entity: &str) -> (Status, Value) {
    let mode = if platform == "freeagent" {
        "oauth"
    } else {
        "api"
    };
    t.post(
        "/api/import/migrate",
        json!({"mode": mode, "platform": platform, "entityType": entity_type, "entity_id": entity}),
    )
}

/// Migrates and answers `data`, asserting 200.
fn migrate_ok(t: &TestApp, platform: &str, entity_type: &str, entity: &str) -> Value {
    let res = migrate(t, platform, entity_type, entity);
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    res.1["data"].clone()
}

/// `{imported, skipped, failed: []}` of one type, asserting no row failed.
fn counts(answer: &Value, entity_type: &str) -> (u64, u64) {
    let o = &answer[entity_type];
    assert_eq!(o["failed"], json!([]), "{entity_type}: {answer}");
    (
        o["imported"].as_u64().expect("imported"),
        o["skipped"].as_u64().expect("skipped"),
    )
}

/// Every record of a session list endpoint for the entity.
fn list(t: &TestApp, path: &str, entity: &str) -> Vec<Value> {
    let res = t.get(&format!("/api/{path}?entityId={entity}"));
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    res.1["data"].as_array().expect("list").clone()
}

fn find<'a>(records: &'a [Value], key: &str, value: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r[key] == json!(value))
        .unwrap_or_else(|| panic!("no record with {key} = {value} in {records:#?}"))
}

fn names(records: &[Value]) -> Vec<String> {
    let mut n: Vec<String> = records
        .iter()
        .map(|r| r["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    n.sort();
    n
}

/// How many of everything the entity holds, to prove a refused run kept nothing.
fn snapshot(t: &TestApp, entity: &str) -> Vec<usize> {
    [
        "contacts",
        "products",
        "invoices",
        "bills",
        "expenses",
        "projects",
        "time-entries",
        "recurring-invoices",
    ]
    .iter()
    .map(|p| list(t, p, entity).len())
    .collect()
}

fn waits_of(w: &Waits) -> Vec<Duration> {
    w.lock().unwrap().clone()
}

/// Runs `f` and answers its result with the requests the server saw meanwhile.
fn pulled<T>(server: &MockServer, f: impl FnOnce() -> T) -> (T, Vec<Request>) {
    let before = server.requests().len();
    let out = f();
    (out, server.requests()[before..].to_vec())
}

fn count(reqs: &[Request], pred: impl Fn(&Request) -> bool) -> usize {
    reqs.iter().filter(|r| pred(r)).count()
}

fn platforms_for(id: &str, server: &MockServer) -> Value {
    json!({ id: {"base_url": server.url()} })
}

// ---------------------------------------------------------------------------------------
// Stripe

#[test]
fn stripe_imports_customers_products_invoices_and_subscriptions_reading_every_page_once() {
    let server = stripe_server(Once::default());
    let (t, entity, waits) = net_app(platforms_for("stripe", &server));
    connect(&t, "stripe", &entity, json!({"api_key": "sk_test_123"}));
    let page = |reqs: &[Request], path: &str, after: Option<&str>| {
        count(reqs, |r| {
            r.path == path && r.param("starting_after").as_deref() == after
        })
    };

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "stripe", "contacts", &entity));
    assert_eq!(counts(&answer, "contacts"), (3, 0));
    assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
    assert_eq!(page(&reqs, "/v1/customers", None), 1);
    assert_eq!(
        page(&reqs, "/v1/customers", Some("cus_2")),
        2,
        "the throttled page is asked again, once"
    );
    assert_eq!(
        waits_of(&waits),
        vec![Duration::from_secs(2)],
        "Retry-After honoured"
    );

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "stripe", "products", &entity));
    assert_eq!(counts(&answer, "products"), (2, 0));
    assert_eq!(page(&reqs, "/v1/products", None), 1);
    assert_eq!(page(&reqs, "/v1/products", Some("prod_1")), 1);

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "stripe", "invoices", &entity));
    assert_eq!(counts(&answer, "invoices"), (2, 0));
    assert_eq!(page(&reqs, "/v1/invoices", None), 1);
    assert_eq!(page(&reqs, "/v1/invoices", Some("in_1")), 1);
    assert_eq!(page(&reqs, "/v1/invoices/in_1/lines", Some("il_1")), 1);

    let (answer, reqs) = pulled(&server, || {
        migrate_ok(&t, "stripe", "subscriptions", &entity)
    });
    assert_eq!(counts(&answer, "subscriptions"), (2, 0));
    assert_eq!(page(&reqs, "/v1/subscriptions", None), 1);
    assert_eq!(page(&reqs, "/v1/subscriptions", Some("sub_1")), 1);
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer sk_test_123")));

    // The records, through the ordinary GET endpoints.
    let contacts = list(&t, "contacts", &entity);
    let cafe = find(&contacts, "name", "Café Lumière Ltd");
    assert_eq!(cafe["email"], "hello@cafe.example");
    assert_eq!(cafe["vat_number"], "GB123456789");
    assert_eq!(cafe["provider"], "stripe");
    assert_eq!(cafe["provider_ref"], "cus_1");
    find(&contacts, "name", "Brick & Mortar");

    let products = list(&t, "products", &entity);
    let oak = find(&products, "sku", "TBL-OAK");
    assert_eq!(oak["name"], "Oak table");
    assert_eq!(oak["unit_price"], json!(1234.56));

    let invoices = list(&t, "invoices", &entity);
    let in1 = find(&invoices, "number", "STR-0001");
    assert_eq!(in1["status"], "paid");
    assert_eq!(in1["total"], json!(1235.97));
    assert_eq!(in1["amount_paid"], json!(1235.97));
    assert_eq!(in1["contact_name"], "Café Lumière Ltd");
    assert_eq!(in1["issue_date"], "2023-11-14");
    assert_eq!(in1["lines"].as_array().unwrap().len(), 2);
    let in2 = find(&invoices, "provider_ref", "in_2");
    assert_eq!(in2["number"], Value::Null, "a Stripe draft keeps no number");
    assert_eq!(in2["status"], "draft");
    assert_eq!(in2["total"], json!(10.8));

    let recurring = list(&t, "recurring-invoices", &entity);
    let sub1 = find(&recurring, "provider_ref", "sub_1");
    assert_eq!(sub1["interval"], "month");
    assert_eq!(sub1["interval_count"], json!(3));
    assert_eq!(sub1["contact_name"], "Café Lumière Ltd");
    let sub2 = find(&recurring, "provider_ref", "sub_2");
    assert_eq!(sub2["interval"], "week");

    // Everything at once, again: all of it is already there.
    let again = migrate_ok(&t, "stripe", "all", &entity);
    assert_eq!(
        again.as_object().unwrap().len(),
        4,
        "only the types Stripe supplies: {again}"
    );
    assert_eq!(counts(&again, "contacts"), (0, 3));
    assert_eq!(counts(&again, "products"), (0, 2));
    assert_eq!(counts(&again, "invoices"), (0, 2));
    assert_eq!(counts(&again, "subscriptions"), (0, 2));
    assert_eq!(list(&t, "contacts", &entity).len(), contacts.len());
    assert_eq!(list(&t, "invoices", &entity).len(), 2);
}
