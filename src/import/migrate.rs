//! `POST /api/import/migrate` (docs/import.md#migrate): pull every page of one data type,
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
//!    grant at once would rotate it under each other. At most `pulls.concurrent` runs
//!    (default 2) pull at once across the installation ([`PullSlots`]); a further run is
//!    refused with 503 and `Retry-After` ([`BUSY_RETRY_AFTER_SECS`]) rather than queued,
//!    since each holds a blocking thread, and its pulled records in memory, for minutes.
//!    The run is bounded by `pulls.max_pages` requests, `pulls.max_records` records and
//!    `pulls.max_bytes` bytes, over all its types ([`crate::connectors::Pull`]); beyond
//!    them it fails (400 naming the setting) and nothing is kept. A FreeAgent grant that
//!    needs refreshing is refreshed, and the rotated grant stored, before any page is
//!    read.
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
use std::sync::atomic::{AtomicU32, Ordering};
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
use crate::connectors::{
    self as conn, ConnectorError, DataType, ImportRow, Platform, Pull, RetryPolicy,
};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::body::JsonBody;
use crate::http::data;
use crate::import::ProPlan;

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
const ALL_ORDER: [DataType; 11] = [
    DataType::Contacts,
    DataType::Products,
    DataType::Projects,
    DataType::Invoices,
    DataType::Bills,
    DataType::CreditNotes,
    DataType::SupplierCredits,
    DataType::Payments,
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
        DataType::CreditNotes => EntityType::CreditNotes,
        DataType::SupplierCredits => EntityType::SupplierCredits,
        DataType::Payments => EntityType::Payments,
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
            return Err(AppError::refused(
                "import_running",
                format!("An import from {platform} is already running for this entity"),
            ));
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

/// Seconds a run refused for want of a pull slot is told to wait.
pub const BUSY_RETRY_AFTER_SECS: u64 = 30;

/// How many runs may pull at once across the installation (`pulls.concurrent`):
/// managed state, one per application.
pub struct PullSlots {
    running: AtomicU32,
    max: u32,
}

impl PullSlots {
    pub fn new(max: u32) -> Self {
        Self {
            running: AtomicU32::new(0),
            max: max.max(1),
        }
    }

    /// A slot for one run, or `None` when every slot is taken.
    fn try_take(&self) -> Option<PullSlot<'_>> {
        self.running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.max).then_some(n + 1)
            })
            .ok()
            .map(|_| PullSlot(self))
    }
}

/// Holds a slot until the run ends.
struct PullSlot<'a>(&'a PullSlots);

impl Drop for PullSlot<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The migrate answer when it fails: the error, with a longer `Retry-After` when the run
/// found no free slot (a run lasts minutes; the error type's 503 says 1 second).
pub enum MigrateError {
    App(AppError),
    Busy,
}

impl From<AppError> for MigrateError {
    fn from(e: AppError) -> Self {
        Self::App(e)
    }
}

impl From<ConnectorError> for MigrateError {
    fn from(e: ConnectorError) -> Self {
        Self::App(e.into())
    }
}

impl<'r> rocket::response::Responder<'r, 'static> for MigrateError {
    fn respond_to(self, req: &'r rocket::Request<'_>) -> rocket::response::Result<'static> {
        match self {
            Self::App(e) => e.respond_to(req),
            Self::Busy => {
                let mut res = AppError::Unavailable(format!(
                    "Too many imports are pulling from other platforms right now; retry in \
                     {BUSY_RETRY_AFTER_SECS} seconds"
                ))
                .respond_to(req)?;
                res.set_raw_header("Retry-After", BUSY_RETRY_AFTER_SECS.to_string());
                Ok(res)
            }
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

/// The stored FreeAgent grant of a connection.
fn grant_of(stored: &StoredConnection) -> AppResult<FreeAgentToken> {
    serde_json::from_value::<FreeAgentToken>(stored.credentials.clone()).map_err(|e| {
        AppError::internal(format!(
            "connection {} holds no FreeAgent grant: {e}",
            stored.connection.id
        ))
    })
}

#[allow(clippy::too_many_arguments)]
fn pull_all(
    platform: Platform,
    types: &[DataType],
    all: bool,
    stored: &StoredConnection,
    mut token: Option<FreeAgentToken>,
    config: &crate::config::PlatformConfig,
    clock: &Clock,
    pull: &Pull,
) -> PullRun {
    let mut out = Vec::with_capacity(types.len());
    for &t in types {
        let pulled = match token.as_mut() {
            Some(token) => freeagent::pull_within(t, token, config, clock.now(), pull),
            None => conn::pull_within(platform, t, &stored.credentials, config, pull),
        };
        match pulled {
            Ok(rows) => out.push((t, Pulled::Rows(rows))),
            Err(e @ ConnectorError::NotAvailable { .. }) if all => {
                out.push((t, Pulled::Unavailable(e.to_string())));
            }
            Err(e) => {
                return PullRun {
                    token,
                    result: Err(e),
                }
            }
        }
    }
    PullRun {
        token,
        result: Ok(out),
    }
}

/// Records a pull's use of the connection: `last_used_at`, the grant when there is one,
/// `reconnect_required` when the grant was refused as revoked.
async fn record_use(
    db: &Db,
    clock: &Clock,
    id: &str,
    token: Option<&FreeAgentToken>,
    revoked: bool,
) -> AppResult<()> {
    let credentials = token
        .map(serde_json::to_value)
        .transpose()
        .map_err(|e| AppError::internal(format!("token serialisation: {e}")))?;
    let status = revoked.then_some(connections::RECONNECT_REQUIRED);
    let id = id.to_owned();
    let now = rfc3339(clock.now());
    db.write(move |tx| connections::record_use(tx, &id, credentials.as_ref(), status, &now))
        .await
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
#[allow(clippy::too_many_arguments)]
async fn migrate(
    user: SessionUser,
    _pro: ProPlan,
    body: JsonBody<MigrateBody>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
    retry: &State<RetryPolicy>,
    slots: &State<PullSlots>,
) -> Result<Json<Value>, MigrateError> {
    let b = body.into_inner();
    let platform = api_platform(&b.platform)?;
    check_mode(platform, &b.mode)?;
    let (types, all) = types_of(platform, &b.entity_type)?;
    let entity_type_raw = b.entity_type.clone();

    let scope = user.scope();
    let (s, raw) = (scope.clone(), b.entity_id.clone());
    let entity_id = db.read(move |c| s.entity(c, "entity_id", &raw)).await?;
    let _run = RunGuard::acquire(&entity_id, platform)?;

    let (s, entity) = (scope.clone(), entity_id.clone());
    let stored = db
        .read(move |c| connections::load(c, &s.owner_for(c, Some(&entity))?, &entity, platform))
        .await?
        .ok_or_else(|| {
            AppError::bad_request(format!(
                "{platform} is not connected for this entity: connect it first"
            ))
        })?;
    if stored.connection.status == connections::RECONNECT_REQUIRED {
        return Err(ConnectorError::ReconnectRequired { platform }.into());
    }
    let _slot = slots.try_take().ok_or(MigrateError::Busy)?;
    let pconfig = config.platform(platform.id());
    let budget = Pull::new(retry.inner(), config.pulls);
    let id = stored.connection.id.clone();

    // 2a. A FreeAgent grant due for a refresh is refreshed, and the rotated grant stored,
    // before any page is read: nothing the pull then does can lose it.
    let mut token = None;
    if platform == Platform::Freeagent {
        let mut grant = grant_of(&stored)?;
        if grant.needs_refresh(clock.now()) {
            let (c, r, now) = (pconfig.clone(), retry.inner().clone(), clock.now());
            let (grant_after, refreshed) = rocket::tokio::task::spawn_blocking(move || {
                let refreshed = freeagent::refresh(&c, &mut grant, now, &r);
                (grant, refreshed)
            })
            .await
            .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?;
            let revoked = matches!(refreshed, Err(ConnectorError::ReconnectRequired { .. }));
            record_use(db, clock, &id, Some(&grant_after), revoked).await?;
            refreshed.map_err(pull_error)?;
            grant = grant_after;
        }
        token = Some(grant);
    }

    // 2b. Every page of every type, off the async threads, no database held.
    let (c, st) = (clock.inner().clone(), stored.clone());
    let pull_types = types.clone();
    let run = rocket::tokio::task::spawn_blocking(move || {
        pull_all(
            platform,
            &pull_types,
            all,
            &st,
            token,
            &pconfig,
            &c,
            &budget,
        )
    })
    .await
    .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?;

    // 3. The use of the connection, and the (possibly rotated) grant, whatever happened.
    let revoked = matches!(run.result, Err(ConnectorError::ReconnectRequired { .. }));
    record_use(db, clock, &id, run.token.as_ref(), revoked).await?;
    let pulled = run.result.map_err(pull_error)?;

    // 4. One transaction for the whole run.
    let clock = clock.inner().clone();
    let answer = db
        .write_as(scope.actor().to_owned(), move |tx| {
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
            // docs/webhooks.md#events
            crate::webhooks::outbox::emit(
                tx,
                &scope.owner_for(tx, Some(&entity_id))?,
                Some(&entity_id),
                crate::webhooks::outbox::IMPORT_FINISHED,
                &serde_json::json!({
                    "entity_id": entity_id,
                    "source": platform.id(),
                    "entity_type": entity_type_raw,
                    "result": answer,
                }),
                &crate::clock::rfc3339(clock.now()),
            )?;
            Ok(answer)
        })
        .await?;
    Ok(data(Value::Object(answer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_slots_are_given_back_when_a_run_ends() {
        let slots = PullSlots::new(2);
        let a = slots.try_take().expect("first");
        let b = slots.try_take().expect("second");
        assert!(slots.try_take().is_none(), "a third run waits for a slot");
        drop(a);
        let c = slots.try_take().expect("a slot came back");
        drop((b, c));
        assert_eq!(slots.running.load(Ordering::Acquire), 0);
    }
}
