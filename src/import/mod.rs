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
pub mod error;
pub mod fields;
pub mod migrate;
pub mod oauth;
pub mod openapi;
pub mod platform;
pub mod records;
pub mod routes;
pub mod run;
pub mod tax_codes;

pub use self::csv::{parse, ParsedFile};
pub use apply::{apply_parsed, parsed_from_rows, ImportOutcome};
pub use error::ImportError;
pub use fields::{EntityType, Field, FieldSpec};
pub use platform::Platform;
pub use routes::ProPlan;
