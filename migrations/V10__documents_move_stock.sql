-- Invoices and bills move stock (DECISIONS §13), and stock as at a date (§14).

-- An entity's default location, taken by new documents that name none.
ALTER TABLE entities ADD COLUMN default_location_id TEXT REFERENCES warehouse_locations(id);

-- The location a document takes stock from (invoices) or brings it to (bills).
-- `moves_stock` is 0 for imported documents (history: they never move stock, §11); the
-- session and public APIs create documents with 1. Documents stored before this
-- migration move stock unless they were imported (imports always set `provider`); none
-- has a location yet, so none moves anything until one is given.
ALTER TABLE invoices ADD COLUMN location_id TEXT REFERENCES warehouse_locations(id);
ALTER TABLE invoices ADD COLUMN moves_stock INTEGER NOT NULL DEFAULT 0;
UPDATE invoices SET moves_stock = 1 WHERE provider IS NULL;
ALTER TABLE bills ADD COLUMN location_id TEXT REFERENCES warehouse_locations(id);
ALTER TABLE bills ADD COLUMN moves_stock INTEGER NOT NULL DEFAULT 0;
UPDATE bills SET moves_stock = 1 WHERE provider IS NULL;

-- The document (invoice or bill) a movement was written for. No foreign key: it names a
-- row of either table, and a deleted draft or void document keeps its (zero-sum) history.
ALTER TABLE stock_movements ADD COLUMN document_id TEXT;
CREATE INDEX stock_movements_document
    ON stock_movements(document_id, product_id, location_id, qty, unit_cost)
    WHERE document_id IS NOT NULL;

-- Stock as at a date reads Σ qty per (product, location) over the movements dated up to
-- that day: this index covers it, in product order, without touching the table rows.
CREATE INDEX stock_movements_as_of ON stock_movements(product_id, location_id, date, qty);

-- Every cost price a product has had, one row per product and UTC day (the last change
-- of the day wins). Written by triggers, so that no path that sets `cost_price` (a
-- purchase through the ledger, a product create or PUT, an import) can miss it; the day
-- is that of `updated_at`, which every such write sets from the service clock.
CREATE TABLE product_cost_history (
    product_id TEXT NOT NULL REFERENCES products(id) ON DELETE CASCADE,
    date       TEXT NOT NULL,
    cost_price INTEGER NOT NULL,
    PRIMARY KEY (product_id, date)
) WITHOUT ROWID;

-- What is known of the past: today's cost price, from the day each product was created.
INSERT INTO product_cost_history (product_id, date, cost_price)
    SELECT id, substr(created_at, 1, 10), cost_price FROM products;

CREATE TRIGGER products_cost_history_insert AFTER INSERT ON products
BEGIN
    INSERT OR REPLACE INTO product_cost_history (product_id, date, cost_price)
    VALUES (NEW.id, substr(NEW.updated_at, 1, 10), NEW.cost_price);
END;

CREATE TRIGGER products_cost_history_update AFTER UPDATE OF cost_price ON products
WHEN NEW.cost_price IS NOT OLD.cost_price
BEGIN
    INSERT OR REPLACE INTO product_cost_history (product_id, date, cost_price)
    VALUES (NEW.id, substr(NEW.updated_at, 1, 10), NEW.cost_price);
END;
