//! `GET` and `POST /api/v1/payments` (docs/public-api.md#endpoints,
//! docs/accounting.md#payments): the session API's rules through the key's scope; the
//! list pages in creation order as every public list.

use rocket::serde::json::Json;
use rocket::{get, post, State};
use serde_json::Value;

use super::{envelope, probe, ApiKey};
use crate::accounting::payments::{self, CreatePayment, Payment, PaymentQuery};
use crate::clock::Clock;
use crate::config::AppConfig;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::error::AppResult;
use crate::http::body::JsonBody;
use crate::http::paging::Order;
use crate::http::Created;

#[get("/payments?<q..>")]
pub async fn list(key: ApiKey, q: PaymentQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = q.list().v1_page()?;
    let rows = payments::read(db, key.scope(), &q, probe(page), Order::Creation).await?;
    Ok(envelope(rows, page))
}

#[post("/payments", data = "<body>")]
pub async fn create(
    key: ApiKey,
    body: JsonBody<CreatePayment>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<Payment>> {
    let scope = key.scope();
    let body = body.into_inner();
    let ctx = Ctx::new(clock, config);
    let p = db
        .write_as(scope.actor().to_owned(), move |tx| {
            payments::create(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(Created(p))
}
