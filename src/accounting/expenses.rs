//! Expenses: `/api/expenses`.
//!
//! `description` and `amount` are required; `date` defaults to today; `amount` and
//! `vat_amount` (default 0) are non-negative money amounts; `category_id` and
//! `project_id` are optional references of the same entity; `currency` and
//! `exchange_rate` as on documents (docs/accounting.md#currencies). Nothing dated on or
//! before the entity's lock date is created, changed or deleted
//! (docs/accounting.md#lock-date).
//!
//!
//! VAT (docs/accounting.md#vat-treatment): `vat_treatment` defaults to the category's
//! when that fits the `vat_amount`, else `standard` with VAT and `zero` without; a
//! treatment without VAT (`zero`, `exempt`, `outside_scope`, `reverse_charge`) with a
//! `vat_amount` is 400. A `reverse_charge` expense's VAT is `reverse_charge_vat` (default
//! 20 % of `amount`), not part of `amount`. `vat_reclaimable` defaults to true;
//! `contact_id` is an optional supplier (a contact of type `supplier` or `both`: 400
//! otherwise) of the same entity.

use rusqlite::{params, Connection, Row, Transaction};
use serde::{Deserialize, Serialize};

use super::common::{
    check_refs, date_or, date_text, in_use, new_id, new_record_entity, non_negative, reference_opt,
    requested_entity, required_update, ListSql, Reference, Which,
};
use super::currency;
use super::resource::{session_crud, Resource};
use crate::ctx::Ctx;
use crate::db::decimal::{Money, Rate};
use crate::entities::lock::check_unlocked;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, clean_nullable, parse_date};
use crate::http::body::{nullable, parse_id};
use crate::http::paging::Order;
use crate::http::paging::Page;
use crate::http::required_text;
use crate::scope::Scope;
use crate::vat::{self, Treatment};

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
    pub vat_treatment: Treatment,
    /// False for blocked input tax (business entertainment).
    pub vat_reclaimable: bool,
    /// The VAT a `reverse_charge` expense accounts for itself; 0 otherwise.
    pub reverse_charge_vat: Money,
    /// The supplier, when known.
    pub contact_id: Option<String>,
    /// Bought as a capital asset (docs/vat.md#capital-goods); default false.
    pub capital_goods: bool,
}

const SQL: ListSql<'static> = ListSql {
    from: "expenses t",
    columns: "t.id, t.date, t.description, t.amount, t.vat_amount, t.category_id, t.project_id,
              t.provider, t.provider_ref, t.entity_id, t.created_at, t.updated_at,
              t.currency, t.exchange_rate,
              t.vat_treatment, t.vat_reclaimable, t.reverse_charge_vat, t.contact_id, t.capital_goods",
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
        vat_treatment: r.get(14)?,
        vat_reclaimable: r.get(15)?,
        reverse_charge_vat: r.get(16)?,
        contact_id: r.get(17)?,
        capital_goods: r.get(18)?,
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
    #[serde(default)]
    pub vat_treatment: Option<String>,
    #[serde(default)]
    pub vat_reclaimable: Option<bool>,
    #[serde(default)]
    pub reverse_charge_vat: Option<Money>,
    #[serde(default)]
    pub contact_id: Option<String>,
    #[serde(default)]
    pub capital_goods: Option<bool>,
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
    #[serde(default)]
    pub vat_treatment: Option<String>,
    #[serde(default)]
    pub vat_reclaimable: Option<bool>,
    #[serde(default)]
    pub reverse_charge_vat: Option<Money>,
    #[serde(default, deserialize_with = "nullable")]
    pub contact_id: Option<Option<String>>,
    #[serde(default)]
    pub capital_goods: Option<bool>,
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

/// The supplier of an expense: a contact of the caller (404 otherwise) that is a
/// supplier (400 otherwise).
fn supplier(conn: &Connection, scope: &Scope, raw: Option<&str>) -> AppResult<Option<Reference>> {
    let Some(r) = reference_opt(conn, scope, "contacts", "Contact", "contact_id", raw)? else {
        return Ok(None);
    };
    let kind: String =
        conn.query_row("SELECT type FROM contacts WHERE id = ?1", [&r.id], |row| {
            row.get(0)
        })?;
    if kind == "customer" {
        return Err(AppError::invalid(
            "contact_id",
            "must be a supplier (a contact of type supplier or both)",
        ));
    }
    Ok(Some(r))
}

/// The default VAT treatment of a category's expenses.
fn category_treatment(conn: &Connection, category: Option<&str>) -> AppResult<Option<Treatment>> {
    let Some(id) = category else { return Ok(None) };
    Ok(conn.query_row(
        "SELECT vat_treatment FROM expense_categories WHERE id = ?1",
        [id],
        |r| r.get(0),
    )?)
}

/// 400 when the treatment carries no VAT paid to the supplier and `vat_amount` is not 0.
fn check_vat_amount(t: Treatment, vat_amount: Money) -> AppResult<()> {
    if vat::allows_vat_amount(t, vat_amount) {
        return Ok(());
    }
    let why = match t {
        Treatment::ReverseCharge => {
            "pays no VAT to the supplier (its VAT is reverse_charge_vat)".to_owned()
        }
        _ => "carries no VAT".to_owned(),
    };
    Err(AppError::invalid(
        "vat_amount",
        format!("must be 0: a {} expense {why}", t.as_str()),
    ))
}

/// The reverse-charge VAT of an expense of treatment `t`: the one sent, else `kept`, else
/// 20 % of `amount`; only a `reverse_charge` expense has one (400 otherwise).
fn reverse_charge_vat(
    t: Treatment,
    sent: Option<Money>,
    kept: Option<Money>,
    amount: Money,
) -> AppResult<Money> {
    if t != Treatment::ReverseCharge {
        return match sent {
            Some(v) if !v.is_zero() => Err(AppError::invalid(
                "reverse_charge_vat",
                "only a reverse_charge expense has reverse-charge VAT",
            )),
            _ => Ok(Money::ZERO),
        };
    }
    match sent {
        Some(v) => non_negative("reverse_charge_vat", v),
        None => Ok(kept.unwrap_or_else(|| vat::expense_reverse_charge_vat(amount))),
    }
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
        let contact = supplier(tx, scope, b.contact_id.as_deref())?;
        let refs: Vec<&Reference> = project
            .iter()
            .chain(category.iter())
            .chain(contact.iter())
            .collect();
        let entity_id = new_record_entity(scope, requested, &refs)?;
        check_unlocked(tx, entity_id.as_deref(), &date_text(date))?;
        let money = currency::for_new(
            tx,
            entity_id.as_deref(),
            b.currency.as_deref(),
            b.exchange_rate,
        )?;
        let vat_treatment = match vat::parse_opt("vat_treatment", b.vat_treatment.as_deref())? {
            Some(t) => t,
            None => vat::expense_default(
                category_treatment(tx, category.as_ref().map(|c| c.id.as_str()))?,
                vat_amount,
            ),
        };
        check_vat_amount(vat_treatment, vat_amount)?;
        let reverse_charge_vat =
            reverse_charge_vat(vat_treatment, b.reverse_charge_vat, None, amount)?;
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
            vat_treatment,
            vat_reclaimable: b.vat_reclaimable.unwrap_or(true),
            reverse_charge_vat,
            contact_id: contact.map(|c| c.id),
            capital_goods: b.capital_goods.unwrap_or(false),
        };
        tx.execute(
            "INSERT INTO expenses (id, owner_id, entity_id, date, description, amount, vat_amount,
                 category_id, project_id, provider, provider_ref, created_at, updated_at,
                 currency, exchange_rate, vat_treatment, vat_reclaimable, reverse_charge_vat,
                 contact_id, capital_goods)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13, ?14, ?15, ?16,
                 ?17, ?18, ?19)",
            params![
                e.id,
                scope.owner_for(tx, e.entity_id.as_deref())?,
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
                e.exchange_rate,
                e.vat_treatment,
                e.vat_reclaimable,
                e.reverse_charge_vat,
                e.contact_id,
                e.capital_goods
            ],
        )?;
        Ok(e)
    }

    fn update(tx: &Transaction, scope: &Scope, b: UpdateExpense, ctx: &Ctx) -> AppResult<Expense> {
        let id = parse_id("id", &b.id)?;
        let mut e = get(tx, scope, &id)?;
        check_unlocked(tx, e.entity_id.as_deref(), &e.date)?;
        let (old_amount, old_vat_amount, old_category) =
            (e.amount, e.vat_amount, e.category_id.clone());
        if let Some(d) = b.date.as_deref().map(str::trim) {
            e.date = date_text(parse_date("date", d)?);
            check_unlocked(tx, e.entity_id.as_deref(), &e.date)?;
        }
        currency::update(
            &mut e.currency,
            &mut e.exchange_rate,
            b.currency.as_deref(),
            b.exchange_rate,
        )?;
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
        if let Some(c) = b.contact_id {
            let r = supplier(tx, scope, c.as_deref())?;
            check_refs(e.entity_id.as_deref(), &r.iter().collect::<Vec<_>>())?;
            e.contact_id = r.map(|r| r.id);
        }
        if let Some(v) = b.vat_reclaimable {
            e.vat_reclaimable = v;
        }
        if let Some(v) = b.capital_goods {
            e.capital_goods = v;
        }
        let was_reverse_charge = e.vat_treatment == Treatment::ReverseCharge;
        e.vat_treatment = match vat::parse_opt("vat_treatment", b.vat_treatment.as_deref())? {
            Some(t) => t,
            // A new category gives its default anew; a new vat_amount keeps the
            // treatment while it still fits (docs/accounting.md#vat-treatment).
            None if e.category_id != old_category => vat::expense_default(
                category_treatment(tx, e.category_id.as_deref())?,
                e.vat_amount,
            ),
            None if e.vat_amount != old_vat_amount
                && !vat::expense_keeps(e.vat_treatment, e.vat_amount) =>
            {
                vat::expense_default(
                    category_treatment(tx, e.category_id.as_deref())?,
                    e.vat_amount,
                )
            }
            None => e.vat_treatment,
        };
        check_vat_amount(e.vat_treatment, e.vat_amount)?;
        let kept = (was_reverse_charge && e.amount == old_amount).then_some(e.reverse_charge_vat);
        e.reverse_charge_vat =
            reverse_charge_vat(e.vat_treatment, b.reverse_charge_vat, kept, e.amount)?;
        e.updated_at = ctx.now.clone();
        tx.execute(
            "UPDATE expenses SET date = ?1, description = ?2, amount = ?3, vat_amount = ?4,
                 category_id = ?5, project_id = ?6, provider = ?7, provider_ref = ?8,
                 updated_at = ?9, currency = ?11, exchange_rate = ?12, vat_treatment = ?13,
                 vat_reclaimable = ?14, reverse_charge_vat = ?15, contact_id = ?16,
                 capital_goods = ?17
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
                e.exchange_rate,
                e.vat_treatment,
                e.vat_reclaimable,
                e.reverse_charge_vat,
                e.contact_id,
                e.capital_goods
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
