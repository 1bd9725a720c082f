-- Import connections (§4.10, DECISIONS §11): the credentials of an API platform, or the
-- OAuth grant of FreeAgent, kept for the pulls of `POST /api/import/migrate`. One per
-- entity and platform; a second connection replaces the first's credentials.
--
-- `credentials` is the JSON object the pulls need (only the fields of the platform;
-- for FreeAgent `{access_token, refresh_token, expires_at}`). It is secret: no endpoint
-- ever returns it. It is stored as the pulls need it (a server-side integration must be
-- able to present it), so the database file is as sensitive as the platform accounts.
-- A connection goes with its entity.

CREATE TABLE import_connections (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    owner_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    entity_id    TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    platform     TEXT NOT NULL,
    credentials  TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'connected'
                 CHECK (status IN ('connected', 'reconnect_required')),
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    last_used_at TEXT,
    UNIQUE (entity_id, platform)
);
CREATE INDEX import_connections_owner ON import_connections(owner_id, seq);

-- Pending OAuth authorisations: the `state` sent to the provider (only its SHA-256
-- digest is kept), bound to the user, the entity and the exact redirect URI, until
-- `expires_at` (Unix seconds). Used once.
CREATE TABLE import_oauth_states (
    state_hash   TEXT PRIMARY KEY,
    owner_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    entity_id    TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    platform     TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX import_oauth_states_expiry ON import_oauth_states(expires_at);
