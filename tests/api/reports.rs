//! The stock valuation report (docs/inventory.md#valuation-report) and the dashboard summary, alert
//! and per-location endpoints (docs/inventory.md#per-location-figures,
//! docs/inventory.md#dashboard-figures).

use super::common;

use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

fn valuation(t: &TestApp, query: &str) -> (Vec<Value>, Value) {
    let (s, v) = t.get(&format!("/api/reports/stock-valuation{query}"));
    assert_eq!(s, Status::Ok, "{v}");
    (v["data"].as_array().unwrap().clone(), v["summary"].clone())
}

fn priced(t: &TestApp, e: &str, name: &str, unit_price: Value, cost_price: Value) -> String {
    id(&product_with(
        t,
        e,
        name,
        json!({"unit_price": unit_price, "cost_price": cost_price}),
    ))
}

// --- valuation ----------------------------------------------------------------------------

#[test]
fn valuation_rows_carry_every_field_of_a_stock_row() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let annex = location(&t, &e, "Annex");
    let w = id(&product_with(
        &t,
        &e,
        "Widget",
        json!({"sku": "W-1", "category": "Tools", "unit_price": 10, "cost_price": 6}),
    ));
    purchase(&t, &w, &main, "3");
    purchase(&t, &w, &annex, "2.5");
    let (rows, summary) = valuation(&t, "");
    assert_eq!(
        rows,
        [
            json!({"product_id": w, "product_name": "Widget", "product_sku": "W-1",
                   "category": "Tools", "location_id": annex, "location_name": "Annex",
                   "quantity": 2.5, "cost_price": 6, "unit_price": 10, "total_cost": 15,
                   "total_retail": 25, "margin": 40}),
            json!({"product_id": w, "product_name": "Widget", "product_sku": "W-1",
                   "category": "Tools", "location_id": main, "location_name": "Main",
                   "quantity": 3, "cost_price": 6, "unit_price": 10, "total_cost": 18,
                   "total_retail": 30, "margin": 40}),
        ]
    );
    assert_eq!(
        summary,
        json!({"totalCostValue": 33, "totalRetailValue": 55, "totalUnits": 5.5,
               "avgMargin": 40, "retailMargin": 40, "unpricedProducts": 0,
               "inTransitUnits": 0, "inTransitCostValue": 0})
    );
}

#[test]
fn row_values_round_half_away_from_zero_and_summary_totals_round_once() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let annex = location(&t, &e, "Annex");
    // 0.125 and 0.135 a unit: a half penny each way.
    let penny = priced(&t, &e, "Penny", json!(0.135), json!(0.125));
    purchase(&t, &penny, &main, "1");
    // Half a penny of cost at two locations: each row shows 0.01, the total is 0.01.
    let half = priced(&t, &e, "Half", json!(0), json!(0.005));
    purchase(&t, &half, &main, "1");
    purchase(&t, &half, &annex, "1");
    let (rows, summary) = valuation(&t, "");
    let row = |name: &str, loc: &str| -> Value {
        rows.iter()
            .find(|r| r["product_name"] == name && r["location_name"] == loc)
            .cloned()
            .unwrap()
    };
    let p = row("Penny", "Main");
    assert_eq!(p["total_cost"], json!(0.13));
    assert_eq!(p["total_retail"], json!(0.14));
    assert_eq!(p["margin"], json!(7.41), "(0.01 / 0.135) * 100 = 7.4074...");
    let h = row("Half", "Annex");
    assert_eq!(h["total_cost"], json!(0.01));
    assert_eq!(h["total_retail"], json!(0));
    assert_eq!(h["margin"], json!(0), "no unit price: margin 0");
    assert_eq!(row("Half", "Main")["total_cost"], json!(0.01));
    // Unrounded: 0.125 + 0.005 + 0.005 = 0.135 -> 0.14 (the rounded rows would add to 0.15).
    assert_eq!(summary["totalCostValue"], json!(0.14));
    assert_eq!(summary["totalRetailValue"], json!(0.14));
    assert_eq!(summary["totalUnits"], json!(3));
}

#[test]
fn avg_margin_is_the_mean_of_the_unrounded_margins_of_distinct_products() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let annex = location(&t, &e, "Annex");
    // Margins 0.005 and 0.004: rounded first they would average 0.005 -> 0.01.
    let g = priced(&t, &e, "Gadget", json!(200), json!(199.99));
    let h = priced(&t, &e, "Thing", json!(250), json!(249.99));
    purchase(&t, &g, &main, "1");
    purchase(&t, &h, &main, "1");
    let (rows, summary) = valuation(&t, "");
    assert_eq!(rows[0]["margin"], json!(0.01));
    assert_eq!(rows[1]["margin"], json!(0));
    assert_eq!(summary["avgMargin"], json!(0), "mean 0.0045 rounds to 0.00");

    // A product with rows at two locations counts once.
    let (t, e) = app_with_entity();
    let main2 = location(&t, &e, "Main");
    let annex2 = location(&t, &e, "Annex");
    let w = priced(&t, &e, "Widget", json!(10), json!(6));
    let z = priced(&t, &e, "Zero", json!(10), json!(10));
    purchase(&t, &w, &main2, "1");
    purchase(&t, &w, &annex2, "1");
    purchase(&t, &z, &main2, "1");
    let (_, summary) = valuation(&t, "");
    assert_eq!(summary["avgMargin"], json!(20));
    let _ = annex;
}

#[test]
fn unallocated_stock_has_its_own_row_after_the_locations() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let w = id(&product_with(
        &t,
        &e,
        "Widget",
        json!({"sku": "W-1", "unit_price": 4, "cost_price": 3, "stock_qty": 5}),
    ));
    let a = id(&product_with(
        &t,
        &e,
        "Awl",
        json!({"sku": "A-1", "unit_price": 2, "cost_price": 1, "stock_qty": 1}),
    ));
    purchase(&t, &w, &main, "2");
    let (rows, summary) = valuation(&t, "");
    let places: Vec<(Value, Value)> = rows
        .iter()
        .map(|r| (r["product_name"].clone(), r["location_name"].clone()))
        .collect();
    assert_eq!(
        places,
        [
            (json!("Widget"), json!("Main")),
            (json!("Awl"), json!("Unallocated")),
            (json!("Widget"), json!("Unallocated")),
        ]
    );
    assert_eq!(rows[2]["location_id"], Value::Null);
    assert_eq!(rows[2]["quantity"], json!(5));
    assert_eq!(rows[2]["total_cost"], json!(15));
    assert_eq!(rows[1]["product_id"], json!(a));
    assert_eq!(summary["totalUnits"], json!(8));
    assert_eq!(summary["totalCostValue"], json!(22));
}

#[test]
fn retail_margin_is_the_stocks_margin_at_retail_value_leaving_out_unpriced_products() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    // 10 mugs: retail 100, cost 40 (60 %); 1 grinder: retail 200, cost 50 (75 %);
    // 100 kg of beans without a selling price (a raw material, cost 5).
    let mug = priced(&t, &e, "Mug", json!(10), json!(4));
    let grinder = priced(&t, &e, "Grinder", json!(200), json!(50));
    let beans = priced(&t, &e, "Green beans", json!(0), json!(5));
    purchase(&t, &mug, &main, "10");
    purchase(&t, &grinder, &main, "1");
    purchase(&t, &beans, &main, "100");
    let (_, summary) = valuation(&t, "");
    // (300 - 90) / 300: the beans' cost is not in it, nor their 0 % in a mean.
    assert_eq!(summary["retailMargin"], json!(70));
    assert_eq!(summary["unpricedProducts"], json!(1));
    // The plain mean of the three margins, beans at 0 %, is still there for programs.
    assert_eq!(summary["avgMargin"], json!(45));
    let (_, asof) = valuation(&t, &format!("?asOf={}", t.clock.today()));
    assert_eq!(asof["retailMargin"], json!(70));
    assert_eq!(asof["unpricedProducts"], json!(1));
}

#[test]
fn retail_margin_is_null_without_priced_stock() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let (_, summary) = valuation(&t, "");
    assert_eq!(summary["retailMargin"], json!(null));
    assert_eq!(summary["unpricedProducts"], json!(0));
    let beans = priced(&t, &e, "Green beans", json!(0), json!(5));
    purchase(&t, &beans, &main, "3");
    let (_, summary) = valuation(&t, "");
    assert_eq!(summary["retailMargin"], json!(null));
    assert_eq!(summary["unpricedProducts"], json!(1));
}

#[test]
fn location_id_restricts_rows_and_summary_to_that_location() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let annex = location(&t, &e, "Annex");
    let w = id(&product_with(
        &t,
        &e,
        "Widget",
        json!({"unit_price": 10, "cost_price": 6, "stock_qty": 4}),
    ));
    let g = priced(&t, &e, "Gadget", json!(20), json!(5));
    purchase(&t, &w, &main, "3");
    purchase(&t, &w, &annex, "2");
    purchase(&t, &g, &annex, "1");
    // 1 Widget in transit from Main.
    let (_, o) = t.post(
        "/api/transfer-orders",
        json!({"source_location_id": main, "destination_location_id": annex,
               "lines": [{"product_id": w, "quantity": 1}]}),
    );
    let r = t.put(
        "/api/transfer-orders",
        json!({"id": o["data"]["id"], "status": "in_transit"}),
    );
    assert_eq!(r.0, Status::Ok, "{}", r.1);

    let (rows, summary) = valuation(&t, &format!("?locationId={main}"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["location_id"], json!(main));
    assert_eq!(rows[0]["quantity"], json!(2));
    assert_eq!(
        summary,
        json!({"totalCostValue": 12, "totalRetailValue": 20, "totalUnits": 2,
               "avgMargin": 40, "retailMargin": 40, "unpricedProducts": 0,
               "inTransitUnits": 1, "inTransitCostValue": 6})
    );
    let (rows, summary) = valuation(&t, &format!("?locationId={annex}&entityId={e}"));
    assert_eq!(rows.len(), 2);
    assert_eq!(summary["totalUnits"], json!(3));
    assert_eq!(summary["avgMargin"], json!(57.5), "(40 + 75) / 2");
    assert_eq!(summary["inTransitUnits"], json!(0));

    // Without a location: every row, the unallocated one included.
    let (rows, summary) = valuation(&t, "");
    assert_eq!(rows.len(), 4);
    assert_eq!(summary["totalUnits"], json!(9));
    assert_eq!(summary["inTransitUnits"], json!(1));
    assert_eq!(summary["inTransitCostValue"], json!(6));

    assert_error(
        &t.get("/api/reports/stock-valuation?locationId=nope"),
        Status::BadRequest,
    );
    assert_error(
        &t.get(&format!(
            "/api/reports/stock-valuation?locationId={}",
            uuid::Uuid::new_v4()
        )),
        Status::NotFound,
    );
    let e2 = t.entity("Other Ltd");
    assert_error(
        &t.get(&format!(
            "/api/reports/stock-valuation?locationId={main}&entityId={e2}"
        )),
        Status::BadRequest,
    );
}

#[test]
fn zero_rows_are_left_out_while_inactive_products_and_locations_stay() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let old = location(&t, &e, "Old");
    let w = priced(&t, &e, "Widget", json!(10), json!(6));
    let r = priced(&t, &e, "Retired", json!(8), json!(4));
    purchase(&t, &w, &main, "2");
    sale(&t, &w, &main, "2");
    purchase(&t, &r, &old, "3");
    deactivate_product(&t, &r);
    deactivate_location(&t, &old);
    let (rows, summary) = valuation(&t, "");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["product_name"], "Retired");
    assert_eq!(rows[0]["location_name"], "Old");
    assert_eq!(summary["totalCostValue"], json!(12));
    assert_eq!(summary["avgMargin"], json!(50));
}

#[test]
fn rows_are_ordered_by_location_name_then_product_name() {
    let (t, e) = app_with_entity();
    let zed = location(&t, &e, "zed");
    let able = location(&t, &e, "Able");
    let b = product(&t, &e, "banana");
    let a = product(&t, &e, "Apple");
    let c = product(&t, &e, "Cherry");
    for p in [&b, &a, &c] {
        purchase(&t, p, &zed, "1");
        purchase(&t, p, &able, "1");
    }
    let (rows, _) = valuation(&t, "");
    let order: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{}/{}",
                r["location_name"].as_str().unwrap(),
                r["product_name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            "Able/Apple",
            "Able/banana",
            "Able/Cherry",
            "zed/Apple",
            "zed/banana",
            "zed/Cherry"
        ]
    );
}

#[test]
fn the_valuation_is_filtered_by_entity_and_never_shows_another_users_stock() {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let w = priced(&t, &e, "Widget", json!(10), json!(6));
    purchase(&t, &w, &main, "1");
    let e2 = t.entity("Other Ltd");
    let far = location(&t, &e2, "Far");
    let g = priced(&t, &e2, "Gadget", json!(10), json!(5));
    purchase(&t, &g, &far, "1");
    assert_eq!(valuation(&t, "").0.len(), 2);
    let (rows, _) = valuation(&t, &format!("?entityId={e2}"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["product_name"], "Gadget");
    assert_error(
        &t.get("/api/reports/stock-valuation?entityId=x"),
        Status::BadRequest,
    );

    t.signup("intruder@example.com");
    let (rows, summary) = valuation(&t, "");
    assert!(rows.is_empty());
    assert_eq!(summary["totalCostValue"], json!(0));
    assert_eq!(summary["avgMargin"], json!(0));
    assert_error(
        &t.get(&format!("/api/reports/stock-valuation?entityId={e}")),
        Status::NotFound,
    );
    assert_error(
        &t.get(&format!("/api/reports/stock-valuation?locationId={main}")),
        Status::NotFound,
    );
    *t.session.borrow_mut() = None;
    assert_error(&t.get("/api/reports/stock-valuation"), Status::Unauthorized);
}

// --- summary, alerts, locations -----------------------------------------------------------

/// Main and Annex (active), Old (inactive). Widget (threshold 2): 3 at Main (reorder point
/// 3: a location alert), 2 at Annex. Gadget (threshold 5): 4 at Main (a global alert).
/// Retired (deactivated, threshold 10): 6 at Old with reorder point 10 (no alerts).
/// Loose (threshold 1): 2 unallocated.
struct Dash {
    t: TestApp,
    e: String,
    main: String,
    annex: String,
    old: String,
    widget: String,
    gadget: String,
}

fn dashboard() -> Dash {
    let (t, e) = app_with_entity();
    let main = location(&t, &e, "Main");
    let annex = location(&t, &e, "Annex");
    let old = location(&t, &e, "Old");
    let p = |name: &str, sku: &str, unit: u32, cost: u32, threshold: u32| {
        id(&product_with(
            &t,
            &e,
            name,
            json!({"sku": sku, "unit_price": unit, "cost_price": cost,
                   "low_stock_threshold": threshold}),
        ))
    };
    let widget = p("Widget", "W", 10, 6, 2);
    let gadget = p("Gadget", "G", 20, 15, 5);
    let retired = p("Retired", "R", 8, 4, 10);
    let loose = id(&product_with(
        &t,
        &e,
        "Loose",
        json!({"sku": "L", "unit_price": 5, "cost_price": 1,
               "low_stock_threshold": 1, "stock_qty": 2}),
    ));
    let _ = loose;
    purchase(&t, &widget, &main, "3");
    purchase(&t, &widget, &annex, "2");
    purchase(&t, &gadget, &main, "4");
    purchase(&t, &retired, &old, "6");
    set_reorder_point(&t, &widget, &main, "3");
    set_reorder_point(&t, &retired, &old, "10");
    deactivate_product(&t, &retired);
    deactivate_location(&t, &old);
    Dash {
        t,
        e,
        main,
        annex,
        old,
        widget,
        gadget,
    }
}

#[test]
fn the_summary_counts_active_records_and_values_all_stock_at_cost() {
    let d = dashboard();
    let (s, v) = d.t.get(&format!("/api/inventory/summary?entityId={}", d.e));
    assert_eq!(s, Status::Ok, "{v}");
    // stockValue: 5 × 6 + 4 × 15 + 6 × 4 (inactive, still stock) + 2 × 1 = 116.
    assert_eq!(
        v["data"],
        json!({"totalProducts": 3, "stockValue": 116, "warehouseCount": 2,
               "lowStockAlertCount": 2, "inTransitUnits": 0,
               "stockValueByCategory": [{"category": "", "stockValue": 116}]})
    );
    let (_, valuation_summary) = valuation(&d.t, "");
    assert_eq!(valuation_summary["totalCostValue"], json!(116));

    // One Widget in transit leaves the stock value and shows as in transit.
    let (_, o) = d.t.post(
        "/api/transfer-orders",
        json!({"source_location_id": d.annex, "destination_location_id": d.main,
               "lines": [{"product_id": d.widget, "quantity": 1}]}),
    );
    let r = d.t.put(
        "/api/transfer-orders",
        json!({"id": o["data"]["id"], "status": "in_transit"}),
    );
    assert_eq!(r.0, Status::Ok, "{}", r.1);
    let (_, v) = d.t.get("/api/inventory/summary");
    assert_eq!(v["data"]["stockValue"], json!(110));
    assert_eq!(v["data"]["inTransitUnits"], json!(1));

    // Another entity's figures are its own.
    let e2 = d.t.entity("Other Ltd");
    let (_, v) = d.t.get(&format!("/api/inventory/summary?entityId={e2}"));
    assert_eq!(
        v["data"],
        json!({"totalProducts": 0, "stockValue": 0, "warehouseCount": 0,
               "lowStockAlertCount": 0, "inTransitUnits": 0, "stockValueByCategory": []})
    );
}

#[test]
fn alerts_cover_active_products_at_both_levels() {
    let d = dashboard();
    let (s, v) = d.t.get("/api/inventory/alerts");
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        v["data"],
        json!([
            {"level": "global", "product_id": {"id": d.gadget, "name": "Gadget", "sku": "G"},
             "location_id": null, "quantity": 4, "threshold": 5},
            {"level": "location", "product_id": {"id": d.widget, "name": "Widget", "sku": "W"},
             "location_id": {"id": d.main, "name": "Main"}, "quantity": 3, "threshold": 3},
        ])
    );
    let (_, v) = d.t.get(&format!(
        "/api/inventory/alerts?entityId={}&locationId={}",
        d.e, d.main
    ));
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    assert_eq!(v["data"][0]["level"], "location");
    let (_, v) =
        d.t.get(&format!("/api/inventory/alerts?locationId={}", d.annex));
    assert_eq!(v["data"], json!([]));
    let (_, v) =
        d.t.get(&format!("/api/inventory/alerts?locationId={}", d.old));
    assert_eq!(
        v["data"],
        json!([]),
        "the deactivated product raises no alert"
    );

    // Selling the Widget down to its threshold adds a global alert.
    sale(&d.t, &d.widget, &d.annex, "2");
    sale(&d.t, &d.widget, &d.main, "1");
    let (_, v) = d.t.get("/api/inventory/alerts");
    let levels: Vec<(Value, Value)> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["level"].clone(), a["product_id"]["name"].clone()))
        .collect();
    assert_eq!(
        levels,
        [
            (json!("global"), json!("Gadget")),
            (json!("global"), json!("Widget")),
            (json!("location"), json!("Widget")),
            (json!("location"), json!("Widget")),
        ]
    );
    let (_, v) = d.t.get("/api/inventory/summary");
    assert_eq!(v["data"]["lowStockAlertCount"], json!(4));
    assert_error(
        &d.t.get(&format!(
            "/api/inventory/alerts?locationId={}",
            uuid::Uuid::new_v4()
        )),
        Status::NotFound,
    );
}

#[test]
fn per_location_figures_include_inactive_locations() {
    let d = dashboard();
    let (s, v) =
        d.t.get(&format!("/api/inventory/locations?entityId={}", d.e));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        v["data"],
        json!([
            {"location": {"id": d.annex, "name": "Annex", "status": "active"},
             "productCount": 1, "totalUnits": 2, "costValue": 12, "retailValue": 20,
             "alertCount": 0},
            {"location": {"id": d.main, "name": "Main", "status": "active"},
             "productCount": 2, "totalUnits": 7, "costValue": 78, "retailValue": 110,
             "alertCount": 1},
            {"location": {"id": d.old, "name": "Old", "status": "inactive"},
             "productCount": 0, "totalUnits": 6, "costValue": 24, "retailValue": 48,
             "alertCount": 0},
        ])
    );
    // productCount counts products with non-zero quantity there.
    sale(&d.t, &d.widget, &d.annex, "2");
    let (_, v) = d.t.get("/api/inventory/locations");
    assert_eq!(v["data"][0]["productCount"], json!(0));
    assert_eq!(v["data"][0]["alertCount"], json!(1), "0 <= reorder point 0");
    t_not_found(&d.t);
}

fn t_not_found(t: &TestApp) {
    assert_error(
        &t.get(&format!(
            "/api/inventory/locations?entityId={}",
            uuid::Uuid::new_v4()
        )),
        Status::NotFound,
    );
    assert_error(
        &t.get(&format!(
            "/api/inventory/summary?entityId={}",
            uuid::Uuid::new_v4()
        )),
        Status::NotFound,
    );
}

#[test]
fn the_summary_values_stock_by_category_exactly_and_largest_first() {
    let (t, e) = common::app_with_entity();
    for (name, category, cost, qty) in [
        ("Bolt", "Hardware", "0.105", 10),
        ("Nut", "Hardware", "0.105", 10),
        ("Kettle", "Kitchen", "12.5", 3),
        ("Spare", "", "1", 1),
        ("Empty", "Garden", "9", 0),
    ] {
        // Prices go over JSON as exact numbers, written from their text.
        let cost: serde_json::Value = serde_json::from_str(cost).unwrap();
        let r = t.post(
            "/api/products",
            json!({"name": name, "category": category, "cost_price": cost,
                   "stock_qty": qty, "entity_id": e}),
        );
        assert_eq!(r.0, Status::Created, "{}", r.1);
    }
    let (s, v) = t.get(&format!("/api/inventory/summary?entityId={e}"));
    assert_eq!(s, Status::Ok, "{v}");
    // Hardware: 10 × 0.105 twice = 2.10 exactly (each 1.05 on its own); no Garden stock.
    assert_eq!(
        v["data"]["stockValueByCategory"],
        json!([
            {"category": "Kitchen", "stockValue": 37.5},
            {"category": "Hardware", "stockValue": 2.1},
            {"category": "", "stockValue": 1}
        ])
    );
    assert_eq!(v["data"]["stockValue"], json!(40.6));
}

#[test]
fn the_streamed_body_is_the_same_in_any_chunk_size_and_stops_when_the_client_goes() {
    let (t, e) = app_with_entity();
    let (main, annex) = (location(&t, &e, "Main"), location(&t, &e, "Annex"));
    for i in 0..12 {
        let p = id(&product_with(
            &t,
            &e,
            &format!("Item {}", 12 - i),
            json!({"unit_price": 3, "cost_price": 2,
                   "stock_qty": 1}),
        ));
        purchase(&t, &p, &main, "2");
        if i % 2 == 0 {
            purchase(&t, &p, &annex, "1.5");
        }
    }
    let whole = t
        .with_session(t.client.get("/api/reports/stock-valuation"))
        .dispatch()
        .into_bytes()
        .unwrap();
    let v: Value = serde_json::from_slice(&whole).unwrap();
    assert_eq!(v["data"].as_array().unwrap().len(), 12 + 12 + 6);

    let (_, me) = t.get("/api/auth/me");
    let scope = stockbook::scope::Scope::user(me["data"]["id"].as_str().unwrap().to_owned());
    let conn = t.db.conn().unwrap();
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    stockbook::inventory::valuation::write_valuation(&conn, &scope, None, None, 500, &mut |c| {
        chunks.push(c);
        true
    })
    .unwrap();
    assert!(chunks.len() > 10, "{} chunks", chunks.len());
    assert_eq!(chunks[0], b"{\"data\":[");
    for c in &chunks[1..chunks.len() - 1] {
        assert!(c.len() >= 500, "a chunk of {} bytes", c.len());
    }
    assert_eq!(chunks.concat(), whole, "the chunks make the HTTP body");

    // A client that goes after the third chunk is sent nothing more.
    let mut sent = 0;
    stockbook::inventory::valuation::write_valuation(&conn, &scope, None, None, 500, &mut |_| {
        sent += 1;
        sent < 3
    })
    .unwrap();
    assert_eq!(sent, 3);
}

#[test]
fn each_location_is_read_from_the_covering_index_in_product_order_without_a_sort() {
    let t = app();
    let conn = t.db.conn().unwrap();
    let mut stmt = conn
        .prepare(&format!(
            "EXPLAIN QUERY PLAN {}",
            stockbook::inventory::valuation::STOCK_AT_LOCATION
        ))
        .unwrap();
    let plan: Vec<String> = stmt
        .query_map(["x"], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        plan,
        ["SEARCH warehouse_stock USING COVERING INDEX warehouse_stock_location (location_id=?)"]
    );
}
