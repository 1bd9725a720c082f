-- Webhooks and their outbox (docs/webhooks.md). A webhook subscribes a URL to event
-- types (`events`, a JSON array; `["*"]` is every type), for all of its owner's records
-- or, with `entity_id`, one entity's. Its secret signs each delivery, so it is kept as
-- is (it is shown once, in the create answer, and never listed).
CREATE TABLE webhooks (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    owner_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    entity_id  TEXT REFERENCES entities(id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    active     INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at TEXT NOT NULL,
    -- Set while the receiver is failing: none of this webhook's deliveries is attempted
    -- before this time (Unix ms), so they go out in event order once it answers again.
    retry_at_ms INTEGER
);
CREATE INDEX webhooks_owner ON webhooks(owner_id, active);

-- The outbox: one row per event and subscribed webhook, written in the transaction of
-- the change that caused the event (so a refused change has none, and a committed one
-- keeps it through a crash). `body` is the exact JSON sent (and signed) on every
-- attempt. Times used for scheduling are Unix milliseconds.
CREATE TABLE webhook_deliveries (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id         TEXT NOT NULL,
    type             TEXT NOT NULL,
    body             TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    -- When the current round of attempts began (creation, or a redelivery): retries
    -- stop once an attempt fails this long after it (the retry window).
    round_start_ms   INTEGER NOT NULL,
    round_attempts   INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms  INTEGER NOT NULL,
    last_attempt_at  TEXT,
    last_status_code INTEGER,
    last_error       TEXT
);
-- The worker reads each webhook's pending deliveries in event order.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, seq)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id);
