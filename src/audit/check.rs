//! `stockbook check`'s reading of the audit trail (docs/audit.md#tamper-evidence): every
//! entry's hash is computed again from the one before; the first entry that does not
//! follow is named, as edited, inserted or following removed entries, and the check
//! stops there (what comes after a break proves nothing).

use rusqlite::Connection;

use crate::db::audit::{entry_hash, lossy};

struct Row {
    id: i64,
    at: String,
    user_id: Option<String>,
    action: String,
    record_type: String,
    record_id: Option<String>,
    entity_id: Option<String>,
    owner_id: Option<String>,
    changes: String,
    hash: String,
}

impl Row {
    /// The hash this entry should have after an entry whose hash is `prev`.
    fn expected(&self, prev: Option<&str>) -> String {
        self.expected_as(self.id, prev)
    }

    /// The hash this entry should have as entry `id` after one whose hash is `prev`.
    fn expected_as(&self, id: i64, prev: Option<&str>) -> String {
        entry_hash(
            prev,
            id,
            &self.at,
            self.user_id.as_deref(),
            &self.action,
            &self.record_type,
            self.record_id.as_deref(),
            self.entity_id.as_deref(),
            self.owner_id.as_deref(),
            &self.changes,
        )
    }
}

/// The first break in the chain, in words; none when the trail is whole.
pub fn breaches(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT id, at, user_id, action, record_type, record_id, entity_id, owner_id,
                changes, hash
         FROM audit_log ORDER BY id",
    )?;
    let mut rows = stmt.query_map([], |r| {
        let text = |i: usize| r.get_ref(i).map(lossy);
        Ok(Row {
            id: r.get(0)?,
            at: text(1)?.unwrap_or_default(),
            user_id: text(2)?,
            action: text(3)?.unwrap_or_default(),
            record_type: text(4)?.unwrap_or_default(),
            record_id: text(5)?,
            entity_id: text(6)?,
            owner_id: text(7)?,
            changes: text(8)?.unwrap_or_default(),
            hash: text(9)?.unwrap_or_default(),
        })
    })?;
    // The last entry that followed, and the one after the entry in question.
    let mut prev: Option<Row> = None;
    let mut pending = rows.next().transpose()?;
    while let Some(row) = pending {
        let next = rows.next().transpose()?;
        let prev_hash = prev.as_ref().map(|p| p.hash.as_str());
        let expected_id = prev.as_ref().map_or(row.id.min(1), |p| p.id + 1);
        let follows = row.hash == row.expected(prev_hash);
        if follows && row.id == expected_id {
            prev = Some(row);
            pending = next;
            continue;
        }
        let what = if follows || (row.id > expected_id && next_follows(next.as_ref(), &row)) {
            // Its own hash is right, or the next entry follows from it: entries before it
            // are missing.
            format!(
                "entry {} is missing: removed behind the server's back (the chain goes from {} to {})",
                expected_id,
                prev.as_ref().map_or(0, |p| p.id),
                row.id
            )
        } else if next.as_ref().is_some_and(|n| {
            n.hash == n.expected(prev_hash) || n.hash == n.expected_as(n.id - 1, prev_hash)
        }) {
            format!(
                "entry {} was inserted behind the server's back (the entry after it follows from the one before it)",
                row.id
            )
        } else if next_follows(next.as_ref(), &row) {
            format!(
                "entry {} was edited behind the server's back (its hash does not match its content)",
                row.id
            )
        } else if next.is_none() {
            format!(
                "entry {} was edited or added behind the server's back (its hash does not match its content)",
                row.id
            )
        } else {
            format!(
                "entry {} does not follow from the one before it: it, or an entry next to it, was edited, inserted or removed behind the server's back",
                row.id
            )
        };
        return Ok(vec![format!("audit trail: {what}")]);
    }
    Ok(Vec::new())
}

/// Does `next` follow from `row` (by `row`'s stored hash)?
fn next_follows(next: Option<&Row>, row: &Row) -> bool {
    next.is_some_and(|n| n.id == row.id + 1 && n.hash == n.expected(Some(&row.hash)))
}
