-- VAT treatment (DECISIONS §18 "VAT treatment", docs/accounting.md#vat-treatment): every
-- priced document line, recurring template line, product and expense says what kind of
-- supply it is; expense categories give their expenses a default.
--
-- Every existing row gets the treatment its rate implies (0 → zero, 5 % → reduced, else
-- standard; an expense by its vat_amount), so no answer an older client reads changes.
-- Rates are stored in hundredths of a percent (V2, V3): 500 is 5 %.
ALTER TABLE invoice_lines ADD COLUMN vat_treatment TEXT NOT NULL DEFAULT 'standard'
    CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge'));
ALTER TABLE invoice_lines ADD COLUMN reverse_charge_vat INTEGER NOT NULL DEFAULT 0;
UPDATE invoice_lines SET vat_treatment =
    CASE vat_rate WHEN 0 THEN 'zero' WHEN 500 THEN 'reduced' ELSE 'standard' END;

ALTER TABLE bill_lines ADD COLUMN vat_treatment TEXT NOT NULL DEFAULT 'standard'
    CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge'));
ALTER TABLE bill_lines ADD COLUMN reverse_charge_vat INTEGER NOT NULL DEFAULT 0;
UPDATE bill_lines SET vat_treatment =
    CASE vat_rate WHEN 0 THEN 'zero' WHEN 500 THEN 'reduced' ELSE 'standard' END;

ALTER TABLE recurring_invoice_lines ADD COLUMN vat_treatment TEXT NOT NULL DEFAULT 'standard'
    CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge'));
ALTER TABLE recurring_invoice_lines ADD COLUMN reverse_charge_vat INTEGER NOT NULL DEFAULT 0;
UPDATE recurring_invoice_lines SET vat_treatment =
    CASE vat_rate WHEN 0 THEN 'zero' WHEN 500 THEN 'reduced' ELSE 'standard' END;

ALTER TABLE products ADD COLUMN vat_treatment TEXT NOT NULL DEFAULT 'standard'
    CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge'));
UPDATE products SET vat_treatment =
    CASE vat_rate WHEN 0 THEN 'zero' WHEN 500 THEN 'reduced' ELSE 'standard' END;

-- Expense categories: the default treatment of their expenses (null: none). The standard
-- set (src/entities.rs) marks staff costs outside the scope of VAT, and insurance and bank
-- charges exempt. An existing entity's "Rent and rates" gets none: rent may be exempt or
-- standard-rated, rates are outside the scope; its expenses take their treatment from
-- their VAT (docs/accounting.md#vat-treatment).
ALTER TABLE expense_categories ADD COLUMN vat_treatment TEXT
    CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge'));
UPDATE expense_categories SET vat_treatment = 'outside_scope'
    WHERE standard = 1 AND code = '7000';
UPDATE expense_categories SET vat_treatment = 'exempt'
    WHERE standard = 1 AND code IN ('7800', '7900');

-- Expenses: their treatment (by vat_amount), whether the VAT may be reclaimed, the
-- reverse-charge VAT the business accounts for itself, and the supplier.
ALTER TABLE expenses ADD COLUMN vat_treatment TEXT NOT NULL DEFAULT 'standard'
    CHECK (vat_treatment IN ('standard', 'reduced', 'zero', 'exempt', 'outside_scope', 'reverse_charge'));
UPDATE expenses SET vat_treatment = CASE WHEN vat_amount > 0 THEN 'standard' ELSE 'zero' END;
ALTER TABLE expenses ADD COLUMN vat_reclaimable INTEGER NOT NULL DEFAULT 1
    CHECK (vat_reclaimable IN (0, 1));
ALTER TABLE expenses ADD COLUMN reverse_charge_vat INTEGER NOT NULL DEFAULT 0;
ALTER TABLE expenses ADD COLUMN contact_id TEXT REFERENCES contacts(id);
CREATE INDEX expenses_contact ON expenses(contact_id);
