//! Connectors against local servers that speak each platform's documented protocol:
//! authentication header (401 otherwise), two or more pages through the platform's own
//! pagination, one 429 with `Retry-After`, and every request recorded.

mod common;

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::mock_server::{MockServer, Request, Response};
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

/// True the first time only.
#[derive(Clone, Default)]
struct Once(Arc<AtomicBool>);

impl Once {
    fn first(&self) -> bool {
        !self.0.swap(true, Ordering::SeqCst)
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

fn unauthorized() -> Response {
    Response::json(401, &json!({"error": {"message": "Invalid credentials"}}))
}

// ---------------------------------------------------------------------------------------
// Stripe

fn stripe_server(throttle: Once) -> MockServer {
    MockServer::start(move |r: &Request| {
        if r.header("authorization") != Some("Bearer sk_test_123") {
            return unauthorized();
        }
        let after = r.param("starting_after");
        let list = |data: Value, has_more: bool| {
            Response::ok(
                &json!({"object": "list", "url": r.path, "has_more": has_more, "data": data}),
            )
        };
        match (r.path.as_str(), after.as_deref()) {
            ("/v1/customers", None) => list(
                json!([
                    {"id": "cus_1", "object": "customer", "name": "Café Lumière Ltd", "email": "hello@cafe.example",
                     "phone": "+44 20 7946 0000",
                     "address": {"line1": "1 High St", "line2": null, "city": "York", "state": null, "postal_code": "YO1 7HH", "country": "GB"},
                     "tax_ids": {"object": "list", "data": [{"id": "txi_1", "type": "gb_vat", "value": "GB123456789"}]}},
                    {"id": "cus_2", "object": "customer", "name": null, "email": "anon@example.com", "phone": null, "address": null}
                ]),
                true,
            ),
            ("/v1/customers", Some("cus_2")) => {
                if throttle.first() {
                    return Response::too_many(2);
                }
                list(
                    json!([{"id": "cus_3", "object": "customer", "name": "Brick & Mortar", "email": null}]),
                    false,
                )
            }
            ("/v1/products", None) => list(
                json!([{"id": "prod_1", "object": "product", "name": "Oak table", "description": "Solid oak", "active": true,
                        "metadata": {"sku": "TBL-OAK"}, "unit_label": null,
                        "default_price": {"id": "price_1", "object": "price", "currency": "gbp", "unit_amount": 123456,
                                          "unit_amount_decimal": "123456", "tax_behavior": "exclusive"}}]),
                true,
            ),
            ("/v1/products", Some("prod_1")) => list(
                json!([{"id": "prod_2", "object": "product", "name": "Gift card", "metadata": {}, "default_price": null}]),
                false,
            ),
            ("/v1/invoices", None) => list(
                json!([{
                    "id": "in_1", "object": "invoice", "number": "STR-0001", "status": "paid",
                    "customer": "cus_1", "customer_name": "Café Lumière Ltd", "customer_email": "hello@cafe.example",
                    "currency": "gbp", "created": 1_700_000_000, "due_date": 1_702_592_000,
                    "total": 123597, "subtotal": 122997, "amount_due": 123597, "amount_paid": 123597, "amount_remaining": 0,
                    "lines": {"object": "list", "has_more": true, "url": "/v1/invoices/in_1/lines", "data": [{
                        "id": "il_1", "object": "line_item", "amount": 100000, "currency": "gbp",
                        "description": "2 × Oak table", "quantity": 2,
                        "pricing": {"type": "price_details", "unit_amount_decimal": "50000",
                                    "price_details": {"price": "price_1", "product": "prod_1"}},
                        "discount_amounts": [],
                        "taxes": [{"amount": 20000, "tax_behavior": "exclusive", "taxable_amount": 100000, "type": "tax_rate_details",
                                   "tax_rate_details": {"tax_rate": "txr_1"}}]
                    }]}
                }]),
                true,
            ),
            ("/v1/invoices", Some("in_1")) => list(
                json!([{
                    "id": "in_2", "object": "invoice", "number": null, "status": "draft", "customer": "cus_3",
                    "customer_name": null, "customer_email": "shop@brick.example", "currency": "gbp",
                    "created": 1_700_100_000, "due_date": null, "total": 1080, "amount_paid": 0,
                    "lines": {"object": "list", "has_more": false, "url": "/v1/invoices/in_2/lines", "data": [{
                        "id": "il_9", "object": "line_item", "amount": 1000, "currency": "gbp", "description": "Setup (older API shape)",
                        "quantity": 1, "price": {"id": "price_9", "unit_amount": 1000, "unit_amount_decimal": "1000"},
                        "discount_amounts": [{"amount": 100, "discount": "di_1"}],
                        "tax_amounts": [{"amount": 180, "inclusive": false, "tax_rate": "txr_1", "taxable_amount": 900}],
                        "tax_rates": [{"id": "txr_1", "percentage": 20.0}]
                    }]}
                }]),
                false,
            ),
            ("/v1/invoices/in_1/lines", Some("il_1")) => list(
                // 3 × £11.99 VAT-inclusive: Stripe extracts £6.00 of VAT, leaving £29.97.
                json!([{
                    "id": "il_2", "object": "line_item", "amount": 3597, "currency": "gbp",
                    "description": "Candle (VAT inclusive)", "quantity": 3,
                    "pricing": {"type": "price_details", "unit_amount_decimal": "1199"},
                    "taxes": [{"amount": 600, "tax_behavior": "inclusive", "taxable_amount": 2997, "type": "tax_rate_details",
                               "tax_rate_details": {"tax_rate": "txr_1"}}]
                }]),
                false,
            ),
            ("/v1/subscriptions", None) => {
                assert_eq!(
                    r.param("status").as_deref(),
                    Some("all"),
                    "cancelled subscriptions are asked for"
                );
                list(
                    json!([{"id": "sub_1", "object": "subscription", "status": "active",
                            "customer": {"id": "cus_1", "object": "customer", "name": "Café Lumière Ltd"},
                            "items": {"object": "list", "data": [{"id": "si_1", "quantity": 2, "current_period_end": 1_704_067_200,
                                "price": {"id": "price_5", "currency": "gbp", "unit_amount": 1500, "unit_amount_decimal": "1500",
                                          "nickname": null, "product": "prod_1", "recurring": {"interval": "month", "interval_count": 3}}}]}}]),
                    true,
                )
            }
            ("/v1/subscriptions", Some("sub_1")) => list(
                json!([{"id": "sub_2", "object": "subscription", "status": "canceled",
                        "customer": {"id": "cus_3", "object": "customer", "name": null, "email": "shop@brick.example"},
                        "current_period_end": 1_704_067_200,
                        "items": {"object": "list", "data": [{"id": "si_2", "quantity": 1,
                            "price": {"id": "price_6", "currency": "gbp", "unit_amount": 999, "nickname": "Weekly box",
                                      "product": "prod_2", "recurring": {"interval": "day", "interval_count": 14}}}]}}]),
                false,
            ),
            _ => Response::json(
                404,
                &json!({"error": {"message": "Unrecognized request URL"}}),
            ),
        }
    })
}

fn stripe_creds() -> Value {
    json!({"api_key": "sk_test_123"})
}

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

/// `http://<host>` of the mock, for absolute `Link` targets.
fn origin(r: &Request) -> String {
    format!("http://{}", r.header("host").unwrap_or("127.0.0.1"))
}

fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

// ---------------------------------------------------------------------------------------
// Shopify

fn shopify_server(throttle: Once) -> MockServer {
    MockServer::start(move |r: &Request| {
        if r.header("x-shopify-access-token") != Some("shpat_abc") {
            return Response::json(
                401,
                &json!({"errors": "[API] Invalid API key or access token"}),
            );
        }
        let base = format!("{}/admin/api/2025-01", origin(r));
        match (r.path.as_str(), r.param("page_info").as_deref()) {
            ("/admin/api/2025-01/orders.json", None) => {
                assert_eq!(
                    r.param("status").as_deref(),
                    Some("any"),
                    "all orders, not only open ones"
                );
                Response::ok(&json!({"orders": [{
                    "id": 450789469, "name": "#1001", "order_number": 1001, "email": "ada@example.com",
                    "created_at": "2024-03-05T23:10:00+00:00", "processed_at": "2024-03-05T23:10:00+00:00",
                    "currency": "GBP", "financial_status": "paid", "taxes_included": true, "cancelled_at": null,
                    "total_price": "45.96", "subtotal_price": "40.97", "total_tax": "7.66", "total_outstanding": "0.00",
                    "customer": {"id": 207119551, "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"},
                    "line_items": [
                        {"id": 1, "title": "Candle", "name": "Candle", "sku": "CND-1", "quantity": 3, "price": "11.99",
                         "discount_allocations": [{"amount": "3.00", "discount_application_index": 0}],
                         "tax_lines": [{"title": "GB VAT", "price": "5.50", "rate": 0.2}]},
                        {"id": 2, "title": "Mug", "name": "Mug - Blue", "sku": "MUG-BL", "quantity": 1, "price": "8.00",
                         "discount_allocations": [], "tax_lines": [{"title": "GB VAT", "price": "1.33", "rate": 0.2}]}
                    ],
                    "shipping_lines": [{"title": "Royal Mail", "price": "4.99", "discount_allocations": [],
                                        "tax_lines": [{"title": "GB VAT", "price": "0.83", "rate": 0.2}]}]
                }]}))
                .header("Link", &format!("<{base}/orders.json?limit=250&page_info=eyJsYXN0X2lkIjo0NTB9>; rel=\"next\""))
            }
            ("/admin/api/2025-01/orders.json", Some("eyJsYXN0X2lkIjo0NTB9")) => {
                if throttle.first() {
                    return Response::too_many(1);
                }
                Response::ok(&json!({"orders": [{
                    "id": 450789470, "name": "#1002", "order_number": 1002, "email": null,
                    "created_at": "2024-03-06T09:00:00+00:00", "currency": "GBP", "financial_status": "partially_paid",
                    "taxes_included": false, "cancelled_at": null, "total_price": "24.00", "total_tax": "4.00",
                    "total_outstanding": "14.00", "customer": null, "billing_address": {"name": "Bob Stone"},
                    "line_items": [{"id": 3, "title": "Notebook", "name": "Notebook", "sku": "NB-A5", "quantity": 4,
                                    "price": "5.00", "discount_allocations": [],
                                    "tax_lines": [{"title": "GB VAT", "price": "4.00", "rate": 0.2}]}],
                    "shipping_lines": []
                }]}))
                .header("Link", &format!("<{base}/orders.json?limit=250&page_info=eyJkaXJlY3Rpb24iOiJwcmV2In0>; rel=\"previous\""))
            }
            ("/admin/api/2025-01/products.json", None) => Response::ok(&json!({"products": [
                {"id": 632910392, "title": "T-shirt", "product_type": "Apparel", "status": "active", "variants": [
                    {"id": 808950810, "title": "Small", "sku": "TS-S", "price": "12.00", "barcode": "5012345678900"},
                    {"id": 808950811, "title": "Large", "sku": "TS-L", "price": "12.50", "barcode": null}]},
                {"id": 632910393, "title": "Gift card", "product_type": "", "variants": [
                    {"id": 808950812, "title": "Default Title", "sku": "", "price": "25.00"}]}
            ]})),
            ("/admin/api/2025-01/customers.json", None) => Response::ok(&json!({"customers": [
                {"id": 207119551, "email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace", "phone": null,
                 "default_address": {"company": null, "address1": "12 Analytical Row", "address2": null, "city": "London",
                                     "province": null, "zip": "N1 1AA", "country_code": "GB", "phone": "+44 20 0000 0000"}}
            ]})),
            _ => Response::json(404, &json!({"errors": "Not Found"})),
        }
    })
}

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
    assert_eq!(get(o2[0], "amount_paid"), "10");
    assert_eq!(
        (get(o2[0], "line_unit_price"), get(o2[0], "line_vat_rate")),
        ("5".into(), "20".into())
    );
    assert_total_reproduced(&rows, "450789470", "24");

    assert_eq!(server.count(|r| r.param("page_info").is_none()), 1);
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
    let err = connectors::pull(
        Platform::Shopify,
        DataType::Subscriptions,
        &creds,
        &config(&server),
        &retry,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ConnectorError::Unsupported {
            platform: Platform::Shopify,
            data_type: DataType::Subscriptions
        }
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

fn woo_server(throttle: Once) -> MockServer {
    MockServer::start(move |r: &Request| {
        if r.header("authorization") != Some(basic("ck_abc", "cs_def").as_str()) {
            return Response::json(
                401,
                &json!({"code": "woocommerce_rest_cannot_view",
                "message": "Sorry, you cannot list resources.", "data": {"status": 401}}),
            );
        }
        let base = format!("{}/wp-json/wc/v3", origin(r));
        match (r.path.as_str(), r.param("page").as_deref()) {
            ("/wp-json/wc/v3/products", None) => Response::ok(&json!([
                {"id": 10, "name": "Oak table", "type": "simple", "status": "publish", "sku": "TBL-OAK",
                 "price": "1234.56", "regular_price": "1234.56", "sale_price": "",
                 "short_description": "<p>Solid <strong>oak</strong>, seats six</p>", "categories": [{"id": 9, "name": "Furniture"}]},
                {"id": 11, "name": "T-shirt", "type": "variable", "sku": "", "price": "12.00", "regular_price": "",
                 "short_description": "", "categories": [{"id": 15, "name": "Apparel"}]}
            ]))
            .header("X-WP-Total", "3")
            .header("X-WP-TotalPages", "2")
            .header("Link", &format!("<{base}/products?per_page=100&page=2>; rel=\"next\"")),
            ("/wp-json/wc/v3/products", Some("2")) => {
                if throttle.first() {
                    return Response::too_many(3);
                }
                Response::ok(&json!([{"id": 12, "name": "Gift wrap", "type": "simple", "sku": "WRAP",
                                      "price": "2.50", "regular_price": "2.50", "categories": []}]))
                .header("X-WP-Total", "3")
                .header("X-WP-TotalPages", "2")
                .header("Link", &format!("<{base}/products?per_page=100&page=1>; rel=\"prev\""))
            }
            ("/wp-json/wc/v3/products/11/variations", None) => Response::ok(&json!([
                {"id": 111, "sku": "TS-S", "price": "12.00", "regular_price": "12.00", "attributes": [{"id": 1, "name": "Size", "option": "S"}]},
                {"id": 112, "sku": "TS-M", "price": "12.00", "regular_price": "12.00", "attributes": [{"id": 1, "name": "Size", "option": "M"}]}
            ])),
            ("/wp-json/wc/v3/orders", None) => Response::ok(&json!([{
                "id": 727, "number": "1042", "status": "completed", "currency": "GBP", "prices_include_tax": true,
                "date_created": "2024-03-05T09:00:00", "date_paid": "2024-03-06T10:00:00",
                "total": "25.60", "total_tax": "4.27", "customer_id": 0,
                "billing": {"first_name": "Cara", "last_name": "Jones", "company": "", "email": "cara@example.com"},
                "line_items": [{"id": 1, "name": "T-shirt - S", "product_id": 11, "variation_id": 111, "quantity": 2,
                                "subtotal": "20.00", "subtotal_tax": "4.00", "total": "18.00", "total_tax": "3.60",
                                "taxes": [{"id": 1, "total": "3.60", "subtotal": "4.00"}], "sku": "TS-S", "price": 9}],
                "shipping_lines": [{"id": 2, "method_title": "Flat rate", "total": "3.33", "total_tax": "0.67",
                                    "taxes": [{"id": 1, "total": "0.67", "subtotal": ""}]}],
                "fee_lines": [],
                "tax_lines": [{"id": 3, "rate_code": "GB-VAT-1", "rate_id": 1, "label": "VAT", "rate_percent": 20}]
            }])),
            ("/wp-json/wc/v3/subscriptions", None) => Response::json(404, &json!({"code": "rest_no_route",
                "message": "No route was found matching the URL and request method.", "data": {"status": 404}})),
            _ => Response::json(404, &json!({"code": "rest_no_route", "message": "No route", "data": {"status": 404}})),
        }
    })
}

fn woo_creds() -> Value {
    json!({"url": "https://shop.example", "consumer_key": "ck_abc", "consumer_secret": "cs_def"})
}

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
    assert_eq!(rows.len(), 2);
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

fn gbp(amount: i64) -> Value {
    json!({"amount": amount, "currency": "GBP"})
}

fn square_server(throttle: Once) -> MockServer {
    MockServer::start(move |r: &Request| {
        if r.header("authorization") != Some("Bearer EAAAsq") {
            return Response::json(
                401,
                &json!({"errors": [{"category": "AUTHENTICATION_ERROR", "code": "UNAUTHORIZED",
                "detail": "This request could not be authorized."}]}),
            );
        }
        if r.header("square-version").is_none() {
            return Response::json(400, &json!({"errors": [{"detail": "no Square-Version"}]}));
        }
        match (r.method.as_str(), r.path.as_str()) {
            ("GET", "/v2/customers") => match r.param("cursor").as_deref() {
                None => Response::ok(&json!({"customers": [
                    {"id": "C1", "given_name": "Amelia", "family_name": "Earhart", "email_address": "amelia@example.com",
                     "phone_number": "+44 7700 900000", "address": {"address_line_1": "500 Electric Ave", "locality": "Brixton",
                     "postal_code": "SW9 8JX", "country": "GB"}, "created_at": "2024-01-01T10:00:00Z"},
                    {"id": "C2", "company_name": "Roastery Ltd", "created_at": "2024-01-02T10:00:00Z"}
                ], "cursor": "cursor-page-2"})),
                Some("cursor-page-2") => {
                    if throttle.first() {
                        return Response::too_many(1);
                    }
                    Response::ok(
                        &json!({"customers": [{"id": "C3", "given_name": "Grace", "family_name": "Hopper"}]}),
                    )
                }
                Some(_) => Response::json(400, &json!({"errors": [{"detail": "bad cursor"}]})),
            },
            ("GET", "/v2/locations") => Response::ok(
                &json!({"locations": [{"id": "L1", "name": "Brixton"}, {"id": "L2", "name": "Online"}]}),
            ),
            ("POST", "/v2/orders/search") => {
                let body = r.json();
                assert_eq!(body["location_ids"], json!(["L1", "L2"]));
                match body.get("cursor").and_then(Value::as_str) {
                    None => Response::ok(&json!({"orders": [{
                        "id": "ORD-1", "location_id": "L1", "state": "COMPLETED", "customer_id": "C1",
                        "created_at": "2024-02-01T08:30:00Z",
                        "taxes": [{"uid": "vat", "name": "VAT", "percentage": "20", "type": "INCLUSIVE", "scope": "LINE_ITEM"}],
                        "line_items": [{"uid": "li1", "name": "Flat white", "quantity": "2", "base_price_money": gbp(350),
                                        "gross_sales_money": gbp(700), "total_discount_money": gbp(0),
                                        "applied_taxes": [{"uid": "at1", "tax_uid": "vat", "applied_money": gbp(117)}],
                                        "total_tax_money": gbp(117), "total_money": gbp(700)}],
                        "total_tip_money": gbp(100), "total_tax_money": gbp(117), "total_money": gbp(800),
                        "net_amount_due_money": gbp(0), "tenders": [{"id": "T1", "amount_money": gbp(800), "type": "CARD"}]
                    }], "cursor": "orders-2"})),
                    Some("orders-2") => Response::ok(&json!({"orders": [{
                        "id": "ORD-2", "location_id": "L2", "state": "OPEN", "reference_id": "WEB-77",
                        "created_at": "2024-02-02T12:00:00Z",
                        "taxes": [{"uid": "vat2", "name": "VAT", "percentage": "20", "type": "ADDITIVE", "scope": "LINE_ITEM"}],
                        "line_items": [{"uid": "li2", "name": "Beans", "variation_name": "250g", "quantity": "1",
                                        "base_price_money": gbp(900), "applied_taxes": [{"tax_uid": "vat2", "applied_money": gbp(180)}],
                                        "total_tax_money": gbp(180), "total_money": gbp(1080)}],
                        "total_money": gbp(1080), "net_amount_due_money": gbp(1080)
                    }]})),
                    Some(_) => Response::json(400, &json!({"errors": [{"detail": "bad cursor"}]})),
                }
            }
            ("GET", "/v2/catalog/list")
                if r.param("types").as_deref() == Some("SUBSCRIPTION_PLAN_VARIATION") =>
            {
                Response::ok(
                    &json!({"objects": [{"type": "SUBSCRIPTION_PLAN_VARIATION", "id": "PV1",
                    "subscription_plan_variation_data": {"name": "Coffee club", "subscription_plan_id": "PLAN1", "phases": [
                        {"uid": "ph0", "cadence": "MONTHLY", "ordinal": 0, "periods": 1,
                         "pricing": {"type": "STATIC", "price_money": gbp(0)}},
                        {"uid": "ph1", "cadence": "QUARTERLY", "ordinal": 1,
                         "pricing": {"type": "STATIC", "price_money": gbp(2750)}}]}}]}),
                )
            }
            ("POST", "/v2/subscriptions/search") => {
                match r.json().get("cursor").and_then(Value::as_str) {
                    None => Response::ok(
                        &json!({"subscriptions": [{"id": "SUB-1", "location_id": "L1", "plan_variation_id": "PV1",
                    "customer_id": "C1", "start_date": "2024-01-01", "charged_through_date": "2024-03-31", "status": "ACTIVE",
                    "version": 1, "created_at": "2024-01-01T00:00:00Z"}], "cursor": "subs-2"}),
                    ),
                    Some("subs-2") => Response::ok(
                        &json!({"subscriptions": [{"id": "SUB-2", "location_id": "L1",
                    "plan_variation_id": "PV1", "customer_id": "C2", "start_date": "2024-05-01", "status": "PENDING",
                    "price_override_money": gbp(2500)}]}),
                    ),
                    Some(_) => Response::json(400, &json!({"errors": [{"detail": "bad cursor"}]})),
                }
            }
            ("GET", "/v2/catalog/list") => Response::ok(&json!({"objects": [
                {"type": "CATEGORY", "id": "CAT1", "category_data": {"name": "Coffee"}},
                {"type": "TAX", "id": "TAX1", "tax_data": {"name": "VAT", "percentage": "20.0", "inclusion_type": "INCLUSIVE"}},
                {"type": "ITEM", "id": "ITEM1", "item_data": {"name": "Beans", "description": "Single origin",
                    "categories": [{"id": "CAT1"}], "tax_ids": ["TAX1"], "variations": [
                    {"type": "ITEM_VARIATION", "id": "VAR1", "item_variation_data": {"item_id": "ITEM1", "name": "250g",
                        "sku": "BEAN-250", "pricing_type": "FIXED_PRICING", "price_money": gbp(900)}},
                    {"type": "ITEM_VARIATION", "id": "VAR2", "item_variation_data": {"item_id": "ITEM1", "name": "1kg",
                        "sku": "BEAN-1K", "pricing_type": "VARIABLE_PRICING"}}]}}
            ]})),
            _ => Response::json(404, &json!({"errors": [{"code": "NOT_FOUND"}]})),
        }
    })
}

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

fn paypal_server(throttle: Once) -> MockServer {
    MockServer::start(move |r: &Request| {
        if r.path == "/v1/oauth2/token" {
            if r.method != "POST"
                || r.header("authorization") != Some(basic("pp_client", "pp_secret").as_str())
                || r.form_value("grant_type").as_deref() != Some("client_credentials")
            {
                return Response::json(
                    401,
                    &json!({"error": "invalid_client", "error_description": "Client Authentication failed"}),
                );
            }
            return Response::ok(
                &json!({"scope": "https://uri.paypal.com/services/invoicing", "access_token": "A21AA-token",
                "token_type": "Bearer", "app_id": "APP-80W284485P519543T", "expires_in": 32400, "nonce": "n"}),
            );
        }
        if r.header("authorization") != Some("Bearer A21AA-token") {
            return Response::json(
                401,
                &json!({"error": "invalid_token", "error_description": "Token signature verification failed"}),
            );
        }
        let host = origin(r);
        match (r.path.as_str(), r.param("page").as_deref()) {
            ("/v2/invoicing/invoices", Some("1")) => Response::ok(&json!({
                "total_items": 2, "total_pages": 2,
                "items": [{
                    "id": "INV2-AAAA-BBBB", "status": "PAID",
                    "detail": {"invoice_number": "0001", "invoice_date": "2024-03-01", "currency_code": "GBP",
                               "payment_term": {"term_type": "NET_30", "due_date": "2024-03-31"}},
                    "primary_recipients": [{"billing_info": {"name": {"given_name": "Dee", "surname": "Vries"},
                                                             "email_address": "dee@example.com"}}],
                    "items": [{"name": "Consulting", "quantity": "2", "unit_amount": {"currency_code": "GBP", "value": "150.00"},
                               "tax": {"name": "VAT", "percent": "20", "amount": {"currency_code": "GBP", "value": "54.00"}},
                               "discount": {"percent": "10", "amount": {"currency_code": "GBP", "value": "30.00"}},
                               "unit_of_measure": "HOURS"}],
                    "amount": {"currency_code": "GBP", "value": "324.00", "breakdown": {
                        "item_total": {"currency_code": "GBP", "value": "300.00"},
                        "discount": {"item_discount": {"currency_code": "GBP", "value": "-30.00"}},
                        "tax_total": {"currency_code": "GBP", "value": "54.00"}}},
                    "payments": {"paid_amount": {"currency_code": "GBP", "value": "324.00"}},
                    "links": [{"href": format!("{host}/v2/invoicing/invoices/INV2-AAAA-BBBB"), "rel": "self", "method": "GET"}]
                }],
                "links": [{"href": format!("{host}/v2/invoicing/invoices?page=2&page_size=100&total_required=true"), "rel": "next", "method": "GET"},
                          {"href": format!("{host}/v2/invoicing/invoices?page=2&page_size=100&total_required=true"), "rel": "last", "method": "GET"}]
            })),
            ("/v2/invoicing/invoices", Some("2")) => {
                if throttle.first() {
                    return Response::too_many(2);
                }
                Response::ok(&json!({
                    "total_items": 2, "total_pages": 2,
                    "items": [{"id": "INV2-CCCC-DDDD", "status": "SENT",
                               "detail": {"invoice_number": "0002", "invoice_date": "2024-03-02", "currency_code": "GBP"},
                               "amount": {"currency_code": "GBP", "value": "11.99"},
                               "due_amount": {"currency_code": "GBP", "value": "11.99"}}],
                    "links": [{"href": format!("{host}/v2/invoicing/invoices?page=1&page_size=100&total_required=true"), "rel": "prev", "method": "GET"}]
                }))
            }
            ("/v2/invoicing/invoices/INV2-CCCC-DDDD", None) => Response::ok(&json!({
                "id": "INV2-CCCC-DDDD", "status": "SENT",
                "detail": {"invoice_number": "0002", "invoice_date": "2024-03-02", "currency_code": "GBP",
                           "payment_term": {"due_date": "2024-04-01"}},
                "primary_recipients": [{"billing_info": {"business_name": "Widget Works Ltd", "email_address": "ap@widget.example"}}],
                "items": [{"name": "Widget", "quantity": "1", "unit_amount": {"currency_code": "GBP", "value": "9.99"},
                           "tax": {"name": "VAT", "percent": "20", "amount": {"currency_code": "GBP", "value": "2.00"}}}],
                "amount": {"currency_code": "GBP", "value": "11.99"},
                "due_amount": {"currency_code": "GBP", "value": "11.99"}
            })),
            ("/v1/catalogs/products", _) => Response::ok(&json!({
                "products": [{"id": "PROD-XYAB12ABSB7868434", "name": "Video Streaming Service", "description": "Video streaming service",
                              "create_time": "2024-01-10T21:20:49Z"}],
                "total_items": 1, "total_pages": 1,
                "links": [{"href": format!("{host}/v1/catalogs/products?page_size=20&page=1"), "rel": "self", "method": "GET"}]
            })),
            _ => Response::json(404, &json!({"name": "RESOURCE_NOT_FOUND"})),
        }
    })
}

fn paypal_creds() -> Value {
    json!({"client_id": "pp_client", "client_secret": "pp_secret"})
}

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
        ("paid".into(), "324".into())
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

fn gocardless_server(throttle: Once) -> MockServer {
    MockServer::start(move |r: &Request| {
        if r.header("authorization") != Some("Bearer live_gc") {
            return Response::json(
                401,
                &json!({"error": {"message": "Invalid token", "type": "invalid_api_usage", "code": 401}}),
            );
        }
        if r.header("gocardless-version") != Some("2015-07-06") {
            return Response::json(
                400,
                &json!({"error": {"message": "GoCardless-Version header missing", "code": 400}}),
            );
        }
        let meta = |after: Option<&str>| json!({"cursors": {"before": null, "after": after}, "limit": 500});
        match (r.path.as_str(), r.param("after").as_deref()) {
            ("/customers", None) => Response::ok(&json!({"customers": [
                {"id": "CU0001", "created_at": "2024-01-01T10:00:00.000Z", "email": "office@allotment.example",
                 "given_name": "Jo", "family_name": "Bloggs", "company_name": "Allotment Co-op",
                 "address_line1": "1 Garden Way", "address_line2": null, "address_line3": null, "city": "Leeds",
                 "region": null, "postal_code": "LS1 1AA", "country_code": "GB", "phone_number": null, "language": "en",
                 "metadata": {}},
                {"id": "CU0002", "email": "sam@example.com", "given_name": "Sam", "family_name": "Smith", "company_name": null}
            ], "meta": meta(Some("CU0002"))})),
            ("/customers", Some("CU0002")) => {
                if throttle.first() {
                    return Response::too_many(1);
                }
                Response::ok(
                    &json!({"customers": [{"id": "CU0003", "email": "kim@example.com", "given_name": "Kim",
                    "family_name": "Lee", "company_name": null}], "meta": meta(None)}),
                )
            }
            ("/mandates", None) => Response::ok(&json!({"mandates": [
                {"id": "MD0001", "status": "active", "links": {"customer": "CU0001", "customer_bank_account": "BA1", "creditor": "CR1"}},
                {"id": "MD0002", "status": "active", "links": {"customer": "CU0002", "customer_bank_account": "BA2", "creditor": "CR1"}}
            ], "meta": meta(None)})),
            ("/subscriptions", None) => Response::ok(&json!({"subscriptions": [
                {"id": "SB0001", "created_at": "2024-01-05T10:00:00.000Z", "amount": 2500, "currency": "GBP", "status": "active",
                 "name": "Plot rent", "start_date": "2024-02-01", "end_date": null, "interval": 1, "interval_unit": "monthly",
                 "day_of_month": 1, "month": null, "count": null, "payment_reference": "PLOT",
                 "upcoming_payments": [{"charge_date": "2024-04-01", "amount": 2500}], "links": {"mandate": "MD0001"}}
            ], "meta": meta(Some("SB0001"))})),
            ("/subscriptions", Some("SB0001")) => Response::ok(&json!({"subscriptions": [
                {"id": "SB0002", "amount": 1050, "currency": "GBP", "status": "cancelled", "name": null,
                 "start_date": "2024-01-08", "interval": 2, "interval_unit": "weekly", "payment_reference": "VEGBOX",
                 "upcoming_payments": [], "links": {"mandate": "MD0002"}}
            ], "meta": meta(None)})),
            _ => Response::json(
                404,
                &json!({"error": {"message": "Resource not found", "code": 404}}),
            ),
        }
    })
}

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

fn freeagent_server(throttle: Once) -> MockServer {
    MockServer::start(move |r: &Request| {
        let host = origin(r);
        if r.path == "/v2/token_endpoint" {
            if r.header("authorization") != Some(basic("fa_client", "fa_secret").as_str()) {
                return Response::json(
                    401,
                    &json!({"error": "invalid_client", "error_description": "Client authentication failed"}),
                );
            }
            let grant = |access: &str, refresh: &str| {
                Response::ok(
                    &json!({"access_token": access, "token_type": "bearer", "expires_in": 3600,
                                     "refresh_token": refresh, "refresh_token_expires_in": 631_151_957}),
                )
            };
            let invalid = || {
                Response::json(
                    400,
                    &json!({"error": "invalid_grant", "error_description": "The provided authorization grant is invalid, expired or revoked"}),
                )
            };
            return match r.form_value("grant_type").as_deref() {
                Some("authorization_code") => {
                    if r.form_value("code").as_deref() == Some("good-code")
                        && r.form_value("redirect_uri").as_deref()
                            == Some("https://books.example/api/import/oauth/callback")
                    {
                        grant("at-1", "rt-1")
                    } else {
                        invalid()
                    }
                }
                Some("refresh_token") => match r.form_value("refresh_token").as_deref() {
                    Some("rt-1") => grant("at-2", "rt-2"),
                    Some("rt-2") => grant("at-3", "rt-3"),
                    _ => invalid(),
                },
                _ => Response::json(400, &json!({"error": "unsupported_grant_type"})),
            };
        }
        let token_ok = matches!(
            r.header("authorization"),
            Some("Bearer at-1" | "Bearer at-2" | "Bearer at-3")
        );
        if !token_ok
            || r.header("user-agent").is_none()
            || r.header("accept") != Some("application/json")
        {
            return Response::json(
                401,
                &json!({"errors": {"error": {"message": "Access token not recognised"}}}),
            );
        }
        let c = |n: u32| format!("{host}/v2/contacts/{n}");
        let contact1 = json!({"url": c(1), "organisation_name": "Acme Ltd", "email": "accounts@acme.example",
            "phone_number": "0113 496 0000", "address1": "1 Road", "town": "Leeds", "postcode": "LS1 2AB",
            "country": "United Kingdom", "sales_tax_registration_number": "GB999999973", "status": "Active"});
        let contact2 = json!({"url": c(2), "first_name": "Nathan", "last_name": "Barley", "organisation_name": null, "status": "Active"});
        let contact3 =
            json!({"url": c(3), "organisation_name": "Paper Supplies plc", "status": "Active"});
        match (r.path.as_str(), r.param("view").as_deref(), r.param("page").as_deref()) {
            ("/v2/contacts", Some("all"), None) => Response::ok(&json!({"contacts": [contact1, contact2]}))
                .header("Link", &format!("<{host}/v2/contacts?view=all&per_page=100&page=2>; rel=\"next\", <{host}/v2/contacts?view=all&per_page=100&page=2>; rel=\"last\""))
                .header("X-Total-Count", "3"),
            ("/v2/contacts", Some("all"), Some("2")) => {
                if throttle.first() {
                    return Response::too_many(1);
                }
                Response::ok(&json!({"contacts": [contact3]}))
                    .header("Link", &format!("<{host}/v2/contacts?view=all&per_page=100&page=1>; rel=\"prev\", <{host}/v2/contacts?view=all&per_page=100&page=1>; rel=\"first\""))
            }
            ("/v2/contacts", Some("clients"), None) => Response::ok(&json!({"contacts": [contact1, contact2]})),
            ("/v2/contacts", Some("suppliers"), None) => Response::ok(&json!({"contacts": [contact1, contact3]})),
            ("/v2/invoices", Some("all"), None) => {
                assert_eq!(r.param("nested_invoice_items").as_deref(), Some("true"));
                Response::ok(&json!({"invoices": [{
                    "url": format!("{host}/v2/invoices/1"), "contact": c(1), "reference": "001",
                    "dated_on": "2024-03-01", "due_on": "2024-03-31", "currency": "GBP", "discount_percent": "10.0",
                    "net_value": "225.0", "sales_tax_value": "45.0", "total_value": "270.0", "paid_value": "100.0",
                    "due_value": "170.0", "status": "Open",
                    "invoice_items": [{"position": 1, "item_type": "Hours", "description": "Design", "quantity": "5.0",
                                       "price": "50.0", "sales_tax_rate": "20.0"}]
                }]}))
            }
            ("/v2/bills", Some("all"), None) => Response::ok(&json!({"bills": [{
                "url": format!("{host}/v2/bills/1"), "contact": c(3), "reference": "B-9", "dated_on": "2024-03-02",
                "due_on": "2024-04-01", "total_value": "120.0", "net_value": "100.0", "sales_tax_value": "20.0",
                "paid_value": "0.0", "due_value": "120.0", "status": "Open",
                "bill_items": [{"url": format!("{host}/v2/bill_items/1"), "description": "Paper", "category": format!("{host}/v2/categories/285"),
                                "total_value": "120.0", "total_value_ex_tax": "100.0", "sales_tax_rate": "20.0"}]
            }]})),
            ("/v2/expenses", None, None) => Response::ok(&json!({"expenses": [{
                "url": format!("{host}/v2/expenses/1"), "user": format!("{host}/v2/users/1"),
                "category": format!("{host}/v2/categories/285"), "dated_on": "2024-03-03", "currency": "GBP",
                "gross_value": "-24.0", "sales_tax_rate": "20.0", "sales_tax_value": "-4.0",
                "description": "Train to Leeds", "project": format!("{host}/v2/projects/1")
            }]})),
            ("/v2/categories", None, None) => Response::ok(&json!({
                "admin_expenses_categories": [{"url": format!("{host}/v2/categories/285"), "description": "Travel", "nominal_code": "285"}],
                "cost_of_sales_categories": [], "income_categories": [], "general_categories": []
            })),
            ("/v2/projects", Some("all"), None) => Response::ok(&json!({"projects": [{
                "url": format!("{host}/v2/projects/1"), "name": "Website rebuild", "contact": c(1), "status": "Active",
                "budget": "5000.0", "budget_units": "Monetary", "normal_billing_rate": "450.0", "billing_period": "day",
                "hours_per_day": "7.5", "currency": "GBP"
            }]})),
            ("/v2/tasks", None, None) => Response::ok(&json!({"tasks": [{
                "url": format!("{host}/v2/tasks/1"), "project": format!("{host}/v2/projects/1"), "name": "Design",
                "is_billable": true, "billing_rate": "60.0", "billing_period": "hour", "status": "Active"
            }]})),
            ("/v2/timeslips", Some("all"), None) => Response::ok(&json!({"timeslips": [{
                "url": format!("{host}/v2/timeslips/1"), "user": format!("{host}/v2/users/1"),
                "project": format!("{host}/v2/projects/1"), "task": format!("{host}/v2/tasks/1"),
                "dated_on": "2024-03-04", "hours": "2.5", "comment": "Wireframes"
            }]})),
            ("/v2/price_list_items", None, None) => Response::ok(&json!({"price_list_items": [{
                "url": format!("{host}/v2/price_list_items/1"), "code": "DES-HR", "item_type": "Hours", "quantity": "1.0",
                "price": "50.0", "description": "Design hour", "sales_tax_rate": "20.0", "vat_status": "standard"
            }]})),
            ("/v2/recurring_invoices", None, None) => Response::ok(&json!({"recurring_invoices": [{
                "url": format!("{host}/v2/recurring_invoices/1"), "contact": c(2), "contact_name": "Nathan Barley",
                "dated_on": "2024-03-01", "frequency": "Quarterly", "next_recurs_on": "2024-06-01",
                "recurring_status": "Active", "reference": "002", "currency": "GBP",
                "net_value": "2.0", "sales_tax_value": "0.4", "total_value": "2.4"
            }]})),
            ("/v2/recurring_invoices/1", None, None) => Response::ok(&json!({"recurring_invoice": {
                "url": format!("{host}/v2/recurring_invoices/1"), "frequency": "Quarterly",
                "recurring_invoice_items": [{"description": "Hosting", "quantity": "1.0", "price": "2.0", "sales_tax_rate": "20.0"}]
            }})),
            _ => Response::json(404, &json!({"errors": {"error": {"message": "Resource not found"}}})),
        }
    })
}

const REDIRECT: &str = "https://books.example/api/import/oauth/callback";

fn fa_config(server: &MockServer) -> PlatformConfig {
    PlatformConfig {
        base_url: Some(server.url().to_owned()),
        authorize_url: Some(format!("{}/v2/approve_app", server.url())),
        token_url: Some(format!("{}/v2/token_endpoint", server.url())),
        client_id: Some("fa_client".to_owned()),
        client_secret: Some("fa_secret".to_owned()),
    }
}

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
        4 + 5 + 4 + 6 + 6 + 4,
        "the matrix in the module doc"
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
