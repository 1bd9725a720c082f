//! The route wrapper (docs/idempotency.md#how-a-request-with-a-key-runs).
//!
//! A Rocket fairing cannot answer a request in place of its handler, and a handler's
//! body can be read only once, so the wrapper sits where both are in reach: it replaces
//! the handler of every POST route at mount and calls the real one.
//!
//! 1. No header, no caller (a request without a session or API key), or a sign-up or
//!    sign-in: the handler runs as without the wrapper.
//! 2. The key is checked (400) and taken for this caller (a second request with it while
//!    the first runs is 409; [`InFlight`]).
//! 3. Once the body is known (peeked here when it is small, else when the handler's body
//!    guard has read it, through [`BodyCheck`]) the stored key decides: none, the handler
//!    runs; same request, its answer is sent again; another request, 422.
//! 4. The key is written in the transaction of the handler's first write
//!    ([`crate::db::with_first_write`]) and its answer added when the handler has answered.

use std::collections::HashSet;
use std::io::Cursor;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rocket::data::Data;
use rocket::http::{ContentType, Header, Method, Status};
use rocket::request::Request;
use rocket::response::Response;
use rocket::route::{self, Handler, Route};
use sha2::{Digest, Sha256};

use super::key::{parse_key, HEADER};
use super::persistence::{self, Answer};
use crate::auth::SessionUser;
use crate::clock::Clock;
use crate::db::{with_first_write, Db};
use crate::error::{AppError, AppResult};
use crate::http::body::{BodyCheck, BodyChecks};
use crate::v1::ApiKey;

/// The most of a body Rocket lets a handler look at without reading it.
const PEEK: usize = 512;

/// Wraps the handler of every POST route in `routes` (docs/idempotency.md).
pub fn idempotent(routes: Vec<Route>) -> Vec<Route> {
    routes
        .into_iter()
        .map(|mut r| {
            if r.method == Method::Post {
                let inner = r.handler.clone();
                r.handler = Box::new(Idempotent { inner });
            }
            r
        })
        .collect()
}

/// The keys whose request is running now, per caller (managed state).
#[derive(Default)]
pub struct InFlight(Mutex<HashSet<(String, String)>>);

impl InFlight {
    fn enter(&self, caller: &str, key: &str) -> Option<Running<'_>> {
        let id = (caller.to_owned(), key.to_owned());
        let fresh = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone());
        // Lazily: a `Running` made and dropped here would free the other request's key.
        fresh.then(|| Running { set: self, id })
    }
}

/// Holds a key as running until dropped (a panicking handler included).
struct Running<'a> {
    set: &'a InFlight,
    id: (String, String),
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.set
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

#[derive(Clone)]
struct Idempotent {
    inner: Box<dyn Handler>,
}

/// What the stored key decided instead of running the handler.
enum Decision {
    Replay(Answer),
    Refuse(AppError),
}

/// One request with a key.
struct Keyed {
    db: Db,
    caller: String,
    key: String,
    now: i64,
    /// `METHOD path?query`, hashed with the body.
    target: String,
    hash: Mutex<Option<String>>,
    decision: Mutex<Option<Decision>>,
    /// Whether the handler's first write recorded the key.
    claimed: AtomicBool,
}

impl Keyed {
    /// Looks the key up for a request whose body is `body`: `Err` when the stored key
    /// decided (see [`Keyed::decision`]).
    async fn decide(&self, body: &[u8]) -> AppResult<()> {
        let mut digest = Sha256::new();
        digest.update(self.target.as_bytes());
        digest.update([0]);
        digest.update(body);
        let hash = format!("{:x}", digest.finalize());
        *self.hash.lock().unwrap_or_else(PoisonError::into_inner) = Some(hash.clone());
        let (caller, key, now) = (self.caller.clone(), self.key.clone(), self.now);
        let found = self
            .db
            .read(move |conn| persistence::find(conn, &caller, &key, now))
            .await;
        let decision = match found {
            Ok(None) => return Ok(()),
            Err(e) => Decision::Refuse(e),
            Ok(Some(s)) if s.request_hash != hash => {
                Decision::Refuse(AppError::Unprocessable(format!(
                    "This {HEADER} was used for another request (another path or body) in \
                     the last 24 hours: send a new key for a new request"
                )))
            }
            Ok(Some(s)) => match s.answer {
                Some(a) => Decision::Replay(a),
                None => Decision::Refuse(AppError::refused(
                    "idempotency_answer_lost",
                    format!(
                        "The request with this {HEADER} was carried out, but the server stopped \
                     before it recorded the answer: look the record up instead of retrying"
                    ),
                )),
            },
        };
        *self.decision.lock().unwrap_or_else(PoisonError::into_inner) = Some(decision);
        // Never sent: the wrapper answers from the decision.
        Err(AppError::conflict("decided by the Idempotency-Key"))
    }

    fn hash(&self) -> Option<String> {
        self.hash
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn take_decision(&self) -> Option<Decision> {
        self.decision
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

#[rocket::async_trait]
impl BodyCheck for Keyed {
    async fn check(&self, body: &[u8]) -> AppResult<()> {
        if self.hash().is_some() {
            // Decided from the peeked body already.
            return Ok(());
        }
        self.decide(body).await
    }
}

/// Who is calling, as keys are scoped: the session's user on `/api`, the API key on
/// `/api/v1`; `None` when the request has neither (the handler then refuses it or needs
/// none) or is a sign-up or sign-in, whose answers set cookies that a replay would not.
async fn caller(req: &Request<'_>) -> Option<String> {
    let route = req.route()?;
    if route.uri.base() == "/api/v1" {
        let key = req.guard::<ApiKey>().await.succeeded()?;
        return Some(format!("api_key:{}", key.0.id));
    }
    if route.uri.path().starts_with("/api/auth/") && route.uri.path() != "/api/auth/logout" {
        return None;
    }
    let user = req.guard::<SessionUser>().await.succeeded()?;
    Some(format!("user:{}", user.id()))
}

fn replay<'r>(a: Answer) -> Response<'r> {
    let mut res = Response::build()
        .status(Status::new(a.status))
        .header(Header::new("Idempotent-Replayed", "true"))
        .sized_body(a.body.len(), Cursor::new(a.body))
        .finalize();
    if let Some(ct) = a
        .content_type
        .as_deref()
        .and_then(ContentType::parse_flexible)
    {
        res.set_header(ct);
    }
    if let Some(location) = a.location {
        res.set_header(Header::new("Location", location));
    }
    res
}

fn decided<'r>(req: &'r Request<'_>, d: Decision) -> route::Outcome<'r> {
    match d {
        Decision::Replay(a) => route::Outcome::Success(replay(a)),
        Decision::Refuse(e) => route::Outcome::from(req, e),
    }
}

#[rocket::async_trait]
impl Handler for Idempotent {
    async fn handle<'r>(&self, req: &'r Request<'_>, mut data: Data<'r>) -> route::Outcome<'r> {
        if req.headers().get_one(HEADER).is_none() {
            return self.inner.handle(req, data).await;
        }
        let Some(caller) = caller(req).await else {
            return self.inner.handle(req, data).await;
        };
        let key = match parse_key(req.headers().get(HEADER)) {
            Ok(Some(k)) => k,
            Ok(None) => return self.inner.handle(req, data).await,
            Err(e) => return route::Outcome::from(req, e),
        };
        let rocket = req.rocket();
        let (Some(db), Some(flight)) = (rocket.state::<Db>(), rocket.state::<InFlight>()) else {
            return route::Outcome::from(req, AppError::internal("idempotency state missing"));
        };
        let Some(_running) = flight.enter(&caller, &key) else {
            return route::Outcome::from(
                req,
                AppError::refused(
                    "idempotency_in_progress",
                    format!(
                    "A request with this {HEADER} is still running: retry once it has been answered"
                ),
                ),
            );
        };
        let now = rocket
            .state::<Clock>()
            .cloned()
            .unwrap_or_default()
            .now()
            .unix_timestamp();
        let keyed = Arc::new(Keyed {
            db: db.clone(),
            caller,
            key,
            now,
            target: format!("{} {}", req.method(), req.uri()),
            hash: Mutex::new(None),
            decision: Mutex::new(None),
            claimed: AtomicBool::new(false),
        });
        // A small body is known now; a larger one when the body guard reads it.
        let peeked = data.peek(PEEK).await.to_vec();
        if data.peek_complete() && keyed.decide(&peeked).await.is_err() {
            if let Some(d) = keyed.take_decision() {
                return decided(req, d);
            }
        }
        req.local_cache(|| BodyChecks(Some(keyed.clone())));

        let joined = keyed.clone();
        let outcome = with_first_write(
            Box::new(move |tx| {
                // A body no guard read and too large to peek: the key is not kept.
                if let Some(hash) = joined.hash() {
                    persistence::claim(tx, &joined.caller, &joined.key, &hash, joined.now)?;
                    joined.claimed.store(true, Ordering::SeqCst);
                }
                Ok(())
            }),
            self.inner.handle(req, data),
        )
        .await;
        if let Some(d) = keyed.take_decision() {
            return decided(req, d);
        }
        let route::Outcome::Success(mut res) = outcome else {
            return outcome;
        };
        let claimed = keyed.claimed.load(Ordering::SeqCst);
        let Some(hash) = keyed.hash() else {
            return route::Outcome::Success(res);
        };
        // A refusal that wrote nothing keeps no key: the same key may be sent again.
        if !claimed && res.status().code >= 400 {
            return route::Outcome::Success(res);
        }
        let body = match res.body_mut().to_bytes().await {
            Ok(b) => b,
            Err(e) => return route::Outcome::from(req, AppError::internal(e.to_string())),
        };
        let answer = Answer {
            status: res.status().code,
            content_type: res.content_type().map(|c| c.to_string()),
            location: res.headers().get_one("Location").map(str::to_owned),
            body: body.clone(),
        };
        res.set_sized_body(body.len(), Cursor::new(body));
        let k = keyed.clone();
        let recorded = db
            .write(move |tx| {
                persistence::record(tx, &k.caller, &k.key, &hash, k.now, claimed, &answer)
            })
            .await;
        if let Err(e) = recorded {
            // The request's effect stands; a retry with this key is then told the answer
            // was lost (409) instead of running again.
            eprintln!("stockbook: recording an Idempotency-Key's answer failed: {e:?}");
        }
        route::Outcome::Success(res)
    }
}
