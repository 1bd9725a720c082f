//! `POST /api/stock/put-away` (docs/inventory.md#put-away): unallocated units into a
//! location as one linked pair of movements, in one transaction, with the ledger's
//! refusals.

use super::common;

use common::invariants::check_invariants;
use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

/// An app with an entity, a product with 12 unallocated units (opening stock) and an
/// active location `Shop`.
fn setup() -> (TestApp, String, String, String) {
    let (t, e) = app_with_entity();
    let p = id(&product_with(
        &t,
        &e,
        "Mug",
        json!({"sku": "MUG-1", "stock_qty": 12}),
    ));
    let l = location(&t, &e, "Shop");
    (t, e, p, l)
}

fn put_away(t: &TestApp, body: Value) -> (Status, Value) {
    t.post("/api/stock/put-away", body)
}

#[test]
fn a_put_away_moves_unallocated_units_into_the_location_as_a_linked_pair() {
    let (t, _e, p, l) = setup();
    let (s, v) = put_away(
        &t,
        json!({"product_id": p, "location_id": l, "qty": 8, "notes": "first day"}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let data = &v["data"];
    let reference = data["reference"].as_str().unwrap();
    assert!(
        reference.starts_with("PA-") && reference.len() == 15,
        "{reference}"
    );
    let pair = data["movements"].as_array().unwrap();
    assert_eq!(pair.len(), 2);
    assert_eq!(pair[0]["type"], "transfer_out");
    assert_eq!(pair[0]["location_id"], Value::Null);
    assert_eq!(d(&pair[0]["qty"].to_string()), d("-8"));
    assert_eq!(pair[1]["type"], "transfer_in");
    assert_eq!(pair[1]["location_id"], json!(l));
    assert_eq!(d(&pair[1]["qty"].to_string()), d("8"));
    for m in pair {
        assert_eq!(m["reference"], json!(reference));
        assert_eq!(m["notes"], "first day");
    }

    // The total is unchanged; the units changed place.
    let snap = check_invariants(&t);
    assert_eq!(stock_qty(&t, &p), d("12"));
    assert_eq!(snap.unallocated(&p), d("4"));
    assert_eq!(qty_at(&t, &p, &l), d("8"));
    // Both sides are in the history, found together by their reference.
    let history = movements(&t, &format!("?productId={p}"));
    let linked: Vec<&Value> = history
        .iter()
        .filter(|m| m["reference"] == json!(reference))
        .collect();
    assert_eq!(linked.len(), 2);
    assert_eq!(movements(&t, &format!("?locationId={l}")).len(), 1);

    // A second put-away gets a reference of its own.
    let (s, v) = put_away(&t, json!({"product_id": p, "location_id": l, "qty": 4}));
    assert_eq!(s, Status::Created, "{v}");
    assert_ne!(v["data"]["reference"], json!(reference));
    assert_eq!(check_invariants(&t).unallocated(&p), d("0"));
    assert_eq!(qty_at(&t, &p, &l), d("12"));
}

#[test]
fn a_put_away_of_more_than_is_unallocated_is_refused_and_keeps_nothing() {
    let (t, _e, p, l) = setup();
    let r = put_away(&t, json!({"product_id": p, "location_id": l, "qty": 13}));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient unallocated stock: MUG-1 needs 13, has 12"
    );
    assert_eq!(qty_at(&t, &p, &l), d("0"));
    assert!(movements(&t, &format!("?locationId={l}")).is_empty());
    assert_eq!(movements(&t, &format!("?productId={p}")).len(), 1);
    check_invariants(&t);
}

#[test]
fn a_put_away_needs_the_unallocated_units_even_where_negative_stock_is_allowed() {
    let t = app_with(&[("allow_negative_stock", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = id(&product_with(
        &t,
        &e,
        "Mug",
        json!({"sku": "MUG-1", "stock_qty": 2}),
    ));
    let l = location(&t, &e, "Shop");
    let r = put_away(&t, json!({"product_id": p, "location_id": l, "qty": 3}));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient unallocated stock: MUG-1 needs 3, has 2"
    );
}

#[test]
fn a_back_dated_put_away_is_judged_by_the_unallocated_stock_of_its_day() {
    let (t, e) = app_with_entity();
    let p = product(&t, &e, "Mug");
    let l = location(&t, &e, "Shop");
    let (s, v) = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "adjustment", "qty": 5, "date": "2024-03-02"}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let r = put_away(
        &t,
        json!({"product_id": p, "location_id": l, "qty": 5, "date": "2024-03-01"}),
    );
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient unallocated stock on 2024-03-01: SKU-00001 needs 5, has 0"
    );
    let (s, v) = put_away(
        &t,
        json!({"product_id": p, "location_id": l, "qty": 5, "date": "2024-03-02"}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["movements"][1]["date"], "2024-03-02");
    check_invariants(&t);
}

#[test]
fn a_put_away_is_refused_with_the_ledgers_refusals() {
    let (t, e, p, l) = setup();
    let cases: Vec<(Value, Status, &str)> = vec![
        (
            json!({"product_id": p, "location_id": l, "qty": 0}),
            Status::BadRequest,
            "Invalid value for field `qty`: must be above 0: the units to move into the location",
        ),
        (
            json!({"product_id": p, "location_id": l, "qty": -2}),
            Status::BadRequest,
            "Invalid value for field `qty`: must be above 0: the units to move into the location",
        ),
        (
            json!({"product_id": p, "location_id": "", "qty": 1}),
            Status::BadRequest,
            "Missing required field: location_id",
        ),
        (
            json!({"product_id": p, "location_id": "nope", "qty": 1}),
            Status::BadRequest,
            "Invalid value for field `location_id`: not a UUID",
        ),
        (
            json!({"product_id": p, "location_id": l, "qty": 1, "date": "2999-01-01"}),
            Status::BadRequest,
            "Invalid value for field `date`",
        ),
    ];
    for (body, status, message) in cases {
        let r = put_away(&t, body.clone());
        assert!(
            assert_error(&r, status).starts_with(message),
            "{body}: {}",
            r.1
        );
    }
    // Another business's location.
    let other = t.entity("Other Ltd");
    let far = location(&t, &other, "Far");
    let r = put_away(&t, json!({"product_id": p, "location_id": far, "qty": 1}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "`location_id` belongs to a different entity than this record"
    );
    // An inactive location.
    deactivate_location(&t, &l);
    let r = put_away(&t, json!({"product_id": p, "location_id": l, "qty": 1}));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Location Shop is inactive and cannot take stock changes"
    );
    // An unknown product.
    let r = put_away(
        &t,
        json!({"product_id": "00000000-0000-0000-0000-000000000000", "location_id": l, "qty": 1}),
    );
    assert_eq!(r.0, Status::NotFound, "{}", r.1);
    // Nothing moved.
    assert_eq!(movements(&t, &format!("?productId={p}")).len(), 1);
    let _ = e;
    check_invariants(&t);
}

#[test]
fn a_put_away_needs_a_session() {
    let (t, _e, p, l) = setup();
    *t.session.borrow_mut() = None;
    let r = put_away(&t, json!({"product_id": p, "location_id": l, "qty": 1}));
    assert_eq!(r.0, Status::Unauthorized, "{}", r.1);
}
