//! The rules of priced documents (invoices, bills, credit notes, supplier credits): one
//! set of functions over a [`DocKind`] (docs/accounting.md#invoices-and-bills,
//! docs/accounting.md#line-totals); a credit's link and `amount_credited` are kept by
//! [`super::credits`] (docs/accounting.md#credit-notes-and-supplier-credits).
//!
//! - `contact_id` is required; `issue_date` defaults to today, `due_date` to the issue
//!   date + 30 days (and may not be earlier than it).
//! - Numbers follow the kind's [`NumberRule`]: invoices are `INV-0001`, `INV-0002`, ... per
//!   entity (per owner without entity) when omitted, allocated inside the write
//!   transaction, unique per entity ignoring case (409); bills carry the supplier's
//!   number, null when omitted, unique per entity and supplier (409).
//! - `status` is one of [`DocKind::statuses`], default `draft`.
//! - `lines` give `subtotal`, `vat_total` and `total` (see [`crate::accounting::lines`]);
//!   `amount_paid` is a non-negative money amount, default 0.
//! - `location_id` (a location of the document's entity; on create, when omitted, the
//!   entity's `default_location_id`): where a posted document takes or brings stock
//!   ([`super::stock`], docs/documents-stock.md#the-one-rule). Imported documents
//!   never move stock.
//! - `currency` and `exchange_rate` ([`crate::accounting::currency`],
//!   docs/accounting.md#currencies); nothing dated on or before the entity's lock date is
//!   created, changed or deleted ([`crate::entities::lock`], docs/accounting.md#lock-date).

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use time::Duration;

use super::credits;
use super::kind::{DocKind, NumberRule};
use super::record::{
    columns, from_row, list_from, list_sql, one, CreateDocument, Document, Link, UpdateDocument,
};
use super::stock;
use crate::accounting::common::{
    check_refs, date_or, date_text, in_use, new_id, new_record_entity, one_of, reference,
    requested_entity, Reference, Which,
};
use crate::accounting::currency;
use crate::accounting::lines::{self, Totals};
use crate::accounting::payments::{self, PaidDate};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::entities::lock::{check_unlocked, check_unlocked_on};
use crate::error::{AppError, AppResult};
use crate::http::body::parse_id;
use crate::http::body::{clean, clean_nullable, parse_date};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::scope::{same_entity, Scope};

/// Days from issue to due date when `due_date` is omitted.
pub const DEFAULT_TERMS_DAYS: i64 = 30;

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
    let d = one(conn, scope, kind, id)?;
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
    let (from, cols) = (list_from(kind), columns(kind));
    list_sql(&from, &cols)
        .run(conn, scope, which, page, order, |r| from_row(kind, r))?
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

/// `<prefix><n>` → n (prefix in any case): the numbers the generator counts from.
fn sequence_of(prefix: &str, number: &str) -> Option<i64> {
    let head = number.get(..prefix.len())?;
    let rest = number.get(prefix.len()..)?;
    if !head.eq_ignore_ascii_case(prefix)
        || rest.is_empty()
        || !rest.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    rest.parse().ok()
}

/// `INV-0042`: a generated number, at least 4 digits.
pub fn format_number(prefix: &str, n: i64) -> String {
    format!("{prefix}{n:04}")
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
    let per_contact = match kind.numbering() {
        NumberRule::Sequence { .. } => "",
        NumberRule::PerContact => " AND contact_id = ?4",
    };
    let sql = format!(
        "SELECT 1 FROM {} WHERE owner_id = ?1 AND COALESCE(entity_id, '') = COALESCE(?2, '')
             AND number = ?3 COLLATE NOCASE AND id <> ?5{per_contact}",
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
    let label = kind.label();
    match kind.numbering() {
        NumberRule::Sequence { .. } => AppError::refused(
            "duplicate_number",
            format!("{label} number {number} already exists"),
        ),
        NumberRule::PerContact => AppError::refused(
            "duplicate_number",
            format!(
                "{label} number {number} already exists for this {}",
                kind.contact_role()
            ),
        ),
    }
}

/// The highest `number_seq` of an owner's documents of a kind in an entity: one descent
/// of the index `<table>_number_seq` (migration V13 for invoices), however many
/// documents there are.
pub fn highest_number_sql(kind: DocKind) -> String {
    format!(
        "SELECT COALESCE(MAX(number_seq), 0) FROM {}
     WHERE owner_id = ?1 AND COALESCE(entity_id, '') = COALESCE(?2, '')",
        kind.table()
    )
}

/// The next free `<prefix>` number of an entity (per owner without entity): one past the
/// highest in use. Runs inside the caller's write transaction, so two concurrent creates
/// cannot take the same number.
fn next_number(
    tx: &Connection,
    kind: DocKind,
    prefix: &str,
    owner: &str,
    entity: Option<&str>,
) -> AppResult<String> {
    let max: i64 = tx
        .prepare_cached(&highest_number_sql(kind))?
        .query_row(params![owner, entity], |r| r.get(0))?;
    let mut n = max.saturating_add(1);
    loop {
        let candidate = format_number(prefix, n);
        if !number_taken(tx, kind, owner, entity, "", &candidate, None)? {
            return Ok(candidate);
        }
        n = n.saturating_add(1);
    }
}

/// The `number_seq` column: the n of a generated-style number, null otherwise.
fn number_seq(kind: DocKind, number: Option<&str>) -> Option<i64> {
    match kind.numbering() {
        NumberRule::Sequence { prefix } => number.and_then(|n| sequence_of(prefix, n)),
        NumberRule::PerContact => None,
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

/// What a document of a [`NumberRule::Sequence`] kind (an invoice) without a `number` gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbering {
    /// The next number of the sequence, `INV-0001`... (session API and public API).
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
    if kind.is_posted(&d.status) {
        stock::check_active_products(tx, scope, &d, &mut read)?;
    }
    stock::sync(tx, scope, kind, &d, ctx, &mut read, false)?;
    d.cost_of_sales = stock::cost_of_sales(tx, kind, &d)?;
    let changed = credits::settle(tx, scope, kind, &mut d, None, ctx)?;
    originals_changed(tx, scope, kind, &changed, ctx)?;
    Ok(d)
}

/// The `<kind>.updated` event of each original whose `amount_credited` a credit of `kind`
/// changed (docs/webhooks.md#events).
fn originals_changed(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    ids: &[String],
    ctx: &Ctx,
) -> AppResult<()> {
    let Some((original, _)) = kind.credits() else {
        return Ok(());
    };
    for id in ids {
        // A credit moves what the original owes: its status follows the money
        // (docs/accounting.md#status-follows-money).
        payments::follow_money(tx, original, id)?;
        let o = get(tx, scope, original, id)?;
        crate::webhooks::outbox::emit(
            tx,
            &scope.owner_for(tx, o.entity_id.as_deref())?,
            o.entity_id.as_deref(),
            original.event(),
            &o,
            &ctx.now,
        )?;
    }
    Ok(())
}

/// Creates a document as history (imports): `numbering` decides what an invoice (credit
/// note) without a number gets; the document never moves stock, and takes no default
/// location (docs/import.md, docs/documents-stock.md#the-one-rule). A posted credit
/// linked to its original is applied to it as on create
/// (docs/accounting.md#credit-notes-and-supplier-credits).
pub fn create_with(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    b: CreateDocument,
    ctx: &Ctx,
    numbering: Numbering,
) -> AppResult<Document> {
    let mut d = insert(tx, scope, kind, b, ctx, numbering, false)?;
    let changed = credits::settle(tx, scope, kind, &mut d, None, ctx)?;
    originals_changed(tx, scope, kind, &changed, ctx)?;
    Ok(d)
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
    let paid_date = b.paid_date.clone();
    let sent = payments::Sent {
        amount_paid: b.amount_paid,
        paid_date: paid_date.as_deref(),
        status_sent: b.status.is_some(),
    };
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
    check_unlocked_on(tx, entity.as_deref(), issue)?;
    let money = currency::for_new(
        tx,
        entity.as_deref(),
        b.currency.as_deref(),
        b.exchange_rate,
    )?;
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
    payments::check_sent(sent, ctx)?;
    let link = credits::link_sent(
        tx,
        scope,
        kind,
        b.link(kind),
        entity.as_deref(),
        &contact_ref.id,
    )?;
    let lines = lines::build(
        tx,
        scope,
        entity.as_deref(),
        b.lines.unwrap_or_default(),
        kind.line_rules(),
    )?;
    let number = match (clean(b.number), kind.numbering()) {
        (Some(n), _) => {
            if number_taken(
                tx,
                kind,
                &scope.owner_for(tx, entity.as_deref())?,
                entity.as_deref(),
                &contact_ref.id,
                &n,
                None,
            )? {
                return Err(duplicate(kind, &n));
            }
            Some(n)
        }
        (None, NumberRule::Sequence { prefix }) if numbering == Numbering::Generate => {
            Some(next_number(
                tx,
                kind,
                prefix,
                &scope.owner_for(tx, entity.as_deref())?,
                entity.as_deref(),
            )?)
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
        amount_paid: Money::ZERO,
        amount_credited: Money::ZERO,
        amount_due: total,
        currency: money.code,
        exchange_rate: money.rate,
        provider: clean(b.provider),
        provider_ref: clean(b.provider_ref),
        entity_id: entity,
        location_id,
        cost_of_sales: None,
        link: Link::of(kind, link),
        created_at: ctx.now.clone(),
        updated_at: ctx.now.clone(),
        moves_stock,
    };
    tx.execute(
        &format!(
            "INSERT INTO {} (id, owner_id, entity_id, number, number_seq, contact_id, issue_date,
                 due_date, status, notes, subtotal, vat_total, total, amount_paid, provider,
                 provider_ref, created_at, updated_at, location_id, moves_stock, currency,
                 exchange_rate)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                 ?17, ?17, ?18, ?19, ?20, ?21)",
            kind.table()
        ),
        params![
            d.id,
            scope.owner_for(tx, d.entity_id.as_deref())?,
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
            d.moves_stock,
            d.currency,
            d.exchange_rate
        ],
    )?;
    lines::replace(tx, kind.lines_table(), &d.id, &d.lines)?;
    credits::write_link(tx, kind, &d)?;
    let mut d = d;
    let paid_date = if moves_stock {
        PaidDate::Today
    } else {
        PaidDate::IssueDate
    };
    payments::on_document_write(tx, scope, kind, &mut d, sent, paid_date, ctx)?;
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
    let sent = payments::Sent {
        amount_paid: b.amount_paid,
        paid_date: b.paid_date.as_deref(),
        status_sent: b.status.is_some(),
    };
    payments::check_sent(sent, ctx)?;
    let mut d = get(tx, scope, kind, &id)?;
    let credit = credits::Change::start(kind, &d, b.link(kind));
    let was_posted = kind.is_posted(&d.status);
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
    // Both the date it had and the date it gets must be open (docs/accounting.md#lock-date).
    check_unlocked(tx, d.entity_id.as_deref(), &d.issue_date)?;
    check_unlocked_on(tx, d.entity_id.as_deref(), issue)?;
    currency::update(
        &mut d.currency,
        &mut d.exchange_rate,
        b.currency.as_deref(),
        b.exchange_rate,
    )?;
    let old_issue_date = std::mem::replace(&mut d.issue_date, date_text(issue));
    d.due_date = date_text(due);
    if let Some(s) = b.status.as_deref() {
        d.status = one_of("status", s, kind.statuses())?;
    }
    if let Some(n) = clean_nullable(b.notes) {
        d.notes = n;
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
        if n.is_none() && matches!(kind.numbering(), NumberRule::Sequence { .. }) {
            return Err(AppError::invalid(
                "number",
                format!("{} keeps a number", kind.a_noun()),
            ));
        }
        d.number = n;
    }
    if let Some(n) = d.number.as_deref() {
        if number_taken(
            tx,
            kind,
            &scope.owner_for(tx, d.entity_id.as_deref())?,
            d.entity_id.as_deref(),
            &d.contact_id,
            n,
            Some(&d.id),
        )? {
            return Err(duplicate(kind, n));
        }
    }
    credit.relink(tx, scope, kind, &mut d)?;
    let lines_replaced = b.lines.is_some();
    if let Some(inputs) = b.lines {
        d.lines = lines::build(tx, scope, d.entity_id.as_deref(), inputs, kind.line_rules())?;
        lines::replace(tx, kind.lines_table(), &d.id, &d.lines)?;
    }
    let t = lines::totals(&d.lines);
    d.subtotal = t.subtotal;
    d.vat_total = t.vat_total;
    d.total = t.total;
    d.amount_due = d.total - d.amount_paid - d.amount_credited;
    d.updated_at = ctx.now.clone();
    tx.execute(
        &format!(
            "UPDATE {} SET number = ?1, number_seq = ?2, contact_id = ?3, issue_date = ?4,
                 due_date = ?5, status = ?6, notes = ?7, subtotal = ?8, vat_total = ?9,
                 total = ?10, amount_paid = ?11, provider = ?12, provider_ref = ?13,
                 updated_at = ?14, location_id = ?16, currency = ?17, exchange_rate = ?18
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
            d.location_id,
            d.currency,
            d.exchange_rate
        ],
    )?;
    payments::on_document_write(tx, scope, kind, &mut d, sent, PaidDate::Today, ctx)?;
    if d.moves_stock {
        let mut read = stock::ReadProducts::new();
        let location_changed = d.location_id != old_location;
        if kind.is_posted(&d.status) && (!was_posted || lines_replaced || location_changed) {
            stock::check_active_products(tx, scope, &d, &mut read)?;
        }
        let issue_date_changed = d.issue_date != old_issue_date;
        stock::sync(tx, scope, kind, &d, ctx, &mut read, issue_date_changed)?;
    }
    d.cost_of_sales = stock::cost_of_sales(tx, kind, &d)?;
    let changed = credit.finish(tx, scope, kind, &mut d, ctx)?;
    originals_changed(tx, scope, kind, &changed, ctx)?;
    Ok(d)
}

pub fn delete(tx: &Transaction, scope: &Scope, kind: DocKind, id: &str) -> AppResult<()> {
    let d = one(tx, scope, kind, id)?;
    check_unlocked(tx, d.entity_id.as_deref(), &d.issue_date)?;
    credits::guard_delete(tx, kind, &d)?;
    if kind.is_posted(&d.status) && stock::has_movements(tx, &d.id)? {
        return Err(AppError::refused(
            "invalid_state",
            format!(
                "{} {} is posted and has moved stock: void it before deleting it",
                kind.label(),
                d.number.as_deref().unwrap_or(&d.id)
            ),
        ));
    }
    payments::forget_document(tx, &d.id)?;
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
        assert_eq!(sequence_of("INV-", "INV-0042"), Some(42));
        assert_eq!(sequence_of("INV-", "inv-7"), Some(7));
        assert_eq!(sequence_of("INV-", "INV-"), None);
        assert_eq!(sequence_of("INV-", "INV-12a"), None);
        assert_eq!(sequence_of("INV-", "2024-001"), None);
        assert_eq!(format_number("INV-", 12_345), "INV-12345");
    }
}
