//! Data import (docs/import.md).
//!
//! - Reading (pure): [`csv::parse`] (or, streamed, [`csv::prepare`] +
//!   [`csv::Prepared::each_row`]) reads the CSV exports of the eight accounting platforms
//!   and the generic manual mapping into typed, validated records ([`records`]);
//!   [`parsed_from_rows`] does the same for connector rows (`crate::connectors`).
//! - Storing: [`apply_parsed`] (a whole [`ParsedFile`]) and [`run::stream`] (row by row,
//!   for the CSV endpoints) write records through [`apply::Writer`], inside the caller's
//!   one write transaction, with dedup and row failures.
//! - HTTP: [`routes`] (`POST /api/import/preview`, `POST /api/import/csv`), the
//!   [`ProPlan`] guard every import endpoint uses, and [`body::CsvJson`], the body that
//!   holds the file once.

pub mod apply;
pub mod body;
pub mod connections;
pub mod csv;
pub mod fields;
pub mod migrate;
pub mod oauth;
pub mod openapi;
pub mod platform;
pub mod records;
pub mod routes;
pub mod run;

pub use self::csv::{parse, ParsedFile};
pub use apply::{apply_parsed, parsed_from_rows, ImportOutcome};
pub use fields::{EntityType, Field, FieldSpec};
pub use platform::Platform;
pub use routes::ProPlan;

use crate::error::AppError;

/// Why a file could not be read at all (row problems are [`csv::RowError`]s instead).
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
