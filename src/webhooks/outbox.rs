//! The outbox (docs/webhooks.md#events): [`emit`] writes an event, once per subscribed
//! webhook, in the caller's transaction, so a refused change leaves no event and a
//! committed one keeps it through a crash. The worker (`super::worker`) delivers it
//! afterwards.
//!
//! The cost on the write path is one cached `INSERT … SELECT` that finds the subscribed
//! webhooks and writes their deliveries at once; and nothing at all (not even the JSON
//! of the event) while no webhook has been active in this process ([`ANY_ACTIVE`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, Transaction};
use serde::Serialize;

use crate::error::{AppError, AppResult};

/// Every event type a webhook may subscribe to; `*` subscribes to all of them.
pub const EVENT_TYPES: [&str; 7] = [
    STOCK_MOVEMENT_CREATED,
    STOCK_LOW,
    TRANSFER_ORDER_UPDATED,
    STOCK_TAKE_COMPLETED,
    INVOICE_UPDATED,
    BILL_UPDATED,
    IMPORT_FINISHED,
];
pub const STOCK_MOVEMENT_CREATED: &str = "stock_movement.created";
pub const STOCK_LOW: &str = "stock.low";
pub const TRANSFER_ORDER_UPDATED: &str = "transfer_order.updated";
pub const STOCK_TAKE_COMPLETED: &str = "stock_take.completed";
pub const INVOICE_UPDATED: &str = "invoice.updated";
pub const BILL_UPDATED: &str = "bill.updated";
pub const IMPORT_FINISHED: &str = "import.finished";
/// The test event of `POST /api/webhooks/test`, sent to one webhook whatever it subscribes.
pub const PING: &str = "ping";

/// Whether any webhook may be active in a database this process has open. Set before a
/// webhook is created or activated and when a database that holds an active one is
/// opened ([`note_database`]); never cleared, so it only ever errs towards doing the work.
static ANY_ACTIVE: AtomicBool = AtomicBool::new(false);

/// Records that a webhook is (about to be) active.
pub fn note_active() {
    ANY_ACTIVE.store(true, Ordering::SeqCst);
}

/// Whether [`emit`] has anything to do at all.
pub fn any_active() -> bool {
    ANY_ACTIVE.load(Ordering::Relaxed)
}

/// Called when a database is opened: an active webhook in it turns [`emit`] on.
pub fn note_database(conn: &Connection) -> AppResult<()> {
    let found: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM webhooks WHERE active = 1)",
        [],
        |r| r.get(0),
    )?;
    if found {
        note_active();
    }
    Ok(())
}

/// Milliseconds since the Unix epoch, the worker's time scale.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Reads the movement at a `seq` as the session API shows it: its entity and its JSON.
/// The worker renders `stock_movement.created` bodies with it; the app passes
/// `inventory::movements::event_data` (the ledger's module depends on this one, so this
/// one names no function of it).
pub type MovementData =
    fn(&Connection, i64) -> AppResult<(Option<String>, Box<serde_json::value::RawValue>)>;

/// The body of every delivery: `{id, type, created_at, entity_id, data}`.
#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    created_at: &'a str,
    entity_id: Option<&'a str>,
    data: &'a T,
}

/// The JSON body of an event.
pub fn body<T: Serialize>(
    id: &str,
    kind: &str,
    created_at: &str,
    entity_id: Option<&str>,
    data: &T,
) -> AppResult<String> {
    serde_json::to_string(&Envelope {
        id,
        kind,
        created_at,
        entity_id,
        data,
    })
    .map_err(|e| AppError::internal(format!("serialising an event: {e}")))
}

/// Writes event `kind` about a record of `owner_id` (and `entity_id`) in `tx`: one
/// pending delivery for each active webhook of the owner that subscribes to `kind` and
/// is not scoped to another entity (docs/webhooks.md#events).
pub fn emit<T: Serialize>(
    tx: &Transaction,
    owner_id: &str,
    entity_id: Option<&str>,
    kind: &str,
    data: &T,
    now: &str,
) -> AppResult<()> {
    if !any_active() {
        return Ok(());
    }
    let id = event_id();
    let body = body(&id, kind, now, entity_id, data)?;
    insert(tx, owner_id, entity_id, kind, &id, &body, None, now)
}

/// Writes the `stock_movement.created` event of the movement at `movement_seq`, just
/// written in `tx`, like [`emit`] but without a body: the worker renders it from the
/// (immutable) ledger row when it sends it, so the write path builds no JSON and stores
/// a small row (docs/webhooks.md#events).
pub fn emit_movement(
    tx: &Transaction,
    owner_id: &str,
    entity_id: Option<&str>,
    movement_seq: i64,
    now: &str,
) -> AppResult<()> {
    if !any_active() {
        return Ok(());
    }
    let id = event_id();
    let kind = STOCK_MOVEMENT_CREATED;
    insert(
        tx,
        owner_id,
        entity_id,
        kind,
        &id,
        "",
        Some(movement_seq),
        now,
    )
}

/// A new event id: time-ordered, so the event index takes its inserts at one end
/// (docs/architecture.md#row-ids).
fn event_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[allow(clippy::too_many_arguments)]
fn insert(
    tx: &Transaction,
    owner_id: &str,
    entity_id: Option<&str>,
    kind: &str,
    id: &str,
    body: &str,
    movement_seq: Option<i64>,
    now: &str,
) -> AppResult<()> {
    // `events` is stored as a compact JSON array of names from EVENT_TYPES or "*"
    // (checked when it is written, `super::check_events`), so a quoted name found in its
    // text is exactly a member: no JSON parsing, no temporary table, per event.
    let quoted = format!("\"{kind}\"");
    tx.prepare_cached(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, movement_seq,
             created_at, round_start_ms, next_attempt_ms)
         SELECT w.id, ?1, ?2, ?3, ?9, ?4, ?5, ?5 FROM webhooks w
         WHERE w.owner_id = ?6 AND w.active = 1
           AND (w.entity_id IS NULL OR w.entity_id = ?7)
           AND (instr(w.events, '\"*\"') > 0 OR instr(w.events, ?8) > 0)",
    )?
    .execute(params![
        id,
        kind,
        body,
        now,
        now_ms(),
        owner_id,
        entity_id,
        quoted,
        movement_seq
    ])?;
    Ok(())
}
