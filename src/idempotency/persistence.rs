//! The stored keys and answers (V18's `idempotency_keys`; docs/idempotency.md#what-is-stored).

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::error::AppResult;

/// How long a key answers the first answer again: 24 hours.
pub const LIFETIME_SECS: i64 = 24 * 60 * 60;

/// The first answer to a key, as sent.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub body: Vec<u8>,
}

/// A live key: the hash of the request that first used it, and its answer once recorded
/// (`None`: the request's write committed but the server stopped before the answer was).
pub struct Stored {
    pub request_hash: String,
    pub answer: Option<Answer>,
}

/// The caller's key, unless it is older than [`LIFETIME_SECS`].
pub fn find(conn: &Connection, caller: &str, key: &str, now: i64) -> AppResult<Option<Stored>> {
    Ok(conn
        .prepare_cached(
            "SELECT request_hash, status, content_type, location, body FROM idempotency_keys
             WHERE caller = ?1 AND key = ?2 AND created_at > ?3",
        )?
        .query_row(params![caller, key, now - LIFETIME_SECS], |r| {
            let status: Option<u16> = r.get(1)?;
            Ok(Stored {
                request_hash: r.get(0)?,
                answer: match status {
                    Some(status) => Some(Answer {
                        status,
                        content_type: r.get(2)?,
                        location: r.get(3)?,
                        body: r.get::<_, Option<Vec<u8>>>(4)?.unwrap_or_default(),
                    }),
                    None => None,
                },
            })
        })
        .optional()?)
}

/// Records the key, without its answer yet, in the transaction of the request's first
/// write; removes every expired key on the way (they are only ever removed here).
pub fn claim(tx: &Transaction, caller: &str, key: &str, hash: &str, now: i64) -> AppResult<()> {
    tx.prepare_cached("DELETE FROM idempotency_keys WHERE created_at <= ?1")?
        .execute([now - LIFETIME_SECS])?;
    tx.prepare_cached(
        "INSERT OR REPLACE INTO idempotency_keys (caller, key, request_hash, created_at)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![caller, key, hash, now])?;
    Ok(())
}

/// Adds the answer to a claimed key; records key and answer at once for a request that
/// wrote nothing through the request's own writes (`claimed` false).
pub fn record(
    tx: &Transaction,
    caller: &str,
    key: &str,
    hash: &str,
    now: i64,
    claimed: bool,
    a: &Answer,
) -> AppResult<()> {
    if !claimed {
        claim(tx, caller, key, hash, now)?;
    }
    tx.prepare_cached(
        "UPDATE idempotency_keys SET status = ?3, content_type = ?4, location = ?5, body = ?6
         WHERE caller = ?1 AND key = ?2",
    )?
    .execute(params![
        caller,
        key,
        a.status,
        a.content_type,
        a.location,
        a.body
    ])?;
    Ok(())
}
