//! API and OAuth import through the HTTP API (docs/import.md#connections,
//! docs/import.md#oauth): connections, the FreeAgent OAuth flow, and
//! `POST /api/import/migrate` against local servers that speak each platform's documented
//! protocol (tests/platform_mocks), into the database and back out through the GET
//! endpoints.
//!
//! The app's connector retry policy records its waits instead of sleeping (`App::retry`),
//! so a 429 with `Retry-After` or an outage costs no time and the waits can be checked.

use super::common;
use super::platform_mocks;

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::mock_server::{MockServer, Request, Response};
use common::{assert_error, body, TestApp};
use platform_mocks::*;
use rocket::http::{Cookie, Header, Status};
use rocket::local::blocking::Client;
use serde_json::{json, Value};
use stockbook::connectors::RetryPolicy;

type Waits = Arc<Mutex<Vec<Duration>>>;

/// An app whose connectors record their back-off waits, with `platforms` configured.
pub(super) fn net_app_with(extra: &[(&str, Value)]) -> (TestApp, Waits) {
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
pub(super) fn net_app(platforms: Value) -> (TestApp, String, Waits) {
    let (t, waits) = net_app_with(&[("platforms", platforms)]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    (t, entity, waits)
}

pub(super) fn connect(t: &TestApp, platform: &str, entity: &str, credentials: Value) -> Value {
    let res = t.post(
        "/api/import/connections",
        json!({"platform": platform, "entity_id": entity, "credentials": credentials}),
    );
    assert_eq!(res.0, Status::Created, "{}", res.1);
    res.1["data"].clone()
}

pub(super) fn migrate(
    t: &TestApp,
    platform: &str,
    entity_type: &str,
    entity: &str,
) -> (Status, Value) {
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
pub(super) fn migrate_ok(t: &TestApp, platform: &str, entity_type: &str, entity: &str) -> Value {
    let res = migrate(t, platform, entity_type, entity);
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    res.1["data"].clone()
}

/// `{imported, skipped, failed: []}` of one type, asserting no row failed.
pub(super) fn counts(answer: &Value, entity_type: &str) -> (u64, u64) {
    let o = &answer[entity_type];
    assert_eq!(o["failed"], json!([]), "{entity_type}: {answer}");
    (
        o["imported"].as_u64().expect("imported"),
        o["skipped"].as_u64().expect("skipped"),
    )
}

/// Every record of a session list endpoint for the entity.
pub(super) fn list_of(t: &TestApp, path: &str, entity: &str) -> Vec<Value> {
    let res = t.get(&format!("/api/{path}?entityId={entity}"));
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    res.1["data"].as_array().expect("list").clone()
}

pub(super) fn find<'a>(records: &'a [Value], key: &str, value: &str) -> &'a Value {
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
    .map(|p| list_of(t, p, entity).len())
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

/// Asserts that one run read each collection at most once: its first page (a request
/// without a page, cursor or `starting_after`) was asked for once. A collection is the
/// method, path and query (and a search's body) less the paging parameters; FreeAgent's
/// contact views (`all`, `clients`, `suppliers`) are three lists of the API.
fn assert_each_collection_read_once(reqs: &[Request]) {
    const PAGING: [&str; 4] = ["page", "cursor", "starting_after", "after"];
    let mut firsts: std::collections::HashMap<String, usize> = Default::default();
    for r in reqs {
        let params = r.params();
        let body: Value = serde_json::from_str(&r.body).unwrap_or(Value::Null);
        if params.iter().any(|(k, _)| PAGING.contains(&k.as_str())) || body.get("cursor").is_some()
        {
            continue;
        }
        let key = format!("{} {} {:?} {}", r.method, r.path, params, r.body);
        *firsts.entry(key).or_default() += 1;
    }
    let twice: Vec<_> = firsts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.is_empty(),
        "collections read more than once: {twice:#?}"
    );
    assert!(!firsts.is_empty());
}

pub(super) fn platforms_for(id: &str, server: &MockServer) -> Value {
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
    let contacts = list_of(&t, "contacts", &entity);
    let cafe = find(&contacts, "name", "Café Lumière Ltd");
    assert_eq!(cafe["email"], "hello@cafe.example");
    assert_eq!(cafe["vat_number"], "GB123456789");
    assert_eq!(cafe["provider"], "stripe");
    assert_eq!(cafe["provider_ref"], "cus_1");
    find(&contacts, "name", "Brick & Mortar");

    let products = list_of(&t, "products", &entity);
    let oak = find(&products, "sku", "TBL-OAK");
    assert_eq!(oak["name"], "Oak table");
    assert_eq!(oak["unit_price"], json!(1234.56));

    let invoices = list_of(&t, "invoices", &entity);
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

    let recurring = list_of(&t, "recurring-invoices", &entity);
    let sub1 = find(&recurring, "provider_ref", "sub_1");
    assert_eq!(sub1["interval"], "month");
    assert_eq!(sub1["interval_count"], json!(3));
    assert_eq!(sub1["contact_name"], "Café Lumière Ltd");
    let sub2 = find(&recurring, "provider_ref", "sub_2");
    assert_eq!(sub2["interval"], "week");

    // Everything at once, again: all of it is already there.
    let (again, reqs) = pulled(&server, || migrate_ok(&t, "stripe", "all", &entity));
    assert_each_collection_read_once(&reqs);
    assert_eq!(
        again.as_object().unwrap().len(),
        6,
        "only the types Stripe supplies: {again}"
    );
    assert_eq!(counts(&again, "contacts"), (0, 3));
    assert_eq!(counts(&again, "products"), (0, 2));
    assert_eq!(counts(&again, "invoices"), (0, 2));
    assert_eq!(counts(&again, "subscriptions"), (0, 2));
    assert_eq!(counts(&again, "credit_notes"), (4, 0), "new to this run");
    assert_eq!(counts(&again, "payments"), (3, 0));
    assert_eq!(list_of(&t, "contacts", &entity).len(), contacts.len());
    assert_eq!(list_of(&t, "invoices", &entity).len(), 2);

    // What Stripe says of money: the day the invoice was paid, its credit note with its
    // taxed line, and the refund paid on it the day Stripe made it.
    let payments = list_of(&t, "payments", &entity);
    let paid = find(&payments, "document_id", in1["id"].as_str().unwrap());
    assert_eq!(
        (&paid["date"], &paid["amount"]),
        (&json!("2023-11-19"), &json!(1235.97))
    );
    let credits = list_of(&t, "credit-notes", &entity);
    let cn1 = find(&credits, "number", "STR-0001-CN-01");
    assert_eq!(
        (
            &cn1["status"],
            &cn1["total"],
            &cn1["issue_date"],
            &cn1["currency"]
        ),
        (
            &json!("posted"),
            &json!(60),
            &json!("2023-11-21"),
            &json!("GBP")
        )
    );
    assert_eq!(cn1["lines"][0]["vat_treatment"], "standard");
    assert_eq!(cn1["lines"][0]["vat_rate"], json!(20));
    assert_eq!(
        cn1["invoice_id"],
        Value::Null,
        "refunded in money: not applied to the paid invoice"
    );
    assert_eq!(cn1["amount_paid"], json!(60), "the refund");
    let refund = find(&payments, "document_id", cn1["id"].as_str().unwrap());
    assert_eq!(
        (&refund["document_type"], &refund["date"], &refund["amount"]),
        (&json!("credit_note"), &json!("2023-11-23"), &json!(60))
    );
    let cn2 = find(&credits, "number", "STR-0001-CN-02");
    assert_eq!(cn2["status"], "void");
    assert_eq!(cn2["invoice_id"], in1["id"], "no money refunded: linked");
    assert_eq!(cn2["lines"][0]["vat_treatment"], "outside_scope");
    // Refunds no credit note names, of the paid invoice's payment: credit notes numbered
    // after it, oldest first, unlinked, each with its refund dated the day Stripe made it.
    // A pending refund and one of a payment no invoice knows are not.
    let r1 = find(&credits, "number", "STR-0001-R1");
    assert_eq!(
        (
            &r1["status"],
            &r1["total"],
            &r1["issue_date"],
            &r1["invoice_id"],
            &r1["amount_paid"]
        ),
        (
            &json!("posted"),
            &json!(10),
            &json!("2023-11-24"),
            &Value::Null,
            &json!(10)
        )
    );
    assert_eq!(r1["contact_name"], "Café Lumière Ltd");
    assert_eq!(r1["lines"][0]["description"], "Refund: duplicate");
    assert_eq!(r1["lines"][0]["vat_treatment"], "outside_scope");
    let refund = find(&payments, "document_id", r1["id"].as_str().unwrap());
    assert_eq!(
        (&refund["document_type"], &refund["date"], &refund["amount"]),
        (&json!("credit_note"), &json!("2023-11-24"), &json!(10))
    );
    let r2 = find(&credits, "number", "STR-0001-R2");
    assert_eq!(
        (&r2["total"], &r2["issue_date"], &r2["amount_paid"]),
        (&json!(2.5), &json!("2023-11-24"), &json!(2.5))
    );
    assert_eq!(credits.len(), 4, "{credits:#?}");
    let third = migrate_ok(&t, "stripe", "all", &entity);
    assert_eq!(counts(&third, "credit_notes"), (0, 4));
    assert_eq!(counts(&third, "payments"), (0, 3));
}

// ---------------------------------------------------------------------------------------
// Shopify

#[test]
fn shopify_imports_customers_variants_and_orders_following_the_link_header() {
    let server = shopify_server(Once::default());
    let (t, entity, waits) = net_app(platforms_for("shopify", &server));
    connect(
        &t,
        "shopify",
        &entity,
        json!({"shop": "acme", "access_token": "shpat_abc"}),
    );

    let answer = migrate_ok(&t, "shopify", "contacts", &entity);
    assert_eq!(counts(&answer, "contacts"), (1, 0));
    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "shopify", "invoices", &entity));
    assert_eq!(counts(&answer, "invoices"), (2, 0));
    let orders = |page: Option<&str>| {
        count(&reqs, |r| {
            r.path == "/admin/api/2025-01/orders.json" && r.param("page_info").as_deref() == page
        })
    };
    assert_eq!(orders(None), 1);
    assert_eq!(
        orders(Some("eyJsYXN0X2lkIjo0NTB9")),
        2,
        "once more after the 429"
    );
    assert_eq!(orders(Some("eyJkaXJlY3Rpb24iOiJwcmV2In0")), 0, "never back");
    assert_eq!(waits_of(&waits), vec![Duration::from_secs(1)]);

    let all = migrate_ok(&t, "shopify", "all", &entity);
    assert_eq!(all.as_object().unwrap().len(), 6, "{all}");
    assert_eq!(counts(&all, "contacts"), (0, 1));
    assert_eq!(counts(&all, "products"), (3, 0));
    assert_eq!(counts(&all, "invoices"), (0, 2));
    assert_eq!(counts(&all, "credit_notes"), (1, 0));
    assert_eq!(
        counts(&all, "payments"),
        (3, 0),
        "two part payments and a refund"
    );
    assert_eq!(counts(&all, "subscriptions"), (3, 0));
    let recurring = list_of(&t, "recurring-invoices", &entity);
    assert_eq!(recurring.len(), 3);
    let ada = recurring
        .iter()
        .find(|r| r["status"] == "active")
        .expect("the active contract");
    assert_eq!(ada["contact_name"], "Ada Lovelace");
    assert_eq!(ada["interval"], "month");
    assert_eq!(ada["next_date"], "2024-04-01");
    assert_eq!(ada["lines"].as_array().unwrap().len(), 2);
    let bob = recurring.iter().find(|r| r["status"] == "paused").unwrap();
    assert_eq!(
        (&bob["interval"], &bob["interval_count"]),
        (&json!("week"), &json!(2))
    );
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("x-shopify-access-token") == Some("shpat_abc")));

    let invoices = list_of(&t, "invoices", &entity);
    let o1 = find(&invoices, "number", "#1001");
    assert_eq!(o1["contact_name"], "Ada Lovelace");
    assert_eq!(o1["status"], "paid");
    assert_eq!(
        o1["total"],
        json!(45.96),
        "VAT-inclusive prices keep the order total"
    );
    assert_eq!(
        o1["lines"].as_array().unwrap().len(),
        3,
        "two items and shipping"
    );
    let o2 = find(&invoices, "number", "#1002");
    assert_eq!(o2["status"], "sent");
    assert_eq!(o2["amount_paid"], json!(10), "the two part payments");
    assert_eq!(o2["total"], json!(40));
    assert_eq!(o2["currency"], "GBP");
    let treatments: Vec<&Value> = o2["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["vat_treatment"])
        .collect();
    assert_eq!(
        treatments,
        [&json!("standard"), &json!("zero"), &json!("outside_scope")]
    );
    let payments = list_of(&t, "payments", &entity);
    let dates_of = |doc: &Value| {
        let mut d: Vec<(String, Value)> = payments
            .iter()
            .filter(|p| p["document_id"] == doc["id"])
            .map(|p| (p["date"].as_str().unwrap().to_owned(), p["amount"].clone()))
            .collect();
        d.sort_by(|a, b| a.0.cmp(&b.0));
        d
    };
    assert_eq!(
        dates_of(o2),
        [
            ("2024-03-06".to_owned(), json!(4)),
            ("2024-03-08".to_owned(), json!(6))
        ]
    );
    assert_eq!(
        dates_of(o1),
        [("2024-03-06".to_owned(), json!(45.96))],
        "the capture's day"
    );
    let credits = list_of(&t, "credit-notes", &entity);
    let refund = find(&credits, "number", "#1001-R1");
    assert_eq!(
        (
            &refund["status"],
            &refund["total"],
            &refund["issue_date"],
            &refund["amount_paid"]
        ),
        (
            &json!("posted"),
            &json!(10.99),
            &json!("2024-03-09"),
            &json!(10.99)
        )
    );
    assert_eq!(refund["lines"][0]["description"], "Candle");
    assert_eq!(refund["lines"][0]["vat_treatment"], "standard");
    assert_eq!(dates_of(refund), [("2024-03-09".to_owned(), json!(10.99))]);

    let contacts = list_of(&t, "contacts", &entity);
    let ada = find(&contacts, "name", "Ada Lovelace");
    assert_eq!(ada["email"], "ada@example.com");
    find(&contacts, "name", "Bob Stone");
    let products = list_of(&t, "products", &entity);
    assert_eq!(find(&products, "sku", "TS-S")["name"], "T-shirt - Small");
    assert_eq!(find(&products, "sku", "TS-L")["unit_price"], json!(12.5));
    find(&products, "name", "Gift card");

    let (again, reqs) = pulled(&server, || migrate_ok(&t, "shopify", "all", &entity));
    assert_each_collection_read_once(&reqs);
    for ty in [
        "contacts",
        "products",
        "invoices",
        "credit_notes",
        "payments",
    ] {
        assert_eq!(counts(&again, ty).0, 0, "{ty}: {again}");
    }
    assert_eq!(counts(&again, "subscriptions"), (0, 3), "{again}");
}

// ---------------------------------------------------------------------------------------
// WooCommerce

#[test]
fn woocommerce_imports_customers_products_and_orders_and_says_which_type_the_site_lacks() {
    let server = woo_server(Once::default());
    let (t, entity, waits) = net_app(platforms_for("woocommerce", &server));
    connect(
        &t,
        "woocommerce",
        &entity,
        json!({"url": "https://shop.example", "consumer_key": "ck_abc", "consumer_secret": "cs_def"}),
    );

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "woocommerce", "all", &entity));
    assert_eq!(counts(&answer, "contacts"), (2, 0));
    assert_eq!(counts(&answer, "products"), (4, 0));
    // The euro order: WooCommerce gives no rate, and none is invented.
    let failed = answer["invoices"]["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{answer}");
    let why = failed[0]["message"].as_str().unwrap();
    assert!(
        why.contains("1044") && why.contains("exchange_rate"),
        "{why}"
    );
    assert_eq!(answer["invoices"]["imported"], json!(2));
    assert_eq!(counts(&answer, "credit_notes"), (1, 0));
    assert_eq!(counts(&answer, "payments"), (1, 0));
    let unavailable = answer["subscriptions"]["unavailable"].as_str().unwrap();
    assert!(
        unavailable.contains("woocommerce cannot supply subscriptions"),
        "{unavailable}"
    );
    let page = |path: &str, p: Option<&str>| {
        count(&reqs, |r| r.path == path && r.param("page").as_deref() == p)
    };
    assert_eq!(page("/wp-json/wc/v3/customers", None), 1);
    assert_eq!(page("/wp-json/wc/v3/customers", Some("2")), 1);
    assert_eq!(page("/wp-json/wc/v3/products", None), 1);
    assert_eq!(
        page("/wp-json/wc/v3/products", Some("2")),
        2,
        "after the 429"
    );
    assert_eq!(page("/wp-json/wc/v3/products/11/variations", None), 1);
    assert_eq!(page("/wp-json/wc/v3/orders", None), 1);
    assert_eq!(waits_of(&waits), vec![Duration::from_secs(3)]);
    assert!(reqs
        .iter()
        .all(|r| r.header("authorization") == Some(basic("ck_abc", "cs_def").as_str())));

    let contacts = list_of(&t, "contacts", &entity);
    assert_eq!(
        names(&contacts),
        ["Cara Jones", "Corner Deli Ltd", "Dan Brown"],
        "a guest buyer is made from the order; the refused euro order made none"
    );
    let products = list_of(&t, "products", &entity);
    assert_eq!(
        find(&products, "sku", "TBL-OAK")["unit_price"],
        json!(1234.56)
    );
    let vat = |sku: &str| find(&products, "sku", sku)["vat_rate"].clone();
    assert_eq!(vat("TBL-OAK"), json!(20));
    assert_eq!(vat("TS-S"), json!(5), "reduced-rate, the parent's class");
    assert_eq!(vat("TS-M"), json!(0), "a zero-rated variation is not 20%");
    assert_eq!(vat("WRAP"), json!(0), "a zero-rate product is not 20%");
    let invoices = list_of(&t, "invoices", &entity);
    let order = find(&invoices, "number", "1042");
    assert_eq!(
        order["contact_name"], "Cara Jones",
        "matched to the customer by name"
    );
    assert_eq!(order["status"], "paid");
    assert_eq!(order["total"], json!(25.6));
    let refunded = find(&invoices, "number", "1043");
    assert_eq!(
        (&refunded["status"], &refunded["amount_paid"]),
        (&json!("paid"), &json!(22)),
        "refunded after it was paid: paid, with a credit note"
    );
    let treatments: Vec<&Value> = refunded["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["vat_treatment"])
        .collect();
    assert_eq!(treatments, [&json!("zero"), &json!("outside_scope")]);
    let payments = list_of(&t, "payments", &entity);
    let paid = find(&payments, "document_id", refunded["id"].as_str().unwrap());
    assert_eq!(paid["date"], "2024-03-07", "date_paid");
    let credit = find(&list_of(&t, "credit-notes", &entity), "number", "1043-R1").clone();
    assert_eq!(
        (
            &credit["total"],
            &credit["issue_date"],
            &credit["amount_paid"]
        ),
        (&json!(12), &json!("2024-03-10"), &json!(12))
    );
    assert_eq!(credit["lines"][0]["vat_treatment"], "zero");
    let refund = find(&payments, "document_id", credit["id"].as_str().unwrap());
    assert_eq!(
        (&refund["document_type"], &refund["date"], &refund["method"]),
        (
            &json!("credit_note"),
            &json!("2024-03-10"),
            &json!("Credit card")
        )
    );

    // Asked for alone, what the site lacks is the caller's 400.
    let res = migrate(&t, "woocommerce", "subscriptions", &entity);
    let msg = assert_error(&res, Status::BadRequest);
    assert!(
        msg.contains("woocommerce cannot supply subscriptions"),
        "{msg}"
    );

    let (again, reqs) = pulled(&server, || migrate_ok(&t, "woocommerce", "all", &entity));
    assert_each_collection_read_once(&reqs);
    assert_eq!(counts(&again, "contacts"), (0, 2));
    assert_eq!(counts(&again, "products"), (0, 4));
    assert_eq!(again["invoices"]["skipped"], json!(2), "{again}");
    assert_eq!(counts(&again, "credit_notes"), (0, 1));
    assert_eq!(counts(&again, "payments"), (0, 1));
}

// ---------------------------------------------------------------------------------------
// Square

#[test]
fn square_imports_customers_catalog_orders_and_subscriptions_through_cursors() {
    let server = square_server(Once::default());
    let (t, entity, waits) = net_app(platforms_for("square", &server));
    connect(&t, "square", &entity, json!({"access_token": "EAAAsq"}));

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "square", "contacts", &entity));
    assert_eq!(counts(&answer, "contacts"), (3, 0));
    assert_eq!(
        count(&reqs, |r| r.path == "/v2/customers"
            && r.param("cursor").is_none()),
        1
    );
    assert_eq!(
        count(&reqs, |r| r.param("cursor").as_deref()
            == Some("cursor-page-2")),
        2
    );
    assert_eq!(waits_of(&waits), vec![Duration::from_secs(1)]);

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "square", "invoices", &entity));
    assert_eq!(
        counts(&answer, "invoices"),
        (5, 0),
        "2 orders and 3 invoices"
    );
    let invoices = list_of(&t, "invoices", &entity);
    assert_eq!(
        invoices.len(),
        5,
        "an invoiced order is not also an invoice"
    );
    let numbers = |v: &[Value]| {
        let mut n: Vec<String> = v
            .iter()
            .map(|i| i["number"].as_str().unwrap().to_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(
        numbers(&invoices),
        ["000001", "000002", "000003", "ORD-1", "WEB-77"]
    );
    let partly = find(&invoices, "number", "000001");
    assert_eq!(partly["status"], "sent");
    assert_eq!(partly["total"], json!(120));
    assert_eq!(partly["amount_paid"], json!(40));
    assert_eq!(partly["contact_name"], "Roastery Ltd");
    assert_eq!(find(&invoices, "number", "000002")["status"], "paid");
    assert_eq!(find(&invoices, "number", "000003")["status"], "draft");
    let search = |cursor: Option<&str>| {
        count(&reqs, |r| {
            r.path == "/v2/orders/search"
                && r.json().get("cursor").and_then(Value::as_str) == cursor
        })
    };
    assert_eq!((search(None), search(Some("orders-2"))), (1, 1));

    let all = migrate_ok(&t, "square", "all", &entity);
    assert_eq!(counts(&all, "contacts"), (0, 3));
    assert_eq!(counts(&all, "products"), (2, 0));
    assert_eq!(counts(&all, "invoices"), (0, 5));
    assert_eq!(counts(&all, "subscriptions"), (2, 0));
    assert_eq!(
        counts(&all, "credit_notes"),
        (1, 0),
        "the approved refund, not the rejected one"
    );
    assert_eq!(counts(&all, "payments"), (1, 0));
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer EAAAsq")));

    let invoices = list_of(&t, "invoices", &entity);
    let o1 = find(&invoices, "number", "ORD-1");
    assert_eq!(o1["contact_name"], "Amelia Earhart");
    assert_eq!(o1["status"], "paid");
    assert_eq!(o1["total"], json!(8));
    let payments = list_of(&t, "payments", &entity);
    assert_eq!(
        find(&payments, "document_id", o1["id"].as_str().unwrap())["date"],
        "2024-02-01",
        "the tender's day"
    );
    let credit = find(&list_of(&t, "credit-notes", &entity), "number", "ORD-1-R1").clone();
    assert_eq!(
        (
            &credit["total"],
            &credit["issue_date"],
            &credit["amount_paid"],
            &credit["currency"]
        ),
        (
            &json!(3.5),
            &json!("2024-02-03"),
            &json!(3.5),
            &json!("GBP")
        )
    );
    assert_eq!(credit["lines"][0]["vat_treatment"], "outside_scope");
    let refund = find(&payments, "document_id", credit["id"].as_str().unwrap());
    assert_eq!(
        (&refund["date"], &refund["amount"]),
        (&json!("2024-02-03"), &json!(3.5))
    );
    let o2 = find(&invoices, "number", "WEB-77");
    assert_eq!(o2["status"], "sent");
    assert_eq!(o2["total"], json!(10.8));
    let products = list_of(&t, "products", &entity);
    assert_eq!(find(&products, "sku", "BEAN-250")["unit_price"], json!(9));
    find(&products, "sku", "BEAN-1K");
    let recurring = list_of(&t, "recurring-invoices", &entity);
    assert_eq!(
        find(&recurring, "provider_ref", "SUB-1")["contact_name"],
        "Amelia Earhart"
    );
    assert_eq!(
        find(&recurring, "provider_ref", "SUB-2")["contact_name"],
        "Roastery Ltd"
    );

    let (again, reqs) = pulled(&server, || migrate_ok(&t, "square", "all", &entity));
    assert_each_collection_read_once(&reqs);
    assert_eq!(counts(&again, "products"), (0, 2));
    assert_eq!(counts(&again, "subscriptions"), (0, 2));
    assert_eq!(counts(&again, "credit_notes"), (0, 1));
    assert_eq!(counts(&again, "payments"), (0, 1));
}

// ---------------------------------------------------------------------------------------
// PayPal

#[test]
fn paypal_imports_products_and_invoices_and_refuses_customers_it_cannot_supply() {
    let server = paypal_server(Once::default());
    let (t, entity, waits) = net_app(platforms_for("paypal", &server));
    connect(
        &t,
        "paypal",
        &entity,
        json!({"client_id": "pp_client", "client_secret": "pp_secret"}),
    );

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "paypal", "all", &entity));
    assert_eq!(answer.as_object().unwrap().len(), 4, "{answer}");
    assert_eq!(counts(&answer, "products"), (1, 0));
    assert_eq!(counts(&answer, "invoices"), (2, 0));
    assert_eq!(counts(&answer, "credit_notes"), (1, 0));
    assert_eq!(counts(&answer, "payments"), (3, 0));
    let invoices_page = |p: &str| {
        count(&reqs, |r| {
            r.path == "/v2/invoicing/invoices" && r.param("page").as_deref() == Some(p)
        })
    };
    assert_eq!((invoices_page("1"), invoices_page("2")), (1, 2));
    assert_eq!(
        count(&reqs, |r| r.path == "/v2/invoicing/invoices/INV2-CCCC-DDDD"),
        1
    );
    assert_eq!(waits_of(&waits), vec![Duration::from_secs(2)]);
    assert!(count(&reqs, |r| r.path == "/v1/oauth2/token") >= 1);

    let invoices = list_of(&t, "invoices", &entity);
    let a = find(&invoices, "number", "0001");
    assert_eq!(a["contact_name"], "Dee Vries");
    assert_eq!(
        (
            a["status"].clone(),
            a["total"].clone(),
            a["amount_paid"].clone()
        ),
        (json!("paid"), json!(324), json!(324)),
        "paid in two parts: the status follows the payments"
    );
    let payments = list_of(&t, "payments", &entity);
    let mut parts: Vec<(Value, Value, Value)> = payments
        .iter()
        .filter(|p| p["document_id"] == a["id"])
        .map(|p| (p["date"].clone(), p["amount"].clone(), p["method"].clone()))
        .collect();
    parts.sort_by_key(|p| p.0.to_string());
    assert_eq!(
        parts,
        [
            (json!("2024-03-05"), json!(124), json!("paypal")),
            (json!("2024-03-12"), json!(200), json!("bank_transfer"))
        ]
    );
    let credit = find(&list_of(&t, "credit-notes", &entity), "number", "0001-R1").clone();
    assert_eq!(
        (
            &credit["total"],
            &credit["issue_date"],
            &credit["amount_paid"]
        ),
        (&json!(24), &json!("2024-03-20"), &json!(24))
    );
    assert_eq!(
        credit["lines"][0]["vat_treatment"], "outside_scope",
        "PayPal names no tax for it"
    );
    let c = find(&invoices, "number", "0002");
    assert_eq!(c["contact_name"], "Widget Works Ltd");
    assert_eq!(c["amount_paid"], json!(0));
    find(
        &list_of(&t, "products", &entity),
        "name",
        "Video Streaming Service",
    );

    for ty in ["contacts", "subscriptions", "bills"] {
        let res = migrate(&t, "paypal", ty, &entity);
        let msg = assert_error(&res, Status::BadRequest);
        assert_eq!(msg, format!("paypal cannot supply {ty}"));
    }
    let (again, reqs) = pulled(&server, || migrate_ok(&t, "paypal", "all", &entity));
    assert_each_collection_read_once(&reqs);
    assert_eq!(counts(&again, "invoices"), (0, 2));
    assert_eq!(counts(&again, "products"), (0, 1));
    assert_eq!(counts(&again, "credit_notes"), (0, 1));
    assert_eq!(counts(&again, "payments"), (0, 3));
}

// ---------------------------------------------------------------------------------------
// GoCardless

#[test]
fn gocardless_imports_customers_and_subscriptions_through_meta_cursors() {
    let server = gocardless_server(Once::default());
    let (t, entity, waits) = net_app(platforms_for("gocardless", &server));
    connect(
        &t,
        "gocardless",
        &entity,
        json!({"access_token": "live_gc"}),
    );

    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "gocardless", "all", &entity));
    assert_eq!(counts(&answer, "contacts"), (3, 0));
    assert_eq!(counts(&answer, "subscriptions"), (2, 0));
    let page = |path: &str, after: Option<&str>| {
        count(&reqs, |r| {
            r.path == path && r.param("after").as_deref() == after
        })
    };
    assert_eq!(page("/subscriptions", None), 1);
    assert_eq!(page("/subscriptions", Some("SB0001")), 1);
    assert_eq!(waits_of(&waits), vec![Duration::from_secs(1)]);
    assert!(reqs
        .iter()
        .all(|r| r.header("gocardless-version") == Some("2015-07-06")));

    assert_eq!(
        names(&list_of(&t, "contacts", &entity)),
        ["Allotment Co-op", "Kim Lee", "Sam Smith"]
    );
    let recurring = list_of(&t, "recurring-invoices", &entity);
    let a = find(&recurring, "provider_ref", "SB0001");
    assert_eq!(a["contact_name"], "Allotment Co-op");
    assert_eq!(a["interval"], "month");
    let b = find(&recurring, "provider_ref", "SB0002");
    assert_eq!(b["interval"], "week");
    assert_eq!(b["interval_count"], json!(2));

    let res = migrate(&t, "gocardless", "invoices", &entity);
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "gocardless cannot supply invoices"
    );
    let (again, reqs) = pulled(&server, || migrate_ok(&t, "gocardless", "all", &entity));
    assert_each_collection_read_once(&reqs);
    assert_eq!(counts(&again, "contacts"), (0, 3));
    assert_eq!(counts(&again, "subscriptions"), (0, 2));
}

// ---------------------------------------------------------------------------------------
// FreeAgent over OAuth

/// The FreeAgent settings pointing at the mock; `redirect_uri` left to the request.
fn freeagent_platforms(server: &MockServer) -> Value {
    json!({"freeagent": {
        "base_url": server.url(),
        "authorize_url": format!("{}/v2/approve_app", server.url()),
        "token_url": format!("{}/v2/token_endpoint", server.url()),
        "client_id": "fa_client",
        "client_secret": "fa_secret",
    }})
}

/// A GET with the session cookie and extra headers: (status, Location, body).
fn browse(t: &TestApp, path: &str, headers: &[(&str, &str)]) -> (Status, Option<String>, Value) {
    let mut req = t.client.get(path.to_owned());
    if let Some(token) = t.session.borrow().as_ref() {
        req = req.cookie(Cookie::new("stockbook_session", token.clone()));
    }
    for (k, v) in headers {
        req = req.header(Header::new(k.to_string(), v.to_string()));
    }
    let res = req.dispatch();
    let location = res.headers().get_one("Location").map(str::to_owned);
    let (status, v) = body(res);
    (status, location, v)
}

/// The provider's side of the browser's journey: start, and the state in the URL.
fn start_oauth(t: &TestApp, entity: &str) -> (url::Url, String) {
    let (status, _, v) = browse(
        t,
        &format!("/api/import/oauth/start?platform=freeagent&entityId={entity}"),
        &[("Host", "books.example"), ("X-Forwarded-Proto", "https")],
    );
    assert_eq!(status, Status::Ok, "{v}");
    let u = url::Url::parse(v["data"]["authorize_url"].as_str().unwrap()).unwrap();
    let state = u
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .expect("state in the authorize URL");
    (u, state)
}

fn callback(t: &TestApp, query: &str) -> (Status, Option<String>, Value) {
    browse(t, &format!("/api/import/oauth/callback?{query}"), &[])
}

fn connections(t: &TestApp) -> Vec<Value> {
    let res = t.get("/api/import/connections");
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    res.1["data"].as_array().unwrap().clone()
}

fn token_requests(reqs: &[Request]) -> Vec<&Request> {
    reqs.iter()
        .filter(|r| r.path == "/v2/token_endpoint")
        .collect()
}

#[test]
fn freeagent_connects_over_oauth_imports_everything_refreshes_and_asks_to_reconnect_once_revoked() {
    let server = freeagent_server(Once::default());
    let (t, entity, waits) = net_app(freeagent_platforms(&server));

    // Start: the authorize URL asks for a code for this client, with a state and the
    // callback of this server as the request addressed it.
    let (authorize, state) = start_oauth(&t, &entity);
    assert_eq!(authorize.path(), "/v2/approve_app");
    let q: std::collections::HashMap<_, _> = authorize.query_pairs().into_owned().collect();
    assert_eq!(q["client_id"], "fa_client");
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["redirect_uri"], REDIRECT);
    assert_eq!(state.len(), 32);

    // The provider sends the browser back: the code is exchanged with Basic client
    // credentials and the same redirect URI, and the browser goes to the web app.
    let (status, location, _) = callback(&t, &format!("code=good-code&state={state}"));
    assert_eq!(status, Status::SeeOther);
    assert_eq!(location.as_deref(), Some("/#/import?connected=freeagent"));
    let exchange = &token_requests(&server.requests())[0].clone();
    assert_eq!(
        exchange.header("authorization"),
        Some(basic("fa_client", "fa_secret").as_str())
    );
    assert_eq!(
        exchange.form_value("grant_type").as_deref(),
        Some("authorization_code")
    );
    assert_eq!(exchange.form_value("code").as_deref(), Some("good-code"));
    assert_eq!(
        exchange.form_value("redirect_uri").as_deref(),
        Some(REDIRECT)
    );

    let list = connections(&t);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["platform"], "freeagent");
    assert_eq!(list[0]["entity_id"], json!(entity));
    assert_eq!(list[0]["status"], "connected");
    assert_eq!(list[0]["last_used_at"], Value::Null);
    let mut keys: Vec<&String> = list[0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "created_at",
            "entity_id",
            "id",
            "last_used_at",
            "platform",
            "status"
        ]
    );

    // A state is used once.
    let res = callback(&t, &format!("code=good-code&state={state}"));
    assert_eq!(res.0, Status::BadRequest, "{}", res.2);

    // Contacts alone: every page once, the 429 waited out, the access token as Bearer.
    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "freeagent", "contacts", &entity));
    assert_eq!(counts(&answer, "contacts"), (3, 0));
    let all_view = |page: Option<&str>| {
        count(&reqs, |r| {
            r.path == "/v2/contacts"
                && r.param("view").as_deref() == Some("all")
                && r.param("page").as_deref() == page
        })
    };
    assert_eq!((all_view(None), all_view(Some("2"))), (1, 2));
    assert_eq!(waits_of(&waits), vec![Duration::from_secs(1)]);
    assert!(
        token_requests(&reqs).is_empty(),
        "a fresh token is not refreshed"
    );
    assert!(reqs
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer at-1")));
    assert!(connections(&t)[0]["last_used_at"].is_string());

    // Everything.
    let (all, reqs) = pulled(&server, || migrate_ok(&t, "freeagent", "all", &entity));
    assert_each_collection_read_once(&reqs);
    assert_eq!(all.as_object().unwrap().len(), 10, "{all}");
    assert_eq!(counts(&all, "contacts"), (0, 3));
    assert_eq!(
        counts(&all, "payments"),
        (0, 0),
        "no bank account explains them"
    );
    for ty in [
        "products",
        "projects",
        "invoices",
        "bills",
        "expenses",
        "time_entries",
        "subscriptions",
        "credit_notes",
    ] {
        assert_eq!(counts(&all, ty), (1, 0), "{ty}: {all}");
    }
    let invoices = list_of(&t, "invoices", &entity);
    let inv = find(&invoices, "number", "001");
    assert_eq!(inv["contact_name"], "Acme Ltd");
    assert_eq!(inv["total"], json!(270));
    assert_eq!(inv["amount_paid"], json!(100));
    assert_eq!(inv["status"], "sent");
    let bills = list_of(&t, "bills", &entity);
    assert_eq!(
        find(&bills, "number", "B-9")["contact_name"],
        "Paper Supplies plc"
    );
    let projects = list_of(&t, "projects", &entity);
    find(&projects, "name", "Website rebuild");
    let expenses = list_of(&t, "expenses", &entity);
    assert_eq!(
        find(&expenses, "description", "Train to Leeds")["amount"],
        json!(24)
    );
    let slips = list_of(&t, "time-entries", &entity);
    assert_eq!(
        find(&slips, "description", "Wireframes")["hours"],
        json!(2.5)
    );
    let recurring = list_of(&t, "recurring-invoices", &entity);
    assert_eq!(recurring[0]["contact_name"], "Nathan Barley");
    let products = list_of(&t, "products", &entity);
    assert_eq!(find(&products, "sku", "DES-HR")["unit_price"], json!(50));

    let (again, reqs) = pulled(&server, || migrate_ok(&t, "freeagent", "all", &entity));
    assert_each_collection_read_once(&reqs);
    for ty in [
        "contacts",
        "invoices",
        "bills",
        "expenses",
        "time_entries",
        "subscriptions",
    ] {
        assert_eq!(counts(&again, ty).0, 0, "{ty}: {again}");
    }

    // An hour later the access token has expired: refreshed with the stored refresh
    // token, and the rotated one is stored...
    t.clock.advance(3600);
    let (_, reqs) = pulled(&server, || migrate_ok(&t, "freeagent", "contacts", &entity));
    let refresh = token_requests(&reqs);
    assert_eq!(refresh.len(), 1);
    assert_eq!(
        refresh[0].form_value("grant_type").as_deref(),
        Some("refresh_token")
    );
    assert_eq!(
        refresh[0].form_value("refresh_token").as_deref(),
        Some("rt-1")
    );
    assert_eq!(
        refresh[0].header("authorization"),
        Some(basic("fa_client", "fa_secret").as_str())
    );
    assert!(reqs
        .iter()
        .filter(|r| r.path != "/v2/token_endpoint")
        .all(|r| r.header("authorization") == Some("Bearer at-2")));

    // ...as the next refresh shows: it sends the rotated token, not the first.
    t.clock.advance(3600);
    let (_, reqs) = pulled(&server, || migrate_ok(&t, "freeagent", "contacts", &entity));
    let refresh = token_requests(&reqs);
    assert_eq!(refresh.len(), 1);
    assert_eq!(
        refresh[0].form_value("refresh_token").as_deref(),
        Some("rt-2")
    );

    // The grant is revoked (the provider no longer knows rt-3): reconnect.
    t.clock.advance(3600);
    let res = migrate(&t, "freeagent", "contacts", &entity);
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.contains("reconnect freeagent"), "{msg}");
    assert_eq!(connections(&t)[0]["status"], "reconnect_required");
    let (res, reqs) = pulled(&server, || migrate(&t, "freeagent", "all", &entity));
    assert!(assert_error(&res, Status::BadRequest).contains("reconnect freeagent"));
    assert!(reqs.is_empty(), "no call with a grant known to be dead");

    // Connecting again mends it.
    let (_, state) = start_oauth(&t, &entity);
    let (status, location, _) = callback(&t, &format!("code=good-code&state={state}"));
    assert_eq!(
        (status, location.as_deref()),
        (Status::SeeOther, Some("/#/import?connected=freeagent"))
    );
    let list = connections(&t);
    assert_eq!(list.len(), 1, "one connection per entity and platform");
    assert_eq!(list[0]["status"], "connected");
    assert_eq!(
        counts(
            &migrate_ok(&t, "freeagent", "contacts", &entity),
            "contacts"
        ),
        (0, 3)
    );

    // The tokens never left the server.
    for v in [connections(&t), list] {
        let text = json!(v).to_string();
        for secret in ["at-1", "at-2", "at-3", "rt-1", "rt-2", "rt-3", "good-code"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    }
}

/// The handler, except that while `down` is set requests matching `pred` get a 500.
fn with_outage(
    handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    down: Arc<std::sync::atomic::AtomicBool>,
    pred: impl Fn(&Request) -> bool + Send + Sync + 'static,
) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
        if down.load(std::sync::atomic::Ordering::SeqCst) && pred(r) {
            Response::json(500, &json!({"error": "internal"}))
        } else {
            handler(r)
        }
    }
}

#[test]
fn freeagent_a_rotated_refresh_token_is_kept_even_when_the_pull_then_fails() {
    let down = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let server = MockServer::start(with_outage(
        freeagent_handler(Once(Arc::new(true.into()))),
        down.clone(),
        |r| r.path == "/v2/contacts",
    ));
    let (t, entity, _) = net_app(freeagent_platforms(&server));
    let (_, state) = start_oauth(&t, &entity);
    callback(&t, &format!("code=good-code&state={state}"));

    t.clock.advance(3600);
    down.store(true, std::sync::atomic::Ordering::SeqCst);
    let res = migrate(&t, "freeagent", "contacts", &entity);
    let msg = assert_error(&res, Status::ServiceUnavailable);
    assert!(msg.contains("freeagent is unavailable (HTTP 500)"), "{msg}");
    assert!(msg.contains("Nothing was imported"), "{msg}");
    assert!(list_of(&t, "contacts", &entity).is_empty());

    // The refresh before the outage rotated rt-1 into rt-2: that is what is stored.
    down.store(false, std::sync::atomic::Ordering::SeqCst);
    t.clock.advance(3600);
    let (answer, reqs) = pulled(&server, || migrate_ok(&t, "freeagent", "contacts", &entity));
    assert_eq!(counts(&answer, "contacts"), (3, 0));
    let refresh = token_requests(&reqs);
    assert_eq!(
        refresh[0].form_value("refresh_token").as_deref(),
        Some("rt-2")
    );
}

// ---------------------------------------------------------------------------------------
// A run that fails midway

#[test]
fn a_platform_that_fails_mid_pull_beyond_the_retry_budget_leaves_the_database_as_it_was() {
    let down = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let server = MockServer::start(with_outage(
        stripe_handler(Once::default()),
        down.clone(),
        // The second page of invoices, after contacts and products were pulled whole.
        |r| r.path == "/v1/invoices" && r.param("starting_after").as_deref() == Some("in_1"),
    ));
    let (t, entity, waits) = net_app(platforms_for("stripe", &server));
    connect(&t, "stripe", &entity, json!({"api_key": "sk_test_123"}));
    // Something already there stays exactly as it was.
    t.post(
        "/api/contacts",
        json!({"name": "Existing Customer", "entity_id": entity}),
    );
    let before = snapshot(&t, &entity);

    let (res, reqs) = pulled(&server, || migrate(&t, "stripe", "all", &entity));
    let msg = assert_error(&res, Status::ServiceUnavailable);
    assert_eq!(
        msg,
        "stripe is unavailable (HTTP 500). Nothing was imported"
    );
    assert_eq!(snapshot(&t, &entity), before, "nothing of the run is kept");
    assert_eq!(
        count(&reqs, |r| r.param("starting_after").as_deref()
            == Some("in_1")),
        6,
        "the first try and five retries"
    );
    assert_eq!(
        count(&reqs, |r| r.path == "/v1/subscriptions"),
        0,
        "the run stops at the failure"
    );
    let waits = waits_of(&waits);
    assert_eq!(
        waits[waits.len() - 5..],
        [500, 1000, 2000, 4000, 8000].map(Duration::from_millis),
        "exponential back-off, recorded rather than slept"
    );
    assert!(
        connections(&t)[0]["last_used_at"].is_string(),
        "the attempt is recorded on the connection"
    );

    // Once the platform answers again, the same run imports everything.
    down.store(false, std::sync::atomic::Ordering::SeqCst);
    let answer = migrate_ok(&t, "stripe", "all", &entity);
    assert_eq!(counts(&answer, "contacts"), (3, 0));
    assert_eq!(counts(&answer, "invoices"), (2, 0));
}

#[test]
fn an_unreachable_platform_is_a_503_and_a_refused_key_is_the_callers_400() {
    // A port nothing listens on.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let (t, entity, _) = net_app(json!({"stripe": {"base_url": format!("http://{closed}")}}));
    connect(&t, "stripe", &entity, json!({"api_key": "sk_test_123"}));
    let msg = assert_error(
        &migrate(&t, "stripe", "contacts", &entity),
        Status::ServiceUnavailable,
    );
    assert!(msg.starts_with("stripe is unreachable"), "{msg}");

    let server = stripe_server(Once::default());
    let (t, entity, _) = net_app(platforms_for("stripe", &server));
    connect(&t, "stripe", &entity, json!({"api_key": "sk_wrong"}));
    let msg = assert_error(
        &migrate(&t, "stripe", "contacts", &entity),
        Status::BadRequest,
    );
    assert!(
        msg.starts_with("stripe refused the credentials (401)"),
        "{msg}"
    );
    assert!(list_of(&t, "contacts", &entity).is_empty());
}

// ---------------------------------------------------------------------------------------
// Connections

#[test]
fn secrets_are_never_returned_by_any_endpoint() {
    let stripe = stripe_server(Once::default());
    let paypal = paypal_server(Once::default());
    let woo = woo_server(Once::default());
    let (t, entity, _) = net_app(json!({
        "stripe": {"base_url": stripe.url()},
        "paypal": {"base_url": paypal.url()},
        "woocommerce": {"base_url": woo.url()},
    }));
    let secrets = ["sk_test_123", "pp_secret", "cs_def", "ck_abc", "sk_old_999"];
    let mut bodies: Vec<Value> = Vec::new();
    let mut post = |path: &str, v: Value| {
        let res = t.post(path, v);
        bodies.push(res.1.clone());
        res
    };
    let created = post(
        "/api/import/connections",
        json!({"platform": "stripe", "entity_id": entity, "credentials": {"api_key": "sk_old_999"}}),
    );
    assert_eq!(created.0, Status::Created, "{}", created.1);
    let replaced = post(
        "/api/import/connections",
        json!({"platform": "stripe", "entity_id": entity, "credentials": {"api_key": "sk_test_123", "extra": "kept?"}}),
    );
    assert_eq!(
        replaced.0,
        Status::Ok,
        "a second POST replaces: {}",
        replaced.1
    );
    assert_eq!(replaced.1["data"]["id"], created.1["data"]["id"]);
    for (platform, creds) in [
        (
            "paypal",
            json!({"client_id": "pp_client", "client_secret": "pp_secret"}),
        ),
        (
            "woocommerce",
            json!({"url": "https://shop.example", "consumer_key": "ck_abc", "consumer_secret": "cs_def"}),
        ),
    ] {
        let res = post(
            "/api/import/connections",
            json!({"platform": platform, "entity_id": entity, "credentials": creds}),
        );
        assert_eq!(res.0, Status::Created, "{}", res.1);
    }
    for (platform, ty) in [
        ("stripe", "all"),
        ("paypal", "all"),
        ("woocommerce", "products"),
        ("stripe", "bills"),
    ] {
        let mode = "api";
        post(
            "/api/import/migrate",
            json!({"mode": mode, "platform": platform, "entityType": ty, "entity_id": entity}),
        );
    }
    let list = t.get("/api/import/connections");
    assert_eq!(list.1["data"].as_array().unwrap().len(), 3);
    bodies.push(list.1.clone());
    bodies.push(
        t.get(&format!("/api/import/connections?entityId={entity}"))
            .1,
    );
    for c in list.1["data"].as_array().unwrap() {
        let mut keys: Vec<&String> = c.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "created_at",
                "entity_id",
                "id",
                "last_used_at",
                "platform",
                "status"
            ]
        );
    }
    let id = list.1["data"][0]["id"].as_str().unwrap().to_owned();
    bodies.push(t.delete("/api/import/connections", json!({ "id": id })).1);

    for b in &bodies {
        let text = b.to_string();
        for s in secrets {
            assert!(!text.contains(s), "secret {s} in {text}");
        }
    }
    // Only the platform's own fields are stored.
    let stored: String =
        t.db.read_sync(|c| {
            Ok(c.query_row(
                "SELECT unseal(credentials, 'import_connections.credentials') FROM import_connections WHERE platform = 'stripe'",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&stored).unwrap(),
        json!({"api_key": "sk_test_123"})
    );
}

#[test]
fn a_connection_is_validated_and_belongs_to_its_owner_only() {
    let (t, entity, _) = net_app(json!({}));
    let post = |v: Value| t.post("/api/import/connections", v);
    let stripe =
        |creds: Value| json!({"platform": "stripe", "entity_id": entity, "credentials": creds});

    let msg = assert_error(&post(stripe(json!({}))), Status::BadRequest);
    assert_eq!(
        msg,
        "Invalid value for field `credentials`: stripe: missing `api_key`"
    );
    assert_error(&post(stripe(json!({"api_key": "  "}))), Status::BadRequest);
    let msg = assert_error(&post(stripe(json!("sk_test_123"))), Status::BadRequest);
    assert!(msg.contains("credentials"), "{msg}");
    let msg = assert_error(
        &post(
            json!({"platform": "shopify", "entity_id": entity, "credentials": {"access_token": "x"}}),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("missing `shop`"), "{msg}");
    let msg = assert_error(
        &post(json!({"platform": "stripe", "entity_id": entity})),
        Status::BadRequest,
    );
    assert_eq!(msg, "Missing required field: credentials");
    let msg = assert_error(
        &post(json!({"platform": "myspace", "entity_id": entity, "credentials": {}})),
        Status::BadRequest,
    );
    assert!(msg.starts_with("Unknown platform `myspace`"), "{msg}");
    let msg = assert_error(
        &post(json!({"platform": "xero", "entity_id": entity, "credentials": {}})),
        Status::BadRequest,
    );
    assert!(msg.contains("`xero` has no API import"), "{msg}");
    let msg = assert_error(
        &post(
            json!({"platform": "freeagent", "entity_id": entity, "credentials": {"access_token": "a"}}),
        ),
        Status::BadRequest,
    );
    assert!(msg.contains("OAuth"), "{msg}");
    assert_error(
        &post(
            json!({"platform": "stripe", "entity_id": "not-a-uuid", "credentials": {"api_key": "k"}}),
        ),
        Status::BadRequest,
    );
    assert_error(
        &post(
            json!({"platform": "stripe", "entity_id": uuid::Uuid::new_v4().to_string(), "credentials": {"api_key": "k"}}),
        ),
        Status::NotFound,
    );
    assert!(connections(&t).is_empty(), "nothing refused was stored");

    let first = connect(&t, "stripe", &entity, json!({"api_key": "k1"}));
    let other_entity = t.entity("Other Ltd");
    connect(&t, "stripe", &other_entity, json!({"api_key": "k2"}));
    assert_eq!(connections(&t).len(), 2, "one per entity and platform");
    let only = t
        .get(&format!("/api/import/connections?entityId={entity}"))
        .1;
    assert_eq!(only["data"].as_array().unwrap().len(), 1);
    assert_eq!(only["data"][0]["id"], first["id"]);
    assert_eq!(first["status"], "connected");

    // Another user sees none of it, cannot delete it, cannot use the entity.
    let owner_session = t.session.borrow().clone();
    t.signup("intruder@example.com");
    assert!(connections(&t).is_empty());
    assert_error(
        &t.delete("/api/import/connections", json!({"id": first["id"]})),
        Status::NotFound,
    );
    assert_error(
        &t.post(
            "/api/import/connections",
            json!({"platform": "stripe", "entity_id": entity, "credentials": {"api_key": "k3"}}),
        ),
        Status::NotFound,
    );
    assert_error(
        &t.get(&format!("/api/import/connections?entityId={entity}")),
        Status::NotFound,
    );
    assert_error(
        &migrate(&t, "stripe", "contacts", &entity),
        Status::NotFound,
    );

    *t.session.borrow_mut() = owner_session;
    let res = t.delete("/api/import/connections", json!({"id": first["id"]}));
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    assert_error(
        &t.delete("/api/import/connections", json!({"id": first["id"]})),
        Status::NotFound,
    );
    assert_error(
        &t.delete("/api/import/connections", json!({"id": "nope"})),
        Status::BadRequest,
    );
    let msg = assert_error(
        &migrate(&t, "stripe", "contacts", &entity),
        Status::BadRequest,
    );
    assert_eq!(
        msg,
        "stripe is not connected for this entity: connect it first"
    );

    // Without a session: 401.
    *t.session.borrow_mut() = None;
    assert_error(&t.get("/api/import/connections"), Status::Unauthorized);
}

#[test]
fn migrate_refuses_what_cannot_be_run_before_calling_anyone() {
    let server = stripe_server(Once::default());
    let (t, entity, _) = net_app(platforms_for("stripe", &server));
    connect(&t, "stripe", &entity, json!({"api_key": "sk_test_123"}));
    let run = |v: Value| t.post("/api/import/migrate", v);
    let base = |platform: &str, mode: &str, ty: &str| json!({"mode": mode, "platform": platform, "entityType": ty, "entity_id": entity});

    for ty in ["bills", "expenses", "projects", "time_entries"] {
        let msg = assert_error(&run(base("stripe", "api", ty)), Status::BadRequest);
        assert_eq!(msg, format!("stripe cannot supply {ty}"));
    }
    let msg = assert_error(&run(base("stripe", "api", "invoice")), Status::BadRequest);
    assert!(
        msg.starts_with("Invalid value for field `entityType`"),
        "{msg}"
    );
    let msg = assert_error(
        &run(base("stripe", "oauth", "contacts")),
        Status::BadRequest,
    );
    assert_eq!(
        msg,
        "Invalid value for field `mode`: `stripe` imports with mode `api`"
    );
    let msg = assert_error(&run(base("stripe", "csv", "contacts")), Status::BadRequest);
    assert!(msg.contains("/api/import/csv"), "{msg}");
    let msg = assert_error(&run(base("xero", "api", "contacts")), Status::BadRequest);
    assert!(msg.contains("`xero` has no API import"), "{msg}");
    let msg = assert_error(&run(base("bank", "api", "contacts")), Status::BadRequest);
    assert!(msg.starts_with("Unknown platform `bank`"), "{msg}");
    let msg = assert_error(
        &run(json!({"platform": "stripe", "entityType": "contacts", "entity_id": entity})),
        Status::BadRequest,
    );
    assert_eq!(msg, "Missing required field: mode");
    let msg = assert_error(
        &run(json!({"mode": "api", "platform": "stripe", "entityType": "contacts"})),
        Status::BadRequest,
    );
    assert_eq!(msg, "Missing required field: entity_id");
    let msg = assert_error(&run(base("square", "api", "contacts")), Status::BadRequest);
    assert_eq!(
        msg,
        "square is not connected for this entity: connect it first"
    );
    let msg = assert_error(&run(base("freeagent", "oauth", "all")), Status::BadRequest);
    assert_eq!(
        msg,
        "freeagent is not connected for this entity: connect it first"
    );
    assert!(server.requests().is_empty(), "no request for a refused run");
    assert!(list_of(&t, "contacts", &entity).is_empty());
}

#[test]
fn an_essential_installation_gets_403_on_every_import_endpoint() {
    let (t, _) = net_app_with(&[("plan", json!("essential"))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let expect = |res: (Status, Value)| {
        assert_eq!(
            assert_error(&res, Status::Forbidden),
            "Import requires the Pro plan"
        );
    };
    expect(t.get("/api/import/connections"));
    expect(t.post(
        "/api/import/connections",
        json!({"platform": "stripe", "entity_id": entity, "credentials": {"api_key": "k"}}),
    ));
    expect(t.delete(
        "/api/import/connections",
        json!({"id": uuid::Uuid::new_v4().to_string()}),
    ));
    expect(migrate(&t, "stripe", "contacts", &entity));
    let (status, _, v) = browse(
        &t,
        &format!("/api/import/oauth/start?platform=freeagent&entityId={entity}"),
        &[("Host", "books.example")],
    );
    expect((status, v));
    let (status, _, v) = callback(&t, "code=c&state=s");
    expect((status, v));
}

// ---------------------------------------------------------------------------------------
// OAuth: the state and the callback's failures

#[test]
fn the_oauth_state_must_be_one_this_user_started_recently_and_is_used_once() {
    let server = freeagent_server(Once::default());
    let (t, entity, _) = net_app(freeagent_platforms(&server));

    let msg = assert_error(
        &{
            let (s, _, v) = callback(&t, "code=good-code&state=forged");
            (s, v)
        },
        Status::BadRequest,
    );
    assert!(msg.contains("state"), "{msg}");
    let (s, _, v) = callback(&t, "code=good-code");
    assert_eq!(
        assert_error(&(s, v), Status::BadRequest),
        "Missing required field: state"
    );

    // Another user's state is refused, and still works for its owner afterwards.
    let (_, state) = start_oauth(&t, &entity);
    let owner = t.session.borrow().clone();
    t.signup("intruder@example.com");
    let (s, _, v) = callback(&t, &format!("code=good-code&state={state}"));
    assert_error(&(s, v), Status::BadRequest);
    assert!(connections(&t).is_empty());
    *t.session.borrow_mut() = owner.clone();
    let (s, location, _) = callback(&t, &format!("code=good-code&state={state}"));
    assert_eq!(
        (s, location.as_deref()),
        (Status::SeeOther, Some("/#/import?connected=freeagent"))
    );

    // Expired after 15 minutes.
    let (_, state) = start_oauth(&t, &entity);
    t.clock.advance(15 * 60 + 1);
    let (s, _, v) = callback(&t, &format!("code=good-code&state={state}"));
    let msg = assert_error(&(s, v), Status::BadRequest);
    assert!(msg.contains("expired"), "{msg}");

    // Without a session: 401 (the callback is a browser navigation with the cookie).
    let (_, state) = start_oauth(&t, &entity);
    *t.session.borrow_mut() = None;
    let (s, _, v) = callback(&t, &format!("code=good-code&state={state}"));
    assert_error(&(s, v), Status::Unauthorized);
    *t.session.borrow_mut() = owner;
    let exchanges = server.count(|r| {
        r.path == "/v2/token_endpoint"
            && r.form_value("grant_type").as_deref() == Some("authorization_code")
    });
    assert_eq!(exchanges, 1, "only the good state led to an exchange");
}

#[test]
fn the_callback_sends_the_browser_back_with_a_known_error_code_and_no_other_text() {
    let server = freeagent_server(Once::default());
    let (t, entity, _) = net_app(freeagent_platforms(&server));

    // The provider's error text (anyone can put any text there) is not carried on.
    let (_, state) = start_oauth(&t, &entity);
    let (s, location, _) = callback(
        &t,
        &format!("error=Your+account+is+locked%3A+call+0800+000&state={state}"),
    );
    assert_eq!(s, Status::SeeOther);
    assert_eq!(
        location.as_deref(),
        Some("/#/import?error=access_denied&platform=freeagent")
    );

    let (_, state) = start_oauth(&t, &entity);
    let (s, location, _) = callback(&t, &format!("code=stale-code&state={state}"));
    assert_eq!(s, Status::SeeOther);
    assert_eq!(
        location.as_deref(),
        Some("/#/import?error=exchange_failed&platform=freeagent")
    );

    let (_, state) = start_oauth(&t, &entity);
    let (s, location, _) = callback(&t, &format!("state={state}"));
    assert_eq!(s, Status::SeeOther);
    assert_eq!(
        location.as_deref(),
        Some("/#/import?error=no_code&platform=freeagent")
    );
    assert!(connections(&t).is_empty(), "nothing stored without a grant");
}

#[test]
fn oauth_start_checks_the_platform_the_entity_and_the_configuration() {
    let server = freeagent_server(Once::default());
    let (t, entity, _) = net_app(freeagent_platforms(&server));
    let start = |q: &str| {
        let (s, _, v) = browse(
            &t,
            &format!("/api/import/oauth/start?{q}"),
            &[("Host", "books.example")],
        );
        (s, v)
    };
    let msg = assert_error(
        &start(&format!("platform=stripe&entityId={entity}")),
        Status::BadRequest,
    );
    assert!(msg.contains("POST /api/import/connections"), "{msg}");
    assert_error(&start("platform=freeagent"), Status::BadRequest);
    assert_error(&start(&format!("entityId={entity}")), Status::BadRequest);
    assert_error(
        &start(&format!(
            "platform=freeagent&entityId={}",
            uuid::Uuid::new_v4()
        )),
        Status::NotFound,
    );
    // Without X-Forwarded-Proto the callback is plain http on the request's host.
    let (s, v) = start(&format!("platform=freeagent&entityId={entity}"));
    assert_eq!(s, Status::Ok, "{v}");
    let u = url::Url::parse(v["data"]["authorize_url"].as_str().unwrap()).unwrap();
    let redirect = u
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .unwrap()
        .1
        .into_owned();
    assert_eq!(redirect, "http://books.example/api/import/oauth/callback");

    // A configured redirect URI wins over the request.
    let mut platforms = freeagent_platforms(&server);
    platforms["freeagent"]["redirect_uri"] =
        json!("https://stock.example/api/import/oauth/callback");
    let (t, entity, _) = net_app(platforms);
    let (u, _) = start_oauth(&t, &entity);
    let redirect = u
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .unwrap()
        .1
        .into_owned();
    assert_eq!(redirect, "https://stock.example/api/import/oauth/callback");

    // No OAuth client configured: the server's problem.
    let (t, entity, _) = net_app(json!({}));
    let (s, _, v) = browse(
        &t,
        &format!("/api/import/oauth/start?platform=freeagent&entityId={entity}"),
        &[("Host", "books.example")],
    );
    let msg = assert_error(&(s, v), Status::ServiceUnavailable);
    assert!(msg.contains("platforms.freeagent.client_id"), "{msg}");
}

#[rocket::async_test]
async fn a_second_run_for_the_same_entity_and_platform_is_refused_with_409_while_one_runs() {
    use rocket::http::ContentType;
    use rocket::local::asynchronous::Client as AsyncClient;
    use rocket::tokio::sync::mpsc::unbounded_channel;

    let (arrived_tx, mut arrived_rx) = unbounded_channel::<()>();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let inner = gocardless_handler(Once(Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/customers" && r.param("after").is_none() {
            // Hold the first page until the test says so.
            arrived_tx.send(()).unwrap();
            release_rx.lock().unwrap().recv().unwrap();
        }
        inner(r)
    });
    let figment = common::test_figment(&[("platforms", platforms_for("gocardless", &server))]);
    let mut app = stockbook::App::from_figment(&figment).unwrap();
    app.retry = RetryPolicy::with_sleep(|_| {});
    let client = AsyncClient::untracked(stockbook::build_rocket(figment, app))
        .await
        .unwrap();
    let res = client
        .post("/api/auth/signup")
        .header(ContentType::JSON)
        .body(json!({"email": "owner@example.com", "password": "correct horse"}).to_string())
        .dispatch()
        .await;
    let session = res
        .cookies()
        .get("stockbook_session")
        .unwrap()
        .value()
        .to_owned();
    let post = |path: &'static str, v: Value| {
        let req = client
            .post(path)
            .cookie(Cookie::new("stockbook_session", session.clone()))
            .header(ContentType::JSON)
            .body(v.to_string());
        async move {
            let res = req.dispatch().await;
            let status = res.status();
            let v: Value = res.into_json().await.unwrap_or(Value::Null);
            (status, v)
        }
    };
    let mut entities = Vec::new();
    for name in ["Acme Ltd", "Other Ltd"] {
        let (status, v) = post("/api/entities", json!({ "name": name })).await;
        assert_eq!(status, Status::Created, "{v}");
        entities.push(v["data"]["id"].as_str().unwrap().to_owned());
    }
    let (status, v) = post(
        "/api/import/connections",
        json!({"platform": "gocardless", "entity_id": entities[0], "credentials": {"access_token": "live_gc"}}),
    )
    .await;
    assert_eq!(status, Status::Created, "{v}");
    let run = |entity: &str, ty: &str| {
        post(
            "/api/import/migrate",
            json!({"mode": "api", "platform": "gocardless", "entityType": ty, "entity_id": entity}),
        )
    };

    let first = run(&entities[0], "contacts");
    let meanwhile = async {
        arrived_rx.recv().await.unwrap();
        let refused = run(&entities[0], "all").await;
        // Another entity is not held up by it (it goes on to find no connection).
        let other = run(&entities[1], "contacts").await;
        release_tx.send(()).unwrap();
        (refused, other)
    };
    let (first, (refused, other)) = rocket::tokio::join!(first, meanwhile);
    assert_eq!(
        assert_error(&refused, Status::Conflict),
        "An import from gocardless is already running for this entity"
    );
    assert_eq!(
        assert_error(&other, Status::BadRequest),
        "gocardless is not connected for this entity: connect it first"
    );
    assert_eq!(first.0, Status::Ok, "{}", first.1);
    assert_eq!(first.1["data"]["contacts"]["imported"], json!(3));

    // Once it is over, the next run goes ahead (the mock holds every first page).
    let again = run(&entities[0], "contacts");
    let release = async {
        arrived_rx.recv().await.unwrap();
        release_tx.send(()).unwrap();
    };
    let (again, ()) = rocket::tokio::join!(again, release);
    assert_eq!(again.0, Status::Ok, "{}", again.1);
    assert_eq!(again.1["data"]["contacts"]["skipped"], json!(3));
}
