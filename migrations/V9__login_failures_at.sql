-- The login throttle drops failures older than its window on every attempt
-- (`DELETE FROM login_failures WHERE at <= ?`); the (email, at) index cannot serve that, so
-- without this one every sign-in scanned the whole table.
CREATE INDEX login_failures_at ON login_failures(at);

-- A successful sign-in drops expired sessions (`DELETE FROM sessions WHERE expires_at <= ?`).
CREATE INDEX sessions_expires ON sessions(expires_at);
