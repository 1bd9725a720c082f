//! Transfer orders: `/api/transfer-orders` (docs/documents.md#transfer-order-states,
//! docs/documents.md#transfer-orders, docs/ledger.md#invariants).
//!
//! An order moves stock from a source location to a destination in two steps. Shipping
//! takes the units out of the source's `quantity` with `transfer_out` movements and holds
//! them as the source's `reserved_quantity`: while in transit they are in no location's
//! quantity and not in the product's `stock_qty` (docs/ledger.md#invariants). Receiving
//! puts what arrived into the destination with `transfer_in` movements and releases the
//! reservation; cancelling in transit gives the units back to the source with
//! `transfer_cancelled` movements. Every quantity change goes through
//! [`ledger::apply_movement`].

use std::collections::HashMap;

use rocket::serde::json::Json;
use rocket::{delete, get, post, put, routes, Route, State};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension, Row, Transaction};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::documents::{self, next_number, LinedDocument, ListOptions};
use super::ledger::{self, MovementType, NewMovement, Origin};
use super::lookup::{and_eq, location_ref, product_ref, LocationRef, ProductRef};
use super::stock_rows::{LocationBrief, ProductBrief};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::{Qty, MAX_MAGNITUDE};
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
pub enum TransferStatus {
    Draft,
    InTransit,
    Completed,
    Cancelled,
}

impl TransferStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::InTransit => "in_transit",
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The status stored in column `col`; any other text is a damaged record
    /// (docs/operations.md#damaged-records).
    pub fn from_db(col: usize, s: &str) -> rusqlite::Result<Self> {
        match s {
            "draft" => Ok(Self::Draft),
            "in_transit" => Ok(Self::InTransit),
            "completed" => Ok(Self::Completed),
            "cancelled" => Ok(Self::Cancelled),
            other => Err(rusqlite::Error::FromSqlConversionFailure(
                col,
                rusqlite::types::Type::Text,
                format!("`{other}`, not a transfer order status").into(),
            )),
        }
    }

    /// A target status sent in a PUT: only the values of docs/documents.md#transfer-order-states
    /// (400 otherwise).
    fn parse_target(s: &str) -> AppResult<Self> {
        match s {
            "in_transit" => Ok(Self::InTransit),
            "completed" => Ok(Self::Completed),
            "cancelled" => Ok(Self::Cancelled),
            _ => Err(AppError::invalid(
                "status",
                "must be `in_transit`, `completed` or `cancelled`",
            )),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TransferOrder {
    pub id: String,
    pub number: String,
    pub source_location_id: LocationBrief,
    pub destination_location_id: LocationBrief,
    pub status: TransferStatus,
    pub notes: Option<String>,
    pub entity_id: String,
    pub date_created: String,
    pub date_completed: Option<String>,
    /// Omitted from a list asked for without lines (docs/documents.md#lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<TransferLine>>,
    /// How many lines it has, and the sum of their quantities.
    pub line_count: i64,
    pub total_quantity: Qty,
}

#[derive(Debug, Clone, Serialize)]
pub struct TransferLine {
    pub id: String,
    pub product_id: ProductBrief,
    pub quantity: Qty,
    pub received_quantity: Qty,
}

impl TransferOrder {
    /// Its lines (none when it was listed without them).
    pub fn lines(&self) -> &[TransferLine] {
        self.lines.as_deref().unwrap_or_default()
    }
}

impl LinedDocument for TransferOrder {
    type Line = TransferLine;
    const LABEL: &'static str = "Transfer order";
    const TABLE: &'static str = "transfer_orders";
    const PREFIX: &'static str = "TO";
    const SELECT: &'static str = "SELECT o.id, o.number, sl.id, sl.name, dl.id, dl.name, o.status,
            o.notes, o.entity_id, o.date_created, o.date_completed
         FROM transfer_orders o
         JOIN warehouse_locations sl ON sl.id = o.source_location_id
         JOIN warehouse_locations dl ON dl.id = o.destination_location_id";
    const ALIAS: &'static str = "o";
    const LINE_TABLE: &'static str = "transfer_order_lines";
    const LINE_PARENT: &'static str = "order_id";
    const LINES: &'static str =
        "SELECT tl.order_id, tl.id, p.id, p.name, p.sku, tl.quantity, tl.received_quantity
         FROM transfer_order_lines tl JOIN products p ON p.id = tl.product_id
         WHERE tl.order_id IN ({ids}) ORDER BY tl.seq";
    // One row a line: a sum in SQL could overflow its 64-bit integer, a Qty sum cannot.
    const LINE_FIGURES: &'static str =
        "SELECT order_id, quantity FROM transfer_order_lines WHERE order_id IN ({ids})";

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: r.get(0)?,
            number: r.get(1)?,
            source_location_id: LocationBrief {
                id: r.get(2)?,
                name: r.get(3)?,
            },
            destination_location_id: LocationBrief {
                id: r.get(4)?,
                name: r.get(5)?,
            },
            status: TransferStatus::from_db(6, &r.get::<_, String>(6)?)?,
            notes: r.get(7)?,
            entity_id: r.get(8)?,
            date_created: r.get(9)?,
            date_completed: r.get(10)?,
            lines: None,
            line_count: 0,
            total_quantity: Qty::from_i64(0),
        })
    }

    fn line_from_row(r: &Row<'_>) -> rusqlite::Result<TransferLine> {
        Ok(TransferLine {
            id: r.get(1)?,
            product_id: ProductBrief {
                id: r.get(2)?,
                name: r.get(3)?,
                sku: r.get(4)?,
            },
            quantity: r.get(5)?,
            received_quantity: r.get(6)?,
        })
    }

    fn id(&self) -> &str {
        &self.id
    }

    fn set_lines(&mut self, lines: Vec<TransferLine>) {
        self.line_count = i64::try_from(lines.len()).unwrap_or(i64::MAX);
        self.total_quantity = lines.iter().map(|l| l.quantity).sum();
        self.lines = Some(lines);
    }

    fn add_line_figures(&mut self, r: &Row<'_>) -> rusqlite::Result<()> {
        self.line_count += 1;
        self.total_quantity = self.total_quantity + r.get::<_, Qty>(1)?;
        Ok(())
    }
}

/// A stored line, as the transitions use it.
struct StoredLine {
    id: String,
    product_id: String,
    quantity: Qty,
}

fn load_lines(tx: &Transaction, order_id: &str) -> AppResult<Vec<StoredLine>> {
    let mut stmt = tx.prepare_cached(
        "SELECT id, product_id, quantity FROM transfer_order_lines WHERE order_id = ?1 ORDER BY seq",
    )?;
    let lines = stmt
        .query_map([order_id], |r| {
            Ok(StoredLine {
                id: r.get(0)?,
                product_id: r.get(1)?,
                quantity: r.get(2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(lines)
}

/// A line as sent on create or on a draft PUT.
#[derive(Debug, Deserialize)]
pub struct NewTransferLine {
    pub product_id: String,
    pub quantity: Qty,
}

/// Checks what can be checked without the database: ids are UUIDs, quantities above 0,
/// at least one line (409, a business refusal: docs/conventions.md#business-refusals).
fn check_new_lines(lines: Vec<NewTransferLine>) -> AppResult<Vec<(String, Qty)>> {
    if lines.is_empty() {
        return Err(AppError::refused(
            "invalid_transfer",
            "A transfer order needs at least one line",
        ));
    }
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let pid = parse_id(&format!("lines[{i}].product_id"), &l.product_id)?;
            if l.quantity.is_sign_negative() || l.quantity.is_zero() {
                return Err(AppError::invalid(
                    &format!("lines[{i}].quantity"),
                    "must be greater than 0",
                ));
            }
            Ok((pid, l.quantity))
        })
        .collect()
}

/// Resolves line products: 404 unknown or foreign, 400 of another entity or deactivated
/// (docs/inventory.md#deactivated-products: deactivated products are not selectable on transfer
/// lines).
fn resolve_lines(
    tx: &Transaction,
    scope: &Scope,
    entity_id: &str,
    lines: &[(String, Qty)],
) -> AppResult<()> {
    for (i, (pid, _)) in lines.iter().enumerate() {
        let field = format!("lines[{i}].product_id");
        let p = product_ref(tx, scope, pid)?;
        same_entity(&field, p.entity_id.as_deref(), Some(entity_id))?;
        if !p.active {
            return Err(AppError::invalid(
                &field,
                format!("product {} is deactivated", p.sku),
            ));
        }
    }
    Ok(())
}

fn insert_lines(tx: &Transaction, order_id: &str, lines: &[(String, Qty)]) -> AppResult<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO transfer_order_lines (id, order_id, product_id, quantity, received_quantity)
         VALUES (?1, ?2, ?3, ?4, 0)",
    )?;
    for (pid, qty) in lines {
        stmt.execute(params![
            uuid::Uuid::new_v4().to_string(),
            order_id,
            pid,
            qty
        ])?;
    }
    Ok(())
}

fn require_active(loc: &LocationRef, what: &str) -> AppResult<()> {
    if loc.active {
        Ok(())
    } else {
        Err(AppError::refused(
            "inactive_record",
            format!("Location {} is inactive: {what}", loc.name),
        ))
    }
}

/// The body of a create (`POST /api/transfer-orders`).
#[derive(Debug, Deserialize)]
pub struct NewTransfer {
    pub source_location_id: String,
    pub destination_location_id: String,
    #[serde(default)]
    pub entity_id: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<NewTransferLine>>,
}

/// Creates a draft transfer order: two different active locations of one entity (the
/// one named, else the source's), at least one line of an active product of that entity.
pub fn create_transfer(
    tx: &Transaction,
    scope: &Scope,
    b: NewTransfer,
    ctx: &Ctx,
) -> AppResult<TransferOrder> {
    let source = parse_id("source_location_id", &b.source_location_id)?;
    let destination = parse_id("destination_location_id", &b.destination_location_id)?;
    // An omitted `lines` is a missing field (400); an empty list is the business refusal
    // below (409): docs/documents.md#transfer-orders.
    let lines = b.lines.ok_or_else(|| AppError::missing("lines"))?;
    if source == destination {
        return Err(AppError::refused(
            "invalid_transfer",
            "The source and destination of a transfer order must be different locations",
        ));
    }
    let lines = check_new_lines(lines)?;
    let src = location_ref(tx, scope, &source)?;
    let dst = location_ref(tx, scope, &destination)?;
    let entity = match b.entity_id.as_deref().filter(|e| !e.is_empty()) {
        Some(raw) => scope.entity(tx, "entity_id", raw)?,
        None => src.entity_id.clone(),
    };
    same_entity(
        "source_location_id",
        Some(&src.entity_id),
        Some(entity.as_str()),
    )?;
    same_entity(
        "destination_location_id",
        Some(&dst.entity_id),
        Some(entity.as_str()),
    )?;
    require_active(&src, "it cannot be the source of a new transfer order")?;
    require_active(&dst, "it cannot be the destination of a new transfer order")?;
    resolve_lines(tx, scope, &entity, &lines)?;
    let (seq, number) = next_number::<TransferOrder>(tx, &entity)?;
    let id = uuid::Uuid::new_v4().to_string();
    tx.execute(
        "INSERT INTO transfer_orders (id, owner_id, entity_id, number_seq, number,
             source_location_id, destination_location_id, status, notes, date_created)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'draft', ?8, ?9)",
        params![
            id,
            src.owner_id,
            entity,
            seq,
            number,
            src.id,
            dst.id,
            clean(b.notes),
            ctx.now
        ],
    )?;
    insert_lines(tx, &id, &lines)?;
    let order: TransferOrder = documents::get(tx, scope, &id)?;
    changed(tx, scope, &order, ctx)?;
    Ok(order)
}

/// The `transfer_order.updated` event of a created or changed order (docs/webhooks.md#events).
fn changed(tx: &Transaction, scope: &Scope, order: &TransferOrder, ctx: &Ctx) -> AppResult<()> {
    crate::webhooks::outbox::emit(
        tx,
        &scope.owner_for(tx, Some(&order.entity_id))?,
        Some(&order.entity_id),
        crate::webhooks::outbox::TRANSFER_ORDER_UPDATED,
        order,
        &ctx.now,
    )
}

/// A line in a PUT: `{product_id, quantity}` to replace a draft's lines, or
/// `{id, received_quantity}` for a short receipt when the PUT completes the order.
#[derive(Debug, Default, Deserialize)]
pub struct TransferLineUpdate {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub product_id: Option<String>,
    #[serde(default)]
    pub quantity: Option<Qty>,
    #[serde(default, deserialize_with = "nullable")]
    pub received_quantity: Option<Option<Qty>>,
}

/// The body of a PUT: lines, notes and a status change, each optional.
#[derive(Debug, Default, Deserialize)]
pub struct TransferUpdate {
    pub id: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "crate::http::body::at_most_lines")]
    pub lines: Option<Vec<TransferLineUpdate>>,
    #[serde(default, deserialize_with = "nullable")]
    pub notes: Option<Option<String>>,
}

/// Applies a PUT: the lines (a draft's new lines, or the receipts of the completing
/// PUT), then the notes (draft only), then the status change as
/// docs/documents.md#transfer-order-states allows. A refusal anywhere leaves the order
/// as it was (the caller's transaction is rolled back).
pub fn update_transfer(
    tx: &Transaction,
    scope: &Scope,
    b: TransferUpdate,
    ctx: &Ctx,
) -> AppResult<TransferOrder> {
    let id = parse_id("id", &b.id)?;
    let target = b
        .status
        .as_deref()
        .map(TransferStatus::parse_target)
        .transpose()?;
    let head: TransferOrder = documents::get(tx, scope, &id)?;
    let mut receipts = HashMap::new();
    if let Some(lines) = b.lines {
        if target == Some(TransferStatus::Completed) {
            receipts = check_receipts(tx, &head, lines)?;
        } else {
            replace_lines(tx, scope, &head, lines)?;
        }
    }
    if let Some(notes) = b.notes {
        let notes = clean(notes);
        if notes != head.notes {
            if head.status != TransferStatus::Draft {
                return Err(AppError::refused(
                    "invalid_state",
                    format!(
                        "Transfer order {} is {}: its notes can only be changed while draft",
                        head.number,
                        head.status.as_str()
                    ),
                ));
            }
            documents::set_notes::<TransferOrder>(tx, &head.id, notes.as_deref())?;
        }
    }
    if let Some(target) = target {
        transition(tx, scope, ctx, &head, target, &receipts)?;
    }
    let order: TransferOrder = documents::get(tx, scope, &id)?;
    changed(tx, scope, &order, ctx)?;
    Ok(order)
}

/// Replaces the lines of a draft (409 once it has left draft).
fn replace_lines(
    tx: &Transaction,
    scope: &Scope,
    head: &TransferOrder,
    lines: Vec<TransferLineUpdate>,
) -> AppResult<()> {
    if head.status != TransferStatus::Draft {
        return Err(AppError::refused(
            "invalid_state",
            format!(
                "Transfer order {} is {}: its lines can only be changed while draft",
                head.number,
                head.status.as_str()
            ),
        ));
    }
    let lines = lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            Ok(NewTransferLine {
                product_id: l
                    .product_id
                    .ok_or_else(|| AppError::missing(&format!("lines[{i}].product_id")))?,
                quantity: l
                    .quantity
                    .ok_or_else(|| AppError::missing(&format!("lines[{i}].quantity")))?,
            })
        })
        .collect::<AppResult<Vec<_>>>()?;
    let lines = check_new_lines(lines)?;
    resolve_lines(tx, scope, &head.entity_id, &lines)?;
    tx.execute(
        "DELETE FROM transfer_order_lines WHERE order_id = ?1",
        [&head.id],
    )?;
    insert_lines(tx, &head.id, &lines)
}

/// Checks a short receipt: each entry names a line of this order and a received quantity
/// from 0 to the line's quantity (400 otherwise). Lines not named arrive in full.
fn check_receipts(
    tx: &Transaction,
    head: &TransferOrder,
    lines: Vec<TransferLineUpdate>,
) -> AppResult<HashMap<String, Qty>> {
    let stored = load_lines(tx, &head.id)?;
    // Receipts are matched to lines through an index, not a search per receipt: an order
    // may hold 10,000 lines (docs/limits.md#lists).
    let by_id: HashMap<&str, &StoredLine> = stored.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut receipts = HashMap::new();
    for (i, l) in lines.into_iter().enumerate() {
        let field = format!("lines[{i}].id");
        let raw = l.id.ok_or_else(|| AppError::missing(&field))?;
        let line_id = parse_id(&field, &raw)?;
        let line = by_id.get(line_id.as_str()).ok_or_else(|| {
            AppError::invalid(
                &field,
                format!("not a line of transfer order {}", head.number),
            )
        })?;
        let received = l
            .received_quantity
            .flatten()
            .ok_or_else(|| AppError::missing(&format!("lines[{i}].received_quantity")))?;
        if received.is_sign_negative() || received > line.quantity {
            return Err(AppError::invalid(
                &format!("lines[{i}].received_quantity"),
                format!("must be from 0 to the line quantity {}", line.quantity),
            ));
        }
        receipts.insert(line_id, received);
    }
    Ok(receipts)
}

/// Applies a status change as docs/documents.md#transfer-order-states allows; anything else is 409.
fn transition(
    tx: &Transaction,
    scope: &Scope,
    ctx: &Ctx,
    head: &TransferOrder,
    target: TransferStatus,
    receipts: &HashMap<String, Qty>,
) -> AppResult<()> {
    use TransferStatus::{Cancelled, Completed, Draft, InTransit};
    match (head.status, target) {
        (Draft, InTransit) => ship(tx, scope, ctx, head),
        (InTransit, Completed) => receive(tx, scope, ctx, head, receipts),
        (Draft, Cancelled) => set_status(tx, head, Cancelled, None),
        (InTransit, Cancelled) => cancel_in_transit(tx, scope, ctx, head),
        (Completed, Cancelled) => Err(AppError::refused(
            "invalid_transition",
            format!(
                "Transfer order {} is completed and cannot be cancelled",
                head.number
            ),
        )),
        (from, to) => Err(AppError::refused(
            "invalid_transition",
            format!(
                "Transfer order {} cannot go from {} to {}",
                head.number,
                from.as_str(),
                to.as_str()
            ),
        )),
    }
}

fn set_status(
    tx: &Transaction,
    head: &TransferOrder,
    status: TransferStatus,
    date_completed: Option<&str>,
) -> AppResult<()> {
    tx.execute(
        "UPDATE transfer_orders SET status = ?1, date_completed = ?2 WHERE id = ?3",
        params![status.as_str(), date_completed, head.id],
    )?;
    Ok(())
}

/// The products of `lines` with their summed quantities, in order of first appearance.
fn totals_by_product(lines: &[StoredLine]) -> Vec<(String, Qty)> {
    let mut totals: Vec<(String, Qty)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for l in lines {
        match index.get(l.product_id.as_str()) {
            Some(&at) => totals[at].1 = totals[at].1 + l.quantity,
            None => {
                index.insert(&l.product_id, totals.len());
                totals.push((l.product_id.clone(), l.quantity));
            }
        }
    }
    totals
}

/// Products of an order, loaded once each.
fn products_of(
    tx: &Transaction,
    scope: &Scope,
    lines: &[StoredLine],
) -> AppResult<HashMap<String, ProductRef>> {
    let mut products = HashMap::new();
    for l in lines {
        if !products.contains_key(&l.product_id) {
            products.insert(l.product_id.clone(), product_ref(tx, scope, &l.product_id)?);
        }
    }
    Ok(products)
}

fn movement(
    tx: &Transaction,
    ctx: &Ctx,
    head: &TransferOrder,
    product: &ProductRef,
    location: &LocationRef,
    qty: Qty,
    kind: MovementType,
) -> AppResult<()> {
    ledger::apply_movement(
        tx,
        &NewMovement {
            product,
            location: Some(location),
            qty,
            kind,
            reference: Some(head.number.clone()),
            notes: None,
            date: ctx.today,
            unit_cost: None,
            origin: Origin::System,
        },
        false,
        &ctx.now,
    )?;
    Ok(())
}

/// Adds `delta` to a stock row's reserved quantity; answers the new figure.
fn change_reserved(
    tx: &Transaction,
    product_id: &str,
    location_id: &str,
    delta: Qty,
    now: &str,
) -> AppResult<Qty> {
    tx.prepare_cached(
        "UPDATE warehouse_stock SET reserved_quantity = reserved_quantity + ?1, updated_at = ?4
         WHERE product_id = ?2 AND location_id = ?3
         RETURNING reserved_quantity",
    )?
    .query_row(params![delta, product_id, location_id, now], |r| r.get(0))
    .optional()?
    .ok_or_else(|| {
        AppError::internal(format!(
            "no stock row for product {product_id} at location {location_id}"
        ))
    })
}

/// draft -> in_transit: every product's summed line quantity must be at the source, or
/// nothing changes (409 naming the product, needed and available). Shipping always needs
/// the stock, whatever `allow_negative_stock` says
/// (docs/documents.md#transfer-stock-effects).
fn ship(tx: &Transaction, scope: &Scope, ctx: &Ctx, head: &TransferOrder) -> AppResult<()> {
    let src = location_ref(tx, scope, &head.source_location_id.id)?;
    let dst = location_ref(tx, scope, &head.destination_location_id.id)?;
    require_active(&src, &format!("transfer order {} cannot ship", head.number))?;
    require_active(&dst, &format!("transfer order {} cannot ship", head.number))?;
    let lines = load_lines(tx, &head.id)?;
    let products = products_of(tx, scope, &lines)?;
    let totals = totals_by_product(&lines);
    for (pid, needed) in &totals {
        let held = ledger::stock_row_quantity(tx, pid, &src.id)?.unwrap_or(Qty::ZERO);
        if held < *needed {
            return Err(AppError::refused(
                "insufficient_stock",
                format!(
                    "Insufficient stock at {}: {} needs {}, has {} (transfer order {})",
                    src.name, products[pid].sku, needed, held, head.number
                ),
            ));
        }
    }
    for l in &lines {
        movement(
            tx,
            ctx,
            head,
            &products[&l.product_id],
            &src,
            -l.quantity,
            MovementType::TransferOut,
        )?;
    }
    for (pid, qty) in &totals {
        let reserved = change_reserved(tx, pid, &src.id, *qty, &ctx.now)?;
        // Each shipment is within what the source held, but a row's reservation can sum
        // several; it stays within the bound of every stock figure (docs/limits.md#numbers).
        if reserved.value() > Decimal::from(MAX_MAGNITUDE) {
            return Err(AppError::refused(
                "too_large",
                format!(
                    "Quantity too large: the reserved quantity of {} at {} would be {reserved}, \
                 above the {MAX_MAGNITUDE} a stock figure may reach (transfer order {})",
                    products[pid].sku, src.name, head.number
                ),
            ));
        }
    }
    set_status(tx, head, TransferStatus::InTransit, None)
}

/// in_transit -> completed: what arrived goes into the destination (row created when
/// absent), the whole reservation at the source is released, each line records what was
/// received. Completes even where a location has since been deactivated
/// (docs/inventory.md#inactive-locations).
fn receive(
    tx: &Transaction,
    scope: &Scope,
    ctx: &Ctx,
    head: &TransferOrder,
    receipts: &HashMap<String, Qty>,
) -> AppResult<()> {
    let src = location_ref(tx, scope, &head.source_location_id.id)?;
    let dst = location_ref(tx, scope, &head.destination_location_id.id)?;
    let lines = load_lines(tx, &head.id)?;
    let products = products_of(tx, scope, &lines)?;
    for l in &lines {
        let received = receipts.get(&l.id).copied().unwrap_or(l.quantity);
        if !received.is_zero() {
            movement(
                tx,
                ctx,
                head,
                &products[&l.product_id],
                &dst,
                received,
                MovementType::TransferIn,
            )?;
        }
        tx.prepare_cached("UPDATE transfer_order_lines SET received_quantity = ?1 WHERE id = ?2")?
            .execute(params![received, l.id])?;
    }
    for (pid, qty) in totals_by_product(&lines) {
        change_reserved(tx, &pid, &src.id, -qty, &ctx.now)?;
    }
    set_status(tx, head, TransferStatus::Completed, Some(&ctx.now))
}

/// in_transit -> cancelled: the units go back to the source with `transfer_cancelled`
/// movements and the reservation is released.
fn cancel_in_transit(
    tx: &Transaction,
    scope: &Scope,
    ctx: &Ctx,
    head: &TransferOrder,
) -> AppResult<()> {
    let src = location_ref(tx, scope, &head.source_location_id.id)?;
    let lines = load_lines(tx, &head.id)?;
    let products = products_of(tx, scope, &lines)?;
    for l in &lines {
        movement(
            tx,
            ctx,
            head,
            &products[&l.product_id],
            &src,
            l.quantity,
            MovementType::TransferCancelled,
        )?;
    }
    for (pid, qty) in totals_by_product(&lines) {
        change_reserved(tx, &pid, &src.id, -qty, &ctx.now)?;
    }
    set_status(tx, head, TransferStatus::Cancelled, None)
}

/// Deletes a draft transfer order and its lines (409 once it has left draft).
pub fn delete_transfer(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    let head: TransferOrder = documents::get(tx, scope, id)?;
    if head.status != TransferStatus::Draft {
        return Err(AppError::refused(
            "invalid_state",
            format!(
                "Transfer order {} is {} and cannot be deleted; only draft orders can",
                head.number,
                head.status.as_str()
            ),
        ));
    }
    documents::delete::<TransferOrder>(tx, id)
}

#[get("/transfer-orders?<entityId>&<id>&<lines>&<q..>")]
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
    documents::list_answer::<TransferOrder>(user.scope(), options, q, db).await
}

#[post("/transfer-orders", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<NewTransfer>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<TransferOrder>> {
    let scope = user.scope();
    let b = body.into_inner();
    let order = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create_transfer(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(Created(order))
}

#[put("/transfer-orders", data = "<body>")]
async fn update(
    user: SessionUser,
    body: JsonBody<TransferUpdate>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let b = body.into_inner();
    let order = db
        .write_as(scope.actor().to_owned(), move |tx| {
            update_transfer(tx, &scope, b, &ctx)
        })
        .await?;
    Ok(data(order))
}

#[delete("/transfer-orders", data = "<body>")]
async fn remove(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let id = body.id()?;
    db.write_as(scope.actor().to_owned(), move |tx| {
        delete_transfer(tx, &scope, &id)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}

/// Units held by in-transit transfer orders (from `source` when given) and their value at
/// the products' current cost price, both scaled: the in-transit figures of
/// docs/inventory.md#dashboard-figures and docs/inventory.md#valuation-report.
pub fn in_transit(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    source: Option<&str>,
) -> AppResult<(i128, i128)> {
    let (cond, mut args) = scope.condition(conn, "o");
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
