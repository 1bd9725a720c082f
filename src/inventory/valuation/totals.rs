//! The valuation's summary (docs/inventory.md#valuation-report): exact sums of the rows'
//! unrounded values, rounded once; `avgMargin`, the mean of the unrounded margins of
//! the distinct products with a row; and `retailMargin`, the margin of the stock at
//! retail value over the products with a selling price, with `unpricedProducts`, how
//! many it leaves out. The page's totals by location and by category are
//! the same [`Sums`] over their rows.

use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Serialize;

use super::read::{Product, Report, Row};
use crate::db::decimal::ser_decimal;
use crate::error::AppResult;
use crate::inventory::transfers::in_transit;
use crate::inventory::value::{margin, money, round2, units};

/// The summary of the valuation report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValuationSummary {
    #[serde(serialize_with = "ser_decimal")]
    pub total_cost_value: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub total_retail_value: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub total_units: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub avg_margin: Decimal,
    #[serde(serialize_with = "ser_opt_decimal")]
    pub retail_margin: Option<Decimal>,
    pub unpriced_products: u32,
    #[serde(serialize_with = "ser_decimal")]
    pub in_transit_units: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub in_transit_cost_value: Decimal,
}

/// The summary of the valuation as at a date: no in-transit figures
/// (docs/documents-stock.md#stock-as-at-a-date).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AsOfSummary {
    #[serde(serialize_with = "ser_decimal")]
    pub total_cost_value: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub total_retail_value: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub total_units: Decimal,
    #[serde(serialize_with = "ser_decimal")]
    pub avg_margin: Decimal,
    #[serde(serialize_with = "ser_opt_decimal")]
    pub retail_margin: Option<Decimal>,
    pub unpriced_products: u32,
}

/// The summary of the report now or as at a day.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Summary {
    Now(ValuationSummary),
    AsOf(AsOfSummary),
}

/// Exact sums over some rows (scaled integers).
#[derive(Default, Clone, Copy)]
pub struct Sums {
    pub rows: u64,
    pub units: i128,
    pub cost: i128,
    pub retail: i128,
}

impl Sums {
    pub fn add(&mut self, qty: i64, p: &Product) {
        let q = i128::from(qty);
        self.rows += 1;
        self.units += q;
        self.cost += q * i128::from(p.cost);
        self.retail += q * i128::from(p.unit);
    }
}

/// The summary's running figures, added to row by row in report order.
pub struct Totals {
    pub all: Sums,
    /// Per product rank: whether its margin is counted yet.
    counted: Vec<bool>,
    margin_sum: Decimal,
    with_rows: u32,
    /// The rows of products with a selling price (above 0).
    priced: Sums,
    /// Distinct products with a row and no selling price.
    unpriced: u32,
}

impl Totals {
    pub fn new(products: usize) -> Self {
        Self {
            all: Sums::default(),
            counted: vec![false; products],
            margin_sum: Decimal::ZERO,
            with_rows: 0,
            priced: Sums::default(),
            unpriced: 0,
        }
    }

    pub fn add(&mut self, r: Row, p: &Product) {
        self.all.add(r.qty, p);
        if p.unit > 0 {
            self.priced.add(r.qty, p);
        }
        // The mean margin is over the distinct products with a row: counted once each.
        let counted = &mut self.counted[r.prod as usize];
        if !*counted {
            *counted = true;
            self.margin_sum += margin(p.unit, p.cost);
            self.with_rows += 1;
            if p.unit <= 0 {
                self.unpriced += 1;
            }
        }
    }

    /// The summary of every row added, with the in-transit figures of the report now.
    pub fn summary(&self, conn: &Connection, report: &Report<'_>) -> AppResult<Summary> {
        let avg_margin = if self.with_rows == 0 {
            Decimal::ZERO
        } else {
            round2(self.margin_sum / Decimal::from(self.with_rows))
        };
        let retail_margin = retail_margin(&self.priced);
        let unpriced_products = self.unpriced;
        let all = self.all;
        if report.is_as_of() {
            return Ok(Summary::AsOf(AsOfSummary {
                total_cost_value: money(all.cost),
                total_retail_value: money(all.retail),
                total_units: units(all.units),
                avg_margin,
                retail_margin,
                unpriced_products,
            }));
        }
        let (transit_units, transit_cost) =
            in_transit(conn, report.scope, report.entity, report.location)?;
        Ok(Summary::Now(ValuationSummary {
            total_cost_value: money(all.cost),
            total_retail_value: money(all.retail),
            total_units: units(all.units),
            avg_margin,
            retail_margin,
            unpriced_products,
            in_transit_units: units(transit_units),
            in_transit_cost_value: money(transit_cost),
        }))
    }
}

/// Σ(retail − cost) / Σ retail × 100 over `priced` rows, unrounded sums rounded once;
/// None when they hold no retail value.
fn retail_margin(priced: &Sums) -> Option<Decimal> {
    if priced.retail == 0 {
        return None;
    }
    let diff = Decimal::from_i128_with_scale(priced.retail - priced.cost, 0);
    let retail = Decimal::from_i128_with_scale(priced.retail, 0);
    Some(round2(diff * Decimal::ONE_HUNDRED / retail))
}

/// A figure that may be absent: a JSON number, or null.
fn ser_opt_decimal<S: serde::Serializer>(v: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(d) => ser_decimal(d, s),
        None => s.serialize_none(),
    }
}
