//! `Request-Id` (docs/conventions.md#request-ids): every answer carries a fresh,
//! time-ordered id for its request, and every line the server logs while answering it
//! names the same id, so an integrator quoting the header finds the log lines.

use rocket::fairing::AdHoc;
use rocket::http::Header;
use rocket::Request;

/// The id of one request, made the first time it is asked for.
pub struct RequestId(String);

/// This request's id.
pub fn of<'r>(req: &'r Request<'_>) -> &'r str {
    &req.local_cache(|| RequestId(uuid::Uuid::now_v7().simple().to_string()))
        .0
}

/// Sets `Request-Id` on every answer.
pub fn fairing() -> AdHoc {
    AdHoc::on_response("request id", |req, res| {
        Box::pin(async move {
            res.set_header(Header::new("Request-Id", of(req).to_owned()));
        })
    })
}
