//! Low-stock alerts (docs/inventory.md#low-stock-alerts): the [`Alert`] record the report
//! lists and the `stock.low` webhook event carries, the conditions that raise one (listed
//! and counted), and `GET /api/inventory/alerts`.

use rocket::serde::json::Json;
use rocket::{get, routes, Route, State};
use rusqlite::{params_from_iter, Connection};
use serde::Serialize;
use serde_json::Value;

use super::filters::resolve_filters;
use super::lookup::and_eq;
use super::stock_rows::{LocationBrief, ProductBrief};
use crate::auth::SessionUser;
use crate::db::damage;
use crate::db::decimal::Qty;
use crate::db::Db;
use crate::error::AppResult;
use crate::http::data;
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![alerts]
}

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
        let (cond, mut args) = scope.condition(conn, "p");
        let mut sql = format!(
            "SELECT p.id, p.name, p.sku, p.stock_qty, p.low_stock_threshold FROM products p
             WHERE {cond} AND p.active = 1 AND p.stock_qty <= p.low_stock_threshold"
        );
        and_eq(&mut sql, &mut args, "p.entity_id", entity);
        sql.push_str(" ORDER BY p.name COLLATE NOCASE, p.seq");
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query_map(
            params_from_iter(args.iter()),
            damage::named(|r| {
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
            }),
        )?;
        for a in rows {
            alerts.push(a?);
        }
    }
    let (cond, mut args) = scope.condition(conn, "s");
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
    let rows = stmt.query_map(
        params_from_iter(args.iter()),
        damage::named(|r| {
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
        }),
    )?;
    for a in rows {
        alerts.push(a?);
    }
    Ok(alerts)
}

/// Alerts of both levels, counted with the same conditions [`list_alerts`] uses.
pub fn count_alerts(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<i64> {
    let mut total = 0;
    if location.is_none() {
        let (cond, mut args) = scope.condition(conn, "p");
        let mut sql = format!(
            "SELECT COUNT(*) FROM products p WHERE {cond} AND p.active = 1
                 AND p.stock_qty <= p.low_stock_threshold"
        );
        and_eq(&mut sql, &mut args, "p.entity_id", entity);
        total += conn.query_row(&sql, params_from_iter(args.iter()), |r| r.get::<_, i64>(0))?;
    }
    let (cond, mut args) = scope.condition(conn, "s");
    let mut sql = format!(
        "SELECT COUNT(*) FROM warehouse_stock s JOIN products p ON p.id = s.product_id
         WHERE {cond} AND p.active = 1 AND s.quantity <= s.reorder_point"
    );
    and_eq(&mut sql, &mut args, "s.entity_id", entity);
    and_eq(&mut sql, &mut args, "s.location_id", location);
    total += conn.query_row(&sql, params_from_iter(args.iter()), |r| r.get::<_, i64>(0))?;
    Ok(total)
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
