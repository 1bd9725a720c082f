-- The login throttle drops failures older than its window on every attempt
-- (`DELETE FROM login_failures WHERE at <= ?`); the (email, at) index cannot serve that, so
-- without this one every sign-in scanned the whole table.
CREATE INDEX login_failures_at ON login_failures(at);
