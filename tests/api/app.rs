use super::common;

use common::*;
use rocket::http::Status;
use serde_json::json;

#[test]
fn health_answers_without_a_session() {
    let t = app();
    let (s, v) = t.get("/api/health");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"]["status"], "ok");
}

#[test]
fn an_entity_can_be_created_and_listed() {
    let (t, id) = app_with_entity();
    let (s, v) = t.get("/api/entities");
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"][0]["id"], json!(id));
}
