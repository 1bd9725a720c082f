//! Stock movements: `/api/stock-movements` (docs/ledger.md#movements-endpoint,
//! docs/ledger.md#sign-rules).
//!
//! The list reads the ledger with every filter of docs/ledger.md#movements-endpoint,
//! newest first (date, then creation). A create goes through [`ledger::apply_movement`]
//! as a client request: the sign rules, the negative-stock refusal and weighted-average
//! costing all live there. There is no PUT or DELETE: the ledger is immutable (the
//! catcher answers 405).

use rocket::futures::Stream;
use rocket::serde::json::Json;
use rocket::{get, post, routes, Either, FromForm, Route, State};
use rusqlite::types::Type;
use rusqlite::{params_from_iter, Connection, OptionalExtension, Row, Transaction};
use serde::Deserialize;
use serde_json::Value;
use time::Date;

use super::ledger::{self, Movement, MovementProduct, MovementType, NewMovement, Origin};
use super::lookup::{location_ref, product_ref};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::{Price, Qty};
use crate::db::raw::csv_cell;
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, parse_date, parse_id, parse_opt_id, JsonBody};
use crate::http::paging::{parse_page, parse_since, Page};
use crate::http::stream::{stream_json, ChunkWriter, CsvStream, Sink, CHUNK};
use crate::http::{data, Created};
use crate::scope::{same_entity, Scope};

pub fn routes() -> Vec<Route> {
    routes![list, create]
}

fn type_list() -> String {
    MovementType::ALL
        .iter()
        .filter(|t| **t != MovementType::TransferCancelled)
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Filters of the movement list; ids already parsed (not yet checked for visibility).
#[derive(Debug, Default, Clone)]
pub struct MovementFilter {
    pub product_id: Option<String>,
    pub location_id: Option<String>,
    pub entity_id: Option<String>,
    /// The invoice or bill the movements were written for (docs/documents-stock.md#the-one-rule).
    pub document_id: Option<String>,
    pub kind: Option<MovementType>,
    pub date_from: Option<Date>,
    pub date_to: Option<Date>,
    pub limit: Option<i64>,
    pub offset: i64,
    /// Ledger order, oldest first (the public API's pages), instead of newest first.
    pub oldest_first: bool,
    /// Only movements recorded at or after this time (the stored form).
    pub updated_since: Option<String>,
}

const SELECT: &str = "SELECT m.id, p.id, p.name, p.sku, m.qty, m.type, m.location_id,
        m.reference, m.notes, m.date, m.unit_cost, m.entity_id, m.created_at, m.document_id
     FROM stock_movements m
     JOIN products p ON p.id = m.product_id";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Movement> {
    let kind: String = r.get(5)?;
    let kind = MovementType::parse(&kind).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            5,
            Type::Text,
            format!("unknown movement type {kind}").into(),
        )
    })?;
    Ok(Movement {
        id: r.get(0)?,
        product_id: MovementProduct {
            id: r.get(1)?,
            name: r.get(2)?,
            sku: r.get(3)?,
        },
        qty: r.get(4)?,
        kind,
        location_id: r.get(6)?,
        reference: r.get(7)?,
        notes: r.get(8)?,
        date: r.get(9)?,
        unit_cost: r.get(10)?,
        entity_id: r.get(11)?,
        created_at: r.get(12)?,
        updated_at: r.get(12)?,
        document_id: r.get(13)?,
    })
}

/// The movement at `seq` as the session API shows it, for its `stock_movement.created`
/// webhook event: its entity and its JSON (docs/webhooks.md#events).
pub fn event_data(
    conn: &Connection,
    seq: i64,
) -> AppResult<(Option<String>, Box<serde_json::value::RawValue>)> {
    let mv = conn
        .prepare_cached(&format!("{SELECT} WHERE m.seq = ?1"))?
        .query_row([seq], damage::named(from_row))
        .optional()?
        .ok_or_else(|| AppError::internal(format!("no stock movement at seq {seq}")))?;
    let json = serde_json::value::to_raw_value(&mv)
        .map_err(|e| AppError::internal(format!("serialising a movement: {e}")))?;
    Ok((mv.entity_id, json))
}

/// Movements visible to `scope`, newest first (date, then creation). A product or
/// location filter naming an unknown or foreign record is a 404.
pub fn list_movements(
    conn: &Connection,
    scope: &Scope,
    f: &MovementFilter,
) -> AppResult<Vec<Movement>> {
    let (cond, args) = filter_condition(conn, scope, f)?;
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE {cond} ORDER BY {} LIMIT {} OFFSET {}",
        if f.oldest_first {
            "m.seq"
        } else {
            "m.date DESC, m.seq DESC"
        },
        f.limit.unwrap_or(-1),
        f.offset
    ))?;
    let rows = stmt
        .query_map(params_from_iter(args.iter()), damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The `WHERE` condition (on `stock_movements m`) and its arguments for `f`; a product or
/// location filter naming an unknown or foreign record is a 404.
fn filter_condition(
    conn: &Connection,
    scope: &Scope,
    f: &MovementFilter,
) -> AppResult<(String, Vec<String>)> {
    let (mut cond, mut args) = scope.condition(conn, "m");
    if let Some(p) = &f.product_id {
        product_ref(conn, scope, p)?;
        cond.push_str(" AND m.product_id = ?");
        args.push(p.clone());
    }
    if let Some(l) = &f.location_id {
        location_ref(conn, scope, l)?;
        cond.push_str(" AND m.location_id = ?");
        args.push(l.clone());
    }
    if let Some(e) = &f.entity_id {
        cond.push_str(" AND m.entity_id = ?");
        args.push(e.clone());
    }
    if let Some(k) = f.kind {
        cond.push_str(" AND m.type = ?");
        args.push(k.as_str().to_owned());
    }
    if let Some(d) = f.date_from {
        cond.push_str(" AND m.date >= ?");
        args.push(d.to_string());
    }
    if let Some(d) = f.date_to {
        cond.push_str(" AND m.date <= ?");
        args.push(d.to_string());
    }
    if let Some(d) = &f.document_id {
        cond.push_str(" AND m.document_id = ?");
        args.push(d.clone());
    }
    // A movement is never changed: it changed when it was recorded.
    if let Some(since) = &f.updated_since {
        cond.push_str(" AND m.created_at >= ?");
        args.push(since.clone());
    }
    Ok((cond, args))
}

/// The header row of the CSV movement history.
pub const CSV_HEADER: &str = "date,type,product_id,product_sku,product_name,qty,location_id,\
    location_name,unit_cost,reference,notes,document_id,entity_id,id,created_at";

/// Writes the movements `f` selects as CSV (RFC 4180, `\r\n` line ends, a header row), newest
/// first, through `send` in chunks of `chunk` bytes. Paging (`limit`, `offset`) applies
/// as in the JSON list. Text that a spreadsheet would read as a formula (starting with
/// `=`, `+`, `-`, `@`, tab or carriage return) is prefixed with `'`.
pub fn write_movements_csv(
    conn: &Connection,
    scope: &Scope,
    f: &MovementFilter,
    chunk: usize,
    send: Sink<'_>,
) -> AppResult<()> {
    let (cond, args) = filter_condition(conn, scope, f)?;
    let mut w = ChunkWriter::new(chunk, send);
    w.out.extend_from_slice(CSV_HEADER.as_bytes());
    w.out.extend_from_slice(b"\r\n");
    let mut stmt = conn.prepare(&format!(
        "SELECT m.date, m.type, p.id, p.sku, p.name, m.qty, m.location_id, l.name, m.unit_cost,
             m.reference, m.notes, m.document_id, m.entity_id, m.id, m.created_at
         FROM stock_movements m
         JOIN products p ON p.id = m.product_id
         LEFT JOIN warehouse_locations l ON l.id = m.location_id
         WHERE {cond} ORDER BY m.date DESC, m.seq DESC LIMIT {} OFFSET {}",
        f.limit.unwrap_or(-1),
        f.offset
    ))?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    while let Some(r) = rows.next()? {
        for i in 0..15 {
            if i > 0 {
                w.out.push(b',');
            }
            match i {
                5 => w
                    .out
                    .extend_from_slice(r.get::<_, Qty>(i)?.to_string().as_bytes()),
                8 => {
                    if let Some(c) = r.get::<_, Option<Price>>(i)? {
                        w.out.extend_from_slice(c.to_string().as_bytes());
                    }
                }
                _ => {
                    if let Some(s) = r.get::<_, Option<String>>(i)? {
                        csv_cell(&mut w.out, &s);
                    }
                }
            }
        }
        w.out.extend_from_slice(b"\r\n");
        if !w.flush_if_full() {
            return Ok(());
        }
    }
    w.flush();
    Ok(())
}

/// The body of `POST /api/stock-movements`.
#[derive(Debug, Deserialize)]
pub struct MovementBody {
    pub product_id: String,
    pub qty: Qty,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub location_id: Option<String>,
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub entity_id: Option<String>,
    #[serde(default)]
    pub unit_cost: Option<Price>,
}

/// Records a movement asked for by a client (session and public API share this).
pub fn record_movement(
    tx: &Transaction,
    scope: &Scope,
    b: MovementBody,
    ctx: &Ctx,
) -> AppResult<Movement> {
    let kind = MovementType::parse(b.kind.trim())
        .ok_or_else(|| AppError::invalid("type", format!("must be one of {}", type_list())))?;
    let product_id = parse_id("product_id", &b.product_id)?;
    let location_id = parse_opt_id("location_id", b.location_id.as_deref())?;
    let date = match b.date.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => parse_date("date", d)?,
        None => ctx.today,
    };
    ledger::not_after_today("date", date, ctx.today)?;
    if let Some(c) = b.unit_cost {
        if c.is_sign_negative() {
            return Err(AppError::invalid("unit_cost", "must not be negative"));
        }
    }
    let product = product_ref(tx, scope, &product_id)?;
    if let Some(raw) = b.entity_id.as_deref().filter(|s| !s.is_empty()) {
        let entity = scope.entity(tx, "entity_id", raw)?;
        same_entity("entity_id", product.entity_id.as_deref(), Some(&entity))?;
    }
    let location = location_id
        .map(|l| location_ref(tx, scope, &l))
        .transpose()?;
    ledger::apply_movement(
        tx,
        &NewMovement {
            product: &product,
            location: location.as_ref(),
            qty: b.qty,
            kind,
            reference: clean(b.reference),
            notes: clean(b.notes),
            date,
            unit_cost: b.unit_cost,
            origin: Origin::Client,
        },
        ctx.allow_negative,
        &ctx.now,
    )
}

/// The filters of the movement history, on both APIs.
#[derive(Debug, FromForm)]
pub struct ListParams {
    #[field(name = "productId")]
    product_id: Option<String>,
    #[field(name = "entityId")]
    entity_id: Option<String>,
    #[field(name = "locationId")]
    location_id: Option<String>,
    #[field(name = "type")]
    kind: Option<String>,
    #[field(name = "dateFrom")]
    date_from: Option<String>,
    #[field(name = "dateTo")]
    date_to: Option<String>,
    #[field(name = "documentId")]
    document_id: Option<String>,
    /// `csv` for the history as a spreadsheet
    /// (docs/documents-stock.md#the-movement-history-as-a-spreadsheet); JSON otherwise.
    format: Option<String>,
    pub limit: Option<String>,
    pub offset: Option<String>,
    /// Public lists only (docs/public-api.md#incremental-sync).
    updated_since: Option<String>,
}

impl ListParams {
    /// The filter these parameters ask for, on `page`; the entity is resolved through the
    /// caller's scope when it is read ([`Self::entity`]).
    pub fn filter(&self, page: Page) -> AppResult<MovementFilter> {
        let kind = match self.kind.as_deref().filter(|k| !k.is_empty()) {
            None => None,
            Some(k) => Some(MovementType::parse(k).ok_or_else(|| {
                AppError::invalid(
                    "type",
                    format!("must be one of {}, transfer_cancelled", type_list()),
                )
            })?),
        };
        Ok(MovementFilter {
            product_id: parse_opt_id("productId", self.product_id.as_deref())?,
            location_id: parse_opt_id("locationId", self.location_id.as_deref())?,
            entity_id: None,
            document_id: parse_opt_id("documentId", self.document_id.as_deref())?,
            kind,
            date_from: opt_date("dateFrom", self.date_from.as_deref())?,
            date_to: opt_date("dateTo", self.date_to.as_deref())?,
            limit: page.limit,
            offset: page.offset,
            oldest_first: false,
            updated_since: parse_since(self.updated_since.as_deref())?,
        })
    }

    /// The `entityId` filter as sent.
    pub fn entity(&self) -> Option<String> {
        self.entity_id.clone()
    }
}

fn opt_date(field: &str, s: Option<&str>) -> AppResult<Option<Date>> {
    s.filter(|s| !s.is_empty())
        .map(|s| parse_date(field, s))
        .transpose()
}

#[get("/stock-movements?<params..>")]
async fn list(
    user: SessionUser,
    params: ListParams,
    db: &State<Db>,
) -> AppResult<Either<Json<Value>, CsvStream<impl Stream<Item = Vec<u8>> + Send>>> {
    let csv = match params.format.as_deref().map(str::trim) {
        None | Some("" | "json") => false,
        Some("csv") => true,
        Some(_) => return Err(AppError::invalid("format", "must be json or csv")),
    };
    let page = parse_page(params.limit.as_deref(), params.offset.as_deref(), None)?;
    let mut parsed = params.filter(page)?;
    let scope = user.scope();
    let entity = params.entity();
    let filter = move |conn: &Connection| -> AppResult<MovementFilter> {
        parsed.entity_id = scope_entity(conn, &scope, entity.as_deref())?;
        Ok(parsed)
    };
    let scope = user.scope();
    if csv {
        let body = stream_json(db, move |conn, send| {
            let f = filter(conn)?;
            write_movements_csv(conn, &scope, &f, CHUNK, send)
        })
        .await?;
        return Ok(Either::Right(CsvStream {
            body,
            filename: "stock-movements.csv",
        }));
    }
    let rows = db
        .read(move |conn| list_movements(conn, &scope, &filter(conn)?))
        .await?;
    Ok(Either::Left(data(rows)))
}

fn scope_entity(conn: &Connection, scope: &Scope, raw: Option<&str>) -> AppResult<Option<String>> {
    scope.entity_opt(conn, "entityId", raw)
}

#[post("/stock-movements", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<MovementBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Movement>> {
    let scope = user.scope();
    let body = body.into_inner();
    let m = db
        .write_as(scope.actor().to_owned(), move |tx| {
            record_movement(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(Created(m))
}
