//! FreeAgent over OAuth 2 (authorization-code grant), and its API pulls.
//!
//! The flow (settings from `platforms.freeagent`: `authorize_url`, `token_url`,
//! `client_id`, `client_secret`, `base_url`):
//!
//! 1. [`new_state`] + [`authorize_url`]: send the user to
//!    `approve_app?client_id=…&response_type=code&redirect_uri=…&state=…`; the caller keeps
//!    the state with the pending connection.
//! 2. The provider redirects back with `code` and `state`: [`check_state`], then
//!    [`exchange_code`] posts `grant_type=authorization_code` to the token endpoint with
//!    HTTP Basic `client_id:client_secret` and answers a [`FreeAgentToken`] to store.
//! 3. Access tokens live an hour, refresh tokens about 20 years. [`ensure_fresh`] (called
//!    by [`pull`]) refreshes with `grant_type=refresh_token` when the access token has
//!    expired or expires within a minute, and writes the new access token, the ROTATED
//!    refresh token and the new expiry into the `&mut` token: the caller persists it
//!    after every pull. A refresh answered `invalid_grant` (revoked or expired grant)
//!    is [`ConnectorError::ReconnectRequired`].
//!
//! API calls send `Authorization: Bearer`, `Accept: application/json` and a User-Agent;
//! lists are read with `per_page=100` and the `Link` header's `rel="next"` URL. Money is
//! decimal text in major units, dates `YYYY-MM-DD`; a record's `url` is its provider
//! reference.
//!
//! | data type     | endpoint(s) |
//! |---------------|-------------|
//! | contacts      | `/v2/contacts?view=all`; type from `view=clients` / `view=suppliers` |
//! | products      | `/v2/price_list_items` |
//! | invoices      | `/v2/invoices?view=all&nested_invoice_items=true` |
//! | bills         | `/v2/bills?view=all&nested_bill_items=true` (items may be zero or many) |
//! | expenses      | `/v2/expenses`, category names from `/v2/categories`, projects from `/v2/projects` |
//! | projects      | `/v2/projects?view=all` |
//! | time_entries  | `/v2/timeslips?view=all`, with `/v2/projects` and `/v2/tasks` |
//! | subscriptions | `/v2/recurring_invoices`, each read whole for its items |
//! | credit_notes  | `/v2/credit_notes?view=all&nested_credit_note_items=true` |
//! | payments      | `/v2/bank_transaction_explanations?bank_account=…` for each of `/v2/bank_accounts`, with invoices and bills |
//!
//! What the books keep (docs/import.md#the-books-by-platform): each item's treatment from
//! its `sales_tax_status` and the document's `ec_status`
//! ([`treatment`]); a document's
//! `currency` and `exchange_rate`; an invoice's `paid_on` as the date of what was paid; a
//! credit note's `invoice` as the invoice it credits. What paid an invoice or a bill is
//! its bank transaction explanations (`paid_invoice` / `paid_bill`, `dated_on`,
//! `gross_value`): dated payments, settled as the other connectors' ([`settle`]).

use std::collections::{HashMap, HashSet};

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::{Duration, OffsetDateTime};

use super::http::{Auth, Body, HttpClient, Pull, RetryPolicy};
use super::lines::{fit_document, settle, SourceDoc, SourceLine, SourcePayment};
use super::{
    arr, base_url, date_part, decimal, join, req_arr, s, ConnectorError, ConnectorResult, DataType,
    ImportRow, Platform, Row,
};
use crate::config::PlatformConfig;
use crate::db::decimal::round;
use crate::vat::Treatment;

const P: Platform = Platform::Freeagent;
pub const DEFAULT_AUTHORIZE_URL: &str = "https://api.freeagent.com/v2/approve_app";
pub const DEFAULT_TOKEN_URL: &str = "https://api.freeagent.com/v2/token_endpoint";
/// Refresh when the access token has less than this left.
pub const REFRESH_MARGIN: Duration = Duration::seconds(60);
/// An access token is taken to live at most this long, whatever `expires_in` says
/// (FreeAgent's live an hour): a larger value is clamped, a negative one is 0 (refresh
/// at the next pull), so no answer can overflow the expiry date.
pub const MAX_EXPIRES_IN: i64 = 24 * 60 * 60;
/// When the token answer has no usable `expires_in`.
const DEFAULT_EXPIRES_IN: i64 = 3600;

/// The stored grant. `expires_at` is when the access token stops working. `Debug` shows
/// no token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreeAgentToken {
    pub access_token: String,
    pub refresh_token: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

impl std::fmt::Debug for FreeAgentToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FreeAgentToken")
            .field("access_token", &"<redacted>")
            .field("refresh_token", &"<redacted>")
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

impl FreeAgentToken {
    pub fn needs_refresh(&self, now: OffsetDateTime) -> bool {
        now.checked_add(REFRESH_MARGIN)
            .is_none_or(|soon| soon >= self.expires_at)
    }
}

/// The OAuth client settings, from `platforms.freeagent`. `Debug` shows no secret.
#[derive(Clone)]
pub struct OAuthSettings {
    pub authorize_url: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
}

impl std::fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("authorize_url", &self.authorize_url)
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .finish()
    }
}

impl OAuthSettings {
    pub fn from_config(config: &PlatformConfig) -> ConnectorResult<Self> {
        let need = |v: &Option<String>, key: &str| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| ConnectorError::Credentials {
                    platform: P,
                    message: format!("`platforms.freeagent.{key}` is not configured"),
                })
        };
        Ok(Self {
            authorize_url: config
                .authorize_url
                .clone()
                .unwrap_or_else(|| DEFAULT_AUTHORIZE_URL.to_owned()),
            token_url: config
                .token_url
                .clone()
                .unwrap_or_else(|| DEFAULT_TOKEN_URL.to_owned()),
            client_id: need(&config.client_id, "client_id")?,
            client_secret: need(&config.client_secret, "client_secret")?,
        })
    }
}

/// A fresh random `state` (32 base62 characters).
pub fn new_state() -> String {
    crate::auth::token::random_base62(32)
}

/// The URL to send the user to.
pub fn authorize_url(
    config: &PlatformConfig,
    redirect_uri: &str,
    state: &str,
) -> ConnectorResult<String> {
    let settings = OAuthSettings::from_config(config)?;
    let mut u =
        url::Url::parse(&settings.authorize_url).map_err(|e| ConnectorError::Credentials {
            platform: P,
            message: format!("`authorize_url` is not a URL ({e})"),
        })?;
    u.query_pairs_mut()
        .append_pair("client_id", &settings.client_id)
        .append_pair("response_type", "code")
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("state", state);
    Ok(u.to_string())
}

/// The callback's `state` must be the one the connection started with.
pub fn check_state(expected: &str, received: &str) -> ConnectorResult<()> {
    let (a, b) = (expected.as_bytes(), received.as_bytes());
    // Constant-time comparison: the state is a secret of the pending connection.
    let same = a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0;
    if same && !expected.is_empty() {
        Ok(())
    } else {
        Err(ConnectorError::StateMismatch { platform: P })
    }
}

/// Exchanges the callback's `code` for a token.
pub fn exchange_code(
    config: &PlatformConfig,
    code: &str,
    redirect_uri: &str,
    now: OffsetDateTime,
    retry: &RetryPolicy,
) -> ConnectorResult<FreeAgentToken> {
    let form = vec![
        ("grant_type".to_owned(), "authorization_code".to_owned()),
        ("code".to_owned(), code.to_owned()),
        ("redirect_uri".to_owned(), redirect_uri.to_owned()),
    ];
    let body = token_request(config, form, retry)?;
    let refresh = s(&body, "refresh_token")
        .ok_or_else(|| ConnectorError::bad(P, "token response without `refresh_token`"))?;
    let mut token = FreeAgentToken {
        access_token: String::new(),
        refresh_token: refresh.to_owned(),
        expires_at: now,
    };
    apply_grant(&body, &mut token, now)?;
    Ok(token)
}

/// Refreshes the access token; the token is updated in place (new access token, rotated
/// refresh token, new expiry).
pub fn refresh(
    config: &PlatformConfig,
    token: &mut FreeAgentToken,
    now: OffsetDateTime,
    retry: &RetryPolicy,
) -> ConnectorResult<()> {
    let form = vec![
        ("grant_type".to_owned(), "refresh_token".to_owned()),
        ("refresh_token".to_owned(), token.refresh_token.clone()),
    ];
    let body = token_request(config, form, retry)?;
    // The provider may have rotated the refresh token: keep the new one before reading
    // anything else of the answer, so no later failure can lose it.
    if let Some(rotated) = s(&body, "refresh_token") {
        token.refresh_token = rotated.to_owned();
    }
    apply_grant(&body, token, now)
}

/// Refreshes when the access token has expired or expires within a minute; answers
/// whether it did (then the caller must store the token).
pub fn ensure_fresh(
    config: &PlatformConfig,
    token: &mut FreeAgentToken,
    now: OffsetDateTime,
    retry: &RetryPolicy,
) -> ConnectorResult<bool> {
    if token.needs_refresh(now) {
        refresh(config, token, now, retry)?;
        Ok(true)
    } else {
        Ok(false)
    }
}

fn token_request(
    config: &PlatformConfig,
    form: Vec<(String, String)>,
    retry: &RetryPolicy,
) -> ConnectorResult<Value> {
    let settings = OAuthSettings::from_config(config)?;
    let auth = Auth::Basic {
        user: settings.client_id.clone(),
        password: settings.client_secret.clone(),
    };
    let client = HttpClient::new(P, "", auth, config, &Pull::from(retry));
    let res = client.send_raw("POST", &settings.token_url, Some(&Body::Form(form)))?;
    let body: Value = serde_json::from_str(&res.body).unwrap_or(Value::Null);
    let error = s(&body, "error");
    match res.status {
        200..=299 => Ok(body),
        _ if error == Some("invalid_grant") => {
            Err(ConnectorError::ReconnectRequired { platform: P })
        }
        400 | 401 | 403 => Err(ConnectorError::AuthFailed {
            platform: P,
            status: res.status,
            message: res.error_message(),
        }),
        status => Err(ConnectorError::bad(
            P,
            format!(
                "token endpoint answered HTTP {status}: {}",
                res.error_message()
            ),
        )),
    }
}

/// The access token and its expiry from a token answer, into `token`.
fn apply_grant(
    body: &Value,
    token: &mut FreeAgentToken,
    now: OffsetDateTime,
) -> ConnectorResult<()> {
    let access = s(body, "access_token")
        .ok_or_else(|| ConnectorError::bad(P, "token response without `access_token`"))?;
    let expires_at = now
        .checked_add(Duration::seconds(expires_in(body.get("expires_in"))))
        .ok_or_else(|| ConnectorError::bad(P, "the token's expiry is out of range"))?;
    token.access_token = access.to_owned();
    token.expires_at = expires_at;
    Ok(())
}

/// `expires_in` in seconds, within 0..=[`MAX_EXPIRES_IN`]: any number (an integer of any
/// size, `1e30`, a negative one) or numeric text is clamped; anything else is the default.
pub fn expires_in(v: Option<&Value>) -> i64 {
    let Some(v) = v else {
        return DEFAULT_EXPIRES_IN;
    };
    let Some(n) = super::decimal(v) else {
        // A number beyond a decimal's range (1e30): only its sign matters.
        return match v.as_f64() {
            Some(f) if f < 0.0 => 0,
            Some(f) if f > 0.0 => MAX_EXPIRES_IN,
            _ => DEFAULT_EXPIRES_IN,
        };
    };
    if n.is_sign_negative() {
        0
    } else if n >= Decimal::from(MAX_EXPIRES_IN) {
        MAX_EXPIRES_IN
    } else {
        i64::try_from(n.trunc()).unwrap_or(MAX_EXPIRES_IN)
    }
}

/// Pulls every page of one data type. Refreshes first if needed (and once more if the API
/// answers 401); the caller stores `token` afterwards whatever the outcome. The default
/// [`crate::config::PullLimits`] bound it; [`pull_within`] takes a run's.
pub fn pull(
    data_type: DataType,
    token: &mut FreeAgentToken,
    config: &PlatformConfig,
    now: OffsetDateTime,
    retry: &RetryPolicy,
) -> ConnectorResult<Vec<ImportRow>> {
    pull_within(data_type, token, config, now, &Pull::from(retry))
}

/// [`pull`] within a run's budget.
pub fn pull_within(
    data_type: DataType,
    token: &mut FreeAgentToken,
    config: &PlatformConfig,
    now: OffsetDateTime,
    pull: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let retry = &pull.retry;
    let refreshed = ensure_fresh(config, token, now, retry)?;
    match pull_with(data_type, &token.access_token, config, pull) {
        Err(ConnectorError::AuthFailed { status: 401, .. }) if !refreshed => {
            refresh(config, token, now, retry)?;
            pull_with(data_type, &token.access_token, config, pull)
        }
        other => other,
    }
}

fn pull_with(
    data_type: DataType,
    access_token: &str,
    config: &PlatformConfig,
    pull: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    let client = HttpClient::new(
        P,
        base_url(P, config)?,
        Auth::Bearer(access_token.to_owned()),
        config,
        pull,
    );
    let api = Api { client };
    match data_type {
        DataType::Contacts => api.contacts(),
        DataType::Products => api.products(),
        DataType::Invoices => api.invoices(),
        DataType::Bills => api.bills(),
        DataType::Expenses => api.expenses(),
        DataType::Projects => api.projects(),
        DataType::TimeEntries => api.time_entries(),
        DataType::Subscriptions => api.subscriptions(),
        DataType::CreditNotes => api.credit_notes(),
        DataType::Payments => api.payments(),
        other @ DataType::SupplierCredits => Err(ConnectorError::Unsupported {
            platform: P,
            data_type: other,
        }),
    }
}

struct Api {
    client: HttpClient,
}

/// A bank transaction explanation that paid a document, with its account's currency.
struct Explained {
    currency: Option<String>,
    payment: SourcePayment,
}

fn dec(v: &Value, key: &str) -> Option<Decimal> {
    v.get(key).and_then(decimal)
}

fn contact_name(c: &Value) -> Option<String> {
    s(c, "organisation_name")
        .map(str::to_owned)
        .or_else(|| join([s(c, "first_name"), s(c, "last_name")], " "))
        .or_else(|| s(c, "email").map(str::to_owned))
}

/// A URL-valued reference → the path of it, so it is read from the configured origin.
fn path_of(u: &str) -> String {
    url::Url::parse(u)
        .map(|p| p.path().to_owned())
        .unwrap_or_else(|_| u.to_owned())
}

impl Api {
    /// Every record of a list, `Link` rel="next" verbatim; read once per run and shared
    /// by the types that need it (contacts' and projects' names).
    fn list(&self, first: &str, key: &str) -> ConnectorResult<Vec<Value>> {
        self.client
            .once_per_run(first, || self.read_list(first, key))
    }

    fn read_list(&self, first: &str, key: &str) -> ConnectorResult<Vec<Value>> {
        let mut out = Vec::new();
        let mut seen = super::SeenIds::default();
        let mut next = Some(self.client.url(first));
        let mut guard = super::PageGuard::new(P);
        while let Some(url) = next {
            guard.visit(&url)?;
            let (page, res) = self.client.get_json(&url)?;
            let items = req_arr(P, &page, key)?;
            self.client.records(items.len())?;
            seen.extend(&mut out, items);
            next = res.link_next();
            if let Some(n) = &next {
                self.client.check_same_origin(n)?;
            }
        }
        Ok(out)
    }

    fn url_set(&self, first: &str, key: &str) -> ConnectorResult<HashSet<String>> {
        Ok(self
            .list(first, key)?
            .iter()
            .filter_map(|c| s(c, "url").map(str::to_owned))
            .collect())
    }

    fn contact_names(&self) -> ConnectorResult<HashMap<String, String>> {
        Ok(self
            .list("/v2/contacts?view=all&per_page=100", "contacts")?
            .iter()
            .filter_map(|c| Some((s(c, "url")?.to_owned(), contact_name(c)?)))
            .collect())
    }

    /// Names for the contacts of records that do not carry `contact_name`.
    fn names_if_needed(&self, records: &[Value]) -> ConnectorResult<HashMap<String, String>> {
        if records
            .iter()
            .all(|r| s(r, "contact_name").is_some() || s(r, "contact").is_none())
        {
            Ok(HashMap::new())
        } else {
            self.contact_names()
        }
    }

    fn project_names(&self) -> ConnectorResult<HashMap<String, String>> {
        Ok(self
            .list("/v2/projects?view=all&per_page=100", "projects")?
            .iter()
            .filter_map(|p| Some((s(p, "url")?.to_owned(), s(p, "name")?.to_owned())))
            .collect())
    }

    fn contacts(&self) -> ConnectorResult<Vec<ImportRow>> {
        let all = self.list("/v2/contacts?view=all&per_page=100", "contacts")?;
        let clients = self.url_set("/v2/contacts?view=clients&per_page=100", "contacts")?;
        let suppliers = self.url_set("/v2/contacts?view=suppliers&per_page=100", "contacts")?;
        Ok(all
            .iter()
            .map(|c| {
                let url = s(c, "url").unwrap_or_default();
                let kind = match (clients.contains(url), suppliers.contains(url)) {
                    (true, true) => "both",
                    (false, true) => "supplier",
                    _ => "customer",
                };
                Row::new()
                    .set("name", contact_name(c))
                    .set("type", Some(kind.to_owned()))
                    .text("email", s(c, "email").or(s(c, "billing_email")))
                    .text("phone", s(c, "phone_number").or(s(c, "mobile")))
                    .set(
                        "address",
                        join(
                            [
                                "address1", "address2", "address3", "town", "region", "postcode",
                                "country",
                            ]
                            .map(|k| s(c, k)),
                            ", ",
                        ),
                    )
                    .text("vat_number", s(c, "sales_tax_registration_number"))
                    .text("provider_ref", s(c, "url"))
                    .build()
            })
            .collect())
    }

    fn products(&self) -> ConnectorResult<Vec<ImportRow>> {
        Ok(self
            .list("/v2/price_list_items?per_page=100", "price_list_items")?
            .iter()
            .map(|p| {
                Row::new()
                    .text("name", s(p, "description").or(s(p, "code")))
                    .text("sku", s(p, "code"))
                    .text("description", s(p, "description"))
                    .dec("unit_price", dec(p, "price"))
                    .dec("vat_rate", dec(p, "sales_tax_rate"))
                    .text("unit", s(p, "item_type"))
                    .text("provider_ref", s(p, "url"))
                    .build()
            })
            .collect())
    }

    fn invoices(&self) -> ConnectorResult<Vec<ImportRow>> {
        Ok(self.invoice_docs()?.0)
    }

    fn bills(&self) -> ConnectorResult<Vec<ImportRow>> {
        Ok(self.bill_docs()?.0)
    }

    /// The dated payments of invoices and bills paid on several days
    /// (docs/import.md#connectors).
    fn payments(&self) -> ConnectorResult<Vec<ImportRow>> {
        let (_, invoices) = self.invoice_docs()?;
        let (_, bills) = self.bill_docs()?;
        Ok(invoices
            .iter()
            .chain(&bills)
            .map(SourcePayment::row)
            .collect())
    }

    /// What paid each invoice and bill, by its URL: the explanations of every bank
    /// account that name it in `paid_invoice` or `paid_bill`, with the account's currency.
    /// Read once per run (the lists are shared by invoices, bills and payments).
    fn explanations(&self) -> ConnectorResult<HashMap<String, Vec<Explained>>> {
        // A user below FreeAgent's Banking access level is refused the bank accounts: the
        // documents then keep FreeAgent's `paid_value`.
        let accounts = match self.list("/v2/bank_accounts?per_page=100", "bank_accounts") {
            Err(ConnectorError::AuthFailed { status: 403, .. }) => return Ok(HashMap::new()),
            other => other?,
        };
        let mut out: HashMap<String, Vec<Explained>> = HashMap::new();
        for account in &accounts {
            let Some(account_url) = s(account, "url") else {
                continue;
            };
            let currency = s(account, "currency").map(str::to_ascii_uppercase);
            let first = format!(
                "/v2/bank_transaction_explanations?bank_account={}&per_page=100",
                url::form_urlencoded::byte_serialize(account_url.as_bytes()).collect::<String>()
            );
            // An account whose explanations FreeAgent cannot give (404, 410, 422): no
            // document takes its payments from explanations, and each keeps `paid_value`
            // and `paid_on`, as for a user refused the bank accounts; a document paid
            // through two accounts must not be settled by half its explanations.
            let Ok(listed) = super::per_record(self.list(&first, "bank_transaction_explanations"))?
            else {
                return Ok(HashMap::new());
            };
            for e in listed {
                let (document_type, document, sign) =
                    match (s(&e, "paid_invoice"), s(&e, "paid_bill")) {
                        (Some(invoice), _) => ("invoice", invoice, Decimal::ONE),
                        (None, Some(bill)) => ("bill", bill, Decimal::NEGATIVE_ONE),
                        (None, None) => continue,
                    };
                let payment = SourcePayment {
                    document_type,
                    document_ref: Some(document.to_owned()),
                    date: date_part(s(&e, "dated_on")),
                    amount: dec(&e, "gross_value").unwrap_or_default() * sign,
                    method: s(&e, "type").map(str::to_owned),
                    reference: s(&e, "description").map(str::to_owned),
                    provider_ref: s(&e, "url").map(str::to_owned),
                    ..SourcePayment::default()
                };
                out.entry(document.to_owned()).or_default().push(Explained {
                    currency: currency.clone(),
                    payment,
                });
            }
        }
        Ok(out)
    }

    /// Settles a document with its explanations when they can be its payments: every one
    /// a dated receipt (a payment of a bill), in the document's currency. Otherwise (a
    /// refund, a payment from an account in another currency) the document keeps
    /// FreeAgent's `paid_value`, dated `paid_on`. Answers the payment rows.
    fn settle_explained(
        doc: &mut SourceDoc,
        record: &Value,
        explained: &HashMap<String, Vec<Explained>>,
    ) -> Vec<SourcePayment> {
        let Some(found) = doc.provider_ref.as_ref().and_then(|u| explained.get(u)) else {
            return Vec::new();
        };
        let currency = s(record, "currency").map_or_else(|| "GBP".to_owned(), upper);
        let usable = found.iter().all(|e| {
            e.payment.amount > Decimal::ZERO
                && e.payment.date.is_some()
                && e.currency.as_deref().unwrap_or("GBP") == currency
        });
        if !usable {
            return Vec::new();
        }
        settle(doc, found.iter().map(|e| e.payment.clone()).collect())
    }

    /// Invoice rows and the payments of those paid on several days.
    fn invoice_docs(&self) -> ConnectorResult<(Vec<ImportRow>, Vec<SourcePayment>)> {
        let explained = self.explanations()?;
        let invoices = self.list(
            "/v2/invoices?view=all&nested_invoice_items=true&per_page=100",
            "invoices",
        )?;
        let names = self.names_if_needed(&invoices)?;
        let mut rows = Vec::new();
        let mut payments = Vec::new();
        for inv in &invoices {
            let discount = dec(inv, "discount_percent").unwrap_or_default();
            let items = arr(inv, "invoice_items");
            let lines = items.iter().map(|it| item_line(it, discount)).collect();
            let status = match s(inv, "status") {
                Some("Draft" | "Scheduled To Email") => "draft",
                Some("Paid" | "Overpaid" | "Part written-off" | "Zero Value") => "paid",
                Some("Refunded" | "Written-off") => "void",
                _ => "sent",
            };
            let mut source = SourceDoc {
                number: s(inv, "reference").map(str::to_owned),
                contact_name: s(inv, "contact_name")
                    .map(str::to_owned)
                    .or_else(|| s(inv, "contact").and_then(|c| names.get(c).cloned())),
                issue_date: dated(inv),
                due_date: due(inv),
                status: Some(status.to_owned()),
                total: dec(inv, "total_value")
                    .ok_or_else(|| ConnectorError::bad(P, "invoice without `total_value`"))?,
                amount_paid: dec(inv, "paid_value"),
                paid_date: date_part(s(inv, "paid_on")),
                provider_ref: s(inv, "url").map(str::to_owned),
                lines,
                ..SourceDoc::default()
            };
            payments.extend(Self::settle_explained(&mut source, inv, &explained));
            let mut doc = fit_document(&source);
            keep_books(&mut doc, inv, items, false);
            rows.extend(doc);
        }
        Ok((rows, payments))
    }

    /// Bill rows and the payments of those paid on several days.
    fn bill_docs(&self) -> ConnectorResult<(Vec<ImportRow>, Vec<SourcePayment>)> {
        let explained = self.explanations()?;
        let bills = self.list(
            "/v2/bills?view=all&nested_bill_items=true&per_page=100",
            "bills",
        )?;
        let names = self.names_if_needed(&bills)?;
        let mut rows = Vec::new();
        let mut payments = Vec::new();
        for bill in &bills {
            let listed = arr(bill, "bill_items");
            // The single-item schema of integrations older than May 2021.
            let items: &[Value] = if listed.is_empty() && bill.get("bill_items").is_none() {
                std::slice::from_ref(bill)
            } else {
                listed
            };
            let lines: Vec<SourceLine> = items.iter().map(bill_line).collect();
            let status = match s(bill, "status") {
                Some("Paid" | "Zero Value") => "paid",
                Some("Refunded") => "void",
                Some("Draft") => "draft",
                _ => "awaiting_payment",
            };
            let total = dec(bill, "total_value")
                .ok_or_else(|| ConnectorError::bad(P, "bill without `total_value`"))?;
            let paid = dec(bill, "paid_value")
                .or_else(|| dec(bill, "due_value").map(|due| (total - due).max(Decimal::ZERO)));
            let mut source = SourceDoc {
                number: s(bill, "reference").map(str::to_owned),
                contact_name: s(bill, "contact_name")
                    .map(str::to_owned)
                    .or_else(|| s(bill, "contact").and_then(|c| names.get(c).cloned())),
                issue_date: dated(bill),
                due_date: due(bill),
                status: Some(status.to_owned()),
                total,
                amount_paid: paid,
                paid_date: date_part(s(bill, "paid_on")),
                provider_ref: s(bill, "url").map(str::to_owned),
                lines,
                ..SourceDoc::default()
            };
            payments.extend(Self::settle_explained(&mut source, bill, &explained));
            let mut doc = fit_document(&source);
            keep_books(&mut doc, bill, items, true);
            rows.extend(doc);
        }
        Ok((rows, payments))
    }

    /// Credit notes, read as invoices are; FreeAgent may write their amounts negative, so
    /// they are read as their size. `invoice` names the invoice credited (its URL, the
    /// invoice's provider reference). Every status but `Draft` is posted.
    fn credit_notes(&self) -> ConnectorResult<Vec<ImportRow>> {
        let notes = self.list(
            "/v2/credit_notes?view=all&nested_credit_note_items=true&per_page=100",
            "credit_notes",
        )?;
        let names = self.names_if_needed(&notes)?;
        let mut rows = Vec::new();
        for note in &notes {
            let discount = dec(note, "discount_percent").unwrap_or_default();
            let items = arr(note, "credit_note_items");
            let lines = items
                .iter()
                .map(|it| {
                    let mut l = item_line(it, discount);
                    l.quantity = l.quantity.abs();
                    l.unit_price = l.unit_price.map(|p| p.abs());
                    l.net = l.net.abs();
                    l.vat = l.vat.abs();
                    l
                })
                .collect();
            let status = match s(note, "status") {
                Some("Draft") => "draft",
                _ => "posted",
            };
            let mut doc = fit_document(&SourceDoc {
                number: s(note, "reference").map(str::to_owned),
                contact_name: s(note, "contact_name")
                    .map(str::to_owned)
                    .or_else(|| s(note, "contact").and_then(|c| names.get(c).cloned())),
                issue_date: dated(note),
                due_date: due(note),
                status: Some(status.to_owned()),
                total: dec(note, "total_value")
                    .map(|v| v.abs())
                    .ok_or_else(|| ConnectorError::bad(P, "credit note without `total_value`"))?,
                amount_paid: None,
                provider_ref: s(note, "url").map(str::to_owned),
                lines,
                ..SourceDoc::default()
            });
            keep_books(&mut doc, note, items, false);
            if let Some(invoice) = s(note, "invoice") {
                for row in &mut doc {
                    row.insert("original_ref".to_owned(), invoice.to_owned());
                }
            }
            rows.extend(doc);
        }
        Ok(rows)
    }

    fn expenses(&self) -> ConnectorResult<Vec<ImportRow>> {
        let expenses = self.list("/v2/expenses?per_page=100", "expenses")?;
        if expenses.is_empty() {
            return Ok(Vec::new());
        }
        let (categories, _) = self.client.get_json(&self.client.url("/v2/categories"))?;
        let mut category_names = HashMap::new();
        if let Some(groups) = categories.as_object() {
            for list in groups.values().filter_map(Value::as_array) {
                for c in list {
                    if let (Some(u), Some(d)) = (s(c, "url"), s(c, "description")) {
                        category_names.insert(u.to_owned(), d.to_owned());
                    }
                }
            }
        }
        let projects = if expenses.iter().any(|e| s(e, "project").is_some()) {
            self.project_names()?
        } else {
            HashMap::new()
        };
        Ok(expenses
            .iter()
            .map(|e| {
                Row::new()
                    .set("date", date_part(s(e, "dated_on")))
                    .text("description", s(e, "description"))
                    .dec("amount", dec(e, "gross_value").map(|v| v.abs()))
                    .dec("vat_amount", dec(e, "sales_tax_value").map(|v| v.abs()))
                    .set(
                        "category",
                        s(e, "category").and_then(|c| category_names.get(c).cloned()),
                    )
                    .set(
                        "project_name",
                        s(e, "project").and_then(|p| projects.get(p).cloned()),
                    )
                    .text("provider_ref", s(e, "url"))
                    .build()
            })
            .collect())
    }

    fn projects(&self) -> ConnectorResult<Vec<ImportRow>> {
        let projects = self.list("/v2/projects?view=all&per_page=100", "projects")?;
        let names = self.names_if_needed(&projects)?;
        Ok(projects
            .iter()
            .map(|p| {
                let status = match s(p, "status") {
                    Some("Completed") => "completed",
                    Some("Cancelled" | "Hidden") => "archived",
                    _ => "active",
                };
                Row::new()
                    .text("name", s(p, "name"))
                    .set(
                        "contact_name",
                        s(p, "contact_name")
                            .map(str::to_owned)
                            .or_else(|| s(p, "contact").and_then(|c| names.get(c).cloned())),
                    )
                    .set("status", Some(status.to_owned()))
                    .dec(
                        "hourly_rate",
                        hourly(p, "normal_billing_rate", dec(p, "hours_per_day")),
                    )
                    .dec(
                        "budget",
                        (s(p, "budget_units") == Some("Monetary"))
                            .then(|| dec(p, "budget"))
                            .flatten(),
                    )
                    .build()
            })
            .collect())
    }

    fn time_entries(&self) -> ConnectorResult<Vec<ImportRow>> {
        let slips = self.list("/v2/timeslips?view=all&per_page=100", "timeslips")?;
        if slips.is_empty() {
            return Ok(Vec::new());
        }
        let projects = self.list("/v2/projects?view=all&per_page=100", "projects")?;
        let project_names: HashMap<&str, &str> = projects
            .iter()
            .filter_map(|p| Some((s(p, "url")?, s(p, "name")?)))
            .collect();
        let hours_per_day: HashMap<&str, Decimal> = projects
            .iter()
            .filter_map(|p| Some((s(p, "url")?, dec(p, "hours_per_day")?)))
            .collect();
        let tasks = self.list("/v2/tasks?per_page=100", "tasks")?;
        let tasks: HashMap<&str, &Value> = tasks
            .iter()
            .filter_map(|t| Some((s(t, "url")?, t)))
            .collect();
        Ok(slips
            .iter()
            .map(|t| {
                let project = s(t, "project");
                let task = s(t, "task").and_then(|u| tasks.get(u).copied());
                let billable = task
                    .and_then(|k| k.get("is_billable"))
                    .and_then(|b| b.as_bool().or_else(|| b.as_str().map(|s| s == "true")));
                let hpd = project.and_then(|p| hours_per_day.get(p).copied());
                Row::new()
                    .text(
                        "project_name",
                        project.and_then(|p| project_names.get(p).copied()),
                    )
                    .set("date", date_part(s(t, "dated_on")))
                    .dec("hours", dec(t, "hours"))
                    .text(
                        "description",
                        s(t, "comment").or(task.and_then(|k| s(k, "name"))),
                    )
                    .set("billable", billable.map(|b| b.to_string()))
                    .dec(
                        "hourly_rate",
                        task.and_then(|k| hourly(k, "billing_rate", hpd)),
                    )
                    .build()
            })
            .collect())
    }

    fn subscriptions(&self) -> ConnectorResult<Vec<ImportRow>> {
        let listed = self.list("/v2/recurring_invoices?per_page=100", "recurring_invoices")?;
        let names = self.names_if_needed(&listed)?;
        let mut rows = Vec::new();
        for ri in &listed {
            let url = s(ri, "url")
                .ok_or_else(|| ConnectorError::bad(P, "recurring invoice without url"))?;
            let one =
                match super::per_record(self.client.get_json(&self.client.url(&path_of(url))))? {
                    Ok((one, _)) => one,
                    // FreeAgent cannot give the recurring invoice it lists: a row error, and
                    // the rest of the pull imports (docs/import.md#row-errors).
                    Err(said) => {
                        let what =
                            format!("recurring invoice {}", s(ri, "reference").unwrap_or(url));
                        rows.push(
                            Row::new()
                                .set("contact_name", s(ri, "contact_name").map(str::to_owned))
                                .text("provider_ref", Some(url))
                                .set(super::ROW_ERROR, Some(super::unfinished(P, &what, &said)))
                                .build(),
                        );
                        continue;
                    }
                };
            let full = one.get("recurring_invoice").unwrap_or(&one);
            let items = if full.get("recurring_invoice_items").is_some() {
                arr(full, "recurring_invoice_items")
            } else {
                arr(full, "invoice_items")
            };
            let (interval, count) = frequency(s(ri, "frequency"));
            let status = match s(ri, "recurring_status") {
                Some("Active") => "active",
                Some("Draft") => "paused",
                _ => "cancelled",
            };
            let contact = s(ri, "contact_name")
                .map(str::to_owned)
                .or_else(|| s(ri, "contact").and_then(|c| names.get(c).cloned()));
            let base = || {
                let mut r = Row::new();
                r.set("contact_name", contact.clone())
                    .set("interval", Some(interval.to_owned()))
                    .set("interval_count", Some(count.to_string()))
                    .set("next_date", date_part(s(ri, "next_recurs_on")))
                    .set("status", Some(status.to_owned()))
                    .text("provider_ref", Some(url));
                r
            };
            if items.is_empty() {
                rows.push(
                    base()
                        .set(
                            "line_description",
                            Some(s(ri, "reference").map_or_else(
                                || "Recurring invoice".to_owned(),
                                |r| format!("Invoice {r}"),
                            )),
                        )
                        .set("line_quantity", Some("1".to_owned()))
                        .dec("line_unit_price", dec(ri, "net_value"))
                        .build(),
                );
            }
            for it in items {
                rows.push(
                    base()
                        .text("line_description", s(it, "description").or(Some("Item")))
                        .dec("line_quantity", dec(it, "quantity").or(Some(Decimal::ONE)))
                        .dec("line_unit_price", dec(it, "price"))
                        .build(),
                );
            }
        }
        Ok(rows)
    }
}

/// The day a document is dated: `dated_on`, else the day FreeAgent created it
/// (`created_at`, docs/import.md#connectors).
fn dated(doc: &Value) -> Option<String> {
    date_part(s(doc, "dated_on")).or_else(|| date_part(s(doc, "created_at")))
}

/// When a document is due: `due_on`, else `payment_terms_in_days` after its date
/// (docs/import.md#connectors).
fn due(doc: &Value) -> Option<String> {
    if let Some(d) = date_part(s(doc, "due_on")) {
        return Some(d);
    }
    let days = doc.get("payment_terms_in_days").and_then(decimal)?;
    let days = rust_decimal::prelude::ToPrimitive::to_i64(&days.trunc())?;
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    let on = time::Date::parse(&dated(doc)?, &fmt).ok()?;
    Some(super::iso_date(on.checked_add(Duration::days(days))?))
}

/// The treatment of a FreeAgent line, from its `sales_tax_status` (`TAXABLE`, `EXEMPT`,
/// `OUT_OF_SCOPE`), the document's `ec_status` (`UK/Non-EC`, `EC Goods`, `EC Services`,
/// `Reverse Charge`) and the line's rate. It is FreeAgent's tax table, kept here rather
/// than in `src/import/tax_codes.rs` because the connectors do not import `src/import/`. A sale to the EC at 0 % is zero-rated for goods
/// and outside the scope for services; a purchase under the reverse charge (`Reverse
/// Charge`, or `EC Services`/`EC Goods` with a rate) is `reverse_charge`. A taxable line
/// otherwise follows its rate. `None` when FreeAgent says nothing (the rate decides).
pub fn treatment(
    sales_tax_status: Option<&str>,
    ec_status: Option<&str>,
    rate: Option<Decimal>,
    purchase: bool,
) -> Option<Treatment> {
    use Treatment as T;
    let zero_rate = rate.is_none_or(|r| r.is_zero());
    match sales_tax_status.map(upper).as_deref() {
        Some("EXEMPT") => return Some(T::Exempt),
        Some("OUT_OF_SCOPE") => return Some(T::OutsideScope),
        _ => {}
    }
    match ec_status.map(upper).as_deref() {
        Some("REVERSE CHARGE") if purchase => Some(T::ReverseCharge),
        Some("EC GOODS" | "EC SERVICES") if purchase && !zero_rate => Some(T::ReverseCharge),
        Some("EC GOODS") if zero_rate => Some(T::Zero),
        Some("EC SERVICES" | "REVERSE CHARGE") if zero_rate => Some(T::OutsideScope),
        _ => match sales_tax_status.map(upper).as_deref() {
            Some("TAXABLE") if zero_rate => Some(T::Zero),
            _ => None,
        },
    }
}

fn upper(s: &str) -> String {
    s.trim().to_ascii_uppercase()
}

/// What a document's rows keep of the books (the fitted rows of the document, one per
/// item, then any adjustment line): each item's treatment, the currency and rate (the
/// paid date is the document's, set before fitting). A reverse-charge line keeps the item's rate: its VAT is self-accounted,
/// outside the total the rows were fitted to. The adjustment line only matches
/// FreeAgent's total, so it is outside the scope of VAT.
fn keep_books(rows: &mut [ImportRow], doc: &Value, items: &[Value], purchase: bool) {
    let ec = s(doc, "ec_status");
    let currency = s(doc, "currency").map(str::to_ascii_uppercase);
    let foreign = currency.as_deref().is_some_and(|c| c != "GBP");
    let rate = dec(doc, "exchange_rate").filter(|_| foreign);
    for (i, row) in rows.iter_mut().enumerate() {
        let mut set = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                row.insert(k.to_owned(), v);
            }
        };
        set("currency", currency.clone());
        set("exchange_rate", rate.map(super::dec_text));
        let treatment = match items.get(i) {
            Some(it) => {
                let item_rate = dec(it, "sales_tax_rate");
                let t = treatment(s(it, "sales_tax_status"), ec, item_rate, purchase);
                if t == Some(Treatment::ReverseCharge) {
                    set("line_vat_rate", item_rate.map(super::dec_text));
                }
                t
            }
            None => Some(Treatment::OutsideScope),
        };
        set(
            "line_vat_treatment",
            treatment.map(|t| t.as_str().to_owned()),
        );
    }
}

/// An hourly rate from a rate and its `billing_period` (`hour` or `day`).
fn hourly(v: &Value, key: &str, hours_per_day: Option<Decimal>) -> Option<Decimal> {
    let rate = dec(v, key)?;
    match s(v, "billing_period") {
        Some("day") => {
            let h = hours_per_day.filter(|h| !h.is_zero())?;
            Some(round(rate / h, 2))
        }
        _ => Some(rate),
    }
}

fn frequency(f: Option<&str>) -> (&'static str, u32) {
    match f {
        Some("Weekly") => ("week", 1),
        Some("Two Weekly") => ("week", 2),
        Some("Four Weekly") => ("week", 4),
        Some("Two Monthly") => ("month", 2),
        Some("Quarterly") => ("month", 3),
        Some("Biannually") => ("month", 6),
        Some("Annually") => ("year", 1),
        Some("2-Yearly") => ("year", 2),
        _ => ("month", 1),
    }
}

/// An invoice item: FreeAgent's net is quantity × price less the invoice's discount
/// percentage, VAT at `sales_tax_rate` (or its `sales_tax_value` when given).
fn item_line(it: &Value, discount_percent: Decimal) -> SourceLine {
    let qty = dec(it, "quantity").unwrap_or(Decimal::ZERO);
    let price = dec(it, "price").unwrap_or(Decimal::ZERO);
    let hundred = Decimal::ONE_HUNDRED;
    let net = round(qty * price * (Decimal::ONE - discount_percent / hundred), 2);
    let rate = dec(it, "sales_tax_rate");
    let vat = dec(it, "sales_tax_value").unwrap_or_else(|| {
        rate.map(|r| round(net * r / hundred, 2))
            .unwrap_or_default()
    });
    SourceLine {
        description: s(it, "description").unwrap_or("Item").to_owned(),
        quantity: qty,
        unit_price: Some(price),
        net,
        vat,
        vat_rate: rate,
        sku: None,
        ..SourceLine::default()
    }
}

/// A bill item (or a pre-2021 single-item bill): `total_value` includes VAT,
/// `total_value_ex_tax` excludes it.
fn bill_line(it: &Value) -> SourceLine {
    let hundred = Decimal::ONE_HUNDRED;
    let rate = dec(it, "sales_tax_rate");
    let gross = dec(it, "total_value").unwrap_or_default();
    let net = dec(it, "total_value_ex_tax")
        .or_else(|| dec(it, "net_value"))
        .or_else(|| dec(it, "sales_tax_value").map(|v| gross - v))
        .unwrap_or_else(|| match rate {
            Some(r) => round(gross / (Decimal::ONE + r / hundred), 2),
            None => gross,
        });
    let qty = dec(it, "quantity")
        .filter(|q| !q.is_zero())
        .unwrap_or(Decimal::ONE);
    SourceLine {
        description: s(it, "description").unwrap_or("Bill").to_owned(),
        quantity: qty,
        unit_price: None,
        net,
        vat: gross - net,
        vat_rate: rate,
        sku: None,
        ..SourceLine::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Treatment as T;

    #[test]
    fn sales_tax_status_and_ec_status_give_the_treatment() {
        let d = |s: &str| s.parse::<Decimal>().ok();
        let fa = |status, ec, rate: &str, purchase| treatment(status, ec, d(rate), purchase);
        assert_eq!(fa(Some("EXEMPT"), None, "0", false), Some(T::Exempt));
        assert_eq!(
            fa(Some("OUT_OF_SCOPE"), None, "0", true),
            Some(T::OutsideScope)
        );
        assert_eq!(
            fa(Some("TAXABLE"), Some("UK/Non-EC"), "0", false),
            Some(T::Zero)
        );
        assert_eq!(fa(Some("TAXABLE"), Some("UK/Non-EC"), "20", false), None);
        assert_eq!(fa(None, Some("EC Goods"), "0", false), Some(T::Zero));
        assert_eq!(
            fa(None, Some("EC Services"), "0", false),
            Some(T::OutsideScope)
        );
        assert_eq!(
            fa(None, Some("Reverse Charge"), "20", true),
            Some(T::ReverseCharge)
        );
        assert_eq!(
            fa(None, Some("EC Services"), "20", true),
            Some(T::ReverseCharge)
        );
    }
}
