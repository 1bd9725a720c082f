//! Report rows from SQLite to response bytes without a value per cell, for the answers
//! that stream millions of figures (the stock valuation, the movement history as CSV):
//! TEXT columns borrowed from the row, scaled integers (as [`super::decimal`] stores
//! them) and strings written straight into JSON or CSV text, and SQLite's `NOCASE` order
//! for rows sorted in memory. Knows no feature.

use std::cmp::Ordering;

use rusqlite::types::Type;
use rusqlite::Row;

/// A TEXT column's bytes, borrowed from the row (no allocation, no UTF-8 check).
pub fn bytes_col<'r>(r: &'r Row<'_>, i: usize) -> rusqlite::Result<&'r [u8]> {
    r.get_ref(i)?
        .as_bytes()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, Type::Text, e.into()))
}

/// A TEXT column borrowed from the row (no allocation).
pub fn text_col<'r>(r: &'r Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    r.get_ref(i)?
        .as_str()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, Type::Text, e.into()))
}

/// SQLite's NOCASE order (ASCII case folded), then creation order.
pub fn name_order(a: &str, a_seq: i64, b: &str, b_seq: i64) -> Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
        .then(a_seq.cmp(&b_seq))
}

/// Writes an integer scaled by 10^`places` as a JSON number without trailing zeros.
pub fn push_scaled(out: &mut Vec<u8>, v: i128, places: u32) {
    if v < 0 {
        out.push(b'-');
    }
    let a = v.unsigned_abs();
    match u64::try_from(a) {
        // The common case in 64-bit arithmetic (see `decimal::round_scaled`).
        Ok(a) => {
            let p = 10_u64.pow(places);
            push_u64(out, a / p);
            push_fraction(out, a % p, places);
        }
        Err(_) => {
            let p = 10_u128.pow(places);
            let (int, frac) = (a / p, a % p);
            match u64::try_from(int) {
                Ok(int) => push_u64(out, int),
                Err(_) => push_u128(out, int),
            }
            // `frac < 10^places` always fits.
            push_fraction(out, u64::try_from(frac).unwrap_or(0), places);
        }
    }
}

/// Writes `.digits` of a fraction of `places` places, trailing zeros dropped; nothing
/// for 0.
fn push_fraction(out: &mut Vec<u8>, mut frac: u64, places: u32) {
    if frac == 0 {
        return;
    }
    let mut digits = places;
    while frac.is_multiple_of(10) {
        frac /= 10;
        digits -= 1;
    }
    out.push(b'.');
    let mut buf = [b'0'; 20];
    let mut i = digits as usize;
    while i > 0 {
        i -= 1;
        buf[i] = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    out.extend_from_slice(&buf[..digits as usize]);
}

fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0_u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

fn push_u128(out: &mut Vec<u8>, mut n: u128) {
    let mut buf = [0_u8; 40];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Writes an integer scaled by 100 as text with exactly 2 decimals (`1234.50`, `-0.05`),
/// as spreadsheets show money.
pub fn push_fixed2(out: &mut Vec<u8>, v: i128) {
    if v < 0 {
        out.push(b'-');
    }
    let a = v.unsigned_abs();
    out.extend_from_slice((a / 100).to_string().as_bytes());
    out.extend_from_slice(format!(".{:02}", a % 100).as_bytes());
}

/// Writes `s` as a JSON string.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    // Writing a &str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// One CSV cell: quoted when it holds a comma, a quote or a line break; a leading formula
/// character is neutralised with `'`.
pub fn csv_cell(out: &mut Vec<u8>, s: &str) {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let quote = formula || s.contains([',', '"', '\r', '\n']);
    if quote {
        out.push(b'"');
    }
    if formula {
        out.push(b'\'');
    }
    for b in s.bytes() {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    if quote {
        out.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: i128, places: u32) -> String {
        let mut out = Vec::new();
        push_scaled(&mut out, v, places);
        String::from_utf8(out).unwrap()
    }

    fn fixed2(v: i128) -> String {
        let mut out = Vec::new();
        push_fixed2(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn scaled_integers_are_written_without_trailing_zeros() {
        assert_eq!(text(0, 3), "0");
        assert_eq!(text(1250, 3), "1.25");
        assert_eq!(text(-5, 2), "-0.05");
        assert_eq!(text(10_000, 4), "1");
        assert_eq!(text(1_000_001, 4), "100.0001");
        assert_eq!(text(-120_000, 4), "-12");
        // Beyond 64 bits (10^12 units at a price of 10^12): the 128-bit path.
        let big = 10_i128.pow(31) + 5;
        assert_eq!(text(big, 7), "1000000000000000000000000.0000005");
        assert_eq!(text(-big, 7), "-1000000000000000000000000.0000005");
        assert_eq!(text(i128::from(i64::MAX) + 1, 2), "92233720368547758.08");
    }

    #[test]
    fn money_in_the_spreadsheet_has_exactly_two_decimals() {
        assert_eq!(fixed2(0), "0.00");
        assert_eq!(fixed2(5), "0.05");
        assert_eq!(fixed2(-5), "-0.05");
        assert_eq!(fixed2(123_450), "1234.50");
        assert_eq!(fixed2(-123_456), "-1234.56");
    }
}
