//! `Idempotency-Key` on every POST of both APIs (docs/idempotency.md): the same key and
//! body within 24 hours answers the first answer again without running the request.
//!
//! [`idempotent`] wraps the handler of every POST route at mount (`app.rs`), so no
//! handler knows about keys: `key.rs` is the header's rule, `persistence.rs` the SQL,
//! `wrapper.rs` the route wrapper that ties them to the body guards
//! (`http::body::BodyCheck`) and to the request's first write (`db::with_first_write`).

mod key;
mod persistence;
mod wrapper;

pub use key::{parse_key, HEADER, MAX_LEN};
pub use persistence::LIFETIME_SECS;
pub use wrapper::{idempotent, InFlight};
