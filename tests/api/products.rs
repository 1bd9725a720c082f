//! Products (docs/inventory.md#products): the defaults, exact decimals, SKUs, VAT rate and prices,
//! stock set through the product, the delete rules, search and the streamed list.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::json;

#[test]
fn a_product_needs_only_a_name_and_gets_the_documented_defaults() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post("/api/products", json!({"name": "Widget", "entity_id": e}));
    assert_eq!(s, Status::Created, "{v}");
    let p = &v["data"];
    assert_eq!(p["sku"], "SKU-00001");
    assert_eq!(p["low_stock_threshold"], json!(5));
    assert_eq!(p["unit"], "pcs");
    assert_eq!(p["vat_rate"], json!(20));
    assert_eq!(p["active"], json!(true));
    assert_eq!(p["stock_qty"], json!(0));
    let (_, v) = t.post("/api/products", json!({"name": "Gadget", "entity_id": e}));
    assert_eq!(v["data"]["sku"], "SKU-00002");
}

#[test]
fn decimals_are_exact_end_to_end() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post(
        "/api/products",
        json!({"name": "Rope", "entity_id": e, "unit_price": 0.1, "cost_price": 0.2, "stock_qty": 0.3}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let raw = v["data"].to_string();
    assert!(raw.contains("\"unit_price\":0.1"), "{raw}");
    assert!(raw.contains("\"stock_qty\":0.3"), "{raw}");
    let (s, v) = t.post(
        "/api/products",
        json!({"name": "Bad", "entity_id": e, "stock_qty": 1.0001}),
    );
    let msg = assert_error(&(s, v), Status::BadRequest);
    assert!(msg.contains("stock_qty"), "{msg}");
}

#[test]
fn duplicate_skus_are_refused_ignoring_case() {
    let (t, e) = app_with_entity();
    t.post(
        "/api/products",
        json!({"name": "A", "sku": "abc-1", "entity_id": e}),
    );
    let r = t.post(
        "/api/products",
        json!({"name": "B", "sku": "ABC-1", "entity_id": e}),
    );
    assert!(assert_error(&r, Status::Conflict).contains("ABC-1"));
}

#[test]
fn no_sku_is_generated_past_the_largest_number_a_refusal_not_a_server_error() {
    let (t, e) = app_with_entity();
    let (s, v) = t.post(
        "/api/products",
        json!({"name": "A", "sku": "SKU-99999999999999999999", "entity_id": e}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let r = t.post("/api/products", json!({"name": "B", "entity_id": e}));
    assert!(assert_error(&r, Status::Conflict).contains("sku"));
    let (s, _) = t.post(
        "/api/products",
        json!({"name": "B", "sku": "B-1", "entity_id": e}),
    );
    assert_eq!(s, Status::Created);
}

#[test]
fn a_product_with_movements_cannot_be_deleted_but_a_fresh_one_can() {
    let (t, e) = app_with_entity();
    let (_, a) = t.post(
        "/api/products",
        json!({"name": "A", "entity_id": e, "stock_qty": 3}),
    );
    let (_, b) = t.post("/api/products", json!({"name": "B", "entity_id": e}));
    let r = t.delete("/api/products", json!({"id": a["data"]["id"]}));
    assert_error(&r, Status::Conflict);
    let r = t.delete("/api/products", json!({"id": b["data"]["id"]}));
    assert_eq!(r.0, Status::Ok, "{}", r.1);
    assert_eq!(r.1["data"]["success"], json!(true));
}

#[test]
fn another_users_product_is_not_found() {
    let (t, e) = app_with_entity();
    let (_, a) = t.post("/api/products", json!({"name": "A", "entity_id": e}));
    t.signup("intruder@example.com");
    let r = t.put(
        "/api/products",
        json!({"id": a["data"]["id"], "name": "Mine"}),
    );
    assert_error(&r, Status::NotFound);
    let r = t.get(&format!("/api/products?entityId={e}"));
    assert_error(&r, Status::NotFound);
}

// ---- SKUs, VAT rate, prices (docs/inventory.md#products) ----

mod more {
    use super::common::invariants::{check_invariants, dec};
    use super::common::stock_fixtures::*;
    use super::common::*;
    use rocket::http::Status;
    use serde_json::{json, Value};

    fn sku(v: &Value) -> &str {
        v["sku"].as_str().unwrap()
    }

    #[test]
    fn generated_skus_take_the_next_free_number_per_entity() {
        let (t, e) = app_with_entity();
        let other = t.entity("Other Ltd");
        assert_eq!(sku(&product_with(&t, &e, "A", json!({}))), "SKU-00001");
        assert_eq!(
            sku(&product_with(&t, &e, "B", json!({"sku": "SKU-00007"}))),
            "SKU-00007"
        );
        product_with(&t, &e, "C", json!({"sku": "SKU-12A"}));
        product_with(&t, &e, "D", json!({"sku": "ABC-99999"}));
        assert_eq!(sku(&product_with(&t, &e, "E", json!({}))), "SKU-00008");
        assert_eq!(
            sku(&product_with(&t, &e, "F", json!({"sku": "  "}))),
            "SKU-00009"
        );
        // Another entity counts on its own; so do products without entity.
        assert_eq!(sku(&product_with(&t, &other, "G", json!({}))), "SKU-00001");
        let (s, v) = t.post("/api/products", json!({"name": "Loose"}));
        assert_eq!(s, Status::Created, "{v}");
        assert_eq!(v["data"]["sku"], "SKU-00001");
        assert_eq!(v["data"]["entity_id"], Value::Null);
    }

    #[test]
    fn a_sku_is_unique_per_entity_on_create_and_on_put() {
        let (t, e) = app_with_entity();
        let other = t.entity("Other Ltd");
        product_with(&t, &e, "A", json!({"sku": "ab-1"}));
        let b = product_with(&t, &e, "B", json!({"sku": "ab-2"}));
        product_with(&t, &other, "A elsewhere", json!({"sku": "AB-1"}));
        let r = t.put(
            "/api/products",
            json!({"id": b["id"], "sku": "AB-1", "name": "Renamed"}),
        );
        assert!(assert_error(&r, Status::Conflict).contains("AB-1"));
        let now = get_product(&t, b["id"].as_str().unwrap());
        assert_eq!(now["sku"], "ab-2");
        assert_eq!(now["name"], "B", "a refused PUT changes nothing");
        // Its own SKU in another case is not a clash with itself.
        let (s, v) = t.put("/api/products", json!({"id": b["id"], "sku": "AB-2"}));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(v["data"]["sku"], "AB-2");
        let r = t.put("/api/products", json!({"id": b["id"], "sku": " "}));
        assert!(assert_error(&r, Status::BadRequest).contains("sku"));
    }

    #[test]
    fn vat_rate_defaults_to_20_and_must_be_from_0_to_100() {
        let (t, e) = app_with_entity();
        assert_eq!(product_with(&t, &e, "A", json!({}))["vat_rate"], json!(20));
        assert_eq!(
            product_with(&t, &e, "B", json!({"vat_rate": 0}))["vat_rate"],
            json!(0)
        );
        assert_eq!(
            product_with(&t, &e, "C", json!({"vat_rate": 100}))["vat_rate"],
            json!(100)
        );
        let d = product_with(&t, &e, "D", json!({"vat_rate": 17.5}));
        assert_eq!(d["vat_rate"], json!(17.5));
        for bad in [
            json!(-1),
            json!(100.01),
            json!(12.345),
            json!("twenty"),
            json!("1e1"),
        ] {
            let r = t.post(
                "/api/products",
                json!({"name": "X", "entity_id": e, "vat_rate": bad}),
            );
            assert!(
                assert_error(&r, Status::BadRequest).contains("vat_rate"),
                "{bad}"
            );
            let r = t.put("/api/products", json!({"id": d["id"], "vat_rate": bad}));
            assert!(
                assert_error(&r, Status::BadRequest).contains("vat_rate"),
                "{bad}"
            );
        }
        let (s, v) = t.put("/api/products", json!({"id": d["id"], "vat_rate": 5}));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(v["data"]["vat_rate"], json!(5));
        let (_, list) = t.get("/api/products");
        assert_eq!(list["data"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn prices_and_threshold_must_not_be_negative() {
        let (t, e) = app_with_entity();
        let a = product_with(&t, &e, "A", json!({"unit_price": 1.2345, "cost_price": 0}));
        assert_eq!(a["unit_price"], json!(1.2345));
        for field in [
            "unit_price",
            "cost_price",
            "low_stock_threshold",
            "stock_qty",
        ] {
            let r = t.post(
                "/api/products",
                json!({"name": "X", "entity_id": e, field: -1}),
            );
            assert!(
                assert_error(&r, Status::BadRequest).contains(field),
                "{field}"
            );
        }
        for field in ["unit_price", "cost_price", "low_stock_threshold"] {
            let r = t.put("/api/products", json!({"id": a["id"], field: -0.01}));
            assert!(
                assert_error(&r, Status::BadRequest).contains(field),
                "{field}"
            );
        }
        let r = t.post(
            "/api/products",
            json!({"name": "X", "entity_id": e, "unit_price": 0.00001}),
        );
        assert!(assert_error(&r, Status::BadRequest).contains("unit_price"));
        let r = t.post("/api/products", json!({"entity_id": e}));
        assert_eq!(
            assert_error(&r, Status::BadRequest),
            "Missing required field: name"
        );
        let r = t.post("/api/products", json!({"name": "  ", "entity_id": e}));
        assert!(assert_error(&r, Status::BadRequest).contains("name"));
        let (_, list) = t.get("/api/products");
        assert_eq!(list["data"].as_array().unwrap().len(), 1);
    }

    // ---- stock_qty through the ledger (docs/inventory.md#product-stock, docs/ledger.md) ----

    #[test]
    fn opening_stock_is_an_unallocated_adjustment_movement() {
        let (t, e) = app_with_entity();
        let a = product_with(&t, &e, "A", json!({"stock_qty": 5.5}));
        let b = product_with(&t, &e, "B", json!({}));
        assert_eq!(dec(&a["stock_qty"]), d("5.5"));
        assert_eq!(a["stock_levels"], json!([]));
        let list = movements(&t, "");
        assert_eq!(
            list.len(),
            1,
            "no movement for a product without opening stock"
        );
        assert_eq!(list[0]["product_id"]["id"], a["id"]);
        assert_eq!(list[0]["type"], "adjustment");
        assert_eq!(list[0]["location_id"], Value::Null);
        assert_eq!(dec(&list[0]["qty"]), d("5.5"));
        assert!(movements(&t, &format!("?productId={}", b["id"].as_str().unwrap())).is_empty());
        check_invariants(&t);
    }

    /// docs/inventory.md#product-stock: `stock_location_id` puts the opening stock at a
    /// location in the product's own transaction; a refused location creates nothing.
    #[test]
    fn opening_stock_at_a_location_is_one_transaction_with_the_product() {
        let (t, e) = app_with_entity();
        let shop = location(&t, &e, "Shop");
        let a = product_with(
            &t,
            &e,
            "A",
            json!({"stock_qty": 4, "stock_location_id": shop}),
        );
        assert_eq!(dec(&a["stock_qty"]), d("4"));
        let list = movements(&t, "");
        assert_eq!(list.len(), 1);
        assert_eq!(list[0]["type"], "adjustment");
        assert_eq!(list[0]["location_id"], json!(shop));
        assert_eq!(list[0]["reference"], "Opening stock");

        // Another entity's location, an inactive one and an unknown one: nothing is created.
        let (s, other) = t.post("/api/entities", json!({"name": "Other Ltd"}));
        assert_eq!(s, Status::Created);
        let elsewhere = location(&t, other["data"]["id"].as_str().unwrap(), "Elsewhere");
        let (s, v) = t.post(
            "/api/products",
            json!({"name": "B", "entity_id": e, "stock_qty": 1, "stock_location_id": elsewhere}),
        );
        assert_eq!(s, Status::BadRequest, "{v}");
        assert!(
            v["message"].as_str().unwrap().contains("stock_location_id"),
            "{v}"
        );
        let closed = location(&t, &e, "Closed");
        let (s, _) = t.put(
            "/api/warehouse-locations",
            json!({"id": closed, "status": "inactive"}),
        );
        assert_eq!(s, Status::Ok);
        let r = t.post(
            "/api/products",
            json!({"name": "C", "entity_id": e, "stock_qty": 1, "stock_location_id": closed}),
        );
        assert!(assert_error(&r, Status::Conflict).contains("inactive"));
        let r = t.post(
            "/api/products",
            json!({"name": "D", "entity_id": e, "stock_qty": 1,
                   "stock_location_id": "6f1c2a58-0000-4000-8000-0000000000ff"}),
        );
        assert_error(&r, Status::NotFound);
        let (_, list) = t.get("/api/products");
        assert_eq!(list["data"].as_array().unwrap().len(), 1);
        assert_eq!(list["data"][0]["name"], "A");
        assert_eq!(movements(&t, "").len(), 1);
        check_invariants(&t);
    }

    #[test]
    fn a_put_of_stock_qty_records_an_unallocated_adjustment_for_the_difference() {
        let (t, e) = app_with_entity();
        let p = product_with(&t, &e, "A", json!({"stock_qty": 5}));
        let id = p["id"].as_str().unwrap();
        let l = location(&t, &e, "Main");
        moved(&t, id, Some(&l), "purchase", json!(2));
        let (s, v) = t.put("/api/products", json!({"id": id, "stock_qty": 10}));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(v["data"]["stock_qty"], json!(10));
        let list = movements(&t, "");
        assert_eq!(list[0]["type"], "adjustment");
        assert_eq!(list[0]["location_id"], Value::Null);
        assert_eq!(dec(&list[0]["qty"]), d("3"));
        assert_eq!(qty_at(&t, id, &l), d("2"), "the located stock is untouched");
        // The same value again: no movement.
        let (s, _) = t.put("/api/products", json!({"id": id, "stock_qty": 10}));
        assert_eq!(s, Status::Ok);
        assert_eq!(movements(&t, "").len(), 3);
        let (s, v) = t.put("/api/products", json!({"id": id, "stock_qty": 2.5}));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(dec(&movements(&t, "")[0]["qty"]), d("-7.5"));
        check_invariants(&t);
    }

    #[test]
    fn a_put_of_stock_qty_below_the_stock_at_locations_is_refused() {
        let (t, e) = app_with_entity();
        let p = product_with(&t, &e, "A", json!({"stock_qty": 1}));
        let id = p["id"].as_str().unwrap();
        let a = location(&t, &e, "A");
        let b = location(&t, &e, "B");
        moved(&t, id, Some(&a), "purchase", json!(3));
        moved(&t, id, Some(&b), "purchase", json!(1));
        let r = t.put(
            "/api/products",
            json!({"id": id, "stock_qty": 3.999, "name": "Renamed"}),
        );
        let msg = assert_error(&r, Status::Conflict);
        assert!(msg.contains("stock_qty") && msg.contains('4'), "{msg}");
        let now = get_product(&t, id);
        assert_eq!(now["stock_qty"], json!(5));
        assert_eq!(now["name"], "A", "a refused PUT changes nothing");
        assert_eq!(movements(&t, "").len(), 3);
        let (s, v) = t.put("/api/products", json!({"id": id, "stock_qty": 4}));
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(dec(&movements(&t, "")[0]["qty"]), d("-1"));
        check_invariants(&t);
    }

    #[test]
    fn the_product_total_is_its_located_plus_unallocated_stock() {
        let (t, e) = app_with_entity();
        let p = product_with(&t, &e, "A", json!({"stock_qty": 0.1}));
        let id = p["id"].as_str().unwrap();
        let a = location(&t, &e, "A");
        let b = location(&t, &e, "B");
        moved(&t, id, Some(&a), "purchase", json!(0.2));
        moved(&t, id, Some(&b), "return", json!(1.7));
        moved(&t, id, None, "sale", json!(-0.1));
        let now = get_product(&t, id);
        let raw = now.to_string();
        assert!(raw.contains("\"stock_qty\":1.9"), "{raw}");
        let levels = now["stock_levels"].as_array().unwrap();
        assert_eq!(levels.len(), 2);
        assert_eq!(levels[0]["location_id"]["name"], "A");
        assert_eq!(levels[0]["quantity"], json!(0.2));
        assert_eq!(levels[1]["quantity"], json!(1.7));
        check_invariants(&t);
    }

    // ---- DELETE rules ----

    #[test]
    fn a_product_with_only_an_empty_stock_row_can_be_deleted() {
        let (t, e) = app_with_entity();
        let id = product(&t, &e, "A");
        let l = location(&t, &e, "Main");
        let (s, v) = t.post(
            "/api/warehouse-stock",
            json!({"product_id": id, "location_id": l, "reorder_point": 3}),
        );
        assert_eq!(s, Status::Created, "{v}");
        let (s, v) = t.delete("/api/products", json!({"id": id}));
        assert_eq!(s, Status::Ok, "{v}");
        let (_, rows) = t.get("/api/warehouse-stock");
        assert_eq!(rows["data"], json!([]));
        assert_error(
            &t.delete("/api/products", json!({"id": id})),
            Status::NotFound,
        );
    }

    #[test]
    fn a_product_on_a_document_line_cannot_be_deleted() {
        let (t, e) = app_with_entity();
        let id = product(&t, &e, "A");
        let a = location(&t, &e, "A");
        let b = location(&t, &e, "B");
        insert_transfer_order(&t, &e, &a, &b, "draft", &[(&id, 1)]);
        let msg = assert_error(
            &t.delete("/api/products", json!({"id": id})),
            Status::Conflict,
        );
        assert!(msg.contains("SKU-00001"), "{msg}");
        get_product(&t, &id);
    }

    #[test]
    fn product_delete_refuses_malformed_unknown_and_foreign_ids() {
        let (t, e) = app_with_entity();
        let id = product(&t, &e, "A");
        assert!(assert_error(
            &t.delete("/api/products", json!({"id": "x"})),
            Status::BadRequest
        )
        .contains("id"));
        assert_eq!(
            assert_error(&t.delete("/api/products", json!({})), Status::BadRequest),
            "Missing required field: id"
        );
        assert_error(
            &t.delete("/api/products", json!({"id": uuid::Uuid::new_v4()})),
            Status::NotFound,
        );
        t.signup("intruder@example.com");
        assert_error(
            &t.delete("/api/products", json!({"id": id})),
            Status::NotFound,
        );
        assert_error(
            &t.put("/api/products", json!({"id": id, "stock_qty": 5})),
            Status::NotFound,
        );
        t.login("owner@example.com");
        assert_eq!(stock_qty(&t, &id), d("0"));
    }
}

fn names(v: &serde_json::Value) -> Vec<String> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn search_finds_a_substring_of_name_sku_or_barcode_ignoring_case() {
    let (t, e) = app_with_entity();
    for (name, sku, barcode) in [
        ("Brass Hinge", "HW-001", "5012345678900"),
        ("Steel hinge pin", "HW-002", "5012345678917"),
        ("Kettle", "KT-100", "4006381333931"),
    ] {
        let r = t.post(
            "/api/products",
            json!({"name": name, "sku": sku, "barcode": barcode, "entity_id": e}),
        );
        assert_eq!(r.0, Status::Created, "{}", r.1);
    }
    let q = |q: &str| names(&t.get(&format!("/api/products?entityId={e}&q={q}")).1);
    assert_eq!(q("HINGE"), ["Brass Hinge", "Steel hinge pin"]);
    assert_eq!(q("kt-1"), ["Kettle"]);
    assert_eq!(q("38133"), ["Kettle"]);
    // One or two characters are matched too (by a scan: trigrams need three).
    assert_eq!(q("pi"), ["Steel hinge pin"]);
    assert_eq!(q("nothing-like-this"), Vec::<String>::new());
    // Quotes in the query are text, not search syntax.
    assert_eq!(q("%22hinge"), Vec::<String>::new());
}

#[test]
fn ids_lists_only_the_products_named_and_refuses_a_malformed_one() {
    let (t, e) = app_with_entity();
    let mut ids = Vec::new();
    for name in ["Blue mug", "Red mug", "Kettle"] {
        let r = t.post("/api/products", json!({"name": name, "entity_id": e}));
        assert_eq!(r.0, Status::Created, "{}", r.1);
        ids.push(r.1["data"]["id"].as_str().unwrap().to_owned());
    }
    let (s, v) = t.get(&format!("/api/products?ids={},{}", ids[2], ids[0]));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(names(&v), ["Blue mug", "Kettle"]);
    // Another user's product is simply not in the list.
    t.signup("other@example.com");
    let (s, v) = t.get(&format!("/api/products?ids={}", ids[0]));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(names(&v), Vec::<String>::new());
    let (s, v) = t.get("/api/products?ids=not-an-id");
    assert_eq!(s, Status::BadRequest);
    assert_eq!(v["message"], "Invalid value for field `ids`: not a UUID");
}

#[test]
fn search_follows_renames_and_deletions() {
    let (t, e) = app_with_entity();
    let (_, p) = t.post("/api/products", json!({"name": "Teapot", "entity_id": e}));
    let id = p["data"]["id"].clone();
    let q = |q: &str| names(&t.get(&format!("/api/products?entityId={e}&q={q}")).1);
    assert_eq!(q("teap"), ["Teapot"]);
    t.put("/api/products", json!({"id": id, "name": "Coffee pot"}));
    assert!(q("teap").is_empty());
    assert_eq!(q("coffee"), ["Coffee pot"]);
    t.delete("/api/products", json!({"id": id}));
    assert!(q("coffee").is_empty());
}

/// The unpaged list is streamed, 500 products at a time with their stock levels; it is
/// the same list as one page holding everything.
#[test]
fn the_unpaged_list_streams_in_batches_and_matches_one_big_page() {
    let (t, e) = app_with_entity();
    let (s, l) = t.post(
        "/api/warehouse-locations",
        json!({"name": "Main", "entity_id": e}),
    );
    assert_eq!(s, Status::Created, "{l}");
    let location = l["data"]["id"].as_str().unwrap().to_owned();
    let mut ids = Vec::new();
    for i in 0..510 {
        let (s, v) = t.post(
            "/api/products",
            json!({"name": format!("Item {i:03}"), "entity_id": e}),
        );
        assert_eq!(s, Status::Created, "{v}");
        ids.push(v["data"]["id"].as_str().unwrap().to_owned());
    }
    // Stock on both sides of the batch boundary (products 499 and 500 in name order).
    for i in [0, 499, 500, 509] {
        let (s, v) = t.post(
            "/api/stock-movements",
            json!({"product_id": ids[i], "location_id": location, "type": "purchase",
                   "qty": i + 1}),
        );
        assert_eq!(s, Status::Created, "{v}");
    }
    let (s, streamed) = t.get(&format!("/api/products?entityId={e}"));
    assert_eq!(s, Status::Ok, "{streamed}");
    let (_, paged) = t.get(&format!("/api/products?entityId={e}&limit=1000"));
    assert_eq!(streamed, paged);
    let rows = streamed["data"].as_array().unwrap();
    assert_eq!(rows.len(), 510);
    for i in [0, 499, 500, 509] {
        assert_eq!(rows[i]["id"], json!(ids[i]));
        assert_eq!(
            rows[i]["stock_levels"][0]["quantity"],
            json!(i + 1),
            "product {i}"
        );
    }
    assert_eq!(rows[1]["stock_levels"], json!([]));
}
