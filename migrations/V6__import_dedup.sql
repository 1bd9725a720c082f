-- Import dedup (§4.10 rule 4, DECISIONS §11): every key the importer looks a record up
-- by is served by an index, so a run's cost per row does not grow with what is stored.
-- Keys already indexed elsewhere: contact and product names (V2, V3), SKUs (V2), invoice
-- and bill numbers (V3), expense category names (V3).

-- Provider references are compared whatever the provider (the same record may come once
-- by CSV and once by API).
CREATE INDEX contacts_entity_ref ON contacts(owner_id, entity_id, provider_ref)
    WHERE provider_ref IS NOT NULL;
CREATE INDEX products_entity_ref ON products(owner_id, entity_id, provider_ref)
    WHERE provider_ref IS NOT NULL;
CREATE INDEX invoices_entity_ref ON invoices(owner_id, entity_id, provider_ref)
    WHERE provider_ref IS NOT NULL;
CREATE INDEX bills_entity_ref ON bills(owner_id, entity_id, provider_ref)
    WHERE provider_ref IS NOT NULL;
CREATE INDEX expenses_entity_ref ON expenses(owner_id, entity_id, provider_ref)
    WHERE provider_ref IS NOT NULL;
CREATE INDEX recurring_invoices_entity_ref ON recurring_invoices(owner_id, entity_id, provider_ref)
    WHERE provider_ref IS NOT NULL;

-- Documents without a number: client + issue date + total.
CREATE INDEX invoices_contact_date ON invoices(contact_id, issue_date);
CREATE INDEX bills_contact_date ON bills(contact_id, issue_date);

-- Expenses: date + amount + description.
CREATE INDEX expenses_entity_date ON expenses(owner_id, entity_id, date, amount);

-- Projects by name; time entries by project + date + hours + description.
CREATE INDEX projects_entity_name ON projects(owner_id, entity_id, name COLLATE NOCASE);
CREATE INDEX time_entries_project_date ON time_entries(project_id, date, hours);
