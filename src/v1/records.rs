//! The public API's record paths (docs/public-api.md#record-paths): `GET`, `PUT` (a
//! partial update: the fields of the session API's PUT) and `DELETE
//! /api/v1/<resource>/{id}`, through the key's scope and the session API's own rules, so
//! a record of another entity or user is a 404 exactly like an unknown one.

use rocket::serde::json::Json;
use rocket::{delete, get, put, State};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::ApiKey;
use crate::accounting::contacts::Contacts;
use crate::accounting::documents::{Bills, CreditNotes, Invoices, SupplierCredits};
use crate::accounting::payments::{self, Payment};
use crate::accounting::resource::{read_list, Resource};
use crate::clock::Clock;
use crate::config::AppConfig;
use crate::ctx::Ctx;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::{parse_json, path_id, JsonBody};
use crate::http::list_sql::{not_found, Which};
use crate::http::paging::{Order, Page};
use crate::inventory::products::{delete_product, get_product, update_product, Product};

const ONE: Page = Page {
    limit: Some(1),
    offset: 0,
};

/// The session API's update body from a v1 PUT's body and the path's id: an `id` in the
/// body must be the path's (400 otherwise); the body is then read exactly as the session
/// API reads its own, with the same field-naming errors.
fn update_body<T: DeserializeOwned>(
    label: &str,
    id: &str,
    mut body: Map<String, Value>,
) -> AppResult<T> {
    let id = path_id(label, id)?;
    if let Some(sent) = body.get("id") {
        if sent.as_str() != Some(id.as_str()) {
            return Err(crate::error::AppError::invalid(
                "id",
                "differs from the record's id in the path",
            ));
        }
    }
    body.insert("id".into(), Value::String(id));
    let bytes = serde_json::to_vec(&Value::Object(body))
        .map_err(|e| crate::error::AppError::internal(e.to_string()))?;
    parse_json(&bytes)
}

/// One record of `table` through the list, as the session API reads it: 404 when the key
/// does not reach it, 403 naming the role when only the role hides it.
async fn one<R: Resource>(
    key: &ApiKey,
    label: &str,
    table: &'static str,
    id: &str,
    db: &Db,
) -> AppResult<R::Record> {
    let id = path_id(label, id)?;
    let found = read_list::<R>(
        db,
        key.scope(),
        None,
        Some(id.clone()),
        None,
        ONE,
        Order::Creation,
    )
    .await?
    .into_iter()
    .next();
    match found {
        Some(rec) => Ok(rec),
        None => Err(hidden(db, key, label, table, id).await),
    }
}

/// Why record `id` of `table` is not read: the scope's refusal (403 naming the role), or
/// 404.
async fn hidden(db: &Db, key: &ApiKey, label: &str, table: &'static str, id: String) -> AppError {
    let scope = key.scope();
    let label = label.to_owned();
    let refusal = db
        .read(move |conn| {
            Ok(scope
                .refusal(conn, table, &id)?
                .unwrap_or_else(|| not_found(&label, &id)))
        })
        .await;
    match refusal {
        Ok(e) | Err(e) => e,
    }
}

async fn update<R: Resource>(
    key: &ApiKey,
    label: &str,
    id: &str,
    body: Map<String, Value>,
    db: &Db,
    ctx: Ctx,
) -> AppResult<Json<Value>> {
    let body: R::Update = update_body(label, id, body)?;
    let scope = key.scope();
    let rec = db
        .write(move |tx| R::update(tx, &scope, body, &ctx))
        .await?;
    Ok(Json(json!({ "data": rec })))
}

async fn remove<R: Resource>(
    key: &ApiKey,
    label: &str,
    id: &str,
    db: &Db,
) -> AppResult<Json<Value>> {
    let id = path_id(label, id)?;
    let scope = key.scope();
    db.write(move |tx| R::delete(tx, &scope, &id)).await?;
    Ok(Json(json!({ "data": { "success": true } })))
}

/// `GET`, `PUT` and `DELETE` of one accounting resource's record path.
macro_rules! record_paths {
    ($res:ty, $label:literal, $table:literal, $path:literal, $get:ident, $put:ident, $delete:ident) => {
        #[get($path)]
        pub async fn $get(key: ApiKey, id: &str, db: &State<Db>) -> AppResult<Json<Value>> {
            let rec = one::<$res>(&key, $label, $table, id, db).await?;
            Ok(Json(json!({ "data": rec })))
        }

        #[put($path, data = "<body>")]
        pub async fn $put(
            key: ApiKey,
            id: &str,
            body: JsonBody<Map<String, Value>>,
            db: &State<Db>,
            clock: &State<Clock>,
            config: &State<AppConfig>,
        ) -> AppResult<Json<Value>> {
            update::<$res>(&key, $label, id, body.into_inner(), db, Ctx::new(clock, config))
                .await
        }

        #[delete($path)]
        pub async fn $delete(key: ApiKey, id: &str, db: &State<Db>) -> AppResult<Json<Value>> {
            remove::<$res>(&key, $label, id, db).await
        }
    };
}

record_paths!(
    Invoices,
    "Invoice",
    "invoices",
    "/invoices/<id>",
    invoice_get,
    invoice_put,
    invoice_delete
);
record_paths!(
    Bills,
    "Bill",
    "bills",
    "/bills/<id>",
    bill_get,
    bill_put,
    bill_delete
);
record_paths!(
    CreditNotes,
    "Credit note",
    "credit_notes",
    "/credit-notes/<id>",
    credit_note_get,
    credit_note_put,
    credit_note_delete
);
record_paths!(
    SupplierCredits,
    "Supplier credit",
    "supplier_credits",
    "/supplier-credits/<id>",
    supplier_credit_get,
    supplier_credit_put,
    supplier_credit_delete
);
record_paths!(
    Contacts,
    "Contact",
    "contacts",
    "/contacts/<id>",
    contact_get,
    contact_put,
    contact_delete
);

#[get("/products/<id>")]
pub async fn product_get(key: ApiKey, id: &str, db: &State<Db>) -> AppResult<Json<Value>> {
    let id = path_id("Product", id)?;
    let scope = key.scope();
    let p: Product = db.read(move |conn| get_product(conn, &scope, &id)).await?;
    Ok(Json(json!({ "data": p })))
}

#[put("/products/<id>", data = "<body>")]
pub async fn product_put(
    key: ApiKey,
    id: &str,
    body: JsonBody<Map<String, Value>>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    let body = update_body("Product", id, body.into_inner())?;
    let scope = key.scope();
    let ctx = Ctx::new(clock, config);
    let p = db
        .write(move |tx| update_product(tx, &scope, body, &ctx))
        .await?;
    Ok(Json(json!({ "data": p })))
}

#[delete("/products/<id>")]
pub async fn product_delete(key: ApiKey, id: &str, db: &State<Db>) -> AppResult<Json<Value>> {
    let id = path_id("Product", id)?;
    let scope = key.scope();
    db.write(move |tx| delete_product(tx, &scope, &id)).await?;
    Ok(Json(json!({ "data": { "success": true } })))
}

#[get("/payments/<id>")]
pub async fn payment_get(key: ApiKey, id: &str, db: &State<Db>) -> AppResult<Json<Value>> {
    let id = path_id("Payment", id)?;
    let scope = key.scope();
    let p: Payment = db
        .read(move |conn| {
            let which = Which {
                id: Some(&id),
                ..Which::default()
            };
            payments::list(conn, &scope, which, None, ONE, Order::Creation)?
                .into_iter()
                .next()
                .map_or_else(
                    || {
                        Err(scope
                            .refusal(conn, "payments", &id)?
                            .unwrap_or_else(|| not_found("Payment", &id)))
                    },
                    Ok,
                )
        })
        .await?;
    Ok(Json(json!({ "data": p })))
}

#[delete("/payments/<id>")]
pub async fn payment_delete(
    key: ApiKey,
    id: &str,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Json<Value>> {
    let id = path_id("Payment", id)?;
    let scope = key.scope();
    let ctx = Ctx::new(clock, config);
    db.write(move |tx| payments::delete_payment(tx, &scope, &id, &ctx))
        .await?;
    Ok(Json(json!({ "data": { "success": true } })))
}
