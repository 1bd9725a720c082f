//! Warehouse locations: `/api/warehouse-locations` (docs/inventory.md#locations).
//!
//! `name` is required on create as well as `entity_id` (a location is shown by its name
//! everywhere). DELETE is refused while anything references the location: its stock rows,
//! movements, transfer orders or stock takes (the foreign keys find them).

use rocket::serde::json::Json;
use rocket::{delete, post, put, routes, Route, State};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::lookup::and_eq;
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, nullable, parse_id, IdBody, JsonBody};
use crate::http::paging::ListQuery;
use crate::http::{data, required_text, Created};
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![list, create, update, remove]
}

#[derive(Debug, Clone, Serialize)]
pub struct Location {
    pub id: String,
    pub name: String,
    pub address: Option<String>,
    pub status: String,
    pub entity_id: String,
    pub created_at: String,
    pub updated_at: String,
}

const COLUMNS: &str = "id, name, address, status, entity_id, created_at, updated_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Location> {
    Ok(Location {
        id: r.get(0)?,
        name: r.get(1)?,
        address: r.get(2)?,
        status: r.get(3)?,
        entity_id: r.get(4)?,
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
    })
}

pub fn get_location(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Location> {
    let (cond, mut args) = scope.condition(conn, "");
    args.insert(0, id.to_owned());
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM warehouse_locations WHERE id = ? AND {cond}"),
        params_from_iter(args.iter()),
        damage::named(from_row),
    )
    .optional()?
    .ok_or_else(|| {
        let missing = AppError::not_found(format!("Location not found: {id}"));
        scope.unseen(conn, "warehouse_locations", id, missing)
    })
}

/// Locations visible to `scope` (optionally of one entity), by name.
pub fn list_locations(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    updated_since: Option<&str>,
    limit: i64,
    offset: i64,
) -> AppResult<Vec<Location>> {
    let (cond, mut args) = scope.condition(conn, "");
    let mut sql = format!("SELECT {COLUMNS} FROM warehouse_locations WHERE {cond}");
    and_eq(&mut sql, &mut args, "entity_id", entity);
    if let Some(since) = updated_since {
        sql.push_str(" AND updated_at >= ?");
        args.push(since.to_owned());
    }
    sql.push_str(&format!(
        " ORDER BY name COLLATE NOCASE, seq LIMIT {limit} OFFSET {offset}"
    ));
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(args.iter()), damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The body of a create (`POST /api/warehouse-locations`).
#[derive(Debug, Deserialize)]
pub struct NewLocation {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub address: Option<String>,
    pub entity_id: String,
    #[serde(default)]
    pub status: Option<String>,
}

/// A location status: `active` or `inactive` (400 otherwise).
pub fn check_status(s: &str) -> AppResult<String> {
    match s {
        "active" | "inactive" => Ok(s.to_owned()),
        _ => Err(AppError::invalid(
            "status",
            "must be `active` or `inactive`",
        )),
    }
}

/// Creates a location of an entity of the caller's: a name is required, `status` is
/// `active` (the default) or `inactive`.
pub fn create_location(
    tx: &Transaction,
    scope: &Scope,
    b: NewLocation,
    ctx: &Ctx,
) -> AppResult<Location> {
    let name = required_text("name", b.name.as_deref().unwrap_or(""))?;
    let status = check_status(b.status.as_deref().unwrap_or("active"))?;
    let entity = scope.entity(tx, "entity_id", &b.entity_id)?;
    let id = uuid::Uuid::new_v4().to_string();
    tx.execute(
        "INSERT INTO warehouse_locations (id, owner_id, entity_id, name, address, status, created_at,
             updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
        params![
            id,
            scope.owner_for(tx, Some(&entity))?,
            entity,
            name,
            clean(b.address),
            status,
            ctx.now
        ],
    )?;
    get_location(tx, scope, &id)
}

/// The body of a PUT: each field optional; a null or blank address clears it.
#[derive(Debug, Default, Deserialize)]
pub struct LocationUpdate {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub address: Option<Option<String>>,
    #[serde(default)]
    pub status: Option<String>,
}

/// Applies a PUT and returns the whole location. Deactivating (`status: inactive`) is
/// always allowed: an inactive location keeps its stock, refuses new stock changes and
/// new documents, and lets documents already under way finish.
pub fn update_location(
    tx: &Transaction,
    scope: &Scope,
    b: LocationUpdate,
    ctx: &Ctx,
) -> AppResult<Location> {
    let id = parse_id("id", &b.id)?;
    let name = b
        .name
        .as_deref()
        .map(|n| required_text("name", n))
        .transpose()?;
    let status = b.status.as_deref().map(check_status).transpose()?;
    let mut l = get_location(tx, scope, &id)?;
    if let Some(n) = name {
        l.name = n;
    }
    if let Some(a) = b.address {
        l.address = clean(a);
    }
    if let Some(s) = status {
        l.status = s;
    }
    tx.execute(
        "UPDATE warehouse_locations SET name = ?1, address = ?2, status = ?3, updated_at = ?5
         WHERE id = ?4",
        params![l.name, l.address, l.status, l.id, ctx.now],
    )?;
    Ok(l)
}

/// Deletes a location nothing refers to (409 otherwise: deactivate it instead).
pub fn delete_location(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    let l = get_location(tx, scope, id)?;
    let used: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM warehouse_stock WHERE location_id = ?1)
             OR EXISTS (SELECT 1 FROM stock_movements WHERE location_id = ?1)
             OR EXISTS (SELECT 1 FROM transfer_orders
                        WHERE source_location_id = ?1 OR destination_location_id = ?1)
             OR EXISTS (SELECT 1 FROM stock_takes WHERE location_id = ?1)",
        [id],
        |r| r.get(0),
    )?;
    if used {
        return Err(AppError::refused(
            "in_use",
            format!(
                "Location {} is in use by stock, movements, transfer orders or stock takes; \
             deactivate it instead",
                l.name
            ),
        ));
    }
    tx.execute("DELETE FROM warehouse_locations WHERE id = ?1", [id])
        .map_err(AppError::in_use)?;
    Ok(())
}

#[rocket::get("/warehouse-locations?<entityId>&<q..>")]
#[allow(non_snake_case)]
async fn list(
    user: SessionUser,
    entityId: Option<String>,
    q: ListQuery,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let page = q.page()?;
    let scope = user.scope();
    let rows = db
        .read(move |conn| {
            let entity = scope.entity_opt(conn, "entityId", entityId.as_deref())?;
            list_locations(
                conn,
                &scope,
                entity.as_deref(),
                None,
                page.sql_limit(),
                page.offset,
            )
        })
        .await?;
    Ok(data(rows))
}

#[post("/warehouse-locations", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<NewLocation>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Location>> {
    let scope = user.scope();
    let b = body.into_inner();
    let loc = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create_location(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(Created(loc))
}

#[put("/warehouse-locations", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<LocationUpdate>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let b = body.into_inner();
    let loc = db
        .write_as(scope.actor().to_owned(), move |tx| {
            update_location(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(data(loc))
}

#[delete("/warehouse-locations", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let id = body.id()?;
    db.write_as(scope.actor().to_owned(), move |tx| {
        delete_location(tx, &scope, &id)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}
