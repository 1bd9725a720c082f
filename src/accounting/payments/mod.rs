//! Payments: `/api/payments` (list, record, delete) and, through `crate::v1`,
//! `/api/v1/payments` (docs/accounting.md#payments). Many dated payments per invoice or
//! bill; the document's `amount_paid` is their sum and its status follows the money.
//!
//! - `money.rs`: the record, a payment recorded after its guards, `amount_paid` kept,
//!   [`follow_money`], and [`on_document_write`] which the documents' rules call;
//! - `rules.rs`: list, record and delete payments (the APIs), and `stockbook check`;
//! - `openapi.rs`: the operations and schemas.

mod money;
pub mod openapi;
mod rules;

use rocket::serde::json::Json;
use rocket::{delete, get, post, routes, FromForm, Route, State};
use serde_json::{json, Value};

pub use money::{
    check_sent, follow_money, forget_document, on_document_write, PaidDate, Payment, Sent,
};
pub use rules::{breaches, create, delete as delete_payment, list, CreatePayment};

use crate::accounting::common::Which;
use crate::auth::SessionUser;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::error::AppResult;
use crate::http::body::{parse_id, IdBody, JsonBody};
use crate::http::paging::{EntityListQuery, Order};
use crate::http::{data, Created};

/// The session routes, to mount at `/api`.
pub fn routes() -> Vec<Route> {
    routes![route_list, route_create, route_delete]
}

/// `documentId` besides the accounting lists' `entityId`, `id`, `limit`, `offset`.
#[derive(Debug, Default, FromForm)]
pub struct PaymentQuery {
    #[field(name = "documentId")]
    pub document_id: Vec<String>,
    #[field(name = "entityId")]
    pub entity_id: Vec<String>,
    pub id: Vec<String>,
    pub limit: Vec<String>,
    pub offset: Vec<String>,
    pub updated_since: Vec<String>,
}

impl PaymentQuery {
    /// The filters and paging every accounting list takes.
    pub fn list(&self) -> EntityListQuery {
        EntityListQuery {
            entity_id: self.entity_id.clone(),
            id: self.id.clone(),
            limit: self.limit.clone(),
            offset: self.offset.clone(),
            updated_since: self.updated_since.clone(),
        }
    }

    /// The `documentId` filter: 400 unless one UUID.
    pub fn document_id(&self) -> AppResult<Option<String>> {
        match self.document_id.as_slice() {
            [] => Ok(None),
            [raw] => parse_id("documentId", raw).map(Some),
            _ => Err(crate::error::AppError::invalid(
                "documentId",
                "given more than once",
            )),
        }
    }
}

/// Reads a page of payments for `scope` (both APIs).
pub async fn read(
    db: &Db,
    scope: crate::scope::Scope,
    q: &PaymentQuery,
    page: crate::http::paging::Page,
    order: Order,
) -> AppResult<Vec<Payment>> {
    let entity = q.list().entity()?;
    let id = match order {
        Order::Session => q.list().id()?,
        Order::Creation => None,
    };
    let document = q.document_id()?;
    let since = q.list().since()?;
    db.read(move |conn| {
        let entity = scope.entity_opt(conn, "entityId", entity.as_deref())?;
        let which = Which {
            entity: entity.as_deref(),
            id: id.as_deref(),
            updated_since: since.as_deref(),
        };
        list(conn, &scope, which, document.as_deref(), page, order)
    })
    .await
}

#[get("/payments?<q..>")]
async fn route_list(user: SessionUser, q: PaymentQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = q.list().session_page()?;
    Ok(data(
        read(db, user.scope(), &q, page, Order::Session).await?,
    ))
}

#[post("/payments", data = "<body>")]
async fn route_create(
    user: SessionUser,
    body: JsonBody<CreatePayment>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Created<Payment>> {
    let scope = user.scope();
    let body = body.into_inner();
    let p = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(Created(p))
}

#[delete("/payments", data = "<body>")]
async fn route_delete(
    user: SessionUser,
    body: JsonBody<IdBody>,
    db: &State<Db>,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let scope = user.scope();
    let id = body.into_inner().id()?;
    db.write_as(scope.actor().to_owned(), move |tx| {
        rules::delete(tx, &scope, &id, &ctx)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}
