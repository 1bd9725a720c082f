//! VAT adjustments, `/api/vat/adjustments` (docs/vat.md#adjustments): what the records do
//! not hold (postponed import VAT, bad debt relief, corrections of earlier errors, the
//! Northern Ireland boxes), each counted in its box in the period holding its date.
//!
//! - `{id, entity_id, date, box, amount, description}`: `entity_id` one of the caller's
//!   entities (404 otherwise); `date` required; `box` 1, 2, 4, 6, 7, 8 or 9; `amount`
//!   signed, 2 dp, not 0; `description` required (400 otherwise).
//! - Nothing dated on or before the entity's lock date is created, changed (old date and
//!   new) or deleted: 409 through [`check_unlocked`].

use rocket::serde::json::Json;
use rocket::{delete, get, post, put, FromForm, State};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::period::LINE_BOXES;
use crate::accounting::common::new_id;
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::db::Db;
use crate::entities::lock::check_unlocked;
use crate::error::{AppError, AppResult};
use crate::http::body::{parse_date, parse_id, IdBody, JsonBody};
use crate::http::{data, required_text, Created};
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct Adjustment {
    pub id: String,
    pub entity_id: String,
    pub date: String,
    #[serde(rename = "box")]
    pub box_no: u8,
    pub amount: Money,
    pub description: String,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Deserialize)]
pub struct CreateAdjustment {
    pub entity_id: String,
    pub date: String,
    #[serde(rename = "box")]
    pub box_no: i64,
    pub amount: Money,
    pub description: String,
}

#[derive(Debug, Deserialize)]
pub struct UpdateAdjustment {
    pub id: String,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default, rename = "box")]
    pub box_no: Option<i64>,
    #[serde(default)]
    pub amount: Option<Money>,
    #[serde(default)]
    pub description: Option<String>,
}

const COLUMNS: &str = "id, entity_id, date, box, amount, description, created_at, updated_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Adjustment> {
    Ok(Adjustment {
        id: r.get(0)?,
        entity_id: r.get(1)?,
        date: r.get(2)?,
        box_no: r.get(3)?,
        amount: r.get(4)?,
        description: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
    })
}

fn check_box(b: i64) -> AppResult<u8> {
    u8::try_from(b)
        .ok()
        .filter(|b| LINE_BOXES.contains(b))
        .ok_or_else(|| {
            AppError::invalid(
                "box",
                "must be 1, 2, 4, 6, 7, 8 or 9 (boxes 3 and 5 are computed)",
            )
        })
}

fn check_amount(a: Money) -> AppResult<Money> {
    if a.is_zero() {
        return Err(AppError::invalid("amount", "must not be 0"));
    }
    Ok(a)
}

/// One adjustment the caller sees (404 otherwise).
pub fn get_one(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Adjustment> {
    let (cond, values) = scope.condition(conn, "");
    let sql = format!("SELECT {COLUMNS} FROM vat_adjustments WHERE id = ? AND {cond}");
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&id];
    params.extend(values.iter().map(|v| v as &dyn rusqlite::ToSql));
    conn.prepare_cached(&sql)?
        .query_row(params.as_slice(), from_row)
        .optional()?
        .ok_or_else(|| {
            let missing = AppError::not_found(format!("VAT adjustment not found: {id}"));
            scope.unseen(conn, "vat_adjustments", id, missing)
        })
}

/// The adjustments of `entity` (resolved through the scope), dated `from`..=`to` when
/// given, oldest first.
pub fn list(
    conn: &Connection,
    entity: &str,
    from: Option<&str>,
    to: Option<&str>,
) -> AppResult<Vec<Adjustment>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM vat_adjustments
         WHERE entity_id = ?1 AND date >= ?2 AND date <= ?3 ORDER BY date, seq"
    );
    let rows = conn
        .prepare_cached(&sql)?
        .query_map(
            params![
                entity,
                from.unwrap_or("0000-00-00"),
                to.unwrap_or("9999-99-99")
            ],
            from_row,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn create(
    tx: &Transaction,
    scope: &Scope,
    b: CreateAdjustment,
    ctx: &Ctx,
) -> AppResult<Adjustment> {
    let entity = scope.entity(tx, "entity_id", &b.entity_id)?;
    let date = parse_date("date", b.date.trim())?.to_string();
    let a = Adjustment {
        id: new_id(),
        entity_id: entity,
        date,
        box_no: check_box(b.box_no)?,
        amount: check_amount(b.amount)?,
        description: required_text("description", &b.description)?,
        created_at: ctx.now.clone(),
        updated_at: ctx.now.clone(),
    };
    check_unlocked(tx, Some(&a.entity_id), &a.date)?;
    tx.execute(
        "INSERT INTO vat_adjustments (id, owner_id, entity_id, date, box, amount, description,
             created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
        params![
            a.id,
            scope.owner_for(tx, Some(&a.entity_id))?,
            a.entity_id,
            a.date,
            a.box_no,
            a.amount,
            a.description,
            a.created_at
        ],
    )?;
    Ok(a)
}

pub fn update(
    tx: &Transaction,
    scope: &Scope,
    b: UpdateAdjustment,
    ctx: &Ctx,
) -> AppResult<Adjustment> {
    let id = parse_id("id", &b.id)?;
    let mut a = get_one(tx, scope, &id)?;
    check_unlocked(tx, Some(&a.entity_id), &a.date)?;
    if let Some(d) = b.date {
        a.date = parse_date("date", d.trim())?.to_string();
        check_unlocked(tx, Some(&a.entity_id), &a.date)?;
    }
    if let Some(x) = b.box_no {
        a.box_no = check_box(x)?;
    }
    if let Some(x) = b.amount {
        a.amount = check_amount(x)?;
    }
    if let Some(x) = b.description {
        a.description = required_text("description", &x)?;
    }
    a.updated_at = ctx.now.clone();
    tx.execute(
        "UPDATE vat_adjustments SET date = ?2, box = ?3, amount = ?4, description = ?5,
             updated_at = ?6 WHERE id = ?1",
        params![
            a.id,
            a.date,
            a.box_no,
            a.amount,
            a.description,
            a.updated_at
        ],
    )?;
    Ok(a)
}

pub fn delete(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    let a = get_one(tx, scope, id)?;
    check_unlocked(tx, Some(&a.entity_id), &a.date)?;
    tx.execute("DELETE FROM vat_adjustments WHERE id = ?1", [&a.id])?;
    Ok(())
}

/// `entityId` (required), `from`, `to` (optional, each a bound).
#[derive(Debug, Default, FromForm)]
pub struct AdjustmentQuery {
    #[field(name = "entityId")]
    pub entity_id: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
}

#[get("/vat/adjustments?<q..>")]
pub async fn route_list(
    user: SessionUser,
    q: AdjustmentQuery,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let entity = q
        .entity_id
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AppError::invalid("entityId", "is required"))?;
    let day = |field: &str, v: Option<String>| -> AppResult<Option<String>> {
        v.filter(|s| !s.is_empty())
            .map(|s| parse_date(field, &s).map(|d| d.to_string()))
            .transpose()
    };
    let (from, to) = (day("from", q.from)?, day("to", q.to)?);
    if let (Some(f), Some(t)) = (&from, &to) {
        if t < f {
            return Err(AppError::invalid("to", "must be on or after `from`"));
        }
    }
    let scope = user.scope();
    let rows = db
        .read(move |conn| {
            let entity = scope.entity(conn, "entityId", &entity)?;
            list(conn, &entity, from.as_deref(), to.as_deref())
        })
        .await?;
    Ok(data(rows))
}

#[post("/vat/adjustments", data = "<body>")]
pub async fn route_create(
    user: SessionUser,
    body: JsonBody<CreateAdjustment>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Adjustment>> {
    let scope = user.scope();
    let body = body.into_inner();
    Ok(Created(
        db.write_as(scope.actor().to_owned(), move |tx| {
            create(tx, &scope, body, &ctx)
        })
        .await?,
    ))
}

#[put("/vat/adjustments", data = "<body>")]
pub async fn route_update(
    user: SessionUser,
    body: JsonBody<UpdateAdjustment>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let body = body.into_inner();
    Ok(data(
        db.write_as(scope.actor().to_owned(), move |tx| {
            update(tx, &scope, body, &ctx)
        })
        .await?,
    ))
}

#[delete("/vat/adjustments", data = "<body>")]
pub async fn route_delete(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let id = body.into_inner().id()?;
    db.write_as(scope.actor().to_owned(), move |tx| delete(tx, &scope, &id))
        .await?;
    Ok(data(json!({ "success": true })))
}
