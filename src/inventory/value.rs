//! The arithmetic of stock value (docs/inventory.md#valuation-report,
//! docs/inventory.md#dashboard-figures): quantities and prices are the scaled integers
//! SQLite stores ([`Qty`] and [`Price`] places), their products are multiplied and summed
//! exactly in `i128`, and rounded half away from zero to 2 places only where they are
//! shown. Row values are rounded each; totals are sums of the unrounded values, rounded
//! once; a mean margin is the mean of the unrounded margins.

use rust_decimal::Decimal;

use crate::db::decimal::{round, round_scaled, scaled_decimal, Money, Price, Qty};

/// Decimal places of quantities, prices, and their products (values).
pub const QTY_PLACES: u32 = Qty::PLACES;
pub const PRICE_PLACES: u32 = Price::PLACES;
pub const VALUE_PLACES: u32 = QTY_PLACES + PRICE_PLACES;
/// Shown money and percentages.
pub const SHOWN_PLACES: u32 = Money::PLACES;

/// A value (quantity × price) rounded to 2 places, as a scaled integer.
pub fn shown(v: i128) -> i128 {
    round_scaled(v, VALUE_PLACES, SHOWN_PLACES)
}

/// A value (quantity × price) rounded to 2 places, as a decimal.
pub fn money(v: i128) -> Decimal {
    scaled_decimal(shown(v), SHOWN_PLACES)
}

/// A quantity (a sum of scaled quantities) as a decimal.
pub fn units(v: i128) -> Decimal {
    scaled_decimal(v, QTY_PLACES)
}

/// A computed figure rounded to 2 places for showing.
pub fn round2(d: Decimal) -> Decimal {
    round(d, SHOWN_PLACES)
}

/// `(unit_price - cost_price) / unit_price * 100`, unrounded; 0 when the unit price is 0.
pub fn margin(unit_price: i64, cost_price: i64) -> Decimal {
    if unit_price == 0 {
        return Decimal::ZERO;
    }
    let diff = Decimal::new(unit_price - cost_price, PRICE_PLACES) * Decimal::ONE_HUNDRED;
    diff / Decimal::new(unit_price, PRICE_PLACES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margin_is_zero_without_a_unit_price() {
        assert_eq!(margin(0, 5), Decimal::ZERO);
        assert_eq!(margin(20_000, 15_000), Decimal::from(25));
        assert_eq!(
            margin(100_000_000, 100_000_001).to_string().chars().next(),
            Some('-')
        );
        // A negative margin that rounds to zero shows as 0, not -0.
        assert_eq!(round2(margin(100_000_000, 100_000_001)).to_string(), "0");
    }
}
