//! Connectors: clients that pull records from the six API platforms and from FreeAgent
//! over OAuth (docs/import.md#connectors, docs/import.md#oauth), and turn them into import rows.
//!
//! A connector knows a platform's authentication, pagination, money units and field
//! names; it knows nothing of the database. For a (platform, data type) it returns
//! `Vec<ImportRow>`: one map per row, keyed by the import field names (docs/import.md#fields) of
//! that data type, exactly as a mapped CSV row would be. The importer validates, dedups
//! and stores them.
//!
//! # The row contract
//!
//! - Keys are the import field names (docs/import.md#fields) of the data type; a key is left out
//!   when the platform has no value for it (never an empty string).
//! - Decimals are plain decimal text in MAJOR units, trailing zeros removed (`"1234.56"`,
//!   `"10"`, `"-0.5"`): minor units (Stripe, Square, GoCardless) are converted exactly
//!   with `rust_decimal` using the currency's exponent (2 for GBP; 0 for JPY and the
//!   other zero-decimal currencies, 3 for BHD/JOD/KWD/OMR/TND). No `f64` anywhere.
//! - Dates are `YYYY-MM-DD`. Unix timestamps (Stripe) are read as UTC dates; RFC 3339
//!   timestamps keep the date as the platform wrote it (the shop's local date).
//! - Invoices and bills are one row PER LINE with the document fields (`number`,
//!   `contact_name`, `issue_date`, `due_date`, `status`, `total`, `amount_paid`,
//!   `provider_ref`) repeated on each row. Every line carries `line_quantity`,
//!   `line_unit_price`, `line_discount` and `line_vat_rate` explicitly (`"0"` when the
//!   source has none, so no importer default of 20 % creeps in).
//! - `total` is always the source's own document total. Lines are expressed so that the
//!   importer's rule (net = round(qty × unit_price × (1 − discount/100), 2), VAT =
//!   round(net × rate/100, 2), total = Σ net + VAT) reproduces that total: see
//!   [`lines::fit_document`]. When a platform sends VAT-inclusive prices (Shopify
//!   `taxes_included`, Stripe `tax_behavior=inclusive`, Square `INCLUSIVE` taxes) the
//!   line's unit price is the VAT-exclusive price and the rate is the platform's nominal
//!   rate whenever that reproduces the platform's own VAT amount; when rounding makes the
//!   nominal rate miss by a penny the nearest 2-dp rate that gives the platform's exact
//!   VAT is used (so net, VAT and total all equal the source), and only if no rate can
//!   a final "Rounding adjustment" line (quantity 1, VAT 0) makes up the difference.
//!   Shipping, fees, service charges and tips become lines of their own.
//! - Invoice `status` is `draft | sent | paid | void`; bill `status` is
//!   `draft | awaiting_payment | paid | void`; subscription `status` is
//!   `active | paused | cancelled` and `interval` is `week | month | year` (a cadence in
//!   days that is not whole weeks is passed through as `day`, for the importer to refuse
//!   that row with a message). Contact `type` is `customer | supplier | both`.
//! - Subscriptions are one row per line too, the template fields repeated and
//!   `provider_ref` (the subscription id) shared: the importer groups them by it.
//! - `provider_ref` is the platform's own id of the record (FreeAgent: its `url`). For
//!   documents without a number on the platform (Square orders) the order id is used as
//!   `number`, so documents never merge when grouped by number; Stripe drafts have no
//!   number and keep none (the fallback of docs/import.md#dedup). The importer should group API
//!   rows of one document by `provider_ref`.
//!
//! # Support matrix
//!
//! | platform    | contacts  | products            | invoices          | bills | expenses | projects | time_entries | subscriptions |
//! |-------------|-----------|---------------------|-------------------|-------|----------|----------|--------------|---------------|
//! | stripe      | customers | products + default price | invoices     | no    | no       | no       | no           | subscriptions (one row per item) |
//! | shopify     | customers | product variants    | orders            | no    | no       | no       | no           | subscription contracts (1) |
//! | square      | customers | catalog item variations | invoices + orders (2) | no    | no       | no       | no           | subscriptions + plan variations |
//! | paypal      | no (3)    | catalog products (no price) | invoices  | no    | no       | no       | no           | no (4)        |
//! | gocardless  | customers | no                  | no                | no    | no       | no       | no           | subscriptions |
//! | woocommerce | customers | products + variations | orders          | no    | no       | no       | no           | subscriptions (5) |
//! | freeagent   | contacts  | price list items    | invoices          | bills | expenses | projects | timeslips    | recurring invoices |
//!
//! The types of issue 24 (docs/import.md#data-types), one row per platform
//! (docs/import.md#connectors says what each keeps):
//!
//! | platform    | credit_notes | supplier_credits | payments |
//! |-------------|--------------|------------------|----------|
//! | stripe      | credit notes; refunds no credit note names (6) | no | refunds on credit notes (7) |
//! | shopify     | order refunds | no | refunds; orders paid on several days (7) |
//! | square      | order refunds | no | refunds; orders paid on several days (7) |
//! | paypal      | invoice refunds | no | refunds; invoices paid on several days (7) |
//! | gocardless  | no           | no               | no       |
//! | woocommerce | order refunds | no | refunds (7) |
//! | freeagent   | yes          | no               | no       |
//!
//! GoCardless has no documents for its payments to pay (notes 6 and 7 below).
//!
//! 1. Shopify subscription contracts exist only in the GraphQL Admin API
//!    (`subscriptionContracts`), and Shopify shows an app the contracts it owns
//!    (`read_own_subscription_contracts`): a token of the shop's own custom app lists the
//!    contracts that app made, not those of a third-party subscriptions app.
//! 2. Square invoices carry no line items (they live on the order): each invoice of
//!    `GET /v2/invoices` takes its order's lines; the orders of no invoice are imported as
//!    invoices of their own, numbered by `reference_id` or id.
//! 3. PayPal has no customer directory.
//! 4. PayPal has no list-subscriptions endpoint (subscriptions are fetched by id only).
//! 5. WooCommerce subscriptions need the WooCommerce Subscriptions extension; a site
//!    without it answers 404 and the pull fails with [`ConnectorError::NotAvailable`].
//! 6. Stripe's own credit notes (`void` ones stay void), and each succeeded refund of a
//!    paid invoice's payment that no credit note names, numbered `<invoice number>-R<n>`.
//! 7. A refund is a payment on its credit note, dated when the platform made it, and its
//!    credit note is then unlinked (a linked credit is applied to what its invoice owes);
//!    an invoice's payments are rows only when they fall on several days, else they are
//!    its `amount_paid` and `paid_date` ([`lines::settle`]). See docs/import.md#connectors.
//! 8. FreeAgent's bank transaction explanations that name an invoice (`paid_invoice`) or
//!    a bill (`paid_bill`), settled as in note 7; a document whose explanations include
//!    a refund or an account in another currency keeps `paid_value`.
//!
//! # Public API
//!
//! - [`pull`]`(platform, data_type, &credentials, &config, &retry) -> Result<Vec<ImportRow>>`
//!   for the six API platforms, and [`pull_within`] with a run's [`Pull`] budget
//!   (`pulls.*` settings: requests, records and bytes per run, shared by every type of
//!   the run); [`validate_credentials`] and [`check_site`] (DNS) for the connection
//!   POST; [`site_url`] for the WooCommerce/Shopify site under the outgoing-call policy
//!   ([`crate::outbound`]); [`Platform::supports`] / [`Platform::supported`] for the
//!   matrix.
//! - [`freeagent`]: `new_state`, `authorize_url`, `check_state`, `exchange_code`,
//!   `refresh`, `ensure_fresh`, `pull(data_type, &mut token, &config, now, &retry)` and
//!   `pull_within(.., &pull)`.
//!
//! Every request goes through [`http::HttpClient`], which applies the outgoing-call
//! policy (only `https://` public hosts, checked on the address connected to, except the
//! origins of `platforms.<id>` URLs) and the run's budget.
//! - [`ConnectorError`] (`From` into `AppError`: the caller's problem → 400, the
//!   platform's → 503) and [`RetryPolicy`] (`Default` in production; tests inject the
//!   sleep).
//!
//! Everything blocks: call it inside `spawn_blocking`.
//!
//! A pair marked "no" fails with [`ConnectorError::Unsupported`] before any request is
//! made, so the endpoint can answer 400 naming the platform and the type.

pub mod freeagent;
pub mod gocardless;
pub mod http;
pub mod lines;
pub mod paypal;
pub mod shopify;
pub mod square;
pub mod stripe;
pub mod woocommerce;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value;
use time::OffsetDateTime;

use crate::config::PlatformConfig;
use crate::error::AppError;

pub use http::{Pull, RetryPolicy};

/// One import row: import field name (docs/import.md#fields) → canonical text value.
pub type ImportRow = BTreeMap<String, String>;

/// The key of a row the platform could not complete (a record it answers 404 for, a
/// document whose lines contradict its total): its value is the message, and the
/// importer reports the row (and its document's other rows) as a row error
/// (docs/import.md#row-errors) while the rest of the pull imports.
pub const ROW_ERROR: &str = "row_error";

/// The platforms that have a connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    Stripe,
    Shopify,
    Square,
    Paypal,
    Gocardless,
    Woocommerce,
    Freeagent,
}

impl Platform {
    pub const ALL: [Platform; 7] = [
        Platform::Stripe,
        Platform::Shopify,
        Platform::Square,
        Platform::Paypal,
        Platform::Gocardless,
        Platform::Woocommerce,
        Platform::Freeagent,
    ];

    /// The identifier of docs/import.md#platforms (also the `platforms.<id>` configuration key).
    pub fn id(self) -> &'static str {
        match self {
            Self::Stripe => "stripe",
            Self::Shopify => "shopify",
            Self::Square => "square",
            Self::Paypal => "paypal",
            Self::Gocardless => "gocardless",
            Self::Woocommerce => "woocommerce",
            Self::Freeagent => "freeagent",
        }
    }

    /// The platform's name as it spells it, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Stripe => "Stripe",
            Self::Shopify => "Shopify",
            Self::Square => "Square",
            Self::Paypal => "PayPal",
            Self::Gocardless => "GoCardless",
            Self::Woocommerce => "WooCommerce",
            Self::Freeagent => "FreeAgent",
        }
    }

    /// The data types the platform can supply (the support matrix above).
    pub fn supported(self) -> &'static [DataType] {
        use DataType::*;
        match self {
            Self::Stripe | Self::Shopify | Self::Square | Self::Woocommerce => &[
                Contacts,
                Products,
                Invoices,
                Subscriptions,
                CreditNotes,
                Payments,
            ],
            Self::Paypal => &[Products, Invoices, CreditNotes, Payments],
            Self::Gocardless => &[Contacts, Subscriptions],
            Self::Freeagent => &[
                Contacts,
                Products,
                Invoices,
                Bills,
                Expenses,
                Projects,
                TimeEntries,
                Subscriptions,
                CreditNotes,
                Payments,
            ],
        }
    }

    pub fn supports(self, data_type: DataType) -> bool {
        self.supported().contains(&data_type)
    }

    /// The platform's real API origin, used when `platforms.<id>.base_url` is not set.
    /// Shopify and WooCommerce have none: their origin is the shop or site URL.
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Self::Stripe => Some("https://api.stripe.com"),
            Self::Square => Some("https://connect.squareup.com"),
            Self::Paypal => Some("https://api-m.paypal.com"),
            Self::Gocardless => Some("https://api.gocardless.com"),
            Self::Freeagent => Some("https://api.freeagent.com"),
            Self::Shopify | Self::Woocommerce => None,
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Platform {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Self::ALL.into_iter().find(|p| p.id() == s).ok_or(())
    }
}

/// The `entityType` values of docs/import.md#data-types (`all` is the caller's loop over these).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    Contacts,
    Products,
    Invoices,
    Bills,
    Expenses,
    Projects,
    TimeEntries,
    Subscriptions,
    CreditNotes,
    SupplierCredits,
    Payments,
}

impl DataType {
    pub const ALL: [DataType; 11] = [
        DataType::Contacts,
        DataType::Products,
        DataType::Invoices,
        DataType::Bills,
        DataType::Expenses,
        DataType::Projects,
        DataType::TimeEntries,
        DataType::Subscriptions,
        DataType::CreditNotes,
        DataType::SupplierCredits,
        DataType::Payments,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Contacts => "contacts",
            Self::Products => "products",
            Self::Invoices => "invoices",
            Self::Bills => "bills",
            Self::Expenses => "expenses",
            Self::Projects => "projects",
            Self::TimeEntries => "time_entries",
            Self::Subscriptions => "subscriptions",
            Self::CreditNotes => "credit_notes",
            Self::SupplierCredits => "supplier_credits",
            Self::Payments => "payments",
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DataType {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Self::ALL.into_iter().find(|t| t.as_str() == s).ok_or(())
    }
}

/// Why a pull failed. Every message names the platform.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectorError {
    /// The platform cannot supply this data type at all (the support matrix).
    #[error("{platform} cannot supply {data_type}")]
    Unsupported {
        platform: Platform,
        data_type: DataType,
    },
    /// The platform could supply it, but this account or site does not offer it (for
    /// example a WooCommerce site without the Subscriptions extension).
    #[error("{platform} cannot supply {data_type}: {reason}")]
    NotAvailable {
        platform: Platform,
        data_type: DataType,
        reason: String,
    },
    /// The stored credentials or the configuration are incomplete or malformed.
    #[error("{platform} credentials: {message}")]
    Credentials { platform: Platform, message: String },
    /// The platform refused the credentials (401/403).
    #[error("{platform} refused the credentials ({status}): {message}")]
    AuthFailed {
        platform: Platform,
        status: u16,
        message: String,
    },
    /// The OAuth grant was revoked or has expired: the user must connect again.
    #[error("{platform} access was revoked or has expired: reconnect {platform}")]
    ReconnectRequired { platform: Platform },
    /// The OAuth callback's `state` is not the one this connection started with.
    #[error("{platform} authorisation failed: state does not match")]
    StateMismatch { platform: Platform },
    /// The outgoing-call policy refused the host (docs/limits.md): not https, or a
    /// loopback, private or link-local address, and not an origin the operator configured.
    #[error("{platform}: {message}")]
    Refused { platform: Platform, message: String },
    /// The run went beyond one of its `pulls` limits; nothing of it is kept.
    #[error("{platform}: {message}; nothing was imported")]
    LimitExceeded { platform: Platform, message: String },
    /// No connection could be made (DNS, refused, TLS, timeout).
    #[error("{platform} is unreachable: {message}")]
    Unreachable { platform: Platform, message: String },
    /// Still 429 after every retry.
    #[error("{platform} is rate limiting requests; try again later")]
    RateLimited { platform: Platform },
    /// Still 5xx after every retry.
    #[error("{platform} is unavailable (HTTP {status})")]
    Unavailable { platform: Platform, status: u16 },
    /// An answer that is not what the platform documents (status, JSON, shape).
    /// `refused` keeps the status and the platform's own words of a 404, 410 or 422: on
    /// a per-record request that is a row error, not the pull's ([`per_record`]).
    #[error("{platform} sent an unexpected response: {message}")]
    BadResponse {
        platform: Platform,
        message: String,
        refused: Option<(u16, String)>,
    },
}

impl ConnectorError {
    pub fn platform(&self) -> Platform {
        match self {
            Self::Unsupported { platform, .. }
            | Self::NotAvailable { platform, .. }
            | Self::Credentials { platform, .. }
            | Self::AuthFailed { platform, .. }
            | Self::ReconnectRequired { platform }
            | Self::StateMismatch { platform }
            | Self::Refused { platform, .. }
            | Self::LimitExceeded { platform, .. }
            | Self::Unreachable { platform, .. }
            | Self::RateLimited { platform }
            | Self::Unavailable { platform, .. }
            | Self::BadResponse { platform, .. } => *platform,
        }
    }

    pub(crate) fn bad(platform: Platform, message: impl Into<String>) -> Self {
        Self::BadResponse {
            platform,
            message: message.into(),
            refused: None,
        }
    }

    /// The status of a 404, 410 or 422 answer ([`per_record`]).
    pub(crate) fn refused_status(&self) -> Option<u16> {
        match self {
            Self::BadResponse {
                refused: Some((status, _)),
                ..
            } => Some(*status),
            _ => None,
        }
    }
}

/// The answer of a request made for ONE record (an order's transactions, an invoice's
/// order or line pages, a product's variations): a 404, 410 or 422 means the platform
/// cannot complete that record, which is then a row error naming it and the platform's
/// words (`Ok(Err(message))`, [`unfinished`]) while the rest of the pull imports
/// (docs/import.md#row-errors). Anything else stays what it is: 401/403, 429 and 5xx
/// concern the whole pull.
pub(crate) fn per_record<T>(answer: ConnectorResult<T>) -> ConnectorResult<Result<T, String>> {
    match answer {
        Ok(v) => Ok(Ok(v)),
        Err(ConnectorError::BadResponse {
            refused: Some((status, words)),
            ..
        }) => Ok(Err(format!("HTTP {status}: {words}"))),
        Err(e) => Err(e),
    }
}

/// The row error of a record the platform could not complete: `what` names the record
/// and the request ("the transactions of order #1001"), `said` is the platform's answer
/// from [`per_record`]. One sentence, without a doubled full stop.
pub(crate) fn unfinished(platform: Platform, what: &str, said: &str) -> String {
    let said = said.trim().trim_end_matches('.').trim_end();
    format!(
        "{} could not give {what} ({said}); nothing of it was imported",
        platform.name()
    )
}

/// What the caller can do about it: its own request (400) or the platform (503). A
/// refused host is the stored credentials' fault; a run beyond its limits will not fit by
/// retrying (the operator can raise `pulls.*`): both 400.
impl From<ConnectorError> for AppError {
    fn from(e: ConnectorError) -> Self {
        match e {
            ConnectorError::Refused { .. }
            | ConnectorError::LimitExceeded { .. }
            | ConnectorError::Unsupported { .. }
            | ConnectorError::NotAvailable { .. }
            | ConnectorError::Credentials { .. }
            | ConnectorError::AuthFailed { .. }
            | ConnectorError::ReconnectRequired { .. }
            | ConnectorError::StateMismatch { .. } => AppError::BadRequest(e.to_string()),
            ConnectorError::Unreachable { .. }
            | ConnectorError::RateLimited { .. }
            | ConnectorError::Unavailable { .. }
            | ConnectorError::BadResponse { .. } => AppError::Unavailable(e.to_string()),
        }
    }
}

pub type ConnectorResult<T> = Result<T, ConnectorError>;

/// Pulls every page of one data type from an API platform (not FreeAgent, whose OAuth
/// tokens change during a pull: see [`freeagent::pull`]).
///
/// `credentials` is the object of docs/import.md#connections stored with the
/// connection; `config` the platform's `platforms.<id>` settings (`base_url` overrides
/// the real origin, and the shop/site URL for Shopify and WooCommerce). Blocking: run
/// it in `spawn_blocking`. The default [`crate::config::PullLimits`] bound it;
/// [`pull_within`] takes a run's.
pub fn pull(
    platform: Platform,
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &RetryPolicy,
) -> ConnectorResult<Vec<ImportRow>> {
    pull_within(platform, data_type, credentials, config, &Pull::from(retry))
}

/// [`pull`] within a run's budget (shared by every data type of the run).
pub fn pull_within(
    platform: Platform,
    data_type: DataType,
    credentials: &Value,
    config: &PlatformConfig,
    retry: &Pull,
) -> ConnectorResult<Vec<ImportRow>> {
    if !platform.supports(data_type) {
        return Err(ConnectorError::Unsupported {
            platform,
            data_type,
        });
    }
    match platform {
        Platform::Stripe => stripe::pull(data_type, credentials, config, retry),
        Platform::Shopify => shopify::pull(data_type, credentials, config, retry),
        Platform::Square => square::pull(data_type, credentials, config, retry),
        Platform::Paypal => paypal::pull(data_type, credentials, config, retry),
        Platform::Gocardless => gocardless::pull(data_type, credentials, config, retry),
        Platform::Woocommerce => woocommerce::pull(data_type, credentials, config, retry),
        Platform::Freeagent => Err(ConnectorError::Credentials {
            platform,
            message: "freeagent connects over OAuth; pull with connectors::freeagent::pull"
                .to_owned(),
        }),
    }
}

/// Checks that the credentials object has what the platform needs (for the connection
/// POST, before anything is stored), and that the shop or site URL of Shopify and
/// WooCommerce passes the outgoing-call policy without DNS ([`site_url`]). Does not call
/// the platform.
pub fn validate_credentials(
    platform: Platform,
    credentials: &Value,
    config: &PlatformConfig,
) -> ConnectorResult<()> {
    let fields: &[&str] = match platform {
        Platform::Stripe => &["api_key"],
        Platform::Shopify => &["shop", "access_token"],
        Platform::Square => &["access_token"],
        Platform::Paypal => &["client_id", "client_secret"],
        Platform::Gocardless => &["access_token"],
        Platform::Woocommerce => &["url", "consumer_key", "consumer_secret"],
        Platform::Freeagent => &[],
    };
    for f in fields {
        credential(platform, credentials, f)?;
    }
    site_url(platform, credentials, config)?;
    Ok(())
}

/// The URL a credential names (WooCommerce `url`, Shopify `shop` as its origin), checked
/// against the outgoing-call policy without DNS: `https://`, no user info, no
/// IP-literal private host, unless its origin is one `config` names. `None` for the
/// platforms whose origin is not a credential.
pub fn site_url(
    platform: Platform,
    credentials: &Value,
    config: &PlatformConfig,
) -> ConnectorResult<Option<url::Url>> {
    let raw = match platform {
        Platform::Woocommerce => credential(platform, credentials, "url")?,
        Platform::Shopify => shopify::shop_origin(&credential(platform, credentials, "shop")?),
        _ => return Ok(None),
    };
    let field = site_field(platform);
    let url =
        http::policy_for(config)
            .check_url(&raw)
            .map_err(|r| ConnectorError::Credentials {
                platform,
                message: format!("`{field}`: {r}"),
            })?;
    let path_ok = platform != Platform::Shopify || url.path() == "/";
    if url.query().is_some() || url.fragment().is_some() || !path_ok {
        return Err(ConnectorError::Credentials {
            platform,
            message: format!("`{field}` must be the address of the site alone"),
        });
    }
    Ok(Some(url))
}

/// The credential that names the site: `url` (WooCommerce), `shop` (Shopify).
fn site_field(platform: Platform) -> &'static str {
    if platform == Platform::Shopify {
        "shop"
    } else {
        "url"
    }
}

/// [`site_url`], then the addresses its host resolves to (DNS, within `timeout`), for
/// the connection POST: a name of a loopback, private or link-local host is refused when
/// it is saved. A name that does not resolve passes (each pull checks again, on the
/// address it connects to). Blocking.
pub fn check_site(
    platform: Platform,
    credentials: &Value,
    config: &PlatformConfig,
    timeout: std::time::Duration,
) -> ConnectorResult<()> {
    if let Some(url) = site_url(platform, credentials, config)? {
        http::policy_for(config)
            .check_resolved(url.as_str(), timeout)
            .map_err(|r| ConnectorError::Credentials {
                platform,
                message: format!("`{}`: {r}", site_field(platform)),
            })?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Helpers shared by the platform modules.

/// A required non-empty string field of the credentials object.
pub(crate) fn credential(
    platform: Platform,
    credentials: &Value,
    field: &str,
) -> ConnectorResult<String> {
    match credentials
        .get(field)
        .and_then(Value::as_str)
        .map(str::trim)
    {
        Some(s) if !s.is_empty() => Ok(s.to_owned()),
        _ => Err(ConnectorError::Credentials {
            platform,
            message: format!("missing `{field}`"),
        }),
    }
}

/// Builds one row, leaving out keys without a value.
#[derive(Default)]
pub(crate) struct Row(ImportRow);

impl Row {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn set(&mut self, key: &str, value: impl Into<Option<String>>) -> &mut Self {
        if let Some(v) = value.into() {
            let v = v.trim();
            if !v.is_empty() {
                self.0.insert(key.to_owned(), v.to_owned());
            }
        }
        self
    }

    pub fn text(&mut self, key: &str, value: Option<&str>) -> &mut Self {
        self.set(key, value.map(str::to_owned))
    }

    pub fn dec(&mut self, key: &str, value: Option<Decimal>) -> &mut Self {
        self.set(key, value.map(dec_text))
    }

    pub fn build(&mut self) -> ImportRow {
        std::mem::take(&mut self.0)
    }
}

/// Canonical decimal text: plain, no exponent, trailing zeros removed.
pub fn dec_text(d: Decimal) -> String {
    let n = d.normalize();
    if n.is_zero() {
        "0".to_owned()
    } else {
        n.to_string()
    }
}

/// The string at `v[key]` (trimmed, non-empty). Numbers are given as their text.
pub(crate) fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Like [`s`] but owned, and numbers and booleans become their JSON text.
pub(crate) fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A decimal from a JSON number or numeric string, exactly as written.
pub(crate) fn decimal(v: &Value) -> Option<Decimal> {
    let t = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_owned(),
        _ => return None,
    };
    crate::db::decimal::parse_decimal(&t)
}

/// Decimal places of a currency's minor unit (ISO 4217; Stripe's zero-decimal list).
pub fn currency_exponent(currency: Option<&str>) -> u32 {
    let c = currency.unwrap_or("gbp").to_ascii_lowercase();
    match c.as_str() {
        "bif" | "clp" | "djf" | "gnf" | "jpy" | "kmf" | "krw" | "mga" | "pyg" | "rwf" | "ugx"
        | "vnd" | "vuv" | "xaf" | "xof" | "xpf" | "isk" => 0,
        "bhd" | "jod" | "kwd" | "omr" | "tnd" | "iqd" | "lyd" => 3,
        _ => 2,
    }
}

/// Minor units (an integer, or Stripe's `*_decimal` text of minor units) to major units,
/// exactly: 123456 pence → 1234.56.
pub fn minor_to_major(minor: Decimal, currency: Option<&str>) -> Decimal {
    let mut d = minor;
    let exp = currency_exponent(currency);
    // Exact: scaling by a power of ten only moves the decimal point.
    let scale = d.scale() + exp;
    if scale <= 28 {
        d.set_scale(scale).expect("scale within range");
        d
    } else {
        d / Decimal::from(10i64.pow(exp))
    }
}

/// Minor units at `v[key]` (JSON integer or numeric string) in major units.
pub(crate) fn minor_field(v: &Value, key: &str, currency: Option<&str>) -> Option<Decimal> {
    v.get(key)
        .and_then(decimal)
        .map(|m| minor_to_major(m, currency))
}

/// `YYYY-MM-DD` from a Unix timestamp (UTC).
pub(crate) fn unix_date(v: &Value) -> Option<String> {
    let secs = v.as_i64()?;
    let t = OffsetDateTime::from_unix_timestamp(secs).ok()?;
    Some(iso_date(t.date()))
}

pub(crate) fn iso_date(d: time::Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

/// The date part of an ISO date or RFC 3339 / ISO 8601 timestamp, as written.
pub(crate) fn date_part(v: Option<&str>) -> Option<String> {
    let v = v?.trim();
    let d = v.get(..10)?;
    let ok = d.len() == 10
        && d.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    ok.then(|| d.to_owned())
}

/// Joins the non-empty parts with `sep`.
pub(crate) fn join<'a>(
    parts: impl IntoIterator<Item = Option<&'a str>>,
    sep: &str,
) -> Option<String> {
    let parts: Vec<&str> = parts
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(sep))
}

/// The array at `v[key]`, or an empty slice.
pub(crate) fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The array at `v[key]`, or a BadResponse: a page without its list is not an empty page.
pub(crate) fn req_arr<'a>(
    platform: Platform,
    v: &'a Value,
    key: &str,
) -> ConnectorResult<&'a [Value]> {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| ConnectorError::bad(platform, format!("no `{key}` list in the response")))
}

/// The records of one listing, each read once: a platform's paging can list a record
/// again on a later page (a record created or changed while the pages are read shifts
/// offsets and cursors), and a repeat would be imported twice, as a second line of one
/// subscription or one order (docs/import.md#connectors). A record is known by its `id`
/// (FreeAgent: its `url`); one without either is always kept.
#[derive(Default)]
pub(crate) struct SeenIds(std::collections::HashSet<String>);

impl SeenIds {
    pub fn extend(&mut self, out: &mut Vec<Value>, items: &[Value]) {
        for item in items {
            let id = item.get("id").or_else(|| item.get("url")).and_then(text);
            if id.is_none_or(|id| self.0.insert(id)) {
                out.push(item.clone());
            }
        }
    }
}

/// Refuses a page URL or cursor already read in the same listing: a platform that
/// answers the same cursor again would otherwise be read forever.
pub(crate) struct PageGuard {
    platform: Platform,
    seen: std::collections::HashSet<String>,
}

impl PageGuard {
    pub fn new(platform: Platform) -> Self {
        Self {
            platform,
            seen: std::collections::HashSet::new(),
        }
    }

    pub fn visit(&mut self, page: &str) -> ConnectorResult<()> {
        if self.seen.insert(page.to_owned()) {
            Ok(())
        } else {
            Err(ConnectorError::bad(
                self.platform,
                format!(
                    "pagination returned to a page already read ({})",
                    http::quoted(page)
                ),
            ))
        }
    }
}

/// The platform origin: `base_url` from configuration, else the real one.
pub(crate) fn base_url(platform: Platform, config: &PlatformConfig) -> ConnectorResult<String> {
    config
        .base_url
        .as_deref()
        .or(platform.default_base_url())
        .map(|u| u.trim_end_matches('/').to_owned())
        .ok_or_else(|| ConnectorError::Credentials {
            platform,
            message: "no base URL".to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minor_units_convert_exactly() {
        assert_eq!(
            dec_text(minor_to_major(Decimal::from(123456), Some("gbp"))),
            "1234.56"
        );
        assert_eq!(
            dec_text(minor_to_major(Decimal::from(-5), Some("GBP"))),
            "-0.05"
        );
        assert_eq!(
            dec_text(minor_to_major(Decimal::from(500), Some("jpy"))),
            "500"
        );
        assert_eq!(
            dec_text(minor_to_major(Decimal::new(12345, 1), Some("gbp"))),
            "12.345"
        );
        assert_eq!(dec_text(minor_to_major(Decimal::from(1000), None)), "10");
    }

    #[test]
    fn dates_are_iso() {
        assert_eq!(
            unix_date(&Value::from(1_700_000_000)).as_deref(),
            Some("2023-11-14")
        );
        assert_eq!(
            date_part(Some("2024-03-05T23:10:00-05:00")).as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(date_part(Some("05/03/2024")), None);
    }

    #[test]
    fn the_matrix_refuses_what_a_platform_cannot_supply() {
        assert!(!Platform::Paypal.supports(DataType::Contacts));
        assert!(!Platform::Gocardless.supports(DataType::Products));
        assert!(!Platform::Stripe.supports(DataType::Bills));
        assert!(Platform::Freeagent.supports(DataType::TimeEntries));
    }
}
