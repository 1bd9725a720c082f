//! Invoices and bills: one document shape, two tables
//! (docs/accounting.md#invoices-and-bills, docs/accounting.md#line-totals).
//!
//! - `contact_id` is required; `issue_date` defaults to today, `due_date` to the issue
//!   date + 30 days (and may not be earlier than it).
//! - Invoices: `number` is `INV-0001`, `INV-0002`, ... per entity (per owner without
//!   entity) when omitted, allocated inside the write transaction; a number is unique
//!   per entity, ignoring case (409). Status `draft | sent | paid | void`.
//! - Bills: the supplier's `number`, null when omitted, unique per entity and supplier
//!   (409). Status `draft | awaiting_payment | paid | void`.
//! - `lines` give `subtotal`, `vat_total` and `total` (see [`super::lines`]);
//!   `amount_paid` is a non-negative money amount, default 0.
//! - `location_id` (a location of the document's entity; on create, when omitted, the
//!   entity's `default_location_id`): where a posted document takes or brings stock
//!   ([`super::stock`], docs/documents-stock.md#the-one-rule). Imported documents
//!   never move stock.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use time::Duration;

use super::common::{
    check_refs, date_or, date_text, in_use, new_id, new_record_entity, non_negative, one_of,
    reference, requested_entity, ListSql, Reference, Which,
};
use super::lines::{self, Line, LineInput, PriceSource, Totals};
use super::stock;
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, clean_nullable, parse_date};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::scope::{same_entity, Scope};

/// Days from issue to due date when `due_date` is omitted.
pub const DEFAULT_TERMS_DAYS: i64 = 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    Invoice,
    Bill,
}

impl DocKind {
    pub fn table(self) -> &'static str {
        match self {
            Self::Invoice => "invoices",
            Self::Bill => "bills",
        }
    }

    pub fn lines_table(self) -> &'static str {
        match self {
            Self::Invoice => "invoice_lines",
            Self::Bill => "bill_lines",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Invoice => "Invoice",
            Self::Bill => "Bill",
        }
    }

    pub fn statuses(self) -> &'static [&'static str] {
        match self {
            Self::Invoice => INVOICE_STATUSES,
            Self::Bill => BILL_STATUSES,
        }
    }

    fn price_source(self) -> PriceSource {
        match self {
            Self::Invoice => PriceSource::UnitPrice,
            Self::Bill => PriceSource::CostPrice,
        }
    }

    fn sql(self) -> ListSql<'static> {
        match self {
            Self::Invoice => ListSql {
                from: "invoices t JOIN contacts c ON c.id = t.contact_id",
                columns: COLUMNS,
                session_order: "t.issue_date DESC, t.seq DESC",
            },
            Self::Bill => ListSql {
                from: "bills t JOIN contacts c ON c.id = t.contact_id",
                columns: COLUMNS,
                session_order: "t.issue_date DESC, t.seq DESC",
            },
        }
    }
}

pub const INVOICE_STATUSES: &[&str] = &["draft", "sent", "paid", "void"];
pub const BILL_STATUSES: &[&str] = &["draft", "awaiting_payment", "paid", "void"];

#[derive(Debug, Clone, Serialize)]
pub struct Document {
    pub id: String,
    pub number: Option<String>,
    pub contact_id: String,
    pub contact_name: String,
    pub issue_date: String,
    pub due_date: String,
    pub status: String,
    pub notes: Option<String>,
    pub lines: Vec<Line>,
    pub subtotal: Money,
    pub vat_total: Money,
    pub total: Money,
    pub amount_paid: Money,
    pub provider: Option<String>,
    pub provider_ref: Option<String>,
    pub entity_id: Option<String>,
    /// Where the document takes (invoice) or brings (bill) stock once posted.
    pub location_id: Option<String>,
    /// Invoices posted with a location: Σ -qty × unit_cost of their movements (2 dp);
    /// null otherwise, and always on bills.
    pub cost_of_sales: Option<Money>,
    pub created_at: String,
    pub updated_at: String,
    /// False for imported documents: they never move stock.
    #[serde(skip)]
    pub moves_stock: bool,
}

const COLUMNS: &str = "t.id, t.number, t.contact_id, c.name, t.issue_date, t.due_date, t.status,
    t.notes, t.subtotal, t.vat_total, t.total, t.amount_paid, t.provider, t.provider_ref,
    t.entity_id, t.created_at, t.updated_at, t.location_id, t.moves_stock";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Document> {
    Ok(Document {
        id: r.get(0)?,
        number: r.get(1)?,
        contact_id: r.get(2)?,
        contact_name: r.get(3)?,
        issue_date: r.get(4)?,
        due_date: r.get(5)?,
        status: r.get(6)?,
        notes: r.get(7)?,
        lines: Vec::new(),
        subtotal: r.get(8)?,
        vat_total: r.get(9)?,
        total: r.get(10)?,
        amount_paid: r.get(11)?,
        provider: r.get(12)?,
        provider_ref: r.get(13)?,
        entity_id: r.get(14)?,
        location_id: r.get(17)?,
        cost_of_sales: None,
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
        moves_stock: r.get(18)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateDocument {
    #[serde(default)]
    pub number: Option<String>,
    pub contact_id: String,
    #[serde(default)]
    pub issue_date: Option<String>,
    #[serde(default)]
    pub due_date: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<LineInput>>,
    #[serde(default)]
    pub amount_paid: Option<Money>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub provider_ref: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
    /// Absent: the entity's default location; null: none.
    #[serde(default, deserialize_with = "nullable")]
    pub location_id: Option<Option<String>>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateDocument {
    pub id: String,
    #[serde(default, deserialize_with = "nullable")]
    pub number: Option<Option<String>>,
    #[serde(default)]
    pub contact_id: Option<String>,
    #[serde(default)]
    pub issue_date: Option<String>,
    #[serde(default)]
    pub due_date: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub notes: Option<Option<String>>,
    /// When present, replaces every line.
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<LineInput>>,
    #[serde(default)]
    pub amount_paid: Option<Money>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider_ref: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub location_id: Option<Option<String>>,
}

fn with_lines(conn: &Connection, kind: DocKind, mut d: Document) -> AppResult<Document> {
    d.lines = lines::load(conn, kind.lines_table(), &d.id)?;
    d.cost_of_sales = stock::cost_of_sales(conn, kind, &d)?;
    Ok(d)
}

/// Resolves a `location_id` sent for a document of `entity`: 400 when not a UUID, 404
/// when unknown or foreign, 400 when of another entity.
fn location(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    raw: &str,
) -> AppResult<String> {
    let id = parse_id("location_id", raw)?;
    let l = crate::inventory::location_ref(conn, scope, &id)?;
    same_entity("location_id", Some(&l.entity_id), entity)?;
    Ok(l.id)
}

/// The entity's default location (none without entity).
fn default_location(conn: &Connection, entity: Option<&str>) -> AppResult<Option<String>> {
    let Some(e) = entity else { return Ok(None) };
    Ok(conn
        .query_row(
            "SELECT default_location_id FROM entities WHERE id = ?1",
            [e],
            |r| r.get(0),
        )
        .optional()?
        .flatten())
}

pub fn get(conn: &Connection, scope: &Scope, kind: DocKind, id: &str) -> AppResult<Document> {
    let d = kind.sql().one(conn, scope, kind.label(), id, from_row)?;
    with_lines(conn, kind, d)
}

/// Documents with their lines.
pub fn list(
    conn: &Connection,
    scope: &Scope,
    kind: DocKind,
    which: Which<'_>,
    page: Page,
    order: Order,
) -> AppResult<Vec<Document>> {
    kind.sql()
        .run(conn, scope, which, page, order, from_row)?
        .into_iter()
        .map(|d| with_lines(conn, kind, d))
        .collect()
}

fn contact(conn: &Connection, scope: &Scope, raw: &str) -> AppResult<(Reference, String)> {
    let r = reference(conn, scope, "contacts", "Contact", "contact_id", raw)?;
    let name: String =
        conn.query_row("SELECT name FROM contacts WHERE id = ?1", [&r.id], |row| {
            row.get(0)
        })?;
    Ok((r, name))
}

/// `INV-<n>` → n (any case): the numbers the generator counts from.
fn invoice_number_seq(number: &str) -> Option<i64> {
    let prefix = number.get(..4)?;
    let rest = number.get(4..)?;
    if !prefix.eq_ignore_ascii_case("INV-")
        || rest.is_empty()
        || !rest.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    rest.parse().ok()
}

pub fn format_invoice_number(n: i64) -> String {
    format!("INV-{n:04}")
}

fn number_taken(
    tx: &Connection,
    kind: DocKind,
    owner: &str,
    entity: Option<&str>,
    contact_id: &str,
    number: &str,
    except: Option<&str>,
) -> AppResult<bool> {
    let supplier = match kind {
        DocKind::Invoice => "",
        DocKind::Bill => " AND contact_id = ?4",
    };
    let sql = format!(
        "SELECT 1 FROM {} WHERE owner_id = ?1 AND COALESCE(entity_id, '') = COALESCE(?2, '')
             AND number = ?3 COLLATE NOCASE AND id <> ?5{supplier}",
        kind.table()
    );
    let found: Option<i64> = tx
        .query_row(
            &sql,
            params![owner, entity, number, contact_id, except.unwrap_or("")],
            |r| r.get(0),
        )
        .optional()?;
    Ok(found.is_some())
}

fn duplicate(kind: DocKind, number: &str) -> AppError {
    match kind {
        DocKind::Invoice => AppError::conflict(format!("Invoice number {number} already exists")),
        DocKind::Bill => AppError::conflict(format!(
            "Bill number {number} already exists for this supplier"
        )),
    }
}

/// The next free `INV-` number of an entity (per owner without entity): one past the
/// highest in use. Runs inside the caller's write transaction, so two concurrent creates
/// cannot take the same number.
/// The highest `number_seq` of an owner's invoices in an entity: one descent of the index
/// `invoices_number_seq` (migration V13), however many invoices there are.
pub const HIGHEST_INVOICE_NUMBER: &str = "SELECT COALESCE(MAX(number_seq), 0) FROM invoices
     WHERE owner_id = ?1 AND COALESCE(entity_id, '') = COALESCE(?2, '')";

pub fn next_invoice_number(
    tx: &Connection,
    owner: &str,
    entity: Option<&str>,
) -> AppResult<String> {
    let max: i64 = tx
        .prepare_cached(HIGHEST_INVOICE_NUMBER)?
        .query_row(params![owner, entity], |r| r.get(0))?;
    let mut n = max.saturating_add(1);
    loop {
        let candidate = format_invoice_number(n);
        if !number_taken(tx, DocKind::Invoice, owner, entity, "", &candidate, None)? {
            return Ok(candidate);
        }
        n = n.saturating_add(1);
    }
}

fn number_seq(kind: DocKind, number: Option<&str>) -> Option<i64> {
    match kind {
        DocKind::Invoice => number.and_then(invoice_number_seq),
        DocKind::Bill => None,
    }
}

fn check_dates(issue: time::Date, due: time::Date) -> AppResult<()> {
    if due < issue {
        return Err(AppError::invalid(
            "due_date",
            "must not be before issue_date",
        ));
    }
    Ok(())
}

/// What an invoice without a `number` gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbering {
    /// The next `INV-` number (session API and public API).
    Generate,
    /// None: the number stays null (import, docs/import.md#imported-documents).
    KeepNull,
}

/// Creates an invoice or a bill (session API and public API); a posted one with a
/// location moves stock ([`stock::sync`]).
pub fn create(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    b: CreateDocument,
    ctx: &Ctx,
) -> AppResult<Document> {
    let mut d = insert(tx, scope, kind, b, ctx, Numbering::Generate, true)?;
    let mut read = stock::ReadProducts::new();
    if stock::is_posted(kind, &d.status) {
        stock::check_active_products(tx, scope, &d, &mut read)?;
    }
    stock::sync(tx, scope, kind, &d, ctx, &mut read)?;
    d.cost_of_sales = stock::cost_of_sales(tx, kind, &d)?;
    Ok(d)
}

/// Creates an invoice or a bill as history (imports): `numbering` decides what an
/// invoice without a number gets; the document never moves stock, and takes no default
/// location (docs/import.md, docs/documents-stock.md#the-one-rule).
pub fn create_with(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    b: CreateDocument,
    ctx: &Ctx,
    numbering: Numbering,
) -> AppResult<Document> {
    insert(tx, scope, kind, b, ctx, numbering, false)
}

fn insert(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    b: CreateDocument,
    ctx: &Ctx,
    numbering: Numbering,
    moves_stock: bool,
) -> AppResult<Document> {
    let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
    let (contact_ref, contact_name) = contact(tx, scope, &b.contact_id)?;
    let entity = new_record_entity(scope, requested, &[&contact_ref])?;
    let issue = date_or("issue_date", b.issue_date.as_deref(), ctx.today)?;
    let due = match b
        .due_date
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(s) => parse_date("due_date", s)?,
        None => issue
            .checked_add(Duration::days(DEFAULT_TERMS_DAYS))
            .ok_or_else(|| {
                AppError::invalid(
                    "due_date",
                    format!(
                        "required when issue_date + {DEFAULT_TERMS_DAYS} days is past the \
                         last date the calendar holds (9999-12-31)"
                    ),
                )
            })?,
    };
    check_dates(issue, due)?;
    let location_id = match b.location_id.as_ref() {
        Some(Some(raw)) if !raw.trim().is_empty() => {
            Some(location(tx, scope, entity.as_deref(), raw)?)
        }
        Some(_) => None,
        None if moves_stock => default_location(tx, entity.as_deref())?,
        None => None,
    };
    let status = match b.status.as_deref() {
        Some(s) => one_of("status", s, kind.statuses())?,
        None => "draft".to_owned(),
    };
    let amount_paid = non_negative("amount_paid", b.amount_paid.unwrap_or(Money::ZERO))?;
    let lines = lines::build(
        tx,
        scope,
        entity.as_deref(),
        b.lines.unwrap_or_default(),
        kind.price_source(),
    )?;
    let number = match (clean(b.number), kind) {
        (Some(n), _) => {
            if number_taken(
                tx,
                kind,
                &scope.owner_id,
                entity.as_deref(),
                &contact_ref.id,
                &n,
                None,
            )? {
                return Err(duplicate(kind, &n));
            }
            Some(n)
        }
        (None, DocKind::Invoice) if numbering == Numbering::Generate => {
            Some(next_invoice_number(tx, &scope.owner_id, entity.as_deref())?)
        }
        (None, _) => None,
    };
    let Totals {
        subtotal,
        vat_total,
        total,
    } = lines::totals(&lines);
    let d = Document {
        id: new_id(),
        number,
        contact_id: contact_ref.id,
        contact_name,
        issue_date: date_text(issue),
        due_date: date_text(due),
        status,
        notes: clean(b.notes),
        lines,
        subtotal,
        vat_total,
        total,
        amount_paid,
        provider: clean(b.provider),
        provider_ref: clean(b.provider_ref),
        entity_id: entity,
        location_id,
        cost_of_sales: None,
        created_at: ctx.now.clone(),
        updated_at: ctx.now.clone(),
        moves_stock,
    };
    tx.execute(
        &format!(
            "INSERT INTO {} (id, owner_id, entity_id, number, number_seq, contact_id, issue_date,
                 due_date, status, notes, subtotal, vat_total, total, amount_paid, provider,
                 provider_ref, created_at, updated_at, location_id, moves_stock)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                 ?17, ?17, ?18, ?19)",
            kind.table()
        ),
        params![
            d.id,
            scope.owner_id,
            d.entity_id,
            d.number,
            number_seq(kind, d.number.as_deref()),
            d.contact_id,
            d.issue_date,
            d.due_date,
            d.status,
            d.notes,
            d.subtotal,
            d.vat_total,
            d.total,
            d.amount_paid,
            d.provider,
            d.provider_ref,
            d.created_at,
            d.location_id,
            d.moves_stock
        ],
    )?;
    lines::replace(tx, kind.lines_table(), &d.id, &d.lines)?;
    Ok(d)
}

/// Updates an invoice or a bill; `lines`, when sent, replace the old ones and the totals
/// are computed again. Returns the whole record.
pub fn update(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    b: UpdateDocument,
    ctx: &Ctx,
) -> AppResult<Document> {
    let id = parse_id("id", &b.id)?;
    let mut d = get(tx, scope, kind, &id)?;
    let was_posted = stock::is_posted(kind, &d.status);
    if let Some(raw) = b.contact_id.as_deref() {
        let (r, name) = contact(tx, scope, raw)?;
        check_refs(d.entity_id.as_deref(), &[&r])?;
        d.contact_id = r.id;
        d.contact_name = name;
    }
    let issue = match b.issue_date.as_deref().map(str::trim) {
        Some(s) => parse_date("issue_date", s)?,
        None => parse_date("issue_date", &d.issue_date)?,
    };
    let due = match b.due_date.as_deref().map(str::trim) {
        Some(s) => parse_date("due_date", s)?,
        None => parse_date("due_date", &d.due_date)?,
    };
    check_dates(issue, due)?;
    d.issue_date = date_text(issue);
    d.due_date = date_text(due);
    if let Some(s) = b.status.as_deref() {
        d.status = one_of("status", s, kind.statuses())?;
    }
    if let Some(n) = clean_nullable(b.notes) {
        d.notes = n;
    }
    if let Some(p) = b.amount_paid {
        d.amount_paid = non_negative("amount_paid", p)?;
    }
    if let Some(v) = clean_nullable(b.provider) {
        d.provider = v;
    }
    if let Some(v) = clean_nullable(b.provider_ref) {
        d.provider_ref = v;
    }
    let old_location = d.location_id.clone();
    if let Some(l) = b.location_id {
        d.location_id = match l.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(raw) => Some(location(tx, scope, d.entity_id.as_deref(), raw)?),
            None => None,
        };
    }
    if let Some(n) = clean_nullable(b.number) {
        if n.is_none() && kind == DocKind::Invoice {
            return Err(AppError::invalid("number", "an invoice keeps a number"));
        }
        d.number = n;
    }
    if let Some(n) = d.number.as_deref() {
        if number_taken(
            tx,
            kind,
            &scope.owner_id,
            d.entity_id.as_deref(),
            &d.contact_id,
            n,
            Some(&d.id),
        )? {
            return Err(duplicate(kind, n));
        }
    }
    let lines_replaced = b.lines.is_some();
    if let Some(inputs) = b.lines {
        d.lines = lines::build(
            tx,
            scope,
            d.entity_id.as_deref(),
            inputs,
            kind.price_source(),
        )?;
        lines::replace(tx, kind.lines_table(), &d.id, &d.lines)?;
    }
    let t = lines::totals(&d.lines);
    d.subtotal = t.subtotal;
    d.vat_total = t.vat_total;
    d.total = t.total;
    d.updated_at = ctx.now.clone();
    tx.execute(
        &format!(
            "UPDATE {} SET number = ?1, number_seq = ?2, contact_id = ?3, issue_date = ?4,
                 due_date = ?5, status = ?6, notes = ?7, subtotal = ?8, vat_total = ?9,
                 total = ?10, amount_paid = ?11, provider = ?12, provider_ref = ?13,
                 updated_at = ?14, location_id = ?16
             WHERE id = ?15",
            kind.table()
        ),
        params![
            d.number,
            number_seq(kind, d.number.as_deref()),
            d.contact_id,
            d.issue_date,
            d.due_date,
            d.status,
            d.notes,
            d.subtotal,
            d.vat_total,
            d.total,
            d.amount_paid,
            d.provider,
            d.provider_ref,
            d.updated_at,
            d.id,
            d.location_id
        ],
    )?;
    if d.moves_stock {
        let mut read = stock::ReadProducts::new();
        let location_changed = d.location_id != old_location;
        if stock::is_posted(kind, &d.status) && (!was_posted || lines_replaced || location_changed)
        {
            stock::check_active_products(tx, scope, &d, &mut read)?;
        }
        stock::sync(tx, scope, kind, &d, ctx, &mut read)?;
    }
    d.cost_of_sales = stock::cost_of_sales(tx, kind, &d)?;
    Ok(d)
}

pub fn delete(tx: &Transaction, scope: &Scope, kind: DocKind, id: &str) -> AppResult<()> {
    let d = kind.sql().one(tx, scope, kind.label(), id, from_row)?;
    if stock::is_posted(kind, &d.status) && stock::has_movements(tx, &d.id)? {
        return Err(AppError::conflict(format!(
            "{} {} is posted and has moved stock: void it before deleting it",
            kind.label(),
            d.number.as_deref().unwrap_or(&d.id)
        )));
    }
    tx.execute(
        &format!("DELETE FROM {} WHERE id = ?1", kind.table()),
        [&d.id],
    )
    .map_err(in_use(kind.label()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inv_numbers_count_towards_the_sequence() {
        assert_eq!(invoice_number_seq("INV-0042"), Some(42));
        assert_eq!(invoice_number_seq("inv-7"), Some(7));
        assert_eq!(invoice_number_seq("INV-"), None);
        assert_eq!(invoice_number_seq("INV-12a"), None);
        assert_eq!(invoice_number_seq("2024-001"), None);
        assert_eq!(format_invoice_number(12_345), "INV-12345");
    }
}
