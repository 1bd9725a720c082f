//! Damage inside records (docs/operations.md#damaged-records): every row of every table
//! the server reads, read as the server reads it. SQLite's integrity check looks at pages
//! and indexes, not values, so a file can pass it and still hold a value the server cannot
//! convert; this names each such row by table, id and column.
//!
//! What each column must hold comes from two places: its declared type in the schema
//! (`TEXT`: text that is valid UTF-8; `INTEGER`: a whole number, which is also how every
//! quantity, price and amount is stored, scaled, in `crate::db::decimal`), and [`rules`]:
//! the value sets and dates, taken from the code that defines them.

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::accounting::documents::DocKind;
use crate::accounting::{contacts, currency, projects, recurring_invoices};
use crate::db::damage::id_text;
use crate::error::DamagedRecord;
use crate::inventory::ledger::MovementType;
use crate::inventory::locations;
use crate::inventory::stock_takes::StockTakeStatus;
use crate::inventory::transfers::TransferStatus;

/// Damaged rows listed per table before the rest are only counted.
const SHOWN_PER_TABLE: usize = 20;

/// What a column's text must be, beyond valid UTF-8.
#[derive(Clone, Copy)]
enum Rule {
    /// One of a fixed set: accepted by the server's own parser.
    Parses(fn(&str) -> bool, &'static str),
    /// One of a fixed set, as a list.
    OneOf(&'static [&'static str]),
    /// A `YYYY-MM-DD` calendar day (`crate::http::body::parse_date`).
    Date,
}

/// The columns with a rule of their own: `(table, column, rule)`.
fn rules() -> Vec<(&'static str, &'static str, Rule)> {
    let mut out = vec![
        (
            "stock_movements",
            "type",
            Rule::Parses(|s| MovementType::parse(s).is_some(), "a movement type"),
        ),
        (
            "warehouse_locations",
            "status",
            Rule::Parses(|s| locations::check_status(s).is_ok(), "a location status"),
        ),
        (
            "transfer_orders",
            "status",
            Rule::Parses(
                |s| TransferStatus::from_db(0, s).is_ok(),
                "a transfer order status",
            ),
        ),
        (
            "stock_takes",
            "status",
            Rule::Parses(
                |s| StockTakeStatus::from_db(0, s).is_ok(),
                "a stock take status",
            ),
        ),
        ("contacts", "type", Rule::OneOf(contacts::TYPES)),
        ("projects", "status", Rule::OneOf(projects::STATUSES)),
        (
            "recurring_invoices",
            "interval",
            Rule::OneOf(recurring_invoices::INTERVALS),
        ),
        (
            "recurring_invoices",
            "status",
            Rule::OneOf(recurring_invoices::STATUSES),
        ),
        ("recurring_invoices", "next_date", Rule::Date),
        ("stock_movements", "date", Rule::Date),
        ("product_cost_history", "date", Rule::Date),
        ("expenses", "date", Rule::Date),
        ("transactions", "date", Rule::Date),
        ("time_entries", "date", Rule::Date),
        ("entities", "lock_date", Rule::Date),
        ("expenses", "currency", Rule::OneOf(currency::CODES)),
        ("payments", "date", Rule::Date),
    ];
    for table in [
        "recurring_invoice_lines",
        "products",
        "expenses",
        "expense_categories",
    ] {
        out.push((table, "vat_treatment", Rule::OneOf(crate::vat::TREATMENTS)));
    }
    for kind in DocKind::ALL {
        out.push((
            kind.lines_table(),
            "vat_treatment",
            Rule::OneOf(crate::vat::TREATMENTS),
        ));
        out.push((kind.table(), "status", Rule::OneOf(kind.statuses())));
        out.push((kind.table(), "issue_date", Rule::Date));
        out.push((kind.table(), "due_date", Rule::Date));
        out.push((kind.table(), "currency", Rule::OneOf(currency::CODES)));
    }
    out
}

/// What a column holds by its declared type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stored {
    Text,
    Integer,
    /// A type the server reads as it comes (none in the schema today).
    Any,
}

impl Stored {
    /// SQLite's affinity rules, as far as the schema uses them.
    fn of(declared: &str) -> Self {
        let t = declared.to_ascii_uppercase();
        if t.contains("INT") {
            Self::Integer
        } else if t.contains("CHAR") || t.contains("TEXT") || t.contains("CLOB") {
            Self::Text
        } else {
            Self::Any
        }
    }
}

struct Column {
    name: String,
    stored: Stored,
    rule: Option<Rule>,
}

/// Every damaged row of every table, in words (`DamagedRecord`'s, as the server says it).
pub fn damaged_rows(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let rules = rules();
    let mut found = Vec::new();
    for (table, without_rowid) in tables(conn)? {
        let columns = columns(conn, &table, &rules)?;
        found.extend(damaged_in(conn, &table, without_rowid, &columns)?);
    }
    Ok(found)
}

/// The tables of the schema (not SQLite's own, a virtual table's or its shadow tables:
/// those hold the search index, which SQLite's integrity check covers).
fn tables(conn: &Connection) -> rusqlite::Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare(
        "SELECT name, wr FROM pragma_table_list
         WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'
         ORDER BY name",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

fn columns(
    conn: &Connection,
    table: &str,
    rules: &[(&str, &str, Rule)],
) -> rusqlite::Result<Vec<Column>> {
    let mut stmt = conn.prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid")?;
    let rows = stmt.query_map([table], |r| {
        let name: String = r.get(0)?;
        let declared: String = r.get(1)?;
        let rule = rules
            .iter()
            .find(|(t, c, _)| *t == table && *c == name)
            .map(|(_, _, rule)| *rule);
        Ok(Column {
            name,
            stored: Stored::of(&declared),
            rule,
        })
    })?;
    rows.collect()
}

/// The damaged rows of one table, each named by its `id` (or its rowid, or its place in
/// the table when it has neither).
fn damaged_in(
    conn: &Connection,
    table: &str,
    without_rowid: bool,
    columns: &[Column],
) -> rusqlite::Result<Vec<String>> {
    let key = if columns.iter().any(|c| c.name == "id") {
        "\"id\""
    } else if without_rowid {
        "NULL"
    } else {
        "rowid"
    };
    let list: Vec<String> = columns.iter().map(|c| quoted(&c.name)).collect();
    let sql = format!("SELECT {key}, {} FROM {}", list.join(", "), quoted(table));
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let (mut found, mut more, mut place) = (Vec::new(), 0_usize, 0_u64);
    while let Some(row) = rows.next()? {
        place += 1;
        for (i, column) in columns.iter().enumerate() {
            let Some(what) = wrong(row.get_ref(i + 1)?, column) else {
                continue;
            };
            if found.len() == SHOWN_PER_TABLE {
                more += 1;
                continue;
            }
            let id = match row.get_ref(0)? {
                ValueRef::Null => format!("at row {place}"),
                v if key == "rowid" => format!("with rowid {}", id_text(v)),
                v => id_text(v),
            };
            let record = DamagedRecord {
                table: table.to_owned(),
                id,
                column: column.name.clone(),
                what,
            };
            found.push(format!("record: {record}"));
        }
    }
    if more > 0 {
        found.push(format!(
            "record: {more} more damaged values in `{table}`, not listed"
        ));
    }
    Ok(found)
}

/// What is wrong with `v` as a value of `column`, in the words of [`DamagedRecord`]
/// ("column `x` holds ..."); `None` when the server reads it.
fn wrong(v: ValueRef<'_>, column: &Column) -> Option<String> {
    match (column.stored, v) {
        (_, ValueRef::Null) | (Stored::Any, _) | (Stored::Integer, ValueRef::Integer(_)) => None,
        (Stored::Integer, other) => {
            Some(format!("{}, where a whole number belongs", describe(other)))
        }
        (Stored::Text, ValueRef::Text(bytes)) => match std::str::from_utf8(bytes) {
            Err(_) => Some("text that is not valid UTF-8".to_owned()),
            Ok(text) => column.rule.and_then(|rule| breaks(rule, text)),
        },
        (Stored::Text, other) => Some(format!("{}, where text belongs", describe(other))),
    }
}

/// What is wrong with valid text under `rule`.
fn breaks(rule: Rule, text: &str) -> Option<String> {
    let shown = || {
        let start: String = text.chars().take(40).collect();
        format!("`{}`", start.escape_debug())
    };
    match rule {
        Rule::Parses(parse, what) => (!parse(text)).then(|| format!("{}, not {what}", shown())),
        Rule::OneOf(set) => (!set.contains(&text)).then(|| {
            format!(
                "{}, not one of {}",
                shown(),
                set.iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
        Rule::Date => crate::http::body::parse_date("date", text)
            .is_err()
            .then(|| format!("{}, not a date in the form YYYY-MM-DD", shown())),
    }
}

fn describe(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => "NULL".to_owned(),
        ValueRef::Integer(i) => format!("the number {i}"),
        ValueRef::Real(f) => format!("the binary fraction {f}"),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(s) => {
                let start: String = s.chars().take(40).collect();
                format!("the text `{}`", start.escape_debug())
            }
            Err(_) => "text that is not valid UTF-8".to_owned(),
        },
        ValueRef::Blob(b) => format!("{} bytes of binary data", b.len()),
    }
}

/// An SQL identifier in double quotes.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    fn db() -> Db {
        Db::open(":memory:", crate::config::Synchronous::Normal).unwrap()
    }

    #[test]
    fn every_rule_names_a_text_column_of_the_schema() {
        let db = db();
        let conn = db.conn().unwrap();
        let rules = rules();
        for (table, column, _) in &rules {
            let found = columns(&conn, table, &rules).unwrap();
            let c = found.iter().find(|c| c.name == *column);
            assert!(
                c.is_some_and(|c| c.stored == Stored::Text && c.rule.is_some()),
                "{table}.{column}"
            );
        }
    }

    #[test]
    fn a_fresh_database_has_no_damaged_row() {
        let db = db();
        assert_eq!(
            damaged_rows(&db.conn().unwrap()).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn each_kind_of_damage_is_named_by_table_id_and_column() {
        let db = db();
        let conn = db.conn().unwrap();
        // Damage comes from the disk, not through the server: its audit trail's triggers
        // (docs/audit.md#how-entries-are-written) would copy the bad text into an entry.
        conn.execute_batch(
            "DROP TRIGGER temp.audit_contacts_create; DROP TRIGGER temp.audit_contacts_update;",
        )
        .unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at)
                 VALUES ('u', 'a@b.c', 'x', '2026-01-01T00:00:00Z');
             INSERT INTO entities (id, owner_id, name, currency, created_at)
                 VALUES ('e', 'u', 'E', 'GBP', '2026-01-01T00:00:00Z');
             INSERT INTO contacts (id, owner_id, entity_id, name, type, created_at, updated_at)
                 VALUES ('c1', 'u', 'e', CAST(x'ff41' AS TEXT), 'customer', 't', 't'),
                        ('c2', 'u', 'e', 'Fine', 'customer', 't', 't');
             INSERT INTO login_failures (email, at) VALUES ('a@b.c', 'soon');",
        )
        .unwrap();
        // Past the CHECK constraint, as damage on disk would be.
        conn.execute_batch(
            "PRAGMA ignore_check_constraints = ON;
             UPDATE contacts SET type = 'vendor' WHERE id = 'c2';",
        )
        .unwrap();
        let found = damaged_rows(&conn).unwrap();
        assert_eq!(
            found,
            [
                "record: the record c1 of `contacts` is damaged: column `name` holds text \
                 that is not valid UTF-8",
                "record: the record c2 of `contacts` is damaged: column `type` holds \
                 `vendor`, not one of `customer`, `supplier`, `both`",
                "record: the record with rowid 1 of `login_failures` is damaged: column `at` \
                 holds the text `soon`, where a whole number belongs",
            ],
            "{found:#?}"
        );
    }
}
