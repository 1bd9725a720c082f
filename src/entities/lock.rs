//! The lock date of an entity (docs/accounting.md#lock-date).
//!
//! Nothing dated on or before an entity's `lock_date` may be created, changed or deleted:
//! documents (by `issue_date`), expenses, bank transactions, stock movements and, from
//! another module, payments. Every one of those writes calls [`check_unlocked`] in its
//! transaction, with the record's entity and each date it touches (a change: the old date
//! and the new one), so the refusal is a 409 before anything is written.

use rusqlite::{Connection, OptionalExtension};
use time::Date;

use crate::error::{AppError, AppResult};

/// The lock date of `entity` (`YYYY-MM-DD`), if it has one.
pub fn lock_date(conn: &Connection, entity: &str) -> AppResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT lock_date FROM entities WHERE id = ?1")?
        .query_row([entity], |r| r.get::<_, Option<String>>(0))
        .optional()?
        .flatten())
}

/// Refuses (409 `The books are locked up to YYYY-MM-DD`) a write dated `date`
/// (`YYYY-MM-DD`) in `entity` when `date` is on or before the entity's lock date. A
/// record without an entity (`None`) is never locked.
pub fn check_unlocked(conn: &Connection, entity: Option<&str>, date: &str) -> AppResult<()> {
    let Some(entity) = entity else {
        return Ok(());
    };
    match lock_date(conn, entity)? {
        // Both are `YYYY-MM-DD`: their text order is the calendar's.
        Some(locked) if date <= locked.as_str() => Err(locked_error(&locked)),
        _ => Ok(()),
    }
}

/// [`check_unlocked`] for a [`Date`].
pub fn check_unlocked_on(conn: &Connection, entity: Option<&str>, date: Date) -> AppResult<()> {
    check_unlocked(conn, entity, &date.to_string())
}

fn locked_error(locked: &str) -> AppError {
    AppError::refused(
        "books_locked",
        format!("The books are locked up to {locked}"),
    )
}

/// Validates a new lock date: not after `today` (400), since the books of days still to
/// come cannot have been reported.
pub fn check_new_lock_date(date: Date, today: Date) -> AppResult<()> {
    if date > today {
        return Err(AppError::invalid(
            "lock_date",
            format!("must not be after today ({today}): only days that have passed can be locked"),
        ));
    }
    Ok(())
}

/// The end of the latest VAT return filed for `entity` (`YYYY-MM-DD`), if any
/// (docs/vat.md#filed-returns): the lock date may not move back before it.
pub fn filed_up_to(conn: &Connection, entity: &str) -> AppResult<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT MAX(period_to) FROM vat_returns WHERE entity_id = ?1")?
        .query_row([entity], |r| r.get::<_, Option<String>>(0))?)
}

/// Refuses (409 `A VAT return is filed up to YYYY-MM-DD`) a new lock date of `entity`
/// (`None`: cleared) before the end of a filed VAT return: a filed period stays closed
/// (docs/vat.md#filed-returns).
pub fn check_not_before_filed(conn: &Connection, entity: &str, new: Option<Date>) -> AppResult<()> {
    let Some(filed) = filed_up_to(conn, entity)? else {
        return Ok(());
    };
    let new = new.map(|d| d.to_string());
    // Both are `YYYY-MM-DD`: their text order is the calendar's.
    if new.as_deref().is_none_or(|n| n < filed.as_str()) {
        return Err(AppError::refused(
            "period_filed",
            format!("A VAT return is filed up to {filed}: the lock date cannot move before it"),
        ));
    }
    Ok(())
}

/// Moves the lock date of `entity` to at least `date` (never back): filing a VAT return
/// closes its period (docs/vat.md#filed-returns).
pub fn lock_at_least(conn: &Connection, entity: &str, date: Date) -> AppResult<()> {
    conn.prepare_cached(
        "UPDATE entities SET lock_date = ?1
         WHERE id = ?2 AND (lock_date IS NULL OR lock_date < ?1)",
    )?
    .execute(rusqlite::params![date.to_string(), entity])?;
    Ok(())
}
