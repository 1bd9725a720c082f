//! Expense categories: `/api/expense-categories`, `/api/v1/categories`.
//!
//! A standard UK set is created with each entity ([`crate::entities`]); more may be added.
//! `name` is required and unique per entity, ignoring case (409); `code` is an optional
//! nominal code. A category that an expense or a transaction uses cannot be deleted (409).
//! `vat_treatment` (nullable) is the default treatment of its expenses
//! (docs/accounting.md#vat-treatment).

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    in_use, new_id, new_record_entity, requested_entity, required_update, ListSql, Which,
};
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, clean_nullable};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::http::required_text;
use crate::scope::Scope;
use crate::vat::{self, Treatment};

#[derive(Debug, Clone, Serialize)]
pub struct ExpenseCategory {
    pub id: String,
    pub name: String,
    pub code: Option<String>,
    /// Created with the entity.
    pub standard: bool,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// The default treatment of the category's expenses; null: none.
    pub vat_treatment: Option<Treatment>,
}

const SQL: ListSql<'static> = ListSql {
    from: "expense_categories t",
    columns: "t.id, t.name, t.code, t.standard, t.entity_id, t.created_at, t.vat_treatment,
        t.updated_at",
    session_order: "t.name COLLATE NOCASE, t.seq",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<ExpenseCategory> {
    Ok(ExpenseCategory {
        id: r.get(0)?,
        name: r.get(1)?,
        code: r.get(2)?,
        standard: r.get(3)?,
        entity_id: r.get(4)?,
        created_at: r.get(5)?,
        updated_at: r.get(7)?,
        vat_treatment: r.get(6)?,
    })
}

#[derive(Debug, Deserialize)]
pub struct CreateCategory {
    pub name: String,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
    #[serde(default)]
    pub vat_treatment: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct UpdateCategory {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub code: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub vat_treatment: Option<Option<String>>,
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<ExpenseCategory> {
    SQL.one(conn, scope, "Expense category", id, from_row)
}

fn check_name_free(
    conn: &Connection,
    owner: &str,
    entity: Option<&str>,
    name: &str,
    except: &str,
) -> AppResult<()> {
    let taken: Option<i64> = conn
        .query_row(
            "SELECT 1 FROM expense_categories
             WHERE owner_id = ?1 AND COALESCE(entity_id, '') = COALESCE(?2, '')
               AND name = ?3 COLLATE NOCASE AND id <> ?4",
            params![owner, entity, name, except],
            |r| r.get(0),
        )
        .optional()?;
    match taken {
        Some(_) => Err(AppError::refused(
            "duplicate_name",
            format!("An expense category named {name} already exists"),
        )),
        None => Ok(()),
    }
}

pub struct ExpenseCategories;

impl Resource for ExpenseCategories {
    type Record = ExpenseCategory;
    type Create = CreateCategory;
    type Update = UpdateCategory;

    fn list(
        conn: &Connection,
        scope: &Scope,
        which: Which<'_>,
        page: Page,
        order: Order,
    ) -> AppResult<Vec<ExpenseCategory>> {
        SQL.run(conn, scope, which, page, order, from_row)
    }

    fn create(
        tx: &Transaction,
        scope: &Scope,
        b: CreateCategory,
        ctx: &Ctx,
    ) -> AppResult<ExpenseCategory> {
        let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
        let name = required_text("name", &b.name)?;
        let entity_id = new_record_entity(scope, requested, &[])?;
        check_name_free(
            tx,
            &scope.owner_for(tx, entity_id.as_deref())?,
            entity_id.as_deref(),
            &name,
            "",
        )?;
        let c = ExpenseCategory {
            id: new_id(),
            name,
            code: clean(b.code),
            standard: false,
            entity_id,
            created_at: ctx.now.clone(),
            updated_at: ctx.now.clone(),
            vat_treatment: vat::parse_opt("vat_treatment", b.vat_treatment.as_deref())?,
        };
        tx.execute(
            "INSERT INTO expense_categories (id, owner_id, entity_id, name, code, standard,
                 created_at, vat_treatment, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7, ?6)",
            params![
                c.id,
                scope.owner_for(tx, c.entity_id.as_deref())?,
                c.entity_id,
                c.name,
                c.code,
                c.created_at,
                c.vat_treatment
            ],
        )?;
        Ok(c)
    }

    fn update(
        tx: &Transaction,
        scope: &Scope,
        b: UpdateCategory,
        ctx: &Ctx,
    ) -> AppResult<ExpenseCategory> {
        let id = parse_id("id", &b.id)?;
        let mut c = get(tx, scope, &id)?;
        if let Some(n) = required_update("name", b.name)? {
            check_name_free(
                tx,
                &scope.owner_for(tx, c.entity_id.as_deref())?,
                c.entity_id.as_deref(),
                &n,
                &c.id,
            )?;
            c.name = n;
        }
        if let Some(code) = clean_nullable(b.code) {
            c.code = code;
        }
        if let Some(t) = b.vat_treatment {
            c.vat_treatment = vat::parse_opt("vat_treatment", t.as_deref())?;
        }
        c.updated_at = ctx.now.clone();
        tx.execute(
            "UPDATE expense_categories SET name = ?1, code = ?2, vat_treatment = ?4,
                 updated_at = ?5
             WHERE id = ?3",
            params![c.name, c.code, c.id, c.vat_treatment, c.updated_at],
        )?;
        Ok(c)
    }

    fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
        let c = get(tx, scope, id)?;
        tx.execute("DELETE FROM expense_categories WHERE id = ?1", [&c.id])
            .map_err(in_use("Expense category"))?;
        Ok(())
    }
}

session_crud!(
    ExpenseCategories,
    "/expense-categories?<q..>",
    "/expense-categories"
);
