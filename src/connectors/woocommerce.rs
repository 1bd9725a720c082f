//! WooCommerce REST API v3: HTTP Basic `consumer_key:consumer_secret` (credentials
//! `{url, consumer_key, consumer_secret}`; the documented method over HTTPS), paths under
//! `{site}/wp-json/wc/v3` (`platforms.woocommerce.base_url` replaces the site URL), pages
//! of `per_page=100` followed through the `Link` header's `rel="next"` URL verbatim
//! (`X-WP-TotalPages` is only informative). Money is decimal text in major units.
//!
//! - contacts: `GET /customers?role=all` (name from first and last name, else the billing
//!   company, else the email; guest buyers exist only on orders).
//! - products: `GET /products`; a `variable` product becomes one row per variation from
//!   `GET /products/{id}/variations`. The VAT rate comes from the product's `tax_class`
//!   (`""` standard, `reduced-rate`, `zero-rate`, or a class the shop added; a variation's
//!   `parent` is its product's) through the shop's own rates, `GET /taxes` (the rate of
//!   the class for `GB`, else for every country); when the key may not read them (401/403)
//!   or the class has no rate there, the UK defaults 20, 5 and 0 (a class slug naming
//!   `zero` or `reduced` counts as that). `tax_status` `none` or `shipping` is 0%. A class
//!   with no rate anywhere is left without one (the importer's default).
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
use super::lines::{Orders, SourceDoc, SourceLine, SourcePayment};
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
    // The keys go only over https to a public host (docs/limits.md), checked again at
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
        DataType::CreditNotes => credit_notes(&client),
        DataType::Payments => payments(&client),
        other => Err(ConnectorError::Unsupported {
            platform: P,
            data_type: other,
        }),
    }
}

/// Every record of a list: `Link` rel="next" verbatim until there is none; read once
/// per run.
fn list_all(client: &HttpClient, first: &str) -> ConnectorResult<Vec<Value>> {
    client.once_per_run(first, || read_all(client, first))
}

fn read_all(client: &HttpClient, first: &str) -> ConnectorResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut seen = super::SeenIds::default();
    let mut next = Some(client.url(first));
    let mut guard = super::PageGuard::new(P);
    while let Some(url) = next {
        guard.visit(&url)?;
        let (page, res) = client.get_json(&url)?;
        let items = page
            .as_array()
            .ok_or_else(|| ConnectorError::bad(P, "a list page is not a JSON array"))?;
        client.records(items.len())?;
        seen.extend(&mut out, items);
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

/// A product or variation on sale (`on_sale`, a `sale_price`): a product keeps one price,
/// its regular one, so the sale price is said in its notes rather than dropped without a
/// word (docs/import.md#connectors).
fn sale_note(p: &Value) -> Option<String> {
    if p.get("on_sale").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let sale = p.get("sale_price").and_then(decimal)?;
    let dates = match (
        date_part(s(p, "date_on_sale_from").or(s(p, "date_on_sale_from_gmt"))),
        date_part(s(p, "date_on_sale_to").or(s(p, "date_on_sale_to_gmt"))),
    ) {
        (Some(a), Some(b)) => format!(" from {a} to {b}"),
        (Some(a), None) => format!(" from {a}"),
        (None, Some(b)) => format!(" until {b}"),
        (None, None) => String::new(),
    };
    Some(format!(
        "On sale in WooCommerce at {}{dates}; the regular price is the unit price",
        super::dec_text(sale)
    ))
}

fn price_of(p: &Value) -> Option<Decimal> {
    p.get("regular_price")
        .and_then(decimal)
        .or_else(|| p.get("price").and_then(decimal))
}

/// The shop's VAT rate per tax class slug (`standard` for `""`), from `GET /taxes`:
/// a `GB` rate first, else a rate for every country (`country` empty). A key that may not
/// read the rates (401/403) gives an empty table, and the UK defaults apply.
fn shop_rates(client: &HttpClient) -> ConnectorResult<HashMap<String, Decimal>> {
    let rates = match list_all(client, "/taxes?per_page=100") {
        Ok(rates) => rates,
        Err(ConnectorError::AuthFailed { .. }) => return Ok(HashMap::new()),
        Err(e) if e.refused_status() == Some(404) => return Ok(HashMap::new()),
        Err(e) => return Err(e),
    };
    let mut table: HashMap<String, (bool, Decimal)> = HashMap::new();
    for r in &rates {
        let country = s(r, "country").unwrap_or("").to_ascii_uppercase();
        if !(country.is_empty() || country == "GB") {
            continue;
        }
        let Some(rate) = r.get("rate").and_then(decimal) else {
            continue;
        };
        let class = match s(r, "class").unwrap_or("") {
            "" => "standard".to_owned(),
            c => c.to_owned(),
        };
        let gb = country == "GB";
        match table.get(&class) {
            Some((true, _)) => {}
            Some((false, _)) if !gb => {}
            _ => {
                table.insert(class, (gb, rate.normalize()));
            }
        }
    }
    Ok(table.into_iter().map(|(k, (_, v))| (k, v)).collect())
}

/// A product's VAT rate from its `tax_status` and `tax_class` (see the module doc).
fn product_rate(
    rates: &HashMap<String, Decimal>,
    tax_status: Option<&str>,
    tax_class: Option<&str>,
) -> Option<Decimal> {
    if matches!(tax_status, Some("none" | "shipping")) {
        return Some(Decimal::ZERO);
    }
    let class = match tax_class.unwrap_or("") {
        "" | "standard" => "standard",
        c => c,
    };
    if let Some(rate) = rates.get(class) {
        return Some(*rate);
    }
    if class == "standard" {
        Some(Decimal::from(20))
    } else if class.contains("zero") {
        Some(Decimal::ZERO)
    } else if class.contains("reduced") {
        Some(Decimal::from(5))
    } else {
        None
    }
}

fn products(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let mut rows = Vec::new();
    let list = list_all(client, "/products?per_page=100")?;
    let rates = shop_rates(client)?;
    for p in list {
        let rate = product_rate(&rates, s(&p, "tax_status"), s(&p, "tax_class"));
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
            let variations = match super::per_record(list_all(
                client,
                &format!("/products/{id}/variations?per_page=100"),
            ))? {
                Ok(variations) => variations,
                // The product is a row error; the other products import
                // (docs/import.md#row-errors).
                Err(said) => {
                    let what = format!("the variations of product {id} ({name})");
                    rows.push(
                        Row::new()
                            .set("name", Some(name.clone()))
                            .text("sku", s(&p, "sku"))
                            .set("provider_ref", Some(id.clone()))
                            .set(super::ROW_ERROR, Some(super::unfinished(P, &what, &said)))
                            .build(),
                    );
                    continue;
                }
            };
            for v in variations {
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
                        .dec(
                            "vat_rate",
                            product_rate(
                                &rates,
                                s(&v, "tax_status").or(s(&p, "tax_status")),
                                match s(&v, "tax_class") {
                                    None | Some("parent") => s(&p, "tax_class"),
                                    own => own,
                                },
                            ),
                        )
                        .text("status", s(&v, "status").or(s(&p, "status")))
                        .set("notes", sale_note(&v))
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
                    .dec("vat_rate", rate)
                    .text("status", s(&p, "status"))
                    .set("notes", sale_note(&p))
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

/// The order's own status: processing, completed and refunded were paid (a refund is a
/// credit note of its own); cancelled and failed are `void`.
fn order_status(s: Option<&str>) -> &'static str {
    match s {
        Some("processing" | "completed" | "refunded") => "paid",
        Some("cancelled" | "failed" | "trash") => "void",
        Some("checkout-draft") => "draft",
        // pending, on-hold: awaiting payment
        _ => "sent",
    }
}

/// The order's tax rates by `rate_id` (`tax_lines[].rate_percent`).
fn order_rates(o: &Value) -> HashMap<String, Decimal> {
    arr(o, "tax_lines")
        .iter()
        .filter_map(|t| {
            Some((
                t.get("rate_id").and_then(text)?,
                t.get("rate_percent").and_then(decimal)?,
            ))
        })
        .collect()
}

/// A line's nominal rate (its non-zero `taxes[]` through the order's rates), and whether
/// WooCommerce taxed it at all (a `taxes[]` entry, even of 0).
fn line_tax(rates: &HashMap<String, Decimal>, item: &Value) -> (Option<Decimal>, Option<bool>) {
    let taxes = arr(item, "taxes");
    let r: Vec<Decimal> = taxes
        .iter()
        .filter(|t| !m(t, "total").is_zero())
        .filter_map(|t| {
            t.get("id")
                .and_then(text)
                .and_then(|id| rates.get(&id))
                .copied()
        })
        .collect();
    let zero_rated = taxes.iter().any(|t| {
        t.get("id")
            .and_then(text)
            .and_then(|id| rates.get(&id))
            .is_some_and(|r| r.is_zero())
    });
    let rate = if r.is_empty() {
        zero_rated.then_some(Decimal::ZERO)
    } else {
        Some(r.iter().copied().sum())
    };
    (rate, (!taxes.is_empty()).then_some(true))
}

/// The item, shipping and fee lines of an order or a refund (a refund's amounts are
/// negative: `sign` −1 turns them into the credit's positive lines).
fn doc_lines(rates: &HashMap<String, Decimal>, o: &Value, sign: Decimal) -> Vec<SourceLine> {
    let mut lines = Vec::new();
    for li in arr(o, "line_items") {
        let qty = (li.get("quantity").and_then(decimal).unwrap_or(Decimal::ONE) * sign).abs();
        let subtotal = m(li, "subtotal") * sign;
        let (vat_rate, taxable) = line_tax(rates, li);
        lines.push(SourceLine {
            description: s(li, "name").unwrap_or("Item").to_owned(),
            quantity: qty,
            unit_price: (!qty.is_zero()).then(|| subtotal / qty),
            net: m(li, "total") * sign,
            vat: m(li, "total_tax") * sign,
            vat_rate,
            sku: s(li, "sku").map(str::to_owned),
            taxable,
            vat_treatment: None,
        });
    }
    for (key, name, default) in [
        ("shipping_lines", "method_title", "Shipping"),
        ("fee_lines", "name", "Fee"),
    ] {
        for sh in arr(o, key) {
            let mut l = SourceLine::amount(
                s(sh, name).unwrap_or(default),
                m(sh, "total") * sign,
                m(sh, "total_tax") * sign,
            );
            (l.vat_rate, l.taxable) = line_tax(rates, sh);
            lines.push(l);
        }
    }
    lines
}

/// The orders, read once per run, and the refunds of those that have any
/// (`GET /orders/{id}/refunds`).
/// A record's date `key` in the site's time zone, else its `<key>_gmt` twin, which is
/// all some stores send (WooCommerce REST API: every `date_*` has a `date_*_gmt`; an
/// order created before the store's time zone was set, or by an older WooCommerce,
/// carries only the GMT one), else the legacy API's `created_at` for `date_created`.
fn date_of(v: &Value, key: &str) -> Option<String> {
    date_part(s(v, key))
        .or_else(|| date_part(s(v, &format!("{key}_gmt"))))
        .or_else(|| (key == "date_created").then(|| date_part(s(v, "created_at")))?)
}

fn read_orders(client: &HttpClient) -> ConnectorResult<Orders> {
    let mut out = Orders {
        invoices: Vec::new(),
        credits: Vec::new(),
        payments: Vec::new(),
    };
    for o in list_all(client, "/orders?per_page=100&status=any")? {
        let rates = order_rates(&o);
        let total = o
            .get("total")
            .and_then(decimal)
            .ok_or_else(|| ConnectorError::bad(P, "order without `total`"))?;
        let status = order_status(s(&o, "status"));
        let paid_on = date_of(&o, "date_paid");
        let b = o.get("billing").unwrap_or(&Value::Null);
        let contact = person(b)
            .or_else(|| s(b, "company").map(str::to_owned))
            .or_else(|| s(b, "email").map(str::to_owned));
        let id = o
            .get("id")
            .and_then(text)
            .ok_or_else(|| ConnectorError::bad(P, "order without id"))?;
        let number = s(&o, "number")
            .map(str::to_owned)
            .or_else(|| Some(id.clone()));
        let currency = s(&o, "currency").map(str::to_owned);
        let method = s(&o, "payment_method_title").map(str::to_owned);
        let mut doc = SourceDoc {
            number: number.clone(),
            contact_name: contact.clone(),
            issue_date: date_of(&o, "date_created"),
            status: Some(status.to_owned()),
            total,
            amount_paid: Some(Decimal::ZERO),
            currency: currency.clone(),
            provider_ref: Some(id.clone()),
            lines: doc_lines(&rates, &o, Decimal::ONE),
            ..SourceDoc::default()
        };
        if (paid_on.is_some() || status == "paid") && status != "void" {
            let paid = SourcePayment {
                document_type: "invoice",
                document_ref: Some(id.clone()),
                date: paid_on.clone().or_else(|| doc.issue_date.clone()),
                amount: total,
                method: method.clone(),
                reference: s(&o, "transaction_id").map(str::to_owned),
                ..SourcePayment::default()
            };
            out.payments
                .extend(super::lines::settle(&mut doc, vec![paid]));
        }
        let listed = arr(&o, "refunds");
        if !listed.is_empty() {
            let refunds = match super::per_record(list_all(
                client,
                &format!("/orders/{id}/refunds?per_page=100"),
            ))? {
                Ok(refunds) => refunds,
                // The order imports; each refund it lists is a row error
                // (docs/import.md#row-errors).
                Err(said) => {
                    for (k, r) in listed.iter().rev().enumerate() {
                        let rid = r.get("id").and_then(text);
                        let what = format!(
                            "refund {} of order {}",
                            rid.as_deref().unwrap_or("?"),
                            number.as_deref().unwrap_or(&id)
                        );
                        out.credits.push(SourceDoc {
                            number: number.as_ref().map(|n| format!("{n}-R{}", k + 1)),
                            contact_name: contact.clone(),
                            status: Some("posted".to_owned()),
                            total: -m(r, "total"),
                            currency: currency.clone(),
                            provider_ref: rid,
                            error: Some(super::unfinished(P, &what, &said)),
                            ..SourceDoc::default()
                        });
                    }
                    Vec::new()
                }
            };
            // Oldest first, so the numbers follow the order they were made in.
            for (k, r) in refunds.iter().rev().enumerate() {
                let Some(rid) = r.get("id").and_then(text) else {
                    continue;
                };
                let amount = m(r, "amount");
                if amount.is_zero() {
                    continue;
                }
                let date = date_of(r, "date_created");
                out.credits.push(SourceDoc {
                    number: number.as_ref().map(|n| format!("{n}-R{}", k + 1)),
                    contact_name: contact.clone(),
                    issue_date: date.clone(),
                    status: Some("posted".to_owned()),
                    total: amount,
                    currency: currency.clone(),
                    provider_ref: Some(rid.clone()),
                    lines: doc_lines(&rates, r, Decimal::NEGATIVE_ONE),
                    ..SourceDoc::default()
                });
                let by_gateway = r.get("refunded_payment").and_then(Value::as_bool) == Some(true);
                out.payments.push(SourcePayment {
                    document_type: "credit_note",
                    document_ref: Some(rid.clone()),
                    date,
                    amount,
                    method: if by_gateway { method.clone() } else { None },
                    reference: s(r, "reason").map(str::to_owned),
                    provider_ref: Some(format!("refund-{rid}")),
                    ..SourcePayment::default()
                });
            }
        }
        out.invoices.push(doc);
    }
    Ok(out)
}

fn orders(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.invoice_rows())
}

/// Refunds as credit notes (one per refund, numbered after its order: `1042-R1`).
pub fn credit_notes(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.credit_rows())
}

/// The refunds paid on the credit notes.
pub fn payments(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.payment_rows())
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
        Err(e) if e.refused_status() == Some(404) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tax_classes_take_the_shops_rates_and_else_the_uk_defaults() {
        let none = HashMap::new();
        let rate = |t: &HashMap<String, Decimal>, status, class| {
            product_rate(t, status, class).map(|d| d.to_string())
        };
        assert_eq!(rate(&none, Some("taxable"), Some("")), Some("20".into()));
        assert_eq!(rate(&none, None, None), Some("20".into()));
        assert_eq!(
            rate(&none, Some("taxable"), Some("reduced-rate")),
            Some("5".into())
        );
        assert_eq!(
            rate(&none, Some("taxable"), Some("zero-rate")),
            Some("0".into())
        );
        assert_eq!(rate(&none, Some("none"), Some("")), Some("0".into()));
        assert_eq!(rate(&none, Some("shipping"), Some("")), Some("0".into()));
        assert_eq!(rate(&none, Some("taxable"), Some("books")), None);
        let shop: HashMap<String, Decimal> = [
            ("standard".to_owned(), Decimal::from(20)),
            ("books".to_owned(), Decimal::ZERO),
            ("reduced-rate".to_owned(), Decimal::from(5)),
        ]
        .into();
        assert_eq!(
            rate(&shop, Some("taxable"), Some("books")),
            Some("0".into())
        );
        assert_eq!(
            rate(&shop, Some("taxable"), Some("reduced-rate")),
            Some("5".into())
        );
    }
}
