//! The public API's rate limit (§8, DECISIONS §10, §12): 60 requests per rolling minute
//! per key and endpoint (method and route path), kept in memory.
//!
//! The [`super::ApiKey`] guard counts each authenticated request (or refuses it with 429;
//! a refused request does not count) and leaves the figures in the request's local
//! cache; the [`headers`] fairing copies them onto the response, whatever its status, as
//! `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (whole seconds
//! until the oldest counted request leaves the window). Time comes from the [`Clock`], so
//! tests move it forward instead of sleeping.
//!
//! [`Clock`]: crate::clock::Clock

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, OnceLock};

use rocket::fairing::AdHoc;
use rocket::http::Header;
use rocket::Request;

/// Requests allowed per key, endpoint and window.
pub const LIMIT: usize = 60;
/// The rolling window, in milliseconds.
pub const WINDOW_MS: i64 = 60_000;
/// Above this many buckets, expired ones are dropped on the next request.
const PRUNE_ABOVE: usize = 10_000;

/// What the headers tell the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateInfo {
    pub limit: usize,
    pub remaining: usize,
    /// Whole seconds until the oldest counted request leaves the window (at least 1).
    pub reset_secs: u64,
}

/// Managed state: timestamps (ms) of the counted requests per (key id, endpoint).
#[derive(Default)]
pub struct RateLimiter {
    buckets: Mutex<HashMap<(String, String), VecDeque<i64>>>,
}

fn secs_until_free(oldest: i64, now_ms: i64) -> u64 {
    let ms = (oldest + WINDOW_MS - now_ms).max(0);
    u64::try_from((ms + 999) / 1000).unwrap_or(0).max(1)
}

impl RateLimiter {
    /// Counts one request at `now_ms`. `Err` when the window is full: the request is
    /// refused and not counted.
    pub fn hit(&self, key_id: &str, endpoint: &str, now_ms: i64) -> Result<RateInfo, RateInfo> {
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() > PRUNE_ABOVE {
            buckets.retain(|_, q| q.back().is_some_and(|&t| now_ms - t < WINDOW_MS));
        }
        let q = buckets
            .entry((key_id.to_owned(), endpoint.to_owned()))
            .or_default();
        while q.front().is_some_and(|&t| now_ms - t >= WINDOW_MS) {
            q.pop_front();
        }
        if q.len() >= LIMIT {
            let oldest = q.front().copied().unwrap_or(now_ms);
            return Err(RateInfo {
                limit: LIMIT,
                remaining: 0,
                reset_secs: secs_until_free(oldest, now_ms),
            });
        }
        q.push_back(now_ms);
        let oldest = q.front().copied().unwrap_or(now_ms);
        Ok(RateInfo {
            limit: LIMIT,
            remaining: LIMIT - q.len(),
            reset_secs: secs_until_free(oldest, now_ms),
        })
    }
}

#[derive(Default)]
struct RateSlot(OnceLock<RateInfo>);

/// Leaves the figures of this request for the [`headers`] fairing.
pub fn remember(req: &Request<'_>, info: RateInfo) {
    let _ = req.local_cache(RateSlot::default).0.set(info);
}

/// Puts the `X-RateLimit-*` headers on every response of a request the guard counted
/// (or refused).
pub fn headers() -> AdHoc {
    AdHoc::on_response("public API rate-limit headers", |req, res| {
        Box::pin(async move {
            if let Some(info) = req.local_cache(RateSlot::default).0.get() {
                res.set_header(Header::new("X-RateLimit-Limit", info.limit.to_string()));
                res.set_header(Header::new(
                    "X-RateLimit-Remaining",
                    info.remaining.to_string(),
                ));
                res.set_header(Header::new(
                    "X-RateLimit-Reset",
                    info.reset_secs.to_string(),
                ));
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sixty_first_request_in_a_minute_is_refused_and_not_counted() {
        let rl = RateLimiter::default();
        for i in 0..60 {
            let info = rl.hit("k", "GET /a", 1_000 + i).unwrap();
            assert_eq!(info.remaining, 59 - usize::try_from(i).unwrap());
        }
        let refused = rl.hit("k", "GET /a", 30_000).unwrap_err();
        assert_eq!(refused.remaining, 0);
        assert_eq!(refused.reset_secs, 31);
        // Another endpoint and another key have their own budgets.
        assert!(rl.hit("k", "GET /b", 30_000).is_ok());
        assert!(rl.hit("other", "GET /a", 30_000).is_ok());
        // The oldest request leaves the window at 61 s: one slot frees up.
        let info = rl.hit("k", "GET /a", 61_000).unwrap();
        assert_eq!(info.remaining, 0);
        assert!(rl.hit("k", "GET /a", 61_000).is_err());
    }

    #[test]
    fn reset_is_at_least_one_second() {
        assert_eq!(secs_until_free(0, 59_999), 1);
        assert_eq!(secs_until_free(0, 0), 60);
    }
}
