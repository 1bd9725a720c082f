//! The public API's rate limit (docs/public-api.md#rate-limit, docs/limits.md#rates):
//! `v1_rate_limit` (default 60) requests per rolling minute per key and endpoint (method and
//! route path), kept in memory.
//!
//! Buckets whose last request has left the window are dropped at most once a window, by
//! the first request after it: one pass over the map per minute, however many buckets
//! there are, instead of one per request.
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

/// Requests allowed per key, endpoint and window unless `v1_rate_limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 60;
/// The rolling window, in milliseconds.
pub const WINDOW_MS: i64 = 60_000;

/// What the headers tell the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateInfo {
    pub limit: usize,
    pub remaining: usize,
    /// Whole seconds until the oldest counted request leaves the window (at least 1).
    pub reset_secs: u64,
}

/// Managed state: timestamps (ms) of the counted requests per (key id, endpoint).
pub struct RateLimiter {
    limit: usize,
    state: Mutex<Buckets>,
}

#[derive(Default)]
struct Buckets {
    map: HashMap<(String, String), VecDeque<i64>>,
    /// When expired buckets were last dropped.
    pruned_at: i64,
    /// How many times they were (for the tests).
    prunes: u64,
}

impl Default for RateLimiter {
    fn default() -> Self {
        Self::new(DEFAULT_LIMIT)
    }
}

fn secs_until_free(oldest: i64, now_ms: i64) -> u64 {
    let ms = (oldest + WINDOW_MS - now_ms).max(0);
    u64::try_from((ms + 999) / 1000).unwrap_or(0).max(1)
}

impl RateLimiter {
    /// A limiter allowing `limit` requests per key, endpoint and window.
    pub fn new(limit: usize) -> Self {
        Self {
            limit: limit.max(1),
            state: Mutex::new(Buckets::default()),
        }
    }

    /// Counts one request at `now_ms`. `Err` when the window is full: the request is
    /// refused and not counted.
    pub fn hit(&self, key_id: &str, endpoint: &str, now_ms: i64) -> Result<RateInfo, RateInfo> {
        let limit = self.limit;
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if now_ms - state.pruned_at >= WINDOW_MS {
            state
                .map
                .retain(|_, q| q.back().is_some_and(|&t| now_ms - t < WINDOW_MS));
            state.pruned_at = now_ms;
            state.prunes += 1;
        }
        let q = state
            .map
            .entry((key_id.to_owned(), endpoint.to_owned()))
            .or_default();
        while q.front().is_some_and(|&t| now_ms - t >= WINDOW_MS) {
            q.pop_front();
        }
        if q.len() >= limit {
            let oldest = q.front().copied().unwrap_or(now_ms);
            return Err(RateInfo {
                limit,
                remaining: 0,
                reset_secs: secs_until_free(oldest, now_ms),
            });
        }
        q.push_back(now_ms);
        let oldest = q.front().copied().unwrap_or(now_ms);
        Ok(RateInfo {
            limit,
            remaining: limit - q.len(),
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
    fn the_limit_is_the_configured_one() {
        let rl = RateLimiter::new(3);
        for _ in 0..3 {
            assert_eq!(rl.hit("k", "GET /a", 0).unwrap().limit, 3);
        }
        assert_eq!(rl.hit("k", "GET /a", 0).unwrap_err().limit, 3);
    }

    #[test]
    fn expired_buckets_are_dropped_at_most_once_a_window_however_many_there_are() {
        let rl = RateLimiter::new(60);
        let prunes = || rl.state.lock().unwrap().prunes;
        let buckets = || rl.state.lock().unwrap().map.len();
        // 20,000 keys within one window: one pass at the first request, none after.
        for i in 0..20_000_i64 {
            rl.hit(&format!("k{i}"), "GET /a", 100_000 + i / 1000)
                .unwrap();
        }
        assert_eq!(prunes(), 1);
        assert_eq!(buckets(), 20_000);
        // A window later the next request drops them all, once.
        for i in 0..1_000_i64 {
            rl.hit("late", "GET /a", 170_000 + i).unwrap_or_else(|e| e);
        }
        assert_eq!(prunes(), 2);
        assert_eq!(buckets(), 1);
    }

    #[test]
    fn reset_is_at_least_one_second() {
        assert_eq!(secs_until_free(0, 59_999), 1);
        assert_eq!(secs_until_free(0, 0), 60);
    }
}
