//! The import endpoints of the session API (docs/import.md):
//!
//! - `POST /api/import/preview` `{mode: "csv", entityType?, csv, platform?, mapping?,
//!   entity_id?}`: what the file is and what a run would do, changing nothing.
//! - `POST /api/import/csv` `{entityType, csv, mapping?, platform?, entity_id}`: the run,
//!   one write transaction, `{imported, skipped, failed, errorCount}`.
//!
//! Both need a session and the Pro plan ([`ProPlan`]: 403 `Import requires the Pro
//! plan` on an `essential` installation).

use std::collections::HashMap;

use rocket::http::Status;
use rocket::request::{FromRequest, Outcome, Request};
use rocket::serde::json::Json;
use rocket::{post, routes, Route, State};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::SessionUser;
use crate::clock::Clock;
use crate::config::{AppConfig, Plan};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::http::data;
use crate::http::stash::stash;
use crate::import::apply::{ImportOutcome, Options};
use crate::import::body::CsvJson;
use crate::import::csv::{self, ParsedFile, RowError};
use crate::import::fields::EntityType;
use crate::import::run::stream;

pub fn routes() -> Vec<Route> {
    routes![preview, run_csv]
}

/// How many mapped rows the preview shows.
pub const PREVIEW_ROWS: usize = 20;

/// Request guard of every `/api/import/*` endpoint: the installation's plan must be
/// `pro` (docs/import.md#plan). Put it after [`SessionUser`], so an anonymous caller still gets
/// 401.
pub struct ProPlan;

pub const PRO_PLAN_MESSAGE: &str = "Import requires the Pro plan";

#[rocket::async_trait]
impl<'r> FromRequest<'r> for ProPlan {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        match req.rocket().state::<AppConfig>().map(|c| c.plan) {
            Some(Plan::Pro) => Outcome::Success(ProPlan),
            _ => {
                stash(req, AppError::forbidden(PRO_PLAN_MESSAGE));
                Outcome::Error((Status::Forbidden, ()))
            }
        }
    }
}

/// `entityType` of a CSV request: one of the eight types (`all` is for API pulls).
pub fn parse_entity_type(raw: &str) -> AppResult<EntityType> {
    raw.parse().map_err(|()| {
        AppError::invalid(
            "entityType",
            format!(
                "must be one of {}",
                EntityType::ALL.map(EntityType::as_str).join(", ")
            ),
        )
    })
}

fn check_mode(mode: Option<&str>) -> AppResult<()> {
    match mode.map(str::trim) {
        None | Some("csv") => Ok(()),
        Some(_) => Err(AppError::invalid(
            "mode",
            "must be csv here (API pulls go through /api/import/migrate)",
        )),
    }
}

fn blank_to_none(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

#[derive(Debug, Deserialize)]
struct PreviewBody {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default, rename = "entityType")]
    entity_type: Option<String>,
    #[serde(default)]
    platform: Option<String>,
    #[serde(default)]
    mapping: Option<HashMap<String, Option<String>>>,
    #[serde(default, alias = "entityId")]
    entity_id: Option<String>,
    #[serde(default, rename = "fillBlanks")]
    fill_blanks: bool,
}

#[derive(Debug, Deserialize)]
struct RunBody {
    #[serde(default)]
    mode: Option<String>,
    #[serde(rename = "entityType")]
    entity_type: String,
    #[serde(default)]
    platform: Option<String>,
    #[serde(default)]
    mapping: Option<HashMap<String, Option<String>>>,
    #[serde(alias = "entityId")]
    entity_id: String,
    /// docs/import.md#filling-blanks-on-re-import
    #[serde(default, rename = "fillBlanks")]
    fill_blanks: bool,
}

/// The preview answer: the fields of docs/import.md#preview, then `layout`,
/// `missingRequired`, `leftOut` and `notes`.
/// `errors` lists the first [`csv::MAX_LISTED_ERRORS`] row errors, `errorCount` counts
/// them all (docs/limits.md).
fn preview_json(
    file: &ParsedFile,
    duplicates: usize,
    errors: &[RowError],
    error_count: usize,
    outcome: Option<&ImportOutcome>,
) -> Value {
    let mut v = json!({
        "platform": file.platform,
        "detected": file.detected,
        "entityType": file.entity_type,
        "headers": file.headers,
        "mapping": file.mapping,
        "fields": file.fields,
        "rows": file.rows,
        "totalRows": file.total_rows,
        "duplicates": duplicates,
        "errors": errors,
        "errorCount": error_count,
        "layout": file.layout,
        "missingRequired": file.missing_required,
        "leftOut": file.left_out,
        "notes": file.notes,
    });
    // What the dry run would update and skip (docs/import.md#filling-blanks-on-re-import).
    if let Some(o) = outcome {
        if let Some(n) = o.updated {
            v["updated"] = json!(n);
        }
        if !o.skipped_rows.is_empty() {
            v["skippedRows"] = json!(o.skipped_rows);
        }
    }
    v
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> AppResult<T> + Send + 'static,
) -> AppResult<T> {
    rocket::tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?
}

/// Reads the file and, given an entity, runs the import in a transaction that is rolled
/// back (a dry run): `duplicates` is what the run would skip, `errors` every row it would
/// report (the file's own row errors and the records that would be refused).
#[post("/import/preview", data = "<body>")]
async fn preview(
    user: SessionUser,
    _pro: ProPlan,
    body: CsvJson<PreviewBody>,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<Json<Value>> {
    let CsvJson { fields: b, csv } = body;
    check_mode(b.mode.as_deref())?;
    let entity_type = blank_to_none(b.entity_type)
        .map(|e| parse_entity_type(&e))
        .transpose()?;
    let entity_id = blank_to_none(b.entity_id);
    let options = Options {
        fill_blanks: b.fill_blanks,
        list_skipped: true,
    };
    let scope = user.scope();
    let db = db.inner().clone();
    let clock = clock.inner().clone();
    let answer = blocking(move || {
        let prepared = csv::prepare(&csv, entity_type, b.platform.as_deref(), b.mapping.as_ref())?;
        match entity_id {
            Some(entity) if prepared.file.missing_required.is_empty() => {
                // The dry run's transaction is rolled back whatever happens.
                let s = db.dry_run_sync(|tx| {
                    stream(
                        prepared,
                        Some((tx, &scope, &entity, &clock)),
                        PREVIEW_ROWS,
                        options,
                    )
                })?;
                let outcome = s.outcome.unwrap_or_default();
                Ok(preview_json(
                    &s.file,
                    outcome.skipped,
                    &outcome.failed,
                    outcome.error_count,
                    Some(&outcome),
                ))
            }
            entity => {
                if let Some(e) = entity {
                    db.read_sync(|conn| scope.entity(conn, "entity_id", &e))?;
                }
                let s = stream(prepared, None, PREVIEW_ROWS, options)?;
                Ok(preview_json(
                    &s.file,
                    0,
                    &s.file.errors,
                    s.error_count,
                    None,
                ))
            }
        }
    })
    .await?;
    Ok(data(answer))
}

/// The run: one write transaction; `{imported, skipped, failed, errorCount}`.
#[post("/import/csv", data = "<body>")]
async fn run_csv(
    user: SessionUser,
    _pro: ProPlan,
    body: CsvJson<RunBody>,
    db: &State<Db>,
    clock: &State<Clock>,
) -> AppResult<Json<Value>> {
    let CsvJson { fields: b, csv } = body;
    check_mode(b.mode.as_deref())?;
    let entity_type = parse_entity_type(&b.entity_type)?;
    let entity_id = crate::http::required_text("entity_id", &b.entity_id)?;
    let scope = user.scope();
    let clock = clock.inner().clone();
    let outcome = db
        .write_as(scope.actor().to_owned(), move |tx| {
            let prepared = csv::prepare(
                &csv,
                Some(entity_type),
                b.platform.as_deref(),
                b.mapping.as_ref(),
            )?;
            let options = Options {
                fill_blanks: b.fill_blanks,
                list_skipped: true,
            };
            let s = stream(prepared, Some((tx, &scope, &entity_id, &clock)), 0, options)?;
            let outcome = s.outcome.unwrap_or_default();
            // docs/webhooks.md#events
            let entity = scope.entity(tx, "entity_id", &entity_id)?;
            crate::webhooks::outbox::emit(
                tx,
                &scope.owner_for(tx, Some(&entity))?,
                Some(&entity),
                crate::webhooks::outbox::IMPORT_FINISHED,
                &serde_json::json!({
                    "entity_id": entity,
                    "source": "csv",
                    "entity_type": b.entity_type,
                    "result": outcome,
                }),
                &crate::clock::rfc3339(clock.now()),
            )?;
            Ok(outcome)
        })
        .await?;
    Ok(data(outcome))
}
