//! The valuation report a page at a time (docs/inventory.md#valuation-report-by-the-page):
//! the rows of the page, in the same order and with the same bytes per row as the whole
//! report, beside the same summary, the totals per location and per category of every
//! row, and the number of rows. The web app shows 500,000 rows a page at a time without
//! downloading them.

use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Serialize;

use super::read::{Report, UNALLOCATED};
use super::totals::{Summary, Sums, Totals};
use super::whole::JsonRows;
use crate::db::decimal::ser_decimal;
use crate::db::raw::name_order;
use crate::error::{AppError, AppResult};
use crate::http::paging::Page;
use crate::http::stream::{ChunkWriter, Sink, CHUNK};
use crate::inventory::value::{money, units};

/// Which rows, by their index in report order, a page shows.
#[derive(Clone, Copy)]
pub struct Window {
    start: usize,
    take: usize,
}

impl Window {
    pub fn of(page: Page) -> Self {
        Self {
            start: usize::try_from(page.offset).unwrap_or(usize::MAX),
            take: page
                .limit
                .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX)),
        }
    }

    pub fn contains(self, i: usize) -> bool {
        i >= self.start && i - self.start < self.take
    }
}

/// The totals of one location or one category: the summary's figures over its rows.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GroupTotals {
    rows: u64,
    #[serde(serialize_with = "ser_decimal")]
    total_units: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    total_cost_value: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    total_retail_value: Decimal,
}

impl From<Sums> for GroupTotals {
    fn from(s: Sums) -> Self {
        Self {
            rows: s.rows,
            total_units: units(s.units),
            total_cost_value: money(s.cost),
            total_retail_value: money(s.retail),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LocationTotals<'a> {
    location_id: Option<&'a str>,
    location_name: &'a str,
    #[serde(flatten)]
    totals: GroupTotals,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CategoryTotals<'a> {
    category: &'a str,
    #[serde(flatten)]
    totals: GroupTotals,
}

/// Everything of the page answer but its rows.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PageTail<'a> {
    summary: Summary,
    by_location: Vec<LocationTotals<'a>>,
    by_category: Vec<CategoryTotals<'a>>,
    total: u64,
    limit: Option<i64>,
    offset: i64,
}

/// Writes the page answer: `{data: page rows, summary, byLocation, byCategory, total,
/// limit, offset}`. Every row is read and summed; only the page's are written.
pub fn write(conn: &Connection, report: &Report<'_>, page: Page, send: Sink<'_>) -> AppResult<()> {
    let (locations, products) = (&report.locations, &report.products);
    let mut totals = Totals::new(products.len());
    // Per location, then unallocated; per category.
    let mut per_location = vec![Sums::default(); locations.len() + 1];
    let mut per_category = vec![Sums::default(); products.categories.len()];
    let mut rows = JsonRows::new(report);
    let window = Window::of(page);
    let mut w = ChunkWriter::new(CHUNK, send);
    w.out.extend_from_slice(b"{\"data\":[");
    let (mut index, mut written) = (0_usize, 0_usize);
    let finished = report.each_row(conn, |r| {
        let p = products.get(r.prod);
        totals.add(r, p);
        let li = if r.loc == UNALLOCATED {
            locations.len()
        } else {
            r.loc as usize
        };
        per_location[li].add(r.qty, p);
        per_category[p.category as usize].add(r.qty, p);
        let shown = window.contains(index);
        index += 1;
        if !shown {
            return Ok(true);
        }
        if written > 0 {
            w.out.push(b',');
        }
        written += 1;
        rows.write(&mut w.out, r);
        Ok(w.flush_if_full())
    })?;
    if !finished {
        return Ok(());
    }

    let by_location = per_location
        .iter()
        .enumerate()
        .filter(|(_, sums)| sums.rows > 0)
        .map(|(li, sums)| {
            let loc = if li == locations.len() {
                UNALLOCATED
            } else {
                li as u32
            };
            LocationTotals {
                location_id: report.location_id(loc),
                location_name: report.location_name(loc),
                totals: (*sums).into(),
            }
        })
        .collect();
    let mut by_category: Vec<CategoryTotals> = per_category
        .iter()
        .enumerate()
        .filter(|(_, sums)| sums.rows > 0)
        .map(|(c, sums)| CategoryTotals {
            category: &products.categories[c],
            totals: (*sums).into(),
        })
        .collect();
    by_category.sort_by(|a, b| name_order(a.category, 0, b.category, 0));

    w.out.extend_from_slice(b"],");
    let json = serde_json::to_vec(&PageTail {
        summary: totals.summary(conn, report)?,
        by_location,
        by_category,
        total: totals.all.rows,
        limit: page.limit,
        offset: page.offset,
    })
    .map_err(|e| AppError::internal(format!("serialising a response: {e}")))?;
    // `{"summary":..}` without its opening brace continues the object.
    w.out.extend_from_slice(&json[1..]);
    w.flush();
    Ok(())
}
