//! Why a file could not be read at all: [`ImportError`]. A leaf of the import module, so the
//! CSV reader ([`super::csv`]) and the writer ([`super::apply`]) can both name it without
//! importing the module's facade.

use crate::error::AppError;
use crate::import::fields::{EntityType, Field};
use crate::import::platform::Platform;

/// Why a file could not be read at all (row problems are [`RowError`](super::csv::RowError)s instead).
/// Every variant is the caller's to fix: a 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("The CSV file is empty")]
    Empty,
    #[error("The CSV file could not be read: {0}")]
    Malformed(String),
    #[error(
        "A CSV header or cell may hold at most 1,024 characters: row {row}, column {column} \
         holds more"
    )]
    CellTooLong { row: usize, column: usize },
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
