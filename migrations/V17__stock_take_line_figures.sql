-- A stock take keeps its line figures (docs/documents.md#lists): how many lines it has
-- (fixed when it is created: its lines are never added or removed) and how many of them
-- are counted (set again by every PUT of counts). A list without lines reads them here,
-- one row a stock take, instead of every line of every stock take: a year of monthly
-- counts of a 20,000-row location is 240,000 lines.
ALTER TABLE stock_takes ADD COLUMN line_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE stock_takes ADD COLUMN counted_count INTEGER NOT NULL DEFAULT 0;
UPDATE stock_takes SET
    line_count = (SELECT COUNT(*) FROM stock_take_lines l WHERE l.stock_take_id = stock_takes.id),
    counted_count = (SELECT COUNT(l.counted_quantity) FROM stock_take_lines l
                     WHERE l.stock_take_id = stock_takes.id);
