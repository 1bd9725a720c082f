//! What every accounting resource shares: list queries (the crate's one builder,
//! [`crate::http::list_sql`], re-exported), visibility lookups through the
//! caller's [`Scope`], entity resolution for new records, and the small value checks.
//! The request context ([`crate::ctx::Ctx`]), the list order and query
//! ([`crate::http::paging`]), text cleaning and the date parser ([`crate::http::body`])
//! are shared with the rest of the crate and live below it.

use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension};
use time::Date;

use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::http::body::{parse_date, parse_id};
pub use crate::http::list_sql::{not_found, ListSql, Which};
use crate::scope::{same_entity, Scope};

/// A record another record points at: its id and entity.
#[derive(Debug, Clone)]
pub struct Reference {
    pub field: &'static str,
    pub id: String,
    pub entity_id: Option<String>,
}

/// Resolves a reference sent by the client (`contact_id`, `project_id`, ...): 400 when
/// not a UUID, 404 when unknown or not visible to `scope`.
pub fn reference(
    conn: &Connection,
    scope: &Scope,
    table: &str,
    label: &str,
    field: &'static str,
    raw: &str,
) -> AppResult<Reference> {
    let id = parse_id(field, raw)?;
    let (cond, params) = scope.condition(conn, "");
    let sql = format!("SELECT entity_id FROM {table} WHERE id = ? AND {cond}");
    let mut values: Vec<&dyn ToSql> = vec![&id];
    values.extend(params.iter().map(|p| p as &dyn ToSql));
    let entity_id: Option<Option<String>> = conn
        .prepare_cached(&sql)?
        .query_row(values.as_slice(), |r| r.get(0))
        .optional()?;
    match entity_id {
        Some(entity_id) => Ok(Reference {
            field,
            id,
            entity_id,
        }),
        None => Err(scope.unseen(conn, table, &id, not_found(label, &id))),
    }
}

/// An optional reference: absent, null or `""` is none.
pub fn reference_opt(
    conn: &Connection,
    scope: &Scope,
    table: &str,
    label: &str,
    field: &'static str,
    raw: Option<&str>,
) -> AppResult<Option<Reference>> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => reference(conn, scope, table, label, field, raw).map(Some),
        None => Ok(None),
    }
}

/// Resolves the `entity_id` sent for a new record (absent, null or `""` is none): 400
/// when not a UUID, 404 when unknown or another user's, 403 when a scoped key names
/// another entity. Called before any reference is resolved, so a scoped key naming
/// another entity is told 403 whatever else the body holds.
pub fn requested_entity(
    conn: &Connection,
    scope: &Scope,
    raw: Option<&str>,
) -> AppResult<Option<String>> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => scope.entity(conn, "entity_id", raw).map(Some),
        None => Ok(None),
    }
}

/// The entity of a new record: the one requested ([`requested_entity`]); else the key's
/// entity for a scoped key; else the entity of the first reference (a document without
/// `entity_id` takes its contact's, as a movement takes its product's). Every reference
/// must then belong to that entity (400).
pub fn new_record_entity(
    scope: &Scope,
    requested: Option<String>,
    refs: &[&Reference],
) -> AppResult<Option<String>> {
    let entity = match requested {
        Some(e) => Some(e),
        None => match &scope.entity_id {
            Some(e) => Some(e.clone()),
            None => refs.first().and_then(|r| r.entity_id.clone()),
        },
    };
    check_refs(entity.as_deref(), refs)?;
    Ok(entity)
}

/// Every reference belongs to `entity` (400 naming the field otherwise).
pub fn check_refs(entity: Option<&str>, refs: &[&Reference]) -> AppResult<()> {
    for r in refs {
        same_entity(r.field, r.entity_id.as_deref(), entity)?;
    }
    Ok(())
}

/// A required text field of a PUT, when present: not blank.
pub fn required_update(field: &str, s: Option<String>) -> AppResult<Option<String>> {
    s.map(|s| crate::http::required_text(field, &s)).transpose()
}

/// A value from a fixed set (400 listing the allowed values otherwise).
pub fn one_of(field: &str, value: &str, allowed: &[&str]) -> AppResult<String> {
    let v = value.trim();
    if allowed.contains(&v) {
        Ok(v.to_owned())
    } else {
        Err(AppError::invalid(
            field,
            format!("must be one of {}", allowed.join(", ")),
        ))
    }
}

/// An optional date, defaulting to `default`.
pub fn date_or(field: &str, s: Option<&str>, default: Date) -> AppResult<Date> {
    match s.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => parse_date(field, s),
        None => Ok(default),
    }
}

/// Dates are stored and shown as `YYYY-MM-DD`.
pub fn date_text(d: Date) -> String {
    d.to_string()
}

/// A money amount that must not be negative.
pub fn non_negative(field: &str, v: Money) -> AppResult<Money> {
    if v.is_sign_negative() {
        Err(AppError::invalid(field, "must not be negative"))
    } else {
        Ok(v)
    }
}

/// A new row id: a time-ordered UUID (version 7), so that each table's primary-key index
/// grows at one end instead of taking every insert at a random page
/// (docs/architecture.md#row-ids).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Maps a foreign-key refusal of a DELETE to a 409 naming what still uses the record.
pub fn in_use(what: &str) -> impl Fn(rusqlite::Error) -> AppError + '_ {
    move |e| match AppError::in_use(e) {
        AppError::Conflict(_) => AppError::refused(
            "in_use",
            format!("{what} is in use by other records and cannot be deleted"),
        ),
        other => other,
    }
}
