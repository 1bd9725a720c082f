//! The webhook resource: `GET/POST/PUT/DELETE /api/webhooks` (docs/webhooks.md#the-resource).
//! The record, its SQL and its rules (sync functions taking the caller's [`Scope`]), and
//! the handlers that call them. A URL is checked before the write ([`check_url`]): that
//! looks its host up, which no transaction waits for.

use std::time::Duration;

use rocket::serde::json::Json;
use rocket::{delete, get, post, put, routes, Route, State};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::outbox::{self, EventType};
use super::worker;
use crate::auth::{token, SessionUser};
use crate::config::AppConfig;
use crate::ctx::Ctx;
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{nullable, parse_id, IdBody, JsonBody};
use crate::http::paging::{ListQuery, Page};
use crate::http::{data, required_text, Created};
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![list, create, update, remove]
}

/// Every secret starts with this.
pub const SECRET_PREFIX: &str = "whsec_";
/// Random base62 characters after [`SECRET_PREFIX`].
pub const SECRET_RANDOM_LEN: usize = 32;
/// The longest URL accepted.
pub const MAX_URL: usize = 2048;
/// Webhooks a user may hold.
pub const MAX_WEBHOOKS: i64 = 50;
/// How long saving a URL waits for its host's addresses.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// A webhook as the API shows it: never its secret.
#[derive(Debug, Clone, Serialize)]
pub struct Webhook {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub entity_id: Option<String>,
    pub active: bool,
    pub created_at: String,
}

/// The create answer: the webhook and, this once, its secret.
#[derive(Debug, Serialize)]
pub struct CreatedWebhook {
    #[serde(flatten)]
    pub webhook: Webhook,
    pub secret: String,
}

const COLUMNS: &str = "id, url, events, entity_id, active, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Webhook> {
    let events: String = r.get(2)?;
    Ok(Webhook {
        id: r.get(0)?,
        url: r.get(1)?,
        events: serde_json::from_str(&events).unwrap_or_default(),
        entity_id: r.get(3)?,
        active: r.get(4)?,
        created_at: r.get(5)?,
    })
}

/// One of the caller's webhooks: 404 when unknown or another user's.
pub fn get_webhook(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Webhook> {
    let (cond, seen) = scope.condition(conn, "");
    let mut args = vec![id.to_owned()];
    args.extend(seen);
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM webhooks WHERE id = ? AND {cond}"),
        rusqlite::params_from_iter(args),
        damage::named(from_row),
    )
    .optional()?
    .ok_or_else(|| AppError::not_found(format!("Webhook not found: {id}")))
}

/// Checks the event list: at least one, each a known type or `*`; duplicates dropped.
pub fn check_events(events: Option<Vec<String>>) -> AppResult<Vec<String>> {
    let events = events.ok_or_else(|| AppError::missing("events"))?;
    if events.is_empty() {
        return Err(AppError::invalid(
            "events",
            "subscribe to at least one event type, or [\"*\"] for all",
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for e in events {
        let e = e.trim().to_owned();
        if e != outbox::ALL && !outbox::EVENT_TYPES.contains(&e.as_str()) {
            let shown: String = e.chars().take(60).collect();
            return Err(AppError::invalid(
                "events",
                format!(
                    "unknown event type `{shown}`; the types are {} (or `*` for all)",
                    outbox::EVENT_TYPES.join(", ")
                ),
            ));
        }
        if !out.contains(&e) {
            out.push(e);
        }
    }
    if out.iter().any(|e| e == outbox::ALL) {
        out = vec![outbox::ALL.to_owned()];
    }
    Ok(out)
}

/// Checks a URL against the outgoing-call rules (docs/webhooks.md#urls), looking its
/// host up (so it blocks: see [`check_url`]): 400 naming the rule.
pub fn check_url_blocking(config: &AppConfig, raw: &str) -> AppResult<String> {
    let url = required_text("url", raw)?;
    if url.chars().count() > MAX_URL {
        return Err(AppError::invalid(
            "url",
            format!("longer than {MAX_URL} characters"),
        ));
    }
    match worker::policy(config).check_resolved(&url, RESOLVE_TIMEOUT) {
        Ok(_) => Ok(url),
        Err(refusal) => {
            let hint = match refusal {
                crate::outbound::Refusal::NotHttps(_) if !config.webhooks_allow_http => {
                    " (the operator may allow http:// with `webhooks_allow_http`)"
                }
                crate::outbound::Refusal::Blocked { .. } if !config.webhooks_allow_private => {
                    " (the operator may allow such hosts with `webhooks_allow_private`)"
                }
                _ => "",
            };
            Err(AppError::invalid("url", format!("{refusal}{hint}")))
        }
    }
}

/// [`check_url_blocking`] off the async threads.
pub async fn check_url(config: &AppConfig, raw: &str) -> AppResult<String> {
    let (config, raw) = (config.clone(), raw.to_owned());
    rocket::tokio::task::spawn_blocking(move || check_url_blocking(&config, &raw))
        .await
        .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?
}

/// The caller's webhooks, newest first.
pub fn list_webhooks(conn: &Connection, scope: &Scope, page: Page) -> AppResult<Vec<Webhook>> {
    let (cond, seen) = scope.condition(conn, "");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM webhooks WHERE {cond}
         ORDER BY seq DESC LIMIT ? OFFSET ?"
    ))?;
    let mut args: Vec<rusqlite::types::Value> = seen.into_iter().map(Into::into).collect();
    args.extend([page.sql_limit().into(), page.offset.into()]);
    let rows = stmt
        .query_map(rusqlite::params_from_iter(args), damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The body of `POST /api/webhooks`.
#[derive(Debug, Deserialize)]
pub struct CreateBody {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub events: Option<Vec<String>>,
    #[serde(default)]
    pub entity_id: Option<String>,
    #[serde(default)]
    pub active: Option<bool>,
}

/// A new webhook whose `url` passed [`check_url`] and whose `events` passed
/// [`check_events`].
#[derive(Debug)]
pub struct NewWebhook {
    pub url: String,
    pub events: Vec<String>,
    pub entity_id: Option<String>,
    pub active: bool,
}

impl CreateBody {
    /// What can be checked before the write: `url` (missing first), then `events`, then
    /// the URL's rules.
    pub async fn check(self, config: &AppConfig) -> AppResult<NewWebhook> {
        let url = self.url.ok_or_else(|| AppError::missing("url"))?;
        let events = check_events(self.events)?;
        Ok(NewWebhook {
            url: check_url(config, &url).await?,
            events,
            entity_id: self.entity_id,
            active: self.active.unwrap_or(true),
        })
    }
}

/// Creates a webhook of the caller with a new secret: 404 for an entity not theirs, 409
/// beyond [`MAX_WEBHOOKS`]. It receives the movements written from now on
/// (docs/webhooks.md#events).
pub fn create_webhook(
    tx: &Transaction,
    scope: &Scope,
    w: NewWebhook,
    ctx: &Ctx,
) -> AppResult<CreatedWebhook> {
    if w.active {
        outbox::note_active();
    }
    let entity_id = scope.entity_opt(tx, "entity_id", w.entity_id.as_deref())?;
    // In the books of the entity's owner, whose records' events it receives.
    let owner = scope.owner_for(tx, entity_id.as_deref())?;
    let held: i64 = tx.query_row(
        "SELECT COUNT(*) FROM webhooks WHERE owner_id = ?1",
        [&owner],
        |r| r.get(0),
    )?;
    if held >= MAX_WEBHOOKS {
        return Err(AppError::refused(
            "limit_reached",
            format!("A user may hold at most {MAX_WEBHOOKS} webhooks; delete one first"),
        ));
    }
    let secret = format!("{SECRET_PREFIX}{}", token::random_base62(SECRET_RANDOM_LEN));
    let webhook = Webhook {
        id: uuid::Uuid::new_v4().to_string(),
        url: w.url,
        events: w.events,
        entity_id,
        active: w.active,
        created_at: ctx.now.clone(),
    };
    tx.execute(
        "INSERT INTO webhooks (id, owner_id, entity_id, url, events, secret, active,
             created_at, movement_cursor, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, seal(?6, 'webhooks.secret'), ?7, ?8,
             (SELECT COALESCE(MAX(seq), 0) FROM stock_movements), ?9)",
        params![
            webhook.id,
            owner,
            webhook.entity_id,
            webhook.url,
            json!(webhook.events).to_string(),
            secret,
            webhook.active,
            webhook.created_at,
            scope.actor_id
        ],
    )?;
    Ok(CreatedWebhook { webhook, secret })
}

/// The body of `PUT /api/webhooks`.
#[derive(Debug, Deserialize)]
pub struct UpdateBody {
    pub id: String,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub events: Option<Vec<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub entity_id: Option<Option<String>>,
    #[serde(default)]
    pub active: Option<bool>,
}

/// A change to a webhook: the fields sent, checked as on create.
#[derive(Debug)]
pub struct WebhookChange {
    pub id: String,
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    /// `Some(None)` (or an empty id) clears the entity scope.
    pub entity_id: Option<Option<String>>,
    pub active: Option<bool>,
}

impl UpdateBody {
    /// What can be checked before the write: `id`, then `url`, then `events`.
    pub async fn check(self, config: &AppConfig) -> AppResult<WebhookChange> {
        let id = parse_id("id", &self.id)?;
        let url = match self.url {
            Some(u) => Some(check_url(config, &u).await?),
            None => None,
        };
        let events = match self.events {
            Some(e) => Some(check_events(Some(e))?),
            None => None,
        };
        Ok(WebhookChange {
            id,
            url,
            events,
            entity_id: self.entity_id,
            active: self.active,
        })
    }
}

/// Changes the fields sent; the secret never changes. The movements written so far are
/// judged by the webhook as it was: it gets their deliveries (if it was active and
/// subscribed) before it changes, and a webhook made active again starts at the
/// ledger's end (docs/webhooks.md#events).
pub fn update_webhook(tx: &Transaction, scope: &Scope, c: WebhookChange) -> AppResult<Webhook> {
    if c.active == Some(true) {
        outbox::note_active();
    }
    let mut w = get_webhook(tx, scope, &c.id)?;
    outbox::catch_up(tx, outbox::Webhooks::One(&w.id), None)?;
    if let Some(url) = c.url {
        w.url = url;
    }
    if let Some(events) = c.events {
        w.events = events;
    }
    if let Some(entity) = c.entity_id {
        w.entity_id = match entity.filter(|e| !e.is_empty()) {
            Some(raw) => Some(scope.entity(tx, "entity_id", &raw)?),
            None => None,
        };
    }
    if let Some(active) = c.active {
        w.active = active;
    }
    tx.execute(
        "UPDATE webhooks SET url = ?1, events = ?2, entity_id = ?3, active = ?4
         WHERE id = ?5",
        params![
            w.url,
            json!(w.events).to_string(),
            w.entity_id,
            w.active,
            w.id
        ],
    )?;
    Ok(w)
}

/// Deletes a webhook of the caller and its deliveries (pending ones are never sent).
pub fn delete_webhook(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    let (cond, seen) = scope.condition(tx, "");
    let mut args = vec![id.to_owned()];
    args.extend(seen);
    if tx.execute(
        &format!("DELETE FROM webhooks WHERE id = ? AND {cond}"),
        rusqlite::params_from_iter(args),
    )? == 0
    {
        return Err(AppError::not_found(format!("Webhook not found: {id}")));
    }
    Ok(())
}

/// The list answer: a page of webhooks, and every event type a webhook may subscribe to
/// with its description, which the web app's form lists (docs/webhooks.md#the-resource).
#[derive(Serialize)]
struct WebhookList {
    data: Vec<Webhook>,
    event_types: &'static [EventType],
}

#[get("/webhooks?<q..>")]
async fn list(user: SessionUser, q: ListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = q.page()?;
    let scope = user.scope();
    let hooks = db
        .read(move |conn| list_webhooks(conn, &scope, page))
        .await?;
    Ok(Json(json!(WebhookList {
        data: hooks,
        event_types: &outbox::EVENTS,
    })))
}

#[post("/webhooks", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<CreateBody>,
    db: &State<Db>,
    ctx: Ctx,
    config: &State<AppConfig>,
) -> AppResult<Created<CreatedWebhook>> {
    let new = body.into_inner().check(config).await?;
    let scope = user.scope();
    let created = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create_webhook(tx, &scope, new, &ctx)
        })
        .await?;
    Ok(Created(created))
}

/// Changes the fields sent; the secret never changes.
#[put("/webhooks", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<UpdateBody>,
    db: &State<Db>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    let change = body.into_inner().check(config).await?;
    let scope = user.scope();
    let webhook = db
        .write_as(scope.actor().to_owned(), move |tx| {
            update_webhook(tx, &scope, change)
        })
        .await?;
    Ok(data(webhook))
}

/// Deletes a webhook and its deliveries (pending ones are never sent).
#[delete("/webhooks", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let id = body.id()?;
    let scope = user.scope();
    db.write_as(scope.actor().to_owned(), move |tx| {
        delete_webhook(tx, &scope, &id)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}
