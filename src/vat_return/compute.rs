//! The computation (docs/vat.md): one pass over the period's lines on the entity's scheme.

use rusqlite::Connection;
use time::Date;

use super::boxes::Boxes;
use crate::error::AppResult;

/// The nine boxes of `entity_id` (already resolved through the caller's scope) for the
/// period `from`..=`to` on the entity's scheme, adjustments included.
pub fn boxes(_conn: &Connection, _entity_id: &str, _from: Date, _to: Date) -> AppResult<Boxes> {
    todo!("issue 25: the computation lands on branch vatcalc")
}
