//! Inventory: products, warehouse locations, stock rows, the movement ledger, transfer
//! orders, stock takes and the reports built on them.
//!
//! Every change of a stock quantity goes through [`ledger::apply_movement`], in the
//! caller's `BEGIN IMMEDIATE` transaction, so the invariants of
//! docs/ledger.md#invariants hold after every request.
//!
//! This file only declares the modules and collects their routes; what several of them
//! share lives in [`lookup`] (products and locations by id) and [`documents`] (the
//! numbered documents with lines: transfer orders and stock takes).

pub mod alerts;
pub mod check;
pub mod dashboard;
pub mod documents;
pub mod events;
pub mod filters;
pub mod ledger;
pub mod locations;
pub mod lookup;
pub mod margin;
pub mod movements;
pub mod openapi;
pub mod products;
pub mod put_away;
pub mod stock;
pub mod stock_rows;
pub mod stock_takes;
pub mod transfers;
pub mod valuation;
pub mod value;

// The lookups under their older paths (`inventory::product_ref`), which tests use.
pub use lookup::{location_ref, product_ref, LocationRef, ProductRef};

/// The session routes of the inventory.
pub fn routes() -> Vec<rocket::Route> {
    let mut r = products::routes();
    r.extend(locations::routes());
    r.extend(stock::routes());
    r.extend(movements::routes());
    r.extend(put_away::routes());
    r.extend(transfers::routes());
    r.extend(stock_takes::routes());
    r.extend(alerts::routes());
    r.extend(dashboard::routes());
    r.extend(valuation::routes());
    r.extend(rocket::routes![margin::gross_margin_report]);
    r
}
