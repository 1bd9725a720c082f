//! Shopify Admin REST API: `X-Shopify-Access-Token` (credentials `{shop, access_token}`),
//! origin `https://{shop}.myshopify.com` (or `platforms.shopify.base_url`), paths under
//! `/admin/api/{version}/`, cursor pagination by the `Link` header's `rel="next"` URL
//! followed verbatim (`page_info` is opaque; no header on the last page). Money is
//! decimal text in major units.
//!
//! - contacts: `GET customers.json`.
//! - products: `GET products.json`, one row per variant (SKU, price and barcode live on
//!   variants; the name gets the variant title unless it is "Default Title").
//! - invoices: `GET orders.json?status=any` (the default is open orders only). Lines from
//!   `line_items[]` (`price` × `quantity` less `discount_allocations`, VAT from
//!   `tax_lines[]`, VAT-inclusive when the order has `taxes_included`), plus shipping
//!   lines; payment status from `financial_status`, amount paid from `total_price` −
//!   `total_outstanding`.
//! - subscriptions: only the GraphQL Admin API has them: `POST graphql.json` with the
//!   `subscriptionContracts(first:, after:)` query, paged by `pageInfo { hasNextPage
//!   endCursor }`. Each contract is one recurring template: the customer's name,
//!   `status` (`ACTIVE` active; `PAUSED`, `FAILED` paused; `CANCELLED`, `EXPIRED`
//!   cancelled), `nextBillingDate`, `billingPolicy { interval intervalCount }` (`DAY`
//!   counts that are whole weeks become weeks) and its lines' `currentPrice`. A GraphQL
//!   answer with `errors` (a `THROTTLED` one too) is an error of the pull.

use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::http::{Auth, HttpClient, Pull};
use super::lines::{Orders, SourceDoc, SourceLine, SourcePayment};
use super::{
    arr, credential, date_part, decimal, join, req_arr, s, text, ConnectorError, ConnectorResult,
    DataType, ImportRow, Platform, Row,
};
use crate::config::PlatformConfig;

const P: Platform = Platform::Shopify;
pub const API_VERSION: &str = "2025-01";

/// The shop origin from the `shop` credential: `acme`, `acme.myshopify.com` or a URL.
pub fn shop_origin(shop: &str) -> String {
    let shop = shop.trim().trim_end_matches('/');
    let host = shop
        .strip_prefix("https://")
        .or_else(|| shop.strip_prefix("http://"))
        .unwrap_or(shop);
    if host.contains('.') {
        format!("https://{host}")
    } else {
        format!("https://{host}.myshopify.com")
    }
}

pub fn pull(
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let token = credential(P, credentials, "access_token")?;
    // Checked again at every pull (docs/limits.md), then on the address connected to.
    let shop = super::site_url(P, credentials, config)?
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default();
    let origin = config
        .base_url
        .as_deref()
        .map(|u| u.trim_end_matches('/').to_owned())
        .unwrap_or(shop);
    let client = HttpClient::new(
        P,
        format!("{origin}/admin/api/{API_VERSION}"),
        Auth::None,
        config,
        retry,
    )
    .with_header("X-Shopify-Access-Token", &token);
    match data_type {
        DataType::Contacts => contacts(&client),
        DataType::Products => products(&client),
        DataType::Invoices => orders(&client),
        DataType::Subscriptions => subscriptions(&client),
        DataType::CreditNotes => credit_notes(&client),
        DataType::Payments => payments(&client),
        other => Err(ConnectorError::Unsupported {
            platform: P,
            data_type: other,
        }),
    }
}

/// Every object of a REST list: the `Link` rel="next" URL, verbatim, until there is none.
fn list_all(client: &HttpClient, first: &str, key: &str) -> ConnectorResult<Vec<Value>> {
    // Read once per run and shared by the types that need it.
    client.once_per_run(first, || read_all(client, first, key))
}

fn read_all(client: &HttpClient, first: &str, key: &str) -> ConnectorResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut seen = super::SeenIds::default();
    let mut next = Some(client.url(first));
    let mut guard = super::PageGuard::new(P);
    while let Some(url) = next {
        guard.visit(&url)?;
        let (page, res) = client.get_json(&url)?;
        let items = req_arr(P, &page, key)?;
        client.records(items.len())?;
        seen.extend(&mut out, items);
        next = res.link_next();
        if let Some(n) = &next {
            client.check_same_origin(n)?;
        }
    }
    Ok(out)
}

fn person_name(c: &Value) -> Option<String> {
    join([s(c, "first_name"), s(c, "last_name")], " ")
}

fn contacts(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let customers = list_all(client, "/customers.json?limit=250", "customers")?;
    Ok(customers
        .iter()
        .map(|c| {
            let addr = c.get("default_address").unwrap_or(&Value::Null);
            let name = person_name(c)
                .or_else(|| s(addr, "company").map(str::to_owned))
                .or_else(|| s(c, "email").map(str::to_owned));
            Row::new()
                .set("name", name)
                .set("type", Some("customer".to_owned()))
                .text("email", s(c, "email"))
                .text("phone", s(c, "phone").or(s(addr, "phone")))
                .set(
                    "address",
                    join(
                        [
                            "address1",
                            "address2",
                            "city",
                            "province",
                            "zip",
                            "country_code",
                        ]
                        .map(|k| s(addr, k)),
                        ", ",
                    ),
                )
                .set("provider_ref", c.get("id").and_then(text))
                .build()
        })
        .collect())
}

fn products(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let products = list_all(client, "/products.json?limit=250", "products")?;
    let mut rows = Vec::new();
    for p in &products {
        let title = s(p, "title").unwrap_or("Product");
        let variants = arr(p, "variants");
        for v in variants {
            let vt = s(v, "title").filter(|t| *t != "Default Title");
            let name = match vt {
                Some(t) if variants.len() > 1 || t != title => format!("{title} - {t}"),
                _ => title.to_owned(),
            };
            rows.push(
                Row::new()
                    .set("name", Some(name))
                    .text("sku", s(v, "sku"))
                    .text("category", s(p, "product_type"))
                    .dec("unit_price", v.get("price").and_then(decimal))
                    .text("barcode", s(v, "barcode"))
                    // `active`, `archived` or `draft` (Admin API product `status`).
                    .text("status", s(p, "status"))
                    .set("provider_ref", v.get("id").and_then(text))
                    .build(),
            );
        }
    }
    Ok(rows)
}

fn money(v: &Value, key: &str) -> Decimal {
    v.get(key).and_then(decimal).unwrap_or_default()
}

fn tax_of(item: &Value) -> (Decimal, Option<Decimal>) {
    let taxes = arr(item, "tax_lines");
    let vat = taxes.iter().map(|t| money(t, "price")).sum();
    let rates: Vec<Decimal> = taxes
        .iter()
        .filter_map(|t| t.get("rate").and_then(decimal))
        .collect();
    let rate =
        (!rates.is_empty()).then(|| rates.iter().copied().sum::<Decimal>() * Decimal::ONE_HUNDRED);
    (vat, rate)
}

fn discounts(item: &Value) -> Decimal {
    let allocated: Decimal = arr(item, "discount_allocations")
        .iter()
        .map(|d| money(d, "amount"))
        .sum();
    if allocated.is_zero() {
        money(item, "total_discount")
    } else {
        allocated
    }
}

/// The order's own status: cancelled is `void`; paid, partially or wholly refunded is
/// `paid` (the refunds are credit notes of their own); pending, authorised and partially
/// paid are `sent`.
fn order_status(o: &Value) -> &'static str {
    if o.get("cancelled_at").is_some_and(|v| !v.is_null()) {
        return "void";
    }
    match s(o, "financial_status") {
        Some("paid" | "partially_refunded" | "refunded") => "paid",
        Some("voided") => "void",
        _ => "sent",
    }
}

/// A line's VAT (the sum of its `tax_lines`), nominal rate, and whether Shopify taxes it
/// (`taxable`, or a tax line at all).
fn taxed(item: &Value) -> (Decimal, Option<Decimal>, Option<bool>) {
    let (vat, rate) = tax_of(item);
    let taxable = item
        .get("taxable")
        .and_then(Value::as_bool)
        .or_else(|| (!arr(item, "tax_lines").is_empty()).then_some(true));
    (vat, rate, taxable)
}

fn item_line(item: &Value, inclusive: bool) -> SourceLine {
    let qty = item
        .get("quantity")
        .and_then(decimal)
        .unwrap_or(Decimal::ONE);
    let price = money(item, "price");
    let gross = qty * price - discounts(item);
    let (vat, rate, taxable) = taxed(item);
    let net = if inclusive { gross - vat } else { gross };
    SourceLine {
        description: s(item, "name")
            .or(s(item, "title"))
            .unwrap_or("Item")
            .to_owned(),
        quantity: qty,
        unit_price: (!inclusive).then_some(price),
        net,
        vat,
        vat_rate: rate,
        sku: s(item, "sku").map(str::to_owned),
        taxable,
        vat_treatment: None,
    }
}

/// A successful transaction of `kinds` as a payment on the document `doc_ref`.
fn transaction_payment(
    t: &Value,
    kinds: &[&str],
    document_type: &'static str,
    doc_ref: Option<&String>,
) -> Option<SourcePayment> {
    if s(t, "status") != Some("success") || !kinds.contains(&s(t, "kind")?) {
        return None;
    }
    let amount = t.get("amount").and_then(decimal)?;
    Some(SourcePayment {
        document_type,
        document_ref: doc_ref.cloned(),
        date: date_part(s(t, "processed_at").or(s(t, "created_at"))),
        amount,
        method: s(t, "gateway").map(str::to_owned),
        reference: s(t, "authorization").map(str::to_owned),
        provider_ref: t.get("id").and_then(text),
        ..SourcePayment::default()
    })
}

/// The orders, read once per run; an order that money moved on has its transactions
/// read (`GET orders/{id}/transactions.json`) for the dates of its sales and captures
/// (an order whose transactions Shopify cannot give is a row error).
fn read_orders(client: &HttpClient) -> ConnectorResult<Orders> {
    let orders = list_all(client, "/orders.json?status=any&limit=250", "orders")?;
    let mut out = Orders {
        invoices: Vec::new(),
        credits: Vec::new(),
        payments: Vec::new(),
    };
    for o in &orders {
        let inclusive = o
            .get("taxes_included")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut lines: Vec<SourceLine> = arr(o, "line_items")
            .iter()
            .map(|item| item_line(item, inclusive))
            .collect();
        for ship in arr(o, "shipping_lines") {
            let gross = money(ship, "price") - discounts(ship);
            let (vat, rate, taxable) = taxed(ship);
            let net = if inclusive { gross - vat } else { gross };
            if gross.is_zero() && vat.is_zero() {
                continue;
            }
            let mut l = SourceLine::amount(s(ship, "title").unwrap_or("Shipping"), net, vat);
            l.vat_rate = rate;
            l.taxable = taxable;
            lines.push(l);
        }
        let total = o
            .get("total_price")
            .and_then(decimal)
            .ok_or_else(|| ConnectorError::bad(P, "order without `total_price`"))?;
        let status = order_status(o);
        let amount_paid = match o.get("total_outstanding").and_then(decimal) {
            Some(outstanding) => Some((total - outstanding).max(Decimal::ZERO)),
            None if status == "paid" => Some(total),
            None => Some(Decimal::ZERO),
        };
        let customer = o.get("customer").unwrap_or(&Value::Null);
        let billing = o.get("billing_address").unwrap_or(&Value::Null);
        let contact = person_name(customer)
            .or_else(|| s(billing, "name").map(str::to_owned))
            .or_else(|| s(billing, "company").map(str::to_owned))
            .or_else(|| s(o, "email").or(s(customer, "email")).map(str::to_owned));
        let id = o
            .get("id")
            .and_then(text)
            .ok_or_else(|| ConnectorError::bad(P, "order without id"))?;
        let number = s(o, "name")
            .map(str::to_owned)
            .or_else(|| o.get("order_number").and_then(text));
        let currency = s(o, "currency").map(str::to_owned);
        let mut doc = SourceDoc {
            number: number.clone(),
            contact_name: contact.clone(),
            issue_date: date_part(s(o, "processed_at").or(s(o, "created_at"))),
            due_date: None,
            status: Some(status.to_owned()),
            total,
            amount_paid,
            currency: currency.clone(),
            provider_ref: Some(id.clone()),
            lines,
            ..SourceDoc::default()
        };
        let moved = matches!(
            s(o, "financial_status"),
            Some("paid" | "partially_paid" | "partially_refunded" | "refunded")
        );
        if moved && status != "void" {
            match super::per_record(list_all(
                client,
                &format!("/orders/{id}/transactions.json"),
                "transactions",
            ))? {
                Ok(transactions) => {
                    let paid: Vec<SourcePayment> = transactions
                        .iter()
                        .filter_map(|t| {
                            transaction_payment(
                                t,
                                &["sale", "capture"],
                                "invoice",
                                doc.provider_ref.as_ref(),
                            )
                        })
                        .collect();
                    out.payments.extend(super::lines::settle(&mut doc, paid));
                }
                // The order's payments cannot be read: the order is a row error and the
                // rest of the pull imports (docs/import.md#row-errors).
                Err(said) => {
                    let what = format!(
                        "the transactions of order {}",
                        number.as_deref().unwrap_or(&id)
                    );
                    doc.error = Some(super::unfinished(P, &what, &said));
                }
            }
        }
        for (k, refund) in arr(o, "refunds").iter().enumerate() {
            let Some(rid) = refund.get("id").and_then(text) else {
                continue;
            };
            let refund_ref = rid;
            let mut lines: Vec<SourceLine> = Vec::new();
            for rli in arr(refund, "refund_line_items") {
                let item = rli.get("line_item").unwrap_or(&Value::Null);
                let qty = rli
                    .get("quantity")
                    .and_then(decimal)
                    .unwrap_or(Decimal::ONE);
                let vat = money(rli, "total_tax");
                let gross = money(rli, "subtotal");
                let net = if inclusive { gross - vat } else { gross };
                let (_, rate, taxable) = taxed(item);
                lines.push(SourceLine {
                    description: s(item, "name")
                        .or(s(item, "title"))
                        .unwrap_or("Item")
                        .to_owned(),
                    quantity: qty,
                    unit_price: None,
                    net,
                    vat,
                    vat_rate: rate,
                    sku: s(item, "sku").map(str::to_owned),
                    taxable: taxable.or_else(|| (!vat.is_zero()).then_some(true)),
                    vat_treatment: None,
                });
            }
            for adj in arr(refund, "order_adjustments") {
                if s(adj, "kind") != Some("shipping_refund") {
                    continue; // a refund discrepancy is what the adjustment line makes up
                }
                let vat = -money(adj, "tax_amount");
                let gross = -money(adj, "amount");
                let net = if inclusive { gross - vat } else { gross };
                let mut l = SourceLine::amount("Shipping refund", net, vat);
                l.taxable = Some(!vat.is_zero()).filter(|t| *t);
                lines.push(l);
            }
            let refunds: Vec<SourcePayment> = arr(refund, "transactions")
                .iter()
                .filter_map(|t| {
                    transaction_payment(t, &["refund"], "credit_note", Some(&refund_ref))
                })
                .collect();
            let refunded: Decimal = refunds.iter().map(|p| p.amount).sum();
            let listed: Decimal = lines.iter().map(|l| l.net + l.vat).sum();
            let credit_total = if refunds.is_empty() { listed } else { refunded };
            if credit_total.is_zero() {
                continue; // a restock without money is no credit
            }
            out.credits.push(SourceDoc {
                number: number.as_ref().map(|n| format!("{n}-R{}", k + 1)),
                contact_name: contact.clone(),
                issue_date: date_part(s(refund, "processed_at").or(s(refund, "created_at"))),
                status: Some("posted".to_owned()),
                total: credit_total,
                currency: currency.clone(),
                // Linked only when no money was refunded (docs/import.md#connectors).
                original_ref: refunds.is_empty().then(|| id.clone()),
                original_number: number.clone().filter(|_| refunds.is_empty()),
                provider_ref: Some(refund_ref.clone()),
                lines,
                ..SourceDoc::default()
            });
            out.payments.extend(refunds);
        }
        out.invoices.push(doc);
    }
    Ok(out)
}

fn orders(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.invoice_rows())
}

/// Refunds as credit notes (one per refund, numbered after its order: `#1001-R1`).
pub fn credit_notes(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.credit_rows())
}

/// The dated payments of orders paid on several days, and every refund.
pub fn payments(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.payment_rows())
}

/// The contracts query: 50 contracts a page with up to 250 lines each (the connection's
/// maximum page); a contract with more lines is refused rather than cut short.
const CONTRACTS_QUERY: &str = "query Contracts($after: String) {
  subscriptionContracts(first: 50, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id status nextBillingDate currencyCode
      customer { id displayName firstName lastName email }
      billingPolicy { interval intervalCount }
      lines(first: 250) {
        pageInfo { hasNextPage }
        nodes { id title variantTitle sku quantity currentPrice { amount currencyCode } }
      }
    }
  }
}";

/// Every subscription contract, `after` the last page's `endCursor` while `hasNextPage`.
fn contracts(client: &HttpClient) -> ConnectorResult<Vec<Value>> {
    client.once_per_run("graphql subscriptionContracts", || {
        let mut out = Vec::new();
        let mut seen = super::SeenIds::default();
        let mut after: Option<String> = None;
        let mut guard = super::PageGuard::new(P);
        loop {
            let body = json!({"query": CONTRACTS_QUERY, "variables": {"after": after}});
            let (answer, _) = client.post_json(&client.url("/graphql.json"), body)?;
            if let Some(errors) = answer.get("errors").and_then(Value::as_array) {
                let message = join(errors.iter().map(|e| s(e, "message")), "; ")
                    .unwrap_or_else(|| "GraphQL errors".to_owned());
                return Err(ConnectorError::bad(P, format!("GraphQL: {message}")));
            }
            let conn = answer
                .pointer("/data/subscriptionContracts")
                .ok_or_else(|| ConnectorError::bad(P, "no `data.subscriptionContracts`"))?;
            let nodes = req_arr(P, conn, "nodes")?;
            client.records(nodes.len())?;
            seen.extend(&mut out, nodes);
            let page = conn.get("pageInfo").unwrap_or(&Value::Null);
            if page.get("hasNextPage").and_then(Value::as_bool) != Some(true) {
                return Ok(out);
            }
            let cursor = s(page, "endCursor")
                .ok_or_else(|| ConnectorError::bad(P, "`hasNextPage` without `endCursor`"))?;
            guard.visit(cursor)?;
            after = Some(cursor.to_owned());
        }
    })
}

fn contract_status(status: Option<&str>) -> &'static str {
    match status {
        Some("ACTIVE") => "active",
        Some("PAUSED" | "FAILED") => "paused",
        _ => "cancelled",
    }
}

/// `billingPolicy` as (interval, count): `DAY` counts that are whole weeks become weeks;
/// other day counts stay `day` for the importer to refuse.
fn billing_interval(policy: &Value) -> (&'static str, u64) {
    let count = policy
        .get("intervalCount")
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .unwrap_or(1);
    match s(policy, "interval") {
        Some("DAY") if count.is_multiple_of(7) => ("week", count / 7),
        Some("DAY") => ("day", count),
        Some("WEEK") => ("week", count),
        Some("YEAR") => ("year", count),
        _ => ("month", count),
    }
}

fn subscriptions(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let mut rows = Vec::new();
    for c in contracts(client)? {
        let id = s(&c, "id").ok_or_else(|| ConnectorError::bad(P, "contract without id"))?;
        let lines = c.get("lines").unwrap_or(&Value::Null);
        if lines
            .pointer("/pageInfo/hasNextPage")
            .and_then(Value::as_bool)
            == Some(true)
        {
            return Err(ConnectorError::bad(
                P,
                format!("subscription contract {id} has more than 250 lines"),
            ));
        }
        let customer = c.get("customer").unwrap_or(&Value::Null);
        let name = s(customer, "displayName")
            .map(str::to_owned)
            .or_else(|| join([s(customer, "firstName"), s(customer, "lastName")], " "))
            .or_else(|| s(customer, "email").map(str::to_owned));
        let (interval, count) = billing_interval(c.get("billingPolicy").unwrap_or(&Value::Null));
        let base = || {
            let mut r = Row::new();
            r.set("contact_name", name.clone())
                .set("interval", Some(interval.to_owned()))
                .set("interval_count", Some(count.to_string()))
                .set("next_date", date_part(s(&c, "nextBillingDate")))
                .set("status", Some(contract_status(s(&c, "status")).to_owned()))
                .text("provider_ref", Some(id));
            r
        };
        for l in arr(lines, "nodes") {
            let title = s(l, "title").unwrap_or("Subscription");
            let description = match s(l, "variantTitle") {
                Some(v) if v != "Default Title" => format!("{title} - {v}"),
                _ => title.to_owned(),
            };
            rows.push(
                base()
                    .set("line_description", Some(description))
                    .set(
                        "line_quantity",
                        Some(
                            l.get("quantity")
                                .and_then(text)
                                .unwrap_or_else(|| "1".into()),
                        ),
                    )
                    .dec(
                        "line_unit_price",
                        l.pointer("/currentPrice/amount").and_then(decimal),
                    )
                    .build(),
            );
        }
    }
    Ok(rows)
}
