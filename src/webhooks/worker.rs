//! The delivery worker (docs/webhooks.md#delivery): a thread of the server that sends the
//! outbox's pending deliveries.
//!
//! - It reads what is due on a pooled connection, lets the connection go, makes the HTTP
//!   calls, and only then records the outcomes in one short write transaction: it never
//!   holds the writer (nor a connection) while it waits on the network.
//! - Each webhook's deliveries go out one at a time in event order (`seq`). When one
//!   fails, the webhook waits (`webhooks.retry_at_ms`) until that delivery's retry, and
//!   its later deliveries wait behind it: they go out in order once the receiver
//!   answers again. Webhooks are served in parallel, up to [`PARALLEL`] at once, so a
//!   slow receiver delays only its own events.
//! - Everything it knows is in the database, so after a restart it simply carries on.
//! - Outgoing calls follow [`OutboundPolicy`] at connection time, with the operator's
//!   `webhooks_allow_http` and `webhooks_allow_private`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::Rng;
use rusqlite::params;

use super::outbox::{self, now_ms, MovementData};
use super::signature;
use crate::clock::rfc3339;
use crate::config::{AppConfig, WebhookSchedule};
use crate::db::Db;
use crate::error::AppResult;
use crate::outbound::{OutboundPolicy, Refusal};

/// How often the worker looks for new events when it has nothing to wait for.
pub const POLL: Duration = Duration::from_millis(100);
/// Movements of the ledger that one round brings each webhook through
/// ([`outbox::catch_up`]): a bound on how long one catch-up holds the writer.
pub const CATCH_UP_SPAN: i64 = 2_000;
/// Deliveries of one webhook sent in one go before their outcomes are recorded.
pub const BATCH: i64 = 200;
/// Webhooks served at once.
pub const PARALLEL: usize = 8;
/// While the writer is saturated by requests, a sender waits up to this long before each
/// batch (docs/webhooks.md#delivery).
pub const YIELD_MAX: Duration = Duration::from_secs(1);
/// How often a yielding sender looks at the writer again.
const YIELD_STEP: Duration = Duration::from_millis(10);
/// Delivered and failed deliveries are kept this long for the log and redelivery.
pub const KEEP_DAYS: i64 = 30;
/// Characters of a receiver's answer kept in `last_error`.
const ERROR_CHARS: usize = 200;

/// The running worker; it stops (within [`POLL`]) when this is dropped.
pub struct WorkerHandle {
    stop: Arc<AtomicBool>,
}

impl Drop for WorkerHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The outgoing-call policy of webhooks under `config`.
pub fn policy(config: &AppConfig) -> OutboundPolicy {
    OutboundPolicy::new()
        .allow_http(config.webhooks_allow_http)
        .allow_private(config.webhooks_allow_private)
}

/// Starts the worker thread over `db`; `movements` renders `stock_movement.created`
/// bodies ([`MovementData`]).
pub fn start(db: Db, config: &AppConfig, movements: MovementData) -> Result<WorkerHandle, String> {
    let schedule = config.webhooks_retry;
    let builder = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_millis(schedule.timeout_ms)))
        .user_agent(concat!("Stockbook-Webhooks/", env!("CARGO_PKG_VERSION")))
        .max_redirects(0);
    let agent = policy(config).agent(builder);
    let stop = Arc::new(AtomicBool::new(false));
    let worker = Worker {
        db,
        movements,
        agent,
        schedule,
        stop: stop.clone(),
        busy: Arc::new(Mutex::new(HashSet::new())),
    };
    std::thread::Builder::new()
        .name("stockbook-webhooks".into())
        .spawn(move || worker.run())
        .map_err(|e| format!("cannot start the webhook worker: {e}"))?;
    Ok(WorkerHandle { stop })
}

#[derive(Clone)]
struct Worker {
    db: Db,
    movements: MovementData,
    agent: ureq::Agent,
    schedule: WebhookSchedule,
    stop: Arc<AtomicBool>,
    /// Webhooks whose deliveries are being sent now.
    busy: Arc<Mutex<HashSet<String>>>,
}

struct Target {
    id: String,
    url: String,
    secret: String,
}

struct Due {
    seq: i64,
    body: String,
    /// Rendered here from the movement (its row kept none): kept if it must be retried.
    rendered: bool,
    round_start_ms: i64,
    round_attempts: i64,
}

struct Outcome {
    seq: i64,
    /// A body rendered for this attempt, to keep for the retries.
    keep_body: Option<String>,
    at_ms: i64,
    status_code: Option<u16>,
    /// `None` when delivered.
    error: Option<String>,
    round_start_ms: i64,
    round_attempts: i64,
}

impl Worker {
    fn run(self) {
        let mut last_prune = 0;
        let mut last_catch_up: Option<Instant> = None;
        while !self.stop.load(Ordering::SeqCst) {
            let more = self.catch_up(&mut last_catch_up).unwrap_or_else(|e| {
                eprintln!("stockbook: webhook worker: catching up with the ledger: {e}");
                false
            });
            let now = now_ms();
            let wait = match self.dispatch(now) {
                Ok(next) => next.map_or(POLL, |at| {
                    Duration::from_millis(u64::try_from(at - now).unwrap_or(0)).min(POLL)
                }),
                Err(e) => {
                    eprintln!("stockbook: webhook worker: {e}");
                    POLL * 10
                }
            };
            if now - last_prune > 3_600_000 {
                last_prune = now;
                if let Err(e) = self.prune() {
                    eprintln!("stockbook: webhook worker: pruning the log: {e}");
                }
            }
            let wait = if more { Duration::ZERO } else { wait };
            std::thread::sleep(wait.max(Duration::from_millis(2)));
        }
    }

    /// Writes the deliveries of the movements that active webhooks have not been served
    /// yet ([`outbox::catch_up`], at most [`CATCH_UP_SPAN`] each). Like a batch of
    /// deliveries, it waits while the writer is saturated by requests, for at most
    /// [`YIELD_MAX`] since the last one, and then covers only [`BATCH`] movements.
    /// Answers whether more is left.
    fn catch_up(&self, last: &mut Option<Instant>) -> AppResult<bool> {
        if !self.db.read_sync(outbox::behind)? {
            return Ok(false);
        }
        // Under a saturated writer, only what one batch of deliveries needs: the ledger
        // keeps the rest, and it is written once the load drops.
        let span = if self.db.writer_saturated() {
            if last.is_some_and(|at| at.elapsed() < YIELD_MAX) {
                return Ok(false);
            }
            BATCH
        } else {
            CATCH_UP_SPAN
        };
        *last = Some(Instant::now());
        self.db
            .write_blocking(move |tx| outbox::catch_up(tx, outbox::Webhooks::Active, Some(span)))
    }

    fn busy(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts a sender for each webhook with deliveries due and none in flight; returns
    /// the earliest time a waiting webhook may be retried.
    fn dispatch(&self, now: i64) -> AppResult<Option<i64>> {
        let busy: HashSet<String> = self.busy().clone();
        let (groups, next) = self.db.read_sync(|conn| {
            let mut next: Option<i64> = None;
            let mut targets = Vec::new();
            let mut stmt = conn.prepare_cached(
                "SELECT w.id, w.url, unseal(w.secret, 'webhooks.secret'), w.retry_at_ms FROM webhooks w
                 WHERE w.active = 1 AND EXISTS (SELECT 1 FROM webhook_deliveries d
                     WHERE d.webhook_id = w.id AND d.status = 'pending')
                 ORDER BY w.seq",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    Target {
                        id: r.get(0)?,
                        url: r.get(1)?,
                        secret: r.get(2)?,
                    },
                    r.get::<_, Option<i64>>(3)?,
                ))
            })?;
            for row in rows {
                let (target, retry_at) = row?;
                if busy.contains(&target.id) {
                    continue;
                }
                if let Some(at) = retry_at.filter(|at| *at > now) {
                    next = Some(next.map_or(at, |n: i64| n.min(at)));
                    continue;
                }
                targets.push(target);
            }
            let mut groups = Vec::new();
            for target in targets
                .into_iter()
                .take(PARALLEL.saturating_sub(busy.len()))
            {
                let due = due_of(conn, self.movements, &target.id, now)?;
                if !due.is_empty() {
                    groups.push((target, due));
                }
            }
            Ok((groups, next))
        })?;
        for (target, due) in groups {
            self.busy().insert(target.id.clone());
            let worker = self.clone();
            let spawned = std::thread::Builder::new()
                .name("stockbook-webhook-send".into())
                .spawn(move || {
                    let id = target.id.clone();
                    if let Err(e) = worker.send_all(&target, due) {
                        eprintln!("stockbook: webhook worker: recording deliveries: {e}");
                    }
                    worker.busy().remove(&id);
                });
            if let Err(e) = spawned {
                eprintln!("stockbook: webhook worker: cannot start a sender: {e}");
            }
        }
        Ok(next)
    }

    /// Sends `due`, and while each batch goes through whole and was full, the webhook's
    /// next one at once: a receiver that keeps up is not held to the poll interval.
    fn send_all(&self, target: &Target, mut due: Vec<Due>) -> AppResult<()> {
        loop {
            self.yield_to_requests();
            let full = i64::try_from(due.len()).unwrap_or(i64::MAX) >= BATCH;
            if !self.send(target, due)? || !full || self.stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            due = self
                .db
                .read_sync(|conn| due_of(conn, self.movements, &target.id, now_ms()))?;
            if due.is_empty() {
                return Ok(());
            }
        }
    }

    /// Waits while the writer is saturated by requests, for at most [`YIELD_MAX`]: each
    /// delivery's outcome is a write, and the receiver and the sender take the cores the
    /// requests need. Under a sustained load a batch still goes out every [`YIELD_MAX`],
    /// and the backlog is sent at full speed once the load drops
    /// (docs/architecture.md#background-work-yields-to-requests).
    fn yield_to_requests(&self) {
        let started = std::time::Instant::now();
        while self.db.writer_saturated()
            && started.elapsed() < YIELD_MAX
            && !self.stop.load(Ordering::SeqCst)
        {
            std::thread::sleep(YIELD_STEP);
        }
    }

    /// Sends `due` in order, stopping at the first failure, then records the outcomes;
    /// `true` when every one was delivered.
    fn send(&self, target: &Target, due: Vec<Due>) -> AppResult<bool> {
        let mut outcomes = Vec::with_capacity(due.len());
        for d in due {
            let (status_code, error) = self.attempt(target, &d.body);
            let failed = error.is_some();
            outcomes.push(Outcome {
                seq: d.seq,
                keep_body: (failed && d.rendered).then_some(d.body),
                at_ms: now_ms(),
                status_code,
                error,
                round_start_ms: d.round_start_ms,
                round_attempts: d.round_attempts,
            });
            if failed || self.stop.load(Ordering::SeqCst) {
                break;
            }
        }
        let all_delivered = outcomes.iter().all(|o| o.error.is_none());
        self.record(&target.id, outcomes)?;
        Ok(all_delivered)
    }

    /// One POST: the status code, and the error unless it was a 2xx.
    fn attempt(&self, target: &Target, body: &str) -> (Option<u16>, Option<String>) {
        let t = now_ms() / 1000;
        let result = self
            .agent
            .post(&target.url)
            .header("Content-Type", "application/json")
            .header(
                "Stockbook-Signature",
                &signature::header(&target.secret, t, body),
            )
            .send(body);
        match result {
            Ok(mut res) => {
                let code = res.status().as_u16();
                let text = res
                    .body_mut()
                    .with_config()
                    .limit(64 * 1024)
                    .read_to_string()
                    .unwrap_or_default();
                if res.status().is_success() {
                    (Some(code), None)
                } else {
                    let shown: String = text.chars().take(ERROR_CHARS).collect();
                    let msg = if shown.trim().is_empty() {
                        format!("the receiver answered {code}")
                    } else {
                        format!("the receiver answered {code}: {}", shown.trim())
                    };
                    (Some(code), Some(msg))
                }
            }
            Err(e) => (None, Some(describe(&e, self.schedule.timeout_ms))),
        }
    }

    /// Records the outcomes of one webhook's sends (docs/webhooks.md#retries).
    /// They go through the writer thread like any request's write, so they share its
    /// commits and never checkpoint in front of it (docs/architecture.md#the-write-path).
    fn record(&self, webhook_id: &str, outcomes: Vec<Outcome>) -> AppResult<()> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let schedule = self.schedule;
        let webhook_id = webhook_id.to_owned();
        self.db.write_blocking(move |tx| {
            let mut retry_at: Option<i64> = None;
            for o in &outcomes {
                let at = o.at_ms / 1000;
                let at = rfc3339(
                    time::OffsetDateTime::from_unix_timestamp(at)
                        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH),
                );
                let n = o.round_attempts + 1;
                let (status, next) = match &o.error {
                    None => ("delivered", o.at_ms),
                    Some(_) if o.at_ms - o.round_start_ms >= window(schedule) => {
                        ("failed", o.at_ms)
                    }
                    Some(_) => {
                        let next = o.at_ms + backoff(schedule, n, &mut rand::thread_rng());
                        retry_at = Some(next);
                        ("pending", next)
                    }
                };
                tx.prepare_cached(
                    "UPDATE webhook_deliveries SET status = ?1, attempts = attempts + 1,
                         round_attempts = ?2, next_attempt_ms = ?3, last_attempt_at = ?4,
                         last_status_code = ?5, last_error = ?6, body = COALESCE(?8, body)
                     WHERE seq = ?7 AND status = 'pending'",
                )?
                .execute(params![
                    status,
                    n,
                    next,
                    at,
                    o.status_code,
                    o.error,
                    o.seq,
                    o.keep_body
                ])?;
            }
            tx.prepare_cached("UPDATE webhooks SET retry_at_ms = ?1 WHERE id = ?2")?
                .execute(params![retry_at, webhook_id])?;
            Ok(())
        })
    }

    /// Drops delivered and failed deliveries older than [`KEEP_DAYS`]. Rows are written
    /// in `created_at` order, so it walks them by `seq` from the oldest, a slice at a
    /// time, and stops at the first one inside the period.
    fn prune(&self) -> AppResult<()> {
        let cutoff = rfc3339(time::OffsetDateTime::now_utc() - time::Duration::days(KEEP_DAYS));
        let mut after = 0_i64;
        while !self.stop.load(Ordering::SeqCst) {
            let slice: Vec<(i64, String)> = self.db.read_sync(|c| {
                let mut stmt = c.prepare_cached(
                    "SELECT seq, created_at FROM webhook_deliveries WHERE seq > ?1
                     ORDER BY seq LIMIT 5000",
                )?;
                let rows = stmt
                    .query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })?;
            let old = slice.iter().take_while(|(_, at)| *at < cutoff).count();
            let Some(&(last, _)) = slice[..old].last() else {
                return Ok(());
            };
            self.db.write_sync(|tx| {
                tx.execute(
                    "DELETE FROM webhook_deliveries
                     WHERE seq > ?1 AND seq <= ?2 AND status <> 'pending'",
                    [after, last],
                )?;
                Ok(())
            })?;
            if old < slice.len() {
                return Ok(());
            }
            after = last;
        }
        Ok(())
    }
}

/// A webhook's pending deliveries due at `now`, in event order, at most [`BATCH`]; a
/// `stock_movement.created` whose row keeps no body yet is rendered from its movement.
fn due_of(
    conn: &rusqlite::Connection,
    movements: MovementData,
    webhook_id: &str,
    now: i64,
) -> AppResult<Vec<Due>> {
    due_after(conn, movements, webhook_id, now, 0)
}

/// [`due_of`], from the delivery after `after_seq`.
fn due_after(
    conn: &rusqlite::Connection,
    movements: MovementData,
    webhook_id: &str,
    now: i64,
    after_seq: i64,
) -> AppResult<Vec<Due>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, body, round_start_ms, round_attempts, event_id, type, created_at,
             movement_seq
         FROM webhook_deliveries
         WHERE webhook_id = ?1 AND status = 'pending' AND next_attempt_ms <= ?2
           AND seq > ?4
         ORDER BY seq LIMIT ?3",
    )?;
    let mut rows = stmt.query(params![webhook_id, now, BATCH, after_seq])?;
    let mut due = Vec::new();
    while let Some(r) = rows.next()? {
        let mut body: String = r.get(1)?;
        let movement: Option<i64> = r.get(7)?;
        let rendered = body.is_empty() && movement.is_some();
        if let (true, Some(seq)) = (rendered, movement) {
            let (event, kind, created_at): (String, String, String) =
                (r.get(4)?, r.get(5)?, r.get(6)?);
            let (entity, data) = movements(conn, seq)?;
            body = outbox::body(&event, &kind, &created_at, entity.as_deref(), &data)?;
        }
        due.push(Due {
            seq: r.get(0)?,
            body,
            rendered,
            round_start_ms: r.get(2)?,
            round_attempts: r.get(3)?,
        });
    }
    Ok(due)
}

/// The body every pending delivery of `webhook_id` would be sent with now, in event
/// order (what the worker sends, for checks of the outbox's content).
pub fn pending_bodies(
    conn: &rusqlite::Connection,
    movements: MovementData,
    webhook_id: &str,
) -> AppResult<Vec<String>> {
    let mut out = Vec::new();
    let mut after = 0;
    loop {
        let batch = due_after(conn, movements, webhook_id, i64::MAX, after)?;
        let Some(last) = batch.last() else {
            return Ok(out);
        };
        after = last.seq;
        out.extend(batch.into_iter().map(|d| d.body));
    }
}

fn window(s: WebhookSchedule) -> i64 {
    i64::try_from(s.window_ms).unwrap_or(i64::MAX)
}

/// The wait before retry `n` (1 for the first): `first_ms × 2^(n-1)`, at most `max_ms`,
/// less a random part of up to half of it (docs/webhooks.md#retries).
pub fn backoff(s: WebhookSchedule, n: i64, rng: &mut impl Rng) -> i64 {
    let exp = u32::try_from((n - 1).clamp(0, 40)).unwrap_or(40);
    let full = s.first_ms.saturating_mul(1u64 << exp).min(s.max_ms);
    let full = i64::try_from(full).unwrap_or(i64::MAX);
    full - rng.gen_range(0..=full / 2)
}

/// A transport failure as the delivery log shows it.
fn describe(e: &ureq::Error, timeout_ms: u64) -> String {
    if let Some(refusal) = Refusal::from_ureq(e) {
        return format!("refused: {refusal}");
    }
    match e {
        ureq::Error::Timeout(_) => {
            format!("no answer within {} ms", timeout_ms)
        }
        other => {
            let s = other.to_string();
            s.chars().take(ERROR_CHARS).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Synchronous;

    #[test]
    fn pruning_drops_finished_deliveries_past_the_period_and_keeps_pending_and_recent_ones() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        let recent = rfc3339(time::OffsetDateTime::now_utc());
        db.write_sync(|tx| {
            tx.execute_batch(
                "INSERT INTO users (id, email, password_hash, created_at)
                 VALUES ('u1', 'a@example.com', 'x', '2020-01-01T00:00:00Z');
                 INSERT INTO webhooks (id, owner_id, url, events, secret, created_at)
                 VALUES ('w1', 'u1', 'https://example.com', '[\"*\"]', 's', '2020-01-01T00:00:00Z');",
            )?;
            for (event, status, at) in [
                ("old-delivered", "delivered", "2020-01-01T00:00:00Z"),
                ("old-pending", "pending", "2020-01-02T00:00:00Z"),
                ("old-failed", "failed", "2020-01-03T00:00:00Z"),
                ("new-delivered", "delivered", recent.as_str()),
                ("new-failed", "failed", recent.as_str()),
            ] {
                tx.execute(
                    "INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, status,
                         created_at, round_start_ms, next_attempt_ms)
                     VALUES ('w1', ?1, 'ping', '{}', ?2, ?3, 0, 0)",
                    [event, status, at],
                )?;
            }
            Ok(())
        })
        .unwrap();
        let worker = Worker {
            db: db.clone(),
            // Pruning renders no body.
            movements: |_, seq| {
                Err(crate::error::AppError::internal(format!(
                    "no movement {seq} here"
                )))
            },
            agent: ureq::Agent::new_with_defaults(),
            schedule: WebhookSchedule::default(),
            stop: Arc::new(AtomicBool::new(false)),
            busy: Arc::new(Mutex::new(HashSet::new())),
        };
        worker.prune().unwrap();
        let left: Vec<String> = db
            .read_sync(|c| {
                let mut s = c.prepare("SELECT event_id FROM webhook_deliveries ORDER BY seq")?;
                let rows = s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
                Ok(rows)
            })
            .unwrap();
        assert_eq!(left, ["old-pending", "new-delivered", "new-failed"]);
    }

    #[test]
    fn retries_double_up_to_the_cap_with_at_most_half_taken_off_at_random() {
        let s = WebhookSchedule::default();
        let mut rng = rand::thread_rng();
        for _ in 0..200 {
            let first = backoff(s, 1, &mut rng);
            assert!((15_000..=30_000).contains(&first), "{first}");
            let third = backoff(s, 3, &mut rng);
            assert!((60_000..=120_000).contains(&third), "{third}");
            let late = backoff(s, 30, &mut rng);
            assert!((1_800_000..=3_600_000).contains(&late), "{late}");
        }
    }
}
