//! Which API routes serve a request's path: the lookup behind the 405 answers and their
//! `Allow` header (`http::catchers`, the public API's fallback) and behind the query check
//! (`http::query`), which only refuses a query string where a handler would have seen it.
//! A leaf: it knows the routes Rocket mounted and the asset route's rank, nothing else.

use rocket::http::Method;
use rocket::request::Request;

use crate::http::assets::ASSET_RANK;

/// The `Allow` value of a 405: the methods of the API routes that serve the request's
/// path, in a fixed order (`GET, POST, PUT, DELETE, PATCH`).
pub fn allowed_methods(req: &Request<'_>) -> String {
    const ORDER: [Method; 5] = [
        Method::Get,
        Method::Post,
        Method::Put,
        Method::Delete,
        Method::Patch,
    ];
    ORDER
        .iter()
        .filter(|m| api_route_matches(req, |r| r == **m))
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Is there an API route (not the asset route, not a catch-all) for this path with a
/// method `m` accepts?
pub fn api_route_matches(req: &Request<'_>, m: impl Fn(Method) -> bool) -> bool {
    let path = req.uri().path();
    let segs: Vec<&str> = path.segments().collect();
    req.rocket().routes().any(|r| {
        m(r.method)
            && r.rank < ASSET_RANK
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
