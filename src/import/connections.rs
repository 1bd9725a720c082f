//! Import connections: `GET/POST/DELETE /api/import/connections`
//! (docs/import.md#connections), session and Pro plan.
//!
//! A connection holds what the pulls of `POST /api/import/migrate` need to speak to one
//! platform for one entity: the credentials of an API platform (`stripe {api_key}`,
//! `shopify {shop, access_token}`, `square {access_token}`, `paypal {client_id,
//! client_secret}`, `gocardless {access_token}`, `woocommerce {url, consumer_key,
//! consumer_secret}`), or FreeAgent's OAuth grant, which only the OAuth callback
//! ([`super::oauth`]) stores.
//!
//! - There is one connection per entity and platform. A second POST for the same pair
//!   replaces the credentials (same `id`, `status` back to `connected`) and answers 200;
//!   a new connection answers 201.
//! - Only the platform's own credential fields are kept (trimmed); anything else sent is
//!   dropped. Credentials are checked for completeness
//!   ([`connectors::validate_credentials`]); the platform is not called.
//! - The WooCommerce `url` and the Shopify `shop` must pass the outgoing-call policy
//!   (docs/limits.md#rates, [`crate::outbound`]): `https://`, and a host that neither is
//!   nor resolves to a loopback, private or link-local address, unless its origin is the
//!   configured `platforms.<id>.base_url`. A 400 names the rule. Each pull checks again,
//!   on the address it connects to.
//! - Secrets never leave the server: every answer is [`Connection`], which has no
//!   credentials field.
//! - `status` is `connected`, or `reconnect_required` once FreeAgent has refused the
//!   stored grant (the user must go through OAuth again).

use rocket::serde::json::Json;
use rocket::{delete, get, post, routes, Route, State};
use rusqlite::{params, Connection as SqlConn, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::auth::SessionUser;
use crate::clock::{rfc3339, Clock};
use crate::config::{AppConfig, PlatformConfig};
use crate::connectors::{self, Platform};
use crate::db::{damage, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{IdBody, JsonBody};
use crate::http::paging::EntityListQuery;
use crate::http::{data, Created};
use crate::import::ProPlan;
use crate::scope::Scope;

pub fn routes() -> Vec<Route> {
    routes![list, create, remove]
}

pub const CONNECTED: &str = "connected";
pub const RECONNECT_REQUIRED: &str = "reconnect_required";

/// A connection as every endpoint shows it: never its credentials.
#[derive(Debug, Clone, Serialize)]
pub struct Connection {
    pub id: String,
    pub platform: String,
    pub entity_id: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub status: String,
}

/// A connection with its secrets, for the pulls. Not serialisable on purpose, and its
/// `Debug` names the credential fields without their values.
#[derive(Clone)]
pub struct StoredConnection {
    pub connection: Connection,
    pub credentials: Value,
}

impl std::fmt::Debug for StoredConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fields: Vec<&String> = self
            .credentials
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        f.debug_struct("StoredConnection")
            .field("connection", &self.connection)
            .field("credentials", &format_args!("<redacted {fields:?}>"))
            .finish()
    }
}

/// How long the connection POST waits for the site's name to resolve.
const SITE_LOOKUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

const COLUMNS: &str = "id, platform, entity_id, created_at, last_used_at, status";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Connection> {
    Ok(Connection {
        id: r.get(0)?,
        platform: r.get(1)?,
        entity_id: r.get(2)?,
        created_at: r.get(3)?,
        last_used_at: r.get(4)?,
        status: r.get(5)?,
    })
}

/// The platform of a connection or a migrate: one of the seven with a connector.
/// An unknown identifier and a CSV-only platform are both 400, with different messages.
pub fn api_platform(raw: &str) -> AppResult<Platform> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(AppError::missing("platform"));
    }
    if let Ok(p) = raw.parse::<Platform>() {
        return Ok(p);
    }
    match raw.parse::<crate::import::Platform>() {
        Ok(p) => Err(AppError::bad_request(format!(
            "`{p}` has no API import: upload its CSV export to /api/import/csv"
        ))),
        Err(()) => Err(AppError::bad_request(format!(
            "Unknown platform `{raw}`: expected one of stripe, shopify, square, paypal, \
             gocardless, woocommerce, freeagent"
        ))),
    }
}

/// The credential fields each API platform needs (docs/import.md#connections).
fn credential_fields(platform: Platform) -> &'static [&'static str] {
    match platform {
        Platform::Stripe => &["api_key"],
        Platform::Shopify => &["shop", "access_token"],
        Platform::Square => &["access_token"],
        Platform::Paypal => &["client_id", "client_secret"],
        Platform::Gocardless => &["access_token"],
        Platform::Woocommerce => &["url", "consumer_key", "consumer_secret"],
        Platform::Freeagent => &[],
    }
}

/// Checks the credentials object and keeps only the platform's own fields, trimmed.
fn clean_credentials(
    platform: Platform,
    credentials: &Value,
    config: &PlatformConfig,
) -> AppResult<Value> {
    if !credentials.is_object() {
        return Err(AppError::invalid(
            "credentials",
            format!(
                "expected an object with {}",
                credential_fields(platform).join(", ")
            ),
        ));
    }
    connectors::validate_credentials(platform, credentials, config).map_err(credentials_error)?;
    let mut kept = Map::new();
    for f in credential_fields(platform) {
        if let Some(v) = credentials.get(*f).and_then(Value::as_str) {
            kept.insert((*f).to_owned(), Value::String(v.trim().to_owned()));
        }
    }
    Ok(Value::Object(kept))
}

fn credentials_error(e: connectors::ConnectorError) -> AppError {
    match e {
        connectors::ConnectorError::Credentials { platform, message } => {
            AppError::invalid("credentials", format!("{platform}: {message}"))
        }
        other => other.into(),
    }
}

/// The connections the caller sees (docs/auth.md#members-and-roles), newest first,
/// optionally of one entity.
pub fn list_for(
    conn: &SqlConn,
    scope: &Scope,
    entity: Option<&str>,
    page: crate::http::paging::Page,
) -> AppResult<Vec<Connection>> {
    let (cond, seen) = scope.condition(conn, "");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM import_connections
         WHERE {cond} AND (? IS NULL OR entity_id = ?)
         ORDER BY seq DESC LIMIT ? OFFSET ?"
    ))?;
    let mut args: Vec<rusqlite::types::Value> = seen.into_iter().map(Into::into).collect();
    let entity: rusqlite::types::Value = entity.map(str::to_owned).into();
    args.extend([
        entity.clone(),
        entity,
        page.sql_limit().into(),
        page.offset.into(),
    ]);
    let rows = stmt
        .query_map(rusqlite::params_from_iter(args), damage::named(from_row))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The connection of an entity to a platform, with its credentials.
pub fn load(
    conn: &SqlConn,
    owner: &str,
    entity_id: &str,
    platform: Platform,
) -> AppResult<Option<StoredConnection>> {
    let row = conn
        .query_row(
            &format!(
                "SELECT {COLUMNS}, unseal(credentials, 'import_connections.credentials')
                 FROM import_connections
                 WHERE owner_id = ?1 AND entity_id = ?2 AND platform = ?3"
            ),
            params![owner, entity_id, platform.id()],
            |r| Ok((from_row(r)?, r.get::<_, String>(6)?)),
        )
        .optional()?;
    row.map(|(connection, creds)| {
        let credentials = serde_json::from_str(&creds).map_err(|e| {
            AppError::internal(format!(
                "connection {} has unreadable credentials: {e}",
                connection.id
            ))
        })?;
        Ok(StoredConnection {
            connection,
            credentials,
        })
    })
    .transpose()
}

/// Creates the entity's connection to `platform`, or replaces its credentials (and sets
/// it `connected` again). Answers the connection and whether it is new.
pub fn upsert(
    tx: &Transaction,
    owner: &str,
    entity_id: &str,
    platform: Platform,
    credentials: &Value,
    now: &str,
) -> AppResult<(Connection, bool)> {
    let creds = credentials.to_string();
    let updated = tx.execute(
        "UPDATE import_connections
         SET credentials = seal(?1, 'import_connections.credentials'), status = ?2,
             updated_at = ?3
         WHERE owner_id = ?4 AND entity_id = ?5 AND platform = ?6",
        params![creds, CONNECTED, now, owner, entity_id, platform.id()],
    )?;
    let created = updated == 0;
    if created {
        tx.execute(
            "INSERT INTO import_connections
                 (id, owner_id, entity_id, platform, credentials, status, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, seal(?5, 'import_connections.credentials'), ?6, ?7, ?7)",
            params![
                uuid::Uuid::new_v4().to_string(),
                owner,
                entity_id,
                platform.id(),
                creds,
                CONNECTED,
                now
            ],
        )?;
    }
    let connection = tx.query_row(
        &format!(
            "SELECT {COLUMNS} FROM import_connections
             WHERE owner_id = ?1 AND entity_id = ?2 AND platform = ?3"
        ),
        params![owner, entity_id, platform.id()],
        damage::named(from_row),
    )?;
    Ok((connection, created))
}

/// Records a pull: `last_used_at`, and for FreeAgent the (possibly rotated) grant and
/// the status. Done after every pull, whatever its outcome.
pub fn record_use(
    tx: &Transaction,
    id: &str,
    credentials: Option<&Value>,
    status: Option<&str>,
    now: &str,
) -> AppResult<()> {
    tx.execute(
        "UPDATE import_connections
         SET last_used_at = ?1,
             credentials = COALESCE(seal(?2, 'import_connections.credentials'), credentials),
             status = COALESCE(?3, status),
             updated_at = CASE WHEN ?2 IS NULL AND ?3 IS NULL THEN updated_at ELSE ?1 END
         WHERE id = ?4",
        params![now, credentials.map(Value::to_string), status, id],
    )?;
    Ok(())
}

#[get("/import/connections?<q..>")]
async fn list(
    user: SessionUser,
    _pro: ProPlan,
    q: EntityListQuery,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let page = q.session_page()?;
    let entity = q.entity()?;
    let scope = user.scope();
    let rows = db
        .read(move |conn| {
            let entity = scope.entity_opt(conn, "entityId", entity.as_deref())?;
            list_for(conn, &scope, entity.as_deref(), page)
        })
        .await?;
    Ok(data(rows))
}

#[derive(Deserialize)]
struct CreateBody {
    platform: String,
    entity_id: String,
    credentials: Value,
}

/// 201 with a new connection, 200 when it replaced the credentials of an existing one.
pub enum Saved {
    New(Connection),
    Replaced(Connection),
}

impl<'r> rocket::response::Responder<'r, 'static> for Saved {
    fn respond_to(self, req: &'r rocket::Request<'_>) -> rocket::response::Result<'static> {
        match self {
            Self::New(c) => Created(c).respond_to(req),
            Self::Replaced(c) => data(c).respond_to(req),
        }
    }
}

#[post("/import/connections", data = "<body>")]
async fn create(
    user: SessionUser,
    _pro: ProPlan,
    body: JsonBody<CreateBody>,
    db: &State<Db>,
    clock: &State<Clock>,
    config: &State<AppConfig>,
) -> AppResult<Saved> {
    let b = body.into_inner();
    let platform = api_platform(&b.platform)?;
    if platform == Platform::Freeagent {
        return Err(AppError::bad_request(
            "freeagent connects over OAuth: start at GET /api/import/oauth/start?platform=freeagent&entityId=",
        ));
    }
    // The caller's role first: no call leaves for an entity they may not connect.
    let scope = user.scope();
    {
        let (scope, raw) = (scope.clone(), b.entity_id.clone());
        db.read(move |c| scope.entity(c, "entity_id", &raw)).await?;
    }
    let pconfig = config.platform(platform.id());
    let credentials = clean_credentials(platform, &b.credentials, &pconfig)?;
    let creds = credentials.clone();
    rocket::tokio::task::spawn_blocking(move || {
        connectors::check_site(platform, &creds, &pconfig, SITE_LOOKUP_TIMEOUT)
    })
    .await
    .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?
    .map_err(credentials_error)?;
    let now = rfc3339(clock.now());
    let (connection, created) = db
        .write_as(scope.actor().to_owned(), move |tx| {
            let entity_id = scope.entity(tx, "entity_id", &b.entity_id)?;
            upsert(
                tx,
                &scope.owner_for(tx, Some(&entity_id))?,
                &entity_id,
                platform,
                &credentials,
                &now,
            )
        })
        .await?;
    Ok(if created {
        Saved::New(connection)
    } else {
        Saved::Replaced(connection)
    })
}

/// Deletes connection `id`, when the caller sees it, and its credentials (404 when
/// unknown or foreign).
pub fn delete_connection(tx: &Transaction, scope: &Scope, id: &str) -> AppResult<()> {
    let (cond, seen) = scope.condition(tx, "");
    let mut args = vec![id.to_owned()];
    args.extend(seen);
    let n = tx.execute(
        &format!("DELETE FROM import_connections WHERE id = ? AND {cond}"),
        rusqlite::params_from_iter(args),
    )?;
    if n == 0 {
        return Err(AppError::not_found(format!("Connection not found: {id}")));
    }
    Ok(())
}

/// Deletes a connection and its credentials.
#[delete("/import/connections", data = "<body>")]
async fn remove(
    user: SessionUser,
    _pro: ProPlan,
    body: JsonBody<IdBody>,
    db: &State<Db>,
) -> AppResult<Json<Value>> {
    let id = body.id()?;
    let scope = user.scope();
    db.write_as(scope.actor().to_owned(), move |tx| {
        delete_connection(tx, &scope, &id)
    })
    .await?;
    Ok(data(json!({ "success": true })))
}
