//! The web app in `static/`, embedded in the binary (read from disk in debug builds, so the
//! UI can be edited without rebuilding). Paths under `api/` are never answered here, so
//! the JSON 404 catcher answers them.

use std::borrow::Cow;
use std::path::PathBuf;

use rocket::http::uri::Origin;
use rocket::http::{ContentType, Header};
use rocket::response::{self, Responder, Response};
use rocket::{get, routes, Request, Route};
use rust_embed::RustEmbed;

/// Rank of the asset route: after every API route.
pub const ASSET_RANK: isize = 50;

#[derive(RustEmbed)]
#[folder = "static/"]
struct Static;

pub fn routes() -> Vec<Route> {
    routes![asset]
}

pub struct Asset {
    content_type: ContentType,
    body: Cow<'static, [u8]>,
    etag: String,
    immutable: bool,
}

impl<'r> Responder<'r, 'static> for Asset {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        let etag = format!("\"{}\"", self.etag);
        let mut b = Response::build();
        b.header(Header::new("ETag", etag.clone()));
        b.header(Header::new(
            "Cache-Control",
            if self.immutable {
                "public, max-age=3600"
            } else {
                "no-cache"
            },
        ));
        if req.headers().get_one("If-None-Match") == Some(etag.as_str()) {
            return b.status(rocket::http::Status::NotModified).ok();
        }
        b.header(self.content_type);
        let body = self.body.into_owned();
        b.sized_body(body.len(), std::io::Cursor::new(body)).ok()
    }
}

fn load(path: &str) -> Option<Asset> {
    let file = Static::get(path)?;
    let ext = path.rsplit('.').next().unwrap_or("");
    let content_type = ContentType::from_extension(ext).unwrap_or(ContentType::Binary);
    let etag: String = file.metadata.sha256_hash()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(Asset {
        content_type,
        body: file.data,
        etag,
        immutable: false,
    })
}

#[get("/<path..>", rank = 50)]
fn asset(path: PathBuf, uri: &Origin<'_>) -> Option<Asset> {
    // The request's own first segment decides, before `..` segments are resolved.
    if uri.path().segments().next() == Some("api") {
        return None;
    }
    let p = path.to_string_lossy().replace('\\', "/");
    if p == "api" || p.starts_with("api/") {
        return None;
    }
    if p.is_empty() {
        return load("index.html");
    }
    if let Some(a) = load(&p) {
        return Some(a);
    }
    // Client-side routes (no file extension) get the app shell.
    if !p.rsplit('/').next().unwrap_or("").contains('.') {
        return load("index.html");
    }
    None
}
