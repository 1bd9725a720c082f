//! Data import (§4.10, DECISIONS §11).
//!
//! This part is pure: it reads what platforms export and hands back typed, validated
//! records ([`records`]) for the storing step, which runs them in one `db.write`
//! transaction. [`csv::parse`] reads the CSV exports of the eight accounting platforms
//! and the generic manual mapping.

pub mod csv;
pub mod fields;
pub mod platform;
pub mod records;

pub use self::csv::{parse, ParsedFile};
pub use fields::{EntityType, Field, FieldSpec};
pub use platform::Platform;

use crate::error::AppError;

/// Why a file could not be read at all (row problems are [`csv::RowError`]s instead).
/// Every variant is the caller's to fix: a 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("The CSV file is empty")]
    Empty,
    #[error("The CSV file could not be read: {0}")]
    Malformed(String),
    #[error("Unknown platform `{0}`")]
    UnknownPlatform(String),
    #[error("`{0}` has no CSV import")]
    NoCsvImport(Platform),
    #[error("`{platform}` exports cannot supply `{entity}`")]
    Unsupported {
        platform: Platform,
        entity: EntityType,
    },
    #[error("The file looks like a {layout} ({found}), not {requested}")]
    EntityMismatch {
        layout: &'static str,
        found: EntityType,
        requested: EntityType,
    },
    #[error("Could not tell which kind of data the file holds: give the entityType")]
    EntityTypeNeeded,
    #[error("The mapping names column `{0}`, which is not in the file")]
    UnknownColumn(String),
    #[error("`{field}` is not a field of {entity}")]
    UnknownField { field: String, entity: EntityType },
    #[error("Field `{0}` is mapped from more than one column")]
    DuplicateField(Field),
}

impl From<ImportError> for AppError {
    fn from(e: ImportError) -> Self {
        AppError::bad_request(e.to_string())
    }
}
