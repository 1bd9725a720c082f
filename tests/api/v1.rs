//! The public API (docs/public-api.md): key scoping, paging, the rate
//! limit, the create endpoints and the `/api/v1` fallback.

use super::common;

use std::collections::BTreeSet;

use common::*;
use rocket::http::{ContentType, Header, Status};
use rocket::local::blocking::LocalResponse;
use serde_json::{json, Value};

fn key(t: &TestApp, entity: Option<&str>) -> String {
    let body = match entity {
        Some(e) => json!({ "name": "test key", "entity_id": e }),
        None => json!({ "name": "test key" }),
    };
    let (s, v) = t.post("/api/api-keys", body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["raw_key"].as_str().unwrap().to_owned()
}

fn names(v: &Value) -> Vec<String> {
    v["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data: {v}"))
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

fn raw_get<'c>(t: &'c TestApp, path: &str, key: &str) -> LocalResponse<'c> {
    t.client
        .get(path.to_owned())
        .header(Header::new("Authorization", format!("Bearer {key}")))
        .dispatch()
}

fn header(res: &LocalResponse<'_>, name: &str) -> Option<String> {
    res.headers().get_one(name).map(str::to_owned)
}

fn header_num(res: &LocalResponse<'_>, name: &str) -> i64 {
    header(res, name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .parse()
        .unwrap()
}

// ----------------------------------------------------------------------------------
// Scoping

/// User A with entities E1 and E2 (and a record without entity); user B with F.
struct World {
    t: TestApp,
    e1: String,
    e2: String,
    f: String,
    scoped: String,
    unscoped: String,
    other: String,
}

fn world() -> World {
    let t = app();
    t.signup("b@example.com");
    let f = t.entity("B Ltd");
    session_contact(&t, Some(&f), "B contact");
    let other = key(&t, None);

    t.signup("a@example.com");
    let e1 = t.entity("One Ltd");
    let e2 = t.entity("Two Ltd");
    session_contact(&t, Some(&e1), "E1 contact");
    session_contact(&t, Some(&e2), "E2 contact");
    session_contact(&t, None, "No entity contact");
    let scoped = key(&t, Some(&e1));
    let unscoped = key(&t, None);
    World {
        t,
        e1,
        e2,
        f,
        scoped,
        unscoped,
        other,
    }
}

#[test]
fn a_scoped_key_sees_one_entity_an_unscoped_key_all_of_its_creators_and_neither_another_users() {
    let w = world();
    let t = &w.t;
    let (s, v) = t.get_with_key("/api/v1/contacts", &w.scoped);
    assert_eq!(s, Status::Ok);
    assert_eq!(names(&v), ["E1 contact"]);
    let (_, v) = t.get_with_key("/api/v1/contacts", &w.unscoped);
    assert_eq!(names(&v), ["E1 contact", "E2 contact", "No entity contact"]);
    let (_, v) = t.get_with_key("/api/v1/contacts", &w.other);
    assert_eq!(names(&v), ["B contact"]);

    // Categories: the standard set of each visible entity only.
    let (_, v) = t.get_with_key("/api/v1/categories?limit=200", &w.scoped);
    let cats = v["data"].as_array().unwrap();
    assert!(!cats.is_empty());
    assert!(cats.iter().all(|c| c["entity_id"] == json!(w.e1)));
    let (_, v2) = t.get_with_key("/api/v1/categories?limit=200", &w.unscoped);
    assert_eq!(v2["data"].as_array().unwrap().len(), 2 * cats.len());

    // The entity filter narrows an unscoped key, and cannot widen a scoped one.
    let (_, v) = t.get_with_key(&format!("/api/v1/contacts?entityId={}", w.e2), &w.unscoped);
    assert_eq!(names(&v), ["E2 contact"]);
    assert_error(
        &t.get_with_key(&format!("/api/v1/contacts?entityId={}", w.e2), &w.scoped),
        Status::Forbidden,
    );
    assert_error(
        &t.get_with_key(&format!("/api/v1/contacts?entityId={}", w.f), &w.unscoped),
        Status::NotFound,
    );
    assert_error(
        &t.get_with_key(&format!("/api/v1/contacts?entityId={}", w.e1), &w.other),
        Status::NotFound,
    );
}

#[test]
fn a_scoped_key_posting_another_entity_id_is_forbidden() {
    let w = world();
    let t = &w.t;
    for path in ["/api/v1/contacts", "/api/v1/products"] {
        let msg = assert_error(
            &t.post_with_key(path, &w.scoped, json!({ "name": "x", "entity_id": w.e2 })),
            Status::Forbidden,
        );
        assert!(msg.contains("scoped"), "{msg}");
        // Another user's entity is not found, as everywhere.
        assert_error(
            &t.post_with_key(path, &w.scoped, json!({ "name": "x", "entity_id": w.f })),
            Status::NotFound,
        );
    }
    let c2 = {
        let (_, v) = t.get_with_key(&format!("/api/v1/contacts?entityId={}", w.e2), &w.unscoped);
        v["data"][0]["id"].as_str().unwrap().to_owned()
    };
    assert_error(
        &t.post_with_key(
            "/api/v1/invoices",
            &w.scoped,
            json!({ "contact_id": c2, "entity_id": w.e2 }),
        ),
        Status::Forbidden,
    );
    // A contact of another entity is invisible to the scoped key.
    assert_error(
        &t.post_with_key("/api/v1/invoices", &w.scoped, json!({ "contact_id": c2 })),
        Status::NotFound,
    );

    // Without entity_id a scoped key's record lands in its entity.
    let (s, v) = t.post_with_key("/api/v1/contacts", &w.scoped, json!({ "name": "Via key" }));
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["entity_id"], json!(w.e1));
    let (_, v) = t.get_with_key("/api/v1/contacts", &w.scoped);
    assert_eq!(names(&v), ["E1 contact", "Via key"]);
    // An unscoped key may create without an entity.
    let (s, v) = t.post_with_key("/api/v1/contacts", &w.unscoped, json!({ "name": "Loose" }));
    assert_eq!(s, Status::Created);
    assert!(v["data"]["entity_id"].is_null());
}

// ----------------------------------------------------------------------------------
// Paging

#[test]
fn paging_120_records_by_50_returns_each_exactly_once_in_creation_order() {
    let (t, e) = app_with_entity();
    let mut created = Vec::new();
    for i in 0..120 {
        // Names in reverse, so creation order differs from name order.
        created.push(session_contact(&t, Some(&e), &format!("c{:03}", 200 - i)));
    }
    let k = key(&t, None);
    let mut seen = Vec::new();
    for (offset, want, more) in [
        (0, 50, true),
        (50, 50, true),
        (100, 20, false),
        (150, 0, false),
    ] {
        let (s, v) = t.get_with_key(&format!("/api/v1/contacts?limit=50&offset={offset}"), &k);
        assert_eq!(s, Status::Ok);
        assert_eq!(v["limit"], json!(50));
        assert_eq!(v["offset"], json!(offset));
        assert_eq!(v["has_more"], json!(more), "offset {offset}");
        let page = v["data"].as_array().unwrap();
        assert_eq!(page.len(), want, "offset {offset}");
        seen.extend(page.iter().map(|c| c["id"].as_str().unwrap().to_owned()));
    }
    assert_eq!(seen, created, "each record once, in creation order");
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), 120);
}

#[test]
fn limit_defaults_to_50_and_above_200_is_served_as_200() {
    let (t, e) = app_with_entity();
    for i in 0..210 {
        session_contact(&t, Some(&e), &format!("c{i}"));
    }
    let k = key(&t, Some(&e));
    let (_, v) = t.get_with_key("/api/v1/contacts", &k);
    assert_eq!(v["data"].as_array().unwrap().len(), 50);
    assert_eq!(v["limit"], json!(50));
    assert_eq!(v["offset"], json!(0));
    let (s, v) = t.get_with_key("/api/v1/contacts?limit=500", &k);
    assert_eq!(s, Status::Ok);
    assert_eq!(v["data"].as_array().unwrap().len(), 200);
    assert_eq!(v["limit"], json!(200));
    assert_eq!(v["has_more"], json!(true));
    let (_, v) = t.get_with_key("/api/v1/contacts?limit=200&offset=200", &k);
    assert_eq!(v["data"].as_array().unwrap().len(), 10);
    assert_eq!(v["has_more"], json!(false));
    // A page that ends exactly at the last record says so: no empty page is needed.
    let (_, v) = t.get_with_key("/api/v1/contacts?limit=10&offset=200", &k);
    assert_eq!(v["data"].as_array().unwrap().len(), 10);
    assert_eq!(v["has_more"], json!(false));
    let (_, v) = t.get_with_key("/api/v1/contacts?limit=10&offset=199", &k);
    assert_eq!(v["has_more"], json!(true));
}

/// docs/public-api.md#query-parameters: an unknown query parameter is a 400 naming it,
/// on every list (`?id=` once answered every product).
#[test]
fn an_unknown_query_parameter_is_a_400_naming_it() {
    let (t, e) = app_with_entity();
    let k = key(&t, None);
    for list in [
        "transactions",
        "invoices",
        "bills",
        "credit-notes",
        "contacts",
        "products",
        "employees",
        "categories",
        "payments",
    ] {
        for q in ["id=7", "entityid=x", "limit=1&Offset=2", "search=a"] {
            let name = q.rsplit('&').next().unwrap().split('=').next().unwrap();
            let msg = assert_error(
                &t.get_with_key(&format!("/api/v1/{list}?{q}"), &k),
                Status::BadRequest,
            );
            assert!(msg.contains(&format!("`{name}`")), "{list}?{q}: {msg}");
        }
        let (s, v) = t.get_with_key(&format!("/api/v1/{list}?entityId={e}&limit=2&offset=0"), &k);
        assert_eq!(s, Status::Ok, "{list}: {v}");
    }
    // Without a key the answer is still 401: nothing is told to an anonymous caller.
    let res = t.client.get("/api/v1/products?id=7").dispatch();
    assert_eq!(res.status(), Status::Unauthorized);
}

#[test]
fn bad_paging_values_are_400_on_every_list() {
    let (t, _) = app_with_entity();
    let k = key(&t, None);
    for list in [
        "transactions",
        "invoices",
        "bills",
        "contacts",
        "products",
        "employees",
        "categories",
    ] {
        for (q, field) in [
            ("limit=0", "limit"),
            ("limit=-5", "limit"),
            ("limit=abc", "limit"),
            ("limit=1.5", "limit"),
            ("limit=", "limit"),
            ("offset=-1", "offset"),
            ("offset=x", "offset"),
            ("offset=2.5", "offset"),
            ("limit=1&limit=2", "limit"),
            ("entityId=not-a-uuid", "entityId"),
        ] {
            let msg = assert_error(
                &t.get_with_key(&format!("/api/v1/{list}?{q}"), &k),
                Status::BadRequest,
            );
            assert!(msg.contains(field), "{list}?{q}: {msg}");
        }
        let (s, v) = t.get_with_key(&format!("/api/v1/{list}?limit=1&offset=0"), &k);
        assert_eq!(s, Status::Ok, "{list}: {v}");
        assert_eq!(v["limit"], json!(1));
    }
}

// ----------------------------------------------------------------------------------
// Rate limit

#[test]
fn the_61st_request_in_a_minute_is_429_with_retry_after_and_the_window_recovers() {
    let (t, _) = app_with_entity();
    let k = key(&t, None);
    for i in 0..60 {
        let res = raw_get(&t, "/api/v1/contacts", &k);
        assert_eq!(res.status(), Status::Ok, "request {}", i + 1);
        assert_eq!(header_num(&res, "X-RateLimit-Limit"), 60);
        assert_eq!(header_num(&res, "X-RateLimit-Remaining"), 59 - i);
        let reset = header_num(&res, "X-RateLimit-Reset");
        assert!((1..=60).contains(&reset), "{reset}");
    }
    let res = raw_get(&t, "/api/v1/contacts", &k);
    assert_eq!(res.status(), Status::TooManyRequests);
    let retry: i64 = header(&res, "Retry-After").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert_eq!(header_num(&res, "X-RateLimit-Remaining"), 0);
    assert_eq!(header_num(&res, "X-RateLimit-Reset"), retry);
    let refused = body(res);
    let msg = assert_error(&refused, Status::TooManyRequests);
    assert!(msg.contains("Rate limit"), "{msg}");

    // Other endpoints (another path, or the same path with another method) still answer.
    assert_eq!(raw_get(&t, "/api/v1/invoices", &k).status(), Status::Ok);
    let (s, _) = t.post_with_key("/api/v1/contacts", &k, json!({ "name": "still fine" }));
    assert_eq!(s, Status::Created);
    // Another key has its own budget.
    let k2 = key(&t, None);
    assert_eq!(raw_get(&t, "/api/v1/contacts", &k2).status(), Status::Ok);

    // More refused requests do not count...
    for _ in 0..5 {
        assert_eq!(
            raw_get(&t, "/api/v1/contacts", &k).status(),
            Status::TooManyRequests
        );
    }
    // ...so once the minute has passed the whole budget is back.
    t.clock.advance(61);
    let res = raw_get(&t, "/api/v1/contacts", &k);
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(header_num(&res, "X-RateLimit-Remaining"), 59);
}

#[test]
fn the_window_rolls_request_by_request() {
    let (t, _) = app_with_entity();
    let k = key(&t, None);
    for _ in 0..30 {
        assert_eq!(raw_get(&t, "/api/v1/employees", &k).status(), Status::Ok);
    }
    t.clock.advance(30);
    for _ in 0..30 {
        assert_eq!(raw_get(&t, "/api/v1/employees", &k).status(), Status::Ok);
    }
    let res = raw_get(&t, "/api/v1/employees", &k);
    assert_eq!(res.status(), Status::TooManyRequests);
    let retry: i64 = header(&res, "Retry-After").unwrap().parse().unwrap();
    assert!(retry <= 30, "the first 30 leave the window first: {retry}");
    t.clock.advance(31);
    // The first 30 left the window; the later 30 still count.
    let res = raw_get(&t, "/api/v1/employees", &k);
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(header_num(&res, "X-RateLimit-Remaining"), 29);
}

#[test]
fn authentication_failures_do_not_spend_a_budget_and_carry_no_rate_headers() {
    let (t, _) = app_with_entity();
    let k = key(&t, None);
    let forged = format!("sbk_{}", "A".repeat(40));
    for _ in 0..70 {
        let res = raw_get(&t, "/api/v1/contacts", &forged);
        assert_eq!(res.status(), Status::Unauthorized);
        assert!(header(&res, "X-RateLimit-Remaining").is_none());
    }
    let res = raw_get(&t, "/api/v1/contacts", &k);
    assert_eq!(res.status(), Status::Ok);
    assert_eq!(header_num(&res, "X-RateLimit-Remaining"), 59);
}

#[test]
fn every_answer_after_authentication_carries_the_rate_headers() {
    let (t, _) = app_with_entity();
    let k = key(&t, None);
    let auth = || Header::new("Authorization", format!("Bearer {k}"));
    let answers: Vec<LocalResponse<'_>> = vec![
        t.client.get("/api/v1/contacts").header(auth()).dispatch(),
        t.client
            .post("/api/v1/contacts")
            .header(auth())
            .header(ContentType::JSON)
            .body(r#"{"name":"x"}"#)
            .dispatch(),
        t.client
            .post("/api/v1/contacts")
            .header(auth())
            .header(ContentType::JSON)
            .body("{}")
            .dispatch(),
        t.client
            .get("/api/v1/contacts?limit=0")
            .header(auth())
            .dispatch(),
        t.client
            .post("/api/v1/contacts")
            .header(auth())
            .header(ContentType::Text)
            .body("name=x")
            .dispatch(),
        t.client.get("/api/v1/nowhere").header(auth()).dispatch(),
        t.client.put("/api/v1/contacts").header(auth()).dispatch(),
    ];
    let statuses: Vec<u16> = answers.iter().map(|r| r.status().code).collect();
    assert_eq!(statuses, [200, 201, 400, 400, 415, 404, 405]);
    for r in &answers {
        assert_eq!(header_num(r, "X-RateLimit-Limit"), 60, "{}", r.status());
        assert!(header(r, "X-RateLimit-Remaining").is_some());
        assert!(header(r, "X-RateLimit-Reset").is_some());
    }
}

// ----------------------------------------------------------------------------------
// Create endpoints and record shapes

#[test]
fn v1_creates_validate_exactly_like_the_session_api() {
    let (t, e) = app_with_entity();
    let k = key(&t, None);
    for (path, v1) in [
        ("/api/contacts", "/api/v1/contacts"),
        ("/api/invoices", "/api/v1/invoices"),
        ("/api/bills", "/api/v1/bills"),
    ] {
        for body in [
            json!({}),
            json!({ "name": 5 }),
            json!({ "contact_id": "x" }),
            json!({ "name": "ok", "type": "partner" }),
            json!({ "name": "ok", "entity_id": "00000000-0000-4000-8000-000000000000" }),
        ] {
            let a = t.post(path, body.clone());
            let b = t.post_with_key(v1, &k, body.clone());
            assert_eq!(a.0, b.0, "{v1} {body}");
            assert_eq!(a.1["message"], b.1["message"], "{v1} {body}");
        }
    }
    let c = session_contact(&t, Some(&e), "Customer");
    let (s, v) = t.post_with_key(
        "/api/v1/invoices",
        &k,
        json!({ "contact_id": c, "lines": [
            { "description": "a", "quantity": 1, "unit_price": 0.125 },
            { "description": "b", "quantity": 3, "unit_price": 1.415, "vat_rate": 5 }
        ] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["number"], "INV-0001");
    assert_eq!(v["data"]["total"].to_string(), "4.62");
    assert_eq!(v["data"]["entity_id"], json!(e));
    let (s, v) = t.post_with_key(
        "/api/v1/bills",
        &k,
        json!({ "contact_id": c, "number": "B1" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_error(
        &t.post_with_key(
            "/api/v1/bills",
            &k,
            json!({ "contact_id": c, "number": "b1" }),
        ),
        Status::Conflict,
    );

    let (_, v) = t.get_with_key("/api/v1/invoices", &k);
    assert_eq!(v["data"][0]["lines"].as_array().unwrap().len(), 2);
    assert_eq!(v["data"][0]["lines"][1]["vat"].to_string(), "0.21");
    let (_, v) = t.get_with_key("/api/v1/bills", &k);
    assert_eq!(v["data"][0]["number"], "B1");
    assert!(v["data"][0]["lines"].is_array());
    // The public API shows the same record shapes as the session API.
    let (_, session) = t.get("/api/invoices");
    let (_, public) = t.get_with_key("/api/v1/invoices", &k);
    assert_eq!(session["data"], public["data"]);
}

#[test]
fn v1_products_follow_the_product_rules() {
    let (t, e) = app_with_entity();
    let k = key(&t, Some(&e));
    let (s, v) = t.post_with_key("/api/v1/products", &k, json!({ "name": "Bolt" }));
    assert_eq!(s, Status::Created, "{v}");
    let p = &v["data"];
    assert_eq!(p["sku"], "SKU-00001");
    assert_eq!(p["vat_rate"], json!(20));
    assert_eq!(p["low_stock_threshold"], json!(5));
    assert_eq!(p["unit"], "pcs");
    assert_eq!(p["active"], json!(true));
    assert_eq!(p["stock_qty"], json!(0));
    assert_eq!(p["entity_id"], json!(e));
    assert_eq!(p["stock_levels"], json!([]));

    let (_, v) = t.post_with_key("/api/v1/products", &k, json!({ "name": "Nut" }));
    assert_eq!(v["data"]["sku"], "SKU-00002");
    let (s, _) = t.post_with_key(
        "/api/v1/products",
        &k,
        json!({ "name": "Washer", "sku": "W-1" }),
    );
    assert_eq!(s, Status::Created);
    let msg = assert_error(
        &t.post_with_key(
            "/api/v1/products",
            &k,
            json!({ "name": "Dup", "sku": "w-1" }),
        ),
        Status::Conflict,
    );
    assert!(msg.contains("w-1"), "{msg}");

    let (s, v) = t.post_with_key(
        "/api/v1/products",
        &k,
        json!({ "name": "Cable", "stock_qty": 12.5, "unit_price": 2.5, "cost_price": 1.1,
                "vat_rate": 5, "low_stock_threshold": 0, "unit": "m" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["stock_qty"], json!(12.5));
    assert_eq!(v["data"]["unit_price"], json!(2.5));
    let pid = v["data"]["id"].as_str().unwrap().to_owned();
    let movements: Vec<(String, i64, Option<String>)> =
        t.db.read_sync(move |c| {
            let mut stmt = c.prepare(
                "SELECT type, qty, location_id FROM stock_movements WHERE product_id = ?1",
            )?;
            let rows = stmt
                .query_map([&pid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .unwrap();
    assert_eq!(movements, [("adjustment".to_owned(), 12_500, None)]);

    for (body, field) in [
        (json!({}), "name"),
        (json!({ "name": "x", "unit_price": -1 }), "unit_price"),
        (json!({ "name": "x", "cost_price": -0.01 }), "cost_price"),
        (json!({ "name": "x", "vat_rate": 100.5 }), "vat_rate"),
        (json!({ "name": "x", "vat_rate": -1 }), "vat_rate"),
        (
            json!({ "name": "x", "low_stock_threshold": -1 }),
            "low_stock_threshold",
        ),
        (json!({ "name": "x", "unit_price": 0.00001 }), "unit_price"),
        (json!({ "name": "x", "stock_qty": 0.0001 }), "stock_qty"),
    ] {
        let msg = assert_error(
            &t.post_with_key("/api/v1/products", &k, body.clone()),
            Status::BadRequest,
        );
        assert!(msg.contains(field), "{body}: {msg}");
    }

    let (_, v) = t.get_with_key("/api/v1/products", &k);
    let skus: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sku"].as_str().unwrap())
        .collect();
    assert_eq!(skus, ["SKU-00001", "SKU-00002", "W-1", "SKU-00003"]);
}

#[test]
fn v1_products_are_the_session_products_in_creation_order() {
    let (t, e) = app_with_entity();
    let other = t.entity("Other Ltd");
    let (_, loc) = t.post(
        "/api/warehouse-locations",
        json!({ "name": "Main", "entity_id": e }),
    );
    let mut created = Vec::new();
    for name in ["Pump", "Nozzle", "Hose", "Filter", "Clamp"] {
        let (s, v) = t.post("/api/products", json!({ "name": name, "entity_id": e }));
        assert_eq!(s, Status::Created, "{v}");
        created.push(v["data"]["id"].as_str().unwrap().to_owned());
    }
    t.post(
        "/api/products",
        json!({ "name": "Elsewhere", "entity_id": other }),
    );
    let (s, v) = t.post(
        "/api/warehouse-stock",
        json!({ "product_id": created[1], "location_id": loc["data"]["id"], "quantity": 4 }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let k = key(&t, Some(&e));
    let (s, v) = t.post_with_key(
        "/api/v1/products",
        &k,
        json!({ "name": "Adapter", "provider": "shopify", "provider_ref": "gid-7" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["provider_ref"], "gid-7");
    created.push(v["data"]["id"].as_str().unwrap().to_owned());

    // Creation order, page by page, whatever the names.
    let mut seen = Vec::new();
    let mut public = Vec::new();
    for offset in [0, 2, 4, 6] {
        let (s, v) = t.get_with_key(&format!("/api/v1/products?limit=2&offset={offset}"), &k);
        assert_eq!(s, Status::Ok, "{v}");
        assert_eq!(v["offset"], json!(offset));
        for p in v["data"].as_array().unwrap() {
            seen.push(p["id"].as_str().unwrap().to_owned());
            public.push(p.clone());
        }
    }
    assert_eq!(seen, created);

    // The same records as the session API shows them (which lists them by name).
    let (_, session) = t.get(&format!("/api/products?entityId={e}"));
    let mut session = session["data"].as_array().unwrap().clone();
    let by_id = |a: &Value, b: &Value| a["id"].as_str().cmp(&b["id"].as_str());
    session.sort_by(by_id);
    public.sort_by(by_id);
    assert_eq!(session, public);
    let hose = public
        .iter()
        .find(|p| p["id"] == json!(created[1]))
        .unwrap();
    assert_eq!(hose["stock_qty"], json!(4));
    assert_eq!(hose["stock_levels"][0]["location_id"]["name"], "Main");
}

#[test]
fn v1_lists_employees_and_transactions() {
    let (t, e) = app_with_entity();
    let (s, _) = t.post("/api/employees", json!({ "name": "Ann", "entity_id": e }));
    assert_eq!(s, Status::Created);
    let (s, _) = t.post(
        "/api/transactions",
        json!({ "amount": -12.34, "description": "Card", "entity_id": e }),
    );
    assert_eq!(s, Status::Created);
    let k = key(&t, Some(&e));
    let (_, v) = t.get_with_key("/api/v1/employees", &k);
    assert_eq!(names(&v), ["Ann"]);
    let (_, v) = t.get_with_key("/api/v1/transactions", &k);
    assert_eq!(v["data"][0]["amount"], json!(-12.34));
}

// ----------------------------------------------------------------------------------
// The /api/v1 fallback

#[test]
fn unknown_public_paths_need_a_key_before_they_say_anything() {
    let (t, _) = app_with_entity();
    let k = key(&t, None);
    let anon = body(t.client.get("/api/v1/secret-things").dispatch());
    assert_error(&anon, Status::Unauthorized);
    let anon = body(t.client.delete("/api/v1/contacts").dispatch());
    assert_error(&anon, Status::Unauthorized);
    assert_error(
        &t.get_with_key("/api/v1/secret-things", &k),
        Status::NotFound,
    );
    assert_error(&t.get_with_key("/api/v1", &k), Status::NotFound);
    let put = body(
        t.client
            .put("/api/v1/contacts")
            .header(Header::new("Authorization", format!("Bearer {k}")))
            .header(ContentType::JSON)
            .body("{}")
            .dispatch(),
    );
    let msg = assert_error(&put, Status::MethodNotAllowed);
    assert!(msg.contains("PUT"), "{msg}");
    assert_error(
        &t.post_with_key("/api/v1/employees", &k, json!({ "name": "x" })),
        Status::MethodNotAllowed,
    );
}

#[test]
fn public_writes_must_be_json() {
    let (t, _) = app_with_entity();
    let k = key(&t, None);
    let res = body(
        t.client
            .post("/api/v1/contacts")
            .header(Header::new("Authorization", format!("Bearer {k}")))
            .header(ContentType::Form)
            .body("name=x")
            .dispatch(),
    );
    assert_error(&res, Status::UnsupportedMediaType);
}
