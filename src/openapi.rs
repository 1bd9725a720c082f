//! The OpenAPI 3.1 document of both surfaces, served at `GET /api/openapi.json`.
//!
//! Each feature describes its own routes beside its `routes()`: `src/<feature>/openapi.rs`
//! has `operations()` (one [`Operation`] per mounted route: method, path, shape of request
//! and answer, links to the docs headings that hold its rules, its business refusals)
//! and `schemas()` (its records and bodies), built with the helpers of
//! [`crate::http::openapi`]. This module only assembles them, with the document's info,
//! servers, security schemes and the components every feature shares.
//! `tests/api/openapi.rs` compares the operations with the mounted routes in both
//! directions, so the document cannot drift from the server, and checks real answers
//! against the schemas (no undocumented field).

use rocket::serde::json::Json;
use rocket::{get, routes, Route};
use serde_json::{json, Map, Value};

use crate::http::openapi::{
    accept_decimal_strings, component, integer, object, one_of_values, op, operation, string, text,
    uuid, Auth, Operation, Shape,
};

pub fn routes() -> Vec<Route> {
    routes![serve]
}

/// `GET /api/openapi.json`: no session needed.
#[get("/openapi.json")]
fn serve() -> Json<Value> {
    Json(build())
}

/// Every route of the service, one entry per mounted route, feature by feature.
pub fn operations() -> Vec<Operation> {
    let service = vec![
        op(
            "get",
            "/api/health",
            "Service",
            "health",
            "Service status",
            Auth::None,
            Shape::Get("Health"),
        ),
        op(
            "get",
            "/api/openapi.json",
            "Service",
            "openapi",
            "This document",
            Auth::None,
            Shape::Bare("OpenApiDocument"),
        ),
    ];
    [
        service,
        crate::auth::openapi::operations(),
        crate::entities::openapi::operations(),
        crate::members::openapi::operations(),
        crate::audit::openapi::operations(),
        crate::inventory::openapi::operations(),
        crate::accounting::openapi::operations(),
        crate::accounting::payments::openapi::operations(),
        crate::vat_return::openapi::operations(),
        crate::api_keys::openapi::operations(),
        crate::webhooks::openapi::operations(),
        crate::import::openapi::operations(),
        crate::vat_return::openapi::returns_operations(),
        crate::hmrc::openapi::operations(),
        crate::v1::openapi::operations(),
    ]
    .concat()
}

/// The schemas every feature uses: the error body, the generic answers and bodies, and
/// this service's own.
#[rustfmt::skip]
fn shared_schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("Error", object(
            &["statusCode", "statusMessage", "message", "code"],
            vec![
                ("statusCode", integer()),
                ("statusMessage", text("HTTP reason phrase")),
                ("message", text("The cause, naming the field or rule")),
                ("code", json!({ "type": "string", "pattern": "^[a-z][a-z0-9_]*$", "description": "A stable snake_case word for the kind of refusal, e.g. missing_field, invalid_value, unknown_parameter, not_found, insufficient_stock, books_locked, duplicate_sku, in_use (the list: docs/conventions.md#error-codes). New codes may be added; a client treats an unknown one by its status." })),
                ("field", text("The field or query parameter at fault, when one is")),
            ],
        )),
        ("Success", object(&["success"], vec![("success", json!({ "type": "boolean", "const": true }))])),
        ("IdBody", object(&["id"], vec![("id", uuid())])),
        ("EmptyBody", json!({ "type": "object" })),
        ("OpenApiDocument", json!({ "type": "object", "description": "This OpenAPI 3.1 document." })),
        ("Health", object(&["status", "version"], vec![
            ("status", one_of_values(&["ok", "degraded"], "`degraded` while writes are not being saved, or when served read-only")),
            ("reason", text("Why it is degraded (only then): what happened, as the 503 of a write says it")),
            ("version", string()),
        ])),
    ]
}

/// Every schema the operations name.
pub fn schemas() -> Map<String, Value> {
    [
        shared_schemas(),
        crate::auth::openapi::schemas(),
        crate::entities::openapi::schemas(),
        crate::members::openapi::schemas(),
        crate::audit::openapi::schemas(),
        crate::accounting::openapi::schemas(),
        crate::accounting::payments::openapi::schemas(),
        crate::vat_return::openapi::schemas(),
        crate::import::openapi::schemas(),
        crate::api_keys::openapi::schemas(),
        crate::webhooks::openapi::schemas(),
        crate::inventory::openapi::schemas(),
        crate::vat_return::openapi::returns_schemas(),
        crate::v1::openapi::schemas(),
        crate::hmrc::openapi::schemas(),
    ]
    .concat()
    .into_iter()
    .map(|(name, schema)| (name.to_owned(), component(name, schema)))
    .collect()
}

/// The components a request body reaches, directly or through other components: their
/// decimals also take strings (docs/public-api.md#exact-amounts). No component is shared
/// between a request body and an answer (tests/api/openapi.rs checks it), so answers keep
/// plain numbers.
pub fn request_schemas(paths: &Map<String, Value>, schemas: &Map<String, Value>) -> Vec<String> {
    fn reach(v: &Value, schemas: &Map<String, Value>, found: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if let Some(name) = o
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    if !found.iter().any(|f| f == name) {
                        found.push(name.to_owned());
                        if let Some(s) = schemas.get(name) {
                            reach(s, schemas, found);
                        }
                    }
                }
                o.values().for_each(|x| reach(x, schemas, found));
            }
            Value::Array(a) => a.iter().for_each(|x| reach(x, schemas, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for item in paths.values() {
        for op in item.as_object().into_iter().flat_map(|o| o.values()) {
            if let Some(body) = op.get("requestBody") {
                reach(body, schemas, &mut found);
            }
        }
    }
    found
}

/// The whole document.
pub fn build() -> Value {
    let operations = operations();
    let mut paths = Map::new();
    for o in &operations {
        let entry = paths.entry(o.path.to_owned()).or_insert_with(|| json!({}));
        entry[o.method] = operation(o);
    }
    // A storage fault makes health a 503 with its own body, not the error body
    // (docs/operations.md#storage-faults).
    let health = &mut paths["/api/health"]["get"]["responses"];
    health["503"] = json!({
        "description": "Writes are not being saved (a full disk, a read-only or vanished file): `status` is `degraded` and `reason` says why",
        "headers": { "Retry-After": { "$ref": "#/components/headers/Retry-After" } },
        "content": health["200"]["content"].clone(),
    });
    let mut schemas = schemas();
    for name in request_schemas(&paths, &schemas) {
        if let Some(schema) = schemas.get_mut(&name) {
            accept_decimal_strings(schema);
        }
    }
    for op in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|o| o.values_mut())
    {
        if let Some(body) = op.get_mut("requestBody") {
            accept_decimal_strings(body);
        }
    }
    let mut tags: Vec<&str> = Vec::new();
    for o in &operations {
        if !tags.contains(&o.tag) {
            tags.push(o.tag);
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Stockbook",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Inventory and small-business accounting. The session API (/api) is used by the web app with a session cookie; the public API (/api/v1) takes an API key as `Authorization: Bearer <key>` (create one with POST /api/api-keys). Amounts are in pounds sterling, exact decimals carried as JSON numbers. Every error has the body {statusCode, statusMessage, message, code, field?} (`code` a stable word per kind of refusal).",
        },
        "servers": [{ "url": "/" }],
        "tags": tags.iter().map(|t| json!({ "name": t })).collect::<Vec<_>>(),
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "sessionCookie": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": crate::auth::SESSION_COOKIE,
                    "description": "Set by POST /api/auth/login or /api/auth/signup. Mutating requests must be application/json.",
                },
                "bearerKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key (`sbk_` + 40 characters). A key scoped to an entity sees that entity only; an unscoped key sees every entity of its creator. 60 requests per rolling minute per key and endpoint.",
                },
            },
            "headers": {
                "X-RateLimit-Limit": { "description": "Requests allowed per minute for this key and endpoint (60).", "schema": integer() },
                "X-RateLimit-Remaining": { "description": "Requests left in the current window.", "schema": integer() },
                "X-RateLimit-Reset": { "description": "Whole seconds until the oldest counted request leaves the window.", "schema": integer() },
                "Retry-After": { "description": "Seconds to wait before retrying (at least 1).", "schema": integer() },
            },
        },
    })
}
