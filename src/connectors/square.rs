//! Square: `Authorization: Bearer <access token>` (credentials `{access_token}`) and a
//! pinned `Square-Version`; pagination by the opaque `cursor` the body returns (absent on
//! the last page), sent back as a query parameter (GET) or in the body (search POSTs).
//! All money is `{amount: <minor units>, currency}`.
//!
//! - contacts: `GET /v2/customers`.
//! - products: `GET /v2/catalog/list?types=ITEM,CATEGORY,TAX`, one row per item
//!   variation (`VARIABLE_PRICING` variations have no price); category and VAT rate
//!   resolved from the CATEGORY and TAX objects of the same listing.
//! - invoices: Square invoices, `GET /v2/invoices?location_id=` for every location of
//!   `GET /v2/locations` (one location per call, `cursor` paging), and orders, read with
//!   `POST /v2/orders/search` over the same locations (at most 10 location ids per
//!   search). An invoice takes its lines and total from its order (`order_id`), its
//!   number from `invoice_number`, its status from `status` and what was paid from its
//!   `payment_requests[].total_completed_amount_money`; the order of an invoice is not
//!   imported again as an order (one missing from the search is read with
//!   `GET /v2/orders/{id}`). Line net is `total_money` − `total_tax_money` (taxes
//!   ADDITIVE or INCLUSIVE), VAT `total_tax_money`, nominal rate from the order's
//!   `taxes[].percentage`; service charges and tips are lines. Orders have no number:
//!   `reference_id`, else the order id, is the `number`.
//! - subscriptions: `POST /v2/subscriptions/search`; cadence and price from the
//!   `SUBSCRIPTION_PLAN_VARIATION` catalog objects, customer names from the customers
//!   list; `next_date` is the day after `charged_through_date` (else `start_date`).

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::http::{Auth, HttpClient, Pull};
use super::lines::{Orders, SourceDoc, SourceLine, SourcePayment};
use super::{
    arr, base_url, credential, date_part, decimal, join, minor_to_major, s, ConnectorError,
    ConnectorResult, DataType, ImportRow, Platform, Row,
};
use crate::config::PlatformConfig;

const P: Platform = Platform::Square;
pub const SQUARE_VERSION: &str = "2025-01-23";

pub fn pull(
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let token = credential(P, credentials, "access_token")?;
    let client = HttpClient::new(P, base_url(P, config)?, Auth::Bearer(token), config, retry)
        .with_header("Square-Version", SQUARE_VERSION);
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

/// A GET list: `cursor` query parameter until the body has none. A page may leave the
/// list out when it is empty.
fn list_get(
    client: &HttpClient,
    path: &str,
    params: &[(&str, &str)],
    key: &str,
) -> ConnectorResult<Vec<Value>> {
    // Read once per run and shared by the types that need it.
    let first = format!("GET {path}?{params:?}");
    client.once_per_run(&first, || read_get(client, path, params, key))
}

fn read_get(
    client: &HttpClient,
    path: &str,
    params: &[(&str, &str)],
    key: &str,
) -> ConnectorResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut seen = super::SeenIds::default();
    let mut cursor: Option<String> = None;
    let mut guard = super::PageGuard::new(P);
    loop {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in params {
            q.append_pair(k, v);
        }
        if let Some(c) = &cursor {
            q.append_pair("cursor", c);
        }
        let (page, _) = client.get_json(&client.url(&format!("{path}?{}", q.finish())))?;
        let items = arr(&page, key);
        client.records(items.len())?;
        seen.extend(&mut out, items);
        match s(&page, "cursor") {
            Some(c) => {
                guard.visit(c)?;
                cursor = Some(c.to_owned());
            }
            None => return Ok(out),
        }
    }
}

/// A search POST: `cursor` in the body until the answer has none.
fn list_post(
    client: &HttpClient,
    path: &str,
    body: &Value,
    key: &str,
) -> ConnectorResult<Vec<Value>> {
    let first = format!("POST {path} {body}");
    client.once_per_run(&first, || read_post(client, path, body, key))
}

fn read_post(
    client: &HttpClient,
    path: &str,
    body: &Value,
    key: &str,
) -> ConnectorResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut seen = super::SeenIds::default();
    let mut cursor: Option<String> = None;
    let mut guard = super::PageGuard::new(P);
    loop {
        let mut b = body.clone();
        if let (Some(c), Some(obj)) = (&cursor, b.as_object_mut()) {
            obj.insert("cursor".into(), Value::String(c.clone()));
        }
        let (page, _) = client.post_json(&client.url(path), b)?;
        let items = arr(&page, key);
        client.records(items.len())?;
        seen.extend(&mut out, items);
        match s(&page, "cursor") {
            Some(c) => {
                guard.visit(c)?;
                cursor = Some(c.to_owned());
            }
            None => return Ok(out),
        }
    }
}

/// `{amount, currency}` in major units.
fn money(v: Option<&Value>) -> Option<Decimal> {
    let v = v?;
    let amount = v.get("amount").and_then(decimal)?;
    Some(minor_to_major(amount, s(v, "currency")))
}

fn m(v: &Value, key: &str) -> Decimal {
    money(v.get(key)).unwrap_or_default()
}

fn customer_name(c: &Value) -> Option<String> {
    join([s(c, "given_name"), s(c, "family_name")], " ")
        .or_else(|| s(c, "company_name").map(str::to_owned))
        .or_else(|| s(c, "email_address").map(str::to_owned))
}

fn all_customers(client: &HttpClient) -> ConnectorResult<Vec<Value>> {
    list_get(client, "/v2/customers", &[("limit", "100")], "customers")
}

fn contacts(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(all_customers(client)?
        .iter()
        .map(|c| {
            let a = c.get("address").unwrap_or(&Value::Null);
            Row::new()
                .set("name", customer_name(c))
                .set("type", Some("customer".to_owned()))
                .text("email", s(c, "email_address"))
                .text("phone", s(c, "phone_number"))
                .set(
                    "address",
                    join(
                        [
                            "address_line_1",
                            "address_line_2",
                            "locality",
                            "postal_code",
                            "country",
                        ]
                        .map(|k| s(a, k)),
                        ", ",
                    ),
                )
                .text("provider_ref", s(c, "id"))
                .build()
        })
        .collect())
}

fn products(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let objects = list_get(
        client,
        "/v2/catalog/list",
        &[("types", "ITEM,CATEGORY,TAX")],
        "objects",
    )?;
    let mut categories = HashMap::new();
    let mut taxes = HashMap::new();
    for o in &objects {
        match s(o, "type") {
            Some("CATEGORY") => {
                if let (Some(id), Some(name)) = (
                    s(o, "id"),
                    o.pointer("/category_data/name").and_then(Value::as_str),
                ) {
                    categories.insert(id.to_owned(), name.to_owned());
                }
            }
            Some("TAX") => {
                if let (Some(id), Some(p)) = (
                    s(o, "id"),
                    o.pointer("/tax_data/percentage").and_then(decimal),
                ) {
                    taxes.insert(id.to_owned(), p);
                }
            }
            _ => {}
        }
    }
    let mut rows = Vec::new();
    for item in objects.iter().filter(|o| s(o, "type") == Some("ITEM")) {
        let data = item.get("item_data").unwrap_or(&Value::Null);
        let name = s(data, "name").unwrap_or("Item");
        let category_id = arr(data, "categories")
            .first()
            .and_then(|c| s(c, "id"))
            .or(s(data, "category_id"));
        let category = category_id.and_then(|id| categories.get(id)).cloned();
        let rate: Option<Decimal> = {
            let rates: Vec<Decimal> = arr(data, "tax_ids")
                .iter()
                .filter_map(|t| t.as_str().and_then(|id| taxes.get(id)).copied())
                .collect();
            (!rates.is_empty()).then(|| rates.iter().copied().sum())
        };
        let variations = arr(data, "variations");
        for v in variations {
            let vd = v.get("item_variation_data").unwrap_or(&Value::Null);
            let vname = s(vd, "name");
            let full = match vname {
                Some(n) if variations.len() > 1 || n != "Regular" => format!("{name} - {n}"),
                _ => name.to_owned(),
            };
            rows.push(
                Row::new()
                    .set("name", Some(full))
                    .text("sku", s(vd, "sku"))
                    .text("description", s(data, "description"))
                    .set("category", category.clone())
                    .dec("unit_price", money(vd.get("price_money")))
                    .dec("vat_rate", rate)
                    .text("barcode", s(vd, "upc"))
                    .text("provider_ref", s(v, "id"))
                    .build(),
            );
        }
    }
    Ok(rows)
}

fn order_status(o: &Value, due: Option<Decimal>) -> &'static str {
    match s(o, "state") {
        Some("COMPLETED") => "paid",
        Some("CANCELED") => "void",
        Some("DRAFT") => "draft",
        _ if due.is_some_and(|d| d.is_zero()) && !arr(o, "tenders").is_empty() => "paid",
        _ => "sent",
    }
}

fn read_orders(client: &HttpClient) -> ConnectorResult<Orders> {
    let locations = client.once_per_run("GET /v2/locations", || {
        let (page, _) = client.get_json(&client.url("/v2/locations"))?;
        Ok(arr(&page, "locations").to_vec())
    })?;
    let ids: Vec<String> = locations
        .iter()
        .filter_map(|l| s(l, "id").map(str::to_owned))
        .collect();
    let names: HashMap<String, String> = if ids.is_empty() {
        HashMap::new()
    } else {
        all_customers(client)?
            .iter()
            .filter_map(|c| Some((s(c, "id")?.to_owned(), customer_name(c)?)))
            .collect()
    };
    let mut invoices = Vec::new();
    for id in &ids {
        invoices.extend(list_get(
            client,
            "/v2/invoices",
            &[("location_id", id), ("limit", "200")],
            "invoices",
        )?);
    }
    let mut orders = Vec::new();
    for chunk in ids.chunks(10) {
        let body = json!({
            "location_ids": chunk,
            "limit": 500,
            "return_entries": false,
            "query": {"sort": {"sort_field": "CREATED_AT", "sort_order": "ASC"}},
        });
        orders.extend(list_post(client, "/v2/orders/search", &body, "orders")?);
    }
    let mut by_id: HashMap<String, Value> = orders
        .iter()
        .filter_map(|o| Some((s(o, "id")?.to_owned(), o.clone())))
        .collect();
    let invoiced: std::collections::HashSet<&str> =
        invoices.iter().filter_map(|i| s(i, "order_id")).collect();
    let mut out = Orders {
        invoices: Vec::new(),
        credits: Vec::new(),
        payments: Vec::new(),
    };
    for inv in &invoices {
        let order_id = s(inv, "order_id")
            .ok_or_else(|| ConnectorError::bad(P, "invoice without `order_id`"))?;
        if !by_id.contains_key(order_id) {
            let path = format!("/v2/orders/{order_id}");
            let one = super::per_record(client.once_per_run(&format!("GET {path}"), || {
                let (one, _) = client.get_json(&client.url(&path))?;
                Ok(vec![one.get("order").cloned().ok_or_else(|| {
                    ConnectorError::bad(P, "order answer without `order`")
                })?])
            }))?;
            let order = match one {
                Ok(one) => one.into_iter().next().unwrap_or(Value::Null),
                // Square cannot give this invoice's order (404): the invoice is a row
                // error and the rest of the pull imports (docs/import.md#row-errors).
                Err(said) => {
                    out.invoices
                        .push(unfinished_invoice(inv, &names, order_id, &said));
                    continue;
                }
            };
            by_id.insert(order_id.to_owned(), order);
        }
        let order = &by_id[order_id];
        let mut doc = invoice_doc(inv, order, &names)?;
        let paid = tender_payments(order, doc.provider_ref.as_ref());
        let paid_sum: Decimal = paid.iter().map(|p| p.amount).sum();
        if !paid.is_empty() && Some(paid_sum) == doc.amount_paid {
            out.payments.extend(super::lines::settle(&mut doc, paid));
        }
        refund_credits(order, &doc, &mut out);
        out.invoices.push(doc);
    }
    for o in &orders {
        if s(o, "id").is_some_and(|id| invoiced.contains(id)) {
            continue;
        }
        // A return order (its items came back from another order) is that order's refund.
        if !arr(o, "returns").is_empty() && arr(o, "line_items").is_empty() {
            continue;
        }
        let mut doc = order_doc(o, &names)?;
        if doc.status.as_deref() != Some("void") {
            let paid = tender_payments(o, doc.provider_ref.as_ref());
            out.payments.extend(super::lines::settle(&mut doc, paid));
        }
        refund_credits(o, &doc, &mut out);
        out.invoices.push(doc);
    }
    Ok(out)
}

/// The order's tenders (`created_at`, `amount_money`, `type`) as dated payments.
fn tender_payments(o: &Value, doc_ref: Option<&String>) -> Vec<SourcePayment> {
    arr(o, "tenders")
        .iter()
        .filter_map(|t| {
            let amount = money(t.get("amount_money"))?;
            Some(SourcePayment {
                document_type: "invoice",
                document_ref: doc_ref.cloned(),
                date: date_part(s(t, "created_at")),
                amount,
                method: s(t, "type").map(str::to_ascii_lowercase),
                reference: s(t, "payment_id").map(str::to_owned),
                provider_ref: s(t, "id").map(str::to_owned),
                ..SourcePayment::default()
            })
        })
        .collect()
}

/// The order's `refunds[]` that Square completed (`APPROVED`, `COMPLETED`): each a
/// credit note of one line for its amount (Square's refund names no items or tax) and
/// the refund paid on it, linked to the invoice or order it came from.
fn refund_credits(o: &Value, doc: &SourceDoc, out: &mut Orders) {
    for (k, r) in arr(o, "refunds").iter().enumerate() {
        if !matches!(s(r, "status"), Some("APPROVED" | "COMPLETED")) {
            continue;
        }
        let (Some(id), Some(amount)) = (s(r, "id"), money(r.get("amount_money"))) else {
            continue;
        };
        let date = date_part(s(r, "created_at"));
        let mut line = SourceLine::amount(
            s(r, "reason").map_or_else(|| "Refund".to_owned(), |why| format!("Refund: {why}")),
            amount,
            Decimal::ZERO,
        );
        line.taxable = None;
        out.credits.push(SourceDoc {
            number: doc.number.as_ref().map(|n| format!("{n}-R{}", k + 1)),
            contact_name: doc.contact_name.clone(),
            issue_date: date.clone(),
            status: Some("posted".to_owned()),
            total: amount,
            currency: doc.currency.clone(),
            provider_ref: Some(id.to_owned()),
            lines: vec![line],
            ..SourceDoc::default()
        });
        out.payments.push(SourcePayment {
            document_type: "credit_note",
            document_ref: Some(id.to_owned()),
            date,
            amount,
            method: Some("square".to_owned()),
            reference: s(r, "reason").map(str::to_owned),
            provider_ref: Some(id.to_owned()),
            ..SourcePayment::default()
        });
    }
}

fn orders(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.invoice_rows())
}

/// Completed refunds as credit notes (numbered after their order: `<number>-R1`).
pub fn credit_notes(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.credit_rows())
}

/// The dated payments of orders paid on several days, and every refund.
pub fn payments(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(read_orders(client)?.payment_rows())
}

/// A Square invoice's status into the docs/accounting.md#line-totals set: published and not fully
/// paid is `sent`.
fn invoice_status(status: Option<&str>) -> &'static str {
    match status {
        Some("DRAFT") => "draft",
        Some("PAID" | "PARTIALLY_REFUNDED") => "paid",
        Some("CANCELED" | "REFUNDED" | "FAILED") => "void",
        // UNPAID, SCHEDULED, PARTIALLY_PAID, PAYMENT_PENDING.
        _ => "sent",
    }
}

/// An invoice whose order Square cannot give (404): its number, customer and reference,
/// and the row error that says why nothing of it is imported.
fn unfinished_invoice(
    inv: &Value,
    names: &HashMap<String, String>,
    order_id: &str,
    said: &str,
) -> SourceDoc {
    let recipient = inv.get("primary_recipient").unwrap_or(&Value::Null);
    let number = s(inv, "invoice_number").or(s(inv, "id"));
    SourceDoc {
        number: number.map(str::to_owned),
        contact_name: s(recipient, "customer_id")
            .and_then(|id| names.get(id).cloned())
            .or_else(|| customer_name(recipient)),
        issue_date: date_part(s(inv, "created_at")),
        provider_ref: s(inv, "id").map(str::to_owned),
        error: Some(super::unfinished(
            P,
            &format!(
                "order {order_id} of invoice {}, which holds its lines",
                number.unwrap_or("?")
            ),
            said,
        )),
        ..SourceDoc::default()
    }
}

/// One invoice: the lines and total of its order, the invoice's number, recipient, dates,
/// status and payments.
fn invoice_doc(
    inv: &Value,
    order: &Value,
    names: &HashMap<String, String>,
) -> ConnectorResult<SourceDoc> {
    let mut doc = order_doc(order, names)?;
    let requests = arr(inv, "payment_requests");
    let status = invoice_status(s(inv, "status"));
    let completed: Decimal = requests
        .iter()
        .map(|r| m(r, "total_completed_amount_money"))
        .sum();
    doc.amount_paid = Some(match status {
        "paid" if completed.is_zero() => doc.total,
        "void" | "draft" => Decimal::ZERO,
        _ => completed.min(doc.total),
    });
    doc.status = Some(status.to_owned());
    doc.number = s(inv, "invoice_number").or(s(inv, "id")).map(str::to_owned);
    doc.provider_ref = s(inv, "id").map(str::to_owned);
    let recipient = inv.get("primary_recipient").unwrap_or(&Value::Null);
    if let Some(name) = s(recipient, "customer_id")
        .and_then(|id| names.get(id).cloned())
        .or_else(|| customer_name(recipient))
    {
        doc.contact_name = Some(name);
    }
    doc.issue_date = date_part(s(inv, "created_at")).or(doc.issue_date);
    doc.due_date = requests
        .iter()
        .filter_map(|r| date_part(s(r, "due_date")))
        .max();
    Ok(doc)
}

fn order_doc(o: &Value, names: &HashMap<String, String>) -> ConnectorResult<SourceDoc> {
    let rates: HashMap<&str, Decimal> = arr(o, "taxes")
        .iter()
        .filter_map(|t| Some((s(t, "uid")?, t.get("percentage").and_then(decimal)?)))
        .collect();
    let inclusive_uids: Vec<&str> = arr(o, "taxes")
        .iter()
        .filter(|t| s(t, "type") == Some("INCLUSIVE"))
        .filter_map(|t| s(t, "uid"))
        .collect();
    let mut lines = Vec::new();
    for li in arr(o, "line_items") {
        let qty = li.get("quantity").and_then(decimal).unwrap_or(Decimal::ONE);
        let applied: Vec<&str> = arr(li, "applied_taxes")
            .iter()
            .filter_map(|t| s(t, "tax_uid"))
            .collect();
        let rate = {
            let r: Vec<Decimal> = applied
                .iter()
                .filter_map(|u| rates.get(u))
                .copied()
                .collect();
            (!r.is_empty()).then(|| r.iter().copied().sum())
        };
        let inclusive = applied.iter().any(|u| inclusive_uids.contains(u));
        let vat = m(li, "total_tax_money");
        let net = m(li, "total_money") - vat;
        let description =
            join([s(li, "name"), s(li, "variation_name")], " - ").unwrap_or_else(|| "Item".into());
        lines.push(SourceLine {
            description,
            quantity: qty,
            unit_price: if inclusive {
                None
            } else {
                money(li.get("base_price_money"))
            },
            net,
            vat,
            vat_rate: rate,
            sku: None,
            taxable: (!applied.is_empty()).then_some(true),
            vat_treatment: None,
        });
    }
    for sc in arr(o, "service_charges") {
        let vat = m(sc, "total_tax_money");
        lines.push(SourceLine::amount(
            s(sc, "name").unwrap_or("Service charge"),
            m(sc, "total_money") - vat,
            vat,
        ));
    }
    let tip = m(o, "total_tip_money");
    if !tip.is_zero() {
        lines.push(SourceLine::amount("Tip", tip, Decimal::ZERO));
    }
    let total = money(o.get("total_money"))
        .ok_or_else(|| ConnectorError::bad(P, "order without `total_money`"))?;
    let due = money(o.get("net_amount_due_money"));
    let status = order_status(o, due);
    let amount_paid = match due {
        Some(d) => (total - d).max(Decimal::ZERO),
        None if status == "paid" => total,
        None => arr(o, "tenders").iter().map(|t| m(t, "amount_money")).sum(),
    };
    let contact = s(o, "customer_id")
        .and_then(|id| names.get(id).cloned())
        .unwrap_or_else(|| "Walk-in customer".to_owned());
    let id = s(o, "id").ok_or_else(|| ConnectorError::bad(P, "order without id"))?;
    Ok(SourceDoc {
        number: Some(s(o, "reference_id").unwrap_or(id).to_owned()),
        contact_name: Some(contact),
        issue_date: date_part(s(o, "created_at")),
        due_date: None,
        status: Some(status.to_owned()),
        total,
        amount_paid: Some(amount_paid),
        currency: o
            .pointer("/total_money/currency")
            .and_then(Value::as_str)
            .map(str::to_owned),
        provider_ref: Some(id.to_owned()),
        lines,
        ..SourceDoc::default()
    })
}

/// A Square cadence as (interval, count); day cadences that are not whole weeks stay
/// `day` for the importer to refuse.
fn cadence(c: &str) -> (&'static str, u32) {
    match c {
        "DAILY" => ("day", 1),
        "WEEKLY" => ("week", 1),
        "EVERY_TWO_WEEKS" => ("week", 2),
        "THIRTY_DAYS" => ("day", 30),
        "SIXTY_DAYS" => ("day", 60),
        "NINETY_DAYS" => ("day", 90),
        "EVERY_TWO_MONTHS" => ("month", 2),
        "QUARTERLY" => ("month", 3),
        "EVERY_FOUR_MONTHS" => ("month", 4),
        "EVERY_SIX_MONTHS" => ("month", 6),
        "ANNUAL" => ("year", 1),
        "EVERY_TWO_YEARS" => ("year", 2),
        _ => ("month", 1),
    }
}

fn subscription_status(s: Option<&str>) -> &'static str {
    match s {
        Some("PAUSED") => "paused",
        Some("CANCELED" | "DEACTIVATED") => "cancelled",
        _ => "active",
    }
}

fn day_after(date: &str) -> Option<String> {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    let d = time::Date::parse(date, &fmt).ok()?;
    Some(super::iso_date(d.next_day()?))
}

fn subscriptions(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let subs = list_post(
        client,
        "/v2/subscriptions/search",
        &json!({"limit": 200}),
        "subscriptions",
    )?;
    if subs.is_empty() {
        return Ok(Vec::new());
    }
    let plans: HashMap<String, Value> = list_get(
        client,
        "/v2/catalog/list",
        &[("types", "SUBSCRIPTION_PLAN_VARIATION")],
        "objects",
    )?
    .into_iter()
    .filter_map(|o| Some((s(&o, "id")?.to_owned(), o)))
    .collect();
    let names: HashMap<String, String> = all_customers(client)?
        .iter()
        .filter_map(|c| Some((s(c, "id")?.to_owned(), customer_name(c)?)))
        .collect();
    let mut rows = Vec::new();
    for sub in &subs {
        let plan = s(sub, "plan_variation_id")
            .and_then(|id| plans.get(id))
            .and_then(|p| p.get("subscription_plan_variation_data"));
        let phases = plan.map(|p| arr(p, "phases")).unwrap_or(&[]);
        // The phase that runs on (no `periods`), else the last one.
        let phase = phases
            .iter()
            .find(|ph| ph.get("periods").is_none_or(Value::is_null))
            .or(phases.last());
        let (interval, count) = phase
            .and_then(|ph| s(ph, "cadence"))
            .map(cadence)
            .unwrap_or(("month", 1));
        let price = money(sub.get("price_override_money"))
            .or_else(|| phase.and_then(|ph| money(ph.pointer("/pricing/price_money"))))
            .or_else(|| phase.and_then(|ph| money(ph.get("recurring_price_money"))));
        let next = s(sub, "charged_through_date")
            .and_then(day_after)
            .or_else(|| s(sub, "start_date").map(str::to_owned));
        rows.push(
            Row::new()
                .set(
                    "contact_name",
                    s(sub, "customer_id").and_then(|id| names.get(id).cloned()),
                )
                .set("interval", Some(interval.to_owned()))
                .set("interval_count", Some(count.to_string()))
                .set("next_date", next)
                .set(
                    "status",
                    Some(subscription_status(s(sub, "status")).to_owned()),
                )
                .text("line_description", plan.and_then(|p| s(p, "name")))
                .set("line_quantity", Some("1".to_owned()))
                .dec("line_unit_price", price)
                .text("provider_ref", s(sub, "id"))
                .build(),
        );
    }
    Ok(rows)
}
