-- Every line of an invoice or a bill wrote an entry into an index by product_id, at a
-- random place: on a 50-line invoice over 100,000 products that is 50 more index pages
-- rewritten in each commit (a fifth of the pages a posted line dirties). Nothing reads
-- lines by product; the index only served the foreign key's check when a product is
-- deleted, and a product can be deleted only while it has never moved stock. That
-- check now reads the lines table once (~10 ms per 100,000 lines), on a rare delete,
-- instead of every line write paying for it. See docs/architecture.md#the-write-path.
DROP INDEX invoice_lines_product;
DROP INDEX bill_lines_product;
