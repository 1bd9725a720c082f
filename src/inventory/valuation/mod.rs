//! The stock valuation report, `GET /api/reports/stock-valuation`
//! (docs/inventory.md#valuation-report): one row per product and location with stock,
//! location name first and product name second, unallocated stock last, then the summary.
//! Without `limit`, `offset` or `format=csv` it is the whole report; with `limit` or
//! `offset`, one page of the same rows with totals by location and by category
//! (docs/inventory.md#valuation-report-by-the-page); with `format=csv`, the rows as a
//! spreadsheet (docs/inventory.md#valuation-report-as-a-spreadsheet). With `asOf`, any of
//! them as of the end of that day (docs/documents-stock.md#stock-as-at-a-date).
//!
//! One reader feeds three writers, every figure from one read snapshot:
//!
//! - [`read`]: the locations, the products, and the rows in report order (now: each
//!   location's stock rows; as at a day: the cost history and the movement sums of
//!   [`as_of`]);
//! - [`totals`]: the summary, exact sums of scaled integers in `i128`, rounded once;
//! - [`whole`] (streamed as it is read, and the JSON of a row), [`page`] and [`csv`]:
//!   the three answers.

pub mod as_of;
mod csv;
mod page;
mod read;
mod totals;
mod whole;

use rocket::futures::Stream;
use rocket::{get, routes, FromForm, Route, State};
use rusqlite::Connection;
use time::Date;

use super::filters::resolve_filters;
use crate::auth::SessionUser;
use crate::clock::Clock;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::paging::{parse_page, Page};
use crate::http::stream::{stream_json_db, JsonOrCsv, Sink, CHUNK};
use crate::scope::Scope;
use read::Report;
pub use read::{COST_HISTORY, STOCK_AT_LOCATION};
pub use whole::write_valuation;

pub fn routes() -> Vec<Route> {
    routes![stock_valuation]
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

/// Which answer is asked for.
#[derive(Debug, Clone, Copy)]
enum Shape {
    Whole,
    Page(Page),
    Csv(Page),
}

/// A valuation request, checked as far as it can be without the database.
#[derive(Debug, Clone)]
struct Asked {
    shape: Shape,
    entity: Option<String>,
    location: Option<String>,
    /// The day asked for (`YYYY-MM-DD`), `None` for now.
    as_of: Option<String>,
}

impl ValuationQuery {
    /// Checks `format`, then the paging, then `asOf` (400s). The whole report takes a
    /// blank `asOf` for none; a page and the spreadsheet refuse it.
    fn check(self, today: Date) -> AppResult<Asked> {
        let csv = match self.format.as_deref().map(str::trim) {
            None | Some("json") => false,
            Some("csv") => true,
            Some(_) => return Err(AppError::invalid("format", "must be json or csv")),
        };
        let shape = if !csv && self.limit.is_none() && self.offset.is_none() {
            Shape::Whole
        } else {
            let page = parse_page(self.limit.as_deref(), self.offset.as_deref(), None)?;
            if csv {
                Shape::Csv(page)
            } else {
                Shape::Page(page)
            }
        };
        let as_of = match shape {
            Shape::Whole => self.as_of.filter(|s| !s.trim().is_empty()),
            Shape::Page(_) | Shape::Csv(_) => self.as_of,
        };
        Ok(Asked {
            shape,
            entity: self.entity_id,
            location: self.location_id,
            as_of: as_of.map(|raw| as_of_date(&raw, today)).transpose()?,
        })
    }
}

/// Parses `asOf`: a date in the form `YYYY-MM-DD`, not after today (400 otherwise).
fn as_of_date(raw: &str, today: Date) -> AppResult<String> {
    let d = crate::http::body::parse_date("asOf", raw.trim())?;
    if d > today {
        return Err(AppError::invalid("asOf", "must not be in the future"));
    }
    Ok(d.to_string())
}

/// Writes the answer `asked` for in `conn`'s read snapshot, through `send`.
fn write(
    db: &Db,
    conn: &Connection,
    scope: &Scope,
    asked: &Asked,
    send: Sink<'_>,
) -> AppResult<()> {
    // Before any read: the as-at report reads on two connections, one snapshot.
    let twin = match asked.as_of {
        Some(_) => db.twin_snapshot(conn)?,
        None => None,
    };
    let (entity, location) = resolve_filters(
        conn,
        scope,
        asked.entity.as_deref(),
        asked.location.as_deref(),
    )?;
    let (entity, location) = (entity.as_deref(), location.as_deref());
    let report = match asked.as_of.as_deref() {
        Some(day) => Report::as_of(conn, twin, scope, entity, location, day)?,
        None => Report::now(conn, scope, entity, location)?,
    };
    match asked.shape {
        Shape::Whole => whole::write(conn, &report, CHUNK, send),
        Shape::Page(page) => page::write(conn, &report, page, send),
        Shape::Csv(page) => csv::write(conn, &report, page, send),
    }
}

/// `GET /api/reports/stock-valuation`: the whole report, a page of it, or the spreadsheet.
#[get("/reports/stock-valuation?<q..>")]
async fn stock_valuation(
    user: SessionUser,
    q: ValuationQuery,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<JsonOrCsv<impl Stream<Item = Vec<u8>> + Send>> {
    let today = clock.today();
    let asked = q.check(today)?;
    let scope = user.scope();
    let csv_file = match asked.shape {
        Shape::Csv(_) => Some(db.read(file_name(&scope, &asked, today)).await?),
        Shape::Whole | Shape::Page(_) => None,
    };
    let body = stream_json_db(db, move |db, conn, send| {
        write(db, conn, &scope, &asked, send)
    })
    .await?;
    Ok(JsonOrCsv { body, csv_file })
}

/// The spreadsheet's file name, read before its rows ([`csv::file_name`]).
fn file_name(
    scope: &Scope,
    asked: &Asked,
    today: Date,
) -> impl FnOnce(&Connection) -> AppResult<String> + Send + 'static {
    let (scope, asked) = (scope.clone(), asked.clone());
    move |conn| {
        let day = asked.as_of.clone().unwrap_or_else(|| today.to_string());
        csv::file_name(
            conn,
            &scope,
            asked.entity.as_deref(),
            asked.location.as_deref(),
            &day,
        )
    }
}
