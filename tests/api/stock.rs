//! `/api/warehouse-stock` (docs/inventory.md#stock-rows, docs/conventions.md#answers,
//! docs/ledger.md#invariants): the upsert rule, quantity edits through the ledger, inactive
//! locations, reserved quantity, the list filters.

use super::common;

use common::invariants::{check_invariants, dec};
use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

/// An app with an entity, a product `Widget` and an active location `Main`.
fn setup() -> (TestApp, String, String, String) {
    let (t, e) = app_with_entity();
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    (t, e, p, l)
}

fn upsert(t: &TestApp, body: Value) -> (Status, Value) {
    t.post("/api/warehouse-stock", body)
}

fn rows(t: &TestApp, query: &str) -> Vec<Value> {
    let (s, v) = t.get(&format!("/api/warehouse-stock{query}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

#[test]
fn a_first_upsert_creates_the_row_with_201_and_records_an_adjustment() {
    let (t, e, p, l) = setup();
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 12}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let row = &v["data"];
    assert!(row["id"].is_string());
    assert_eq!(
        row["product_id"],
        json!({"id": p, "name": "Widget", "sku": "SKU-00001"})
    );
    assert_eq!(row["location_id"], json!({"id": l, "name": "Main"}));
    assert_eq!(row["quantity"], json!(12));
    assert_eq!(row["reorder_point"], json!(0));
    assert_eq!(row["reserved_quantity"], json!(0));
    assert_eq!(row["entity_id"], json!(e));
    let list = movements(&t, "");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["type"], "adjustment");
    assert_eq!(list[0]["location_id"], json!(l));
    assert_eq!(dec(&list[0]["qty"]), d("12"));
    assert_eq!(stock_qty(&t, &p), d("12"));
    assert_eq!(rows(&t, "")[0], *row);
    check_invariants(&t);
}

#[test]
fn a_second_upsert_updates_the_same_row_with_200_and_records_the_difference() {
    let (t, _e, p, l) = setup();
    let (_, first) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 12}),
    );
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 8, "reorder_point": 3}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["id"], first["data"]["id"]);
    assert_eq!(v["data"]["quantity"], json!(8));
    assert_eq!(v["data"]["reorder_point"], json!(3));
    assert_eq!(rows(&t, "").len(), 1, "no duplicate row");
    let list = movements(&t, "");
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["type"], "adjustment");
    assert_eq!(dec(&list[0]["qty"]), d("-4"));
    // The same quantity again is no change: no movement; a reorder point alone neither.
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 8}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "reorder_point": 1.5}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["reorder_point"], json!(1.5));
    assert_eq!(v["data"]["quantity"], json!(8));
    assert_eq!(movements(&t, "").len(), 2);
    assert_eq!(stock_qty(&t, &p), d("8"));
    check_invariants(&t);
}

#[test]
fn an_upsert_of_a_row_made_by_a_movement_updates_it() {
    let (t, _e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(5));
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 7.5}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["quantity"], json!(7.5));
    assert_eq!(dec(&movements(&t, "")[0]["qty"]), d("2.5"));
    check_invariants(&t);
}

#[test]
fn an_upsert_without_quantity_creates_an_empty_row_and_no_movement() {
    let (t, _e, p, l) = setup();
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "reorder_point": 4}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["quantity"], json!(0));
    assert_eq!(v["data"]["reorder_point"], json!(4));
    assert!(movements(&t, "").is_empty());
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 0}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert!(movements(&t, "").is_empty());
    check_invariants(&t);
}

#[test]
fn reorder_points_and_reservations_must_not_be_negative() {
    let (t, _e, p, l) = setup();
    let r = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 5, "reorder_point": -1}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("reorder_point"));
    assert!(rows(&t, "").is_empty());
    assert!(movements(&t, "").is_empty());
    let (_, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 5}),
    );
    let id = v["data"]["id"].clone();
    let r = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "reorder_point": -0.5, "quantity": 9}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("reorder_point"));
    let r = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "reserved_quantity": -1}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("reserved_quantity"));
    let r = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "quantity": 1.0001}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("quantity"));
    let row = stock_row(&t, &p, &l).unwrap();
    assert_eq!(row["quantity"], json!(5));
    assert_eq!(row["reorder_point"], json!(0));
    assert_eq!(row["reserved_quantity"], json!(0));
    assert_eq!(movements(&t, "").len(), 1);
}

#[test]
fn product_and_location_of_different_entities_are_refused() {
    let (t, e, p, l) = setup();
    let other = t.entity("Other Ltd");
    let far = location(&t, &other, "Far");
    let r = upsert(
        &t,
        json!({"product_id": p, "location_id": far, "quantity": 1}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("location_id"));
    let r = upsert(&t, json!({"product_id": p, "location_id": far}));
    assert_error(&r, Status::BadRequest);
    let r = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 1, "entity_id": other}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("entity_id"));
    let r = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 1, "entity_id": uuid::Uuid::new_v4()}),
    );
    assert_error(&r, Status::NotFound);
    assert!(rows(&t, "").is_empty());
    assert!(movements(&t, "").is_empty());
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 1, "entity_id": e}),
    );
    assert_eq!(s, Status::Created, "{v}");
}

#[test]
fn a_product_without_entity_cannot_be_stocked_at_an_entitys_location() {
    let (t, _e, _p, l) = setup();
    let (s, v) = t.post("/api/products", json!({"name": "Loose"}));
    assert_eq!(s, Status::Created, "{v}");
    let loose = v["data"]["id"].as_str().unwrap().to_owned();
    let r = upsert(
        &t,
        json!({"product_id": loose, "location_id": l, "quantity": 1}),
    );
    assert_error(&r, Status::BadRequest);
    let r = movement(&t, &loose, Some(&l), "purchase", json!(1));
    assert_error(&r, Status::BadRequest);
    assert!(rows(&t, "").is_empty());
}

#[test]
fn missing_malformed_unknown_and_foreign_ids_are_refused() {
    let (t, e, p, l) = setup();
    let r = upsert(&t, json!({"location_id": l}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: product_id"
    );
    let r = upsert(&t, json!({"product_id": p}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: location_id"
    );
    let r = upsert(&t, json!({"product_id": "x", "location_id": l}));
    assert!(assert_error(&r, Status::BadRequest).contains("product_id"));
    let r = upsert(&t, json!({"product_id": p, "location_id": "x"}));
    assert!(assert_error(&r, Status::BadRequest).contains("location_id"));
    let unknown = uuid::Uuid::new_v4().to_string();
    assert_error(
        &upsert(&t, json!({"product_id": unknown, "location_id": l})),
        Status::NotFound,
    );
    assert_error(
        &upsert(&t, json!({"product_id": p, "location_id": unknown})),
        Status::NotFound,
    );
    let r = t.put("/api/warehouse-stock", json!({"quantity": 1}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: id"
    );
    let r = t.put("/api/warehouse-stock", json!({"id": "x", "quantity": 1}));
    assert!(assert_error(&r, Status::BadRequest).contains("id"));
    assert_error(
        &t.put(
            "/api/warehouse-stock",
            json!({"id": unknown, "quantity": 1}),
        ),
        Status::NotFound,
    );

    let (_, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 4}),
    );
    let row_id = v["data"]["id"].clone();
    t.signup("intruder@example.com");
    let e2 = t.entity("Intruder Ltd");
    let mine = product(&t, &e2, "Mine");
    let here = location(&t, &e2, "Here");
    assert_error(
        &upsert(&t, json!({"product_id": p, "location_id": here})),
        Status::NotFound,
    );
    assert_error(
        &upsert(&t, json!({"product_id": mine, "location_id": l})),
        Status::NotFound,
    );
    assert_error(
        &t.put("/api/warehouse-stock", json!({"id": row_id, "quantity": 0})),
        Status::NotFound,
    );
    assert_error(
        &t.put(
            "/api/warehouse-stock",
            json!({"id": row_id, "reorder_point": 1}),
        ),
        Status::NotFound,
    );
    assert!(rows(&t, "").is_empty(), "the intruder sees no rows");
    for q in [
        format!("productId={p}"),
        format!("locationId={l}"),
        format!("entityId={e}"),
    ] {
        assert_error(
            &t.get(&format!("/api/warehouse-stock?{q}")),
            Status::NotFound,
        );
    }
    t.login("owner@example.com");
    let row = stock_row(&t, &p, &l).unwrap();
    assert_eq!(row["quantity"], json!(4));
    assert_eq!(row["reorder_point"], json!(0));
}

#[test]
fn setting_a_quantity_below_zero_is_refused_as_insufficient_stock() {
    let (t, _e, p, l) = setup();
    let (_, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 5}),
    );
    let r = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": -3, "reorder_point": 2}),
    );
    let msg = assert_error(&r, Status::Conflict);
    assert!(
        msg.starts_with("Insufficient stock at Main: SKU-00001"),
        "{msg}"
    );
    let r = t.put(
        "/api/warehouse-stock",
        json!({"id": v["data"]["id"], "quantity": -1}),
    );
    assert_error(&r, Status::Conflict);
    let row = stock_row(&t, &p, &l).unwrap();
    assert_eq!(row["quantity"], json!(5));
    assert_eq!(
        row["reorder_point"],
        json!(0),
        "a refused upsert keeps nothing"
    );
    assert_eq!(movements(&t, "").len(), 1);

    let t = app_with(&[("allow_negative_stock", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": -3}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["quantity"], json!(-3));
    check_invariants(&t);
}

#[test]
fn an_inactive_location_refuses_quantity_changes_but_not_reorder_points() {
    let (t, e, p, l) = setup();
    let (_, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 5}),
    );
    let id = v["data"]["id"].clone();
    let q = product(&t, &e, "Gadget");
    set_location_status(&t, &l, "inactive");

    let msg = assert_error(
        &upsert(
            &t,
            json!({"product_id": p, "location_id": l, "quantity": 7, "reorder_point": 9}),
        ),
        Status::Conflict,
    );
    assert!(msg.contains("Main") && msg.contains("inactive"), "{msg}");
    assert_error(
        &t.put(
            "/api/warehouse-stock",
            json!({"id": id, "quantity": 2, "reorder_point": 9}),
        ),
        Status::Conflict,
    );
    assert_error(
        &upsert(
            &t,
            json!({"product_id": q, "location_id": l, "quantity": 1}),
        ),
        Status::Conflict,
    );
    assert!(
        stock_row(&t, &q, &l).is_none(),
        "a refused upsert creates no row"
    );
    let row = stock_row(&t, &p, &l).unwrap();
    assert_eq!(row["quantity"], json!(5));
    assert_eq!(row["reorder_point"], json!(0));
    assert_eq!(movements(&t, "").len(), 1);

    // Not a stock change: allowed.
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "reorder_point": 2}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["reorder_point"], json!(2));
    let (s, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 5, "reorder_point": 3}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let (s, v) = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "reorder_point": 4, "reserved_quantity": 1}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["reorder_point"], json!(4));
    assert_eq!(v["data"]["reserved_quantity"], json!(1));
    let (s, v) = upsert(
        &t,
        json!({"product_id": q, "location_id": l, "reorder_point": 1}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(movements(&t, "").len(), 1);

    set_location_status(&t, &l, "active");
    let (s, v) = t.put("/api/warehouse-stock", json!({"id": id, "quantity": 2}));
    assert_eq!(s, Status::Ok, "{v}");
    check_invariants(&t);
}

#[test]
fn put_returns_the_whole_row_and_sets_quantity_through_the_ledger() {
    let (t, e, p, l) = setup();
    let (_, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 5}),
    );
    let id = v["data"]["id"].clone();
    let (s, v) = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "quantity": 3.5, "reorder_point": 2, "reserved_quantity": 0.5}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        v["data"],
        json!({
            "id": id,
            "product_id": {"id": p, "name": "Widget", "sku": "SKU-00001"},
            "location_id": {"id": l, "name": "Main"},
            "quantity": 3.5,
            "reorder_point": 2,
            "reserved_quantity": 0.5,
            "entity_id": e,
            // When it last changed (docs/public-api.md#incremental-sync).
            "updated_at": v["data"]["updated_at"].as_str().filter(|t| t.ends_with('Z')).expect("a UTC time"),
        })
    );
    let list = movements(&t, "");
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["type"], "adjustment");
    assert_eq!(list[0]["location_id"], json!(l));
    assert_eq!(dec(&list[0]["qty"]), d("-1.5"));
    assert_eq!(stock_qty(&t, &p), d("3.5"));
    // Fields left out stay as they are.
    let (s, v) = t.put("/api/warehouse-stock", json!({"id": id}));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["quantity"], json!(3.5));
    assert_eq!(v["data"]["reserved_quantity"], json!(0.5));
    assert_eq!(movements(&t, "").len(), 2);
    check_invariants(&t);
}

#[test]
fn a_reservation_below_what_in_transit_orders_hold_is_refused() {
    let (t, e, p, a) = setup();
    let b = location(&t, &e, "Back");
    let q = product(&t, &e, "Gadget");
    let (_, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": a, "quantity": 20}),
    );
    let id = v["data"]["id"].clone();
    upsert(
        &t,
        json!({"product_id": p, "location_id": b, "quantity": 20}),
    );
    // Held from A for Widget: 3 + 1 (two in-transit orders). Not counted: a draft order,
    // a completed one, an in-transit order from B, and another product.
    insert_transfer_order(&t, &e, &a, &b, "in_transit", &[(&p, 3), (&q, 50)]);
    insert_transfer_order(&t, &e, &a, &b, "in_transit", &[(&p, 1)]);
    insert_transfer_order(&t, &e, &a, &b, "draft", &[(&p, 100)]);
    insert_transfer_order(&t, &e, &a, &b, "completed", &[(&p, 100)]);
    insert_transfer_order(&t, &e, &b, &a, "in_transit", &[(&p, 100)]);

    let r = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "reserved_quantity": 3.999, "reorder_point": 7}),
    );
    let msg = assert_error(&r, Status::Conflict);
    assert!(
        msg.contains("reserved_quantity") && msg.contains("SKU-00001") && msg.contains('4'),
        "{msg}"
    );
    let row = stock_row(&t, &p, &a).unwrap();
    assert_eq!(row["reserved_quantity"], json!(0));
    assert_eq!(
        row["reorder_point"],
        json!(0),
        "a refused PUT keeps nothing"
    );
    let (s, v) = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "reserved_quantity": 4}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["reserved_quantity"], json!(4));
    let (s, v) = t.put(
        "/api/warehouse-stock",
        json!({"id": id, "reserved_quantity": 6}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["reserved_quantity"], json!(6));
}

#[test]
fn the_list_filters_by_product_location_and_entity_and_pages() {
    let (t, e1) = app_with_entity();
    let e2 = t.entity("Other Ltd");
    let widget = product(&t, &e1, "widget");
    let anvil = product(&t, &e1, "Anvil");
    let far_p = product(&t, &e2, "Far product");
    let main = location(&t, &e1, "Main");
    let back = location(&t, &e1, "back");
    let far = location(&t, &e2, "Far");
    for (p, l) in [
        (&widget, &main),
        (&anvil, &main),
        (&widget, &back),
        (&anvil, &back),
        (&far_p, &far),
    ] {
        let (s, v) = upsert(
            &t,
            json!({"product_id": p, "location_id": l, "quantity": 1}),
        );
        assert_eq!(s, Status::Created, "{v}");
    }
    let pairs = |q: &str| -> Vec<(String, String)> {
        rows(&t, q)
            .iter()
            .map(|r| {
                (
                    r["location_id"]["name"].as_str().unwrap().to_owned(),
                    r["product_id"]["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let p = |l: &str, n: &str| (l.to_owned(), n.to_owned());
    // By location name, then product name, ignoring case.
    assert_eq!(
        pairs(""),
        vec![
            p("back", "Anvil"),
            p("back", "widget"),
            p("Far", "Far product"),
            p("Main", "Anvil"),
            p("Main", "widget"),
        ]
    );
    assert_eq!(
        pairs(&format!("?productId={widget}")),
        vec![p("back", "widget"), p("Main", "widget")]
    );
    assert_eq!(
        pairs(&format!("?locationId={main}")),
        vec![p("Main", "Anvil"), p("Main", "widget")]
    );
    assert_eq!(
        pairs(&format!("?entityId={e2}")),
        vec![p("Far", "Far product")]
    );
    assert_eq!(
        pairs(&format!(
            "?entityId={e1}&productId={anvil}&locationId={back}"
        )),
        vec![p("back", "Anvil")]
    );
    assert!(pairs(&format!("?entityId={e2}&productId={anvil}")).is_empty());
    assert_eq!(
        pairs("?limit=2&offset=1"),
        vec![p("back", "widget"), p("Far", "Far product")]
    );
    assert_eq!(pairs("?offset=4"), vec![p("Main", "widget")]);
    for q in [
        "?productId=x",
        "?locationId=x",
        "?entityId=x",
        "?limit=0",
        "?offset=-2",
        "?limit=two",
    ] {
        assert_error(
            &t.get(&format!("/api/warehouse-stock{q}")),
            Status::BadRequest,
        );
    }
    let unknown = uuid::Uuid::new_v4();
    for f in ["productId", "locationId", "entityId"] {
        assert_error(
            &t.get(&format!("/api/warehouse-stock?{f}={unknown}")),
            Status::NotFound,
        );
    }
}

#[test]
fn stock_rows_cannot_be_deleted() {
    let (t, _e, p, l) = setup();
    let (_, v) = upsert(
        &t,
        json!({"product_id": p, "location_id": l, "quantity": 1}),
    );
    let r = t.delete("/api/warehouse-stock", json!({"id": v["data"]["id"]}));
    assert_error(&r, Status::MethodNotAllowed);
    assert_eq!(rows(&t, "").len(), 1);
}
