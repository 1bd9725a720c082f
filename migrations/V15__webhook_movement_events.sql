-- A stock_movement.created delivery names its movement instead of carrying a body: the
-- ledger row is written in the same transaction and never changes, so the outbox row
-- stays small (no JSON to build or store on the write path). The worker renders the
-- body from the movement when it first sends it, and keeps that body in `body` if the
-- delivery must be retried, so every retry signs the same bytes
-- (docs/webhooks.md#events). `body` is '' until then.
ALTER TABLE webhook_deliveries ADD COLUMN movement_seq INTEGER;
