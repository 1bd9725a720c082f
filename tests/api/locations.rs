//! Warehouse locations (docs/inventory.md#locations): required fields and statuses, delete refused
//! while anything uses the location, and another user's location is not found.

use super::common;

use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::json;

#[test]
fn a_location_needs_a_name_and_an_entity_and_a_valid_status() {
    let (t, e) = app_with_entity();
    let r = t.post("/api/warehouse-locations", json!({"name": "Main"}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: entity_id"
    );
    let r = t.post("/api/warehouse-locations", json!({"entity_id": e}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: name"
    );
    let r = t.post(
        "/api/warehouse-locations",
        json!({"name": "M", "entity_id": uuid::Uuid::new_v4()}),
    );
    assert_error(&r, Status::NotFound);
    let r = t.post(
        "/api/warehouse-locations",
        json!({"name": "M", "entity_id": e, "status": "closed"}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("status"));
    let (s, v) = t.post(
        "/api/warehouse-locations",
        json!({"name": "Main", "entity_id": e, "address": "1 High St"}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["status"], "active");
    assert_eq!(v["data"]["address"], "1 High St");
    let id = v["data"]["id"].clone();
    let r = t.put(
        "/api/warehouse-locations",
        json!({"id": id, "status": "paused"}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("status"));
    let (s, v) = t.put(
        "/api/warehouse-locations",
        json!({"id": id, "status": "inactive"}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["status"], "inactive");
    assert_eq!(v["data"]["name"], "Main");
    let (_, list) = t.get("/api/warehouse-locations");
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}

#[test]
fn a_location_in_use_cannot_be_deleted() {
    let (t, e) = app_with_entity();
    let p = product(&t, &e, "A");
    let del = |id: &str| t.delete("/api/warehouse-locations", json!({"id": id}));
    // A stock row alone (no movement) is a use.
    let rowed = location(&t, &e, "Rowed");
    t.post(
        "/api/warehouse-stock",
        json!({"product_id": p, "location_id": rowed, "reorder_point": 1}),
    );
    assert!(assert_error(&del(&rowed), Status::Conflict).contains("Rowed"));
    let moved_at = location(&t, &e, "Moved");
    moved(&t, &p, Some(&moved_at), "purchase", json!(1));
    assert_error(&del(&moved_at), Status::Conflict);
    let src = location(&t, &e, "Source");
    let dst = location(&t, &e, "Destination");
    insert_transfer_order(&t, &e, &src, &dst, "draft", &[(&p, 1)]);
    assert_error(&del(&src), Status::Conflict);
    assert_error(&del(&dst), Status::Conflict);
    let free = location(&t, &e, "Free");
    let (s, v) = del(&free);
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"], json!({"success": true}));
    let (_, list) = t.get("/api/warehouse-locations");
    assert_eq!(list["data"].as_array().unwrap().len(), 4);
    assert_error(&del(&free), Status::NotFound);
}

#[test]
fn another_users_location_is_not_found() {
    let (t, e) = app_with_entity();
    let l = location(&t, &e, "Main");
    t.signup("intruder@example.com");
    assert_error(
        &t.put(
            "/api/warehouse-locations",
            json!({"id": l, "status": "inactive"}),
        ),
        Status::NotFound,
    );
    assert_error(
        &t.delete("/api/warehouse-locations", json!({"id": l})),
        Status::NotFound,
    );
    assert_error(
        &t.get(&format!("/api/warehouse-locations?entityId={e}")),
        Status::NotFound,
    );
    t.login("owner@example.com");
    let (_, list) = t.get("/api/warehouse-locations");
    assert_eq!(list["data"][0]["status"], "active");
}
