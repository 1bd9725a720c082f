//! A small blocking HTTP client for the connectors, over `ureq`.
//!
//! One [`HttpClient`] per pull: the platform (for error messages), the origin (from
//! `platforms.<id>.base_url`, or the real one), the platform's authentication header,
//! any fixed headers (API versions), and a [`RetryPolicy`]. Requests that get 429 or a
//! 5xx are retried with exponential back-off, honouring `Retry-After` (seconds or an
//! HTTP date), each wait capped and the number of retries bounded; the sleep itself is a
//! function of the policy so tests can record the waits instead of sleeping.
//!
//! Every request goes through [`crate::outbound::OutboundPolicy`]
//! (docs/limits.md#rates): only `https://` hosts with public addresses, checked on the
//! address connected to, unless the origin is one the operator configured
//! (`platforms.<id>.base_url`, `token_url`, `authorize_url`). And every request counts
//! against its run's [`Pull`] budget: at most `pulls.max_pages` requests,
//! `pulls.max_records` records and `pulls.max_bytes` bytes of answers per run (each
//! answer also at most [`MAX_BODY`]).
//!
//! Errors: 401/403 → [`ConnectorError::AuthFailed`]; no connection →
//! [`ConnectorError::Unreachable`]; a host the policy refuses →
//! [`ConnectorError::Refused`]; a budget spent → [`ConnectorError::LimitExceeded`];
//! 429/5xx after the last retry → [`ConnectorError::RateLimited`] /
//! [`ConnectorError::Unavailable`]; anything else not 2xx, or a body that is not JSON →
//! [`ConnectorError::BadResponse`]. Messages quote at most a short error text from a
//! platform's JSON error body, never the body itself.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;
use ureq::http;

use super::{ConnectorError, ConnectorResult, Platform};
use crate::config::{PlatformConfig, PullLimits};
use crate::outbound::{OutboundPolicy, Refusal};

/// How long one request may take end to end.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// The User-Agent sent to every platform (FreeAgent requires one).
pub const USER_AGENT: &str = concat!("Stockbook/", env!("CARGO_PKG_VERSION"), " (data import)");
/// Bodies larger than this are refused (one page of any platform is far smaller).
pub const MAX_BODY: u64 = 32 * 1024 * 1024;
/// At most this many characters of a platform's error message are quoted.
const MAX_QUOTED: usize = 200;

/// Retries on 429 and 5xx.
#[derive(Clone)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so at most `max_retries + 1` requests).
    pub max_retries: u32,
    /// The first back-off when the platform gives no `Retry-After`; doubles each retry.
    pub base_delay: Duration,
    /// No single wait is longer than this, whatever `Retry-After` says.
    pub max_delay: Duration,
    /// Performs a wait. `std::thread::sleep` in production.
    pub sleep: Arc<dyn Fn(Duration) + Send + Sync>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
            sleep: Arc::new(std::thread::sleep),
        }
    }
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_retries", &self.max_retries)
            .field("base_delay", &self.base_delay)
            .field("max_delay", &self.max_delay)
            .finish_non_exhaustive()
    }
}

impl RetryPolicy {
    /// The default policy with another sleep function (tests record the waits).
    pub fn with_sleep(sleep: impl Fn(Duration) + Send + Sync + 'static) -> Self {
        Self {
            sleep: Arc::new(sleep),
            ..Self::default()
        }
    }

    /// The wait before retry number `attempt` (0-based).
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt.min(16)));
        retry_after.unwrap_or(backoff).min(self.max_delay)
    }
}

/// One run's budget: the retry policy, the [`PullLimits`], and what the run has used so
/// far. Every [`HttpClient`] of a run shares it (clones share the counters).
#[derive(Clone)]
pub struct Pull {
    pub retry: RetryPolicy,
    pub limits: PullLimits,
    used: Arc<Used>,
}

#[derive(Default)]
struct Used {
    pages: AtomicU64,
    records: AtomicU64,
    bytes: AtomicU64,
    /// Every collection read so far in the run, by platform, origin and first request,
    /// so that a type needing another's records (names of contacts, projects …) does not
    /// read the collection again ([`HttpClient::once_per_run`]).
    collections: Mutex<HashMap<String, Arc<Vec<serde_json::Value>>>>,
}

impl fmt::Debug for Pull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pull")
            .field("limits", &self.limits)
            .field("pages", &self.pages())
            .field("records", &self.used.records.load(Ordering::Relaxed))
            .field("bytes", &self.used.bytes.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Pull {
    pub fn new(retry: &RetryPolicy, limits: PullLimits) -> Self {
        Self {
            retry: retry.clone(),
            limits,
            used: Arc::default(),
        }
    }

    /// Requests made so far.
    pub fn pages(&self) -> u64 {
        self.used.pages.load(Ordering::Relaxed)
    }

    fn exceeded(platform: Platform, limit: u64, what: &str, key: &str) -> ConnectorError {
        ConnectorError::LimitExceeded {
            platform,
            message: format!("the pull went beyond {limit} {what} (the `pulls.{key}` setting)"),
        }
    }

    /// Counts one request, refusing the one beyond `max_pages`.
    fn page(&self, platform: Platform) -> ConnectorResult<()> {
        let n = self.used.pages.fetch_add(1, Ordering::Relaxed) + 1;
        if n > self.limits.max_pages {
            return Err(Self::exceeded(
                platform,
                self.limits.max_pages,
                "requests",
                "max_pages",
            ));
        }
        Ok(())
    }

    /// Counts `n` records read.
    fn records(&self, platform: Platform, n: usize) -> ConnectorResult<()> {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        let total = self
            .used
            .records
            .fetch_add(n, Ordering::Relaxed)
            .saturating_add(n);
        if total > self.limits.max_records {
            return Err(Self::exceeded(
                platform,
                self.limits.max_records,
                "records",
                "max_records",
            ));
        }
        Ok(())
    }

    /// Bytes the next answer may have: what is left of the run's, at most [`MAX_BODY`].
    fn bytes_left(&self) -> u64 {
        self.limits
            .max_bytes
            .saturating_sub(self.used.bytes.load(Ordering::Relaxed))
            .min(MAX_BODY)
    }

    fn add_bytes(&self, n: usize) {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.used.bytes.fetch_add(n, Ordering::Relaxed);
    }
}

/// A run with the default limits (one call of [`crate::connectors::pull`]).
impl From<&RetryPolicy> for Pull {
    fn from(retry: &RetryPolicy) -> Self {
        Self::new(retry, PullLimits::default())
    }
}

/// How a request authenticates.
#[derive(Clone)]
pub enum Auth {
    None,
    Bearer(String),
    Basic { user: String, password: String },
}

/// Secrets are never printed.
impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Self::Basic { user, .. } => f
                .debug_struct("Basic")
                .field("user", user)
                .field("password", &"<redacted>")
                .finish(),
        }
    }
}

impl Auth {
    fn header(&self) -> Option<String> {
        match self {
            Self::None => None,
            Self::Bearer(t) => Some(format!("Bearer {t}")),
            Self::Basic { user, password } => Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
            )),
        }
    }
}

/// A request body.
pub enum Body {
    Json(Value),
    /// `application/x-www-form-urlencoded`.
    Form(Vec<(String, String)>),
}

/// A 2xx answer.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The URL that was requested (relative links resolve against it).
    pub url: String,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `rel="next"` target of the `Link` header(s), resolved against the request URL.
    pub fn link_next(&self) -> Option<String> {
        self.headers
            .iter()
            .filter(|(k, _)| k == "link")
            .find_map(|(_, v)| link_rel(v, "next"))
            .map(|target| resolve(&self.url, &target))
    }
}

/// Finds the target of `rel` in a `Link` header value (RFC 8288), verbatim.
pub fn link_rel(header: &str, rel: &str) -> Option<String> {
    // Split on commas that start a new `<...>`: targets may contain commas.
    let mut rest = header;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        let end = after.find('>')?;
        let target = &after[..end];
        let params_all = &after[end + 1..];
        let params_end = params_all.find('<').unwrap_or(params_all.len());
        let params = &params_all[..params_end];
        let matches = params.split(';').any(|p| {
            let p = p.trim().trim_end_matches(',').trim();
            let Some((k, v)) = p.split_once('=') else {
                return false;
            };
            k.trim().eq_ignore_ascii_case("rel")
                && v.trim()
                    .trim_matches('"')
                    .split_ascii_whitespace()
                    .any(|r| r.eq_ignore_ascii_case(rel))
        });
        if matches {
            return Some(target.trim().to_owned());
        }
        rest = &params_all[params_end..];
    }
    None
}

/// Resolves a possibly relative link against the URL it came with.
pub fn resolve(base: &str, target: &str) -> String {
    match url::Url::parse(base).and_then(|b| b.join(target)) {
        Ok(u) => u.to_string(),
        Err(_) => target.to_owned(),
    }
}

/// `scheme://host:port` of a URL, for the same-origin check on followed links.
fn origin(u: &str) -> Option<String> {
    let u = url::Url::parse(u).ok()?;
    Some(u.origin().ascii_serialization())
}

/// The outgoing-call policy of a platform: public https hosts, and the origins its
/// `platforms.<id>` settings name.
pub fn policy_for(config: &PlatformConfig) -> OutboundPolicy {
    config
        .configured_urls()
        .fold(OutboundPolicy::new(), OutboundPolicy::allow)
}

pub struct HttpClient {
    agent: ureq::Agent,
    platform: Platform,
    base: String,
    auth: Auth,
    headers: Vec<(String, String)>,
    pull: Pull,
}

impl HttpClient {
    /// A client for `base`, under the outgoing-call policy of `config` and the budget of
    /// `pull`.
    pub fn new(
        platform: Platform,
        base: impl Into<String>,
        auth: Auth,
        config: &PlatformConfig,
        pull: &Pull,
    ) -> Self {
        let builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(REQUEST_TIMEOUT))
            .user_agent(USER_AGENT)
            .max_redirects(0);
        Self {
            agent: policy_for(config).agent(builder),
            platform,
            base: base.into().trim_end_matches('/').to_owned(),
            auth,
            headers: Vec::new(),
            pull: pull.clone(),
        }
    }

    /// A whole collection read at most once per run: the first call for `first` (the
    /// list's first request: path, query, and for a search its body) runs `read`; every
    /// later call in the same run gets the records already read, with no request. The
    /// run's `pulls` limits count them once.
    pub fn once_per_run(
        &self,
        first: &str,
        read: impl FnOnce() -> ConnectorResult<Vec<serde_json::Value>>,
    ) -> ConnectorResult<Vec<serde_json::Value>> {
        let key = format!("{} {}{first}", self.platform, self.base);
        let known = self
            .pull
            .used
            .collections
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(records) = known {
            return Ok(records.as_ref().clone());
        }
        let records = read()?;
        self.pull
            .used
            .collections
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, Arc::new(records.clone()));
        Ok(records)
    }

    /// Counts `n` records read into the run (refused beyond `pulls.max_records`).
    pub fn records(&self, n: usize) -> ConnectorResult<()> {
        self.pull.records(self.platform, n)
    }

    /// Adds a header sent with every request (API version pins, `Accept`).
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn platform(&self) -> Platform {
        self.platform
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// `base` + `path_and_query` (which starts with `/`).
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{}", self.base, path_and_query)
    }

    /// Refuses to send credentials to another origin than the configured one: pagination
    /// links are followed verbatim, but only on the platform's own host.
    pub fn check_same_origin(&self, link: &str) -> ConnectorResult<()> {
        match (origin(&self.base), origin(link)) {
            (Some(a), Some(b)) if a == b => Ok(()),
            _ => Err(ConnectorError::bad(
                self.platform,
                format!("pagination link to another host: {}", quoted(link)),
            )),
        }
    }

    pub fn get(&self, url: &str) -> ConnectorResult<HttpResponse> {
        self.send("GET", url, None)
    }

    /// GET and decode the JSON body.
    pub fn get_json(&self, url: &str) -> ConnectorResult<(Value, HttpResponse)> {
        let res = self.get(url)?;
        Ok((self.json(&res)?, res))
    }

    pub fn post_json(&self, url: &str, body: Value) -> ConnectorResult<(Value, HttpResponse)> {
        let res = self.send("POST", url, Some(Body::Json(body)))?;
        Ok((self.json(&res)?, res))
    }

    pub fn json(&self, res: &HttpResponse) -> ConnectorResult<Value> {
        serde_json::from_str(&res.body)
            .map_err(|e| ConnectorError::bad(self.platform, format!("the body is not JSON ({e})")))
    }

    /// Sends with retries; answers 2xx responses only.
    pub fn send(
        &self,
        method: &str,
        url: &str,
        body: Option<Body>,
    ) -> ConnectorResult<HttpResponse> {
        self.send_raw(method, url, body.as_ref())
            .and_then(|r| self.check(r))
    }

    /// Sends with retries on 429/5xx; any other status is returned to the caller as is
    /// (the OAuth token endpoint reads its 400 bodies).
    pub fn send_raw(
        &self,
        method: &str,
        url: &str,
        body: Option<&Body>,
    ) -> ConnectorResult<RawResponse> {
        let mut attempt = 0u32;
        loop {
            let res = self.once(method, url, body)?;
            let retryable = res.status == 429 || (500..=599).contains(&res.status);
            if !retryable {
                return Ok(res);
            }
            if attempt >= self.pull.retry.max_retries {
                return Err(if res.status == 429 {
                    ConnectorError::RateLimited {
                        platform: self.platform,
                    }
                } else {
                    ConnectorError::Unavailable {
                        platform: self.platform,
                        status: res.status,
                    }
                });
            }
            let wait = self.pull.retry.delay(attempt, res.retry_after());
            (self.pull.retry.sleep)(wait);
            attempt += 1;
        }
    }

    fn check(&self, res: RawResponse) -> ConnectorResult<HttpResponse> {
        match res.status {
            200..=299 => Ok(HttpResponse {
                status: res.status,
                headers: res.headers,
                body: res.body,
                url: res.url,
            }),
            401 | 403 => Err(ConnectorError::AuthFailed {
                platform: self.platform,
                status: res.status,
                message: res.error_message(),
            }),
            s => {
                let words = res.error_message();
                Err(ConnectorError::BadResponse {
                    platform: self.platform,
                    message: format!("HTTP {s} from {}: {words}", path_of(&res.url)),
                    refused: matches!(s, 404 | 410 | 422).then_some((s, words)),
                })
            }
        }
    }

    fn once(&self, method: &str, url: &str, body: Option<&Body>) -> ConnectorResult<RawResponse> {
        self.pull.page(self.platform)?;
        let mut req = http::Request::builder()
            .method(method)
            .uri(url)
            .header("Accept", "application/json");
        if let Some(h) = self.auth.header() {
            req = req.header("Authorization", h);
        }
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let result = match body {
            None => req
                .body(())
                .map_err(|e| self.bad_request(e))
                .and_then(|r| self.agent.run(r).map_err(|e| self.transport(e))),
            Some(Body::Json(v)) => req
                .header("Content-Type", "application/json")
                .body(v.to_string())
                .map_err(|e| self.bad_request(e))
                .and_then(|r| self.agent.run(r).map_err(|e| self.transport(e))),
            Some(Body::Form(pairs)) => {
                let form = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(pairs.iter())
                    .finish();
                req.header("Content-Type", "application/x-www-form-urlencoded")
                    .body(form)
                    .map_err(|e| self.bad_request(e))
                    .and_then(|r| self.agent.run(r).map_err(|e| self.transport(e)))
            }
        };
        let mut res = result?;
        let status = res.status().as_u16();
        let headers = res
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let limit = self.pull.bytes_left();
        let body = res
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_string()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) if limit < MAX_BODY => Pull::exceeded(
                    self.platform,
                    self.pull.limits.max_bytes,
                    "bytes",
                    "max_bytes",
                ),
                ureq::Error::BodyExceedsLimit(_) => ConnectorError::bad(
                    self.platform,
                    format!("an answer larger than {} MiB", MAX_BODY / (1024 * 1024)),
                ),
                e => self.transport(e),
            })?;
        self.pull.add_bytes(body.len());
        Ok(RawResponse {
            status,
            headers,
            body,
            url: url.to_owned(),
        })
    }

    fn bad_request(&self, e: impl fmt::Display) -> ConnectorError {
        ConnectorError::Credentials {
            platform: self.platform,
            message: format!("invalid request URL or header ({e})"),
        }
    }

    fn transport(&self, e: ureq::Error) -> ConnectorError {
        if let Some(r) = Refusal::from_ureq(&e) {
            return ConnectorError::Refused {
                platform: self.platform,
                message: r.to_string(),
            };
        }
        ConnectorError::Unreachable {
            platform: self.platform,
            message: quoted(&e.to_string()),
        }
    }
}

/// Any answer, before the status check.
#[derive(Debug, Clone)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub url: String,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// `Retry-After` as delta-seconds, or as an HTTP date from now.
    pub fn retry_after(&self) -> Option<Duration> {
        let v = self.header("retry-after")?.trim();
        if let Ok(secs) = v.parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        let when =
            time::OffsetDateTime::parse(v, &time::format_description::well_known::Rfc2822).ok()?;
        let secs = (when - time::OffsetDateTime::now_utc())
            .whole_seconds()
            .max(0);
        Some(Duration::from_secs(u64::try_from(secs).unwrap_or(0)))
    }

    /// A short message from an error body (the platforms' JSON error shapes). Anything
    /// else is described, not quoted: a foreign answer is not echoed.
    pub fn error_message(&self) -> String {
        if let Ok(v) = serde_json::from_str::<Value>(&self.body) {
            let candidates = [
                v.pointer("/error/message"),
                v.pointer("/errors/error/message"),
                v.pointer("/error_description"),
                v.pointer("/errors/0/message"),
                v.pointer("/errors/0/detail"),
                v.pointer("/message"),
                v.pointer("/error"),
                v.pointer("/errors"),
            ];
            for c in candidates.into_iter().flatten() {
                if let Some(t) = c.as_str() {
                    return quoted(t);
                }
                if !c.is_null() && !c.is_object() {
                    return quoted(&c.to_string());
                }
            }
        }
        let kind = self
            .header("content-type")
            .map(|t| t.split(';').next().unwrap_or_default().trim())
            .filter(|t| !t.is_empty())
            .map_or_else(|| "no content type".to_owned(), quoted);
        format!(
            "a {}-byte answer ({kind}) without an error message",
            self.body.len()
        )
    }
}

/// At most [`MAX_QUOTED`] characters of foreign text, control characters removed.
pub(crate) fn quoted(s: &str) -> String {
    let mut out: String = s
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_QUOTED)
        .collect();
    if s.trim().chars().count() > MAX_QUOTED {
        out.push('…');
    }
    out
}

fn path_of(u: &str) -> String {
    url::Url::parse(u)
        .map(|u| u.path().to_owned())
        .unwrap_or_else(|_| u.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_headers_are_read_verbatim() {
        let h = r#"<https://shop.example/admin/api/2025-01/orders.json?limit=50&page_info=abc>; rel="previous", <https://shop.example/admin/api/2025-01/orders.json?limit=50&page_info=d,e>; rel="next""#;
        assert_eq!(
            link_rel(h, "next").as_deref(),
            Some("https://shop.example/admin/api/2025-01/orders.json?limit=50&page_info=d,e")
        );
        assert_eq!(link_rel(r#"</v2/x?page=2>; rel="next""#, "prev"), None);
        assert_eq!(link_rel("<a>; rel=next", "next").as_deref(), Some("a"));
    }

    #[test]
    fn back_off_doubles_and_is_capped() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(0, None), Duration::from_millis(500));
        assert_eq!(p.delay(2, None), Duration::from_secs(2));
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(3600))),
            Duration::from_secs(60)
        );
    }
}
