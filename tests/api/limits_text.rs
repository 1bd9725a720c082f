//! Text lengths (docs/limits.md#text-lengths): every text of a body has a limit below the
//! body's own, by the name of its field, enforced in one place for both APIs and described
//! as `maxLength` in the OpenAPI document.

use super::common;

use common::{app_with_entity, assert_error};
use rocket::http::Status;
use serde_json::{json, Value};

#[test]
fn a_contact_named_with_four_mebibytes_is_a_400_naming_the_field_and_its_limit() {
    let (t, entity) = app_with_entity();
    let name = "n".repeat(4 * 1024 * 1024 - 100);
    let msg = assert_error(
        &t.post(
            "/api/contacts",
            json!({ "name": name, "entity_id": entity }),
        ),
        Status::BadRequest,
    );
    assert_eq!(
        msg,
        "Invalid value for field `name`: must be at most 200 characters \
         (docs/limits.md#text-lengths)"
    );
    let (_, v) = t.get(&format!("/api/contacts?entity_id={entity}"));
    assert_eq!(v["data"], json!([]), "nothing was stored");
}

#[test]
fn each_text_takes_its_limit_in_characters_and_not_one_more() {
    let (t, entity) = app_with_entity();
    // (field, limit); the other fields of the body are short. `é` is two bytes: the limit
    // counts characters.
    for (i, (field, limit)) in [
        ("name", 200),
        ("sku", 100),
        ("barcode", 100),
        ("unit", 100),
        ("category", 200),
        ("description", 10_000),
        ("notes", 10_000),
    ]
    .into_iter()
    .enumerate()
    {
        let mut body = json!({ "name": format!("P{i}"), "entity_id": entity });
        body[field] = json!("é".repeat(limit + 1));
        let msg = assert_error(&t.post("/api/products", body.clone()), Status::BadRequest);
        assert!(
            msg.starts_with(&format!(
                "Invalid value for field `{field}`: must be at most {limit} characters"
            )),
            "{field}: {msg}"
        );
        body[field] = json!("é".repeat(limit));
        let (s, v) = t.post("/api/products", body);
        assert_eq!(s, Status::Created, "{field}: {v}");
    }
}

#[test]
fn a_text_inside_a_list_is_named_by_its_place_and_the_public_api_refuses_it_too() {
    let (t, entity) = app_with_entity();
    let (s, v) = t.post(
        "/api/api-keys",
        json!({ "name": "limits", "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let key = v["data"]["raw_key"].as_str().unwrap().to_owned();
    let msg = assert_error(
        &t.post_with_key("/api/v1/contacts", &key, json!({ "name": "x".repeat(201) })),
        Status::BadRequest,
    );
    assert!(
        msg.contains("`name`: must be at most 200 characters"),
        "{msg}"
    );

    let contact = {
        let (s, v) = t.post(
            "/api/contacts",
            json!({ "name": "Shop", "entity_id": entity }),
        );
        assert_eq!(s, Status::Created, "{v}");
        v["data"]["id"].as_str().unwrap().to_owned()
    };
    let line = |d: &str| json!({ "description": d, "quantity": 1, "unit_price": 1 });
    let msg = assert_error(
        &t.post(
            "/api/invoices",
            json!({
                "entity_id": entity,
                "contact_id": contact,
                "issue_date": "2026-01-05",
                "lines": [line("fine"), line(&"d".repeat(10_001))],
            }),
        ),
        Status::BadRequest,
    );
    assert!(
        msg.starts_with("Invalid value for field `lines[1].description`: must be at most 10000"),
        "{msg}"
    );
}

/// Every string schema of the input schemas, with the name of the property holding it.
fn input_strings<'a>(schema: &'a Value, field: &str, out: &mut Vec<(String, &'a Value)>) {
    let is_string = schema["type"] == "string"
        || schema["type"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("string")));
    if is_string {
        out.push((field.to_owned(), schema));
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        for s in schema[k].as_array().into_iter().flatten() {
            input_strings(s, field, out);
        }
    }
    if schema.get("items").is_some() {
        input_strings(&schema["items"], field, out);
    }
    for (name, prop) in schema["properties"].as_object().into_iter().flatten() {
        input_strings(prop, name, out);
    }
}

#[test]
fn the_openapi_document_gives_every_free_text_of_a_request_body_its_max_length() {
    let (t, _) = app_with_entity();
    let res = t.client.get("/api/openapi.json").dispatch();
    let doc: Value = serde_json::from_str(&res.into_string().unwrap()).unwrap();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    assert_eq!(
        schemas["ContactCreate"]["properties"]["name"]["maxLength"],
        json!(200)
    );
    assert_eq!(
        schemas["ProductCreate"]["properties"]["sku"]["maxLength"],
        json!(100)
    );
    assert_eq!(
        schemas["ProductCreate"]["properties"]["notes"]["maxLength"],
        json!(10_000)
    );
    // Every request body is an input schema, so each gets its maxLength.
    let mut bodies = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let body = &op["requestBody"]["content"]["application/json"]["schema"];
            if let Some(r) = body["$ref"].as_str() {
                bodies += 1;
                let name = r.rsplit('/').next().unwrap();
                assert!(
                    stockbook::http::openapi::is_input(name),
                    "{method} {path}: body {name}"
                );
            } else {
                let mut strings = Vec::new();
                input_strings(body, "", &mut strings);
                assert!(strings.is_empty(), "{method} {path}: inline body {body}");
            }
        }
    }
    assert!(bodies > 40, "{bodies} request bodies");
    let mut strings = Vec::new();
    for (name, schema) in schemas {
        if stockbook::http::openapi::is_input(name) {
            input_strings(schema, name, &mut strings);
        }
    }
    assert!(strings.len() > 50, "{}", strings.len());
    for (field, s) in strings {
        let bounded = ["format", "enum", "const", "maxLength"]
            .iter()
            .any(|k| s.get(*k).is_some());
        assert!(bounded || field == "csv", "`{field}` has no maxLength: {s}");
    }
}
