//! Stock movements: `/api/stock-movements` (§4.4, DECISIONS §5).
//!
//! The list reads the ledger with every filter of §4.4, newest first (date, then
//! creation). A create goes through [`ledger::apply_movement`] as a client request: the
//! sign rules, the negative-stock refusal and weighted-average costing all live there.
//! There is no PUT or DELETE: the ledger is immutable (the catcher answers 405).

use rocket::serde::json::Json;
use rocket::{get, post, routes, FromForm, Route, State};
use rusqlite::types::Type;
use rusqlite::{params_from_iter, Connection, Row, Transaction};
use serde::Deserialize;
use serde_json::Value;
use time::Date;

use super::ledger::{self, Movement, MovementProduct, MovementType, NewMovement, Origin};
use super::lookup::{location_ref, product_ref};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::{Price, Qty};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, parse_date, parse_id, parse_opt_id, JsonBody};
use crate::http::paging::parse_page;
use crate::http::{data, Created};
use crate::scope::{same_entity, Scope};

pub fn routes() -> Vec<Route> {
    routes![list, create]
}

fn type_list() -> String {
    MovementType::ALL
        .iter()
        .filter(|t| **t != MovementType::TransferCancelled)
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Filters of the movement list; ids already parsed (not yet checked for visibility).
#[derive(Debug, Default, Clone)]
pub struct MovementFilter {
    pub product_id: Option<String>,
    pub location_id: Option<String>,
    pub entity_id: Option<String>,
    pub kind: Option<MovementType>,
    pub date_from: Option<Date>,
    pub date_to: Option<Date>,
    pub limit: Option<i64>,
    pub offset: i64,
}

const SELECT: &str = "SELECT m.id, p.id, p.name, p.sku, m.qty, m.type, m.location_id,
        m.reference, m.notes, m.date, m.unit_cost, m.entity_id, m.created_at
     FROM stock_movements m
     JOIN products p ON p.id = m.product_id";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Movement> {
    let kind: String = r.get(5)?;
    let kind = MovementType::parse(&kind).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            5,
            Type::Text,
            format!("unknown movement type {kind}").into(),
        )
    })?;
    Ok(Movement {
        id: r.get(0)?,
        product_id: MovementProduct {
            id: r.get(1)?,
            name: r.get(2)?,
            sku: r.get(3)?,
        },
        qty: r.get(4)?,
        kind,
        location_id: r.get(6)?,
        reference: r.get(7)?,
        notes: r.get(8)?,
        date: r.get(9)?,
        unit_cost: r.get(10)?,
        entity_id: r.get(11)?,
        created_at: r.get(12)?,
    })
}

/// Movements visible to `scope`, newest first (date, then creation). A product or
/// location filter naming an unknown or foreign record is a 404.
pub fn list_movements(
    conn: &Connection,
    scope: &Scope,
    f: &MovementFilter,
) -> AppResult<Vec<Movement>> {
    let (mut cond, mut args) = scope.condition("m");
    if let Some(p) = &f.product_id {
        product_ref(conn, scope, p)?;
        cond.push_str(" AND m.product_id = ?");
        args.push(p.clone());
    }
    if let Some(l) = &f.location_id {
        location_ref(conn, scope, l)?;
        cond.push_str(" AND m.location_id = ?");
        args.push(l.clone());
    }
    if let Some(e) = &f.entity_id {
        cond.push_str(" AND m.entity_id = ?");
        args.push(e.clone());
    }
    if let Some(k) = f.kind {
        cond.push_str(" AND m.type = ?");
        args.push(k.as_str().to_owned());
    }
    if let Some(d) = f.date_from {
        cond.push_str(" AND m.date >= ?");
        args.push(d.to_string());
    }
    if let Some(d) = f.date_to {
        cond.push_str(" AND m.date <= ?");
        args.push(d.to_string());
    }
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE {cond} ORDER BY m.date DESC, m.seq DESC LIMIT {} OFFSET {}",
        f.limit.unwrap_or(-1),
        f.offset
    ))?;
    let rows = stmt
        .query_map(params_from_iter(args.iter()), from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The body of `POST /api/stock-movements`.
#[derive(Debug, Deserialize)]
pub struct MovementBody {
    pub product_id: String,
    pub qty: Qty,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub location_id: Option<String>,
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
    #[serde(default)]
    pub unit_cost: Option<Price>,
}

/// Records a movement asked for by a client (session and public API share this).
pub fn record_movement(
    tx: &Transaction,
    scope: &Scope,
    b: MovementBody,
    ctx: &Ctx,
) -> AppResult<Movement> {
    let kind = MovementType::parse(b.kind.trim())
        .ok_or_else(|| AppError::invalid("type", format!("must be one of {}", type_list())))?;
    let product_id = parse_id("product_id", &b.product_id)?;
    let location_id = parse_opt_id("location_id", b.location_id.as_deref())?;
    let date = match b.date.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => parse_date("date", d)?,
        None => ctx.today,
    };
    if let Some(c) = b.unit_cost {
        if c.is_sign_negative() {
            return Err(AppError::invalid("unit_cost", "must not be negative"));
        }
    }
    let product = product_ref(tx, scope, &product_id)?;
    if let Some(raw) = b.entity_id.as_deref().filter(|s| !s.is_empty()) {
        let entity = scope.entity(tx, "entity_id", raw)?;
        same_entity("entity_id", product.entity_id.as_deref(), Some(&entity))?;
    }
    let location = location_id
        .map(|l| location_ref(tx, scope, &l))
        .transpose()?;
    ledger::apply_movement(
        tx,
        &NewMovement {
            product: &product,
            location: location.as_ref(),
            qty: b.qty,
            kind,
            reference: clean(b.reference),
            notes: clean(b.notes),
            date,
            unit_cost: b.unit_cost,
            origin: Origin::Client,
        },
        ctx.allow_negative,
        &ctx.now,
    )
}

#[derive(Debug, FromForm)]
struct ListParams {
    #[field(name = "productId")]
    product_id: Option<String>,
    #[field(name = "entityId")]
    entity_id: Option<String>,
    #[field(name = "locationId")]
    location_id: Option<String>,
    #[field(name = "type")]
    kind: Option<String>,
    #[field(name = "dateFrom")]
    date_from: Option<String>,
    #[field(name = "dateTo")]
    date_to: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
}

fn opt_date(field: &str, s: Option<&str>) -> AppResult<Option<Date>> {
    s.filter(|s| !s.is_empty())
        .map(|s| parse_date(field, s))
        .transpose()
}

#[get("/stock-movements?<params..>")]
async fn list(user: SessionUser, params: ListParams, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = parse_page(params.limit.as_deref(), params.offset.as_deref(), None)?;
    let product_id = parse_opt_id("productId", params.product_id.as_deref())?;
    let location_id = parse_opt_id("locationId", params.location_id.as_deref())?;
    let kind = match params.kind.as_deref().filter(|k| !k.is_empty()) {
        None => None,
        Some(k) => Some(MovementType::parse(k).ok_or_else(|| {
            AppError::invalid(
                "type",
                format!("must be one of {}, transfer_cancelled", type_list()),
            )
        })?),
    };
    let date_from = opt_date("dateFrom", params.date_from.as_deref())?;
    let date_to = opt_date("dateTo", params.date_to.as_deref())?;
    let scope = user.scope();
    let rows = db
        .read(move |conn| {
            let entity_id = scope.entity_opt(conn, "entityId", params.entity_id.as_deref())?;
            let filter = MovementFilter {
                product_id,
                location_id,
                entity_id,
                kind,
                date_from,
                date_to,
                limit: page.limit,
                offset: page.offset,
            };
            list_movements(conn, &scope, &filter)
        })
        .await?;
    Ok(data(rows))
}

#[post("/stock-movements", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<MovementBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Movement>> {
    let scope = user.scope();
    let body = body.into_inner();
    let m = db
        .write(move |tx| record_movement(tx, &scope, body, &ctx))
        .await?;
    Ok(Created(m))
}
