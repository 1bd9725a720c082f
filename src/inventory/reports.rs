//! Reports over the stock: the valuation report (docs/inventory.md#valuation-report), and
//! the dashboard summary, the low-stock alerts and the per-location figures
//! (docs/inventory.md#low-stock-alerts, docs/inventory.md#dashboard-figures).
//!
//! All figures are exact: quantities and prices are read as the scaled integers SQLite
//! stores (thousandths and ten-thousandths), multiplied and summed in `i128`, and rounded
//! half away from zero to 2 places only where they are shown. Row values are rounded each;
//! summary totals are sums of the unrounded values, rounded once; `avgMargin` is the mean
//! of the unrounded margins of the distinct products with a row.
//!
//! The valuation itself is in [`super::valuation`]; the arithmetic it shares with the
//! figures here lives in this file.

use std::collections::HashMap;

use rocket::serde::json::Json;
use rocket::{get, routes, Route, State};
use rusqlite::{params_from_iter, Connection};
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::{json, Value};

use super::lookup::{and_eq, location_ref};
use super::stock_rows::{LocationBrief, ProductBrief};
use crate::auth::SessionUser;
use crate::db::decimal::Qty;
use crate::db::Db;
use crate::error::AppResult;
use crate::http::body::parse_opt_id;
use crate::http::data;
use crate::scope::{same_entity, Scope};

pub fn routes() -> Vec<Route> {
    routes![
        super::valuation_page::stock_valuation,
        summary,
        alerts,
        locations
    ]
}

/// Decimal places of the scaled integers: quantities, prices, and their products.
pub(super) const QTY_PLACES: u32 = 3;
pub(super) const PRICE_PLACES: u32 = 4;
pub(super) const VALUE_PLACES: u32 = QTY_PLACES + PRICE_PLACES;
/// Shown money and percentages.
pub(super) const SHOWN_PLACES: u32 = 2;

/// Rounds a scaled integer from `from` to `to` places, half away from zero.
pub(super) fn round_scaled(v: i128, from: u32, to: u32) -> i128 {
    // 64-bit division is done by the CPU; 128-bit division is a library call. Every
    // realistic value fits in 64 bits, and the report rounds 2.5 million of them.
    if let (Ok(small), true) = (i64::try_from(v), from - to <= 18) {
        let d = 10_i64.pow(from - to);
        let (q, r) = (small / d, small % d);
        return i128::from(if r.abs() * 2 >= d {
            q + small.signum()
        } else {
            q
        });
    }
    let d = 10_i128.pow(from - to);
    let (q, r) = (v / d, v % d);
    if r.abs() * 2 >= d {
        q + v.signum()
    } else {
        q
    }
}

/// A scaled integer as an exact decimal.
pub(super) fn scaled_decimal(v: i128, places: u32) -> Decimal {
    Decimal::from_i128_with_scale(v, places).normalize()
}

/// A value (quantity × price) rounded to 2 places, as a decimal.
pub(super) fn money(v: i128) -> Decimal {
    scaled_decimal(round_scaled(v, VALUE_PLACES, SHOWN_PLACES), SHOWN_PLACES)
}

pub(super) fn round2(d: Decimal) -> Decimal {
    crate::db::decimal::round(d, SHOWN_PLACES)
}

/// `(unit_price - cost_price) / unit_price * 100`, unrounded; 0 when the unit price is 0.
pub(super) fn margin(unit_price: i64, cost_price: i64) -> Decimal {
    if unit_price == 0 {
        return Decimal::ZERO;
    }
    let diff = Decimal::new(unit_price - cost_price, PRICE_PLACES) * Decimal::ONE_HUNDRED;
    diff / Decimal::new(unit_price, PRICE_PLACES)
}

/// Writes a scaled integer as a JSON number without trailing zeros.
pub(super) fn push_scaled(out: &mut Vec<u8>, v: i128, places: u32) {
    if v < 0 {
        out.push(b'-');
    }
    let a = v.unsigned_abs();
    match u64::try_from(a) {
        // The common case in 64-bit arithmetic (see `round_scaled`).
        Ok(a) => {
            let p = 10_u64.pow(places);
            push_u64(out, a / p);
            push_fraction(out, a % p, places);
        }
        Err(_) => {
            let p = 10_u128.pow(places);
            let (int, frac) = (a / p, a % p);
            match u64::try_from(int) {
                Ok(int) => push_u64(out, int),
                Err(_) => push_u128(out, int),
            }
            // `frac < 10^places` always fits.
            push_fraction(out, u64::try_from(frac).unwrap_or(0), places);
        }
    }
}

/// Writes `.digits` of a fraction of `places` places, trailing zeros dropped; nothing
/// for 0.
fn push_fraction(out: &mut Vec<u8>, mut frac: u64, places: u32) {
    if frac == 0 {
        return;
    }
    let mut digits = places;
    while frac.is_multiple_of(10) {
        frac /= 10;
        digits -= 1;
    }
    out.push(b'.');
    let mut buf = [b'0'; 20];
    let mut i = digits as usize;
    while i > 0 {
        i -= 1;
        buf[i] = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    out.extend_from_slice(&buf[..digits as usize]);
}

fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0_u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

fn push_u128(out: &mut Vec<u8>, mut n: u128) {
    let mut buf = [0_u8; 40];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

pub(super) fn push_str(out: &mut Vec<u8>, s: &str) {
    // Writing a &str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// SQLite's NOCASE order (ASCII case folded), then creation order.
pub(super) fn name_order(a: &str, a_seq: i64, b: &str, b_seq: i64) -> std::cmp::Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
        .then(a_seq.cmp(&b_seq))
}

/// A TEXT column's bytes, borrowed from the row (no allocation, no UTF-8 check).
pub(super) fn bytes_col<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r [u8]> {
    r.get_ref(i)?.as_bytes().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    })
}

/// A TEXT column borrowed from the row (no allocation).
pub(super) fn text_col<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    r.get_ref(i)?.as_str().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    })
}

/// Resolves the `entityId` and `locationId` filters: 400 malformed, 404 unknown or
/// foreign, 400 when the location is of another entity than the one asked for.
pub(super) fn resolve_filters(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<(Option<String>, Option<String>)> {
    let entity = scope.entity_opt(conn, "entityId", entity)?;
    let location = match parse_opt_id("locationId", location)? {
        Some(id) => {
            let loc = location_ref(conn, scope, &id)?;
            if let Some(e) = &entity {
                same_entity("locationId", Some(&loc.entity_id), Some(e))?;
            }
            Some(loc.id)
        }
        None => None,
    };
    Ok((entity, location))
}

/// Units held by in-transit transfer orders (from `source` when given) and their value at
/// the products' current cost price, both scaled.
pub(super) fn in_transit(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    source: Option<&str>,
) -> AppResult<(i128, i128)> {
    let (cond, mut args) = scope.condition("o");
    let mut sql = format!(
        "SELECT tl.quantity, p.cost_price
         FROM transfer_order_lines tl
         JOIN transfer_orders o ON o.id = tl.order_id
         JOIN products p ON p.id = tl.product_id
         WHERE o.status = 'in_transit' AND {cond}"
    );
    and_eq(&mut sql, &mut args, "o.entity_id", entity);
    and_eq(&mut sql, &mut args, "o.source_location_id", source);
    let mut stmt = conn.prepare(&sql)?;
    let mut q = stmt.query(params_from_iter(args.iter()))?;
    let (mut units, mut value) = (0_i128, 0_i128);
    while let Some(r) = q.next()? {
        let qty: i64 = r.get(0)?;
        let price: i64 = r.get(1)?;
        units += i128::from(qty);
        value += i128::from(qty) * i128::from(price);
    }
    Ok((units, value))
}

// ---------------------------------------------------------------------------------------
// Dashboard summary
// ---------------------------------------------------------------------------------------

fn count(conn: &Connection, sql: &str, args: &[String]) -> AppResult<i64> {
    Ok(conn.query_row(sql, params_from_iter(args.iter()), |r| r.get(0))?)
}

/// Alerts of both levels, counted with the same conditions [`list_alerts`] uses.
fn alert_count(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<i64> {
    let mut total = 0;
    if location.is_none() {
        let (cond, mut args) = scope.condition("p");
        let mut sql = format!(
            "SELECT COUNT(*) FROM products p WHERE {cond} AND p.active = 1
                 AND p.stock_qty <= p.low_stock_threshold"
        );
        and_eq(&mut sql, &mut args, "p.entity_id", entity);
        total += count(conn, &sql, &args)?;
    }
    let (cond, mut args) = scope.condition("s");
    let mut sql = format!(
        "SELECT COUNT(*) FROM warehouse_stock s JOIN products p ON p.id = s.product_id
         WHERE {cond} AND p.active = 1 AND s.quantity <= s.reorder_point"
    );
    and_eq(&mut sql, &mut args, "s.entity_id", entity);
    and_eq(&mut sql, &mut args, "s.location_id", location);
    total += count(conn, &sql, &args)?;
    Ok(total)
}

/// The dashboard's figures for what `scope` sees, optionally of one entity:
/// `totalProducts` (active), `stockValue`, `warehouseCount` (active locations),
/// `lowStockAlertCount`, `inTransitUnits` and `stockValueByCategory`.
pub fn inventory_summary(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
) -> AppResult<Value> {
    let (cond, mut args) = scope.condition("p");
    let mut sql = format!("SELECT COUNT(*) FROM products p WHERE {cond} AND p.active = 1");
    and_eq(&mut sql, &mut args, "p.entity_id", entity);
    let total_products = count(conn, &sql, &args)?;

    let (cond, mut args) = scope.condition("l");
    let mut sql =
        format!("SELECT COUNT(*) FROM warehouse_locations l WHERE {cond} AND l.status = 'active'");
    and_eq(&mut sql, &mut args, "l.entity_id", entity);
    let warehouse_count = count(conn, &sql, &args)?;

    // The valuation's totalCostValue: Σ stock_qty × cost_price over every product
    // (its stock rows plus its unallocated stock), in-transit units excluded.
    let (cond, mut args) = scope.condition("p");
    // The same sum per category, for the dashboard's chart (each category's sum
    // of unrounded values, rounded once).
    let mut sql =
        format!("SELECT p.stock_qty, p.cost_price, p.category FROM products p WHERE {cond}");
    and_eq(&mut sql, &mut args, "p.entity_id", entity);
    let mut stmt = conn.prepare(&sql)?;
    let mut q = stmt.query(params_from_iter(args.iter()))?;
    let mut value = 0_i128;
    let mut by_category: HashMap<String, i128> = HashMap::new();
    while let Some(r) = q.next()? {
        let v = i128::from(r.get::<_, i64>(0)?) * i128::from(r.get::<_, i64>(1)?);
        value += v;
        if v != 0 {
            *by_category.entry(text_col(r, 2)?.to_owned()).or_default() += v;
        }
    }
    drop(q);
    let mut by_category: Vec<(String, i128)> = by_category.into_iter().collect();
    by_category.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let by_category: Vec<Value> = by_category
        .into_iter()
        .map(|(category, v)| json!({ "category": category, "stockValue": number(money(v)) }))
        .collect();

    let alerts = alert_count(conn, scope, entity, None)?;
    let (transit, _) = in_transit(conn, scope, entity, None)?;
    Ok(json!({
        "totalProducts": total_products,
        "stockValue": number(money(value)),
        "warehouseCount": warehouse_count,
        "lowStockAlertCount": alerts,
        "inTransitUnits": number(scaled_decimal(transit, QTY_PLACES)),
        "stockValueByCategory": by_category,
    }))
}

#[get("/inventory/summary?<entityId>")]
#[allow(non_snake_case)]
async fn summary(
    user: SessionUser,
    entityId: Option<String>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let v = db
        .read(move |conn| {
            let entity = scope.entity_opt(conn, "entityId", entityId.as_deref())?;
            inventory_summary(conn, &scope, entity.as_deref())
        })
        .await?;
    Ok(data(v))
}

/// A computed decimal as a JSON number (exact digits, serde_json `arbitrary_precision`).
fn number(d: Decimal) -> Value {
    d.normalize()
        .to_string()
        .parse::<serde_json::Number>()
        .map_or(Value::Null, Value::Number)
}

// ---------------------------------------------------------------------------------------
// Alerts
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AlertLevel {
    Global,
    Location,
}

#[derive(Debug, Clone, Serialize)]
pub struct Alert {
    pub level: AlertLevel,
    pub product_id: ProductBrief,
    pub location_id: Option<LocationBrief>,
    pub quantity: Qty,
    pub threshold: Qty,
}

/// Low-stock alerts of active products (docs/inventory.md#low-stock-alerts): global
/// ones (`stock_qty` at or below `low_stock_threshold`) by product name, then location
/// ones (a stock row's `quantity` at or below its `reorder_point`) by location and
/// product name. With a location, only that location's alerts.
pub fn list_alerts(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<Vec<Alert>> {
    let mut alerts = Vec::new();
    if location.is_none() {
        let (cond, mut args) = scope.condition("p");
        let mut sql = format!(
            "SELECT p.id, p.name, p.sku, p.stock_qty, p.low_stock_threshold FROM products p
             WHERE {cond} AND p.active = 1 AND p.stock_qty <= p.low_stock_threshold"
        );
        and_eq(&mut sql, &mut args, "p.entity_id", entity);
        sql.push_str(" ORDER BY p.name COLLATE NOCASE, p.seq");
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
            Ok(Alert {
                level: AlertLevel::Global,
                product_id: ProductBrief {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    sku: r.get(2)?,
                },
                location_id: None,
                quantity: r.get(3)?,
                threshold: r.get(4)?,
            })
        })?;
        for a in rows {
            alerts.push(a?);
        }
    }
    let (cond, mut args) = scope.condition("s");
    let mut sql = format!(
        "SELECT p.id, p.name, p.sku, l.id, l.name, s.quantity, s.reorder_point
         FROM warehouse_stock s
         JOIN products p ON p.id = s.product_id
         JOIN warehouse_locations l ON l.id = s.location_id
         WHERE {cond} AND p.active = 1 AND s.quantity <= s.reorder_point"
    );
    and_eq(&mut sql, &mut args, "s.entity_id", entity);
    and_eq(&mut sql, &mut args, "s.location_id", location);
    sql.push_str(" ORDER BY l.name COLLATE NOCASE, l.seq, p.name COLLATE NOCASE, p.seq");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
        Ok(Alert {
            level: AlertLevel::Location,
            product_id: ProductBrief {
                id: r.get(0)?,
                name: r.get(1)?,
                sku: r.get(2)?,
            },
            location_id: Some(LocationBrief {
                id: r.get(3)?,
                name: r.get(4)?,
            }),
            quantity: r.get(5)?,
            threshold: r.get(6)?,
        })
    })?;
    for a in rows {
        alerts.push(a?);
    }
    Ok(alerts)
}

#[get("/inventory/alerts?<entityId>&<locationId>")]
#[allow(non_snake_case)]
async fn alerts(
    user: SessionUser,
    entityId: Option<String>,
    locationId: Option<String>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let rows = db
        .read(move |conn| {
            let (entity, location) =
                resolve_filters(conn, &scope, entityId.as_deref(), locationId.as_deref())?;
            list_alerts(conn, &scope, entity.as_deref(), location.as_deref())
        })
        .await?;
    Ok(data(rows))
}

// ---------------------------------------------------------------------------------------
// Per-location figures
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct LocationTotals {
    products: i64,
    units: i128,
    cost: i128,
    retail: i128,
    alerts: i64,
}

/// Per location, inactive ones included, by name: `productCount` (active products with a
/// non-zero quantity there), `totalUnits`, `costValue` and `retailValue` (all stock there,
/// as the valuation restricted to the location shows it), `alertCount` (location alerts
/// of active products).
pub fn location_figures(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
) -> AppResult<Vec<Value>> {
    // The products once, by id, then the stock rows in one pass that finds each row's
    // product in memory: 100,000 products at 5 locations take one read of each table,
    // not 500,000 lookups of a product by its text id.
    let (cond, mut args) = scope.condition("p");
    let mut sql =
        format!("SELECT p.id, p.active, p.cost_price, p.unit_price FROM products p WHERE {cond}");
    and_eq(&mut sql, &mut args, "p.entity_id", entity);
    let mut products: HashMap<String, (bool, i64, i64)> = HashMap::new();
    let mut stmt = conn.prepare(&sql)?;
    let mut q = stmt.query(params_from_iter(args.iter()))?;
    while let Some(r) = q.next()? {
        products.insert(r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?));
    }
    drop(q);
    let (cond, mut args) = scope.condition("s");
    let mut sql = format!(
        "SELECT s.location_id, s.product_id, s.quantity, s.reorder_point
         FROM warehouse_stock s WHERE {cond}"
    );
    and_eq(&mut sql, &mut args, "s.entity_id", entity);
    // A handful of locations: found by a scan, without allocating a key per row.
    let mut by_location: Vec<(String, LocationTotals)> = Vec::new();
    let mut stmt = conn.prepare(&sql)?;
    let mut q = stmt.query(params_from_iter(args.iter()))?;
    while let Some(r) = q.next()? {
        let loc = text_col(r, 0)?;
        let Some(&(active, cost, unit)) = products.get(text_col(r, 1)?) else {
            continue;
        };
        let qty: i64 = r.get(2)?;
        let reorder: i64 = r.get(3)?;
        let i = match by_location.iter().position(|(l, _)| l == loc) {
            Some(i) => i,
            None => {
                by_location.push((loc.to_owned(), LocationTotals::default()));
                by_location.len() - 1
            }
        };
        let t = &mut by_location[i].1;
        t.units += i128::from(qty);
        t.cost += i128::from(qty) * i128::from(cost);
        t.retail += i128::from(qty) * i128::from(unit);
        if active && qty != 0 {
            t.products += 1;
        }
        if active && qty <= reorder {
            t.alerts += 1;
        }
    }
    drop(q);
    let mut totals: HashMap<String, LocationTotals> = by_location.into_iter().collect();

    let (cond, mut args) = scope.condition("l");
    let mut sql = format!("SELECT l.id, l.name, l.status FROM warehouse_locations l WHERE {cond}");
    and_eq(&mut sql, &mut args, "l.entity_id", entity);
    sql.push_str(" ORDER BY l.name COLLATE NOCASE, l.seq");
    let mut stmt = conn.prepare(&sql)?;
    let locations = stmt
        .query_map(params_from_iter(args.iter()), |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(locations
        .into_iter()
        .map(|(id, name, status)| {
            let t = totals.remove(&id).unwrap_or_default();
            json!({
                "location": {"id": id, "name": name, "status": status},
                "productCount": t.products,
                "totalUnits": number(scaled_decimal(t.units, QTY_PLACES)),
                "costValue": number(money(t.cost)),
                "retailValue": number(money(t.retail)),
                "alertCount": t.alerts,
            })
        })
        .collect())
}

#[get("/inventory/locations?<entityId>")]
#[allow(non_snake_case)]
async fn locations(
    user: SessionUser,
    entityId: Option<String>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let rows = db
        .read(move |conn| {
            let entity = scope.entity_opt(conn, "entityId", entityId.as_deref())?;
            location_figures(conn, &scope, entity.as_deref())
        })
        .await?;
    Ok(data(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: i128, places: u32) -> String {
        let mut out = Vec::new();
        push_scaled(&mut out, v, places);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn scaled_integers_are_written_without_trailing_zeros() {
        assert_eq!(text(0, 3), "0");
        assert_eq!(text(1250, 3), "1.25");
        assert_eq!(text(-5, 2), "-0.05");
        assert_eq!(text(10_000, 4), "1");
        assert_eq!(text(1_000_001, 4), "100.0001");
        assert_eq!(text(-120_000, 4), "-12");
        // Beyond 64 bits (10^12 units at a price of 10^12): the 128-bit path.
        let big = 10_i128.pow(31) + 5;
        assert_eq!(text(big, 7), "1000000000000000000000000.0000005");
        assert_eq!(text(-big, 7), "-1000000000000000000000000.0000005");
        assert_eq!(text(i128::from(i64::MAX) + 1, 2), "92233720368547758.08");
    }

    #[test]
    fn the_64_bit_and_128_bit_rounding_paths_agree() {
        for v in [
            0_i128,
            1,
            49,
            50,
            51,
            99_999,
            -49,
            -50,
            -51,
            123_456_789_012_345,
        ] {
            let wide = v * 10_i128.pow(20);
            // Scaling up by 10^20 and rounding 20 more places gives the same answer.
            assert_eq!(round_scaled(v, 7, 2), round_scaled(wide, 27, 2), "{v}");
        }
        assert_eq!(round_scaled(50, 2, 0), 1);
        assert_eq!(round_scaled(-50, 2, 0), -1);
        assert_eq!(round_scaled(49, 2, 0), 0);
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(round_scaled(1_250_000, 7, 2), 13);
        assert_eq!(round_scaled(1_249_999, 7, 2), 12);
        assert_eq!(round_scaled(-1_250_000, 7, 2), -13);
        assert_eq!(round_scaled(-1_249_999, 7, 2), -12);
        assert_eq!(round_scaled(0, 7, 2), 0);
    }

    #[test]
    fn margin_is_zero_without_a_unit_price() {
        assert_eq!(margin(0, 5), Decimal::ZERO);
        assert_eq!(margin(20_000, 15_000), Decimal::from(25));
        assert_eq!(
            margin(100_000_000, 100_000_001).to_string().chars().next(),
            Some('-')
        );
        // A negative margin that rounds to zero shows as 0, not -0.
        assert_eq!(round2(margin(100_000_000, 100_000_001)).to_string(), "0");
    }
}
