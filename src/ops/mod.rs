//! The operator's commands besides serving (docs/operations.md): a consistent backup of the
//! running server's database, and a check that the file is sound. `main` parses the command
//! line and calls these; they read the same configuration as the server.

pub mod backup;
pub mod check;
pub mod rows;

use rusqlite::Connection;

/// Folds the write-ahead log back into the database file and truncates it: called when the
/// server stops, so the file alone (no `-wal` beside it) holds every commit.
pub fn checkpoint(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
}
