//! Which outgoing calls the server may make (docs/limits.md): the import connectors use
//! it, and so can anything else that calls a URL a user gave (webhooks).
//!
//! The rule: a URL must be `https://`, and its host must not resolve to a loopback,
//! private (RFC 1918, CGNAT `100.64/10`, IPv6 ULA `fc00::/7`), link-local, unspecified,
//! multicast, documentation, benchmarking or otherwise reserved address, nor to the
//! IPv4-mapped, IPv4-compatible, NAT64 or 6to4 form of one ([`blocked_kind`]). An origin
//! the operator configured (`platforms.<id>.base_url`, a token URL) is allowed whatever
//! its scheme and address: [`OutboundPolicy::allow`].
//!
//! The check that matters is made on the address actually connected to: [`OutboundPolicy::agent`]
//! builds a `ureq` agent whose resolver looks the name up once, refuses the connection
//! when any answer is a blocked address, and hands the checked addresses to the
//! connector, so a name that resolves to a public address when a URL is saved and to
//! `127.0.0.1` when it is called (DNS rebinding) is still refused. The agent uses no
//! proxy (a proxy would connect on our behalf to an address we never saw).
//!
//! [`OutboundPolicy::check_url`] is the cheap check without DNS (scheme, user info,
//! IP-literal hosts), for a URL before it is used; [`OutboundPolicy::check_resolved`]
//! adds the lookup, for a URL when it is saved. Refusals are [`Refusal`], whose messages
//! name the rule and the host (never more than [`MAX_SHOWN`] characters of it).

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

/// At most this many characters of a URL or host appear in a message.
pub const MAX_SHOWN: usize = 100;

/// Why an outgoing call is refused. `Display` is a message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not an absolute URL with a host.
    NotUrl(String),
    /// Not `https://` (and not an allowed origin).
    NotHttps(String),
    /// User name or password in the URL.
    UserInfo,
    /// The host is, or resolves to, an address of that kind.
    Blocked { host: String, kind: &'static str },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotUrl(u) => write!(f, "`{}` is not an https:// URL", shown(u)),
            Self::NotHttps(u) => write!(
                f,
                "`{}` is not allowed: outgoing calls use https:// only",
                shown(u)
            ),
            Self::UserInfo => f.write_str("a URL may not carry a user name or password"),
            Self::Blocked { host, kind } => write!(
                f,
                "`{}` is a {kind} address: outgoing calls go only to public hosts",
                shown(host)
            ),
        }
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// The refusal carried by a `ureq` error, when the policy's resolver refused.
    pub fn from_ureq(e: &ureq::Error) -> Option<&Refusal> {
        match e {
            ureq::Error::Io(io) => io.get_ref().and_then(|inner| inner.downcast_ref()),
            _ => None,
        }
    }
}

fn shown(s: &str) -> String {
    let mut out: String = s
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_SHOWN)
        .collect();
    if s.chars().count() > MAX_SHOWN {
        out.push('…');
    }
    out
}

/// The kind of address `ip` is when outgoing calls may not reach it, `None` for a
/// public address.
pub fn blocked_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => blocked_v4(v4),
        IpAddr::V6(v6) => blocked_v6(v6),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let kind = match (a, b, c) {
        _ if ip.is_unspecified() || a == 0 => "unspecified",
        _ if ip.is_loopback() => "loopback",
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => "private",
        (100, 64..=127, _) => "private (shared address space)",
        _ if ip.is_link_local() => "link-local",
        (192, 0, 0) => "reserved",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18..=19, _) => "benchmarking",
        _ if ip.is_multicast() => "multicast",
        _ if ip.is_broadcast() || a >= 240 => "reserved",
        _ => return None,
    };
    Some(kind)
}

fn blocked_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    // ::ffff:a.b.c.d (mapped), 64:ff9b::a.b.c.d (NAT64): the IPv4 address decides.
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if s[..5] == [0, 0, 0, 0, 0] && s[5] == 0xffff {
        return blocked_v4(embedded(s[6], s[7]));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return blocked_v4(embedded(s[6], s[7]));
    }
    // ::a.b.c.d (IPv4-compatible, deprecated).
    if s[..6] == [0; 6] {
        return Some("reserved");
    }
    // 6to4: 2002:AABB:CCDD::/48 carries a.b.c.d.
    if s[0] == 0x2002 {
        return blocked_v4(embedded(s[1], s[2]));
    }
    let kind = match s[0] {
        0xfc00..=0xfdff => "private",
        0xfe80..=0xfebf => "link-local",
        0xfec0..=0xfeff => "private (site-local)",
        0xff00..=0xffff => "multicast",
        // Teredo tunnels (2001::/32) reach hidden IPv4 hosts; 2001:db8::/32 is documentation.
        0x2001 if s[1] == 0 => "reserved (Teredo)",
        0x2001 if s[1] == 0xdb8 => "documentation",
        // 64:ff9b:1::/48 local-use NAT64, 100::/64 discard-only.
        0x64 if s[1] == 0xff9b && s[2] == 1 => "private",
        0x100 if s[1..4] == [0, 0, 0] => "reserved",
        _ => return None,
    };
    Some(kind)
}

/// The serialised origin (`scheme://host[:port]`) of a URL, for comparing.
fn origin_of(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

/// Which outgoing calls are allowed: public `https://` hosts, and the origins the
/// operator configured. Cheap to clone.
#[derive(Clone, Default)]
pub struct OutboundPolicy {
    allowed: Arc<BTreeSet<String>>,
    /// Also `http://` URLs (`webhooks_allow_http`).
    any_scheme: bool,
    /// Also hosts at blocked addresses (`webhooks_allow_private`).
    any_address: bool,
}

impl fmt::Debug for OutboundPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutboundPolicy")
            .field("allowed", &self.allowed)
            .field("any_scheme", &self.any_scheme)
            .field("any_address", &self.any_address)
            .finish()
    }
}

impl OutboundPolicy {
    /// Public `https://` hosts only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also allows the origin of `url`, whatever its scheme and address: for URLs the
    /// operator configured. A value that is not a URL allows nothing.
    #[must_use]
    pub fn allow(mut self, url: &str) -> Self {
        if let Ok(u) = url::Url::parse(url.trim()) {
            if u.host().is_some() {
                Arc::make_mut(&mut self.allowed).insert(origin_of(&u));
            }
        }
        self
    }

    /// With `true`, also allows `http://` URLs (the operator's `webhooks_allow_http`).
    #[must_use]
    pub fn allow_http(mut self, yes: bool) -> Self {
        self.any_scheme = yes;
        self
    }

    /// With `true`, also allows hosts at loopback, private, link-local and the other
    /// blocked addresses (the operator's `webhooks_allow_private`).
    #[must_use]
    pub fn allow_private(mut self, yes: bool) -> Self {
        self.any_address = yes;
        self
    }

    /// Whether `url` has an origin the operator configured.
    pub fn is_allowed(&self, url: &url::Url) -> bool {
        self.allowed.contains(&origin_of(url))
    }

    /// The check without DNS: an absolute URL with a host, no user info, `https://`
    /// unless its origin is allowed, and no IP-literal host of a blocked kind.
    pub fn check_url(&self, raw: &str) -> Result<url::Url, Refusal> {
        let url = url::Url::parse(raw.trim()).map_err(|_| Refusal::NotUrl(raw.to_owned()))?;
        let Some(host) = url.host() else {
            return Err(Refusal::NotUrl(raw.to_owned()));
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Refusal::UserInfo);
        }
        if self.is_allowed(&url) {
            return Ok(url);
        }
        if url.scheme() != "https" && !(self.any_scheme && url.scheme() == "http") {
            return Err(Refusal::NotHttps(raw.to_owned()));
        }
        if self.any_address {
            return Ok(url);
        }
        let ip = match host {
            url::Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
            url::Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
            url::Host::Domain(_) => None,
        };
        if let Some(kind) = ip.and_then(blocked_kind) {
            return Err(Refusal::Blocked {
                host: host.to_string(),
                kind,
            });
        }
        Ok(url)
    }

    /// [`check_url`](Self::check_url), then the host's addresses, looked up within
    /// `timeout`. A name that does not resolve (or not in time) passes: the call itself
    /// will check again. For a URL when it is saved.
    pub fn check_resolved(&self, raw: &str, timeout: Duration) -> Result<url::Url, Refusal> {
        let url = self.check_url(raw)?;
        if self.is_allowed(&url) || self.any_address {
            return Ok(url);
        }
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Ok(url);
        };
        let target = format!("{host}:{port}");
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        std::thread::spawn(move || {
            let found = target
                .to_socket_addrs()
                .ok()
                .map(Iterator::collect::<Vec<_>>);
            let _ = tx.send(found);
        });
        if let Ok(Some(addrs)) = rx.recv_timeout(timeout) {
            check_addrs(host, addrs)?;
        }
        Ok(url)
    }

    /// A `ureq` agent for `config` that connects only where this policy allows, checking
    /// the addresses it connects to. The config's proxy is removed.
    pub fn agent(
        &self,
        config: ureq::config::ConfigBuilder<ureq::typestate::AgentScope>,
    ) -> ureq::Agent {
        let config = config.proxy(None).build();
        ureq::Agent::with_parts(
            config,
            DefaultConnector::default(),
            CheckingResolver {
                policy: self.clone(),
                inner: DefaultResolver::default(),
                resolved: Mutex::new(HashMap::new()),
            },
        )
    }
}

/// Refuses when any of the addresses is of a blocked kind.
fn check_addrs(host: &str, addrs: impl IntoIterator<Item = SocketAddr>) -> Result<(), Refusal> {
    for a in addrs {
        if let Some(kind) = blocked_kind(a.ip()) {
            return Err(Refusal::Blocked {
                host: host.to_owned(),
                kind,
            });
        }
    }
    Ok(())
}

/// How long a host's checked addresses are used again without a new lookup.
const RESOLVED_FOR: Duration = Duration::from_secs(30);
/// Hosts whose addresses are kept at most; past that the oldest lookups are forgotten.
const RESOLVED_MAX: usize = 256;

/// The resolver of [`OutboundPolicy::agent`]: the default lookup, then the policy.
///
/// ureq asks its resolver before every request, even one that goes out on a pooled
/// keep-alive connection, and its default resolver, when the call has a timeout (ours
/// all do), looks the name up on a thread it starts for that purpose. A webhook sends an
/// event per request to the same host, so the addresses that passed the policy are kept
/// for [`RESOLVED_FOR`] per scheme and authority: they are exactly the addresses the
/// call connects to, so the check still covers every connection
/// (docs/webhooks.md#urls).
struct CheckingResolver {
    policy: OutboundPolicy,
    inner: DefaultResolver,
    /// `scheme://authority` -> (when looked up, the addresses that passed).
    resolved: Mutex<HashMap<String, (Instant, ResolvedSocketAddrs)>>,
}

impl CheckingResolver {
    fn lookup(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let raw = uri.to_string();
        let url = self.policy.check_url(&raw).map_err(refused)?;
        let addrs = self.inner.resolve(uri, config, timeout)?;
        if !self.policy.is_allowed(&url) && !self.policy.any_address {
            check_addrs(url.host_str().unwrap_or_default(), addrs.iter().copied())
                .map_err(refused)?;
        }
        Ok(addrs)
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, ResolvedSocketAddrs)>> {
        self.resolved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl fmt::Debug for CheckingResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CheckingResolver")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

fn refused(r: Refusal) -> ureq::Error {
    ureq::Error::Io(io::Error::new(io::ErrorKind::PermissionDenied, r))
}

impl Resolver for CheckingResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        // Everything the policy looks at is in the scheme and the authority (user info,
        // host, port); the path is not.
        let key = match (uri.scheme_str(), uri.authority()) {
            (Some(scheme), Some(authority)) => format!("{scheme}://{authority}"),
            _ => return self.lookup(uri, config, timeout),
        };
        let now = Instant::now();
        if let Some((at, addrs)) = self.kept().get(&key) {
            if now.duration_since(*at) < RESOLVED_FOR {
                return Ok(addrs.clone());
            }
        }
        let addrs = self.lookup(uri, config, timeout)?;
        let mut kept = self.kept();
        kept.retain(|_, (at, _)| now.duration_since(*at) < RESOLVED_FOR);
        if kept.len() >= RESOLVED_MAX {
            kept.clear();
        }
        kept.insert(key, (now, addrs.clone()));
        Ok(addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<&'static str> {
        blocked_kind(s.parse().unwrap())
    }

    #[test]
    fn private_loopback_link_local_and_their_ipv6_forms_are_blocked() {
        for (ip, k) in [
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("0.0.0.0", "unspecified"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("100.64.0.1", "private (shared address space)"),
            ("169.254.169.254", "link-local"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "reserved"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private"),
            ("::ffff:169.254.169.254", "link-local"),
            ("64:ff9b::a00:1", "private"),
            ("2002:7f00:1::", "loopback"),
            ("fc00::1", "private"),
            ("fd12:3456::1", "private"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::127.0.0.1", "reserved"),
        ] {
            assert_eq!(kind(ip), Some(k), "{ip}");
        }
        for ip in [
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "93.184.216.34",
            "2a00:1450:4009:81b::200e",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(kind(ip), None, "{ip}");
        }
    }

    #[test]
    fn only_https_urls_to_public_ip_literals_pass_without_an_allowed_origin() {
        let p = OutboundPolicy::new();
        assert!(p.check_url("https://shop.example/wp").is_ok());
        assert!(matches!(
            p.check_url("http://shop.example"),
            Err(Refusal::NotHttps(_))
        ));
        assert!(matches!(
            p.check_url("https://127.0.0.1:8443"),
            Err(Refusal::Blocked {
                kind: "loopback",
                ..
            })
        ));
        assert!(matches!(
            p.check_url("https://[::ffff:10.0.0.1]/"),
            Err(Refusal::Blocked {
                kind: "private",
                ..
            })
        ));
        // The WHATWG parser reads 2130706433 and 0x7f.1 as 127.0.0.1.
        assert!(p.check_url("https://2130706433/").is_err());
        assert!(p.check_url("https://0x7f.1/").is_err());
        assert_eq!(
            p.check_url("https://u:p@shop.example"),
            Err(Refusal::UserInfo)
        );
        assert!(matches!(
            p.check_url("shop.example"),
            Err(Refusal::NotUrl(_))
        ));

        let allowed = OutboundPolicy::new().allow("http://127.0.0.1:9000/base");
        assert!(allowed.check_url("http://127.0.0.1:9000/v1/x").is_ok());
        assert!(allowed.check_url("http://127.0.0.1:9001/").is_err());
    }

    #[test]
    fn the_operator_may_allow_http_and_private_addresses_separately() {
        let http = OutboundPolicy::new().allow_http(true);
        assert!(http.check_url("http://shop.example/hook").is_ok());
        assert!(matches!(
            http.check_url("http://127.0.0.1:9/"),
            Err(Refusal::Blocked { .. })
        ));
        assert!(matches!(
            http.check_url("ftp://shop.example/"),
            Err(Refusal::NotHttps(_))
        ));
        let private = OutboundPolicy::new().allow_private(true);
        assert!(private.check_url("https://10.0.0.1/").is_ok());
        assert!(private
            .check_resolved("https://localhost/", Duration::from_secs(5))
            .is_ok());
        assert!(matches!(
            private.check_url("http://10.0.0.1/"),
            Err(Refusal::NotHttps(_))
        ));
        let both = OutboundPolicy::new().allow_http(true).allow_private(true);
        assert!(both.check_url("http://127.0.0.1:9/").is_ok());
        assert_eq!(
            both.check_url("http://u:p@127.0.0.1/"),
            Err(Refusal::UserInfo)
        );
    }

    /// A one-request-per-connection HTTP server on loopback that answers `name`.
    fn named_server(name: &'static str) -> u16 {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for mut s in listener.incoming().flatten() {
                let mut buf = [0_u8; 4096];
                let _ = s.read(&mut buf);
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{name}",
                    name.len()
                );
            }
        });
        port
    }

    #[test]
    fn checked_addresses_are_kept_per_authority_and_refusals_are_not_kept() {
        let agent = OutboundPolicy::new()
            .allow_http(true)
            .allow_private(true)
            .agent(ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(5))));
        let (a, b) = (named_server("a"), named_server("b"));
        for _ in 0..2 {
            for (port, name) in [(a, "a"), (b, "b")] {
                let got = agent
                    .get(&format!("http://127.0.0.1:{port}/x"))
                    .call()
                    .unwrap()
                    .body_mut()
                    .read_to_string()
                    .unwrap();
                assert_eq!(got, name, "each port reaches its own server");
            }
        }
        let strict = OutboundPolicy::new()
            .allow_http(true)
            .agent(ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(5))));
        for _ in 0..2 {
            let e = strict
                .get(&format!("http://localhost:{a}/x"))
                .call()
                .unwrap_err();
            assert!(Refusal::from_ureq(&e).is_some(), "{e}");
        }
    }

    #[test]
    fn a_name_that_resolves_to_loopback_is_refused_when_resolved() {
        let p = OutboundPolicy::new();
        assert!(p.check_url("https://localhost/").is_ok(), "no DNS here");
        assert_eq!(
            p.check_resolved("https://localhost/", Duration::from_secs(5)),
            Err(Refusal::Blocked {
                host: "localhost".into(),
                kind: "loopback"
            })
        );
    }

    #[test]
    fn messages_are_bounded() {
        let long = format!("http://{}.example", "a".repeat(5000));
        let msg = OutboundPolicy::new()
            .check_url(&long)
            .unwrap_err()
            .to_string();
        assert!(msg.len() < 200, "{msg}");
        assert!(msg.contains("https://"), "{msg}");
    }
}
