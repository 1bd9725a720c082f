//! Webhooks (docs/webhooks.md): `GET/POST/PUT/DELETE /api/webhooks`, the delivery log,
//! redelivery and the test ping, session only.
//!
//! A webhook subscribes a URL to event types, for every record of its owner or, with
//! `entity_id`, for one entity's. Its secret (`whsec_` + 32 base62 characters) is shown
//! once, in the create answer; it signs every delivery ([`signature`]). Events are
//! written by the changes that cause them, in their transactions ([`outbox::emit`]), and
//! sent by the worker ([`worker`]).

pub mod openapi;
pub mod outbox;
pub mod signature;
pub mod worker;

use std::time::Duration;

use rocket::serde::json::Json;
use rocket::{delete, get, post, put, routes, Route, State};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::auth::{token, SessionUser};
use crate::clock::{rfc3339, Clock};
use crate::config::AppConfig;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{nullable, parse_id, IdBody, JsonBody};
use crate::http::paging::ListQuery;
use crate::http::{data, required_text, Created};
use crate::scope::Scope;

/// Every secret starts with this.
pub const SECRET_PREFIX: &str = "whsec_";
/// Random base62 characters after [`SECRET_PREFIX`].
pub const SECRET_RANDOM_LEN: usize = 32;
/// The longest URL accepted.
pub const MAX_URL: usize = 2048;
/// Webhooks a user may hold.
pub const MAX_WEBHOOKS: i64 = 50;
/// Deliveries the log answers when no `limit` is given.
pub const DEFAULT_LOG_LIMIT: i64 = 100;
/// How long saving a URL waits for its host's addresses.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

pub fn routes() -> Vec<Route> {
    routes![list, create, update, remove, deliveries, redeliver, test]
}

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

/// One delivery of the log.
#[derive(Debug, Clone, Serialize)]
pub struct Delivery {
    pub webhook_id: String,
    pub event_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub status: String,
    pub attempts: i64,
    pub last_status_code: Option<i64>,
    pub last_error: Option<String>,
    pub last_attempt_at: Option<String>,
    /// When a pending delivery is next attempted (null once delivered or failed).
    pub next_attempt_at: Option<String>,
    pub created_at: String,
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

fn get_owned(conn: &Connection, owner: &str, id: &str) -> AppResult<Webhook> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM webhooks WHERE id = ?1 AND owner_id = ?2"),
        [id, owner],
        from_row,
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
        if e != "*" && !outbox::EVENT_TYPES.contains(&e.as_str()) {
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
    if out.iter().any(|e| e == "*") {
        out = vec!["*".to_owned()];
    }
    Ok(out)
}

/// Checks a URL against the outgoing-call rules (docs/webhooks.md#urls), looking its
/// host up, off the async threads: 400 naming the rule.
async fn check_url(config: &AppConfig, raw: &str) -> AppResult<String> {
    let url = required_text("url", raw)?;
    if url.chars().count() > MAX_URL {
        return Err(AppError::invalid(
            "url",
            format!("longer than {MAX_URL} characters"),
        ));
    }
    let policy = worker::policy(config);
    let (allow_http, allow_private) = (config.webhooks_allow_http, config.webhooks_allow_private);
    let checked = url.clone();
    let result = rocket::tokio::task::spawn_blocking(move || {
        policy.check_resolved(&checked, RESOLVE_TIMEOUT)
    })
    .await
    .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?;
    match result {
        Ok(_) => Ok(url),
        Err(refusal) => {
            let hint = match refusal {
                crate::outbound::Refusal::NotHttps(_) if !allow_http => {
                    " (the operator may allow http:// with `webhooks_allow_http`)"
                }
                crate::outbound::Refusal::Blocked { .. } if !allow_private => {
                    " (the operator may allow such hosts with `webhooks_allow_private`)"
                }
                _ => "",
            };
            Err(AppError::invalid("url", format!("{refusal}{hint}")))
        }
    }
}

#[get("/webhooks?<q..>")]
async fn list(user: SessionUser, q: ListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = q.page()?;
    let owner = user.user.id;
    let hooks = db
        .read(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM webhooks WHERE owner_id = ?1
                 ORDER BY seq DESC LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt
                .query_map(params![owner, page.sql_limit(), page.offset], from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await?;
    Ok(data(hooks))
}

#[derive(Deserialize)]
struct CreateBody {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    events: Option<Vec<String>>,
    #[serde(default)]
    entity_id: Option<String>,
    #[serde(default)]
    active: Option<bool>,
}

#[post("/webhooks", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<CreateBody>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<CreatedWebhook>> {
    let b = body.into_inner();
    let url = b.url.ok_or_else(|| AppError::missing("url"))?;
    let events = check_events(b.events)?;
    let url = check_url(config, &url).await?;
    let scope = Scope::user(user.id());
    let now = rfc3339(clock.now());
    let active = b.active.unwrap_or(true);
    if active {
        outbox::note_active();
    }
    let created = db
        .write(move |tx| {
            let entity_id = scope.entity_opt(tx, "entity_id", b.entity_id.as_deref())?;
            let held: i64 = tx.query_row(
                "SELECT COUNT(*) FROM webhooks WHERE owner_id = ?1",
                [&scope.owner_id],
                |r| r.get(0),
            )?;
            if held >= MAX_WEBHOOKS {
                return Err(AppError::conflict(format!(
                    "A user may hold at most {MAX_WEBHOOKS} webhooks; delete one first"
                )));
            }
            let secret = format!("{SECRET_PREFIX}{}", token::random_base62(SECRET_RANDOM_LEN));
            let webhook = Webhook {
                id: uuid::Uuid::new_v4().to_string(),
                url,
                events,
                entity_id,
                active,
                created_at: now,
            };
            // It receives the movements written from now on (docs/webhooks.md#events).
            tx.execute(
                "INSERT INTO webhooks (id, owner_id, entity_id, url, events, secret, active,
                     created_at, movement_cursor)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,
                     (SELECT COALESCE(MAX(seq), 0) FROM stock_movements))",
                params![
                    webhook.id,
                    scope.owner_id,
                    webhook.entity_id,
                    webhook.url,
                    json!(webhook.events).to_string(),
                    secret,
                    webhook.active,
                    webhook.created_at
                ],
            )?;
            Ok(CreatedWebhook { webhook, secret })
        })
        .await?;
    Ok(Created(created))
}

#[derive(Deserialize)]
struct UpdateBody {
    id: String,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    events: Option<Vec<String>>,
    #[serde(default, deserialize_with = "nullable")]
    entity_id: Option<Option<String>>,
    #[serde(default)]
    active: Option<bool>,
}

/// Changes the fields sent; the secret never changes.
#[put("/webhooks", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<UpdateBody>,
    db: &State<Db>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    let b = body.into_inner();
    let id = parse_id("id", &b.id)?;
    let url = match b.url {
        Some(u) => Some(check_url(config, &u).await?),
        None => None,
    };
    let events = match b.events {
        Some(e) => Some(check_events(Some(e))?),
        None => None,
    };
    if b.active == Some(true) {
        outbox::note_active();
    }
    let scope = Scope::user(user.id());
    let webhook = db
        .write(move |tx| {
            let mut w = get_owned(tx, &scope.owner_id, &id)?;
            // The movements written so far are judged by the webhook as it was: it gets
            // their deliveries (if it was active and subscribed) before it changes, and a
            // webhook made active again starts at the ledger's end (docs/webhooks.md#events).
            outbox::catch_up(tx, outbox::Webhooks::One(&w.id), None)?;
            if let Some(url) = url {
                w.url = url;
            }
            if let Some(events) = events {
                w.events = events;
            }
            if let Some(entity) = b.entity_id {
                w.entity_id = match entity.filter(|e| !e.is_empty()) {
                    Some(raw) => Some(scope.entity(tx, "entity_id", &raw)?),
                    None => None,
                };
            }
            if let Some(active) = b.active {
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
    let owner = user.user.id;
    db.write(move |tx| {
        if tx.execute(
            "DELETE FROM webhooks WHERE id = ?1 AND owner_id = ?2",
            [&id, &owner],
        )? == 0
        {
            return Err(AppError::not_found(format!("Webhook not found: {id}")));
        }
        Ok(())
    })
    .await?;
    Ok(data(json!({ "success": true })))
}

fn delivery_from_row(r: &Row<'_>) -> rusqlite::Result<Delivery> {
    let status: String = r.get(3)?;
    let next_ms: i64 = r.get(8)?;
    let next = (status == "pending").then(|| {
        rfc3339(
            time::OffsetDateTime::from_unix_timestamp(next_ms.div_euclid(1000))
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH),
        )
    });
    Ok(Delivery {
        webhook_id: r.get(0)?,
        event_id: r.get(1)?,
        kind: r.get(2)?,
        status,
        attempts: r.get(4)?,
        last_status_code: r.get(5)?,
        last_error: r.get(6)?,
        last_attempt_at: r.get(7)?,
        next_attempt_at: next,
        created_at: r.get(9)?,
    })
}

/// The columns of [`delivery_from_row`]; a waiting webhook's deliveries show its retry
/// time when that is later than their own.
const DELIVERY_COLUMNS: &str = "d.webhook_id, d.event_id, d.type, d.status, d.attempts,
    d.last_status_code, d.last_error, d.last_attempt_at,
    MAX(d.next_attempt_ms, COALESCE(w.retry_at_ms, 0)), d.created_at";

/// Latest deliveries first, of one webhook (`webhookId`) or all of the caller's.
#[get("/webhooks/deliveries?<webhookId>&<q..>")]
#[allow(non_snake_case)]
async fn deliveries(
    user: SessionUser,
    webhookId: Option<String>,
    q: ListQuery,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let page = q.page()?;
    let limit = if q.limit.is_some() {
        page.sql_limit()
    } else {
        DEFAULT_LOG_LIMIT
    };
    let webhook = crate::http::body::parse_opt_id("webhookId", webhookId.as_deref())?;
    let owner = user.user.id;
    let rows = db
        .read(move |conn| {
            if let Some(id) = &webhook {
                get_owned(conn, &owner, id)?;
            }
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d
                 JOIN webhooks w ON w.id = d.webhook_id
                 WHERE w.owner_id = ?1 AND (?2 IS NULL OR d.webhook_id = ?2)
                 ORDER BY d.seq DESC LIMIT ?3 OFFSET ?4"
            ))?;
            let rows = stmt
                .query_map(
                    params![owner, webhook, limit, page.offset],
                    delivery_from_row,
                )?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await?;
    Ok(data(rows))
}

#[derive(Deserialize)]
struct RedeliverBody {
    #[serde(default)]
    event_id: Option<String>,
}

/// Queues an event again for every webhook of the caller that had it: pending, due now,
/// with a fresh retry window. Answers the deliveries queued.
#[post("/webhooks/redeliver", data = "<body>")]
async fn redeliver(
    user: SessionUser,
    body: JsonBody<RedeliverBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let raw = body
        .into_inner()
        .event_id
        .ok_or_else(|| AppError::missing("event_id"))?;
    let event = parse_id("event_id", &raw)?;
    let owner = user.user.id;
    let queued = db
        .write(move |tx| {
            let now = outbox::now_ms();
            let changed = tx.execute(
                &format!(
                    "UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?1,
                         round_start_ms = ?1, round_attempts = 0
                     WHERE seq IN ({DELIVERIES_OF_EVENT})"
                ),
                params![now, event, owner],
            )?;
            if changed == 0 {
                return Err(AppError::not_found(format!("Event not found: {event}")));
            }
            deliveries_of_event(tx, &owner, &event)
        })
        .await?;
    Ok(data(queued))
}

/// The `seq`s of the deliveries of event `?2` to webhooks of owner `?3`. Attempted
/// deliveries are found through their event index, pending ones through the pending
/// index: the request that writes an event touches neither event index
/// (migrations/V15__webhook_movement_events.sql).
pub const DELIVERIES_OF_EVENT: &str = "
    SELECT d.seq FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.event_id = ?2 AND d.status <> 'pending' AND w.owner_id = ?3
    UNION ALL
    SELECT d.seq FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id
    WHERE w.owner_id = ?3 AND d.status = 'pending' AND d.event_id = ?2";

fn deliveries_of_event(tx: &Transaction, owner: &str, event: &str) -> AppResult<Vec<Delivery>> {
    deliveries_where(
        tx,
        &format!("d.seq IN ({DELIVERIES_OF_EVENT})"),
        params![Option::<i64>::None, event, owner],
    )
}

/// The deliveries (of any owner) meeting `condition` on `webhook_deliveries d`, oldest
/// first.
fn deliveries_where(
    tx: &Transaction,
    condition: &str,
    args: impl rusqlite::Params,
) -> AppResult<Vec<Delivery>> {
    let mut stmt = tx.prepare_cached(&format!(
        "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
         WHERE {condition} ORDER BY d.seq"
    ))?;
    let rows = stmt
        .query_map(args, delivery_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Queues a `ping` event for one webhook, whatever it subscribes to: 201 with the
/// delivery. An inactive webhook sends nothing (409).
#[post("/webhooks/test", data = "<body>")]
async fn test(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<Created<Delivery>> {
    let id = body.id()?;
    let owner = user.user.id;
    let now = rfc3339(clock.now());
    let delivery = db
        .write(move |tx| {
            let w = get_owned(tx, &owner, &id)?;
            if !w.active {
                return Err(AppError::conflict(
                    "This webhook is inactive: activate it before sending a test",
                ));
            }
            let event = uuid::Uuid::now_v7().to_string();
            let body = outbox::body(
                &event,
                outbox::PING,
                &now,
                w.entity_id.as_deref(),
                &json!({ "webhook_id": w.id }),
            )?;
            tx.execute(
                "INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, created_at,
                     round_start_ms, next_attempt_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                params![w.id, event, outbox::PING, body, now, outbox::now_ms()],
            )?;
            deliveries_where(tx, "d.seq = ?1", [tx.last_insert_rowid()])?
                .pop()
                .ok_or_else(|| AppError::internal("the test delivery vanished"))
        })
        .await?;
    Ok(Created(delivery))
}
