//! JSON catchers: every failure on every path has the §7 body, never Rocket's HTML.
//!
//! Rocket 0.5 answers a known path with an unknown method as 404; the 404 catcher looks
//! the path up among the mounted routes and answers 405 when another method serves it.

use rocket::http::{Method, Status};
use rocket::request::Request;
use rocket::response::{self, Responder, Response};
use rocket::{catch, catchers, Catcher};

use crate::error::error_response;
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
        let status = if self.0 == Status::NotFound && other_method_matches(req) {
            Status::MethodNotAllowed
        } else {
            self.0
        };
        let message = match status.code {
            400 | 422 => "Bad request: invalid parameters".to_owned(),
            401 => "Authentication required".to_owned(),
            403 => "Forbidden".to_owned(),
            404 => format!("Not found: {}", req.uri().path()),
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
        let res: Response<'static> = error_response(status, message);
        Ok(res)
    }
}

#[catch(default)]
fn default_catcher(status: Status, _req: &Request<'_>) -> CaughtError {
    CaughtError(status)
}

fn other_method_matches(req: &Request<'_>) -> bool {
    let path = req.uri().path();
    let segs: Vec<&str> = path.segments().collect();
    req.rocket().routes().any(|r| {
        r.method != req.method()
            && r.method != Method::Head
            && r.rank < crate::http::assets::ASSET_RANK
            && !r.uri.path().ends_with("..>")
            && route_matches(r.uri.path(), &segs)
    })
}

/// Does a route path pattern (`/api/x/<id>`) match these request path segments?
pub fn route_matches(pattern: &str, segs: &[&str]) -> bool {
    let pat: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let mut i = 0;
    for p in &pat {
        if p.starts_with('<') && p.ends_with("..>") {
            return true;
        }
        match segs.get(i) {
            None => return false,
            Some(s) => {
                if !(p.starts_with('<') || p == s) {
                    return false;
                }
            }
        }
        i += 1;
    }
    i == segs.len()
}
