//! The application: the Rocket built from every module's routes. It sits at the top of the
//! module graph: it imports every feature, and nothing imports it but `main` and the tests.

use rocket::fairing::AdHoc;
use rocket::figment::Figment;
use rocket::http::Header;
use rocket::serde::json::Json;
use rocket::{get, routes, Build, Rocket};
use serde_json::{json, Value};

use crate::clock::Clock;
use crate::config::AppConfig;
use crate::db::Db;
use crate::http::{assets, catchers, data, query};
use crate::idempotency::{idempotent, InFlight};

/// The web app's Content-Security-Policy: its own scripts, styles and API only (it has no
/// inline script or style but the import map, allowed by its hash, and sets styles only
/// through the CSSOM), `data:` for the empty favicon, no plugins, no framing, no `<base>`
/// rewriting. The import wizard's OAuth step is a top-level navigation, which the policy
/// does not restrict.
pub fn csp() -> String {
    format!(
        "default-src 'self'; script-src 'self' {}; style-src 'self'; \
         img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        assets::import_map_csp_source()
    )
}

/// Everything the app needs at run time, built once from the configuration.
pub struct App {
    pub config: AppConfig,
    pub db: Db,
    pub clock: Clock,
    /// The retry policy of the import connectors (429/5xx back-off). Production sleeps;
    /// tests replace it before [`build_rocket`] to record the waits instead.
    pub retry: crate::connectors::RetryPolicy,
    /// Whether [`build_rocket`] starts the webhook delivery worker (docs/webhooks.md#delivery).
    /// The server does; the in-process tests leave it off unless they test delivery.
    pub webhook_worker: bool,
}

impl App {
    /// Reads the configuration and opens (creating and migrating) the database.
    pub fn from_figment(figment: &Figment) -> Result<Self, String> {
        let config = AppConfig::from_figment(figment)?;
        let options = crate::db::OpenOptions {
            synchronous: config.synchronous,
            read_only: config.read_only,
            create: config.create_database,
        };
        let mut db = Db::open_with(&config.database, options)
            .map_err(|e| damaged_file(&config.database, config.allow_negative_stock, e))?;
        db.set_stream_timeout(config.stream_timeout);
        db.read_sync(crate::webhooks::outbox::note_database)
            .map_err(|e| format!("cannot read webhooks: {e}"))?;
        Ok(Self {
            config,
            db,
            clock: Clock::default(),
            retry: crate::connectors::RetryPolicy::default(),
            webhook_worker: false,
        })
    }
}

/// A database that could not be opened; a damaged one is described as `stockbook check`
/// describes it (docs/operations.md#check), at once.
fn damaged_file(path: &str, allow_negative: bool, e: crate::db::OpenError) -> String {
    if !e.damaged {
        return e.message;
    }
    let found =
        crate::ops::check::open(path).and_then(|c| crate::ops::check::breaches(&c, allow_negative));
    let said = match found {
        Ok(found) if found.is_empty() => return e.message,
        Ok(found) => found.join("\n"),
        Err(check) => check,
    };
    format!(
        "{}; `stockbook check` says:\n{said}\nRestore the last backup (docs/operations.md#restore).",
        e.message
    )
}

/// The whole service: session API at `/api`, public API at `/api/v1`, web app at `/`.
pub fn build_rocket(figment: Figment, app: App) -> Rocket<Build> {
    let db_path = app.config.database.clone();
    let pull_slots = crate::import::migrate::PullSlots::new(app.config.pulls.concurrent);
    let rate_limiter = crate::v1::RateLimiter::new(app.config.v1_rate_limit);
    let hash_gate = crate::auth::password::HashGate::new(app.config.password_hash_concurrency);
    // Stops with the Rocket that manages it (a test's client, or the server at exit).
    let webhook_worker = if app.webhook_worker {
        match crate::webhooks::worker::start(
            app.db.clone(),
            &app.config,
            crate::inventory::movements::event_data,
        ) {
            Ok(handle) => Some(handle),
            Err(e) => {
                eprintln!("stockbook: {e}");
                None
            }
        }
    } else {
        None
    };
    let openapi = crate::openapi::build();
    rocket::custom(figment)
        .manage(crate::v1::guard::DocumentedQueries::from_openapi(&openapi))
        .manage(webhook_worker)
        .manage(app.db)
        .manage(app.config)
        .manage(app.clock)
        .manage(crate::auth::SessionCache::default())
        .manage(app.retry)
        .manage(pull_slots)
        .manage(rate_limiter)
        .manage(hash_gate)
        .manage(InFlight::default())
        .manage(crate::hmrc::HmrcState::default())
        .mount("/api", query::routes(&openapi))
        .mount("/api", routes![health])
        .mount("/api", idempotent(crate::auth::routes::routes()))
        .mount("/api", idempotent(crate::auth::two_factor::routes()))
        .mount("/api", idempotent(crate::entities::routes()))
        .mount("/api", idempotent(crate::members::routes()))
        .mount("/api", idempotent(crate::audit::routes()))
        .mount("/api", idempotent(crate::inventory::routes()))
        .mount("/api", idempotent(crate::accounting::routes()))
        .mount("/api", idempotent(crate::vat_return::routes()))
        .mount("/api", idempotent(crate::hmrc::routes()))
        .mount("/api", idempotent(crate::api_keys::routes()))
        .mount("/api", idempotent(crate::webhooks::routes()))
        .mount("/api", idempotent(crate::import::routes::routes()))
        .mount("/api", idempotent(crate::openapi::routes()))
        .mount("/api", idempotent(crate::import::migrate::routes()))
        .mount("/api/v1", idempotent(crate::v1::routes()))
        .mount("/api/v1", crate::v1::fallback_routes())
        .mount("/", assets::routes())
        .register("/", catchers::all())
        // First: its 400 replaces the whole answer, which the later fairings then dress.
        .attach(crate::http::nul::fairing())
        .attach(AdHoc::on_response("security headers", |req, res| {
            Box::pin(async move {
                res.set_header(Header::new("X-Content-Type-Options", "nosniff"));
                res.set_header(Header::new("X-Frame-Options", "DENY"));
                res.set_header(Header::new("Referrer-Policy", "same-origin"));
                if req.uri().path().segments().next() == Some("api") {
                    // API answers carry account data and, once, a new key's secret: no
                    // browser or proxy cache may keep them.
                    res.set_header(Header::new("Cache-Control", "no-store"));
                } else if res.content_type().is_some_and(|ct| ct.is_html()) {
                    res.set_header(Header::new("Content-Security-Policy", csp()));
                }
            })
        }))
        .attach(crate::v1::rate_limit::headers())
        .attach(crate::v1::guard::challenge())
        .attach(crate::request_id::fairing())
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

/// `GET /api/health` (docs/operations.md#storage-faults): `ok`, or `degraded` with the
/// reason writes are not being saved. A fault is a 503 (with `Retry-After`) so that a
/// monitor notices; a server configured read-only is as asked, a 200.
#[get("/health")]
fn health(db: &rocket::State<Db>) -> (rocket::http::Status, Health) {
    use crate::db::StorageFault;
    let version = env!("CARGO_PKG_VERSION");
    match db.storage_fault() {
        None => (
            rocket::http::Status::Ok,
            Health(data(json!({ "status": "ok", "version": version })), false),
        ),
        Some(fault) => {
            let body = data(json!({
                "status": "degraded",
                "reason": fault.message(),
                "version": version,
            }));
            if fault == StorageFault::ServedReadOnly {
                (rocket::http::Status::Ok, Health(body, false))
            } else {
                (rocket::http::Status::ServiceUnavailable, Health(body, true))
            }
        }
    }
}

/// The health body, with `Retry-After` when it is a 503.
struct Health(Json<Value>, bool);

impl<'r> rocket::response::Responder<'r, 'static> for Health {
    fn respond_to(self, req: &'r rocket::Request<'_>) -> rocket::response::Result<'static> {
        let mut res = self.0.respond_to(req)?;
        if self.1 {
            res.set_header(Header::new(
                "Retry-After",
                crate::error::STORAGE_RETRY_AFTER_SECS.to_string(),
            ));
        }
        Ok(res)
    }
}
