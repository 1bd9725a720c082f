//! The documented protocols of the seven connector platforms, scripted for
//! [`MockServer`]: authentication header (401 otherwise), two or more pages through the
//! platform's own pagination, and one 429 with `Retry-After` (the `Once` given).
//!
//! Shared by `tests/connectors.rs` (the clients alone) and `tests/import_api.rs` (through
//! the HTTP API into the database). Each platform has a `*_handler` (to wrap, say with
//! an outage) and a `*_server` that starts it. Declare `mod common;` before
//! `mod platform_mocks;`.
#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use stockbook::config::PlatformConfig;

use crate::common::mock_server::{MockServer, Request, Response};

/// True the first time only.
#[derive(Clone, Default)]
pub struct Once(pub Arc<AtomicBool>);

impl Once {
    pub fn first(&self) -> bool {
        !self.0.swap(true, Ordering::SeqCst)
    }
}

pub fn unauthorized() -> Response {
    Response::json(401, &json!({"error": {"message": "Invalid credentials"}}))
}

pub fn stripe_server(throttle: Once) -> MockServer {
    MockServer::start(stripe_handler(throttle))
}

pub fn stripe_handler(throttle: Once) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
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
            ("/v1/invoices", None) => {
                // Included by `expand[]=data.payments`: what paid it (basil).
                let in1_payments = json!({"object": "list", "has_more": false, "data": [{
                    "id": "inpay_1", "object": "invoice_payment", "invoice": "in_1", "status": "paid",
                    "amount_paid": 123597, "currency": "gbp", "is_default": true,
                    "payment": {"type": "payment_intent", "payment_intent": "pi_1"}}]});
                let mut in1 = json!({
                    "id": "in_1", "object": "invoice", "number": "STR-0001", "status": "paid",
                    "customer": "cus_1", "customer_name": "Café Lumière Ltd", "customer_email": "hello@cafe.example",
                    "currency": "gbp", "created": 1_700_000_000, "due_date": 1_702_592_000,
                    "total": 123597, "subtotal": 122997, "amount_due": 123597, "amount_paid": 123597, "amount_remaining": 0,
                    "status_transitions": {"finalized_at": 1_700_000_100, "paid_at": 1_700_400_000, "voided_at": null},
                    "lines": {"object": "list", "has_more": true, "url": "/v1/invoices/in_1/lines", "data": [{
                        "id": "il_1", "object": "line_item", "amount": 100000, "currency": "gbp",
                        "description": "2 × Oak table", "quantity": 2,
                        "pricing": {"type": "price_details", "unit_amount_decimal": "50000",
                                    "price_details": {"price": "price_1", "product": "prod_1"}},
                        "discount_amounts": [],
                        "taxes": [{"amount": 20000, "tax_behavior": "exclusive", "taxable_amount": 100000, "type": "tax_rate_details",
                                   "tax_rate_details": {"tax_rate": "txr_1"}}]
                    }]}
                });
                in1["payments"] = in1_payments;
                list(json!([in1]), true)
            }
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
            // A credit note with its lines and the refund paid on it, and a voided one.
            ("/v1/credit_notes", None) => {
                let line1 = json!({
                    "id": "cnli_1", "object": "credit_note_line_item", "type": "invoice_line_item",
                    "invoice_line_item": "il_1", "amount": 5000, "description": "Oak table (chipped)",
                    "quantity": 1, "unit_amount": 5000, "unit_amount_decimal": "5000", "discount_amounts": [],
                    "taxes": [{"amount": 1000, "tax_behavior": "exclusive", "taxable_amount": 5000,
                               "type": "tax_rate_details", "tax_rate_details": {"tax_rate": "txr_1"}}]
                });
                let line2 = json!({
                    "id": "cnli_2", "object": "credit_note_line_item", "type": "custom_line_item",
                    "amount": 500, "description": "Goodwill", "quantity": 1, "unit_amount_decimal": "500",
                    "discount_amounts": [], "taxes": []
                });
                let lines = |id: &str, line: Value| {
                    json!({"object": "list", "has_more": false, "url": format!("/v1/credit_notes/{id}/lines"),
                           "data": [line]})
                };
                let cn1 = json!({
                    "id": "cn_1", "object": "credit_note", "number": "STR-0001-CN-01", "invoice": "in_1",
                    "customer": "cus_1", "currency": "gbp", "created": 1_700_600_000, "status": "issued",
                    "type": "post_payment", "reason": "product_unsatisfactory", "subtotal": 5000, "total": 6000,
                    "out_of_band_amount": null, "refunds": [{"refund": "re_1", "amount_refunded": 6000}],
                    "lines": lines("cn_1", line1)
                });
                let cn2 = json!({
                    "id": "cn_2", "object": "credit_note", "number": "STR-0001-CN-02", "invoice": "in_1",
                    "customer": "cus_1", "currency": "gbp", "created": 1_700_650_000, "status": "void",
                    "type": "post_payment", "subtotal": 500, "total": 500, "refunds": [],
                    "lines": lines("cn_2", line2)
                });
                list(json!([cn1, cn2]), false)
            }
            // Newest first, as Stripe lists them: re_1 is the credit note's; re_2 and
            // re_3 refund in_1's payment with no credit note; re_4 is still pending;
            // re_5 refunds a payment of no invoice.
            ("/v1/refunds", None) => list(
                json!([
                    {"id": "re_5", "object": "refund", "amount": 700, "currency": "gbp", "created": 1_700_950_000,
                     "status": "succeeded", "reason": null, "payment_intent": "pi_9", "charge": "ch_9"},
                    {"id": "re_4", "object": "refund", "amount": 300, "currency": "gbp", "created": 1_700_900_000,
                     "status": "pending", "reason": null, "payment_intent": "pi_1", "charge": "ch_1"},
                    {"id": "re_3", "object": "refund", "amount": 250, "currency": "gbp", "created": 1_700_850_000,
                     "status": "succeeded", "reason": null, "payment_intent": "pi_1", "charge": "ch_1"},
                    {"id": "re_2", "object": "refund", "amount": 1000, "currency": "gbp", "created": 1_700_800_000,
                     "status": "succeeded", "reason": "duplicate", "payment_intent": "pi_1", "charge": "ch_1"},
                    {"id": "re_1", "object": "refund", "amount": 6000, "currency": "gbp", "created": 1_700_700_000,
                     "status": "succeeded", "reason": "requested_by_customer", "payment_intent": "pi_1"}]),
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
    }
}

pub fn stripe_creds() -> Value {
    json!({"api_key": "sk_test_123"})
}

/// `http://<host>` of the mock, for absolute `Link` targets.
pub fn origin(r: &Request) -> String {
    format!("http://{}", r.header("host").unwrap_or("127.0.0.1"))
}

pub fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

pub fn shopify_server(throttle: Once) -> MockServer {
    MockServer::start(shopify_handler(throttle))
}

pub fn shopify_handler(throttle: Once) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
        if r.header("x-shopify-access-token") != Some("shpat_abc") {
            return Response::json(
                401,
                &json!({"errors": "[API] Invalid API key or access token"}),
            );
        }
        let base = format!("{}/admin/api/2025-01", origin(r));
        if r.path == "/admin/api/2025-01/graphql.json" {
            return shopify_graphql(r);
        }
        match (r.path.as_str(), r.param("page_info").as_deref()) {
            ("/admin/api/2025-01/orders.json", None) => {
                // One candle came back: the refund's line (VAT-inclusive like its order)
                // and the money returned, processed three days later.
                let refunds = json!([{
                    "id": 509562969, "order_id": 450789469, "note": "Broken in the post", "restock": true,
                    "created_at": "2024-03-09T10:00:00+00:00", "processed_at": "2024-03-09T10:00:00+00:00",
                    "refund_line_items": [{"id": 104689539, "line_item_id": 1, "quantity": 1, "restock_type": "return",
                        "subtotal": "10.99", "total_tax": "1.83",
                        "line_item": {"id": 1, "name": "Candle", "sku": "CND-1", "taxable": true,
                                      "tax_lines": [{"title": "GB VAT", "price": "5.50", "rate": 0.2}]}}],
                    "transactions": [{"id": 179259969, "order_id": 450789469, "kind": "refund", "gateway": "shopify_payments",
                        "status": "success", "amount": "10.99", "currency": "GBP", "parent_id": 1002,
                        "created_at": "2024-03-09T10:00:05+00:00", "processed_at": "2024-03-09T10:00:05+00:00"}],
                    "order_adjustments": []
                }]);
                assert_eq!(
                    r.param("status").as_deref(),
                    Some("any"),
                    "all orders, not only open ones"
                );
                Response::ok(&json!({"orders": [{
                    "id": 450789469, "name": "#1001", "order_number": 1001, "email": "ada@example.com",
                    "created_at": "2024-03-05T23:10:00+00:00", "processed_at": "2024-03-05T23:10:00+00:00",
                    "currency": "GBP", "presentment_currency": "GBP", "financial_status": "partially_refunded", "taxes_included": true, "cancelled_at": null,
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
                                        "tax_lines": [{"title": "GB VAT", "price": "0.83", "rate": 0.2}]}],
                    "refunds": refunds
                }]}))
                .header("Link", &format!("<{base}/orders.json?limit=250&page_info=eyJsYXN0X2lkIjo0NTB9>; rel=\"next\""))
            }
            ("/admin/api/2025-01/orders.json", Some("eyJsYXN0X2lkIjo0NTB9")) => {
                if throttle.first() {
                    return Response::too_many(1);
                }
                Response::ok(&json!({"orders": [{
                    "id": 450789470, "name": "#1002", "order_number": 1002, "email": null,
                    "created_at": "2024-03-06T09:00:00+00:00", "currency": "GBP", "presentment_currency": "EUR",
                    "financial_status": "partially_paid",
                    "taxes_included": false, "cancelled_at": null, "total_price": "40.00", "total_tax": "4.00",
                    "total_outstanding": "30.00", "customer": null, "billing_address": {"name": "Bob Stone"},
                    "line_items": [{"id": 3, "title": "Notebook", "name": "Notebook", "sku": "NB-A5", "quantity": 4,
                                    "price": "5.00", "discount_allocations": [], "taxable": true,
                                    "tax_lines": [{"title": "GB VAT", "price": "4.00", "rate": 0.2}]},
                                   // Zero-rated: taxed, at 0 %.
                                   {"id": 4, "title": "Picture book", "name": "Picture book", "sku": "BK-1", "quantity": 1,
                                    "price": "6.00", "discount_allocations": [], "taxable": true,
                                    "tax_lines": [{"title": "GB VAT", "price": "0.00", "rate": 0.0}]},
                                   // Not taxable at all.
                                   {"id": 5, "title": "Gift card", "name": "Gift card", "sku": null, "quantity": 1,
                                    "price": "10.00", "discount_allocations": [], "taxable": false, "tax_lines": []}],
                    "shipping_lines": []
                }]}))
                .header("Link", &format!("<{base}/orders.json?limit=250&page_info=eyJkaXJlY3Rpb24iOiJwcmV2In0>; rel=\"previous\""))
            }
            // The orders' transactions: the first captured in one go, the second paid in two parts.
            ("/admin/api/2025-01/orders/450789469/transactions.json", None) => {
                Response::ok(&json!({"transactions": [
                    {"id": 1001, "order_id": 450789469, "kind": "authorization", "status": "success", "amount": "45.96",
                     "gateway": "shopify_payments", "created_at": "2024-03-05T23:10:02+00:00", "processed_at": "2024-03-05T23:10:02+00:00"},
                    {"id": 1002, "order_id": 450789469, "kind": "capture", "status": "success", "amount": "45.96", "parent_id": 1001,
                     "gateway": "shopify_payments", "created_at": "2024-03-06T08:00:00+00:00", "processed_at": "2024-03-06T08:00:00+00:00"},
                    {"id": 1003, "order_id": 450789469, "kind": "refund", "status": "success", "amount": "10.99", "parent_id": 1002,
                     "gateway": "shopify_payments", "processed_at": "2024-03-09T10:00:05+00:00"}
                ]}))
            }
            ("/admin/api/2025-01/orders/450789470/transactions.json", None) => {
                Response::ok(&json!({"transactions": [
                    {"id": 2001, "order_id": 450789470, "kind": "sale", "status": "success", "amount": "4.00",
                     "gateway": "manual", "processed_at": "2024-03-06T09:00:00+00:00"},
                    {"id": 2002, "order_id": 450789470, "kind": "sale", "status": "failure", "amount": "6.00",
                     "gateway": "manual", "processed_at": "2024-03-07T09:00:00+00:00"},
                    {"id": 2003, "order_id": 450789470, "kind": "sale", "status": "success", "amount": "6.00",
                     "gateway": "manual", "processed_at": "2024-03-08T09:00:00+00:00"}
                ]}))
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
    }
}

/// The GraphQL Admin API's `subscriptionContracts` connection: `nodes` and
/// `pageInfo { hasNextPage endCursor }`, the next page asked for with `after`. Money is
/// `MoneyV2` (`amount` as decimal text); `nextBillingDate` a DateTime.
fn shopify_graphql(r: &Request) -> Response {
    let body = r.json();
    let query = body["query"].as_str().unwrap_or_default();
    if r.method != "POST" || !query.contains("subscriptionContracts") {
        return Response::ok(&json!({"errors": [{"message": "Field doesn't exist"}]}));
    }
    let money = |a: &str| json!({"amount": a, "currencyCode": "GBP"});
    let lines = |nodes: Value| json!({"pageInfo": {"hasNextPage": false}, "nodes": nodes});
    let cost = json!({"cost": {"requestedQueryCost": 52, "actualQueryCost": 12,
        "throttleStatus": {"maximumAvailable": 2000.0, "currentlyAvailable": 1988, "restoreRate": 100.0}}});
    match body["variables"]["after"].as_str() {
        None => Response::ok(&json!({"data": {"subscriptionContracts": {
            "pageInfo": {"hasNextPage": true, "endCursor": "cursor-c2"},
            "nodes": [
                {"id": "gid://shopify/SubscriptionContract/1", "status": "ACTIVE",
                 "nextBillingDate": "2024-04-01T09:00:00Z", "currencyCode": "GBP",
                 "customer": {"id": "gid://shopify/Customer/207119551", "displayName": "Ada Lovelace",
                              "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"},
                 "billingPolicy": {"interval": "MONTH", "intervalCount": 1},
                 "lines": lines(json!([
                     {"id": "gid://shopify/SubscriptionLine/a1", "title": "Coffee beans", "variantTitle": "1kg",
                      "sku": "BEAN-1KG", "quantity": 2, "currentPrice": money("18.50")},
                     {"id": "gid://shopify/SubscriptionLine/a2", "title": "Grinder cleaning tablets",
                      "variantTitle": "Default Title", "sku": null, "quantity": 1, "currentPrice": money("6.00")}
                 ]))},
                {"id": "gid://shopify/SubscriptionContract/2", "status": "PAUSED",
                 "nextBillingDate": "2024-04-15T09:00:00Z", "currencyCode": "GBP",
                 "customer": {"id": "gid://shopify/Customer/207119552", "displayName": "Bob Stone",
                              "firstName": "Bob", "lastName": "Stone", "email": null},
                 "billingPolicy": {"interval": "DAY", "intervalCount": 14},
                 "lines": lines(json!([
                     {"id": "gid://shopify/SubscriptionLine/b1", "title": "Milk delivery", "variantTitle": null,
                      "sku": "MILK", "quantity": 3, "currentPrice": money("1.20")}
                 ]))}
            ]}}, "extensions": cost})),
        Some("cursor-c2") => Response::ok(&json!({"data": {"subscriptionContracts": {
            "pageInfo": {"hasNextPage": false, "endCursor": "cursor-c3"},
            "nodes": [
                {"id": "gid://shopify/SubscriptionContract/3", "status": "CANCELLED",
                 "nextBillingDate": "2025-01-10T09:00:00Z", "currencyCode": "GBP",
                 "customer": {"id": "gid://shopify/Customer/207119551", "displayName": "Ada Lovelace",
                              "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"},
                 "billingPolicy": {"interval": "YEAR", "intervalCount": 1},
                 "lines": lines(json!([
                     {"id": "gid://shopify/SubscriptionLine/c1", "title": "Coffee club membership",
                      "variantTitle": null, "sku": null, "quantity": 1, "currentPrice": money("60.00")}
                 ]))}
            ]}}, "extensions": cost})),
        Some(_) => Response::ok(&json!({"errors": [{"message": "Invalid cursor"}]})),
    }
}

pub fn woo_server(throttle: Once) -> MockServer {
    MockServer::start(woo_handler(throttle))
}

pub fn woo_handler(throttle: Once) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
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
                 "tax_status": "taxable", "tax_class": "", "price": "1234.56", "regular_price": "1234.56", "sale_price": "",
                 "short_description": "<p>Solid <strong>oak</strong>, seats six</p>", "categories": [{"id": 9, "name": "Furniture"}]},
                {"id": 11, "name": "T-shirt", "type": "variable", "sku": "", "price": "12.00", "regular_price": "",
                 "tax_status": "taxable", "tax_class": "reduced-rate",
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
                                      "tax_status": "taxable", "tax_class": "zero-rate",
                                      "price": "2.50", "regular_price": "2.50", "categories": []}]))
                .header("X-WP-Total", "3")
                .header("X-WP-TotalPages", "2")
                .header("Link", &format!("<{base}/products?per_page=100&page=1>; rel=\"prev\""))
            }
            ("/wp-json/wc/v3/products/11/variations", None) => Response::ok(&json!([
                {"id": 111, "sku": "TS-S", "tax_status": "taxable", "tax_class": "parent", "price": "12.00", "regular_price": "12.00", "attributes": [{"id": 1, "name": "Size", "option": "S"}]},
                {"id": 112, "sku": "TS-M", "tax_status": "taxable", "tax_class": "zero-rate", "price": "12.00", "regular_price": "12.00", "attributes": [{"id": 1, "name": "Size", "option": "M"}]}
            ])),
            // The shop's rates (documented shape: one rate per country/state/class; `rate`
            // as 4-decimal text; `class` the tax class slug). A US rate is not the shop's
            // UK VAT; the reduced rate is read from here, not assumed.
            ("/wp-json/wc/v3/taxes", None) => Response::ok(&json!([
                {"id": 1, "country": "GB", "state": "", "postcode": "", "city": "", "postcodes": [], "cities": [],
                 "rate": "20.0000", "name": "VAT", "priority": 1, "compound": false, "shipping": true, "order": 1, "class": "standard"},
                {"id": 2, "country": "US", "state": "AL", "postcode": "", "city": "", "postcodes": [], "cities": [],
                 "rate": "4.0000", "name": "State Tax", "priority": 1, "compound": false, "shipping": false, "order": 2, "class": "reduced-rate"},
                {"id": 3, "country": "GB", "state": "", "postcode": "", "city": "", "postcodes": [], "cities": [],
                 "rate": "5.0000", "name": "VAT", "priority": 1, "compound": false, "shipping": true, "order": 3, "class": "reduced-rate"},
                {"id": 4, "country": "GB", "state": "", "postcode": "", "city": "", "postcodes": [], "cities": [],
                 "rate": "0.0000", "name": "VAT", "priority": 1, "compound": false, "shipping": true, "order": 4, "class": "zero-rate"}
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
                "tax_lines": [{"id": 3, "rate_code": "GB-VAT-1", "rate_id": 1, "label": "VAT", "rate_percent": 20}],
                "refunds": []
            }, {
                // Paid, then the zero-rated book refunded: status `refunded` is the shop's
                // word for it; the gift card is not taxed at all.
                "id": 728, "number": "1043", "status": "refunded", "currency": "GBP", "prices_include_tax": false,
                "date_created": "2024-03-07T09:00:00", "date_paid": "2024-03-07T09:05:00",
                "payment_method_title": "Credit card", "transaction_id": "ch_9",
                "total": "22.00", "total_tax": "0.00",
                "billing": {"first_name": "Dan", "last_name": "Brown", "company": "", "email": "dan@example.com"},
                "line_items": [{"id": 5, "name": "Picture book", "product_id": 13, "quantity": 1, "tax_class": "zero-rate",
                                "subtotal": "12.00", "subtotal_tax": "0.00", "total": "12.00", "total_tax": "0.00",
                                "taxes": [{"id": 4, "total": "0.00", "subtotal": "0.00"}], "sku": "BK-1", "price": 12},
                               {"id": 6, "name": "Gift card", "product_id": 14, "quantity": 1, "tax_class": "",
                                "subtotal": "10.00", "subtotal_tax": "0.00", "total": "10.00", "total_tax": "0.00",
                                "taxes": [], "sku": "GIFT", "price": 10}],
                "shipping_lines": [], "fee_lines": [],
                "tax_lines": [{"id": 7, "rate_code": "GB-ZERO RATE-1", "rate_id": 4, "label": "Zero rate", "rate_percent": 0}],
                "refunds": [{"id": 801, "reason": "Damaged", "total": "-12.00"}]
            }, {
                // A euro order: WooCommerce gives no rate to pounds.
                "id": 729, "number": "1044", "status": "pending", "currency": "EUR", "prices_include_tax": false,
                "date_created": "2024-03-08T09:00:00", "date_paid": null, "total": "50.00", "total_tax": "0.00",
                "billing": {"first_name": "Eva", "last_name": "Weber", "company": "", "email": "eva@example.de"},
                "line_items": [{"id": 8, "name": "Hamper", "quantity": 1, "subtotal": "50.00", "total": "50.00",
                                "total_tax": "0.00", "taxes": [], "price": 50}],
                "shipping_lines": [], "fee_lines": [], "tax_lines": [], "refunds": []
            }])),
            ("/wp-json/wc/v3/orders/728/refunds", None) => Response::ok(&json!([{
                "id": 801, "date_created": "2024-03-10T12:00:00", "date_created_gmt": "2024-03-10T12:00:00",
                "amount": "12.00", "reason": "Damaged", "refunded_by": 1, "refunded_payment": true, "meta_data": [],
                "line_items": [{"id": 9, "name": "Picture book", "product_id": 13, "quantity": -1, "tax_class": "zero-rate",
                                "subtotal": "-12.00", "subtotal_tax": "0.00", "total": "-12.00", "total_tax": "0.00",
                                "taxes": [{"id": 4, "total": "0", "subtotal": "0"}], "sku": "BK-1", "price": -12}],
                "shipping_lines": [], "fee_lines": []
            }])),
            ("/wp-json/wc/v3/customers", None) => {
                assert_eq!(r.param("role").as_deref(), Some("all"), "every role, not only customers");
                Response::ok(&json!([
                    {"id": 25, "email": "cara@example.com", "first_name": "Cara", "last_name": "Jones", "role": "customer",
                     "billing": {"first_name": "Cara", "last_name": "Jones", "company": "", "address_1": "3 Mill Lane",
                                 "city": "Bath", "postcode": "BA1 1AA", "country": "GB", "email": "cara@example.com", "phone": "01225 000000"}}
                ]))
                .header("X-WP-TotalPages", "2")
                .header("Link", &format!("<{base}/customers?per_page=100&role=all&page=2>; rel=\"next\""))
            }
            ("/wp-json/wc/v3/customers", Some("2")) => Response::ok(&json!([
                {"id": 26, "email": "orders@deli.example", "first_name": "", "last_name": "", "role": "customer",
                 "billing": {"first_name": "", "last_name": "", "company": "Corner Deli Ltd"}}
            ]))
            .header("X-WP-TotalPages", "2")
            .header("Link", &format!("<{base}/customers?per_page=100&role=all&page=1>; rel=\"prev\"")),
            ("/wp-json/wc/v3/subscriptions", None) => Response::json(404, &json!({"code": "rest_no_route",
                "message": "No route was found matching the URL and request method.", "data": {"status": 404}})),
            _ => Response::json(404, &json!({"code": "rest_no_route", "message": "No route", "data": {"status": 404}})),
        }
    }
}

pub fn woo_creds() -> Value {
    json!({"url": "https://shop.example", "consumer_key": "ck_abc", "consumer_secret": "cs_def"})
}

pub fn gbp(amount: i64) -> Value {
    json!({"amount": amount, "currency": "GBP"})
}

pub fn square_server(throttle: Once) -> MockServer {
    MockServer::start(square_handler(throttle))
}

pub fn square_handler(throttle: Once) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
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
                        "net_amount_due_money": gbp(0),
                        "tenders": [{"id": "T1", "amount_money": gbp(800), "type": "CARD", "created_at": "2024-02-01T08:31:00Z",
                                     "payment_id": "PAY-T1"}],
                        "refunds": [{"id": "RF-1", "location_id": "L1", "transaction_id": "ORD-1", "tender_id": "T1",
                                     "created_at": "2024-02-03T10:00:00Z", "reason": "Cold coffee",
                                     "amount_money": gbp(350), "status": "APPROVED"},
                                    {"id": "RF-2", "location_id": "L1", "transaction_id": "ORD-1", "tender_id": "T1",
                                     "created_at": "2024-02-04T10:00:00Z", "reason": "Declined by the bank",
                                     "amount_money": gbp(100), "status": "REJECTED"}]
                    }], "cursor": "orders-2"})),
                    Some("orders-2") => Response::ok(&json!({"orders": [{
                        "id": "ORD-2", "location_id": "L2", "state": "OPEN", "reference_id": "WEB-77",
                        "created_at": "2024-02-02T12:00:00Z",
                        "taxes": [{"uid": "vat2", "name": "VAT", "percentage": "20", "type": "ADDITIVE", "scope": "LINE_ITEM"}],
                        "line_items": [{"uid": "li2", "name": "Beans", "variation_name": "250g", "quantity": "1",
                                        "base_price_money": gbp(900), "applied_taxes": [{"tax_uid": "vat2", "applied_money": gbp(180)}],
                                        "total_tax_money": gbp(180), "total_money": gbp(1080)}],
                        "total_money": gbp(1080), "net_amount_due_money": gbp(1080)
                    }, {
                        // The orders of invoices INV-A and INV-B: OPEN orders with no
                        // tenders of their own (the invoice is paid, not the order).
                        "id": "ORD-3", "location_id": "L1", "state": "OPEN", "customer_id": "C2",
                        "created_at": "2024-02-10T09:00:00Z",
                        "taxes": [{"uid": "vat3", "name": "VAT", "percentage": "20", "type": "ADDITIVE", "scope": "LINE_ITEM"}],
                        "line_items": [{"uid": "li3", "name": "Wholesale beans", "variation_name": "5kg", "quantity": "2",
                                        "base_price_money": gbp(5000), "applied_taxes": [{"tax_uid": "vat3", "applied_money": gbp(2000)}],
                                        "total_tax_money": gbp(2000), "total_money": gbp(12000)}],
                        "total_money": gbp(12000), "net_amount_due_money": gbp(12000)
                    }, {
                        "id": "ORD-4", "location_id": "L1", "state": "OPEN", "customer_id": "C3",
                        "created_at": "2024-02-11T09:00:00Z",
                        "taxes": [{"uid": "vat4", "name": "VAT", "percentage": "20", "type": "ADDITIVE", "scope": "LINE_ITEM"}],
                        "line_items": [{"uid": "li4", "name": "Barista training", "quantity": "1",
                                        "base_price_money": gbp(15000), "applied_taxes": [{"tax_uid": "vat4", "applied_money": gbp(3000)}],
                                        "total_tax_money": gbp(3000), "total_money": gbp(18000)}],
                        "total_money": gbp(18000), "net_amount_due_money": gbp(18000)
                    }]})),
                    Some(_) => Response::json(400, &json!({"errors": [{"detail": "bad cursor"}]})),
                }
            }
            // Invoices API: one location per call, `cursor` paging; the list is left
            // out of a page with none.
            ("GET", "/v2/invoices") => match (
                r.param("location_id").as_deref(),
                r.param("cursor").as_deref(),
            ) {
                (Some("L1"), None) => Response::ok(&json!({"invoices": [{
                    "id": "inv:0-A", "version": 3, "location_id": "L1", "order_id": "ORD-3",
                    "invoice_number": "000001", "title": "Wholesale order", "status": "PARTIALLY_PAID",
                    "primary_recipient": {"customer_id": "C2", "company_name": "Roastery Ltd"},
                    "payment_requests": [
                        {"uid": "pr-a1", "request_type": "DEPOSIT", "due_date": "2024-02-17",
                         "computed_amount_money": gbp(4000), "total_completed_amount_money": gbp(4000)},
                        {"uid": "pr-a2", "request_type": "BALANCE", "due_date": "2024-03-10",
                         "computed_amount_money": gbp(8000), "total_completed_amount_money": gbp(0)}
                    ],
                    "delivery_method": "EMAIL", "timezone": "Europe/London",
                    "created_at": "2024-02-10T09:05:00Z", "updated_at": "2024-02-17T10:00:00Z"
                }], "cursor": "inv-2"})),
                (Some("L1"), Some("inv-2")) => Response::ok(&json!({"invoices": [{
                    "id": "inv:0-B", "version": 2, "location_id": "L1", "order_id": "ORD-4",
                    "invoice_number": "000002", "status": "PAID",
                    "primary_recipient": {"customer_id": "C3", "given_name": "Grace", "family_name": "Hopper"},
                    "payment_requests": [
                        {"uid": "pr-b1", "request_type": "BALANCE", "due_date": "2024-02-25",
                         "computed_amount_money": gbp(18000), "total_completed_amount_money": gbp(18000)}
                    ],
                    "created_at": "2024-02-11T09:05:00Z"
                }]})),
                (Some("L2"), None) => Response::ok(&json!({"invoices": [{
                    "id": "inv:0-C", "version": 0, "location_id": "L2", "order_id": "ORD-5",
                    "invoice_number": "000003", "status": "DRAFT",
                    "primary_recipient": {"given_name": "Ada", "family_name": "Lovelace"},
                    "payment_requests": [
                        {"uid": "pr-c1", "request_type": "BALANCE", "due_date": "2024-03-30",
                         "computed_amount_money": gbp(600), "total_completed_amount_money": gbp(0)}
                    ],
                    "created_at": "2024-03-01T09:05:00Z"
                }]})),
                _ => Response::json(
                    400,
                    &json!({"errors": [{"detail": "bad location or cursor"}]}),
                ),
            },
            // A draft invoice's order, not among the searched orders, read by id.
            ("GET", "/v2/orders/ORD-5") => Response::ok(&json!({"order": {
                "id": "ORD-5", "location_id": "L2", "state": "DRAFT",
                "created_at": "2024-03-01T09:00:00Z",
                "line_items": [{"uid": "li5", "name": "Cupping session", "quantity": "1",
                                "base_price_money": gbp(600), "total_tax_money": gbp(0), "total_money": gbp(600)}],
                "total_money": gbp(600), "net_amount_due_money": gbp(600)
            }})),
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
    }
}

pub fn paypal_server(throttle: Once) -> MockServer {
    MockServer::start(paypal_handler(throttle))
}

pub fn paypal_handler(throttle: Once) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
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
                    "id": "INV2-AAAA-BBBB", "status": "PARTIALLY_REFUNDED",
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
                    "payments": {"paid_amount": {"currency_code": "GBP", "value": "324.00"}, "transactions": [
                        {"payment_id": "PAYID-1", "payment_date": "2024-03-05", "method": "PAYPAL", "type": "PAYPAL",
                         "amount": {"currency_code": "GBP", "value": "124.00"}},
                        {"payment_id": "EXTR-2", "payment_date": "2024-03-12", "method": "BANK_TRANSFER", "type": "EXTERNAL",
                         "note": "BACS", "amount": {"currency_code": "GBP", "value": "200.00"}}]},
                    "refunds": {"refund_amount": {"currency_code": "GBP", "value": "24.00"}, "transactions": [
                        {"refund_id": "REFID-1", "refund_date": "2024-03-20", "method": "PAYPAL", "type": "PAYPAL",
                         "amount": {"currency_code": "GBP", "value": "24.00"}}]},
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
    }
}

pub fn paypal_creds() -> Value {
    json!({"client_id": "pp_client", "client_secret": "pp_secret"})
}

pub fn gocardless_server(throttle: Once) -> MockServer {
    MockServer::start(gocardless_handler(throttle))
}

pub fn gocardless_handler(throttle: Once) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
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
    }
}

pub fn freeagent_server(throttle: Once) -> MockServer {
    MockServer::start(freeagent_handler(throttle))
}

pub fn freeagent_handler(throttle: Once) -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
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
            ("/v2/credit_notes", Some("all"), None) => {
                assert_eq!(r.param("nested_credit_note_items").as_deref(), Some("true"));
                Response::ok(&json!({"credit_notes": [{
                    "url": format!("{host}/v2/credit_notes/1"), "contact": c(1), "invoice": format!("{host}/v2/invoices/1"),
                    "reference": "003", "dated_on": "2024-03-05", "currency": "GBP", "status": "Open",
                    "net_value": "-20.0", "sales_tax_value": "-4.0", "total_value": "-24.0",
                    "credit_note_items": [{"position": 1, "item_type": "Hours", "description": "Design, hour not worked",
                                           "quantity": "-1.0", "price": "20.0", "sales_tax_rate": "20.0",
                                           "sales_tax_status": "TAXABLE"}]
                }]}))
            }
            ("/v2/bank_accounts", None, None) => Response::ok(&json!({"bank_accounts": []})),
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
    }
}

/// FreeAgent answering the books of issue 24 on its invoices, bills and credit notes
/// (everything else as [`freeagent_handler`]): an invoice with a line in each UK
/// `sales_tax_status` and rate, a euro invoice to an EC business (`ec_status` `EC
/// Services`) with its `exchange_rate`, a paid invoice with `paid_on`, a bill under the
/// reverse charge, and a credit note on the first invoice. Attribute names from
/// dev.freeagent.com "Invoices", "Bills", "Credit Notes", "Sales Tax and VAT".
pub fn freeagent_books_server() -> MockServer {
    MockServer::start(freeagent_books_handler())
}

/// The answers of [`freeagent_books_server`], for a test that changes one of them.
pub fn freeagent_books_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let base = freeagent_handler(Once::default());
    move |r: &Request| {
        let host = origin(r);
        let c = |n: u32| format!("{host}/v2/contacts/{n}");
        let authorised = matches!(
            r.header("authorization"),
            Some("Bearer at-1" | "Bearer at-2" | "Bearer at-3")
        );
        if !authorised {
            return base(r);
        }
        match (r.path.as_str(), r.param("view").as_deref()) {
            ("/v2/invoices", Some("all")) => Response::ok(&json!({"invoices": [
                {"url": format!("{host}/v2/invoices/11"), "contact": c(1), "reference": "010",
                 "dated_on": "2024-04-02", "due_on": "2024-04-16", "currency": "GBP", "ec_status": "UK/Non-EC",
                 "net_value": "368.0", "sales_tax_value": "22.5", "total_value": "390.5",
                 "paid_value": "190.5", "due_value": "200.0", "status": "Open",
                 "invoice_items": [
                    {"position": 1, "item_type": "Products", "description": "Catering equipment hire", "quantity": "1.0",
                     "price": "100.0", "sales_tax_rate": "20.0", "sales_tax_status": "TAXABLE"},
                    {"position": 2, "item_type": "Products", "description": "Children's booster seat", "quantity": "2.0",
                     "price": "25.0", "sales_tax_rate": "5.0", "sales_tax_status": "TAXABLE"},
                    {"position": 3, "item_type": "Products", "description": "Printed menus", "quantity": "10.0",
                     "price": "1.8", "sales_tax_rate": "0.0", "sales_tax_status": "TAXABLE"},
                    {"position": 4, "item_type": "Services", "description": "Food hygiene course", "quantity": "1.0",
                     "price": "200.0", "sales_tax_rate": "0.0", "sales_tax_status": "EXEMPT"}]},
                {"url": format!("{host}/v2/invoices/12"), "contact": c(1), "reference": "011",
                 "dated_on": "2024-04-02", "due_on": "2024-04-16", "currency": "EUR", "exchange_rate": "0.8387",
                 "ec_status": "EC Services", "net_value": "1500.0", "sales_tax_value": "0.0", "total_value": "1500.0",
                 "paid_value": "0.0", "due_value": "1500.0", "status": "Open",
                 "invoice_items": [
                    {"position": 1, "item_type": "Days", "description": "Shop interior design", "quantity": "3.0",
                     "price": "500.0", "sales_tax_rate": "0.0", "sales_tax_status": "OUT_OF_SCOPE"}]},
                {"url": format!("{host}/v2/invoices/13"), "contact": c(2), "reference": "012",
                 "dated_on": "2024-04-03", "due_on": "2024-04-17", "currency": "GBP",
                 "net_value": "100.0", "sales_tax_value": "20.0", "total_value": "120.0",
                 "paid_value": "120.0", "due_value": "0.0", "status": "Paid", "paid_on": "2024-04-09",
                 "invoice_items": [
                    {"position": 1, "item_type": "Hours", "description": "Design", "quantity": "2.0",
                     "price": "50.0", "sales_tax_rate": "20.0", "sales_tax_status": "TAXABLE"}]}
            ]})),
            ("/v2/bills", Some("all")) => Response::ok(&json!({"bills": [{
                "url": format!("{host}/v2/bills/21"), "contact": c(3), "reference": "RC-77", "dated_on": "2024-04-04",
                "due_on": "2024-05-04", "currency": "GBP", "ec_status": "Reverse Charge",
                "total_value": "500.0", "net_value": "500.0", "sales_tax_value": "0.0",
                "paid_value": "500.0", "due_value": "0.0", "status": "Paid", "paid_on": "2024-04-27",
                "bill_items": [{"url": format!("{host}/v2/bill_items/21"), "description": "Software licence, US vendor",
                                "category": format!("{host}/v2/categories/285"), "total_value": "500.0",
                                "total_value_ex_tax": "500.0", "sales_tax_rate": "20.0", "sales_tax_status": "TAXABLE"}]
            }]})),
            // Bank transaction explanations ("Bank Transaction Explanations"): listed per
            // bank account; what paid an invoice names it in `paid_invoice`, a bill's
            // payment (money out, negative) in `paid_bill`. Invoice 010 was paid in two
            // parts on two days, 012 at once, bill RC-77 in two parts on two days.
            ("/v2/bank_accounts", None) => Response::ok(&json!({"bank_accounts": [
                {"url": format!("{host}/v2/bank_accounts/1"), "type": "StandardBankAccount",
                 "name": "Business current account", "currency": "GBP"}]})),
            ("/v2/bank_transaction_explanations", None) => {
                assert_eq!(
                    r.param("bank_account"),
                    Some(format!("{host}/v2/bank_accounts/1"))
                );
                let ex = |n: u32, on: &str, gross: &str, key: &str, doc: String, kind: &str| {
                    json!({
                    "url": format!("{host}/v2/bank_transaction_explanations/{n}"),
                    "bank_account": format!("{host}/v2/bank_accounts/1"),
                    "bank_transaction": format!("{host}/v2/bank_transactions/{n}"),
                    "type": kind, "dated_on": on, "gross_value": gross, "description": format!("Transfer {n}"),
                    key: doc})
                };
                let inv = |n: u32| format!("{host}/v2/invoices/{n}");
                let bill = format!("{host}/v2/bills/21");
                Response::ok(&json!({"bank_transaction_explanations": [
                    ex(41, "2024-04-05", "90.5", "paid_invoice", inv(11), "Invoice Receipt"),
                    ex(42, "2024-04-12", "100.0", "paid_invoice", inv(11), "Invoice Receipt"),
                    ex(43, "2024-04-09", "120.0", "paid_invoice", inv(13), "Invoice Receipt"),
                    ex(44, "2024-04-20", "-200.0", "paid_bill", bill.clone(), "Bill Payment"),
                    ex(45, "2024-04-27", "-300.0", "paid_bill", bill, "Bill Payment")]}))
            }
            ("/v2/credit_notes", Some("all")) => Response::ok(&json!({"credit_notes": [{
                "url": format!("{host}/v2/credit_notes/31"), "contact": c(1), "invoice": format!("{host}/v2/invoices/11"),
                "reference": "013", "dated_on": "2024-04-15", "currency": "GBP", "status": "Open",
                "net_value": "-50.0", "sales_tax_value": "-10.0", "total_value": "-60.0",
                "credit_note_items": [{"position": 1, "item_type": "Products", "description": "Equipment hire, returned early",
                                       "quantity": "-1.0", "price": "50.0", "sales_tax_rate": "20.0",
                                       "sales_tax_status": "TAXABLE"}]
            }]})),
            _ => base(r),
        }
    }
}

pub const REDIRECT: &str = "https://books.example/api/import/oauth/callback";

pub fn fa_config(server: &MockServer) -> PlatformConfig {
    PlatformConfig {
        base_url: Some(server.url().to_owned()),
        authorize_url: Some(format!("{}/v2/approve_app", server.url())),
        token_url: Some(format!("{}/v2/token_endpoint", server.url())),
        client_id: Some("fa_client".to_owned()),
        client_secret: Some("fa_secret".to_owned()),
        ..PlatformConfig::default()
    }
}
