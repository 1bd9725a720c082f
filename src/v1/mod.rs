//! The public API, `/api/v1` (docs/public-api.md#endpoints,
//! docs/public-api.md#authentication, docs/public-api.md#rate-limit).
//!
//! Every route takes the [`ApiKey`] guard (Bearer key, 401 otherwise, then the rate
//! limit) and works through the key's [`Scope`]: a scoped key sees one entity, an
//! unscoped key every entity of its creator. Lists page in creation order with `limit`
//! (default 50, served as at most 200) and `offset`, in the envelope
//! `{data, limit, offset}`. The create endpoints call the same functions as the session
//! API, so validation is identical.
//!
//! [`fallback_routes`] answer every other `/api/v1/...` request: 401 without a valid key
//! (so an unknown path tells nothing to an anonymous caller), otherwise 404, or 405 when
//! another method serves the path.
//!
//! [`Scope`]: crate::scope::Scope

pub mod guard;
pub mod openapi;
mod payments;
pub mod rate_limit;
mod records;
mod stock;

use rocket::http::{Header, Method, Status};
use rocket::request::{FromRequest, Outcome, Request};
use rocket::response::{self, Responder};
use rocket::serde::json::Json;
use rocket::{get, post, routes, Route, State};
use serde_json::{json, Value};

pub use guard::ApiKey;
pub use rate_limit::RateLimiter;

use crate::accounting::contacts::{Contacts, CreateContact};
use crate::accounting::documents::{Bills, CreateDocument, CreditNotes, Invoices, SupplierCredits};
use crate::accounting::employees::Employees;
use crate::accounting::expense_categories::ExpenseCategories;
use crate::accounting::resource::{self, read_list, Resource};
use crate::accounting::transactions::Transactions;
use crate::clock::Clock;
use crate::config::AppConfig;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::error::{error_response, AppResult};
use crate::http::body::JsonBody;
use crate::http::paging::{EntityListQuery, Order, Page};
use crate::http::routing::{allowed_methods, route_matches};
use crate::http::Created;
use crate::inventory::products::{
    create_product, list_products, NewProduct, Product, ProductFilter,
};

/// The documented routes of the public API, to mount at `/api/v1`.
pub fn routes() -> Vec<Route> {
    routes![
        transactions,
        invoices,
        create_invoice,
        bills,
        create_bill,
        payments::list,
        payments::create,
        credit_notes,
        create_credit_note,
        contacts,
        create_contact,
        products_list,
        products_create,
        employees,
        categories,
        supplier_credits,
        create_supplier_credit,
        records::invoice_get,
        records::invoice_put,
        records::invoice_delete,
        records::bill_get,
        records::bill_put,
        records::bill_delete,
        records::credit_note_get,
        records::credit_note_put,
        records::credit_note_delete,
        records::supplier_credit_get,
        records::supplier_credit_put,
        records::supplier_credit_delete,
        records::contact_get,
        records::contact_put,
        records::contact_delete,
        records::product_get,
        records::product_put,
        records::product_delete,
        records::payment_get,
        records::payment_delete,
        stock::locations,
        stock::levels,
        stock::history,
    ]
}

/// Rank of the fallback routes: after every API route, before the web app's assets.
pub const FALLBACK_RANK: isize = crate::http::assets::ASSET_RANK - 1;

/// The catch-all of `/api/v1` (see the module documentation), to mount at `/api/v1`.
pub fn fallback_routes() -> Vec<Route> {
    routes![
        fallback_get,
        fallback_post,
        fallback_put,
        fallback_delete,
        fallback_patch
    ]
}

/// The page to read for a v1 list: one row more than asked, so that [`envelope`] knows
/// whether another page follows without a second query (docs/public-api.md#paging).
fn probe(page: Page) -> Page {
    Page {
        limit: page.limit.map(|l| l + 1),
        offset: page.offset,
    }
}

/// `{data, limit, offset, has_more}` from the rows [`probe`] read.
fn envelope<T: serde::Serialize>(mut rows: Vec<T>, page: Page) -> Json<Value> {
    let limit = page.limit.unwrap_or(50);
    let has_more = i64::try_from(rows.len()).unwrap_or(i64::MAX) > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Json(json!({
        "data": rows,
        "limit": limit,
        "offset": page.offset,
        "has_more": has_more,
    }))
}

async fn list<R: Resource>(key: ApiKey, q: EntityListQuery, db: &Db) -> AppResult<Json<Value>> {
    let page = q.v1_page()?;
    let rows = read_list::<R>(
        db,
        key.scope(),
        q.entity()?,
        None,
        q.since()?,
        probe(page),
        Order::Creation,
    )
    .await?;
    Ok(envelope(rows, page))
}

#[get("/transactions?<q..>")]
async fn transactions(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    list::<Transactions>(key, q, db).await
}

#[get("/invoices?<q..>")]
async fn invoices(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    list::<Invoices>(key, q, db).await
}

#[post("/invoices", data = "<body>")]
async fn create_invoice(
    key: ApiKey,
    body: JsonBody<CreateDocument>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<<Invoices as Resource>::Record>> {
    resource::create::<Invoices>(key.scope(), body.into_inner(), db, Ctx::new(clock, config)).await
}

#[get("/bills?<q..>")]
async fn bills(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    list::<Bills>(key, q, db).await
}

#[post("/bills", data = "<body>")]
async fn create_bill(
    key: ApiKey,
    body: JsonBody<CreateDocument>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<<Bills as Resource>::Record>> {
    resource::create::<Bills>(key.scope(), body.into_inner(), db, Ctx::new(clock, config)).await
}

#[get("/credit-notes?<q..>")]
async fn credit_notes(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    list::<CreditNotes>(key, q, db).await
}

#[post("/credit-notes", data = "<body>")]
async fn create_credit_note(
    key: ApiKey,
    body: JsonBody<CreateDocument>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<<CreditNotes as Resource>::Record>> {
    resource::create::<CreditNotes>(key.scope(), body.into_inner(), db, Ctx::new(clock, config))
        .await
}

#[get("/supplier-credits?<q..>")]
async fn supplier_credits(
    key: ApiKey,
    q: EntityListQuery,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    list::<SupplierCredits>(key, q, db).await
}

#[post("/supplier-credits", data = "<body>")]
async fn create_supplier_credit(
    key: ApiKey,
    body: JsonBody<CreateDocument>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<<SupplierCredits as Resource>::Record>> {
    resource::create::<SupplierCredits>(key.scope(), body.into_inner(), db, Ctx::new(clock, config))
        .await
}

#[get("/contacts?<q..>")]
async fn contacts(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    list::<Contacts>(key, q, db).await
}

#[post("/contacts", data = "<body>")]
async fn create_contact(
    key: ApiKey,
    body: JsonBody<CreateContact>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<<Contacts as Resource>::Record>> {
    resource::create::<Contacts>(key.scope(), body.into_inner(), db, Ctx::new(clock, config)).await
}

#[get("/products?<q..>")]
async fn products_list(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = q.v1_page()?;
    let entity = q.entity()?;
    let updated_since = q.since()?;
    let scope = key.scope();
    let rows = db
        .read(move |conn| {
            let filter = ProductFilter {
                entity_id: scope.entity_opt(conn, "entityId", entity.as_deref())?,
                order: Order::Creation,
                limit: probe(page).limit,
                offset: page.offset,
                updated_since,
                ..ProductFilter::default()
            };
            list_products(conn, &scope, &filter)
        })
        .await?;
    Ok(envelope(rows, page))
}

#[post("/products", data = "<body>")]
async fn products_create(
    key: ApiKey,
    body: JsonBody<NewProduct>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Created<Product>> {
    let scope = key.scope();
    let body = body.into_inner();
    let ctx = Ctx::new(clock, config);
    let p = db
        .write_as(scope.actor().to_owned(), move |tx| {
            create_product(tx, &scope, body, &ctx)
        })
        .await?;
    Ok(Created(p))
}

#[get("/employees?<q..>")]
async fn employees(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    list::<Employees>(key, q, db).await
}

/// Expense categories.
#[get("/categories?<q..>")]
async fn categories(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    list::<ExpenseCategories>(key, q, db).await
}

/// Why no documented route answered a request that reached the fallback: 400 when a
/// route of this method serves the path but refused its query string, 405 when only
/// other methods serve it, 404 otherwise.
pub struct Unmatched {
    status: Status,
    message: String,
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for Unmatched {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        let path = req.uri().path();
        let segs: Vec<&str> = path.segments().collect();
        let mut same_method = false;
        let mut other_method = false;
        for r in req.rocket().routes() {
            let p = r.uri.path();
            if r.rank >= FALLBACK_RANK || p.ends_with("..>") || !route_matches(p, &segs) {
                continue;
            }
            if r.method == req.method() {
                same_method = true;
            } else if r.method != Method::Head {
                other_method = true;
            }
        }
        let (status, message) = if same_method {
            (
                Status::BadRequest,
                "Bad request: invalid query parameters".to_owned(),
            )
        } else if other_method {
            (
                Status::MethodNotAllowed,
                format!("Method {} not allowed on {path}", req.method()),
            )
        } else {
            (Status::NotFound, format!("Not found: {path}"))
        };
        Outcome::Success(Self { status, message })
    }
}

impl<'r> Responder<'r, 'static> for Unmatched {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        let mut res = error_response(self.status, self.message);
        if self.status == Status::MethodNotAllowed {
            res.set_header(Header::new("Allow", allowed_methods(req)));
        }
        Ok(res)
    }
}

// The literal rank of the fallback routes below.
const _: () = assert!(FALLBACK_RANK == 49);

#[get("/<_..>", rank = 49)]
fn fallback_get(_key: ApiKey, why: Unmatched) -> Unmatched {
    why
}

#[post("/<_..>", rank = 49)]
fn fallback_post(_key: ApiKey, why: Unmatched) -> Unmatched {
    why
}

#[rocket::put("/<_..>", rank = 49)]
fn fallback_put(_key: ApiKey, why: Unmatched) -> Unmatched {
    why
}

#[rocket::delete("/<_..>", rank = 49)]
fn fallback_delete(_key: ApiKey, why: Unmatched) -> Unmatched {
    why
}

#[rocket::patch("/<_..>", rank = 49)]
fn fallback_patch(_key: ApiKey, why: Unmatched) -> Unmatched {
    why
}
