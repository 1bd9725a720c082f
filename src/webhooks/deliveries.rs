//! The delivery log, redelivery and the test ping (docs/webhooks.md#the-delivery-log):
//! `GET /api/webhooks/deliveries`, `POST /api/webhooks/redeliver`, `POST
//! /api/webhooks/test`. The record, its SQL, its rules and their handlers.

use rocket::serde::json::Json;
use rocket::{get, post, routes, Route, State};
use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::outbox;
use super::resource::get_webhook;
use crate::auth::SessionUser;
use crate::clock::rfc3339;
use crate::ctx::Ctx;
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{parse_id, parse_opt_id, IdBody, JsonBody};
use crate::http::paging::ListQuery;
use crate::http::{data, Created};
use crate::scope::Scope;

/// Deliveries the log answers when no `limit` is given.
pub const DEFAULT_LOG_LIMIT: i64 = 100;

pub fn routes() -> Vec<Route> {
    routes![deliveries, redeliver, test]
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

/// The caller's latest deliveries first, of one webhook (404 when it is not theirs) or
/// of all of theirs: `limit` rows (-1 for all) after `offset`.
pub fn list_deliveries(
    conn: &Connection,
    scope: &Scope,
    webhook: Option<&str>,
    limit: i64,
    offset: i64,
) -> AppResult<Vec<Delivery>> {
    if let Some(id) = webhook {
        get_webhook(conn, scope, id)?;
    }
    let (cond, seen) = scope.condition(conn, "w");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
         WHERE {cond} AND (? IS NULL OR d.webhook_id = ?)
         ORDER BY d.seq DESC LIMIT ? OFFSET ?"
    ))?;
    let mut args: Vec<rusqlite::types::Value> = seen.into_iter().map(Into::into).collect();
    let webhook: rusqlite::types::Value = webhook.map(str::to_owned).into();
    args.extend([webhook.clone(), webhook, limit.into(), offset.into()]);
    let rows = stmt
        .query_map(
            rusqlite::params_from_iter(args),
            damage::named(delivery_from_row),
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
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

/// Queues event `event` again for every webhook of the caller that had it: pending, due
/// now, with a fresh retry window. Answers the deliveries queued; 404 when none of the
/// caller's webhooks had it.
pub fn redeliver_event(tx: &Transaction, scope: &Scope, event: &str) -> AppResult<Vec<Delivery>> {
    let changed = tx.execute(
        &format!(
            "UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ?1,
                 round_start_ms = ?1, round_attempts = 0
             WHERE seq IN ({DELIVERIES_OF_EVENT})"
        ),
        params![outbox::now_ms(), event, scope.owner_id],
    )?;
    if changed == 0 {
        return Err(AppError::not_found(format!("Event not found: {event}")));
    }
    deliveries_where(
        tx,
        &format!("d.seq IN ({DELIVERIES_OF_EVENT})"),
        params![Option::<i64>::None, event, scope.owner_id],
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
        .query_map(args, damage::named(delivery_from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Queues a `ping` event for one webhook of the caller, whatever it subscribes to, and
/// answers its delivery: 404 when the webhook is not theirs, 409 when it is inactive
/// (it would send nothing).
pub fn send_test(tx: &Transaction, scope: &Scope, id: &str, ctx: &Ctx) -> AppResult<Delivery> {
    let w = get_webhook(tx, scope, id)?;
    if !w.active {
        return Err(AppError::refused(
            "inactive_record",
            "This webhook is inactive: activate it before sending a test",
        ));
    }
    let event = uuid::Uuid::now_v7().to_string();
    let body = outbox::body(
        &event,
        outbox::PING,
        &ctx.now,
        w.entity_id.as_deref(),
        &json!({ "webhook_id": w.id }),
    )?;
    tx.execute(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, created_at,
             round_start_ms, next_attempt_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
        params![w.id, event, outbox::PING, body, ctx.now, outbox::now_ms()],
    )?;
    deliveries_where(tx, "d.seq = ?1", [tx.last_insert_rowid()])?
        .pop()
        .ok_or_else(|| AppError::internal("the test delivery vanished"))
}

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
    let webhook = parse_opt_id("webhookId", webhookId.as_deref())?;
    let scope = user.scope();
    let rows = db
        .read(move |conn| list_deliveries(conn, &scope, webhook.as_deref(), limit, page.offset))
        .await?;
    Ok(data(rows))
}

#[derive(Deserialize)]
struct RedeliverBody {
    #[serde(default)]
    event_id: Option<String>,
}

/// Queues an event again for every webhook of the caller that had it. Answers the
/// deliveries queued.
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
    let scope = user.scope();
    let queued = db
        .write_as(scope.actor().to_owned(), move |tx| {
            redeliver_event(tx, &scope, &event)
        })
        .await?;
    Ok(data(queued))
}

/// Queues a `ping` event for one webhook: 201 with the delivery.
#[post("/webhooks/test", data = "<body>")]
async fn test(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Delivery>> {
    let id = body.id()?;
    let scope = user.scope();
    let delivery = db
        .write_as(scope.actor().to_owned(), move |tx| {
            send_test(tx, &scope, &id, &ctx)
        })
        .await?;
    Ok(Created(delivery))
}
