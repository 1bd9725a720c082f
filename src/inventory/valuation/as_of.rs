//! Stock quantities as at the end of a day (docs/documents-stock.md#stock-as-at-a-date):
//! Σ `qty` of the movements dated up to that day, per product and location, read from the
//! covering index `(product_id, location_id, date, qty)` (migration V10).
//!
//! That pass over every movement is most of the as-at report's work, so, given a second
//! connection on the same snapshot ([`crate::db::Db::twin_snapshot`]), it is read in two
//! ranges of product ids on two threads (docs/architecture.md#two-readers-one-snapshot):
//! the upper range starts on its own thread at once, while the caller reads the products
//! and the cost history; then the caller reads the lower range and takes the upper one's
//! sums after it. Either way the sums arrive in product id order.

use std::collections::HashMap;
use std::thread::JoinHandle;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::db::raw::bytes_col;
use crate::db::ReadSnapshot;
use crate::error::{AppError, AppResult};

/// Every movement's sum, in product order.
pub const ALL: &str = "SELECT product_id, location_id, SUM(qty) FROM stock_movements
     WHERE date <= ?1 GROUP BY product_id, location_id ORDER BY product_id, location_id";
/// The products below `?2`.
pub const BELOW: &str = "SELECT product_id, location_id, SUM(qty) FROM stock_movements
     WHERE date <= ?1 AND product_id < ?2
     GROUP BY product_id, location_id ORDER BY product_id, location_id";
/// The products from `?2` on.
pub const FROM: &str = "SELECT product_id, location_id, SUM(qty) FROM stock_movements
     WHERE date <= ?1 AND product_id >= ?2
     GROUP BY product_id, location_id ORDER BY product_id, location_id";

/// The share of products, by id, whose movements the second thread sums: three quarters,
/// because the caller's thread reads the products and the cost history meanwhile (with
/// 100,000 products, that takes about as long as summing 40% of the movements; see
/// BENCHMARKS.md, "Documents that move stock").
const TWIN_SHARE_PERCENT: i64 = 75;

/// The sums of the upper range, held compactly until the caller takes them.
#[derive(Default)]
struct Upper {
    /// Each product's id, one after another.
    ids: Vec<u8>,
    /// Where each product's id ends in `ids`.
    id_ends: Vec<usize>,
    /// Each distinct location id met.
    locations: Vec<Vec<u8>>,
    /// (product, location: `u32::MAX` when unallocated, Σ qty).
    rows: Vec<(u32, u32, i64)>,
}

/// The quantities as at a day, being read (see the module documentation).
pub struct QuantitiesAsOf {
    day: String,
    /// The first product id of the upper range and the thread summing it.
    upper: Option<(String, JoinHandle<AppResult<Upper>>)>,
}

impl QuantitiesAsOf {
    /// Starts reading the quantities at the end of `day` (`YYYY-MM-DD`) in `conn`'s
    /// snapshot; with `twin` (the same snapshot), the upper range of products at once on
    /// a thread of its own.
    pub fn start(conn: &Connection, twin: Option<ReadSnapshot>, day: &str) -> AppResult<Self> {
        let day = day.to_owned();
        let Some(twin) = twin else {
            return Ok(Self { day, upper: None });
        };
        let pivot: Option<String> = {
            let count: i64 = conn
                .prepare_cached("SELECT COUNT(*) FROM products")?
                .query_row([], |r| r.get(0))?;
            // At least one product below the pivot, so that both ranges have work.
            let skip = (count * (100 - TWIN_SHARE_PERCENT) / 100).max(1);
            let mut stmt =
                conn.prepare_cached("SELECT id FROM products ORDER BY id LIMIT 1 OFFSET ?1")?;
            let mut rows = stmt.query([skip])?;
            rows.next()?.map(|r| r.get(0)).transpose()?
        };
        let Some(pivot) = pivot else {
            return Ok(Self { day, upper: None });
        };
        let (d, p) = (day.clone(), pivot.clone());
        let handle = std::thread::Builder::new()
            .name("stockbook-as-of".into())
            .spawn(move || read_upper(&twin, &d, &p))
            .map_err(|e| AppError::internal(format!("cannot start a report thread: {e}")))?;
        Ok(Self {
            day,
            upper: Some((pivot, handle)),
        })
    }

    /// Calls `each(product_id, location_id, Σ qty)` for every product and location
    /// (`None`: unallocated) whose movements up to the day do not sum to zero, in product
    /// id order.
    pub fn each(
        self,
        conn: &Connection,
        mut each: impl FnMut(&[u8], Option<&[u8]>, i64) -> AppResult<()>,
    ) -> AppResult<()> {
        let Some((pivot, handle)) = self.upper else {
            let mut stmt = conn.prepare_cached(ALL)?;
            let mut q = stmt.query([&self.day])?;
            return feed(&mut q, &mut each);
        };
        {
            let mut stmt = conn.prepare_cached(BELOW)?;
            let mut q = stmt.query([&self.day, &pivot])?;
            feed(&mut q, &mut each)?;
        }
        let upper = handle
            .join()
            .map_err(|_| AppError::internal("a report thread panicked"))??;
        let mut start = 0;
        for &(product, location, qty) in &upper.rows {
            let p = product as usize;
            if p > 0 {
                start = upper.id_ends[p - 1];
            }
            let id = &upper.ids[start..upper.id_ends[p]];
            let location =
                (location != u32::MAX).then(|| upper.locations[location as usize].as_slice());
            each(id, location, qty)?;
        }
        Ok(())
    }
}

fn feed(
    q: &mut rusqlite::Rows<'_>,
    each: &mut impl FnMut(&[u8], Option<&[u8]>, i64) -> AppResult<()>,
) -> AppResult<()> {
    while let Some(r) = q.next()? {
        let qty: i64 = r.get(2)?;
        if qty == 0 {
            continue;
        }
        let location = match r.get_ref(1)? {
            ValueRef::Text(l) => Some(l),
            _ => None,
        };
        each(bytes_col(r, 0)?, location, qty)?;
    }
    Ok(())
}

/// The sums of the products from `pivot` on, on the twin connection.
fn read_upper(conn: &Connection, day: &str, pivot: &str) -> AppResult<Upper> {
    let mut upper = Upper::default();
    let mut known: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut stmt = conn.prepare_cached(FROM)?;
    let mut q = stmt.query([day, pivot])?;
    feed(&mut q, &mut |id, location, qty| {
        let last =
            upper.id_ends.len().checked_sub(1).map(|k| {
                &upper.ids[if k == 0 { 0 } else { upper.id_ends[k - 1] }..upper.id_ends[k]]
            });
        if last != Some(id) {
            upper.ids.extend_from_slice(id);
            upper.id_ends.push(upper.ids.len());
        }
        let product = (upper.id_ends.len() - 1) as u32;
        let location = match location {
            None => u32::MAX,
            Some(l) => match known.get(l) {
                Some(&k) => k,
                None => {
                    let k = upper.locations.len() as u32;
                    upper.locations.push(l.to_vec());
                    known.insert(l.to_vec(), k);
                    k
                }
            },
        };
        upper.rows.push((product, location, qty));
        Ok(())
    })?;
    Ok(upper)
}
