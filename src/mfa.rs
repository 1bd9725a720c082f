//! Who must set up two-factor sign-in before touching an entity
//! (docs/auth.md#requiring-two-factor). A leaf: the entity resolution of `crate::scope`
//! calls it, and it knows nothing but two columns.

use rusqlite::{Connection, OptionalExtension};

use crate::error::{AppError, AppResult};

/// Has `user_id` two-factor sign-in on?
pub fn has_two_factor(conn: &Connection, user_id: &str) -> AppResult<bool> {
    Ok(conn
        .prepare_cached("SELECT totp_enabled_at IS NOT NULL FROM users WHERE id = ?1")?
        .query_row([user_id], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

/// Must `user_id` set up two-factor sign-in before touching `entity_id`? When the entity
/// requires it and the user has not turned it on.
pub fn must_set_up_two_factor(
    conn: &Connection,
    user_id: &str,
    entity_id: &str,
) -> AppResult<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT e.require_2fa = 1 AND NOT EXISTS (
                 SELECT 1 FROM users u WHERE u.id = ?2 AND u.totp_enabled_at IS NOT NULL)
             FROM entities e WHERE e.id = ?1",
        )?
        .query_row([entity_id, user_id], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

/// 403 when [`must_set_up_two_factor`].
pub fn refuse_without_two_factor(
    conn: &Connection,
    user_id: &str,
    entity_id: &str,
) -> AppResult<()> {
    if must_set_up_two_factor(conn, user_id, entity_id)? {
        return Err(AppError::forbidden(
            "This business requires two-factor sign-in: turn it on in Settings → Security first",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Synchronous;
    use crate::db::Db;

    #[test]
    fn a_user_without_two_factor_must_set_it_up_only_for_an_entity_that_requires_it() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        db.write_sync(|tx| {
            tx.execute_batch(
                "INSERT INTO users (id, email, password_hash, created_at, totp_enabled_at)
                 VALUES ('ann', 'ann@example.com', 'h', '2026-01-01T00:00:00Z', NULL),
                        ('bob', 'bob@example.com', 'h', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z');
                 INSERT INTO entities (id, owner_id, name, currency, created_at, require_2fa)
                 VALUES ('open', 'bob', 'Open', 'GBP', '2026-01-01T00:00:00Z', 0),
                        ('strict', 'bob', 'Strict', 'GBP', '2026-01-01T00:00:00Z', 1);",
            )?;
            Ok(())
        })
        .unwrap();
        let must = |user: &str, entity: &str| {
            db.read_sync(|c| must_set_up_two_factor(c, user, entity))
                .unwrap()
        };
        assert!(must("ann", "strict"));
        assert!(!must("ann", "open"));
        assert!(!must("bob", "strict"));
        assert!(!must("bob", "open"));
        assert!(!must("ann", "unknown"));
        let refused = db.read_sync(|c| refuse_without_two_factor(c, "ann", "strict"));
        assert_eq!(
            refused.unwrap_err().status(),
            rocket::http::Status::Forbidden
        );
    }
}
