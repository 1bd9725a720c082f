//! The filters the stock reports share (docs/inventory.md#low-stock-alerts,
//! docs/inventory.md#valuation-report): `entityId` and `locationId`, resolved through the
//! caller's [`Scope`].

use rusqlite::Connection;

use super::lookup::location_ref;
use crate::error::AppResult;
use crate::http::body::parse_opt_id;
use crate::scope::{same_entity, Scope};

/// Resolves the `entityId` and `locationId` filters: 400 malformed, 404 unknown or
/// foreign, 400 when the location is of another entity than the one asked for.
pub fn resolve_filters(
    conn: &Connection,
    scope: &Scope,
    entity: Option<&str>,
    location: Option<&str>,
) -> AppResult<(Option<String>, Option<String>)> {
    let entity = scope.entity_opt(conn, "entityId", entity)?;
    let location = match parse_opt_id("locationId", location)? {
        Some(id) => {
            let loc = location_ref(conn, scope, &id)?;
            if let Some(e) = &entity {
                same_entity("locationId", Some(&loc.entity_id), Some(e))?;
            }
            Some(loc.id)
        }
        None => None,
    };
    Ok((entity, location))
}
