//! Lookups every inventory module shares: a product or a location by id through the
//! caller's [`Scope`] (a foreign id is a 404 like an unknown one), and optional SQL
//! filters.

use rusqlite::{Connection, OptionalExtension};

use crate::db::decimal::{Price, Qty};
use crate::error::{AppError, AppResult};
use crate::scope::Scope;

/// Appends ` AND <col> = ?` and its argument when an optional filter is given.
pub fn and_eq(sql: &mut String, args: &mut Vec<String>, col: &str, value: Option<&str>) {
    if let Some(v) = value {
        sql.push_str(&format!(" AND {col} = ?"));
        args.push(v.to_owned());
    }
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

impl ProductRef {
    /// The product of a row whose first eight columns are `id, owner_id, entity_id, name,
    /// sku, active, stock_qty, cost_price`.
    pub fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: r.get(0)?,
            owner_id: r.get(1)?,
            entity_id: r.get(2)?,
            name: r.get(3)?,
            sku: r.get(4)?,
            active: r.get(5)?,
            stock_qty: r.get(6)?,
            cost_price: r.get(7)?,
        })
    }
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
    // Cached: every stock movement runs this (docs/architecture.md#the-write-path).
    let p = conn
        .prepare_cached(
            "SELECT id, owner_id, entity_id, name, sku, active, stock_qty, cost_price
             FROM products WHERE id = ?1",
        )?
        .query_row([id], ProductRef::from_row)
        .optional()?;
    let missing = || AppError::not_found(format!("Product not found: {id}"));
    let p = p.ok_or_else(missing)?;
    scope.reach(conn, &p.owner_id, p.entity_id.as_deref(), missing)?;
    Ok(p)
}

/// Loads a location visible to `scope`: 404 when unknown or foreign.
pub fn location_ref(conn: &Connection, scope: &Scope, id: &str) -> AppResult<LocationRef> {
    let l = conn
        .prepare_cached(
            "SELECT id, owner_id, entity_id, name, status FROM warehouse_locations WHERE id = ?1",
        )?
        .query_row([id], |r| {
            Ok(LocationRef {
                id: r.get(0)?,
                owner_id: r.get(1)?,
                entity_id: r.get(2)?,
                name: r.get(3)?,
                active: r.get::<_, String>(4)? == "active",
            })
        })
        .optional()?;
    let missing = || AppError::not_found(format!("Location not found: {id}"));
    let l = l.ok_or_else(missing)?;
    scope.reach(conn, &l.owner_id, Some(&l.entity_id), missing)?;
    Ok(l)
}

/// A location that is to take stock for a record of `entity`: of the same entity (400
/// naming `field`) and active (409). Put away and a product's opening stock use it.
pub fn check_takes_stock(
    field: &str,
    location: &LocationRef,
    entity: Option<&str>,
) -> AppResult<()> {
    crate::scope::same_entity(field, entity, Some(&location.entity_id))?;
    if !location.active {
        return Err(AppError::refused(
            "inactive_record",
            format!(
                "Location {} is inactive and cannot take stock changes",
                location.name
            ),
        ));
    }
    Ok(())
}
