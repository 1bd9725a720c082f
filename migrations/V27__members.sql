-- Members of an entity and their roles (docs/auth.md#members-and-roles). A row with a
-- `user_id` is an active member; a row without one is an invitation, found by the
-- SHA-256 digest of its single-use token until it is accepted or expires. The entity's
-- creator (`entities.owner_id`) is its first owner: a trigger gives every new entity
-- that member, and the backfill below gives one to every entity already here, so a
-- database written by an earlier release keeps working.

CREATE TABLE members (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    id                TEXT NOT NULL UNIQUE,
    entity_id         TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    user_id           TEXT,
    email             TEXT NOT NULL,
    role              TEXT NOT NULL
        CHECK (role IN ('owner', 'manager', 'staff', 'accountant', 'viewer')),
    invite_hash       TEXT UNIQUE,
    invite_expires_at INTEGER,
    invited_by        TEXT,
    invited_at        TEXT NOT NULL,
    joined_at         TEXT
);
CREATE UNIQUE INDEX members_entity_user ON members(entity_id, user_id);
CREATE INDEX members_user ON members(user_id, entity_id, role);

-- Who made a webhook: it stops (inactive) when its maker leaves the entity or loses the
-- role that manages webhooks, as their API keys stop.
ALTER TABLE webhooks ADD COLUMN created_by TEXT;

CREATE TRIGGER entities_owner_member AFTER INSERT ON entities
BEGIN
    INSERT INTO members (id, entity_id, user_id, email, role, invited_at, joined_at)
    SELECT lower(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3)
                 || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12)),
           NEW.id, NEW.owner_id,
           COALESCE((SELECT email FROM users WHERE id = NEW.owner_id), ''),
           'owner', NEW.created_at, NEW.created_at
    FROM (SELECT hex(randomblob(16)) AS h);
END;

INSERT INTO members (id, entity_id, user_id, email, role, invited_at, joined_at)
SELECT lower(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3)
             || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12)),
       id, owner_id, COALESCE((SELECT email FROM users u WHERE u.id = e.owner_id), ''),
       'owner', created_at, created_at
FROM (SELECT hex(randomblob(16)) AS h, * FROM entities) e;
