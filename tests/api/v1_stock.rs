//! Stock on the public API (docs/public-api.md#endpoints): locations, stock levels and
//! the movement history, read with a key, with the session API's filters and the public
//! paging (`has_more`).

use super::common;

use common::stock_fixtures::*;
use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

fn key(t: &TestApp, entity: Option<&str>) -> String {
    let body = match entity {
        Some(e) => json!({ "name": "shop system", "entity_id": e }),
        None => json!({ "name": "shop system" }),
    };
    let (s, v) = t.post("/api/api-keys", body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["raw_key"].as_str().unwrap().to_owned()
}

fn ids(v: &Value) -> Vec<String> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_shop_system_reads_locations_stock_and_movements_with_a_key() {
    let (t, e) = app_with_entity();
    let other = t.entity("Other shop");
    let bolt = product(&t, &e, "Bolt");
    let nut = product(&t, &e, "Nut");
    let main = location(&t, &e, "Main");
    let back = location(&t, &e, "Back room");
    location(&t, &other, "Elsewhere");
    let mut made = Vec::new();
    for (p, l, q) in [
        (&bolt, &main, 5),
        (&nut, &main, 3),
        (&bolt, &back, 2),
        (&bolt, &main, 1),
    ] {
        made.push(
            moved(&t, p, Some(l), "purchase", json!(q))["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let sale = moved(&t, &bolt, Some(&main), "sale", json!(-4));
    made.push(sale["id"].as_str().unwrap().to_owned());
    let k = key(&t, Some(&e));

    let (s, v) = t.get_with_key("/api/v1/warehouse-locations", &k);
    assert_eq!(s, Status::Ok, "{v}");
    let names: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Back room", "Main"], "the key's entity only");
    assert_eq!(v["has_more"], false);

    let (s, v) = t.get_with_key(&format!("/api/v1/warehouse-stock?productId={bolt}"), &k);
    assert_eq!(s, Status::Ok, "{v}");
    let mut levels: Vec<(String, String)> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        // The unallocated row (no location) holds nothing here.
        .filter(|r| !r["location_id"].is_null())
        .map(|r| {
            (
                r["location_id"]["id"].as_str().unwrap().to_owned(),
                r["quantity"].to_string(),
            )
        })
        .collect();
    levels.sort();
    let mut want = vec![
        (main.clone(), "2".to_owned()),
        (back.clone(), "2".to_owned()),
    ];
    want.sort();
    assert_eq!(levels, want, "{v}");

    // Movements: oldest first, paged with has_more, each once.
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let (s, v) = t.get_with_key(
            &format!("/api/v1/stock-movements?limit=2&offset={offset}"),
            &k,
        );
        assert_eq!(s, Status::Ok, "{v}");
        seen.extend(ids(&v));
        if v["has_more"] == false {
            break;
        }
        offset += 2;
        assert!(offset < 20, "has_more never ended");
    }
    assert_eq!(seen, made, "ledger order, oldest first");
    let (_, v) = t.get_with_key(
        &format!("/api/v1/stock-movements?type=sale&locationId={main}"),
        &k,
    );
    assert_eq!(ids(&v), vec![sale["id"].as_str().unwrap().to_owned()]);
    // The session API's CSV format is not part of the public list.
    let r = t.get_with_key("/api/v1/stock-movements?format=csv", &k);
    assert_eq!(r.1["code"], "unknown_parameter", "{}", r.1);
    // Another entity's product is a 404 for this key, as on the session API.
    let theirs = product(&t, &other, "Theirs");
    assert_error(
        &t.get_with_key(&format!("/api/v1/warehouse-stock?productId={theirs}"), &k),
        Status::NotFound,
    );
    assert_error(
        &t.get_with_key(&format!("/api/v1/stock-movements?entityId={other}"), &k),
        Status::Forbidden,
    );
}

/// docs/public-api.md#incremental-sync: every public list takes `updated_since` and its
/// records carry `updated_at`; a nightly sync reads only what changed.
#[test]
fn a_nightly_sync_reads_only_what_changed_since_its_last_run() {
    let (t, e) = app_with_entity();
    t.clock.freeze();
    let k = key(&t, Some(&e));
    let p = product(&t, &e, "Bolt");
    let untouched = product(&t, &e, "Nut");
    let main = location(&t, &e, "Main");
    location(&t, &e, "Back");
    moved(&t, &p, Some(&main), "purchase", json!(5));
    let c = session_contact(&t, Some(&e), "Customer");
    let (s, inv) = t.post(
        "/api/invoices",
        json!({ "contact_id": c, "entity_id": e, "lines": [{ "description": "x", "unit_price": 1 }] }),
    );
    assert_eq!(s, Status::Created, "{inv}");
    let lists = [
        "products",
        "warehouse-locations",
        "warehouse-stock",
        "stock-movements",
        "invoices",
        "contacts",
        "categories",
        "payments",
        "transactions",
        "bills",
        "credit-notes",
        "supplier-credits",
        "employees",
    ];
    // Every record of every list carries updated_at.
    for list in lists {
        let (s, v) = t.get_with_key(&format!("/api/v1/{list}"), &k);
        assert_eq!(s, Status::Ok, "{list}: {v}");
        for r in v["data"].as_array().unwrap() {
            assert!(
                r["updated_at"].as_str().is_some_and(|t| t.ends_with('Z')),
                "{list}: {r}"
            );
        }
    }
    let last_run = stockbook::clock::rfc3339(t.clock.now());
    t.clock.advance(3600);
    // The day's changes: a price, a location renamed, stock moved, the invoice posted.
    let (s, v) = t.put("/api/products", json!({ "id": p, "unit_price": 2 }));
    assert_eq!(s, Status::Ok, "{v}");
    let (s, v) = t.put(
        "/api/warehouse-locations",
        json!({ "id": main, "name": "Front" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let sale = moved(&t, &p, Some(&main), "sale", json!(-1));
    let (s, v) = t.put(
        "/api/invoices",
        json!({ "id": inv["data"]["id"], "notes": "paid by card" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let since = stockbook::clock::rfc3339(t.clock.now() - time::Duration::seconds(1800));
    let changed = |list: &str| -> Vec<Value> {
        let (s, v) = t.get_with_key(&format!("/api/v1/{list}?updated_since={since}"), &k);
        assert_eq!(s, Status::Ok, "{list}: {v}");
        v["data"].as_array().unwrap().clone()
    };
    let one = |list: &str| -> String {
        let rows = changed(list);
        assert_eq!(rows.len(), 1, "{list}: {rows:?}");
        rows[0]["id"].as_str().unwrap().to_owned()
    };
    assert_eq!(one("products"), p);
    assert_eq!(one("warehouse-locations"), main);
    assert_eq!(one("stock-movements"), sale["id"].as_str().unwrap());
    assert_eq!(one("invoices"), inv["data"]["id"].as_str().unwrap());
    let rows = changed("warehouse-stock");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["product_id"]["id"], json!(p));
    for list in [
        "contacts",
        "categories",
        "payments",
        "transactions",
        "employees",
    ] {
        assert_eq!(changed(list), Vec::<Value>::new(), "{list}");
    }
    let _ = untouched;
    // Inclusive, and an offset is taken: the last run's own second is read again.
    let (_, v) = t.get_with_key(
        &format!(
            "/api/v1/contacts?updated_since={}",
            last_run.replace('Z', "%2B00:00")
        ),
        &k,
    );
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    for bad in ["yesterday", "2026-11-01", "2026-11-01T09:00:00", ""] {
        let r = t.get_with_key(&format!("/api/v1/products?updated_since={bad}"), &k);
        assert_eq!(r.1["field"], "updated_since", "{bad}: {}", r.1);
    }
}
