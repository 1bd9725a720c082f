//! Exact decimals from the JSON parser to the database and back.
//!
//! Each kind of number is a newtype over [`Decimal`] with a fixed number of decimal
//! places. JSON carries them as numbers (serde_json's `arbitrary_precision` keeps the
//! digits exactly as sent); SQLite stores them as INTEGERs scaled by 10^places, so SQL can
//! `SUM` and compare them exactly and no value ever becomes a binary float.
//!
//! Parsing refuses more decimal places than the kind allows (trailing zeros do not
//! count) and magnitudes above 10^12: a 400, never a silent rounding
//! (docs/conventions.md#decimals-and-rounding). A value the service computed (a stock
//! total, a document total) that does not fit the stored 64-bit integer is never
//! saturated: writing it fails with [`TooLarge`], a 409.

use std::fmt;
use std::str::FromStr;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::TooLarge;

/// Largest magnitude accepted from a client.
pub const MAX_MAGNITUDE: i64 = 1_000_000_000_000;

/// Parses a decimal from text as a JSON number or CSV cell writes it (`12`, `-0.5`, `1e3`).
pub fn parse_decimal(s: &str) -> Option<Decimal> {
    let s = s.trim();
    if s.contains(['e', 'E']) {
        Decimal::from_scientific(s).ok()
    } else {
        Decimal::from_str_exact(s).ok()
    }
}

/// A decimal sent by a client, as a JSON number (`19.99`) or as a JSON string holding a
/// plain decimal (`"19.99"`), so that clients whose JSON numbers are binary floats can
/// send amounts exactly (docs/public-api.md#exact-amounts). A string takes an optional
/// minus sign, digits and an optional point followed by digits: no exponent, no spaces,
/// no `+`, no thousands separators.
pub fn de_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    use serde::de::Error;
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => {
            parse_decimal(n.as_str()).ok_or_else(|| D::Error::custom("not a decimal number"))
        }
        serde_json::Value::String(s) if is_plain_decimal(&s) => Decimal::from_str_exact(&s)
            .map_err(|_| D::Error::custom(format!("`{s}` is beyond the supported range"))),
        serde_json::Value::String(s) => Err(D::Error::custom(format!(
            "`{}` is not a decimal: write digits with an optional point, like \"19.99\"",
            s.chars().take(40).collect::<String>()
        ))),
        other => Err(D::Error::custom(format!(
            "expected a number or a string holding a decimal, found {}",
            kind_of(&other)
        ))),
    }
}

/// `-12.50`, `3`, `0.125`: what [`de_decimal`] takes from a string: an optional minus, one
/// to twelve digits (below the 10^12 bound), then optionally a point and digits. The
/// OpenAPI document states the same rule as a `pattern` (`crate::http::openapi`).
pub fn is_plain_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, frac) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    let all_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    all_digits(whole) && whole.len() <= 12 && frac.is_none_or(all_digits)
}

fn kind_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
    }
}

/// Checks places and magnitude; the error text completes "Invalid value for field `x`: ".
pub fn check(value: Decimal, places: u32) -> Result<Decimal, String> {
    let v = value.normalize();
    if v.abs() > Decimal::from(MAX_MAGNITUDE) {
        return Err("magnitude above 10^12".to_owned());
    }
    if v.scale() > places {
        return Err(format!("at most {places} decimal places"));
    }
    Ok(v)
}

/// Rounds half away from zero to `dp` places (the service's one rounding rule).
pub fn round(value: Decimal, dp: u32) -> Decimal {
    value
        .round_dp_with_strategy(dp, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
        .normalize()
}

/// Rounds an integer scaled by 10^`from` to one scaled by 10^`to` (`to <= from`), half
/// away from zero: the rule of [`round`] without a [`Decimal`] per value, for reports
/// that sum millions of stored values exactly in `i128`.
pub fn round_scaled(v: i128, from: u32, to: u32) -> i128 {
    // 64-bit division is done by the CPU; 128-bit division is a library call. Every
    // realistic value fits in 64 bits, and the valuation report rounds 2.5 million of them.
    if let (Ok(small), true) = (i64::try_from(v), from - to <= 18) {
        let d = 10_i64.pow(from - to);
        let (q, r) = (small / d, small % d);
        return i128::from(if r.abs() * 2 >= d {
            q + small.signum()
        } else {
            q
        });
    }
    let d = 10_i128.pow(from - to);
    let (q, r) = (v / d, v % d);
    if r.abs() * 2 >= d {
        q + v.signum()
    } else {
        q
    }
}

/// An integer scaled by 10^`places` as an exact decimal.
pub fn scaled_decimal(v: i128, places: u32) -> Decimal {
    Decimal::from_i128_with_scale(v, places).normalize()
}

macro_rules! scaled_decimal {
    ($(#[$doc:meta])* $name:ident, $places:expr, $kind:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(Decimal);

        impl $name {
            pub const PLACES: u32 = $places;
            pub const ZERO: Self = Self(Decimal::ZERO);

            /// Validated construction (places and magnitude).
            pub fn new(value: Decimal) -> Result<Self, String> {
                check(value, $places).map(Self)
            }

            /// Construction for values the service computed itself; rounds half away from
            /// zero to the kind's places.
            pub fn rounded(value: Decimal) -> Self {
                Self(round(value, $places))
            }

            pub fn from_i64(v: i64) -> Self {
                Self(Decimal::from(v))
            }

            pub fn value(self) -> Decimal {
                self.0
            }

            pub fn is_zero(self) -> bool {
                self.0.is_zero()
            }

            pub fn is_sign_negative(self) -> bool {
                self.0 < Decimal::ZERO
            }

            /// The scaled integer stored in SQLite; `None` when it does not fit in 64 bits
            /// (a total the ledger cannot hold: refused, never saturated).
            pub fn to_scaled(self) -> Option<i64> {
                self.0
                    .checked_mul(Decimal::from(10_i64.pow($places)))
                    .and_then(|v| v.trunc().to_i64())
            }

            /// Whether the value can be stored (see [`Self::to_scaled`]).
            pub fn fits(self) -> bool {
                self.to_scaled().is_some()
            }

            /// The largest value that can be stored.
            pub fn max_stored() -> Self {
                Self::from_scaled(i64::MAX)
            }

            pub fn from_scaled(v: i64) -> Self {
                Self(Decimal::new(v, $places).normalize())
            }
        }

        impl std::ops::Add for $name {
            type Output = Self;
            fn add(self, o: Self) -> Self {
                Self((self.0 + o.0).normalize())
            }
        }

        impl std::ops::Sub for $name {
            type Output = Self;
            fn sub(self, o: Self) -> Self {
                Self((self.0 - o.0).normalize())
            }
        }

        impl std::ops::Neg for $name {
            type Output = Self;
            fn neg(self) -> Self {
                Self(-self.0)
            }
        }

        impl std::iter::Sum for $name {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::ZERO, |a, b| a + b)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0.normalize(), f)
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                let d = parse_decimal(s).ok_or_else(|| format!("`{s}` is not a number"))?;
                Self::new(d)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                ser_decimal(&self.0, s)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let dec = de_decimal(d)?;
                Self::new(dec).map_err(serde::de::Error::custom)
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                self.to_scaled().map(ToSqlOutput::from).ok_or_else(|| {
                    rusqlite::Error::ToSqlConversionFailure(Box::new(TooLarge {
                        kind: $kind,
                        value: self.to_string(),
                        max: Self::max_stored().to_string(),
                    }))
                })
            }
        }

        impl FromSql for $name {
            fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
                match v {
                    ValueRef::Integer(i) => Ok(Self::from_scaled(i)),
                    _ => Err(FromSqlError::InvalidType),
                }
            }
        }
    };
}

scaled_decimal!(
    /// A stock quantity: up to 3 decimal places.
    Qty,
    3,
    "quantity"
);
scaled_decimal!(
    /// A unit price or cost: up to 4 decimal places.
    Price,
    4,
    "price"
);
scaled_decimal!(
    /// A money amount (or hours): up to 2 decimal places.
    Money,
    2,
    "amount"
);

scaled_decimal!(
    /// An exchange rate, pounds per one unit of a currency: up to 6 decimal places
    /// (docs/accounting.md#currencies).
    Rate,
    6,
    "exchange rate"
);

impl Rate {
    pub const ONE: Self = Self(Decimal::ONE);

    /// `amount` (in the currency) in pounds: amount × rate, rounded half away from zero
    /// to 2 dp, per line or per amount (docs/accounting.md#currencies).
    pub fn to_pounds(self, amount: Decimal) -> Decimal {
        round(amount * self.0, 2)
    }
}

scaled_decimal!(
    /// A percentage (VAT rate, discount, margin): up to 2 decimal places.
    Percent,
    2,
    "percentage"
);

/// A percentage such as a VAT rate or a discount: 0 to 100, up to 2 decimal places.
pub fn check_percent(field: &str, v: Decimal) -> Result<Decimal, crate::error::AppError> {
    let v = check(v, 2).map_err(|e| crate::error::AppError::invalid(field, e))?;
    if v < Decimal::ZERO || v > Decimal::from(100) {
        return Err(crate::error::AppError::invalid(
            field,
            "must be from 0 to 100",
        ));
    }
    Ok(v)
}

/// Serialises a computed [`Decimal`] (report figures) as a JSON number.
/// (serde_json's `arbitrary_precision` keeps every digit of the number).
pub fn ser_decimal<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    let n: serde_json::Number = v
        .normalize()
        .to_string()
        .parse()
        .map_err(serde::ser::Error::custom)?;
    n.serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_decimal_is_taken_as_a_number_or_as_a_string_holding_one() {
        assert_eq!(from_json::<Money>("19.99").unwrap().to_string(), "19.99");
        assert_eq!(
            from_json::<Money>("\"19.99\"").unwrap().to_string(),
            "19.99"
        );
        assert_eq!(from_json::<Money>("\"-0.50\"").unwrap().to_string(), "-0.5");
        assert_eq!(from_json::<Money>("\"1.100\"").unwrap().to_string(), "1.1");
        // Beyond a float's exact range, the string keeps every digit.
        assert_eq!(
            from_json::<Price>("\"987654321098.7654\"")
                .unwrap()
                .to_string(),
            "987654321098.7654"
        );
        assert_eq!(from_json::<Qty>("\"3\"").unwrap().to_string(), "3");
        for bad in [
            "\"1e3\"",
            "\" 1\"",
            "\"+1\"",
            "\"1,000\"",
            "\"1.\"",
            "\".5\"",
            "\"\"",
            "\"abc\"",
            "\"1000000000000\"",
            "true",
            "[1]",
        ] {
            assert!(from_json::<Money>(bad).is_err(), "{bad} was taken");
        }
        // Places are checked as for a number.
        let e = from_json::<Money>("\"1.234\"").unwrap_err();
        assert!(e.contains("at most 2 decimal places"), "{e}");
    }

    #[test]
    fn a_value_beyond_64_bits_scaled_is_refused_not_saturated() {
        let max = Qty::max_stored();
        assert_eq!(max.to_string(), "9223372036854775.807");
        assert_eq!(max.to_scaled(), Some(i64::MAX));
        let over = max + Qty::from_scaled(1);
        assert_eq!(over.to_scaled(), None);
        assert!(!over.fits());
        assert_eq!((-max).to_scaled(), Some(-i64::MAX));
        // Storing it fails with `TooLarge`, which the service answers with a 409.
        let e = over.to_sql().unwrap_err();
        let app = crate::error::AppError::from(e);
        assert_eq!(app.status(), rocket::http::Status::Conflict);
        assert_eq!(
            app.to_string(),
            "The quantity 9223372036854775.808 is too large: the ledger stores at most \
             9223372036854775.807"
        );
        let huge = Money::rounded(Decimal::from(10_i64.pow(18)) * Decimal::from(10_i64.pow(6)));
        assert_eq!(huge.to_scaled(), None);
    }

    #[test]
    fn the_64_bit_and_128_bit_rounding_paths_agree() {
        for v in [
            0_i128,
            1,
            49,
            50,
            51,
            99_999,
            -49,
            -50,
            -51,
            123_456_789_012_345,
        ] {
            let wide = v * 10_i128.pow(20);
            // Scaling up by 10^20 and rounding 20 more places gives the same answer.
            assert_eq!(round_scaled(v, 7, 2), round_scaled(wide, 27, 2), "{v}");
        }
        assert_eq!(round_scaled(50, 2, 0), 1);
        assert_eq!(round_scaled(-50, 2, 0), -1);
        assert_eq!(round_scaled(49, 2, 0), 0);
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(round_scaled(1_250_000, 7, 2), 13);
        assert_eq!(round_scaled(1_249_999, 7, 2), 12);
        assert_eq!(round_scaled(-1_250_000, 7, 2), -13);
        assert_eq!(round_scaled(-1_249_999, 7, 2), -12);
        assert_eq!(round_scaled(0, 7, 2), 0);
    }
}
