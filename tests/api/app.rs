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
