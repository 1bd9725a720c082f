//! Re-import (docs/import.md#filling-blanks-on-re-import, docs/import.md#dedup): with
//! `fillBlanks` a duplicate contact fills the blank fields of the one that exists and
//! never overwrites a filled one, in the run's transaction, counted in `updated`; without
//! it the duplicate is skipped; every skipped record is listed with its row and reason.

use super::common;

use common::{app_with_entity, TestApp};
use rocket::http::Status;
use serde_json::{json, Value};

fn run(t: &TestApp, body: Value) -> Value {
    let (status, v) = t.post("/api/import/csv", body);
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].clone()
}

fn contact(t: &TestApp, entity: &str, name: &str) -> Value {
    let (status, v) = t.get(&format!("/api/contacts?entityId={entity}"));
    assert_eq!(status, Status::Ok, "{v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == json!(name))
        .unwrap_or_else(|| panic!("no contact {name} in {v}"))
        .clone()
}

const CSV: &str = "name,email,phone,address,vat_number\n\
    Bramble Café,new@bramble.test,07700 900123,\"12 High Street, York, YO1 8RS\",GB123456789\n\
    Oak & Ash,,,,\n";

fn setup() -> (TestApp, String) {
    let (t, entity) = app_with_entity();
    // Made by hand: an email, no phone, address or VAT number.
    let (s, v) = t.post(
        "/api/contacts",
        json!({"name": "Bramble Café", "email": "hello@bramble.test", "entity_id": entity}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let (s, v) = t.post(
        "/api/contacts",
        json!({"name": "Oak & Ash", "phone": "0113 496 0000", "entity_id": entity}),
    );
    assert_eq!(s, Status::Created, "{v}");
    (t, entity)
}

#[test]
fn without_fill_blanks_a_duplicate_is_skipped_and_listed_with_its_reason() {
    let (t, entity) = setup();
    let r = run(
        &t,
        json!({"entityType": "contacts", "platform": "generic", "csv": CSV, "entity_id": entity}),
    );
    assert_eq!(r["imported"], json!(0), "{r}");
    assert_eq!(r["skipped"], json!(2), "{r}");
    assert!(r.get("updated").is_none(), "not asked, not reported: {r}");
    assert_eq!(
        r["skippedRows"],
        json!([
            {"row": 2, "reason": "Contact Bramble Café: already imported or entered (a duplicate), so it was skipped"},
            {"row": 3, "reason": "Contact Oak & Ash: already imported or entered (a duplicate), so it was skipped"},
        ])
    );
    let c = contact(&t, &entity, "Bramble Café");
    assert_eq!(c["phone"], Value::Null);
    assert_eq!(c["address"], Value::Null);
}

#[test]
fn fill_blanks_fills_only_the_blank_fields_of_existing_records() {
    let (t, entity) = setup();
    let body = json!({"entityType": "contacts", "platform": "generic", "csv": CSV,
                      "entity_id": entity, "fillBlanks": true});
    // The preview (a dry run) says what would be updated and changes nothing.
    let (s, p) = t.post("/api/import/preview", body.clone());
    assert_eq!(s, Status::Ok, "{p}");
    assert_eq!(
        (
            p["data"]["updated"].clone(),
            p["data"]["duplicates"].clone()
        ),
        (json!(1), json!(1)),
        "{p}"
    );
    assert_eq!(contact(&t, &entity, "Bramble Café")["phone"], Value::Null);

    let r = run(&t, body.clone());
    assert_eq!(
        (
            r["imported"].clone(),
            r["updated"].clone(),
            r["skipped"].clone()
        ),
        (json!(0), json!(1), json!(1)),
        "{r}"
    );
    // Oak & Ash had nothing blank the file could fill: skipped, listed.
    assert_eq!(r["skippedRows"][0]["row"], json!(3), "{r}");
    let c = contact(&t, &entity, "Bramble Café");
    assert_eq!(
        c["email"],
        json!("hello@bramble.test"),
        "a filled field is never overwritten"
    );
    assert_eq!(c["phone"], json!("07700 900123"));
    assert_eq!(c["address"], json!("12 High Street, York, YO1 8RS"));
    assert_eq!(c["vat_number"], json!("GB123456789"));
    let o = contact(&t, &entity, "Oak & Ash");
    assert_eq!(o["phone"], json!("0113 496 0000"));

    // Once filled, a second run has nothing to fill.
    let again = run(&t, body);
    assert_eq!(
        (again["updated"].clone(), again["skipped"].clone()),
        (json!(0), json!(2)),
        "{again}"
    );
}

#[test]
fn a_refused_run_fills_nothing() {
    let (t, entity) = setup();
    // A 400 before any row is written (required column missing) leaves the contact as it was.
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "contacts", "platform": "generic", "csv": "phone\n07700 900123\n",
               "entity_id": entity, "fillBlanks": true}),
    );
    assert_eq!(s, Status::BadRequest, "{v}");
    assert_eq!(contact(&t, &entity, "Bramble Café")["phone"], Value::Null);
}
