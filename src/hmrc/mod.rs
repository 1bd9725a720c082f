//! Filing the VAT return with HMRC: Making Tax Digital for VAT (docs/hmrc.md).
//!
//! - [`client`]: the calls to HMRC's token endpoint and VAT API, and HMRC's refusals.
//! - [`connection`]: an entity's connection (OAuth with PKCE, tokens sealed, refreshes).
//! - [`fraud`]: the fraud-prevention headers every call carries.
//! - [`vat`]: obligations, submission (`POST /api/vat/returns`), a submitted return,
//!   liabilities and payments.

use rocket::{routes, Route};

pub mod client;
pub mod connection;
pub mod fraud;
pub mod openapi;
pub mod vat;

pub use connection::HmrcState;

pub fn routes() -> Vec<Route> {
    routes![
        connection::route_connect,
        connection::route_callback,
        connection::route_status,
        connection::route_forget,
        vat::route_obligations,
        vat::route_liabilities,
        vat::route_payments,
        vat::route_submitted,
        vat::route_returns,
    ]
}
