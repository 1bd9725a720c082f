//! Read-only stock on the public API (docs/public-api.md#endpoints): locations, stock
//! levels and the movement history, with the session API's filters, paged as every public
//! list (`has_more`). Movements come in ledger order, oldest first, so that a client
//! reading page after page while stock moves neither skips nor repeats one.

use rocket::serde::json::Json;
use rocket::{get, State};
use serde_json::Value;

use super::{envelope, probe, ApiKey};
use crate::db::Db;
use crate::error::AppResult;
use crate::http::paging::{parse_page, EntityListQuery};
use crate::inventory::locations::list_locations;
use crate::inventory::movements::{self, list_movements};
use crate::inventory::stock::{self, read_stock};

#[get("/warehouse-locations?<q..>")]
pub async fn locations(key: ApiKey, q: EntityListQuery, db: &State<Db>) -> AppResult<Json<Value>> {
    let page = q.v1_page()?;
    let entity = q.entity()?;
    let since = q.since()?;
    let scope = key.scope();
    let fetch = probe(page);
    let rows = db
        .read(move |conn| {
            let entity = scope.entity_opt(conn, "entityId", entity.as_deref())?;
            list_locations(
                conn,
                &scope,
                entity.as_deref(),
                since.as_deref(),
                fetch.sql_limit(),
                fetch.offset,
            )
        })
        .await?;
    Ok(envelope(rows, page))
}

#[get("/warehouse-stock?<params..>")]
pub async fn levels(
    key: ApiKey,
    params: stock::ListParams,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let page = parse_page(params.limit.as_deref(), params.offset.as_deref(), Some(50))?;
    let rows = read_stock(db, key.scope(), params, probe(page)).await?;
    Ok(envelope(rows, page))
}

#[get("/stock-movements?<params..>")]
pub async fn history(
    key: ApiKey,
    params: movements::ListParams,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let page = parse_page(params.limit.as_deref(), params.offset.as_deref(), Some(50))?;
    let mut filter = params.filter(probe(page))?;
    filter.oldest_first = true;
    let entity = params.entity();
    let scope = key.scope();
    let rows = db
        .read(move |conn| {
            filter.entity_id = scope.entity_opt(conn, "entityId", entity.as_deref())?;
            list_movements(conn, &scope, &filter)
        })
        .await?;
    Ok(envelope(rows, page))
}
