//! Connectors against local servers that speak each platform's documented protocol:
//! authentication header (401 otherwise), two or more pages through the platform's own
//! pagination, one 429 with `Retry-After`, and every request recorded.

use super::common;
use super::platform_mocks;

use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::mock_server::{MockServer, Request, Response};
use platform_mocks::*;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use stockbook::config::PlatformConfig;
use stockbook::connectors::lines::rows_total;
use stockbook::connectors::{self, ConnectorError, DataType, ImportRow, Platform, RetryPolicy};

// ---------------------------------------------------------------------------------------
// Helpers

/// A retry policy that records its waits instead of sleeping.
fn recording_retry() -> (RetryPolicy, Arc<Mutex<Vec<Duration>>>) {
    let waits = Arc::new(Mutex::new(Vec::new()));
    let w = waits.clone();
    (
        RetryPolicy::with_sleep(move |d| w.lock().unwrap().push(d)),
        waits,
    )
}

fn config(server: &MockServer) -> PlatformConfig {
    PlatformConfig {
        base_url: Some(server.url().to_owned()),
        ..PlatformConfig::default()
    }
}

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn rows_of<'a>(rows: &'a [ImportRow], provider_ref: &str) -> Vec<&'a ImportRow> {
    rows.iter()
        .filter(|r| r.get("provider_ref").map(String::as_str) == Some(provider_ref))
        .collect()
}

/// The importer's total for one document's rows equals the `total` they carry.
fn assert_total_reproduced(rows: &[ImportRow], provider_ref: &str, expected: &str) {
    let doc: Vec<ImportRow> = rows_of(rows, provider_ref).into_iter().cloned().collect();
    assert!(!doc.is_empty(), "no rows for {provider_ref}");
    for r in &doc {
        assert_eq!(
            r["total"], expected,
            "total carried on every line of {provider_ref}"
        );
    }
    assert_eq!(
        rows_total(&doc),
        d(expected),
        "the importer's arithmetic reproduces {provider_ref}'s total: {doc:#?}"
    );
}

fn get(row: &ImportRow, k: &str) -> String {
    row.get(k).cloned().unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// Stripe

#[test]
fn stripe_customers_are_read_page_by_page_with_starting_after_and_one_429_is_retried() {
    let server = stripe_server(Once::default());
    let (retry, waits) = recording_retry();
    let rows = connectors::pull(
        Platform::Stripe,
        DataType::Contacts,
        &stripe_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();

    assert_eq!(rows.len(), 3);
    assert_eq!(get(&rows[0], "name"), "Café Lumière Ltd");
    assert_eq!(get(&rows[0], "vat_number"), "GB123456789");
    assert_eq!(get(&rows[0], "address"), "1 High St, York, YO1 7HH, GB");
    assert_eq!(get(&rows[0], "provider_ref"), "cus_1");
    assert_eq!(
        get(&rows[1], "name"),
        "anon@example.com",
        "a customer without a name is named by email"
    );
    assert!(
        !rows[1].contains_key("phone"),
        "absent values are left out, not empty"
    );

    let first = server.count(|r| r.path == "/v1/customers" && r.param("starting_after").is_none());
    let second = server.count(|r| {
        r.path == "/v1/customers" && r.param("starting_after").as_deref() == Some("cus_2")
    });
    assert_eq!(
        (first, second),
        (1, 2),
        "each page once, the throttled one twice"
    );
    assert_eq!(
        *waits.lock().unwrap(),
        vec![Duration::from_secs(2)],
        "Retry-After honoured"
    );
    for r in server.requests() {
        assert_eq!(r.header("authorization"), Some("Bearer sk_test_123"));
        assert!(r.header("stripe-version").is_some());
        assert_eq!(r.param("limit").as_deref(), Some("100"));
    }
}

#[test]
fn stripe_money_in_pence_converts_exactly_and_the_sku_comes_from_metadata() {
    let server = stripe_server(Once::default());
    let (retry, _) = recording_retry();
    let rows = connectors::pull(
        Platform::Stripe,
        DataType::Products,
        &stripe_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(get(&rows[0], "unit_price"), "1234.56");
    assert_eq!(get(&rows[0], "sku"), "TBL-OAK");
    assert_eq!(get(&rows[0], "provider_ref"), "prod_1");
    assert!(!rows[1].contains_key("unit_price"));
    assert_eq!(
        server.count(|r| r.path == "/v1/products"
            && r.param("expand[]").as_deref() == Some("data.default_price")),
        2
    );
}

#[test]
fn stripe_invoices_follow_paginated_lines_and_inclusive_tax_reproduces_the_total() {
    let server = stripe_server(Once::default());
    let (retry, _) = recording_retry();
    let rows = connectors::pull(
        Platform::Stripe,
        DataType::Invoices,
        &stripe_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();

    let in1 = rows_of(&rows, "in_1");
    assert_eq!(
        in1.len(),
        2,
        "one row per line, the second line from the lines endpoint"
    );
    assert_eq!(get(in1[0], "number"), "STR-0001");
    assert_eq!(get(in1[0], "issue_date"), "2023-11-14");
    assert_eq!(get(in1[0], "due_date"), "2023-12-14");
    assert_eq!(get(in1[0], "status"), "paid");
    assert_eq!(get(in1[0], "amount_paid"), "1235.97");
    assert_eq!(
        (
            get(in1[0], "line_quantity"),
            get(in1[0], "line_unit_price"),
            get(in1[0], "line_vat_rate")
        ),
        ("2".into(), "500".into(), "20".into())
    );
    // The VAT-inclusive candle: £29.97 net at 3 × £9.99, VAT exactly Stripe's £6.00.
    assert_eq!(get(in1[1], "line_unit_price"), "9.99");
    assert_total_reproduced(&rows, "in_1", "1235.97");

    let in2 = rows_of(&rows, "in_2");
    assert!(!in2[0].contains_key("number"), "a draft has no number yet");
    assert_eq!(get(in2[0], "status"), "draft");
    assert_eq!(get(in2[0], "contact_name"), "shop@brick.example");
    assert_eq!(
        get(in2[0], "line_discount"),
        "10",
        "the discount amount becomes a percentage of the list price"
    );
    assert_total_reproduced(&rows, "in_2", "10.8");

    assert_eq!(server.count(|r| r.path == "/v1/invoices/in_1/lines"), 1);
    assert_eq!(server.count(|r| r.path == "/v1/invoices/in_2/lines"), 0);
}

#[test]
fn stripe_subscriptions_include_cancelled_ones_with_cadence_and_price() {
    let server = stripe_server(Once::default());
    let (retry, _) = recording_retry();
    let rows = connectors::pull(
        Platform::Stripe,
        DataType::Subscriptions,
        &stripe_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    let a = &rows[0];
    assert_eq!(get(a, "contact_name"), "Café Lumière Ltd");
    assert_eq!(
        (get(a, "interval"), get(a, "interval_count")),
        ("month".into(), "3".into())
    );
    assert_eq!(get(a, "next_date"), "2024-01-01");
    assert_eq!(
        get(a, "line_description"),
        "Oak table",
        "the product's name when the price has no nickname"
    );
    assert_eq!(
        (get(a, "line_quantity"), get(a, "line_unit_price")),
        ("2".into(), "15".into())
    );
    assert_eq!(get(a, "provider_ref"), "sub_1");
    let b = &rows[1];
    assert_eq!(get(b, "status"), "cancelled");
    assert_eq!(
        (get(b, "interval"), get(b, "interval_count")),
        ("week".into(), "2".into())
    );
    assert_eq!(get(b, "line_unit_price"), "9.99");
}

#[test]
fn stripe_refuses_a_wrong_key_and_what_it_cannot_supply() {
    let server = stripe_server(Once::default());
    let (retry, _) = recording_retry();
    let err = connectors::pull(
        Platform::Stripe,
        DataType::Contacts,
        &json!({"api_key": "sk_wrong"}),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConnectorError::AuthFailed {
                platform: Platform::Stripe,
                status: 401,
                ..
            }
        ),
        "{err:?}"
    );

    let before = server.requests().len();
    for t in [
        DataType::Bills,
        DataType::Expenses,
        DataType::Projects,
        DataType::TimeEntries,
    ] {
        let err = connectors::pull(
            Platform::Stripe,
            t,
            &stripe_creds(),
            &config(&server),
            &retry,
        )
        .unwrap_err();
        assert_eq!(
            err,
            ConnectorError::Unsupported {
                platform: Platform::Stripe,
                data_type: t
            }
        );
        assert_eq!(err.to_string(), format!("stripe cannot supply {t}"));
        let app: stockbook::error::AppError = err.into();
        assert_eq!(app.status().code, 400);
    }
    assert_eq!(
        server.requests().len(),
        before,
        "an unsupported pair makes no request"
    );

    let err = connectors::pull(
        Platform::Stripe,
        DataType::Contacts,
        &json!({}),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(matches!(err, ConnectorError::Credentials { .. }), "{err:?}");
}

// ---------------------------------------------------------------------------------------
// Shopify

#[test]
fn shopify_orders_follow_the_link_header_and_tax_inclusive_prices_reproduce_the_total() {
    let server = shopify_server(Once::default());
    let (retry, waits) = recording_retry();
    let creds = json!({"shop": "acme", "access_token": "shpat_abc"});
    let rows = connectors::pull(
        Platform::Shopify,
        DataType::Invoices,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();

    let o1 = rows_of(&rows, "450789469");
    assert_eq!(o1.len(), 3, "two items and the shipping line");
    assert_eq!(get(o1[0], "number"), "#1001");
    assert_eq!(get(o1[0], "contact_name"), "Ada Lovelace");
    assert_eq!(get(o1[0], "issue_date"), "2024-03-05");
    assert_eq!(get(o1[0], "status"), "paid");
    assert_eq!(get(o1[0], "amount_paid"), "45.96");
    assert_eq!(get(o1[0], "line_sku"), "CND-1");
    assert_eq!(get(o1[2], "line_description"), "Royal Mail");
    assert_total_reproduced(&rows, "450789469", "45.96");

    let o2 = rows_of(&rows, "450789470");
    assert_eq!(get(o2[0], "contact_name"), "Bob Stone");
    assert_eq!(get(o2[0], "status"), "sent", "partially paid is still owed");
    assert!(
        !o2[0].contains_key("amount_paid"),
        "paid on two days: the payments come as payment rows"
    );
    assert_eq!(
        (get(o2[0], "line_unit_price"), get(o2[0], "line_vat_rate")),
        ("5".into(), "20".into())
    );
    assert_total_reproduced(&rows, "450789470", "40");

    assert_eq!(
        server.count(|r| r.path.ends_with("/orders.json") && r.param("page_info").is_none()),
        1
    );
    assert_eq!(
        server.count(|r| r.param("page_info").as_deref() == Some("eyJsYXN0X2lkIjo0NTB9")),
        2
    );
    assert_eq!(
        server.count(|r| r.param("page_info").as_deref() == Some("eyJkaXJlY3Rpb24iOiJwcmV2In0")),
        0
    );
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(1)]);
}

#[test]
fn shopify_products_are_one_row_per_variant_and_customers_map_to_contacts() {
    let server = shopify_server(Once::default());
    let (retry, _) = recording_retry();
    let creds = json!({"shop": "acme.myshopify.com", "access_token": "shpat_abc"});
    let rows = connectors::pull(
        Platform::Shopify,
        DataType::Products,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    let names: Vec<String> = rows.iter().map(|r| get(r, "name")).collect();
    assert_eq!(names, ["T-shirt - Small", "T-shirt - Large", "Gift card"]);
    assert_eq!(
        (get(&rows[0], "sku"), get(&rows[0], "unit_price")),
        ("TS-S".into(), "12".into())
    );
    assert_eq!(get(&rows[0], "barcode"), "5012345678900");
    assert_eq!(get(&rows[0], "category"), "Apparel");
    assert!(!rows[2].contains_key("sku"));

    let rows = connectors::pull(
        Platform::Shopify,
        DataType::Contacts,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(get(&rows[0], "name"), "Ada Lovelace");
    assert_eq!(
        get(&rows[0], "address"),
        "12 Analytical Row, London, N1 1AA, GB"
    );
    assert_eq!(get(&rows[0], "phone"), "+44 20 0000 0000");

    let bad = json!({"shop": "acme", "access_token": "nope"});
    let err = connectors::pull(
        Platform::Shopify,
        DataType::Products,
        &bad,
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(err, ConnectorError::AuthFailed { status: 401, .. }),
        "{err:?}"
    );
}

#[test]
fn shopify_subscription_contracts_are_read_over_graphql_page_by_page() {
    let server = shopify_server(Once::default());
    let (retry, _) = recording_retry();
    let creds = json!({"shop": "acme", "access_token": "shpat_abc"});
    let rows = connectors::pull(
        Platform::Shopify,
        DataType::Subscriptions,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    let c1 = rows_of(&rows, "gid://shopify/SubscriptionContract/1");
    assert_eq!(c1.len(), 2, "one row per line");
    assert_eq!(get(c1[0], "contact_name"), "Ada Lovelace");
    assert_eq!(get(c1[0], "status"), "active");
    assert_eq!(
        (get(c1[0], "interval"), get(c1[0], "interval_count")),
        ("month".into(), "1".into())
    );
    assert_eq!(get(c1[0], "next_date"), "2024-04-01");
    assert_eq!(get(c1[0], "line_description"), "Coffee beans - 1kg");
    assert_eq!(
        (get(c1[0], "line_quantity"), get(c1[0], "line_unit_price")),
        ("2".into(), "18.5".into())
    );
    assert_eq!(get(c1[1], "line_description"), "Grinder cleaning tablets");

    let c2 = rows_of(&rows, "gid://shopify/SubscriptionContract/2");
    assert_eq!(get(c2[0], "contact_name"), "Bob Stone");
    assert_eq!(get(c2[0], "status"), "paused");
    assert_eq!(
        (get(c2[0], "interval"), get(c2[0], "interval_count")),
        ("week".into(), "2".into()),
        "14 days is every 2 weeks"
    );
    let c3 = rows_of(&rows, "gid://shopify/SubscriptionContract/3");
    assert_eq!(get(c3[0], "status"), "cancelled");
    assert_eq!(get(c3[0], "interval"), "year");

    let posts = server.requests();
    let gql: Vec<_> = posts
        .iter()
        .filter(|r| r.path == "/admin/api/2025-01/graphql.json")
        .collect();
    assert_eq!(gql.len(), 2, "two pages");
    assert!(gql.iter().all(|r| r.method == "POST"
        && r.json()["query"]
            .as_str()
            .unwrap()
            .contains("subscriptionContracts")));
    assert_eq!(gql[0].json()["variables"]["after"], json!(null));
    assert_eq!(gql[1].json()["variables"]["after"], json!("cursor-c2"));
}

#[test]
fn shopify_graphql_errors_fail_the_pull_with_their_message() {
    let server = MockServer::start(|_r: &Request| {
        Response::ok(&json!({"errors": [{"message": "Throttled",
            "extensions": {"code": "THROTTLED"}}]}))
    });
    let (retry, _) = recording_retry();
    let creds = json!({"shop": "acme", "access_token": "shpat_abc"});
    let err = connectors::pull(
        Platform::Shopify,
        DataType::Subscriptions,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(&err, ConnectorError::BadResponse { message, .. } if message.contains("Throttled")),
        "{err:?}"
    );
}

#[test]
fn shopify_shop_names_become_myshopify_origins() {
    use stockbook::connectors::shopify::shop_origin;
    assert_eq!(shop_origin("acme"), "https://acme.myshopify.com");
    assert_eq!(
        shop_origin("acme.myshopify.com"),
        "https://acme.myshopify.com"
    );
    assert_eq!(
        shop_origin("https://acme.myshopify.com/"),
        "https://acme.myshopify.com"
    );
}

// ---------------------------------------------------------------------------------------
// WooCommerce

#[test]
fn woocommerce_products_follow_link_pages_with_basic_auth_and_expand_variations() {
    let server = woo_server(Once::default());
    let (retry, waits) = recording_retry();
    let rows = connectors::pull(
        Platform::Woocommerce,
        DataType::Products,
        &woo_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();
    let names: Vec<String> = rows.iter().map(|r| get(r, "name")).collect();
    assert_eq!(
        names,
        ["Oak table", "T-shirt - S", "T-shirt - M", "Gift wrap"]
    );
    assert_eq!(get(&rows[0], "unit_price"), "1234.56");
    assert_eq!(get(&rows[0], "description"), "Solid oak, seats six");
    assert_eq!(get(&rows[0], "category"), "Furniture");
    let rates: Vec<String> = rows.iter().map(|r| get(r, "vat_rate")).collect();
    assert_eq!(
        rates,
        ["20", "5", "0", "0"],
        "standard, reduced (the variation's `parent`), zero-rate, zero-rate"
    );
    assert_eq!(
        server.count(|r| r.path == "/wp-json/wc/v3/taxes"),
        1,
        "the shop's rates are read once"
    );
    assert_eq!(
        (get(&rows[1], "sku"), get(&rows[1], "provider_ref")),
        ("TS-S".into(), "111".into())
    );

    assert_eq!(
        server.count(|r| r.path == "/wp-json/wc/v3/products" && r.param("page").is_none()),
        1
    );
    assert_eq!(
        server.count(
            |r| r.path == "/wp-json/wc/v3/products" && r.param("page").as_deref() == Some("2")
        ),
        2
    );
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(3)]);
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some(basic("ck_abc", "cs_def").as_str())));
}

#[test]
fn woocommerce_orders_reproduce_the_total_and_a_site_without_subscriptions_says_so() {
    let server = woo_server(Once::default());
    let (retry, _) = recording_retry();
    let rows = connectors::pull(
        Platform::Woocommerce,
        DataType::Invoices,
        &woo_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(rows_of(&rows, "727").len(), 2);
    assert_eq!(get(&rows[0], "number"), "1042");
    assert_eq!(get(&rows[0], "contact_name"), "Cara Jones");
    assert_eq!(get(&rows[0], "status"), "paid");
    assert_eq!(get(&rows[0], "amount_paid"), "25.6");
    assert_eq!(
        (
            get(&rows[0], "line_unit_price"),
            get(&rows[0], "line_discount"),
            get(&rows[0], "line_vat_rate")
        ),
        ("10".into(), "10".into(), "20".into()),
        "coupon as a discount on the list price"
    );
    assert_total_reproduced(&rows, "727", "25.6");

    let err = connectors::pull(
        Platform::Woocommerce,
        DataType::Subscriptions,
        &woo_creds(),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConnectorError::NotAvailable {
                platform: Platform::Woocommerce,
                data_type: DataType::Subscriptions,
                ..
            }
        ),
        "{err:?}"
    );
    let err = connectors::pull(
        Platform::Woocommerce,
        DataType::Bills,
        &woo_creds(),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ConnectorError::Unsupported {
            platform: Platform::Woocommerce,
            data_type: DataType::Bills
        }
    );
    let bad = json!({"url": "https://shop.example", "consumer_key": "ck_abc", "consumer_secret": "wrong"});
    let err = connectors::pull(
        Platform::Woocommerce,
        DataType::Products,
        &bad,
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(err, ConnectorError::AuthFailed { status: 401, .. }),
        "{err:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Square

#[test]
fn square_customers_follow_the_cursor_and_one_429_is_retried() {
    let server = square_server(Once::default());
    let (retry, waits) = recording_retry();
    let creds = json!({"access_token": "EAAAsq"});
    let rows = connectors::pull(
        Platform::Square,
        DataType::Contacts,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    let names: Vec<String> = rows.iter().map(|r| get(r, "name")).collect();
    assert_eq!(names, ["Amelia Earhart", "Roastery Ltd", "Grace Hopper"]);
    assert_eq!(
        get(&rows[0], "address"),
        "500 Electric Ave, Brixton, SW9 8JX, GB"
    );
    assert_eq!(
        server.count(|r| r.path == "/v2/customers" && r.param("cursor").is_none()),
        1
    );
    assert_eq!(
        server.count(|r| r.param("cursor").as_deref() == Some("cursor-page-2")),
        2
    );
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(1)]);
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("square-version") == Some("2025-01-23")));
}

#[test]
fn square_orders_become_invoices_with_exact_pence_and_inclusive_tax() {
    let server = square_server(Once::default());
    let (retry, _) = recording_retry();
    let creds = json!({"access_token": "EAAAsq"});
    let rows = connectors::pull(
        Platform::Square,
        DataType::Invoices,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();

    let o1 = rows_of(&rows, "ORD-1");
    assert_eq!(o1.len(), 2, "the coffee and the tip");
    assert_eq!(get(o1[0], "contact_name"), "Amelia Earhart");
    assert_eq!(
        get(o1[0], "number"),
        "ORD-1",
        "an order without a number is numbered by its id"
    );
    assert_eq!(get(o1[0], "status"), "paid");
    assert_eq!(get(o1[0], "amount_paid"), "8");
    assert_eq!(get(o1[0], "line_vat_rate"), "20");
    assert_eq!(get(o1[1], "line_description"), "Tip");
    assert_total_reproduced(&rows, "ORD-1", "8");

    let o2 = rows_of(&rows, "ORD-2");
    assert_eq!(get(o2[0], "number"), "WEB-77");
    assert_eq!(get(o2[0], "contact_name"), "Walk-in customer");
    assert_eq!(get(o2[0], "status"), "sent");
    assert_eq!(get(o2[0], "amount_paid"), "0");
    assert_eq!(get(o2[0], "line_description"), "Beans - 250g");
    assert_eq!(get(o2[0], "line_unit_price"), "9");
    assert_total_reproduced(&rows, "ORD-2", "10.8");

    assert_eq!(server.count(|r| r.path == "/v2/orders/search"), 2);
}

#[test]
fn square_invoices_take_their_number_status_and_payments_and_their_order_is_not_counted_twice() {
    let server = square_server(Once::default());
    let (retry, _) = recording_retry();
    let creds = json!({"access_token": "EAAAsq"});
    let rows = connectors::pull(
        Platform::Square,
        DataType::Invoices,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();

    let a = rows_of(&rows, "inv:0-A");
    assert_eq!(a.len(), 1);
    assert_eq!(get(a[0], "number"), "000001", "numbered by invoice_number");
    assert_eq!(get(a[0], "contact_name"), "Roastery Ltd");
    assert_eq!(get(a[0], "status"), "sent", "PARTIALLY_PAID");
    assert_eq!(get(a[0], "amount_paid"), "40", "the completed deposit");
    assert_eq!(get(a[0], "issue_date"), "2024-02-10");
    assert_eq!(
        get(a[0], "due_date"),
        "2024-03-10",
        "the balance's due date"
    );
    assert_eq!(get(a[0], "line_description"), "Wholesale beans - 5kg");
    assert_total_reproduced(&rows, "inv:0-A", "120");

    let b = rows_of(&rows, "inv:0-B");
    assert_eq!(
        (
            get(b[0], "number"),
            get(b[0], "status"),
            get(b[0], "amount_paid")
        ),
        ("000002".into(), "paid".into(), "180".into())
    );
    assert_eq!(get(b[0], "contact_name"), "Grace Hopper");

    let c = rows_of(&rows, "inv:0-C");
    assert_eq!(
        (
            get(c[0], "number"),
            get(c[0], "status"),
            get(c[0], "amount_paid")
        ),
        ("000003".into(), "draft".into(), "0".into())
    );
    assert_eq!(get(c[0], "contact_name"), "Ada Lovelace");
    assert_total_reproduced(&rows, "inv:0-C", "6");

    for order in ["ORD-3", "ORD-4", "ORD-5"] {
        assert!(
            rows_of(&rows, order).is_empty(),
            "{order} is an invoice's order"
        );
    }
    assert!(rows
        .iter()
        .all(|r| !["ORD-3", "ORD-4", "ORD-5"].contains(&get(r, "number").as_str())));
    assert_eq!(
        rows_of(&rows, "ORD-1").len(),
        2,
        "orders without invoice stay"
    );
    assert_eq!(rows_of(&rows, "ORD-2").len(), 1);

    let invoices_of = |loc: &str| {
        server.count(|r| r.path == "/v2/invoices" && r.param("location_id").as_deref() == Some(loc))
    };
    assert_eq!((invoices_of("L1"), invoices_of("L2")), (2, 1));
    assert_eq!(server.count(|r| r.path == "/v2/orders/ORD-5"), 1);
}

#[test]
fn square_catalog_items_become_one_product_per_variation() {
    let server = square_server(Once::default());
    let (retry, _) = recording_retry();
    let creds = json!({"access_token": "EAAAsq"});
    let rows = connectors::pull(
        Platform::Square,
        DataType::Products,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(get(&rows[0], "name"), "Beans - 250g");
    assert_eq!(
        (
            get(&rows[0], "sku"),
            get(&rows[0], "unit_price"),
            get(&rows[0], "vat_rate"),
            get(&rows[0], "category")
        ),
        ("BEAN-250".into(), "9".into(), "20".into(), "Coffee".into())
    );
    assert!(
        !rows[1].contains_key("unit_price"),
        "variable pricing has no price"
    );
    let err = connectors::pull(
        Platform::Square,
        DataType::Expenses,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ConnectorError::Unsupported {
            platform: Platform::Square,
            data_type: DataType::Expenses
        }
    );
}

// ---------------------------------------------------------------------------------------
// PayPal

#[test]
fn paypal_exchanges_client_credentials_then_pages_invoices_through_links() {
    let server = paypal_server(Once::default());
    let (retry, waits) = recording_retry();
    let rows = connectors::pull(
        Platform::Paypal,
        DataType::Invoices,
        &paypal_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();

    let a = rows_of(&rows, "INV2-AAAA-BBBB");
    assert_eq!(a.len(), 1);
    assert_eq!(get(a[0], "number"), "0001");
    assert_eq!(get(a[0], "contact_name"), "Dee Vries");
    assert_eq!(
        (get(a[0], "issue_date"), get(a[0], "due_date")),
        ("2024-03-01".into(), "2024-03-31".into())
    );
    assert_eq!(
        (get(a[0], "status"), get(a[0], "amount_paid")),
        ("sent".into(), String::new()),
        "paid on two days: the payments come as payment rows and the status follows them"
    );
    assert_eq!(
        (
            get(a[0], "line_quantity"),
            get(a[0], "line_unit_price"),
            get(a[0], "line_discount"),
            get(a[0], "line_vat_rate")
        ),
        ("2".into(), "150".into(), "10".into(), "20".into())
    );
    assert_total_reproduced(&rows, "INV2-AAAA-BBBB", "324");

    let c = rows_of(&rows, "INV2-CCCC-DDDD");
    assert_eq!(get(c[0], "contact_name"), "Widget Works Ltd");
    assert_eq!(get(c[0], "status"), "sent");
    assert_eq!(get(c[0], "amount_paid"), "0");
    assert_total_reproduced(&rows, "INV2-CCCC-DDDD", "11.99");

    assert_eq!(server.count(|r| r.path == "/v1/oauth2/token"), 1);
    assert_eq!(
        server.count(
            |r| r.path == "/v2/invoicing/invoices" && r.param("page").as_deref() == Some("1")
        ),
        1
    );
    assert_eq!(
        server.count(
            |r| r.path == "/v2/invoicing/invoices" && r.param("page").as_deref() == Some("2")
        ),
        2
    );
    assert_eq!(
        server.count(|r| r.path == "/v2/invoicing/invoices/INV2-CCCC-DDDD"),
        1,
        "a list row without items is read whole"
    );
    assert_eq!(
        server.count(|r| r.path == "/v2/invoicing/invoices/INV2-AAAA-BBBB"),
        0
    );
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(2)]);
}

#[test]
fn paypal_products_have_no_price_and_customers_and_subscriptions_are_refused() {
    let server = paypal_server(Once::default());
    let (retry, _) = recording_retry();
    let rows = connectors::pull(
        Platform::Paypal,
        DataType::Products,
        &paypal_creds(),
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(get(&rows[0], "name"), "Video Streaming Service");
    assert!(!rows[0].contains_key("unit_price"));

    for t in [DataType::Contacts, DataType::Subscriptions] {
        let err = connectors::pull(
            Platform::Paypal,
            t,
            &paypal_creds(),
            &config(&server),
            &retry,
        )
        .unwrap_err();
        assert_eq!(
            err,
            ConnectorError::Unsupported {
                platform: Platform::Paypal,
                data_type: t
            }
        );
        assert_eq!(err.to_string(), format!("paypal cannot supply {t}"));
    }
    let bad = json!({"client_id": "pp_client", "client_secret": "wrong"});
    let err = connectors::pull(
        Platform::Paypal,
        DataType::Invoices,
        &bad,
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConnectorError::AuthFailed {
                platform: Platform::Paypal,
                status: 401,
                ..
            }
        ),
        "{err:?}"
    );
}

// ---------------------------------------------------------------------------------------
// GoCardless

#[test]
fn gocardless_customers_follow_meta_cursors_after() {
    let server = gocardless_server(Once::default());
    let (retry, waits) = recording_retry();
    let creds = json!({"access_token": "live_gc"});
    let rows = connectors::pull(
        Platform::Gocardless,
        DataType::Contacts,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    let names: Vec<String> = rows.iter().map(|r| get(r, "name")).collect();
    assert_eq!(names, ["Allotment Co-op", "Sam Smith", "Kim Lee"]);
    assert_eq!(get(&rows[0], "address"), "1 Garden Way, Leeds, LS1 1AA, GB");
    assert_eq!(get(&rows[0], "provider_ref"), "CU0001");
    assert_eq!(
        server.count(|r| r.path == "/customers" && r.param("after").is_none()),
        1
    );
    assert_eq!(
        server.count(|r| r.path == "/customers" && r.param("after").as_deref() == Some("CU0002")),
        2
    );
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(1)]);
}

#[test]
fn gocardless_subscriptions_convert_pence_and_find_the_customer_through_the_mandate() {
    let server = gocardless_server(Once::default());
    let (retry, _) = recording_retry();
    let creds = json!({"access_token": "live_gc"});
    let rows = connectors::pull(
        Platform::Gocardless,
        DataType::Subscriptions,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    let a = &rows[0];
    assert_eq!(get(a, "contact_name"), "Allotment Co-op");
    assert_eq!(
        (get(a, "interval"), get(a, "interval_count")),
        ("month".into(), "1".into())
    );
    assert_eq!(get(a, "next_date"), "2024-04-01");
    assert_eq!(
        (get(a, "line_description"), get(a, "line_unit_price")),
        ("Plot rent".into(), "25".into())
    );
    let b = &rows[1];
    assert_eq!(get(b, "contact_name"), "Sam Smith");
    assert_eq!(
        (get(b, "interval"), get(b, "interval_count")),
        ("week".into(), "2".into())
    );
    assert_eq!(
        (get(b, "status"), get(b, "line_unit_price")),
        ("cancelled".into(), "10.5".into())
    );
    assert_eq!(get(b, "line_description"), "VEGBOX");

    for t in [DataType::Products, DataType::Invoices, DataType::Bills] {
        let err = connectors::pull(Platform::Gocardless, t, &creds, &config(&server), &retry)
            .unwrap_err();
        assert_eq!(
            err,
            ConnectorError::Unsupported {
                platform: Platform::Gocardless,
                data_type: t
            }
        );
    }
}

// ---------------------------------------------------------------------------------------
// FreeAgent (OAuth)

use stockbook::connectors::freeagent::{self, FreeAgentToken};
use time::OffsetDateTime;

fn expired_token(refresh: &str, now: OffsetDateTime) -> FreeAgentToken {
    FreeAgentToken {
        access_token: "at-old".to_owned(),
        refresh_token: refresh.to_owned(),
        expires_at: now - time::Duration::seconds(5),
    }
}

#[test]
fn freeagent_authorize_url_asks_for_a_code_with_state_and_the_state_is_checked() {
    let server = freeagent_server(Once::default());
    let state = freeagent::new_state();
    assert_eq!(state.len(), 32);
    assert_ne!(
        state,
        freeagent::new_state(),
        "a fresh random state each time"
    );
    let u = freeagent::authorize_url(&fa_config(&server), REDIRECT, &state).unwrap();
    let parsed = url::Url::parse(&u).unwrap();
    assert_eq!(parsed.path(), "/v2/approve_app");
    let q: std::collections::HashMap<_, _> = parsed.query_pairs().into_owned().collect();
    assert_eq!(q["client_id"], "fa_client");
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["redirect_uri"], REDIRECT);
    assert_eq!(q["state"], state);

    assert!(freeagent::check_state(&state, &state).is_ok());
    assert_eq!(
        freeagent::check_state(&state, "forged"),
        Err(ConnectorError::StateMismatch {
            platform: Platform::Freeagent
        })
    );
    let err = freeagent::authorize_url(&PlatformConfig::default(), REDIRECT, &state).unwrap_err();
    assert!(
        matches!(err, ConnectorError::Credentials { .. }),
        "no client id configured: {err:?}"
    );
}

#[test]
fn freeagent_exchanges_the_code_with_basic_client_credentials() {
    let server = freeagent_server(Once::default());
    let (retry, _) = recording_retry();
    let now = OffsetDateTime::now_utc();
    let token =
        freeagent::exchange_code(&fa_config(&server), "good-code", REDIRECT, now, &retry).unwrap();
    assert_eq!(
        token,
        FreeAgentToken {
            access_token: "at-1".into(),
            refresh_token: "rt-1".into(),
            expires_at: now + time::Duration::hours(1)
        }
    );
    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(
        req.header("authorization"),
        Some(basic("fa_client", "fa_secret").as_str())
    );
    assert_eq!(
        req.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        req.form_value("grant_type").as_deref(),
        Some("authorization_code")
    );
    assert_eq!(req.form_value("code").as_deref(), Some("good-code"));

    let err = freeagent::exchange_code(&fa_config(&server), "stale-code", REDIRECT, now, &retry)
        .unwrap_err();
    assert_eq!(
        err,
        ConnectorError::ReconnectRequired {
            platform: Platform::Freeagent
        }
    );
    let mut wrong = fa_config(&server);
    wrong.client_secret = Some("not-it".into());
    let err = freeagent::exchange_code(&wrong, "good-code", REDIRECT, now, &retry).unwrap_err();
    assert!(
        matches!(err, ConnectorError::AuthFailed { status: 401, .. }),
        "{err:?}"
    );
}

#[test]
fn freeagent_refreshes_an_expired_token_keeps_the_rotated_refresh_token_and_pages_through_link() {
    let server = freeagent_server(Once::default());
    let (retry, waits) = recording_retry();
    let now = OffsetDateTime::now_utc();
    let mut token = expired_token("rt-1", now);
    let rows = freeagent::pull(
        DataType::Contacts,
        &mut token,
        &fa_config(&server),
        now,
        &retry,
    )
    .unwrap();

    assert_eq!(token.access_token, "at-2");
    assert_eq!(
        token.refresh_token, "rt-2",
        "the rotated refresh token is handed back to be stored"
    );
    assert_eq!(token.expires_at, now + time::Duration::hours(1));
    let refresh = server
        .requests()
        .into_iter()
        .find(|r| r.path == "/v2/token_endpoint")
        .unwrap();
    assert_eq!(
        refresh.form_value("grant_type").as_deref(),
        Some("refresh_token")
    );
    assert_eq!(refresh.form_value("refresh_token").as_deref(), Some("rt-1"));

    let summary: Vec<(String, String)> = rows
        .iter()
        .map(|r| (get(r, "name"), get(r, "type")))
        .collect();
    assert_eq!(
        summary,
        [
            ("Acme Ltd".to_owned(), "both".to_owned()),
            ("Nathan Barley".to_owned(), "customer".to_owned()),
            ("Paper Supplies plc".to_owned(), "supplier".to_owned())
        ]
    );
    assert_eq!(get(&rows[0], "vat_number"), "GB999999973");
    assert_eq!(
        get(&rows[0], "address"),
        "1 Road, Leeds, LS1 2AB, United Kingdom"
    );
    assert_eq!(
        get(&rows[0], "provider_ref"),
        format!("{}/v2/contacts/1", server.url())
    );

    let page = |p: Option<&str>| {
        server.count(|r| {
            r.path == "/v2/contacts"
                && r.param("view").as_deref() == Some("all")
                && r.param("page").as_deref() == p
        })
    };
    assert_eq!((page(None), page(Some("2"))), (1, 2));
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(1)]);
    for r in server
        .requests()
        .iter()
        .filter(|r| r.path != "/v2/token_endpoint")
    {
        assert_eq!(r.header("authorization"), Some("Bearer at-2"));
        assert!(r.header("user-agent").unwrap().starts_with("Stockbook/"));
        assert_eq!(r.header("accept"), Some("application/json"));
    }
}

#[test]
fn freeagent_refreshes_within_a_minute_of_expiry_but_not_before() {
    let server = freeagent_server(Once::default());
    let (retry, _) = recording_retry();
    let now = OffsetDateTime::now_utc();
    let mut fresh = FreeAgentToken {
        access_token: "at-1".into(),
        refresh_token: "rt-1".into(),
        expires_at: now + time::Duration::minutes(30),
    };
    assert!(!freeagent::ensure_fresh(&fa_config(&server), &mut fresh, now, &retry).unwrap());
    assert_eq!(server.requests().len(), 0);

    let mut nearly = FreeAgentToken {
        access_token: "at-2".into(),
        refresh_token: "rt-2".into(),
        expires_at: now + time::Duration::seconds(30),
    };
    assert!(freeagent::ensure_fresh(&fa_config(&server), &mut nearly, now, &retry).unwrap());
    assert_eq!(
        (nearly.access_token.as_str(), nearly.refresh_token.as_str()),
        ("at-3", "rt-3")
    );
}

#[test]
fn freeagent_a_revoked_refresh_token_asks_for_reconnection() {
    let server = freeagent_server(Once::default());
    let (retry, _) = recording_retry();
    let now = OffsetDateTime::now_utc();
    let mut token = expired_token("rt-revoked", now);
    let err = freeagent::pull(
        DataType::Invoices,
        &mut token,
        &fa_config(&server),
        now,
        &retry,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ConnectorError::ReconnectRequired {
            platform: Platform::Freeagent
        }
    );
    assert!(err.to_string().contains("reconnect freeagent"), "{err}");
    let app: stockbook::error::AppError = err.into();
    assert_eq!(app.status().code, 400);
    assert_eq!(
        server.count(|r| r.path != "/v2/token_endpoint"),
        0,
        "no API call with a dead grant"
    );
}

#[test]
fn freeagent_supplies_every_data_type() {
    let server = freeagent_server(Once::default());
    let (retry, _) = recording_retry();
    let now = OffsetDateTime::now_utc();
    let mut token = FreeAgentToken {
        access_token: "at-1".into(),
        refresh_token: "rt-1".into(),
        expires_at: now + time::Duration::hours(1),
    };
    let cfg = fa_config(&server);
    let mut pull = |t| freeagent::pull(t, &mut token, &cfg, now, &retry).unwrap();
    let host = server.url().to_owned();

    let invoices = pull(DataType::Invoices);
    assert_eq!(invoices.len(), 1);
    let inv = &invoices[0];
    assert_eq!(get(inv, "number"), "001");
    assert_eq!(
        get(inv, "contact_name"),
        "Acme Ltd",
        "named through the contacts list"
    );
    assert_eq!(
        (get(inv, "status"), get(inv, "amount_paid")),
        ("sent".into(), "100".into())
    );
    assert_eq!(
        (
            get(inv, "line_quantity"),
            get(inv, "line_unit_price"),
            get(inv, "line_discount"),
            get(inv, "line_vat_rate")
        ),
        ("5".into(), "50".into(), "10".into(), "20".into())
    );
    assert_total_reproduced(&invoices, &format!("{host}/v2/invoices/1"), "270");

    let bills = pull(DataType::Bills);
    assert_eq!(get(&bills[0], "contact_name"), "Paper Supplies plc");
    assert_eq!(get(&bills[0], "status"), "awaiting_payment");
    assert_eq!(get(&bills[0], "number"), "B-9");
    assert_total_reproduced(&bills, &format!("{host}/v2/bills/1"), "120");

    let expenses = pull(DataType::Expenses);
    let e = &expenses[0];
    assert_eq!(
        (
            get(e, "date"),
            get(e, "amount"),
            get(e, "vat_amount"),
            get(e, "category"),
            get(e, "project_name")
        ),
        (
            "2024-03-03".into(),
            "24".into(),
            "4".into(),
            "Travel".into(),
            "Website rebuild".into()
        )
    );

    let projects = pull(DataType::Projects);
    let p = &projects[0];
    assert_eq!(
        (
            get(p, "name"),
            get(p, "contact_name"),
            get(p, "status"),
            get(p, "hourly_rate"),
            get(p, "budget")
        ),
        (
            "Website rebuild".into(),
            "Acme Ltd".into(),
            "active".into(),
            "60".into(),
            "5000".into()
        )
    );

    let slips = pull(DataType::TimeEntries);
    let t = &slips[0];
    assert_eq!(
        (
            get(t, "project_name"),
            get(t, "date"),
            get(t, "hours"),
            get(t, "description"),
            get(t, "billable"),
            get(t, "hourly_rate")
        ),
        (
            "Website rebuild".into(),
            "2024-03-04".into(),
            "2.5".into(),
            "Wireframes".into(),
            "true".into(),
            "60".into()
        )
    );

    let products = pull(DataType::Products);
    let pr = &products[0];
    assert_eq!(
        (
            get(pr, "name"),
            get(pr, "sku"),
            get(pr, "unit_price"),
            get(pr, "vat_rate"),
            get(pr, "unit")
        ),
        (
            "Design hour".into(),
            "DES-HR".into(),
            "50".into(),
            "20".into(),
            "Hours".into()
        )
    );

    let subs = pull(DataType::Subscriptions);
    let s = &subs[0];
    assert_eq!(
        (
            get(s, "contact_name"),
            get(s, "interval"),
            get(s, "interval_count"),
            get(s, "next_date"),
            get(s, "status")
        ),
        (
            "Nathan Barley".into(),
            "month".into(),
            "3".into(),
            "2024-06-01".into(),
            "active".into()
        )
    );
    assert_eq!(
        (get(s, "line_description"), get(s, "line_unit_price")),
        ("Hosting".into(), "2".into())
    );
    assert_eq!(
        get(s, "provider_ref"),
        format!("{host}/v2/recurring_invoices/1")
    );

    assert_eq!(
        server.count(|r| r.path == "/v2/token_endpoint"),
        0,
        "a valid token is not refreshed"
    );
}

// ---------------------------------------------------------------------------------------
// The HTTP client's failure paths

#[test]
fn a_platform_that_keeps_failing_is_retried_with_growing_back_off_then_reported_unavailable() {
    let server = MockServer::start(|_r: &Request| {
        Response::json(503, &json!({"error": {"message": "down"}}))
    });
    let (retry, waits) = recording_retry();
    let err = connectors::pull(
        Platform::Stripe,
        DataType::Contacts,
        &stripe_creds(),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ConnectorError::Unavailable {
            platform: Platform::Stripe,
            status: 503
        }
    );
    assert_eq!(
        server.requests().len(),
        6,
        "the first try and five retries, no more"
    );
    let ms: Vec<u128> = waits
        .lock()
        .unwrap()
        .iter()
        .map(Duration::as_millis)
        .collect();
    assert_eq!(ms, [500, 1000, 2000, 4000, 8000]);
    let app: stockbook::error::AppError = err.into();
    assert_eq!(app.status().code, 503);
}

#[test]
fn a_retry_after_beyond_the_cap_waits_only_the_cap_and_endless_429_is_rate_limited() {
    let server = MockServer::start(|_r: &Request| Response::too_many(86_400));
    let (mut retry, waits) = recording_retry();
    retry.max_retries = 2;
    let err = connectors::pull(
        Platform::Gocardless,
        DataType::Contacts,
        &json!({"access_token": "t"}),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ConnectorError::RateLimited {
            platform: Platform::Gocardless
        }
    );
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(60); 2]);
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn an_unreachable_platform_and_a_body_that_is_not_json_are_distinct_errors() {
    // A port nobody listens on: bind, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = PlatformConfig {
        base_url: Some(format!("http://127.0.0.1:{port}")),
        ..PlatformConfig::default()
    };
    let (retry, _) = recording_retry();
    let err = connectors::pull(
        Platform::Square,
        DataType::Contacts,
        &json!({"access_token": "t"}),
        &cfg,
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConnectorError::Unreachable {
                platform: Platform::Square,
                ..
            }
        ),
        "{err:?}"
    );

    let server =
        MockServer::start(|_r: &Request| Response::status(200).header("Content-Type", "text/html"));
    let err = connectors::pull(
        Platform::Square,
        DataType::Contacts,
        &json!({"access_token": "t"}),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConnectorError::BadResponse {
                platform: Platform::Square,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_pagination_link_to_another_host_is_not_followed_with_the_credentials() {
    let server = MockServer::start(|_r: &Request| {
        Response::ok(&json!({"customers": []})).header(
            "Link",
            "<https://elsewhere.example/steal?page=2>; rel=\"next\"",
        )
    });
    let (retry, _) = recording_retry();
    let creds = json!({"shop": "acme", "access_token": "shpat_abc"});
    let err = connectors::pull(
        Platform::Shopify,
        DataType::Contacts,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(matches!(err, ConnectorError::BadResponse { .. }), "{err:?}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn every_platform_answers_the_support_matrix_before_any_request() {
    let server = MockServer::start(|_r: &Request| Response::status(500));
    let (retry, _) = recording_retry();
    for p in Platform::ALL {
        for t in DataType::ALL {
            if p.supports(t) {
                continue;
            }
            let err = connectors::pull(p, t, &json!({}), &config(&server), &retry).unwrap_err();
            assert_eq!(
                err,
                ConnectorError::Unsupported {
                    platform: p,
                    data_type: t
                }
            );
        }
    }
    assert_eq!(server.requests().len(), 0);
    let unsupported: usize = Platform::ALL
        .iter()
        .map(|p| DataType::ALL.len() - p.supported().len())
        .sum();
    assert_eq!(
        unsupported,
        // The first matrix, then the second (credit notes, supplier credits, payments):
        // no API platform has supplier credits, GoCardless none of the three, FreeAgent
        // credit notes and payments.
        4 + 4 + 4 + 6 + 6 + 4 + (1 + 1 + 1 + 1 + 3 + 1 + 3 - 2),
        "the matrices in the module doc"
    );
}

#[test]
fn square_subscriptions_take_cadence_and_price_from_the_running_plan_phase() {
    let server = square_server(Once::default());
    let (retry, _) = recording_retry();
    let creds = json!({"access_token": "EAAAsq"});
    let rows = connectors::pull(
        Platform::Square,
        DataType::Subscriptions,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    let a = &rows[0];
    assert_eq!(get(a, "contact_name"), "Amelia Earhart");
    assert_eq!(
        (get(a, "interval"), get(a, "interval_count")),
        ("month".into(), "3".into())
    );
    assert_eq!(
        get(a, "next_date"),
        "2024-04-01",
        "the day after charged_through_date"
    );
    assert_eq!(
        (get(a, "line_description"), get(a, "line_unit_price")),
        ("Coffee club".into(), "27.5".into())
    );
    assert_eq!(
        (get(a, "status"), get(a, "provider_ref")),
        ("active".into(), "SUB-1".into())
    );
    let b = &rows[1];
    assert_eq!(get(b, "contact_name"), "Roastery Ltd");
    assert_eq!(
        (get(b, "next_date"), get(b, "line_unit_price")),
        ("2024-05-01".into(), "25".into())
    );
    assert_eq!(server.count(|r| r.path == "/v2/subscriptions/search"), 2);
}

#[test]
fn a_platform_that_hands_back_the_same_cursor_is_not_read_forever() {
    let server = MockServer::start(|_r: &Request| {
        Response::ok(&json!({"customers": [{"id": "C1"}], "cursor": "again"}))
    });
    let (retry, _) = recording_retry();
    let err = connectors::pull(
        Platform::Square,
        DataType::Contacts,
        &json!({"access_token": "t"}),
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConnectorError::BadResponse {
                platform: Platform::Square,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 2);
}

// ---------------------------------------------------------------------------------------
// What the sources say: refunds as credit notes, dated payments, treatments, currencies
// (docs/import.md#connectors)

fn pull_rows(
    platform: Platform,
    data_type: DataType,
    creds: &Value,
    server: &MockServer,
) -> Vec<ImportRow> {
    let (retry, _) = recording_retry();
    connectors::pull(platform, data_type, creds, &config(server), &retry).unwrap()
}

fn treatments(rows: &[&ImportRow]) -> Vec<String> {
    rows.iter().map(|r| get(r, "line_vat_treatment")).collect()
}

#[test]
fn stripe_credit_notes_keep_their_lines_and_invoice_and_their_refund_is_dated_when_stripe_made_it()
{
    let server = stripe_server(Once::default());
    let creds = stripe_creds();
    let invoices = pull_rows(Platform::Stripe, DataType::Invoices, &creds, &server);
    let in1 = rows_of(&invoices, "in_1");
    assert_eq!(
        (get(in1[0], "amount_paid"), get(in1[0], "paid_date")),
        ("1235.97".into(), "2023-11-19".into()),
        "paid the day status_transitions.paid_at says"
    );
    assert_eq!(get(in1[0], "currency"), "GBP");
    assert_eq!(treatments(&in1), ["standard", "standard"]);

    let credits = pull_rows(Platform::Stripe, DataType::CreditNotes, &creds, &server);
    let cn1 = rows_of(&credits, "cn_1");
    assert_eq!(cn1.len(), 1);
    assert_eq!(get(cn1[0], "number"), "STR-0001-CN-01");
    assert_eq!(
        (get(cn1[0], "original_ref"), get(cn1[0], "original_number")),
        (String::new(), String::new()),
        "refunded in money: unlinked"
    );
    assert_eq!(get(cn1[0], "contact_name"), "Café Lumière Ltd");
    assert_eq!(get(cn1[0], "issue_date"), "2023-11-21");
    assert_eq!(get(cn1[0], "status"), "posted");
    assert_eq!(
        (
            get(cn1[0], "line_unit_price"),
            get(cn1[0], "line_vat_rate"),
            get(cn1[0], "line_vat_treatment")
        ),
        ("50".into(), "20".into(), "standard".into())
    );
    assert_total_reproduced(&credits, "cn_1", "60");
    let cn2 = rows_of(&credits, "cn_2");
    assert_eq!(get(cn2[0], "status"), "void");
    assert_eq!(
        get(cn2[0], "original_ref"),
        "in_1",
        "no money refunded: linked to its invoice"
    );
    assert_eq!(
        treatments(&cn2),
        ["outside_scope"],
        "a line Stripe computed no tax for is outside the scope, not 20 %"
    );

    let payments = pull_rows(Platform::Stripe, DataType::Payments, &creds, &server);
    assert_eq!(
        payments.len(),
        3,
        "the credit note's refund and the two no credit note names; a void credit note, a \
         pending refund and a refund of no invoice's payment have none: {payments:#?}"
    );
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.path == "/v1/invoices"
                && r.param("expand[]").as_deref() == Some("data.payments")),
        "the invoices come with what paid them"
    );
    let r1 = rows_of(&credits, "re_2");
    assert_eq!(
        (
            get(r1[0], "number"),
            get(r1[0], "original_ref"),
            get(r1[0], "issue_date"),
            get(r1[0], "total")
        ),
        (
            "STR-0001-R1".into(),
            String::new(),
            "2023-11-24".into(),
            "10".into()
        ),
        "a refund no credit note names is one, numbered after its invoice, unlinked"
    );
    assert_eq!(get(&payments[1], "document_ref"), "re_2");
    let p = &payments[0];
    assert_eq!(
        (
            get(p, "document_type"),
            get(p, "document_ref"),
            get(p, "date"),
            get(p, "amount")
        ),
        (
            "credit_note".into(),
            "cn_1".into(),
            "2023-11-23".into(),
            "60".into()
        )
    );
    assert_eq!(get(p, "provider_ref"), "re_1");
}

#[test]
fn shopify_refunds_become_credit_notes_with_their_lines_and_payments_keep_their_dates() {
    let server = shopify_server(Once::default());
    let creds = json!({"shop": "acme", "access_token": "shpat_abc"});
    let invoices = pull_rows(Platform::Shopify, DataType::Invoices, &creds, &server);
    let o1 = rows_of(&invoices, "450789469");
    assert_eq!(
        get(o1[0], "status"),
        "paid",
        "partially refunded: the sale was paid"
    );
    assert_eq!(
        (get(o1[0], "amount_paid"), get(o1[0], "paid_date")),
        ("45.96".into(), "2024-03-06".into()),
        "the capture's day, not the authorisation's"
    );
    assert_eq!(get(o1[0], "currency"), "GBP");
    let o2 = rows_of(&invoices, "450789470");
    assert_eq!(
        treatments(&o2),
        ["standard", "zero", "outside_scope"],
        "a tax line of 0 is zero-rated; not taxable is outside the scope"
    );
    assert_eq!(
        get(o2[0], "currency"),
        "GBP",
        "the shop's currency, in which the amounts are"
    );

    let credits = pull_rows(Platform::Shopify, DataType::CreditNotes, &creds, &server);
    let r = rows_of(&credits, "509562969");
    assert_eq!(r.len(), 1, "{credits:#?}");
    assert_eq!(get(r[0], "number"), "#1001-R1");
    assert_eq!(
        (get(r[0], "original_ref"), get(r[0], "original_number")),
        (String::new(), String::new()),
        "money was refunded: unlinked, named after its order"
    );
    assert_eq!(
        (
            get(r[0], "issue_date"),
            get(r[0], "status"),
            get(r[0], "contact_name")
        ),
        ("2024-03-09".into(), "posted".into(), "Ada Lovelace".into())
    );
    assert_eq!(
        (
            get(r[0], "line_description"),
            get(r[0], "line_sku"),
            get(r[0], "line_vat_treatment")
        ),
        ("Candle".into(), "CND-1".into(), "standard".into())
    );
    assert_total_reproduced(&credits, "509562969", "10.99");

    let payments = pull_rows(Platform::Shopify, DataType::Payments, &creds, &server);
    let got: Vec<(String, String, String, String)> = payments
        .iter()
        .map(|p| {
            (
                get(p, "document_type"),
                get(p, "document_ref"),
                get(p, "date"),
                get(p, "amount"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "credit_note".into(),
                "509562969".into(),
                "2024-03-09".into(),
                "10.99".into()
            ),
            (
                "invoice".into(),
                "450789470".into(),
                "2024-03-06".into(),
                "4".into()
            ),
            (
                "invoice".into(),
                "450789470".into(),
                "2024-03-08".into(),
                "6".into()
            ),
        ],
        "the two part payments (not the failed one) and the refund"
    );
    assert_eq!(get(&payments[0], "method"), "shopify_payments");
}

#[test]
fn woocommerce_refunds_become_credit_notes_and_a_euro_order_has_no_invented_rate() {
    let server = woo_server(Once::default());
    let invoices = pull_rows(
        Platform::Woocommerce,
        DataType::Invoices,
        &woo_creds(),
        &server,
    );
    let o = rows_of(&invoices, "728");
    assert_eq!(get(o[0], "status"), "paid", "refunded after it was paid");
    assert_eq!(
        (get(o[0], "amount_paid"), get(o[0], "paid_date")),
        ("22".into(), "2024-03-07".into())
    );
    assert_eq!(treatments(&o), ["zero", "outside_scope"]);
    assert_eq!(
        (get(o[0], "line_vat_rate"), get(o[1], "line_vat_rate")),
        ("0".into(), "0".into())
    );
    let first = rows_of(&invoices, "727");
    assert_eq!(treatments(&first), ["standard", "standard"]);
    assert_eq!(get(first[0], "paid_date"), "2024-03-06");
    let eur = rows_of(&invoices, "729");
    assert_eq!(get(eur[0], "currency"), "EUR");
    assert!(
        !eur[0].contains_key("exchange_rate"),
        "WooCommerce gives no rate: none is made up"
    );

    let credits = pull_rows(
        Platform::Woocommerce,
        DataType::CreditNotes,
        &woo_creds(),
        &server,
    );
    let c = rows_of(&credits, "801");
    assert_eq!(c.len(), 1);
    assert_eq!(
        (
            get(c[0], "number"),
            get(c[0], "original_ref"),
            get(c[0], "issue_date")
        ),
        ("1043-R1".into(), String::new(), "2024-03-10".into())
    );
    assert_eq!(
        (
            get(c[0], "line_quantity"),
            get(c[0], "line_unit_price"),
            get(c[0], "line_vat_treatment")
        ),
        ("1".into(), "12".into(), "zero".into())
    );
    assert_total_reproduced(&credits, "801", "12");

    let payments = pull_rows(
        Platform::Woocommerce,
        DataType::Payments,
        &woo_creds(),
        &server,
    );
    assert_eq!(payments.len(), 1, "{payments:#?}");
    assert_eq!(
        (
            get(&payments[0], "document_type"),
            get(&payments[0], "document_ref"),
            get(&payments[0], "date")
        ),
        ("credit_note".into(), "801".into(), "2024-03-10".into())
    );
    assert_eq!(get(&payments[0], "amount"), "12");
    assert_eq!(get(&payments[0], "method"), "Credit card");
}

#[test]
fn square_approved_refunds_become_credit_notes_and_tenders_date_the_payment() {
    let server = square_server(Once::default());
    let creds = json!({"access_token": "EAAAsq"});
    let invoices = pull_rows(Platform::Square, DataType::Invoices, &creds, &server);
    let o1 = rows_of(&invoices, "ORD-1");
    assert_eq!(
        (get(o1[0], "amount_paid"), get(o1[0], "paid_date")),
        ("8".into(), "2024-02-01".into())
    );
    assert_eq!(get(o1[0], "currency"), "GBP");
    assert_eq!(
        treatments(&o1),
        ["standard", "outside_scope"],
        "the tip is not taxed"
    );

    let credits = pull_rows(Platform::Square, DataType::CreditNotes, &creds, &server);
    assert_eq!(
        credits.len(),
        1,
        "the rejected refund is none: {credits:#?}"
    );
    let c = &credits[0];
    assert_eq!(
        (
            get(c, "provider_ref"),
            get(c, "original_ref"),
            get(c, "issue_date")
        ),
        ("RF-1".into(), String::new(), "2024-02-03".into())
    );
    assert_eq!(
        (
            get(c, "line_description"),
            get(c, "line_unit_price"),
            get(c, "line_vat_treatment")
        ),
        (
            "Refund: Cold coffee".into(),
            "3.5".into(),
            "outside_scope".into()
        ),
        "Square's refund names no items or tax: one line for the amount, no VAT invented"
    );
    let payments = pull_rows(Platform::Square, DataType::Payments, &creds, &server);
    assert_eq!(payments.len(), 1, "{payments:#?}");
    assert_eq!(
        (
            get(&payments[0], "document_ref"),
            get(&payments[0], "date"),
            get(&payments[0], "amount")
        ),
        ("RF-1".into(), "2024-02-03".into(), "3.5".into())
    );
}

#[test]
fn paypal_payments_keep_their_dates_and_a_refund_becomes_a_credit_note() {
    let server = paypal_server(Once::default());
    let invoices = pull_rows(
        Platform::Paypal,
        DataType::Invoices,
        &paypal_creds(),
        &server,
    );
    let a = rows_of(&invoices, "INV2-AAAA-BBBB");
    assert_eq!(get(a[0], "currency"), "GBP");
    assert_eq!(get(a[0], "line_vat_treatment"), "standard");

    let payments = pull_rows(
        Platform::Paypal,
        DataType::Payments,
        &paypal_creds(),
        &server,
    );
    let got: Vec<(String, String, String, String, String)> = payments
        .iter()
        .map(|p| {
            (
                get(p, "document_type"),
                get(p, "document_ref"),
                get(p, "date"),
                get(p, "amount"),
                get(p, "method"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "invoice".into(),
                "INV2-AAAA-BBBB".into(),
                "2024-03-05".into(),
                "124".into(),
                "paypal".into()
            ),
            (
                "invoice".into(),
                "INV2-AAAA-BBBB".into(),
                "2024-03-12".into(),
                "200".into(),
                "bank_transfer".into()
            ),
            (
                "credit_note".into(),
                "REFID-1".into(),
                "2024-03-20".into(),
                "24".into(),
                "paypal".into()
            ),
        ]
    );
    let credits = pull_rows(
        Platform::Paypal,
        DataType::CreditNotes,
        &paypal_creds(),
        &server,
    );
    assert_eq!(credits.len(), 1);
    assert_eq!(
        (
            get(&credits[0], "number"),
            get(&credits[0], "original_ref"),
            get(&credits[0], "line_vat_treatment")
        ),
        ("0001-R1".into(), String::new(), "outside_scope".into())
    );
    assert_total_reproduced(&credits, "REFID-1", "24");
}
