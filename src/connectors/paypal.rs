//! PayPal REST: OAuth 2 client credentials (credentials `{client_id, client_secret}`)
//! exchanged at `POST /v1/oauth2/token` (HTTP Basic, `grant_type=client_credentials`),
//! then `Authorization: Bearer`. Lists page with `page`, `page_size` and
//! `total_required=true`, and the HATEOAS `links[]` entry with `rel: "next"` is followed
//! verbatim. Money is `{currency_code, value}` with `value` decimal text in major units.
//!
//! - products: `GET /v1/catalogs/products` (PayPal's catalogue has no price or SKU).
//! - invoices: `GET /v2/invoicing/invoices`; an invoice listed without `items` is read
//!   whole with `GET /v2/invoicing/invoices/{id}`. Lines from `items[]` (`quantity`,
//!   `unit_amount`, `discount`, `tax{percent, amount}`), plus the breakdown's shipping and
//!   custom amount; amount paid from `payments.paid_amount`.
//!
//! PayPal has no customer directory and no list of subscriptions: contacts and
//! subscriptions are refused as unsupported.

use rust_decimal::Decimal;
use serde_json::Value;

use super::http::{Auth, Body, HttpClient, Pull};
use super::lines::{fit_document, SourceDoc, SourceLine, SourcePayment};
use super::{
    arr, base_url, credential, date_part, decimal, join, req_arr, s, ConnectorError,
    ConnectorResult, DataType, ImportRow, Platform, Row,
};
use crate::config::PlatformConfig;
use crate::db::decimal::round;

const P: Platform = Platform::Paypal;

pub fn pull(
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let client_id = credential(P, credentials, "client_id")?;
    let secret = credential(P, credentials, "client_secret")?;
    let base = base_url(P, config)?;
    let token = access_token(&base, &client_id, &secret, config, retry)?;
    let client = HttpClient::new(P, base, Auth::Bearer(token), config, retry);
    match data_type {
        DataType::Products => products(&client),
        DataType::Invoices => invoices(&client),
        DataType::CreditNotes => credit_notes(&client),
        DataType::Payments => payments(&client),
        other => Err(ConnectorError::Unsupported {
            platform: P,
            data_type: other,
        }),
    }
}

/// The client-credentials exchange: an app access token.
pub fn access_token(
    base: &str,
    client_id: &str,
    secret: &str,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<String> {
    let auth = Auth::Basic {
        user: client_id.to_owned(),
        password: secret.to_owned(),
    };
    let client = HttpClient::new(P, base, auth, config, retry);
    // One token serves every data type of a run (it lives hours): asked for once.
    let token = client.once_per_run(&format!("POST /v1/oauth2/token {client_id}"), || {
        let form = vec![("grant_type".to_owned(), "client_credentials".to_owned())];
        let res = client.send(
            "POST",
            &client.url("/v1/oauth2/token"),
            Some(Body::Form(form)),
        )?;
        let body = client.json(&res)?;
        s(&body, "access_token")
            .map(|t| vec![Value::String(t.to_owned())])
            .ok_or_else(|| ConnectorError::bad(P, "token response without `access_token`"))
    })?;
    Ok(token
        .first()
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned())
}

/// Every item of a list, following `links[rel=next]`.
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
        // An empty result may leave the list out.
        if page.get(key).is_some() {
            let items = req_arr(P, &page, key)?;
            client.records(items.len())?;
            seen.extend(&mut out, items);
        }
        next = arr(&page, "links")
            .iter()
            .find(|l| s(l, "rel") == Some("next"))
            .and_then(|l| s(l, "href"))
            .map(|h| super::http::resolve(&res.url, h));
        if let Some(n) = &next {
            client.check_same_origin(n)?;
        }
    }
    Ok(out)
}

fn products(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let products = list_all(
        client,
        "/v1/catalogs/products?page_size=20&page=1&total_required=true",
        "products",
    )?;
    Ok(products
        .iter()
        .map(|p| {
            Row::new()
                .text("name", s(p, "name"))
                .text("description", s(p, "description"))
                .text("category", s(p, "category"))
                .text("provider_ref", s(p, "id"))
                .build()
        })
        .collect())
}

fn value(v: Option<&Value>) -> Option<Decimal> {
    v?.get("value").and_then(decimal)
}

fn invoice_status(s: Option<&str>) -> &'static str {
    match s {
        Some("DRAFT") => "draft",
        // Refunded invoices were paid: their refunds are credit notes of their own.
        Some(
            "PAID"
            | "MARKED_AS_PAID"
            | "PARTIALLY_REFUNDED"
            | "MARKED_AS_PARTIALLY_REFUNDED"
            | "REFUNDED"
            | "MARKED_AS_REFUNDED",
        ) => "paid",
        Some("CANCELLED") => "void",
        _ => "sent",
    }
}

/// Every invoice with its refunds as credit notes and the payments of both.
#[derive(Default)]
struct Invoices {
    invoices: Vec<SourceDoc>,
    credits: Vec<SourceDoc>,
    payments: Vec<SourcePayment>,
}

fn read_invoices(client: &HttpClient) -> ConnectorResult<Invoices> {
    let listed = list_all(
        client,
        "/v2/invoicing/invoices?page=1&page_size=100&total_required=true",
        "items",
    )?;
    let mut out = Invoices::default();
    for inv in listed {
        let inv = if inv.get("items").is_some() {
            inv
        } else {
            let id = s(&inv, "id").ok_or_else(|| ConnectorError::bad(P, "invoice without id"))?;
            let path = format!("/v2/invoicing/invoices/{id}");
            let one = super::per_record(client.once_per_run(&format!("GET {path}"), || {
                Ok(vec![client.get_json(&client.url(&path))?.0])
            }))?;
            match one {
                Ok(one) => one.into_iter().next().unwrap_or_default(),
                // PayPal cannot give the invoice the list names: a row error, and the
                // rest of the pull imports (docs/import.md#row-errors).
                Err(said) => {
                    let detail = inv.get("detail").unwrap_or(&Value::Null);
                    let number = s(detail, "invoice_number");
                    let what = format!("invoice {}", number.unwrap_or(id));
                    out.invoices.push(SourceDoc {
                        number: number.map(str::to_owned),
                        issue_date: issue_date(detail),
                        provider_ref: Some(id.to_owned()),
                        error: Some(super::unfinished(P, &what, &said)),
                        ..SourceDoc::default()
                    });
                    continue;
                }
            }
        };
        let mut doc = invoice_doc(&inv)?;
        let paid: Vec<SourcePayment> =
            arr(inv.get("payments").unwrap_or(&Value::Null), "transactions")
                .iter()
                .filter_map(|t| {
                    Some(SourcePayment {
                        document_type: "invoice",
                        document_ref: doc.provider_ref.clone(),
                        date: date_part(s(t, "payment_date")),
                        amount: value(t.get("amount"))?,
                        method: s(t, "method").map(str::to_ascii_lowercase),
                        reference: s(t, "note").map(str::to_owned),
                        provider_ref: s(t, "payment_id").map(str::to_owned),
                        ..SourcePayment::default()
                    })
                })
                .collect();
        if doc.status.as_deref() != Some("void") {
            out.payments.extend(super::lines::settle(&mut doc, paid));
        }
        let refunds = arr(inv.get("refunds").unwrap_or(&Value::Null), "transactions");
        for (k, r) in refunds.iter().enumerate() {
            let Some(amount) = value(r.get("amount")) else {
                continue;
            };
            let id = s(r, "refund_id")
                .map(str::to_owned)
                .or_else(|| doc.provider_ref.as_ref().map(|i| format!("{i}-R{}", k + 1)));
            let date = date_part(s(r, "refund_date"));
            // PayPal's refund names no items or tax: one line for its amount.
            out.credits.push(SourceDoc {
                number: doc.number.as_ref().map(|n| format!("{n}-R{}", k + 1)),
                contact_name: doc.contact_name.clone(),
                issue_date: date.clone(),
                status: Some("posted".to_owned()),
                total: amount,
                currency: doc.currency.clone(),
                provider_ref: id.clone(),
                lines: vec![SourceLine::amount("Refund", amount, Decimal::ZERO)],
                ..SourceDoc::default()
            });
            out.payments.push(SourcePayment {
                document_type: "credit_note",
                document_ref: id.clone(),
                date,
                amount,
                method: s(r, "method").map(str::to_ascii_lowercase),
                provider_ref: id,
                ..SourcePayment::default()
            });
        }
        out.invoices.push(doc);
    }
    Ok(out)
}

fn invoices(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_invoices(client)?
        .invoices
        .iter()
        .flat_map(fit_document)
        .collect())
}

/// Refunds as credit notes (one line each, numbered after the invoice: `<number>-R1`).
pub fn credit_notes(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_invoices(client)?
        .credits
        .iter()
        .flat_map(fit_document)
        .collect())
}

/// The dated payments of invoices paid on several days, and every refund.
pub fn payments(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_invoices(client)?
        .payments
        .iter()
        .map(SourcePayment::row)
        .collect())
}

fn invoice_doc(inv: &Value) -> ConnectorResult<SourceDoc> {
    let hundred = Decimal::ONE_HUNDRED;
    let mut lines = Vec::new();
    for it in arr(inv, "items") {
        let qty = it.get("quantity").and_then(decimal).unwrap_or(Decimal::ONE);
        let unit = value(it.get("unit_amount")).unwrap_or_default();
        let gross = round(qty * unit, 2);
        let disc = it.get("discount").unwrap_or(&Value::Null);
        let discount = value(disc.get("amount")).unwrap_or_else(|| {
            disc.get("percent")
                .and_then(decimal)
                .map(|p| round(gross * p / hundred, 2))
                .unwrap_or_default()
        });
        let net = gross - discount;
        let tax = it.get("tax").unwrap_or(&Value::Null);
        let rate = tax.get("percent").and_then(decimal);
        let vat = value(tax.get("amount")).unwrap_or_else(|| {
            rate.map(|r| round(net * r / hundred, 2))
                .unwrap_or_default()
        });
        lines.push(SourceLine {
            description: join([s(it, "name"), s(it, "description")], " - ")
                .unwrap_or_else(|| "Item".into()),
            quantity: qty,
            unit_price: Some(unit),
            net,
            vat,
            vat_rate: rate,
            sku: None,
            taxable: (!tax.is_null()).then_some(true),
            vat_treatment: None,
        });
    }
    let breakdown = inv.pointer("/amount/breakdown").unwrap_or(&Value::Null);
    if let Some(ship) = breakdown.get("shipping") {
        let net = value(ship.get("amount")).unwrap_or_default();
        let vat = value(ship.pointer("/tax/amount")).unwrap_or_default();
        if !(net.is_zero() && vat.is_zero()) {
            let mut l = SourceLine::amount("Shipping", net, vat);
            l.vat_rate = ship.pointer("/tax/percent").and_then(decimal);
            l.taxable = ship.get("tax").map(|_| true);
            lines.push(l);
        }
    }
    if let Some(custom) = breakdown.get("custom") {
        if let Some(a) = value(custom.get("amount")).filter(|a| !a.is_zero()) {
            lines.push(SourceLine::amount(
                s(custom, "label").unwrap_or("Adjustment"),
                a,
                Decimal::ZERO,
            ));
        }
    }
    let total = value(inv.get("amount"))
        .ok_or_else(|| ConnectorError::bad(P, "invoice without `amount`"))?;
    let detail = inv.get("detail").unwrap_or(&Value::Null);
    let recipient = arr(inv, "primary_recipients")
        .first()
        .and_then(|r| r.get("billing_info"))
        .unwrap_or(&Value::Null);
    let contact = s(recipient, "business_name")
        .map(str::to_owned)
        .or_else(|| {
            let n = recipient.get("name").unwrap_or(&Value::Null);
            s(n, "full_name")
                .map(str::to_owned)
                .or_else(|| join([s(n, "given_name"), s(n, "surname")], " "))
        })
        .or_else(|| s(recipient, "email_address").map(str::to_owned));
    let paid = value(inv.pointer("/payments/paid_amount")).or_else(|| {
        let due = value(inv.get("due_amount"))?;
        Some((total - due).max(Decimal::ZERO))
    });
    Ok(SourceDoc {
        number: s(detail, "invoice_number").map(str::to_owned),
        contact_name: contact,
        issue_date: issue_date(detail),
        due_date: date_part(
            detail
                .pointer("/payment_term/due_date")
                .and_then(Value::as_str),
        ),
        status: Some(invoice_status(s(inv, "status")).to_owned()),
        total,
        amount_paid: paid,
        currency: s(detail, "currency_code").map(str::to_owned),
        provider_ref: s(inv, "id").map(str::to_owned),
        lines,
        ..SourceDoc::default()
    })
}

/// The invoice's date: `detail.invoice_date`, else the day PayPal created it
/// (`detail.metadata.create_time`, docs/import.md#connectors).
fn issue_date(detail: &Value) -> Option<String> {
    date_part(s(detail, "invoice_date")).or_else(|| {
        date_part(
            detail
                .pointer("/metadata/create_time")
                .and_then(Value::as_str),
        )
    })
}
