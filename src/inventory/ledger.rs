//! The stock-movement ledger: the single place where a stock quantity changes.
//!
//! [`apply_movement`] validates one movement, checks it cannot take stock below zero on
//! its date or any later date (docs/ledger.md#stock-over-time), updates the stock row
//! (creating it when absent) and the product's aggregate `stock_qty`, applies
//! weighted-average costing for purchases with a `unit_cost`, and appends the immutable
//! ledger row, all in the caller's transaction. So, after every request
//! (docs/ledger.md#invariants):
//!
//! 1. a stock row's `quantity` = Σ `qty` of the product's movements at that location;
//! 2. a product's `stock_qty` = Σ `qty` of all its movements (locations + unallocated).
//!
//! A movement dated on or before the lock date of its location's entity (the product's
//! entity when unallocated) is refused (409, docs/accounting.md#lock-date), whoever writes
//! it: a client, a transfer, a stock take or a document.
//!
//! Invoices and bills write their movements through [`apply_document_movement`], the same
//! function with the document's id attached (docs/documents-stock.md#the-one-rule): a
//! `sale` written for an invoice records the product's `cost_price` at that moment as its
//! `unit_cost` (the cost of sales), read here, inside the transaction that writes it.

use rusqlite::{params, OptionalExtension, Transaction};
use rust_decimal::Decimal;
use serde::Serialize;
use time::Date;

use super::lookup::{LocationRef, ProductRef};
use crate::db::decimal::{Price, Qty, MAX_MAGNITUDE};
use crate::error::{AppError, AppResult};
use crate::scope::same_entity;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementType {
    Purchase,
    Sale,
    Adjustment,
    Return,
    TransferIn,
    TransferOut,
    StockTake,
    TransferCancelled,
}

impl MovementType {
    pub const ALL: [Self; 8] = [
        Self::Purchase,
        Self::Sale,
        Self::Adjustment,
        Self::Return,
        Self::TransferIn,
        Self::TransferOut,
        Self::StockTake,
        Self::TransferCancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Purchase => "purchase",
            Self::Sale => "sale",
            Self::Adjustment => "adjustment",
            Self::Return => "return",
            Self::TransferIn => "transfer_in",
            Self::TransferOut => "transfer_out",
            Self::StockTake => "stock_take",
            Self::TransferCancelled => "transfer_cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// Who asks for the movement. A client (POST /api/stock-movements, stock row edits) is
/// held to the sign rules, may not write `transfer_cancelled`, and may not touch an
/// inactive location; the system (transfers, stock takes) completes documents that were
/// already under way there (docs/inventory.md#inactive-locations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Client,
    System,
}

#[derive(Debug, Clone)]
pub struct NewMovement<'a> {
    pub product: &'a ProductRef,
    pub location: Option<&'a LocationRef>,
    pub qty: Qty,
    pub kind: MovementType,
    pub reference: Option<String>,
    pub notes: Option<String>,
    pub date: Date,
    pub unit_cost: Option<Price>,
    pub origin: Origin,
}

/// A ledger row as the API shows it: `product_id` expanded, `location_id` a plain id.
#[derive(Debug, Clone, Serialize)]
pub struct Movement {
    pub id: String,
    pub product_id: MovementProduct,
    pub qty: Qty,
    #[serde(rename = "type")]
    pub kind: MovementType,
    pub location_id: Option<String>,
    pub reference: Option<String>,
    pub notes: Option<String>,
    pub date: String,
    pub unit_cost: Option<Price>,
    pub entity_id: Option<String>,
    /// The invoice or bill the movement was written for (docs/documents-stock.md#the-one-rule).
    pub document_id: Option<String>,
    pub created_at: String,
    /// A movement is never changed: the time it was recorded
    /// (docs/public-api.md#incremental-sync).
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct MovementProduct {
    pub id: String,
    pub name: String,
    pub sku: String,
}

/// Checks the sign rule of a movement type (docs/ledger.md#sign-rules): 400 on a breach.
pub fn check_sign(kind: MovementType, qty: Qty) -> AppResult<()> {
    if qty.is_zero() {
        return Err(AppError::invalid("qty", "must not be 0"));
    }
    let positive = !qty.is_sign_negative();
    match kind {
        MovementType::Purchase | MovementType::TransferIn if !positive => Err(AppError::invalid(
            "qty",
            format!("a {} must be positive", kind.as_str()),
        )),
        MovementType::Sale | MovementType::TransferOut if positive => Err(AppError::invalid(
            "qty",
            format!("a {} must be negative", kind.as_str()),
        )),
        _ => Ok(()),
    }
}

/// Refuses (400) a movement dated after `today`: stock that has not moved yet is not on
/// hand (docs/ledger.md#stock-over-time). The system's own movements are dated today.
pub fn not_after_today(field: &str, date: Date, today: Date) -> AppResult<()> {
    if date > today {
        return Err(AppError::invalid(
            field,
            format!("must not be after today ({today}): a movement records stock that has moved"),
        ));
    }
    Ok(())
}

/// Applies one movement in `tx`. See the module documentation.
pub fn apply_movement(
    tx: &Transaction,
    m: &NewMovement<'_>,
    allow_negative: bool,
    now: &str,
) -> AppResult<Movement> {
    apply(tx, m, None, allow_negative, now)
}

/// Applies one movement written for an invoice or a bill (`document_id`), with every rule
/// of [`apply_movement`]. A document may carry a `unit_cost` on any movement type; a
/// `sale` without one records the product's `cost_price` at this moment.
pub fn apply_document_movement(
    tx: &Transaction,
    m: &NewMovement<'_>,
    document_id: &str,
    allow_negative: bool,
    now: &str,
) -> AppResult<Movement> {
    apply(tx, m, Some(document_id), allow_negative, now)
}

fn apply(
    tx: &Transaction,
    m: &NewMovement<'_>,
    document_id: Option<&str>,
    allow_negative: bool,
    now: &str,
) -> AppResult<Movement> {
    let product = m.product;
    if m.origin == Origin::Client {
        if m.kind == MovementType::TransferCancelled {
            return Err(AppError::invalid(
                "type",
                "transfer_cancelled movements are made by the system only",
            ));
        }
        check_sign(m.kind, m.qty)?;
        if m.unit_cost.is_some() && m.kind != MovementType::Purchase && document_id.is_none() {
            return Err(AppError::invalid(
                "unit_cost",
                "only a purchase may carry a unit cost",
            ));
        }
    } else if m.qty.is_zero() {
        return Err(AppError::internal(
            "the system tried to write a zero movement",
        ));
    }

    movement_in_bounds(m)?;
    let entity = m
        .location
        .map(|l| l.entity_id.as_str())
        .or(product.entity_id.as_deref());
    crate::entities::lock::check_unlocked_on(tx, entity, m.date)?;

    // Current product figures, read inside the transaction (not from the caller's copy);
    // `active` and the threshold are for the low-stock event.
    let (stock_qty, cost_price, active, threshold): (Qty, Price, bool, Qty) = tx
        .prepare_cached(
            "SELECT stock_qty, cost_price, active, low_stock_threshold FROM products WHERE id = ?1",
        )?
        .query_row([&product.id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
    // The stock row after the movement and its reorder point, for the low-stock event.
    let mut at_location: Option<(Qty, Qty)> = None;

    if let Some(loc) = m.location {
        same_entity(
            "location_id",
            product.entity_id.as_deref(),
            Some(&loc.entity_id),
        )?;
        if m.origin == Origin::Client && !loc.active {
            return Err(AppError::refused(
                "inactive_record",
                format!(
                    "Location {} is inactive and cannot take stock changes",
                    loc.name
                ),
            ));
        }
        let row: Option<(Qty, Qty)> = tx
            .prepare_cached(
                "SELECT quantity, reorder_point FROM warehouse_stock
                 WHERE product_id = ?1 AND location_id = ?2",
            )?
            .query_row([&product.id, &loc.id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let held = row.map(|(q, _)| q);
        let after = held.unwrap_or(Qty::ZERO) + m.qty;
        at_location = Some((after, row.map_or(Qty::ZERO, |(_, reorder)| reorder)));
        storable(
            held.unwrap_or(Qty::ZERO),
            after,
            || format!("at {}", loc.name),
            product,
        )?;
        if !allow_negative {
            if let Some(b) = over_time(tx, m, Some(&loc.id), held.unwrap_or(Qty::ZERO), now)? {
                return Err(b.refusal(&format!("stock at {}", loc.name), product, m.qty));
            }
        }
        match held {
            Some(_) => {
                tx.prepare_cached(
                    "UPDATE warehouse_stock SET quantity = ?1, updated_at = ?4
                     WHERE product_id = ?2 AND location_id = ?3",
                )?
                .execute(params![after, product.id, loc.id, now])?;
            }
            None => {
                insert_stock_row(tx, product, loc, after, Qty::ZERO, now)?;
            }
        }
    } else {
        if !allow_negative {
            let unallocated = stock_qty - located_total(tx, &product.id)?;
            if let Some(b) = over_time(tx, m, None, unallocated, now)? {
                return Err(b.refusal("unallocated stock", product, m.qty));
            }
        }
    }

    storable(
        stock_qty,
        stock_qty + m.qty,
        || "in all".to_owned(),
        product,
    )?;
    let unit_cost = match (document_id, m.kind, m.unit_cost) {
        (Some(_), MovementType::Sale, None) => Some(cost_price),
        (_, _, given) => given,
    };
    let mut new_cost = cost_price;
    if let (MovementType::Purchase, Some(unit_cost)) = (m.kind, unit_cost) {
        new_cost = weighted_average_cost(stock_qty, cost_price, m.qty, unit_cost);
    }
    tx.prepare_cached(
        "UPDATE products SET stock_qty = ?1, cost_price = ?2, updated_at = ?3 WHERE id = ?4",
    )?
    .execute(params![stock_qty + m.qty, new_cost, now, product.id])?;

    let mv = Movement {
        // Time-ordered, like every ledger and document row (docs/architecture.md#row-ids).
        id: uuid::Uuid::now_v7().to_string(),
        product_id: MovementProduct {
            id: product.id.clone(),
            name: product.name.clone(),
            sku: product.sku.clone(),
        },
        qty: m.qty,
        kind: m.kind,
        location_id: m.location.map(|l| l.id.clone()),
        reference: m.reference.clone(),
        notes: m.notes.clone(),
        date: m.date.to_string(),
        unit_cost,
        entity_id: product.entity_id.clone(),
        document_id: document_id.map(str::to_owned),
        created_at: now.to_owned(),
        updated_at: now.to_owned(),
    };
    tx.prepare_cached(
        "INSERT INTO stock_movements (id, owner_id, entity_id, product_id, location_id, qty, type,
             reference, notes, date, unit_cost, created_at, document_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![
        mv.id,
        product.owner_id,
        mv.entity_id,
        product.id,
        mv.location_id,
        mv.qty,
        mv.kind.as_str(),
        mv.reference,
        mv.notes,
        mv.date,
        mv.unit_cost,
        now,
        mv.document_id
    ])?;
    // Webhook events, in this same transaction (docs/webhooks.md#events).
    super::events::movement_recorded(
        tx,
        &super::events::Recorded {
            product,
            location: m.location,
            entity_id: mv.entity_id.as_deref(),
            qty: mv.qty,
            created_at: &mv.created_at,
        },
        &super::events::Figures {
            active,
            total: stock_qty + m.qty,
            threshold,
            at_location,
        },
    )?;
    Ok(mv)
}

/// Where a movement would take a running balance below zero ([`over_time`]).
struct Breach {
    /// The earliest day whose closing balance would be below zero.
    date: String,
    /// The balance at the end of that day without the movement.
    has: Qty,
    /// Is `date` today (then the message need not name it)?
    today: bool,
}

impl Breach {
    /// The 409 (docs/ledger.md#negative-stock): `Insufficient <what>[ on <date>]: <sku>
    /// needs <n>, has <m>`, the date named unless it is today.
    fn refusal(&self, what: &str, product: &ProductRef, qty: Qty) -> AppError {
        let on = if self.today {
            String::new()
        } else {
            format!(" on {}", self.date)
        };
        AppError::refused(
            "insufficient_stock",
            format!(
                "Insufficient {what}{on}: {} needs {}, has {}",
                product.sku, -qty, self.has
            ),
        )
    }
}

/// Judges the movement `m` over time (docs/ledger.md#stock-over-time): after it, the
/// running balance of its product at its place (`location_id`, or the unallocated stock
/// when `None`) at the end of its date and of every later date must be at or above zero.
/// `current` is that place's balance now, before the movement (every movement counted,
/// whatever its date). Reads only the movements of that product at that place dated
/// after `m.date`, newest day first, through the index `stock_movements_as_of` (product,
/// location, date, qty): for a movement dated today, none but a future-dated one written
/// before the rule, so the check costs one index probe more than a look at the current
/// figure. The earliest day that breaks is the one named.
fn over_time(
    tx: &Transaction,
    m: &NewMovement<'_>,
    location_id: Option<&str>,
    current: Qty,
    now: &str,
) -> AppResult<Option<Breach>> {
    let scaled = |q: Qty| i128::from(q.to_scaled().unwrap_or(i64::MAX));
    let qty = scaled(m.qty);
    let date = m.date.to_string();
    let mut stmt = match location_id {
        Some(_) => tx.prepare_cached(
            "SELECT date, qty FROM stock_movements
             WHERE product_id = ?1 AND location_id = ?2 AND date > ?3
             ORDER BY date DESC",
        )?,
        None => tx.prepare_cached(
            "SELECT date, qty FROM stock_movements
             WHERE product_id = ?1 AND location_id IS NULL AND date > ?3
             ORDER BY date DESC",
        )?,
    };
    let mut rows = match location_id {
        Some(l) => stmt.query(params![m.product.id, l, date])?,
        None => stmt.query(params![m.product.id, rusqlite::types::Null, date])?,
    };
    // `balance` is the balance at the end of a day, with the movement counted: it starts
    // as the balance after the last dated day, and each day gives back its own movements
    // once it has been judged, leaving the balance at the end of the day before.
    let mut balance = scaled(current) + qty;
    let mut day: Option<String> = None;
    let mut earliest: Option<(String, i128)> = None;
    while let Some(r) = rows.next()? {
        let d = r.get_ref(0)?.as_str().map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
        })?;
        if day.as_deref() != Some(d) {
            if balance < 0 {
                earliest = Some((d.to_owned(), balance));
            }
            day = Some(d.to_owned());
        }
        balance -= i128::from(r.get::<_, i64>(1)?);
    }
    // Now the balance at the end of the movement's own date (the movement counted last in
    // its day).
    if balance < 0 {
        earliest = Some((date, balance));
    }
    let Some((date, after)) = earliest else {
        return Ok(None);
    };
    let today = crate::clock::parse_rfc3339(now).map(|t| t.date().to_string());
    let before = i64::try_from(after - qty).unwrap_or(i64::MIN);
    Ok(Some(Breach {
        today: today.as_deref() == Some(date.as_str()),
        date,
        has: Qty::from_scaled(before),
    }))
}

/// Refuses (409) a stock figure past the bound every quantity of the service keeps: a
/// magnitude of 10^12 (docs/limits.md#numbers). Each movement is within it when it
/// arrives, but their sum need not be, and a stock figure the API reports must still be
/// one it would accept. A figure already past the bound (written before the rule) may
/// only move back towards it.
fn storable(
    before: Qty,
    after: Qty,
    place: impl FnOnce() -> String,
    product: &ProductRef,
) -> AppResult<()> {
    let max = Decimal::from(MAX_MAGNITUDE);
    let size = after.value().abs();
    if size <= max || size < before.value().abs() {
        return Ok(());
    }
    Err(AppError::refused(
        "too_large",
        format!(
            "Quantity too large: the stock of {} {} would be {after}, above the {MAX_MAGNITUDE} \
         a stock figure may reach",
            product.sku,
            place(),
        ),
    ))
}

/// Refuses (409) a movement the system would derive with a magnitude past 10^12 (the
/// difference between a negative stock and a new figure): the API would report a
/// quantity it does not accept (docs/limits.md#numbers).
fn movement_in_bounds(m: &NewMovement<'_>) -> AppResult<()> {
    if m.qty.value().abs() <= Decimal::from(MAX_MAGNITUDE) {
        return Ok(());
    }
    Err(AppError::refused(
        "too_large",
        format!(
            "Quantity too large: the movement of {} would be {}, above the {MAX_MAGNITUDE} a \
         movement may carry",
            m.product.sku, m.qty
        ),
    ))
}

/// `(old_qty * old_cost + qty * unit_cost) / (old_qty + qty)` to 4 dp; with no positive
/// stock before, the unit cost itself (docs/ledger.md#weighted-average-cost).
pub fn weighted_average_cost(old_qty: Qty, old_cost: Price, qty: Qty, unit_cost: Price) -> Price {
    if old_qty.value() <= Decimal::ZERO {
        return unit_cost;
    }
    let total = old_qty.value() + qty.value();
    let value = old_qty.value() * old_cost.value() + qty.value() * unit_cost.value();
    Price::rounded(value / total)
}

/// The quantity of a stock row, or `None` when the row does not exist.
pub fn stock_row_quantity(
    tx: &Transaction,
    product_id: &str,
    location_id: &str,
) -> AppResult<Option<Qty>> {
    Ok(tx
        .prepare_cached(
            "SELECT quantity FROM warehouse_stock WHERE product_id = ?1 AND location_id = ?2",
        )?
        .query_row([product_id, location_id], |r| r.get(0))
        .optional()?)
}

/// Σ quantity of a product over its stock rows.
pub fn located_total(tx: &Transaction, product_id: &str) -> AppResult<Qty> {
    let scaled: i64 = tx
        .prepare_cached(
            "SELECT COALESCE(SUM(quantity), 0) FROM warehouse_stock WHERE product_id = ?1",
        )?
        .query_row([product_id], |r| r.get(0))?;
    Ok(Qty::from_scaled(scaled))
}

/// Creates a stock row (used by the ledger and by the stock-row upsert).
pub fn insert_stock_row(
    tx: &Transaction,
    product: &ProductRef,
    loc: &LocationRef,
    quantity: Qty,
    reorder_point: Qty,
    now: &str,
) -> AppResult<String> {
    let id = uuid::Uuid::now_v7().to_string();
    tx.prepare_cached(
        "INSERT INTO warehouse_stock (id, owner_id, entity_id, product_id, location_id, quantity,
             reorder_point, reserved_quantity, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?8)",
    )?
    .execute(params![
        id,
        product.owner_id,
        loc.entity_id,
        product.id,
        loc.id,
        quantity,
        reorder_point,
        now
    ])?;
    Ok(id)
}
