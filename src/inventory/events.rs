//! The webhook events a stock movement causes (docs/webhooks.md#events), written in the
//! movement's transaction by the ledger: `stock_movement.created` with the movement as
//! the API shows it, and `stock.low` when the movement takes the product (its total
//! against `low_stock_threshold`) or its stock row (against `reorder_point`) from above
//! the threshold to at or below it, the alert of docs/inventory.md#low-stock-alerts.
//! A figure already in alert that falls further sends nothing: only entering the state
//! does, once, until a movement has taken it out again.

use rusqlite::{OptionalExtension, Transaction};

use super::ledger::{Movement, NewMovement};
use super::reports::{Alert, AlertLevel};
use super::stock_rows::{LocationBrief, ProductBrief};
use crate::db::decimal::Qty;
use crate::error::AppResult;
use crate::webhooks::outbox;

/// Emits the events of `mv`, just written by the ledger for `m`.
pub fn movement_recorded(tx: &Transaction, m: &NewMovement<'_>, mv: &Movement) -> AppResult<()> {
    if !outbox::any_active() {
        return Ok(());
    }
    let product = m.product;
    let owner = product.owner_id.as_str();
    let now = mv.created_at.as_str();
    outbox::emit(
        tx,
        owner,
        mv.entity_id.as_deref(),
        outbox::STOCK_MOVEMENT_CREATED,
        mv,
        now,
    )?;

    type Figures = (bool, Qty, Qty, Option<Qty>, Option<Qty>);
    let figures: Option<Figures> = tx
        .prepare_cached(
            "SELECT p.active, p.stock_qty, p.low_stock_threshold, s.quantity, s.reorder_point
             FROM products p
             LEFT JOIN warehouse_stock s ON s.product_id = p.id AND s.location_id = ?2
             WHERE p.id = ?1",
        )?
        .query_row(
            rusqlite::params![product.id, m.location.map(|l| l.id.as_str())],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    let Some((active, total, threshold, at_location, reorder)) = figures else {
        return Ok(());
    };
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
        outbox::emit(
            tx,
            owner,
            mv.entity_id.as_deref(),
            outbox::STOCK_LOW,
            &alert,
            now,
        )?;
    }
    if let (Some(loc), Some(quantity), Some(reorder)) = (m.location, at_location, reorder) {
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
