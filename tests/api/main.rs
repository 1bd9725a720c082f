//! The in-process tests, in one binary: each test builds a fresh app over a fresh in-memory
//! database (`database`: a temporary file) and drives it through Rocket's local client
//! (see `common`), or calls the library directly (`import_parse`, `connectors`). One
//! module per subject.
//!
//! They share one binary because each test binary links the whole of Stockbook and Rocket
//! again. Kept apart in `tests/`: what needs a process of its own (the browser tests, the
//! crash test, concurrency on a real database file), the half-minute ledger property test
//! (so that `cargo test --test api` stays quick) and the module graph check (which does
//! not link Stockbook at all).

#[path = "../common/mod.rs"]
mod common;
mod platform_mocks;

mod accounting;
mod api_contract;
mod api_keys;
mod app;
mod audit;
mod auth;
mod books;
mod config;
mod connectors;
mod credits;
mod damage;
mod dashboard_money;
mod database;
mod documents_stock;
mod entities;
mod errors;
mod exact_amounts;
mod faults_storage;
mod hmrc;
mod idempotency;
mod identifiers;
mod import_api;
mod import_books;
mod import_books_csv;
mod import_books_freeagent;
mod import_csv;
mod import_fill;
mod import_layouts_books;
mod import_parse;
mod import_real;
mod input_bounds;
mod limits_text;
mod locations;
mod lock_currency;
mod members;
mod movements;
mod openapi;
mod outbound;
mod payments;
mod print;
mod products;
mod put_away;
mod reports;
mod roles_matrix;
mod rules;
mod rules_auth;
mod rules_support;
mod rules_webhooks;
mod secrets;
mod sessions;
mod stock;
mod stock_takes;
mod transfers;
mod two_factor;
mod v1;
mod v1_records;
mod v1_stock;
mod valuation_page;
mod vat;
mod vat_check;
mod vat_return;
mod vat_returns;
mod webhooks;
