//! Inventory: products, warehouse locations, stock rows, the movement ledger, transfer
//! orders, stock takes and the reports built on them.
//!
//! Every change of a stock quantity goes through [`ledger::apply_movement`], in the
//! caller's `BEGIN IMMEDIATE` transaction, so the invariants of DECISIONS §5 hold after
//! every request.

pub mod check;
pub mod ledger;
pub mod locations;
pub mod margin;
pub mod movements;
pub mod numbering;
pub mod products;
pub mod reports;
pub mod stock;
pub mod stock_rows;
pub mod stock_takes;
pub mod transfers;
pub mod valuation;

/// The session routes of the inventory.
pub fn routes() -> Vec<rocket::Route> {
    let mut r = products::routes();
    r.extend(locations::routes());
    r.extend(stock::routes());
    r.extend(movements::routes());
    r.extend(transfers::routes());
    r.extend(stock_takes::routes());
    r.extend(reports::routes());
    r.extend(rocket::routes![margin::gross_margin_report]);
    r
}

use rusqlite::{params_from_iter, Connection, OptionalExtension, Row};

use crate::db::decimal::{Price, Qty};
use crate::error::{AppError, AppResult};
use crate::http::paging::Page;
use crate::scope::Scope;

/// Appends ` AND <col> = ?` and its argument when an optional filter is given.
fn and_eq(sql: &mut String, args: &mut Vec<String>, col: &str, value: Option<&str>) {
    if let Some(v) = value {
        sql.push_str(&format!(" AND {col} = ?"));
        args.push(v.to_owned());
    }
}

/// One page of `select`'s rows (its table aliased `alias`) visible to `scope`, optionally
/// of one entity, newest first.
fn newest_first<T>(
    conn: &Connection,
    scope: &Scope,
    select: &str,
    alias: &str,
    entity: Option<&str>,
    page: Page,
    from_row: fn(&Row<'_>) -> rusqlite::Result<T>,
) -> AppResult<Vec<T>> {
    let (cond, mut args) = scope.condition(alias);
    let mut sql = format!("{select} WHERE {cond}");
    and_eq(&mut sql, &mut args, &format!("{alias}.entity_id"), entity);
    sql.push_str(&format!(
        " ORDER BY {alias}.seq DESC LIMIT {} OFFSET {}",
        page.sql_limit(),
        page.offset
    ));
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(args.iter()), from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// What the ledger and the documents need to know about a product.
#[derive(Debug, Clone)]
pub struct ProductRef {
    pub id: String,
    pub owner_id: String,
    pub entity_id: Option<String>,
    pub name: String,
    pub sku: String,
    pub active: bool,
    pub stock_qty: Qty,
    pub cost_price: Price,
}

/// What the ledger and the documents need to know about a location.
#[derive(Debug, Clone)]
pub struct LocationRef {
    pub id: String,
    pub owner_id: String,
    pub entity_id: String,
    pub name: String,
    pub active: bool,
}

/// Loads a product visible to `scope`: 404 when unknown or foreign.
pub fn product_ref(conn: &Connection, scope: &Scope, id: &str) -> AppResult<ProductRef> {
    let p = conn
        .query_row(
            "SELECT id, owner_id, entity_id, name, sku, active, stock_qty, cost_price
             FROM products WHERE id = ?1",
            [id],
            |r| {
                Ok(ProductRef {
                    id: r.get(0)?,
                    owner_id: r.get(1)?,
                    entity_id: r.get(2)?,
                    name: r.get(3)?,
                    sku: r.get(4)?,
                    active: r.get(5)?,
                    stock_qty: r.get(6)?,
                    cost_price: r.get(7)?,
                })
            },
        )
        .optional()?;
    p.filter(|p| scope.sees(&p.owner_id, p.entity_id.as_deref()))
        .ok_or_else(|| AppError::not_found(format!("Product not found: {id}")))
}

/// Loads a location visible to `scope`: 404 when unknown or foreign.
pub fn location_ref(conn: &Connection, scope: &Scope, id: &str) -> AppResult<LocationRef> {
    let l = conn
        .query_row(
            "SELECT id, owner_id, entity_id, name, status FROM warehouse_locations WHERE id = ?1",
            [id],
            |r| {
                Ok(LocationRef {
                    id: r.get(0)?,
                    owner_id: r.get(1)?,
                    entity_id: r.get(2)?,
                    name: r.get(3)?,
                    active: r.get::<_, String>(4)? == "active",
                })
            },
        )
        .optional()?;
    l.filter(|l| scope.sees(&l.owner_id, Some(&l.entity_id)))
        .ok_or_else(|| AppError::not_found(format!("Location not found: {id}")))
}
