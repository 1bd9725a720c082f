//! The HTTP conventions and the error body (docs/conventions.md): every status of the
//! error catalogue answers `{statusCode, statusMessage, message}`, never Rocket's HTML
//! page, and mutations are JSON only.

use super::common;

use common::*;
use rocket::http::{ContentType, Cookie, Header, Status};
use serde_json::json;

// ---------------------------------------------------------------------------------------
// The JSON-only rule

#[test]
fn mutations_that_are_not_json_are_a_415() {
    let (t, id) = app_with_entity();
    let token = t.session.borrow().clone().unwrap();
    let cookie = || Cookie::new("stockbook_session", token.clone());
    let cases = [
        t.client
            .post("/api/entities")
            .cookie(cookie())
            .header(ContentType::Form)
            .body("name=Evil"),
        t.client
            .post("/api/entities")
            .cookie(cookie())
            .header(ContentType::Plain)
            .body(r#"{"name":"Evil"}"#),
        t.client
            .post("/api/entities")
            .cookie(cookie())
            .body(r#"{"name":"Evil"}"#),
        t.client
            .put("/api/entities")
            .cookie(cookie())
            .header(ContentType::FormData)
            .body(format!(r#"{{"id":"{id}","name":"Evil"}}"#)),
        t.client
            .delete("/api/entities")
            .cookie(cookie())
            .header(ContentType::Text)
            .body(format!(r#"{{"id":"{id}"}}"#)),
        t.client.post("/api/auth/logout").cookie(cookie()),
    ];
    for req in cases {
        let res = body(req.dispatch());
        let msg = assert_error(&res, Status::UnsupportedMediaType);
        assert!(msg.contains("application/json"), "{msg}");
    }
    // Nothing changed, and the session is still alive.
    let (_, list) = t.get("/api/entities");
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["name"], "Acme Ltd");
}

#[test]
fn login_and_signup_are_json_only_too() {
    let t = app();
    let res = body(
        t.client
            .post("/api/auth/signup")
            .header(ContentType::Form)
            .body("email=ann%40example.com&password=correct+horse")
            .dispatch(),
    );
    assert_error(&res, Status::UnsupportedMediaType);
    let res = body(
        t.client
            .post("/api/auth/login")
            .header(ContentType::Form)
            .body("email=ann%40example.com&password=correct+horse")
            .dispatch(),
    );
    assert_error(&res, Status::UnsupportedMediaType);
}

#[test]
fn an_unknown_api_path_is_a_json_404_not_the_web_page() {
    let t = app();
    let res = t.get("/api/no-such-thing");
    let msg = assert_error(&res, Status::NotFound);
    assert!(msg.contains("/api/no-such-thing"), "{msg}");
    let res = t.get("/api/entities/deeper/still");
    assert_error(&res, Status::NotFound);
}

// ---------------------------------------------------------------------------------------
// Every status of the error catalogue, each with the error body (docs/conventions.md#errors)

#[test]
fn malformed_json_is_a_400() {
    let (t, _) = app_with_entity();
    let token = t.session.borrow().clone().unwrap();
    let res = body(
        t.client
            .post("/api/entities")
            .cookie(Cookie::new("stockbook_session", token))
            .header(ContentType::JSON)
            .body(r#"{"name": "Acme""#)
            .dispatch(),
    );
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.starts_with("Malformed JSON"), "{msg}");
}

#[test]
fn a_field_of_the_wrong_type_is_a_400_naming_it() {
    let (t, _) = app_with_entity();
    let res = t.post("/api/entities", json!({ "name": 42 }));
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.contains("`name`"), "{msg}");
    let res = t.post("/api/entities", json!(["not", "an", "object"]));
    assert_error(&res, Status::BadRequest);
}

#[test]
fn a_missing_required_field_is_a_400_with_the_exact_message() {
    let (t, _) = app_with_entity();
    let res = t.post("/api/entities", json!({ "vat_number": "GB123" }));
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "Missing required field: name"
    );
    let res = t.post("/api/entities", json!({ "name": "   " }));
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "Missing required field: name"
    );
    let res = t.post("/api/entities", json!({ "name": null }));
    assert_eq!(
        assert_error(&res, Status::BadRequest),
        "Missing required field: name"
    );
}

#[test]
fn a_malformed_uuid_or_query_value_is_a_400() {
    let (t, _) = app_with_entity();
    let msg = assert_error(
        &t.put("/api/entities", json!({ "id": "nope", "name": "X" })),
        Status::BadRequest,
    );
    assert!(msg.contains("`id`"), "{msg}");
    let msg = assert_error(&t.get("/api/entities?entityId=nope"), Status::BadRequest);
    assert!(msg.contains("entityId"), "{msg}");
    let msg = assert_error(&t.get("/api/entities?limit=many"), Status::BadRequest);
    assert!(msg.contains("limit"), "{msg}");
    assert_error(&t.get("/api/entities?offset=-1"), Status::BadRequest);
}

#[test]
fn forbidden_is_a_403() {
    let t = app_with(&[("signup", json!("first-user"))]);
    t.signup("first@example.com");
    let res = signup_with(&t, json!({"email": "x@example.com", "password": PASSWORD}));
    assert_error(&res, Status::Forbidden);
}

#[test]
fn an_unknown_path_is_a_404() {
    let t = app();
    assert_error(&t.get("/api/nothing-here"), Status::NotFound);
    assert_error(&t.post("/api/nothing-here", json!({})), Status::NotFound);
    // A missing file outside the API is a JSON 404 too, never Rocket's HTML page.
    let res = body(t.client.get("/missing.png").dispatch());
    assert_error(&res, Status::NotFound);
}

#[test]
fn a_known_path_with_the_wrong_method_is_a_405() {
    let t = app();
    t.signup("ann@example.com");
    let msg = assert_error(&t.get("/api/auth/login"), Status::MethodNotAllowed);
    assert!(msg.contains("GET"), "{msg}");
    assert_error(&t.post("/api/health", json!({})), Status::MethodNotAllowed);
    let res = body(
        t.client
            .patch("/api/entities")
            .header(ContentType::JSON)
            .body("{}")
            .dispatch(),
    );
    assert_error(&res, Status::MethodNotAllowed);
}

#[test]
fn a_body_over_the_json_limit_is_a_413() {
    let t = app_with(&[("limits.json", json!("1 KiB"))]);
    t.signup("ann@example.com");
    let res = t.post(
        "/api/entities",
        json!({ "name": "Shop", "padding": "x".repeat(2000) }),
    );
    let msg = assert_error(&res, Status::PayloadTooLarge);
    assert!(msg.contains("limit"), "{msg}");
    assert_eq!(t.get("/api/entities").1["data"], json!([]));
    // Under the limit, the same request works.
    assert_eq!(
        t.post(
            "/api/entities",
            json!({ "name": "Shop", "padding": "x".repeat(500) })
        )
        .0,
        Status::Created
    );
}

#[test]
fn unsupported_media_type_is_a_415() {
    let (t, _) = app_with_entity();
    let token = t.session.borrow().clone().unwrap();
    let res = body(
        t.client
            .post("/api/entities")
            .cookie(Cookie::new("stockbook_session", token))
            .header(ContentType::XML)
            .body("<entity/>")
            .dispatch(),
    );
    assert_error(&res, Status::UnsupportedMediaType);
}

#[test]
fn too_many_requests_is_a_429_with_retry_after() {
    let t = app();
    for _ in 0..10 {
        login_as(&t, "nobody@example.com", "whatever1");
    }
    let (res, retry) = login_as(&t, "nobody@example.com", "whatever1");
    assert_error(&res, Status::TooManyRequests);
    assert!(retry.unwrap().parse::<u64>().unwrap() >= 1);
}

// ---------------------------------------------------------------------------------------
// Constraints: a record still used is a 409 that names it; SQLite's text never reaches a
// client (src/error.rs)

fn created(t: &TestApp, path: &str, body: serde_json::Value) -> String {
    let (s, v) = t.post(path, body);
    assert_eq!(s, Status::Created, "{path}: {v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

#[test]
fn an_expense_category_an_expense_uses_cannot_be_deleted_and_the_answer_says_so() {
    let (t, entity) = app_with_entity();
    let category = created(
        &t,
        "/api/expense-categories",
        json!({ "name": "Software", "entity_id": entity }),
    );
    created(
        &t,
        "/api/expenses",
        json!({ "description": "Editor licence", "amount": 120, "category_id": category,
                "date": "2024-03-01", "entity_id": entity }),
    );
    let msg = assert_error(
        &t.delete("/api/expense-categories", json!({ "id": category })),
        Status::Conflict,
    );
    assert_eq!(
        msg,
        "Expense category is in use by other records and cannot be deleted"
    );
}

#[test]
fn a_product_on_a_draft_invoice_cannot_be_deleted_and_the_answer_says_so() {
    let (t, entity) = app_with_entity();
    let contact = created(
        &t,
        "/api/contacts",
        json!({ "name": "Ann", "entity_id": entity }),
    );
    let (s, v) = t.post(
        "/api/products",
        json!({ "name": "Mug", "sku": "MUG-1", "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let product = v["data"]["id"].as_str().unwrap().to_owned();
    created(
        &t,
        "/api/invoices",
        json!({ "contact_id": contact, "entity_id": entity, "status": "draft",
                "lines": [{ "product_id": product, "quantity": 1, "unit_price": 10 }] }),
    );
    let msg = assert_error(
        &t.delete("/api/products", json!({ "id": product })),
        Status::Conflict,
    );
    assert_eq!(
        msg,
        "Product MUG-1 is used on documents and cannot be deleted; deactivate it instead"
    );
}

#[test]
fn a_location_an_invoice_names_cannot_be_deleted_and_no_sqlite_text_is_sent() {
    let (t, entity) = app_with_entity();
    let contact = created(
        &t,
        "/api/contacts",
        json!({ "name": "Ann", "entity_id": entity }),
    );
    let location = created(
        &t,
        "/api/warehouse-locations",
        json!({ "name": "Back room", "entity_id": entity }),
    );
    created(
        &t,
        "/api/invoices",
        json!({ "contact_id": contact, "entity_id": entity, "location_id": location }),
    );
    let res = t.delete("/api/warehouse-locations", json!({ "id": location }));
    let msg = assert_error(&res, Status::Conflict);
    assert_eq!(msg, "The record is in use by other records");
    assert!(!res.1.to_string().contains("constraint"), "{}", res.1);
}

#[test]
fn the_parameters_that_may_not_be_empty_are_those_the_api_description_types() {
    let t = app();
    let (s, doc) = t.get("/api/openapi.json");
    assert_eq!(s, Status::Ok);
    let rules = stockbook::http::query::NotEmpty::from_openapi(&doc);
    assert_eq!(
        rules.names(),
        [
            "active",
            "asOf",
            "box",
            "dateFrom",
            "dateTo",
            "documentId",
            "entityId",
            "format",
            "from",
            "id",
            "limit",
            "lines",
            "locationId",
            "offset",
            "periodKey",
            "platform",
            "productId",
            "recordId",
            "state",
            "status",
            "to",
            "type",
            "updated_since",
            "userId",
        ]
    );
    // Documented as plain text, so an empty one is no filter (or the route's own rule).
    for free in ["q", "category", "code", "error", "webhookId"] {
        assert!(!rules.contains(free), "{free}");
    }
}

/// docs/conventions.md#request-ids: every answer has its own `Request-Id`, on both APIs,
/// on successes, refusals and the catchers' answers alike.
#[test]
fn every_answer_carries_its_own_request_id() {
    let t = app();
    let mut seen = std::collections::BTreeSet::new();
    for path in [
        "/api/health",
        "/api/nope",
        "/api/products",
        "/api/v1/invoices",
        "/",
    ] {
        for _ in 0..2 {
            let res = t.client.get(path).dispatch();
            let id = res
                .headers()
                .get_one("Request-Id")
                .unwrap_or_else(|| panic!("{path}: no Request-Id"))
                .to_owned();
            assert_eq!(id.len(), 32, "{id}");
            assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
            assert!(seen.insert(id), "{path}: an id used twice");
        }
    }
}

/// docs/conventions.md#errors: a 401 of the public API carries the Bearer challenge; the
/// session API's 401 does not (it is not a bearer API).
#[test]
fn a_public_api_401_carries_a_bearer_challenge() {
    let t = app();
    let res = t.client.get("/api/v1/invoices").dispatch();
    assert_eq!(res.status(), Status::Unauthorized);
    assert_eq!(
        res.headers().get_one("WWW-Authenticate"),
        Some(r#"Bearer realm="stockbook""#)
    );
    let res = t
        .client
        .get("/api/v1/no-such-thing")
        .header(Header::new("Authorization", "Bearer sbk_wrong"))
        .dispatch();
    assert_eq!(res.status(), Status::Unauthorized);
    assert_eq!(
        res.headers().get_one("WWW-Authenticate"),
        Some(r#"Bearer realm="stockbook", error="invalid_token""#)
    );
    let res = t.client.get("/api/products").dispatch();
    assert_eq!(res.status(), Status::Unauthorized);
    assert_eq!(res.headers().get_one("WWW-Authenticate"), None);
}

/// docs/conventions.md#error-codes: each answer's `code` and `field`.
#[test]
fn refusals_carry_a_stable_code_and_the_field_at_fault() {
    let (t, e) = app_with_entity();
    let check =
        |res: (Status, serde_json::Value), status: Status, code: &str, field: Option<&str>| {
            assert_eq!(res.0, status, "{}", res.1);
            assert_eq!(res.1["code"], code, "{}", res.1);
            match field {
                Some(f) => assert_eq!(res.1["field"], f, "{}", res.1),
                None => assert!(res.1.get("field").is_none(), "{}", res.1),
            }
        };
    check(
        t.post("/api/products", json!({ "entity_id": e })),
        Status::BadRequest,
        "missing_field",
        Some("name"),
    );
    check(
        t.post(
            "/api/products",
            json!({ "entity_id": e, "name": "A", "unit_price": "x" }),
        ),
        Status::BadRequest,
        "invalid_value",
        Some("unit_price"),
    );
    check(
        t.post(
            "/api/invoices",
            json!({ "entity_id": e, "contact_id": "nope" }),
        ),
        Status::BadRequest,
        "invalid_value",
        Some("contact_id"),
    );
    let (s, v) = t.post(
        "/api/products",
        json!({ "entity_id": e, "name": "A", "sku": "S-1" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    check(
        t.post(
            "/api/products",
            json!({ "entity_id": e, "name": "B", "sku": "S-1" }),
        ),
        Status::Conflict,
        "duplicate_sku",
        None,
    );
    check(
        t.get("/api/products?entityId=00000000-0000-4000-8000-000000000000"),
        Status::NotFound,
        "not_found",
        None,
    );
    check(
        t.get("/api/nothing-here"),
        Status::NotFound,
        "not_found",
        None,
    );
    let (s, v) = t.post("/api/api-keys", json!({ "name": "k" }));
    assert_eq!(s, Status::Created, "{v}");
    let k = v["data"]["raw_key"].as_str().unwrap().to_owned();
    check(
        t.get_with_key("/api/v1/products?id=1", &k),
        Status::BadRequest,
        "unknown_parameter",
        Some("id"),
    );
    check(
        t.get_with_key("/api/v1/products", "sbk_nope"),
        Status::Unauthorized,
        "unauthorized",
        None,
    );
    let res = t
        .with_session(t.client.post("/api/products"))
        .body("{")
        .header(ContentType::JSON)
        .dispatch();
    let (s, v) = body(res);
    assert_eq!(
        (s, v["code"].as_str()),
        (Status::BadRequest, Some("malformed_json")),
        "{v}"
    );
}

/// Every business refusal's code in the source is listed in docs/conventions.md#error-codes,
/// so an integrator's list is complete.
#[test]
fn every_refusal_code_is_documented() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("docs/conventions.md")).unwrap();
    let mut codes = std::collections::BTreeSet::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for part in text.split("::refused(").skip(1) {
                    let part = part.trim_start();
                    if let Some(rest) = part.strip_prefix('"') {
                        codes.insert(rest[..rest.find('"').unwrap()].to_owned());
                    }
                }
            }
        }
    }
    assert!(codes.len() > 15, "{codes:?}");
    for code in codes {
        assert!(
            docs.contains(&format!("`{code}`")),
            "`{code}` is not in docs/conventions.md"
        );
    }
}
