-- The session lists of dated records are newest first (docs/conventions.md): documents by
-- issue date, expenses, bank transactions and time entries by date, each then by seq.
-- Without an index in that order every page sorted every record of the owner (about
-- 50 ms of SQL a page over 100,000 invoices); with one, a page reads its own rows from
-- the index's end (BENCHMARKS.md, "The books at a year's scale"). Owner-wide (no entity filter) and
-- per entity (what the web app asks for).
CREATE INDEX invoices_owner_date ON invoices(owner_id, issue_date, seq);
CREATE INDEX invoices_entity_date ON invoices(owner_id, entity_id, issue_date, seq);
CREATE INDEX bills_owner_date ON bills(owner_id, issue_date, seq);
CREATE INDEX bills_entity_date ON bills(owner_id, entity_id, issue_date, seq);
CREATE INDEX credit_notes_owner_date ON credit_notes(owner_id, issue_date, seq);
CREATE INDEX credit_notes_entity_date ON credit_notes(owner_id, entity_id, issue_date, seq);
CREATE INDEX supplier_credits_owner_date ON supplier_credits(owner_id, issue_date, seq);
CREATE INDEX supplier_credits_entity_date ON supplier_credits(owner_id, entity_id, issue_date, seq);
CREATE INDEX expenses_entity_date_seq ON expenses(owner_id, entity_id, date, seq);
CREATE INDEX transactions_entity_date ON transactions(owner_id, entity_id, date, seq);
CREATE INDEX time_entries_entity_date ON time_entries(owner_id, entity_id, date, seq);
