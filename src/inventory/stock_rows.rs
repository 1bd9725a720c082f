//! Reading warehouse stock rows in their response shape (WarehouseStock,
//! docs/inventory.md#stock-rows): product and location expanded as `{id, name, sku}` and
//! `{id, name}`.

use rusqlite::{Connection, Row};
use serde::Serialize;

use crate::db::damage;
use crate::db::decimal::Qty;
use crate::error::{AppError, AppResult};
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct ProductBrief {
    pub id: String,
    pub name: String,
    pub sku: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LocationBrief {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct StockRow {
    pub id: String,
    pub product_id: ProductBrief,
    pub location_id: LocationBrief,
    pub quantity: Qty,
    pub reorder_point: Qty,
    pub reserved_quantity: Qty,
    pub entity_id: Option<String>,
    /// The last change of its quantities or reorder point
    /// (docs/public-api.md#incremental-sync).
    pub updated_at: String,
}

/// SELECT list and joins for [`from_row`]; append `WHERE ...`.
pub const SELECT: &str =
    "SELECT s.id, p.id, p.name, p.sku, l.id, l.name, s.quantity, s.reorder_point,
        s.reserved_quantity, s.entity_id, s.updated_at
     FROM warehouse_stock s
     JOIN products p ON p.id = s.product_id
     JOIN warehouse_locations l ON l.id = s.location_id";

pub fn from_row(r: &Row<'_>) -> rusqlite::Result<StockRow> {
    Ok(StockRow {
        id: r.get(0)?,
        product_id: ProductBrief {
            id: r.get(1)?,
            name: r.get(2)?,
            sku: r.get(3)?,
        },
        location_id: LocationBrief {
            id: r.get(4)?,
            name: r.get(5)?,
        },
        quantity: r.get(6)?,
        reorder_point: r.get(7)?,
        reserved_quantity: r.get(8)?,
        entity_id: r.get(9)?,
        updated_at: r.get(10)?,
    })
}

/// Runs `SELECT ... WHERE <cond> ORDER BY location name, product name` with positional
/// parameters.
pub fn query(
    conn: &Connection,
    cond: &str,
    params: &[&dyn rusqlite::ToSql],
) -> AppResult<Vec<StockRow>> {
    query_page(conn, cond, params, -1, 0)
}

/// [`query`] with `LIMIT` (-1: none) and `OFFSET`.
pub fn query_page(
    conn: &Connection,
    cond: &str,
    params: &[&dyn rusqlite::ToSql],
    limit: i64,
    offset: i64,
) -> AppResult<Vec<StockRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE {cond}
         ORDER BY l.name COLLATE NOCASE, l.seq, p.name COLLATE NOCASE, p.seq
         LIMIT {limit} OFFSET {offset}"
    ))?;
    let rows = stmt
        .query_map(params, damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// One stock row visible to `scope`: 404 when unknown or foreign.
pub fn get_visible(conn: &Connection, scope: &Scope, id: &str) -> AppResult<StockRow> {
    let (cond, args) = scope.condition(conn, "s");
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&id];
    params.extend(args.iter().map(|a| a as &dyn rusqlite::ToSql));
    query(conn, &format!("s.id = ? AND {cond}"), &params)?
        .pop()
        .ok_or_else(|| {
            let missing = AppError::not_found(format!("Stock row not found: {id}"));
            scope.unseen(conn, "warehouse_stock", id, missing)
        })
}
