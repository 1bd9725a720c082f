//! Recurring invoice templates: `/api/recurring-invoices` (imported subscriptions land
//! here).
//!
//! `contact_id` and `interval` (`week | month | year`) are required; `interval_count`
//! is a whole number from 1 (default 1); `next_date` defaults to today; `status` is
//! `active` (default), `paused` or `cancelled`. `lines` have the invoice line shape and
//! give the template's totals the same way ([`super::lines`]).

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    check_refs, date_or, date_text, in_use, new_id, new_record_entity, one_of, reference,
    requested_entity, ListSql, Reference, Which,
};
use super::documents::DocKind;
use super::lines::{self, Line, LineInput};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, clean_nullable, parse_date};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::scope::Scope;

pub const INTERVALS: &[&str] = &["week", "month", "year"];
pub const STATUSES: &[&str] = &["active", "paused", "cancelled"];
const LINES: &str = "recurring_invoice_lines";

#[derive(Debug, Clone, Serialize)]
pub struct RecurringInvoice {
    pub id: String,
    pub contact_id: String,
    pub contact_name: String,
    pub interval: String,
    pub interval_count: i64,
    pub next_date: String,
    pub status: String,
    pub lines: Vec<Line>,
    pub subtotal: Money,
    pub vat_total: Money,
    pub total: Money,
    pub provider: Option<String>,
    pub provider_ref: Option<String>,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "recurring_invoices t JOIN contacts c ON c.id = t.contact_id",
    columns: "t.id, t.contact_id, c.name, t.interval, t.interval_count, t.next_date, t.status,
              t.subtotal, t.vat_total, t.total, t.provider, t.provider_ref, t.entity_id,
              t.created_at, t.updated_at",
    session_order: "t.next_date, t.seq",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<RecurringInvoice> {
    Ok(RecurringInvoice {
        id: r.get(0)?,
        contact_id: r.get(1)?,
        contact_name: r.get(2)?,
        interval: r.get(3)?,
        interval_count: r.get(4)?,
        next_date: r.get(5)?,
        status: r.get(6)?,
        lines: Vec::new(),
        subtotal: r.get(7)?,
        vat_total: r.get(8)?,
        total: r.get(9)?,
        provider: r.get(10)?,
        provider_ref: r.get(11)?,
        entity_id: r.get(12)?,
        created_at: r.get(13)?,
        updated_at: r.get(14)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateRecurring {
    pub contact_id: String,
    pub interval: String,
    #[serde(default, deserialize_with = "crate::http::whole_number")]
    pub interval_count: Option<i64>,
    #[serde(default)]
    pub next_date: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<LineInput>>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub provider_ref: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateRecurring {
    pub id: String,
    #[serde(default)]
    pub contact_id: Option<String>,
    #[serde(default)]
    pub interval: Option<String>,
    #[serde(default, deserialize_with = "crate::http::whole_number")]
    pub interval_count: Option<i64>,
    #[serde(default)]
    pub next_date: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<LineInput>>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider_ref: Option<Option<String>>,
}

fn with_lines(conn: &Connection, mut r: RecurringInvoice) -> AppResult<RecurringInvoice> {
    r.lines = lines::load(conn, LINES, &r.id)?;
    Ok(r)
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<RecurringInvoice> {
    let r = SQL.one(conn, scope, "Recurring invoice", id, from_row)?;
    with_lines(conn, r)
}

fn contact(conn: &Connection, scope: &Scope, raw: &str) -> AppResult<(Reference, String)> {
    let r = reference(conn, scope, "contacts", "Contact", "contact_id", raw)?;
    let name: String =
        conn.query_row("SELECT name FROM contacts WHERE id = ?1", [&r.id], |row| {
            row.get(0)
        })?;
    Ok((r, name))
}

fn interval_count(n: i64) -> AppResult<i64> {
    if n < 1 {
        return Err(AppError::invalid("interval_count", "must be at least 1"));
    }
    Ok(n)
}

fn save(tx: &Transaction, r: &RecurringInvoice) -> AppResult<()> {
    tx.execute(
        "UPDATE recurring_invoices SET contact_id = ?1, interval = ?2, interval_count = ?3,
             next_date = ?4, status = ?5, subtotal = ?6, vat_total = ?7, total = ?8,
             provider = ?9, provider_ref = ?10, updated_at = ?11
         WHERE id = ?12",
        params![
            r.contact_id,
            r.interval,
            r.interval_count,
            r.next_date,
            r.status,
            r.subtotal,
            r.vat_total,
            r.total,
            r.provider,
            r.provider_ref,
            r.updated_at,
            r.id
        ],
    )?;
    Ok(())
}

pub struct RecurringInvoices;

impl Resource for RecurringInvoices {
    type Record = RecurringInvoice;
    type Create = CreateRecurring;
    type Update = UpdateRecurring;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<RecurringInvoice>> {
        SQL.run(conn, scope, which, page, order, from_row)?
            .into_iter()
            .map(|r| with_lines(conn, r))
            .collect()
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateRecurring,
        ctx: &Ctx,
    ) -> AppResult<RecurringInvoice> {
        let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
        let (contact_ref, contact_name) = contact(tx, scope, &b.contact_id)?;
        let entity = new_record_entity(scope, requested, &[&contact_ref])?;
        let interval = one_of("interval", &b.interval, INTERVALS)?;
        let count = interval_count(b.interval_count.unwrap_or(1))?;
        let next = date_or("next_date", b.next_date.as_deref(), ctx.today)?;
        let status = match b.status.as_deref() {
            Some(s) => one_of("status", s, STATUSES)?,
            None => "active".to_owned(),
        };
        let lines = lines::build(
            tx,
            scope,
            entity.as_deref(),
            b.lines.unwrap_or_default(),
            DocKind::Invoice.line_rules(),
        )?;
        let t = lines::totals(&lines);
        let r = RecurringInvoice {
            id: new_id(),
            contact_id: contact_ref.id,
            contact_name,
            interval,
            interval_count: count,
            next_date: date_text(next),
            status,
            lines,
            subtotal: t.subtotal,
            vat_total: t.vat_total,
            total: t.total,
            provider: clean(b.provider),
            provider_ref: clean(b.provider_ref),
            entity_id: entity,
            created_at: ctx.now.clone(),
            updated_at: ctx.now.clone(),
        };
        tx.execute(
            "INSERT INTO recurring_invoices (id, owner_id, entity_id, contact_id, interval,
                 interval_count, next_date, status, subtotal, vat_total, total, provider,
                 provider_ref, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14)",
            params![
                r.id,
                scope.owner_for(tx, r.entity_id.as_deref())?,
                r.entity_id,
                r.contact_id,
                r.interval,
                r.interval_count,
                r.next_date,
                r.status,
                r.subtotal,
                r.vat_total,
                r.total,
                r.provider,
                r.provider_ref,
                r.created_at
            ],
        )?;
        lines::replace(tx, LINES, &r.id, &r.lines)?;
        Ok(r)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateRecurring,
        ctx: &Ctx,
    ) -> AppResult<RecurringInvoice> {
        let id = parse_id("id", &b.id)?;
        let mut r = get(tx, scope, &id)?;
        if let Some(raw) = b.contact_id.as_deref() {
            let (c, name) = contact(tx, scope, raw)?;
            check_refs(r.entity_id.as_deref(), &[&c])?;
            r.contact_id = c.id;
            r.contact_name = name;
        }
        if let Some(i) = b.interval.as_deref() {
            r.interval = one_of("interval", i, INTERVALS)?;
        }
        if let Some(n) = b.interval_count {
            r.interval_count = interval_count(n)?;
        }
        if let Some(d) = b.next_date.as_deref().map(str::trim) {
            r.next_date = date_text(parse_date("next_date", d)?);
        }
        if let Some(s) = b.status.as_deref() {
            r.status = one_of("status", s, STATUSES)?;
        }
        if let Some(v) = clean_nullable(b.provider) {
            r.provider = v;
        }
        if let Some(v) = clean_nullable(b.provider_ref) {
            r.provider_ref = v;
        }
        if let Some(inputs) = b.lines {
            r.lines = lines::build(
                tx,
                scope,
                r.entity_id.as_deref(),
                inputs,
                DocKind::Invoice.line_rules(),
            )?;
            lines::replace(tx, LINES, &r.id, &r.lines)?;
        }
        let t = lines::totals(&r.lines);
        r.subtotal = t.subtotal;
        r.vat_total = t.vat_total;
        r.total = t.total;
        r.updated_at = ctx.now.clone();
        save(tx, &r)?;
        Ok(r)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let r = SQL.one(tx, scope, "Recurring invoice", id, from_row)?;
        tx.execute("DELETE FROM recurring_invoices WHERE id = ?1", [&r.id])
            .map_err(in_use("Recurring invoice"))?;
        Ok(())
    }
}

session_crud!(
    RecurringInvoices,
    "/recurring-invoices?<q..>",
    "/recurring-invoices"
);
