-- Accounts, sessions, the login throttle, entities and their expense categories.
-- Every record table has `seq` (creation order, never reused), a UUID `id`, `owner_id`
-- (the user who owns it) and, where it belongs to a business, `entity_id`.

CREATE TABLE users (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name          TEXT,
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL
);

CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   TEXT NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE login_failures (
    email TEXT NOT NULL COLLATE NOCASE,
    at    INTEGER NOT NULL
);
CREATE INDEX login_failures_email ON login_failures(email, at);

CREATE TABLE entities (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    owner_id   TEXT NOT NULL REFERENCES users(id),
    name       TEXT NOT NULL,
    vat_number TEXT,
    address    TEXT,
    currency   TEXT NOT NULL DEFAULT 'GBP',
    created_at TEXT NOT NULL
);
CREATE INDEX entities_owner ON entities(owner_id, name COLLATE NOCASE);

CREATE TABLE expense_categories (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    owner_id   TEXT NOT NULL REFERENCES users(id),
    entity_id  TEXT REFERENCES entities(id),
    name       TEXT NOT NULL,
    code       TEXT,
    standard   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE INDEX expense_categories_owner ON expense_categories(owner_id, entity_id);
