//! The login throttle (docs/auth.md): more than [`MAX_FAILURES`] failed sign-ins for one
//! email within [`WINDOW_SECS`] and every further attempt is refused with 429 until the
//! oldest failure leaves the window.
//!
//! An attempt is recorded as a failure before its password is checked, in the same
//! transaction as the check of the count, and a correct password clears the count. So
//! parallel wrong attempts cannot slip past the limit while their passwords are being
//! hashed, and a locked email learns nothing about its password.

use rusqlite::{params, Transaction};

use super::{user_by_email, User};
use crate::db::ident::compare_key;
use crate::error::AppResult;

/// Failed logins per email that trip the throttle, and the window they count in.
pub const MAX_FAILURES: i64 = 10;
pub const WINDOW_SECS: i64 = 15 * 60;

/// What the throttle lets an attempt do.
#[derive(Debug)]
pub enum Attempt {
    /// Refused: the email has too many recent failures; retry after this many seconds.
    Refused { retry_after: u64 },
    /// Counted as a failure until [`succeeded`] says otherwise: check the password against
    /// this account (and hash, `None`, when no account has the email).
    Counted(Option<(User, String)>),
}

/// Checks and records one sign-in attempt for `email` (as typed) at `now` (Unix
/// seconds). Failures count against the email's compare key, so look-alikes share one
/// budget (docs/auth.md#login-throttle).
pub fn begin(tx: &Transaction, email: &str, now: i64) -> AppResult<Attempt> {
    let typed = email;
    let email = &compare_key(typed);
    // Failures older than the window no longer count: keep the table small (the `at`
    // index of V9 serves this).
    tx.prepare_cached("DELETE FROM login_failures WHERE at <= ?1")?
        .execute([now - WINDOW_SECS])?;
    let (n, oldest): (i64, Option<i64>) = tx
        .prepare_cached("SELECT COUNT(*), MIN(at) FROM login_failures WHERE email = ?1")?
        .query_row([email], |r| Ok((r.get(0)?, r.get(1)?)))?;
    if n >= MAX_FAILURES {
        let retry_after = (oldest.unwrap_or(now) + WINDOW_SECS - now).max(1);
        return Ok(Attempt::Refused {
            retry_after: u64::try_from(retry_after).unwrap_or(1),
        });
    }
    tx.prepare_cached("INSERT INTO login_failures (email, at) VALUES (?1, ?2)")?
        .execute(params![email, now])?;
    Ok(Attempt::Counted(user_by_email(tx, typed)?))
}

/// The password was right: the email's failures (this attempt's included) are forgotten.
pub fn succeeded(tx: &Transaction, email: &str) -> AppResult<()> {
    tx.prepare_cached("DELETE FROM login_failures WHERE email = ?1")?
        .execute([compare_key(email)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Synchronous;
    use crate::db::Db;

    fn db_with_ann() -> Db {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        db.write_sync(|tx| {
            tx.execute_batch(
                "INSERT INTO users (id, email, password_hash, created_at)
                 VALUES ('u1', 'ann@example.com', 'hash', '2026-01-01T00:00:00Z')",
            )?;
            Ok(())
        })
        .unwrap();
        db
    }

    #[test]
    fn the_eleventh_attempt_in_the_window_is_refused_until_the_oldest_failure_leaves_it() {
        let db = db_with_ann();
        for i in 0..MAX_FAILURES {
            let a = db
                .write_sync(|tx| begin(tx, "ann@example.com", 1_000 + i))
                .unwrap();
            match a {
                Attempt::Counted(Some((user, hash))) => {
                    assert_eq!(user.id, "u1");
                    assert_eq!(hash, "hash");
                }
                other => panic!("attempt {i}: {other:?}"),
            }
        }
        let refused = db
            .write_sync(|tx| begin(tx, "ann@example.com", 1_100))
            .unwrap();
        assert!(
            matches!(refused, Attempt::Refused { retry_after } if retry_after == 1_000 + 900 - 1_100),
            "{refused:?}"
        );
        // Another email is not affected, and an unknown email is counted like any other.
        let other = db
            .write_sync(|tx| begin(tx, "bob@example.com", 1_100))
            .unwrap();
        assert!(matches!(other, Attempt::Counted(None)), "{other:?}");
        // The first failure leaves the window at 1,900: one attempt is allowed again.
        let again = db
            .write_sync(|tx| begin(tx, "ann@example.com", 1_900))
            .unwrap();
        assert!(matches!(again, Attempt::Counted(Some(_))), "{again:?}");
    }

    #[test]
    fn a_correct_password_clears_the_count() {
        let db = db_with_ann();
        for i in 0..MAX_FAILURES - 1 {
            db.write_sync(|tx| begin(tx, "ann@example.com", 1_000 + i))
                .unwrap();
        }
        db.write_sync(|tx| succeeded(tx, "ann@example.com"))
            .unwrap();
        for i in 0..MAX_FAILURES {
            let a = db
                .write_sync(|tx| begin(tx, "ann@example.com", 1_050 + i))
                .unwrap();
            assert!(matches!(a, Attempt::Counted(Some(_))), "{i}: {a:?}");
        }
    }

    #[test]
    fn the_cleanup_of_old_failures_uses_an_index() {
        let db = db_with_ann();
        let plan: Vec<String> = db
            .read_sync(|c| {
                let mut s =
                    c.prepare("EXPLAIN QUERY PLAN DELETE FROM login_failures WHERE at <= ?1")?;
                let rows = s
                    .query_map([0], |r| r.get::<_, String>(3))?
                    .collect::<Result<_, _>>()?;
                Ok(rows)
            })
            .unwrap();
        // A search by `at`, not a scan of the table or of the (email, at) index.
        assert!(
            plan.iter()
                .any(|step| step.starts_with("SEARCH") && step.contains("(at<?)")),
            "{plan:?}"
        );
    }
}
