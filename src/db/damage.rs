//! Naming a damaged record (docs/operations.md#damaged-records): a row reader wrapped with
//! [`named`] (or calling [`name_record`]) fails on a value it cannot convert (text that is
//! not UTF-8, a number stored as text, a status outside its set) with a [`DamagedRecord`]
//! naming the table, the record's id and the column, read from SQLite's column metadata.
//! `AppError` answers it with a 503 that points to `stockbook check`; a reader that is not
//! wrapped answers the same 503, naming the column only.

use rusqlite::types::{Type, ValueRef};
use rusqlite::Row;

use crate::error::{conversion_failure, DamagedRecord};

/// `map`, with a conversion failure turned into a [`DamagedRecord`].
pub fn named<T>(
    mut map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> impl FnMut(&Row<'_>) -> rusqlite::Result<T> {
    move |row| map(row).map_err(|e| name_record(row, e))
}

/// `e`, when it is a value of `row` that could not be converted, as a [`DamagedRecord`]:
/// the table and column the value was read from and the `id` of that table's row (when
/// the statement selects it); any other error, or a value computed rather than read from a
/// table, unchanged.
pub fn name_record(row: &Row<'_>, e: rusqlite::Error) -> rusqlite::Error {
    let Some((idx, name, what)) = conversion_failure(&e) else {
        return e;
    };
    let stmt = row.as_ref();
    let columns = stmt.columns_with_metadata();
    let origin = columns.get(idx);
    let Some(table) = origin.and_then(|c| c.table_name()) else {
        return e;
    };
    let column = origin
        .map(|c| c.origin_name().unwrap_or(c.name()))
        .or(name)
        .unwrap_or("?");
    let id = columns
        .iter()
        .position(|c| c.table_name() == Some(table) && c.origin_name() == Some("id"))
        .and_then(|i| row.get_ref(i).ok())
        .map_or_else(|| "?".to_owned(), id_text);
    let record = DamagedRecord {
        table: table.to_owned(),
        id,
        column: column.to_owned(),
        what,
    };
    rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(record))
}

/// An id as it can be shown, even when it is itself damaged.
pub fn id_text(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => "?".to_owned(),
    }
}
