//! The VAT periods of an entity: `GET /api/vat/periods` (docs/vat.md#periods).
//!
//! Until a connection to HMRC reads the obligations, the periods are quarters drawn
//! from `vat_registered_from`: the first runs from the registration date to the end of its
//! third calendar month, each after it three calendar months. Without a registration date,
//! the calendar quarters of the last two years. Newest first, up to the one holding today.

use std::collections::HashMap;

use rocket::serde::json::Json;
use rocket::{get, State};
use rusqlite::Connection;
use serde::Serialize;
use serde_json::Value;
use time::{Date, Month};

use super::returns::EntityOnly;
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::error::AppResult;
use crate::http::data;

/// One period: its days, inclusive, and the return filed for exactly it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Period {
    pub from: String,
    pub to: String,
    /// The id of the return filed for exactly this period, else null.
    pub filed: Option<String>,
}

/// How many calendar quarters are listed for an entity without a registration date.
const UNREGISTERED_QUARTERS: usize = 8;

/// The first day of the month `months` after the month of `d` (`months` may be negative).
fn month_start(d: Date, months: i32) -> Date {
    let index = d.year() * 12 + i32::from(u8::from(d.month())) - 1 + months;
    let month = u8::try_from(index.rem_euclid(12) + 1).expect("1 to 12");
    Date::from_calendar_date(
        index.div_euclid(12),
        Month::try_from(month).expect("1 to 12"),
        1,
    )
    .expect("the first of a month is a date")
}

/// The quarters (`from`, `to`) of the periods, newest first, up to the one holding
/// `today`: from `registered` when given, else the calendar quarters of the last two
/// years.
pub fn quarters(registered: Option<Date>, today: Date) -> Vec<(Date, Date)> {
    let mut out = Vec::new();
    match registered {
        Some(reg) => {
            let mut from = reg;
            let mut n = 0;
            while from <= today {
                n += 3;
                let next = month_start(reg, n);
                out.push((from, next.previous_day().expect("a day before")));
                from = next;
            }
            out.reverse();
        }
        None => {
            let this = month_start(today, -((i32::from(u8::from(today.month())) - 1) % 3));
            for i in 0..UNREGISTERED_QUARTERS {
                let k = i32::try_from(i).expect("small") * 3;
                let from = month_start(this, -k);
                let to = month_start(this, 3 - k)
                    .previous_day()
                    .expect("a day before");
                out.push((from, to));
            }
        }
    }
    out
}

/// The periods of `entity` (already resolved through the caller's scope) on `today`.
pub fn periods(conn: &Connection, entity: &str, today: Date) -> AppResult<Vec<Period>> {
    let registered: Option<String> = conn
        .prepare_cached("SELECT vat_registered_from FROM entities WHERE id = ?1")?
        .query_row([entity], |r| r.get(0))?;
    let registered = registered
        .map(|d| crate::http::body::parse_date("vat_registered_from", &d))
        .transpose()?;
    let filed: HashMap<(String, String), String> = super::filed::list(conn, entity)?
        .into_iter()
        .map(|r| ((r.from, r.to), r.id))
        .collect();
    Ok(quarters(registered, today)
        .into_iter()
        .map(|(from, to)| {
            let (from, to) = (from.to_string(), to.to_string());
            let filed = filed.get(&(from.clone(), to.clone())).cloned();
            Period { from, to, filed }
        })
        .collect())
}

#[get("/vat/periods?<q..>")]
pub(super) async fn route_periods(
    user: SessionUser,
    q: EntityOnly,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let rows = db
        .read(move |conn| periods(conn, &q.resolve(conn, &scope)?, ctx.today))
        .await?;
    Ok(data(rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn quarters_run_from_the_registration_date_to_month_ends_newest_first() {
        let q = quarters(Some(date!(2025 - 01 - 15)), date!(2025 - 07 - 01));
        assert_eq!(
            q,
            vec![
                (date!(2025 - 07 - 01), date!(2025 - 09 - 30)),
                (date!(2025 - 04 - 01), date!(2025 - 06 - 30)),
                (date!(2025 - 01 - 15), date!(2025 - 03 - 31)),
            ]
        );
        // Across a year's end, and a registration still to come lists nothing.
        let q = quarters(Some(date!(2025 - 11 - 01)), date!(2026 - 02 - 10));
        assert_eq!(
            q,
            vec![
                (date!(2026 - 02 - 01), date!(2026 - 04 - 30)),
                (date!(2025 - 11 - 01), date!(2026 - 01 - 31)),
            ]
        );
        assert!(quarters(Some(date!(2026 - 03 - 01)), date!(2026 - 02 - 28)).is_empty());
    }

    #[test]
    fn without_a_registration_date_the_calendar_quarters_of_two_years_are_listed() {
        let q = quarters(None, date!(2026 - 02 - 10));
        assert_eq!(q.len(), 8);
        assert_eq!(q[0], (date!(2026 - 01 - 01), date!(2026 - 03 - 31)));
        assert_eq!(q[1], (date!(2025 - 10 - 01), date!(2025 - 12 - 31)));
        assert_eq!(q[7], (date!(2024 - 04 - 01), date!(2024 - 06 - 30)));
    }
}
