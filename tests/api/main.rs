//! The in-process tests, in one binary: each test builds a fresh app over a fresh in-memory
//! database and drives it through Rocket's local client (see `common`), or calls the
//! library directly (`import_parse`, `connectors`). One module per subject.
//!
//! They share one binary because each test binary links the whole of Stockbook and Rocket
//! again; tests that need a process of their own (the browser, the crash, concurrency on a
//! real database file, the ledger property test, the module graph) keep their own files in
//! `tests/`.

#[path = "../common/mod.rs"]
mod common;
mod platform_mocks;

mod accounting;
mod api_keys;
mod app;
mod auth;
mod config;
mod connectors;
mod database;
mod entities;
mod errors;
mod import_api;
mod import_csv;
mod import_parse;
mod locations;
mod movements;
mod openapi;
mod products;
mod reports;
mod stock;
mod stock_takes;
mod transfers;
mod v1;
