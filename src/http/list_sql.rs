//! The one list-query builder (docs/conventions.md#lists): every list endpoint's SQL is
//! `<SELECT ...> WHERE <visible to the caller> [AND entity] [AND id] ORDER BY ... LIMIT ?
//! OFFSET ?`, built here. The accounting resources describe their query with a
//! [`ListSql`]; the lined stock documents (`inventory::documents`) give their own
//! `SELECT` as a [`SelectSql`]. Who sees which rows is the caller's [`Visible`] (the
//! `Scope` of `crate::scope`), so this bottom module imports no feature.

use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, Row};

use super::paging::{Order, Page};
use crate::db::damage;
use crate::error::{AppError, AppResult};

/// Which rows a caller may see.
pub trait Visible {
    /// An SQL condition on the row aliased `alias` (none: unaliased), with its
    /// parameters, for a query on `conn`.
    fn condition(&self, conn: &Connection, alias: &str) -> (String, Vec<String>);

    /// The error for record `id` of `table` that the condition hides from the caller,
    /// when hiding it is not the answer (a role that may not do this: 403); `None` for a
    /// 404.
    fn refusal(&self, _conn: &Connection, _table: &str, _id: &str) -> AppResult<Option<AppError>> {
        Ok(None)
    }
}

/// Which records of a list: optionally one entity's, optionally the one record `id`
/// (docs/conventions.md#lists).
#[derive(Debug, Clone, Copy, Default)]
pub struct Which<'a> {
    pub entity: Option<&'a str>,
    pub id: Option<&'a str>,
    /// Only records changed at or after this time (RFC 3339 UTC, whole seconds: the stored
    /// form), docs/public-api.md#incremental-sync.
    pub updated_since: Option<&'a str>,
}

/// `WHERE <visible> [AND alias.entity_id = ?] [AND alias.id = ?]` and its parameters.
fn filter(
    conn: &Connection,
    visible: &impl Visible,
    alias: &str,
    which: Which<'_>,
) -> (String, Vec<String>) {
    let (cond, mut params) = visible.condition(conn, alias);
    let mut filter = format!("WHERE {cond}");
    if let Some(e) = which.entity {
        filter.push_str(&format!(" AND {alias}.entity_id = ?"));
        params.push(e.to_owned());
    }
    if let Some(id) = which.id {
        filter.push_str(&format!(" AND {alias}.id = ?"));
        params.push(id.to_owned());
    }
    if let Some(since) = which.updated_since {
        filter.push_str(&format!(" AND {alias}.updated_at >= ?"));
        params.push(since.to_owned());
    }
    (filter, params)
}

/// Runs `sql` (ending in `LIMIT ? OFFSET ?`) with `params` then the page. A row that
/// cannot be read names its record (docs/operations.md#damaged-records).
fn paged<T>(
    conn: &Connection,
    sql: &str,
    params: &[String],
    page: Page,
    map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> AppResult<Vec<T>> {
    let mut values: Vec<&dyn ToSql> = params.iter().map(|p| p as &dyn ToSql).collect();
    let limit = page.sql_limit();
    values.push(&limit);
    values.push(&page.offset);
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt
        .query_map(values.as_slice(), damage::named(map))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// A list query given whole: `select` is `SELECT <columns> FROM <table> <alias>
/// [JOIN ...]`; [`Self::page`] adds the filter, `ORDER BY order_by` and the page.
pub struct SelectSql<'a> {
    pub select: &'a str,
    pub alias: &'a str,
    pub order_by: &'a str,
}

impl SelectSql<'_> {
    /// One page of rows, restricted to what `visible` sees and to `which`.
    pub fn page<T>(
        &self,
        conn: &Connection,
        visible: &impl Visible,
        which: Which<'_>,
        page: Page,
        map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> AppResult<Vec<T>> {
        let (sql, params) = self.sql(conn, visible, which);
        paged(conn, &sql, &params, page, map)
    }

    /// The page's SQL (its last two parameters are the limit and the offset) and the
    /// parameters before them.
    pub fn sql(
        &self,
        conn: &Connection,
        visible: &impl Visible,
        which: Which<'_>,
    ) -> (String, Vec<String>) {
        let (filter, params) = filter(conn, visible, self.alias, which);
        let sql = format!(
            "{} {filter} ORDER BY {} LIMIT ? OFFSET ?",
            self.select, self.order_by
        );
        (sql, params)
    }
}

/// A list query against one table (aliased `t`), restricted to what the caller sees and
/// optionally to one entity, in `order`, paged.
pub struct ListSql<'a> {
    /// `FROM` clause: the record table first, aliased `t` (joins may follow).
    pub from: &'a str,
    pub columns: &'a str,
    /// `ORDER BY` for [`Order::Session`]; it should end with a `t.seq` tie-breaker.
    pub session_order: &'a str,
}

impl ListSql<'_> {
    pub fn run<T>(
        &self,
        conn: &Connection,
        visible: &impl Visible,
        which: Which<'_>,
        page: Page,
        order: Order,
        map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> AppResult<Vec<T>> {
        match order {
            Order::Session => SelectSql {
                select: &format!("SELECT {} FROM {}", self.columns, self.from),
                alias: "t",
                order_by: self.session_order,
            }
            .page(conn, visible, which, page, map),
            // The page's `seq`s are found on the covering `(owner_id[, entity_id], seq)`
            // index alone, so a deep offset skips index entries, not table rows; only the
            // page's own rows are read from the table.
            Order::Creation => {
                let table = self.from.split_whitespace().next().unwrap_or(self.from);
                let (filter, params) = filter(conn, visible, "s", which);
                let sql = format!(
                    "SELECT {} FROM {} WHERE t.seq IN
                     (SELECT s.seq FROM {table} s {filter} ORDER BY s.seq LIMIT ? OFFSET ?)
                 ORDER BY t.seq",
                    self.columns, self.from
                );
                paged(conn, &sql, &params, page, map)
            }
        }
    }

    /// The SQL of a page in [`Order::Session`] and its parameters before the limit and
    /// the offset (for a test of its query plan).
    pub fn session_sql(
        &self,
        conn: &Connection,
        visible: &impl Visible,
        which: Which<'_>,
    ) -> (String, Vec<String>) {
        SelectSql {
            select: &format!("SELECT {} FROM {}", self.columns, self.from),
            alias: "t",
            order_by: self.session_order,
        }
        .sql(conn, visible, which)
    }

    /// One record by id, when the caller sees it: 404 (`<label> not found: <id>`)
    /// otherwise, so a foreign id is indistinguishable from an unknown one.
    pub fn one<T>(
        &self,
        conn: &Connection,
        visible: &impl Visible,
        label: &str,
        id: &str,
        map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> AppResult<T> {
        let (cond, params) = visible.condition(conn, "t");
        let sql = format!(
            "SELECT {} FROM {} WHERE t.id = ? AND {cond}",
            self.columns, self.from
        );
        let mut values: Vec<&dyn ToSql> = vec![&id];
        values.extend(params.iter().map(|p| p as &dyn ToSql));
        let found = conn
            .prepare_cached(&sql)?
            .query_row(values.as_slice(), |row| {
                map(row).map_err(|e| damage::name_record(row, e))
            })
            .optional()?;
        match found {
            Some(row) => Ok(row),
            None => {
                let table = self.from.split_whitespace().next().unwrap_or(self.from);
                Err(visible
                    .refusal(conn, table, id)?
                    .unwrap_or_else(|| not_found(label, id)))
            }
        }
    }
}

/// `<label> not found: <id>` (404).
pub fn not_found(label: &str, id: &str) -> AppError {
    AppError::not_found(format!("{label} not found: {id}"))
}
