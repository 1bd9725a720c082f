//! Stock takes: `/api/stock-takes` (docs/documents.md#stock-take-states,
//! docs/documents.md#stock-takes, docs/documents.md#counts-and-completion).
//!
//! A stock take snapshots a location's stock rows of active products as lines
//! (`system_quantity`), collects counts while `draft` or `in_progress`, and on completion
//! writes, for every counted line, one `stock_take` movement of `counted - quantity at
//! completion` through [`ledger::apply_movement`]: a sale made meanwhile is respected and
//! the row ends holding the count.

use std::collections::HashSet;

use rocket::serde::json::Json;
use rocket::{delete, get, post, put, routes, Route, State};
use rusqlite::{params, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::documents::{self, next_number, LinedDocument, ListOptions};
use super::ledger::{self, MovementType, NewMovement, Origin};
use super::lookup::{location_ref, ProductRef};
use super::stock_rows::{LocationBrief, ProductBrief};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::Qty;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, nullable, parse_id, IdBody, JsonBody};
use crate::http::paging::ListQuery;
use crate::http::{data, Created};
use crate::scope::{same_entity, Scope};

pub fn routes() -> Vec<Route> {
    routes![list, create, update, remove]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StockTakeStatus {
    Draft,
    InProgress,
    Completed,
    Cancelled,
}

impl StockTakeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The status stored in column `col`; any other text is a damaged record
    /// (docs/operations.md#damaged-records).
    pub fn from_db(col: usize, s: &str) -> rusqlite::Result<Self> {
        match s {
            "draft" => Ok(Self::Draft),
            "in_progress" => Ok(Self::InProgress),
            "completed" => Ok(Self::Completed),
            "cancelled" => Ok(Self::Cancelled),
            other => Err(rusqlite::Error::FromSqlConversionFailure(
                col,
                rusqlite::types::Type::Text,
                format!("`{other}`, not a stock take status").into(),
            )),
        }
    }

    /// A target status sent in a PUT: only the values of docs/documents.md#stock-take-states (400
    /// otherwise).
    fn parse_target(s: &str) -> AppResult<Self> {
        match s {
            "in_progress" => Ok(Self::InProgress),
            "completed" => Ok(Self::Completed),
            "cancelled" => Ok(Self::Cancelled),
            _ => Err(AppError::invalid(
                "status",
                "must be `in_progress`, `completed` or `cancelled`",
            )),
        }
    }

    /// Counts (and notes) may change while counting has not ended.
    fn open(self) -> bool {
        matches!(self, Self::Draft | Self::InProgress)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct StockTake {
    pub id: String,
    pub number: String,
    pub location_id: LocationBrief,
    pub status: StockTakeStatus,
    pub notes: Option<String>,
    pub entity_id: String,
    pub date_created: String,
    pub date_completed: Option<String>,
    /// Omitted from a list asked for without lines (docs/documents.md#lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<StockTakeLine>>,
    /// How many lines it has, and how many of them are counted.
    pub line_count: i64,
    pub counted_count: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct StockTakeLine {
    pub id: String,
    pub product_id: ProductBrief,
    pub system_quantity: Qty,
    pub counted_quantity: Option<Qty>,
    /// `counted_quantity - system_quantity`, null while uncounted.
    pub variance: Option<Qty>,
}

impl StockTake {
    /// Its lines (none when it was listed without them).
    pub fn lines(&self) -> &[StockTakeLine] {
        self.lines.as_deref().unwrap_or_default()
    }
}

impl LinedDocument for StockTake {
    type Line = StockTakeLine;
    const LABEL: &'static str = "Stock take";
    const TABLE: &'static str = "stock_takes";
    const PREFIX: &'static str = "ST";
    const SELECT: &'static str = "SELECT t.id, t.number, l.id, l.name, t.status, t.notes,
            t.entity_id, t.date_created, t.date_completed
         FROM stock_takes t JOIN warehouse_locations l ON l.id = t.location_id";
    const ALIAS: &'static str = "t";
    const LINE_TABLE: &'static str = "stock_take_lines";
    const LINE_PARENT: &'static str = "stock_take_id";
    const LINES: &'static str = "SELECT sl.stock_take_id, sl.id, p.id, p.name, p.sku,
            sl.system_quantity, sl.counted_quantity
         FROM stock_take_lines sl JOIN products p ON p.id = sl.product_id
         WHERE sl.stock_take_id IN ({ids})
         ORDER BY p.name COLLATE NOCASE, p.seq, sl.seq";
    // Kept on the stock take (migration V17): one row a stock take, however many lines.
    const LINE_FIGURES: &'static str =
        "SELECT id, line_count, counted_count FROM stock_takes WHERE id IN ({ids})";

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: r.get(0)?,
            number: r.get(1)?,
            location_id: LocationBrief {
                id: r.get(2)?,
                name: r.get(3)?,
            },
            status: StockTakeStatus::from_db(4, &r.get::<_, String>(4)?)?,
            notes: r.get(5)?,
            entity_id: r.get(6)?,
            date_created: r.get(7)?,
            date_completed: r.get(8)?,
            lines: None,
            line_count: 0,
            counted_count: 0,
        })
    }

    fn line_from_row(r: &Row<'_>) -> rusqlite::Result<StockTakeLine> {
        let system: Qty = r.get(5)?;
        let counted: Option<Qty> = r.get(6)?;
        Ok(StockTakeLine {
            id: r.get(1)?,
            product_id: ProductBrief {
                id: r.get(2)?,
                name: r.get(3)?,
                sku: r.get(4)?,
            },
            system_quantity: system,
            counted_quantity: counted,
            variance: counted.map(|c| c - system),
        })
    }

    fn id(&self) -> &str {
        &self.id
    }

    fn set_lines(&mut self, lines: Vec<StockTakeLine>) {
        self.line_count = i64::try_from(lines.len()).unwrap_or(i64::MAX);
        self.counted_count = i64::try_from(
            lines
                .iter()
                .filter(|l| l.counted_quantity.is_some())
                .count(),
        )
        .unwrap_or(i64::MAX);
        self.lines = Some(lines);
    }

    fn add_line_figures(&mut self, r: &Row<'_>) -> rusqlite::Result<()> {
        self.line_count += r.get::<_, i64>(1)?;
        self.counted_count += r.get::<_, i64>(2)?;
        Ok(())
    }
}

/// The body of a create (`POST /api/stock-takes`).
#[derive(Debug, Deserialize)]
pub struct NewStockTake {
    pub location_id: String,
    pub entity_id: String,
    #[serde(default)]
    pub notes: Option<String>,
}

/// Creates a draft stock take of an active location: one line per stock row of an active
/// product there, its quantity now as `system_quantity` (docs/documents.md#stock-takes).
pub fn create_stock_take(
    tx: &Transaction,
    scope: &Scope,
    b: NewStockTake,
    ctx: &Ctx,
) -> AppResult<StockTake> {
    let location = parse_id("location_id", &b.location_id)?;
    let entity = scope.entity(tx, "entity_id", &b.entity_id)?;
    let loc = location_ref(tx, scope, &location)?;
    same_entity("location_id", Some(&loc.entity_id), Some(entity.as_str()))?;
    if !loc.active {
        return Err(AppError::refused(
            "inactive_record",
            format!(
                "Location {} is inactive: it cannot take a new stock take",
                loc.name
            ),
        ));
    }
    let (seq, number) = next_number::<StockTake>(tx, &entity)?;
    let id = uuid::Uuid::new_v4().to_string();
    tx.execute(
        "INSERT INTO stock_takes (id, owner_id, entity_id, number_seq, number, location_id,
             status, notes, date_created)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'draft', ?7, ?8)",
        params![
            id,
            loc.owner_id,
            entity,
            seq,
            number,
            loc.id,
            clean(b.notes),
            ctx.now
        ],
    )?;
    // One line per stock row of an active product at the location (docs/documents.md#stock-takes).
    let rows: Vec<(String, Qty)> = {
        let mut stmt = tx.prepare_cached(
            "SELECT s.product_id, s.quantity
             FROM warehouse_stock s JOIN products p ON p.id = s.product_id
             WHERE s.location_id = ?1 AND p.active = 1
             ORDER BY p.name COLLATE NOCASE, p.seq",
        )?;
        let rows = stmt
            .query_map([&loc.id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        rows
    };
    let mut insert = tx.prepare_cached(
        "INSERT INTO stock_take_lines (id, stock_take_id, product_id, system_quantity)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    let line_count = i64::try_from(rows.len()).unwrap_or(i64::MAX);
    for (pid, qty) in rows {
        insert.execute(params![uuid::Uuid::new_v4().to_string(), id, pid, qty])?;
    }
    // Its lines are never added or removed after this (docs/documents.md#lists).
    tx.prepare_cached("UPDATE stock_takes SET line_count = ?1 WHERE id = ?2")?
        .execute(params![line_count, id])?;
    documents::get(tx, scope, &id)
}

/// A count in a PUT: the line and its counted quantity (null clears the count).
#[derive(Debug, Default, Deserialize)]
pub struct LineCount {
    pub id: String,
    #[serde(default, deserialize_with = "nullable")]
    pub counted_quantity: Option<Option<Qty>>,
}

/// The body of a PUT: counts, notes and a status change, each optional.
#[derive(Debug, Default, Deserialize)]
pub struct StockTakeUpdate {
    pub id: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<LineCount>>,
    #[serde(default, deserialize_with = "nullable")]
    pub notes: Option<Option<String>>,
}

/// Applies a PUT: counts, then notes, then the transition, in the caller's transaction:
/// a refused transition keeps no counts (docs/documents.md#counts-and-completion).
pub fn update_stock_take(
    tx: &Transaction,
    scope: &Scope,
    b: StockTakeUpdate,
    ctx: &Ctx,
) -> AppResult<StockTake> {
    let id = parse_id("id", &b.id)?;
    let target = b
        .status
        .as_deref()
        .map(StockTakeStatus::parse_target)
        .transpose()?;
    let counts = b
        .lines
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let line_id = parse_id(&format!("lines[{i}].id"), &l.id)?;
            let field = format!("lines[{i}].counted_quantity");
            let counted = l
                .counted_quantity
                .ok_or_else(|| AppError::missing(&field))?;
            if counted.is_some_and(Qty::is_sign_negative) {
                return Err(AppError::invalid(&field, "must be 0 or more, or null"));
            }
            Ok((line_id, counted))
        })
        .collect::<AppResult<Vec<_>>>()?;
    let head: StockTake = documents::get(tx, scope, &id)?;
    if !counts.is_empty() {
        record_counts(tx, &head, &counts)?;
    }
    if let Some(notes) = b.notes {
        let notes = clean(notes);
        if notes != head.notes {
            if !head.status.open() {
                return Err(AppError::refused(
                    "invalid_state",
                    format!(
                        "Stock take {} is {}: its notes can no longer change",
                        head.number,
                        head.status.as_str()
                    ),
                ));
            }
            documents::set_notes::<StockTake>(tx, &head.id, notes.as_deref())?;
        }
    }
    if let Some(target) = target {
        transition(tx, scope, ctx, &head, target)?;
    }
    let take: StockTake = documents::get(tx, scope, &id)?;
    if target == Some(StockTakeStatus::Completed) && head.status != StockTakeStatus::Completed {
        // docs/webhooks.md#events
        crate::webhooks::outbox::emit(
            tx,
            &scope.owner_for(tx, Some(&take.entity_id))?,
            Some(&take.entity_id),
            crate::webhooks::outbox::STOCK_TAKE_COMPLETED,
            &take,
            &ctx.now,
        )?;
    }
    Ok(take)
}

/// Counts may be entered in draft and in progress only (409 after); a line id not of
/// this stock take is 400.
fn record_counts(
    tx: &Transaction,
    head: &StockTake,
    counts: &[(String, Option<Qty>)],
) -> AppResult<()> {
    if !head.status.open() {
        return Err(AppError::refused(
            "invalid_state",
            format!(
                "Stock take {} is {}: counts can no longer be entered",
                head.number,
                head.status.as_str()
            ),
        ));
    }
    let mut stmt = tx.prepare_cached(
        "UPDATE stock_take_lines SET counted_quantity = ?1 WHERE id = ?2 AND stock_take_id = ?3",
    )?;
    for (i, (line_id, counted)) in counts.iter().enumerate() {
        if stmt.execute(params![counted, line_id, head.id])? != 1 {
            return Err(AppError::invalid(
                &format!("lines[{i}].id"),
                format!("not a line of stock take {}", head.number),
            ));
        }
    }
    // The figure a list without lines shows (docs/documents.md#lists).
    tx.prepare_cached(
        "UPDATE stock_takes SET counted_count = (SELECT COUNT(counted_quantity)
             FROM stock_take_lines WHERE stock_take_id = ?1)
         WHERE id = ?1",
    )?
    .execute([&head.id])?;
    Ok(())
}

/// Applies a status change as docs/documents.md#stock-take-states allows; anything else is 409.
fn transition(
    tx: &Transaction,
    scope: &Scope,
    ctx: &Ctx,
    head: &StockTake,
    target: StockTakeStatus,
) -> AppResult<()> {
    use StockTakeStatus::{Cancelled, Completed, Draft, InProgress};
    match (head.status, target) {
        (Draft, InProgress) | (Draft | InProgress, Cancelled) => {
            tx.execute(
                "UPDATE stock_takes SET status = ?1 WHERE id = ?2",
                params![target.as_str(), head.id],
            )?;
            Ok(())
        }
        (InProgress, Completed) => complete(tx, scope, ctx, head),
        (Completed, Cancelled) => Err(AppError::refused(
            "invalid_transition",
            format!(
                "Stock take {} is completed and cannot be cancelled",
                head.number
            ),
        )),
        (Draft, Completed) => Err(AppError::refused(
            "invalid_transition",
            format!(
                "Stock take {} is a draft: start counting (in_progress) before completing it",
                head.number
            ),
        )),
        (from, to) => Err(AppError::refused(
            "invalid_transition",
            format!(
                "Stock take {} cannot go from {} to {}",
                head.number,
                from.as_str(),
                to.as_str()
            ),
        )),
    }
}

/// in_progress -> completed: for each counted line, a `stock_take` movement of
/// `counted - quantity now` (none when 0), so the row ends holding the count. Completes
/// even where the location has since been deactivated
/// (docs/inventory.md#inactive-locations).
fn complete(tx: &Transaction, scope: &Scope, ctx: &Ctx, head: &StockTake) -> AppResult<()> {
    let loc = location_ref(tx, scope, &head.location_id.id)?;
    // Every counted line with its product and the quantity held now, in one read: a stock
    // take of 20,000 lines is one query here, not two per line.
    let counted: Vec<(ProductRef, Qty, Qty)> = {
        let mut stmt = tx.prepare_cached(
            "SELECT p.id, p.owner_id, p.entity_id, p.name, p.sku, p.active, p.stock_qty,
                    p.cost_price, sl.counted_quantity, COALESCE(s.quantity, 0)
             FROM stock_take_lines sl
             JOIN products p ON p.id = sl.product_id
             LEFT JOIN warehouse_stock s ON s.product_id = sl.product_id AND s.location_id = ?2
             WHERE sl.stock_take_id = ?1 AND sl.counted_quantity IS NOT NULL
             ORDER BY sl.seq",
        )?;
        let rows = stmt
            .query_map([&head.id, &loc.id], |r| {
                Ok((ProductRef::from_row(r)?, r.get(8)?, r.get(9)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows
    };
    // A product has one line (one stock row at the location); were it on two, the second
    // would read what the first left.
    let mut seen = HashSet::with_capacity(counted.len());
    for (product, count, held) in counted {
        if !scope.sees(tx, &product.owner_id, product.entity_id.as_deref())? {
            return Err(AppError::not_found(format!(
                "Product not found: {}",
                product.id
            )));
        }
        let held = if seen.insert(product.id.clone()) {
            held
        } else {
            ledger::stock_row_quantity(tx, &product.id, &loc.id)?.unwrap_or(Qty::ZERO)
        };
        let diff = count - held;
        if diff.is_zero() {
            continue;
        }
        ledger::apply_movement(
            tx,
            &NewMovement {
                product: &product,
                location: Some(&loc),
                qty: diff,
                kind: MovementType::StockTake,
                reference: Some(head.number.clone()),
                notes: None,
                date: ctx.today,
                unit_cost: None,
                origin: Origin::System,
            },
            ctx.allow_negative,
            &ctx.now,
        )?;
    }
    tx.execute(
        "UPDATE stock_takes SET status = 'completed', date_completed = ?1 WHERE id = ?2",
        params![ctx.now, head.id],
    )?;
    Ok(())
}

/// Deletes a draft or cancelled stock take and its lines (409 otherwise).
pub fn delete_stock_take(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    let head: StockTake = documents::get(tx, scope, id)?;
    if !matches!(
        head.status,
        StockTakeStatus::Draft | StockTakeStatus::Cancelled
    ) {
        return Err(AppError::refused(
            "invalid_state",
            format!(
            "Stock take {} is {} and cannot be deleted; only draft or cancelled stock takes can",
            head.number,
            head.status.as_str()
        ),
        ));
    }
    documents::delete::<StockTake>(tx, id)
}

#[get("/stock-takes?<entityId>&<id>&<lines>&<q..>")]
#[allow(non_snake_case)]
async fn list(
    user: SessionUser,
    entityId: Option<String>,
    id: Option<String>,
    lines: Option<String>,
    q: ListQuery,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let options = ListOptions::parse(entityId, id, lines)?;
    documents::list_answer::<StockTake>(user.scope(), options, q, db).await
}

#[post("/stock-takes", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<NewStockTake>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<StockTake>> {
    let scope = user.scope();
    let b = body.into_inner();
    let take = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create_stock_take(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(Created(take))
}

#[put("/stock-takes", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<StockTakeUpdate>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let b = body.into_inner();
    let take = db
        .write_as(scope.actor().to_owned(), move |tx| {
            update_stock_take(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(data(take))
}

#[delete("/stock-takes", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let id = body.id()?;
    db.write_as(scope.actor().to_owned(), move |tx| {
        delete_stock_take(tx, &scope, &id)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_17_fills_in_the_line_figures_of_existing_stock_takes() {
        let (db, dir) = crate::db::upgraded_from(
            16,
            "INSERT INTO stock_takes (id, owner_id, entity_id, number_seq, number, location_id,
                 date_created)
             VALUES ('t1', 'u1', 'e1', 1, 'ST-001', 'l1', '2026-01-01T00:00:00Z'),
                    ('t2', 'u1', 'e1', 2, 'ST-002', 'l1', '2026-01-01T00:00:00Z'),
                    ('t3', 'u1', 'e1', 3, 'ST-003', 'l1', '2026-01-01T00:00:00Z');
             INSERT INTO stock_take_lines (id, stock_take_id, product_id, system_quantity,
                 counted_quantity)
             VALUES ('a', 't1', 'p1', 1000, 2000), ('b', 't1', 'p2', 0, NULL),
                    ('c', 't1', 'p3', 5000, 0), ('d', 't2', 'p1', 1000, NULL);",
        );
        let figures: Vec<(String, i64, i64)> = db
            .read_sync(|c| {
                let mut s =
                    c.prepare("SELECT id, line_count, counted_count FROM stock_takes ORDER BY id")?;
                let rows = s
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<Result<_, _>>()?;
                Ok(rows)
            })
            .unwrap();
        assert_eq!(
            figures,
            [
                ("t1".to_owned(), 3, 2),
                ("t2".to_owned(), 1, 0),
                ("t3".to_owned(), 0, 0)
            ]
        );
        drop(db);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
