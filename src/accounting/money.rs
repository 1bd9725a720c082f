//! The dashboard's money figures (docs/accounting.md#the-dashboard):
//! `GET /api/dashboard/money?entityId`, summed on the server in one read so that a
//! business with a hundred thousand invoices does not send them all to the browser.
//!
//! Every figure is in pounds: each document's amount × its `exchange_rate`, rounded to
//! the penny per document, half away from zero (docs/accounting.md#currencies), summed
//! exactly in pence.

use rocket::serde::json::Json;
use rocket::{get, routes, Route, State};
use rusqlite::{params_from_iter, Connection};
use serde::Serialize;
use serde_json::Value;
use time::Date;

use crate::auth::SessionUser;
use crate::clock::Clock;
use crate::db::decimal::{scaled_decimal, ser_decimal};
use crate::db::Db;
use crate::error::AppResult;
use crate::http::data;
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![money]
}

/// A sum in pence, answered as a JSON number of pounds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pence(pub i128);

impl Serialize for Pence {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_decimal(&scaled_decimal(self.0, 2), s)
    }
}

/// The figures, with how many documents each sums.
#[derive(Debug, Default, Serialize)]
pub struct MoneySummary {
    /// Whether the business has any invoice or bill, in any status.
    pub documents: bool,
    /// The net of invoices `sent` or `paid` issued in the current calendar month.
    pub sales_this_month: Pence,
    pub sales_count: i64,
    /// What customers still owe on invoices `sent`, and the part past its due date.
    pub owed: Pence,
    pub owed_count: i64,
    pub overdue: Pence,
    pub overdue_count: i64,
    /// What is still to pay on bills `awaiting_payment`, and the part past its due date.
    pub bills_due: Pence,
    pub bills_count: i64,
    pub bills_overdue: Pence,
}

/// `pence` of a document's currency in pounds at `rate` (millionths of a pound per unit),
/// rounded half away from zero.
fn in_pounds(pence: i64, rate: i64) -> i128 {
    let v = i128::from(pence) * i128::from(rate);
    let half = 500_000;
    if v >= 0 {
        (v + half) / 1_000_000
    } else {
        -((-v + half) / 1_000_000)
    }
}

/// The figures of `entity` (every entity of the scope's owner when `None`) on `today`.
pub fn money_summary(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    today: Date,
) -> AppResult<MoneySummary> {
    let today_s = today.to_string();
    let month_start = format!("{}-01", &today_s[..7]);
    let mut m = MoneySummary::default();
    // Only the documents that count: every `sent` invoice, and the `paid` ones issued
    // this month (the owner's date-ordered index keeps the second part short).
    // What the caller sees (docs/auth.md#members-and-roles), then the entity filter.
    let (cond, seen) = scope.condition(conn, "");
    let args = |more: &[&str]| -> Vec<Option<String>> {
        let mut v: Vec<Option<String>> = seen.iter().cloned().map(Some).collect();
        v.push(entity.map(str::to_owned));
        v.push(entity.map(str::to_owned));
        v.extend(more.iter().map(|s| Some((*s).to_owned())));
        v
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT status, issue_date, due_date, subtotal, total - amount_paid - amount_credited,
                exchange_rate
         FROM invoices
         WHERE {cond} AND (? IS NULL OR entity_id = ?)
           AND (status = 'sent' OR (status = 'paid' AND issue_date >= ?))"
    ))?;
    let mut rows = stmt.query(params_from_iter(args(&[&month_start])))?;
    while let Some(r) = rows.next()? {
        let (status, issued, due): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let (subtotal, amount_due, rate): (i64, i64, i64) = (r.get(3)?, r.get(4)?, r.get(5)?);
        if issued >= month_start && issued <= today_s {
            m.sales_this_month.0 += in_pounds(subtotal, rate);
            m.sales_count += 1;
        }
        if status == "sent" && amount_due > 0 {
            let due_now = in_pounds(amount_due, rate);
            m.owed.0 += due_now;
            m.owed_count += 1;
            if due < today_s {
                m.overdue.0 += due_now;
                m.overdue_count += 1;
            }
        }
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT due_date, total - amount_paid - amount_credited, exchange_rate
         FROM bills
         WHERE {cond} AND (? IS NULL OR entity_id = ?) AND status = 'awaiting_payment'"
    ))?;
    let mut rows = stmt.query(params_from_iter(args(&[])))?;
    while let Some(r) = rows.next()? {
        let (due, amount_due, rate): (String, i64, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
        if amount_due > 0 {
            let due_now = in_pounds(amount_due, rate);
            m.bills_due.0 += due_now;
            m.bills_count += 1;
            if due < today_s {
                m.bills_overdue.0 += due_now;
            }
        }
    }
    let mut twice = args(&[]);
    twice.extend(args(&[]));
    m.documents = conn
        .prepare_cached(&format!(
            "SELECT EXISTS (SELECT 1 FROM invoices WHERE {cond} AND (? IS NULL OR entity_id = ?))
                 OR EXISTS (SELECT 1 FROM bills WHERE {cond} AND (? IS NULL OR entity_id = ?))"
        ))?
        .query_row(params_from_iter(twice), |r| r.get(0))?;
    Ok(m)
}

#[get("/dashboard/money?<entityId>")]
#[allow(non_snake_case)]
async fn money(
    user: SessionUser,
    entityId: Option<String>,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let today = clock.today();
    let m = db
        .read(move |conn| {
            let entity = scope.entity_opt(conn, "entityId", entityId.as_deref())?;
            money_summary(conn, &scope, entity.as_deref(), today)
        })
        .await?;
    Ok(data(m))
}

#[cfg(test)]
mod tests {
    use super::in_pounds;

    #[test]
    fn a_documents_amount_is_rounded_to_the_penny_half_away_from_zero() {
        // 10.05 EUR at 0.85 GBP: 8.5425 → 8.54; 0.15 at 0.5: 0.075 → 0.08; and negative.
        assert_eq!(in_pounds(1005, 850_000), 854);
        assert_eq!(in_pounds(15, 500_000), 8);
        assert_eq!(in_pounds(-15, 500_000), -8);
        assert_eq!(in_pounds(12_345, 1_000_000), 12_345);
    }
}
