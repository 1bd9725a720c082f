-- Credit notes (to customers) and supplier credits (from suppliers), DECISIONS §18
-- "Credit notes" (docs/accounting.md#credit-notes-and-supplier-credits): the shape of
-- invoices and bills after V19, one table pair per kind, plus the optional link to the
-- document they credit. `amount_paid` is what has been refunded; `amount_credited` is the
-- part applied to the linked original (its total while posted and linked, else 0).
-- `number_seq` is the n of a `CN-<n>` number (credit notes), so the next generated number
-- is one index descent away, as V13 gives invoices.
CREATE TABLE credit_notes (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    owner_id        TEXT NOT NULL REFERENCES users(id),
    entity_id       TEXT REFERENCES entities(id),
    number          TEXT,
    number_seq      INTEGER,
    contact_id      TEXT NOT NULL REFERENCES contacts(id),
    issue_date      TEXT NOT NULL,
    due_date        TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'posted', 'void')),
    notes           TEXT,
    subtotal        INTEGER NOT NULL DEFAULT 0,
    vat_total       INTEGER NOT NULL DEFAULT 0,
    total           INTEGER NOT NULL DEFAULT 0,
    amount_paid     INTEGER NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
    provider        TEXT,
    provider_ref    TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    location_id     TEXT REFERENCES warehouse_locations(id),
    moves_stock     INTEGER NOT NULL DEFAULT 0,
    amount_credited INTEGER NOT NULL DEFAULT 0,
    invoice_id      TEXT REFERENCES invoices(id),
    -- As V20 gives invoices and bills (docs/accounting.md#currencies).
    currency        TEXT NOT NULL DEFAULT 'GBP',
    exchange_rate   INTEGER NOT NULL DEFAULT 1000000
);
CREATE UNIQUE INDEX credit_notes_number
    ON credit_notes(owner_id, COALESCE(entity_id, ''), number COLLATE NOCASE)
    WHERE number IS NOT NULL;
CREATE INDEX credit_notes_number_seq
    ON credit_notes(owner_id, COALESCE(entity_id, ''), number_seq);
CREATE INDEX credit_notes_owner_seq ON credit_notes(owner_id, seq);
CREATE INDEX credit_notes_entity_seq ON credit_notes(owner_id, entity_id, seq);
CREATE INDEX credit_notes_contact ON credit_notes(contact_id);
CREATE INDEX credit_notes_provider ON credit_notes(owner_id, provider, provider_ref);
-- The credits of an invoice: what its amount_credited sums, and what refuses its delete.
CREATE INDEX credit_notes_invoice ON credit_notes(invoice_id) WHERE invoice_id IS NOT NULL;

CREATE TABLE credit_note_lines (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES credit_notes(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    description TEXT NOT NULL,
    product_id  TEXT REFERENCES products(id),
    quantity    INTEGER NOT NULL,
    unit_price  INTEGER NOT NULL,
    discount    INTEGER NOT NULL DEFAULT 0 CHECK (discount BETWEEN 0 AND 10000),
    vat_rate    INTEGER NOT NULL DEFAULT 2000 CHECK (vat_rate BETWEEN 0 AND 10000),
    net         INTEGER NOT NULL,
    vat         INTEGER NOT NULL,
    -- As V21 gives invoice and bill lines (docs/accounting.md#vat-treatment).
    vat_treatment TEXT NOT NULL DEFAULT 'standard'
        CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge')),
    reverse_charge_vat INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX credit_note_lines_document ON credit_note_lines(document_id, position);

CREATE TABLE supplier_credits (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    owner_id        TEXT NOT NULL REFERENCES users(id),
    entity_id       TEXT REFERENCES entities(id),
    number          TEXT,
    number_seq      INTEGER,
    contact_id      TEXT NOT NULL REFERENCES contacts(id),
    issue_date      TEXT NOT NULL,
    due_date        TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'posted', 'void')),
    notes           TEXT,
    subtotal        INTEGER NOT NULL DEFAULT 0,
    vat_total       INTEGER NOT NULL DEFAULT 0,
    total           INTEGER NOT NULL DEFAULT 0,
    amount_paid     INTEGER NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
    provider        TEXT,
    provider_ref    TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    location_id     TEXT REFERENCES warehouse_locations(id),
    moves_stock     INTEGER NOT NULL DEFAULT 0,
    amount_credited INTEGER NOT NULL DEFAULT 0,
    bill_id         TEXT REFERENCES bills(id),
    -- As V20 gives invoices and bills (docs/accounting.md#currencies).
    currency        TEXT NOT NULL DEFAULT 'GBP',
    exchange_rate   INTEGER NOT NULL DEFAULT 1000000
);
-- The supplier's number: unique per entity and supplier, as bills'.
CREATE UNIQUE INDEX supplier_credits_number
    ON supplier_credits(owner_id, COALESCE(entity_id, ''), contact_id, number COLLATE NOCASE)
    WHERE number IS NOT NULL;
CREATE INDEX supplier_credits_owner_seq ON supplier_credits(owner_id, seq);
CREATE INDEX supplier_credits_entity_seq ON supplier_credits(owner_id, entity_id, seq);
CREATE INDEX supplier_credits_contact ON supplier_credits(contact_id);
CREATE INDEX supplier_credits_provider ON supplier_credits(owner_id, provider, provider_ref);
CREATE INDEX supplier_credits_bill ON supplier_credits(bill_id) WHERE bill_id IS NOT NULL;

CREATE TABLE supplier_credit_lines (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES supplier_credits(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    description TEXT NOT NULL,
    product_id  TEXT REFERENCES products(id),
    quantity    INTEGER NOT NULL,
    unit_price  INTEGER NOT NULL,
    discount    INTEGER NOT NULL DEFAULT 0 CHECK (discount BETWEEN 0 AND 10000),
    vat_rate    INTEGER NOT NULL DEFAULT 2000 CHECK (vat_rate BETWEEN 0 AND 10000),
    net         INTEGER NOT NULL,
    vat         INTEGER NOT NULL,
    -- As V21 gives invoice and bill lines (docs/accounting.md#vat-treatment).
    vat_treatment TEXT NOT NULL DEFAULT 'standard'
        CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge')),
    reverse_charge_vat INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX supplier_credit_lines_document ON supplier_credit_lines(document_id, position);
