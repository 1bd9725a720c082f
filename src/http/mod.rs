//! The HTTP surface: one constructor, [`build_rocket`], used by `main` and by every test.

pub mod assets;
pub mod body;
pub mod catchers;
pub mod paging;
pub mod stash;
pub mod stream;

use rocket::fairing::AdHoc;
use rocket::figment::Figment;
use rocket::http::{ContentType, Header, Status};
use rocket::response::{self, Responder, Response};
use rocket::serde::json::Json;
use rocket::{get, routes, Build, Request, Rocket};
use serde::Serialize;
use serde_json::{json, Value};

use crate::clock::Clock;
use crate::config::AppConfig;
use crate::db::Db;
use crate::error::{AppError, AppResult};

/// A 201 answer: `{data: record}`.
pub struct Created<T>(pub T);

impl<'r, T: Serialize> Responder<'r, 'static> for Created<T> {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        let mut res = data_bytes(&self.0)
            .map_err(|_| Status::InternalServerError)?
            .respond_to(req)?;
        res.set_status(Status::Created);
        Ok(res)
    }
}

/// `{data: value}` with 200.
pub fn data<T: Serialize>(value: T) -> Json<Value> {
    Json(json!({ "data": value }))
}

/// `{data: value}` serialised straight to bytes, without an intermediate
/// `serde_json::Value` tree: for lists that may hold a whole catalogue.
pub struct JsonBytes(Vec<u8>);

impl<'r> Responder<'r, 'static> for JsonBytes {
    fn respond_to(self, _req: &'r Request<'_>) -> response::Result<'static> {
        Response::build()
            .header(ContentType::JSON)
            .sized_body(self.0.len(), std::io::Cursor::new(self.0))
            .ok()
    }
}

/// [`data`] for large answers: see [`JsonBytes`].
pub fn data_bytes<T: Serialize>(value: &T) -> AppResult<JsonBytes> {
    #[derive(Serialize)]
    struct Envelope<'a, T> {
        data: &'a T,
    }
    serde_json::to_vec(&Envelope { data: value })
        .map(JsonBytes)
        .map_err(|e| AppError::internal(format!("serialising a response: {e}")))
}

/// A required, non-blank text field; trimmed.
pub fn required_text(field: &str, s: &str) -> AppResult<String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(AppError::missing(field));
    }
    Ok(t.to_owned())
}

/// Everything the app needs at run time, built once from the configuration.
pub struct App {
    pub config: AppConfig,
    pub db: Db,
    pub clock: Clock,
    /// The retry policy of the import connectors (429/5xx back-off). Production sleeps;
    /// tests replace it before [`build_rocket`] to record the waits instead.
    pub retry: crate::connectors::RetryPolicy,
}

impl App {
    /// Reads the configuration and opens (creating and migrating) the database.
    pub fn from_figment(figment: &Figment) -> Result<Self, String> {
        let config = AppConfig::from_figment(figment)?;
        let db = Db::open(&config.database, config.synchronous)?;
        Ok(Self {
            config,
            db,
            clock: Clock::default(),
            retry: crate::connectors::RetryPolicy::default(),
        })
    }
}

/// The whole service: session API at `/api`, public API at `/api/v1`, web app at `/`.
pub fn build_rocket(figment: Figment, app: App) -> Rocket<Build> {
    let db_path = app.config.database.clone();
    rocket::custom(figment)
        .manage(app.db)
        .manage(app.config)
        .manage(app.clock)
        .manage(crate::auth::SessionCache::default())
        .manage(app.retry)
        .manage(crate::v1::RateLimiter::default())
        .mount("/api", routes![health])
        .mount("/api", crate::auth::routes::routes())
        .mount("/api", crate::entities::routes())
        .mount("/api", crate::inventory::routes())
        .mount("/api", crate::accounting::routes())
        .mount("/api", crate::api_keys::routes())
        .mount("/api", crate::import::routes::routes())
        .mount("/api", crate::openapi::routes())
        .mount("/api", crate::import::migrate::routes())
        .mount("/api/v1", crate::v1::routes())
        .mount("/api/v1", crate::v1::fallback_routes())
        .mount("/", assets::routes())
        .register("/", catchers::all())
        .attach(AdHoc::on_response("security headers", |_, res| {
            Box::pin(async move {
                res.set_header(Header::new("X-Content-Type-Options", "nosniff"));
                res.set_header(Header::new("X-Frame-Options", "DENY"));
                res.set_header(Header::new("Referrer-Policy", "same-origin"));
            })
        }))
        .attach(crate::v1::rate_limit::headers())
        .attach(AdHoc::on_liftoff("announce", move |rocket| {
            Box::pin(async move {
                let c = rocket.config();
                println!(
                    "Stockbook {} listening on http://{}:{} with database {}",
                    env!("CARGO_PKG_VERSION"),
                    c.address,
                    c.port,
                    db_path
                );
            })
        }))
}

#[get("/health")]
fn health() -> Json<Value> {
    data(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}
