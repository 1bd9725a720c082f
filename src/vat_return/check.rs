//! `stockbook check`'s rules for filed VAT returns (docs/vat.md#filed-returns,
//! docs/operations.md#check): a filed return's figures keep the relations HMRC validates,
//! its period stays locked, and no two filed returns of an entity overlap.

use rusqlite::Connection;

/// Every filed return that breaks a rule, in words.
pub fn breaches(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let checks = [
        // Box 3 is box 1 + box 2; box 5 is the difference of boxes 3 and 4.
        "SELECT id, 'box 3 is not box 1 + box 2' FROM vat_returns WHERE box3 <> box1 + box2
         UNION ALL
         SELECT id, 'box 5 is not the difference of boxes 3 and 4' FROM vat_returns
         WHERE box5 <> abs(box3 - box4)",
        // Filing moved the lock date to the period's end; a lock date moved back (or
        // cleared) behind the server's back lets the filed figures change.
        "SELECT r.id, 'its period ends ' || r.period_to || ' but the entity''s lock date is '
             || COALESCE(e.lock_date, 'not set')
         FROM vat_returns r JOIN entities e ON e.id = r.entity_id
         WHERE r.status = 'filed' AND (e.lock_date IS NULL OR e.lock_date < r.period_to)",
        // Two returns of one entity covering the same day.
        "SELECT a.id, 'its period overlaps that of return ' || b.id
         FROM vat_returns a JOIN vat_returns b
           ON b.entity_id = a.entity_id AND b.seq > a.seq
          AND b.period_from <= a.period_to AND a.period_from <= b.period_to",
    ];
    let mut found = Vec::new();
    for sql in checks {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| {
            Ok(format!(
                "VAT return {}: {}",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?
            ))
        })?;
        for row in rows {
            found.push(row?);
        }
    }
    Ok(found)
}
