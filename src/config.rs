//! Configuration: Rocket's figment (`Rocket.toml`, then `ROCKET_*` variables) with
//! Stockbook's own keys (docs/configuration.md), validated once at start.

use std::collections::BTreeMap;

use rocket::figment::providers::{Env, Format, Serialized, Toml};
use rocket::figment::{Figment, Profile};
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignupMode {
    /// Only the first account may sign up.
    FirstUser,
    /// Anyone may sign up.
    Open,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Essential,
    Pro,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synchronous {
    Full,
    Normal,
}

impl Synchronous {
    pub fn pragma_value(self) -> &'static str {
        match self {
            Self::Full => "FULL",
            Self::Normal => "NORMAL",
        }
    }
}

/// Endpoints of one import platform; tests point them at a local server.
#[derive(Clone, Default, Deserialize)]
pub struct PlatformConfig {
    pub base_url: Option<String>,
    pub authorize_url: Option<String>,
    pub token_url: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// OAuth platforms: the callback URL registered with the provider
    /// (`https://<host>/api/import/oauth/callback`). Unset, it is built from the request's
    /// `Host` (and `X-Forwarded-Proto`) when the flow starts.
    pub redirect_uri: Option<String>,
}

/// `client_secret` is never printed.
impl std::fmt::Debug for PlatformConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlatformConfig")
            .field("base_url", &self.base_url)
            .field("authorize_url", &self.authorize_url)
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}

impl PlatformConfig {
    /// The URLs the operator configured: their origins may be called whatever their
    /// scheme and address (docs/limits.md).
    pub fn configured_urls(&self) -> impl Iterator<Item = &str> {
        [&self.base_url, &self.token_url, &self.authorize_url]
            .into_iter()
            .filter_map(|u| u.as_deref())
    }
}

/// Filing with HMRC (`hmrc`, docs/hmrc.md#configuration): HMRC's API origin and OAuth
/// endpoints and this installation's application credentials. Unset, the URLs are HMRC's
/// production ones; the sandbox is `base_url = "https://test-api.service.hmrc.gov.uk"`.
#[derive(Clone, Default, Deserialize)]
pub struct HmrcConfig {
    pub base_url: Option<String>,
    pub authorize_url: Option<String>,
    pub token_url: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// The callback URL registered with HMRC (`https://<host>/api/hmrc/callback`).
    pub redirect_uri: Option<String>,
    /// The public IP address HMRC's fraud-prevention headers name as this server's
    /// (`Gov-Vendor-Public-IP`); unset, it is not sent.
    pub vendor_public_ip: Option<String>,
}

/// HMRC's production API origin.
pub const HMRC_BASE_URL: &str = "https://api.service.hmrc.gov.uk";
/// HMRC's sandbox API origin.
pub const HMRC_SANDBOX_URL: &str = "https://test-api.service.hmrc.gov.uk";

/// `client_secret` is never printed.
impl std::fmt::Debug for HmrcConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HmrcConfig")
            .field("base_url", &self.base_url)
            .field("authorize_url", &self.authorize_url)
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("redirect_uri", &self.redirect_uri)
            .field("vendor_public_ip", &self.vendor_public_ip)
            .finish()
    }
}

fn set(v: Option<&String>) -> Option<&str> {
    v.map(|s| s.trim()).filter(|s| !s.is_empty())
}

impl HmrcConfig {
    /// The API origin, without a trailing `/`.
    pub fn base(&self) -> String {
        set(self.base_url.as_ref())
            .unwrap_or(HMRC_BASE_URL)
            .trim_end_matches('/')
            .to_owned()
    }

    /// Where the user grants authority. HMRC serves it on its `www` host: for the
    /// production and sandbox API origins that host, else `<base_url>/oauth/authorize`.
    pub fn authorize(&self) -> String {
        if let Some(u) = set(self.authorize_url.as_ref()) {
            return u.to_owned();
        }
        match self.base().as_str() {
            HMRC_BASE_URL => "https://www.tax.service.gov.uk/oauth/authorize".into(),
            HMRC_SANDBOX_URL => "https://test-www.tax.service.gov.uk/oauth/authorize".into(),
            other => format!("{other}/oauth/authorize"),
        }
    }

    /// The token endpoint: `<base_url>/oauth/token` unless set.
    pub fn token(&self) -> String {
        set(self.token_url.as_ref())
            .map_or_else(|| format!("{}/oauth/token", self.base()), str::to_owned)
    }

    /// The application's credentials, when both are set.
    pub fn credentials(&self) -> Option<(&str, &str)> {
        Some((
            set(self.client_id.as_ref())?,
            set(self.client_secret.as_ref())?,
        ))
    }

    /// The configured redirect URI, if any.
    pub fn redirect(&self) -> Option<&str> {
        set(self.redirect_uri.as_ref())
    }

    /// The URLs the operator configured: their origins may be called whatever their
    /// scheme and address (docs/limits.md).
    pub fn configured_urls(&self) -> impl Iterator<Item = &str> {
        [&self.base_url, &self.token_url, &self.authorize_url]
            .into_iter()
            .filter_map(|u| u.as_deref())
    }
}

/// Bounds of the import pulls (`pulls` key, docs/limits.md#rates): per run of
/// `POST /api/import/migrate` (every data type of an `all` run together), and how many
/// runs may pull at once across the installation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PullLimits {
    /// Requests (pages) per run.
    pub max_pages: u64,
    /// Records read per run.
    pub max_records: u64,
    /// Response bytes per run (each response is also at most 32 MiB).
    pub max_bytes: u64,
    /// Runs pulling at the same time; a further one is refused (503, `Retry-After`).
    pub concurrent: u32,
}

impl Default for PullLimits {
    fn default() -> Self {
        Self {
            max_pages: 10_000,
            max_records: 1_000_000,
            max_bytes: 256 * 1024 * 1024,
            concurrent: 2,
        }
    }
}

impl PullLimits {
    fn check(self) -> Result<Self, String> {
        let positive = |key: &str, v: u64| {
            if v == 0 {
                Err(bad_key(
                    &format!("pulls.{key}"),
                    "a whole number above 0",
                    "0",
                ))
            } else {
                Ok(())
            }
        };
        positive("max_pages", self.max_pages)?;
        positive("max_records", self.max_records)?;
        positive("max_bytes", self.max_bytes)?;
        if !(1..=64).contains(&self.concurrent) {
            return Err(bad_key(
                "pulls.concurrent",
                "a whole number from 1 to 64",
                &self.concurrent.to_string(),
            ));
        }
        Ok(self)
    }
}

/// The delivery schedule of webhooks (`webhooks_retry` key, docs/webhooks.md#retries):
/// an attempt waits at most `timeout_ms` for the answer; the n-th retry comes
/// `first_ms × 2^(n-1)` (at most `max_ms`) after the failure, less up to half of it at
/// random (jitter); a delivery whose attempt fails `window_ms` or more after its first
/// attempt is `failed`. Tests shorten it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebhookSchedule {
    pub first_ms: u64,
    pub max_ms: u64,
    pub window_ms: u64,
    pub timeout_ms: u64,
}

impl Default for WebhookSchedule {
    fn default() -> Self {
        Self {
            first_ms: 30_000,
            max_ms: 3_600_000,
            window_ms: 86_400_000,
            timeout_ms: 10_000,
        }
    }
}

impl WebhookSchedule {
    fn check(self) -> Result<Self, String> {
        for (key, v) in [
            ("first_ms", self.first_ms),
            ("max_ms", self.max_ms),
            ("window_ms", self.window_ms),
            ("timeout_ms", self.timeout_ms),
        ] {
            if v == 0 || v > 30 * 86_400_000 {
                return Err(bad_key(
                    &format!("webhooks_retry.{key}"),
                    "a whole number of milliseconds from 1 to 2592000000 (30 days)",
                    &v.to_string(),
                ));
            }
        }
        if self.max_ms < self.first_ms {
            return Err(bad_key(
                "webhooks_retry.max_ms",
                "at least `webhooks_retry.first_ms`",
                &self.max_ms.to_string(),
            ));
        }
        Ok(self)
    }
}

/// How the connection to the mail server is secured (`smtp.tls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    /// `starttls` (the default, usually port 587): plain, then upgraded; refused without it.
    StartTls,
    /// `tls` (usually port 465): TLS from the first byte.
    Tls,
    /// `none`: plain text; for a relay on the same machine or network only.
    None,
}

/// The mail server invoices are sent through (`smtp` key, docs/accounting.md#sending-by-email).
/// Absent: Stockbook sends no mail and the web app shows no send button.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSmtp {
    pub host: String,
    #[serde(default)]
    pub port: Option<i64>,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    pub from: String,
    #[serde(default)]
    pub tls: Option<String>,
}

/// [`RawSmtp`] checked: a host, a port, a sender address and a TLS mode.
#[derive(Clone)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub username: Option<String>,
    pub password: Option<String>,
    /// `Name <address>` or `address`: the sender of every message.
    pub from: String,
    pub tls: SmtpTls,
}

/// `password` is never printed.
impl std::fmt::Debug for SmtpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field("from", &self.from)
            .field("tls", &self.tls)
            .finish()
    }
}

impl RawSmtp {
    fn check(self) -> Result<SmtpConfig, String> {
        let host = self.host.trim().to_owned();
        if host.is_empty() {
            return Err(bad_key("smtp.host", "a host name or address", ""));
        }
        let tls = match self.tls.as_deref().unwrap_or("starttls") {
            "starttls" => SmtpTls::StartTls,
            "tls" => SmtpTls::Tls,
            "none" => SmtpTls::None,
            other => return Err(bad_key("smtp.tls", "`starttls`, `tls` or `none`", other)),
        };
        let default_port = match tls {
            SmtpTls::Tls => 465,
            SmtpTls::StartTls | SmtpTls::None => 587,
        };
        let port = match self.port {
            None => default_port,
            Some(p) => u16::try_from(p).ok().filter(|p| *p > 0).ok_or_else(|| {
                bad_key("smtp.port", "a port number from 1 to 65535", &p.to_string())
            })?,
        };
        if self.from.parse::<lettre::message::Mailbox>().is_err() {
            return Err(bad_key(
                "smtp.from",
                "an email address, or `Name <address>`",
                &self.from,
            ));
        }
        if self.password.is_some() && self.username.is_none() {
            return Err(bad_key(
                "smtp.username",
                "a user name when `smtp.password` is set",
                "",
            ));
        }
        Ok(SmtpConfig {
            host,
            port,
            username: self.username,
            password: self.password,
            from: self.from,
            tls,
        })
    }
}

/// When the session cookie carries `Secure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CookieSecure {
    /// When the request came over HTTPS as a proxy reports it (`X-Forwarded-Proto: https`).
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone)]
pub struct AppConfig {
    pub database: String,
    /// Serve the database without writing to it: every write is a 503
    /// (docs/operations.md#serving-read-only).
    pub read_only: bool,
    /// Whether a missing database file may be created at start
    /// (docs/operations.md#the-database-file).
    pub create_database: bool,
    pub signup: SignupMode,
    pub plan: Plan,
    pub allow_negative_stock: bool,
    pub session_days: u32,
    /// Absolute lifetime of a session, however often it is used.
    pub session_max_days: u32,
    pub cookie_secure: CookieSecure,
    pub synchronous: Synchronous,
    pub platforms: BTreeMap<String, PlatformConfig>,
    /// Filing with HMRC (docs/hmrc.md#configuration).
    pub hmrc: HmrcConfig,
    pub pulls: PullLimits,
    /// Public API requests per rolling minute per key and endpoint (docs/limits.md).
    pub v1_rate_limit: usize,
    /// Longest a streamed answer waits for the client to take its next chunk.
    pub stream_timeout: std::time::Duration,
    /// Password hashes (sign-in, sign-up) computed at once.
    pub password_hash_concurrency: usize,
    /// Webhook URLs may be `http://` (docs/webhooks.md#urls).
    pub webhooks_allow_http: bool,
    /// Webhook URLs may reach loopback, private and link-local addresses.
    pub webhooks_allow_private: bool,
    /// The webhook delivery schedule.
    pub webhooks_retry: WebhookSchedule,
    /// Longest a connection may take to send a request head, counted from its opening or
    /// its previous response; then it is closed (docs/operations.md#connections).
    pub header_timeout: std::time::Duration,
    /// Connections served at once; further ones wait to be accepted.
    pub max_connections: usize,
    /// The mail server for sending invoices; none, no mail (docs/accounting.md#sending-by-email).
    pub smtp: Option<SmtpConfig>,
}

#[derive(Deserialize)]
struct RawConfig {
    database: String,
    read_only: bool,
    create_database: bool,
    signup: String,
    plan: String,
    allow_negative_stock: bool,
    session_days: i64,
    session_max_days: i64,
    cookie_secure: rocket::figment::value::Value,
    synchronous: String,
    v1_rate_limit: i64,
    stream_timeout_secs: i64,
    password_hash_concurrency: i64,
    #[serde(default)]
    platforms: BTreeMap<String, PlatformConfig>,
    #[serde(default)]
    hmrc: HmrcConfig,
    #[serde(default)]
    pulls: PullLimits,
    webhooks_allow_http: bool,
    webhooks_allow_private: bool,
    #[serde(default)]
    webhooks_retry: WebhookSchedule,
    header_timeout_secs: i64,
    max_connections: i64,
    #[serde(default)]
    smtp: Option<RawSmtp>,
}

/// The figment `main` uses: Rocket's own sources, with Stockbook's defaults underneath.
pub fn figment() -> Figment {
    let profile = Profile::from_env_or("ROCKET_PROFILE", rocket::Config::DEFAULT_PROFILE);
    Figment::from(rocket::Config::default())
        .merge(Serialized::defaults(figment_value(&defaults())))
        .merge(Toml::file(Env::var_or("ROCKET_CONFIG", "Rocket.toml")).nested())
        .merge(Env::prefixed("ROCKET_").ignore(&["PROFILE"]).global())
        .select(profile)
}

/// A JSON value as figment's own value type. With serde_json's `arbitrary_precision`
/// (which the decimals need), a `serde_json::Value` number serialises as a private map, so
/// JSON values must be converted like this before they are given to a figment.
pub fn figment_value(v: &serde_json::Value) -> rocket::figment::value::Value {
    use rocket::figment::value::{Empty, Tag, Value};
    use serde_json::Value as J;
    match v {
        J::Null => Value::Empty(Tag::Default, Empty::None),
        J::Bool(b) => Value::from(*b),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else if let Some(f) = n.as_f64() {
                Value::from(f)
            } else {
                Value::from(n.to_string())
            }
        }
        J::String(s) => Value::from(s.clone()),
        J::Array(a) => Value::from(a.iter().map(figment_value).collect::<Vec<_>>()),
        J::Object(o) => Value::from(
            o.iter()
                .map(|(k, v)| (k.clone(), figment_value(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// Stockbook's defaults, merged over Rocket's (give them to a figment through
/// [`figment_value`]).
pub fn defaults() -> serde_json::Value {
    serde_json::json!({
        "database": "stockbook.db",
        "read_only": false,
        "create_database": true,
        "signup": "first-user",
        "plan": "pro",
        "allow_negative_stock": false,
        "session_days": 14,
        "session_max_days": 90,
        "cookie_secure": "auto",
        "synchronous": "full",
        "v1_rate_limit": 60,
        "stream_timeout_secs": 30,
        "header_timeout_secs": 30,
        "max_connections": 1000,
        "password_hash_concurrency": 4,
        "webhooks_allow_http": false,
        "webhooks_allow_private": false,
        "limits": { "json": "32 MiB", "body": "4 MiB" },
        "log_level": "off",
    })
}

impl AppConfig {
    /// Reads and validates the configuration; the error names the bad key.
    pub fn from_figment(figment: &Figment) -> Result<Self, String> {
        let raw: RawConfig = figment.extract().map_err(describe_figment_error)?;
        let signup = match raw.signup.as_str() {
            "first-user" => SignupMode::FirstUser,
            "open" => SignupMode::Open,
            other => return Err(bad_key("signup", "`first-user` or `open`", other)),
        };
        let plan = match raw.plan.as_str() {
            "essential" => Plan::Essential,
            "pro" => Plan::Pro,
            other => return Err(bad_key("plan", "`essential` or `pro`", other)),
        };
        let synchronous = match raw.synchronous.to_ascii_lowercase().as_str() {
            "full" => Synchronous::Full,
            "normal" => Synchronous::Normal,
            other => return Err(bad_key("synchronous", "`full` or `normal`", other)),
        };
        let session_days = u32::try_from(raw.session_days)
            .ok()
            .filter(|d| (1..=3650).contains(d))
            .ok_or_else(|| {
                bad_key(
                    "session_days",
                    "a whole number of days from 1 to 3650",
                    &raw.session_days.to_string(),
                )
            })?;
        let session_max_days = u32::try_from(raw.session_max_days)
            .ok()
            .filter(|d| (1..=3650).contains(d) && *d >= session_days)
            .ok_or_else(|| {
                bad_key(
                    "session_max_days",
                    "a whole number of days from `session_days` to 3650",
                    &raw.session_max_days.to_string(),
                )
            })?;
        let cookie_secure = match (raw.cookie_secure.to_bool(), raw.cookie_secure.as_str()) {
            (Some(true), _) | (_, Some("true")) => CookieSecure::Always,
            (Some(false), _) | (_, Some("false")) => CookieSecure::Never,
            (_, Some("auto")) => CookieSecure::Auto,
            _ => {
                return Err(bad_key(
                    "cookie_secure",
                    "`auto`, `true` or `false`",
                    &format!("{:?}", raw.cookie_secure),
                ))
            }
        };
        let in_range = |key: &str, v: i64, max: i64, what: &str| {
            usize::try_from(v)
                .ok()
                .filter(|n| (1..=max).contains(&i64::try_from(*n).unwrap_or(i64::MAX)))
                .ok_or_else(|| bad_key(key, what, &v.to_string()))
        };
        let v1_rate_limit = in_range(
            "v1_rate_limit",
            raw.v1_rate_limit,
            1_000_000,
            "a whole number of requests from 1 to 1000000",
        )?;
        let stream_timeout_secs = in_range(
            "stream_timeout_secs",
            raw.stream_timeout_secs,
            86_400,
            "a whole number of seconds from 1 to 86400",
        )?;
        let password_hash_concurrency = in_range(
            "password_hash_concurrency",
            raw.password_hash_concurrency,
            1024,
            "a whole number from 1 to 1024",
        )?;
        let header_timeout_secs = in_range(
            "header_timeout_secs",
            raw.header_timeout_secs,
            3600,
            "a whole number of seconds from 1 to 3600",
        )?;
        let max_connections = in_range(
            "max_connections",
            raw.max_connections,
            1_000_000,
            "a whole number from 1 to 1000000",
        )?;
        if let Some(ip) = set(raw.hmrc.vendor_public_ip.as_ref()) {
            if ip.parse::<std::net::IpAddr>().is_err() {
                return Err(bad_key(
                    "hmrc.vendor_public_ip",
                    "an IPv4 or IPv6 address",
                    ip,
                ));
            }
        }
        if raw.database.trim().is_empty() {
            return Err(bad_key("database", "a file path or `:memory:`", ""));
        }
        Ok(Self {
            database: raw.database,
            read_only: raw.read_only,
            create_database: raw.create_database,
            signup,
            plan,
            allow_negative_stock: raw.allow_negative_stock,
            session_days,
            session_max_days,
            cookie_secure,
            synchronous,
            platforms: raw.platforms,
            hmrc: raw.hmrc,
            pulls: raw.pulls.check()?,
            v1_rate_limit,
            stream_timeout: std::time::Duration::from_secs(
                u64::try_from(stream_timeout_secs).unwrap_or(30),
            ),
            password_hash_concurrency,
            webhooks_allow_http: raw.webhooks_allow_http,
            webhooks_allow_private: raw.webhooks_allow_private,
            webhooks_retry: raw.webhooks_retry.check()?,
            header_timeout: std::time::Duration::from_secs(
                u64::try_from(header_timeout_secs).unwrap_or(30),
            ),
            max_connections,
            smtp: raw.smtp.map(RawSmtp::check).transpose()?,
        })
    }

    pub fn platform(&self, id: &str) -> PlatformConfig {
        self.platforms.get(id).cloned().unwrap_or_default()
    }
}

/// A figment extraction error as "invalid configuration key `x`: why", one line per error.
fn describe_figment_error(e: rocket::figment::Error) -> String {
    use rocket::figment::error::Kind;
    e.into_iter()
        .map(|e| {
            let mut path = e.path.clone();
            if let Kind::MissingField(field) = &e.kind {
                path.push(field.to_string());
            }
            let source = e
                .metadata
                .as_ref()
                .map(|m| format!(" (from {})", m.name))
                .unwrap_or_default();
            if path.is_empty() {
                format!("invalid configuration: {}{source}", e.kind)
            } else {
                format!(
                    "invalid configuration key `{}`: {}{source}",
                    path.join("."),
                    e.kind
                )
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn bad_key(key: &str, expected: &str, got: &str) -> String {
    format!("invalid configuration key `{key}`: expected {expected}, got `{got}`")
}
