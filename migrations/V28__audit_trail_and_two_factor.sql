-- The audit trail and two-factor sign-in (docs/audit.md, docs/auth.md#two-factor-sign-in).
--
-- `audit_log` is append-only: UPDATE and DELETE are refused by triggers, as on the stock
-- ledger. Each entry's `hash` is the SHA-256 of the one before's hash and its own content
-- (`audit_hash`, a function every connection of the server registers,
-- src/db/audit.rs), so `stockbook check` names the first entry edited, inserted or
-- removed behind the server's back. Entries are written through the view
-- `audit_append`, whose one trigger numbers, dates and chains them: the record tables'
-- TEMP triggers (made on each of the server's connections from the list in
-- src/db/audit.rs) and the explicit entries (sign-ins, role changes) share it.
CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    user_id     TEXT,
    action      TEXT NOT NULL,
    record_type TEXT NOT NULL,
    record_id   TEXT,
    entity_id   TEXT,
    owner_id    TEXT,
    changes     TEXT NOT NULL,
    hash        TEXT NOT NULL
);
-- The reads of GET /api/audit: newest first within the caller's view, narrowed by one
-- filter at most as often as not.
CREATE INDEX audit_log_owner ON audit_log(owner_id, id);
CREATE INDEX audit_log_entity ON audit_log(entity_id, id);
CREATE INDEX audit_log_record ON audit_log(record_id, id);
CREATE INDEX audit_log_user ON audit_log(user_id, id);
CREATE INDEX audit_log_owner_at ON audit_log(owner_id, at);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;

CREATE VIEW audit_append AS
SELECT user_id, action, record_type, record_id, entity_id, owner_id, changes FROM audit_log;

CREATE TRIGGER audit_append_insert INSTEAD OF INSERT ON audit_append
BEGIN
    INSERT INTO audit_log (id, at, user_id, action, record_type, record_id, entity_id,
                           owner_id, changes, hash)
    SELECT p.id, p.at, NEW.user_id, NEW.action, NEW.record_type, NEW.record_id,
           NEW.entity_id, NEW.owner_id, NEW.changes,
           audit_hash(p.prev, p.id, p.at, NEW.user_id, NEW.action, NEW.record_type,
                      NEW.record_id, NEW.entity_id, NEW.owner_id, NEW.changes)
    FROM (SELECT coalesce(l.id, 0) + 1 AS id, l.hash AS prev,
                 strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS at
          FROM (SELECT 1) LEFT JOIN
               (SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1) l) p;
END;

-- Two-factor sign-in: the TOTP secret sealed under the database's key file
-- (`users.totp_secret`), set up but not yet confirmed until `totp_enabled_at`; the
-- last time step used, so a code is accepted once; recovery codes, stored hashed, each
-- used once.
ALTER TABLE users ADD COLUMN totp_secret TEXT;
ALTER TABLE users ADD COLUMN totp_enabled_at TEXT;
ALTER TABLE users ADD COLUMN totp_last_step INTEGER;
CREATE TABLE recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at   TEXT,
    PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

-- How a session was opened: with a second factor (`totp` or `recovery_code`), when, and
-- the factor's reference (for HMRC's Gov-Client-Multi-Factor header).
ALTER TABLE sessions ADD COLUMN mfa_method TEXT;
ALTER TABLE sessions ADD COLUMN mfa_at TEXT;
ALTER TABLE sessions ADD COLUMN mfa_reference TEXT;

-- An entity whose members must sign in with a second factor.
ALTER TABLE entities ADD COLUMN require_2fa INTEGER NOT NULL DEFAULT 0
    CHECK (require_2fa IN (0, 1));
