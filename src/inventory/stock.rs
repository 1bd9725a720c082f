//! Warehouse stock rows: `/api/warehouse-stock` (docs/inventory.md#stock-rows,
//! docs/ledger.md#invariants).
//!
//! A row's `quantity` is never written here: setting it (POST upsert or PUT) records an
//! `adjustment` movement at the row's location for the difference through
//! [`ledger::apply_movement`], as a client request, so an inactive location refuses it
//! (409) while a `reorder_point` or `reserved_quantity` edit, which is no stock change,
//! is still allowed there (docs/inventory.md#inactive-locations).
//!
//! `reserved_quantity` is what in-transit transfer orders from the location hold for the
//! product plus any reservation set by hand; a PUT below the in-transit part is 409
//! (docs/ledger.md#invariants, invariant 3).

use rocket::http::Status;
use rocket::serde::json::Json;
use rocket::{get, post, put, routes, FromForm, Route, State};
use rusqlite::{params, Transaction};
use serde::Deserialize;
use serde_json::Value;

use super::ledger::{self, MovementType, NewMovement, Origin};
use super::lookup::{location_ref, product_ref, LocationRef, ProductRef};
use super::stock_rows::{self, StockRow};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::Qty;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{parse_id, parse_opt_id, JsonBody};
use crate::http::data;
use crate::http::paging::{parse_page, parse_since, Page};
use crate::scope::{same_entity, Scope};

pub fn routes() -> Vec<Route> {
    routes![list, upsert, update]
}

/// Filters of the stock row list; ids already parsed (not yet checked for visibility).
#[derive(Debug, Default, Clone)]
pub struct StockFilter {
    pub product_id: Option<String>,
    pub location_id: Option<String>,
    pub entity_id: Option<String>,
    /// Only rows changed at or after this time (the stored form).
    pub updated_since: Option<String>,
    pub limit: Option<i64>,
    pub offset: i64,
}

/// Stock rows visible to `scope`, by location name then product name. A product or
/// location filter naming an unknown or foreign record is a 404.
pub fn list_stock(
    conn: &rusqlite::Connection,
    scope: &Scope,
    f: &StockFilter,
) -> AppResult<Vec<StockRow>> {
    let (mut cond, mut args) = scope.condition(conn, "s");
    if let Some(p) = &f.product_id {
        product_ref(conn, scope, p)?;
        cond.push_str(" AND s.product_id = ?");
        args.push(p.clone());
    }
    if let Some(l) = &f.location_id {
        location_ref(conn, scope, l)?;
        cond.push_str(" AND s.location_id = ?");
        args.push(l.clone());
    }
    if let Some(e) = &f.entity_id {
        cond.push_str(" AND s.entity_id = ?");
        args.push(e.clone());
    }
    if let Some(since) = &f.updated_since {
        cond.push_str(" AND s.updated_at >= ?");
        args.push(since.clone());
    }
    let params: Vec<&dyn rusqlite::ToSql> =
        args.iter().map(|a| a as &dyn rusqlite::ToSql).collect();
    stock_rows::query_page(conn, &cond, &params, f.limit.unwrap_or(-1), f.offset)
}

/// What in-transit transfer orders from `location_id` hold of `product_id`: the part of
/// the row's `reserved_quantity` a hand edit may not go below.
pub fn held_in_transit(tx: &Transaction, location_id: &str, product_id: &str) -> AppResult<Qty> {
    let scaled: i64 = tx.query_row(
        "SELECT COALESCE(SUM(l.quantity), 0)
         FROM transfer_order_lines l
         JOIN transfer_orders o ON o.id = l.order_id
         WHERE o.status = 'in_transit' AND o.source_location_id = ?1 AND l.product_id = ?2",
        [location_id, product_id],
        |r| r.get(0),
    )?;
    Ok(Qty::from_scaled(scaled))
}

fn non_negative(field: &str, v: Qty) -> AppResult<Qty> {
    if v.is_sign_negative() {
        return Err(AppError::invalid(field, "must not be negative"));
    }
    Ok(v)
}

/// Sets the quantity of the (existing) row of `product` at `loc` from `current` to
/// `target` by recording an `adjustment` for the difference; nothing when equal.
fn set_quantity(
    tx: &Transaction,
    product: &ProductRef,
    loc: &LocationRef,
    current: Qty,
    target: Qty,
    ctx: &Ctx,
) -> AppResult<()> {
    let diff = target - current;
    if diff.is_zero() {
        return Ok(());
    }
    ledger::apply_movement(
        tx,
        &NewMovement {
            product,
            location: Some(loc),
            qty: diff,
            kind: MovementType::Adjustment,
            reference: Some("Stock quantity set".into()),
            notes: None,
            date: ctx.today,
            unit_cost: None,
            origin: Origin::Client,
        },
        ctx.allow_negative,
        &ctx.now,
    )?;
    Ok(())
}

/// The body of `POST /api/warehouse-stock`.
#[derive(Debug, Deserialize)]
pub struct UpsertBody {
    pub product_id: String,
    pub location_id: String,
    #[serde(default)]
    pub quantity: Option<Qty>,
    #[serde(default)]
    pub reorder_point: Option<Qty>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

/// Creates or updates the row of a product and location pair (the upsert rule of
/// docs/inventory.md#stock-rows). Returns the row and whether it was created.
pub fn upsert_stock(
    tx: &Transaction,
    scope: &Scope,
    b: UpsertBody,
    ctx: &Ctx,
) -> AppResult<(StockRow, bool)> {
    let product_id = parse_id("product_id", &b.product_id)?;
    let location_id = parse_id("location_id", &b.location_id)?;
    let reorder_point = b
        .reorder_point
        .map(|r| non_negative("reorder_point", r))
        .transpose()?;
    let product = product_ref(tx, scope, &product_id)?;
    let loc = location_ref(tx, scope, &location_id)?;
    if let Some(raw) = b.entity_id.as_deref().filter(|s| !s.is_empty()) {
        let entity = scope.entity(tx, "entity_id", raw)?;
        same_entity("entity_id", Some(&loc.entity_id), Some(&entity))?;
    }
    same_entity(
        "location_id",
        product.entity_id.as_deref(),
        Some(&loc.entity_id),
    )?;
    let (current, created) = match ledger::stock_row_quantity(tx, &product.id, &loc.id)? {
        Some(q) => {
            if let Some(rp) = reorder_point {
                tx.execute(
                    "UPDATE warehouse_stock SET reorder_point = ?1, updated_at = ?4
                     WHERE product_id = ?2 AND location_id = ?3",
                    params![rp, product.id, loc.id, ctx.now],
                )?;
            }
            (q, false)
        }
        None => {
            ledger::insert_stock_row(
                tx,
                &product,
                &loc,
                Qty::ZERO,
                reorder_point.unwrap_or(Qty::ZERO),
                &ctx.now,
            )?;
            (Qty::ZERO, true)
        }
    };
    if let Some(target) = b.quantity {
        set_quantity(tx, &product, &loc, current, target, ctx)?;
    }
    let mut rows = stock_rows::query(
        tx,
        "s.product_id = ? AND s.location_id = ?",
        &[&product.id, &loc.id],
    )?;
    let row = rows
        .pop()
        .ok_or_else(|| AppError::internal("stock row vanished after upsert"))?;
    Ok((row, created))
}

/// The body of `PUT /api/warehouse-stock`.
#[derive(Debug, Deserialize)]
pub struct UpdateBody {
    pub id: String,
    #[serde(default)]
    pub quantity: Option<Qty>,
    #[serde(default)]
    pub reorder_point: Option<Qty>,
    #[serde(default)]
    pub reserved_quantity: Option<Qty>,
}

/// Applies a PUT to a stock row and returns the whole row.
pub fn update_stock(
    tx: &Transaction,
    scope: &Scope,
    b: UpdateBody,
    ctx: &Ctx,
) -> AppResult<StockRow> {
    let id = parse_id("id", &b.id)?;
    let reorder_point = b
        .reorder_point
        .map(|r| non_negative("reorder_point", r))
        .transpose()?;
    let reserved = b
        .reserved_quantity
        .map(|r| non_negative("reserved_quantity", r))
        .transpose()?;
    let row = stock_rows::get_visible(tx, scope, &id)?;
    if let Some(rp) = reorder_point {
        tx.execute(
            "UPDATE warehouse_stock SET reorder_point = ?1, updated_at = ?3 WHERE id = ?2",
            params![rp, row.id, ctx.now],
        )?;
    }
    if let Some(r) = reserved {
        let held = held_in_transit(tx, &row.location_id.id, &row.product_id.id)?;
        if r < held {
            return Err(AppError::refused(
                "reserved_in_transit",
                format!(
                    "reserved_quantity {r} is below the {held} of {} held at {} by in-transit \
                 transfer orders",
                    row.product_id.sku, row.location_id.name
                ),
            ));
        }
        tx.execute(
            "UPDATE warehouse_stock SET reserved_quantity = ?1, updated_at = ?3 WHERE id = ?2",
            params![r, row.id, ctx.now],
        )?;
    }
    if let Some(target) = b.quantity {
        let product = product_ref(tx, scope, &row.product_id.id)?;
        let loc = location_ref(tx, scope, &row.location_id.id)?;
        set_quantity(tx, &product, &loc, row.quantity, target, ctx)?;
    }
    stock_rows::get_visible(tx, scope, &id)
}

#[derive(Debug, FromForm)]
pub struct ListParams {
    #[field(name = "productId")]
    product_id: Option<String>,
    #[field(name = "locationId")]
    location_id: Option<String>,
    #[field(name = "entityId")]
    entity_id: Option<String>,
    pub limit: Option<String>,
    pub offset: Option<String>,
    /// Public lists only (docs/public-api.md#incremental-sync).
    updated_since: Option<String>,
}

/// The stock rows `params` ask for, on `page`, as `scope` sees them (both APIs).
pub async fn read_stock(
    db: &Db,
    scope: Scope,
    params: ListParams,
    page: Page,
) -> AppResult<Vec<StockRow>> {
    let product_id = parse_opt_id("productId", params.product_id.as_deref())?;
    let location_id = parse_opt_id("locationId", params.location_id.as_deref())?;
    let updated_since = parse_since(params.updated_since.as_deref())?;
    db.read(move |conn| {
        let entity_id = scope.entity_opt(conn, "entityId", params.entity_id.as_deref())?;
        let filter = StockFilter {
            product_id,
            location_id,
            entity_id,
            updated_since,
            limit: page.limit,
            offset: page.offset,
        };
        list_stock(conn, &scope, &filter)
    })
    .await
}

#[get("/warehouse-stock?<params..>")]
async fn list(user: SessionUser, params: ListParams, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = parse_page(params.limit.as_deref(), params.offset.as_deref(), None)?;
    Ok(data(read_stock(db, user.scope(), params, page).await?))
}

#[post("/warehouse-stock", data = "<body>")]
async fn upsert(
    user: SessionUser,
    body: JsonBody<UpsertBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<(Status, Json<Value>)> {
    let scope = user.scope();
    let body = body.into_inner();
    let (row, created) = db
        .write_as(scope.actor().to_owned(), move |tx| {
            upsert_stock(tx, &scope, body, &ctx)
        })
        .await?;
    let status = if created { Status::Created } else { Status::Ok };
    Ok((status, data(row)))
}

#[put("/warehouse-stock", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<UpdateBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let body = body.into_inner();
    let row = db
        .write_as(scope.actor().to_owned(), move |tx| {
            update_stock(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(data(row))
}
