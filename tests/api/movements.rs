//! `/api/stock-movements` (docs/ledger.md#movements-endpoint, docs/ledger.md#sign-rules): sign
//! rules, negative-stock refusal, weighted average cost, the list filters and ordering, ownership.

use super::common;

use common::invariants::{check_invariants, dec};
use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};
use stockbook::inventory::ledger::{apply_movement, MovementType, NewMovement, Origin};
use stockbook::scope::Scope;

/// An app with an entity, a product and an active location `Main`.
fn setup() -> (TestApp, String, String, String) {
    let (t, e) = app_with_entity();
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    (t, e, p, l)
}

fn ids(list: &[Value]) -> Vec<String> {
    list.iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_movement_type_follows_its_sign_rule() {
    let (t, _e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(100));
    let cases: &[(&str, i64, Status)] = &[
        ("purchase", 1, Status::Created),
        ("purchase", -1, Status::BadRequest),
        ("sale", -1, Status::Created),
        ("sale", 1, Status::BadRequest),
        ("transfer_in", 1, Status::Created),
        ("transfer_in", -1, Status::BadRequest),
        ("transfer_out", -1, Status::Created),
        ("transfer_out", 1, Status::BadRequest),
        ("adjustment", 1, Status::Created),
        ("adjustment", -1, Status::Created),
        ("return", 1, Status::Created),
        ("return", -1, Status::Created),
        ("stock_take", 1, Status::Created),
        ("stock_take", -1, Status::Created),
        ("transfer_cancelled", 1, Status::BadRequest),
        ("transfer_cancelled", -1, Status::BadRequest),
    ];
    let mut expected = d("100");
    for (kind, qty, status) in cases {
        for located in [true, false] {
            let loc = located.then_some(l.as_str());
            // Unallocated stock starts at 0: keep it from going negative.
            let qty = if !located && *qty < 0 && *status == Status::Created {
                moved(&t, &p, None, "adjustment", json!(1));
                expected += d("1");
                *qty
            } else {
                *qty
            };
            let res = movement(&t, &p, loc, kind, json!(qty));
            if *status == Status::Created {
                assert_eq!(res.0, Status::Created, "{kind} {qty}: {}", res.1);
                assert_eq!(res.1["data"]["type"], *kind);
                assert_eq!(dec(&res.1["data"]["qty"]), rust_decimal::Decimal::from(qty));
                expected += rust_decimal::Decimal::from(qty);
            } else {
                let msg = assert_error(&res, *status);
                let field = if *kind == "transfer_cancelled" {
                    "type"
                } else {
                    "qty"
                };
                assert!(msg.contains(field), "{kind} {qty}: {msg}");
            }
        }
    }
    assert_eq!(stock_qty(&t, &p), expected);
    check_invariants(&t);
}

#[test]
fn a_zero_quantity_is_refused_for_every_type() {
    let (t, _e, p, l) = setup();
    for kind in [
        "purchase",
        "sale",
        "adjustment",
        "return",
        "transfer_in",
        "transfer_out",
        "stock_take",
    ] {
        let msg = assert_error(
            &movement(&t, &p, Some(&l), kind, json!(0)),
            Status::BadRequest,
        );
        assert!(msg.contains("qty"), "{kind}: {msg}");
        assert_error(
            &movement(&t, &p, None, kind, json!(0.000)),
            Status::BadRequest,
        );
    }
    assert!(movements(&t, "").is_empty());
}

#[test]
fn an_unknown_type_is_refused() {
    let (t, _e, p, l) = setup();
    for kind in ["gift", "Purchase", ""] {
        let msg = assert_error(
            &movement(&t, &p, Some(&l), kind, json!(1)),
            Status::BadRequest,
        );
        assert!(msg.contains("type"), "{msg}");
    }
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "qty": 1, "type": 5}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("type"));
    assert!(movements(&t, "").is_empty());
}

#[test]
fn missing_required_fields_are_named() {
    let (t, _e, p, _l) = setup();
    let r = t.post("/api/stock-movements", json!({}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: product_id"
    );
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase"}),
    );
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: qty"
    );
    let r = t.post("/api/stock-movements", json!({"product_id": p, "qty": 1}));
    assert_eq!(
        assert_error(&r, Status::BadRequest),
        "Missing required field: type"
    );
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "qty": "one", "type": "purchase"}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("qty"));
}

#[test]
fn a_sale_beyond_the_stock_at_its_location_is_refused_and_changes_nothing() {
    let (t, e) = app_with_entity();
    product(&t, &e, "First");
    product(&t, &e, "Second");
    let p = product(&t, &e, "Third");
    let main = location(&t, &e, "Main");
    moved(&t, &p, Some(&main), "purchase", json!(3));
    let before = movements(&t, "");
    let r = movement(&t, &p, Some(&main), "sale", json!(-5));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main: SKU-00003 needs 5, has 3"
    );
    assert_eq!(r.1["code"], "insufficient_stock");
    let r = movement(&t, &p, Some(&main), "adjustment", json!(-3.001));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main: SKU-00003 needs 3.001, has 3"
    );
    assert_eq!(qty_at(&t, &p, &main), d("3"));
    assert_eq!(stock_qty(&t, &p), d("3"));
    assert_eq!(movements(&t, ""), before);
    // Selling exactly what is there is fine.
    moved(&t, &p, Some(&main), "sale", json!(-3));
    assert_eq!(qty_at(&t, &p, &main), d("0"));
    check_invariants(&t);
}

#[test]
fn stock_at_another_location_does_not_cover_a_sale() {
    let (t, e, p, a) = setup();
    let b = location(&t, &e, "Back");
    moved(&t, &p, Some(&a), "purchase", json!(10));
    let r = movement(&t, &p, Some(&b), "sale", json!(-1));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Back: SKU-00001 needs 1, has 0"
    );
    assert!(
        stock_row(&t, &p, &b).is_none(),
        "a refused sale created a row"
    );
    assert_eq!(stock_qty(&t, &p), d("10"));
}

#[test]
fn an_unlocated_decrease_draws_only_on_unallocated_stock() {
    let (t, e) = app_with_entity();
    let p = product_with(&t, &e, "Widget", json!({"stock_qty": 2}))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let l = location(&t, &e, "Main");
    moved(&t, &p, Some(&l), "purchase", json!(10));
    let r = movement(&t, &p, None, "sale", json!(-3));
    let msg = assert_error(&r, Status::Conflict);
    assert!(msg.starts_with("Insufficient"), "{msg}");
    assert!(
        msg.contains("SKU-00001") && msg.contains("needs 3") && msg.contains("has 2"),
        "{msg}"
    );
    assert_eq!(stock_qty(&t, &p), d("12"));
    moved(&t, &p, None, "sale", json!(-2));
    assert_eq!(stock_qty(&t, &p), d("10"));
    assert_eq!(qty_at(&t, &p, &l), d("10"));
    check_invariants(&t);
}

#[test]
fn negative_stock_is_allowed_when_configured() {
    let t = app_with(&[("allow_negative_stock", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    moved(&t, &p, Some(&l), "sale", json!(-5));
    assert_eq!(qty_at(&t, &p, &l), d("-5"));
    moved(&t, &p, None, "adjustment", json!(-2));
    assert_eq!(stock_qty(&t, &p), d("-7"));
    check_invariants(&t);
}

#[test]
fn a_located_movement_changes_its_row_and_the_product_total() {
    let (t, e, p, l) = setup();
    let m = moved(&t, &p, Some(&l), "purchase", json!(7));
    assert_eq!(m["location_id"], json!(l));
    let row = stock_row(&t, &p, &l).expect("the first movement creates the row");
    assert_eq!(dec(&row["quantity"]), d("7"));
    assert_eq!(dec(&row["reorder_point"]), d("0"));
    assert_eq!(row["entity_id"], json!(e));
    let prod = get_product(&t, &p);
    assert_eq!(dec(&prod["stock_qty"]), d("7"));
    assert_eq!(prod["stock_levels"].as_array().unwrap().len(), 1);
    assert_eq!(dec(&prod["stock_levels"][0]["quantity"]), d("7"));
    check_invariants(&t);
}

#[test]
fn an_unlocated_movement_changes_only_the_product_total() {
    let (t, _e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(7));
    let m = moved(&t, &p, None, "purchase", json!(4));
    assert_eq!(m["location_id"], Value::Null);
    assert_eq!(stock_qty(&t, &p), d("11"));
    assert_eq!(qty_at(&t, &p, &l), d("7"));
    let (_, rows) = t.get("/api/warehouse-stock");
    assert_eq!(rows["data"].as_array().unwrap().len(), 1);
    check_invariants(&t);
}

#[test]
fn quantities_are_exact_decimals() {
    let (t, _e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(0.1));
    moved(&t, &p, Some(&l), "purchase", json!(0.2));
    let raw = get_product(&t, &p).to_string();
    assert!(raw.contains("\"stock_qty\":0.3"), "{raw}");
    let row = stock_row(&t, &p, &l).unwrap().to_string();
    assert!(row.contains("\"quantity\":0.3"), "{row}");
    moved(&t, &p, None, "adjustment", json!(0.1));
    moved(&t, &p, None, "adjustment", json!(0.2));
    let raw = get_product(&t, &p).to_string();
    assert!(raw.contains("\"stock_qty\":0.6"), "{raw}");
    // Three places at most; trailing zeros do not count.
    let r = movement(&t, &p, Some(&l), "purchase", json!(0.0001));
    assert!(assert_error(&r, Status::BadRequest).contains("qty"));
    let r = t.post(
        "/api/stock-movements",
        serde_json::from_str::<Value>(&format!(
            r#"{{"product_id":"{p}","type":"purchase","qty":1.5000}}"#
        ))
        .unwrap(),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    assert_eq!(stock_qty(&t, &p), d("2.1"));
    check_invariants(&t);
}

#[test]
fn the_list_shows_the_product_expanded_and_the_location_as_a_plain_id() {
    let (t, e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(2));
    moved(&t, &p, None, "purchase", json!(1));
    let list = movements(&t, "");
    assert_eq!(list.len(), 2);
    for m in &list {
        assert_eq!(
            m["product_id"],
            json!({"id": p, "name": "Widget", "sku": "SKU-00001"})
        );
        assert_eq!(m["entity_id"], json!(e));
        assert!(m["date"].is_string());
    }
    assert_eq!(list[0]["location_id"], Value::Null);
    assert_eq!(list[1]["location_id"], json!(l));
}

#[test]
fn the_list_is_newest_first_by_date_then_creation() {
    let (t, _e, p, l) = setup();
    let post = |date: Option<&str>| {
        let mut b = json!({"product_id": p, "location_id": l, "type": "purchase", "qty": 1});
        if let Some(d) = date {
            b["date"] = json!(d);
        }
        let (s, v) = t.post("/api/stock-movements", b);
        assert_eq!(s, Status::Created, "{v}");
        v["data"]["id"].as_str().unwrap().to_owned()
    };
    let a = post(Some("2024-01-02"));
    let b = post(Some("2024-01-01"));
    let c = post(Some("2024-01-02"));
    let today = post(None);
    assert_eq!(ids(&movements(&t, "")), vec![today, c, a, b]);
}

#[test]
fn the_date_defaults_to_today_utc() {
    let (t, _e, p, l) = setup();
    let m = moved(&t, &p, Some(&l), "purchase", json!(1));
    assert_eq!(m["date"], json!(t.clock.today().to_string()));
    t.clock.advance(86_400);
    let m = moved(&t, &p, Some(&l), "purchase", json!(1));
    assert_eq!(m["date"], json!(t.clock.today().to_string()));
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 1, "date": "2023-02-29"}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("date"));
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 1, "date": "2024-02-29",
               "reference": " PO-7 ", "notes": "pallet"}),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    assert_eq!(r.1["data"]["date"], "2024-02-29");
    assert_eq!(r.1["data"]["reference"], "PO-7");
    assert_eq!(r.1["data"]["notes"], "pallet");
}

#[test]
fn the_list_filters_by_product_location_entity_and_type() {
    let (t, e1) = app_with_entity();
    let e2 = t.entity("Other Ltd");
    let p1 = product(&t, &e1, "One");
    let q1 = product(&t, &e1, "Two");
    let p2 = product(&t, &e2, "Three");
    let a = location(&t, &e1, "A");
    let b = location(&t, &e1, "B");
    let c = location(&t, &e2, "C");
    let m1 = moved(&t, &p1, Some(&a), "purchase", json!(5));
    let m2 = moved(&t, &p1, Some(&b), "return", json!(2));
    let m3 = moved(&t, &q1, Some(&a), "purchase", json!(4));
    let m4 = moved(&t, &p1, Some(&a), "sale", json!(-1));
    let m5 = moved(&t, &p2, Some(&c), "purchase", json!(9));
    let m6 = moved(&t, &q1, None, "adjustment", json!(3));
    let id = |m: &Value| m["id"].as_str().unwrap().to_owned();
    let check = |q: &str, want: &[&Value]| {
        assert_eq!(
            ids(&movements(&t, q)),
            want.iter().map(|m| id(m)).collect::<Vec<_>>(),
            "{q}"
        );
    };
    check("", &[&m6, &m5, &m4, &m3, &m2, &m1]);
    check(&format!("?productId={p1}"), &[&m4, &m2, &m1]);
    check(&format!("?locationId={a}"), &[&m4, &m3, &m1]);
    check(&format!("?entityId={e1}"), &[&m6, &m4, &m3, &m2, &m1]);
    check(&format!("?entityId={e2}"), &[&m5]);
    check("?type=purchase", &[&m5, &m3, &m1]);
    check("?type=sale", &[&m4]);
    check(
        &format!("?productId={p1}&locationId={a}&type=purchase"),
        &[&m1],
    );
    check(&format!("?productId={p2}&entityId={e1}"), &[]);
    check("?limit=2", &[&m6, &m5]);
    check("?limit=2&offset=1", &[&m5, &m4]);
    check("?offset=5", &[&m1]);
    for q in [
        "?type=gift",
        "?limit=0",
        "?limit=x",
        "?offset=-1",
        "?productId=nope",
        "?locationId=1",
        "?entityId=x",
    ] {
        assert_error(
            &t.get(&format!("/api/stock-movements{q}")),
            Status::BadRequest,
        );
    }
    let unknown = uuid::Uuid::new_v4();
    for q in ["productId", "locationId", "entityId"] {
        assert_error(
            &t.get(&format!("/api/stock-movements?{q}={unknown}")),
            Status::NotFound,
        );
    }
}

#[test]
fn the_type_filter_accepts_transfer_cancelled() {
    let (t, _e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(5));
    assert!(movements(&t, "?type=transfer_cancelled").is_empty());
    // The system writes transfer_cancelled movements (transfer orders); write one here
    // through the ledger itself.
    let owner = me(&t);
    let (pid, lid) = (p.clone(), l.clone());
    let today = t.clock.today();
    t.db.write_sync(move |tx| {
        let scope = Scope::user(owner);
        let product = stockbook::inventory::product_ref(tx, &scope, &pid)?;
        let loc = stockbook::inventory::location_ref(tx, &scope, &lid)?;
        apply_movement(
            tx,
            &NewMovement {
                product: &product,
                location: Some(&loc),
                qty: "2".parse().unwrap(),
                kind: MovementType::TransferCancelled,
                reference: Some("TO-001".into()),
                notes: None,
                date: today,
                unit_cost: None,
                origin: Origin::System,
            },
            false,
            "2024-01-01T00:00:00Z",
        )
    })
    .unwrap();
    let list = movements(&t, "?type=transfer_cancelled");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["type"], "transfer_cancelled");
    assert_eq!(list[0]["reference"], "TO-001");
    assert_eq!(movements(&t, "").len(), 2);
    check_invariants(&t);
}

#[test]
fn date_filters_are_inclusive_at_both_ends() {
    let (t, _e, p, l) = setup();
    let mut by_date = Vec::new();
    for date in ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"] {
        let (s, v) = t.post(
            "/api/stock-movements",
            json!({"product_id": p, "location_id": l, "type": "purchase", "qty": 1, "date": date}),
        );
        assert_eq!(s, Status::Created, "{v}");
        by_date.push(v["data"]["id"].as_str().unwrap().to_owned());
    }
    let dates = |q: &str| -> Vec<String> {
        movements(&t, q)
            .iter()
            .map(|m| m["date"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        dates("?dateFrom=2024-01-02&dateTo=2024-01-03"),
        vec!["2024-01-03", "2024-01-02"]
    );
    assert_eq!(
        dates("?dateFrom=2024-01-03"),
        vec!["2024-01-04", "2024-01-03"]
    );
    assert_eq!(dates("?dateTo=2024-01-01"), vec!["2024-01-01"]);
    assert_eq!(
        dates("?dateFrom=2024-01-02&dateTo=2024-01-02"),
        vec!["2024-01-02"]
    );
    assert!(dates("?dateFrom=2024-01-04&dateTo=2024-01-01").is_empty());
    assert!(dates("?dateFrom=2024-01-05").is_empty());
}

#[test]
fn malformed_date_filters_are_refused() {
    let (t, _e, _p, _l) = setup();
    for bad in [
        "2024-1-02",
        "2024-02-30",
        "2024-13-01",
        "02/01/2024",
        "yesterday",
        "2024-01-02T00:00:00Z",
        "+2024-01-02",
        "20240102",
    ] {
        for field in ["dateFrom", "dateTo"] {
            let r = t.get(&format!("/api/stock-movements?{field}={bad}"));
            let msg = assert_error(&r, Status::BadRequest);
            assert!(msg.contains(field), "{field}={bad}: {msg}");
        }
    }
}

#[test]
fn a_movement_takes_its_products_entity() {
    let (t, e, p, l) = setup();
    let other = t.entity("Other Ltd");
    let m = moved(&t, &p, Some(&l), "purchase", json!(1));
    assert_eq!(m["entity_id"], json!(e));
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 1, "entity_id": e}),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 1, "entity_id": other}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("entity_id"));
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 1, "entity_id": "nope"}),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("entity_id"));
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 1, "entity_id": uuid::Uuid::new_v4()}),
    );
    assert_error(&r, Status::NotFound);
    assert_eq!(movements(&t, "").len(), 2);
    assert_eq!(stock_qty(&t, &p), d("2"));
}

#[test]
fn a_location_of_another_entity_is_refused() {
    let (t, _e, p, _l) = setup();
    let other = t.entity("Other Ltd");
    let far = location(&t, &other, "Far");
    let r = movement(&t, &p, Some(&far), "purchase", json!(1));
    assert!(assert_error(&r, Status::BadRequest).contains("location_id"));
    assert!(movements(&t, "").is_empty());
    assert!(stock_row(&t, &p, &far).is_none());
}

#[test]
fn unknown_or_foreign_products_and_locations_are_not_found() {
    let (t, e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(5));
    let unknown = uuid::Uuid::new_v4().to_string();
    assert_error(
        &movement(&t, &unknown, None, "purchase", json!(1)),
        Status::NotFound,
    );
    assert_error(
        &movement(&t, &p, Some(&unknown), "purchase", json!(1)),
        Status::NotFound,
    );
    let r = movement(&t, "not-a-uuid", None, "purchase", json!(1));
    assert!(assert_error(&r, Status::BadRequest).contains("product_id"));
    let r = movement(&t, &p, Some("not-a-uuid"), "purchase", json!(1));
    assert!(assert_error(&r, Status::BadRequest).contains("location_id"));

    t.signup("intruder@example.com");
    let e2 = t.entity("Intruder Ltd");
    let mine = product(&t, &e2, "Mine");
    let here = location(&t, &e2, "Here");
    assert_error(
        &movement(&t, &p, None, "purchase", json!(1)),
        Status::NotFound,
    );
    assert_error(
        &movement(&t, &mine, Some(&l), "purchase", json!(1)),
        Status::NotFound,
    );
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": mine, "location_id": here, "type": "purchase", "qty": 1, "entity_id": e}),
    );
    assert_error(&r, Status::NotFound);
    assert!(movements(&t, "").is_empty(), "the intruder sees nothing");
    for q in [
        format!("productId={p}"),
        format!("locationId={l}"),
        format!("entityId={e}"),
    ] {
        assert_error(
            &t.get(&format!("/api/stock-movements?{q}")),
            Status::NotFound,
        );
    }
    t.login("owner@example.com");
    assert_eq!(movements(&t, "").len(), 1);
    assert_eq!(stock_qty(&t, &p), d("5"));
}

#[test]
fn an_inactive_location_refuses_movements() {
    let (t, _e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(5));
    set_location_status(&t, &l, "inactive");
    for (kind, qty) in [("purchase", 1), ("sale", -1), ("adjustment", 1)] {
        let msg = assert_error(
            &movement(&t, &p, Some(&l), kind, json!(qty)),
            Status::Conflict,
        );
        assert!(msg.contains("Main") && msg.contains("inactive"), "{msg}");
    }
    assert_eq!(qty_at(&t, &p, &l), d("5"));
    assert_eq!(movements(&t, "").len(), 1);
    // Unlocated stock is not affected by the location's state.
    moved(&t, &p, None, "purchase", json!(1));
    set_location_status(&t, &l, "active");
    moved(&t, &p, Some(&l), "sale", json!(-5));
    check_invariants(&t);
}

#[test]
fn a_purchase_with_unit_cost_sets_the_weighted_average_cost() {
    let (t, e) = app_with_entity();
    let p = product_with(&t, &e, "Widget", json!({"stock_qty": 10, "cost_price": 2}))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let l = location(&t, &e, "Main");
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "location_id": l, "type": "purchase", "qty": 5, "unit_cost": 3.5}),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    assert_eq!(dec(&r.1["data"]["unit_cost"]), d("3.5"));
    // (10 × 2 + 5 × 3.5) / 15 = 2.5
    assert_eq!(cost_price(&t, &p), d("2.5"));
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 3, "unit_cost": 1}),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    // (15 × 2.5 + 3 × 1) / 18 = 2.25
    assert_eq!(cost_price(&t, &p), d("2.25"));
    // A purchase without unit cost, or any other movement, keeps the cost.
    moved(&t, &p, Some(&l), "purchase", json!(7));
    moved(&t, &p, Some(&l), "sale", json!(-2));
    assert_eq!(cost_price(&t, &p), d("2.25"));
}

#[test]
fn weighted_average_cost_rounds_to_4_places_half_away_from_zero() {
    let (t, e) = app_with_entity();
    let buy = |p: &str, qty: Value, cost: Value| {
        let r = t.post(
            "/api/stock-movements",
            json!({"product_id": p, "type": "purchase", "qty": qty, "unit_cost": cost}),
        );
        assert_eq!(r.0, Status::Created, "{}", r.1);
    };
    let mk = |name: &str, stock: i64, cost: &str| {
        product_with(
            &t,
            &e,
            name,
            json!({"stock_qty": stock, "cost_price": num(cost)}),
        )["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // (1 × 0 + 1 × 0.0001) / 2 = 0.00005: half away from zero gives 0.0001 (banker's
    // rounding would give 0).
    let a = mk("A", 1, "0");
    buy(&a, json!(1), json!(0.0001));
    assert_eq!(cost_price(&t, &a), d("0.0001"));
    // (2 × 1 + 1 × 2) / 3 = 1.3333…
    let b = mk("B", 2, "1");
    buy(&b, json!(1), json!(2));
    assert_eq!(cost_price(&t, &b), d("1.3333"));
    // (2 × 1 + 1 × 3) / 3 = 1.6666… rounds up
    let c = mk("C", 2, "1");
    buy(&c, json!(1), json!(3));
    assert_eq!(cost_price(&t, &c), d("1.6667"));
    // (3 × 0.0001 + 1 × 0.0003) / 4 = 0.00015 → 0.0002
    let f = mk("F", 3, "0.0001");
    buy(&f, json!(1), json!(0.0003));
    assert_eq!(cost_price(&t, &f), d("0.0002"));
}

#[test]
fn with_no_positive_stock_before_the_unit_cost_becomes_the_cost_price() {
    let t = app_with(&[("allow_negative_stock", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = product_with(&t, &e, "Widget", json!({"cost_price": 5}))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    moved(&t, &p, None, "sale", json!(-2));
    // Weighted: (-2 × 5 + 4 × 3) / 2 = 1; the rule says the unit cost, 3.
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 4, "unit_cost": 3}),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    assert_eq!(cost_price(&t, &p), d("3"));
    assert_eq!(stock_qty(&t, &p), d("2"));
    // Stock at exactly 0: the unit cost too.
    moved(&t, &p, None, "sale", json!(-2));
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "type": "purchase", "qty": 1, "unit_cost": 9.5}),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    assert_eq!(cost_price(&t, &p), d("9.5"));
}

#[test]
fn the_old_quantity_of_the_average_is_the_products_total_stock() {
    let (t, e) = app_with_entity();
    let p = product_with(&t, &e, "Widget", json!({"stock_qty": 10, "cost_price": 2}))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let empty = location(&t, &e, "Empty");
    let r = t.post(
        "/api/stock-movements",
        json!({"product_id": p, "location_id": empty, "type": "purchase", "qty": 10, "unit_cost": 4}),
    );
    assert_eq!(r.0, Status::Created, "{}", r.1);
    assert_eq!(cost_price(&t, &p), d("3"));
}

#[test]
fn unit_cost_is_only_for_purchases_and_must_be_a_valid_price() {
    let (t, _e, p, l) = setup();
    moved(&t, &p, Some(&l), "purchase", json!(5));
    let post = |kind: &str, qty: i64, cost: Value| {
        t.post(
            "/api/stock-movements",
            json!({"product_id": p, "location_id": l, "type": kind, "qty": qty, "unit_cost": cost}),
        )
    };
    for (kind, qty) in [
        ("sale", -1),
        ("adjustment", 1),
        ("return", 1),
        ("transfer_in", 1),
    ] {
        let msg = assert_error(&post(kind, qty, json!(2)), Status::BadRequest);
        assert!(msg.contains("unit_cost"), "{msg}");
    }
    assert!(
        assert_error(&post("purchase", 1, json!(-1)), Status::BadRequest).contains("unit_cost")
    );
    assert!(
        assert_error(&post("purchase", 1, json!(0.00001)), Status::BadRequest)
            .contains("unit_cost")
    );
    assert_eq!(movements(&t, "").len(), 1);
    assert_eq!(cost_price(&t, &p), d("0"));
    let r = post("purchase", 1, Value::Null);
    assert_eq!(r.0, Status::Created, "{}", r.1);
}

#[test]
fn movements_cannot_be_changed_or_deleted() {
    let (t, _e, p, l) = setup();
    let m = moved(&t, &p, Some(&l), "purchase", json!(5));
    let r = t.put("/api/stock-movements", json!({"id": m["id"], "qty": 9}));
    assert_error(&r, Status::MethodNotAllowed);
    let r = t.delete("/api/stock-movements", json!({"id": m["id"]}));
    assert_error(&r, Status::MethodNotAllowed);
    assert_eq!(movements(&t, "").len(), 1);
    assert_eq!(qty_at(&t, &p, &l), d("5"));
}

#[test]
fn movements_need_a_session() {
    let (t, _e, p, _l) = setup();
    *t.session.borrow_mut() = None;
    assert_error(&t.get("/api/stock-movements"), Status::Unauthorized);
    assert_error(
        &movement(&t, &p, None, "purchase", json!(1)),
        Status::Unauthorized,
    );
}

// ---------------------------------------------------------------------------------------
// Stock over time (docs/ledger.md#stock-over-time)

/// Posts a movement dated `date`.
fn dated(
    t: &TestApp,
    p: &str,
    l: Option<&str>,
    kind: &str,
    qty: i64,
    date: &str,
) -> (Status, Value) {
    let mut body = json!({"product_id": p, "type": kind, "qty": qty, "date": date});
    if let Some(l) = l {
        body["location_id"] = json!(l);
    }
    t.post("/api/stock-movements", body)
}

/// The quantity of the product at a location in the valuation as at `day` (0 when absent).
fn valued_at(t: &TestApp, p: &str, l: &str, day: &str) -> rust_decimal::Decimal {
    let (s, v) = t.get(&format!(
        "/api/reports/stock-valuation?asOf={day}&locationId={l}"
    ));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["product_id"] == json!(p))
        .map_or(rust_decimal::Decimal::ZERO, |r| dec(&r["quantity"]))
}

#[test]
fn a_movement_dated_after_today_is_a_400_and_counts_nowhere() {
    let (t, _e, p, l) = setup();
    let tomorrow = (t.clock.today() + time::Duration::days(1)).to_string();
    for date in ["9999-12-31", tomorrow.as_str()] {
        let r = dated(&t, &p, Some(&l), "purchase", 10, date);
        let msg = assert_error(&r, Status::BadRequest);
        assert!(msg.contains("date") && msg.contains("after today"), "{msg}");
    }
    assert_eq!(stock_qty(&t, &p), d("0"));
    assert!(movements(&t, "").is_empty());
    // So nothing is on hand today to sell.
    let r = movement(&t, &p, Some(&l), "sale", json!(-1));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main: SKU-00001 needs 1, has 0"
    );
    // Today is fine.
    let today = t.clock.today().to_string();
    assert_eq!(
        dated(&t, &p, Some(&l), "purchase", 10, &today).0,
        Status::Created
    );
    check_invariants(&t);
}

#[test]
fn a_sale_dated_before_the_stock_arrived_is_a_409_naming_the_date() {
    let (t, _e, p, l) = setup();
    assert_eq!(
        dated(&t, &p, Some(&l), "purchase", 10, "2021-06-01").0,
        Status::Created
    );
    let r = dated(&t, &p, Some(&l), "sale", -10, "0001-01-01");
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main on 0001-01-01: SKU-00001 needs 10, has 0"
    );
    // The valuation as at 2021 shows the 10 bought, not -10.
    assert_eq!(valued_at(&t, &p, &l, "2021-12-31"), d("10"));
    assert_eq!(valued_at(&t, &p, &l, "2021-05-31"), d("0"));
    // Selling on the day they arrived is fine.
    assert_eq!(
        dated(&t, &p, Some(&l), "sale", -10, "2021-06-01").0,
        Status::Created
    );
    assert_eq!(valued_at(&t, &p, &l, "2021-06-01"), d("0"));
    check_invariants(&t);
}

#[test]
fn a_back_dated_sale_may_not_break_a_later_days_balance() {
    let (t, _e, p, l) = setup();
    dated(&t, &p, Some(&l), "purchase", 10, "2024-01-01");
    dated(&t, &p, Some(&l), "sale", -8, "2024-03-01");
    // On 2024-02-01 there would be 5 left, but on 2024-03-01 the sale of 8 finds 2.
    let r = dated(&t, &p, Some(&l), "sale", -5, "2024-02-01");
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main on 2024-03-01: SKU-00001 needs 5, has 2"
    );
    assert_eq!(qty_at(&t, &p, &l), d("2"));
    // The earliest day that breaks is named (here 2023-12-31 and 2024-03-01 would).
    let r = dated(&t, &p, Some(&l), "adjustment", -3, "2023-12-31");
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main on 2023-12-31: SKU-00001 needs 3, has 0"
    );
    // Two fit on every later day.
    let (s, v) = dated(&t, &p, Some(&l), "sale", -2, "2024-02-01");
    assert_eq!(s, Status::Created, "{v}");
    let r = dated(&t, &p, Some(&l), "sale", -1, "2024-02-01");
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main on 2024-03-01: SKU-00001 needs 1, has 0"
    );
    assert_eq!(qty_at(&t, &p, &l), d("0"));
    check_invariants(&t);
}

#[test]
fn movements_of_one_day_count_together_whatever_order_they_were_written_in() {
    let (t, _e, p, l) = setup();
    dated(&t, &p, Some(&l), "purchase", 5, "2024-05-01");
    dated(&t, &p, Some(&l), "sale", -5, "2024-05-02");
    // A purchase and then a sale written for the day before, each judged at that day's end.
    let (s, v) = dated(&t, &p, Some(&l), "purchase", 3, "2024-05-01");
    assert_eq!(s, Status::Created, "{v}");
    let (s, v) = dated(&t, &p, Some(&l), "sale", -3, "2024-05-01");
    assert_eq!(s, Status::Created, "{v}");
    check_invariants(&t);
}

#[test]
fn the_unallocated_stock_is_judged_over_time_too() {
    let (t, _e, p, _l) = setup();
    dated(&t, &p, None, "adjustment", 4, "2024-01-10");
    let r = dated(&t, &p, None, "sale", -1, "2024-01-09");
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient unallocated stock on 2024-01-09: SKU-00001 needs 1, has 0"
    );
    assert_eq!(
        dated(&t, &p, None, "sale", -4, "2024-01-10").0,
        Status::Created
    );
    assert_eq!(stock_qty(&t, &p), d("0"));
}

#[test]
fn allow_negative_stock_lets_a_back_dated_sale_through() {
    let t = app_with(&[("allow_negative_stock", json!(true))]);
    t.signup("owner@example.com");
    let e = t.entity("Acme Ltd");
    let p = product(&t, &e, "Widget");
    let l = location(&t, &e, "Main");
    dated(&t, &p, Some(&l), "purchase", 10, "2021-06-01");
    let (s, v) = dated(&t, &p, Some(&l), "sale", -10, "0001-01-01");
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(valued_at(&t, &p, &l, "2021-01-01"), d("-10"));
    // The unallocated stock, back at zero on a later day.
    let (s, v) = dated(&t, &p, None, "sale", -1, "2020-01-01");
    assert_eq!(s, Status::Created, "{v}");
    let (s, v) = dated(&t, &p, None, "adjustment", 1, "2020-01-03");
    assert_eq!(s, Status::Created, "{v}");
    // The ledger check names each place, with the first day below zero, only when
    // negative stock is not allowed.
    let conn = t.db.conn().unwrap();
    assert!(stockbook::inventory::check::ledger_breaches(&conn, true)
        .unwrap()
        .is_empty());
    let found = stockbook::inventory::check::ledger_breaches(&conn, false).unwrap();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.iter().all(|b| b.rule == "stock over time"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|b| b.message.contains("SKU-00001 (Widget) at Main is -10")
                && b.message.contains("end of 0001-01-01")),
        "{found:?}"
    );
    assert!(
        found.iter().any(
            |b| b.message.contains("SKU-00001 (Widget) unallocated is -1")
                && b.message.contains("end of 2020-01-01")
        ),
        "{found:?}"
    );
}

#[test]
fn a_future_dated_movement_written_before_the_rule_is_not_on_hand_today() {
    let (t, _e, p, l) = setup();
    // Written through the ledger itself, as the service did before future dates were
    // refused.
    let owner = me(&t);
    let (pid, lid) = (p.clone(), l.clone());
    let now = stockbook::clock::rfc3339(t.clock.now());
    t.db.write_sync(move |tx| {
        let scope = Scope::user(owner);
        let product = stockbook::inventory::product_ref(tx, &scope, &pid)?;
        let loc = stockbook::inventory::location_ref(tx, &scope, &lid)?;
        apply_movement(
            tx,
            &NewMovement {
                product: &product,
                location: Some(&loc),
                qty: "10".parse().unwrap(),
                kind: MovementType::Purchase,
                reference: None,
                notes: None,
                date: time::macros::date!(9999 - 12 - 31),
                unit_cost: None,
                origin: Origin::Client,
            },
            false,
            &now,
        )
    })
    .unwrap();
    assert_eq!(qty_at(&t, &p, &l), d("10"));
    let r = movement(&t, &p, Some(&l), "sale", json!(-1));
    assert_eq!(
        assert_error(&r, Status::Conflict),
        "Insufficient stock at Main: SKU-00001 needs 1, has 0"
    );
}
