//! GoCardless Pro: `Authorization: Bearer <access token>` (credentials `{access_token}`)
//! and `GoCardless-Version: 2015-07-06`; lists answer
//! `{"<resource>": [...], "meta": {"cursors": {"before", "after"}, "limit"}}` and the next
//! page is `?after=<meta.cursors.after>` until `after` is null. Amounts are minor units.
//!
//! - contacts: `GET /customers` (no single name field: company name, else given and
//!   family names, else email).
//! - subscriptions: `GET /subscriptions`; the customer through `links.mandate` →
//!   `GET /mandates` `links.customer` → customers; `interval_unit` weekly / monthly /
//!   yearly with `interval`; next date is the first `upcoming_payments[].charge_date`.
//!
//! GoCardless has no products, invoices or orders.

use std::collections::HashMap;

use serde_json::Value;

use super::http::{Auth, HttpClient, Pull};
use super::{
    arr, base_url, credential, join, minor_field, req_arr, s, ConnectorError, ConnectorResult,
    DataType, ImportRow, Platform, Row,
};
use crate::config::PlatformConfig;

const P: Platform = Platform::Gocardless;
pub const GOCARDLESS_VERSION: &str = "2015-07-06";

pub fn pull(
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let token = credential(P, credentials, "access_token")?;
    let client = HttpClient::new(P, base_url(P, config)?, Auth::Bearer(token), config, retry)
        .with_header("GoCardless-Version", GOCARDLESS_VERSION);
    match data_type {
        DataType::Contacts => contacts(&client),
        DataType::Subscriptions => subscriptions(&client),
        other => Err(ConnectorError::Unsupported {
            platform: P,
            data_type: other,
        }),
    }
}

/// Every record of a list: `after` = `meta.cursors.after` until it is null.
fn list_all(client: &HttpClient, path: &str, key: &str) -> ConnectorResult<Vec<Value>> {
    // Read once per run and shared by the types that need it.
    client.once_per_run(path, || read_all(client, path, key))
}

fn read_all(client: &HttpClient, path: &str, key: &str) -> ConnectorResult<Vec<Value>> {
    let mut out = Vec::new();
    let mut seen = super::SeenIds::default();
    let mut after: Option<String> = None;
    let mut guard = super::PageGuard::new(P);
    loop {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("limit", "500");
        if let Some(a) = &after {
            q.append_pair("after", a);
        }
        let (page, _) = client.get_json(&client.url(&format!("{path}?{}", q.finish())))?;
        let items = req_arr(P, &page, key)?;
        client.records(items.len())?;
        seen.extend(&mut out, items);
        match page.pointer("/meta/cursors/after").and_then(Value::as_str) {
            Some(a) if !a.is_empty() => {
                guard.visit(a)?;
                after = Some(a.to_owned());
            }
            _ => return Ok(out),
        }
    }
}

fn customer_name(c: &Value) -> Option<String> {
    s(c, "company_name")
        .map(str::to_owned)
        .or_else(|| join([s(c, "given_name"), s(c, "family_name")], " "))
        .or_else(|| s(c, "email").map(str::to_owned))
}

fn contacts(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    Ok(list_all(client, "/customers", "customers")?
        .iter()
        .map(|c| {
            Row::new()
                .set("name", customer_name(c))
                .set("type", Some("customer".to_owned()))
                .text("email", s(c, "email"))
                .text("phone", s(c, "phone_number"))
                .set(
                    "address",
                    join(
                        [
                            "address_line1",
                            "address_line2",
                            "address_line3",
                            "city",
                            "region",
                            "postal_code",
                            "country_code",
                        ]
                        .map(|k| s(c, k)),
                        ", ",
                    ),
                )
                .text("provider_ref", s(c, "id"))
                .build()
        })
        .collect())
}

fn interval(unit: Option<&str>) -> Option<&'static str> {
    match unit? {
        "weekly" => Some("week"),
        "monthly" => Some("month"),
        "yearly" => Some("year"),
        _ => None,
    }
}

fn status(s: Option<&str>) -> &'static str {
    match s {
        Some("paused") => "paused",
        Some("cancelled" | "finished" | "customer_approval_denied") => "cancelled",
        _ => "active",
    }
}

fn subscriptions(client: &HttpClient) -> ConnectorResult<Vec<ImportRow>> {
    let subs = list_all(client, "/subscriptions", "subscriptions")?;
    if subs.is_empty() {
        return Ok(Vec::new());
    }
    let mandate_customer: HashMap<String, String> = list_all(client, "/mandates", "mandates")?
        .iter()
        .filter_map(|m| {
            Some((
                s(m, "id")?.to_owned(),
                m.pointer("/links/customer")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    let names: HashMap<String, String> = list_all(client, "/customers", "customers")?
        .iter()
        .filter_map(|c| Some((s(c, "id")?.to_owned(), customer_name(c)?)))
        .collect();
    Ok(subs
        .iter()
        .map(|sub| {
            let contact = sub
                .pointer("/links/mandate")
                .and_then(Value::as_str)
                .and_then(|m| mandate_customer.get(m))
                .and_then(|c| names.get(c))
                .cloned();
            let next = arr(sub, "upcoming_payments")
                .first()
                .and_then(|p| s(p, "charge_date"))
                .or(s(sub, "start_date"))
                .map(str::to_owned);
            let count = sub
                .get("interval")
                .and_then(super::text)
                .unwrap_or_else(|| "1".to_owned());
            Row::new()
                .set("contact_name", contact)
                .text(
                    "interval",
                    interval(s(sub, "interval_unit")).or(s(sub, "interval_unit")),
                )
                .set("interval_count", Some(count))
                .set("next_date", next)
                .set("status", Some(status(s(sub, "status")).to_owned()))
                .set(
                    "line_description",
                    s(sub, "name")
                        .or(s(sub, "payment_reference"))
                        .map(str::to_owned)
                        .or_else(|| Some("Subscription".to_owned())),
                )
                .set("line_quantity", Some("1".to_owned()))
                .dec(
                    "line_unit_price",
                    minor_field(sub, "amount", s(sub, "currency")),
                )
                .text("provider_ref", s(sub, "id"))
                .build()
        })
        .collect())
}
