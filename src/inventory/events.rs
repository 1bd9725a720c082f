//! The webhook events a stock movement causes (docs/webhooks.md#events), written in the
//! movement's transaction by the ledger. `stock_movement.created` needs nothing here: the
//! ledger row is its record, and `webhooks::outbox::catch_up` makes its deliveries.
//! This writes `stock.low` when the movement takes the product (its total against
//! `low_stock_threshold`) or its stock row (against `reorder_point`) from above the
//! threshold to at or below it, the alert of docs/inventory.md#low-stock-alerts.
//! A figure already in alert that falls further sends nothing: only entering the state
//! does, once, until a movement has taken it out again.

use rusqlite::Transaction;

use super::alerts::{Alert, AlertLevel};
use super::lookup::{LocationRef, ProductRef};
use super::stock_rows::{LocationBrief, ProductBrief};
use crate::db::decimal::Qty;
use crate::error::AppResult;
use crate::webhooks::outbox;

/// The movement the ledger has just written: its product and location, entity, quantity
/// and time of writing.
pub struct Recorded<'a> {
    pub product: &'a ProductRef,
    pub location: Option<&'a LocationRef>,
    pub entity_id: Option<&'a str>,
    pub qty: Qty,
    pub created_at: &'a str,
}

/// What the ledger knows once it has written a movement: the product's figures after it
/// and, for a located movement, its stock row's quantity after it and reorder point. The
/// ledger read them in its own queries; the events need no query of their own.
pub struct Figures {
    pub active: bool,
    /// The product's `stock_qty` after the movement.
    pub total: Qty,
    /// The product's `low_stock_threshold`.
    pub threshold: Qty,
    /// (quantity after, reorder point) of the stock row at the movement's location.
    pub at_location: Option<(Qty, Qty)>,
}

/// Emits the events of `mv`, just written by the ledger, with `figures`.
pub fn movement_recorded(tx: &Transaction, mv: &Recorded<'_>, figures: &Figures) -> AppResult<()> {
    if !outbox::any_active() {
        return Ok(());
    }
    let product = mv.product;
    let owner = product.owner_id.as_str();
    let now = mv.created_at;
    let Figures {
        active,
        total,
        threshold,
        at_location,
    } = *figures;
    if !active {
        return Ok(());
    }
    let entered = |after: Qty, limit: Qty| after <= limit && after - mv.qty > limit;
    let brief = || ProductBrief {
        id: product.id.clone(),
        name: product.name.clone(),
        sku: product.sku.clone(),
    };
    if entered(total, threshold) {
        let alert = Alert {
            level: AlertLevel::Global,
            product_id: brief(),
            location_id: None,
            quantity: total,
            threshold,
        };
        outbox::emit(tx, owner, mv.entity_id, outbox::STOCK_LOW, &alert, now)?;
    }
    if let (Some(loc), Some((quantity, reorder))) = (mv.location, at_location) {
        if entered(quantity, reorder) {
            let alert = Alert {
                level: AlertLevel::Location,
                product_id: brief(),
                location_id: Some(LocationBrief {
                    id: loc.id.clone(),
                    name: loc.name.clone(),
                }),
                quantity,
                threshold: reorder,
            };
            outbox::emit(
                tx,
                owner,
                Some(&loc.entity_id),
                outbox::STOCK_LOW,
                &alert,
                now,
            )?;
        }
    }
    Ok(())
}
