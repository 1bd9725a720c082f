//! Accounting records (docs/accounting.md): contacts, invoices and bills with line items,
//! expenses, expense categories, employees, bank transactions, projects, time entries
//! and recurring invoice templates.
//!
//! Each resource module holds its record type, its SQL and its rules, implements
//! [`resource::Resource`] (list, create, update, delete through a [`crate::scope::Scope`])
//! and exposes its session routes. The public API (`crate::v1`) calls the same
//! functions, so both surfaces validate alike.

pub mod common;
pub mod resource;

pub mod contacts;
pub mod currency;
pub mod documents;
pub mod employees;
pub mod expense_categories;
pub mod expenses;
pub mod lines;
pub mod money;
pub mod openapi;
pub mod payments;
pub mod projects;
pub mod recurring_invoices;
pub mod time_entries;
pub mod transactions;
pub mod vat_check;

use rocket::Route;

/// Every session route of the accounting records, to mount at `/api`.
pub fn routes() -> Vec<Route> {
    [
        contacts::routes(),
        documents::routes(),
        payments::routes(),
        expenses::routes(),
        expense_categories::routes(),
        employees::routes(),
        transactions::routes(),
        projects::routes(),
        time_entries::routes(),
        recurring_invoices::routes(),
        money::routes(),
    ]
    .concat()
}
