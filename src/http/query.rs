//! The query-string rules every `/api` path shares, checked before any handler runs (for a
//! method and path that a handler serves; any other method is a 405 whatever its query):
//! a parameter given twice is a 400 (which value would count?), and a parameter whose
//! value is an id, a number, a date, a flag or one of a fixed set, as the API's
//! description documents it ([`NotEmpty`]), is a 400 when its value is empty (`entityId=`
//! is not the same as no `entityId`).
//!
//! [`routes`] mounts one catch-all per method at a rank above every handler's; it forwards
//! a request whose query string is well formed, so the check costs one pass over the query
//! and handlers never see such a query string.

use std::collections::BTreeSet;
use std::sync::Arc;

use rocket::http::{Method, RawStr, Status};
use rocket::request::Request;
use rocket::route::{self, Handler, Route};
use rocket::Data;
use serde_json::Value;

use crate::error::AppError;
use crate::http::routing::api_route_matches;

/// Rank of the catch-alls: before every handler (Rocket's default ranks are -12 to -1).
pub const QUERY_CHECK_RANK: isize = -100;

/// The query parameters that are never meaningfully empty, read from the API's own
/// description (the OpenAPI document, `crate::openapi`): a parameter whose documented
/// schema cannot hold an empty string (a UUID, a date, a number, a flag, one of a fixed
/// set, a `minLength`) on any operation. A new parameter is declared once, where it is
/// documented; the others (`q`, `category`, the OAuth provider's `code` and `error`)
/// are documented as plain text and keep their own rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotEmpty(BTreeSet<String>);

impl NotEmpty {
    /// The names of `openapi`'s query parameters whose schema refuses `""`.
    pub fn from_openapi(openapi: &Value) -> Self {
        let operations = openapi["paths"]
            .as_object()
            .into_iter()
            .flat_map(|paths| paths.values())
            .filter_map(Value::as_object)
            .flat_map(|ops| ops.values());
        let names = operations
            .flat_map(|op| op["parameters"].as_array().into_iter().flatten())
            .filter(|p| p["in"] == "query" && refuses_empty(&p["schema"]))
            .filter_map(|p| p["name"].as_str().map(str::to_owned))
            .collect();
        Self(names)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// Every name, in order.
    pub fn names(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }
}

/// Can no value of this JSON schema be the empty string?
fn refuses_empty(schema: &Value) -> bool {
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return false,
    };
    let string_refuses = schema.get("format").is_some()
        || schema["enum"]
            .as_array()
            .is_some_and(|values| !values.contains(&Value::from("")))
        || schema["minLength"].as_u64().is_some_and(|n| n > 0);
    types.iter().all(|t| {
        matches!(*t, "integer" | "number" | "boolean") || (*t == "string" && string_refuses)
    })
}

/// What is wrong with a query string, if anything.
pub fn check(query: Option<&str>, not_empty: &NotEmpty) -> Result<(), AppError> {
    let Some(query) = query else { return Ok(()) };
    let mut seen: Vec<String> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = RawStr::new(raw_name).url_decode_lossy().into_owned();
        if seen.contains(&name) {
            return Err(AppError::invalid(&name, "given more than once"));
        }
        if raw_value.is_empty() && not_empty.contains(&name) {
            return Err(AppError::invalid(&name, "must not be empty"));
        }
        seen.push(name);
    }
    Ok(())
}

/// The catch-all: answers a request whose query string breaks a rule of [`check`] with
/// the 400; forwards any other.
#[derive(Clone)]
struct QueryCheck(Arc<NotEmpty>);

#[rocket::async_trait]
impl Handler for QueryCheck {
    async fn handle<'r>(&self, req: &'r Request<'_>, data: Data<'r>) -> route::Outcome<'r> {
        match check(req.uri().query().map(|q| q.as_str()), &self.0) {
            // Only where a handler serves this method and path: a method the path does
            // not have is a 405 whatever its query string (`http::catchers`).
            Err(e) if api_route_matches(req, |m| m == req.method()) => route::Outcome::from(req, e),
            _ => route::Outcome::forward(data, Status::NotFound),
        }
    }
}

/// The catch-alls, one per method, to mount at `/api`, ranked before every handler;
/// `openapi` is the API's description, which says which parameters may not be empty.
pub fn routes(openapi: &Value) -> Vec<Route> {
    let check = QueryCheck(Arc::new(NotEmpty::from_openapi(openapi)));
    [
        Method::Get,
        Method::Post,
        Method::Put,
        Method::Delete,
        Method::Patch,
    ]
    .into_iter()
    .map(|m| Route::ranked(QUERY_CHECK_RANK, m, "/<_..>", check.clone()))
    .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::NotEmpty;

    fn rules() -> NotEmpty {
        NotEmpty::from_openapi(&json!({ "paths": { "/api/x": { "get": { "parameters": [
            { "name": "entityId", "in": "query", "schema": { "type": "string", "format": "uuid" } },
            { "name": "limit", "in": "query", "schema": { "type": "integer" } },
            { "name": "q", "in": "query", "schema": { "type": "string" } },
            { "name": "category", "in": "query", "schema": { "type": "string" } },
        ] } } } }))
    }

    fn check(q: Option<&str>) -> Result<(), crate::error::AppError> {
        super::check(q, &rules())
    }

    fn message(q: &str) -> String {
        check(Some(q)).unwrap_err().to_string()
    }

    #[test]
    fn a_parameter_documented_as_an_id_number_date_flag_or_choice_may_not_be_empty() {
        let rules = NotEmpty::from_openapi(&json!({ "paths": {
            "/api/a": { "get": { "parameters": [
                { "name": "asOf", "in": "query", "schema": { "type": "string", "format": "date" } },
                { "name": "format", "in": "query", "schema": { "type": "string", "enum": ["json", "csv"] } },
                { "name": "active", "in": "query", "schema": { "type": "boolean" } },
                { "name": "state", "in": "query", "schema": { "type": "string", "minLength": 1 } },
                { "name": "q", "in": "query", "schema": { "type": "string" } },
                { "name": "id", "in": "path", "schema": { "type": "string", "format": "uuid" } },
            ] } },
            "/api/b": { "get": { "parameters": [
                { "name": "limit", "in": "query", "schema": { "type": "string" } },
            ] }, "post": { "parameters": [
                { "name": "limit", "in": "query", "schema": { "type": "integer" } },
            ] } },
        } }));
        assert_eq!(
            rules.names(),
            ["active", "asOf", "format", "limit", "state"]
        );
    }

    #[test]
    fn a_parameter_given_twice_is_refused_even_when_spelled_differently() {
        assert_eq!(
            message("limit=1&limit=2"),
            "Invalid value for field `limit`: given more than once"
        );
        assert_eq!(
            message("entityId=a&entity%49d=b"),
            "Invalid value for field `entityId`: given more than once"
        );
        assert!(check(Some("limit=1&offset=2&q=x")).is_ok());
        assert!(check(None).is_ok());
    }

    #[test]
    fn an_empty_id_number_or_flag_is_refused_but_an_empty_search_is_not() {
        assert_eq!(
            message("entityId="),
            "Invalid value for field `entityId`: must not be empty"
        );
        assert_eq!(
            message("limit"),
            "Invalid value for field `limit`: must not be empty"
        );
        assert!(check(Some("q=&category=")).is_ok());
    }
}
