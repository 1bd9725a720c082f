//! Reading the audit trail (docs/audit.md#reading-the-trail). It is written by the
//! record tables' triggers and by `crate::db::audit::record` (sign-ins, role changes).

use rusqlite::{params_from_iter, Connection};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::db::raw::csv_cell;
use crate::error::{AppError, AppResult};
use crate::http::body::parse_date;
use crate::scope::{Cap, Scope};

/// One entry as `GET /api/audit` answers it.
#[derive(Debug, Serialize)]
pub struct Listed {
    pub id: i64,
    pub at: String,
    pub user_id: Option<String>,
    pub user_email: Option<String>,
    pub action: String,
    pub record_type: String,
    pub record_id: Option<String>,
    pub entity_id: Option<String>,
    pub changes: Box<RawValue>,
}

/// The filters of `GET /api/audit`, checked.
#[derive(Debug, Default, Clone)]
pub struct Filters {
    pub entity_id: Option<String>,
    pub record_id: Option<String>,
    pub user_id: Option<String>,
    pub date_from: Option<String>,
    pub date_to: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// The default and largest page of the trail (docs/audit.md#reading-the-trail).
pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 1000;

impl Filters {
    /// 400 for a date that is not `YYYY-MM-DD`, or a page out of range.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        conn: &Connection,
        scope: &Scope,
        entity: Option<&str>,
        record: Option<&str>,
        user: Option<&str>,
        from: Option<&str>,
        to: Option<&str>,
        limit: Option<&str>,
        offset: Option<&str>,
        csv: bool,
    ) -> AppResult<Self> {
        let page = crate::http::paging::parse_page(limit, offset, None)?;
        let limit = match page.limit {
            Some(n) if n > MAX_LIMIT && !csv => {
                return Err(AppError::invalid(
                    "limit",
                    format!("must be at most {MAX_LIMIT}"),
                ))
            }
            Some(n) => n,
            // A download is the whole trail that matches.
            None if csv => -1,
            None => DEFAULT_LIMIT,
        };
        let day = |field: &str, v: Option<&str>| -> AppResult<Option<String>> {
            v.filter(|s| !s.is_empty())
                .map(|s| parse_date(field, s).map(|d| d.to_string()))
                .transpose()
        };
        let date_to = day("dateTo", to)?
            .map(|d| {
                let next = parse_date("dateTo", &d)?
                    .next_day()
                    .ok_or_else(|| AppError::invalid("dateTo", "is out of range"))?;
                Ok::<_, AppError>(next.to_string())
            })
            .transpose()?;
        Ok(Self {
            // An entity's trail is its owners' and accountants' to read
            // (docs/audit.md#reading-the-trail): the role that files VAT.
            entity_id: match entity.filter(|s| !s.is_empty()) {
                Some(raw) => {
                    let id = crate::http::body::parse_id("entityId", raw)?;
                    scope.require(conn, &id, Cap::Vat)?;
                    Some(id)
                }
                None => None,
            },
            // Every record and user id is a UUID, as the document says: anything else is a
            // 400, not an empty page.
            record_id: crate::http::body::parse_opt_id("recordId", record)?,
            user_id: crate::http::body::parse_opt_id("userId", user)?,
            date_from: day("dateFrom", from)?,
            date_to,
            limit,
            offset: page.offset,
        })
    }
}

/// The columns of an entry as listed, for one arm of the query.
const LISTED: &str = "SELECT a.id, a.at, a.user_id, u.email, a.action, a.record_type, a.record_id,
            a.entity_id, a.changes
     FROM audit_log a LEFT JOIN users u ON u.id = a.user_id
     WHERE ";

/// Past this many businesses a reader's page is one walk of the trail, not one stream
/// each (SQLite allows 500 arms in a compound query).
const MAX_STREAMS: usize = 400;

/// The entities whose trail `viewer` may read: those where they are an owner or an
/// accountant (docs/audit.md#reading-the-trail).
fn readable_entities(conn: &Connection, viewer: &Scope) -> AppResult<Vec<String>> {
    let sql = crate::scope::access::entities_where(Cap::Vat);
    let mut stmt = conn.prepare_cached(&sql)?;
    let ids = stmt
        .query_map([viewer.actor()], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

/// The query of a page of the trail and its parameters. `readable` is the viewer's
/// entities ([`readable_entities`]) when the page is read as one stream per entity.
fn list_sql(viewer: &Scope, f: &Filters, readable: Option<&[String]>) -> (String, Vec<String>) {
    let mut args: Vec<String> = Vec::new();
    let dates = |sql: &mut String, args: &mut Vec<String>| {
        if let Some(v) = &f.date_from {
            sql.push_str(" AND a.at >= ?");
            args.push(v.clone());
        }
        if let Some(v) = &f.date_to {
            sql.push_str(" AND a.at < ?");
            args.push(v.clone());
        }
    };
    if let Some(entities) = readable {
        // One arm per entity read from (entity, at), and one for the viewer's entries
        // without an entity from the partial index; SQLite merges the ordered arms and
        // stops at the page's end (migration V32).
        let mut sql = String::new();
        for e in entities {
            sql.push_str(LISTED);
            sql.push_str("a.entity_id = ?");
            args.push(e.clone());
            dates(&mut sql, &mut args);
            sql.push_str("\nUNION ALL\n");
        }
        sql.push_str(LISTED);
        sql.push_str("a.entity_id IS NULL AND a.owner_id = ?");
        args.push(viewer.actor().to_owned());
        dates(&mut sql, &mut args);
        sql.push_str(&format!(
            " ORDER BY 2 DESC, 1 DESC LIMIT {} OFFSET {}",
            f.limit, f.offset
        ));
        return (sql, args);
    }
    let mut sql = String::from(LISTED);
    let filtered = f.entity_id.is_some() || f.record_id.is_some() || f.user_id.is_some();
    if f.entity_id.is_none() {
        // A record's or a user's entries, read from their index newest first and kept
        // to the entities the viewer may read and their own entries without an entity
        // (kept under their id as `owner_id`); the unary `+` keeps SQLite on that index.
        // (Without either, this is the walk of the whole trail by number for a reader
        // in more than [`MAX_STREAMS`] entities.)
        sql.push_str(&format!(
            "(+a.entity_id IN ({}) OR (+a.entity_id IS NULL AND +a.owner_id = ?))",
            crate::scope::access::entities_where(Cap::Vat)
        ));
        args.push(viewer.actor().to_owned());
        args.push(viewer.actor().to_owned());
    } else {
        // Checked when the filters were read.
        sql.push('1');
    }
    let mut add = |cond: &str, v: &Option<String>| {
        if let Some(v) = v {
            sql.push_str(cond);
            args.push(v.clone());
        }
    };
    add(" AND a.entity_id = ?", &f.entity_id);
    add(" AND a.record_id = ?", &f.record_id);
    add(" AND a.user_id = ?", &f.user_id);
    dates(&mut sql, &mut args);
    // Newest first by time, ties by number, read from (entity, at), (record, at) or
    // (user, at); the walk of the whole trail goes by number, the order entries are
    // written in.
    let order = if filtered {
        "a.at DESC, a.id DESC"
    } else {
        "a.id DESC"
    };
    sql.push_str(&format!(
        " ORDER BY {order} LIMIT {} OFFSET {}",
        f.limit, f.offset
    ));
    (sql, args)
}

/// A page of the trail `viewer` may read, newest first (docs/audit.md#reading-the-trail):
/// the entries of the entities they own and of their records without an entity, and
/// their own sign-ins (both kept under their id as `owner_id` today).
pub fn list(
    conn: &Connection,
    viewer: &Scope,
    f: &Filters,
    each: &mut dyn FnMut(Listed) -> AppResult<bool>,
) -> AppResult<()> {
    let streams = if f.entity_id.is_none() && f.record_id.is_none() && f.user_id.is_none() {
        Some(readable_entities(conn, viewer)?).filter(|e| e.len() <= MAX_STREAMS)
    } else {
        None
    };
    let (sql, args) = list_sql(viewer, f, streams.as_deref());
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    while let Some(r) = rows.next()? {
        // Damage on disk (docs/operations.md#damaged-records) shows, it does not stop the
        // page.
        let changes = r
            .get_ref(8)
            .map(crate::db::audit::lossy)?
            .unwrap_or_default();
        let entry = Listed {
            id: r.get(0)?,
            at: r.get(1)?,
            user_id: r.get(2)?,
            user_email: r.get(3)?,
            action: r.get(4)?,
            record_type: r.get(5)?,
            record_id: r.get(6)?,
            entity_id: r.get(7)?,
            changes: RawValue::from_string(changes.clone()).or_else(|_| {
                RawValue::from_string(Value::String(changes).to_string())
                    .map_err(|e| AppError::internal(format!("an audit entry's changes: {e}")))
            })?,
        };
        if !each(entry)? {
            break;
        }
    }
    Ok(())
}

/// The CSV columns of the trail.
pub const CSV_HEADER: &str =
    "id,at,user_id,user_email,action,record_type,record_id,entity_id,changes";

/// One entry as a CSV row (quoted and formula-safe as every CSV of ours).
pub fn push_csv(out: &mut Vec<u8>, e: &Listed) {
    out.extend_from_slice(e.id.to_string().as_bytes());
    for c in [
        e.at.as_str(),
        e.user_id.as_deref().unwrap_or(""),
        e.user_email.as_deref().unwrap_or(""),
        e.action.as_str(),
        e.record_type.as_str(),
        e.record_id.as_deref().unwrap_or(""),
        e.entity_id.as_deref().unwrap_or(""),
        e.changes.get(),
    ] {
        out.push(b',');
        csv_cell(out, c);
    }
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Synchronous;
    use crate::db::Db;

    /// Every filter reads a page from an index in the trail's order: no scan of the
    /// trail and no sort, however many entries it holds (docs/audit.md#reading-the-trail).
    #[test]
    fn every_filter_reads_its_page_from_an_index_without_sorting() {
        let db = Db::open(":memory:", Synchronous::Normal).unwrap();
        let some = |v: &str| Some(v.to_owned());
        let base = Filters {
            limit: 100,
            ..Filters::default()
        };
        let cases = [
            base.clone(),
            Filters {
                entity_id: some("e"),
                ..base.clone()
            },
            Filters {
                record_id: some("r"),
                ..base.clone()
            },
            Filters {
                user_id: some("u"),
                ..base.clone()
            },
            Filters {
                entity_id: some("e"),
                date_from: some("2026-01-01"),
                date_to: some("2026-02-01"),
                ..base.clone()
            },
            Filters {
                record_id: some("r"),
                date_from: some("2026-01-01"),
                ..base.clone()
            },
            Filters {
                user_id: some("u"),
                date_from: some("2026-01-01"),
                date_to: some("2026-02-01"),
                ..base.clone()
            },
        ];
        let month = Filters {
            date_from: some("2026-01-01"),
            date_to: some("2026-02-01"),
            ..base.clone()
        };
        let two = ["e1".to_owned(), "e2".to_owned()];
        // Without a filter: one stream per readable entity (none, one, two) and the
        // viewer's own, with and without dates.
        let streams: [(&Filters, &[String]); 6] = [
            (&base, &[]),
            (&base, &two[..1]),
            (&base, &two),
            (&month, &[]),
            (&month, &two[..1]),
            (&month, &two),
        ];
        let queries = cases
            .iter()
            .map(|f| (f, None))
            .chain(streams.iter().map(|(f, e)| (*f, Some(*e))));
        for (f, readable) in queries {
            let (sql, args) = list_sql(&Scope::user("owner"), f, readable);
            let plan: Vec<String> = db
                .read_sync(|c| {
                    let mut s = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                    let rows = s
                        .query_map(params_from_iter(args.iter()), |r| r.get::<_, String>(3))?
                        .collect::<Result<_, _>>()?;
                    Ok(rows)
                })
                .unwrap();
            let on_trail: Vec<&String> = plan.iter().filter(|p| p.contains(" a ")).collect();
            assert!(
                on_trail
                    .iter()
                    .all(|p| p.starts_with("SEARCH a USING INDEX")),
                "{f:?}: {plan:?}"
            );
            assert!(
                !plan.iter().any(|p| p.contains("TEMP B-TREE")),
                "{f:?}: {plan:?}"
            );
        }
    }
}
