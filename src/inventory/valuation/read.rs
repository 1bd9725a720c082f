//! The valuation's one reader: the locations and the products it shows, then its rows in
//! report order, location name first and product name second, unallocated stock last
//! (docs/inventory.md#valuation-report). Every answer of the report (whole, a page, the
//! spreadsheet) writes the rows this reads.
//!
//! Built for 100,000 products at 5 locations. The products are read once, in name order,
//! their text kept in one buffer rather than in a `String` per column (a few allocations,
//! not 300,000). Now, the stock rows are read one location at a time, in location order,
//! each location's rows handed on while the next is read, and matched to their product by
//! a merge in id order ([`ById`]), with no hashing. As at a day
//! (docs/documents-stock.md#stock-as-at-a-date), the cost history and the movement sums
//! ([`QuantitiesAsOf`]) are merged the same way and the rows sorted, 16 bytes a row.

use std::collections::HashMap;

use rusqlite::{params_from_iter, Connection};

use super::as_of::QuantitiesAsOf;
use crate::db::raw::{bytes_col, name_order, text_col};
use crate::db::ReadSnapshot;
use crate::error::AppResult;
use crate::inventory::lookup::and_eq;
use crate::scope::Scope;

/// The location index of an unallocated row (so it sorts last).
pub const UNALLOCATED: u32 = u32::MAX;

/// One location's stock rows in product id order. The location index covers product and
/// quantity (migration V8), so this reads the index alone and needs no sort: a test
/// checks the plan. A stock row's owner and entity are its location's (the ledger writes
/// them so), and its product must be one of the report's products, so no scope condition
/// is needed.
pub const STOCK_AT_LOCATION: &str =
    "SELECT product_id, quantity FROM warehouse_stock WHERE location_id = ?1 ORDER BY product_id";

/// Every recorded cost price, in product then date order (the history's primary key).
pub const COST_HISTORY: &str =
    "SELECT product_id, date, cost_price FROM product_cost_history ORDER BY product_id, date";

pub struct Location {
    seq: i64,
    pub id: String,
    pub name: String,
}

/// A product of the report; its text is in [`Products`].
pub struct Product {
    /// Where its id, name and sku end in `Products::text`.
    id_end: usize,
    name_end: usize,
    sku_end: usize,
    /// Index into `Products::categories`.
    pub category: u32,
    /// Scaled as stored; as at a day, the cost in force then.
    pub cost: i64,
    pub unit: i64,
    stock_qty: i64,
}

/// The report's products in name order: a product's index is its rank, and rows sort by
/// it.
pub struct Products {
    rows: Vec<Product>,
    /// Every product's id, name and sku, one after another.
    text: String,
    /// The distinct categories, in the order they are first met.
    pub categories: Vec<String>,
}

impl Products {
    /// Products (inactive ones included) in name order; with a location, only those with
    /// a stock row there.
    fn read(
        conn: &Connection,
        scope: &Scope,
        entity: Option<&str>,
        location: Option<&str>,
    ) -> AppResult<Self> {
        let (cond, mut args) = scope.condition(conn, "p");
        let mut sql = format!(
            "SELECT p.id, p.name, p.sku, p.category, p.cost_price, p.unit_price, p.stock_qty
             FROM products p WHERE {cond}"
        );
        and_eq(&mut sql, &mut args, "p.entity_id", entity);
        if let Some(l) = location {
            sql.push_str(
                " AND p.id IN (SELECT product_id FROM warehouse_stock WHERE location_id = ?)",
            );
            args.push(l.to_owned());
        }
        // Name order. With an entity filter it can come straight from the (owner_id,
        // entity_id, name NOCASE) index, whose last key is the rowid (seq). Without one,
        // SQLite sorts the owner's products (a profile of the 100,000-product report puts
        // the sort near a tenth of its time); asking for the one entity's name index
        // instead was measured slower (1.35 s against 0.59 s for the query alone), its
        // table lookups jumping about the file.
        sql.push_str(" ORDER BY p.name COLLATE NOCASE, p.seq");
        let mut stmt = conn.prepare(&sql)?;
        let mut q = stmt.query(params_from_iter(args.iter()))?;
        let mut products = Self {
            rows: Vec::new(),
            text: String::new(),
            categories: Vec::new(),
        };
        let mut interned: HashMap<String, u32> = HashMap::new();
        while let Some(r) = q.next()? {
            let t = &mut products.text;
            t.push_str(text_col(r, 0)?);
            let id_end = t.len();
            t.push_str(text_col(r, 1)?);
            let name_end = t.len();
            t.push_str(text_col(r, 2)?);
            let sku_end = t.len();
            let category = text_col(r, 3)?;
            let category = match interned.get(category) {
                Some(&c) => c,
                None => {
                    let c = products.categories.len() as u32;
                    products.categories.push(category.to_owned());
                    interned.insert(category.to_owned(), c);
                    c
                }
            };
            products.rows.push(Product {
                id_end,
                name_end,
                sku_end,
                category,
                cost: r.get(4)?,
                unit: r.get(5)?,
                stock_qty: r.get(6)?,
            });
        }
        Ok(products)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn get(&self, rank: u32) -> &Product {
        &self.rows[rank as usize]
    }

    pub fn id(&self, rank: u32) -> &str {
        let i = rank as usize;
        let start = if i == 0 { 0 } else { self.rows[i - 1].sku_end };
        &self.text[start..self.rows[i].id_end]
    }

    pub fn name(&self, rank: u32) -> &str {
        let p = self.get(rank);
        &self.text[p.id_end..p.name_end]
    }

    pub fn sku(&self, rank: u32) -> &str {
        let p = self.get(rank);
        &self.text[p.name_end..p.sku_end]
    }

    pub fn category(&self, rank: u32) -> &str {
        &self.categories[self.get(rank).category as usize]
    }
}

/// Locations visible to the report, ranked by name.
fn locations(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<Vec<Location>> {
    let (cond, mut args) = scope.condition(conn, "l");
    let mut sql = format!("SELECT l.seq, l.id, l.name FROM warehouse_locations l WHERE {cond}");
    and_eq(&mut sql, &mut args, "l.entity_id", entity);
    and_eq(&mut sql, &mut args, "l.id", location);
    let mut stmt = conn.prepare(&sql)?;
    let mut locations = stmt
        .query_map(params_from_iter(args.iter()), |r| {
            Ok(Location {
                seq: r.get(0)?,
                id: r.get(1)?,
                name: r.get(2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    locations.sort_by(|a, b| name_order(&a.name, a.seq, &b.name, b.seq));
    Ok(locations)
}

/// One report row: a location (or [`UNALLOCATED`]), a product rank, a quantity (scaled).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    pub loc: u32,
    pub prod: u32,
    pub qty: i64,
}

/// The report's products in id order, for the merge with rows that arrive in id order
/// (stock rows by location, the ledger sums, the cost history). The ids are copied into
/// one buffer in that order, each keyed by its first 16 bytes as a number, so the merge
/// reads memory in sequence and mostly compares integers; SQLite orders the rows by
/// the same bytes (the `BINARY` collation).
struct ById {
    /// (first 16 bytes, big-endian and zero-padded; the product's rank), in id order.
    keys: Vec<(u128, u32)>,
    /// Every id, in the same order, one after another.
    ids: Vec<u8>,
    /// Where each id ends in `ids`.
    ends: Vec<usize>,
    /// The merge's position: every id before it is smaller than the last one looked up.
    at: usize,
}

fn id_prefix(id: &[u8]) -> u128 {
    let mut b = [0_u8; 16];
    let n = id.len().min(16);
    b[..n].copy_from_slice(&id[..n]);
    u128::from_be_bytes(b)
}

impl ById {
    fn new(products: &Products) -> Self {
        let id = |rank: u32| products.id(rank).as_bytes();
        let mut keys: Vec<(u128, u32)> = (0..products.len() as u32)
            .map(|i| (id_prefix(id(i)), i))
            .collect();
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| id(a.1).cmp(id(b.1))));
        let mut ids = Vec::with_capacity(products.text.len());
        let mut ends = Vec::with_capacity(keys.len());
        for &(_, rank) in &keys {
            ids.extend_from_slice(id(rank));
            ends.push(ids.len());
        }
        Self {
            keys,
            ids,
            ends,
            at: 0,
        }
    }

    fn id(&self, k: usize) -> &[u8] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.ids[start..self.ends[k]]
    }

    /// Starts the merge again from the smallest id.
    fn restart(&mut self) {
        self.at = 0;
    }

    /// The rank of the product with this id, for ids looked up in ascending order; `None`
    /// for an id that is not in the report (passed over).
    fn find(&mut self, id: &[u8]) -> Option<u32> {
        let key = id_prefix(id);
        while self.at < self.keys.len() {
            let k = self.keys[self.at].0;
            if k < key || (k == key && self.id(self.at) < id) {
                self.at += 1;
            } else {
                break;
            }
        }
        if self.at < self.keys.len() && self.keys[self.at].0 == key && self.id(self.at) == id {
            self.at += 1;
            return Some(self.keys[self.at - 1].1);
        }
        None
    }

    /// [`Self::find`] for rows grouped by product id: looks each product up once.
    fn find_grouped(
        &mut self,
        current: &mut Option<(Vec<u8>, Option<u32>)>,
        id: &[u8],
    ) -> Option<u32> {
        if current.as_ref().is_none_or(|(c, _)| c.as_slice() != id) {
            *current = Some((id.to_vec(), self.find(id)));
        }
        current.as_ref().and_then(|(_, rank)| *rank)
    }
}

/// The report asked for, read up to its rows: whose stock, which entity and location
/// (`None`: all; already resolved and visible), its locations and products.
pub struct Report<'a> {
    pub scope: &'a Scope,
    pub entity: Option<&'a str>,
    pub location: Option<&'a str>,
    pub locations: Vec<Location>,
    pub products: Products,
    /// As at a day: every row, read and sorted. Now: `None`, the rows are read as they
    /// are handed on.
    rows_as_of: Option<Vec<Row>>,
}

impl<'a> Report<'a> {
    /// The report now (docs/inventory.md#valuation-report).
    pub fn now(
        conn: &Connection,
        scope: &'a Scope,
        entity: Option<&'a str>,
        location: Option<&'a str>,
    ) -> AppResult<Self> {
        let locations = locations(conn, scope, entity, location)?;
        let products = Products::read(conn, scope, entity, location)?;
        Ok(Self {
            scope,
            entity,
            location,
            locations,
            products,
            rows_as_of: None,
        })
    }

    /// The report as of the end of `day` (`YYYY-MM-DD`, not in the future: the caller
    /// checks), docs/documents-stock.md#stock-as-at-a-date:
    ///
    /// - quantities are Σ `qty` of the movements dated up to `day`, per product and
    ///   location (no location: unallocated), one row per non-zero sum;
    /// - the cost price is the last one recorded on or before that day; before a
    ///   product's history starts, its earliest recorded one (the history begins with the
    ///   cost each product had when the history was introduced);
    /// - the unit price is the current one; in-transit units are not reconstructed, so
    ///   the summary has no in-transit figures.
    ///
    /// Two passes over covering indexes (the cost history, then the movement sums), each
    /// merged with the products by id, whatever the number of products: no query per
    /// product. With `twin` (a connection on the same snapshot), part of the movement sums
    /// is read on a second thread ([`QuantitiesAsOf`]).
    pub fn as_of(
        conn: &Connection,
        twin: Option<ReadSnapshot>,
        scope: &'a Scope,
        entity: Option<&'a str>,
        location: Option<&'a str>,
        day: &str,
    ) -> AppResult<Self> {
        let quantities = QuantitiesAsOf::start(conn, twin, day)?;
        let locations = locations(conn, scope, entity, location)?;
        let mut products = Products::read(conn, scope, entity, None)?;
        let mut by_id = ById::new(&products);

        // Cost in force at the end of the day, per product.
        {
            let mut stmt = conn.prepare_cached(COST_HISTORY)?;
            let mut q = stmt.query([])?;
            // The product whose history is being read: its first row sets the earliest
            // cost, each later one dated on or before the day replaces it (dates ascend).
            let mut current: Option<(Vec<u8>, Option<u32>)> = None;
            while let Some(r) = q.next()? {
                let id = bytes_col(r, 0)?;
                let first = current.as_ref().is_none_or(|(c, _)| c.as_slice() != id);
                let Some(rank) = by_id.find_grouped(&mut current, id) else {
                    continue;
                };
                if first || bytes_col(r, 1)? <= day.as_bytes() {
                    products.rows[rank as usize].cost = r.get(2)?;
                }
            }
        }

        // Quantities at the end of the day.
        let order: HashMap<&[u8], u32> = locations
            .iter()
            .enumerate()
            .map(|(i, l)| (l.id.as_bytes(), i as u32))
            .collect();
        let mut rows = Vec::new();
        by_id.restart();
        let mut current: Option<(Vec<u8>, Option<u32>)> = None;
        quantities.each(conn, |id, at, qty| {
            let Some(prod) = by_id.find_grouped(&mut current, id) else {
                return Ok(());
            };
            let loc = match at {
                None if location.is_none() => UNALLOCATED,
                Some(l) => match order.get(l) {
                    Some(&o) => o,
                    None => return Ok(()),
                },
                None => return Ok(()),
            };
            rows.push(Row { loc, prod, qty });
            Ok(())
        })?;
        // Location order, then product rank; unallocated last.
        rows.sort_unstable();
        drop(order);
        Ok(Self {
            scope,
            entity,
            location,
            locations,
            products,
            rows_as_of: Some(rows),
        })
    }

    /// Whether this is the report as at a day.
    pub fn is_as_of(&self) -> bool {
        self.rows_as_of.is_some()
    }

    pub fn location_name(&self, loc: u32) -> &str {
        if loc == UNALLOCATED {
            "Unallocated"
        } else {
            &self.locations[loc as usize].name
        }
    }

    pub fn location_id(&self, loc: u32) -> Option<&str> {
        (loc != UNALLOCATED).then(|| self.locations[loc as usize].id.as_str())
    }

    /// Hands every row to `each`, in report order, until it answers `false` (the client
    /// has gone); `Ok(false)` then.
    pub fn each_row(
        &self,
        conn: &Connection,
        mut each: impl FnMut(Row) -> AppResult<bool>,
    ) -> AppResult<bool> {
        if let Some(rows) = &self.rows_as_of {
            for &r in rows {
                if !each(r)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        let n = self.products.len();
        let mut by_id = ById::new(&self.products);
        let mut stmt = conn.prepare_cached(STOCK_AT_LOCATION)?;
        // Per product rank: its stock at every location so far, and at this one (0: no
        // row to show).
        let mut located = vec![0_i64; n];
        let mut here = vec![0_i64; n];
        for (li, l) in self.locations.iter().enumerate() {
            by_id.restart();
            let mut q = stmt.query([&l.id])?;
            while let Some(r) = q.next()? {
                // Ids of products that are not in the report (none, normally) are passed
                // over.
                let Some(prod) = by_id.find(bytes_col(r, 0)?) else {
                    continue;
                };
                let qty: i64 = r.get(1)?;
                located[prod as usize] += qty;
                here[prod as usize] = qty;
            }
            drop(q);
            for (prod, qty) in here.iter_mut().enumerate() {
                if *qty != 0 {
                    let row = Row {
                        loc: li as u32,
                        prod: prod as u32,
                        qty: *qty,
                    };
                    if !each(row)? {
                        return Ok(false);
                    }
                    *qty = 0;
                }
            }
        }
        // Unallocated stock: what a product holds beyond its stock rows.
        if self.location.is_none() {
            for (i, p) in self.products.rows.iter().enumerate() {
                let qty = p.stock_qty - located[i];
                if qty != 0 {
                    let row = Row {
                        loc: UNALLOCATED,
                        prod: i as u32,
                        qty,
                    };
                    if !each(row)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }
}
