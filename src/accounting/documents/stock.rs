//! How invoices, bills, credit notes and supplier credits move stock
//! (docs/documents-stock.md#the-one-rule; docs/documents-stock.md).
//!
//! The whole rule is one invariant, kept after every request: for each *posted* document
//! ([`DocKind::posted_statuses`]: invoice `sent`/`paid`, bill `awaiting_payment`/`paid`)
//! with a location, the movements written for it sum, per product, to minus (invoice) or
//! plus (bill; [`DocKind::direction`]) its lines' quantities of that product, all at its
//! location; for every other document they sum to zero. [`sync`] is called in the
//! transaction of every create, PUT and DELETE of a
//! document that moves stock; it compares what the document asks for with what its
//! movements already hold, per product and location, and writes the difference through
//! [`ledger::apply_document_movement`], so every stock rule (insufficient stock, inactive
//! locations, weighted average cost) applies unchanged. Movements are never changed.
//!
//! - Invoice stock out is a `sale` (its `unit_cost` is the product's cost price at that
//!   moment, set by the ledger); stock back is a `return` at the document's own average
//!   sale cost of that product, so a reduced line takes back the cost it booked.
//! - Bill stock in is a `purchase` whose `unit_cost` is the lines' net in pounds (each
//!   line's net × the bill's `exchange_rate`, to 2 dp, docs/accounting.md#currencies)
//!   over their quantity (4 dp); stock back is a `return` without cost. When that unit
//!   cost changes while the quantity stays (the rate, currency or prices changed), what
//!   the movements hold is taken back whole and bought again at the new cost.
//! - Credit note stock in is a `return` at the average unit cost its invoice's sales
//!   booked for the product (the product's cost price when unlinked or none was sold);
//!   stock back out is a `return` at the credit note's own average cost of what it took
//!   in. Supplier credit stock out, and back in, is a `return` without cost
//!   (docs/documents-stock.md#costs).
//! - `reference` is the document's number, `date` the document's `issue_date`; a change
//!   of the issue date of a posted document takes back what its movements hold on other
//!   dates on those dates and writes the effect on the new one, and what a document no
//!   longer asks for is taken back on the dates it was moved
//!   (docs/documents-stock.md#dates). A posted document that would move stock after
//!   today is refused (400), as a movement dated after today is.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rusqlite::{Connection, Transaction};
use rust_decimal::Decimal;
use time::Date;

use super::kind::{Direction, DocKind};
use super::record::Document;
use crate::ctx::Ctx;
use crate::db::decimal::{Money, Price, Qty};
use crate::error::{AppError, AppResult};
use crate::http::body::parse_date;
use crate::inventory::ledger::{self, MovementType, NewMovement, Origin};
use crate::inventory::lookup::{LocationRef, ProductRef};
use crate::inventory::{location_ref, product_ref};
use crate::scope::Scope;

/// +1 for stock in (bills, credit notes), -1 for stock out (invoices, supplier credits).
fn sign(kind: DocKind) -> Decimal {
    Decimal::from(kind.stock_sign())
}

/// What a document's movements hold, per (product, location).
#[derive(Debug, Default)]
struct Held {
    qty: Decimal,
    /// Σ -qty × unit_cost and Σ -qty of its sales (invoices), per product.
    cost: Decimal,
    sold: Decimal,
    /// Σ qty × unit_cost and Σ qty of its returns that brought stock in at a cost (credit
    /// notes).
    back_cost: Decimal,
    back: Decimal,
    /// The unit cost of its latest purchase (bills), `Some(None)` for one without a cost;
    /// `None` before any purchase.
    bought_at: Option<Option<Price>>,
    /// Σ qty per movement date (`YYYY-MM-DD`).
    by_date: BTreeMap<String, Decimal>,
}

fn held(conn: &Connection, document_id: &str) -> AppResult<BTreeMap<(String, String), Held>> {
    let mut stmt = conn.prepare_cached(
        "SELECT product_id, location_id, qty, unit_cost, type, date FROM stock_movements
         WHERE document_id = ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([document_id])?;
    let mut out: BTreeMap<(String, String), Held> = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let location: Option<String> = r.get(1)?;
        let qty: Qty = r.get(2)?;
        let cost: Option<Price> = r.get(3)?;
        let kind: String = r.get(4)?;
        let h = out
            .entry((r.get(0)?, location.unwrap_or_default()))
            .or_default();
        h.qty += qty.value();
        *h.by_date.entry(r.get(5)?).or_default() += qty.value();
        if kind == "purchase" {
            h.bought_at = Some(cost);
        } else if kind == "sale" {
            h.sold -= qty.value();
            h.cost -= qty.value() * cost.unwrap_or(Price::ZERO).value();
        } else if let (true, Some(cost)) = (kind == "return" && qty.value() > Decimal::ZERO, cost) {
            h.back += qty.value();
            h.back_cost += qty.value() * cost.value();
        }
    }
    Ok(out)
}

/// What the document asks for, per (product, location): its signed line quantities when
/// posted with a location, nothing otherwise; and, per product, Σ net in pounds and Σ
/// quantity of its lines (a bill's unit cost).
fn wanted(kind: DocKind, d: &Document) -> (BTreeMap<(String, String), Decimal>, Nets) {
    let mut want = BTreeMap::new();
    let mut nets = Nets::new();
    let Some(location) = d.location_id.as_deref() else {
        return (want, nets);
    };
    if !kind.is_posted(&d.status) {
        return (want, nets);
    }
    for l in &d.lines {
        if let Some(p) = &l.product_id {
            *want
                .entry((p.clone(), location.to_owned()))
                .or_insert(Decimal::ZERO) += sign(kind) * l.quantity.value();
            let n = nets.entry(p.clone()).or_default();
            n.0 += d.exchange_rate.to_pounds(l.net.value());
            n.1 += l.quantity.value();
        }
    }
    (want, nets)
}

type Nets = BTreeMap<String, (Decimal, Decimal)>;

/// A bill's unit cost of a product: its lines' net in pounds over their quantity, none
/// when that is not positive (docs/documents-stock.md#costs).
fn purchase_cost(nets: &Nets, product_id: &str) -> Option<Price> {
    nets.get(product_id).and_then(|(net, qty)| {
        (*qty > Decimal::ZERO && *net >= Decimal::ZERO).then(|| Price::rounded(net / qty))
    })
}

/// Products already read in this request, by id, for [`sync`] to take instead of reading
/// them again (each is taken once: a second movement of the same product reads it anew).
pub type ReadProducts = HashMap<String, ProductRef>;

/// Refuses (409) to post lines whose product is inactive. Called when a request leaves
/// the document posted and either posts it or replaces its lines. The products it reads
/// are left in `read` for [`sync`].
pub fn check_active_products(
    conn: &Connection,
    scope: &Scope,
    d: &Document,
    read: &mut ReadProducts,
) -> AppResult<()> {
    for l in &d.lines {
        if let Some(id) = &l.product_id {
            if read.contains_key(id) {
                continue;
            }
            let p = product_ref(conn, scope, id)?;
            if !p.active {
                return Err(AppError::refused(
                    "inactive_record",
                    format!(
                        "Product {} ({}) is inactive and cannot be posted on a document",
                        p.name, p.sku
                    ),
                ));
            }
            read.insert(id.clone(), p);
        }
    }
    Ok(())
}

/// One movement [`sync`] will write: a difference of `qty` for a product at a location,
/// on `date`.
struct Write<'k> {
    key: &'k (String, String),
    date: Date,
    qty: Decimal,
    /// Part of a re-costing: all of the key taken back and bought again.
    recost: bool,
}

/// What must be written so that the movements of the document hold what it asks for
/// (docs/documents-stock.md#dates). Each difference is dated the document's issue date,
/// except what is taken back: when `issue_date_changed`, or when the document no longer
/// asks for a product at a location (voided, a line or the location changed), what its
/// movements hold there on another date is taken back on that date (the reversal at the
/// old date, the effect at the new one). Movements that hold nothing in all (a voided
/// document's) are left as they are. A key in `recost` (a bill whose goods now cost
/// another amount in pounds) is taken back whole, on the dates it holds, before it is
/// bought again at the new cost.
fn writes<'k>(
    want: &'k BTreeMap<(String, String), Decimal>,
    have: &'k BTreeMap<(String, String), Held>,
    issue: Date,
    issue_date_changed: bool,
    recost: &BTreeSet<&(String, String)>,
) -> AppResult<Vec<Write<'k>>> {
    let issue_text = issue.to_string();
    let mut keys: Vec<&(String, String)> = want.keys().chain(have.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for key in keys {
        let w = want.get(key).copied().unwrap_or_default();
        let h = have.get(key);
        let mut h_total = h.map_or(Decimal::ZERO, |h| h.qty);
        let recosted = recost.contains(key);
        // Taken back on the dates they hold: everything, when the document no longer asks
        // for this product here or it is re-costed; when its date changes, what sits on
        // other dates.
        if !h_total.is_zero() && (w.is_zero() || issue_date_changed || recosted) {
            for (date, q) in h.map(|h| &h.by_date).into_iter().flatten() {
                if (recosted || *date != issue_text) && !q.is_zero() {
                    let date = parse_date("issue_date", date)?;
                    out.push(Write {
                        key,
                        date,
                        qty: -*q,
                        recost: recosted,
                    });
                    h_total -= *q;
                }
            }
        }
        if w != h_total {
            out.push(Write {
                key,
                date: issue,
                qty: w - h_total,
                recost: recosted,
            });
        }
    }
    // Stock that comes in first: a reversal at the old date must not be judged without
    // the stock the effect at the new date gives back, and the other way round
    // (docs/ledger.md#stock-over-time). Except a re-costing's take-back: it goes first,
    // so the purchase at the new cost is averaged with the stock without the old one
    // (docs/documents-stock.md#costs).
    out.sort_by_key(|w| match (w.recost, w.qty < Decimal::ZERO) {
        (true, true) => 0,
        (_, false) => 1,
        (false, true) => 2,
    });
    Ok(out)
}

/// Writes the difference between what `d` asks for and what its movements hold (see the
/// module documentation). `d` is the document as it stands after the request;
/// `issue_date_changed` says that the request changed its issue date.
pub fn sync(
    tx: &Transaction,
    scope: &Scope,
    kind: DocKind,
    d: &Document,
    ctx: &Ctx,
    read: &mut ReadProducts,
    issue_date_changed: bool,
) -> AppResult<()> {
    let (want, nets) = wanted(kind, d);
    let have = held(tx, &d.id)?;
    let issue = parse_date("issue_date", &d.issue_date)?;
    // A bill whose goods now cost another amount in pounds (its rate, currency or prices
    // changed) buys them again at that cost (docs/documents-stock.md#costs).
    let recost: BTreeSet<&(String, String)> = if kind.direction() == Direction::In {
        want.iter()
            .filter(|(key, w)| {
                !w.is_zero()
                    && have.get(*key).is_some_and(|h| {
                        !h.qty.is_zero()
                            && h.bought_at
                                .is_some_and(|c| c != purchase_cost(&nets, &key.0))
                    })
            })
            .map(|(key, _)| key)
            .collect()
    } else {
        BTreeSet::new()
    };
    let planned = writes(&want, &have, issue, issue_date_changed, &recost)?;
    if planned.iter().any(|w| w.date > ctx.today) {
        return Err(AppError::invalid(
            "issue_date",
            format!(
                "must not be after today ({}) while the document is posted with a location \
                 and product lines: its stock moves on its issue date; keep it a draft until \
                 then",
                ctx.today
            ),
        ));
    }
    let mut last_location: Option<LocationRef> = None;
    for Write {
        key,
        date,
        qty: diff,
        recost: _,
    } in planned
    {
        let (product_id, location_id) = key;
        let product = match read.remove(product_id) {
            Some(p) => p,
            None => product_ref(tx, scope, product_id)?,
        };
        // A document's lines are mostly at one location: look it up once.
        let location = match &last_location {
            Some(l) if &l.id == location_id => l.clone(),
            _ => location_ref(tx, scope, location_id)?,
        };
        last_location = Some(location.clone());
        let (kind_of_move, unit_cost, origin) = match (kind.direction(), diff > Decimal::ZERO) {
            (Direction::Out, false) => (MovementType::Sale, None, Origin::Client),
            (Direction::Out, true) => {
                let (cost, sold) = have
                    .iter()
                    .filter(|((p, _), _)| p == product_id)
                    .fold((Decimal::ZERO, Decimal::ZERO), |(c, s), (_, h)| {
                        (c + h.cost, s + h.sold)
                    });
                let unit = if sold > Decimal::ZERO {
                    Price::rounded(cost / sold)
                } else {
                    product.cost_price
                };
                (MovementType::Return, Some(unit), Origin::System)
            }
            (Direction::In, true) => (
                MovementType::Purchase,
                purchase_cost(&nets, product_id),
                Origin::Client,
            ),
            (Direction::In, false) => (MovementType::Return, None, Origin::System),
            (Direction::ReturnIn, true) => {
                let booked = match d.link.id.as_deref() {
                    Some(original) => sale_cost(tx, original, product_id)?,
                    None => None,
                };
                let unit = booked.unwrap_or(product.cost_price);
                (MovementType::Return, Some(unit), Origin::Client)
            }
            (Direction::ReturnIn, false) => {
                let (cost, back) = have
                    .iter()
                    .filter(|((p, _), _)| p == product_id)
                    .fold((Decimal::ZERO, Decimal::ZERO), |(c, b), (_, h)| {
                        (c + h.back_cost, b + h.back)
                    });
                let unit = if back > Decimal::ZERO {
                    Price::rounded(cost / back)
                } else {
                    product.cost_price
                };
                (MovementType::Return, Some(unit), Origin::System)
            }
            (Direction::ReturnOut, false) => (MovementType::Return, None, Origin::Client),
            (Direction::ReturnOut, true) => (MovementType::Return, None, Origin::System),
        };
        ledger::apply_document_movement(
            tx,
            &NewMovement {
                product: &product,
                location: Some(&location),
                qty: Qty::rounded(diff),
                kind: kind_of_move,
                reference: d.number.clone(),
                notes: None,
                date,
                unit_cost,
                origin,
            },
            &d.id,
            ctx.allow_negative,
            &ctx.now,
        )?;
    }
    Ok(())
}

/// The average unit cost the sales of document `original` (an invoice) booked for a
/// product, none when it sold none: what a credit note against it takes the goods back at
/// (docs/documents-stock.md#costs).
fn sale_cost(conn: &Connection, original: &str, product_id: &str) -> AppResult<Option<Price>> {
    let (cost, sold) = held(conn, original)?
        .iter()
        .filter(|((p, _), _)| p == product_id)
        .fold((Decimal::ZERO, Decimal::ZERO), |(c, s), (_, h)| {
            (c + h.cost, s + h.sold)
        });
    Ok((sold > Decimal::ZERO).then(|| Price::rounded(cost / sold)))
}

/// Does the document have any movement (then, while posted, it cannot be deleted)?
pub fn has_movements(conn: &Connection, document_id: &str) -> AppResult<bool> {
    let n: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM stock_movements WHERE document_id = ?1")?
        .query_row([document_id], |r| r.get(0))?;
    Ok(n > 0)
}

/// `cost_of_sales` of a document that takes stock out (an invoice): Σ -qty × unit_cost
/// over its movements, to 2 dp; `None` for bills and for invoices not posted or without
/// a location.
pub fn cost_of_sales(conn: &Connection, kind: DocKind, d: &Document) -> AppResult<Option<Money>> {
    if kind.direction() != Direction::Out || d.location_id.is_none() || !kind.is_posted(&d.status) {
        return Ok(None);
    }
    let mut stmt = conn.prepare_cached(
        "SELECT qty, unit_cost FROM stock_movements WHERE document_id = ?1 AND unit_cost IS NOT NULL",
    )?;
    let mut rows = stmt.query([&d.id])?;
    let mut total = Decimal::ZERO;
    while let Some(r) = rows.next()? {
        let qty: Qty = r.get(0)?;
        let cost: Price = r.get(1)?;
        total -= qty.value() * cost.value();
    }
    Ok(Some(Money::rounded(total)))
}
