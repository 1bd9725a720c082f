//! Entities (businesses): `GET/POST/PUT/DELETE /api/entities` (DECISIONS §1).
//!
//! An entity belongs to the user who created it. Creating one also creates the standard
//! UK expense categories. DELETE is refused (409) while the entity holds any record other
//! than those standard categories: every record table references `entities(id)`, so the
//! foreign key itself finds a remaining record.
//!
//! `default_location_id` (nullable, set by PUT) is a location of the entity: new invoices
//! and bills that name no location take it (DECISIONS §13).

use rocket::serde::json::Json;
use rocket::{delete, get, post, put, routes, FromForm, Route, State};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::auth::SessionUser;
use crate::clock::{rfc3339, Clock};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{nullable, parse_id, JsonBody};
use crate::http::paging::ListQuery;
use crate::http::{required_text, Created};
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![list, create, update, remove]
}

#[derive(Debug, Clone, Serialize)]
pub struct Entity {
    pub id: String,
    pub name: String,
    pub vat_number: Option<String>,
    pub address: Option<String>,
    pub currency: String,
    pub default_location_id: Option<String>,
    pub created_at: String,
}

const COLUMNS: &str = "id, name, vat_number, address, currency, created_at, default_location_id";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Entity> {
    Ok(Entity {
        id: r.get(0)?,
        name: r.get(1)?,
        vat_number: r.get(2)?,
        address: r.get(3)?,
        currency: r.get(4)?,
        default_location_id: r.get(6)?,
        created_at: r.get(5)?,
    })
}

/// The standard expense categories created with every entity: HMRC's allowable-expense
/// groups for the self-employed and small companies, with nominal codes.
pub const STANDARD_EXPENSE_CATEGORIES: &[(&str, &str)] = &[
    ("5000", "Cost of goods sold"),
    ("6100", "Advertising and marketing"),
    ("7000", "Staff costs"),
    ("7100", "Rent and rates"),
    ("7200", "Utilities"),
    ("7300", "Vehicle and travel"),
    ("7400", "Travel and subsistence"),
    ("7500", "Office costs and stationery"),
    ("7550", "Telephone and internet"),
    ("7600", "Legal and professional fees"),
    ("7700", "Repairs and maintenance"),
    ("7800", "Insurance"),
    ("7900", "Bank charges and interest"),
    ("8000", "Subscriptions"),
    ("8100", "Training"),
    ("8200", "Entertainment (not allowable)"),
    ("8300", "Depreciation"),
    ("8900", "Other expenses"),
];

pub fn get_owned(conn: &Connection, owner: &str, id: &str) -> AppResult<Entity> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM entities WHERE id = ?1 AND owner_id = ?2"),
        [id, owner],
        from_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found(format!("Entity not found: {id}")))
}

pub fn create_entity(
    tx: &Transaction,
    owner: &str,
    name: String,
    vat_number: Option<String>,
    address: Option<String>,
    now: &str,
) -> AppResult<Entity> {
    let e = Entity {
        id: uuid::Uuid::new_v4().to_string(),
        name,
        vat_number,
        address,
        currency: "GBP".into(),
        default_location_id: None,
        created_at: now.to_owned(),
    };
    tx.execute(
        "INSERT INTO entities (id, owner_id, name, vat_number, address, currency, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'GBP', ?6)",
        params![e.id, owner, e.name, e.vat_number, e.address, e.created_at],
    )?;
    let mut stmt = tx.prepare(
        "INSERT INTO expense_categories (id, owner_id, entity_id, name, code, standard, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)",
    )?;
    for (code, cat) in STANDARD_EXPENSE_CATEGORIES {
        stmt.execute(params![
            uuid::Uuid::new_v4().to_string(),
            owner,
            e.id,
            cat,
            code,
            now
        ])?;
    }
    Ok(e)
}

/// Query of `GET /api/entities`: paging, and the `entityId` filter every §4 list takes
/// (here it narrows the list to that one entity; a foreign or unknown id is a 404).
#[derive(Debug, Default, FromForm)]
struct EntityQuery {
    #[field(name = "entityId")]
    entity_id: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
}

#[get("/entities?<q..>")]
async fn list(user: SessionUser, q: EntityQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = ListQuery {
        limit: q.limit,
        offset: q.offset,
    }
    .page()?;
    let scope = Scope::user(user.id());
    let filter = q.entity_id;
    let rows = db
        .read(move |conn| {
            let only = scope.entity_opt(conn, "entityId", filter.as_deref())?;
            let mut stmt = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM entities WHERE owner_id = ?1 AND (?2 IS NULL OR id = ?2)
                 ORDER BY name COLLATE NOCASE, seq LIMIT ?3 OFFSET ?4"
            ))?;
            let rows = stmt
                .query_map(
                    params![scope.owner_id, only, page.sql_limit(), page.offset],
                    from_row,
                )?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await?;
    Ok(Json(json!({ "data": rows })))
}

#[derive(Deserialize)]
struct CreateBody {
    name: String,
    #[serde(default)]
    vat_number: Option<String>,
    #[serde(default)]
    address: Option<String>,
}

#[post("/entities", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<CreateBody>,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<Created<Value>> {
    let b = body.into_inner();
    let name = required_text("name", &b.name)?;
    let now = rfc3339(clock.now());
    let owner = user.user.id;
    let e = db
        .write(move |tx| create_entity(tx, &owner, name, b.vat_number, b.address, &now))
        .await?;
    Ok(Created(json!(e)))
}

#[derive(Deserialize)]
struct UpdateBody {
    id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    vat_number: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    address: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    default_location_id: Option<Option<String>>,
}

/// A location of entity `entity` owned by `owner`: 400 when not a UUID, 404 when unknown
/// or another user's, 400 when of another entity.
fn entity_location(conn: &Connection, owner: &str, entity: &str, raw: &str) -> AppResult<String> {
    let id = parse_id("default_location_id", raw)?;
    let found: Option<String> = conn
        .query_row(
            "SELECT entity_id FROM warehouse_locations WHERE id = ?1 AND owner_id = ?2",
            [&id, owner],
            |r| r.get(0),
        )
        .optional()?;
    match found {
        None => Err(AppError::not_found(format!("Location not found: {id}"))),
        Some(e) if e != entity => Err(AppError::invalid(
            "default_location_id",
            "must be a location of this entity",
        )),
        Some(_) => Ok(id),
    }
}

#[put("/entities", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<UpdateBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let b = body.into_inner();
    let id = parse_id("id", &b.id)?;
    let name = b
        .name
        .as_deref()
        .map(|n| required_text("name", n))
        .transpose()?;
    let owner = user.user.id;
    let e = db
        .write(move |tx| {
            let mut e = get_owned(tx, &owner, &id)?;
            if let Some(n) = name {
                e.name = n;
            }
            if let Some(v) = b.vat_number {
                e.vat_number = v;
            }
            if let Some(a) = b.address {
                e.address = a;
            }
            if let Some(l) = b.default_location_id {
                e.default_location_id = match l.as_deref().map(str::trim).filter(|s| !s.is_empty())
                {
                    Some(raw) => Some(entity_location(tx, &owner, &e.id, raw)?),
                    None => None,
                };
            }
            tx.execute(
                "UPDATE entities SET name = ?1, vat_number = ?2, address = ?3,
                     default_location_id = ?5
                 WHERE id = ?4",
                params![e.name, e.vat_number, e.address, e.id, e.default_location_id],
            )?;
            Ok(e)
        })
        .await?;
    Ok(Json(json!({ "data": e })))
}

#[derive(Deserialize)]
struct IdBody {
    id: String,
}

#[delete("/entities", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let id = parse_id("id", &body.id)?;
    let owner = user.user.id;
    db.write(move |tx| {
        get_owned(tx, &owner, &id)?;
        tx.execute(
            "DELETE FROM expense_categories WHERE entity_id = ?1 AND standard = 1",
            [&id],
        )
        .map_err(in_use)?;
        tx.execute("DELETE FROM entities WHERE id = ?1", [&id])
            .map_err(in_use)?;
        Ok(())
    })
    .await?;
    Ok(Json(json!({ "data": { "success": true } })))
}

fn in_use(e: rusqlite::Error) -> AppError {
    match AppError::from(e) {
        AppError::Conflict(_) => {
            AppError::conflict("Entity still holds records; delete them first")
        }
        other => other,
    }
}
