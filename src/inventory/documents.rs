//! What transfer orders and stock takes share: a document of one entity, numbered per
//! entity (`TO-001`, `ST-001`), with lines. One skeleton lists them newest first, reads
//! one through the caller's scope, attaches their lines, numbers a new one and deletes
//! one with its lines; each document says only how its rows read ([`LinedDocument`]).
//!
//! Numbers (docs/documents.md#numbering): the next number is read and used inside the
//! caller's `BEGIN IMMEDIATE` transaction, so two concurrent creates never get the same
//! one; the `UNIQUE (entity_id, number_seq)` constraint of the tables backs this up.
//! Past 999 the number simply grows (`TO-1000`).

use std::collections::HashMap;

use rusqlite::{params_from_iter, Connection, OptionalExtension, Row, Transaction};

use crate::db::damage;
use crate::error::{AppError, AppResult};
use crate::http::list_sql::{SelectSql, Which};
use crate::http::paging::Page;
use crate::scope::Scope;

/// A numbered document with lines, as its tables and rows read.
pub trait LinedDocument: Sized {
    type Line;
    /// `Transfer order`: the start of its 404 message.
    const LABEL: &'static str;
    /// The document table, and the prefix of its numbers.
    const TABLE: &'static str;
    const PREFIX: &'static str;
    /// `SELECT <columns> FROM <TABLE> <ALIAS> [JOIN ...]`, read by [`Self::from_row`].
    const SELECT: &'static str;
    const ALIAS: &'static str;
    /// The lines table and its column naming the document.
    const LINE_TABLE: &'static str;
    const LINE_PARENT: &'static str;
    /// The lines of the documents whose ids stand for `{ids}` (placeholders), in order;
    /// column 0 is the document's id, the rest is read by [`Self::line_from_row`].
    const LINES: &'static str;

    /// For a list without lines (docs/documents.md#lists): rows of line figures of the
    /// documents whose ids stand for `{ids}`; column 0 is the document's id, the rest is
    /// added in by [`Self::add_line_figures`].
    const LINE_FIGURES: &'static str;

    /// The document without its lines.
    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self>;
    /// A line from columns 1 on.
    fn line_from_row(r: &Row<'_>) -> rusqlite::Result<Self::Line>;
    fn id(&self) -> &str;
    /// Sets the lines, and the figures that sum them up.
    fn set_lines(&mut self, lines: Vec<Self::Line>);
    /// Adds one row of [`Self::LINE_FIGURES`] (columns 1 on) to the figures.
    fn add_line_figures(&mut self, r: &Row<'_>) -> rusqlite::Result<()>;
}

/// What a document list asks for besides its page (docs/documents.md#lists).
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    /// `entityId`
    pub entity_id: Option<String>,
    /// `id`: that document alone (none when it is not the caller's).
    pub id: Option<String>,
    /// `lines=false`: each document's line figures without its lines.
    pub without_lines: bool,
}

impl ListOptions {
    /// From the query parameters `entityId`, `id` and `lines`: 400 for an `id` that is
    /// not a UUID or a `lines` other than `true` or `false`.
    pub fn parse(
        entity_id: Option<String>,
        id: Option<String>,
        lines: Option<String>,
    ) -> AppResult<Self> {
        Ok(Self {
            entity_id,
            id: crate::http::body::parse_opt_id("id", id.as_deref())?,
            without_lines: crate::http::body::parse_flag("lines", lines.as_deref())? == Some(false),
        })
    }
}

/// The answer of a document list route (`?entityId&id&lines&limit&offset`): the page
/// read on a pooled connection, as `{data: [...]}`. Transfer orders and stock takes share
/// it.
pub async fn list_answer<D: LinedDocument + serde::Serialize + Send + 'static>(
    scope: Scope,
    options: ListOptions,
    q: crate::http::paging::ListQuery,
    db: &crate::db::Db,
) -> AppResult<rocket::serde::json::Json<serde_json::Value>> {
    let page = q.page()?;
    let rows = db
        .read(move |conn| {
            let options = ListOptions {
                entity_id: scope.entity_opt(conn, "entityId", options.entity_id.as_deref())?,
                ..options
            };
            list::<D>(conn, &scope, &options, page)
        })
        .await?;
    Ok(crate::http::data(rows))
}

/// One page of the documents visible to `scope`, optionally of one entity (an id the
/// scope has resolved) or the one document `options.id`, newest first, with their lines or
/// only their line figures. The query is the crate's one list builder's
/// ([`crate::http::list_sql::SelectSql`]).
pub fn list<D: LinedDocument>(
    conn: &Connection,
    scope: &Scope,
    options: &ListOptions,
    page: Page,
) -> AppResult<Vec<D>> {
    let which = Which {
        entity: options.entity_id.as_deref(),
        id: options.id.as_deref(),
        ..Which::default()
    };
    let mut docs = SelectSql {
        select: D::SELECT,
        alias: D::ALIAS,
        order_by: &format!("{}.seq DESC", D::ALIAS),
    }
    .page(conn, scope, which, page, D::from_row)?;
    if options.without_lines {
        attach_line_figures(conn, &mut docs)?;
    } else {
        attach_lines(conn, &mut docs)?;
    }
    Ok(docs)
}

/// One document visible to `scope`, with its lines: 404 (`<LABEL> not found: <id>`) when
/// unknown or foreign.
pub fn get<D: LinedDocument>(conn: &Connection, scope: &Scope, id: &str) -> AppResult<D> {
    let (cond, mut args) = scope.condition(conn, D::ALIAS);
    args.insert(0, id.to_owned());
    let doc = conn
        .query_row(
            &format!("{} WHERE {}.id = ? AND {cond}", D::SELECT, D::ALIAS),
            params_from_iter(args.iter()),
            D::from_row,
        )
        .optional()?
        .ok_or_else(|| {
            let missing = AppError::not_found(format!("{} not found: {id}", D::LABEL));
            scope.unseen(conn, D::TABLE, id, missing)
        })?;
    let mut docs = [doc];
    attach_lines(conn, &mut docs)?;
    let [doc] = docs;
    Ok(doc)
}

/// Adds up each document's line figures without reading its lines into answers, 500
/// documents to a query.
fn attach_line_figures<D: LinedDocument>(conn: &Connection, docs: &mut [D]) -> AppResult<()> {
    let at: HashMap<String, usize> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id().to_owned(), i))
        .collect();
    let ids: Vec<String> = docs.iter().map(|d| d.id().to_owned()).collect();
    for chunk in ids.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(",");
        let mut stmt = conn.prepare(&D::LINE_FIGURES.replace("{ids}", &marks))?;
        let mut rows = stmt.query(params_from_iter(chunk.iter()))?;
        while let Some(r) = rows.next()? {
            let doc: String = r.get(0)?;
            if let Some(&i) = at.get(&doc) {
                docs[i].add_line_figures(r)?;
            }
        }
    }
    Ok(())
}

/// Fills in each document's lines, 500 documents to a query.
fn attach_lines<D: LinedDocument>(conn: &Connection, docs: &mut [D]) -> AppResult<()> {
    let mut by_doc: HashMap<String, Vec<D::Line>> = HashMap::new();
    for chunk in docs.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(",");
        let mut stmt = conn.prepare(&D::LINES.replace("{ids}", &marks))?;
        let rows = stmt.query_map(
            params_from_iter(chunk.iter().map(D::id)),
            damage::named(|r| Ok((r.get::<_, String>(0)?, D::line_from_row(r)?))),
        )?;
        for row in rows {
            let (doc, line) = row?;
            by_doc.entry(doc).or_default().push(line);
        }
    }
    for d in docs.iter_mut() {
        let lines = by_doc.remove(d.id()).unwrap_or_default();
        d.set_lines(lines);
    }
    Ok(())
}

/// The next sequence and its formatted number for a new document of `entity_id`.
pub fn next_number<D: LinedDocument>(
    tx: &Transaction,
    entity_id: &str,
) -> AppResult<(i64, String)> {
    let last: i64 = tx.query_row(
        &format!(
            "SELECT COALESCE(MAX(number_seq), 0) FROM {} WHERE entity_id = ?1",
            D::TABLE
        ),
        [entity_id],
        |r| r.get(0),
    )?;
    let seq = last + 1;
    Ok((seq, format!("{}-{seq:03}", D::PREFIX)))
}

/// Sets a document's notes.
pub fn set_notes<D: LinedDocument>(
    tx: &Transaction,
    id: &str,
    notes: Option<&str>,
) -> AppResult<()> {
    tx.execute(
        &format!("UPDATE {} SET notes = ?1 WHERE id = ?2", D::TABLE),
        rusqlite::params![notes, id],
    )?;
    Ok(())
}

/// Deletes a document and its lines (the caller has checked that it may).
pub fn delete<D: LinedDocument>(tx: &Transaction, id: &str) -> AppResult<()> {
    tx.execute(
        &format!(
            "DELETE FROM {} WHERE {} = ?1",
            D::LINE_TABLE,
            D::LINE_PARENT
        ),
        [id],
    )?;
    tx.execute(&format!("DELETE FROM {} WHERE id = ?1", D::TABLE), [id])?;
    Ok(())
}
