//! API key management: `GET/POST/DELETE /api/api-keys` (docs/public-api.md#api-keys),
//! session only.
//!
//! A key is `sbk_` followed by 40 base62 characters (about 238 random bits). It is shown
//! once, in the create answer (`raw_key`); the database keeps only its SHA-256 digest,
//! for the lookup on each public API request, and its first 12 characters (`prefix`),
//! so the owner can tell keys apart. DELETE revokes: the key stops working at once and
//! stays in the list with `revoked_at`. A key may be scoped to one entity of its owner.

use rocket::serde::json::Json;
use rocket::{delete, get, post, routes, Route, State};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use time::OffsetDateTime;

use crate::auth::{token, SessionUser};
use crate::clock::{parse_rfc3339, rfc3339};
use crate::ctx::Ctx;
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{IdBody, JsonBody};
use crate::http::paging::{ListQuery, Page};
use crate::http::{data, required_text, Created};
use crate::scope::Scope;

/// Every key starts with this.
pub const KEY_PREFIX: &str = "sbk_";
/// Random base62 characters after [`KEY_PREFIX`].
pub const KEY_RANDOM_LEN: usize = 40;
/// Characters of the key kept for display.
pub const DISPLAY_PREFIX_LEN: usize = 12;
/// `last_used_at` is refreshed at most this often, to spare a write per request.
pub const LAST_USED_RESOLUTION_SECS: i64 = 60;
/// Unrevoked keys a user may hold. The rate limit counts per key, so this bounds what one
/// user can spend (and the limiter's buckets per user).
pub const MAX_ACTIVE_KEYS: i64 = 100;

pub mod openapi;

pub fn routes() -> Vec<Route> {
    routes![list, create, revoke]
}

/// A key as the list shows it: never the key itself.
#[derive(Debug, Clone, Serialize)]
pub struct ApiKeyRecord {
    pub id: String,
    pub name: String,
    pub entity_id: Option<String>,
    pub prefix: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
}

/// The create answer: the record and, this once, the key.
#[derive(Debug, Serialize)]
pub struct CreatedKey {
    #[serde(flatten)]
    pub key: ApiKeyRecord,
    pub raw_key: String,
}

const COLUMNS: &str = "id, name, entity_id, prefix, created_at, last_used_at, revoked_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<ApiKeyRecord> {
    Ok(ApiKeyRecord {
        id: r.get(0)?,
        name: r.get(1)?,
        entity_id: r.get(2)?,
        prefix: r.get(3)?,
        created_at: r.get(4)?,
        last_used_at: r.get(5)?,
        revoked_at: r.get(6)?,
    })
}

/// A new random key.
pub fn generate_key() -> String {
    format!("{KEY_PREFIX}{}", token::random_base62(KEY_RANDOM_LEN))
}

/// Who a valid key speaks for.
#[derive(Debug, Clone)]
pub struct KeyIdentity {
    pub id: String,
    pub owner_id: String,
    pub entity_id: Option<String>,
}

/// id, owner, entity scope, revoked_at, last_used_at.
type KeyRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// Checks a raw key: 401 when unknown, malformed or revoked. A read only: the second value
/// says whether the key's `last_used_at` is older than [`LAST_USED_RESOLUTION_SECS`], in
/// which case the caller records the use with [`touch`] through the writer.
pub fn authenticate(
    conn: &Connection,
    raw: &str,
    now: OffsetDateTime,
) -> AppResult<(KeyIdentity, bool)> {
    let invalid = || AppError::Unauthorized("Invalid API key".into());
    if !raw.starts_with(KEY_PREFIX) || raw.len() != KEY_PREFIX.len() + KEY_RANDOM_LEN {
        return Err(invalid());
    }
    let row: Option<KeyRow> = conn
        .prepare_cached(
            "SELECT id, owner_id, entity_id, revoked_at, last_used_at FROM api_keys
             WHERE key_hash = ?1",
        )?
        .query_row([token::digest(raw)], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?;
    let (id, owner_id, entity_id, revoked_at, last_used_at) = row.ok_or_else(invalid)?;
    if revoked_at.is_some() {
        return Err(AppError::Unauthorized(
            "This API key has been revoked".into(),
        ));
    }
    let stale = last_used_at
        .as_deref()
        .and_then(parse_rfc3339)
        .is_none_or(|t| (now - t).whole_seconds() >= LAST_USED_RESOLUTION_SECS);
    Ok((
        KeyIdentity {
            id,
            owner_id,
            entity_id,
        },
        stale,
    ))
}

/// Records a use of key `id` at `now` (a writer job). Concurrent requests that all found
/// the key stale coalesce: only the first of them within the resolution changes the row,
/// the others match nothing.
pub fn touch(tx: &Transaction, id: &str, now: OffsetDateTime) -> AppResult<()> {
    let cutoff = rfc3339(now - time::Duration::seconds(LAST_USED_RESOLUTION_SECS));
    tx.prepare_cached(
        "UPDATE api_keys SET last_used_at = ?1
         WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at <= ?3)",
    )?
    .execute(params![rfc3339(now), id, cutoff])?;
    Ok(())
}

/// The caller's keys, newest first, revoked ones included.
pub fn list_keys(conn: &Connection, scope: &Scope, page: Page) -> AppResult<Vec<ApiKeyRecord>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM api_keys WHERE owner_id = ?1
         ORDER BY seq DESC LIMIT ?2 OFFSET ?3"
    ))?;
    let rows = stmt
        .query_map(
            params![scope.owner_id, page.sql_limit(), page.offset],
            damage::named(from_row),
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The body of `POST /api/api-keys`.
#[derive(Debug, Deserialize)]
pub struct NewKey {
    pub name: String,
    #[serde(default)]
    pub entity_id: Option<String>,
}

/// Creates a key of the caller, optionally scoped to one of their entities: 400 for a
/// blank name, 404 for an entity not theirs, 409 beyond [`MAX_ACTIVE_KEYS`] unrevoked
/// keys. The answer holds the key itself, which is stored only as its digest.
pub fn create_key(tx: &Transaction, scope: &Scope, b: NewKey, ctx: &Ctx) -> AppResult<CreatedKey> {
    let name = required_text("name", &b.name)?;
    let entity_id = scope.entity_opt(tx, "entity_id", b.entity_id.as_deref())?;
    let active: i64 = tx.query_row(
        "SELECT COUNT(*) FROM api_keys WHERE owner_id = ?1 AND revoked_at IS NULL",
        [&scope.owner_id],
        |r| r.get(0),
    )?;
    if active >= MAX_ACTIVE_KEYS {
        return Err(AppError::refused(
            "limit_reached",
            format!("A user may hold at most {MAX_ACTIVE_KEYS} active API keys; revoke one first"),
        ));
    }
    let raw_key = generate_key();
    let key = ApiKeyRecord {
        id: uuid::Uuid::new_v4().to_string(),
        name,
        entity_id,
        prefix: raw_key[..DISPLAY_PREFIX_LEN].to_owned(),
        created_at: ctx.now.clone(),
        last_used_at: None,
        revoked_at: None,
    };
    tx.execute(
        "INSERT INTO api_keys (id, owner_id, entity_id, name, prefix, key_hash, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            key.id,
            scope.owner_id,
            key.entity_id,
            key.name,
            key.prefix,
            token::digest(&raw_key),
            key.created_at
        ],
    )?;
    Ok(CreatedKey { key, raw_key })
}

/// Revokes a key of the caller (idempotent: a revoked key keeps its first
/// `revoked_at`): 404 when it is not theirs.
pub fn revoke_key(tx: &Transaction, scope: &Scope, id: &str, ctx: &Ctx) -> AppResult<()> {
    let changed = tx.execute(
        "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?1)
         WHERE id = ?2 AND owner_id = ?3",
        params![ctx.now, id, scope.owner_id],
    )?;
    if changed == 0 {
        return Err(AppError::not_found(format!("API key not found: {id}")));
    }
    Ok(())
}

#[get("/api-keys?<q..>")]
async fn list(user: SessionUser, q: ListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = q.page()?;
    let scope = user.scope();
    let keys = db.read(move |conn| list_keys(conn, &scope, page)).await?;
    Ok(data(keys))
}

#[post("/api-keys", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<NewKey>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<CreatedKey>> {
    let b = body.into_inner();
    let scope = user.scope();
    let created = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create_key(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(Created(created))
}

/// Revokes a key (idempotent: a revoked key keeps its first `revoked_at`).
#[delete("/api-keys", data = "<body>")]
async fn revoke(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let id = body.id()?;
    let scope = user.scope();
    db.write_as(scope.actor().to_owned(), move |tx| {
        revoke_key(tx, &scope, &id, &ctx)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Synchronous;

    #[test]
    fn checking_a_key_only_reads_and_its_use_is_recorded_once_a_minute_through_a_transaction() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        let raw = generate_key();
        let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
        db.write_sync(|tx| {
            tx.execute_batch(
                "INSERT INTO users (id, email, password_hash, created_at)
                 VALUES ('u1', 'a@example.com', 'x', '2026-01-01T00:00:00Z')",
            )?;
            tx.execute(
                "INSERT INTO api_keys (id, owner_id, name, prefix, key_hash, created_at)
                 VALUES ('k1', 'u1', 'k', 'p', ?1, '2026-01-01T00:00:00Z')",
                [token::digest(&raw)],
            )?;
            Ok(())
        })
        .unwrap();
        // A read-only connection: checking the key must not write.
        let (key, stale) = db
            .read_sync(|c| {
                c.pragma_update(None, "query_only", true)?;
                let out = authenticate(c, &raw, now);
                c.pragma_update(None, "query_only", false)?;
                out
            })
            .unwrap();
        assert_eq!(key.id, "k1");
        assert!(stale, "a key never used is stale");
        let last_used = |db: &Db| -> Option<String> {
            db.read_sync(
                |c| Ok(c.query_row("SELECT last_used_at FROM api_keys", [], |r| r.get(0))?),
            )
            .unwrap()
        };
        assert_eq!(last_used(&db), None);
        db.write_sync(|tx| touch(tx, "k1", now)).unwrap();
        assert_eq!(last_used(&db), Some(rfc3339(now)));
        // A second request within the minute changes nothing; one a minute later does.
        db.write_sync(|tx| touch(tx, "k1", now + time::Duration::seconds(30)))
            .unwrap();
        assert_eq!(last_used(&db), Some(rfc3339(now)));
        let (_, stale) = db
            .read_sync(|c| authenticate(c, &raw, now + time::Duration::seconds(30)))
            .unwrap();
        assert!(!stale);
        let later = now + time::Duration::seconds(61);
        db.write_sync(|tx| touch(tx, "k1", later)).unwrap();
        assert_eq!(last_used(&db), Some(rfc3339(later)));
    }
}
