-- Printing and sending invoices (docs/accounting.md#printing-and-sending-invoices).
-- The entity's logo, shown on its invoices and credit notes: a PNG or JPEG checked on
-- upload. It goes with its entity.
CREATE TABLE entity_logos (
    entity_id    TEXT PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
    content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg')),
    bytes        BLOB NOT NULL,
    updated_at   TEXT NOT NULL
);

-- Each time an invoice or credit note was emailed: when, and to whom.
CREATE TABLE document_sends (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id    TEXT NOT NULL REFERENCES users(id),
    kind        TEXT NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
    document_id TEXT NOT NULL,
    recipient   TEXT NOT NULL,
    sent_at     TEXT NOT NULL
);
CREATE INDEX document_sends_document ON document_sends(document_id, seq);
