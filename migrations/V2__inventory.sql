-- Inventory: products, warehouse locations, stock rows, the stock-movement ledger,
-- transfer orders and stock takes.
-- Quantities are INTEGER thousandths, prices INTEGER ten-thousandths, percentages
-- INTEGER hundredths (see src/db/decimal.rs): SQLite never holds a binary float.

CREATE TABLE products (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT NOT NULL UNIQUE,
    owner_id            TEXT NOT NULL REFERENCES users(id),
    entity_id           TEXT REFERENCES entities(id),
    name                TEXT NOT NULL,
    sku                 TEXT NOT NULL,
    description         TEXT,
    category            TEXT NOT NULL DEFAULT '',
    unit_price          INTEGER NOT NULL DEFAULT 0 CHECK (unit_price >= 0),
    cost_price          INTEGER NOT NULL DEFAULT 0 CHECK (cost_price >= 0),
    vat_rate            INTEGER NOT NULL DEFAULT 2000 CHECK (vat_rate BETWEEN 0 AND 10000),
    stock_qty           INTEGER NOT NULL DEFAULT 0,
    low_stock_threshold INTEGER NOT NULL DEFAULT 5000 CHECK (low_stock_threshold >= 0),
    unit                TEXT NOT NULL DEFAULT 'pcs',
    notes               TEXT,
    barcode             TEXT,
    active              INTEGER NOT NULL DEFAULT 1,
    provider            TEXT,
    provider_ref        TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
-- SKUs are unique per entity (per owner without entity), ignoring case.
CREATE UNIQUE INDEX products_sku ON products(owner_id, COALESCE(entity_id, ''), sku COLLATE NOCASE);
CREATE INDEX products_owner_name ON products(owner_id, entity_id, name COLLATE NOCASE);
CREATE INDEX products_barcode ON products(owner_id, barcode);

CREATE TABLE warehouse_locations (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    owner_id   TEXT NOT NULL REFERENCES users(id),
    entity_id  TEXT NOT NULL REFERENCES entities(id),
    name       TEXT NOT NULL,
    address    TEXT,
    status     TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
    created_at TEXT NOT NULL
);
CREATE INDEX warehouse_locations_owner ON warehouse_locations(owner_id, entity_id, name COLLATE NOCASE);

CREATE TABLE warehouse_stock (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    id                TEXT NOT NULL UNIQUE,
    owner_id          TEXT NOT NULL REFERENCES users(id),
    entity_id         TEXT REFERENCES entities(id),
    product_id        TEXT NOT NULL REFERENCES products(id),
    location_id       TEXT NOT NULL REFERENCES warehouse_locations(id),
    quantity          INTEGER NOT NULL DEFAULT 0,
    reorder_point     INTEGER NOT NULL DEFAULT 0 CHECK (reorder_point >= 0),
    reserved_quantity INTEGER NOT NULL DEFAULT 0 CHECK (reserved_quantity >= 0),
    created_at        TEXT NOT NULL,
    UNIQUE (product_id, location_id)
);
CREATE INDEX warehouse_stock_location ON warehouse_stock(location_id);

CREATE TABLE stock_movements (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    owner_id    TEXT NOT NULL REFERENCES users(id),
    entity_id   TEXT REFERENCES entities(id),
    product_id  TEXT NOT NULL REFERENCES products(id),
    location_id TEXT REFERENCES warehouse_locations(id),
    qty         INTEGER NOT NULL CHECK (qty <> 0),
    type        TEXT NOT NULL CHECK (type IN ('purchase', 'sale', 'adjustment', 'return',
                    'transfer_in', 'transfer_out', 'stock_take', 'transfer_cancelled')),
    reference   TEXT,
    notes       TEXT,
    date        TEXT NOT NULL,
    unit_cost   INTEGER,
    created_at  TEXT NOT NULL
);
CREATE INDEX stock_movements_product ON stock_movements(product_id, location_id);
CREATE INDEX stock_movements_owner_date ON stock_movements(owner_id, date DESC, seq DESC);
CREATE INDEX stock_movements_location ON stock_movements(location_id);

-- The ledger is immutable.
CREATE TRIGGER stock_movements_no_update BEFORE UPDATE ON stock_movements
BEGIN SELECT RAISE(ABORT, 'stock movements are immutable'); END;
CREATE TRIGGER stock_movements_no_delete BEFORE DELETE ON stock_movements
BEGIN SELECT RAISE(ABORT, 'stock movements are immutable'); END;

CREATE TABLE transfer_orders (
    seq                     INTEGER PRIMARY KEY AUTOINCREMENT,
    id                      TEXT NOT NULL UNIQUE,
    owner_id                TEXT NOT NULL REFERENCES users(id),
    entity_id               TEXT NOT NULL REFERENCES entities(id),
    number_seq              INTEGER NOT NULL,
    number                  TEXT NOT NULL,
    source_location_id      TEXT NOT NULL REFERENCES warehouse_locations(id),
    destination_location_id TEXT NOT NULL REFERENCES warehouse_locations(id),
    status                  TEXT NOT NULL DEFAULT 'draft'
                            CHECK (status IN ('draft', 'in_transit', 'completed', 'cancelled')),
    notes                   TEXT,
    date_created            TEXT NOT NULL,
    date_completed          TEXT,
    UNIQUE (entity_id, number_seq)
);

CREATE TABLE transfer_order_lines (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    id                TEXT NOT NULL UNIQUE,
    order_id          TEXT NOT NULL REFERENCES transfer_orders(id) ON DELETE CASCADE,
    product_id        TEXT NOT NULL REFERENCES products(id),
    quantity          INTEGER NOT NULL CHECK (quantity > 0),
    received_quantity INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX transfer_order_lines_order ON transfer_order_lines(order_id);
CREATE INDEX transfer_order_lines_product ON transfer_order_lines(product_id);

CREATE TABLE stock_takes (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    owner_id       TEXT NOT NULL REFERENCES users(id),
    entity_id      TEXT NOT NULL REFERENCES entities(id),
    number_seq     INTEGER NOT NULL,
    number         TEXT NOT NULL,
    location_id    TEXT NOT NULL REFERENCES warehouse_locations(id),
    status         TEXT NOT NULL DEFAULT 'draft'
                   CHECK (status IN ('draft', 'in_progress', 'completed', 'cancelled')),
    notes          TEXT,
    date_created   TEXT NOT NULL,
    date_completed TEXT,
    UNIQUE (entity_id, number_seq)
);

CREATE TABLE stock_take_lines (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    stock_take_id    TEXT NOT NULL REFERENCES stock_takes(id) ON DELETE CASCADE,
    product_id       TEXT NOT NULL REFERENCES products(id),
    system_quantity  INTEGER NOT NULL,
    counted_quantity INTEGER
);
CREATE INDEX stock_take_lines_take ON stock_take_lines(stock_take_id);
CREATE INDEX stock_take_lines_product ON stock_take_lines(product_id);
