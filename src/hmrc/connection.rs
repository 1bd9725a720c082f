//! An entity's connection to HMRC (docs/hmrc.md#connecting): OAuth 2.0 authorisation code
//! with PKCE, the single-use `state`, the tokens sealed at rest, and the refresh of the
//! access token with HMRC's single-use refresh tokens.
//!
//! - `GET /api/hmrc/connect?entityId` keeps the digest of a fresh `state` (15 minutes,
//!   bound to the user, the entity, the redirect URI and the sealed PKCE verifier) and
//!   answers `{data: {authorize_url}}`.
//! - `GET /api/hmrc/callback?code&state` uses the state up, exchanges the code and keeps
//!   the tokens, then sends the browser (303) to `/#/vat?hmrc=connected`, or to
//!   `/#/vat?hmrc_error=<code>` when HMRC reported an error or the exchange failed.
//! - `GET /api/hmrc/connection?entityId` and `DELETE /api/hmrc/connection {entity_id}`.
//!
//! The tokens are JSON sealed under `hmrc_connections.tokens` (src/db/secrets.rs). A
//! refresh uses up the refresh token, so the new tokens are committed in their own write
//! before the access token is used; one refresh runs at a time in the process
//! ([`HmrcState`]).

use std::collections::HashSet;
use std::sync::Mutex;

use base64::Engine as _;
use rocket::serde::json::Json;
use rocket::{delete, get, State};
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use super::client::{Grant, Hmrc, HmrcError};
use crate::auth::{token, SessionUser};
use crate::clock::{rfc3339, Clock};
use crate::config::AppConfig;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::data;
use crate::import::oauth::Origin;
use crate::scope::Scope;

/// How long a started authorisation may take.
pub const STATE_LIFETIME_SECS: i64 = 15 * 60;
/// The callback's path, as HMRC must be told it.
pub const CALLBACK_PATH: &str = "/api/hmrc/callback";
/// The scopes asked for.
pub const SCOPES: &str = "read:vat write:vat";
/// An access token is refreshed this long before it expires.
const REFRESH_MARGIN_SECS: i64 = 60;

/// What the process keeps about HMRC: the lock one refresh holds, and the returns whose
/// submission is in flight (a crash forgets them, which is when they are to be resolved).
#[derive(Default)]
pub struct HmrcState {
    pub refreshing: rocket::tokio::sync::Mutex<()>,
    pub in_flight: Mutex<HashSet<String>>,
}

impl HmrcState {
    fn set(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn is_in_flight(&self, id: &str) -> bool {
        self.set().contains(id)
    }

    /// Marks `id` in flight until the guard is dropped.
    pub fn begin<'a>(&'a self, id: &str) -> InFlightGuard<'a> {
        self.set().insert(id.to_owned());
        InFlightGuard {
            state: self,
            id: id.to_owned(),
        }
    }
}

pub struct InFlightGuard<'a> {
    state: &'a HmrcState,
    id: String,
}

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        self.state.set().remove(&self.id);
    }
}

/// [`Db::write`] in a task of its own, so it is not the write that carries the request's
/// `Idempotency-Key` (docs/idempotency.md#what-is-stored): a submission's key goes with
/// the write that files the return, and a refusal, which removes what it kept, keeps no
/// key (docs/hmrc.md#submitting-a-return).
pub async fn write_apart<T, F>(db: &Db, f: F) -> AppResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Transaction) -> AppResult<T> + Send + 'static,
{
    let db = db.clone();
    rocket::tokio::spawn(async move { db.write(f).await })
        .await
        .map_err(|e| AppError::internal(format!("write task failed: {e}")))?
}

/// The tokens as sealed.
#[derive(Serialize, Deserialize)]
struct Tokens {
    access_token: String,
    refresh_token: String,
}

/// A connection as kept.
pub struct Stored {
    pub access_token: String,
    pub refresh_token: String,
    pub access_expires_at: i64,
    pub refresh_expires_at: String,
}

/// `t` plus 18 months, the day clamped to the month's last (HMRC's refresh tokens' life).
pub fn plus_18_months(t: OffsetDateTime) -> OffsetDateTime {
    let months = i32::from(u8::from(t.month())) - 1 + 18;
    let year = t.year() + months / 12;
    let month = time::Month::try_from(u8::try_from(months % 12 + 1).unwrap_or(1))
        .unwrap_or(time::Month::January);
    let last = month.length(year);
    let day = t.day().min(last);
    time::Date::from_calendar_date(year, month, day)
        .map(|d| t.replace_date(d))
        .unwrap_or(t)
}

fn pkce_challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The redirect URI: `hmrc.redirect_uri`, else built from the request's origin.
fn redirect_uri(config: &AppConfig, origin: &Origin) -> AppResult<String> {
    if let Some(u) = config.hmrc.redirect() {
        return Ok(u.to_owned());
    }
    origin
        .url()
        .map(|o| format!("{o}{CALLBACK_PATH}"))
        .ok_or_else(|| {
            AppError::bad_request(
                "Cannot tell this server's address (no Host header): configure hmrc.redirect_uri",
            )
        })
}

/// Keeps a started authorisation and drops expired ones. 400/404 for an entity that is
/// not the caller's.
pub fn save_state(
    tx: &Transaction,
    scope: &Scope,
    entity: &str,
    state: &str,
    redirect: &str,
    verifier: &str,
    now: i64,
) -> AppResult<String> {
    let entity = scope.entity(tx, "entityId", entity)?;
    tx.execute(
        "DELETE FROM hmrc_oauth_states WHERE expires_at <= ?1",
        [now],
    )?;
    tx.execute(
        "INSERT INTO hmrc_oauth_states
             (state_hash, owner_id, entity_id, redirect_uri, code_verifier, expires_at)
         VALUES (?1, ?2, ?3, ?4, seal(?5, 'hmrc_oauth_states.code_verifier'), ?6)",
        params![
            token::digest(state),
            scope.owner_id,
            entity,
            redirect,
            verifier,
            now + STATE_LIFETIME_SECS
        ],
    )?;
    Ok(entity)
}

/// A started authorisation, used up by its callback.
#[derive(Debug)]
pub struct Pending {
    pub entity_id: String,
    pub redirect_uri: String,
    pub verifier: String,
}

/// Uses up the state a callback brings back. The inner `Err` is the 400 to send: a state
/// that is unknown, used, another user's (left for its owner) or expired (used up all the
/// same, so the write must commit).
pub fn use_state(
    tx: &Transaction,
    scope: &Scope,
    state: &str,
    now: i64,
) -> AppResult<Result<Pending, &'static str>> {
    let hash = token::digest(state);
    let row: Option<(String, String, String, String, i64)> = tx
        .query_row(
            "SELECT owner_id, entity_id, redirect_uri,
                    unseal(code_verifier, 'hmrc_oauth_states.code_verifier'), expires_at
             FROM hmrc_oauth_states WHERE state_hash = ?1",
            [&hash],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    let Some((_, entity_id, redirect_uri, verifier, expires_at)) =
        row.filter(|r| r.0 == scope.owner_id)
    else {
        return Ok(Err(
            "The OAuth state does not match a connection to HMRC you started: start again",
        ));
    };
    tx.execute(
        "DELETE FROM hmrc_oauth_states WHERE state_hash = ?1",
        [&hash],
    )?;
    if expires_at <= now {
        return Ok(Err("The OAuth state has expired: connect to HMRC again"));
    }
    Ok(Ok(Pending {
        entity_id,
        redirect_uri,
        verifier,
    }))
}

fn sealed_tokens(g: &Grant) -> AppResult<String> {
    serde_json::to_string(&Tokens {
        access_token: g.access_token.clone(),
        refresh_token: g.refresh_token.clone(),
    })
    .map_err(|e| AppError::internal(format!("token serialisation: {e}")))
}

/// Keeps a new connection of `entity` (replacing an earlier one): authority granted at
/// `now`, so it must be granted again 18 months on.
pub fn connect(
    tx: &Transaction,
    owner: &str,
    entity: &str,
    g: &Grant,
    now: OffsetDateTime,
) -> AppResult<()> {
    tx.execute(
        "INSERT INTO hmrc_connections (entity_id, owner_id, tokens, access_expires_at,
             connected_at, refresh_expires_at, updated_at)
         VALUES (?1, ?2, seal(?3, 'hmrc_connections.tokens'), ?4, ?5, ?6, ?5)
         ON CONFLICT (entity_id) DO UPDATE SET owner_id = excluded.owner_id,
             tokens = excluded.tokens, access_expires_at = excluded.access_expires_at,
             connected_at = excluded.connected_at,
             refresh_expires_at = excluded.refresh_expires_at, updated_at = excluded.updated_at",
        params![
            entity,
            owner,
            sealed_tokens(g)?,
            now.unix_timestamp() + g.expires_in,
            rfc3339(now),
            rfc3339(plus_18_months(now)),
        ],
    )?;
    Ok(())
}

/// Keeps the tokens of a refresh (the authority's 18 months run on from the connection).
pub fn refreshed(tx: &Transaction, entity: &str, g: &Grant, now: OffsetDateTime) -> AppResult<()> {
    tx.execute(
        "UPDATE hmrc_connections SET tokens = seal(?2, 'hmrc_connections.tokens'),
             access_expires_at = ?3, updated_at = ?4
         WHERE entity_id = ?1",
        params![
            entity,
            sealed_tokens(g)?,
            now.unix_timestamp() + g.expires_in,
            rfc3339(now)
        ],
    )?;
    Ok(())
}

/// The connection of `entity` (resolved already), with its tokens opened.
pub fn stored(conn: &Connection, entity: &str) -> AppResult<Option<Stored>> {
    let row: Option<(String, i64, String)> = conn
        .prepare_cached(
            "SELECT unseal(tokens, 'hmrc_connections.tokens'), access_expires_at,
                    refresh_expires_at
             FROM hmrc_connections WHERE entity_id = ?1",
        )?
        .query_row([entity], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((text, access_expires_at, refresh_expires_at)) = row else {
        return Ok(None);
    };
    let t: Tokens = serde_json::from_str(&text)
        .map_err(|e| AppError::internal(format!("stored HMRC tokens: {e}")))?;
    Ok(Some(Stored {
        access_token: t.access_token,
        refresh_token: t.refresh_token,
        access_expires_at,
        refresh_expires_at,
    }))
}

/// `{connected, connected_at, refresh_expires_at}` of an entity of `scope`.
pub fn status(conn: &Connection, scope: &Scope, entity: &str) -> AppResult<Value> {
    let entity = scope.entity(conn, "entityId", entity)?;
    let row: Option<(String, String)> = conn
        .prepare_cached(
            "SELECT connected_at, refresh_expires_at FROM hmrc_connections WHERE entity_id = ?1",
        )?
        .query_row([&entity], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(match row {
        Some((at, until)) => {
            json!({ "connected": true, "connected_at": at, "refresh_expires_at": until })
        }
        None => json!({ "connected": false, "connected_at": null, "refresh_expires_at": null }),
    })
}

/// Forgets the tokens of an entity of `scope`.
pub fn forget(tx: &Transaction, scope: &Scope, entity: &str) -> AppResult<()> {
    let entity = scope.entity(tx, "entity_id", entity)?;
    tx.execute(
        "DELETE FROM hmrc_connections WHERE entity_id = ?1",
        [&entity],
    )?;
    Ok(())
}

/// A usable access token for `entity` (resolved already): the one kept, or, when it has
/// expired or is `stale` (HMRC has just refused it), a new one from a refresh, committed
/// before it is returned. 409 when the entity is not connected or its authority has run
/// out.
pub async fn access_token(
    db: &Db,
    config: &AppConfig,
    clock: &Clock,
    state: &HmrcState,
    entity: &str,
    stale: Option<&str>,
) -> AppResult<String> {
    let _one = state.refreshing.lock().await;
    let e = entity.to_owned();
    let kept = db.read(move |c| stored(c, &e)).await?.ok_or_else(|| {
        AppError::conflict("This business is not connected to HMRC: connect to HMRC first")
    })?;
    let now = clock.now();
    // (A token refused by HMRC that another request has refreshed meanwhile is not the
    // kept one any more: the kept one is used.)
    if kept.access_expires_at > now.unix_timestamp() + REFRESH_MARGIN_SECS
        && stale != Some(kept.access_token.as_str())
    {
        return Ok(kept.access_token);
    }
    if crate::clock::parse_rfc3339(&kept.refresh_expires_at).is_some_and(|t| t <= now) {
        return Err(HmrcError::ReconnectRequired.into());
    }
    let cfg = config.hmrc.clone();
    let refresh = kept.refresh_token;
    let grant = rocket::tokio::task::spawn_blocking(move || Hmrc::new(&cfg).refresh(&refresh))
        .await
        .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))??;
    // The old refresh token is used up: keep the new one before anything else.
    let (e, g) = (entity.to_owned(), grant.clone());
    write_apart(db, move |tx| refreshed(tx, &e, &g, now)).await?;
    Ok(grant.access_token)
}

#[get("/hmrc/connect?<entityId>")]
#[allow(non_snake_case)]
pub(super) async fn route_connect(
    user: SessionUser,
    entityId: Option<&str>,
    origin: Origin,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    let entity = entityId
        .filter(|e| !e.trim().is_empty())
        .ok_or_else(|| AppError::missing("entityId"))?
        .to_owned();
    let client_id = config
        .hmrc
        .credentials()
        .ok_or_else(|| {
            AppError::from(HmrcError::NotConfigured(
                "client_id` and `hmrc.client_secret",
            ))
        })?
        .0
        .to_owned();
    let redirect = redirect_uri(config, &origin)?;
    let state = token::random_base62(32);
    let verifier = token::random_base62(64);
    let mut url = url::Url::parse(&config.hmrc.authorize()).map_err(|_| {
        AppError::Unavailable("`hmrc.authorize_url` is not a URL (docs/hmrc.md)".into())
    })?;
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &client_id)
        .append_pair("scope", SCOPES)
        .append_pair("state", &state)
        .append_pair("redirect_uri", &redirect)
        .append_pair("code_challenge", &pkce_challenge(&verifier))
        .append_pair("code_challenge_method", "S256");
    let scope = user.scope();
    let now = clock.now().unix_timestamp();
    db.write(move |tx| save_state(tx, &scope, &entity, &state, &redirect, &verifier, now))
        .await?;
    Ok(data(json!({ "authorize_url": url.to_string() })))
}

/// Where the callback sends the browser: the VAT page.
pub struct ToVatPage(String);

impl<'r> rocket::response::Responder<'r, 'static> for ToVatPage {
    fn respond_to(self, _req: &'r rocket::Request<'_>) -> rocket::response::Result<'static> {
        rocket::Response::build()
            .status(rocket::http::Status::SeeOther)
            .raw_header("Location", self.0)
            .ok()
    }
}

#[get("/hmrc/callback?<code>&<state>&<error>")]
#[allow(clippy::too_many_arguments)]
pub(super) async fn route_callback(
    user: SessionUser,
    code: Option<&str>,
    state: Option<&str>,
    error: Option<&str>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<ToVatPage> {
    let state = state
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AppError::missing("state"))?
        .to_owned();
    let scope = user.scope();
    let now = clock.now();
    let stamp = now.unix_timestamp();
    let pending = db
        .write(move |tx| use_state(tx, &scope, &state, stamp))
        .await?
        .map_err(AppError::bad_request)?;
    let fail = |code: &str| Ok(ToVatPage(format!("/#/vat?hmrc_error={code}")));
    if error.is_some_and(|e| !e.is_empty()) {
        return fail("access_denied");
    }
    let Some(code) = code.filter(|c| !c.is_empty()).map(str::to_owned) else {
        return fail("no_code");
    };
    let cfg = config.hmrc.clone();
    let (redirect, verifier) = (pending.redirect_uri.clone(), pending.verifier.clone());
    let exchanged = rocket::tokio::task::spawn_blocking(move || {
        Hmrc::new(&cfg).exchange(&code, &redirect, &verifier)
    })
    .await
    .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?;
    let grant = match exchanged {
        Ok(g) => g,
        Err(e) => {
            eprintln!("stockbook: HMRC OAuth code exchange: {e:?}");
            return fail("exchange_failed");
        }
    };
    let owner = user.user.id.clone();
    db.write(move |tx| connect(tx, &owner, &pending.entity_id, &grant, now))
        .await?;
    Ok(ToVatPage("/#/vat?hmrc=connected".into()))
}

#[get("/hmrc/connection?<entityId>")]
#[allow(non_snake_case)]
pub(super) async fn route_status(
    user: SessionUser,
    entityId: Option<String>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let entity = entityId
        .filter(|e| !e.trim().is_empty())
        .ok_or_else(|| AppError::missing("entityId"))?;
    Ok(data(db.read(move |c| status(c, &scope, &entity)).await?))
}

#[derive(Debug, Deserialize)]
pub struct EntityBody {
    pub entity_id: String,
}

#[delete("/hmrc/connection", data = "<body>")]
pub(super) async fn route_forget(
    user: SessionUser,
    body: crate::http::body::JsonBody<EntityBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let entity = body.into_inner().entity_id;
    db.write_as(scope.actor().to_owned(), move |tx| {
        forget(tx, &scope, &entity)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eighteen_months_on_keeps_the_day_or_the_months_last() {
        let t = time::macros::datetime!(2026-08-31 10:00 UTC);
        assert_eq!(
            plus_18_months(t),
            time::macros::datetime!(2028-02-29 10:00 UTC)
        );
        let t = time::macros::datetime!(2026-01-15 10:00 UTC);
        assert_eq!(
            plus_18_months(t),
            time::macros::datetime!(2027-07-15 10:00 UTC)
        );
    }

    #[test]
    fn the_pkce_challenge_is_rfc_7636s_s256() {
        // RFC 7636, appendix B.
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
