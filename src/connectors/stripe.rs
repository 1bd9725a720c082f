//! Stripe: `Authorization: Bearer <secret key>` (credentials `{api_key}`), a pinned
//! `Stripe-Version`, list pagination with `limit` (≤ 100) and `starting_after=<last id>`
//! while `has_more`; money in minor units (`unit_amount`, `amount`, `total`) or minor-unit
//! decimal text (`unit_amount_decimal`).
//!
//! - contacts: `GET /v1/customers?expand[]=data.tax_ids` (a `gb_vat`/`eu_vat` tax id is the
//!   VAT number; name falls back to email).
//! - products: `GET /v1/products?expand[]=data.default_price`; SKU is `metadata.sku`
//!   (Stripe has no SKU field), the price the default price's.
//! - invoices: `GET /v1/invoices`; embedded `lines` are followed through
//!   `GET /v1/invoices/{id}/lines` while `lines.has_more`. Both line shapes are read:
//!   `pricing.unit_amount_decimal` / `taxes[]` (API 2025-03-31.basil on) and
//!   `price.unit_amount_decimal` / `tax_amounts[]` / `tax_rates[]` (older versions).
//! - subscriptions: `GET /v1/subscriptions?status=all&expand[]=data.customer` (the default
//!   leaves cancelled ones out), one row per item; product names from `GET /v1/products`.
//! - credit notes: `GET /v1/credit_notes`, and each refund of a paid invoice that no credit
//!   note names (`GET /v1/refunds`, matched to the invoice by its `payment_intent` or
//!   `charge`: the invoice's `payments` (`expand[]=data.payments`, API 2025-03-31.basil
//!   on) or its own `payment_intent` / `charge` (older versions)).

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde_json::Value;

use super::http::{Auth, HttpClient, Pull};
use super::lines::{fit_document, SourceDoc, SourceLine, SourcePayment};
use super::{
    arr, base_url, credential, decimal, join, minor_field, minor_to_major, req_arr, s, unix_date,
    ConnectorError, ConnectorResult, DataType, ImportRow, Platform, Row,
};
use crate::config::PlatformConfig;

const P: Platform = Platform::Stripe;
/// The API version the connector reads (both line shapes are accepted anyway).
pub const STRIPE_VERSION: &str = "2025-03-31.basil";

pub fn pull(
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let key = credential(P, credentials, "api_key")?;
    let client = HttpClient::new(P, base_url(P, config)?, Auth::Bearer(key), config, retry)
        .with_header("Stripe-Version", STRIPE_VERSION);
    match data_type {
        DataType::Contacts => contacts(&client),
        DataType::Products => products(&client),
        DataType::Invoices => invoices(&client),
        DataType::Subscriptions => subscriptions(&client),
        DataType::CreditNotes => credit_notes(&client),
        DataType::Payments => payments(&client),
        other => Err(ConnectorError::Unsupported {
            platform: P,
            data_type: other,
        }),
    }
}

/// The products list's parameters, the same for the products and the subscriptions.
const PRODUCTS: &[(&str, &str)] = &[("expand[]", "data.default_price")];

/// Every object of a list endpoint: `starting_after` the last id while `has_more`; read
/// once per run and shared by the types that need it.
pub fn list_all(
    client: &HttpClient,
    path: &str,
    params: &[(&str, &str)],
) -> ConnectorResult<Vec<Value>> {
    let key = format!("{path}?{params:?}");
    client.once_per_run(&key, || read_all(client, path, params))
}

fn read_all(
    client: &HttpClient,
    path: &str,
    params: &[(&str, &str)],
) -> ConnectorResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut seen = super::SeenIds::default();
    let mut after: Option<String> = None;
    let mut guard = super::PageGuard::new(P);
    loop {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("limit", "100");
        for (k, v) in params {
            q.append_pair(k, v);
        }
        if let Some(a) = &after {
            q.append_pair("starting_after", a);
        }
        let (page, _) = client.get_json(&client.url(&format!("{path}?{}", q.finish())))?;
        let data = req_arr(P, &page, "data")?;
        let items = data;
        client.records(items.len())?;
        seen.extend(&mut out, items);
        let has_more = page
            .get("has_more")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !has_more {
            return Ok(out);
        }
        after = match data.last().and_then(|o| s(o, "id")) {
            Some(id) => {
                guard.visit(id)?;
                Some(id.to_owned())
            }
            None => return Err(ConnectorError::bad(P, "`has_more` on a page without ids")),
        };
    }
}

fn contacts(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let customers = list_all(client, "/v1/customers", &[("expand[]", "data.tax_ids")])?;
    Ok(customers
        .iter()
        .map(|c| {
            let addr = c.get("address").unwrap_or(&Value::Null);
            let vat = c
                .pointer("/tax_ids/data")
                .and_then(Value::as_array)
                .and_then(|ids| {
                    ids.iter()
                        .find(|t| matches!(s(t, "type"), Some("gb_vat" | "eu_vat")))
                        .or_else(|| ids.first())
                })
                .and_then(|t| s(t, "value"));
            Row::new()
                .text("name", s(c, "name").or(s(c, "email")).or(s(c, "id")))
                .set("type", Some("customer".to_owned()))
                .text("email", s(c, "email"))
                .text("phone", s(c, "phone"))
                .set("address", address(addr))
                .text("vat_number", vat)
                .text("provider_ref", s(c, "id"))
                .build()
        })
        .collect())
}

fn address(a: &Value) -> Option<String> {
    join(
        ["line1", "line2", "city", "state", "postal_code", "country"].map(|k| s(a, k)),
        ", ",
    )
}

/// A price object's unit amount in major units (`unit_amount_decimal` keeps sub-minor
/// precision; `unit_amount` is the integer).
fn price_amount(price: &Value) -> Option<Decimal> {
    let currency = s(price, "currency");
    minor_field(price, "unit_amount_decimal", currency)
        .or_else(|| minor_field(price, "unit_amount", currency))
}

fn products(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let products = list_all(client, "/v1/products", PRODUCTS)?;
    Ok(products
        .iter()
        .map(|p| {
            let price = p.get("default_price").filter(|v| v.is_object());
            Row::new()
                .text("name", s(p, "name"))
                .text("sku", p.get("metadata").and_then(|m| s(m, "sku")))
                .text("description", s(p, "description"))
                .dec("unit_price", price.and_then(price_amount))
                .text("unit", s(p, "unit_label"))
                .text(
                    "status",
                    p.get("active").and_then(Value::as_bool).map(|a| {
                        if a {
                            "active"
                        } else {
                            "inactive"
                        }
                    }),
                )
                .text("provider_ref", s(p, "id"))
                .build()
        })
        .collect())
}

fn invoice_status(s: Option<&str>) -> &'static str {
    match s {
        Some("draft") => "draft",
        Some("paid") => "paid",
        Some("void") => "void",
        // open and uncollectible are issued and unpaid
        _ => "sent",
    }
}

/// The lines of an invoice or a credit note: the embedded page, then
/// `GET {path}/lines` from its last id while `lines.has_more`.
fn all_lines(client: &HttpClient, obj: &Value, path: &str) -> ConnectorResult<Vec<Value>> {
    let mut line_objs: Vec<Value> = arr(obj.get("lines").unwrap_or(&Value::Null), "data").to_vec();
    let more = obj
        .pointer("/lines/has_more")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if more {
        let last = line_objs.last().and_then(|l| s(l, "id")).map(str::to_owned);
        let mut params = Vec::new();
        if let Some(l) = last.as_deref() {
            params.push(("starting_after", l));
        }
        line_objs.extend(list_all(client, &format!("{path}/lines"), &params)?);
    }
    Ok(line_objs)
}

/// Every invoice, read once per run (the credit notes find their customer through it),
/// with its payments (which refunds are its).
fn all_invoices(client: &HttpClient) -> ConnectorResult<Vec<Value>> {
    list_all(client, "/v1/invoices", &[("expand[]", "data.payments")])
}

/// The ids of the payment intents and charges that paid an invoice: its `payments`
/// (basil on) and its own `payment_intent` and `charge` (older versions), each an id or
/// an expanded object.
fn invoice_payment_ids(inv: &Value) -> Vec<String> {
    let id = |v: Option<&Value>| {
        v.and_then(|v| v.as_str().or_else(|| s(v, "id")))
            .map(str::to_owned)
    };
    let mut out: Vec<String> = [inv.get("payment_intent"), inv.get("charge")]
        .into_iter()
        .filter_map(id)
        .collect();
    for p in arr(inv.get("payments").unwrap_or(&Value::Null), "data") {
        if let Some(payment) = p.get("payment") {
            out.extend(
                [payment.get("payment_intent"), payment.get("charge")]
                    .into_iter()
                    .filter_map(id),
            );
        }
    }
    out
}

fn invoices(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let invoices = all_invoices(client)?;
    let mut rows = Vec::new();
    for inv in &invoices {
        let id = s(inv, "id").ok_or_else(|| ConnectorError::bad(P, "invoice without id"))?;
        let currency = s(inv, "currency");
        let mut error = None;
        let line_objs =
            match super::per_record(all_lines(client, inv, &format!("/v1/invoices/{id}")))? {
                Ok(objs) => objs,
                // A page of its lines Stripe cannot give: the invoice is a row error and the
                // rest of the pull imports (docs/import.md#row-errors).
                Err(said) => {
                    let what = format!("the lines of invoice {}", s(inv, "number").unwrap_or(id));
                    error = Some(super::unfinished(P, &what, &said));
                    Vec::new()
                }
            };
        let mut lines: Vec<SourceLine> = line_objs.iter().map(|l| line(l, currency)).collect();
        if let Some(ship) = inv.get("shipping_cost").filter(|v| v.is_object()) {
            let sub = minor_field(ship, "amount_subtotal", currency).unwrap_or_default();
            let tax = minor_field(ship, "amount_tax", currency).unwrap_or_default();
            // The invoice's own `amount_shipping` ("the sum of all the shipping amounts",
            // before or after tax) must agree with its `shipping_cost`; when it does not,
            // nothing says which is right.
            if let Some(stated) = minor_field(inv, "amount_shipping", currency) {
                if stated != sub && stated != sub + tax && error.is_none() {
                    error = Some(format!(
                        "Stripe invoice {id}: its shipping_cost ({} + VAT {}) contradicts its \
                         amount_shipping ({}); nothing of it was imported",
                        super::dec_text(sub),
                        super::dec_text(tax),
                        super::dec_text(stated),
                    ));
                }
            }
            if !(sub.is_zero() && tax.is_zero()) {
                let mut l = SourceLine::amount("Shipping", sub, tax);
                l.taxable = (!arr(ship, "taxes").is_empty() || !tax.is_zero()).then_some(true);
                lines.push(l);
            }
        }
        let mut doc = SourceDoc {
            number: s(inv, "number").map(str::to_owned),
            contact_name: invoice_contact(inv).map(str::to_owned),
            issue_date: issued(inv),
            due_date: inv.get("due_date").and_then(unix_date),
            status: Some(invoice_status(s(inv, "status")).to_owned()),
            total: minor_field(inv, "total", currency)
                .ok_or_else(|| ConnectorError::bad(P, "invoice without `total`"))?,
            amount_paid: minor_field(inv, "amount_paid", currency),
            currency: currency.map(str::to_owned),
            provider_ref: Some(id.to_owned()),
            lines,
            error,
            ..SourceDoc::default()
        };
        // Paid in full: the day Stripe marked it paid.
        if let (Some(paid), Some(date)) = (
            doc.amount_paid.filter(|a| !a.is_zero()),
            inv.pointer("/status_transitions/paid_at")
                .and_then(unix_date),
        ) {
            let payment = SourcePayment {
                document_type: "invoice",
                date: Some(date),
                amount: paid,
                ..SourcePayment::default()
            };
            super::lines::settle(&mut doc, vec![payment]);
        }
        rows.extend(fit_document(&doc));
    }
    Ok(rows)
}

/// The day an invoice or credit note was made: `created`, else `effective_at`, else
/// `status_transitions.finalized_at` (docs/import.md#connectors).
fn issued(obj: &Value) -> Option<String> {
    obj.get("created")
        .and_then(unix_date)
        .or_else(|| obj.get("effective_at").and_then(unix_date))
        .or_else(|| {
            obj.pointer("/status_transitions/finalized_at")
                .and_then(unix_date)
        })
}

fn invoice_contact(inv: &Value) -> Option<&str> {
    s(inv, "customer_name")
        .or(s(inv, "customer_email"))
        .or(s(inv, "customer"))
}

/// A credit note's refunds as (refund id, amount in minor units): `refunds[]`
/// (`{refund, amount_refunded}`, API 2025-03-31.basil on) or the older single `refund`.
fn credit_refunds(cn: &Value) -> Vec<(String, Option<Decimal>)> {
    let mut out: Vec<(String, Option<Decimal>)> = arr(cn, "refunds")
        .iter()
        .filter_map(|r| {
            let refund = r.get("refund")?;
            let id = refund.as_str().or_else(|| s(refund, "id"))?;
            Some((id.to_owned(), r.get("amount_refunded").and_then(decimal)))
        })
        .collect();
    if out.is_empty() {
        if let Some(refund) = cn.get("refund").filter(|r| !r.is_null()) {
            if let Some(id) = refund.as_str().or_else(|| s(refund, "id")) {
                out.push((id.to_owned(), None));
            }
        }
    }
    out
}

fn credit_status(s: Option<&str>) -> &'static str {
    match s {
        Some("void") => "void",
        _ => "posted",
    }
}

/// Credit notes (`GET /v1/credit_notes`), linked to their invoice by its id, and the
/// refunds paid on them (dated by `GET /v1/refunds`).
struct Credits {
    docs: Vec<SourceDoc>,
    refunds: Vec<SourcePayment>,
}

fn read_credits(client: &HttpClient) -> ConnectorResult<Credits> {
    let notes = list_all(client, "/v1/credit_notes", &[])?;
    let mut out = Credits {
        docs: Vec::new(),
        refunds: Vec::new(),
    };
    let invoices = all_invoices(client)?;
    let invoice_of = |id: &str| invoices.iter().find(|i| s(i, "id") == Some(id));
    let any_paid = invoices
        .iter()
        .any(|i| invoice_status(s(i, "status")) == "paid");
    let all_refunds = if any_paid || notes.iter().any(|n| !credit_refunds(n).is_empty()) {
        list_all(client, "/v1/refunds", &[])?
    } else {
        Vec::new()
    };
    let refunds: HashMap<String, Value> = all_refunds
        .iter()
        .filter_map(|r| Some((s(r, "id")?.to_owned(), r.clone())))
        .collect();
    for cn in &notes {
        let id = s(cn, "id").ok_or_else(|| ConnectorError::bad(P, "credit note without id"))?;
        let currency = s(cn, "currency");
        let invoice_id = cn
            .get("invoice")
            .and_then(|i| i.as_str().or_else(|| s(i, "id")));
        let invoice = invoice_id.and_then(invoice_of);
        let refunded = credit_status(s(cn, "status")) != "void" && !credit_refunds(cn).is_empty();
        let (lines, error) =
            match super::per_record(all_lines(client, cn, &format!("/v1/credit_notes/{id}")))? {
                Ok(objs) => (objs.iter().map(|l| line(l, currency)).collect(), None),
                // The credit note is a row error (docs/import.md#row-errors).
                Err(said) => {
                    let what =
                        format!("the lines of credit note {}", s(cn, "number").unwrap_or(id));
                    (Vec::new(), Some(super::unfinished(P, &what, &said)))
                }
            };
        out.docs.push(SourceDoc {
            number: s(cn, "number").map(str::to_owned),
            contact_name: invoice
                .and_then(invoice_contact)
                .or(s(cn, "customer"))
                .map(str::to_owned),
            issue_date: issued(cn),
            status: Some(credit_status(s(cn, "status")).to_owned()),
            total: minor_field(cn, "total", currency)
                .ok_or_else(|| ConnectorError::bad(P, "credit note without `total`"))?,
            currency: currency.map(str::to_owned),
            // Linked only when no money was refunded (docs/import.md#connectors).
            original_ref: invoice_id.filter(|_| !refunded).map(str::to_owned),
            original_number: invoice
                .and_then(|i| s(i, "number"))
                .filter(|_| !refunded)
                .map(str::to_owned),
            provider_ref: Some(id.to_owned()),
            lines,
            error,
            ..SourceDoc::default()
        });
        if credit_status(s(cn, "status")) == "void" {
            continue;
        }
        for (rid, amount) in credit_refunds(cn) {
            let refund = refunds.get(&rid).unwrap_or(&Value::Null);
            if !matches!(s(refund, "status"), Some("succeeded") | None) {
                continue; // pending, failed or cancelled: no money moved yet
            }
            let rc = s(refund, "currency").or(currency);
            let Some(amount) = amount
                .map(|a| super::minor_to_major(a, currency))
                .or_else(|| minor_field(refund, "amount", rc))
            else {
                continue;
            };
            out.refunds.push(SourcePayment {
                document_type: "credit_note",
                document_ref: Some(id.to_owned()),
                document_number: s(cn, "number").map(str::to_owned),
                date: refund
                    .get("created")
                    .and_then(unix_date)
                    .or_else(|| unix_date(cn.get("created").unwrap_or(&Value::Null))),
                amount,
                method: Some("stripe".to_owned()),
                reference: s(refund, "reason").map(str::to_owned),
                provider_ref: Some(rid),
            });
        }
    }
    refund_credits(&invoices, &notes, &all_refunds, &mut out);
    Ok(out)
}

/// The refunds of paid invoices that no credit note names (docs/import.md#connectors):
/// each succeeded one a credit note of one line for its amount (a refund names no items
/// or tax), numbered after its invoice (`<number>-R<n>`, oldest first) and unlinked as
/// every refunded credit is, with the refund paid on it the day Stripe made it.
fn refund_credits(invoices: &[Value], notes: &[Value], refunds: &[Value], out: &mut Credits) {
    let named: std::collections::HashSet<String> = notes
        .iter()
        .flat_map(|n| credit_refunds(n).into_iter().map(|(id, _)| id))
        .collect();
    let mut loose: Vec<&Value> = refunds
        .iter()
        .filter(|r| s(r, "status") == Some("succeeded"))
        .filter(|r| s(r, "id").is_some_and(|id| !named.contains(id)))
        .collect();
    loose.sort_by_key(|r| (r.get("created").and_then(Value::as_i64), s(r, "id")));
    for inv in invoices
        .iter()
        .filter(|i| invoice_status(s(i, "status")) == "paid")
    {
        let paid_by = invoice_payment_ids(inv);
        let currency = s(inv, "currency");
        let mut n = 0;
        for r in &loose {
            let ours = [s(r, "payment_intent"), s(r, "charge")]
                .into_iter()
                .flatten()
                .any(|id| paid_by.iter().any(|p| p == id));
            let (Some(rid), true) = (s(r, "id"), ours) else {
                continue;
            };
            let Some(amount) = minor_field(r, "amount", s(r, "currency").or(currency)) else {
                continue;
            };
            n += 1;
            let date = r.get("created").and_then(unix_date);
            let number = s(inv, "number").map(|num| format!("{num}-R{n}"));
            let mut line = SourceLine::amount(
                s(r, "reason").map_or_else(|| "Refund".to_owned(), |why| format!("Refund: {why}")),
                amount,
                Decimal::ZERO,
            );
            line.taxable = None;
            out.docs.push(SourceDoc {
                number: number.clone(),
                contact_name: invoice_contact(inv).map(str::to_owned),
                issue_date: date.clone(),
                status: Some("posted".to_owned()),
                total: amount,
                currency: s(r, "currency").or(currency).map(str::to_owned),
                provider_ref: Some(rid.to_owned()),
                lines: vec![line],
                ..SourceDoc::default()
            });
            out.refunds.push(SourcePayment {
                document_type: "credit_note",
                document_ref: Some(rid.to_owned()),
                document_number: number,
                date,
                amount,
                method: Some("stripe".to_owned()),
                reference: s(r, "reason").map(str::to_owned),
                provider_ref: Some(rid.to_owned()),
            });
        }
    }
}

/// Credit notes, with their lines, linked to their invoices.
pub fn credit_notes(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_credits(client)?
        .docs
        .iter()
        .flat_map(fit_document)
        .collect())
}

/// The refunds paid on credit notes (an invoice's payment is its `amount_paid`, dated
/// when Stripe marked it paid).
pub fn payments(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_credits(client)?
        .refunds
        .iter()
        .map(SourcePayment::row)
        .collect())
}

/// One invoice line, in either API shape.
fn line(l: &Value, currency: Option<&str>) -> SourceLine {
    let amount = minor_field(l, "amount", currency).unwrap_or_default();
    let discounts: Decimal = arr(l, "discount_amounts")
        .iter()
        .filter_map(|d| minor_field(d, "amount", currency))
        .sum();
    // Taxed when Stripe computed tax for it (a tax entry, even of 0) or it has tax rates.
    let taxable = (!arr(l, "taxes").is_empty()
        || !arr(l, "tax_amounts").is_empty()
        || !arr(l, "tax_rates").is_empty())
    .then_some(true);
    // basil: taxes[] {amount, tax_behavior}; older: tax_amounts[] {amount, inclusive}
    let mut vat = Decimal::ZERO;
    let mut inclusive_tax = Decimal::ZERO;
    for t in arr(l, "taxes") {
        let a = minor_field(t, "amount", currency).unwrap_or_default();
        vat += a;
        if s(t, "tax_behavior") == Some("inclusive") {
            inclusive_tax += a;
        }
    }
    for t in arr(l, "tax_amounts") {
        let a = minor_field(t, "amount", currency).unwrap_or_default();
        vat += a;
        if t.get("inclusive").and_then(Value::as_bool) == Some(true) {
            inclusive_tax += a;
        }
    }
    let net = amount - discounts - inclusive_tax;
    let quantity = l.get("quantity").and_then(decimal).unwrap_or(Decimal::ONE);
    let unit_minor = l
        .pointer("/pricing/unit_amount_decimal")
        .or_else(|| l.pointer("/price/unit_amount_decimal"))
        .or_else(|| l.get("unit_amount_decimal"))
        .and_then(decimal);
    let unit_price = if inclusive_tax.is_zero() {
        unit_minor.map(|m| minor_to_major(m, currency))
    } else {
        None
    };
    let vat_rate = {
        let rates: Vec<Decimal> = arr(l, "tax_rates")
            .iter()
            .filter_map(|r| r.get("percentage").and_then(decimal))
            .collect();
        (!rates.is_empty()).then(|| rates.iter().copied().sum())
    };
    SourceLine {
        description: s(l, "description").unwrap_or("Item").to_owned(),
        quantity,
        unit_price,
        net,
        vat,
        vat_rate,
        sku: None,
        taxable,
        vat_treatment: None,
    }
}

fn interval(price: &Value) -> (Option<String>, Option<i64>) {
    let rec = price.get("recurring").unwrap_or(&Value::Null);
    let count = rec
        .get("interval_count")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    match s(rec, "interval") {
        Some("day") if count % 7 == 0 => (Some("week".into()), Some(count / 7)),
        Some(i) => (Some(i.to_owned()), Some(count)),
        None => (None, None),
    }
}

fn subscription_status(s: Option<&str>) -> &'static str {
    match s {
        Some("paused") => "paused",
        Some("canceled" | "incomplete_expired") => "cancelled",
        _ => "active",
    }
}

fn subscriptions(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let subs = list_all(
        client,
        "/v1/subscriptions",
        &[("status", "all"), ("expand[]", "data.customer")],
    )?;
    let mut product_names: HashMap<String, String> = HashMap::new();
    let needs_products = subs.iter().any(|sub| {
        arr(sub.get("items").unwrap_or(&Value::Null), "data")
            .iter()
            .any(|i| {
                i.pointer("/price/nickname")
                    .and_then(Value::as_str)
                    .is_none()
            })
    });
    if needs_products {
        // The products type's own read, so an `all` run reads the products once.
        for p in list_all(client, "/v1/products", PRODUCTS)? {
            if let (Some(id), Some(name)) = (s(&p, "id"), s(&p, "name")) {
                product_names.insert(id.to_owned(), name.to_owned());
            }
        }
    }
    let mut rows = Vec::new();
    for sub in &subs {
        let customer = sub.get("customer").unwrap_or(&Value::Null);
        let contact = if customer.is_object() {
            s(customer, "name")
                .or(s(customer, "email"))
                .or(s(customer, "id"))
        } else {
            customer.as_str()
        };
        for item in arr(sub.get("items").unwrap_or(&Value::Null), "data") {
            let price = item.get("price").unwrap_or(&Value::Null);
            let (interval, count) = interval(price);
            let period_end = item
                .get("current_period_end")
                .or_else(|| sub.get("current_period_end"))
                .and_then(unix_date);
            let product = price.get("product").unwrap_or(&Value::Null);
            let product_name = if product.is_object() {
                s(product, "name").map(str::to_owned)
            } else {
                product
                    .as_str()
                    .and_then(|id| product_names.get(id).cloned())
            };
            let description = s(price, "nickname").map(str::to_owned).or(product_name);
            rows.push(
                Row::new()
                    .text("contact_name", contact)
                    .set("interval", interval)
                    .set("interval_count", count.map(|c| c.to_string()))
                    .set("next_date", period_end)
                    .set(
                        "status",
                        Some(subscription_status(s(sub, "status")).to_owned()),
                    )
                    .set("line_description", description)
                    .set(
                        "line_quantity",
                        Some(
                            item.get("quantity")
                                .and_then(super::text)
                                .unwrap_or_else(|| "1".into()),
                        ),
                    )
                    .dec("line_unit_price", price_amount(price))
                    .text("provider_ref", s(sub, "id"))
                    .build(),
            );
        }
    }
    Ok(rows)
}
