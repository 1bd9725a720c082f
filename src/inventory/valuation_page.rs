//! The valuation report a page at a time, with its totals by location and by category, and
//! as a spreadsheet (docs/inventory.md#valuation-report-by-the-page,
//! docs/inventory.md#valuation-report-as-a-spreadsheet).
//!
//! `GET /api/reports/stock-valuation` without `limit`, `offset` or `format=csv` is the
//! whole report of [`super::valuation`], unchanged. With `limit` or `offset` it is one page
//! of the same rows, in the same order and with the same bytes per row, beside the same
//! summary and the totals per location and per category of every row: the web app shows
//! 500,000 rows a page at a time without downloading them. With `format=csv` the rows are
//! streamed as `text/csv`.
//!
//! Either way the server reads every row once, in one read snapshot: the products in name
//! order, then each location's stock rows (or, with `asOf`, the cost history and the
//! movement sums), into a list of `(location, product, quantity)` in report order, 16
//! bytes a row. The totals are summed over the whole list, exactly (scaled integers in
//! `i128`, rounded once), and only the rows of the page are written.

use std::collections::HashMap;

use rocket::futures::Stream;
use rocket::http::ContentType;
use rocket::response::{self, Responder};
use rocket::{get, Either, FromForm, Request, State};
use rusqlite::{params_from_iter, Connection};
use rust_decimal::Decimal;
use serde::Serialize;

use super::as_of::QuantitiesAsOf;
use super::filters::resolve_filters;
use super::lookup::and_eq;
use super::transfers::in_transit;
use super::valuation::{
    locations, AsOfSummary, ValLocation as Location, ValuationSummary, COST_HISTORY,
    STOCK_AT_LOCATION,
};
use super::value::{margin, money, round2, PRICE_PLACES, QTY_PLACES, SHOWN_PLACES, VALUE_PLACES};
use crate::auth::SessionUser;
use crate::clock::Clock;
use crate::db::decimal::ser_decimal;
use crate::db::decimal::{round_scaled, scaled_decimal};
use crate::db::raw::{bytes_col, csv_cell, name_order, push_fixed2, push_scaled, push_str};
use crate::db::{Db, ReadSnapshot};
use crate::error::{AppError, AppResult};
use crate::http::paging::{parse_page, Page};
use crate::http::stream::{stream_json_db, ChunkWriter, JsonStream, Sink, CHUNK};
use crate::scope::Scope;

/// The location index of an unallocated row.
const UNALLOCATED: u32 = u32::MAX;

struct Product {
    id: String,
    name: String,
    sku: String,
    /// Index into [`Snapshot::categories`].
    category: u32,
    cost: i64,
    unit: i64,
    stock_qty: i64,
}

/// One report row: a location (or [`UNALLOCATED`]), a product rank, a quantity.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    loc: u32,
    prod: u32,
    qty: i64,
}

/// Every row of the report, in report order, and what they refer to.
struct Snapshot {
    locations: Vec<Location>,
    products: Vec<Product>,
    categories: Vec<String>,
    rows: Vec<Row>,
}

impl Snapshot {
    fn location_name(&self, loc: u32) -> &str {
        if loc == UNALLOCATED {
            "Unallocated"
        } else {
            &self.locations[loc as usize].name
        }
    }

    fn location_id(&self, loc: u32) -> Option<&str> {
        (loc != UNALLOCATED).then(|| self.locations[loc as usize].id.as_str())
    }
}

/// Products in name order (inactive ones included); with a location, only those with a
/// stock row there. Categories are interned.
fn products(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<(Vec<Product>, Vec<String>)> {
    let (cond, mut args) = scope.condition("p");
    let mut sql = format!(
        "SELECT p.id, p.name, p.sku, p.category, p.cost_price, p.unit_price, p.stock_qty
         FROM products p WHERE {cond}"
    );
    and_eq(&mut sql, &mut args, "p.entity_id", entity);
    if let Some(l) = location {
        sql.push_str(" AND p.id IN (SELECT product_id FROM warehouse_stock WHERE location_id = ?)");
        args.push(l.to_owned());
    }
    sql.push_str(" ORDER BY p.name COLLATE NOCASE, p.seq");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut q = stmt.query(params_from_iter(args.iter()))?;
    let mut products = Vec::new();
    let mut categories: Vec<String> = Vec::new();
    let mut interned: HashMap<String, u32> = HashMap::new();
    while let Some(r) = q.next()? {
        let category: String = r.get(3)?;
        let next = categories.len() as u32;
        let c = *interned.entry(category).or_insert_with_key(|k| {
            categories.push(k.clone());
            next
        });
        products.push(Product {
            id: r.get(0)?,
            name: r.get(1)?,
            sku: r.get(2)?,
            category: c,
            cost: r.get(4)?,
            unit: r.get(5)?,
            stock_qty: r.get(6)?,
        });
    }
    Ok((products, categories))
}

/// Product ranks in id order, the order in which stock rows and movement sums arrive.
fn by_id(products: &[Product]) -> Vec<u32> {
    let mut by_id: Vec<u32> = (0..products.len() as u32).collect();
    by_id.sort_unstable_by(|&a, &b| {
        products[a as usize]
            .id
            .as_bytes()
            .cmp(products[b as usize].id.as_bytes())
    });
    by_id
}

/// Finds the rank of product `id` among `next` (ranks in id order, ids ascending across
/// calls); `None` for a product not in the report.
fn merge<'a>(
    products: &[Product],
    next: &mut std::iter::Peekable<std::slice::Iter<'a, u32>>,
    id: &[u8],
) -> Option<u32> {
    while next
        .next_if(|&&p| products[p as usize].id.as_bytes() < id)
        .is_some()
    {}
    next.next_if(|&&p| products[p as usize].id.as_bytes() == id)
        .copied()
}

/// The report's rows now (docs/inventory.md#valuation-report).
fn current(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<Snapshot> {
    let locations = locations(conn, scope, entity, location)?;
    let (products, categories) = products(conn, scope, entity, location)?;
    let by_id = by_id(&products);
    let mut rows = Vec::new();
    let mut located = vec![0_i64; products.len()];
    let mut here = vec![0_i64; products.len()];
    let mut stmt = conn.prepare_cached(STOCK_AT_LOCATION)?;
    for (li, l) in locations.iter().enumerate() {
        let mut next = by_id.iter().peekable();
        let mut q = stmt.query([&l.id])?;
        while let Some(r) = q.next()? {
            let Some(prod) = merge(&products, &mut next, bytes_col(r, 0)?) else {
                continue;
            };
            let qty: i64 = r.get(1)?;
            located[prod as usize] += qty;
            here[prod as usize] = qty;
        }
        for (prod, qty) in here.iter_mut().enumerate() {
            if *qty != 0 {
                rows.push(Row {
                    loc: li as u32,
                    prod: prod as u32,
                    qty: *qty,
                });
                *qty = 0;
            }
        }
    }
    if location.is_none() {
        for (i, p) in products.iter().enumerate() {
            let qty = p.stock_qty - located[i];
            if qty != 0 {
                rows.push(Row {
                    loc: UNALLOCATED,
                    prod: i as u32,
                    qty,
                });
            }
        }
    }
    Ok(Snapshot {
        locations,
        products,
        categories,
        rows,
    })
}

/// The report's rows as of the end of a day (docs/documents-stock.md#stock-as-at-a-date),
/// by the rules of [`super::valuation::write_valuation_as_of`].
fn as_of(
    conn: &Connection,
    twin: Option<ReadSnapshot>,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
    as_of: &str,
) -> AppResult<Snapshot> {
    let quantities = QuantitiesAsOf::start(conn, twin, as_of)?;
    let locations = locations(conn, scope, entity, location)?;
    let (mut products, categories) = products(conn, scope, entity, None)?;
    let by_id = by_id(&products);
    {
        let mut stmt = conn.prepare_cached(COST_HISTORY)?;
        let mut q = stmt.query([])?;
        let mut next = by_id.iter().peekable();
        let mut current: Option<(Vec<u8>, Option<u32>)> = None;
        while let Some(r) = q.next()? {
            let id = bytes_col(r, 0)?;
            let first = current.as_ref().is_none_or(|(c, _)| c.as_slice() != id);
            if first {
                let rank = merge(&products, &mut next, id);
                current = Some((id.to_vec(), rank));
            }
            let Some((_, Some(rank))) = current else {
                continue;
            };
            if first || bytes_col(r, 1)? <= as_of.as_bytes() {
                products[rank as usize].cost = r.get(2)?;
            }
        }
    }
    let order: HashMap<&[u8], u32> = locations
        .iter()
        .enumerate()
        .map(|(i, l)| (l.id.as_bytes(), i as u32))
        .collect();
    let mut rows = Vec::new();
    {
        let mut next = by_id.iter().peekable();
        let mut current: Option<(Vec<u8>, Option<u32>)> = None;
        quantities.each(conn, |id, at, qty| {
            if current.as_ref().is_none_or(|(c, _)| c.as_slice() != id) {
                let rank = merge(&products, &mut next, id);
                current = Some((id.to_vec(), rank));
            }
            let Some((_, Some(prod))) = current else {
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
    }
    // Location order, then product rank; unallocated (u32::MAX) last.
    rows.sort_unstable();
    drop(order);
    Ok(Snapshot {
        locations,
        products,
        categories,
        rows,
    })
}

/// Exact sums over some rows (scaled integers).
#[derive(Default, Clone, Copy)]
struct Sums {
    rows: u64,
    units: i128,
    cost: i128,
    retail: i128,
}

impl Sums {
    fn add(&mut self, qty: i64, p: &Product) {
        let q = i128::from(qty);
        self.rows += 1;
        self.units += q;
        self.cost += q * i128::from(p.cost);
        self.retail += q * i128::from(p.unit);
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
            total_units: scaled_decimal(s.units, QTY_PLACES),
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
struct PageTail<'a, S: Serialize> {
    summary: S,
    by_location: Vec<LocationTotals<'a>>,
    by_category: Vec<CategoryTotals<'a>>,
    total: u64,
    limit: Option<i64>,
    offset: i64,
}

/// Writes one row exactly as [`super::valuation`] does.
fn push_row(out: &mut Vec<u8>, s: &Snapshot, r: Row) {
    let p = &s.products[r.prod as usize];
    out.extend_from_slice(b"{\"product_id\":");
    push_str(out, &p.id);
    out.extend_from_slice(b",\"product_name\":");
    push_str(out, &p.name);
    out.extend_from_slice(b",\"product_sku\":");
    push_str(out, &p.sku);
    out.extend_from_slice(b",\"category\":");
    push_str(out, &s.categories[p.category as usize]);
    out.extend_from_slice(b",\"location_id\":");
    match s.location_id(r.loc) {
        Some(id) => push_str(out, id),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"location_name\":");
    push_str(out, s.location_name(r.loc));
    out.extend_from_slice(b",\"quantity\":");
    let q = i128::from(r.qty);
    push_scaled(out, q, QTY_PLACES);
    out.extend_from_slice(b",\"cost_price\":");
    push_scaled(out, i128::from(p.cost), PRICE_PLACES);
    out.extend_from_slice(b",\"unit_price\":");
    push_scaled(out, i128::from(p.unit), PRICE_PLACES);
    out.extend_from_slice(b",\"total_cost\":");
    let cost = round_scaled(q * i128::from(p.cost), VALUE_PLACES, SHOWN_PLACES);
    push_scaled(out, cost, SHOWN_PLACES);
    out.extend_from_slice(b",\"total_retail\":");
    let retail = round_scaled(q * i128::from(p.unit), VALUE_PLACES, SHOWN_PLACES);
    push_scaled(out, retail, SHOWN_PLACES);
    out.extend_from_slice(b",\"margin\":");
    out.extend_from_slice(round2(margin(p.unit, p.cost)).to_string().as_bytes());
    out.push(b'}');
}

/// What a page or a spreadsheet of the report is asked for: whose stock, which entity and
/// location (`None`: all), and as at which day (`None`: now).
#[derive(Clone, Copy)]
struct Asked<'a> {
    scope: &'a Scope,
    entity: Option<&'a str>,
    location: Option<&'a str>,
    as_of_day: Option<&'a str>,
}

impl Asked<'_> {
    /// The report's rows, now or as at the day asked.
    fn snapshot(&self, conn: &Connection, twin: Option<ReadSnapshot>) -> AppResult<Snapshot> {
        let Self {
            scope,
            entity,
            location,
            as_of_day,
        } = *self;
        match as_of_day {
            Some(d) => as_of(conn, twin, scope, entity, location, d),
            None => current(conn, scope, entity, location),
        }
    }
}

/// Writes the page answer: `{data: page rows, summary, byLocation, byCategory, total,
/// limit, offset}`.
fn write_page(
    conn: &Connection,
    twin: Option<ReadSnapshot>,
    asked: &Asked<'_>,
    page: Page,
    send: Sink<'_>,
) -> AppResult<()> {
    let s = asked.snapshot(conn, twin)?;
    let mut all = Sums::default();
    let mut per_location = vec![Sums::default(); s.locations.len() + 1];
    let mut per_category = vec![Sums::default(); s.categories.len()];
    // The mean margin is over the distinct products with a row.
    let mut counted = vec![false; s.products.len()];
    let (mut margin_sum, mut with_rows) = (Decimal::ZERO, 0_u32);
    for r in &s.rows {
        let p = &s.products[r.prod as usize];
        all.add(r.qty, p);
        let li = if r.loc == UNALLOCATED {
            s.locations.len()
        } else {
            r.loc as usize
        };
        per_location[li].add(r.qty, p);
        per_category[p.category as usize].add(r.qty, p);
        if !counted[r.prod as usize] {
            counted[r.prod as usize] = true;
            margin_sum += margin(p.unit, p.cost);
            with_rows += 1;
        }
    }
    let avg_margin = if with_rows == 0 {
        Decimal::ZERO
    } else {
        round2(margin_sum / Decimal::from(with_rows))
    };

    let mut by_location = Vec::new();
    for (li, sums) in per_location.iter().enumerate() {
        if sums.rows == 0 {
            continue;
        }
        let loc = if li == s.locations.len() {
            UNALLOCATED
        } else {
            li as u32
        };
        by_location.push(LocationTotals {
            location_id: s.location_id(loc),
            location_name: s.location_name(loc),
            totals: (*sums).into(),
        });
    }
    let mut by_category: Vec<CategoryTotals> = per_category
        .iter()
        .enumerate()
        .filter(|(_, sums)| sums.rows > 0)
        .map(|(c, sums)| CategoryTotals {
            category: &s.categories[c],
            totals: (*sums).into(),
        })
        .collect();
    by_category.sort_by(|a, b| name_order(a.category, 0, b.category, 0));

    let mut w = ChunkWriter::new(CHUNK, send);
    w.out.extend_from_slice(b"{\"data\":[");
    let start = usize::try_from(page.offset).unwrap_or(usize::MAX);
    let take = page
        .limit
        .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    for (n, r) in s.rows.iter().skip(start).take(take).enumerate() {
        if n > 0 {
            w.out.push(b',');
        }
        push_row(&mut w.out, &s, *r);
        if !w.flush_if_full() {
            return Ok(());
        }
    }
    w.out.extend_from_slice(b"],");
    let total = s.rows.len() as u64;
    let tail = |summary| PageTail {
        summary,
        by_location,
        by_category,
        total,
        limit: page.limit,
        offset: page.offset,
    };
    let json = match asked.as_of_day {
        Some(_) => serde_json::to_vec(&tail(Summary::AsOf(AsOfSummary {
            total_cost_value: money(all.cost),
            total_retail_value: money(all.retail),
            total_units: scaled_decimal(all.units, QTY_PLACES),
            avg_margin,
        }))),
        None => {
            let (transit_units, transit_cost) =
                in_transit(conn, asked.scope, asked.entity, asked.location)?;
            serde_json::to_vec(&tail(Summary::Now(ValuationSummary {
                total_cost_value: money(all.cost),
                total_retail_value: money(all.retail),
                total_units: scaled_decimal(all.units, QTY_PLACES),
                avg_margin,
                in_transit_units: scaled_decimal(transit_units, QTY_PLACES),
                in_transit_cost_value: money(transit_cost),
            })))
        }
    }
    .map_err(|e| AppError::internal(format!("serialising a response: {e}")))?;
    // `{"summary":..}` without its opening brace continues the object.
    w.out.extend_from_slice(&json[1..]);
    w.flush();
    Ok(())
}

#[derive(Serialize)]
#[serde(untagged)]
enum Summary {
    Now(ValuationSummary),
    AsOf(AsOfSummary),
}

/// The header row of the valuation as a spreadsheet.
pub const CSV_HEADER: &str = "product_sku,product_name,category,location,quantity,cost_price,\
    unit_price,total_cost,total_retail,margin_percent";

/// Writes the rows as CSV (RFC 4180, `\r\n` line ends, a header row), in report order,
/// through `send`; `page` applies as in the JSON page.
fn write_csv(
    conn: &Connection,
    twin: Option<ReadSnapshot>,
    asked: &Asked<'_>,
    page: Page,
    send: Sink<'_>,
) -> AppResult<()> {
    let s = asked.snapshot(conn, twin)?;
    let mut w = ChunkWriter::new(CHUNK, send);
    w.out.extend_from_slice(CSV_HEADER.as_bytes());
    w.out.extend_from_slice(b"\r\n");
    let start = usize::try_from(page.offset).unwrap_or(usize::MAX);
    let take = page
        .limit
        .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let mut margins: Vec<Option<Box<[u8]>>> = vec![None; s.products.len()];
    for r in s.rows.iter().skip(start).take(take) {
        let p = &s.products[r.prod as usize];
        let out = &mut w.out;
        csv_cell(out, &p.sku);
        out.push(b',');
        csv_cell(out, &p.name);
        out.push(b',');
        csv_cell(out, &s.categories[p.category as usize]);
        out.push(b',');
        csv_cell(out, s.location_name(r.loc));
        out.push(b',');
        let q = i128::from(r.qty);
        push_scaled(out, q, QTY_PLACES);
        out.push(b',');
        push_scaled(out, i128::from(p.cost), PRICE_PLACES);
        out.push(b',');
        push_scaled(out, i128::from(p.unit), PRICE_PLACES);
        out.push(b',');
        push_fixed2(
            out,
            round_scaled(q * i128::from(p.cost), VALUE_PLACES, SHOWN_PLACES),
        );
        out.push(b',');
        push_fixed2(
            out,
            round_scaled(q * i128::from(p.unit), VALUE_PLACES, SHOWN_PLACES),
        );
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
        if !w.flush_if_full() {
            return Ok(());
        }
    }
    w.flush();
    Ok(())
}

/// A streamed `text/csv` answer offered for download under a name built from the request.
pub struct CsvDownload<S> {
    body: JsonStream<S>,
    filename: String,
}

impl<'r, S> Responder<'r, 'r> for CsvDownload<S>
where
    S: Stream<Item = Vec<u8>> + Send + 'r,
{
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'r> {
        let mut res = self.body.respond_to(req)?;
        res.set_header(ContentType::new("text", "csv").with_params(("charset", "utf-8")));
        res.set_raw_header(
            "Content-Disposition",
            format!("attachment; filename=\"{}\"", self.filename),
        );
        Ok(res)
    }
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

/// The query of the valuation report (docs/inventory.md#valuation-report).
#[derive(Debug, FromForm)]
pub struct ValuationQuery {
    #[field(name = "entityId")]
    entity_id: Option<String>,
    #[field(name = "locationId")]
    location_id: Option<String>,
    #[field(name = "asOf")]
    as_of: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
    /// `json` (the default) or `csv`.
    format: Option<String>,
}

type Whole<S> = JsonStream<S>;

/// `GET /api/reports/stock-valuation`: the whole report, a page of it, or the spreadsheet.
#[get("/reports/stock-valuation?<q..>")]
pub(super) async fn stock_valuation(
    user: SessionUser,
    q: ValuationQuery,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<
    Either<
        Whole<impl Stream<Item = Vec<u8>> + Send>,
        Either<
            JsonStream<impl Stream<Item = Vec<u8>> + Send>,
            CsvDownload<impl Stream<Item = Vec<u8>> + Send>,
        >,
    >,
> {
    let csv = match q.format.as_deref().map(str::trim) {
        None | Some("json") => false,
        Some("csv") => true,
        Some(_) => return Err(AppError::invalid("format", "must be json or csv")),
    };
    if !csv && q.limit.is_none() && q.offset.is_none() {
        // The answer API clients know, unchanged.
        let whole =
            super::valuation::stock_valuation(user, q.entity_id, q.location_id, q.as_of, db, clock)
                .await?;
        return Ok(Either::Left(whole));
    }
    let page = parse_page(q.limit.as_deref(), q.offset.as_deref(), None)?;
    let as_of_day = q
        .as_of
        .as_deref()
        .map(|raw| as_of_date(raw, clock.today()))
        .transpose()?;
    let scope = user.scope();
    let (entity_raw, location_raw) = (q.entity_id, q.location_id);
    if !csv {
        let body = stream_json_db(db, move |db, conn, send| {
            let twin = twin_for(db, conn, as_of_day.is_some())?;
            let (entity, location) =
                resolve_filters(conn, &scope, entity_raw.as_deref(), location_raw.as_deref())?;
            write_page(
                conn,
                twin,
                &Asked {
                    scope: &scope,
                    entity: entity.as_deref(),
                    location: location.as_deref(),
                    as_of_day: as_of_day.as_deref(),
                },
                page,
                send,
            )
        })
        .await?;
        return Ok(Either::Right(Either::Left(body)));
    }
    // The file's name: `stock-valuation[-entity][-location]-<day>.csv`.
    let day = as_of_day
        .clone()
        .unwrap_or_else(|| clock.today().to_string());
    let names = {
        let scope = scope.clone();
        let (e, l) = (entity_raw.clone(), location_raw.clone());
        db.read(move |conn| {
            let (entity, location) = resolve_filters(conn, &scope, e.as_deref(), l.as_deref())?;
            let name = |sql: &str, id: Option<String>| -> AppResult<Option<String>> {
                id.map(|id| conn.query_row(sql, [id], |r| r.get::<_, String>(0)))
                    .transpose()
                    .map_err(AppError::from)
            };
            Ok((
                name("SELECT name FROM entities WHERE id = ?1", entity)?,
                name(
                    "SELECT name FROM warehouse_locations WHERE id = ?1",
                    location,
                )?,
            ))
        })
        .await?
    };
    let mut filename = String::from("stock-valuation");
    for n in [names.0, names.1].into_iter().flatten() {
        filename.push('-');
        filename.push_str(&slug(&n));
    }
    filename.push('-');
    filename.push_str(&day);
    filename.push_str(".csv");
    let body = stream_json_db(db, move |db, conn, send| {
        let twin = twin_for(db, conn, as_of_day.is_some())?;
        let (entity, location) =
            resolve_filters(conn, &scope, entity_raw.as_deref(), location_raw.as_deref())?;
        write_csv(
            conn,
            twin,
            &Asked {
                scope: &scope,
                entity: entity.as_deref(),
                location: location.as_deref(),
                as_of_day: as_of_day.as_deref(),
            },
            page,
            send,
        )
    })
    .await?;
    Ok(Either::Right(Either::Right(CsvDownload { body, filename })))
}

/// Before any read of `conn`: a second connection on its snapshot for the as-at report
/// ([`QuantitiesAsOf`]), none for the current one.
fn twin_for(db: &Db, conn: &Connection, as_of: bool) -> AppResult<Option<ReadSnapshot>> {
    if as_of {
        db.twin_snapshot(conn)
    } else {
        Ok(None)
    }
}

/// Parses `asOf` as the whole report does: `YYYY-MM-DD`, not after today.
fn as_of_date(raw: &str, today: time::Date) -> AppResult<String> {
    let d = crate::http::body::parse_date("asOf", raw.trim())?;
    if d > today {
        return Err(AppError::invalid("asOf", "must not be in the future"));
    }
    Ok(d.to_string())
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
