//! `stockbook check`: is the database file sound? SQLite's own integrity and foreign-key
//! checks, every row read as the server reads it (`super::rows`), the VAT treatments'
//! rules (`crate::accounting::vat_check`), then the ledger's
//! invariants (docs/operations.md#check). Every breach is listed in words; none means the
//! file is sound.

use rusqlite::{Connection, OpenFlags};

/// Opens the database at `path` read-only, without migrating it: a check never changes the
/// file it checks.
pub fn open(path: &str) -> Result<Connection, String> {
    if path == ":memory:" {
        return Err("the configured database is `:memory:`: there is nothing to check".into());
    }
    if !std::path::Path::new(path).is_file() {
        return Err(format!("no database at `{path}`"));
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open `{path}`: {e}"))?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    Ok(conn)
}

/// Every breach found in the database behind `conn`, in words; `allow_negative` is the
/// installation's `allow_negative_stock` (then a stock below zero is no breach).
pub fn breaches(conn: &Connection, allow_negative: bool) -> Result<Vec<String>, String> {
    let mut found = integrity(conn).map_err(|e| format!("integrity check: {e}"))?;
    found.extend(foreign_keys(conn).map_err(|e| format!("foreign key check: {e}"))?);
    found.extend(records(conn).map_err(|e| format!("record check: {e}"))?);
    found.extend(
        crate::accounting::vat_check::breaches(conn).map_err(|e| format!("VAT check: {e}"))?,
    );
    found.extend(ledger(conn, allow_negative).map_err(|e| format!("ledger check: {e}"))?);
    found.extend(
        crate::accounting::payments::breaches(conn).map_err(|e| format!("payment check: {e}"))?,
    );
    found.extend(credited(conn).map_err(|e| format!("credit check: {e}"))?);
    found.extend(
        crate::vat_return::check::breaches(conn).map_err(|e| format!("VAT return check: {e}"))?,
    );
    found.extend(
        crate::audit::check::breaches(conn).map_err(|e| format!("audit trail check: {e}"))?,
    );
    Ok(found)
}

/// Every invoice, bill and credit whose `amount_credited` disagrees with its credits
/// (docs/accounting.md#amount-due).
fn credited(conn: &Connection) -> Result<Vec<String>, String> {
    let tx = conn.unchecked_transaction().map_err(|e| e.to_string())?;
    let found = crate::accounting::documents::credited_breaches(&tx).map_err(|e| e.to_string())?;
    Ok(found.into_iter().map(|b| format!("credits: {b}")).collect())
}

/// Every row the server could not read (docs/operations.md#damaged-records), read in one
/// transaction.
fn records(conn: &Connection) -> Result<Vec<String>, String> {
    let tx = conn.unchecked_transaction().map_err(|e| e.to_string())?;
    super::rows::damaged_rows(&tx).map_err(|e| e.to_string())
}

/// The ledger's invariants, read in one transaction so that the sums agree with each
/// other even if the server writes meanwhile.
fn ledger(conn: &Connection, allow_negative: bool) -> Result<Vec<String>, String> {
    let tx = conn.unchecked_transaction().map_err(|e| e.to_string())?;
    let found =
        crate::inventory::check::ledger_breaches(&tx, allow_negative).map_err(|e| e.to_string())?;
    Ok(found
        .into_iter()
        .map(|b| format!("ledger ({}): {}", b.rule, b.message))
        .collect())
}

/// `PRAGMA integrity_check`: one row `ok`, or one row per problem.
fn integrity(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("PRAGMA integrity_check")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let mut out = Vec::new();
    for row in rows {
        let row = row?;
        if row != "ok" {
            out.push(format!("integrity: {row}"));
        }
    }
    Ok(out)
}

/// `PRAGMA foreign_key_check`: every row whose reference points nowhere.
fn foreign_keys(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let rows = stmt.query_map([], |r| {
        Ok(format!(
            "foreign key: row {} of `{}` references a missing row of `{}`",
            r.get::<_, Option<i64>>(1)?
                .map_or_else(|| "?".to_owned(), |id| id.to_string()),
            r.get::<_, String>(0)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    rows.collect()
}
