//! VAT treatment (docs/accounting.md#vat-treatment): what kind of supply a line, a product
//! or an expense is for VAT, and the one rule tying a treatment to a rate.
//!
//! - A treatment is one of [`TREATMENTS`]; a value outside the set is 400.
//! - Omitted, it follows the rate: 0 → `zero`, 5 → `reduced`, anything else → `standard`.
//!   Given without a rate, the rate is the treatment's default ([`Treatment::default_rate`]).
//! - `zero`, `exempt` and `outside_scope` carry no VAT: with a non-zero rate (an expense:
//!   a non-zero `vat_amount`) they are 400.
//! - `reverse_charge` is allowed only where the caller says (bill lines, expenses); its VAT
//!   is the buyer's to account for, so it stays out of the document's totals.
//!
//! Products (inventory), document lines and expenses (accounting) share it; a leaf of the
//! feature layer, it imports only the bottom layer (docs/architecture.md#module-layers).

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Serialize, Serializer};

use crate::db::decimal::{Money, Percent};
use crate::error::{AppError, AppResult};

/// Every treatment, as stored and as the API spells it.
pub const TREATMENTS: &[&str] = &[
    "standard",
    "reduced",
    "zero",
    "exempt",
    "outside_scope",
    "reverse_charge",
];

/// The treatments that carry no VAT: their rate is 0.
pub const WITHOUT_VAT: &[&str] = &["zero", "exempt", "outside_scope"];

/// The reduced rate, which an omitted treatment reads as `reduced`.
const REDUCED_RATE: i64 = 5;
/// The standard rate: the default of `standard` and `reverse_charge`.
const STANDARD_RATE: i64 = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    Standard,
    Reduced,
    Zero,
    Exempt,
    OutsideScope,
    ReverseCharge,
}

impl Treatment {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Reduced => "reduced",
            Self::Zero => "zero",
            Self::Exempt => "exempt",
            Self::OutsideScope => "outside_scope",
            Self::ReverseCharge => "reverse_charge",
        }
    }

    pub fn from_text(s: &str) -> Option<Self> {
        Some(match s {
            "standard" => Self::Standard,
            "reduced" => Self::Reduced,
            "zero" => Self::Zero,
            "exempt" => Self::Exempt,
            "outside_scope" => Self::OutsideScope,
            "reverse_charge" => Self::ReverseCharge,
            _ => return None,
        })
    }

    /// A value sent by a client: 400 outside [`TREATMENTS`].
    pub fn parse(field: &str, s: &str) -> AppResult<Self> {
        Self::from_text(s.trim()).ok_or_else(|| {
            AppError::invalid(field, format!("must be one of {}", TREATMENTS.join(", ")))
        })
    }

    /// What an omitted treatment is, given the rate: 0 → zero, 5 → reduced, else standard.
    pub fn from_rate(rate: Percent) -> Self {
        if rate.is_zero() {
            Self::Zero
        } else if rate == Percent::from_i64(REDUCED_RATE) {
            Self::Reduced
        } else {
            Self::Standard
        }
    }

    /// The rate of a treatment given without one.
    pub fn default_rate(self) -> Percent {
        match self {
            Self::Standard | Self::ReverseCharge => Percent::from_i64(STANDARD_RATE),
            Self::Reduced => Percent::from_i64(REDUCED_RATE),
            Self::Zero | Self::Exempt | Self::OutsideScope => Percent::ZERO,
        }
    }

    /// Zero-rated, exempt and outside the scope: no VAT at all.
    pub fn carries_no_vat(self) -> bool {
        matches!(self, Self::Zero | Self::Exempt | Self::OutsideScope)
    }

    /// What an omitted treatment becomes when a rate is changed without one: a
    /// `reverse_charge` stays, a no-VAT treatment stays while the rate is 0; otherwise the
    /// treatment follows the new rate.
    pub fn follow(self, rate: Percent) -> Self {
        match self {
            Self::ReverseCharge => self,
            t if t.carries_no_vat() && rate.is_zero() => t,
            _ => Self::from_rate(rate),
        }
    }
}

impl Serialize for Treatment {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl ToSql for Treatment {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Treatment {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = v.as_str()?;
        Self::from_text(s)
            .ok_or_else(|| FromSqlError::Other(format!("`{s}` is not a VAT treatment").into()))
    }
}

/// An optional treatment sent by a client (blank is omitted).
pub fn parse_opt(field: &str, s: Option<&str>) -> AppResult<Option<Treatment>> {
    match s.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => Treatment::parse(field, s).map(Some),
        None => Ok(None),
    }
}

/// 400 when a no-VAT treatment is paired with a non-zero rate.
pub fn check_pair(field: &str, rate: Percent, t: Treatment) -> AppResult<()> {
    if t.carries_no_vat() && !rate.is_zero() {
        return Err(AppError::invalid(
            field,
            format!(
                "{} carries no VAT: its vat_rate must be 0, not {rate}",
                t.as_str()
            ),
        ));
    }
    Ok(())
}

/// The rate and treatment of a new record: both sent (checked), one sent (the other
/// follows), or neither (`inherited`: the product's, else the standard rate).
pub fn resolve(
    field: &str,
    rate: Option<Percent>,
    treatment: Option<Treatment>,
    inherited: (Percent, Treatment),
) -> AppResult<(Percent, Treatment)> {
    let pair = match (rate, treatment) {
        (Some(r), Some(t)) => (r, t),
        (Some(r), None) => (r, Treatment::from_rate(r)),
        (None, Some(t)) => (t.default_rate(), t),
        (None, None) => inherited,
    };
    check_pair(field, pair.0, pair.1)?;
    Ok(pair)
}

/// The rate and treatment after an update of a stored pair: a treatment sent alone takes
/// its default rate, a rate sent alone keeps the treatment as [`Treatment::follow`] says.
pub fn resolve_update(
    field: &str,
    stored: (Percent, Treatment),
    rate: Option<Percent>,
    treatment: Option<Treatment>,
) -> AppResult<(Percent, Treatment)> {
    let pair = match (rate, treatment) {
        (Some(r), Some(t)) => (r, t),
        (Some(r), None) => (r, stored.1.follow(r)),
        (None, Some(t)) => (t.default_rate(), t),
        (None, None) => stored,
    };
    check_pair(field, pair.0, pair.1)?;
    Ok(pair)
}

/// 400 for `reverse_charge` where the record does not allow it (`what`: "an invoice line").
pub fn check_reverse_charge(field: &str, t: Treatment, allowed: bool, what: &str) -> AppResult<()> {
    if t == Treatment::ReverseCharge && !allowed {
        return Err(AppError::invalid(
            field,
            format!("reverse_charge is for purchases: not allowed on {what}"),
        ));
    }
    Ok(())
}

/// Whether an expense's `vat_amount` fits its treatment: none for the no-VAT treatments
/// and for `reverse_charge` (nothing was paid to the supplier as VAT).
pub fn allows_vat_amount(t: Treatment, vat_amount: Money) -> bool {
    vat_amount.is_zero() || !(t.carries_no_vat() || t == Treatment::ReverseCharge)
}

/// The default treatment of an expense: its category's when that fits the `vat_amount`,
/// else `standard` when there is VAT and `zero` when not.
pub fn expense_default(category: Option<Treatment>, vat_amount: Money) -> Treatment {
    match category {
        Some(t) if allows_vat_amount(t, vat_amount) => t,
        _ if vat_amount.is_zero() => Treatment::Zero,
        _ => Treatment::Standard,
    }
}

/// Whether an expense keeps its treatment when only its `vat_amount` changes: `standard`
/// and `reduced` while there is VAT, the others while there is none.
pub fn expense_keeps(t: Treatment, vat_amount: Money) -> bool {
    match t {
        Treatment::Standard | Treatment::Reduced => !vat_amount.is_zero(),
        _ => vat_amount.is_zero(),
    }
}

/// The reverse-charge VAT of an expense without one given: the standard rate on `amount`,
/// round(amount × 20 / 100, 2).
pub fn expense_reverse_charge_vat(amount: Money) -> Money {
    Money::rounded(
        amount.value() * rust_decimal::Decimal::from(STANDARD_RATE)
            / rust_decimal::Decimal::ONE_HUNDRED,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pct(s: &str) -> Percent {
        s.parse().unwrap()
    }

    #[test]
    fn an_omitted_treatment_follows_the_rate() {
        assert_eq!(Treatment::from_rate(pct("0")), Treatment::Zero);
        assert_eq!(Treatment::from_rate(pct("5")), Treatment::Reduced);
        assert_eq!(Treatment::from_rate(pct("20")), Treatment::Standard);
        assert_eq!(Treatment::from_rate(pct("12.5")), Treatment::Standard);
    }

    #[test]
    fn every_treatment_round_trips_through_its_text() {
        for s in TREATMENTS {
            assert_eq!(Treatment::from_text(s).unwrap().as_str(), *s);
        }
        for s in WITHOUT_VAT {
            assert!(Treatment::from_text(s).unwrap().carries_no_vat());
        }
    }

    #[test]
    fn a_rate_changed_alone_keeps_what_still_fits() {
        assert_eq!(Treatment::Exempt.follow(pct("0")), Treatment::Exempt);
        assert_eq!(Treatment::Exempt.follow(pct("20")), Treatment::Standard);
        assert_eq!(Treatment::Standard.follow(pct("5")), Treatment::Reduced);
        assert_eq!(
            Treatment::ReverseCharge.follow(pct("5")),
            Treatment::ReverseCharge
        );
    }
}
