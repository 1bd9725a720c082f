//! The query-string rules every `/api` path shares, checked before any handler runs (for a
//! method and path that a handler serves; any other method is a 405 whatever its query):
//! a parameter given twice is a 400 (which value would count?), and a parameter whose
//! value is an id, a number, a date, a flag or one of a fixed set is a 400 when its value
//! is empty (`entityId=` is not the same as no `entityId`).
//!
//! [`routes`] mounts one catch-all per method at a rank above every handler's; its guard
//! forwards a request whose query string is well formed, so the check costs one pass over
//! the query and handlers never see such a query string.

use rocket::http::{RawStr, Status};
use rocket::request::{FromRequest, Outcome, Request};
use rocket::{delete, get, patch, post, put, routes, Route};

use crate::error::AppError;
use crate::http::routing::api_route_matches;

/// Rank of the catch-alls: before every handler (Rocket's default ranks are -12 to -1).
pub const QUERY_CHECK_RANK: isize = -100;

/// Query parameters that are never meaningfully empty. The others (`q`, `category`,
/// the OAuth provider's `code` and `error`) keep their own rules.
const NOT_EMPTY: &[&str] = &[
    "entityId",
    "productId",
    "locationId",
    "limit",
    "offset",
    "type",
    "dateFrom",
    "dateTo",
    "asOf",
    "documentId",
    "format",
    "active",
    "platform",
    "state",
    "id",
    "lines",
];

/// What is wrong with a query string, if anything.
pub fn check(query: Option<&str>) -> Result<(), AppError> {
    let Some(query) = query else { return Ok(()) };
    let mut seen: Vec<String> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = RawStr::new(raw_name).url_decode_lossy().into_owned();
        if seen.contains(&name) {
            return Err(AppError::invalid(&name, "given more than once"));
        }
        if raw_value.is_empty() && NOT_EMPTY.contains(&name.as_str()) {
            return Err(AppError::invalid(&name, "must not be empty"));
        }
        seen.push(name);
    }
    Ok(())
}

/// A request whose query string breaks a rule of [`check`]; forwards otherwise.
pub struct BadQuery(AppError);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for BadQuery {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        match check(req.uri().query().map(|q| q.as_str())) {
            // Only where a handler serves this method and path: a method the path does
            // not have is a 405 whatever its query string (`http::catchers`).
            Err(e) if api_route_matches(req, |m| m == req.method()) => Outcome::Success(Self(e)),
            _ => Outcome::Forward(Status::NotFound),
        }
    }
}

#[get("/<_..>")]
fn refuse_get(bad: BadQuery) -> AppError {
    bad.0
}

#[post("/<_..>")]
fn refuse_post(bad: BadQuery) -> AppError {
    bad.0
}

#[put("/<_..>")]
fn refuse_put(bad: BadQuery) -> AppError {
    bad.0
}

#[delete("/<_..>")]
fn refuse_delete(bad: BadQuery) -> AppError {
    bad.0
}

#[patch("/<_..>")]
fn refuse_patch(bad: BadQuery) -> AppError {
    bad.0
}

/// The catch-alls, to mount at `/api`, ranked before every handler.
pub fn routes() -> Vec<Route> {
    let mut all = routes![
        refuse_get,
        refuse_post,
        refuse_put,
        refuse_delete,
        refuse_patch
    ];
    for r in &mut all {
        r.rank = QUERY_CHECK_RANK;
    }
    all
}

#[cfg(test)]
mod tests {
    use super::check;

    fn message(q: &str) -> String {
        check(Some(q)).unwrap_err().to_string()
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
