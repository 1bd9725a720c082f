-- Every stock movement writes one entry into each index of stock_movements. The index
-- stock_movements_product (product_id, location_id) is a prefix of stock_movements_as_of
-- (product_id, location_id, date, qty, migration V10), which serves every query that
-- used it (the movement list by product, the ledger check, the foreign keys from
-- products and locations) at least as well: one index fewer to write per movement.
DROP INDEX stock_movements_product;
