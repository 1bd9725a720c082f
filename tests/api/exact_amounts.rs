//! Exact amounts (docs/public-api.md#exact-amounts): money, prices and quantities are taken
//! as JSON numbers or as strings holding the decimal, on both APIs, and answered as numbers
//! with every digit; the OpenAPI document says so without a float `multipleOf`.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

fn key(t: &TestApp, entity: &str) -> String {
    let (s, v) = t.post(
        "/api/api-keys",
        json!({ "name": "sync", "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["raw_key"].as_str().unwrap().to_owned()
}

fn line(v: &Value) -> (String, String, String) {
    let l = &v["data"]["lines"][0];
    (
        l["quantity"].to_string(),
        l["unit_price"].to_string(),
        l["discount"].to_string(),
    )
}

#[test]
fn amounts_sent_as_strings_are_taken_exactly_on_both_apis_and_answered_as_numbers() {
    let (t, e) = app_with_entity();
    let c = session_contact(&t, Some(&e), "Customer");
    // 123456789012.3456 is not a binary float: a float client would send 123456789012.34560394.
    let body = json!({ "contact_id": c, "entity_id": e,
        "lines": [{ "description": "Big", "quantity": "0.005", "unit_price": "123456789012.3456",
                    "discount": "12.5" }] });
    let (s, v) = t.post("/api/invoices", body.clone());
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(
        line(&v),
        ("0.005".into(), "123456789012.3456".into(), "12.5".into())
    );
    let k = key(&t, &e);
    let (s, v1) = t.post_with_key("/api/v1/invoices", &k, body);
    assert_eq!(s, Status::Created, "{v1}");
    assert_eq!(line(&v1), line(&v));
    assert_eq!(v1["data"]["total"], v["data"]["total"]);
    // A number and a string of the same decimal make the same record.
    let (s, n) = t.post(
        "/api/invoices",
        json!({ "contact_id": c, "entity_id": e,
            "lines": [{ "description": "Big", "quantity": 0.005, "unit_price": 123456789012.3456_f64,
                        "discount": 12.5 }] }),
    );
    assert_eq!(s, Status::Created, "{n}");
    let (_, _, d) = line(&n);
    assert_eq!(d, "12.5");
    // Read back through v1: the numbers keep every digit.
    let (s, list) = t.get_with_key("/api/v1/invoices", &k);
    assert_eq!(s, Status::Ok, "{list}");
    let text = list.to_string();
    assert!(text.contains("123456789012.3456"), "{text}");
}

#[test]
fn a_string_that_is_not_a_plain_decimal_is_a_400_naming_the_field_and_saves_nothing() {
    let (t, e) = app_with_entity();
    for bad in [
        "1e3", "1,000", " 5", "+5", "5.", ".5", "", "five", "1.23456",
    ] {
        let (s, v) = t.post(
            "/api/products",
            json!({ "entity_id": e, "name": format!("P{bad}"), "unit_price": bad }),
        );
        let msg = assert_error(&(s, v), Status::BadRequest);
        assert!(msg.contains("unit_price"), "{bad}: {msg}");
    }
    let (_, v) = t.get(&format!("/api/products?entityId={e}"));
    assert_eq!(v["data"], json!([]), "nothing saved");
    let (s, v) = t.post(
        "/api/products",
        json!({ "entity_id": e, "name": "Ok", "unit_price": "4.5000", "cost_price": "-0" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["unit_price"].to_string(), "4.5");
}

/// docs/public-api.md#exact-amounts: the document describes decimals with `format:
/// decimal` and `x-decimal-places`, never a float `multipleOf`; request bodies take a
/// string matching the stated pattern; answers are numbers only.
#[test]
fn the_document_describes_decimals_without_a_float_multiple_of() {
    let t = app();
    let (_, doc) = t.get("/api/openapi.json");
    let text = doc.to_string();
    assert!(!text.contains("multipleOf"), "no float multipleOf is left");
    let schemas = &doc["components"]["schemas"];
    let price = &schemas["Line"]["properties"]["unit_price"];
    assert_eq!(
        price["type"], "number",
        "an answer's decimal is a number: {price}"
    );
    assert_eq!(price["format"], "decimal");
    assert_eq!(price["x-decimal-places"], 4);
    // Request bodies: every decimal takes a string too.
    let mut request_decimals = 0;
    let mut answer_decimals = 0;
    fn walk(v: &Value, f: &mut dyn FnMut(&Value)) {
        match v {
            Value::Object(o) => {
                f(v);
                o.values().for_each(|x| walk(x, f));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, f)),
            _ => {}
        }
    }
    let names = stockbook::openapi::request_schemas(
        doc["paths"].as_object().unwrap(),
        schemas.as_object().unwrap(),
    );
    for (name, schema) in schemas.as_object().unwrap() {
        let in_request = names.contains(name);
        walk(schema, &mut |s| {
            if s["format"] == "decimal" {
                let types = s["type"].to_string();
                if in_request {
                    request_decimals += 1;
                    assert!(
                        types.contains("string") && s["pattern"].is_string(),
                        "{name}: {s}"
                    );
                } else {
                    answer_decimals += 1;
                    assert!(!types.contains("string"), "{name}: {s}");
                }
            }
        });
    }
    assert!(request_decimals > 20 && answer_decimals > 20);
    // What a request body reaches is never also an answer's schema: answers stay numbers.
    let mut answers = Vec::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            walk(&op["responses"], &mut |s| {
                if let Some(r) = s["$ref"].as_str() {
                    answers.push(r.trim_start_matches("#/components/schemas/").to_owned());
                }
            });
        }
    }
    for a in &answers {
        assert!(
            !names.contains(a),
            "{a} is both a request body's and an answer's"
        );
    }
    let line_input = schemas["InvoiceCreate"]["properties"]["lines"]["items"].clone();
    let line_input = match line_input["$ref"].as_str() {
        Some(r) => schemas[r.trim_start_matches("#/components/schemas/")].clone(),
        None => line_input,
    };
    assert_eq!(
        line_input["properties"]["unit_price"]["pattern"], "^-?[0-9]{1,12}(\\.[0-9]{1,4}0*)?$",
        "{line_input}"
    );
}
