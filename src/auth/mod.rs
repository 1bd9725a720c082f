//! Sign-in (DECISIONS §1): accounts, server-side sessions, the login throttle, and the
//! `SessionUser` request guard that every session endpoint takes.

pub mod password;
pub mod routes;
pub mod token;

use rocket::http::{Cookie, CookieJar, SameSite};
use rocket::request::{FromRequest, Outcome, Request};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use crate::clock::{rfc3339, Clock};
use crate::config::AppConfig;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::stash::stash;

pub const SESSION_COOKIE: &str = "stockbook_session";
/// Failed logins per email that trip the throttle, and the window they count in.
pub const THROTTLE_MAX_FAILURES: i64 = 10;
pub const THROTTLE_WINDOW_SECS: i64 = 15 * 60;

#[derive(Debug, Clone, Serialize)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: Option<String>,
    pub created_at: String,
}

pub fn user_by_id(conn: &Connection, id: &str) -> AppResult<Option<User>> {
    Ok(conn
        .query_row(
            "SELECT id, email, name, created_at FROM users WHERE id = ?1",
            [id],
            |r| {
                Ok(User {
                    id: r.get(0)?,
                    email: r.get(1)?,
                    name: r.get(2)?,
                    created_at: r.get(3)?,
                })
            },
        )
        .optional()?)
}

/// The user and stored hash for an email (case-insensitive).
pub fn user_by_email(conn: &Connection, email: &str) -> AppResult<Option<(User, String)>> {
    Ok(conn
        .query_row(
            "SELECT id, email, name, created_at, password_hash FROM users WHERE email = ?1",
            [email],
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

/// Starts a session for `user_id`; returns the raw token for the cookie.
pub fn create_session(
    tx: &Transaction,
    user_id: &str,
    clock: &Clock,
    days: u32,
) -> AppResult<String> {
    let token = token::random_base62(43);
    let now = clock.now().unix_timestamp();
    tx.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            token::digest(&token),
            user_id,
            rfc3339(clock.now()),
            now,
            now + i64::from(days) * 86_400
        ],
    )?;
    Ok(token)
}

/// The session cookie; its `Max-Age` is the idle lifetime, which the server slides.
pub fn session_cookie(token: String, days: u32) -> Cookie<'static> {
    Cookie::build((SESSION_COOKIE, token))
        .max_age(rocket::time::Duration::days(i64::from(days)))
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .build()
}

/// The signed-in user of a session API request. A missing, unknown, expired or revoked
/// session fails with 401 in the §7 body.
#[derive(Debug, Clone)]
pub struct SessionUser {
    pub user: User,
    pub token_hash: String,
}

impl SessionUser {
    pub fn id(&self) -> &str {
        &self.user.id
    }

    /// The records this user may touch: everything they own.
    pub fn scope(&self) -> crate::scope::Scope {
        crate::scope::Scope::user(self.user.id.clone())
    }
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for SessionUser {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        match authenticate(req).await {
            Ok(u) => Outcome::Success(u),
            Err(e) => {
                let status = e.status();
                stash(req, e);
                Outcome::Error((status, ()))
            }
        }
    }
}

async fn authenticate(req: &Request<'_>) -> AppResult<SessionUser> {
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
    let days = rocket.state::<AppConfig>().map_or(14, |c| c.session_days);
    let cache = rocket.state::<SessionCache>();
    let token_hash = token::digest(&token);
    let now = clock.now().unix_timestamp();

    if let Some(user) = cache.and_then(|c| c.get(&token_hash, now)) {
        return Ok(SessionUser { user, token_hash });
    }

    let lookup = token_hash.clone();
    let found = db
        .read(move |conn| {
            let row: Option<(String, i64)> = conn
                .query_row(
                    "SELECT user_id, last_seen_at FROM sessions WHERE token_hash = ?1 AND expires_at > ?2",
                    params![lookup, now],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some((user_id, last_seen)) = row else { return Ok(None) };
            Ok(user_by_id(conn, &user_id)?.map(|u| (u, last_seen)))
        })
        .await?;
    let (user, last_seen) = found.ok_or_else(unauthorised)?;
    // Sliding idle lifetime; refreshed at most once a minute to spare writes.
    if now - last_seen >= 60 {
        let hash = token_hash.clone();
        db.write(move |tx| {
            tx.execute(
                "UPDATE sessions SET last_seen_at = ?1, expires_at = ?2 WHERE token_hash = ?3",
                params![now, now + i64::from(days) * 86_400, hash],
            )?;
            Ok(())
        })
        .await?;
        // The browser's copy slides with the server's.
        req.cookies().add(session_cookie(token, days));
    }
    if let Some(c) = cache {
        c.put(&token_hash, &user, now.max(last_seen));
    }
    Ok(SessionUser { user, token_hash })
}

/// Sessions validated against the database in the last minute, so that a busy client
/// does not cost a database round trip per request. Every session change goes through
/// this process (logout evicts), and an entry is trusted for at most
/// [`SessionCache::TRUST_SECS`], the same minute after which the idle lifetime slides;
/// so the cache never keeps a session alive past its server-side expiry.
#[derive(Default)]
pub struct SessionCache {
    entries: std::sync::Mutex<std::collections::HashMap<String, (User, i64)>>,
}

impl SessionCache {
    pub const TRUST_SECS: i64 = 60;
    const MAX_ENTRIES: usize = 10_000;

    fn get(&self, token_hash: &str, now: i64) -> Option<User> {
        let map = self.entries.lock().ok()?;
        let (user, checked) = map.get(token_hash)?;
        (now - checked < Self::TRUST_SECS && now >= *checked).then(|| user.clone())
    }

    fn put(&self, token_hash: &str, user: &User, checked: i64) {
        if let Ok(mut map) = self.entries.lock() {
            if map.len() >= Self::MAX_ENTRIES {
                map.retain(|_, (_, at)| checked - *at < Self::TRUST_SECS);
            }
            map.insert(token_hash.to_owned(), (user.clone(), checked));
        }
    }

    /// Forgets a session (logout).
    pub fn evict(&self, token_hash: &str) {
        if let Ok(mut map) = self.entries.lock() {
            map.remove(token_hash);
        }
    }
}

/// Removes the session cookie from the jar (logout).
pub fn clear_cookie(jar: &CookieJar<'_>) {
    jar.remove(Cookie::build(SESSION_COOKIE).path("/").build());
}
