//! Stockbook: inventory and small-business accounting for UK businesses, served from one
//! binary over one SQLite file. See docs/architecture.md#layout for the layout.

pub mod accounting;
pub mod api_keys;
pub mod app;
pub mod audit;
pub mod auth;
pub mod clock;
pub mod config;
pub mod connectors;
pub mod ctx;
pub mod db;
pub mod entities;
pub mod error;
pub mod hmrc;
pub mod http;
pub mod idempotency;
pub mod import;
pub mod inventory;
pub mod mail;
pub mod members;
pub mod mfa;
pub mod openapi;
pub mod ops;
pub mod outbound;
pub mod request_id;
pub mod scope;
pub mod v1;
pub mod vat;
pub mod vat_return;
pub mod webhooks;

pub use app::{build_rocket, App};
