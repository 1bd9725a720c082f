//! Look-alike identifiers (docs/inventory.md#look-alike-identifiers, docs/auth.md#sign-up):
//! SKUs and emails that differ only by Unicode compatibility forms, composition, case or
//! invisible characters are one identifier; what was typed is what is shown.

use super::common;

use common::{app, app_with_entity, assert_error, login_as, signup_with, PASSWORD};
use rocket::http::Status;
use serde_json::{json, Value};

/// One SKU and the variants that must compare equal to it: full-width, decomposed (E and
/// a combining acute accent), with zero-width and invisible characters, other case.
const SKU: &str = "CAFÉ-1";
const VARIANTS: [&str; 6] = [
    "ＣＡＦÉ－１",
    "CAFE\u{301}-1",
    "CA\u{200B}FÉ-1",
    "CAF\u{00AD}É\u{2060}-1\u{FEFF}",
    "caf\u{200C}é\u{200D}-1",
    "café-1",
];

#[test]
fn look_alike_skus_are_one_sku_on_create_and_on_put_and_are_shown_as_typed() {
    let (t, e) = app_with_entity();
    let (s, first) = t.post(
        "/api/products",
        json!({"name": "A", "sku": SKU, "entity_id": e}),
    );
    assert_eq!(s, Status::Created, "{first}");
    for v in VARIANTS {
        let r = t.post(
            "/api/products",
            json!({"name": "B", "sku": v, "entity_id": e}),
        );
        assert_error(&r, Status::Conflict);
    }
    // A product with another SKU cannot be renamed to a look-alike either.
    let (s, other) = t.post(
        "/api/products",
        json!({"name": "C", "sku": "TEA-1", "entity_id": e}),
    );
    assert_eq!(s, Status::Created, "{other}");
    let r = t.put(
        "/api/products",
        json!({"id": other["data"]["id"], "sku": VARIANTS[0]}),
    );
    assert_error(&r, Status::Conflict);
    // The product itself may be re-typed as a look-alike, and shows what was typed.
    let (s, v) = t.put(
        "/api/products",
        json!({"id": first["data"]["id"], "sku": VARIANTS[1]}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let (_, list) = t.get(&format!("/api/products?entityId={e}"));
    let skus: Vec<&Value> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["sku"])
        .collect();
    assert_eq!(skus, [&json!(VARIANTS[1]), &json!("TEA-1")]);
}

#[test]
fn the_public_api_refuses_a_look_alike_sku_too() {
    let (t, e) = app_with_entity();
    let (_, k) = t.post("/api/api-keys", json!({"name": "k"}));
    let key = k["data"]["raw_key"].as_str().unwrap().to_owned();
    let (s, v) = t.post_with_key(
        "/api/v1/products",
        &key,
        json!({"name": "A", "sku": SKU, "entity_id": e}),
    );
    assert_eq!(s, Status::Created, "{v}");
    let r = t.post_with_key(
        "/api/v1/products",
        &key,
        json!({"name": "B", "sku": VARIANTS[0], "entity_id": e}),
    );
    assert_error(&r, Status::Conflict);
}

#[test]
fn the_importer_takes_a_look_alike_sku_for_the_product_it_has() {
    let (t, e) = app_with_entity();
    t.post(
        "/api/products",
        json!({"name": "Flat white", "sku": SKU, "entity_id": e}),
    );
    let csv = format!("name,sku\nFlat white again,{}\n", VARIANTS[0]);
    let (s, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "products", "csv": csv, "entity_id": e}),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["imported"], json!(0), "{v}");
    assert_eq!(v["data"]["skipped"], json!(1), "{v}");
    let (_, list) = t.get(&format!("/api/products?entityId={e}"));
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}

#[test]
fn look_alike_emails_are_one_account_and_the_address_is_shown_as_typed() {
    let t = app();
    let (s, v) = signup_with(
        &t,
        json!({"email": "Zoë@Example.com", "password": PASSWORD}),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["email"], "Zoë@Example.com");
    for variant in [
        "ZOË@EXAMPLE.COM",
        "Zoe\u{308}@example.com",
        "Ｚｏë@ｅｘａｍｐｌｅ.ｃｏｍ",
        "Zo\u{200B}ë@example.com",
        "\u{FEFF}zoë@exam\u{00AD}ple.com",
    ] {
        let r = signup_with(&t, json!({"email": variant, "password": PASSWORD}));
        assert_error(&r, Status::Conflict);
        // Signing in with a look-alike is signing in to the one account.
        let ((s, me), _) = login_as(&t, variant, PASSWORD);
        assert_eq!(s, Status::Ok, "{variant}: {me}");
        assert_eq!(me["data"]["id"], v["data"]["id"]);
        assert_eq!(me["data"]["email"], "Zoë@Example.com");
    }
}

#[test]
fn an_account_left_without_a_key_at_start_still_signs_in_with_its_own_address() {
    let t = app();
    signup_with(
        &t,
        json!({"email": "ann@example.com", "password": PASSWORD}),
    );
    // As the start leaves the newer of two look-alikes from before (db::ident).
    t.db.write_sync(|tx| {
        tx.execute(
            "INSERT INTO users (id, email, password_hash, created_at)
             SELECT 'u2', 'ａｎｎ@example.com', password_hash, created_at FROM users",
            [],
        )?;
        Ok(())
    })
    .unwrap();
    let ((s, me), _) = login_as(&t, "ａｎｎ@example.com", PASSWORD);
    assert_eq!(s, Status::Ok, "{me}");
    assert_eq!(me["data"]["id"], "u2");
    let ((s, me), _) = login_as(&t, "ANN@example.com", PASSWORD);
    assert_eq!(s, Status::Ok, "{me}");
    assert_ne!(me["data"]["id"], "u2");
}

#[test]
fn look_alike_emails_share_one_login_throttle() {
    let t = app();
    signup_with(
        &t,
        json!({"email": "ann@example.com", "password": PASSWORD}),
    );
    let variants = [
        "ANN@example.com",
        "ａｎｎ@example.com",
        "a\u{200B}nn@example.com",
    ];
    for i in 0..10 {
        let ((s, _), _) = login_as(&t, variants[i % variants.len()], "wrong password");
        assert_eq!(s, Status::Unauthorized);
    }
    let ((s, v), retry) = login_as(&t, "ann@example.com", PASSWORD);
    assert_eq!(s, Status::TooManyRequests, "{v}");
    assert!(retry.is_some());
}
