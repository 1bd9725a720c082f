//! Sign-in (docs/auth.md): accounts, server-side sessions, the login throttle, and the
//! `SessionUser` request guard that every session endpoint takes.

pub mod accounts;
pub mod openapi;
pub mod password;
pub mod routes;
pub mod throttle;
pub mod token;
pub mod two_factor;

pub use two_factor::{session_mfa, SessionMfa};

use rocket::http::{Cookie, CookieJar, SameSite};
use rocket::request::{FromRequest, Outcome, Request};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;
use time::OffsetDateTime;

use crate::clock::{parse_rfc3339, rfc3339, Clock};
use crate::config::{AppConfig, CookieSecure};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::stash::stash;

pub const SESSION_COOKIE: &str = "stockbook_session";

#[derive(Debug, Clone, Serialize)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: Option<String>,
    pub created_at: String,
}

pub fn user_by_id(conn: &Connection, id: &str) -> AppResult<Option<User>> {
    Ok(conn
        .prepare_cached("SELECT id, email, name, created_at FROM users WHERE id = ?1")?
        .query_row([id], |r| {
            Ok(User {
                id: r.get(0)?,
                email: r.get(1)?,
                name: r.get(2)?,
                created_at: r.get(3)?,
            })
        })
        .optional()?)
}

/// The user and stored hash for an email, compared by its key (docs/auth.md#sign-up). An
/// account left without a key at start (its email looks like an older account's) is
/// found by its email as stored, before the older account.
pub fn user_by_email(conn: &Connection, email: &str) -> AppResult<Option<(User, String)>> {
    Ok(conn
        .query_row(
            "SELECT id, email, name, created_at, password_hash FROM users
             WHERE email_key = ?1 OR (email_key IS NULL AND email = ?2)
             ORDER BY email_key IS NULL DESC LIMIT 1",
            [
                crate::db::ident::compare_key(email),
                email.trim().to_owned(),
            ],
            |r| {
                Ok((
                    User {
                        id: r.get(0)?,
                        email: r.get(1)?,
                        name: r.get(2)?,
                        created_at: r.get(3)?,
                    },
                    r.get(4)?,
                ))
            },
        )
        .optional()?)
}

/// Starts a session for `user_id`; returns the raw token for the cookie and its
/// `Max-Age` in seconds.
pub fn create_session(
    tx: &Transaction,
    user_id: &str,
    clock: &Clock,
    lifetime: &Lifetime,
) -> AppResult<(String, i64)> {
    let token = token::random_base62(43);
    let now = clock.now().unix_timestamp();
    let expires = lifetime.expiry(now, now);
    tx.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            token::digest(&token),
            user_id,
            rfc3339(clock.now()),
            now,
            expires
        ],
    )?;
    Ok((token, expires - now))
}

/// How long a session lives: `session_days` since it was last used (sliding), and never
/// more than `session_max_days` since it began, however often it is used.
#[derive(Debug, Clone, Copy)]
pub struct Lifetime {
    pub idle_days: u32,
    pub max_days: u32,
}

impl Lifetime {
    pub fn of(config: &AppConfig) -> Self {
        Self {
            idle_days: config.session_days,
            max_days: config.session_max_days,
        }
    }

    /// When a session begun at `created` and used at `now` ends (Unix seconds).
    pub fn expiry(&self, created: i64, now: i64) -> i64 {
        (now + i64::from(self.idle_days) * 86_400).min(self.absolute_end(created))
    }

    /// The end no use can move.
    pub fn absolute_end(&self, created: i64) -> i64 {
        created + i64::from(self.max_days) * 86_400
    }
}

/// The session cookie; its `Max-Age` is the session's remaining lifetime, which the server
/// slides (up to the absolute lifetime). `secure` adds `Secure` (see [`cookie_is_secure`]).
pub fn session_cookie(token: String, max_age_secs: i64, secure: bool) -> Cookie<'static> {
    Cookie::build((SESSION_COOKIE, token))
        .max_age(rocket::time::Duration::seconds(max_age_secs.max(0)))
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .path("/")
        .build()
}

/// Whether the session cookie of this request's answer carries `Secure` (`cookie_secure`):
/// always, never, or (`auto`) when a TLS-terminating proxy says the request came over
/// HTTPS with `X-Forwarded-Proto: https`. A client that sends the header itself over
/// plain HTTP only gets a cookie its browser will not send back.
pub fn cookie_is_secure(req: &Request<'_>) -> bool {
    let setting = req
        .rocket()
        .state::<AppConfig>()
        .map_or(CookieSecure::Auto, |c| c.cookie_secure);
    match setting {
        CookieSecure::Always => true,
        CookieSecure::Never => false,
        CookieSecure::Auto => req
            .headers()
            .get_one("X-Forwarded-Proto")
            .and_then(|v| v.split(',').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("https")),
    }
}

/// Request guard: whether this request's session cookie gets `Secure`.
pub struct SecureCookie(pub bool);

#[rocket::async_trait]
impl<'r> FromRequest<'r> for SecureCookie {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        Outcome::Success(Self(cookie_is_secure(req)))
    }
}

/// The signed-in user of a session API request. A missing, unknown, expired or revoked
/// session fails with 401 in the error body (docs/conventions.md#errors).
#[derive(Debug, Clone)]
pub struct SessionUser {
    pub user: User,
    pub token_hash: String,
    scope: crate::scope::Scope,
}

impl SessionUser {
    pub fn id(&self) -> &str {
        &self.user.id
    }

    /// The records this user may touch on this route: their own, and those of the
    /// entities they are a member of as their role allows (docs/auth.md#members-and-roles).
    pub fn scope(&self) -> crate::scope::Scope {
        self.scope.clone()
    }
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for SessionUser {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        match authenticate(req).await {
            Ok((user, token_hash)) => match route_scope(req, &user.id, None).await {
                Ok(scope) => Outcome::Success(SessionUser {
                    user,
                    token_hash,
                    scope,
                }),
                Err(e) => {
                    let status = e.status();
                    stash(req, e);
                    Outcome::Error((status, ()))
                }
            },
            Err(e) => {
                let status = e.status();
                stash(req, e);
                Outcome::Error((status, ()))
            }
        }
    }
}

/// The scope of `actor` (through a key scoped to `entity`) on this request's route: what
/// the route needs ([`crate::scope::Cap::of_route`]). The caller's roles are read where
/// they are used, in the request's own transaction (the session cache keeps who the
/// user is, never their roles); only a scoped key's membership is checked here.
pub async fn route_scope(
    req: &Request<'_>,
    actor: &str,
    entity: Option<&str>,
) -> AppResult<crate::scope::Scope> {
    let need = match req.route() {
        Some(r) => crate::scope::Cap::of_route(r.method.as_str(), r.uri.path()),
        None => crate::scope::Cap::of_route(req.method().as_str(), req.uri().path().as_str()),
    };
    if entity.is_none() {
        // A signed-in user (or an unscoped key): nothing to read before the handler; each
        // rule reads the role where it uses it, in its own transaction.
        return Ok(crate::scope::Scope::signed_in(actor, need));
    }
    let db = req
        .rocket()
        .state::<Db>()
        .ok_or_else(|| AppError::internal("no db"))?
        .clone();
    let (actor, entity) = (actor.to_owned(), entity.map(str::to_owned));
    db.read(move |conn| crate::scope::Scope::load(conn, &actor, entity.as_deref(), need))
        .await
}

async fn authenticate(req: &Request<'_>) -> AppResult<(User, String)> {
    let unauthorised = || AppError::Unauthorized("Authentication required: sign in first".into());
    if req.headers().get_one("Authorization").is_some()
        && req.cookies().get(SESSION_COOKIE).is_none()
    {
        return Err(AppError::Unauthorized(
            "API keys are accepted on /api/v1 only; sign in for /api".into(),
        ));
    }
    let token = req
        .cookies()
        .get(SESSION_COOKIE)
        .map(|c| c.value().to_owned())
        .ok_or_else(unauthorised)?;
    let rocket = req.rocket();
    let db = rocket
        .state::<Db>()
        .ok_or_else(|| AppError::internal("no db"))?
        .clone();
    let clock = rocket.state::<Clock>().cloned().unwrap_or_default();
    let lifetime = rocket.state::<AppConfig>().map_or(
        Lifetime {
            idle_days: 14,
            max_days: 90,
        },
        Lifetime::of,
    );
    let cache = rocket.state::<SessionCache>();
    let token_hash = token::digest(&token);
    let now = clock.now().unix_timestamp();

    if let Some(user) = cache.and_then(|c| c.get(&token_hash, now)) {
        return Ok((user, token_hash));
    }
    // Taken before the database is read: a revocation after this point keeps what the
    // read finds out of the cache (see `SessionCache::put`).
    let generation = cache.map_or(0, SessionCache::generation);

    let lookup = token_hash.clone();
    let found = db
        .read(move |conn| {
            let row: Option<(String, i64, String)> = conn
                .prepare_cached(
                    "SELECT user_id, last_seen_at, created_at FROM sessions
                     WHERE token_hash = ?1 AND expires_at > ?2",
                )?
                .query_row(params![lookup, now], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .optional()?;
            let Some((user_id, last_seen, created_at)) = row else {
                return Ok(None);
            };
            Ok(user_by_id(conn, &user_id)?.map(|u| (u, last_seen, created_at)))
        })
        .await?;
    let (user, last_seen, created_at) = found.ok_or_else(unauthorised)?;
    let created = parse_rfc3339(&created_at).map_or(0, OffsetDateTime::unix_timestamp);
    let absolute_end = lifetime.absolute_end(created);
    if now >= absolute_end {
        return Err(AppError::Unauthorized(
            "This session has reached its maximum lifetime: sign in again".into(),
        ));
    }
    // Sliding idle lifetime, up to the absolute one; refreshed at most once a minute to
    // spare writes.
    if now - last_seen >= 60 {
        let hash = token_hash.clone();
        let expires = lifetime.expiry(created, now);
        let slid = db
            .write(move |tx| {
                tx.prepare_cached(
                    "UPDATE sessions SET last_seen_at = ?1, expires_at = ?2 WHERE token_hash = ?3",
                )?
                .execute(params![now, expires, hash])?;
                Ok(())
            })
            .await;
        match slid {
            // The browser's copy slides with the server's.
            Ok(()) => {
                req.cookies()
                    .add(session_cookie(token, expires - now, cookie_is_secure(req)))
            }
            // A server that cannot write (docs/operations.md#storage-faults) still
            // answers reads: the session simply does not slide.
            Err(AppError::Storage { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    if let Some(c) = cache {
        c.put(
            &token_hash,
            &user,
            now.max(last_seen),
            absolute_end,
            generation,
        );
    }
    Ok((user, token_hash))
}

/// Sessions validated against the database in the last minute, so that a busy client
/// does not cost a database round trip per request. Every session change goes through
/// this process, and an entry is trusted for at most [`SessionCache::TRUST_SECS`], the
/// same minute after which the idle lifetime slides, and never past the session's
/// absolute end; so the cache never keeps a session alive past its server-side expiry.
///
/// Revocation (sign-out, sign-out everywhere) evicts and bumps a generation number under
/// the cache's lock. A request that read its session from the database before a
/// revocation and comes to cache it after one would otherwise put a dead session back for
/// a minute; [`SessionCache::put`] refuses an entry read under an older generation.
#[derive(Default)]
pub struct SessionCache {
    inner: std::sync::Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    /// token hash -> (user, when checked, absolute end)
    entries: std::collections::HashMap<String, (User, i64, i64)>,
    generation: u64,
}

impl SessionCache {
    pub const TRUST_SECS: i64 = 60;
    const MAX_ENTRIES: usize = 10_000;

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The current revocation generation; take it before reading a session.
    pub fn generation(&self) -> u64 {
        self.lock().generation
    }

    pub fn get(&self, token_hash: &str, now: i64) -> Option<User> {
        let inner = self.lock();
        let (user, checked, end) = inner.entries.get(token_hash)?;
        (now - checked < Self::TRUST_SECS && now >= *checked && now < *end).then(|| user.clone())
    }

    /// Caches a session read from the database under `generation`, unless a revocation
    /// has happened since.
    pub fn put(&self, token_hash: &str, user: &User, checked: i64, end: i64, generation: u64) {
        let mut inner = self.lock();
        if inner.generation != generation {
            return;
        }
        if inner.entries.len() >= Self::MAX_ENTRIES {
            inner
                .entries
                .retain(|_, (_, at, _)| checked - *at < Self::TRUST_SECS);
        }
        inner
            .entries
            .insert(token_hash.to_owned(), (user.clone(), checked, end));
    }

    /// Forgets a session (sign-out); call it after the database row is gone.
    pub fn evict(&self, token_hash: &str) {
        let mut inner = self.lock();
        inner.generation += 1;
        inner.entries.remove(token_hash);
    }

    /// Forgets every session of a user (sign-out everywhere).
    pub fn evict_user(&self, user_id: &str) {
        let mut inner = self.lock();
        inner.generation += 1;
        inner.entries.retain(|_, (u, _, _)| u.id != user_id);
    }
}

/// Removes the session cookie from the jar (logout).
pub fn clear_cookie(jar: &CookieJar<'_>) {
    jar.remove(Cookie::build(SESSION_COOKIE).path("/").build());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann() -> User {
        User {
            id: "u1".into(),
            email: "ann@example.com".into(),
            name: None,
            created_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn a_session_read_before_a_sign_out_is_not_cached_after_it() {
        let cache = SessionCache::default();
        // A request reads the session from the database ...
        let generation = cache.generation();
        // ... the owner signs out meanwhile (the row is deleted, the cache evicted) ...
        cache.evict("h");
        // ... and the request, finishing, caches what it read.
        cache.put("h", &ann(), 1_000, i64::MAX, generation);
        assert!(cache.get("h", 1_001).is_none());
        // The same for sign-out everywhere.
        let generation = cache.generation();
        cache.evict_user("u1");
        cache.put("h", &ann(), 1_000, i64::MAX, generation);
        assert!(cache.get("h", 1_001).is_none());
        // Without a revocation in between the session is cached.
        let generation = cache.generation();
        cache.put("h", &ann(), 1_000, i64::MAX, generation);
        assert!(cache.get("h", 1_001).is_some());
        cache.evict_user("u1");
        assert!(cache.get("h", 1_001).is_none());
    }

    #[test]
    fn a_cached_session_is_not_trusted_past_its_absolute_end() {
        let cache = SessionCache::default();
        cache.put("h", &ann(), 1_000, 1_030, cache.generation());
        assert!(cache.get("h", 1_029).is_some());
        assert!(cache.get("h", 1_030).is_none());
    }

    #[test]
    fn the_idle_lifetime_slides_but_never_past_the_absolute_one() {
        let l = Lifetime {
            idle_days: 14,
            max_days: 90,
        };
        let day = 86_400;
        assert_eq!(l.expiry(0, 0), 14 * day);
        assert_eq!(l.expiry(0, 50 * day), 64 * day);
        assert_eq!(l.expiry(0, 80 * day), 90 * day);
    }
}
