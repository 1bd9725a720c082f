//! Entities (businesses): `GET/POST/PUT/DELETE /api/entities` (docs/auth.md#entities).
//!
//! An entity belongs to the user who created it. Creating one also creates the standard
//! UK expense categories. DELETE is refused (409) while the entity holds any record other
//! than those standard categories: every record table references `entities(id)`, so the
//! foreign key itself finds a remaining record.
//!
//! `default_location_id` (nullable, set by PUT) is a location of the entity: new invoices
//! and bills that name no location take it (docs/documents-stock.md#the-one-rule).
//!
//! `lock_date` (nullable, set by PUT, not after today): nothing dated on or before it may
//! be written ([`lock`], docs/accounting.md#lock-date); never moved back before the end of a
//! filed VAT return (docs/vat.md#filed-returns).

use rocket::serde::json::Json;
use rocket::{delete, get, post, put, routes, FromForm, Route, State};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::Percent;
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{nullable, parse_id, IdBody, JsonBody};
use crate::http::paging::{ListQuery, Page};
use crate::http::{required_text, Created};
use crate::scope::{Cap, Scope};

pub mod lock;
pub mod logo;
pub mod openapi;
pub mod vat_settings;

pub fn routes() -> Vec<Route> {
    [routes![list, create, update, remove], logo::routes()].concat()
}

#[derive(Debug, Clone, Serialize)]
pub struct Entity {
    pub id: String,
    pub name: String,
    pub vat_number: Option<String>,
    pub address: Option<String>,
    pub currency: String,
    pub default_location_id: Option<String>,
    /// Nothing dated on or before it may be written (docs/accounting.md#lock-date).
    pub lock_date: Option<String>,
    /// The VAT settings (docs/vat.md#the-entitys-vat-settings).
    pub vat_registered_from: Option<String>,
    pub vat_scheme: String,
    pub flat_rate_percent: Option<Percent>,
    /// Its members must sign in with a second factor (docs/auth.md#requiring-two-factor).
    pub require_2fa: bool,
    pub created_at: String,
    /// The caller's role in it, in lists (docs/auth.md#members-and-roles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

const COLUMNS: &str = "id, name, vat_number, address, currency, created_at, default_location_id, \
    lock_date, vat_registered_from, vat_scheme, flat_rate_percent, require_2fa";

/// How many columns [`COLUMNS`] names.
const COLUMN_COUNT: usize = 12;

fn from_row(r: &Row<'_>) -> rusqlite::Result<Entity> {
    Ok(Entity {
        id: r.get(0)?,
        name: r.get(1)?,
        vat_number: r.get(2)?,
        address: r.get(3)?,
        currency: r.get(4)?,
        default_location_id: r.get(6)?,
        lock_date: r.get(7)?,
        vat_registered_from: r.get(8)?,
        vat_scheme: r.get(9)?,
        flat_rate_percent: r.get(10)?,
        require_2fa: r.get(11)?,
        created_at: r.get(5)?,
        role: None,
    })
}

/// The standard expense categories created with every entity: HMRC's allowable-expense
/// groups for the self-employed and small companies, with nominal codes, and the VAT
/// treatment their expenses take by default (docs/accounting.md#vat-treatment): staff
/// costs (wages, PAYE/NI), business rates and other taxes are outside the scope of VAT,
/// insurance and bank charges exempt; rent has none (it may be exempt or standard-rated,
/// as the landlord chose). Migration V21 gives existing entities' standard categories
/// their treatments.
pub const STANDARD_EXPENSE_CATEGORIES: &[(&str, &str, Option<&str>)] = &[
    ("5000", "Cost of goods sold", None),
    ("6100", "Advertising and marketing", None),
    ("7000", "Staff costs", Some("outside_scope")),
    ("7100", "Rent", None),
    ("7103", "Business rates", Some("outside_scope")),
    ("7200", "Utilities", None),
    ("7300", "Vehicle and travel", None),
    ("7400", "Travel and subsistence", None),
    ("7500", "Office costs and stationery", None),
    ("7550", "Telephone and internet", None),
    ("7600", "Legal and professional fees", None),
    ("7700", "Repairs and maintenance", None),
    ("7800", "Insurance", Some("exempt")),
    ("7900", "Bank charges and interest", Some("exempt")),
    ("8000", "Subscriptions", None),
    ("8100", "Training", None),
    ("8200", "Entertainment (not allowable)", None),
    ("8300", "Depreciation", None),
    ("8400", "Other taxes and duties", Some("outside_scope")),
    ("8900", "Other expenses", None),
];

/// Entity `id`, when the caller may `cap` in it (404 or 403 otherwise, by [`Scope::require`]).
/// It carries the caller's role, as the list does.
pub fn get_as(conn: &Connection, scope: &Scope, id: &str, cap: Cap) -> AppResult<Entity> {
    scope.require(conn, id, cap)?;
    let mut e = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM entities WHERE id = ?1"),
            [id],
            damage::named(from_row),
        )
        .optional()?
        .ok_or_else(|| AppError::not_found(format!("Entity not found: {id}")))?;
    e.role = crate::scope::access::role_in(conn, &scope.actor_id, id)?
        .and_then(|(_, role)| role)
        .map(|r| r.as_str().to_owned());
    Ok(e)
}

/// The body of a create (`POST /api/entities`).
#[derive(Debug, Deserialize)]
pub struct NewEntity {
    pub name: String,
    #[serde(default)]
    pub vat_number: Option<String>,
    #[serde(default)]
    pub address: Option<String>,
    #[serde(default)]
    pub vat_registered_from: Option<String>,
    #[serde(default)]
    pub vat_scheme: Option<String>,
    #[serde(default)]
    pub flat_rate_percent: Option<Percent>,
}

/// Creates an entity of `owner` with the standard expense categories.
pub fn create_entity(tx: &Transaction, owner: &str, b: NewEntity, ctx: &Ctx) -> AppResult<Entity> {
    let vat_number = match b.vat_number.as_deref().map(str::trim) {
        Some(raw) if !raw.is_empty() => Some(vat_settings::parse_vat_number(raw)?),
        _ => None,
    };
    let e = Entity {
        id: uuid::Uuid::new_v4().to_string(),
        name: required_text("name", &b.name)?,
        vat_number,
        address: b.address,
        currency: "GBP".into(),
        default_location_id: None,
        lock_date: None,
        vat_registered_from: registration_date(b.vat_registered_from.as_deref())?,
        vat_scheme: b
            .vat_scheme
            .as_deref()
            .map_or(Ok("standard"), vat_settings::parse_scheme)?
            .to_string(),
        flat_rate_percent: b
            .flat_rate_percent
            .map(vat_settings::parse_flat_rate)
            .transpose()?,
        require_2fa: false,
        created_at: ctx.now.clone(),
        // Its creator is its first owner (migrations/V27__members.sql).
        role: Some("owner".into()),
    };
    vat_settings::check_settings(&e.vat_scheme, e.flat_rate_percent)?;
    tx.execute(
        "INSERT INTO entities (id, owner_id, name, vat_number, address, currency, created_at,
             vat_registered_from, vat_scheme, flat_rate_percent)
         VALUES (?1, ?2, ?3, ?4, ?5, 'GBP', ?6, ?7, ?8, ?9)",
        params![
            e.id,
            owner,
            e.name,
            e.vat_number,
            e.address,
            e.created_at,
            e.vat_registered_from,
            e.vat_scheme,
            e.flat_rate_percent
        ],
    )?;
    let mut stmt = tx.prepare(
        "INSERT INTO expense_categories (id, owner_id, entity_id, name, code, standard, created_at,
             vat_treatment, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?6)",
    )?;
    for (code, cat, treatment) in STANDARD_EXPENSE_CATEGORIES {
        stmt.execute(params![
            uuid::Uuid::new_v4().to_string(),
            owner,
            e.id,
            cat,
            code,
            ctx.now,
            treatment
        ])?;
    }
    Ok(e)
}

/// A sent `vat_registered_from`: a date, or null/blank for none.
fn registration_date(raw: Option<&str>) -> AppResult<Option<String>> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => Ok(Some(
            crate::http::body::parse_date("vat_registered_from", raw)?.to_string(),
        )),
        None => Ok(None),
    }
}

/// The entities `user` is a member of by name, each with their role, or only `only`
/// when given (docs/auth.md#members-and-roles).
pub fn list_entities(
    conn: &Connection,
    user: &str,
    only: Option<&str>,
    page: Page,
) -> AppResult<Vec<Entity>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS}, (SELECT role FROM members m
                            WHERE m.entity_id = entities.id AND m.user_id = ?1)
         FROM entities
         WHERE id IN (SELECT entity_id FROM members WHERE user_id = ?1)
           AND (?2 IS NULL OR id = ?2)
         ORDER BY name COLLATE NOCASE, seq LIMIT ?3 OFFSET ?4"
    ))?;
    let rows = stmt
        .query_map(
            params![user, only, page.sql_limit(), page.offset],
            damage::named(|r| {
                let mut e = from_row(r)?;
                // After the entity's own columns.
                e.role = r.get(COLUMN_COUNT)?;
                Ok(e)
            }),
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The body of a PUT: each field optional; `vat_number` and `address` may be set to null.
#[derive(Debug, Default, Deserialize)]
pub struct EntityUpdate {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub vat_number: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub address: Option<Option<String>>,
    /// A location of this entity, or null for none (docs/documents-stock.md#the-one-rule).
    #[serde(default, deserialize_with = "nullable")]
    pub default_location_id: Option<Option<String>>,
    /// `YYYY-MM-DD`, not after today, or null for none (docs/accounting.md#lock-date).
    #[serde(default, deserialize_with = "nullable")]
    pub lock_date: Option<Option<String>>,
    /// The VAT settings (docs/vat.md#the-entitys-vat-settings).
    #[serde(default, deserialize_with = "nullable")]
    pub vat_registered_from: Option<Option<String>>,
    #[serde(default)]
    pub vat_scheme: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub flat_rate_percent: Option<Option<Percent>>,
    /// Members must sign in with a second factor; only an owner who has it may turn
    /// it on (docs/auth.md#requiring-two-factor).
    #[serde(default)]
    pub require_2fa: Option<bool>,
}

impl EntityUpdate {
    /// Whether the body moves the lock date and nothing else.
    fn lock_date_alone(&self) -> bool {
        self.lock_date.is_some()
            && self.name.is_none()
            && self.vat_number.is_none()
            && self.address.is_none()
            && self.default_location_id.is_none()
            && self.vat_registered_from.is_none()
            && self.vat_scheme.is_none()
            && self.flat_rate_percent.is_none()
            && self.require_2fa.is_none()
    }
}

/// Applies a PUT to an entity and returns the whole entity. The settings are the
/// owner's; an accountant may send `lock_date` alone (docs/auth.md#members-and-roles).
pub fn update_entity(
    tx: &Transaction,
    scope: &Scope,
    b: EntityUpdate,
    ctx: &Ctx,
) -> AppResult<Entity> {
    let id = parse_id("id", &b.id)?;
    let name = b
        .name
        .as_deref()
        .map(|n| required_text("name", n))
        .transpose()?;
    let cap = if b.lock_date_alone() {
        Cap::Vat
    } else {
        Cap::Owner
    };
    let mut e = get_as(tx, scope, &id, cap)?;
    let owner = scope.owner_for(tx, Some(&id))?;
    let owner = owner.as_str();
    if let Some(n) = name {
        e.name = n;
    }
    if let Some(v) = b.vat_number {
        e.vat_number = match v.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(raw) => Some(vat_settings::parse_vat_number(raw)?),
            None => None,
        };
    }
    if let Some(d) = b.vat_registered_from {
        e.vat_registered_from = registration_date(d.as_deref())?;
    }
    if let Some(s) = b.vat_scheme {
        e.vat_scheme = vat_settings::parse_scheme(&s)?.to_string();
    }
    if let Some(p) = b.flat_rate_percent {
        e.flat_rate_percent = p.map(vat_settings::parse_flat_rate).transpose()?;
    }
    vat_settings::check_settings(&e.vat_scheme, e.flat_rate_percent)?;
    if let Some(a) = b.address {
        e.address = a;
    }
    if let Some(l) = b.default_location_id {
        e.default_location_id = match l.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(raw) => Some(entity_location(tx, owner, &e.id, raw)?),
            None => None,
        };
    }
    if let Some(l) = b.lock_date {
        let date = match l.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(raw) => {
                let date = crate::http::body::parse_date("lock_date", raw)?;
                lock::check_new_lock_date(date, ctx.today)?;
                Some(date)
            }
            None => None,
        };
        lock::check_not_before_filed(tx, &e.id, date)?;
        e.lock_date = date.map(|d| d.to_string());
    }
    if let Some(on) = b.require_2fa {
        if on && !e.require_2fa && !crate::mfa::has_two_factor(tx, scope.actor())? {
            return Err(AppError::conflict(
                "Turn on two-factor sign-in for yourself before requiring it of members",
            ));
        }
        e.require_2fa = on;
    }
    tx.execute(
        "UPDATE entities SET name = ?1, vat_number = ?2, address = ?3,
             default_location_id = ?5, lock_date = ?6, vat_registered_from = ?7,
             vat_scheme = ?8, flat_rate_percent = ?9, require_2fa = ?10
         WHERE id = ?4",
        params![
            e.name,
            e.vat_number,
            e.address,
            e.id,
            e.default_location_id,
            e.lock_date,
            e.vat_registered_from,
            e.vat_scheme,
            e.flat_rate_percent,
            e.require_2fa
        ],
    )?;
    Ok(e)
}

/// Deletes an entity (its owners only) that holds nothing but its standard expense
/// categories and its members (409 otherwise).
pub fn delete_entity(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    get_as(tx, scope, id, Cap::Owner)?;
    tx.execute("DELETE FROM members WHERE entity_id = ?1", [id])?;
    tx.execute(
        "DELETE FROM expense_categories WHERE entity_id = ?1 AND standard = 1",
        [id],
    )
    .map_err(in_use)?;
    tx.execute("DELETE FROM entities WHERE id = ?1", [id])
        .map_err(in_use)?;
    Ok(())
}

fn in_use(e: rusqlite::Error) -> AppError {
    match AppError::in_use(e) {
        AppError::Conflict(_) => {
            AppError::refused("in_use", "Entity still holds records; delete them first")
        }
        other => other,
    }
}

/// Query of `GET /api/entities`: paging, and the `entityId` filter every list of
/// docs/conventions.md#lists takes (here it narrows the list to that one entity; a foreign or
/// unknown id is a 404).
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
    let scope = user.scope();
    let filter = q.entity_id;
    let rows = db
        .read(move |conn| {
            let only = scope.entity_opt(conn, "entityId", filter.as_deref())?;
            list_entities(conn, &scope.actor_id, only.as_deref(), page)
        })
        .await?;
    Ok(Json(json!({ "data": rows })))
}

#[post("/entities", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<NewEntity>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Value>> {
    let b = body.into_inner();
    let owner = user.user.id;
    let e = db
        .write_as(owner.clone(), move |tx| create_entity(tx, &owner, b, &ctx))
        .await?;
    Ok(Created(json!(e)))
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
    body: JsonBody<EntityUpdate>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let b = body.into_inner();
    let scope = user.scope();
    let e = db
        .write_as(scope.actor().to_owned(), move |tx| {
            update_entity(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(Json(json!({ "data": e })))
}

#[delete("/entities", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let id = body.id()?;
    let scope = user.scope();
    db.write_as(scope.actor().to_owned(), move |tx| {
        delete_entity(tx, &scope, &id)
    })
    .await?;
    Ok(Json(json!({ "data": { "success": true } })))
}
