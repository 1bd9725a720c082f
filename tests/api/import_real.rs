//! Import of files and answers as the platforms really produce them
//! (docs/import.md#imported-documents, docs/import.md#connectors,
//! docs/import.md#row-errors): a source that states no tax, a platform whose own amounts
//! disagree, a record the platform cannot give, the dates older stores send, records
//! that paging lists twice. Each answer follows the platform's published format; the
//! comments say where its shape comes from.

use super::common;
use super::import_api::{connect, find, list_of, migrate_ok, net_app, platforms_for};
use super::platform_mocks::*;

use common::mock_server::{MockServer, Request, Response};
use common::TestApp;
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::str::FromStr;
use stockbook::config::PlatformConfig;
use stockbook::connectors::{self, DataType, ImportRow, Platform, RetryPolicy, ROW_ERROR};

fn d(v: &Value) -> Decimal {
    match v {
        Value::String(s) => Decimal::from_str(s).unwrap(),
        other => Decimal::from_str(&other.to_string()).unwrap(),
    }
}

fn dec(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn run_csv(t: &TestApp, entity: &str, entity_type: &str, csv: &str) -> Value {
    let (status, v) = t.post(
        "/api/import/csv",
        json!({"entityType": entity_type, "csv": csv, "entity_id": entity}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].clone()
}

fn signed_in() -> (TestApp, String) {
    common::app_with_entity()
}

/// A pull straight from a connector against `server`, no retries waited.
fn pull(
    platform: Platform,
    data_type: DataType,
    creds: &Value,
    server: &MockServer,
) -> Vec<ImportRow> {
    let config = PlatformConfig {
        base_url: Some(server.url().to_owned()),
        ..PlatformConfig::default()
    };
    connectors::pull(
        platform,
        data_type,
        creds,
        &config,
        &RetryPolicy::with_sleep(|_| {}),
    )
    .unwrap()
}

// ---------------------------------------------------------------------------------------
// 1. No tax column means no VAT

/// FreshBooks' items and services export (`Name,Type,Rate,Income Account,Status`, the
/// header of `tests/fixtures/import/freshbooks/products.csv`) has no tax column.
#[test]
fn a_product_from_an_export_without_a_tax_column_has_no_vat() {
    let (t, entity) = signed_in();
    let csv = std::fs::read_to_string("tests/fixtures/import/freshbooks/products.csv").unwrap();
    let out = run_csv(&t, &entity, "products", &csv);
    assert_eq!(out["failed"], json!([]), "{out}");
    let products = list_of(&t, "products", &entity);
    let fitting = find(&products, "name", "Kitchen fitting (per day)");
    assert_eq!(d(&fitting["vat_rate"]), Decimal::ZERO, "{fitting}");
    assert_eq!(fitting["vat_treatment"], "zero");
}

/// GoCardless subscriptions (`GET /subscriptions`, API version 2015-07-06): `amount` in
/// pence, `interval_unit`, `upcoming_payments`, `links.mandate`; paged by
/// `meta.cursors.after`. GoCardless charges no VAT and says nothing of it.
fn gocardless_repeating_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let base = gocardless_handler(Once::default());
    move |r: &Request| {
        if r.path != "/subscriptions" || r.header("authorization") != Some("Bearer live_gc") {
            return base(r);
        }
        let veg = json!({"id": "SB0101", "created_at": "2024-01-05T10:00:00.000Z", "amount": 1000,
            "currency": "GBP", "status": "active", "name": "Veg box", "start_date": "2024-02-01",
            "end_date": null, "interval": 1, "interval_unit": "monthly", "day_of_month": 1,
            "month": null, "count": null, "payment_reference": "VEG", "app_fee": null,
            "upcoming_payments": [{"charge_date": "2024-04-01", "amount": 1000}],
            "metadata": {}, "links": {"mandate": "MD0001"}});
        let meta = |after: Option<&str>| json!({"cursors": {"before": null, "after": after}, "limit": 500});
        match r.param("after").as_deref() {
            None => Response::ok(&json!({"subscriptions": [veg], "meta": meta(Some("SB0101"))})),
            // A subscription created meanwhile shifts the listing: the first page's
            // record comes again on the second.
            _ => Response::ok(&json!({"subscriptions": [veg, {
                "id": "SB0102", "created_at": "2024-01-06T10:00:00.000Z", "amount": 2000,
                "currency": "GBP", "status": "active", "name": "Fruit box", "start_date": "2024-02-01",
                "interval": 1, "interval_unit": "monthly", "payment_reference": "FRUIT",
                "upcoming_payments": [], "metadata": {}, "links": {"mandate": "MD0002"}}],
                "meta": meta(None)})),
        }
    }
}

#[test]
fn a_subscription_paging_lists_twice_is_one_template_at_its_price_without_vat() {
    let server = MockServer::start(gocardless_repeating_handler());
    let (t, entity, _) = net_app(platforms_for("gocardless", &server));
    connect(
        &t,
        "gocardless",
        &entity,
        json!({"access_token": "live_gc"}),
    );
    let answer = migrate_ok(&t, "gocardless", "subscriptions", &entity);
    assert_eq!(answer["subscriptions"]["failed"], json!([]), "{answer}");
    assert_eq!(answer["subscriptions"]["imported"], json!(2), "{answer}");
    let templates = list_of(&t, "recurring-invoices", &entity);
    assert_eq!(templates.len(), 2, "{templates:#?}");
    let veg = templates
        .iter()
        .find(|r| r["provider_ref"] == "SB0101")
        .unwrap_or_else(|| panic!("{templates:#?}"));
    let lines = veg["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 1, "the repeated record is read once: {veg}");
    assert_eq!(d(&lines[0]["unit_price"]), dec("10"));
    assert_eq!(d(&lines[0]["vat_rate"]), Decimal::ZERO, "{veg}");
    assert_eq!(d(&veg["total"]), dec("10"), "£10, not £12: {veg}");
}

// ---------------------------------------------------------------------------------------
// 2. Trust the platform's tax per line; an adjustment only absorbs rounding

/// Shopify's REST order (Admin API 2025-01 `orders.json`): three items at £199.00, a
/// £10.00 discount allocated across them, and per line the tax Shopify charged
/// (`tax_lines[].price` £3.98) beside a nominal `rate` (0.06) that does not give it.
/// The order's `total_tax` is £11.94.
fn shopify_tax_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
        if r.header("x-shopify-access-token") != Some("shpat_abc") {
            return Response::json(
                401,
                &json!({"errors": "[API] Invalid API key or access token"}),
            );
        }
        let item = |id: i64, discount: &str| {
            json!({"id": id, "title": "IPod Nano - 8gb", "name": "IPod Nano - 8gb", "sku": "IPOD2008",
                   "quantity": 1, "price": "199.00", "taxable": true,
                   "discount_allocations": [{"amount": discount, "discount_application_index": 0}],
                   "tax_lines": [{"title": "State Tax", "price": "3.98", "rate": 0.06}]})
        };
        match r.path.as_str() {
            "/admin/api/2025-01/orders.json" => Response::ok(&json!({"orders": [{
                "id": 450789469, "name": "#1001", "order_number": 1001, "email": "bob.norman@mail.example.com",
                "created_at": "2008-01-10T11:00:00-05:00", "processed_at": "2008-01-10T11:00:00-05:00",
                "currency": "GBP", "presentment_currency": "GBP", "financial_status": "pending",
                "taxes_included": false, "cancelled_at": null,
                "total_line_items_price": "597.00", "total_discounts": "10.00",
                "subtotal_price": "587.00", "total_tax": "11.94", "total_price": "598.94",
                "customer": {"id": 207119551, "first_name": "Bob", "last_name": "Norman"},
                "line_items": [item(466157049, "3.33"), item(518995019, "3.34"), item(703073504, "3.33")],
                "shipping_lines": [], "refunds": []
            }]})),
            _ => Response::json(404, &json!({"errors": "Not Found"})),
        }
    }
}

#[test]
fn a_shopify_order_keeps_the_tax_shopify_charged_on_each_line() {
    let server = MockServer::start(shopify_tax_handler());
    let creds = json!({"shop": "test-shop", "access_token": "shpat_abc"});
    let rows = pull(Platform::Shopify, DataType::Invoices, &creds, &server);
    assert!(rows.iter().all(|r| !r.contains_key(ROW_ERROR)), "{rows:#?}");
    let (mut vat, mut adjustments) = (Decimal::ZERO, Decimal::ZERO);
    for r in &rows {
        let q = dec(&r["line_quantity"]);
        let p = dec(&r["line_unit_price"]);
        let disc = r.get("line_discount").map_or(Decimal::ZERO, |v| dec(v));
        let net = (q * p * (Decimal::ONE - disc / Decimal::ONE_HUNDRED)).round_dp(2);
        let line_vat = (net * dec(&r["line_vat_rate"]) / Decimal::ONE_HUNDRED).round_dp(2);
        vat += line_vat;
        if r["line_description"].contains("djustment") {
            adjustments += net.abs();
        }
    }
    assert!(
        (vat - dec("11.94")).abs() <= dec("0.03"),
        "VAT {vat}, Shopify charged 11.94: {rows:#?}"
    );
    assert!(
        adjustments <= dec("0.06"),
        "adjustment {adjustments}: {rows:#?}"
    );
}

/// A Stripe invoice as stripe-mock's fixtures have it (API 2024 invoice object): the
/// `shipping_cost` block says one amount, the invoice's own `amount_shipping` another.
fn stripe_shipping_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    move |r: &Request| {
        if r.header("authorization") != Some("Bearer sk_test_123") {
            return unauthorized();
        }
        let list =
            |data: Value| json!({"object": "list", "url": r.path, "has_more": false, "data": data});
        match r.path.as_str() {
            "/v1/invoices" => {
                let lines = json!({"object": "list", "has_more": false, "url": "/v1/invoices/in_1/lines", "data": [{
                    "id": "il_1", "object": "line_item", "amount": 1000, "currency": "gbp",
                    "description": "Consulting", "quantity": 1,
                    "pricing": {"type": "price_details", "unit_amount_decimal": "1000"},
                    "discount_amounts": [],
                    "taxes": [{"amount": 200, "tax_behavior": "exclusive", "taxable_amount": 1000,
                               "type": "tax_rate_details", "tax_rate_details": {"tax_rate": "txr_1"}}]}]});
                let shipping = json!({"amount_subtotal": 1_551_151_500, "amount_tax": 0,
                                  "amount_total": 1_551_151_500, "shipping_rate": "shr_1", "taxes": []});
                Response::ok(&list(json!([{
                    "id": "in_1MtHbELkdIwHu7ixl4OzzPMv", "object": "invoice", "number": "STR-9001",
                    "status": "open", "customer": "cus_NeZwdNtLEOXuvB", "customer_name": "Jenny Rosen",
                    "currency": "gbp", "created": 1_680_644_467, "due_date": null,
                    "subtotal": 1000, "total": 1200, "amount_due": 1200, "amount_paid": 0,
                    "amount_remaining": 1200, "amount_shipping": 0,
                    "shipping_cost": shipping,
                    "status_transitions": {"finalized_at": 1_680_644_500, "paid_at": null},
                    "lines": lines,
                    "payments": {"object": "list", "has_more": false, "data": []}
                }])))
            }
            "/v1/customers" | "/v1/credit_notes" | "/v1/refunds" => Response::ok(&list(json!([]))),
            _ => Response::json(
                404,
                &json!({"error": {"type": "invalid_request_error", "message": "No such path"}}),
            ),
        }
    }
}

#[test]
fn a_stripe_invoice_whose_shipping_contradicts_itself_is_a_row_error_not_an_adjustment() {
    let server = MockServer::start(stripe_shipping_handler());
    let rows = pull(
        Platform::Stripe,
        DataType::Invoices,
        &json!({"api_key": "sk_test_123"}),
        &server,
    );
    assert!(!rows.is_empty());
    for r in &rows {
        let why = r.get(ROW_ERROR).unwrap_or_else(|| panic!("{rows:#?}"));
        assert!(why.contains("amount_shipping"), "{why}");
    }
    let (t, entity, _) = net_app(platforms_for("stripe", &server));
    connect(&t, "stripe", &entity, json!({"api_key": "sk_test_123"}));
    let answer = migrate_ok(&t, "stripe", "invoices", &entity);
    let failed = answer["invoices"]["failed"].as_array().expect("failed");
    assert!(!failed.is_empty(), "{answer}");
    assert!(
        failed[0]["message"]
            .as_str()
            .unwrap()
            .contains("shipping_cost"),
        "{answer}"
    );
    assert!(list_of(&t, "invoices", &entity).is_empty());
}

#[test]
fn an_untaxed_document_whose_lines_cannot_reach_its_total_is_a_row_error() {
    let (t, entity) = signed_in();
    // The generic mapping of a file with no tax column: a line at no price cannot make
    // up a total of 250.00 but by an "adjustment" of all of it.
    let csv = "Invoice Number,Customer,Date,Description,Unit Price,Total\n\
               W-1,Acme Retail,2024-03-01,Samples,0.00,250.00\n\
               W-2,Acme Retail,2024-03-02,Design work,100.00,100.00\n";
    let (status, v) = t.post(
        "/api/import/csv",
        json!({"entityType": "invoices", "csv": csv, "entity_id": entity, "platform": "generic",
               "mapping": {"Invoice Number": "number", "Customer": "contact_name", "Date": "issue_date",
                           "Description": "line_description", "Unit Price": "line_unit_price",
                           "Total": "total"}}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    let out = &v["data"];
    assert_eq!(out["imported"], json!(1), "{out}");
    let failed = out["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{out}");
    assert!(
        failed[0]["message"]
            .as_str()
            .unwrap()
            .contains("more than rounding"),
        "{out}"
    );
}

// ---------------------------------------------------------------------------------------
// 3. One record the platform cannot complete is a row error

/// Square's Invoices API (`GET /v2/invoices`): an invoice names its `order_id`; here
/// `GET /v2/orders/{id}` answers Square's 404 (`{"errors": [{"category":
/// "INVALID_REQUEST_ERROR", "code": "NOT_FOUND"}]}`) for one of them.
fn square_missing_order_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let base = square_handler(Once::default());
    move |r: &Request| {
        let authorised = r.header("authorization") == Some("Bearer EAAAsq");
        match (
            r.method.as_str(),
            r.path.as_str(),
            r.param("location_id").as_deref(),
        ) {
            ("GET", "/v2/invoices", Some("L2")) if authorised => {
                Response::ok(&json!({"invoices": [{
                    "id": "inv:0-C", "version": 0, "location_id": "L2", "order_id": "ORD-5",
                    "invoice_number": "000003", "status": "DRAFT",
                    "primary_recipient": {"given_name": "Ada", "family_name": "Lovelace"},
                    "payment_requests": [{"uid": "pr-c1", "request_type": "BALANCE", "due_date": "2024-03-30",
                        "computed_amount_money": gbp(600), "total_completed_amount_money": gbp(0)}],
                    "created_at": "2024-03-01T09:05:00Z"
                }, {
                    "id": "inv:0-D", "version": 1, "location_id": "L2", "order_id": "ORD-GONE",
                    "invoice_number": "000004", "status": "UNPAID",
                    "primary_recipient": {"given_name": "Alan", "family_name": "Turing"},
                    "payment_requests": [{"uid": "pr-d1", "request_type": "BALANCE", "due_date": "2024-04-30",
                        "computed_amount_money": gbp(900), "total_completed_amount_money": gbp(0)}],
                    "created_at": "2024-03-02T09:05:00Z"
                }]}))
            }
            ("GET", "/v2/orders/ORD-GONE", _) if authorised => Response::json(
                404,
                &json!({"errors": [{"category": "INVALID_REQUEST_ERROR", "code": "NOT_FOUND",
                                    "detail": "Order not found."}]}),
            ),
            _ => base(r),
        }
    }
}

#[test]
fn a_square_invoice_whose_order_is_gone_is_a_row_error_and_the_rest_imports() {
    let server = MockServer::start(square_missing_order_handler());
    let (t, entity, _) = net_app(platforms_for("square", &server));
    connect(&t, "square", &entity, json!({"access_token": "EAAAsq"}));
    let answer = migrate_ok(&t, "square", "invoices", &entity);
    let out = &answer["invoices"];
    assert_eq!(out["imported"], json!(5), "{answer}");
    let failed = out["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{answer}");
    let message = failed[0]["message"].as_str().unwrap();
    assert!(
        message.contains("ORD-GONE") && message.contains("000004"),
        "{message}"
    );
    assert!(!message.contains(".."), "{message}");
    let invoices = list_of(&t, "invoices", &entity);
    assert!(invoices.iter().all(|i| i["number"] != "000004"));
}

/// The rows of a pull that carry a row error, and their messages.
fn refused(rows: &[ImportRow]) -> Vec<&str> {
    rows.iter()
        .filter_map(|r| r.get(ROW_ERROR).map(String::as_str))
        .collect()
}

/// A row error names the record and says the platform's words, in one sentence.
fn assert_names(message: &str, parts: &[&str]) {
    for p in parts {
        assert!(message.contains(p), "{p:?} not in {message}");
    }
    assert!(!message.contains(".."), "{message}");
    assert!(!message.contains(".)"), "{message}");
}

/// FreeAgent's `GET /v2/bank_transaction_explanations?bank_account=` for an account it
/// lists but cannot give the explanations of (its 404 body): the invoices import, each
/// with FreeAgent's own `paid_value` and `paid_on`.
#[test]
fn a_freeagent_account_whose_explanations_are_gone_leaves_invoices_their_paid_value() {
    use stockbook::connectors::freeagent::{self, FreeAgentToken};
    let base = freeagent_books_handler();
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/v2/bank_transaction_explanations" {
            return Response::json(
                404,
                &json!({"errors": {"error": {"message": "Resource not found"}}}),
            );
        }
        base(r)
    });
    let now = time::OffsetDateTime::now_utc();
    let mut token = FreeAgentToken {
        access_token: "at-1".into(),
        refresh_token: "rt-1".into(),
        expires_at: now + time::Duration::hours(1),
    };
    let rows = freeagent::pull(
        DataType::Invoices,
        &mut token,
        &fa_config(&server),
        now,
        &RetryPolicy::with_sleep(|_| {}),
    )
    .unwrap();
    assert!(refused(&rows).is_empty(), "{rows:#?}");
    let paid = |n: &str| {
        let row = rows.iter().find(|r| r["number"] == n).unwrap();
        (
            row.get("amount_paid").cloned(),
            row.get("paid_date").cloned(),
        )
    };
    assert_eq!(paid("010").0.as_deref(), Some("190.5"), "{rows:#?}");
    assert_eq!(
        paid("012"),
        (Some("120".to_owned()), Some("2024-04-09".to_owned())),
        "{rows:#?}"
    );
}

/// Shopify's Order Transaction API (`GET /orders/{id}/transactions.json`) answers an
/// order it no longer has with its REST 404 body, `{"errors": "Not Found"}`.
#[test]
fn a_shopify_order_whose_transactions_are_gone_is_a_row_error_and_the_rest_imports() {
    let base = shopify_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/admin/api/2025-01/orders/450789470/transactions.json" {
            return Response::json(404, &json!({"errors": "Not Found"}));
        }
        base(r)
    });
    let creds = json!({"shop": "acme", "access_token": "shpat_abc"});
    let rows = pull(Platform::Shopify, DataType::Invoices, &creds, &server);
    let errors = refused(&rows);
    assert!(!errors.is_empty(), "{rows:#?}");
    assert_names(
        errors[0],
        &["Shopify", "#1002", "transactions", "Not Found"],
    );
    let failed: Vec<_> = rows.iter().filter(|r| r.contains_key(ROW_ERROR)).collect();
    assert!(failed.iter().all(|r| r["number"] == "#1002"), "{rows:#?}");
    assert!(
        rows.iter()
            .any(|r| r["number"] == "#1001" && !r.contains_key(ROW_ERROR)),
        "{rows:#?}"
    );
}

#[test]
fn a_shopify_order_whose_transactions_fail_on_the_server_still_fails_the_pull() {
    let base = shopify_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/admin/api/2025-01/orders/450789470/transactions.json" {
            return Response::json(503, &json!({"errors": "Unavailable"}));
        }
        base(r)
    });
    let config = PlatformConfig {
        base_url: Some(server.url().to_owned()),
        ..PlatformConfig::default()
    };
    let err = connectors::pull(
        Platform::Shopify,
        DataType::Invoices,
        &json!({"shop": "acme", "access_token": "shpat_abc"}),
        &config,
        &RetryPolicy::with_sleep(|_| {}),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            connectors::ConnectorError::Unavailable { status: 503, .. }
        ),
        "{err:?}"
    );
}

/// WooCommerce REST API v3: a product or order id it no longer knows is a 404 with its
/// error body (`woocommerce_rest_product_invalid_id`, `woocommerce_rest_shop_order_invalid_id`,
/// `"message": "Invalid ID."`).
fn woo_gone_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let base = woo_handler(Once(std::sync::Arc::new(true.into())));
    move |r: &Request| match r.path.as_str() {
        "/wp-json/wc/v3/products/11/variations" => Response::json(
            404,
            &json!({"code": "woocommerce_rest_product_invalid_id", "message": "Invalid ID.",
                    "data": {"status": 404}}),
        ),
        "/wp-json/wc/v3/orders/728/refunds" => Response::json(
            404,
            &json!({"code": "woocommerce_rest_shop_order_invalid_id", "message": "Invalid ID.",
                    "data": {"status": 404}}),
        ),
        _ => base(r),
    }
}

#[test]
fn a_woocommerce_product_whose_variations_are_gone_is_a_row_error_and_the_rest_imports() {
    let server = MockServer::start(woo_gone_handler());
    let rows = pull(
        Platform::Woocommerce,
        DataType::Products,
        &woo_creds(),
        &server,
    );
    let errors = refused(&rows);
    assert_eq!(errors.len(), 1, "{rows:#?}");
    assert_names(
        errors[0],
        &["WooCommerce", "product 11", "T-shirt", "Invalid ID"],
    );
    let names: Vec<&str> = rows
        .iter()
        .filter(|r| !r.contains_key(ROW_ERROR))
        .map(|r| r["name"].as_str())
        .collect();
    assert_eq!(names, ["Oak table", "Gift wrap"], "{rows:#?}");
}

#[test]
fn a_woocommerce_order_whose_refunds_are_gone_imports_and_each_refund_is_a_row_error() {
    let server = MockServer::start(woo_gone_handler());
    let invoices = pull(
        Platform::Woocommerce,
        DataType::Invoices,
        &woo_creds(),
        &server,
    );
    assert!(refused(&invoices).is_empty(), "{invoices:#?}");
    assert!(
        invoices.iter().any(|r| r["number"] == "1043"),
        "{invoices:#?}"
    );
    let credits = pull(
        Platform::Woocommerce,
        DataType::CreditNotes,
        &woo_creds(),
        &server,
    );
    let errors = refused(&credits);
    assert_eq!(errors.len(), 1, "{credits:#?}");
    assert_names(errors[0], &["refund 801", "order 1043", "Invalid ID"]);
    assert_eq!(credits[0]["number"], "1043-R1");
}

/// Stripe's `GET /v1/invoices/{id}/lines` answers an invoice deleted while the list was
/// read with its 404 error object (`resource_missing`, "No such invoice: 'in_1'").
#[test]
fn a_stripe_invoice_whose_line_pages_are_gone_is_a_row_error_and_the_rest_imports() {
    let base = stripe_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/v1/invoices/in_1/lines" {
            return Response::json(
                404,
                &json!({"error": {"code": "resource_missing", "doc_url": "https://stripe.com/docs/error-codes/resource-missing",
                        "message": "No such invoice: 'in_1'", "param": "invoice", "type": "invalid_request_error"}}),
            );
        }
        base(r)
    });
    let rows = pull(
        Platform::Stripe,
        DataType::Invoices,
        &stripe_creds(),
        &server,
    );
    let errors = refused(&rows);
    assert_eq!(errors.len(), 1, "{rows:#?}");
    assert_names(
        errors[0],
        &["Stripe", "invoice STR-0001", "No such invoice"],
    );
    assert!(
        rows.iter()
            .any(|r| r["provider_ref"] == "in_2" && !r.contains_key(ROW_ERROR)),
        "{rows:#?}"
    );
}

/// PayPal's Invoicing v2 `GET /v2/invoicing/invoices/{id}`: an invoice it lists but
/// cannot show answers `RESOURCE_NOT_FOUND`.
#[test]
fn a_paypal_invoice_it_cannot_show_is_a_row_error_and_the_rest_imports() {
    let base = paypal_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/v2/invoicing/invoices/INV2-CCCC-DDDD" {
            return Response::json(
                404,
                &json!({"name": "RESOURCE_NOT_FOUND", "message": "The specified resource does not exist.",
                        "debug_id": "f9b5c8a3e1d2b",
                        "details": [{"issue": "INVALID_RESOURCE_ID",
                                     "description": "Specified resource ID does not exist. Please check the resource ID and try again."}]}),
            );
        }
        base(r)
    });
    let rows = pull(
        Platform::Paypal,
        DataType::Invoices,
        &paypal_creds(),
        &server,
    );
    let errors = refused(&rows);
    assert_eq!(errors.len(), 1, "{rows:#?}");
    assert_names(
        errors[0],
        &[
            "PayPal",
            "invoice 0002",
            "The specified resource does not exist",
        ],
    );
    assert!(
        rows.iter()
            .any(|r| r["provider_ref"] == "INV2-AAAA-BBBB" && !r.contains_key(ROW_ERROR)),
        "{rows:#?}"
    );
}

/// FreeAgent's `GET /v2/recurring_invoices/:id` for a recurring invoice deleted while the
/// list was read: its 404 body `{"errors": {"error": {"message": "Resource not found"}}}`.
#[test]
fn a_freeagent_recurring_invoice_it_cannot_show_is_a_row_error_and_the_rest_imports() {
    use stockbook::connectors::freeagent::{self, FreeAgentToken};
    let base = freeagent_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        let host = origin(r);
        match r.path.as_str() {
            "/v2/recurring_invoices" => Response::ok(&json!({"recurring_invoices": [{
                "url": format!("{host}/v2/recurring_invoices/9"), "contact_name": "Gone Ltd",
                "frequency": "Monthly", "recurring_status": "Active", "reference": "009",
                "net_value": "5.0", "total_value": "5.0"
            }, {
                "url": format!("{host}/v2/recurring_invoices/1"), "contact_name": "Nathan Barley",
                "dated_on": "2024-03-01", "frequency": "Quarterly", "next_recurs_on": "2024-06-01",
                "recurring_status": "Active", "reference": "002", "currency": "GBP",
                "net_value": "2.0", "sales_tax_value": "0.4", "total_value": "2.4"
            }]})),
            _ => base(r),
        }
    });
    let now = time::OffsetDateTime::now_utc();
    let mut token = FreeAgentToken {
        access_token: "at-1".into(),
        refresh_token: "rt-1".into(),
        expires_at: now + time::Duration::hours(1),
    };
    let rows = freeagent::pull(
        DataType::Subscriptions,
        &mut token,
        &fa_config(&server),
        now,
        &RetryPolicy::with_sleep(|_| {}),
    )
    .unwrap();
    let errors = refused(&rows);
    assert_eq!(errors.len(), 1, "{rows:#?}");
    assert_names(
        errors[0],
        &["FreeAgent", "recurring invoice 009", "Resource not found"],
    );
    assert!(
        rows.iter()
            .any(|r| r.get("line_description").map(String::as_str) == Some("Hosting")),
        "{rows:#?}"
    );
}

// ---------------------------------------------------------------------------------------
// 4. The dates a platform really sends

/// WooCommerce REST API v3 orders: every `date_*` has a `date_*_gmt` twin, and orders
/// of older stores carry only the GMT ones (`date_created: null`).
fn woo_gmt_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let base = woo_handler(Once::default());
    move |r: &Request| {
        if r.path != "/wp-json/wc/v3/orders" || r.header("authorization").is_none() {
            return base(r);
        }
        let items = json!([{"id": 315, "name": "Woo Single #1", "product_id": 93, "variation_id": 0,
            "quantity": 2, "tax_class": "", "subtotal": "29.35", "subtotal_tax": "0.00",
            "total": "29.35", "total_tax": "0.00", "taxes": [], "sku": "", "price": 14.675}]);
        let billing = json!({"first_name": "John", "last_name": "Doe", "company": "", "email": "john.doe@example.com"});
        Response::ok(&json!([{
            "id": 727, "parent_id": 0, "number": "727", "order_key": "wc_order_58d2d042d1d",
            "created_via": "rest-api", "version": "3.0.0", "status": "completed", "currency": "GBP",
            "date_created": null, "date_created_gmt": "2017-03-22T16:28:02",
            "date_modified": null, "date_modified_gmt": "2017-03-22T16:28:08",
            "discount_total": "0.00", "discount_tax": "0.00", "shipping_total": "0.00",
            "shipping_tax": "0.00", "cart_tax": "0.00", "total": "29.35", "total_tax": "0.00",
            "prices_include_tax": false, "customer_id": 0,
            "billing": billing,
            "payment_method": "bacs", "payment_method_title": "Direct Bank Transfer",
            "date_paid": null, "date_paid_gmt": "2017-03-22T16:28:08",
            "date_completed": null, "date_completed_gmt": "2017-03-22T16:28:08",
            "line_items": items,
            "tax_lines": [], "shipping_lines": [], "fee_lines": [], "coupon_lines": [], "refunds": []
        }]))
    }
}

#[test]
fn a_woocommerce_order_with_only_gmt_dates_imports_on_those_dates() {
    let server = MockServer::start(woo_gmt_handler());
    let creds = woo_creds();
    let rows = pull(Platform::Woocommerce, DataType::Invoices, &creds, &server);
    assert!(!rows.is_empty());
    assert_eq!(rows[0]["issue_date"], "2017-03-22", "{rows:#?}");
    assert_eq!(
        rows[0].get("paid_date").map(String::as_str),
        Some("2017-03-22"),
        "{rows:#?}"
    );
}

/// Shopify's Order resource: `processed_at` is "the date and time when the order was
/// imported", absent on orders made in the shop; `created_at` is then the order's date.
/// Order #1002 of the mock has only `created_at` (2024-03-06).
#[test]
fn a_shopify_order_without_processed_at_is_dated_when_it_was_created() {
    let server = shopify_server(Once(std::sync::Arc::new(true.into())));
    let creds = json!({"shop": "acme", "access_token": "shpat_abc"});
    let rows = pull(Platform::Shopify, DataType::Invoices, &creds, &server);
    let row = rows.iter().find(|r| r["number"] == "#1002").unwrap();
    assert_eq!(row["issue_date"], "2024-03-06", "{rows:#?}");
}

/// Stripe's Invoice object: `created`, and `effective_at` ("the date when this invoice
/// is in effect") and `status_transitions.finalized_at`. An invoice that arrives without
/// `created` is dated by the next of them it has.
#[test]
fn a_stripe_invoice_without_created_is_dated_when_it_took_effect_or_was_finalised() {
    let server = MockServer::start(|r: &Request| {
        if r.header("authorization").is_none() || r.path != "/v1/invoices" {
            return Response::json(
                404,
                &json!({"error": {"message": "Unrecognized request URL"}}),
            );
        }
        let invoice = |id: &str, number: &str, dates: Value| {
            let mut inv = json!({
                "id": id, "object": "invoice", "number": number, "status": "open",
                "customer": "cus_1", "customer_name": "Ada Lovelace", "currency": "gbp",
                "total": 1200, "amount_paid": 0,
                "lines": {"object": "list", "has_more": false, "url": format!("/v1/invoices/{id}/lines"), "data": [{
                    "id": format!("il_{id}"), "object": "line_item", "amount": 1000, "currency": "gbp",
                    "description": "Setup", "quantity": 1,
                    "pricing": {"type": "price_details", "unit_amount_decimal": "1000"},
                    "taxes": [{"amount": 200, "tax_behavior": "exclusive", "taxable_amount": 1000,
                               "type": "tax_rate_details", "tax_rate_details": {"tax_rate": "txr_1"}}]
                }]}
            });
            inv.as_object_mut()
                .unwrap()
                .extend(dates.as_object().unwrap().clone());
            inv
        };
        Response::ok(
            &json!({"object": "list", "url": "/v1/invoices", "has_more": false, "data": [
                invoice("in_e", "STR-0010", json!({"effective_at": 1_700_000_000,
                    "status_transitions": {"finalized_at": 1_700_200_000, "paid_at": null}})),
                invoice("in_f", "STR-0011", json!({
                    "status_transitions": {"finalized_at": 1_700_200_000, "paid_at": null}}))
            ]}),
        )
    });
    let rows = pull(
        Platform::Stripe,
        DataType::Invoices,
        &stripe_creds(),
        &server,
    );
    let date = |n: &str| rows.iter().find(|r| r["number"] == n).unwrap()["issue_date"].clone();
    assert_eq!(date("STR-0010"), "2023-11-14", "{rows:#?}");
    assert_eq!(date("STR-0011"), "2023-11-17", "{rows:#?}");
}

/// PayPal's Invoicing v2 invoice: `detail.invoice_date` is optional; `detail.metadata`
/// always carries `create_time`.
#[test]
fn a_paypal_invoice_without_an_invoice_date_is_dated_when_it_was_created() {
    let base = paypal_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/v2/invoicing/invoices/INV2-CCCC-DDDD" {
            return Response::ok(&json!({
                "id": "INV2-CCCC-DDDD", "status": "SENT",
                "detail": {"invoice_number": "0002", "currency_code": "GBP",
                           "metadata": {"create_time": "2024-02-28T23:10:00Z", "created_by": "seller@example.com"}},
                "primary_recipients": [{"billing_info": {"business_name": "Widget Works Ltd"}}],
                "items": [{"name": "Widget", "quantity": "1", "unit_amount": {"currency_code": "GBP", "value": "9.99"},
                           "tax": {"name": "VAT", "percent": "20", "amount": {"currency_code": "GBP", "value": "2.00"}}}],
                "amount": {"currency_code": "GBP", "value": "11.99"},
                "due_amount": {"currency_code": "GBP", "value": "11.99"}
            }));
        }
        base(r)
    });
    let rows = pull(
        Platform::Paypal,
        DataType::Invoices,
        &paypal_creds(),
        &server,
    );
    let row = rows.iter().find(|r| r["number"] == "0002").unwrap();
    assert_eq!(row["issue_date"], "2024-02-28", "{rows:#?}");
}

/// FreeAgent's Invoice: `dated_on` and `due_on`, and beside them `created_at` and
/// `payment_terms_in_days`. An invoice without the first two is dated when it was
/// created and due its payment terms later.
#[test]
fn a_freeagent_invoice_without_dates_is_dated_when_created_and_due_after_its_terms() {
    use stockbook::connectors::freeagent::{self, FreeAgentToken};
    let base = freeagent_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        let host = origin(r);
        if r.path == "/v2/invoices" {
            return Response::ok(&json!({"invoices": [{
                "url": format!("{host}/v2/invoices/9"), "contact_name": "Nathan Barley", "reference": "009",
                "created_at": "2024-05-01T10:00:00.000Z", "payment_terms_in_days": 30,
                "currency": "GBP", "net_value": "10.0", "sales_tax_value": "2.0", "total_value": "12.0",
                "paid_value": "0.0", "due_value": "12.0", "status": "Open",
                "invoice_items": [{"position": 1, "item_type": "Products", "description": "Thing",
                                   "quantity": "1.0", "price": "10.0", "sales_tax_rate": "20.0"}]
            }]}));
        }
        base(r)
    });
    let now = time::OffsetDateTime::now_utc();
    let mut token = FreeAgentToken {
        access_token: "at-1".into(),
        refresh_token: "rt-1".into(),
        expires_at: now + time::Duration::hours(1),
    };
    let rows = freeagent::pull(
        DataType::Invoices,
        &mut token,
        &fa_config(&server),
        now,
        &RetryPolicy::with_sleep(|_| {}),
    )
    .unwrap();
    assert_eq!(rows[0]["issue_date"], "2024-05-01", "{rows:#?}");
    assert_eq!(rows[0]["due_date"], "2024-05-31", "{rows:#?}");
}

// ---------------------------------------------------------------------------------------
// 5. Rows that share a number but not a customer

/// Xero's sales invoices export (the header of `tests/fixtures/import/xero/invoices.csv`):
/// one row per line, the invoice's fields repeated. Two rows of `INV-0077` name
/// different contacts.
#[test]
fn rows_sharing_an_invoice_number_but_naming_two_contacts_are_a_row_error_naming_both() {
    let (t, entity) = signed_in();
    let fixture = std::fs::read_to_string("tests/fixtures/import/xero/invoices.csv").unwrap();
    let header = fixture.lines().next().unwrap();
    let row = |contact: &str, description: &str| {
        format!(
            "{contact},,,,,,,,,,,,,,,,,,INV-0077,,05/03/2024,04/04/2024,,240.00,40.00,0.00,240.00,,\
             {description},1.0000,100.00,,100.00,200,20% (VAT on Income),20.00,,,,,GBP,Sales invoice,Sent,Awaiting Payment"
        )
    };
    let csv = format!(
        "{header}\n{}\n{}\n{}\n",
        row("Hartley & Sons Joinery Ltd", "Survey"),
        row("Bramble Café", "Shelving"),
        "Bramble Café,,,,,,,,,,,,,,,,,,INV-0078,,06/03/2024,05/04/2024,,120.00,20.00,0.00,120.00,,\
         Shelf,1.0000,100.00,,100.00,200,20% (VAT on Income),20.00,,,,,GBP,Sales invoice,Sent,Awaiting Payment",
    );
    let out = run_csv(&t, &entity, "invoices", &csv);
    assert_eq!(out["imported"], json!(1), "{out}");
    let failed = out["failed"].as_array().unwrap();
    assert!(!failed.is_empty(), "{out}");
    let message = failed[0]["message"].as_str().unwrap();
    assert!(
        message.contains("Hartley & Sons Joinery Ltd") && message.contains("Bramble Café"),
        "{message}"
    );
    let invoices = list_of(&t, "invoices", &entity);
    assert!(
        invoices.iter().all(|i| i["number"] != "INV-0077"),
        "{invoices:#?}"
    );
}

// ---------------------------------------------------------------------------------------
// 8. Archived items, title rows above the header, a sale price

/// FreshBooks' items and services export (header of
/// `tests/fixtures/import/freshbooks/products.csv`) lists archived items with `Status`
/// `Archived`; Xero's items export (header of `tests/fixtures/import/xero/products.csv`)
/// with a `Status` column says `Archived` too.
#[test]
fn archived_items_arrive_as_inactive_products() {
    let (t, entity) = signed_in();
    let freshbooks = "Name,Type,Rate,Income Account,Status\n\
                      Kitchen fitting (per day),Service,£360.00,Revenue: Sales,Active\n\
                      Old survey rate,Service,£80.00,Revenue: Sales,Archived\n";
    let out = run_csv(&t, &entity, "products", freshbooks);
    assert_eq!(out["failed"], json!([]), "{out}");
    let xero =
        "*ItemCode,ItemName,Quantity,PurchasesDescription,PurchasesUnitPrice,PurchasesAccount,\
                PurchasesTaxRate,SalesDescription,SalesUnitPrice,SalesAccount,SalesTaxRate,\
                InventoryAssetAccount,CostOfGoodsSoldAccount,Status\n\
                MUG-10OZ,Enamel mug 10oz,0,,3.00,300,20% (VAT on Expenses),Enamel mug,8.00,200,\
                20% (VAT on Income),630,310,Archived\n\
                MUG-12OZ,Enamel mug 12oz,120,,3.20,300,20% (VAT on Expenses),Enamel mug,8.50,200,\
                20% (VAT on Income),630,310,Active\n";
    let out = run_csv(&t, &entity, "products", xero);
    assert_eq!(out["failed"], json!([]), "{out}");
    let products = list_of(&t, "products", &entity);
    let active = |name: &str| find(&products, "name", name)["active"].clone();
    assert_eq!(active("Kitchen fitting (per day)"), json!(true));
    assert_eq!(active("Old survey rate"), json!(false));
    assert_eq!(active("Enamel mug 10oz"), json!(false));
    assert_eq!(active("Enamel mug 12oz"), json!(true));
}

/// QuickBooks Online reports exported to CSV open with title rows (the company, the
/// report's name, its period) and a blank row, and their table has an empty first
/// column (as `tests/fixtures/import/quickbooks/credit_notes.csv`). The Customer Contact
/// List's columns are those its report shows: Customer, Phone Numbers, Email, Full Name,
/// Billing Address.
#[test]
fn a_file_with_title_rows_above_its_header_is_read_from_its_header() {
    let (t, entity) = signed_in();
    let csv = "Hartley Joinery Ltd\n\
               Customer Contact List\n\
               All Dates\n\
               \n\
               ,Customer,Phone Numbers,Email,Full Name,Billing Address\n\
               ,Bramble Café,01904 000111,hello@bramblecafe.co.uk,Jo Bramble,\"12 High Street, York\"\n\
               ,Acme Retail Ltd,0113 000222,accounts@acme.example,Sam Acme,\"1 Mill Lane, Leeds\"\n";
    let (status, v) = t.post(
        "/api/import/preview",
        json!({"mode": "csv", "csv": csv, "entityType": "contacts", "platform": "generic"}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    let data = &v["data"];
    assert!(
        data["headers"]
            .as_array()
            .unwrap()
            .contains(&json!("Email")),
        "{data}"
    );
    assert_eq!(data["totalRows"], json!(2), "{data}");
    // Found without naming the platform too.
    let (status, v) = t.post(
        "/api/import/preview",
        json!({"mode": "csv", "csv": csv, "entityType": "contacts"}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    assert_eq!(v["data"]["totalRows"], json!(2), "{v}");
    assert_eq!(
        v["data"]["rows"][0]["email"], "hello@bramblecafe.co.uk",
        "{v}"
    );
    let out = run_csv_with(&t, &entity, "contacts", csv, "generic");
    assert_eq!(out["failed"], json!([]), "{out}");
    assert_eq!(out["imported"], json!(2), "{out}");
    let contacts = list_of(&t, "contacts", &entity);
    assert_eq!(
        find(&contacts, "email", "hello@bramblecafe.co.uk")["phone"],
        "01904 000111"
    );
}

fn run_csv_with(t: &TestApp, entity: &str, entity_type: &str, csv: &str, platform: &str) -> Value {
    let (status, v) = t.post(
        "/api/import/csv",
        json!({"entityType": entity_type, "csv": csv, "entity_id": entity, "platform": platform}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].clone()
}

/// WooCommerce REST API v3 products: `status` (`publish`, `draft`, `pending`,
/// `private`), `on_sale` with `sale_price` and its `date_on_sale_from`/`_to`.
fn woo_products_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let base = woo_handler(Once::default());
    move |r: &Request| {
        if r.path != "/wp-json/wc/v3/products" || r.header("authorization").is_none() {
            return base(r);
        }
        Response::ok(&json!([
            {"id": 794, "name": "Premium Quality", "type": "simple", "status": "publish", "sku": "PQ-1",
             "tax_status": "taxable", "tax_class": "", "price": "18.00", "regular_price": "21.99",
             "sale_price": "18.00", "on_sale": true, "date_on_sale_from": "2024-11-01T00:00:00",
             "date_on_sale_to": "2024-12-01T23:59:59", "categories": []},
            {"id": 795, "name": "Ship Your Idea", "type": "simple", "status": "draft", "sku": "SYI-1",
             "tax_status": "taxable", "tax_class": "", "price": "12.00", "regular_price": "12.00",
             "sale_price": "", "on_sale": false, "categories": []}
        ]))
    }
}

#[test]
fn a_woocommerce_draft_is_inactive_and_a_sale_price_is_noted() {
    let server = MockServer::start(woo_products_handler());
    let rows = pull(
        Platform::Woocommerce,
        DataType::Products,
        &woo_creds(),
        &server,
    );
    let premium = rows
        .iter()
        .find(|r| r["provider_ref"] == "794")
        .expect("794");
    assert_eq!(
        premium["unit_price"], "21.99",
        "the regular price: {premium:?}"
    );
    let note = premium.get("notes").expect("a note of the sale price");
    assert!(note.contains("18") && note.contains("2024-12-01"), "{note}");
    let draft = rows
        .iter()
        .find(|r| r["provider_ref"] == "795")
        .expect("795");
    assert_eq!(draft.get("status").map(String::as_str), Some("draft"));

    let (t, entity, _) = net_app(json!({"woocommerce": {"base_url": server.url()}}));
    connect(&t, "woocommerce", &entity, woo_creds());
    let answer = migrate_ok(&t, "woocommerce", "products", &entity);
    assert_eq!(answer["products"]["failed"], json!([]), "{answer}");
    let products = list_of(&t, "products", &entity);
    assert_eq!(
        find(&products, "name", "Ship Your Idea")["active"],
        json!(false)
    );
    let premium = find(&products, "name", "Premium Quality");
    assert_eq!(premium["active"], json!(true));
    assert!(
        premium["notes"].as_str().unwrap_or("").contains("18"),
        "{premium}"
    );
}

// ---------------------------------------------------------------------------------------
// 7. What a part-paid invoice was paid, and when

/// Square's Invoices API: a `PARTIALLY_PAID` invoice whose deposit request is paid
/// (`payment_requests[].total_completed_amount_money` £300 of £666) and its order
/// (`GET /v2/orders/{id}`), whose `tenders[]` carry the payment and when it was made.
fn square_part_paid_handler() -> impl Fn(&Request) -> Response + Send + Sync + 'static {
    let base = square_handler(Once::default());
    move |r: &Request| {
        let authorised = r.header("authorization") == Some("Bearer EAAAsq");
        match (
            r.method.as_str(),
            r.path.as_str(),
            r.param("location_id").as_deref(),
        ) {
            ("GET", "/v2/invoices", Some("L2")) if authorised => {
                Response::ok(&json!({"invoices": [{
                    "id": "inv:0-ChCHu2mZEabLeeHahQnXDjZQECH", "version": 4, "location_id": "L2",
                    "order_id": "CAISENgvlJ6jLWAzERDzjyHVybY", "invoice_number": "inv-455",
                    "title": "Event Planning Services", "status": "PARTIALLY_PAID",
                    "primary_recipient": {"given_name": "Amelia", "family_name": "Earhart"},
                    "payment_requests": [
                        {"uid": "2da7964f", "request_type": "DEPOSIT", "due_date": "2024-01-24",
                         "percentage_requested": "45", "computed_amount_money": gbp(30000),
                         "total_completed_amount_money": gbp(30000)},
                        {"uid": "2da7964g", "request_type": "BALANCE", "due_date": "2024-06-24",
                         "computed_amount_money": gbp(36600), "total_completed_amount_money": gbp(0)}],
                    "created_at": "2024-01-13T17:45:13Z"
                }]}))
            }
            ("GET", "/v2/orders/CAISENgvlJ6jLWAzERDzjyHVybY", _) if authorised => {
                let items = json!([{"uid": "li1", "name": "Event planning", "quantity": "1",
                    "base_price_money": gbp(55500), "applied_taxes": [{"tax_uid": "vat", "applied_money": gbp(11100)}],
                    "total_tax_money": gbp(11100), "total_money": gbp(66600)}]);
                Response::ok(&json!({"order": {
                    "id": "CAISENgvlJ6jLWAzERDzjyHVybY", "location_id": "L2", "state": "OPEN",
                    "created_at": "2024-01-13T17:40:00Z",
                    "taxes": [{"uid": "vat", "name": "VAT", "percentage": "20", "type": "ADDITIVE", "scope": "LINE_ITEM"}],
                    "line_items": items,
                    "tenders": [{"id": "TND-1", "type": "CARD", "amount_money": gbp(30000),
                                 "created_at": "2024-01-20T10:00:00Z", "payment_id": "PAY-1"}],
                    "total_money": gbp(66600), "net_amount_due_money": gbp(36600)
                }}))
            }
            _ => base(r),
        }
    }
}

#[test]
fn a_part_paid_square_invoice_keeps_what_was_paid_and_when() {
    let server = MockServer::start(square_part_paid_handler());
    let (t, entity, _) = net_app(platforms_for("square", &server));
    connect(&t, "square", &entity, json!({"access_token": "EAAAsq"}));
    let answer = migrate_ok(&t, "square", "all", &entity);
    assert_eq!(answer["invoices"]["failed"], json!([]), "{answer}");
    let invoices = list_of(&t, "invoices", &entity);
    let inv = find(&invoices, "number", "inv-455");
    assert_eq!(d(&inv["total"]), dec("666"), "{inv}");
    assert_eq!(d(&inv["amount_paid"]), dec("300"), "{inv}");
    let (status, v) = t.get(&format!("/api/payments?entityId={entity}"));
    assert_eq!(status, Status::Ok, "{v}");
    let payments: Vec<&Value> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["document_id"] == inv["id"])
        .collect();
    assert_eq!(payments.len(), 1, "{v}");
    assert_eq!(payments[0]["date"], "2024-01-20", "{v}");
}

/// Zoho Books' invoices export of a US organisation (the 83 columns of
/// `tests/fixtures/import/zoho_books/invoices.csv` before its two appended UK tax
/// columns): no tax column at all, `Total` equal to `SubTotal`.
#[test]
fn a_zoho_invoice_export_without_tax_columns_imports_without_vat() {
    let (t, entity) = signed_in();
    let fixture = std::fs::read_to_string("tests/fixtures/import/zoho_books/invoices.csv").unwrap();
    let header: Vec<&str> = fixture
        .lines()
        .next()
        .unwrap()
        .split(',')
        .take(83)
        .collect();
    assert_eq!(header[82], "Shipping Phone Number");
    let row = |qty: &str, price: &str, item_total: &str| {
        header
            .iter()
            .map(|h| match h.trim_start_matches('\u{feff}') {
                "Invoice Date" | "Due Date" => "2024-01-28",
                "Invoice ID" => "2520018000000073144",
                "Invoice Number" => "INV-000001",
                "Invoice Status" => "Draft",
                "Customer Name" | "Company Name" => "Highlander",
                "Currency Code" => "GBP",
                "Exchange Rate" => "1.00",
                "Item Name" => "Hardware Supply",
                "Item Desc" => "Wood hammer mallets",
                "Quantity" => qty,
                "Item Price" => price,
                "Item Total" => item_total,
                "SubTotal" | "Total" | "Balance" => "489.75",
                _ => "",
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let csv = format!(
        "{}\n{}\n{}\n",
        header.join(","),
        row("6.00", "4.25", "25.50"),
        row("4.00", "116.0625", "464.25"),
    );
    let out = run_csv(&t, &entity, "invoices", &csv);
    assert_eq!(out["failed"], json!([]), "{out}");
    let invoices = list_of(&t, "invoices", &entity);
    let inv = find(&invoices, "number", "INV-000001");
    assert_eq!(d(&inv["total"]), dec("489.75"), "{inv}");
    assert_eq!(d(&inv["vat_total"]), Decimal::ZERO, "{inv}");
}

/// Xero's sales invoice import template (Business ▸ Invoices ▸ Import, the
/// `SalesInvoiceTemplate.csv` Xero offers for download): one row per line, and no
/// total or tax amount columns. A line whose `*TaxType` is left empty states no VAT, and
/// nothing else in the file implies any: it is at 0 %, not 20 %.
#[test]
fn xero_template_lines_without_a_tax_type_have_no_vat() {
    let (t, entity) = signed_in();
    let csv = "*ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,\
POCity,PORegion,POPostalCode,POCountry,*InvoiceNumber,Reference,*InvoiceDate,*DueDate,InventoryItemCode,\
*Description,*Quantity,*UnitAmount,Discount,*AccountCode,*TaxType,TrackingName1,TrackingOption1,\
TrackingName2,TrackingOption2,Currency,BrandingTheme\n\
Ridgeway Bakery,,,,,,,,,,INV-0101,,01/03/2024,31/03/2024,,Monthly bread order,1,20.00,,200,,,,,,GBP,\n\
Ridgeway Bakery,,,,,,,,,,INV-0101,,01/03/2024,31/03/2024,,Delivery,2,2.50,,200,,,,,,GBP,\n";
    let (status, p) = t.post("/api/import/preview", json!({"mode": "csv", "csv": csv}));
    assert_eq!(status, Status::Ok, "{p}");
    assert_eq!(p["data"]["platform"], "xero", "{p}");
    let out = run_csv(&t, &entity, "invoices", csv);
    assert_eq!(out["failed"], json!([]), "{out}");
    let invoices = list_of(&t, "invoices", &entity);
    let inv = find(&invoices, "number", "INV-0101");
    assert_eq!(d(&inv["total"]), dec("25"), "{inv}");
    assert_eq!(d(&inv["vat_total"]), Decimal::ZERO, "{inv}");
}

// ---------------------------------------------------------------------------------------
// 8. Product status from the platforms

/// Shopify's Product resource: `status` is `active`, `archived` ("no longer being sold")
/// or `draft` ("not ready to sell"); each variant becomes a product with its product's
/// status.
#[test]
fn shopify_archived_and_draft_products_arrive_inactive() {
    let base = shopify_handler(Once(std::sync::Arc::new(true.into())));
    let server = MockServer::start(move |r: &Request| {
        if r.path == "/admin/api/2025-01/products.json"
            && r.header("x-shopify-access-token").is_some()
        {
            return Response::ok(&json!({"products": [
                {"id": 632910392, "title": "T-shirt", "product_type": "Apparel", "status": "active", "variants": [
                    {"id": 808950810, "title": "Small", "sku": "TS-S", "price": "12.00"}]},
                {"id": 632910394, "title": "Winter scarf", "product_type": "Apparel", "status": "archived", "variants": [
                    {"id": 808950813, "title": "Default Title", "sku": "SC-1", "price": "18.00"}]},
                {"id": 632910395, "title": "Spring hat", "product_type": "Apparel", "status": "draft", "variants": [
                    {"id": 808950814, "title": "Default Title", "sku": "HT-1", "price": "15.00"}]}
            ]}));
        }
        base(r)
    });
    let (t, entity, _) = net_app(platforms_for("shopify", &server));
    connect(
        &t,
        "shopify",
        &entity,
        json!({"shop": "acme", "access_token": "shpat_abc"}),
    );
    let answer = migrate_ok(&t, "shopify", "products", &entity);
    assert_eq!(answer["products"]["imported"], json!(3), "{answer}");
    let products = list_of(&t, "products", &entity);
    let active = |sku: &str| find(&products, "sku", sku)["active"].clone();
    assert_eq!(active("TS-S"), json!(true));
    assert_eq!(active("SC-1"), json!(false));
    assert_eq!(active("HT-1"), json!(false));
}

/// Stripe's Product object: `active` ("whether the product is currently available for
/// purchase"); archiving a product in the Dashboard sets it false.
#[test]
fn stripe_archived_products_arrive_inactive() {
    let server = MockServer::start(|r: &Request| {
        if r.header("authorization") != Some("Bearer sk_test_123") {
            return unauthorized();
        }
        if r.path != "/v1/products" {
            return Response::json(
                404,
                &json!({"error": {"message": "Unrecognized request URL"}}),
            );
        }
        let price = |id: &str, amount: i64| {
            json!({"id": id, "object": "price", "currency": "gbp",
            "unit_amount": amount, "unit_amount_decimal": amount.to_string(), "tax_behavior": "exclusive"})
        };
        Response::ok(
            &json!({"object": "list", "url": "/v1/products", "has_more": false, "data": [
                {"id": "prod_1", "object": "product", "name": "Oak table", "active": true,
                 "metadata": {"sku": "TBL-OAK"}, "default_price": price("price_1", 123_456)},
                {"id": "prod_3", "object": "product", "name": "Pine table", "active": false,
                 "metadata": {"sku": "TBL-PINE"}, "default_price": price("price_3", 45_000)}
            ]}),
        )
    });
    let (t, entity, _) = net_app(platforms_for("stripe", &server));
    connect(&t, "stripe", &entity, stripe_creds());
    let answer = migrate_ok(&t, "stripe", "products", &entity);
    assert_eq!(answer["products"]["imported"], json!(2), "{answer}");
    let products = list_of(&t, "products", &entity);
    let active = |sku: &str| find(&products, "sku", sku)["active"].clone();
    assert_eq!(active("TBL-OAK"), json!(true));
    assert_eq!(active("TBL-PINE"), json!(false));
}

/// Zoho Books' items export (`tests/fixtures/import/zoho_books/products.csv`): `Status`
/// is `Active` or `Inactive` (an item marked inactive in Zoho Books).
#[test]
fn zoho_books_inactive_items_arrive_inactive() {
    let (t, entity) = signed_in();
    let fixture = std::fs::read_to_string("tests/fixtures/import/zoho_books/products.csv").unwrap();
    let mut lines = fixture.lines();
    let header = lines.next().unwrap();
    let first = lines.next().unwrap();
    assert_eq!(first.matches(",Active,").count(), 1, "{first}");
    let inactive = first
        .replace(
            "2520018000000071001,Oak worktop 3m,OAK-WT-3M",
            "2520018000000071099,Oak worktop 2m,OAK-WT-2M",
        )
        .replace(",Active,", ",Inactive,");
    let csv = format!("{header}\n{first}\n{inactive}\n");
    let out = run_csv(&t, &entity, "products", &csv);
    assert_eq!(out["failed"], json!([]), "{out}");
    let products = list_of(&t, "products", &entity);
    let active = |sku: &str| find(&products, "sku", sku)["active"].clone();
    assert_eq!(active("OAK-WT-3M"), json!(true));
    assert_eq!(active("OAK-WT-2M"), json!(false));
}
