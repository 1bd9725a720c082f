//! Products on the public API: `GET/POST /api/v1/products`.
//!
//! Creation follows DECISIONS §3 (name required; `sku` unique per entity ignoring case,
//! 409, or generated `SKU-00001`, next free number; `vat_rate` 0 to 100, default 20;
//! prices and `low_stock_threshold` not negative; `low_stock_threshold` default 5,
//! `unit` default `pcs`; `stock_qty` recorded as an opening unallocated `adjustment`
//! through the ledger).
//!
//! MERGE NOTE: the session products code (`/api/products`) is written on another branch;
//! [`create`] and [`list`] should be merged with it so both APIs share one function.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

use crate::accounting::common::{
    clean, new_id, new_record_entity, requested_entity, Ctx, ListSql, Order,
};
use crate::db::decimal::{check_percent, Percent, Price, Qty};
use crate::error::{AppError, AppResult};
use crate::http::paging::Page;
use crate::http::required_text;
use crate::inventory::ledger::{apply_movement, MovementType, NewMovement, Origin};
use crate::inventory::product_ref;
use crate::scope::Scope;

#[derive(Debug, Clone, Serialize)]
pub struct Product {
    pub id: String,
    pub name: String,
    pub sku: String,
    pub description: Option<String>,
    pub category: String,
    pub unit_price: Price,
    pub cost_price: Price,
    pub vat_rate: Percent,
    pub stock_qty: Qty,
    pub low_stock_threshold: Qty,
    pub unit: String,
    pub notes: Option<String>,
    pub barcode: Option<String>,
    pub active: bool,
    pub provider: Option<String>,
    pub provider_ref: Option<String>,
    pub entity_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub stock_levels: Vec<StockLevel>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StockLevel {
    pub id: String,
    pub product_id: ProductSummary,
    pub location_id: LocationSummary,
    pub quantity: Qty,
    pub reorder_point: Qty,
    pub reserved_quantity: Qty,
    pub entity_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProductSummary {
    pub id: String,
    pub name: String,
    pub sku: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LocationSummary {
    pub id: String,
    pub name: String,
}

const SQL: ListSql<'static> = ListSql {
    from: "products t",
    columns: "t.id, t.name, t.sku, t.description, t.category, t.unit_price, t.cost_price,
              t.vat_rate, t.stock_qty, t.low_stock_threshold, t.unit, t.notes, t.barcode,
              t.active, t.provider, t.provider_ref, t.entity_id, t.created_at, t.updated_at",
    session_order: "t.name COLLATE NOCASE, t.seq",
};

fn from_row(r: &Row<'_>) -> rusqlite::Result<Product> {
    Ok(Product {
        id: r.get(0)?,
        name: r.get(1)?,
        sku: r.get(2)?,
        description: r.get(3)?,
        category: r.get(4)?,
        unit_price: r.get(5)?,
        cost_price: r.get(6)?,
        vat_rate: r.get(7)?,
        stock_qty: r.get(8)?,
        low_stock_threshold: r.get(9)?,
        unit: r.get(10)?,
        notes: r.get(11)?,
        barcode: r.get(12)?,
        active: r.get(13)?,
        provider: r.get(14)?,
        provider_ref: r.get(15)?,
        entity_id: r.get(16)?,
        created_at: r.get(17)?,
        updated_at: r.get(18)?,
        stock_levels: Vec::new(),
    })
}

fn with_stock_levels(conn: &Connection, mut p: Product) -> AppResult<Product> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.id, l.id, l.name, s.quantity, s.reorder_point, s.reserved_quantity, s.entity_id
         FROM warehouse_stock s JOIN warehouse_locations l ON l.id = s.location_id
         WHERE s.product_id = ?1
         ORDER BY l.name COLLATE NOCASE, l.seq",
    )?;
    p.stock_levels = stmt
        .query_map([&p.id], |r| {
            Ok(StockLevel {
                id: r.get(0)?,
                product_id: ProductSummary {
                    id: p.id.clone(),
                    name: p.name.clone(),
                    sku: p.sku.clone(),
                },
                location_id: LocationSummary {
                    id: r.get(1)?,
                    name: r.get(2)?,
                },
                quantity: r.get(3)?,
                reorder_point: r.get(4)?,
                reserved_quantity: r.get(5)?,
                entity_id: r.get(6)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(p)
}

/// Products visible to `scope` with their stock levels.
pub fn list(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    page: Page,
    order: Order,
) -> AppResult<Vec<Product>> {
    SQL.run(conn, scope, entity, page, order, from_row)?
        .into_iter()
        .map(|p| with_stock_levels(conn, p))
        .collect()
}

pub fn get(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Product> {
    let p = SQL.one(conn, scope, "Product", id, from_row)?;
    with_stock_levels(conn, p)
}

#[derive(Debug, Deserialize)]
pub struct CreateProduct {
    pub name: String,
    #[serde(default)]
    pub sku: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub unit_price: Option<Price>,
    #[serde(default)]
    pub cost_price: Option<Price>,
    #[serde(default)]
    pub vat_rate: Option<Percent>,
    #[serde(default)]
    pub stock_qty: Option<Qty>,
    #[serde(default)]
    pub low_stock_threshold: Option<Qty>,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub barcode: Option<String>,
    #[serde(default)]
    pub active: Option<bool>,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub provider_ref: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
}

/// Default `low_stock_threshold` (§8).
pub const DEFAULT_LOW_STOCK_THRESHOLD: i64 = 5;
/// Default `vat_rate` (DECISIONS §3).
pub const DEFAULT_VAT_RATE: i64 = 20;

fn sku_taken(conn: &Connection, owner: &str, entity: Option<&str>, sku: &str) -> AppResult<bool> {
    let found: Option<i64> = conn
        .query_row(
            "SELECT 1 FROM products
             WHERE owner_id = ?1 AND COALESCE(entity_id, '') = COALESCE(?2, '')
               AND sku = ?3 COLLATE NOCASE",
            params![owner, entity, sku],
            |r| r.get(0),
        )
        .optional()?;
    Ok(found.is_some())
}

/// The next free generated SKU of an entity (per owner without entity): `SKU-00001`, ...
pub fn next_sku(conn: &Connection, owner: &str, entity: Option<&str>) -> AppResult<String> {
    let max: i64 = conn.query_row(
        "SELECT COALESCE(MAX(CAST(SUBSTR(sku, 5) AS INTEGER)), 0) FROM products
         WHERE owner_id = ?1 AND COALESCE(entity_id, '') = COALESCE(?2, '')
           AND sku LIKE 'SKU-%' AND SUBSTR(sku, 5) NOT GLOB '*[^0-9]*' AND LENGTH(sku) > 4",
        params![owner, entity],
        |r| r.get(0),
    )?;
    let mut n = max.saturating_add(1);
    loop {
        let sku = format!("SKU-{n:05}");
        if !sku_taken(conn, owner, entity, &sku)? {
            return Ok(sku);
        }
        n = n.saturating_add(1);
    }
}

fn non_negative_price(field: &str, v: Option<Price>) -> AppResult<Price> {
    let v = v.unwrap_or(Price::ZERO);
    if v.is_sign_negative() {
        return Err(AppError::invalid(field, "must not be negative"));
    }
    Ok(v)
}

/// Creates a product (public API; see the module's merge note).
pub fn create(tx: &Transaction, scope: &Scope, b: CreateProduct, ctx: &Ctx) -> AppResult<Product> {
    let requested = requested_entity(tx, scope, b.entity_id.as_deref())?;
    let name = required_text("name", &b.name)?;
    let unit_price = non_negative_price("unit_price", b.unit_price)?;
    let cost_price = non_negative_price("cost_price", b.cost_price)?;
    let vat_rate = match b.vat_rate {
        Some(r) => {
            check_percent("vat_rate", r.value())?;
            r
        }
        None => Percent::from_i64(DEFAULT_VAT_RATE),
    };
    let threshold = b
        .low_stock_threshold
        .unwrap_or(Qty::from_i64(DEFAULT_LOW_STOCK_THRESHOLD));
    if threshold.is_sign_negative() {
        return Err(AppError::invalid(
            "low_stock_threshold",
            "must not be negative",
        ));
    }
    let entity_id = new_record_entity(scope, requested, &[])?;
    let sku = match clean(b.sku) {
        Some(s) => {
            if sku_taken(tx, &scope.owner_id, entity_id.as_deref(), &s)? {
                return Err(AppError::conflict(format!(
                    "A product with SKU {s} already exists"
                )));
            }
            s
        }
        None => next_sku(tx, &scope.owner_id, entity_id.as_deref())?,
    };
    let id = new_id();
    tx.execute(
        "INSERT INTO products (id, owner_id, entity_id, name, sku, description, category,
             unit_price, cost_price, vat_rate, stock_qty, low_stock_threshold, unit, notes,
             barcode, active, provider, provider_ref, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18, ?18)",
        params![
            id,
            scope.owner_id,
            entity_id,
            name,
            sku,
            clean(b.description),
            clean(b.category).unwrap_or_default(),
            unit_price,
            cost_price,
            vat_rate,
            threshold,
            clean(b.unit).unwrap_or_else(|| "pcs".to_owned()),
            clean(b.notes),
            clean(b.barcode),
            b.active.unwrap_or(true),
            clean(b.provider),
            clean(b.provider_ref),
            ctx.now
        ],
    )?;
    if let Some(qty) = b.stock_qty.filter(|q| !q.is_zero()) {
        let product = product_ref(tx, scope, &id)?;
        apply_movement(
            tx,
            &NewMovement {
                product: &product,
                location: None,
                qty,
                kind: MovementType::Adjustment,
                reference: Some("Opening stock".to_owned()),
                notes: None,
                date: ctx.today,
                unit_cost: None,
                origin: Origin::Client,
            },
            ctx.allow_negative,
            &ctx.now,
        )?;
    }
    get(tx, scope, &id)
}
