//! `POST /api/import/migrate` (§4.10, DECISIONS §11): pull every page of one data type,
//! or of everything (`entityType: all`), from a connected platform and import it.
//! Session and Pro plan.
//!
//! Body: `{mode, platform, entityType, entity_id}`. `mode` is `api` for the six API
//! platforms and `oauth` for `freeagent` (`csv` is `POST /api/import/csv`). `entityType`
//! is one of the eight types or `all`.
//!
//! The run:
//!
//! 1. Checks the request: what the platform cannot supply at all is a 400 naming the
//!    platform and the type, before any request; `all` means the platform's supported
//!    types (imported in the order contacts, products, projects, invoices, bills,
//!    expenses, time entries, subscriptions, so that names resolve to records created in
//!    the same run). No connection for the entity and platform is a 400 "not connected";
//!    a FreeAgent connection marked `reconnect_required` is a 400 asking to reconnect.
//! 2. Pulls EVERY page of every type first, with the connectors on a blocking thread and
//!    no database connection held during the network I/O. Only one run per entity and
//!    platform at a time (a second gets 409): two runs refreshing the same FreeAgent
//!    grant at once would rotate it under each other.
//! 3. Records the pull on the connection in its own transaction, whatever the outcome:
//!    `last_used_at`, and for FreeAgent the (possibly refreshed and rotated) grant. A
//!    refresh refused as revoked marks the connection `reconnect_required` and answers
//!    400 "... reconnect freeagent".
//! 4. If every pull succeeded, imports everything in ONE write transaction (the rows go
//!    through the same validation, dedup and storing as a CSV run:
//!    [`super::apply::parsed_from_rows`] and [`super::apply::apply_parsed`]). A platform
//!    that stops answering mid-pull (5xx or 429 beyond the retry budget, unreachable, a
//!    malformed page) is a 503 and nothing of the run is kept.
//!
//! Answer (200): `{data: {<type>: {imported, skipped, failed, errorCount}}}`, one key per
//! imported type, also for a single type (one shape for both). With `all`, a type the platform
//! supports but this account does not offer (a WooCommerce site without the
//! Subscriptions extension) is `{<type>: {unavailable: message}}` and the other types
//! import; asked for alone, it is a 400.
//!
//! The connectors' retry policy (429/5xx back-off honouring `Retry-After`) is the
//! managed [`RetryPolicy`] (`App::retry`): the production default sleeps, tests record.

use std::collections::HashSet;
use std::sync::Mutex;

use rocket::serde::json::Json;
use rocket::{post, routes, Route, State};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::apply;
use super::connections::{self, api_platform, StoredConnection};
use super::fields::EntityType;
use crate::auth::SessionUser;
use crate::clock::{rfc3339, Clock};
use crate::config::AppConfig;
use crate::connectors::freeagent::{self, FreeAgentToken};
use crate::connectors::{self as conn, ConnectorError, DataType, ImportRow, Platform, RetryPolicy};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::JsonBody;
use crate::http::data;
use crate::import::ProPlan;
use crate::scope::Scope;

/// Every import route of the network side: connections, OAuth and migrate.
pub fn routes() -> Vec<Route> {
    [
        connections::routes(),
        super::oauth::routes(),
        routes![migrate],
    ]
    .concat()
}

/// The order of an `all` run: what later types name comes first.
const ALL_ORDER: [DataType; 8] = [
    DataType::Contacts,
    DataType::Products,
    DataType::Projects,
    DataType::Invoices,
    DataType::Bills,
    DataType::Expenses,
    DataType::TimeEntries,
    DataType::Subscriptions,
];

#[derive(Deserialize)]
struct MigrateBody {
    mode: String,
    platform: String,
    #[serde(rename = "entityType")]
    entity_type: String,
    #[serde(alias = "entityId")]
    entity_id: String,
}

/// The import data type of a connector data type (the same eight names).
fn entity_type(t: DataType) -> EntityType {
    match t {
        DataType::Contacts => EntityType::Contacts,
        DataType::Products => EntityType::Products,
        DataType::Invoices => EntityType::Invoices,
        DataType::Bills => EntityType::Bills,
        DataType::Expenses => EntityType::Expenses,
        DataType::Projects => EntityType::Projects,
        DataType::TimeEntries => EntityType::TimeEntries,
        DataType::Subscriptions => EntityType::Subscriptions,
    }
}

/// The types a run pulls, or a 400 for what the platform cannot supply.
fn types_of(platform: Platform, raw: &str) -> AppResult<(Vec<DataType>, bool)> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(AppError::missing("entityType"));
    }
    if raw == "all" {
        let types = ALL_ORDER
            .into_iter()
            .filter(|t| platform.supports(*t))
            .collect();
        return Ok((types, true));
    }
    let t: DataType = raw.parse().map_err(|()| {
        AppError::invalid(
            "entityType",
            "expected contacts, products, invoices, bills, expenses, projects, time_entries, \
             subscriptions or all",
        )
    })?;
    if !platform.supports(t) {
        return Err(ConnectorError::Unsupported {
            platform,
            data_type: t,
        }
        .into());
    }
    Ok((vec![t], false))
}

fn check_mode(platform: Platform, mode: &str) -> AppResult<()> {
    let expected = if platform == Platform::Freeagent {
        "oauth"
    } else {
        "api"
    };
    match mode.trim() {
        "" => Err(AppError::missing("mode")),
        m if m == expected => Ok(()),
        "api" | "oauth" => Err(AppError::invalid(
            "mode",
            format!("`{platform}` imports with mode `{expected}`"),
        )),
        "csv" => Err(AppError::invalid(
            "mode",
            "CSV files are imported through POST /api/import/csv",
        )),
        _ => Err(AppError::invalid("mode", "expected `api` or `oauth`")),
    }
}

/// The (entity, platform) pairs with a run in progress.
static RUNNING: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Holds an (entity, platform) pair for the length of one run.
struct RunGuard(String);

impl RunGuard {
    fn acquire(entity_id: &str, platform: Platform) -> AppResult<Self> {
        let key = format!("{entity_id}/{platform}");
        let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
        if !running.get_or_insert_with(HashSet::new).insert(key.clone()) {
            return Err(AppError::conflict(format!(
                "An import from {platform} is already running for this entity"
            )));
        }
        Ok(Self(key))
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(set) = running.as_mut() {
            set.remove(&self.0);
        }
    }
}

/// One pulled type.
enum Pulled {
    Rows(Vec<ImportRow>),
    /// `all` only: the account does not offer a type the platform supports.
    Unavailable(String),
}

/// What the blocking pull hands back: the grant to store (FreeAgent) and the pulls.
struct PullRun {
    token: Option<FreeAgentToken>,
    result: Result<Vec<(DataType, Pulled)>, ConnectorError>,
}

fn pull_all(
    platform: Platform,
    types: &[DataType],
    all: bool,
    stored: &StoredConnection,
    config: &crate::config::PlatformConfig,
    clock: &Clock,
    retry: &RetryPolicy,
) -> AppResult<PullRun> {
    let mut token = if platform == Platform::Freeagent {
        Some(
            serde_json::from_value::<FreeAgentToken>(stored.credentials.clone()).map_err(|e| {
                AppError::internal(format!(
                    "connection {} holds no FreeAgent grant: {e}",
                    stored.connection.id
                ))
            })?,
        )
    } else {
        None
    };
    let mut out = Vec::with_capacity(types.len());
    for &t in types {
        let pulled = match token.as_mut() {
            Some(token) => freeagent::pull(t, token, config, clock.now(), retry),
            None => conn::pull(platform, t, &stored.credentials, config, retry),
        };
        match pulled {
            Ok(rows) => out.push((t, Pulled::Rows(rows))),
            Err(e @ ConnectorError::NotAvailable { .. }) if all => {
                out.push((t, Pulled::Unavailable(e.to_string())));
            }
            Err(e) => {
                return Ok(PullRun {
                    token,
                    result: Err(e),
                })
            }
        }
    }
    Ok(PullRun {
        token,
        result: Ok(out),
    })
}

/// A failed pull as the answer: the caller's problem stays a 400; the platform's is a
/// 503 that says nothing was kept.
fn pull_error(e: ConnectorError) -> AppError {
    match AppError::from(e) {
        AppError::Unavailable(m) => AppError::Unavailable(format!("{m}. Nothing was imported")),
        other => other,
    }
}

#[post("/import/migrate", data = "<body>")]
async fn migrate(
    user: SessionUser,
    _pro: ProPlan,
    body: JsonBody<MigrateBody>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
    retry: &State<RetryPolicy>,
) -> AppResult<Json<Value>> {
    let b = body.into_inner();
    let platform = api_platform(&b.platform)?;
    check_mode(platform, &b.mode)?;
    let (types, all) = types_of(platform, &b.entity_type)?;

    let scope = Scope::user(user.id());
    let (s, raw) = (scope.clone(), b.entity_id.clone());
    let entity_id = db.read(move |c| s.entity(c, "entity_id", &raw)).await?;
    let _run = RunGuard::acquire(&entity_id, platform)?;

    let (owner, entity) = (scope.owner_id.clone(), entity_id.clone());
    let stored = db
        .read(move |c| connections::load(c, &owner, &entity, platform))
        .await?
        .ok_or_else(|| {
            AppError::bad_request(format!(
                "{platform} is not connected for this entity: connect it first"
            ))
        })?;
    if stored.connection.status == connections::RECONNECT_REQUIRED {
        return Err(ConnectorError::ReconnectRequired { platform }.into());
    }

    // 2. Every page of every type, off the async threads, no database held.
    let pconfig = config.platform(platform.id());
    let (c, r, st) = (clock.inner().clone(), retry.inner().clone(), stored.clone());
    let pull_types = types.clone();
    let run = rocket::tokio::task::spawn_blocking(move || {
        pull_all(platform, &pull_types, all, &st, &pconfig, &c, &r)
    })
    .await
    .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))??;

    // 3. The use of the connection, and the (possibly rotated) grant, whatever happened.
    let revoked = matches!(run.result, Err(ConnectorError::ReconnectRequired { .. }));
    let credentials = run
        .token
        .as_ref()
        .map(serde_json::to_value)
        .transpose()
        .map_err(|e| AppError::internal(format!("token serialisation: {e}")))?;
    let status = revoked.then_some(connections::RECONNECT_REQUIRED);
    let id = stored.connection.id.clone();
    let now = rfc3339(clock.now());
    db.write(move |tx| connections::record_use(tx, &id, credentials.as_ref(), status, &now))
        .await?;
    let pulled = run.result.map_err(pull_error)?;

    // 4. One transaction for the whole run.
    let clock = clock.inner().clone();
    let answer = db
        .write(move |tx| {
            let mut answer = Map::new();
            for (t, p) in pulled {
                let v = match p {
                    Pulled::Rows(rows) => {
                        let parsed = apply::parsed_from_rows(platform.id(), entity_type(t), &rows)?;
                        let outcome = apply::apply_parsed(tx, &scope, &entity_id, &parsed, &clock)?;
                        serde_json::to_value(outcome)
                            .map_err(|e| AppError::internal(format!("outcome: {e}")))?
                    }
                    Pulled::Unavailable(message) => serde_json::json!({ "unavailable": message }),
                };
                answer.insert(t.as_str().to_owned(), v);
            }
            Ok(answer)
        })
        .await?;
    Ok(data(Value::Object(answer)))
}
