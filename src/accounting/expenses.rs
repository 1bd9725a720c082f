//! Expenses: `/api/expenses`.
//!
//! `description` and `amount` are required; `date` defaults to today; `amount` and
//! `vat_amount` (default 0) are non-negative money amounts; `category_id` and
//! `project_id` are optional references of the same entity; `currency` and
//! `exchange_rate` as on documents (docs/accounting.md#currencies). Nothing dated on or
//! before the entity's lock date is created, changed or deleted
//! (docs/accounting.md#lock-date).

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    check_refs, date_or, date_text, in_use, new_id, new_record_entity, non_negative, reference_opt,
    requested_entity, required_update, ListSql, Reference, Which,
};
use super::currency::{self, Currency};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::db::decimal::{Money, Rate};
use crate::entities::lock::check_unlocked;
use crate::error::AppResult;
use crate::http::body::{clean, clean_nullable, parse_date};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::http::required_text;
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct Expense {
    pub id: String,
    pub date: String,
    pub description: String,
    pub amount: Money,
    pub vat_amount: Money,
    pub category_id: Option<String>,
    pub project_id: Option<String>,
    /// ISO 4217; `amount` and `vat_amount` are in it.
    pub currency: String,
    /// Pounds per one unit of `currency` (1 for GBP).
    pub exchange_rate: Rate,
    pub provider: Option<String>,
    pub provider_ref: Option<String>,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "expenses t",
    columns: "t.id, t.date, t.description, t.amount, t.vat_amount, t.category_id, t.project_id,
              t.provider, t.provider_ref, t.entity_id, t.created_at, t.updated_at,
              t.currency, t.exchange_rate",
    session_order: "t.date DESC, t.seq DESC",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<Expense> {
    Ok(Expense {
        id: r.get(0)?,
        date: r.get(1)?,
        description: r.get(2)?,
        amount: r.get(3)?,
        vat_amount: r.get(4)?,
        category_id: r.get(5)?,
        project_id: r.get(6)?,
        currency: r.get(12)?,
        exchange_rate: r.get(13)?,
        provider: r.get(7)?,
        provider_ref: r.get(8)?,
        entity_id: r.get(9)?,
        created_at: r.get(10)?,
        updated_at: r.get(11)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateExpense {
    #[serde(default)]
    pub date: Option<String>,
    pub description: String,
    pub amount: Money,
    #[serde(default)]
    pub vat_amount: Option<Money>,
    #[serde(default)]
    pub category_id: Option<String>,
    #[serde(default)]
    pub project_id: Option<String>,
    /// Default the entity's currency (docs/accounting.md#currencies).
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub exchange_rate: Option<Rate>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub provider_ref: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateExpense {
    pub id: String,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub amount: Option<Money>,
    #[serde(default)]
    pub vat_amount: Option<Money>,
    #[serde(default, deserialize_with = "nullable")]
    pub category_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub project_id: Option<Option<String>>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub exchange_rate: Option<Rate>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub provider_ref: Option<Option<String>>,
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Expense> {
    SQL.one(conn, scope, "Expense", id, from_row)
}

fn category(conn: &Connection, scope: &Scope, raw: Option<&str>) -> AppResult<Option<Reference>> {
    reference_opt(
        conn,
        scope,
        "expense_categories",
        "Expense category",
        "category_id",
        raw,
    )
}

fn project(conn: &Connection, scope: &Scope, raw: Option<&str>) -> AppResult<Option<Reference>> {
    reference_opt(conn, scope, "projects", "Project", "project_id", raw)
}

pub struct Expenses;

impl Resource for Expenses {
    type Record = Expense;
    type Create = CreateExpense;
    type Update = UpdateExpense;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<Expense>> {
        SQL.run(conn, scope, which, page, order, from_row)
    }

    fn create(tx: &Transaction, scope: &Scope, b: CreateExpense, ctx: &Ctx) -> AppResult<Expense> {
        let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
        let description = required_text("description", &b.description)?;
        let amount = non_negative("amount", b.amount)?;
        let vat_amount = non_negative("vat_amount", b.vat_amount.unwrap_or(Money::ZERO))?;
        let date = date_or("date", b.date.as_deref(), ctx.today)?;
        let project = project(tx, scope, b.project_id.as_deref())?;
        let category = category(tx, scope, b.category_id.as_deref())?;
        let refs: Vec<&Reference> = project.iter().chain(category.iter()).collect();
        let entity_id = new_record_entity(scope, requested, &refs)?;
        check_unlocked(tx, entity_id.as_deref(), &date_text(date))?;
        let money = currency::for_new(
            tx,
            entity_id.as_deref(),
            b.currency.as_deref(),
            b.exchange_rate,
        )?;
        let e = Expense {
            id: new_id(),
            date: date_text(date),
            description,
            amount,
            vat_amount,
            category_id: category.map(|c| c.id),
            project_id: project.map(|p| p.id),
            currency: money.code,
            exchange_rate: money.rate,
            provider: clean(b.provider),
            provider_ref: clean(b.provider_ref),
            entity_id,
            created_at: ctx.now.clone(),
            updated_at: ctx.now.clone(),
        };
        tx.execute(
            "INSERT INTO expenses (id, owner_id, entity_id, date, description, amount, vat_amount,
                 category_id, project_id, provider, provider_ref, created_at, updated_at,
                 currency, exchange_rate)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13, ?14)",
            params![
                e.id,
                scope.owner_id,
                e.entity_id,
                e.date,
                e.description,
                e.amount,
                e.vat_amount,
                e.category_id,
                e.project_id,
                e.provider,
                e.provider_ref,
                e.created_at,
                e.currency,
                e.exchange_rate
            ],
        )?;
        Ok(e)
    }

    fn update(tx: &Transaction, scope: &Scope, b: UpdateExpense, ctx: &Ctx) -> AppResult<Expense> {
        let id = parse_id("id", &b.id)?;
        let mut e = get(tx, scope, &id)?;
        check_unlocked(tx, e.entity_id.as_deref(), &e.date)?;
        if let Some(d) = b.date.as_deref().map(str::trim) {
            e.date = date_text(parse_date("date", d)?);
            check_unlocked(tx, e.entity_id.as_deref(), &e.date)?;
        }
        let money = currency::for_update(
            &Currency {
                code: e.currency.clone(),
                rate: e.exchange_rate,
            },
            b.currency.as_deref(),
            b.exchange_rate,
        )?;
        e.currency = money.code;
        e.exchange_rate = money.rate;
        if let Some(d) = required_update("description", b.description)? {
            e.description = d;
        }
        if let Some(a) = b.amount {
            e.amount = non_negative("amount", a)?;
        }
        if let Some(a) = b.vat_amount {
            e.vat_amount = non_negative("vat_amount", a)?;
        }
        if let Some(c) = b.category_id {
            let r = category(tx, scope, c.as_deref())?;
            check_refs(e.entity_id.as_deref(), &r.iter().collect::<Vec<_>>())?;
            e.category_id = r.map(|r| r.id);
        }
        if let Some(p) = b.project_id {
            let r = project(tx, scope, p.as_deref())?;
            check_refs(e.entity_id.as_deref(), &r.iter().collect::<Vec<_>>())?;
            e.project_id = r.map(|r| r.id);
        }
        if let Some(v) = clean_nullable(b.provider) {
            e.provider = v;
        }
        if let Some(v) = clean_nullable(b.provider_ref) {
            e.provider_ref = v;
        }
        e.updated_at = ctx.now.clone();
        tx.execute(
            "UPDATE expenses SET date = ?1, description = ?2, amount = ?3, vat_amount = ?4,
                 category_id = ?5, project_id = ?6, provider = ?7, provider_ref = ?8,
                 updated_at = ?9, currency = ?11, exchange_rate = ?12
             WHERE id = ?10",
            params![
                e.date,
                e.description,
                e.amount,
                e.vat_amount,
                e.category_id,
                e.project_id,
                e.provider,
                e.provider_ref,
                e.updated_at,
                e.id,
                e.currency,
                e.exchange_rate
            ],
        )?;
        Ok(e)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let e = get(tx, scope, id)?;
        check_unlocked(tx, e.entity_id.as_deref(), &e.date)?;
        tx.execute("DELETE FROM expenses WHERE id = ?1", [&e.id])
            .map_err(in_use("Expense"))?;
        Ok(())
    }
}

session_crud!(Expenses, "/expenses?<q..>", "/expenses");
