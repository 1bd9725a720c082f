//! Filed VAT returns: `GET/POST /api/vat/returns` (docs/vat.md#filed-returns).
//!
//! Recording a return filed elsewhere keeps its nine figures as computed at that moment,
//! in the transaction that checks the period and moves the entity's lock date to at least
//! the period's end, so nothing in a filed period can change afterwards (the lock date
//! refuses it, docs/accounting.md#lock-date) and the figures kept are the figures filed.

use rocket::serde::json::Json;
use rocket::{get, FromForm, State};
use rusqlite::{params, Connection, Transaction};
use serde::Deserialize;
use serde_json::Value;
use time::Date;

use super::filed::{list, overlapping, FiledReturn};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::Money;
use crate::db::Db;
use crate::entities::lock;
use crate::error::{AppError, AppResult};
use crate::http::data;
use crate::scope::Scope;

/// The body of `POST /api/vat/returns` for a return filed elsewhere.
#[derive(Debug, Deserialize)]
pub struct RecordReturn {
    pub entity_id: String,
    pub from: String,
    pub to: String,
}

/// Records a return filed elsewhere (`method: recorded`) for the period `from`..=`to` of
/// an entity of `scope`, filed by `user`: the boxes computed now, kept; the lock date moved
/// to at least `to`. 400 for a period the return's GET refuses or one that has not ended
/// (`to` today or later); 409 when a filed return shares a day with it.
pub fn record(
    tx: &Transaction,
    scope: &Scope,
    user: &str,
    body: RecordReturn,
    ctx: &Ctx,
) -> AppResult<FiledReturn> {
    let entity = scope.entity(tx, "entity_id", &body.entity_id)?;
    let (from, to) = period(&body.from, &body.to)?;
    if to >= ctx.today {
        return Err(AppError::invalid(
            "to",
            format!(
                "must be before today ({}): a period not yet ended cannot be filed",
                ctx.today
            ),
        ));
    }
    if let Some((f, t)) = overlapping(tx, &entity, from, to)? {
        return Err(AppError::refused(
            "period_filed",
            format!("A VAT return is already filed for {f} to {t}, which overlaps {from} to {to}"),
        ));
    }
    let boxes = super::compute::boxes(tx, &entity, from, to)?;
    let scheme: String = tx
        .prepare_cached("SELECT vat_scheme FROM entities WHERE id = ?1")?
        .query_row([&entity], |r| r.get(0))?;
    let r = FiledReturn {
        id: uuid::Uuid::now_v7().to_string(),
        entity_id: entity,
        from: from.to_string(),
        to: to.to_string(),
        period_key: None,
        scheme,
        boxes,
        filed_at: ctx.now.clone(),
        filed_by: user.to_owned(),
        method: "recorded".into(),
        receipt: None,
    };
    insert(tx, &r, "filed")?;
    lock::lock_at_least(tx, &r.entity_id, to)?;
    Ok(r)
}

/// Keeps `r` with `status` (`filed`, or `submitting` while HMRC is being called, docs/hmrc.md#submitting-a-return):
/// the boxes as they are (1-5 in hundredths, 6-9 in whole pounds). 400 for a box too large
/// to keep.
pub fn insert(tx: &Transaction, r: &FiledReturn, status: &str) -> AppResult<()> {
    let b = &r.boxes;
    let money = |m: Money| {
        m.to_scaled().ok_or_else(|| {
            AppError::bad_request(format!("A box of this return is too large to keep: {m}"))
        })
    };
    let pounds = |m: Money| Ok::<_, AppError>(money(m)? / 100);
    tx.prepare_cached(
        "INSERT INTO vat_returns (id, owner_id, entity_id, period_from, period_to, scheme,
             box1, box2, box3, box4, box5, box6, box7, box8, box9, method, filed_at, filed_by,
             period_key, status, receipt)
         SELECT ?1, owner_id, id, ?3, ?4, ?16,
             ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?17, ?14, ?15, ?18, ?19, ?20
         FROM entities WHERE id = ?2",
    )?
    .execute(params![
        r.id,
        r.entity_id,
        r.from,
        r.to,
        money(b.vat_due_sales)?,
        money(b.vat_due_acquisitions)?,
        money(b.total_vat_due)?,
        money(b.vat_reclaimed_curr_period)?,
        money(b.net_vat_due)?,
        pounds(b.total_value_sales_ex_vat)?,
        pounds(b.total_value_purchases_ex_vat)?,
        pounds(b.total_value_goods_supplied_ex_vat)?,
        pounds(b.total_acquisitions_ex_vat)?,
        r.filed_at,
        r.filed_by,
        r.scheme,
        r.method,
        r.period_key,
        status,
        r.receipt.as_ref().map(Value::to_string),
    ])?;
    Ok(())
}

/// The period of a return, checked as the return's GET checks it
/// (docs/vat.md#the-computation): two dates, `to` not before `from`, at most 366 days.
pub fn period(from: &str, to: &str) -> AppResult<(Date, Date)> {
    let from = crate::http::body::parse_date("from", from.trim())?;
    let to = crate::http::body::parse_date("to", to.trim())?;
    super::period::check_period(from, to)?;
    Ok((from, to))
}

/// `entityId` (required).
#[derive(Debug, Default, FromForm)]
pub struct EntityOnly {
    #[field(name = "entityId")]
    pub entity_id: Option<String>,
}

impl EntityOnly {
    /// The entity named, resolved through `scope`: 400 without one.
    pub fn resolve(&self, conn: &Connection, scope: &Scope) -> AppResult<String> {
        match self.entity_id.as_deref() {
            Some(raw) => scope.entity(conn, "entityId", raw),
            None => Err(AppError::missing("entityId")),
        }
    }
}

#[get("/vat/returns?<q..>")]
pub(super) async fn route_list(
    user: SessionUser,
    q: EntityOnly,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let rows = db
        .read(move |conn| list(conn, &q.resolve(conn, &scope)?))
        .await?;
    Ok(data(rows))
}
