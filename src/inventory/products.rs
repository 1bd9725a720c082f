//! Products: `/api/products` (docs/inventory.md#products,
//! docs/inventory.md#product-stock).
//!
//! `stock_qty` is never written directly: on create it becomes an opening `adjustment`
//! movement without location, and a PUT of `stock_qty` records an unallocated
//! `adjustment` for the difference, both through the ledger.

use std::collections::HashMap;

use rocket::futures::Stream;
use rocket::serde::json::Json;
use rocket::Either;
use rocket::{delete, get, post, put, routes, FromForm, Route, State};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ledger::{self, MovementType, NewMovement, Origin};
use super::lookup::{check_takes_stock, location_ref, product_ref, LocationRef};
use super::stock_rows::{self, StockRow};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::{Percent, Price, Qty};
use crate::db::ident::compare_key;
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, nullable, parse_id, IdBody, JsonBody};
use crate::http::paging::{parse_page, Order};
use crate::http::stream::{stream_json, ChunkWriter, JsonStream, Sink, CHUNK};
use crate::http::{data, data_bytes, required_text, Created, JsonBytes};
use crate::scope::Scope;
use crate::vat::{self, Treatment};

pub fn routes() -> Vec<Route> {
    routes![list, create, update, remove]
}

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
    /// docs/accounting.md#vat-treatment
    pub vat_treatment: Treatment,
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
    pub stock_levels: Vec<StockRow>,
}

const COLUMNS: &str = "p.id, p.name, p.sku, p.description, p.category, p.unit_price, p.cost_price,
    p.vat_rate, p.stock_qty, p.low_stock_threshold, p.unit, p.notes, p.barcode, p.active,
    p.provider, p.provider_ref, p.entity_id, p.created_at, p.updated_at, p.vat_treatment";

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
        vat_treatment: r.get(19)?,
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

/// Filters of the product list.
#[derive(Debug, Default, Clone)]
pub struct ProductFilter {
    pub entity_id: Option<String>,
    pub q: Option<String>,
    pub category: Option<String>,
    pub active: Option<bool>,
    /// Only these products (the web app naming the products of a document's lines).
    pub ids: Option<Vec<String>>,
    /// [`Order::Session`]: by name (the session API); [`Order::Creation`]: in creation
    /// order (the public API's stable paging).
    pub order: Order,
    pub limit: Option<i64>,
    pub offset: i64,
    /// Only products changed at or after this time (the stored form,
    /// docs/public-api.md#incremental-sync).
    pub updated_since: Option<String>,
}

/// Lists products visible to `scope`, in `f.order`, with their stock levels.
pub fn list_products(
    conn: &Connection,
    scope: &Scope,
    f: &ProductFilter,
) -> AppResult<Vec<Product>> {
    let (sql, args) = list_query(conn, scope, f);
    let mut stmt = conn.prepare(&sql)?;
    let mut products = stmt
        .query_map(params_from_iter(args.iter()), damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    attach_stock_levels(conn, &mut products)?;
    Ok(products)
}

/// Products read at a time by [`write_product_list`], each batch with its stock levels.
const LIST_BATCH: usize = 500;

/// [`list_products`] written as `{"data":[...]}` through `send` in chunks of `chunk`
/// bytes, the products read in batches: memory holds a batch and a chunk, not the list.
pub fn write_product_list(
    conn: &Connection,
    scope: &Scope,
    f: &ProductFilter,
    chunk: usize,
    send: Sink<'_>,
) -> AppResult<()> {
    let (sql, args) = list_query(conn, scope, f);
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    let mut w = ChunkWriter::new(chunk, send);
    w.out.extend_from_slice(b"{\"data\":[");
    let mut batch = Vec::with_capacity(LIST_BATCH);
    let mut first = true;
    loop {
        let row = rows.next()?;
        let done = row.is_none();
        if let Some(r) = row {
            batch.push(from_row(r).map_err(|e| damage::name_record(r, e))?);
        }
        if batch.len() == LIST_BATCH || done {
            attach_stock_levels(conn, &mut batch)?;
            for p in batch.drain(..) {
                if !first {
                    w.out.push(b',');
                }
                first = false;
                w.json(&p)?;
                if !w.flush_if_full() {
                    return Ok(());
                }
            }
        }
        if done {
            break;
        }
    }
    w.out.extend_from_slice(b"]}");
    w.flush();
    Ok(())
}

/// The list's SQL and its arguments.
fn list_query(conn: &Connection, scope: &Scope, f: &ProductFilter) -> (String, Vec<String>) {
    // The filter names `alias`: the listed table itself in name order, the inner page
    // query in creation order.
    let alias = match f.order {
        Order::Session => "p",
        Order::Creation => "s",
    };
    let (cond, mut args) = scope.condition(conn, alias);
    let mut filter = cond;
    if let Some(e) = &f.entity_id {
        filter.push_str(&format!(" AND {alias}.entity_id = ?"));
        args.push(e.clone());
    }
    if let Some(since) = &f.updated_since {
        filter.push_str(&format!(" AND {alias}.updated_at >= ?"));
        args.push(since.clone());
    }
    if let Some(q) = f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
        if q.chars().count() >= 3 {
            // The trigram index finds every product whose name, SKU or barcode contains
            // `q`, ignoring case (migrations/V7__product_search.sql).
            filter.push_str(&format!(
                " AND {alias}.seq IN (SELECT rowid FROM products_search WHERE products_search MATCH ?)"
            ));
            args.push(format!("\"{}\"", q.replace('"', "\"\"")));
        } else {
            // Trigrams need three characters; one or two are matched by a scan.
            filter.push_str(&format!(
                " AND (instr(lower({alias}.name), ?) > 0 OR instr(lower({alias}.sku), ?) > 0
                       OR instr(lower(COALESCE({alias}.barcode, '')), ?) > 0)"
            ));
            let q = q.to_lowercase();
            args.extend([q.clone(), q.clone(), q]);
        }
    }
    if let Some(c) = &f.category {
        filter.push_str(&format!(" AND {alias}.category = ? COLLATE NOCASE"));
        args.push(c.clone());
    }
    if let Some(a) = f.active {
        filter.push_str(&format!(" AND {alias}.active = {}", i32::from(a)));
    }
    if let Some(ids) = &f.ids {
        let marks = vec!["?"; ids.len()].join(",");
        filter.push_str(&format!(" AND {alias}.id IN ({marks})"));
        args.extend(ids.iter().cloned());
    }
    let (limit, offset) = (f.limit.unwrap_or(-1), f.offset);
    let sql = match f.order {
        Order::Session => format!(
            "SELECT {COLUMNS} FROM products p WHERE {filter}
             ORDER BY p.name COLLATE NOCASE, p.seq LIMIT {limit} OFFSET {offset}"
        ),
        // The page's `seq`s come from the `(owner_id[, entity_id], seq)` index, so a deep
        // offset skips index entries, not table rows.
        Order::Creation => format!(
            "SELECT {COLUMNS} FROM products p WHERE p.seq IN
                 (SELECT s.seq FROM products s WHERE {filter}
                  ORDER BY s.seq LIMIT {limit} OFFSET {offset})
             ORDER BY p.seq"
        ),
    };
    (sql, args)
}

/// Fills in each product's stock levels, 500 products to a query.
fn attach_stock_levels(conn: &Connection, products: &mut [Product]) -> AppResult<()> {
    let mut by_product: HashMap<String, Vec<StockRow>> = HashMap::new();
    for chunk in products.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(",");
        let ids: Vec<&dyn rusqlite::ToSql> = chunk
            .iter()
            .map(|p| &p.id as &dyn rusqlite::ToSql)
            .collect();
        for r in stock_rows::query(conn, &format!("s.product_id IN ({marks})"), &ids)? {
            by_product
                .entry(r.product_id.id.clone())
                .or_default()
                .push(r);
        }
    }
    for p in products.iter_mut() {
        p.stock_levels = by_product.remove(&p.id).unwrap_or_default();
    }
    Ok(())
}

/// One product visible to `scope`, with stock levels: 404 when unknown or foreign.
pub fn get_product(conn: &Connection, scope: &Scope, id: &str) -> AppResult<Product> {
    let (cond, mut args) = scope.condition(conn, "p");
    args.insert(0, id.to_owned());
    let mut p = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM products p WHERE p.id = ? AND {cond}"),
            params_from_iter(args.iter()),
            damage::named(from_row),
        )
        .optional()?
        .ok_or_else(|| {
            let missing = AppError::not_found(format!("Product not found: {id}"));
            scope.unseen(conn, "products", id, missing)
        })?;
    p.stock_levels = stock_rows::query(conn, "s.product_id = ?", &[&p.id])?;
    Ok(p)
}

/// The fields of a product create (session and public API share this).
#[derive(Debug, Deserialize)]
pub struct NewProduct {
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
    /// Default: follows the rate (docs/accounting.md#vat-treatment).
    #[serde(default)]
    pub vat_treatment: Option<String>,
    #[serde(default)]
    pub stock_qty: Option<Qty>,
    /// Where the opening `stock_qty` is: a location of the product's entity; omitted or
    /// null, it is unallocated (docs/inventory.md#product-stock).
    #[serde(default)]
    pub stock_location_id: Option<String>,
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
    pub entity_id: Option<String>,
    /// Where the product comes from (an import or an integration) and its id there.
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub provider_ref: Option<String>,
}

fn non_negative_price(field: &str, v: Price) -> AppResult<Price> {
    if v.is_sign_negative() {
        return Err(AppError::invalid(field, "must not be negative"));
    }
    Ok(v)
}

fn non_negative_qty(field: &str, v: Qty) -> AppResult<Qty> {
    if v.is_sign_negative() {
        return Err(AppError::invalid(field, "must not be negative"));
    }
    Ok(v)
}

fn percent(field: &str, v: Percent) -> AppResult<Percent> {
    crate::db::decimal::check_percent(field, v.value())?;
    Ok(v)
}

/// Refuses a SKU already used in the same entity (or by the owner without entity), as
/// compared by its key (docs/inventory.md#look-alike-identifiers); answers the key.
fn check_sku_free(
    tx: &Connection,
    owner: &str,
    entity: Option<&str>,
    sku: &str,
    except: Option<&str>,
) -> AppResult<String> {
    let key = compare_key(sku);
    let taken: Option<String> = tx
        .query_row(
            "SELECT id FROM products WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2
                 AND sku_key = ?3 AND id <> ?4",
            params![owner, entity.unwrap_or(""), key, except.unwrap_or("")],
            |r| r.get(0),
        )
        .optional()?;
    match taken {
        Some(_) => Err(AppError::refused(
            "duplicate_sku",
            format!("SKU already exists: {sku}"),
        )),
        None => Ok(key),
    }
}

/// `SKU-00001`, the next free generated number in the entity (docs/inventory.md#skus).
fn next_sku(tx: &Connection, owner: &str, entity: Option<&str>) -> AppResult<String> {
    let max: Option<i64> = tx.query_row(
        "SELECT MAX(CAST(substr(sku, 5) AS INTEGER)) FROM products
         WHERE owner_id = ?1 AND COALESCE(entity_id, '') = ?2
           AND sku LIKE 'SKU-%' AND substr(sku, 5) GLOB '[0-9]*'
           AND NOT substr(sku, 5) GLOB '*[^0-9]*'",
        params![owner, entity.unwrap_or("")],
        |r| r.get(0),
    )?;
    let next = max.unwrap_or(0).checked_add(1).ok_or_else(|| {
        AppError::refused(
            "sku_exhausted",
            "No generated SKU is left after the largest SKU-number; send a sku",
        )
    })?;
    Ok(format!("SKU-{next:05}"))
}

/// Creates a product in `tx` (the session API, the public API and imports call this).
pub fn create_product(
    tx: &Transaction,
    scope: &Scope,
    p: NewProduct,
    ctx: &Ctx,
) -> AppResult<Product> {
    let name = required_text("name", &p.name)?;
    let entity = scope.entity_opt(tx, "entity_id", p.entity_id.as_deref())?;
    let owner = scope.owner_for(tx, entity.as_deref())?;
    let unit_price = non_negative_price("unit_price", p.unit_price.unwrap_or_default())?;
    let cost_price = non_negative_price("cost_price", p.cost_price.unwrap_or_default())?;
    let (vat_rate, vat_treatment) = vat::resolve(
        "vat_treatment",
        p.vat_rate.map(|r| percent("vat_rate", r)).transpose()?,
        vat::parse_opt("vat_treatment", p.vat_treatment.as_deref())?,
        (Percent::from_i64(20), Treatment::Standard),
    )?;
    let threshold = non_negative_qty(
        "low_stock_threshold",
        p.low_stock_threshold.unwrap_or(Qty::from_i64(5)),
    )?;
    let opening = non_negative_qty("stock_qty", p.stock_qty.unwrap_or_default())?;
    let opening_at = match p.stock_location_id.as_deref().map(str::trim) {
        Some(raw) if !raw.is_empty() => {
            let id = parse_id("stock_location_id", raw)?;
            let location = location_ref(tx, scope, &id)?;
            check_takes_stock("stock_location_id", &location, entity.as_deref())?;
            Some(location)
        }
        _ => None,
    };
    let sku = match clean(p.sku) {
        Some(s) => s,
        None => next_sku(tx, &owner, entity.as_deref())?,
    };
    // A generated SKU is checked too: a typed one may look the same.
    let sku_key = check_sku_free(tx, &owner, entity.as_deref(), &sku, None)?;
    let id = uuid::Uuid::new_v4().to_string();
    tx.execute(
        "INSERT INTO products (id, owner_id, entity_id, name, sku, description, category,
             unit_price, cost_price, vat_rate, stock_qty, low_stock_threshold, unit, notes,
             barcode, active, provider, provider_ref, created_at, updated_at, sku_key,
             vat_treatment)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?18, ?19,
             ?20)",
        params![
            id,
            owner,
            entity,
            name,
            sku,
            clean(p.description),
            clean(p.category).unwrap_or_default(),
            unit_price,
            cost_price,
            vat_rate,
            threshold,
            clean(p.unit).unwrap_or_else(|| "pcs".to_owned()),
            clean(p.notes),
            clean(p.barcode),
            p.active.unwrap_or(true),
            clean(p.provider),
            clean(p.provider_ref),
            ctx.now,
            sku_key,
            vat_treatment
        ],
    )?;
    if !opening.is_zero() {
        adjust(
            tx,
            scope,
            &id,
            opening_at.as_ref(),
            opening,
            "Opening stock",
            ctx,
        )?;
    }
    get_product(tx, scope, &id)
}

/// Records an `adjustment` of `qty` through the ledger at `location` (none: the
/// unallocated stock): how `stock_qty` on a create or a PUT reaches the stock
/// (docs/inventory.md#product-stock).
fn adjust(
    tx: &Transaction,
    scope: &Scope,
    product_id: &str,
    location: Option<&LocationRef>,
    qty: Qty,
    reference: &str,
    ctx: &Ctx,
) -> AppResult<()> {
    let product = product_ref(tx, scope, product_id)?;
    ledger::apply_movement(
        tx,
        &NewMovement {
            product: &product,
            location,
            qty,
            kind: MovementType::Adjustment,
            reference: Some(reference.into()),
            notes: None,
            date: ctx.today,
            unit_cost: None,
            origin: Origin::System,
        },
        ctx.allow_negative,
        &ctx.now,
    )?;
    Ok(())
}

#[derive(Debug, FromForm)]
struct ListParams {
    #[field(name = "entityId")]
    entity_id: Option<String>,
    q: Option<String>,
    category: Option<String>,
    active: Option<String>,
    ids: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
}

/// Most ids one list asks for: a page of the list.
const MAX_IDS: usize = 500;

/// `ids`: comma-separated product ids (docs/inventory.md#products).
fn parse_ids(raw: Option<&str>) -> AppResult<Option<Vec<String>>> {
    let Some(raw) = raw else { return Ok(None) };
    let ids = raw
        .split(',')
        .map(|s| parse_id("ids", s.trim()))
        .collect::<AppResult<Vec<_>>>()?;
    if ids.len() > MAX_IDS {
        return Err(AppError::invalid("ids", format!("at most {MAX_IDS} ids")));
    }
    Ok(Some(ids))
}

#[get("/products?<params..>")]
async fn list(
    user: SessionUser,
    params: ListParams,
    db: &State<Db>,
) -> AppResult<Either<JsonBytes, JsonStream<impl Stream<Item = Vec<u8>> + Send>>> {
    let page = parse_page(params.limit.as_deref(), params.offset.as_deref(), None)?;
    let active = crate::http::body::parse_flag("active", params.active.as_deref())?;
    let ids = parse_ids(params.ids.as_deref())?;
    let scope = user.scope();
    let filter = move |conn: &Connection, scope: &Scope| -> AppResult<ProductFilter> {
        Ok(ProductFilter {
            entity_id: scope.entity_opt(conn, "entityId", params.entity_id.as_deref())?,
            q: params.q,
            category: params.category.filter(|c| !c.is_empty()),
            active,
            ids,
            order: Order::Session,
            limit: page.limit,
            offset: page.offset,
            updated_since: None,
        })
    };
    if page.limit.is_some() {
        let rows = db
            .read(move |conn| list_products(conn, &scope, &filter(conn, &scope)?))
            .await?;
        return Ok(Either::Left(data_bytes(&rows)?));
    }
    // Unpaged, the list may be the whole catalogue (217 MB for 100,000 products): it is
    // streamed, a batch of products at a time.
    let stream = stream_json(db, move |conn, send| {
        let f = filter(conn, &scope)?;
        write_product_list(conn, &scope, &f, CHUNK, send)
    })
    .await?;
    Ok(Either::Right(stream))
}

#[post("/products", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<NewProduct>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Product>> {
    let scope = user.scope();
    let body = body.into_inner();
    let p = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create_product(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(Created(p))
}

#[derive(Debug, Deserialize)]
pub struct ProductUpdate {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub sku: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub description: Option<Option<String>>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub unit_price: Option<Price>,
    #[serde(default)]
    pub cost_price: Option<Price>,
    #[serde(default)]
    pub vat_rate: Option<Percent>,
    /// Default: follows the rate (docs/accounting.md#vat-treatment).
    #[serde(default)]
    pub vat_treatment: Option<String>,
    #[serde(default)]
    pub stock_qty: Option<Qty>,
    #[serde(default)]
    pub low_stock_threshold: Option<Qty>,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub active: Option<bool>,
    #[serde(default, deserialize_with = "nullable")]
    pub notes: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    pub barcode: Option<Option<String>>,
}

/// Applies a PUT: every given field, and a `stock_qty` change through the ledger.
pub fn update_product(
    tx: &Transaction,
    scope: &Scope,
    u: ProductUpdate,
    ctx: &Ctx,
) -> AppResult<Product> {
    let id = parse_id("id", &u.id)?;
    let mut p = get_product(tx, scope, &id)?;
    if let Some(n) = u.name {
        p.name = required_text("name", &n)?;
    }
    // Only a SKU sent sets the key: a product left without one at start (its SKU looks
    // like an older product's) keeps its other fields editable until it is renamed.
    let mut sku_key = None;
    if let Some(s) = u.sku {
        let s = required_text("sku", &s)?;
        sku_key = Some(check_sku_free(
            tx,
            &scope.owner_for(tx, p.entity_id.as_deref())?,
            p.entity_id.as_deref(),
            &s,
            Some(&p.id),
        )?);
        p.sku = s;
    }
    if let Some(d) = u.description {
        p.description = clean(d);
    }
    if let Some(c) = u.category {
        p.category = c.trim().to_owned();
    }
    if let Some(v) = u.unit_price {
        p.unit_price = non_negative_price("unit_price", v)?;
    }
    if let Some(v) = u.cost_price {
        p.cost_price = non_negative_price("cost_price", v)?;
    }
    (p.vat_rate, p.vat_treatment) = vat::resolve_update(
        "vat_treatment",
        (p.vat_rate, p.vat_treatment),
        u.vat_rate.map(|r| percent("vat_rate", r)).transpose()?,
        vat::parse_opt("vat_treatment", u.vat_treatment.as_deref())?,
    )?;
    if let Some(v) = u.low_stock_threshold {
        p.low_stock_threshold = non_negative_qty("low_stock_threshold", v)?;
    }
    if let Some(v) = u.unit {
        p.unit = required_text("unit", &v)?;
    }
    if let Some(v) = u.active {
        p.active = v;
    }
    if let Some(v) = u.notes {
        p.notes = clean(v);
    }
    if let Some(v) = u.barcode {
        p.barcode = clean(v);
    }
    tx.execute(
        "UPDATE products SET name = ?1, sku = ?2, description = ?3, category = ?4, unit_price = ?5,
             cost_price = ?6, vat_rate = ?7, low_stock_threshold = ?8, unit = ?9, active = ?10,
             notes = ?11, barcode = ?12, updated_at = ?13, sku_key = COALESCE(?15, sku_key),
             vat_treatment = ?16
         WHERE id = ?14",
        params![
            p.name,
            p.sku,
            p.description,
            p.category,
            p.unit_price,
            p.cost_price,
            p.vat_rate,
            p.low_stock_threshold,
            p.unit,
            p.active,
            p.notes,
            p.barcode,
            ctx.now,
            p.id,
            sku_key,
            p.vat_treatment
        ],
    )?;
    if let Some(target) = u.stock_qty {
        let located = ledger::located_total(tx, &p.id)?;
        if target < located {
            return Err(AppError::refused(
                "stock_at_locations",
                format!(
                    "stock_qty {target} is below the {located} held at locations for {}; \
                 change the stock at those locations instead",
                    p.sku
                ),
            ));
        }
        let diff = target - p.stock_qty;
        if !diff.is_zero() {
            adjust(tx, scope, &p.id, None, diff, "Stock quantity edited", ctx)?;
        }
    }
    get_product(tx, scope, &p.id)
}

#[put("/products", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<ProductUpdate>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let body = body.into_inner();
    let p = db
        .write_as(scope.actor().to_owned(), move |tx| {
            update_product(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(data(p))
}

/// Deletes a product that has never moved stock (409 otherwise: deactivate it instead),
/// with its empty stock rows; a product still on documents is refused by the foreign keys.
pub fn delete_product(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    let p = product_ref(tx, scope, id)?;
    let moved: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM stock_movements WHERE product_id = ?1)",
        [id],
        |r| r.get(0),
    )?;
    if moved {
        return Err(AppError::refused(
            "in_use",
            format!(
                "Product {} has stock movements and cannot be deleted; deactivate it instead",
                p.sku
            ),
        ));
    }
    tx.execute("DELETE FROM warehouse_stock WHERE product_id = ?1", [id])?;
    tx.execute("DELETE FROM products WHERE id = ?1", [id])
        .map_err(|e| match AppError::in_use(e) {
            AppError::Conflict(_) => AppError::refused(
                "in_use",
                format!(
                    "Product {} is used on documents and cannot be deleted; deactivate it instead",
                    p.sku
                ),
            ),
            other => other,
        })?;
    Ok(())
}

#[delete("/products", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let id = body.id()?;
    db.write_as(scope.actor().to_owned(), move |tx| {
        delete_product(tx, &scope, &id)
    })
    .await?;
    Ok(data(serde_json::json!({ "success": true })))
}
