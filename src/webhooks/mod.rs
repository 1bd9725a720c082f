//! Webhooks (docs/webhooks.md): `GET/POST/PUT/DELETE /api/webhooks`, the delivery log,
//! redelivery and the test ping, session only.
//!
//! A webhook subscribes a URL to event types, for every record of its owner or, with
//! `entity_id`, for one entity's. Its secret (`whsec_` + 32 base62 characters) is shown
//! once, in the create answer; it signs every delivery ([`signature`]). Events are
//! written by the changes that cause them, in their transactions ([`outbox::emit`]), and
//! sent by the worker ([`worker`]).
//!
//! The files: [`resource`] (the webhook, its rules and handlers), [`deliveries`] (the
//! log, redelivery, the test ping), [`outbox`] (the event types and the writing of
//! events), [`worker`] (sending), [`signature`].

pub mod deliveries;
pub mod openapi;
pub mod outbox;
pub mod resource;
pub mod signature;
pub mod worker;

use rocket::Route;

pub use deliveries::{Delivery, DEFAULT_LOG_LIMIT, DELIVERIES_OF_EVENT};
pub use outbox::{EventType, EVENTS, EVENT_TYPES, SUBSCRIBABLE};
pub use resource::{
    check_events, CreatedWebhook, Webhook, MAX_URL, MAX_WEBHOOKS, SECRET_PREFIX, SECRET_RANDOM_LEN,
};

pub fn routes() -> Vec<Route> {
    let mut r = resource::routes();
    r.extend(deliveries::routes());
    r
}
