//! [`Ctx`]: what a write needs besides its body and the caller's scope. The time is read
//! once per request, so every record a request writes carries the same timestamp and
//! date; `allow_negative_stock` travels with it because a write of one resource may move
//! stock (a product's opening stock, a stock take's completion).
//!
//! Handlers take it as a request guard; code that runs without a request (the importer,
//! tests) builds it with [`Ctx::at`].

use rocket::http::Status;
use rocket::request::{FromRequest, Outcome, Request};
use time::{Date, OffsetDateTime};

use crate::clock::{rfc3339, Clock};
use crate::config::AppConfig;

#[derive(Debug, Clone)]
pub struct Ctx {
    /// RFC 3339 timestamp for `created_at` / `updated_at` / `date_completed`.
    pub now: String,
    /// Default for dates the client leaves out, and the date of system movements (UTC).
    pub today: Date,
    /// `allow_negative_stock`: may a stock change take a quantity below zero?
    pub allow_negative: bool,
}

impl Ctx {
    /// The context of a request served with `config`, at the clock's time.
    pub fn new(clock: &Clock, config: &AppConfig) -> Self {
        Self::at(clock.now(), config.allow_negative_stock)
    }

    /// The context at `now`.
    pub fn at(now: OffsetDateTime, allow_negative: bool) -> Self {
        Self {
            now: rfc3339(now),
            today: now.date(),
            allow_negative,
        }
    }
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for Ctx {
    type Error = ();

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, ()> {
        let rocket = req.rocket();
        match (rocket.state::<Clock>(), rocket.state::<AppConfig>()) {
            (Some(clock), Some(config)) => Outcome::Success(Self::new(clock, config)),
            _ => Outcome::Error((Status::InternalServerError, ())),
        }
    }
}
