-- Payments (DECISIONS §18 "Payments", docs/accounting.md#payments): many dated payments per
-- invoice or bill (and, later, per credit note and supplier credit: a refund). A document's
-- `amount_paid` column is kept equal to the sum of its payments by the transaction that
-- records or deletes one, and `stockbook check` compares them.
--
-- `document_id` names a row of the table `document_type` says (no foreign key: the
-- documents live in one table per kind); deleting a document deletes its payments.
-- Money is INTEGER hundredths (src/db/decimal.rs).
CREATE TABLE payments (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    owner_id      TEXT NOT NULL REFERENCES users(id),
    entity_id     TEXT REFERENCES entities(id),
    document_id   TEXT NOT NULL,
    document_type TEXT NOT NULL
        CHECK (document_type IN ('invoice', 'bill', 'credit_note', 'supplier_credit')),
    date          TEXT NOT NULL,
    amount        INTEGER NOT NULL CHECK (amount > 0),
    method        TEXT,
    reference     TEXT,
    created_at    TEXT NOT NULL
);
-- The lists in creation order (public API), per owner and per entity.
CREATE INDEX payments_owner_seq ON payments(owner_id, seq);
CREATE INDEX payments_entity_seq ON payments(owner_id, entity_id, seq);
-- A document's payments (its history, its sum), and the payments of a period.
CREATE INDEX payments_document ON payments(document_id, date);
CREATE INDEX payments_date ON payments(owner_id, date);

-- Every document already paid gets one payment of what it shows as paid, dated its issue
-- date (the one date known), with no method (not known) and created when the document
-- was last changed: `amount_paid`, and every answer an older client reads, stay as they
-- were. The ids are random version-4 UUIDs.
INSERT INTO payments (id, owner_id, entity_id, document_id, document_type, date, amount,
    method, reference, created_at)
SELECT lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
        || substr(lower(hex(randomblob(2))), 2) || '-'
        || substr('89ab', 1 + (abs(random()) % 4), 1)
        || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))),
    owner_id, entity_id, id, 'invoice', issue_date, amount_paid, NULL, NULL, updated_at
FROM invoices WHERE amount_paid > 0 ORDER BY seq;
INSERT INTO payments (id, owner_id, entity_id, document_id, document_type, date, amount,
    method, reference, created_at)
SELECT lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
        || substr(lower(hex(randomblob(2))), 2) || '-'
        || substr('89ab', 1 + (abs(random()) % 4), 1)
        || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))),
    owner_id, entity_id, id, 'bill', issue_date, amount_paid, NULL, NULL, updated_at
FROM bills WHERE amount_paid > 0 ORDER BY seq;
