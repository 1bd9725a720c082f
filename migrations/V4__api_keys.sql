-- API keys for the public API (§4.9, DECISIONS §10). The key itself is never stored:
-- only its SHA-256 digest (for the lookup on every request) and its first 12 characters
-- (to tell keys apart in the list). A key scoped to an entity goes with the entity.

CREATE TABLE api_keys (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    owner_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    entity_id    TEXT REFERENCES entities(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT
);
CREATE INDEX api_keys_owner ON api_keys(owner_id, seq);
