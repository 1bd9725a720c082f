//! The one place a source's tax code becomes a VAT rate and treatment
//! (docs/import.md#tax-codes).
//!
//! One function per source family ([`xero`], [`sage`], [`quickbooks`], [`generic`]); each
//! answers `None` for a code it does not know. [`lookup`] tries every family, then reads
//! a plain rate (`20`, `20%`, `Standard 20%`), whose treatment then follows the rate
//! (docs/accounting.md#vat-treatment). A family that is added goes into [`lookup`] too.
//!
//! A code fixes the treatment; the rate is the code's own when it names one, else `None`
//! (the treatment's default rate, or the rate the source's VAT amount gives).

use crate::db::decimal::Percent;
use crate::vat::Treatment;

/// What a tax code says: the rate (when the code fixes one) and the treatment.
pub type TaxCode = (Option<Percent>, Treatment);

fn pct(n: i64) -> Option<Percent> {
    Some(Percent::from_i64(n))
}

fn key(code: &str) -> String {
    code.trim().to_lowercase()
}

/// Xero tax types: the API codes (`OUTPUT2`, `INPUT2`, `RROUTPUT` …) and the names its
/// exports print (`20% (VAT on Income)`, `Zero Rated Income`, `No VAT` …).
pub fn xero(code: &str) -> Option<TaxCode> {
    use Treatment as T;
    let k = key(code);
    Some(match k.as_str() {
        "output2" | "output" | "input2" | "input" | "capexoutput2" | "capexinput2"
        | "capexoutput" | "capexinput" => (pct(20), T::Standard),
        "rroutput" | "rrinput" | "srinput" | "sroutput" => (pct(5), T::Reduced),
        "zeroratedoutput" | "zeroratedinput" | "eczroutput" | "eczroutputservices"
        | "eczrinput" | "eczrinputservices" | "exempt export" => (pct(0), T::Zero),
        "exemptoutput" | "exemptinput" | "exemptexpenses" | "exemptincome" => (pct(0), T::Exempt),
        "none" | "no vat" | "novat" | "gstonimports" => (pct(0), T::OutsideScope),
        "reversecharges" | "ecacquisitions" | "drchargesupply20" | "drcharge20"
        | "drchargesupply" | "drcharge" => (pct(20), T::ReverseCharge),
        "20% (vat on income)"
        | "20% (vat on expenses)"
        | "20% (vat on capital sales)"
        | "20% (vat on capital purchases)" => (pct(20), T::Standard),
        "5% (vat on income)" | "5% (vat on expenses)" => (pct(5), T::Reduced),
        "zero rated income"
        | "zero rated expenses"
        | "zero rated ec goods income"
        | "zero rated ec services"
        | "zero rated ec expenses" => (pct(0), T::Zero),
        "exempt income" | "exempt expenses" => (pct(0), T::Exempt),
        "reverse charge expenses (20%)"
        | "20% (vat on ec acquisitions)"
        | "domestic reverse charge @ 20% (vat on expenses)" => (pct(20), T::ReverseCharge),
        "reverse charge expenses (5%)" | "domestic reverse charge @ 5% (vat on expenses)" => {
            (pct(5), T::ReverseCharge)
        }
        _ => return None,
    })
}

/// Sage tax codes (Sage 50 and Sage Accounting's `T`-codes as a UK company's defaults set
/// them up): T0 zero, T1 standard 20 %, T2 exempt, T4 goods sold to EC customers (zero),
/// T5 lower 5 %, T7 zero-rated EC purchases (zero), T8 standard-rated EC purchases
/// (acquisition VAT the buyer accounts for: reverse charge 20 %), T9 not involving VAT
/// (outside the scope), T20 reverse charge 20 %, T21 CIS reverse charge 20 %, T22 services
/// sold to EC customers (zero), T23 zero-rated EC services bought (zero), T24
/// standard-rated EC services bought (reverse charge 20 %), T26 CIS reverse charge 5 %.
pub fn sage(code: &str) -> Option<TaxCode> {
    use Treatment as T;
    let k = key(code);
    let n: u32 = k.strip_prefix('t')?.parse().ok()?;
    Some(match n {
        0 | 4 | 7 | 22 | 23 => (pct(0), T::Zero),
        1 => (pct(20), T::Standard),
        2 => (pct(0), T::Exempt),
        5 => (pct(5), T::Reduced),
        8 | 20 | 21 | 24 => (pct(20), T::ReverseCharge),
        26 => (pct(5), T::ReverseCharge),
        9 => (pct(0), T::OutsideScope),
        _ => return None,
    })
}

/// QuickBooks Online UK tax codes as its exports print them: `20.0% S`, `5.0% R`,
/// `0.0% Z`, `Exempt`, `No VAT`, the EC codes (`0.0% ECG`, `20.0% ECG`, `20.0% ECS`)
/// and the reverse charge (`20.0% RC`, `5.0% RC`, `20.0% RC CIS`).
pub fn quickbooks(code: &str) -> Option<TaxCode> {
    use Treatment as T;
    let k = key(code);
    let k = k.replace(".0%", "%").replace(".00%", "%");
    let (rate, tail) = k.split_once("% ")?;
    let rate: i64 = rate.trim().parse().ok()?;
    let tail = tail.trim();
    let t = match tail {
        "s" | "sr" => T::Standard,
        "r" | "rr" => T::Reduced,
        "z" | "zr" => T::Zero,
        "e" => T::Exempt,
        "ecg" | "ecs" | "rc" | "rc cis" | "rc sg" | "pva" if rate != 0 => T::ReverseCharge,
        "ecg" | "ecs" => T::Zero,
        _ => return None,
    };
    if t.carries_no_vat() && rate != 0 {
        return None;
    }
    Some((pct(rate), t))
}

/// Names any source may write: `Exempt`, `No VAT`, `Zero rated`, `Reverse charge`,
/// `Outside scope` and the treatments' own names (`outside_scope` …).
pub fn generic(name: &str) -> Option<TaxCode> {
    use Treatment as T;
    let k = key(name).replace(['_', '-'], " ");
    let k = k.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(t) = Treatment::from_text(&k.replace(' ', "_")) {
        return Some((t.carries_no_vat().then_some(Percent::ZERO), t));
    }
    Some(match k.as_str() {
        "exempt" | "vat exempt" | "exempt from vat" => (pct(0), T::Exempt),
        "zero rated" | "zero rate" | "zero" | "0% zero rated" => (pct(0), T::Zero),
        "no vat"
        | "novat"
        | "outside scope"
        | "outside the scope"
        | "outside the scope of vat"
        | "out of scope"
        | "not applicable"
        | "n/a"
        | "none"
        | "no tax"
        | "non vat" => (pct(0), T::OutsideScope),
        "reverse charge" | "domestic reverse charge" => (None, T::ReverseCharge),
        "standard rated" | "standard rate" => (None, T::Standard),
        "reduced rate" | "reduced rated" | "lower rate" => (None, T::Reduced),
        _ => return None,
    })
}

/// A tax code of any known family, else `None` (the caller reads it as a plain rate).
pub fn lookup(code: &str) -> Option<TaxCode> {
    generic(code)
        .or_else(|| sage(code))
        .or_else(|| xero(code))
        .or_else(|| quickbooks(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Treatment as T;

    fn t(code: &str) -> Option<(String, T)> {
        lookup(code).map(|(r, t)| (r.map_or("-".into(), |r| r.value().to_string()), t))
    }

    #[test]
    fn each_family_keeps_the_treatment_its_code_names() {
        let cases = [
            ("OUTPUT2", "20", T::Standard),
            ("INPUT2", "20", T::Standard),
            ("RROUTPUT", "5", T::Reduced),
            ("ZERORATEDOUTPUT", "0", T::Zero),
            ("EXEMPTINPUT", "0", T::Exempt),
            ("NONE", "0", T::OutsideScope),
            ("REVERSECHARGES", "20", T::ReverseCharge),
            ("ECZROUTPUT", "0", T::Zero),
            ("20% (VAT on Income)", "20", T::Standard),
            ("5% (VAT on Expenses)", "5", T::Reduced),
            ("Zero Rated Income", "0", T::Zero),
            ("Exempt Income", "0", T::Exempt),
            ("No VAT", "0", T::OutsideScope),
            ("Reverse Charge Expenses (20%)", "20", T::ReverseCharge),
            ("T0", "0", T::Zero),
            ("T1", "20", T::Standard),
            ("T2", "0", T::Exempt),
            ("T5", "5", T::Reduced),
            ("T9", "0", T::OutsideScope),
            ("T4", "0", T::Zero),
            ("T7", "0", T::Zero),
            ("T8", "20", T::ReverseCharge),
            ("20.0% S", "20", T::Standard),
            ("5.0% R", "5", T::Reduced),
            ("0.0% Z", "0", T::Zero),
            ("20.0% ECG", "20", T::ReverseCharge),
            ("0.0% ECG", "0", T::Zero),
            ("20.0% RC", "20", T::ReverseCharge),
            ("Exempt", "0", T::Exempt),
            ("Zero rated", "0", T::Zero),
            ("Outside scope", "0", T::OutsideScope),
            ("outside_scope", "0", T::OutsideScope),
            ("Reverse charge", "-", T::ReverseCharge),
        ];
        for (code, rate, treatment) in cases {
            assert_eq!(t(code), Some((rate.to_owned(), treatment)), "{code}");
        }
        for plain in ["20", "20%", "Standard 20%", "T3", "banana"] {
            assert_eq!(t(plain), None, "{plain}");
        }
    }
}
