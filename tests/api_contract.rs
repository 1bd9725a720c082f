//! The HTTP contract the OpenAPI document promises and Schemathesis checks (issue 11): a
//! query parameter given twice or an empty id is a 400, a known path asked with another
//! method is a 405 that says in `Allow` which methods serve it, and the limits the
//! document states are the server's.

mod common;

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
