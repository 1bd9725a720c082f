-- The VAT return (DECISIONS §19, docs/vat.md): the entity's VAT settings, capital goods
-- for the flat rate scheme, adjustments, and the returns filed.
--
-- Every existing entity is on the standard scheme with no registration date, and no line
-- or expense is a capital good, so no answer an older client reads changes.

-- `vat_registered_from` (date), `vat_scheme`, `flat_rate_percent` (hundredths of a
-- percent, as VAT rates are stored: 850 is 8.5 %; required on the flat rate scheme).
ALTER TABLE entities ADD COLUMN vat_registered_from TEXT;
ALTER TABLE entities ADD COLUMN vat_scheme TEXT NOT NULL DEFAULT 'standard'
    CHECK (vat_scheme IN ('standard', 'cash', 'flat_rate'));
ALTER TABLE entities ADD COLUMN flat_rate_percent INTEGER
    CHECK (flat_rate_percent BETWEEN 0 AND 10000);

-- A bill line, supplier-credit line or expense bought as a capital asset: on the flat
-- rate scheme, one whose own gross is at least £2,000 goes in boxes 4 and 7.
ALTER TABLE bill_lines ADD COLUMN capital_goods INTEGER NOT NULL DEFAULT 0
    CHECK (capital_goods IN (0, 1));
ALTER TABLE supplier_credit_lines ADD COLUMN capital_goods INTEGER NOT NULL DEFAULT 0
    CHECK (capital_goods IN (0, 1));
ALTER TABLE expenses ADD COLUMN capital_goods INTEGER NOT NULL DEFAULT 0
    CHECK (capital_goods IN (0, 1));

-- Adjustments: postponed import VAT, bad debt relief, corrections of earlier errors. Each
-- counts in the period holding its `date`. `amount` is signed INTEGER hundredths.
CREATE TABLE vat_adjustments (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    owner_id    TEXT NOT NULL REFERENCES users(id),
    entity_id   TEXT NOT NULL REFERENCES entities(id),
    date        TEXT NOT NULL,
    box         INTEGER NOT NULL CHECK (box IN (1, 2, 4, 6, 7, 8, 9)),
    amount      INTEGER NOT NULL,
    description TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX vat_adjustments_entity_date ON vat_adjustments(entity_id, date);

-- Returns filed: the nine figures as they were when filed (boxes 1-5 in hundredths,
-- boxes 6-9 in whole pounds), how (`recorded`: filed elsewhere; `hmrc`: submitted through
-- Making Tax Digital, §20), and HMRC's receipt (JSON text). `status` is `submitting`
-- while a submission to HMRC is in flight (§20), else `filed`.
CREATE TABLE vat_returns (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    owner_id     TEXT NOT NULL REFERENCES users(id),
    entity_id    TEXT NOT NULL REFERENCES entities(id),
    period_from  TEXT NOT NULL,
    period_to    TEXT NOT NULL,
    period_key   TEXT,
    scheme       TEXT NOT NULL CHECK (scheme IN ('standard', 'cash', 'flat_rate')),
    box1         INTEGER NOT NULL,
    box2         INTEGER NOT NULL,
    box3         INTEGER NOT NULL,
    box4         INTEGER NOT NULL,
    box5         INTEGER NOT NULL,
    box6         INTEGER NOT NULL,
    box7         INTEGER NOT NULL,
    box8         INTEGER NOT NULL,
    box9         INTEGER NOT NULL,
    method       TEXT NOT NULL CHECK (method IN ('recorded', 'hmrc')),
    status       TEXT NOT NULL DEFAULT 'filed' CHECK (status IN ('submitting', 'filed')),
    receipt      TEXT,
    filed_at     TEXT NOT NULL,
    filed_by     TEXT NOT NULL REFERENCES users(id),
    CHECK (period_to >= period_from)
);
CREATE INDEX vat_returns_entity_period ON vat_returns(entity_id, period_from);
