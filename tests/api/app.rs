//! The application as a whole: health, the web app served from the binary, and the
//! headers every answer carries.

use super::common;

use common::*;
use rocket::http::{ContentType, Status};
use serde_json::json;

#[test]
fn health_answers_without_a_session() {
    let t = app();
    let (s, v) = t.get("/api/health");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"]["status"], "ok");
}

#[test]
fn health_answers_ok_and_the_version_without_a_session() {
    let t = app();
    let (s, v) = t.get("/api/health");
    assert_eq!(s, Status::Ok);
    assert_eq!(
        v,
        json!({ "data": { "status": "ok", "version": env!("CARGO_PKG_VERSION") } })
    );
}

#[test]
fn the_sign_in_page_and_its_script_are_served_from_the_binary() {
    let t = app();
    let res = t.client.get("/").dispatch();
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(res.content_type(), Some(ContentType::HTML));
    let html = res.into_string().unwrap();
    assert!(html.contains("app.js"), "{html}");
    let res = t.client.get("/app.js").dispatch();
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(res.content_type(), Some(ContentType::JavaScript));
    let res = t.client.get("/js/api.js").dispatch();
    assert_eq!(res.status(), Status::Ok);
    let res = t.client.get("/app.css").dispatch();
    assert_eq!(res.content_type(), Some(ContentType::CSS));
}

#[test]
fn security_headers_are_set_on_every_answer() {
    let t = app();
    for path in ["/", "/api/health", "/api/nothing"] {
        let res = t.client.get(path).dispatch();
        assert_eq!(
            res.headers().get_one("X-Content-Type-Options"),
            Some("nosniff"),
            "{path}"
        );
    }
}

#[test]
fn linked_assets_carry_their_content_hash_and_only_those_urls_are_immutable() {
    let t = app();
    let page = t.client.get("/").dispatch();
    assert_eq!(page.headers().get_one("Cache-Control"), Some("no-cache"));
    let etag = page.headers().get_one("ETag").unwrap().to_owned();
    let html = page.into_string().unwrap();
    let at = html.find("href=\"/app.css?v=").expect(&html) + "href=\"".len();
    let url = &html[at..at + html[at..].find('"').unwrap()];
    let versioned = t.client.get(url.to_owned()).dispatch();
    assert_eq!(versioned.status(), Status::Ok);
    assert_eq!(versioned.content_type(), Some(ContentType::CSS));
    assert_eq!(
        versioned.headers().get_one("Cache-Control"),
        Some("public, max-age=31536000, immutable")
    );
    // The same file without its hash, or with another, is revalidated.
    for plain in [
        "/app.css",
        "/app.css?v=0000000000000000",
        "/app.js",
        "/js/api.js",
    ] {
        let res = t.client.get(plain).dispatch();
        assert_eq!(res.status(), Status::Ok, "{plain}");
        assert_eq!(
            res.headers().get_one("Cache-Control"),
            Some("no-cache"),
            "{plain}"
        );
    }
    // The page's ETag is that of the page as sent, and still answers 304.
    let again = t
        .client
        .get("/")
        .header(rocket::http::Header::new("If-None-Match", etag))
        .dispatch();
    assert_eq!(again.status(), Status::NotModified);
}

#[test]
fn every_module_is_content_addressed_through_the_page_import_map_which_the_csp_allows_by_hash() {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let t = app();
    let page = t.client.get("/").dispatch();
    let csp = page
        .headers()
        .get_one("Content-Security-Policy")
        .unwrap()
        .to_owned();
    let html = page.into_string().unwrap();
    let open = r#"<script type="importmap">"#;
    let start = html.find(open).expect(&html) + open.len();
    let map_text = &html[start..start + html[start..].find("</script>").unwrap()];
    // The map comes before the entry module, as import maps must.
    assert!(
        start
            < html
                .find(r#"<script type="module" src="/app.js">"#)
                .unwrap()
    );
    // The policy allows exactly this map's bytes, and still nothing unsafe.
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(map_text));
    assert!(
        csp.contains(&format!("script-src 'self' 'sha256-{hash}'")),
        "{csp}"
    );
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    let map: serde_json::Value = serde_json::from_str(map_text).unwrap();
    let imports = map["imports"].as_object().unwrap();
    // Every module the app imports, statically or as a page, is in the map.
    for module in [
        "/js/api.js",
        "/js/router.js",
        "/js/pages/invoices.js",
        "/js/vocab.js",
    ] {
        let url = imports[module].as_str().expect(module);
        assert!(url.starts_with(&format!("{module}?v=")), "{url}");
        let res = t.client.get(url.to_owned()).dispatch();
        assert_eq!(res.status(), Status::Ok, "{url}");
        assert_eq!(
            res.headers().get_one("Cache-Control"),
            Some("public, max-age=31536000, immutable"),
            "{url}"
        );
    }
    assert!(imports
        .keys()
        .all(|k| k.starts_with("/js/") && k.ends_with(".js")));
}
