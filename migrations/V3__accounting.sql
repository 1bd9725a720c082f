-- Accounting records (DECISIONS §9): contacts, invoices and bills with their lines,
-- expenses, employees, bank transactions, projects, time entries and recurring invoice
-- templates. Money is INTEGER hundredths, line prices INTEGER ten-thousandths, line
-- quantities INTEGER thousandths, percentages INTEGER hundredths (src/db/decimal.rs).
--
-- Every table has `seq` (creation order: the public API pages on it), a UUID `id`,
-- `owner_id` and a nullable `entity_id`. The `(owner_id, seq)` and
-- `(owner_id, entity_id, seq)` indexes serve the public API's lists in creation order
-- for an unscoped and an entity-scoped key, deep offsets included.

CREATE TABLE contacts (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    owner_id     TEXT NOT NULL REFERENCES users(id),
    entity_id    TEXT REFERENCES entities(id),
    name         TEXT NOT NULL,
    type         TEXT NOT NULL DEFAULT 'customer' CHECK (type IN ('customer', 'supplier', 'both')),
    email        TEXT,
    phone        TEXT,
    address      TEXT,
    vat_number   TEXT,
    provider     TEXT,
    provider_ref TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX contacts_owner_seq ON contacts(owner_id, seq);
CREATE INDEX contacts_entity_seq ON contacts(owner_id, entity_id, seq);
CREATE INDEX contacts_name ON contacts(owner_id, entity_id, name COLLATE NOCASE);
CREATE INDEX contacts_provider ON contacts(owner_id, provider, provider_ref);

-- Sales invoices. `number_seq` is the numeric part of an `INV-<n>` number, so the next
-- generated number is one past the highest.
CREATE TABLE invoices (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    owner_id     TEXT NOT NULL REFERENCES users(id),
    entity_id    TEXT REFERENCES entities(id),
    number       TEXT,
    number_seq   INTEGER,
    contact_id   TEXT NOT NULL REFERENCES contacts(id),
    issue_date   TEXT NOT NULL,
    due_date     TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'paid', 'void')),
    notes        TEXT,
    subtotal     INTEGER NOT NULL DEFAULT 0,
    vat_total    INTEGER NOT NULL DEFAULT 0,
    total        INTEGER NOT NULL DEFAULT 0,
    amount_paid  INTEGER NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
    provider     TEXT,
    provider_ref TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
-- Numbers are unique per entity (per owner without entity), ignoring case.
CREATE UNIQUE INDEX invoices_number
    ON invoices(owner_id, COALESCE(entity_id, ''), number COLLATE NOCASE)
    WHERE number IS NOT NULL;
CREATE INDEX invoices_owner_seq ON invoices(owner_id, seq);
CREATE INDEX invoices_entity_seq ON invoices(owner_id, entity_id, seq);
CREATE INDEX invoices_contact ON invoices(contact_id);
CREATE INDEX invoices_provider ON invoices(owner_id, provider, provider_ref);

CREATE TABLE invoice_lines (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    description TEXT NOT NULL,
    product_id  TEXT REFERENCES products(id),
    quantity    INTEGER NOT NULL,
    unit_price  INTEGER NOT NULL,
    discount    INTEGER NOT NULL DEFAULT 0 CHECK (discount BETWEEN 0 AND 10000),
    vat_rate    INTEGER NOT NULL DEFAULT 2000 CHECK (vat_rate BETWEEN 0 AND 10000),
    net         INTEGER NOT NULL,
    vat         INTEGER NOT NULL
);
CREATE INDEX invoice_lines_document ON invoice_lines(document_id, position);
CREATE INDEX invoice_lines_product ON invoice_lines(product_id);

-- Purchase invoices. A bill's number is the supplier's: optional, and unique per entity
-- and supplier.
CREATE TABLE bills (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    owner_id     TEXT NOT NULL REFERENCES users(id),
    entity_id    TEXT REFERENCES entities(id),
    number       TEXT,
    number_seq   INTEGER,
    contact_id   TEXT NOT NULL REFERENCES contacts(id),
    issue_date   TEXT NOT NULL,
    due_date     TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'draft'
                 CHECK (status IN ('draft', 'awaiting_payment', 'paid', 'void')),
    notes        TEXT,
    subtotal     INTEGER NOT NULL DEFAULT 0,
    vat_total    INTEGER NOT NULL DEFAULT 0,
    total        INTEGER NOT NULL DEFAULT 0,
    amount_paid  INTEGER NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
    provider     TEXT,
    provider_ref TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX bills_number
    ON bills(owner_id, COALESCE(entity_id, ''), contact_id, number COLLATE NOCASE)
    WHERE number IS NOT NULL;
CREATE INDEX bills_owner_seq ON bills(owner_id, seq);
CREATE INDEX bills_entity_seq ON bills(owner_id, entity_id, seq);
CREATE INDEX bills_contact ON bills(contact_id);
CREATE INDEX bills_provider ON bills(owner_id, provider, provider_ref);

CREATE TABLE bill_lines (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES bills(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    description TEXT NOT NULL,
    product_id  TEXT REFERENCES products(id),
    quantity    INTEGER NOT NULL,
    unit_price  INTEGER NOT NULL,
    discount    INTEGER NOT NULL DEFAULT 0 CHECK (discount BETWEEN 0 AND 10000),
    vat_rate    INTEGER NOT NULL DEFAULT 2000 CHECK (vat_rate BETWEEN 0 AND 10000),
    net         INTEGER NOT NULL,
    vat         INTEGER NOT NULL
);
CREATE INDEX bill_lines_document ON bill_lines(document_id, position);
CREATE INDEX bill_lines_product ON bill_lines(product_id);

-- Category names are unique per entity (the import deduplicates categories by name).
CREATE UNIQUE INDEX expense_categories_name
    ON expense_categories(owner_id, COALESCE(entity_id, ''), name COLLATE NOCASE);
CREATE INDEX expense_categories_owner_seq ON expense_categories(owner_id, seq);
CREATE INDEX expense_categories_entity_seq ON expense_categories(owner_id, entity_id, seq);

CREATE TABLE projects (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    owner_id    TEXT NOT NULL REFERENCES users(id),
    entity_id   TEXT REFERENCES entities(id),
    name        TEXT NOT NULL,
    contact_id  TEXT REFERENCES contacts(id),
    status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'archived')),
    hourly_rate INTEGER CHECK (hourly_rate >= 0),
    budget      INTEGER CHECK (budget >= 0),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX projects_owner_seq ON projects(owner_id, seq);
CREATE INDEX projects_entity_seq ON projects(owner_id, entity_id, seq);
CREATE INDEX projects_contact ON projects(contact_id);

CREATE TABLE expenses (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    owner_id     TEXT NOT NULL REFERENCES users(id),
    entity_id    TEXT REFERENCES entities(id),
    date         TEXT NOT NULL,
    description  TEXT NOT NULL,
    amount       INTEGER NOT NULL CHECK (amount >= 0),
    vat_amount   INTEGER NOT NULL DEFAULT 0 CHECK (vat_amount >= 0),
    category_id  TEXT REFERENCES expense_categories(id),
    project_id   TEXT REFERENCES projects(id),
    provider     TEXT,
    provider_ref TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX expenses_owner_seq ON expenses(owner_id, seq);
CREATE INDEX expenses_entity_seq ON expenses(owner_id, entity_id, seq);
CREATE INDEX expenses_category ON expenses(category_id);
CREATE INDEX expenses_project ON expenses(project_id);
CREATE INDEX expenses_provider ON expenses(owner_id, provider, provider_ref);

CREATE TABLE employees (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    owner_id   TEXT NOT NULL REFERENCES users(id),
    entity_id  TEXT REFERENCES entities(id),
    name       TEXT NOT NULL,
    email      TEXT,
    role       TEXT,
    active     INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX employees_owner_seq ON employees(owner_id, seq);
CREATE INDEX employees_entity_seq ON employees(owner_id, entity_id, seq);

-- Bank transactions: signed amounts (money in positive, money out negative).
CREATE TABLE transactions (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    owner_id    TEXT NOT NULL REFERENCES users(id),
    entity_id   TEXT REFERENCES entities(id),
    date        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    amount      INTEGER NOT NULL,
    account     TEXT,
    reference   TEXT,
    category_id TEXT REFERENCES expense_categories(id),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX transactions_owner_seq ON transactions(owner_id, seq);
CREATE INDEX transactions_entity_seq ON transactions(owner_id, entity_id, seq);
CREATE INDEX transactions_category ON transactions(category_id);

CREATE TABLE time_entries (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    owner_id    TEXT NOT NULL REFERENCES users(id),
    entity_id   TEXT REFERENCES entities(id),
    project_id  TEXT NOT NULL REFERENCES projects(id),
    date        TEXT NOT NULL,
    hours       INTEGER NOT NULL CHECK (hours > 0),
    description TEXT,
    billable    INTEGER NOT NULL DEFAULT 1,
    hourly_rate INTEGER CHECK (hourly_rate >= 0),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX time_entries_owner_seq ON time_entries(owner_id, seq);
CREATE INDEX time_entries_entity_seq ON time_entries(owner_id, entity_id, seq);
CREATE INDEX time_entries_project ON time_entries(project_id);

CREATE TABLE recurring_invoices (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    owner_id       TEXT NOT NULL REFERENCES users(id),
    entity_id      TEXT REFERENCES entities(id),
    contact_id     TEXT NOT NULL REFERENCES contacts(id),
    interval       TEXT NOT NULL CHECK (interval IN ('week', 'month', 'year')),
    interval_count INTEGER NOT NULL DEFAULT 1 CHECK (interval_count >= 1),
    next_date      TEXT NOT NULL,
    status         TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'cancelled')),
    subtotal       INTEGER NOT NULL DEFAULT 0,
    vat_total      INTEGER NOT NULL DEFAULT 0,
    total          INTEGER NOT NULL DEFAULT 0,
    provider       TEXT,
    provider_ref   TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
CREATE INDEX recurring_invoices_owner_seq ON recurring_invoices(owner_id, seq);
CREATE INDEX recurring_invoices_entity_seq ON recurring_invoices(owner_id, entity_id, seq);
CREATE INDEX recurring_invoices_contact ON recurring_invoices(contact_id);
CREATE INDEX recurring_invoices_provider ON recurring_invoices(owner_id, provider, provider_ref);

CREATE TABLE recurring_invoice_lines (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES recurring_invoices(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    description TEXT NOT NULL,
    product_id  TEXT REFERENCES products(id),
    quantity    INTEGER NOT NULL,
    unit_price  INTEGER NOT NULL,
    discount    INTEGER NOT NULL DEFAULT 0 CHECK (discount BETWEEN 0 AND 10000),
    vat_rate    INTEGER NOT NULL DEFAULT 2000 CHECK (vat_rate BETWEEN 0 AND 10000),
    net         INTEGER NOT NULL,
    vat         INTEGER NOT NULL
);
CREATE INDEX recurring_invoice_lines_document ON recurring_invoice_lines(document_id, position);
CREATE INDEX recurring_invoice_lines_product ON recurring_invoice_lines(product_id);

-- The public API lists products in creation order too.
CREATE INDEX products_owner_seq ON products(owner_id, seq);
CREATE INDEX products_entity_seq ON products(owner_id, entity_id, seq);
