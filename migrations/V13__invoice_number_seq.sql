-- The next invoice number is one past the highest `number_seq` of the owner's invoices
-- in that entity (docs/accounting.md#invoices-and-bills). Without an index that ends in
-- `number_seq`, finding it read every invoice row of the owner: a cost that grew with
-- each invoice (2,000 invoices: ~2 ms a create; a year of a busy shop: far more). With
-- this index it is one descent.
CREATE INDEX invoices_number_seq
    ON invoices(owner_id, COALESCE(entity_id, ''), number_seq);
