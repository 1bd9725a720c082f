-- Filing with HMRC (docs/hmrc.md): an entity's connection to HMRC's
-- Making Tax Digital VAT API, and the authorisations being started.
--
-- `tokens` holds the access and refresh tokens as JSON, sealed with the key kept beside
-- the database file (src/db/secrets.rs), never in clear. `access_expires_at` (Unix
-- seconds) says when the access token must be refreshed; it is no secret.
-- `refresh_expires_at` is 18 months after the user granted authority: HMRC's refresh
-- tokens stop working then and the user must connect again.
CREATE TABLE hmrc_connections (
    entity_id          TEXT PRIMARY KEY REFERENCES entities(id),
    owner_id           TEXT NOT NULL REFERENCES users(id),
    tokens             TEXT NOT NULL,
    access_expires_at  INTEGER NOT NULL,
    connected_at       TEXT NOT NULL,
    refresh_expires_at TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);

-- A started authorisation: the SHA-256 digest of its single-use `state`, who started it
-- for which entity, the redirect URI sent, the PKCE code verifier (sealed) and when it
-- expires (Unix seconds).
CREATE TABLE hmrc_oauth_states (
    state_hash    TEXT PRIMARY KEY,
    owner_id      TEXT NOT NULL REFERENCES users(id),
    entity_id     TEXT NOT NULL REFERENCES entities(id),
    redirect_uri  TEXT NOT NULL,
    code_verifier TEXT NOT NULL,
    expires_at    INTEGER NOT NULL
);

-- At most one return per HMRC period key and entity, in flight or filed.
CREATE UNIQUE INDEX vat_returns_entity_period_key ON vat_returns(entity_id, period_key)
    WHERE period_key IS NOT NULL;
