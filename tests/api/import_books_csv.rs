//! What the KashFlow, Zoho Books and FreshBooks CSV layouts keep of the books
//! (docs/import.md#the-books-by-platform): each line's VAT treatment from the platform's
//! tax names and rates, credit notes linked to their invoices, payments with their dates,
//! and the currency and rate of documents in another currency.

use super::common;

use common::{app_with_entity, TestApp};
use rocket::http::Status;
use serde_json::{json, Value};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("tests/fixtures/import/{path}")).unwrap()
}

fn run(t: &TestApp, entity: &str, entity_type: &str, file: &str) -> Value {
    let (status, v) = t.post(
        "/api/import/csv",
        json!({"entityType": entity_type, "csv": fixture(file), "entity_id": entity}),
    );
    assert_eq!(status, Status::Ok, "{file}: {v}");
    v["data"].clone()
}

fn detected(t: &TestApp, file: &str) -> (Value, Value) {
    let (status, v) = t.post(
        "/api/import/preview",
        json!({"mode": "csv", "csv": fixture(file)}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    (
        v["data"]["platform"].clone(),
        v["data"]["entityType"].clone(),
    )
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

/// Lines as `description | rate | treatment | vat`.
fn treatments(doc: &Value) -> Vec<String> {
    doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} | {} | {} | {}",
                l["description"].as_str().unwrap(),
                l["vat_rate"],
                l["vat_treatment"].as_str().unwrap(),
                l["vat"]
            )
        })
        .collect()
}

/// A document's money as `currency @ rate: total, paid, credited, due`.
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

/// A document's payments as `date amount method reference`, oldest first.
fn payments(t: &TestApp, doc: &Value) -> Vec<String> {
    let (status, v) = t.get(&format!(
        "/api/payments?documentId={}",
        doc["id"].as_str().unwrap()
    ));
    assert_eq!(status, Status::Ok, "{v}");
    let mut out: Vec<String> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{} {} {} {}",
                p["date"].as_str().unwrap(),
                p["amount"],
                p["method"].as_str().unwrap_or("-"),
                p["reference"].as_str().unwrap_or("-")
            )
        })
        .collect();
    out.sort();
    out
}

fn failures(outcome: &Value) -> Vec<(u64, String)> {
    outcome["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["row"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Zoho Books

#[test]
fn zoho_books_invoices_keep_each_tax_name_s_treatment_their_currency_and_the_dated_part_payment() {
    let (t, entity) = app_with_entity();
    assert_eq!(
        detected(&t, "zoho_books/invoices_books.csv"),
        (json!("zoho_books"), json!("invoices"))
    );
    let out = run(&t, &entity, "invoices", "zoho_books/invoices_books.csv");
    assert_eq!(
        (out["imported"].clone(), failures(&out)),
        (json!(2), vec![])
    );
    let invoices = list(&t, "invoices", &entity);

    let euro = find(&invoices, "number", "INV-000051");
    assert_eq!(
        money(euro),
        "EUR @ 0.8387: total 1500, paid 0, credited 0, due 1500"
    );
    assert_eq!(
        treatments(euro),
        ["Shop interior design, March | 0 | outside_scope | 0"]
    );

    let cafe = find(&invoices, "number", "INV-000052");
    assert_eq!(
        treatments(cafe),
        [
            "Catering equipment hire, one week | 20 | standard | 20",
            "Children's booster seat | 5 | reduced | 2.5",
            "Printed menus, A4 | 0 | zero | 0",
            "Food hygiene training, level 2 | 0 | exempt | 0",
        ]
    );
    assert_eq!(
        money(cafe),
        "GBP @ 1: total 390.5, paid 190.5, credited 0, due 200"
    );
    assert_eq!(payments(&t, cafe), ["2024-04-12 190.5 - -"]);
}

#[test]
fn zoho_books_credit_notes_credit_the_invoice_they_were_applied_to_in_their_own_currency() {
    let (t, entity) = app_with_entity();
    run(&t, &entity, "invoices", "zoho_books/invoices_books.csv");
    assert_eq!(
        detected(&t, "zoho_books/credit_notes.csv"),
        (json!("zoho_books"), json!("credit_notes"))
    );
    let out = run(&t, &entity, "credit_notes", "zoho_books/credit_notes.csv");
    assert_eq!(
        (out["imported"].clone(), failures(&out)),
        (json!(2), vec![])
    );

    let invoices = list(&t, "invoices", &entity);
    let cafe = find(&invoices, "number", "INV-000052");
    let credits = list(&t, "credit-notes", &entity);
    let applied = find(&credits, "number", "CN-00003");
    assert_eq!(applied["invoice_id"], cafe["id"]);
    assert_eq!(applied["status"], json!("posted"));
    assert_eq!(applied["provider_ref"], json!("2520018000000074011"));
    assert_eq!(
        treatments(applied),
        ["Catering equipment hire, returned early | 20 | standard | 10"]
    );
    assert_eq!(
        money(cafe),
        "GBP @ 1: total 390.5, paid 190.5, credited 60, due 140"
    );

    let goodwill = find(&credits, "number", "CN-00004");
    assert_eq!(goodwill["invoice_id"], Value::Null);
    assert_eq!(
        money(goodwill),
        "EUR @ 0.8412: total 120, paid 0, credited 0, due 120"
    );
    assert_eq!(
        treatments(goodwill),
        ["Goodwill credit, late drawings | 0 | outside_scope | 0"]
    );

    let again = run(&t, &entity, "credit_notes", "zoho_books/credit_notes.csv");
    assert_eq!(
        (again["imported"].clone(), again["skipped"].clone()),
        (json!(0), json!(2))
    );
}

#[test]
fn zoho_books_customer_payments_are_kept_with_their_dates_modes_and_references() {
    let (t, entity) = app_with_entity();
    run(&t, &entity, "invoices", "zoho_books/invoices_books.csv");
    assert_eq!(
        detected(&t, "zoho_books/payments.csv"),
        (json!("zoho_books"), json!("payments"))
    );
    let out = run(&t, &entity, "payments", "zoho_books/payments.csv");
    assert_eq!(
        (out["imported"].clone(), failures(&out)),
        (json!(2), vec![])
    );
    let invoices = list(&t, "invoices", &entity);
    let euro = find(&invoices, "number", "INV-000051");
    assert_eq!(
        payments(&t, euro),
        [
            "2024-04-10 700 Bank Transfer SEPA 0410-77",
            "2024-04-20 300 Bank Transfer SEPA 0420-12"
        ]
    );
    assert_eq!(
        money(euro),
        "EUR @ 0.8387: total 1500, paid 1000, credited 0, due 500"
    );
    let again = run(&t, &entity, "payments", "zoho_books/payments.csv");
    assert_eq!(
        (again["imported"].clone(), again["skipped"].clone()),
        (json!(0), json!(2))
    );
}

#[test]
fn zoho_books_bills_and_expenses_keep_their_tax_names_treatments() {
    let (t, entity) = app_with_entity();
    run(&t, &entity, "bills", "zoho_books/bills.csv");
    let bills = list(&t, "bills", &entity);
    let rates = find(&bills, "number", "BR-2024-0411");
    assert_eq!(
        treatments(rates),
        ["Business rates, April 2024 | 0 | outside_scope | 0"]
    );
    assert_eq!(rates["currency"], json!("GBP"));
    run(&t, &entity, "expenses", "zoho_books/expenses.csv");
    let expenses = list(&t, "expenses", &entity);
    let kinds: Vec<String> = [
        "Train to York, client visit",
        "Printer ink, office",
        "Lunch with client, Bramble Café",
    ]
    .iter()
    .map(|d| {
        let e = find(&expenses, "description", d);
        format!("{d}: {}", e["vat_treatment"].as_str().unwrap())
    })
    .collect();
    assert_eq!(
        kinds,
        [
            "Train to York, client visit: zero",
            "Printer ink, office: standard",
            "Lunch with client, Bramble Café: exempt"
        ]
    );
}

// ---------------------------------------------------------------------------------------
// KashFlow

#[test]
fn kashflow_rates_keep_their_treatments_and_minus_two_is_outside_the_scope() {
    let (t, entity) = app_with_entity();
    run(&t, &entity, "contacts", "kashflow/contacts.csv");
    let out = run(&t, &entity, "invoices", "kashflow/invoices_rates.csv");
    let invoices = list(&t, "invoices", &entity);
    let inv = find(&invoices, "number", "104");
    assert_eq!(
        treatments(inv),
        [
            "Shelf brackets, steel | 20 | standard | 8",
            "Child safety gate | 5 | reduced | 3",
            "Joinery handbook | 0 | zero | 0",
            "Deposit held on account | 0 | outside_scope | 0",
        ]
    );
    // KashFlow's import file has a currency and no exchange rate: a euro invoice is
    // refused rather than stored at a guessed rate.
    assert_eq!(out["imported"], json!(1));
    let failed = failures(&out);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, 6);
    assert!(failed[0].1.contains("exchange_rate"), "{failed:?}");
}

#[test]
fn kashflow_invoice_payments_are_kept_with_their_dates_and_pay_off_an_invoice() {
    let (t, entity) = app_with_entity();
    run(&t, &entity, "contacts", "kashflow/contacts.csv");
    run(&t, &entity, "invoices", "kashflow/invoices.csv");
    // KashFlow's invoices file has no status column: what it holds are issued invoices,
    // so they arrive sent (not drafts) and the payments file imports straight after.
    let invoices = list(&t, "invoices", &entity);
    assert_eq!(invoices.len(), 3);
    assert!(
        invoices.iter().all(|i| i["status"] == json!("sent")),
        "{invoices:#?}"
    );
    let (platform, kind) = detected(&t, "kashflow/payments.csv");
    assert_eq!((platform, kind), (json!("kashflow"), json!("payments")));
    let out = run(&t, &entity, "payments", "kashflow/payments.csv");
    assert_eq!(
        (out["imported"].clone(), failures(&out)),
        (json!(3), vec![])
    );
    let invoices = list(&t, "invoices", &entity);
    let kitchen = find(&invoices, "number", "101");
    assert_eq!(
        payments(&t, kitchen),
        [
            "2024-03-20 500 BACS First stage payment",
            "2024-03-28 300 BACS -"
        ]
    );
    assert_eq!(
        money(kitchen),
        "GBP @ 1: total 1234.5, paid 800, credited 0, due 434.5"
    );
    let shelving = find(&invoices, "number", "102");
    assert_eq!(
        payments(&t, shelving),
        ["2024-03-25 408 Card Paid at the counter"]
    );
    assert_eq!(shelving["status"], json!("paid"));
    let again = run(&t, &entity, "payments", "kashflow/payments.csv");
    assert_eq!(
        (again["imported"].clone(), again["skipped"].clone()),
        (json!(0), json!(3)),
        "a payment already recorded (same invoice, date and amount) is skipped"
    );
}

// ---------------------------------------------------------------------------------------
// FreshBooks

#[test]
fn freshbooks_tax_names_give_treatments_date_paid_dates_the_payment_and_a_euro_invoice_needs_a_rate(
) {
    let (t, entity) = app_with_entity();
    let out = run(&t, &entity, "invoices", "freshbooks/invoices_books.csv");
    let invoices = list(&t, "invoices", &entity);
    let cafe = find(&invoices, "number", "0000051");
    assert_eq!(
        treatments(cafe),
        [
            "Counter shelving, oak | 20 | standard | 60",
            "Children's booster seat | 5 | reduced | 2.5",
            "Joinery handbook | 0 | zero | 0",
            "Workshop safety training | 0 | exempt | 0",
        ]
    );
    assert_eq!(cafe["status"], json!("paid"));
    assert_eq!(
        money(cafe),
        "GBP @ 1: total 542.5, paid 542.5, credited 0, due 0"
    );
    assert_eq!(payments(&t, cafe), ["2024-04-15 542.5 - -"]);
    let design = find(&invoices, "number", "0000052");
    assert_eq!(design["amount_paid"], json!(0));
    // FreshBooks exports a currency and no rate: the euro invoice is a row error.
    assert_eq!(out["imported"], json!(2));
    let failed = failures(&out);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, 7);
    assert!(failed[0].1.contains("exchange_rate"), "{failed:?}");
}
