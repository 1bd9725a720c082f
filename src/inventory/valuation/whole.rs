//! The whole valuation report, streamed ([`crate::http::stream`]): `{"data":[rows],
//! "summary":{..}}`, and the JSON of a row, which the page writes too.
//!
//! The report of 100,000 products at 5 locations is a 165 MB answer: the first chunk,
//! `{"data":[`, leaves once the products are read, each location's rows are sent while
//! the next location is read, and the whole answer is never held in memory. The summary
//! comes last in the body, so it is summed while the rows are written.

use std::io::Write;

use rusqlite::Connection;

use super::read::{Products, Report, Row, UNALLOCATED};
use super::totals::Totals;
use crate::db::raw::{push_scaled, push_str};
use crate::error::AppResult;
use crate::http::stream::{ChunkWriter, Sink};
use crate::inventory::value::{margin, round2, shown, PRICE_PLACES, QTY_PLACES, SHOWN_PLACES};
use crate::scope::Scope;

/// Writes rows as JSON, every answer's rows byte for byte alike: `{"product_id",
/// "product_name", "product_sku", "category", "location_id", "location_name",
/// "quantity", "cost_price", "unit_price", "total_cost", "total_retail", "margin"}`.
pub struct JsonRows<'r> {
    products: &'r Products,
    /// Per location, then unallocated: `"location_id":..,"location_name":..,"quantity":`.
    places: Vec<Vec<u8>>,
    /// What each of a product's rows repeats, written at its first row: its head
    /// `{"product_id":..,"product_name":..,"product_sku":..,"category":..,`, its prices
    /// `,"cost_price":..,"unit_price":..`, then its rounded margin; one after another.
    pieces: Vec<u8>,
    /// Per product: where its head starts, and where its head, prices and margin end, in
    /// `pieces`.
    ends: Vec<Option<[usize; 4]>>,
}

impl<'r> JsonRows<'r> {
    pub fn new(report: &'r Report<'_>) -> Self {
        let place = |id: Option<&str>, name: &str| {
            let mut piece = Vec::with_capacity(80);
            piece.extend_from_slice(b"\"location_id\":");
            match id {
                Some(id) => push_str(&mut piece, id),
                None => piece.extend_from_slice(b"null"),
            }
            piece.extend_from_slice(b",\"location_name\":");
            push_str(&mut piece, name);
            piece.extend_from_slice(b",\"quantity\":");
            piece
        };
        let mut places: Vec<Vec<u8>> = report
            .locations
            .iter()
            .map(|l| place(Some(&l.id), &l.name))
            .collect();
        places.push(place(None, report.location_name(UNALLOCATED)));
        Self {
            products: &report.products,
            places,
            pieces: Vec::new(),
            ends: vec![None; report.products.len()],
        }
    }

    fn pieces(&mut self, rank: u32) -> [usize; 4] {
        if let Some(ends) = self.ends[rank as usize] {
            return ends;
        }
        let products = self.products;
        let p = products.get(rank);
        let t = &mut self.pieces;
        let start = t.len();
        t.extend_from_slice(b"{\"product_id\":");
        push_str(t, products.id(rank));
        t.extend_from_slice(b",\"product_name\":");
        push_str(t, products.name(rank));
        t.extend_from_slice(b",\"product_sku\":");
        push_str(t, products.sku(rank));
        t.extend_from_slice(b",\"category\":");
        push_str(t, products.category(rank));
        t.push(b',');
        let head_end = t.len();
        t.extend_from_slice(b",\"cost_price\":");
        push_scaled(t, i128::from(p.cost), PRICE_PLACES);
        t.extend_from_slice(b",\"unit_price\":");
        push_scaled(t, i128::from(p.unit), PRICE_PLACES);
        let prices_end = t.len();
        // Writing into a Vec cannot fail.
        let _ = write!(t, "{}", round2(margin(p.unit, p.cost)));
        let ends = [start, head_end, prices_end, t.len()];
        self.ends[rank as usize] = Some(ends);
        ends
    }

    /// Appends row `r` to `out`.
    pub fn write(&mut self, out: &mut Vec<u8>, r: Row) {
        let [start, head_end, prices_end, margin_end] = self.pieces(r.prod);
        let p = self.products.get(r.prod);
        let place = if r.loc == UNALLOCATED {
            self.places.len() - 1
        } else {
            r.loc as usize
        };
        out.extend_from_slice(&self.pieces[start..head_end]);
        out.extend_from_slice(&self.places[place]);
        let q = i128::from(r.qty);
        push_scaled(out, q, QTY_PLACES);
        out.extend_from_slice(&self.pieces[head_end..prices_end]);
        out.extend_from_slice(b",\"total_cost\":");
        push_scaled(out, shown(q * i128::from(p.cost)), SHOWN_PLACES);
        out.extend_from_slice(b",\"total_retail\":");
        push_scaled(out, shown(q * i128::from(p.unit)), SHOWN_PLACES);
        out.extend_from_slice(b",\"margin\":");
        out.extend_from_slice(&self.pieces[prices_end..margin_end]);
        out.push(b'}');
    }
}

/// Writes the whole report through `send` in chunks of at least `chunk` bytes (the last
/// one may be shorter). The first chunk, `{"data":[`, is sent before the first row is
/// read. Returns early, with `Ok`, when `send` reports that the client has gone.
pub fn write(
    conn: &Connection,
    report: &Report<'_>,
    chunk: usize,
    send: Sink<'_>,
) -> AppResult<()> {
    let mut rows = JsonRows::new(report);
    let mut totals = Totals::new(report.products.len());
    let mut w = ChunkWriter::new(chunk, send);
    w.out.extend_from_slice(b"{\"data\":[");
    if !w.flush() {
        return Ok(());
    }
    let mut first = true;
    let finished = report.each_row(conn, |r| {
        if !first {
            w.out.push(b',');
        }
        first = false;
        rows.write(&mut w.out, r);
        totals.add(r, report.products.get(r.prod));
        Ok(w.flush_if_full())
    })?;
    if !finished {
        return Ok(());
    }
    let summary = totals.summary(conn, report)?;
    w.out.extend_from_slice(b"],\"summary\":");
    w.json(&summary)?;
    w.out.push(b'}');
    w.flush();
    Ok(())
}

/// Writes the valuation now for `scope`, optionally restricted to an entity and a
/// location (already resolved and visible), as [`write`] does.
pub fn write_valuation(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
    chunk: usize,
    send: Sink<'_>,
) -> AppResult<()> {
    let report = Report::now(conn, scope, entity, location)?;
    write(conn, &report, chunk, send)
}
