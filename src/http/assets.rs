//! The web app in `static/`, embedded in the binary (read from disk in debug builds, so the
//! UI can be edited without rebuilding). Paths under `api/` are never answered here, so
//! the JSON 404 catcher answers them.
//!
//! Caching: a file asked for with `?v=<its content hash>` is content-addressed (another
//! content has another URL), so it is served `immutable` for a year; anything else,
//! `index.html` first, is `no-cache` (revalidated with its `ETag`). `index.html` names the
//! files it links that way (`href="/app.css"` is served as `href="/app.css?v=…"`), so a
//! deploy that changes one changes the page's URL for it. The entry script keeps its plain
//! URL (`/app.js`) and revalidates; every module under `js/` is content-addressed through
//! an import map in the page ([`import_map`]): each import, static or dynamic, resolves to
//! `/js/<file>` and the map sends it to `/js/<file>?v=…`, so every module keeps one URL
//! (one instance) and a deploy changes the URL of exactly the modules that changed. The
//! map is the page's only inline script; the Content-Security-Policy allows it by its
//! hash ([`import_map_csp_source`]), not by `unsafe-inline`.

use std::borrow::Cow;
use std::path::PathBuf;

use rocket::http::uri::Origin;
use rocket::http::{ContentType, Header};
use rocket::response::{self, Responder, Response};
use rocket::{get, routes, Request, Route};
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};

/// Rank of the asset route: after every API route.
pub const ASSET_RANK: isize = 50;

/// The `Cache-Control` of a content-addressed file.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

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
                IMMUTABLE
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

/// A file's content hash: the first 8 bytes of its SHA-256, in hex. Its `ETag`, and the
/// `v` of its content-addressed URL.
fn hash_of(file: &rust_embed::EmbeddedFile) -> String {
    hex(&file.metadata.sha256_hash()[..8])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `path`, served `immutable` when `version` is its content hash.
fn load(path: &str, version: Option<&str>) -> Option<Asset> {
    if path == "index.html" {
        return index();
    }
    let file = Static::get(path)?;
    let ext = path.rsplit('.').next().unwrap_or("");
    let content_type = ContentType::from_extension(ext).unwrap_or(ContentType::Binary);
    let etag = hash_of(&file);
    Some(Asset {
        content_type,
        body: file.data,
        immutable: version == Some(etag.as_str()),
        etag,
    })
}

/// The import map of the page: `{"imports": {"/js/a.js": "/js/a.js?v=<hash>", ...}}`
/// for every module under `js/`, in path order.
pub fn import_map() -> String {
    let mut imports = serde_json::Map::new();
    let mut paths: Vec<_> = Static::iter()
        .filter(|p| p.starts_with("js/") && p.ends_with(".js"))
        .collect();
    paths.sort();
    for path in paths {
        if let Some(f) = Static::get(&path) {
            imports.insert(
                format!("/{path}"),
                format!("/{path}?v={}", hash_of(&f)).into(),
            );
        }
    }
    serde_json::json!({ "imports": imports }).to_string()
}

/// The CSP source that allows the page's import map and nothing else inline:
/// `'sha256-<base64 of the map's SHA-256>'`.
pub fn import_map_csp_source() -> String {
    use base64::Engine;
    let digest = Sha256::digest(import_map().as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// Where the import map goes: before the first module script, as import maps must.
const MODULE_SCRIPT: &str = "<script type=\"module\"";

/// `index.html`, with every `src="/x"` or `href="/x"` that names an embedded file given its
/// content hash (`/x?v=…`), except the entry script (see the module docs). Its `ETag` is
/// the hash of what is sent, so it changes when a linked file does.
fn index() -> Option<Asset> {
    let file = Static::get("index.html")?;
    let html = String::from_utf8_lossy(&file.data);
    let html = match html.find(MODULE_SCRIPT) {
        Some(at) => Cow::Owned(format!(
            "{}<script type=\"importmap\">{}</script>\n  {}",
            &html[..at],
            import_map(),
            &html[at..]
        )),
        None => html,
    };
    let mut out = String::with_capacity(html.len() + 64);
    let mut rest: &str = &html;
    while let Some(at) = rest.find("=\"/") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let end = after.find('"').unwrap_or(after.len());
        let path = &after[..end];
        out.push_str(path);
        let linked = before.ends_with(" src=\"/") || before.ends_with(" href=\"/");
        if linked && path != ENTRY_SCRIPT && !path.contains(['?', '#']) {
            if let Some(f) = Static::get(path).filter(|_| !path.is_empty()) {
                out.push_str("?v=");
                out.push_str(&hash_of(&f));
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    let etag = hex(&Sha256::digest(out.as_bytes())[..8]);
    Some(Asset {
        content_type: ContentType::HTML,
        body: Cow::Owned(out.into_bytes()),
        etag,
        immutable: false,
    })
}

/// The page's module script: its imports are relative to its URL, and a module is one
/// instance per URL, so it keeps one plain URL.
const ENTRY_SCRIPT: &str = "app.js";

/// The `v` of a query string (`?v=<hash>`), if given.
fn version<'a>(uri: &'a Origin<'_>) -> Option<&'a str> {
    uri.query()?
        .as_str()
        .split('&')
        .find_map(|pair| pair.strip_prefix("v="))
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
        return index();
    }
    if let Some(a) = load(&p, version(uri)) {
        return Some(a);
    }
    // Client-side routes (no file extension) get the app shell.
    if !p.rsplit('/').next().unwrap_or("").contains('.') {
        return index();
    }
    None
}
