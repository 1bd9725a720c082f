-- Substring search over product name, SKU and barcode (`GET /api/products?q=`), served by
-- an FTS5 trigram index so that a search for a rare term does not scan every product.
-- Contentless: it holds only the index; rows are found by rowid = products.seq.

CREATE VIRTUAL TABLE products_search USING fts5(
    name, sku, barcode,
    content = '', contentless_delete = 1, tokenize = 'trigram'
);

INSERT INTO products_search (rowid, name, sku, barcode)
SELECT seq, name, sku, COALESCE(barcode, '') FROM products;

CREATE TRIGGER products_search_insert AFTER INSERT ON products
BEGIN
    INSERT INTO products_search (rowid, name, sku, barcode)
    VALUES (new.seq, new.name, new.sku, COALESCE(new.barcode, ''));
END;

CREATE TRIGGER products_search_delete AFTER DELETE ON products
BEGIN
    DELETE FROM products_search WHERE rowid = old.seq;
END;

CREATE TRIGGER products_search_update AFTER UPDATE OF name, sku, barcode ON products
BEGIN
    DELETE FROM products_search WHERE rowid = old.seq;
    INSERT INTO products_search (rowid, name, sku, barcode)
    VALUES (new.seq, new.name, new.sku, COALESCE(new.barcode, ''));
END;
