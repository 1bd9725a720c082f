//! The calls to HMRC (docs/hmrc.md): the OAuth token endpoint and the VAT API, blocking,
//! over `ureq` under the outgoing-call rules (docs/limits.md#outgoing-calls), the
//! origins the operator configured in `hmrc` allowed whatever their address.
//!
//! HMRC's refusals keep HMRC's code and message ([`HmrcError::Refused`]); an answer of
//! 5xx is [`HmrcError::Unavailable`]; no answer at all is [`HmrcError::Unreachable`],
//! when HMRC may or may not have received the request.

use std::time::Duration;

use serde_json::Value;
use ureq::http;

use crate::config::HmrcConfig;
use crate::error::AppError;
use crate::outbound::OutboundPolicy;

/// How long one call may take end to end.
const TIMEOUT: Duration = Duration::from_secs(60);
/// The VAT (MTD) API version asked for.
pub const ACCEPT: &str = "application/vnd.hmrc.1.0+json";
/// Answers larger than this are refused.
const MAX_BODY: u64 = 4 * 1024 * 1024;
/// At most this many characters of HMRC's message are quoted.
const MAX_QUOTED: usize = 300;

#[derive(Debug, Clone)]
pub enum HmrcError {
    /// `hmrc.client_id` / `client_secret` not set.
    NotConfigured(&'static str),
    /// HMRC refused with a 4xx: its code(s) and message.
    Refused {
        status: u16,
        code: String,
        message: String,
    },
    /// The refresh token no longer works (expired, revoked, or used already).
    ReconnectRequired,
    /// HMRC answered 5xx.
    Unavailable { status: u16 },
    /// No connection could be made: the request was never sent.
    NotSent(String),
    /// No answer (or one that could not be read) after the request may have been sent:
    /// the cause, for the message.
    Unreachable(String),
}

/// Whether a `ureq` error happened before anything of the request left (no address, no
/// connection, refused by the outgoing-call rules, the TLS handshake).
fn before_sending(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::HostNotFound
        | ureq::Error::ConnectionFailed
        | ureq::Error::BadUri(_)
        | ureq::Error::Http(_)
        | ureq::Error::Tls(_)
        | ureq::Error::Rustls(_) => true,
        ureq::Error::Timeout(t) => matches!(t, ureq::Timeout::Resolve | ureq::Timeout::Connect),
        ureq::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::PermissionDenied
        ),
        _ => false,
    }
}

impl From<HmrcError> for AppError {
    fn from(e: HmrcError) -> Self {
        match e {
            // The operator's to set up, not a fault: a 409 naming the keys, as for mail.
            HmrcError::NotConfigured(key) => AppError::refused("not_configured", format!(
                "Filing with HMRC is not configured on this server: `hmrc.{key}` is not set (docs/hmrc.md)"
            )),
            HmrcError::Refused {
                status,
                code,
                message,
            } => {
                let text = format!("HMRC refused the request: {code}: {message}");
                match status {
                    // HMRC's business rules (a duplicate, a period not ended): the
                    // request is sound but the state of things refuses it.
                    403 | 409 | 422 => AppError::refused("hmrc_refused", text),
                    404 => AppError::NotFound(text),
                    401 => AppError::refused("hmrc_reconnect", format!("{text}: connect to HMRC again")),
                    429 => AppError::TooManyRequests {
                        message: text,
                        retry_after: 60,
                    },
                    _ => AppError::BadRequest(text),
                }
            }
            HmrcError::ReconnectRequired => AppError::refused(
                "hmrc_reconnect",
                "HMRC no longer accepts this connection's authority (it expired after 18 months \
                 or was withdrawn): connect to HMRC again",
            ),
            HmrcError::Unavailable { status } => AppError::Unavailable(format!(
                "HMRC answered HTTP {status} (a fault on HMRC's side): nothing was filed; try again later"
            )),
            HmrcError::NotSent(why) | HmrcError::Unreachable(why) => AppError::Unavailable(
                format!("HMRC could not be reached ({why}): try again later"),
            ),
        }
    }
}

/// One answer of HMRC.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A grant of the token endpoint.
#[derive(Debug, Clone)]
pub struct Grant {
    pub access_token: String,
    pub refresh_token: String,
    /// Seconds.
    pub expires_in: i64,
}

pub struct Hmrc {
    agent: ureq::Agent,
    config: HmrcConfig,
}

fn shown(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(MAX_QUOTED)
        .collect()
}

/// HMRC's code and message from an error body: `{code, message}`, or, for a business
/// error, the codes of its `errors` (`{code: BUSINESS_ERROR, errors: [{code, message}]}`).
pub fn error_of(body: &Value) -> (String, String) {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(shown);
    if let Some(errors) = body.get("errors").and_then(Value::as_array) {
        let codes: Vec<String> = errors.iter().filter_map(|e| s(e, "code")).collect();
        let messages: Vec<String> = errors.iter().filter_map(|e| s(e, "message")).collect();
        if !codes.is_empty() {
            return (codes.join(", "), messages.join("; "));
        }
    }
    (
        s(body, "code").unwrap_or_else(|| "UNKNOWN".into()),
        s(body, "message").unwrap_or_default(),
    )
}

impl Hmrc {
    pub fn new(config: &HmrcConfig) -> Self {
        let policy = config
            .configured_urls()
            .fold(OutboundPolicy::new(), OutboundPolicy::allow);
        let builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(TIMEOUT))
            .user_agent(concat!("Stockbook/", env!("CARGO_PKG_VERSION")))
            .max_redirects(0);
        Self {
            agent: policy.agent(builder),
            config: config.clone(),
        }
    }

    fn send(
        &self,
        req: http::request::Builder,
        body: Option<(&str, String)>,
    ) -> Result<Answer, HmrcError> {
        let bad = |e: &dyn std::fmt::Display| HmrcError::Unreachable(format!("{e}"));
        let result = match body {
            None => self.agent.run(req.body(()).map_err(|e| bad(&e))?),
            Some((ct, text)) => self.agent.run(
                req.header("Content-Type", ct)
                    .body(text)
                    .map_err(|e| bad(&e))?,
            ),
        };
        let mut res = result.map_err(|e| {
            if before_sending(&e) {
                HmrcError::NotSent(e.to_string())
            } else {
                bad(&e)
            }
        })?;
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
        let text = res
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(|e| bad(&e))?;
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    /// The token endpoint with `form` (plus the client credentials).
    fn token(&self, form: &[(&str, &str)]) -> Result<Grant, HmrcError> {
        let (id, secret) = self.config.credentials().ok_or(HmrcError::NotConfigured(
            "client_id` and `hmrc.client_secret",
        ))?;
        let mut pairs: Vec<(&str, &str)> = form.to_vec();
        pairs.push(("client_id", id));
        pairs.push(("client_secret", secret));
        let text = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        let req = http::Request::builder()
            .method("POST")
            .uri(self.config.token())
            .header("Accept", "application/json");
        let a = self.send(req, Some(("application/x-www-form-urlencoded", text)))?;
        let str_of = |k: &str| a.body.get(k).and_then(Value::as_str).map(str::to_owned);
        match a.status {
            200..=299 => {
                let access_token = str_of("access_token").ok_or_else(|| {
                    HmrcError::Unreachable("a token answer without `access_token`".into())
                })?;
                let refresh_token = str_of("refresh_token").ok_or_else(|| {
                    HmrcError::Unreachable("a token answer without `refresh_token`".into())
                })?;
                let expires_in = a
                    .body
                    .get("expires_in")
                    .and_then(Value::as_i64)
                    .unwrap_or(14_400)
                    .clamp(0, 86_400);
                Ok(Grant {
                    access_token,
                    refresh_token,
                    expires_in,
                })
            }
            400 | 401 if str_of("error").as_deref() == Some("invalid_grant") => {
                Err(HmrcError::ReconnectRequired)
            }
            400..=499 => Err(HmrcError::Refused {
                status: a.status,
                code: str_of("error").map_or_else(|| "UNKNOWN".into(), |s| shown(&s)),
                message: str_of("error_description")
                    .map(|s| shown(&s))
                    .unwrap_or_default(),
            }),
            status => Err(HmrcError::Unavailable { status }),
        }
    }

    /// Exchanges an authorisation code (with its PKCE verifier).
    pub fn exchange(
        &self,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
    ) -> Result<Grant, HmrcError> {
        self.token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ])
    }

    /// Uses up `refresh_token` for a new grant (with a new refresh token).
    pub fn refresh(&self, refresh_token: &str) -> Result<Grant, HmrcError> {
        self.token(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
        ])
    }

    /// A call of the VAT API: `path_and_query` under the API origin, with the access
    /// token and the fraud-prevention headers. 2xx answers come back; 4xx and 5xx are
    /// the errors.
    pub fn call(
        &self,
        method: &str,
        path_and_query: &str,
        token: &str,
        fraud: &[(&'static str, String)],
        body: Option<&Value>,
    ) -> Result<Answer, HmrcError> {
        let mut req = http::Request::builder()
            .method(method)
            .uri(format!("{}{path_and_query}", self.config.base()))
            .header("Accept", ACCEPT)
            .header("Authorization", format!("Bearer {token}"));
        for (k, v) in fraud {
            req = req.header(*k, v.as_str());
        }
        let a = self.send(req, body.map(|b| ("application/json", b.to_string())))?;
        match a.status {
            200..=299 => Ok(a),
            400..=499 => {
                let (code, message) = error_of(&a.body);
                Err(HmrcError::Refused {
                    status: a.status,
                    code,
                    message,
                })
            }
            status => Err(HmrcError::Unavailable { status }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_business_error_is_named_by_its_inner_codes() {
        let wrapped = json!({"code": "BUSINESS_ERROR", "message": "Business validation error",
            "errors": [{"code": "DUPLICATE_SUBMISSION", "message": "already submitted"}]});
        assert_eq!(error_of(&wrapped).0, "DUPLICATE_SUBMISSION");
        let flat = json!({"code": "VRN_INVALID", "message": "The provided VRN is invalid"});
        assert_eq!(
            error_of(&flat),
            ("VRN_INVALID".into(), "The provided VRN is invalid".into())
        );
    }
}
