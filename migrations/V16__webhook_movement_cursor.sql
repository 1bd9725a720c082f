-- A stock_movement.created delivery is no longer written on the movement's write path
-- (docs/webhooks.md#events): the ledger row, written in the same transaction and never
-- changed or deleted, is the event's durable record. Each webhook keeps how far into the
-- ledger its deliveries have been made (`movement_cursor`, a stock_movements.seq); the
-- delivery worker writes the deliveries of the movements after it, in the order they were
-- written, and moves it on. Any other event of a webhook first brings it up to the
-- ledger's end, so its deliveries stay in event order.
--
-- Until this version every movement's delivery was written with the movement, so an
-- existing webhook has them all: it starts at the ledger's end.
ALTER TABLE webhooks ADD COLUMN movement_cursor INTEGER NOT NULL DEFAULT 0;
UPDATE webhooks SET movement_cursor = (SELECT COALESCE(MAX(seq), 0) FROM stock_movements);
