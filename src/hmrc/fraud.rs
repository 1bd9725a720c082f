//! HMRC's fraud-prevention headers for the `WEB_APP_VIA_SERVER` connection method
//! (docs/hmrc.md#fraud-prevention-headers), built from what the request carries: the
//! browser's values the web app sends (`client`), the signed-in user, the proxy's
//! `X-Forwarded-For`, and the operator's `hmrc.vendor_public_ip`.
//!
//! A value that cannot be known is left out, header and all, never filled with a
//! placeholder. A browser value in the wrong shape is the caller's mistake: a 400 naming
//! the field. A leaf: it knows no other part of the HMRC module.

use std::net::IpAddr;

use rocket::request::{FromRequest, Outcome, Request};
use rust_decimal::Decimal;
use serde::Deserialize;
use time::OffsetDateTime;

use crate::clock::utc_millis;
use crate::error::{AppError, AppResult};

/// The connection method every call declares.
pub const CONNECTION_METHOD: &str = "WEB_APP_VIA_SERVER";
/// `Gov-Vendor-Product-Name`.
pub const PRODUCT_NAME: &str = "Stockbook";
/// The request header in which the web app sends the browser's values on a `GET` (the
/// same JSON as a submission's `client`, percent-encoded).
pub const CLIENT_HEADER: &str = "Stockbook-Client";

/// The browser's raw values (`client` of a submission).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ClientInfo {
    pub js_user_agent: Option<String>,
    pub screens: Option<Vec<Screen>>,
    pub window_size: Option<WindowSize>,
    /// `UTC+01:00`.
    pub timezone: Option<String>,
    /// Collected but not sent: HMRC no longer asks web apps for it.
    pub do_not_track: Option<bool>,
    /// Collected but not sent: HMRC no longer asks web apps for them.
    pub plugins: Option<Vec<String>>,
    /// The UUID the web app keeps in the browser.
    pub device_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Screen {
    pub width: i64,
    pub height: i64,
    pub scaling_factor: Option<Decimal>,
    pub colour_depth: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct WindowSize {
    pub width: i64,
    pub height: i64,
}

/// The way a user signed in with a second factor (`Gov-Client-Multi-Factor`'s `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactorKind {
    Totp,
    AuthCode,
    Other,
}

/// A second factor the session's user passed (two-factor sign-in).
#[derive(Debug, Clone)]
pub struct Factor {
    pub kind: FactorKind,
    /// When it was last prompted for.
    pub at: OffsetDateTime,
    /// An identifier of the factor (a hash of its secret's id), never the secret.
    pub unique_reference: String,
}

/// What the request says about where it came from: `X-Forwarded-For` and the browser's
/// values sent in [`CLIENT_HEADER`].
#[derive(Debug, Clone, Default)]
pub struct RequestOrigin {
    pub forwarded_for: Option<String>,
    pub client_header: Option<String>,
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for RequestOrigin {
    type Error = ();
    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        let h = |n: &str| {
            let all: Vec<&str> = req.headers().get(n).collect();
            (!all.is_empty()).then(|| all.join(","))
        };
        Outcome::Success(Self {
            forwarded_for: h("X-Forwarded-For"),
            client_header: req.headers().get_one(CLIENT_HEADER).map(str::to_owned),
        })
    }
}

impl RequestOrigin {
    /// The browser's values of a `GET`, from [`CLIENT_HEADER`]; none when absent.
    pub fn client(&self) -> AppResult<ClientInfo> {
        let Some(raw) = self.client_header.as_deref() else {
            return Ok(ClientInfo::default());
        };
        let text = url::form_urlencoded::parse(format!("v={raw}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        serde_json::from_str(&text).map_err(|e| {
            AppError::bad_request(format!(
                "The {CLIENT_HEADER} header is not the browser's values as JSON: {e}"
            ))
        })
    }
}

/// Everything the headers are made from.
pub struct Inputs<'a> {
    pub client: &'a ClientInfo,
    pub user_id: &'a str,
    pub origin: &'a RequestOrigin,
    /// When the request was received (`Gov-Client-Public-IP-Timestamp`).
    pub received: OffsetDateTime,
    pub vendor_public_ip: Option<IpAddr>,
    pub factor: Option<&'a Factor>,
}

/// Percent-encodes everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`):
/// the encoding of the spec's keys and values.
pub fn pct(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-encodes what a header may not carry as it is: bytes outside printable US-ASCII
/// and `%` itself (a browser's user agent is sent as reported, otherwise).
fn ascii_only(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if (0x20..0x7f).contains(&b) && b != b'%' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `Gov-Client-Multi-Factor` for the session's second factor; `None` (the header left
/// out) when the user signed in with a password only.
pub fn multi_factor(factor: Option<&Factor>) -> Option<String> {
    let f = factor?;
    let kind = match f.kind {
        FactorKind::Totp => "TOTP",
        FactorKind::AuthCode => "AUTH_CODE",
        FactorKind::Other => "OTHER",
    };
    let at = f.at.to_offset(time::UtcOffset::UTC);
    let stamp = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute()
    );
    Some(format!(
        "type={kind}&timestamp={}&unique-reference={}",
        pct(&stamp),
        pct(&f.unique_reference)
    ))
}

/// One `X-Forwarded-For` entry: an address with, perhaps, a port (`1.2.3.4:5678`,
/// `[2001:db8::1]:5678`).
fn parse_hop(raw: &str) -> Option<(IpAddr, Option<u16>)> {
    let raw = raw.trim().trim_matches('"');
    if let Ok(ip) = raw.parse::<IpAddr>() {
        return Some((ip, None));
    }
    if let Ok(sa) = raw.parse::<std::net::SocketAddr>() {
        return Some((sa.ip(), Some(sa.port())));
    }
    raw.strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|r| r.parse().ok())
        .map(|ip| (ip, None))
}

fn public(ip: IpAddr) -> bool {
    crate::outbound::blocked_kind(ip).is_none()
}

fn positive(field: &str, v: i64) -> AppResult<i64> {
    if v >= 1 {
        Ok(v)
    } else {
        Err(AppError::invalid(field, "must be a positive whole number"))
    }
}

/// `UTC±hh:mm`, as HMRC writes a timezone.
fn check_timezone(tz: &str) -> AppResult<String> {
    let b = tz.as_bytes();
    let ok = b.len() == 9
        && tz.starts_with("UTC")
        && matches!(b[3], b'+' | b'-')
        && b[4..6].iter().all(u8::is_ascii_digit)
        && b[6] == b':'
        && b[7..9].iter().all(u8::is_ascii_digit)
        && tz[4..6].parse::<u8>().is_ok_and(|h| h <= 14)
        && tz[7..9].parse::<u8>().is_ok_and(|m| m < 60);
    if ok {
        Ok(tz.to_owned())
    } else {
        Err(AppError::invalid(
            "client.timezone",
            "must be like `UTC+01:00` (UTC±hh:mm)",
        ))
    }
}

/// The headers, in HMRC's formats, each `(name, value)`; the ones that cannot be known
/// are not in the list. 400 for a browser value in the wrong shape.
pub fn headers(i: &Inputs<'_>) -> AppResult<Vec<(&'static str, String)>> {
    let mut h: Vec<(&'static str, String)> =
        vec![("Gov-Client-Connection-Method", CONNECTION_METHOD.into())];
    let c = i.client;
    if let Some(ua) = c
        .js_user_agent
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        h.push(("Gov-Client-Browser-JS-User-Agent", ascii_only(ua)));
    }
    if let Some(id) = c
        .device_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let id = uuid::Uuid::parse_str(id)
            .map_err(|_| AppError::invalid("client.device_id", "must be a UUID"))?;
        h.push(("Gov-Client-Device-ID", id.hyphenated().to_string()));
    }
    if let Some(mf) = multi_factor(i.factor) {
        h.push(("Gov-Client-Multi-Factor", mf));
    }
    // The client's public address: the first hop a proxy recorded, when public.
    let hops: Vec<(IpAddr, Option<u16>)> = i
        .origin
        .forwarded_for
        .as_deref()
        .map(|x| x.split(',').filter_map(parse_hop).collect())
        .unwrap_or_default();
    let client_hop = hops.first().copied().filter(|(ip, _)| public(*ip));
    if let Some((ip, port)) = client_hop {
        h.push(("Gov-Client-Public-IP", ip.to_string()));
        h.push(("Gov-Client-Public-IP-Timestamp", utc_millis(i.received)));
        if let Some(p) = port.filter(|p| *p != 0 && *p != 80 && *p != 443) {
            h.push(("Gov-Client-Public-Port", p.to_string()));
        }
    }
    if let Some(screens) = c.screens.as_ref().filter(|s| !s.is_empty()) {
        let mut list = Vec::new();
        for s in screens {
            let mut kv = format!(
                "width={}&height={}",
                positive("client.screens.width", s.width)?,
                positive("client.screens.height", s.height)?
            );
            if let Some(f) = s.scaling_factor {
                if f <= Decimal::ZERO {
                    return Err(AppError::invalid(
                        "client.screens.scaling_factor",
                        "must be a positive number",
                    ));
                }
                kv.push_str(&format!(
                    "&scaling-factor={}",
                    pct(&f.normalize().to_string())
                ));
            }
            if let Some(d) = s.colour_depth {
                kv.push_str(&format!(
                    "&colour-depth={}",
                    positive("client.screens.colour_depth", d)?
                ));
            }
            list.push(kv);
        }
        h.push(("Gov-Client-Screens", list.join(",")));
    }
    if let Some(tz) = c
        .timezone
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        h.push(("Gov-Client-Timezone", check_timezone(tz)?));
    }
    h.push((
        "Gov-Client-User-IDs",
        format!(
            "{}={}",
            pct(&PRODUCT_NAME.to_ascii_lowercase()),
            pct(i.user_id)
        ),
    ));
    if let Some(w) = &c.window_size {
        h.push((
            "Gov-Client-Window-Size",
            format!(
                "width={}&height={}",
                positive("client.window_size.width", w.width)?,
                positive("client.window_size.height", w.height)?
            ),
        ));
    }
    if let Some(forwarded) = vendor_forwarded(&hops, client_hop.is_some(), i.vendor_public_ip) {
        h.push(("Gov-Vendor-Forwarded", forwarded));
    }
    h.push(("Gov-Vendor-Product-Name", pct(PRODUCT_NAME)));
    if let Some(ip) = i.vendor_public_ip {
        h.push(("Gov-Vendor-Public-IP", ip.to_string()));
    }
    h.push((
        "Gov-Vendor-Version",
        format!(
            "{}={}",
            pct(&PRODUCT_NAME.to_ascii_lowercase()),
            pct(env!("CARGO_PKG_VERSION"))
        ),
    ));
    Ok(h)
}

/// `Gov-Vendor-Forwarded`: one `by=…&for=…` per hop over the internet, from the client's
/// public address through the public proxies `X-Forwarded-For` names to this server's
/// public address (`hmrc.vendor_public_ip`). Without the client's public address or
/// anything that received its request, nothing can be said.
fn vendor_forwarded(
    hops: &[(IpAddr, Option<u16>)],
    client_known: bool,
    vendor: Option<IpAddr>,
) -> Option<String> {
    if !client_known {
        return None;
    }
    let mut chain: Vec<IpAddr> = hops
        .iter()
        .map(|(ip, _)| *ip)
        .filter(|ip| public(*ip))
        .collect();
    if let Some(v) = vendor {
        if chain.last() != Some(&v) {
            chain.push(v);
        }
    }
    if chain.len() < 2 {
        return None;
    }
    Some(
        chain
            .windows(2)
            .map(|w| {
                format!(
                    "by={}&for={}",
                    pct(&w[1].to_string()),
                    pct(&w[0].to_string())
                )
            })
            .collect::<Vec<_>>()
            .join(","),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_factor_is_described_in_hmrcs_format_and_none_leaves_the_header_out() {
        assert_eq!(multi_factor(None), None);
        let f = Factor {
            kind: FactorKind::Totp,
            at: time::macros::datetime!(2026-11-21 13:23:45 UTC),
            unique_reference: "abc 1".into(),
        };
        assert_eq!(
            multi_factor(Some(&f)).unwrap(),
            "type=TOTP&timestamp=2026-11-21T13%3A23Z&unique-reference=abc%201"
        );
    }

    #[test]
    fn forwarded_hops_run_from_the_client_to_this_server() {
        let c: IpAddr = "81.2.69.160".parse().unwrap();
        let v: IpAddr = "51.140.0.10".parse().unwrap();
        assert_eq!(
            vendor_forwarded(&[(c, None)], true, Some(v)).unwrap(),
            "by=51.140.0.10&for=81.2.69.160"
        );
        assert_eq!(vendor_forwarded(&[(c, None)], true, None), None);
        assert_eq!(vendor_forwarded(&[], false, Some(v)), None);
    }
}
