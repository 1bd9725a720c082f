-- Look-alike identifiers (docs/inventory.md#look-alike-identifiers): SKUs and emails are
-- compared by a key computed in Rust (NFKC, case folding, invisible characters removed).
-- Existing rows get theirs at start, after the migrations (`db::ident`): SQLite cannot
-- compute it. A NULL key is a row not keyed yet, or one whose key an older row holds.
ALTER TABLE products ADD COLUMN sku_key TEXT;
CREATE UNIQUE INDEX products_sku_key ON products(owner_id, COALESCE(entity_id, ''), sku_key);
ALTER TABLE users ADD COLUMN email_key TEXT;
CREATE UNIQUE INDEX users_email_key ON users(email_key);

-- Idempotency keys (docs/idempotency.md): one row per caller and key, written in the
-- transaction of the request's first write; the answer is added once it is made.
CREATE TABLE idempotency_keys (
    caller       TEXT NOT NULL,      -- 'user:<id>' or 'api_key:<id>'
    key          TEXT NOT NULL,      -- the Idempotency-Key header as sent
    request_hash TEXT NOT NULL,      -- SHA-256 of the method, path, query and body
    created_at   INTEGER NOT NULL,   -- unix seconds; the key lasts 24 hours
    status       INTEGER,            -- the answer, NULL until it is recorded
    content_type TEXT,
    location     TEXT,
    body         BLOB,
    PRIMARY KEY (caller, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
