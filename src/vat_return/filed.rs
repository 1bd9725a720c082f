//! The returns filed, as kept (docs/vat.md#filed-returns): the record, its reads, and the
//! `filed` of the return's GET and of the periods. A leaf: the return's GET (`period.rs`)
//! and the recording (`returns.rs`) both read it.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;
use serde_json::Value;
use time::Date;

use super::boxes::Boxes;
use crate::db::damage;
use crate::db::decimal::Money;
use crate::error::AppResult;

/// A filed return, as `GET /api/vat/returns` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct FiledReturn {
    pub id: String,
    pub entity_id: String,
    pub from: String,
    pub to: String,
    /// HMRC's key of the obligation; null for a return recorded here.
    pub period_key: Option<String>,
    /// The entity's scheme the boxes were computed on.
    pub scheme: String,
    pub boxes: Boxes,
    pub filed_at: String,
    pub filed_by: String,
    /// `recorded` (filed elsewhere) or `hmrc` (submitted through Making Tax Digital).
    pub method: String,
    /// HMRC's receipt; null for a recorded return.
    pub receipt: Option<Value>,
}

const COLUMNS: &str = "id, entity_id, period_from, period_to, period_key, box1, box2, box3, \
    box4, box5, box6, box7, box8, box9, filed_at, filed_by, method, receipt, scheme";

fn from_row(r: &Row<'_>) -> rusqlite::Result<FiledReturn> {
    let money = |i: usize| r.get::<_, i64>(i).map(Money::from_scaled);
    // Boxes 6-9 are kept in whole pounds.
    let pounds = |i: usize| r.get::<_, i64>(i).map(Money::from_i64);
    let receipt: Option<String> = r.get(17)?;
    Ok(FiledReturn {
        id: r.get(0)?,
        entity_id: r.get(1)?,
        from: r.get(2)?,
        to: r.get(3)?,
        period_key: r.get(4)?,
        scheme: r.get(18)?,
        boxes: Boxes {
            vat_due_sales: money(5)?,
            vat_due_acquisitions: money(6)?,
            total_vat_due: money(7)?,
            vat_reclaimed_curr_period: money(8)?,
            net_vat_due: money(9)?,
            total_value_sales_ex_vat: pounds(10)?,
            total_value_purchases_ex_vat: pounds(11)?,
            total_value_goods_supplied_ex_vat: pounds(12)?,
            total_acquisitions_ex_vat: pounds(13)?,
        },
        filed_at: r.get(14)?,
        filed_by: r.get(15)?,
        method: r.get(16)?,
        receipt: receipt.and_then(|t| serde_json::from_str(&t).ok()),
    })
}

/// The returns filed for `entity` (already resolved through the caller's scope), newest
/// period first.
pub fn list(conn: &Connection, entity: &str) -> AppResult<Vec<FiledReturn>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM vat_returns WHERE entity_id = ?1 AND status = 'filed'
         ORDER BY period_from DESC, seq DESC"
    ))?;
    let rows = stmt
        .query_map([entity], damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The return filed for exactly the period `from`..=`to` of `entity`, if any: the
/// `filed` of `GET /api/vat/return` and of the periods.
pub fn filed_exactly(
    conn: &Connection,
    entity: &str,
    from: Date,
    to: Date,
) -> AppResult<Option<FiledReturn>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM vat_returns
             WHERE entity_id = ?1 AND period_from = ?2 AND period_to = ?3 AND status = 'filed'
             ORDER BY seq LIMIT 1"
        ))?
        .query_row(
            params![entity, from.to_string(), to.to_string()],
            damage::named(from_row),
        )
        .optional()?)
}

/// A return of `entity` (filed or in flight) whose period shares a day with
/// `from`..=`to`: its period.
pub fn overlapping(
    conn: &Connection,
    entity: &str,
    from: Date,
    to: Date,
) -> AppResult<Option<(String, String)>> {
    Ok(conn
        .prepare_cached(
            "SELECT period_from, period_to FROM vat_returns
             WHERE entity_id = ?1 AND period_from <= ?3 AND period_to >= ?2
             ORDER BY period_from LIMIT 1",
        )?
        .query_row(params![entity, from.to_string(), to.to_string()], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?)
}
