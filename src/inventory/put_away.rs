//! Put away: `POST /api/stock/put-away` moves a product's unallocated units into a location
//! (docs/inventory.md#put-away).
//!
//! Two movements through [`ledger::apply_movement`] in the one `BEGIN IMMEDIATE`
//! transaction of the request: a `transfer_out` without location (the unallocated stock
//! goes down) and a `transfer_in` at the location (its stock row goes up), both carrying
//! one `PA-` reference that links them. The product's `stock_qty` is unchanged, so the
//! invariants of docs/ledger.md#invariants hold; the unallocated side is judged over time
//! (docs/ledger.md#stock-over-time) and needs the units whatever `allow_negative_stock`
//! says, as shipping a transfer order does: a put-away only moves stock that is there.

use rocket::{post, routes, Route, State};
use rusqlite::Transaction;
use serde::{Deserialize, Serialize};

use super::ledger::{self, Movement, MovementType, NewMovement, Origin};
use super::lookup::{check_takes_stock, location_ref, product_ref};
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::decimal::Qty;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{clean, parse_date, parse_id, JsonBody};
use crate::http::Created;
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![create]
}

/// The body of `POST /api/stock/put-away`.
#[derive(Debug, Deserialize)]
pub struct PutAwayBody {
    pub product_id: String,
    pub location_id: String,
    pub qty: Qty,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

/// The answer: the linked pair, the unallocated side first.
#[derive(Debug, Serialize)]
pub struct PutAway {
    /// `PA-` and twelve hex digits, on both movements.
    pub reference: String,
    /// `[transfer_out without location, transfer_in at the location]`.
    pub movements: [Movement; 2],
}

/// Moves `qty` unallocated units of a product into a location, as one pair of movements
/// (docs/inventory.md#put-away).
pub fn put_away(tx: &Transaction, scope: &Scope, b: PutAwayBody, ctx: &Ctx) -> AppResult<PutAway> {
    let product_id = parse_id("product_id", &b.product_id)?;
    if b.location_id.trim().is_empty() {
        return Err(AppError::missing("location_id"));
    }
    let location_id = parse_id("location_id", &b.location_id)?;
    if b.qty.is_zero() || b.qty.is_sign_negative() {
        return Err(AppError::invalid(
            "qty",
            "must be above 0: the units to move into the location",
        ));
    }
    let date = match b.date.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => parse_date("date", d)?,
        None => ctx.today,
    };
    ledger::not_after_today("date", date, ctx.today)?;
    let product = product_ref(tx, scope, &product_id)?;
    let location = location_ref(tx, scope, &location_id)?;
    // The random tail of a time-ordered id: no two put-aways share it.
    let id = uuid::Uuid::now_v7().simple().to_string();
    let reference = format!("PA-{}", id[id.len() - 12..].to_uppercase());
    let notes = clean(b.notes);
    let side = |location, qty, kind| NewMovement {
        product: &product,
        location,
        qty,
        kind,
        reference: Some(reference.clone()),
        notes: notes.clone(),
        date,
        unit_cost: None,
        origin: Origin::Client,
    };
    // The location is checked first (entity, inactive), so a refusal names what is wrong
    // with the request before what is short; a refusal of either side keeps neither.
    let into = side(Some(&location), b.qty, MovementType::TransferIn);
    let out = side(None, -b.qty, MovementType::TransferOut);
    check_takes_stock("location_id", &location, product.entity_id.as_deref())?;
    let out = ledger::apply_movement(tx, &out, false, &ctx.now)?;
    let into = ledger::apply_movement(tx, &into, ctx.allow_negative, &ctx.now)?;
    Ok(PutAway {
        reference,
        movements: [out, into],
    })
}

#[post("/stock/put-away", data = "<body>")]
async fn create(
    user: SessionUser,
    body: JsonBody<PutAwayBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<PutAway>> {
    let scope = user.scope();
    let body = body.into_inner();
    let done = db
        .write_as(scope.actor().to_owned(), move |tx| {
            put_away(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(Created(done))
}
