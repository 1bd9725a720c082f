//! What the FreeAgent connector keeps of the books (docs/import.md#the-books-by-platform):
//! each item's treatment from its `sales_tax_status` and the document's `ec_status`, the
//! currency and rate, the dated payments of invoices and bills (their bank transaction
//! explanations), and credit notes linked to the invoice they credit; pulled over OAuth
//! from a fake FreeAgent and imported.

use super::common;
use super::platform_mocks::{freeagent_books_server, REDIRECT};

use common::{body, TestApp};
use rocket::http::{Cookie, Header, Status};
use rocket::local::blocking::Client;
use serde_json::{json, Value};

fn app(server: &common::mock_server::MockServer) -> (TestApp, String) {
    let platforms = json!({"freeagent": {
        "base_url": server.url(),
        "authorize_url": format!("{}/v2/approve_app", server.url()),
        "token_url": format!("{}/v2/token_endpoint", server.url()),
        "client_id": "fa_client",
        "client_secret": "fa_secret",
        "redirect_uri": REDIRECT,
    }});
    let figment = common::test_figment(&[("platforms", platforms)]);
    let app = stockbook::App::from_figment(&figment).expect("app config");
    let clock = app.clock.clone();
    let db = app.db.clone();
    let client = Client::untracked(stockbook::build_rocket(figment, app)).expect("valid rocket");
    let t = TestApp {
        client,
        clock,
        db,
        session: std::cell::RefCell::new(None),
    };
    t.signup("owner@example.com");
    let entity = t.entity("Bramble Joinery Ltd");
    (t, entity)
}

fn browse(t: &TestApp, path: &str) -> (Status, Value) {
    let mut req = t.client.get(path.to_owned());
    if let Some(token) = t.session.borrow().as_ref() {
        req = req.cookie(Cookie::new("stockbook_session", token.clone()));
    }
    req = req.header(Header::new("Host", "books.example"));
    body(req.dispatch())
}

/// Connects the entity to the fake FreeAgent through the OAuth journey.
fn connect(t: &TestApp, entity: &str) {
    let (status, v) = browse(
        t,
        &format!("/api/import/oauth/start?platform=freeagent&entityId={entity}"),
    );
    assert_eq!(status, Status::Ok, "{v}");
    let u = url::Url::parse(v["data"]["authorize_url"].as_str().unwrap()).unwrap();
    let state = u
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    let (status, _) = browse(
        t,
        &format!("/api/import/oauth/callback?code=good-code&state={state}"),
    );
    assert_eq!(status, Status::SeeOther);
}

fn list(t: &TestApp, path: &str, entity: &str) -> Vec<Value> {
    let (status, v) = t.get(&format!("/api/{path}?entityId={entity}"));
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

fn find<'a>(records: &'a [Value], key: &str, value: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r[key] == json!(value))
        .unwrap_or_else(|| panic!("no record with {key} = {value} in {records:#?}"))
}

/// Lines as `description | rate | treatment | vat | reverse-charge vat`.
fn treatments(doc: &Value) -> Vec<String> {
    doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} | {} | {} | {} | {}",
                l["description"].as_str().unwrap(),
                l["vat_rate"],
                l["vat_treatment"].as_str().unwrap(),
                l["vat"],
                l["reverse_charge_vat"]
            )
        })
        .collect()
}

fn money(doc: &Value) -> String {
    format!(
        "{} @ {}: total {}, paid {}, credited {}, due {}",
        doc["currency"].as_str().unwrap(),
        doc["exchange_rate"],
        doc["total"],
        doc["amount_paid"],
        doc["amount_credited"],
        doc["amount_due"]
    )
}

/// The document's payments as `date amount`, oldest first.
fn payment_dates(t: &TestApp, doc: &Value) -> Vec<String> {
    let (status, v) = t.get(&format!(
        "/api/payments?documentId={}",
        doc["id"].as_str().unwrap()
    ));
    assert_eq!(status, Status::Ok, "{v}");
    let mut dates: Vec<String> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{} {}", p["date"].as_str().unwrap(), p["amount"]))
        .collect();
    dates.sort();
    dates
}

#[test]
fn freeagent_keeps_treatments_currencies_dated_payments_and_credit_notes_linked_to_their_invoices()
{
    let server = freeagent_books_server();
    let (t, entity) = app(&server);
    connect(&t, &entity);
    let (status, v) = t.post(
        "/api/import/migrate",
        json!({"mode": "oauth", "platform": "freeagent", "entityType": "all", "entity_id": entity}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    for ty in ["invoices", "bills", "credit_notes", "payments"] {
        assert_eq!(v["data"][ty]["failed"], json!([]), "{ty}: {v}");
    }
    assert_eq!(v["data"]["invoices"]["imported"], json!(3), "{v}");
    assert_eq!(v["data"]["credit_notes"]["imported"], json!(1), "{v}");
    // Invoice 010's two part payments and the bill's two; 012 was paid on one day.
    assert_eq!(v["data"]["payments"]["imported"], json!(4), "{v}");

    let invoices = list(&t, "invoices", &entity);
    let cafe = find(&invoices, "number", "010");
    assert_eq!(
        treatments(cafe),
        [
            "Catering equipment hire | 20 | standard | 20 | 0",
            "Children's booster seat | 5 | reduced | 2.5 | 0",
            "Printed menus | 0 | zero | 0 | 0",
            "Food hygiene course | 0 | exempt | 0 | 0",
        ]
    );
    // Paid in two parts: each keeps the date of its bank transaction explanation.
    assert_eq!(
        payment_dates(&t, cafe),
        ["2024-04-05 90.5", "2024-04-12 100"]
    );
    assert_eq!(
        money(cafe),
        "GBP @ 1: total 390.5, paid 190.5, credited 60, due 140"
    );

    let euro = find(&invoices, "number", "011");
    assert_eq!(
        money(euro),
        "EUR @ 0.8387: total 1500, paid 0, credited 0, due 1500"
    );
    assert_eq!(
        treatments(euro),
        ["Shop interior design | 0 | outside_scope | 0 | 0"]
    );

    let paid = find(&invoices, "number", "012");
    assert_eq!(paid["status"], json!("paid"));
    assert_eq!(payment_dates(&t, paid), ["2024-04-09 120"]);

    let bills = list(&t, "bills", &entity);
    let licence = find(&bills, "number", "RC-77");
    assert_eq!(
        treatments(licence),
        ["Software licence, US vendor | 20 | reverse_charge | 0 | 100"]
    );
    assert_eq!(licence["total"], json!(500));
    assert_eq!(
        payment_dates(&t, licence),
        ["2024-04-20 200", "2024-04-27 300"]
    );
    assert_eq!(licence["status"], json!("paid"), "{licence}");

    let credits = list(&t, "credit-notes", &entity);
    let credit = find(&credits, "number", "013");
    assert_eq!(credit["invoice_id"], cafe["id"]);
    assert_eq!(credit["status"], json!("posted"));
    assert_eq!(
        treatments(credit),
        ["Equipment hire, returned early | 20 | standard | 10 | 0"]
    );
}
