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
        "reversecharges" | "ecacquisitions" | "drcharge20" | "drcharge" => {
            (pct(20), T::ReverseCharge)
        }
        // The supplier's side of the domestic reverse charge: no VAT charged, the net in
        // the sales box like a zero-rated supply (an invoice line cannot be
        // `reverse_charge`).
        "drchargesupply20"
        | "drchargesupply5"
        | "drchargesupply"
        | "domestic reverse charge @ 20% (vat on income)"
        | "domestic reverse charge @ 5% (vat on income)" => (pct(0), T::Zero),
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
///
/// Sage Accounting prints a rate's name and its percentage (`Standard 20.00%`,
/// `Lower Rate 5.00%`, `Zero Rated 0.00%`, `Exempt 0.00%`, `No VAT`, `Reverse Charge
/// 20.00%`): the name gives the treatment, the percentage the rate.
pub fn sage(code: &str) -> Option<TaxCode> {
    use Treatment as T;
    let k = key(code);
    let Some(n) = k.strip_prefix('t').and_then(|n| n.parse::<u32>().ok()) else {
        return sage_accounting(&k);
    };
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

/// A Sage Accounting rate name with an optional percentage after it.
fn sage_accounting(k: &str) -> Option<TaxCode> {
    use Treatment as T;
    let (name, rate) = match k.rsplit_once(' ') {
        Some((name, pct)) if pct.ends_with('%') => {
            let v = crate::db::decimal::parse_decimal(pct.trim_end_matches('%'))?;
            (name.trim(), Some(Percent::new(v).ok()?))
        }
        _ => (k, None),
    };
    let t = match name {
        "standard" | "standard rate" => T::Standard,
        "lower rate" | "reduced" | "reduced rate" => T::Reduced,
        "zero rated" | "zero" => T::Zero,
        "exempt" => T::Exempt,
        "no vat" | "outside the scope" | "outside scope" => T::OutsideScope,
        "reverse charge" | "domestic reverse charge" => T::ReverseCharge,
        _ => return None,
    };
    if t.carries_no_vat() && rate.is_some_and(|r| !r.is_zero()) {
        return None;
    }
    Some((
        rate.or_else(|| t.carries_no_vat().then_some(Percent::ZERO)),
        t,
    ))
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

/// KashFlow's `Line-VAT Rate` cells: a plain rate, or `-2`, KashFlow's "N/A VAT" (the line
/// does not involve VAT: outside the scope). A plain `0` stays a rate (zero-rated).
pub fn kashflow(code: &str) -> Option<TaxCode> {
    (key(code) == "-2").then(|| (pct(0), Treatment::OutsideScope))
}

/// FreshBooks tax names, which the business chooses itself: `VAT` alone (or `VAT 20%`,
/// `20% VAT`) is standard-rated, `VAT 5%` reduced-rated; the rate itself comes from the
/// line's tax amount. Names of the other treatments are [`generic`]'s.
pub fn freshbooks(name: &str) -> Option<TaxCode> {
    use Treatment as T;
    let k = key(name);
    let words: Vec<&str> = k
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .filter(|w| !w.is_empty())
        .collect();
    if !words.contains(&"vat") {
        return None;
    }
    let rates: Vec<&str> = words.iter().copied().filter(|w| *w != "vat").collect();
    match rates.as_slice() {
        [] => Some((None, T::Standard)),
        [r] => match r.trim_end_matches(".0").trim_end_matches(".00") {
            "20" => Some((pct(20), T::Standard)),
            "5" => Some((pct(5), T::Reduced)),
            _ => None,
        },
        _ => None,
    }
}

/// A tax code of any known family, else `None` (the caller reads it as a plain rate).
pub fn lookup(code: &str) -> Option<TaxCode> {
    generic(code)
        .or_else(|| sage(code))
        .or_else(|| xero(code))
        .or_else(|| quickbooks(code))
        .or_else(|| kashflow(code))
        .or_else(|| freshbooks(code))
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
            ("DRCHARGESUPPLY20", "0", T::Zero),
            ("DRCHARGE20", "20", T::ReverseCharge),
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
            ("Standard 20.00%", "20", T::Standard),
            ("Lower Rate 5.00%", "5", T::Reduced),
            ("Zero Rated 0.00%", "0", T::Zero),
            ("Exempt 0.00%", "0", T::Exempt),
            ("Reverse Charge 20.00%", "20", T::ReverseCharge),
        ];
        for (code, rate, treatment) in cases {
            assert_eq!(t(code), Some((rate.to_owned(), treatment)), "{code}");
        }
        for plain in ["20", "20%", "T3", "banana", "Exempt 20%"] {
            assert_eq!(t(plain), None, "{plain}");
        }
    }
    #[test]
    fn kashflow_and_freshbooks_name_their_treatments() {
        assert_eq!(
            t("-2"),
            Some(("0".to_owned(), T::OutsideScope)),
            "KashFlow N/A VAT"
        );
        assert_eq!(t("0"), None, "a plain 0 stays a rate");
        assert_eq!(t("VAT"), Some(("-".to_owned(), T::Standard)));
        assert_eq!(t("VAT 20%"), Some(("20".to_owned(), T::Standard)));
        assert_eq!(t("VAT 5%"), Some(("5".to_owned(), T::Reduced)));
        assert_eq!(t("VAT (5.0%)"), Some(("5".to_owned(), T::Reduced)));
        assert_eq!(t("VAT 12%"), None);
        assert_eq!(t("Zero Rated"), Some(("0".to_owned(), T::Zero)));
    }
}
