-- Every record the public API lists carries `updated_at`, and every public list takes
-- `updated_since` (docs/public-api.md#incremental-sync). Locations, expense categories
-- and stock rows had no such column: they get one, set to when they were created (the
-- last change known; a stock row's quantity may have changed since, so a client that
-- syncs with a time before this upgrade reads every row again, which is the safe side).
-- Payments and stock movements are never changed, so their `created_at` serves.
ALTER TABLE warehouse_locations ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
UPDATE warehouse_locations SET updated_at = created_at;
ALTER TABLE expense_categories ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
UPDATE expense_categories SET updated_at = created_at;
ALTER TABLE warehouse_stock ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
UPDATE warehouse_stock SET updated_at = created_at;
