//! WooCommerce REST API v3: HTTP Basic `consumer_key:consumer_secret` (credentials
//! `{url, consumer_key, consumer_secret}`; the documented method over HTTPS), paths under
//! `{site}/wp-json/wc/v3` (`platforms.woocommerce.base_url` replaces the site URL), pages
//! of `per_page=100` followed through the `Link` header's `rel="next"` URL verbatim
//! (`X-WP-TotalPages` is only informative). Money is decimal text in major units.
//!
//! - contacts: `GET /customers?role=all` (name from first and last name, else the billing
//!   company, else the email; guest buyers exist only on orders).
//! - products: `GET /products`; a `variable` product becomes one row per variation from
//!   `GET /products/{id}/variations`.
//! - invoices: `GET /orders?status=any`. WooCommerce stores line `total` and `total_tax`
//!   VAT-exclusive after coupons even when `prices_include_tax`, so net and VAT come from
//!   them and the list price from `subtotal / quantity`; shipping and fee lines are lines;
//!   nominal rates from the order's `tax_lines[].rate_percent`. `date_paid` set means
//!   paid in full.
//! - subscriptions: `GET /subscriptions` (WooCommerce Subscriptions extension; a site
//!   without it answers 404 `rest_no_route` → [`ConnectorError::NotAvailable`]).

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde_json::Value;

use super::http::{Auth, HttpClient, Pull};
use super::lines::{fit_document, SourceDoc, SourceLine};
use super::{
    arr, credential, date_part, decimal, join, s, text, ConnectorError, ConnectorResult, DataType,
    ImportRow, Platform, Row,
};
use crate::config::PlatformConfig;

const P: Platform = Platform::Woocommerce;

pub fn pull(
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let key = credential(P, credentials, "consumer_key")?;
    let secret = credential(P, credentials, "consumer_secret")?;
    // The keys go only over https to a public host (DECISIONS §17), checked again at
    // every pull and then on the address connected to; or to the configured origin.
    let site = super::site_url(P, credentials, config)?
        .map(String::from)
        .unwrap_or_default();
    let origin = config
        .base_url
        .clone()
        .unwrap_or(site)
        .trim_end_matches('/')
        .to_owned();
    let auth = Auth::Basic {
        user: key,
        password: secret,
    };
    let client = HttpClient::new(P, format!("{origin}/wp-json/wc/v3"), auth, config, retry);
    match data_type {
        DataType::Contacts => contacts(&client),
        DataType::Products => products(&client),
        DataType::Invoices => orders(&client),
        DataType::Subscriptions => subscriptions(&client),
        other => Err(ConnectorError::Unsupported {
            platform: P,
            data_type: other,
        }),
    }
}

/// Every record of a list: `Link` rel="next" verbatim until there is none.
fn list_all(client: &HttpClient, first: &str) -> ConnectorResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut next = Some(client.url(first));
    let mut guard = super::PageGuard::new(P);
    while let Some(url) = next {
        guard.visit(&url)?;
        let (page, res) = client.get_json(&url)?;
        let items = page
            .as_array()
            .ok_or_else(|| ConnectorError::bad(P, "a list page is not a JSON array"))?;
        client.records(items.len())?;
        out.extend(items.iter().cloned());
        next = res.link_next();
        if let Some(n) = &next {
            client.check_same_origin(n)?;
        }
    }
    Ok(out)
}

fn person(b: &Value) -> Option<String> {
    join([s(b, "first_name"), s(b, "last_name")], " ")
}

fn address(b: &Value) -> Option<String> {
    join(
        [
            "address_1",
            "address_2",
            "city",
            "state",
            "postcode",
            "country",
        ]
        .map(|k| s(b, k)),
        ", ",
    )
}

fn contacts(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(list_all(client, "/customers?per_page=100&role=all")?
        .iter()
        .map(|c| {
            let b = c.get("billing").unwrap_or(&Value::Null);
            let name = person(c)
                .or_else(|| person(b))
                .or_else(|| s(b, "company").map(str::to_owned))
                .or_else(|| s(c, "email").or(s(c, "username")).map(str::to_owned));
            Row::new()
                .set("name", name)
                .set("type", Some("customer".to_owned()))
                .text("email", s(c, "email").or(s(b, "email")))
                .text("phone", s(b, "phone"))
                .set("address", address(b))
                .set("provider_ref", c.get("id").and_then(text))
                .build()
        })
        .collect())
}

fn strip_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for ch in s.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn price_of(p: &Value) -> Option<Decimal> {
    p.get("regular_price")
        .and_then(decimal)
        .or_else(|| p.get("price").and_then(decimal))
}

fn products(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let mut rows = Vec::new();
    for p in list_all(client, "/products?per_page=100")? {
        let name = s(&p, "name").unwrap_or("Product").to_owned();
        let category = arr(&p, "categories")
            .first()
            .and_then(|c| s(c, "name"))
            .map(str::to_owned);
        let description = s(&p, "short_description")
            .or(s(&p, "description"))
            .map(strip_html)
            .filter(|d| !d.is_empty());
        let id = p.get("id").and_then(text);
        if s(&p, "type") == Some("variable") {
            let id = id
                .clone()
                .ok_or_else(|| ConnectorError::bad(P, "product without id"))?;
            for v in list_all(client, &format!("/products/{id}/variations?per_page=100"))? {
                let attrs = join(arr(&v, "attributes").iter().map(|a| s(a, "option")), ", ");
                rows.push(
                    Row::new()
                        .set(
                            "name",
                            Some(match attrs {
                                Some(a) => format!("{name} - {a}"),
                                None => name.clone(),
                            }),
                        )
                        .text("sku", s(&v, "sku").or(s(&p, "sku")))
                        .set("description", description.clone())
                        .set("category", category.clone())
                        .dec("unit_price", price_of(&v))
                        .set("provider_ref", v.get("id").and_then(text))
                        .build(),
                );
            }
        } else {
            rows.push(
                Row::new()
                    .set("name", Some(name))
                    .text("sku", s(&p, "sku"))
                    .set("description", description)
                    .set("category", category)
                    .dec("unit_price", price_of(&p))
                    .set("provider_ref", id)
                    .build(),
            );
        }
    }
    Ok(rows)
}

fn m(v: &Value, key: &str) -> Decimal {
    v.get(key).and_then(decimal).unwrap_or_default()
}

fn order_status(s: Option<&str>) -> &'static str {
    match s {
        Some("processing" | "completed") => "paid",
        Some("cancelled" | "refunded" | "failed" | "trash") => "void",
        Some("checkout-draft") => "draft",
        // pending, on-hold: awaiting payment
        _ => "sent",
    }
}

fn orders(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let mut rows = Vec::new();
    for o in list_all(client, "/orders?per_page=100&status=any")? {
        let rates: HashMap<String, Decimal> = arr(&o, "tax_lines")
            .iter()
            .filter_map(|t| {
                Some((
                    t.get("rate_id").and_then(text)?,
                    t.get("rate_percent").and_then(decimal)?,
                ))
            })
            .collect();
        let rate_of = |item: &Value| -> Option<Decimal> {
            let r: Vec<Decimal> = arr(item, "taxes")
                .iter()
                .filter(|t| !m(t, "total").is_zero())
                .filter_map(|t| {
                    t.get("id")
                        .and_then(text)
                        .and_then(|id| rates.get(&id))
                        .copied()
                })
                .collect();
            (!r.is_empty()).then(|| r.iter().copied().sum())
        };
        let mut lines = Vec::new();
        for li in arr(&o, "line_items") {
            let qty = li.get("quantity").and_then(decimal).unwrap_or(Decimal::ONE);
            let subtotal = m(li, "subtotal");
            lines.push(SourceLine {
                description: s(li, "name").unwrap_or("Item").to_owned(),
                quantity: qty,
                unit_price: (!qty.is_zero()).then(|| subtotal / qty),
                net: m(li, "total"),
                vat: m(li, "total_tax"),
                vat_rate: rate_of(li),
                sku: s(li, "sku").map(str::to_owned),
            });
        }
        for sh in arr(&o, "shipping_lines") {
            let mut l = SourceLine::amount(
                s(sh, "method_title").unwrap_or("Shipping"),
                m(sh, "total"),
                m(sh, "total_tax"),
            );
            l.vat_rate = rate_of(sh);
            lines.push(l);
        }
        for fee in arr(&o, "fee_lines") {
            let mut l = SourceLine::amount(
                s(fee, "name").unwrap_or("Fee"),
                m(fee, "total"),
                m(fee, "total_tax"),
            );
            l.vat_rate = rate_of(fee);
            lines.push(l);
        }
        let total = o
            .get("total")
            .and_then(decimal)
            .ok_or_else(|| ConnectorError::bad(P, "order without `total`"))?;
        let status = order_status(s(&o, "status"));
        let paid = o.get("date_paid").is_some_and(|d| !d.is_null()) || status == "paid";
        let b = o.get("billing").unwrap_or(&Value::Null);
        let contact = person(b)
            .or_else(|| s(b, "company").map(str::to_owned))
            .or_else(|| s(b, "email").map(str::to_owned));
        rows.extend(fit_document(&SourceDoc {
            number: s(&o, "number")
                .map(str::to_owned)
                .or_else(|| o.get("id").and_then(text)),
            contact_name: contact,
            issue_date: date_part(s(&o, "date_created")),
            due_date: None,
            status: Some(status.to_owned()),
            total,
            amount_paid: Some(if paid && status != "void" {
                total
            } else {
                Decimal::ZERO
            }),
            provider_ref: o.get("id").and_then(text),
            lines,
        }));
    }
    Ok(rows)
}

fn subscription_status(s: Option<&str>) -> &'static str {
    match s {
        Some("on-hold") => "paused",
        Some("cancelled" | "expired" | "pending-cancel" | "trash") => "cancelled",
        _ => "active",
    }
}

fn subscriptions(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let subs = match list_all(client, "/subscriptions?per_page=100") {
        Err(ConnectorError::BadResponse { message, .. }) if message.starts_with("HTTP 404") => {
            return Err(ConnectorError::NotAvailable {
                platform: P,
                data_type: DataType::Subscriptions,
                reason: "the site has no WooCommerce Subscriptions extension".to_owned(),
            })
        }
        other => other?,
    };
    let mut rows = Vec::new();
    for sub in &subs {
        let b = sub.get("billing").unwrap_or(&Value::Null);
        let contact = person(b)
            .or_else(|| s(b, "company").map(str::to_owned))
            .or_else(|| s(b, "email").map(str::to_owned));
        let (interval, count) = {
            let n = sub
                .get("billing_interval")
                .and_then(decimal)
                .and_then(|d| i64::try_from(d).ok())
                .unwrap_or(1);
            match s(sub, "billing_period") {
                Some("day") if n % 7 == 0 => ("week".to_owned(), n / 7),
                Some(p) => (p.to_owned(), n),
                None => ("month".to_owned(), n),
            }
        };
        let next = date_part(s(sub, "next_payment_date_gmt").or(s(sub, "next_payment_date")));
        for li in arr(sub, "line_items") {
            let qty = li.get("quantity").and_then(decimal).unwrap_or(Decimal::ONE);
            let unit = if qty.is_zero() {
                m(li, "subtotal")
            } else {
                m(li, "subtotal") / qty
            };
            rows.push(
                Row::new()
                    .set("contact_name", contact.clone())
                    .set("interval", Some(interval.clone()))
                    .set("interval_count", Some(count.to_string()))
                    .set("next_date", next.clone())
                    .set(
                        "status",
                        Some(subscription_status(s(sub, "status")).to_owned()),
                    )
                    .text("line_description", s(li, "name"))
                    .dec("line_quantity", Some(qty))
                    .dec("line_unit_price", Some(crate::db::decimal::round(unit, 4)))
                    .set("provider_ref", sub.get("id").and_then(text))
                    .build(),
            );
        }
    }
    Ok(rows)
}
