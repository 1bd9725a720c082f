//! The HTTP contract the OpenAPI document promises and Schemathesis checks (issue 11): a
//! query parameter given twice or an empty id is a 400, a known path asked with another
//! method is a 405 that says in `Allow` which methods serve it, and the limits the
//! document states are the server's.

use super::common;

use common::*;
use rocket::http::{Header, Status};
use serde_json::json;

#[test]
fn a_query_parameter_given_twice_is_a_400_on_every_list() {
    let (t, _) = app_with_entity();
    for path in [
        "/api/products?limit=1&limit=2",
        "/api/contacts?offset=0&offset=0",
        "/api/stock-movements?type=sale&type=sale",
        "/api/inventory/alerts?locationId=x&locationId=x",
        "/api/entities?offset=1&offset=2",
    ] {
        let msg = assert_error(&t.get(path), Status::BadRequest);
        assert!(msg.contains("given more than once"), "{path}: {msg}");
    }
    assert_eq!(t.get("/api/products?limit=1&offset=0").0, Status::Ok);
}

#[test]
fn an_empty_entity_id_is_a_400_not_the_absence_of_a_filter() {
    let (t, _) = app_with_entity();
    for path in [
        "/api/contacts?entityId=",
        "/api/products?entityId=",
        "/api/warehouse-stock?productId=",
        "/api/reports/stock-valuation?locationId=",
        "/api/stock-movements?dateFrom=",
        "/api/reports/stock-valuation?asOf=",
        "/api/stock-movements?documentId=",
        "/api/stock-movements?format=",
    ] {
        let msg = assert_error(&t.get(path), Status::BadRequest);
        assert!(msg.contains("must not be empty"), "{path}: {msg}");
    }
    // An empty search is no search.
    assert_eq!(t.get("/api/products?q=&category=").0, Status::Ok);
}

#[test]
fn the_public_api_refuses_a_repeated_parameter_too() {
    let (t, _) = app_with_entity();
    let key = t.post("/api/api-keys", json!({ "name": "k" })).1["data"]["raw_key"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = t.get_with_key("/api/v1/contacts?limit=5&limit=6", &key);
    assert_error(&res, Status::BadRequest);
    assert_eq!(
        t.get_with_key("/api/v1/contacts?limit=5", &key).0,
        Status::Ok
    );
}

#[test]
fn delete_on_a_get_only_path_is_a_405_with_allow_get() {
    let t = app();
    let res = t.client.delete("/api/health").dispatch();
    assert_eq!(res.status(), Status::MethodNotAllowed);
    assert_eq!(res.headers().get_one("Allow"), Some("GET"));
    let (s, v) = body(res);
    assert_eq!(v["statusCode"], json!(s.code));
}

#[test]
fn an_undeclared_method_is_a_405_even_with_a_query_string_the_handlers_would_refuse() {
    let (t, _) = app_with_entity();
    let res = t
        .with_session(
            t.client
                .put("/api/webhooks/deliveries?webhookId=&limit=&offset="),
        )
        .dispatch();
    assert_eq!(res.status(), Status::MethodNotAllowed);
    assert_eq!(res.headers().get_one("Allow"), Some("GET"));
    // The same query on the method that is served is still refused for what it is.
    let msg = assert_error(
        &t.get("/api/webhooks/deliveries?limit="),
        Status::BadRequest,
    );
    assert!(msg.contains("limit"), "{msg}");
}

#[test]
fn an_undeclared_method_on_a_resource_lists_every_method_that_serves_it() {
    let (t, _) = app_with_entity();
    for method in ["TRACE", "OPTIONS", "PATCH"] {
        let m: rocket::http::Method = method.parse().unwrap();
        let res = t.with_session(t.client.req(m, "/api/products")).dispatch();
        assert_eq!(res.status(), Status::MethodNotAllowed, "{method}");
        assert_eq!(
            res.headers().get_one("Allow"),
            Some("GET, POST, PUT, DELETE"),
            "{method}"
        );
    }
}

#[test]
fn a_public_api_path_asked_with_another_method_is_a_405_with_allow() {
    let (t, _) = app_with_entity();
    let key = t.post("/api/api-keys", json!({ "name": "k" })).1["data"]["raw_key"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = t
        .client
        .delete("/api/v1/employees")
        .header(Header::new("Authorization", format!("Bearer {key}")))
        .dispatch();
    assert_eq!(res.status(), Status::MethodNotAllowed);
    assert_eq!(res.headers().get_one("Allow"), Some("GET"));
}

fn openapi(t: &TestApp) -> serde_json::Value {
    t.get("/api/openapi.json").1
}

fn schema<'d>(doc: &'d serde_json::Value, name: &str) -> &'d serde_json::Value {
    &doc["components"]["schemas"][name]
}

fn query_param<'d>(doc: &'d serde_json::Value, path: &str, name: &str) -> &'d serde_json::Value {
    doc["paths"][path]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{path} has no {name}"))
}

#[test]
fn paging_bounds_are_the_documented_ones() {
    let (t, _) = app_with_entity();
    let doc = openapi(&t);
    for path in ["/api/contacts", "/api/v1/contacts"] {
        for name in ["limit", "offset"] {
            let p = query_param(&doc, path, name);
            assert_eq!(p["schema"]["maximum"], json!(i64::MAX), "{path} {name}");
        }
    }
    assert_eq!(
        t.get(&format!("/api/contacts?offset={}", i64::MAX)).0,
        Status::Ok
    );
    assert_eq!(
        t.get(&format!("/api/contacts?limit={}", i64::MAX)).0,
        Status::Ok
    );
    assert_error(
        &t.get("/api/contacts?limit=9223372036854775808"),
        Status::BadRequest,
    );
}

#[test]
fn a_name_the_server_trims_to_nothing_is_refused_and_documented_as_not_blank() {
    let (t, entity) = app_with_entity();
    let doc = openapi(&t);
    let pattern = schema(&doc, "ContactCreate")["properties"]["name"]["pattern"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(pattern.contains(r"\u3000"), "{pattern}");
    for name in ["", "   ", "\t\u{3000}"] {
        let res = t.post(
            "/api/contacts",
            json!({ "name": name, "entity_id": entity }),
        );
        assert_error(&res, Status::BadRequest);
    }
    let res = t.post(
        "/api/contacts",
        json!({ "name": " Acme ", "entity_id": entity }),
    );
    assert_eq!(res.0, Status::Created);
    assert_eq!(res.1["data"]["name"], "Acme");
}

#[test]
fn a_non_negative_amount_is_documented_with_its_minimum_and_refused_below_it() {
    let (t, entity) = app_with_entity();
    let doc = openapi(&t);
    assert_eq!(
        schema(&doc, "ProductCreate")["properties"]["stock_qty"]["minimum"],
        json!(0)
    );
    assert_eq!(
        schema(&doc, "TransferLineInput")["properties"]["quantity"]["exclusiveMinimum"],
        json!(0)
    );
    let res = t.post(
        "/api/products",
        json!({ "name": "Widget", "stock_qty": -1, "entity_id": entity }),
    );
    assert_error(&res, Status::BadRequest);
}

#[test]
fn an_optional_field_sent_as_null_is_documented_as_nullable_and_left_unchanged() {
    let (t, entity) = app_with_entity();
    let doc = openapi(&t);
    assert_eq!(
        schema(&doc, "EntityUpdate")["properties"]["name"]["type"],
        json!(["string", "null"])
    );
    // Unknown fields are ignored: any value (`{}`, issue 30; a NUL is still refused).
    assert_eq!(
        schema(&doc, "EntityUpdate")["additionalProperties"],
        json!({})
    );
    let res = t.put("/api/entities", json!({ "id": entity, "name": null }));
    assert_eq!(res.0, Status::Ok, "{}", res.1);
    assert_eq!(res.1["data"]["name"], "Acme Ltd");
}

#[test]
fn an_integer_field_takes_a_whole_number_written_with_a_zero_fraction() {
    let (t, entity) = app_with_entity();
    let contact = t
        .post("/api/contacts", json!({ "name": "C", "entity_id": entity }))
        .1["data"]["id"]
        .clone();
    let res = t.post(
        "/api/recurring-invoices",
        json!({ "contact_id": contact, "interval": "month", "interval_count": 3.0 }),
    );
    assert_eq!(res.0, Status::Created, "{}", res.1);
    assert_eq!(res.1["data"]["interval_count"], 3);
    let res = t.post(
        "/api/recurring-invoices",
        json!({ "contact_id": contact, "interval": "month", "interval_count": 2.5 }),
    );
    assert_error(&res, Status::BadRequest);
}

#[test]
fn the_oauth_start_documents_its_one_platform_and_refuses_an_empty_one() {
    let (t, entity) = app_with_entity();
    let doc = openapi(&t);
    let p = query_param(&doc, "/api/import/oauth/start", "platform");
    assert_eq!(p["schema"]["enum"], json!(["freeagent"]));
    let res = t.get(&format!(
        "/api/import/oauth/start?platform=&entityId={entity}"
    ));
    assert_error(&res, Status::BadRequest);
}

#[test]
fn the_movement_list_documents_its_csv_answer_and_a_default_location_may_be_blank() {
    let (t, e) = app_with_entity();
    let doc = openapi(&t);
    let ok = &doc["paths"]["/api/stock-movements"]["get"]["responses"]["200"]["content"];
    assert!(ok.get("text/csv").is_some(), "{ok}");
    assert!(ok.get("application/json").is_some(), "{ok}");
    let res = t
        .with_session(t.client.get("/api/stock-movements?format=csv"))
        .dispatch();
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(
        res.content_type().map(|c| c.sub().to_string()),
        Some("csv".into())
    );

    // Blank clears the default location, as the document says (null or blank: none).
    let field = &schema(&doc, "EntityUpdate")["properties"]["default_location_id"];
    assert!(field.to_string().contains("Null or blank"), "{field}");
    let (s, v) = t.put(
        "/api/entities",
        json!({"id": e, "default_location_id": "  "}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["default_location_id"], json!(null));

    // The same for a document's location.
    for name in ["InvoiceCreate", "InvoiceUpdate", "BillCreate", "BillUpdate"] {
        let field = &schema(&doc, name)["properties"]["location_id"];
        assert!(
            field.to_string().contains("Null or blank"),
            "{name}: {field}"
        );
    }
}
