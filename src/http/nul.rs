//! Text with a NUL character is a 400 everywhere (docs/limits.md#text), the URI
//! included: a query parameter (name or decoded value, on every route, known parameter
//! or not) or a path segment that decodes to one is refused before any route runs.
//!
//! Rocket 0.5 request fairings cannot answer a request, so this one sends a refused
//! request to a path no route serves (nothing runs, no body is read) and replaces the
//! answer with the 400. Attach it before the fairings that add headers to every answer,
//! so that they apply to the 400 too.

use rocket::fairing::{Fairing, Info, Kind};
use rocket::http::uri::Origin;
use rocket::http::Status;
use rocket::{Data, Request, Response};

use crate::error::error_response;
use crate::http::body::NUL_MESSAGE;

/// Where a refused request is routed: a path under `/api` that no route serves.
const REFUSED_PATH: &str = "/api/.refused-nul";

pub fn fairing() -> NulInUri {
    NulInUri
}

pub struct NulInUri;

/// The refusal of this request, if any (request-local).
struct Refused(Option<String>);

#[rocket::async_trait]
impl Fairing for NulInUri {
    fn info(&self) -> Info {
        Info {
            name: "NUL in the URI is a 400",
            kind: Kind::Request | Kind::Response,
        }
    }

    async fn on_request(&self, req: &mut Request<'_>, _: &mut Data<'_>) {
        let Some(message) = refusal(req) else {
            return;
        };
        req.local_cache(|| Refused(Some(message)));
        req.set_uri(Origin::path_only(REFUSED_PATH));
    }

    async fn on_response<'r>(&self, req: &'r Request<'_>, res: &mut Response<'r>) {
        if let Refused(Some(message)) = req.local_cache(|| Refused(None)) {
            *res = error_response(Status::BadRequest, message.clone());
        }
    }
}

/// The 400 message when the request's path or query holds a NUL once decoded.
fn refusal(req: &Request<'_>) -> Option<String> {
    let uri = req.uri();
    if uri.path().segments().any(|s| s.contains('\0')) {
        return Some(format!("Invalid path: a segment {NUL_MESSAGE}"));
    }
    for (name, value) in uri.query()?.segments() {
        if name.contains('\0') {
            return Some(format!(
                "Invalid query string: a parameter name {NUL_MESSAGE}"
            ));
        }
        if value.contains('\0') {
            return Some(format!(
                "Invalid value for query parameter `{name}`: {NUL_MESSAGE}"
            ));
        }
    }
    None
}
