//! An entity's VAT settings (docs/vat.md#the-entitys-vat-settings): `vat_number`,
//! `vat_registered_from`, `vat_scheme` and `flat_rate_percent`.
//!
//! - `vat_number`: nine digits, optionally after `GB` (spaces ignored), passing HMRC's
//!   check-digit rule ([`check_digits_pass`]); stored as `GB` and the nine digits. A number
//!   stored before this rule is kept as it was until it is sent again.
//! - `vat_scheme`: `standard` (the default), `cash` or `flat_rate`; `flat_rate` needs a
//!   `flat_rate_percent` (0 to 100, 2 dp), which the entity keeps when it leaves the scheme.

use crate::db::decimal::{check_percent, Percent};
use crate::error::{AppError, AppResult};

/// Every scheme, as stored and as the API spells it.
pub const SCHEMES: &[&str] = &["standard", "cash", "flat_rate"];

/// HMRC's check-digit rule for a nine-digit VAT registration number: 8·d1 + 7·d2 + 6·d3 +
/// 5·d4 + 4·d5 + 3·d6 + 2·d7 + (d8d9 taken as a two-digit number) is a multiple of 97, or
/// becomes one when 55 is added (the numbers issued since 2010).
pub fn check_digits_pass(digits: &[u8; 9]) -> bool {
    let weighted: u32 = digits[..7]
        .iter()
        .zip((2..=8).rev())
        .map(|(d, w)| u32::from(*d) * w)
        .sum();
    let sum = weighted + 10 * u32::from(digits[7]) + u32::from(digits[8]);
    sum.is_multiple_of(97) || (sum + 55).is_multiple_of(97)
}

/// A sent VAT number: `GB` and nine digits that pass [`check_digits_pass`] (400 otherwise),
/// in the stored form `GB123456789`.
pub fn parse_vat_number(raw: &str) -> AppResult<String> {
    let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    let upper = compact.to_ascii_uppercase();
    let digits = upper.strip_prefix("GB").unwrap_or(&upper);
    let bad = |why: &str| AppError::invalid("vat_number", why.to_string());
    let nine: [u8; 9] = digits
        .bytes()
        .map(|b| b.is_ascii_digit().then(|| b - b'0'))
        .collect::<Option<Vec<u8>>>()
        .and_then(|v| v.try_into().ok())
        .ok_or_else(|| bad("must be nine digits, optionally after GB"))?;
    if !check_digits_pass(&nine) {
        return Err(bad(
            "is not a valid UK VAT number: its check digits do not match (HMRC's modulus 97 rule)",
        ));
    }
    Ok(format!("GB{digits}"))
}

/// A sent scheme: one of [`SCHEMES`] (400 otherwise).
pub fn parse_scheme(raw: &str) -> AppResult<&'static str> {
    let t = raw.trim();
    SCHEMES.iter().copied().find(|s| *s == t).ok_or_else(|| {
        AppError::invalid(
            "vat_scheme",
            format!("must be one of {}", SCHEMES.join(", ")),
        )
    })
}

/// A sent flat-rate percentage: 0 to 100, up to 2 decimal places (400 otherwise).
pub fn parse_flat_rate(v: Percent) -> AppResult<Percent> {
    check_percent("flat_rate_percent", v.value()).map(|_| v)
}

/// The settings together: the flat rate scheme needs its percentage (400).
pub fn check_settings(scheme: &str, flat_rate_percent: Option<Percent>) -> AppResult<()> {
    if scheme == "flat_rate" && flat_rate_percent.is_none() {
        return Err(AppError::invalid(
            "flat_rate_percent",
            "is required on the flat rate scheme",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmrc_published_numbers_pass_and_a_changed_digit_fails() {
        // 8·1+7·2+6·3+5·4+4·5+3·6+2·7 = 112; 112 + 55 + d8d9 must be a multiple of 97:
        // 112 + 55 + 27 = 194 = 2·97, so 123456727 passes on the post-2010 rule.
        assert_eq!(parse_vat_number("GB 123 4567 27").unwrap(), "GB123456727");
        // 112 + d8d9 = 194 on the old rule: 123456782.
        assert_eq!(parse_vat_number("123456782").unwrap(), "GB123456782");
        assert!(parse_vat_number("GB123456728").is_err());
        assert!(parse_vat_number("GB12345678").is_err());
        assert!(parse_vat_number("XI123456782").is_err());
    }
}
