//! The OAuth connection of FreeAgent (docs/import.md#oauth): session and Pro plan.
//!
//! 1. `GET /api/import/oauth/start?platform=freeagent&entityId=` answers
//!    `{data: {authorize_url}}`. A fresh random `state` (32 base62 characters) goes into
//!    the URL; the server keeps its SHA-256 digest bound to the user, the entity, the
//!    redirect URI and an expiry ([`STATE_LIFETIME_SECS`], 15 minutes).
//! 2. The provider sends the browser back to `GET /api/import/oauth/callback?code&state`
//!    (with the session cookie: it is a top-level navigation). A state that is missing,
//!    unknown, already used, expired or started by another user is a 400 in the error
//!    body (docs/conventions.md#errors): nothing is exchanged. A good state is used up,
//!    then the code is exchanged at the token endpoint (HTTP Basic client credentials),
//!    the grant `{access_token, refresh_token, expires_at}` is stored as the entity's
//!    `freeagent` connection (replacing an earlier one), and the browser is redirected
//!    (303) to the web app at `/#/import?connected=freeagent`. When the provider reports
//!    an error (`?error=access_denied`), sends no code, or the exchange fails, the
//!    redirect is to `/#/import?error=<code>&platform=freeagent` instead, with one of the
//!    codes of [`OAuthFailure`] (never text from the provider or the request, which the
//!    page would show as its own: docs/import.md#oauth), and nothing is stored.
//!
//! The redirect URI is `platforms.freeagent.redirect_uri` when configured (the URL
//! registered with FreeAgent; set it whenever the server sits behind a proxy), otherwise
//! `<scheme>://<Host>/api/import/oauth/callback` from the start request, where the scheme
//! is `X-Forwarded-Proto` when that says `http` or `https`, and `http` otherwise. The
//! exchange sends exactly the URI the flow started with.

use rocket::http::Status;
use rocket::request::Request;
use rocket::response::{self, Responder, Response};
use rocket::serde::json::Json;
use rocket::{get, routes, Route, State};
use rusqlite::{params, OptionalExtension, Transaction};
use serde_json::{json, Value};

use super::connections::{api_platform, upsert};
use crate::auth::{token, SessionUser};
use crate::clock::{rfc3339, Clock};
use crate::config::{AppConfig, PlatformConfig};
use crate::connectors::freeagent;
use crate::connectors::{ConnectorError, Platform, RetryPolicy};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::data;
use crate::import::ProPlan;
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![start, callback]
}

/// How long a started authorisation may take.
pub const STATE_LIFETIME_SECS: i64 = 15 * 60;
/// The path of the callback, as the provider must be told it.
pub const CALLBACK_PATH: &str = "/api/import/oauth/callback";
/// Where the browser lands after the callback (the web app's import page).
pub const WEB_APP_IMPORT: &str = "/#/import";

/// Where the request says it was sent: `Host` and `X-Forwarded-Proto`.
pub struct Origin(Option<String>);

#[rocket::async_trait]
impl<'r> rocket::request::FromRequest<'r> for Origin {
    type Error = ();
    async fn from_request(req: &'r Request<'_>) -> rocket::request::Outcome<Self, ()> {
        let scheme = match req.headers().get_one("X-Forwarded-Proto").map(str::trim) {
            Some(p) if p.eq_ignore_ascii_case("https") => "https",
            _ => "http",
        };
        let origin = req
            .host()
            .map(|h| h.to_string())
            .or_else(|| req.headers().get_one("Host").map(str::to_owned))
            .filter(|h| valid_host(h))
            .map(|h| format!("{scheme}://{h}"));
        rocket::request::Outcome::Success(Origin(origin))
    }
}

impl Origin {
    /// `<scheme>://<host>` of the request, when it names a valid host.
    pub fn url(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// A host and optional port: letters, digits, `.`, `-`, `:` and IPv6 brackets only, so
/// a forged header cannot smuggle a path or a query into the redirect URI.
fn valid_host(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

fn redirect_uri(config: &PlatformConfig, origin: &Origin) -> AppResult<String> {
    if let Some(u) = config
        .redirect_uri
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
    {
        return Ok(u.to_owned());
    }
    origin
        .0
        .as_ref()
        .map(|o| format!("{o}{CALLBACK_PATH}"))
        .ok_or_else(|| {
            AppError::bad_request(
                "Cannot tell this server's address (no Host header): \
                 configure platforms.freeagent.redirect_uri",
            )
        })
}

/// A missing OAuth client configuration is the server's, not the caller's, problem.
fn config_error(e: ConnectorError) -> AppError {
    match e {
        ConnectorError::Credentials { message, .. } => AppError::Unavailable(format!(
            "FreeAgent import is not configured on this server: {message}"
        )),
        other => other.into(),
    }
}

/// An authorisation being started: the entity it connects (as sent), and the state and
/// redirect URI of its authorisation URL.
#[derive(Debug)]
pub struct Started {
    pub entity_id: String,
    pub platform: Platform,
    pub state: String,
    pub redirect_uri: String,
}

/// Keeps a started authorisation's state (its digest), bound to the caller, the entity,
/// the redirect URI and an expiry [`STATE_LIFETIME_SECS`] after `now` (Unix seconds),
/// and drops the expired ones of anybody. 400/404 for an entity id that is not one of
/// the caller's.
pub fn save_state(tx: &Transaction, scope: &Scope, s: &Started, now: i64) -> AppResult<()> {
    let entity_id = scope.entity(tx, "entityId", &s.entity_id)?;
    tx.execute(
        "DELETE FROM import_oauth_states WHERE expires_at <= ?1",
        [now],
    )?;
    tx.execute(
        "INSERT INTO import_oauth_states
             (state_hash, owner_id, entity_id, platform, redirect_uri, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            token::digest(&s.state),
            scope.owner_id,
            entity_id,
            s.platform.id(),
            s.redirect_uri,
            now + STATE_LIFETIME_SECS
        ],
    )?;
    Ok(())
}

/// A pending authorisation, used up by its callback.
#[derive(Debug)]
pub struct Pending {
    pub entity_id: String,
    pub platform: Platform,
    pub redirect_uri: String,
}

/// Uses up the state a callback brings back, at `now` (Unix seconds). The inner `Err`
/// is the refusal to send (400) when the state does not match an authorisation the
/// caller started (unknown, used, or another user's, which is left for its owner) or
/// has expired; an expired state is used up all the same, so the write must commit.
pub fn use_state(
    tx: &Transaction,
    scope: &Scope,
    state: &str,
    now: i64,
) -> AppResult<Result<Pending, &'static str>> {
    let hash = token::digest(state);
    let row: Option<(String, String, String, String, i64)> = tx
        .query_row(
            "SELECT owner_id, entity_id, platform, redirect_uri, expires_at
             FROM import_oauth_states WHERE state_hash = ?1",
            [&hash],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    // Another user's state is refused exactly like an unknown one, and left for its
    // owner.
    let Some((_, entity_id, platform, redirect_uri, expires_at)) =
        row.filter(|r| r.0 == scope.owner_id)
    else {
        return Ok(Err(
            "The OAuth state does not match a connection you started: start again",
        ));
    };
    tx.execute(
        "DELETE FROM import_oauth_states WHERE state_hash = ?1",
        [&hash],
    )?;
    if expires_at <= now {
        return Ok(Err(
            "The OAuth state has expired: start the connection again",
        ));
    }
    let platform = platform
        .parse::<Platform>()
        .map_err(|()| AppError::internal(format!("stored platform `{platform}`")))?;
    Ok(Ok(Pending {
        entity_id,
        platform,
        redirect_uri,
    }))
}

#[get("/import/oauth/start?<platform>&<entityId>")]
#[allow(non_snake_case, clippy::too_many_arguments)]
async fn start(
    user: SessionUser,
    _pro: ProPlan,
    platform: Option<&str>,
    entityId: Option<&str>,
    origin: Origin,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    let p = api_platform(platform.unwrap_or_default())?;
    if p != Platform::Freeagent {
        return Err(AppError::bad_request(format!(
            "`{p}` connects with credentials, not OAuth: POST /api/import/connections"
        )));
    }
    let entity = entityId
        .filter(|e| !e.trim().is_empty())
        .ok_or_else(|| AppError::missing("entityId"))?
        .to_owned();
    let pconfig = config.platform(p.id());
    let redirect = redirect_uri(&pconfig, &origin)?;
    let state = freeagent::new_state();
    let url = freeagent::authorize_url(&pconfig, &redirect, &state).map_err(config_error)?;
    let started = Started {
        entity_id: entity,
        platform: p,
        state,
        redirect_uri: redirect,
    };
    let scope = user.scope();
    let now = clock.now().unix_timestamp();
    db.write_as(scope.actor().to_owned(), move |tx| {
        save_state(tx, &scope, &started, now)
    })
    .await?;
    Ok(data(json!({ "authorize_url": url })))
}

/// A 303 to the web app's import page.
pub struct ToWebApp(String);

impl ToWebApp {
    fn connected(platform: Platform) -> Self {
        Self(format!("{WEB_APP_IMPORT}?connected={platform}"))
    }

    fn error(failure: OAuthFailure, platform: Platform) -> Self {
        Self(format!(
            "{WEB_APP_IMPORT}?error={}&platform={platform}",
            failure.code()
        ))
    }
}

/// Why a callback did not connect: the web app shows a fixed message for each code
/// (`static/js/pages/import.js`), and a generic one for any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthFailure {
    /// The provider reported an error (the user refused, most often).
    AccessDenied,
    /// The provider sent neither a code nor an error.
    NoCode,
    /// The token endpoint refused the code or could not be reached (the cause is logged).
    ExchangeFailed,
}

impl OAuthFailure {
    pub fn code(self) -> &'static str {
        match self {
            Self::AccessDenied => "access_denied",
            Self::NoCode => "no_code",
            Self::ExchangeFailed => "exchange_failed",
        }
    }
}

impl<'r> Responder<'r, 'static> for ToWebApp {
    fn respond_to(self, _req: &'r Request<'_>) -> response::Result<'static> {
        Response::build()
            .status(Status::SeeOther)
            .raw_header("Location", self.0)
            .ok()
    }
}

#[get("/import/oauth/callback?<code>&<state>&<error>")]
#[allow(clippy::too_many_arguments)]
async fn callback(
    user: SessionUser,
    _pro: ProPlan,
    code: Option<&str>,
    state: Option<&str>,
    error: Option<&str>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
    retry: &State<RetryPolicy>,
) -> AppResult<ToWebApp> {
    let state = state
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AppError::missing("state"))?;
    let state = state.to_owned();
    let scope = user.scope();
    let now = clock.now().unix_timestamp();
    let pending = db
        .write_as(scope.actor().to_owned(), move |tx| {
            use_state(tx, &scope, &state, now)
        })
        .await?
        .map_err(AppError::bad_request)?;

    if error.is_some_and(|e| !e.is_empty()) {
        return Ok(ToWebApp::error(
            OAuthFailure::AccessDenied,
            pending.platform,
        ));
    }
    let Some(code) = code.filter(|c| !c.is_empty()).map(str::to_owned) else {
        return Ok(ToWebApp::error(OAuthFailure::NoCode, pending.platform));
    };
    let pconfig = config.platform(pending.platform.id());
    let retry = retry.inner().clone();
    let when = clock.now();
    let redirect = pending.redirect_uri.clone();
    let exchanged = rocket::tokio::task::spawn_blocking(move || {
        freeagent::exchange_code(&pconfig, &code, &redirect, when, &retry)
    })
    .await
    .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?;
    let token = match exchanged {
        Ok(t) => t,
        Err(e) => {
            eprintln!("stockbook: {} OAuth code exchange: {e}", pending.platform);
            return Ok(ToWebApp::error(
                OAuthFailure::ExchangeFailed,
                pending.platform,
            ));
        }
    };
    let credentials = serde_json::to_value(&token)
        .map_err(|e| AppError::internal(format!("token serialisation: {e}")))?;
    // In the entity owner's books, where a member's import finds it.
    let scope = user.scope();
    let stamp = rfc3339(clock.now());
    let platform = pending.platform;
    db.write(move |tx| {
        upsert(
            tx,
            &scope.owner_for(tx, Some(&pending.entity_id))?,
            &pending.entity_id,
            platform,
            &credentials,
            &stamp,
        )
    })
    .await?;
    Ok(ToWebApp::connected(platform))
}
