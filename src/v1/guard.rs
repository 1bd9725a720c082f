//! `ApiKey`: the request guard of every public API route (docs/public-api.md#authentication,
//! docs/auth.md#credentials-per-surface).
//!
//! It reads `Authorization: Bearer <key>`, looks the key up by its SHA-256 digest,
//! refuses a missing, unknown or revoked key with 401 (a session cookie is not a
//! credential here), records the use (a writer job, at most once a minute per key), and then applies the rate limit (429 when the
//! window is full). Authentication failures never reach the rate limiter, so they do not
//! spend a key's budget. The guard gives the handler the key's [`Scope`]: the key
//! creator's records, or one entity's for a scoped key.

use rocket::fairing::AdHoc;
use rocket::http::{Header, Status};
use rocket::request::{FromRequest, Outcome, Request};

use super::rate_limit::{self, RateLimiter};
use crate::api_keys::{authenticate, touch, KeyIdentity};
use crate::auth::SESSION_COOKIE;
use crate::clock::Clock;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::stash::stash;
use crate::scope::Scope;

#[derive(Debug, Clone)]
pub struct ApiKey(pub KeyIdentity, Scope);

impl ApiKey {
    /// The key's view on this route: its creator's, as their role allows
    /// (docs/auth.md#members-and-roles), or one entity's when scoped.
    pub fn scope(&self) -> Scope {
        self.1.clone()
    }
}

/// The guard's answer, kept in the request's local cache.
struct Checked(AppResult<ApiKey>);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for ApiKey {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        // Once per request: the `Idempotency-Key` wrapper asks before the handler does,
        // and a second run would count twice against the rate limit.
        let once = req
            .local_cache_async(async { Checked(guard(req).await) })
            .await;
        match &once.0 {
            Ok(k) => Outcome::Success(k.clone()),
            Err(e) => {
                let status = e.status();
                stash(req, e.clone());
                Outcome::Error((status, ()))
            }
        }
    }
}

/// The key sent as `Authorization: Bearer <key>`.
fn bearer(req: &Request<'_>) -> AppResult<String> {
    let Some(header) = req.headers().get_one("Authorization") else {
        let message = if req.cookies().get(SESSION_COOKIE).is_some() {
            "A session cookie is not accepted on /api/v1: send an API key as `Authorization: Bearer <key>`"
        } else {
            "API key required: send `Authorization: Bearer <key>`"
        };
        return Err(AppError::Unauthorized(message.into()));
    };
    match header.trim().split_once(' ') {
        Some((scheme, key)) if scheme.eq_ignore_ascii_case("bearer") && !key.trim().is_empty() => {
            Ok(key.trim().to_owned())
        }
        _ => Err(AppError::Unauthorized(
            "The Authorization header must be `Bearer <API key>`".into(),
        )),
    }
}

async fn guard(req: &Request<'_>) -> AppResult<ApiKey> {
    let raw = bearer(req)?;
    let rocket = req.rocket();
    let db = rocket
        .state::<Db>()
        .ok_or_else(|| AppError::internal("no db"))?
        .clone();
    let clock = rocket.state::<Clock>().cloned().unwrap_or_default();
    let now = clock.now();
    let (key, stale) = db.read(move |conn| authenticate(conn, &raw, now)).await?;
    if stale {
        // Through the writer like every write (a read connection that writes would race
        // the writer's transactions in SQLite's busy handler).
        let id = key.id.clone();
        if let Err(e) = db.write(move |tx| touch(tx, &id, now)).await {
            eprintln!("stockbook: recording an API key's use failed: {e:?}");
        }
    }

    strict_query(req)?;
    let limiter = rocket
        .state::<RateLimiter>()
        .ok_or_else(|| AppError::internal("no rate limiter"))?;
    let endpoint = match req.route() {
        Some(r) => format!("{} {}", r.method, r.uri.path()),
        None => format!("{} {}", req.method(), req.uri().path()),
    };
    let now_ms = i64::try_from(now.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX);
    match limiter.hit(&key.id, &endpoint, now_ms) {
        Ok(info) => {
            rate_limit::remember(req, info);
            let scope =
                crate::auth::route_scope(req, &key.owner_id, key.entity_id.as_deref()).await?;
            Ok(ApiKey(key, scope))
        }
        Err(info) => {
            rate_limit::remember(req, info);
            Err(AppError::TooManyRequests {
                message: format!(
                    "Rate limit exceeded: {} requests per minute for {endpoint}; retry in {} s",
                    info.limit, info.reset_secs
                ),
                retry_after: info.reset_secs,
            })
        }
    }
}

/// `WWW-Authenticate` on every 401 of the public API (RFC 6750, section 3): the `Bearer`
/// scheme, with `error="invalid_token"` when the request sent a bearer credential that
/// was refused.
pub fn challenge() -> AdHoc {
    AdHoc::on_response("public API bearer challenge", |req, res| {
        Box::pin(async move {
            if res.status() != Status::Unauthorized
                || req
                    .uri()
                    .path()
                    .as_str()
                    .strip_prefix("/api/v1")
                    .is_none_or(|rest| !(rest.is_empty() || rest.starts_with('/')))
            {
                return;
            }
            let sent = req.headers().get_one("Authorization").is_some_and(|h| {
                h.trim()
                    .split_once(' ')
                    .is_some_and(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            });
            let value = if sent {
                r#"Bearer realm="stockbook", error="invalid_token""#
            } else {
                r#"Bearer realm="stockbook""#
            };
            res.set_header(Header::new("WWW-Authenticate", value));
        })
    })
}

/// The query parameters each public operation documents, keyed `"<method> <path>"` with
/// the document's path template (`/api/v1/invoices/{id}`), read from the OpenAPI document
/// when the server is built (`crate::app`), so that the document and the check cannot
/// disagree.
pub struct DocumentedQueries(std::collections::HashMap<String, Vec<String>>);

impl DocumentedQueries {
    pub fn from_openapi(doc: &serde_json::Value) -> Self {
        let mut map = std::collections::HashMap::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            for (method, op) in item.as_object().into_iter().flatten() {
                let names = op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["in"] == "query")
                    .filter_map(|p| p["name"].as_str().map(str::to_owned))
                    .collect();
                map.insert(format!("{method} {path}"), names);
            }
        }
        Self(map)
    }
}

/// An unknown query parameter on the public API is a 400 naming it
/// (docs/public-api.md#query-parameters): a misspelt filter would otherwise be ignored and
/// answer every record. The fallback routes (unknown paths) are not checked.
fn strict_query(req: &Request<'_>) -> AppResult<()> {
    let Some(route) = req.route() else {
        return Ok(());
    };
    if route.rank >= super::FALLBACK_RANK {
        return Ok(());
    }
    let template: String = route
        .uri
        .path()
        .split('/')
        .map(
            |seg| match seg.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
                Some(name) => format!("{{{name}}}"),
                None => seg.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("/");
    let key = format!("{} {template}", route.method.as_str().to_ascii_lowercase());
    let Some(known) = req
        .rocket()
        .state::<DocumentedQueries>()
        .and_then(|d| d.0.get(&key))
    else {
        return Ok(());
    };
    for (name, _) in req.uri().query().into_iter().flat_map(|q| q.segments()) {
        if !known.iter().any(|k| k == name) {
            let takes = if known.is_empty() {
                "takes no query parameter".to_owned()
            } else {
                format!("takes {}", known.join(", "))
            };
            return Err(AppError::bad_request(format!(
                "Unknown query parameter `{name}`: {} {} {takes}",
                route.method,
                req.uri().path()
            )));
        }
    }
    Ok(())
}
