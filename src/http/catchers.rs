//! JSON catchers: every failure on every path has the error body
//! (docs/conventions.md#errors), never Rocket's HTML.
//!
//! Rocket 0.5 answers a known path with an unknown method as 404; the 404 catcher looks
//! the path up among the mounted routes and answers 405 when another method serves it,
//! with the `Allow` header listing the methods that do (RFC 9110, section 15.5.6).
//!
//! Every path reaches the asset route last (it matches everything and refuses `api/`), so
//! when the asset route is the last one Rocket tried on an `/api` path, no API handler
//! answered: either none serves the path (404, or 405 when another method does), or the
//! one that does forwarded because a path or query parameter did not parse (400).
//! An `/api/v1` path that no handler answered, asked without an API key, is a 401: the
//! public API never tells an anonymous caller which paths exist.

use rocket::http::{Header, Method, Status};
use rocket::request::Request;
use rocket::response::{self, Responder, Response};
use rocket::{catch, catchers, Catcher};

use crate::error::error_response;
use crate::http::routing::{allowed_methods, api_route_matches};
use crate::http::stash;

pub fn all() -> Vec<Catcher> {
    catchers![default_catcher]
}

pub struct CaughtError(Status);

impl<'r> Responder<'r, 'static> for CaughtError {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        if let Some(e) = stash::take(req) {
            if e.status() == self.0 || self.0 == Status::InternalServerError {
                return e.respond_to(req);
            }
        }
        let unknown = unknown_method(self.0, req);
        let status = if unknown && is_v1(req) && !has_bearer(req) {
            Status::Unauthorized
        } else if unknown {
            Status::MethodNotAllowed
        } else {
            refine(self.0, req)
        };
        let message = match status.code {
            400 | 422 => "Bad request: invalid parameters".to_owned(),
            401 if is_v1(req) => {
                "A valid API key is required: Authorization: Bearer <key>".to_owned()
            }
            401 => "Authentication required".to_owned(),
            403 => "Forbidden".to_owned(),
            404 => format!("Not found: {}", req.uri().path()),
            405 if unknown => format!("This method is not allowed on {}", req.uri().path()),
            405 => format!(
                "Method {} not allowed on {}",
                req.method(),
                req.uri().path()
            ),
            413 => "Request body too large".to_owned(),
            415 => "Request body must be application/json".to_owned(),
            429 => "Too many requests".to_owned(),
            500 => "Internal server error".to_owned(),
            _ => status.reason_lossy().to_owned(),
        };
        // Rocket reports unparsable query values as 422; the interface knows only 400.
        let status = if status.code == 422 {
            Status::BadRequest
        } else {
            status
        };
        if status == Status::InternalServerError {
            let id = crate::request_id::of(req);
            eprintln!(
                "stockbook: request {id}: {} {} answered 500 (a panic or an unhandled failure)",
                req.method(),
                req.uri().path()
            );
        }
        let mut res: Response<'static> = error_response(status, message);
        if status == Status::MethodNotAllowed {
            res.set_header(Header::new("Allow", allowed_methods(req)));
        }
        Ok(res)
    }
}

#[catch(default)]
fn default_catcher(status: Status, _req: &Request<'_>) -> CaughtError {
    CaughtError(status)
}

/// Rocket answers a method it does not know (`QUERY`, `PROPFIND`) with a 400 before any
/// routing, handing the catcher the request salvaged as a GET: a 400 that no route saw,
/// on a path an API route serves, is such a request, and its answer is a 405.
fn unknown_method(status: Status, req: &Request<'_>) -> bool {
    status == Status::BadRequest && req.route().is_none() && api_route_matches(req, |_| true)
}

/// The status a client gets for what Rocket reports as `status` (see the module docs).
fn refine(status: Status, req: &Request<'_>) -> Status {
    // The query check (`http::query`) runs before every handler and the asset route
    // after all of them: when either was the last route tried, no handler answered.
    let unhandled = req.route().is_none_or(|r| {
        r.rank == crate::http::assets::ASSET_RANK || r.rank == crate::http::query::QUERY_CHECK_RANK
    });
    if !unhandled || !matches!(status.code, 404 | 422) {
        return status;
    }
    if is_v1(req) && !has_bearer(req) {
        return Status::Unauthorized;
    }
    if api_route_matches(req, |m| m == req.method()) {
        // A handler for this method and path exists and forwarded: a parameter did not parse.
        return Status::BadRequest;
    }
    if api_route_matches(req, |m| m != req.method() && m != Method::Head) {
        return Status::MethodNotAllowed;
    }
    Status::NotFound
}

fn is_v1(req: &Request<'_>) -> bool {
    let mut segs = req.uri().path().segments();
    segs.next() == Some("api") && segs.next() == Some("v1")
}

fn has_bearer(req: &Request<'_>) -> bool {
    req.headers()
        .get_one("Authorization")
        .and_then(|h| h.strip_prefix("Bearer "))
        .is_some_and(|k| !k.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use rocket::http::Status;
    use rocket::local::blocking::Client;
    use rocket::{get, post, routes};
    use serde_json::Value;

    #[get("/things/<id>?<n>")]
    fn typed(id: u32, n: u32) -> String {
        format!("{id} {n}")
    }

    #[post("/things/<_id>")]
    fn post_thing(_id: u32) {}

    #[get("/maybe")]
    fn maybe() -> Option<String> {
        None
    }

    #[post("/maybe")]
    fn post_maybe() {}

    fn client() -> Client {
        let rocket = rocket::custom(rocket::Config::debug_default())
            .mount("/api", routes![typed, post_thing, maybe, post_maybe])
            .mount("/", crate::http::assets::routes())
            .register("/", super::all());
        Client::untracked(rocket).expect("valid rocket")
    }

    fn status_of(res: rocket::local::blocking::LocalResponse<'_>) -> (Status, Value) {
        let s = res.status();
        let text = res.into_string().unwrap();
        let v: Value = serde_json::from_str(&text).expect(&text);
        assert_eq!(v["statusCode"], s.code);
        (s, v)
    }

    #[test]
    fn a_path_or_query_value_that_does_not_parse_is_a_400_not_a_404_or_405() {
        let c = client();
        assert_eq!(c.get("/api/things/7?n=2").dispatch().status(), Status::Ok);
        let (s, _) = status_of(c.get("/api/things/seven").dispatch());
        assert_eq!(s, Status::BadRequest);
        let (s, _) = status_of(c.get("/api/things/7?n=two").dispatch());
        assert_eq!(s, Status::BadRequest);
    }

    #[test]
    fn a_handlers_own_404_stays_a_404_even_when_another_method_serves_the_path() {
        let (s, _) = status_of(client().get("/api/maybe").dispatch());
        assert_eq!(s, Status::NotFound);
    }

    #[test]
    fn a_known_path_with_another_method_is_a_405() {
        let (s, v) = status_of(client().delete("/api/maybe").dispatch());
        assert_eq!(s, Status::MethodNotAllowed);
        assert_eq!(v["message"], "Method DELETE not allowed on /api/maybe");
    }

    #[test]
    fn a_405_lists_the_methods_that_serve_the_path_in_allow() {
        let c = client();
        let res = c.delete("/api/maybe").dispatch();
        assert_eq!(res.status(), Status::MethodNotAllowed);
        assert_eq!(res.headers().get_one("Allow"), Some("GET, POST"));
        let res = c.put("/api/things/7").dispatch();
        assert_eq!(res.status(), Status::MethodNotAllowed);
        assert_eq!(res.headers().get_one("Allow"), Some("GET, POST"));
        let res = c.get("/api/nothing-here").dispatch();
        assert_eq!(res.status(), Status::NotFound);
        assert_eq!(res.headers().get_one("Allow"), None);
    }

    #[test]
    fn an_unknown_public_api_path_is_a_401_without_a_key() {
        let (s, _) = status_of(client().get("/api/v1/anything").dispatch());
        assert_eq!(s, Status::Unauthorized);
    }
}
