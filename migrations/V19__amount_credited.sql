-- Credits against invoices and bills (DECISIONS §18 "Credit notes",
-- docs/accounting.md#amount-due): the sum of the posted credit notes (supplier credits)
-- linked to the document, kept by the same transaction that posts, changes or voids a
-- credit, and checked against them by `stockbook check`. Every existing document has none.
ALTER TABLE invoices ADD COLUMN amount_credited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE bills ADD COLUMN amount_credited INTEGER NOT NULL DEFAULT 0;
