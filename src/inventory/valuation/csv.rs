//! The valuation report as a spreadsheet (docs/inventory.md#valuation-report-as-a-spreadsheet):
//! the rows as `text/csv` (RFC 4180, `\r\n` line ends, a header row), in report order,
//! offered for download under a name built from the request.

use rusqlite::Connection;
use rust_decimal::Decimal;

use super::page::Window;
use super::read::Report;
use crate::db::raw::{csv_cell, push_fixed2, push_scaled};
use crate::error::{AppError, AppResult};
use crate::http::paging::Page;
use crate::http::stream::{ChunkWriter, Sink, CHUNK};
use crate::inventory::filters::resolve_filters;
use crate::inventory::value::{margin, round2, shown, PRICE_PLACES, QTY_PLACES};
use crate::scope::Scope;

/// The header row of the valuation as a spreadsheet.
pub const CSV_HEADER: &str = "product_sku,product_name,category,location,quantity,cost_price,\
    unit_price,total_cost,total_retail,margin_percent";

/// Writes the rows as CSV through `send`; `page` applies as in the JSON page.
pub fn write(conn: &Connection, report: &Report<'_>, page: Page, send: Sink<'_>) -> AppResult<()> {
    let products = &report.products;
    let mut w = ChunkWriter::new(CHUNK, send);
    w.out.extend_from_slice(CSV_HEADER.as_bytes());
    w.out.extend_from_slice(b"\r\n");
    let window = Window::of(page);
    let mut index = 0_usize;
    // Per product rank: its margin's text, once it has a row.
    let mut margins: Vec<Option<Box<[u8]>>> = vec![None; products.len()];
    let finished = report.each_row(conn, |r| {
        let shown_here = window.contains(index);
        index += 1;
        if !shown_here {
            return Ok(true);
        }
        let p = products.get(r.prod);
        let out = &mut w.out;
        csv_cell(out, products.sku(r.prod));
        out.push(b',');
        csv_cell(out, products.name(r.prod));
        out.push(b',');
        csv_cell(out, products.category(r.prod));
        out.push(b',');
        csv_cell(out, report.location_name(r.loc));
        out.push(b',');
        let q = i128::from(r.qty);
        push_scaled(out, q, QTY_PLACES);
        out.push(b',');
        push_scaled(out, i128::from(p.cost), PRICE_PLACES);
        out.push(b',');
        push_scaled(out, i128::from(p.unit), PRICE_PLACES);
        out.push(b',');
        push_fixed2(out, shown(q * i128::from(p.cost)));
        out.push(b',');
        push_fixed2(out, shown(q * i128::from(p.unit)));
        out.push(b',');
        let m = margins[r.prod as usize].get_or_insert_with(|| {
            let m = round2(margin(p.unit, p.cost));
            let cents = (m * Decimal::ONE_HUNDRED).trunc().mantissa();
            let mut text = Vec::new();
            push_fixed2(&mut text, cents);
            text.into_boxed_slice()
        });
        out.extend_from_slice(m);
        out.extend_from_slice(b"\r\n");
        Ok(w.flush_if_full())
    })?;
    if finished {
        w.flush();
    }
    Ok(())
}

/// The file's name: `stock-valuation[-entity][-location]-<day>.csv`, for the `entityId`
/// and `locationId` asked for (resolved here: 400, 404 as the report does).
pub fn file_name(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
    day: &str,
) -> AppResult<String> {
    let (entity, location) = resolve_filters(conn, scope, entity, location)?;
    let name = |sql: &str, id: Option<String>| -> AppResult<Option<String>> {
        id.map(|id| conn.query_row(sql, [id], |r| r.get::<_, String>(0)))
            .transpose()
            .map_err(AppError::from)
    };
    let names = [
        name("SELECT name FROM entities WHERE id = ?1", entity)?,
        name(
            "SELECT name FROM warehouse_locations WHERE id = ?1",
            location,
        )?,
    ];
    let mut filename = String::from("stock-valuation");
    for n in names.into_iter().flatten() {
        filename.push('-');
        filename.push_str(&slug(&n));
    }
    filename.push('-');
    filename.push_str(day);
    filename.push_str(".csv");
    Ok(filename)
}

/// Lower-case letters and digits, each other run of characters one `-`.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push('x');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_slugs() {
        assert_eq!(slug("Acme Trading Ltd"), "acme-trading-ltd");
        assert_eq!(slug("  Main / Warehouse! "), "main-warehouse");
        assert_eq!(slug("£££"), "x");
    }
}
