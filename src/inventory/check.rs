//! The ledger check (`stockbook check`, docs/operations.md#check): verifies, over the
//! whole database, the invariants every request keeps, and describes each breach in words.
//!
//! - invariant 1 (docs/ledger.md#invariants): each stock row's `quantity` = Σ `qty` of its product's movements at
//!   its location (and no location holds movements of a product without a stock row,
//!   unless they sum to zero);
//! - invariant 2 (docs/ledger.md#invariants): each product's `stock_qty` = Σ `qty` of all its movements;
//! - invariant 3 (docs/ledger.md#invariants): each stock row's `reserved_quantity` is at least what in-transit
//!   transfer orders from its location hold of its product;
//! - docs/ledger.md#stock-over-time: unless negative stock is allowed, no product's
//!   running balance at a location (or its unallocated stock), in date order, ends a day
//!   below zero;
//! - docs/documents-stock.md#the-one-rule: for each posted invoice or supplier credit
//!   (bill or credit note) with a location that moves stock, its movements sum, per
//!   product, to minus (plus) its lines' quantities, all at its location; for every other document, imported ones included,
//!   and for movements whose document no longer exists, to zero.
//!
//! Sums are computed in Rust from the scaled integers (`i128`), so no stored value can
//! overflow them.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension};

use crate::db::decimal::Qty;
use crate::error::AppResult;

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    /// Which rule: `stock rows`, `product stock`, `reservations` (the ledger's invariants 1
    /// to 3) or `document stock` (documents that move stock).
    pub rule: &'static str,
    /// What is wrong, naming the records.
    pub message: String,
}

fn qty(v: i128) -> String {
    i64::try_from(v).map_or_else(|_| format!("{v}/1000"), |v| Qty::from_scaled(v).to_string())
}

fn product_name(conn: &Connection, id: &str) -> AppResult<String> {
    Ok(conn
        .query_row(
            "SELECT sku || ' (' || name || ')' FROM products WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or_else(|| format!("unknown product {id}")))
}

fn location_name(conn: &Connection, id: &str) -> AppResult<String> {
    Ok(conn
        .query_row(
            "SELECT name FROM warehouse_locations WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or_else(|| format!("unknown location {id}")))
}

/// Every breach of the invariants (see the module documentation); empty when the ledger
/// is sound. Read it inside one transaction for a consistent answer. With
/// `allow_negative` (the installation's `allow_negative_stock`) a running balance below
/// zero is no breach.
pub fn ledger_breaches(conn: &Connection, allow_negative: bool) -> AppResult<Vec<Breach>> {
    let mut out = Vec::new();

    // Σ qty per product, and per (product, location).
    let mut per_product: BTreeMap<String, i128> = BTreeMap::new();
    let mut per_row: BTreeMap<(String, String), i128> = BTreeMap::new();
    {
        let mut stmt = conn.prepare("SELECT product_id, location_id, qty FROM stock_movements")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let p: String = r.get(0)?;
            let l: Option<String> = r.get(1)?;
            let v = i128::from(r.get::<_, i64>(2)?);
            *per_product.entry(p.clone()).or_default() += v;
            if let Some(l) = l {
                *per_row.entry((p, l)).or_default() += v;
            }
        }
    }

    // Invariants 1 and 3 (docs/ledger.md#invariants).
    let mut held: BTreeMap<(String, String), i128> = BTreeMap::new();
    {
        let mut stmt = conn.prepare(
            "SELECT tl.product_id, o.source_location_id, tl.quantity
             FROM transfer_order_lines tl JOIN transfer_orders o ON o.id = tl.order_id
             WHERE o.status = 'in_transit'",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            *held.entry((r.get(0)?, r.get(1)?)).or_default() += i128::from(r.get::<_, i64>(2)?);
        }
    }
    let mut rows: BTreeMap<(String, String), (i64, i64)> = BTreeMap::new();
    {
        let mut stmt = conn.prepare(
            "SELECT product_id, location_id, quantity, reserved_quantity FROM warehouse_stock",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            rows.insert((r.get(0)?, r.get(1)?), (r.get(2)?, r.get(3)?));
        }
    }
    for ((p, l), (quantity, reserved)) in &rows {
        let sum = per_row.get(&(p.clone(), l.clone())).copied().unwrap_or(0);
        if i128::from(*quantity) != sum {
            out.push(Breach {
                rule: "stock rows",
                message: format!(
                    "The stock row of {} at {} holds {}, but its movements sum to {}",
                    product_name(conn, p)?,
                    location_name(conn, l)?,
                    qty(i128::from(*quantity)),
                    qty(sum)
                ),
            });
        }
        let h = held.get(&(p.clone(), l.clone())).copied().unwrap_or(0);
        if i128::from(*reserved) < h {
            out.push(Breach {
                rule: "reservations",
                message: format!(
                    "{} at {} has reserved_quantity {}, below the {} held by in-transit \
                     transfer orders",
                    product_name(conn, p)?,
                    location_name(conn, l)?,
                    qty(i128::from(*reserved)),
                    qty(h)
                ),
            });
        }
    }
    for ((p, l), sum) in &per_row {
        if *sum != 0 && !rows.contains_key(&(p.clone(), l.clone())) {
            out.push(Breach {
                rule: "stock rows",
                message: format!(
                    "The movements of {} at {} sum to {}, but there is no stock row",
                    product_name(conn, p)?,
                    location_name(conn, l)?,
                    qty(*sum)
                ),
            });
        }
    }
    for ((p, l), h) in &held {
        if !rows.contains_key(&(p.clone(), l.clone())) {
            out.push(Breach {
                rule: "reservations",
                message: format!(
                    "In-transit transfer orders hold {} of {} from {}, which has no stock row",
                    qty(*h),
                    product_name(conn, p)?,
                    location_name(conn, l)?
                ),
            });
        }
    }

    // Invariant 2 (docs/ledger.md#invariants).
    {
        let mut stmt = conn.prepare("SELECT id, stock_qty FROM products")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let p: String = r.get(0)?;
            let stock = i128::from(r.get::<_, i64>(1)?);
            let sum = per_product.remove(&p).unwrap_or(0);
            if stock != sum {
                out.push(Breach {
                    rule: "product stock",
                    message: format!(
                        "{} has stock_qty {}, but its movements sum to {}",
                        product_name(conn, &p)?,
                        qty(stock),
                        qty(sum)
                    ),
                });
            }
        }
    }

    if !allow_negative {
        out.extend(over_time_breaches(conn)?);
    }
    out.extend(document_breaches(conn)?);
    Ok(out)
}

/// docs/ledger.md#stock-over-time: the running balance of each product at each location
/// (and its unallocated stock), day by day in date order, never below zero at the end of
/// a day. One breach per product and place, naming the first such day, its balance and
/// how many days end below zero. Reads the index `stock_movements_as_of` in its order,
/// one pass.
fn over_time_breaches(conn: &Connection) -> AppResult<Vec<Breach>> {
    /// The place being summed: (product id, location id or none).
    type Place = (String, Option<String>);

    let mut out = Vec::new();
    let mut breach = |place: &Place, day: &str, balance: i128| -> AppResult<()> {
        let at = match &place.1 {
            Some(l) => format!("at {}", location_name(conn, l)?),
            None => "unallocated".to_owned(),
        };
        out.push(Breach {
            rule: "stock over time",
            message: format!(
                "The stock of {} {at} is {} at the end of {day}, below zero (the first day \
                 it is)",
                product_name(conn, &place.0)?,
                qty(balance),
            ),
        });
        Ok(())
    };
    let mut stmt = conn.prepare(
        "SELECT product_id, location_id, date, qty FROM stock_movements
         ORDER BY product_id, location_id, date",
    )?;
    let mut q = stmt.query([])?;
    // The place and day being summed, the balance at the end of the rows read so far,
    // and whether the place has been found below zero already (one breach per place).
    let mut place: Option<Place> = None;
    let mut day = String::new();
    let mut balance: i128 = 0;
    let mut found = false;
    while let Some(r) = q.next()? {
        let p: String = r.get(0)?;
        let l: Option<String> = r.get(1)?;
        let d: String = r.get(2)?;
        let v = i128::from(r.get::<_, i64>(3)?);
        let same_place = place.as_ref().is_some_and(|(pp, ll)| *pp == p && *ll == l);
        // A day is judged when the next one (or the next place) begins.
        if let Some(done) = place.as_ref().filter(|_| !found) {
            if (!same_place || d != day) && balance < 0 {
                breach(done, &day, balance)?;
                found = true;
            }
        }
        if !same_place {
            place = Some((p, l));
            balance = 0;
            found = false;
        }
        day = d;
        balance += v;
    }
    if let Some(done) = place.as_ref().filter(|_| !found) {
        if balance < 0 {
            breach(done, &day, balance)?;
        }
    }
    Ok(out)
}

/// A kind of priced document as the check reads it: its tables, its label, the statuses
/// in which it holds stock and the sign of that stock (−1 out, +1 in).
pub struct DocumentKind {
    pub table: &'static str,
    pub lines: &'static str,
    pub label: &'static str,
    pub posted: &'static [&'static str],
    pub sign: i128,
}

/// Every kind of priced document that moves stock. The kinds' facts are in
/// `accounting::documents::DocKind`, above this module; a test there holds this table to
/// them (docs/documents-stock.md#the-one-rule).
pub const DOCUMENT_KINDS: &[DocumentKind] = &[
    DocumentKind {
        table: "invoices",
        lines: "invoice_lines",
        label: "Invoice",
        posted: &["sent", "paid"],
        sign: -1,
    },
    DocumentKind {
        table: "bills",
        lines: "bill_lines",
        label: "Bill",
        posted: &["awaiting_payment", "paid"],
        sign: 1,
    },
    DocumentKind {
        table: "credit_notes",
        lines: "credit_note_lines",
        label: "Credit note",
        posted: &["posted"],
        sign: 1,
    },
    DocumentKind {
        table: "supplier_credits",
        lines: "supplier_credit_lines",
        label: "Supplier credit",
        posted: &["posted"],
        sign: -1,
    },
];

/// (document id, product id, location id)
type DocKey = (String, String, String);

/// The docs/documents-stock.md#the-one-rule invariant for every document of
/// [`DOCUMENT_KINDS`].
fn document_breaches(conn: &Connection) -> AppResult<Vec<Breach>> {
    let mut moved: BTreeMap<DocKey, i128> = BTreeMap::new();
    {
        let mut stmt = conn.prepare(
            "SELECT document_id, product_id, COALESCE(location_id, ''), qty FROM stock_movements
             WHERE document_id IS NOT NULL",
        )?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            *moved.entry((r.get(0)?, r.get(1)?, r.get(2)?)).or_default() +=
                i128::from(r.get::<_, i64>(3)?);
        }
    }
    let mut wanted: BTreeMap<DocKey, i128> = BTreeMap::new();
    // document id → how to name it.
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for &DocumentKind {
        table,
        lines,
        label,
        posted,
        sign,
    } in DOCUMENT_KINDS
    {
        let posted = posted
            .iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut stmt = conn.prepare(&format!(
            "SELECT id, number FROM {table} WHERE id IN (SELECT document_id FROM stock_movements
                 WHERE document_id IS NOT NULL)
             UNION SELECT id, number FROM {table}
                 WHERE status IN ({posted}) AND location_id IS NOT NULL AND moves_stock = 1"
        ))?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let id: String = r.get(0)?;
            let number: Option<String> = r.get(1)?;
            names.insert(
                id.clone(),
                format!("{label} {}", number.unwrap_or_else(|| id.clone())),
            );
        }
        drop(q);
        let mut stmt = conn.prepare(&format!(
            "SELECT d.id, l.product_id, d.location_id, l.quantity
             FROM {table} d JOIN {lines} l ON l.document_id = d.id
             WHERE d.status IN ({posted}) AND d.location_id IS NOT NULL AND d.moves_stock = 1
                 AND l.product_id IS NOT NULL"
        ))?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            *wanted.entry((r.get(0)?, r.get(1)?, r.get(2)?)).or_default() +=
                sign * i128::from(r.get::<_, i64>(3)?);
        }
    }

    let mut out = Vec::new();
    let mut keys: Vec<&DocKey> = wanted.keys().chain(moved.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let w = wanted.get(key).copied().unwrap_or(0);
        let m = moved.get(key).copied().unwrap_or(0);
        if w == m {
            continue;
        }
        let (doc, product, location) = key;
        let name = names
            .get(doc)
            .cloned()
            .unwrap_or_else(|| format!("Deleted document {doc}"));
        let at = if location.is_empty() {
            "without location".to_owned()
        } else {
            format!("at {}", location_name(conn, location)?)
        };
        out.push(Breach {
            rule: "document stock",
            message: format!(
                "{name} should hold {} of {} {at}, but its movements sum to {}",
                qty(w),
                product_name(conn, product)?,
                qty(m)
            ),
        });
    }
    Ok(out)
}
