//! Priced documents with lines: invoices, bills, credit notes and supplier credits, as one
//! resource over a [`DocKind`]
//! (docs/accounting.md#invoices-and-bills, docs/architecture.md#adding-a-resource).
//!
//! The files form a DAG, leaves first:
//!
//! - `kind.rs`: [`DocKind`] and every fact that differs per kind (tables, numbering,
//!   statuses and which are posted, stock direction, webhook event, path);
//! - `record.rs`: the [`Document`] record, its bodies and its row;
//! - `stock.rs`: how a posted document moves stock (docs/documents-stock.md#the-one-rule);
//! - `rules.rs`: list, get, create, update, delete over a kind;
//! - `credits.rs`: a credit's link to the document it credits and the `amount_credited`
//!   both keep (beside `rules.rs`, which calls it and which it calls back to read);
//! - `resource.rs`: the [`resource::Resource`](crate::accounting::resource::Resource)
//!   per kind, its session routes, and the one line that adds a kind;
//! - `print.rs`: what an invoice or credit note shows its customer, and its emails;
//!   `pdf.rs` writes it as a PDF; `send.rs` serves both and sends the email
//!   (docs/accounting.md#printing-and-sending-invoices).

mod credits;
mod kind;
pub mod openapi;
mod pdf;
pub mod print;
mod record;
mod resource;
mod rules;
mod send;
mod stock;

pub use credits::credited_breaches;
pub use kind::{Direction, DocKind, NumberRule, BILL_STATUSES, CREDIT_STATUSES, INVOICE_STATUSES};
pub use record::{CreateDocument, Document, UpdateDocument};
pub use resource::{Bills, CreditNotes, Invoices, Kind, Priced, SupplierCredits};
pub use rules::{
    create, create_with, delete, format_number, get, highest_number_sql, list, Numbering,
    DEFAULT_TERMS_DAYS,
};

/// The session routes of every kind of priced document, and of printing and sending
/// invoices and credit notes, to mount at `/api`.
pub fn routes() -> Vec<rocket::Route> {
    [resource::routes(), send::routes()].concat()
}
