-- The outbox row of an event is written on the request's write path, so it is kept as
-- light as it can be (docs/webhooks.md#events):
--
-- - A stock_movement.created delivery names its movement (`movement_seq`) instead of
--   carrying a body: the ledger row is written in the same transaction and never
--   changes. The worker renders the body from the movement when it first sends it, and
--   keeps that body in `body` if the delivery must be retried, so every retry signs the
--   same bytes. `body` is '' until then.
-- - No AUTOINCREMENT: a plain rowid is the next number without a sqlite_sequence write
--   per row. A number freed by deleting the newest rows may be used again; rows stay in
--   the order they were written, which is all `seq` is for.
-- - Events are looked up by id (redelivery) through an index of the deliveries that
--   have been attempted: the worker puts a row in it when it records the outcome, off
--   the request path. Pending deliveries are found through the pending index.
CREATE TABLE webhook_deliveries_v15 (
    seq              INTEGER PRIMARY KEY,
    webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id         TEXT NOT NULL,
    type             TEXT NOT NULL,
    body             TEXT NOT NULL,
    movement_seq     INTEGER,
    status           TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    round_start_ms   INTEGER NOT NULL,
    round_attempts   INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms  INTEGER NOT NULL,
    last_attempt_at  TEXT,
    last_status_code INTEGER,
    last_error       TEXT
);
INSERT INTO webhook_deliveries_v15 (seq, webhook_id, event_id, type, body, status, attempts,
    created_at, round_start_ms, round_attempts, next_attempt_ms, last_attempt_at,
    last_status_code, last_error)
SELECT seq, webhook_id, event_id, type, body, status, attempts, created_at, round_start_ms,
    round_attempts, next_attempt_ms, last_attempt_at, last_status_code, last_error
FROM webhook_deliveries;
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_v15 RENAME TO webhook_deliveries;
-- The worker reads each webhook's pending deliveries in event order.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, seq)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_attempted_event ON webhook_deliveries(event_id)
    WHERE status <> 'pending';
