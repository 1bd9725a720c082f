//! The VAT return (docs/vat.md): the nine boxes computed from the records on
//! the entity's scheme, the lines that make up each box, adjustments, and the returns filed.
//!
//! - [`boxes`]: the nine boxes, as HMRC names them.
//! - [`compute`]: the computation and the drill-down over one pass of the period's lines.
//! - [`adjustments`], [`returns`]: the records (`/api/vat/adjustments`, `/api/vat/returns`);
//!   [`filed`] the returns as kept, [`periods`] the quarters (`/api/vat/periods`).

use rocket::{routes, Route};

pub mod adjustments;
pub mod boxes;
pub mod check;
pub mod compute;
pub mod filed;
pub mod line;
pub mod openapi;
pub mod period;
pub mod periods;
pub mod returns;

pub fn routes() -> Vec<Route> {
    let mut r = Vec::new();
    // The return, its drill-down and the adjustments.
    r.extend(routes![
        period::route_return,
        period::route_lines,
        adjustments::route_list,
        adjustments::route_create,
        adjustments::route_update,
        adjustments::route_delete
    ]);
    // Filed returns and the periods.
    // (`POST /api/vat/returns` is mounted by `hmrc`, which records a return filed
    // elsewhere through `returns::record` or submits it to HMRC.)
    r.extend(routes![returns::route_list, periods::route_periods]);
    r
}
