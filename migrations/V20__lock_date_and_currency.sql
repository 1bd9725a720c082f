-- The lock date and currencies (DECISIONS §18 "The lock date", "Currencies";
-- docs/accounting.md#lock-date, docs/accounting.md#currencies).
--
-- `entities.lock_date`: nothing dated on or before it may be created, changed or deleted;
-- null (every existing entity) locks nothing.
ALTER TABLE entities ADD COLUMN lock_date TEXT;

-- `currency` (ISO 4217) and `exchange_rate` (pounds per one unit of the currency, an
-- INTEGER scaled by 10^6) of invoices, bills and expenses. Every existing row is in
-- pounds at 1.
ALTER TABLE invoices ADD COLUMN currency TEXT NOT NULL DEFAULT 'GBP';
ALTER TABLE invoices ADD COLUMN exchange_rate INTEGER NOT NULL DEFAULT 1000000;
ALTER TABLE bills ADD COLUMN currency TEXT NOT NULL DEFAULT 'GBP';
ALTER TABLE bills ADD COLUMN exchange_rate INTEGER NOT NULL DEFAULT 1000000;
ALTER TABLE expenses ADD COLUMN currency TEXT NOT NULL DEFAULT 'GBP';
ALTER TABLE expenses ADD COLUMN exchange_rate INTEGER NOT NULL DEFAULT 1000000;
