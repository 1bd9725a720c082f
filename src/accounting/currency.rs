//! The currency of invoices, bills and expenses (docs/accounting.md#currencies).
//!
//! `currency` is an ISO 4217 code (default: the entity's currency, GBP; an unknown code
//! is 400) and `exchange_rate` the pounds one unit of it was worth ([`Rate`], up to 6
//! dp, above 0). For GBP the rate is optional and must be 1; for any other currency it
//! is required (400). Amounts stay in the record's currency; reports in pounds convert
//! them with [`Rate::to_pounds`]. A leaf: it reads the entity's currency and nothing else.

use rusqlite::{Connection, OptionalExtension};
use rust_decimal::Decimal;

use crate::db::decimal::Rate;
use crate::error::{AppError, AppResult};

/// The currency the books are kept in: every rate is pounds per unit.
pub const HOME: &str = "GBP";

/// The ISO 4217 codes of currencies in use (funds and precious metals included; `XTS`
/// and `XXX`, which name no currency, left out).
pub const CODES: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD",
    "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUC", "CUP",
    "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP",
    "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS",
    "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW",
    "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD",
    "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN",
    "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR",
    "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SLL",
    "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRY",
    "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED", "VES",
    "VND", "VUV", "WST", "XAF", "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XCD", "XCG", "XDR",
    "XOF", "XPD", "XPF", "XPT", "XSU", "XUA", "YER", "ZAR", "ZMW", "ZWG", "ZWL",
];

/// A record's currency and its rate to pounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Currency {
    pub code: String,
    pub rate: Rate,
}

impl Currency {
    pub fn home() -> Self {
        Self {
            code: HOME.to_owned(),
            rate: Rate::ONE,
        }
    }
}

/// A sent code: three letters of [`CODES`], in any case (stored in capitals); 400 otherwise.
fn code(raw: &str) -> AppResult<String> {
    let c = raw.trim().to_ascii_uppercase();
    if CODES.contains(&c.as_str()) {
        Ok(c)
    } else {
        Err(AppError::invalid(
            "currency",
            format!("`{}` is not an ISO 4217 currency code", raw.trim()),
        ))
    }
}

/// A sent rate for `code`: above 0; exactly 1 for pounds.
fn rate(code: &str, r: Rate) -> AppResult<Rate> {
    if r.value() <= Decimal::ZERO {
        return Err(AppError::invalid("exchange_rate", "must be above 0"));
    }
    if code == HOME && r != Rate::ONE {
        return Err(AppError::invalid(
            "exchange_rate",
            format!("must be 1 for {HOME} (pounds per pound)"),
        ));
    }
    Ok(r)
}

fn required(code: &str) -> AppError {
    AppError::invalid(
        "exchange_rate",
        format!("required for {code}: the pounds one {code} was worth"),
    )
}

/// The currency of `entity` (GBP without entity).
fn entity_currency(conn: &Connection, entity: Option<&str>) -> AppResult<String> {
    let Some(e) = entity else {
        return Ok(HOME.to_owned());
    };
    Ok(conn
        .prepare_cached("SELECT currency FROM entities WHERE id = ?1")?
        .query_row([e], |r| r.get(0))
        .optional()?
        .unwrap_or_else(|| HOME.to_owned()))
}

/// The currency of a new record of `entity` from what the body sent: the code (default
/// the entity's currency) and its rate (1 and optional for GBP, required otherwise).
pub fn for_new(
    conn: &Connection,
    entity: Option<&str>,
    sent_code: Option<&str>,
    sent_rate: Option<Rate>,
) -> AppResult<Currency> {
    let code = match sent_code.map(str::trim).filter(|s| !s.is_empty()) {
        Some(c) => code(c)?,
        None => entity_currency(conn, entity)?,
    };
    let rate = match sent_rate {
        Some(r) => rate(&code, r)?,
        None if code == HOME => Rate::ONE,
        None => return Err(required(&code)),
    };
    Ok(Currency { code, rate })
}

/// The currency of a changed record: a new code needs its rate (except pounds, at 1); a
/// new rate alone is checked against the kept code.
pub fn for_update(
    current: &Currency,
    sent_code: Option<&str>,
    sent_rate: Option<Rate>,
) -> AppResult<Currency> {
    let code = match sent_code.map(str::trim).filter(|s| !s.is_empty()) {
        Some(c) => code(c)?,
        None => current.code.clone(),
    };
    let rate = match sent_rate {
        Some(r) => rate(&code, r)?,
        None if code == HOME => Rate::ONE,
        None if code == current.code => current.rate,
        None => return Err(required(&code)),
    };
    Ok(Currency { code, rate })
}

/// [`for_update`] on a record's own two fields, written back in place.
pub fn update(
    code: &mut String,
    rate: &mut Rate,
    sent_code: Option<&str>,
    sent_rate: Option<Rate>,
) -> AppResult<()> {
    let current = Currency {
        code: code.clone(),
        rate: *rate,
    };
    let next = for_update(&current, sent_code, sent_rate)?;
    *code = next.code;
    *rate = next.rate;
    Ok(())
}

/// The `currency` of a record's OpenAPI schema (`record`: as answered; otherwise as
/// sent, optional).
pub fn code_schema(record: bool) -> (&'static str, serde_json::Value) {
    let about = if record {
        "ISO 4217; the amounts are in it."
    } else {
        "ISO 4217 (another code: 400). Default the entity's currency (GBP)."
    };
    (
        "currency",
        crate::http::openapi::one_of_values(CODES, about),
    )
}

/// The `exchange_rate` of a record's OpenAPI schema (see [`code_schema`]).
pub fn rate_schema(record: bool) -> (&'static str, serde_json::Value) {
    use crate::http::openapi::{decimal, positive};
    let about = if record {
        "Pounds per one unit of currency (1 for GBP)."
    } else {
        "Pounds per one unit of currency, above 0: required unless the currency is GBP \
         (400), and then 1."
    };
    ("exchange_rate", positive(decimal(6, about)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_sorted_unique_and_three_capitals() {
        assert!(CODES.windows(2).all(|w| w[0] < w[1]));
        assert!(CODES
            .iter()
            .all(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase())));
    }

    #[test]
    fn version_20_keeps_every_existing_record_in_pounds_at_one_and_locks_nothing() {
        let (db, dir) = crate::db::upgraded_from(
            19,
            "INSERT INTO entities (id, owner_id, name, currency, created_at)
             VALUES ('e1', 'u1', 'Acme', 'GBP', '2026-01-01T00:00:00Z');
             INSERT INTO invoices (id, owner_id, entity_id, contact_id, issue_date, due_date,
                 created_at, updated_at)
             VALUES ('i1', 'u1', 'e1', 'c1', '2026-01-01', '2026-01-31', 'x', 'x');
             INSERT INTO bills (id, owner_id, entity_id, contact_id, issue_date, due_date,
                 created_at, updated_at)
             VALUES ('b1', 'u1', 'e1', 'c1', '2026-01-01', '2026-01-31', 'x', 'x');
             INSERT INTO expenses (id, owner_id, entity_id, date, description, amount,
                 created_at, updated_at)
             VALUES ('x1', 'u1', 'e1', '2026-01-01', 'Paper', 500, 'x', 'x');",
        );
        let (rows, lock): (Vec<(String, Rate)>, Option<String>) = db
            .read_sync(|c| {
                let mut s = c.prepare(
                    "SELECT currency, exchange_rate FROM invoices
                     UNION ALL SELECT currency, exchange_rate FROM bills
                     UNION ALL SELECT currency, exchange_rate FROM expenses",
                )?;
                let rows = s
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<_, _>>()?;
                let lock = crate::entities::lock::lock_date(c, "e1")?;
                Ok((rows, lock))
            })
            .unwrap();
        assert_eq!(rows, vec![(HOME.to_owned(), Rate::ONE); 3]);
        assert_eq!(lock, None);
        drop(db);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_change_of_currency_needs_its_rate_but_pounds_fall_back_to_one() {
        let eur = Currency {
            code: "EUR".into(),
            rate: Rate::rounded(Decimal::new(85, 2)),
        };
        assert_eq!(for_update(&eur, None, None).unwrap(), eur);
        assert_eq!(
            for_update(&eur, Some("gbp"), None).unwrap(),
            Currency::home()
        );
        assert!(for_update(&eur, Some("USD"), None).is_err());
        assert!(for_update(&Currency::home(), None, Some(Rate::rounded(Decimal::TWO))).is_err());
    }
}
