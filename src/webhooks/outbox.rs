//! The outbox (docs/webhooks.md#events): [`emit`] writes an event, once per subscribed
//! webhook, in the caller's transaction, so a refused change leaves no event and a
//! committed one keeps it through a crash. The worker (`super::worker`) delivers it
//! afterwards.
//!
//! A stock movement's event is the exception: its ledger row, written in the movement's
//! transaction, is its record, and [`catch_up`] writes its deliveries afterwards, off the
//! movement's write path (see "Movement events" below).
//!
//! The cost of any other event on the write path is one cached `INSERT … SELECT` that
//! finds the subscribed webhooks and writes their deliveries at once; and nothing at all
//! (not even the JSON of the event) while no webhook has been active in this process
//! ([`ANY_ACTIVE`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, Transaction};
use serde::Serialize;

use crate::error::{AppError, AppResult};

/// An event type a webhook may subscribe to, with the line the web app shows for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EventType {
    #[serde(rename = "type")]
    pub name: &'static str,
    pub description: &'static str,
}

/// Every event type a webhook may subscribe to (docs/webhooks.md#events), in the order
/// the web app lists them: the one list of them. The checks of a webhook's `events`
/// ([`EVENT_TYPES`]), the webhook list's `event_types` (which the web app's form reads)
/// and the API description ([`SUBSCRIBABLE`]) are all derived from it.
pub const EVENTS: [EventType; 9] = [
    EventType {
        name: STOCK_MOVEMENT_CREATED,
        description: "A stock movement is recorded",
    },
    EventType {
        name: STOCK_LOW,
        description: "A product or location falls to its low-stock level",
    },
    EventType {
        name: TRANSFER_ORDER_UPDATED,
        description: "A transfer order is created or changes",
    },
    EventType {
        name: STOCK_TAKE_COMPLETED,
        description: "A stock take is completed",
    },
    EventType {
        name: INVOICE_UPDATED,
        description: "An invoice is created or changes",
    },
    EventType {
        name: BILL_UPDATED,
        description: "A bill is created or changes",
    },
    EventType {
        name: CREDIT_NOTE_UPDATED,
        description: "A credit note is created or changes",
    },
    EventType {
        name: SUPPLIER_CREDIT_UPDATED,
        description: "A supplier credit is created or changes",
    },
    EventType {
        name: IMPORT_FINISHED,
        description: "An import finishes",
    },
];

/// The names of [`EVENTS`].
pub const EVENT_TYPES: [&str; EVENTS.len()] = {
    let mut out = [""; EVENTS.len()];
    let mut i = 0;
    while i < EVENTS.len() {
        out[i] = EVENTS[i].name;
        i += 1;
    }
    out
};

/// In a webhook's `events`: every event type, including types added later.
pub const ALL: &str = "*";

/// Every value a webhook's `events` may hold: [`ALL`], then [`EVENT_TYPES`].
pub const SUBSCRIBABLE: [&str; EVENTS.len() + 1] = {
    let mut out = [ALL; EVENTS.len() + 1];
    let mut i = 0;
    while i < EVENTS.len() {
        out[i + 1] = EVENTS[i].name;
        i += 1;
    }
    out
};

pub const STOCK_MOVEMENT_CREATED: &str = "stock_movement.created";
pub const STOCK_LOW: &str = "stock.low";
pub const TRANSFER_ORDER_UPDATED: &str = "transfer_order.updated";
pub const STOCK_TAKE_COMPLETED: &str = "stock_take.completed";
pub const INVOICE_UPDATED: &str = "invoice.updated";
pub const BILL_UPDATED: &str = "bill.updated";
pub const CREDIT_NOTE_UPDATED: &str = "credit_note.updated";
pub const SUPPLIER_CREDIT_UPDATED: &str = "supplier_credit.updated";
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
    // The receivers' movement deliveries go first: this event follows every movement
    // written before it (docs/webhooks.md#delivery).
    catch_up(
        tx,
        Webhooks::Receiving {
            owner_id,
            entity_id,
            kind,
        },
        None,
    )?;
    let id = event_id();
    let body = body(&id, kind, now, entity_id, data)?;
    insert(tx, owner_id, entity_id, kind, &id, &body, now)
}

/// A new event id: time-ordered, so the event index takes its inserts at one end
/// (docs/architecture.md#row-ids).
fn event_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

fn insert(
    tx: &Transaction,
    owner_id: &str,
    entity_id: Option<&str>,
    kind: &str,
    id: &str,
    body: &str,
    now: &str,
) -> AppResult<()> {
    // `events` is stored as a compact JSON array of names from EVENT_TYPES or "*"
    // (checked when it is written, `super::resource::check_events`), so a quoted name
    // found in its text is exactly a member: no JSON parsing, no temporary table, per
    // event.
    let quoted = format!("\"{kind}\"");
    tx.prepare_cached(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, type, body,
             created_at, round_start_ms, next_attempt_ms)
         SELECT w.id, ?1, ?2, ?3, ?4, ?5, ?5 FROM webhooks w
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
        quoted
    ])?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Movement events (docs/webhooks.md#events)
//
// A `stock_movement.created` delivery is not written by the movement's transaction: the
// ledger row it writes is the event's durable record (immutable, never deleted). Each
// webhook keeps how far into the ledger it has been served (`webhooks.movement_cursor`),
// and [`catch_up`] writes the deliveries of the movements after it. The delivery worker
// calls it every round; any other event calls it for its receivers before it is written,
// and a change to a webhook calls it before the change, so every webhook's deliveries
// are in the order the events happened, and each movement is judged by the webhook as it
// was when the movement was written.

/// Which webhooks [`catch_up`] brings up to the ledger's end.
#[derive(Debug, Clone, Copy)]
pub enum Webhooks<'a> {
    /// Every active webhook: the delivery worker's round.
    Active,
    /// One webhook, active or not: before it is changed.
    One(&'a str),
    /// The webhooks that receive event `kind` about a record of `owner_id` (and
    /// `entity_id`): before that event is written.
    Receiving {
        owner_id: &'a str,
        entity_id: Option<&'a str>,
        kind: &'a str,
    },
}

/// The ledger's end: the newest movement's `seq`, 0 before the first.
pub fn ledger_end(conn: &Connection) -> AppResult<i64> {
    Ok(conn
        .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM stock_movements")?
        .query_row([], |r| r.get(0))?)
}

/// Whether an active webhook has not yet been served the ledger's newest movements.
pub fn behind(conn: &Connection) -> AppResult<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM webhooks WHERE active = 1
                 AND movement_cursor < (SELECT COALESCE(MAX(seq), 0) FROM stock_movements))",
        )?
        .query_row([], |r| r.get(0))?)
}

struct Behind {
    id: String,
    owner_id: String,
    entity_id: Option<String>,
    events: String,
    active: bool,
    cursor: i64,
}

/// Writes, for each of `which` webhooks, the `stock_movement.created` deliveries of the
/// movements after its `movement_cursor`, in ledger order, and moves the cursor on: over
/// at most `span` movements of the ledger (to its end with `None`). Only an active
/// webhook subscribed to the event gets deliveries, one for each movement of its owner
/// (of its entity, when scoped); any other just moves on, so an inactive webhook never
/// receives what was written while it was inactive. Answers whether a webhook is still
/// behind the ledger's end.
pub fn catch_up(tx: &Transaction, which: Webhooks<'_>, span: Option<i64>) -> AppResult<bool> {
    const COLUMNS: &str =
        "SELECT id, owner_id, entity_id, events, active, movement_cursor FROM webhooks";
    let end = ledger_end(tx)?;
    let read = |r: &rusqlite::Row<'_>| {
        Ok(Behind {
            id: r.get(0)?,
            owner_id: r.get(1)?,
            entity_id: r.get(2)?,
            events: r.get(3)?,
            active: r.get(4)?,
            cursor: r.get(5)?,
        })
    };
    let hooks: Vec<Behind> = match which {
        Webhooks::Active => tx
            .prepare_cached(&format!(
                "{COLUMNS} WHERE active = 1 AND movement_cursor < ?1 ORDER BY seq"
            ))?
            .query_map([end], read)?
            .collect::<Result<_, _>>()?,
        Webhooks::One(id) => tx
            .prepare_cached(&format!("{COLUMNS} WHERE id = ?2 AND movement_cursor < ?1"))?
            .query_map(params![end, id], read)?
            .collect::<Result<_, _>>()?,
        Webhooks::Receiving {
            owner_id,
            entity_id,
            kind,
        } => tx
            .prepare_cached(&format!(
                "{COLUMNS} WHERE owner_id = ?2 AND active = 1 AND movement_cursor < ?1
                   AND (entity_id IS NULL OR entity_id = ?3)
                   AND (instr(events, '\"*\"') > 0 OR instr(events, ?4) > 0)
                 ORDER BY seq"
            ))?
            .query_map(
                params![end, owner_id, entity_id, format!("\"{kind}\"")],
                read,
            )?
            .collect::<Result<_, _>>()?,
    };
    let now = now_ms();
    let mut still_behind = false;
    for h in hooks {
        let upto = span.map_or(end, |s| end.min(h.cursor.saturating_add(s)));
        still_behind |= upto < end;
        if h.active && subscribes(&h.events, STOCK_MOVEMENT_CREATED) {
            write_movement_deliveries(tx, &h, upto, now)?;
        }
        tx.prepare_cached("UPDATE webhooks SET movement_cursor = ?1 WHERE id = ?2")?
            .execute(params![upto, h.id])?;
    }
    Ok(still_behind)
}

/// Whether a stored `events` list (see [`insert`]) holds `kind`.
fn subscribes(events: &str, kind: &str) -> bool {
    events.contains("\"*\"") || events.contains(&format!("\"{kind}\""))
}

/// The deliveries to `h` of the movements in `(h.cursor, upto]` that it receives.
fn write_movement_deliveries(tx: &Transaction, h: &Behind, upto: i64, now: i64) -> AppResult<()> {
    let mut movements = tx.prepare_cached(
        "SELECT seq, id, created_at FROM stock_movements
         WHERE seq > ?1 AND seq <= ?2 AND owner_id = ?3 AND (?4 IS NULL OR entity_id = ?4)
         ORDER BY seq",
    )?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, movement_seq,
             created_at, round_start_ms, next_attempt_ms)
         VALUES (?1, ?2, ?3, '', ?4, ?5, ?6, ?6)",
    )?;
    let mut rows = movements.query(params![h.cursor, upto, h.owner_id, h.entity_id])?;
    while let Some(r) = rows.next()? {
        let (seq, id, created_at): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        insert.execute(params![
            h.id,
            movement_event_id(&id, &created_at),
            STOCK_MOVEMENT_CREATED,
            seq,
            created_at,
            now
        ])?;
    }
    Ok(())
}

/// The id of the `stock_movement.created` event of movement `movement_id`: the same for
/// every webhook and every time it is worked out, and time-ordered like every other
/// event id: a version-7 UUID with the movement's `created_at` as its time and the first
/// bytes of a SHA-256 of the movement's id as its random part.
pub fn movement_event_id(movement_id: &str, created_at: &str) -> String {
    use sha2::{Digest, Sha256};
    let ms =
        time::OffsetDateTime::parse(created_at, &time::format_description::well_known::Rfc3339)
            .map_or(0, |t| {
                u64::try_from(t.unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
            });
    let digest = Sha256::digest(format!("{STOCK_MOVEMENT_CREATED} {movement_id}").as_bytes());
    let mut random = [0u8; 10];
    random.copy_from_slice(&digest[..10]);
    uuid::Builder::from_unix_timestamp_millis(ms, &random)
        .into_uuid()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn a_webhook_from_before_version_16_is_not_sent_the_movements_it_already_has() {
        // Up to version 15 every movement's delivery was written with the movement, so
        // after the upgrade an existing webhook starts at the ledger's end.
        let (db, dir) = crate::db::upgraded_from(
            15,
            "INSERT INTO users (id, email, password_hash, created_at)
             VALUES ('u1', 'a@example.com', 'x', '2026-01-01T00:00:00Z');
             INSERT INTO webhooks (id, owner_id, url, events, secret, created_at)
             VALUES ('w1', 'u1', 'https://example.com', '[\"*\"]', 's', '2026-01-01T00:00:00Z');
             INSERT INTO stock_movements (id, owner_id, product_id, qty, type, date, created_at)
             VALUES ('m1', 'u1', 'p1', 1, 'purchase', '2026-01-01', '2026-01-01T00:00:00Z'),
                    ('m2', 'u1', 'p1', 1, 'purchase', '2026-01-01', '2026-01-01T00:00:00Z');
             INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, movement_seq,
                 created_at, round_start_ms, next_attempt_ms)
             VALUES ('w1', 'e1', 'stock_movement.created', '', 1, '2026-01-01T00:00:00Z', 0, 0),
                    ('w1', 'e2', 'stock_movement.created', '', 2, '2026-01-01T00:00:00Z', 0, 0);",
        );
        let deliveries = |db: &Db| {
            db.read_sync(|c| {
                Ok(
                    c.query_row("SELECT COUNT(*) FROM webhook_deliveries", [], |r| {
                        r.get::<_, i64>(0)
                    })?,
                )
            })
            .unwrap()
        };
        let cursor: i64 = db
            .read_sync(|c| {
                Ok(c.query_row(
                    "SELECT movement_cursor FROM webhooks WHERE id = 'w1'",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        assert_eq!(cursor, 2);
        db.write_sync(|tx| catch_up(tx, Webhooks::Active, None))
            .unwrap();
        assert_eq!(deliveries(&db), 2, "no movement is sent twice");
        drop(db);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
