//! Bank transactions: `/api/transactions`, `/api/v1/transactions`.
//!
//! `amount` is required and signed (money in positive, money out negative); `date`
//! defaults to today; `description`, `account`, `reference` are free text;
//! `category_id` an optional expense category of the same entity. Nothing dated on or
//! before the entity's lock date is created, changed or deleted
//! (docs/accounting.md#lock-date).

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    check_refs, date_or, date_text, in_use, new_id, new_record_entity, reference_opt,
    requested_entity, ListSql, Reference, Which,
};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::entities::lock::check_unlocked;
use crate::error::AppResult;
use crate::http::body::{clean, clean_nullable, parse_date};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct BankTransaction {
    pub id: String,
    pub date: String,
    pub description: String,
    pub amount: Money,
    pub account: Option<String>,
    pub reference: Option<String>,
    pub category_id: Option<String>,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "transactions t",
    columns: "t.id, t.date, t.description, t.amount, t.account, t.reference, t.category_id,
              t.entity_id, t.created_at, t.updated_at",
    session_order: "t.date DESC, t.seq DESC",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<BankTransaction> {
    Ok(BankTransaction {
        id: r.get(0)?,
        date: r.get(1)?,
        description: r.get(2)?,
        amount: r.get(3)?,
        account: r.get(4)?,
        reference: r.get(5)?,
        category_id: r.get(6)?,
        entity_id: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateTransaction {
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub amount: Money,
    #[serde(default)]
    pub account: Option<String>,
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub category_id: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateTransaction {
    pub id: String,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub amount: Option<Money>,
    #[serde(default, deserialize_with = "nullable")]
    pub account: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub reference: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub category_id: Option<Option<String>>,
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<BankTransaction> {
    SQL.one(conn, scope, "Transaction", id, from_row)
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

pub struct Transactions;

impl Resource for Transactions {
    type Record = BankTransaction;
    type Create = CreateTransaction;
    type Update = UpdateTransaction;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<BankTransaction>> {
        SQL.run(conn, scope, which, page, order, from_row)
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateTransaction,
        ctx: &Ctx,
    ) -> AppResult<BankTransaction> {
        let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
        let date = date_or("date", b.date.as_deref(), ctx.today)?;
        let category = category(tx, scope, b.category_id.as_deref())?;
        let refs: Vec<&Reference> = category.iter().collect();
        let entity_id = new_record_entity(scope, requested, &refs)?;
        check_unlocked(tx, entity_id.as_deref(), &date_text(date))?;
        let t = BankTransaction {
            id: new_id(),
            date: date_text(date),
            description: clean(b.description).unwrap_or_default(),
            amount: b.amount,
            account: clean(b.account),
            reference: clean(b.reference),
            category_id: category.map(|c| c.id),
            entity_id,
            created_at: ctx.now.clone(),
            updated_at: ctx.now.clone(),
        };
        tx.execute(
            "INSERT INTO transactions (id, owner_id, entity_id, date, description, amount, account,
                 reference, category_id, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
            params![
                t.id,
                scope.owner_for(tx, t.entity_id.as_deref())?,
                t.entity_id,
                t.date,
                t.description,
                t.amount,
                t.account,
                t.reference,
                t.category_id,
                t.created_at
            ],
        )?;
        Ok(t)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateTransaction,
        ctx: &Ctx,
    ) -> AppResult<BankTransaction> {
        let id = parse_id("id", &b.id)?;
        let mut t = get(tx, scope, &id)?;
        check_unlocked(tx, t.entity_id.as_deref(), &t.date)?;
        if let Some(d) = b.date.as_deref().map(str::trim) {
            t.date = date_text(parse_date("date", d)?);
            check_unlocked(tx, t.entity_id.as_deref(), &t.date)?;
        }
        if let Some(d) = b.description {
            t.description = d.trim().to_owned();
        }
        if let Some(a) = b.amount {
            t.amount = a;
        }
        if let Some(v) = clean_nullable(b.account) {
            t.account = v;
        }
        if let Some(v) = clean_nullable(b.reference) {
            t.reference = v;
        }
        if let Some(c) = b.category_id {
            let r = category(tx, scope, c.as_deref())?;
            check_refs(t.entity_id.as_deref(), &r.iter().collect::<Vec<_>>())?;
            t.category_id = r.map(|r| r.id);
        }
        t.updated_at = ctx.now.clone();
        tx.execute(
            "UPDATE transactions SET date = ?1, description = ?2, amount = ?3, account = ?4,
                 reference = ?5, category_id = ?6, updated_at = ?7
             WHERE id = ?8",
            params![
                t.date,
                t.description,
                t.amount,
                t.account,
                t.reference,
                t.category_id,
                t.updated_at,
                t.id
            ],
        )?;
        Ok(t)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let t = get(tx, scope, id)?;
        check_unlocked(tx, t.entity_id.as_deref(), &t.date)?;
        tx.execute("DELETE FROM transactions WHERE id = ?1", [&t.id])
            .map_err(in_use("Transaction"))?;
        Ok(())
    }
}

session_crud!(Transactions, "/transactions?<q..>", "/transactions");
