//! Cell values: UK dates, money, VAT rates, booleans and the value sets of
//! docs/accounting.md#value-sets.
//!
//! Every parser takes the trimmed, non-empty cell text and answers the value or a short
//! reason ("not a date", "at most 2 decimal places" …) that the row error completes
//! with the row and column.

use rust_decimal::Decimal;
use serde::Serialize;
use time::{Date, Month};

use crate::db::decimal::{parse_decimal, Money, Percent, Price, Qty, Rate};
use crate::import::fields::EntityType;
use crate::import::records::{
    ContactType, DocStatus, Interval, PaidDocument, ProjectStatus, TemplateStatus,
};
use crate::import::tax_codes;
use crate::vat::Treatment;

// ---------------------------------------------------------------------------------------
// Dates

/// How `a/b/yyyy` dates of a file are read. Decided once per file, never per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DateOrder {
    /// `DD/MM/YYYY`, the UK order and the default.
    #[serde(rename = "DD/MM/YYYY")]
    DayMonth,
    /// `MM/DD/YYYY`, chosen only when the file itself shows it (a second part above 12).
    #[serde(rename = "MM/DD/YYYY")]
    MonthDay,
}

/// What a file's `a/b/yyyy` dates say about their order, gathered over every date cell
/// before any row is parsed.
#[derive(Debug, Default, Clone)]
pub struct DateEvidence {
    /// Dates whose first part is above 12 (so it is the day): (count, first row, text).
    day_first: (usize, usize, String),
    /// Dates whose second part is above 12 (so the first part is the month).
    month_first: (usize, usize, String),
    /// Dates in `a/b/yyyy` form at all.
    numeric: usize,
}

impl DateEvidence {
    pub fn observe(&mut self, cell: &str, row: usize) {
        let Some((a, b, _)) = split_numeric(first_token(cell)) else {
            return;
        };
        self.numeric += 1;
        let note = |slot: &mut (usize, usize, String)| {
            if slot.0 == 0 {
                slot.1 = row;
                slot.2 = cell.trim().to_owned();
            }
            slot.0 += 1;
        };
        if a > 12 && b <= 12 {
            note(&mut self.day_first);
        } else if b > 12 && a <= 12 {
            note(&mut self.month_first);
        }
    }

    /// The file's order and, when it was not plain from the file, a note saying why.
    pub fn decide(&self) -> (DateOrder, Option<String>) {
        let (dmy, mdy) = (&self.day_first, &self.month_first);
        match (dmy.0, mdy.0) {
            (0, 0) if self.numeric > 0 => (
                DateOrder::DayMonth,
                Some(
                    "Every date in the file could be read either way (day and month both \
                     12 or less); they were read as DD/MM/YYYY (UK)"
                        .to_owned(),
                ),
            ),
            (0, 0) => (DateOrder::DayMonth, None),
            (_, 0) => (DateOrder::DayMonth, None),
            (0, _) => (
                DateOrder::MonthDay,
                Some(format!(
                    "Dates were read as MM/DD/YYYY: `{}` on row {} has no month {}",
                    mdy.2,
                    mdy.1,
                    split_numeric(first_token(&mdy.2)).map_or(0, |(_, b, _)| b)
                )),
            ),
            _ => (
                DateOrder::DayMonth,
                Some(format!(
                    "The file mixes date orders (`{}` on row {} is DD/MM, `{}` on row {} is \
                     MM/DD); dates were read as DD/MM/YYYY (UK) and the others reported",
                    dmy.2, dmy.1, mdy.2, mdy.1
                )),
            ),
        }
    }
}

/// The date part of a cell: `2024-01-05 10:30:00` and `2024-01-05T10:30:00Z` → the date.
fn first_token(s: &str) -> &str {
    let s = s.trim();
    let end = s
        .find(|c: char| c.is_whitespace() || c == 'T')
        .unwrap_or(s.len());
    &s[..end]
}

/// `a/b/y` with `/`, `-` or `.`, parts of 1–2 digits and a year of 2 or 4 digits.
fn split_numeric(s: &str) -> Option<(u32, u32, i32)> {
    let sep = s.chars().find(|c| matches!(c, '/' | '-' | '.'))?;
    let mut parts = s.split(sep);
    let (a, b, y) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let digits = |p: &str, lens: &[usize]| {
        !p.is_empty() && lens.contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit())
    };
    if !(digits(a, &[1, 2]) && digits(b, &[1, 2]) && digits(y, &[2, 4])) {
        return None;
    }
    let mut year: i32 = y.parse().ok()?;
    if y.len() == 2 {
        year += 2000;
    }
    Some((a.parse().ok()?, b.parse().ok()?, year))
}

fn ymd(y: i32, m: u32, d: u32) -> Option<Date> {
    let month = Month::try_from(u8::try_from(m).ok()?).ok()?;
    Date::from_calendar_date(y, month, u8::try_from(d).ok()?).ok()
}

fn month_name(s: &str) -> Option<u32> {
    const NAMES: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let s = s.to_ascii_lowercase();
    if s.len() < 3 {
        return None;
    }
    let full = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    NAMES
        .iter()
        .zip(full)
        .position(|(short, long)| s == *short || s == long || (s == "sept" && *short == "sep"))
        .map(|i| i as u32 + 1)
}

/// Parses a date: ISO `YYYY-MM-DD` (a time part is ignored), `a/b/yyyy` in the file's
/// order (also `-` or `.`, and 2-digit years as 20yy), `05-Jan-2024`, `5 January 2024`
/// and `Jan 5, 2024`.
pub fn parse_date(cell: &str, order: DateOrder) -> Result<Date, String> {
    let bad = || format!("`{}` is not a date", cell.trim());
    let token = first_token(cell);
    // ISO: 4-digit year first.
    let iso: Vec<&str> = token.split(['-', '/']).collect();
    if iso.len() == 3
        && iso[0].len() == 4
        && iso
            .iter()
            .all(|p| p.bytes().all(|c| c.is_ascii_digit()) && !p.is_empty())
    {
        let (y, m, d) = (
            iso[0].parse().ok(),
            iso[1].parse().ok(),
            iso[2].parse().ok(),
        );
        return match (y, m, d) {
            (Some(y), Some(m), Some(d)) => ymd(y, m, d).ok_or_else(bad),
            _ => Err(bad()),
        };
    }
    if let Some((a, b, y)) = split_numeric(token) {
        let (d, m) = match order {
            DateOrder::DayMonth => (a, b),
            DateOrder::MonthDay => (b, a),
        };
        return ymd(y, m, d).ok_or_else(|| {
            let expected = match order {
                DateOrder::DayMonth => "DD/MM/YYYY",
                DateOrder::MonthDay => "MM/DD/YYYY",
            };
            format!(
                "`{}` is not a date in the file's {expected} order",
                cell.trim()
            )
        });
    }
    // Month names.
    let parts: Vec<&str> = cell
        .trim()
        .split([' ', '-', '/', ',', '.'])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() == 3 {
        let year = |p: &str| -> Option<i32> {
            let y: i32 = p.parse().ok()?;
            match p.len() {
                4 => Some(y),
                2 => Some(2000 + y),
                _ => None,
            }
        };
        let num = |p: &str| {
            p.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<u32>()
                .ok()
        };
        if let (Some(d), Some(m), Some(y)) = (num(parts[0]), month_name(parts[1]), year(parts[2])) {
            return ymd(y, m, d).ok_or_else(bad);
        }
        if let (Some(m), Some(d), Some(y)) = (month_name(parts[0]), num(parts[1]), year(parts[2])) {
            return ymd(y, m, d).ok_or_else(bad);
        }
    }
    Err(bad())
}

// ---------------------------------------------------------------------------------------
// Numbers

/// Parses a money-like amount: `£1,234.50`, `-£12`, `£-12`, `(1,234.50)`, `12.00-`,
/// `GBP 12.00`, `1 234.50`. Commas must be thousands separators.
pub fn parse_amount(cell: &str) -> Result<Decimal, String> {
    let bad = || format!("`{}` is not an amount", cell.trim());
    let mut s: String = cell
        .trim()
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{a0}')
        .collect();
    let mut negative = false;
    if s.starts_with('(') && s.ends_with(')') && s.len() > 2 {
        negative = true;
        s = s[1..s.len() - 1].to_owned();
    }
    let strip_sign = |s: &mut String, negative: &mut bool| {
        if let Some(rest) = s.strip_prefix(['-', '\u{2212}']) {
            *negative = !*negative;
            *s = rest.to_owned();
        } else if let Some(rest) = s.strip_prefix('+') {
            *s = rest.to_owned();
        } else if let Some(rest) = s.strip_suffix('-') {
            *negative = !*negative;
            *s = rest.to_owned();
        }
    };
    strip_sign(&mut s, &mut negative);
    for symbol in ["£", "GBP", "gbp", "$", "€"] {
        if let Some(rest) = s.strip_prefix(symbol) {
            s = rest.to_owned();
        } else if let Some(rest) = s.strip_suffix(symbol) {
            s = rest.to_owned();
        }
    }
    if !negative {
        strip_sign(&mut s, &mut negative);
    }
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s.as_str(), None),
    };
    if int.contains(',') {
        let mut groups = int.split(',');
        let first = groups.next().unwrap_or("");
        if first.is_empty() || first.len() > 3 || groups.any(|g| g.len() != 3) {
            return Err(bad());
        }
    }
    let digits: String = int.chars().filter(|c| *c != ',').collect();
    let ok = |p: &str| p.bytes().all(|c| c.is_ascii_digit());
    if !ok(&digits)
        || frac.is_some_and(|f| !ok(f) || f.is_empty())
        || (digits.is_empty() && frac.is_none())
    {
        return Err(bad());
    }
    let text = match frac {
        Some(f) => format!("{}.{f}", if digits.is_empty() { "0" } else { &digits }),
        None => digits,
    };
    let value = parse_decimal(&text).ok_or_else(bad)?;
    Ok(if negative { -value } else { value })
}

fn kind<T>(
    cell: &str,
    value: Decimal,
    make: fn(Decimal) -> Result<T, String>,
) -> Result<T, String> {
    make(value).map_err(|why| format!("`{}`: {why}", cell.trim()))
}

/// A money amount (2 dp): totals, amounts paid, expenses, rates, budgets, hours.
pub fn parse_money(cell: &str) -> Result<Money, String> {
    kind(cell, parse_amount(cell)?, Money::new)
}

/// A unit price or cost (4 dp).
pub fn parse_price(cell: &str) -> Result<Price, String> {
    kind(cell, parse_amount(cell)?, Price::new)
}

/// A quantity (3 dp; FreshBooks' `10.00000000` is 10).
pub fn parse_qty(cell: &str) -> Result<Qty, String> {
    kind(cell, parse_amount(cell)?, Qty::new)
}

fn percent(cell: &str, value: Decimal) -> Result<Percent, String> {
    let p = kind(cell, value, Percent::new)?;
    if p.value() < Decimal::ZERO || p.value() > Decimal::from(100) {
        return Err(format!(
            "`{}` is not a percentage from 0 to 100",
            cell.trim()
        ));
    }
    Ok(p)
}

/// A plain percentage such as a discount: `10`, `10%`, `12.5 %`.
pub fn parse_percent(cell: &str) -> Result<Percent, String> {
    let t = cell.trim().trim_end_matches('%').trim();
    let value = parse_decimal(t).ok_or_else(|| format!("`{}` is not a percentage", cell.trim()))?;
    percent(cell, value)
}

/// Sage 50 tax codes as a UK company's defaults set them up: T0 zero-rated, T1 standard,
/// T2 exempt, T4 sales to the EC, T5 lower rate, T7 zero-rated EC purchases, T8
/// standard-rated EC purchases, T9 outside the scope of VAT.
fn sage_tax_code(code: u32) -> Option<u32> {
    match code {
        0 | 2 | 4 | 7 | 9 => Some(0),
        1 | 8 => Some(20),
        5 => Some(5),
        _ => None,
    }
}

/// A VAT rate as platforms write it, as a percentage: `20`, `20%`, `20% (VAT on Income)`,
/// `Standard 20%`, `20.0% S`, `Reverse Charge Expenses (20%)`, `Standard`, `Lower Rate`,
/// `Zero Rated Income`, `Exempt`, `No VAT`, KashFlow's `-2` (not applicable) and Sage 50
/// tax codes `T0`…`T9`.
pub fn parse_vat_rate(cell: &str) -> Result<Percent, String> {
    let text = cell.trim();
    let lower = text.to_lowercase();
    let unknown = || format!("`{text}` is not a VAT rate");
    if let Some(code) = lower.strip_prefix('t') {
        if !code.is_empty() && code.len() <= 2 && code.bytes().all(|c| c.is_ascii_digit()) {
            let n: u32 = code.parse().map_err(|_| unknown())?;
            return sage_tax_code(n)
                .map(|r| Percent::from_i64(i64::from(r)))
                .ok_or_else(|| format!("`{text}` is not a standard Sage tax code"));
        }
    }
    if lower == "-2" {
        return Ok(Percent::ZERO);
    }
    // A number followed by `%` anywhere in the text.
    let bytes = lower.as_bytes();
    if let Some(pct) = lower.find('%') {
        let mut start = pct;
        let before = lower[..pct].trim_end();
        let end = before.len();
        start = start.min(end);
        while start > 0 && (bytes[start - 1].is_ascii_digit() || bytes[start - 1] == b'.') {
            start -= 1;
        }
        if start < end {
            if let Some(v) = parse_decimal(&lower[start..end]) {
                return percent(cell, v);
            }
        }
    }
    if let Some(v) = parse_decimal(lower.trim_end_matches('%').trim()) {
        return percent(cell, v);
    }
    let has = |w: &str| lower.contains(w);
    if has("zero")
        || has("exempt")
        || has("no vat")
        || has("novat")
        || has("outside")
        || has("not applicable")
        || lower == "n/a"
        || lower == "none"
        || has("no tax")
        || has("non-vat")
        || has("non vat")
    {
        return Ok(Percent::ZERO);
    }
    if has("standard") {
        return Ok(Percent::from_i64(20));
    }
    if has("reduced") || has("lower") {
        return Ok(Percent::from_i64(5));
    }
    Err(unknown())
}

/// A tax cell: a source's tax code (docs/import.md#tax-codes) gives the rate and the
/// treatment; a plain rate gives the rate, and the treatment follows it later.
pub fn parse_tax(cell: &str) -> Result<(Option<Percent>, Option<Treatment>), String> {
    if let Some((rate, t)) = tax_codes::lookup(cell) {
        return Ok((rate, Some(t)));
    }
    parse_vat_rate(cell).map(|r| (Some(r), None))
}

/// A VAT treatment: one of the six values, or a tax code or name that fixes one
/// (docs/import.md#tax-codes).
pub fn parse_treatment(cell: &str) -> Result<Treatment, String> {
    tax_codes::lookup(cell).map(|(_, t)| t).ok_or_else(|| {
        format!(
            "`{}` is not a VAT treatment (one of {})",
            cell.trim(),
            crate::vat::TREATMENTS.join(", ")
        )
    })
}

/// An ISO 4217 currency code: three letters, upper-cased.
pub fn parse_currency(cell: &str) -> Result<String, String> {
    let t = cell.trim();
    if t.len() == 3 && t.bytes().all(|b| b.is_ascii_alphabetic()) {
        Ok(t.to_ascii_uppercase())
    } else {
        Err(format!("`{t}` is not a three-letter currency code"))
    }
}

/// An exchange rate: pounds per one unit of the currency, above 0, up to 6 dp.
pub fn parse_rate(cell: &str) -> Result<Rate, String> {
    let r = kind(cell, parse_amount(cell)?, Rate::new)?;
    if r.value() <= Decimal::ZERO {
        return Err(format!("`{}` is not an exchange rate above 0", cell.trim()));
    }
    Ok(r)
}

/// The kind of document a payment pays: `invoice`, `bill`, `credit_note`,
/// `supplier_credit` (spaces and case ignored).
pub fn parse_paid_document(cell: &str) -> Result<PaidDocument, String> {
    match words(cell).replace([' ', '_', '-'], "").as_str() {
        // Xero's `PaymentType`s: receivable, payable, and their credit notes' refunds.
        "invoice" | "invoices" | "accrecpayment" => Ok(PaidDocument::Invoice),
        "bill" | "bills" | "accpaypayment" => Ok(PaidDocument::Bill),
        "creditnote" | "creditnotes" | "arcreditpayment" => Ok(PaidDocument::CreditNote),
        "suppliercredit" | "suppliercredits" | "apcreditpayment" => {
            Ok(PaidDocument::SupplierCredit)
        }
        _ => Err(format!(
            "`{}` is not a document type (invoice, bill, credit_note, supplier_credit)",
            cell.trim()
        )),
    }
}

/// An integer count above zero (`interval_count`).
pub fn parse_count(cell: &str) -> Result<u32, String> {
    let t = cell.trim();
    let t = t.strip_suffix(".0").unwrap_or(t);
    match t.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{}` is not a whole number above 0", cell.trim())),
    }
}

// ---------------------------------------------------------------------------------------
// Words

/// Lower-case words separated by single spaces: `Awaiting-Payment ` → `awaiting payment`.
fn words(cell: &str) -> String {
    cell.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `billable` and other yes/no cells.
pub fn parse_bool(cell: &str) -> Result<bool, String> {
    match words(cell).as_str() {
        "yes" | "y" | "true" | "t" | "1" | "billable" | "chargeable" | "on" => Ok(true),
        "no" | "n" | "false" | "f" | "0" | "non billable" | "nonbillable" | "not billable"
        | "unbillable" | "not chargeable" | "off" => Ok(false),
        _ => Err(format!("`{}` is not yes or no", cell.trim())),
    }
}

/// Contact `type`: customer, supplier (vendor) or both.
pub fn parse_contact_type(cell: &str) -> Result<ContactType, String> {
    match words(cell).as_str() {
        "customer" | "customers" | "client" | "clients" => Ok(ContactType::Customer),
        "supplier" | "suppliers" | "vendor" | "vendors" => Ok(ContactType::Supplier),
        "both" | "customer and supplier" | "customer supplier" | "customer vendor" => {
            Ok(ContactType::Both)
        }
        _ => Err(format!(
            "`{}` is not a contact type (customer, supplier or both)",
            cell.trim()
        )),
    }
}

/// Invoice or bill status, from the words the platforms use into the value set of the
/// type (docs/accounting.md#value-sets). Words are compared without spaces or case, so
/// Zoho's `PartiallyPaid`, `Partially Paid` and `partially_paid` are one status. The
/// vocabularies: Zoho Books (`Draft`, `Sent`, `Viewed`, `Unpaid`, `Overdue`,
/// `PartiallyPaid`, `Paid`, `Void`, `PendingApproval`, `Approved`; bills `Open`), Xero
/// (`DRAFT`, `SUBMITTED`, `AUTHORISED`, `PAID`, `VOIDED`, `DELETED`), QuickBooks (`Open`,
/// `Overdue`, `Overdue 12 days`, `Due in 3 days`, `Partial`, `Paid`, `Deposited`,
/// `Closed`, `Voided`), FreshBooks (`created`, `draft`, `sent`, `resent`, `viewed`,
/// `outstanding`, `overdue`, `partial`, `deposit-partial`, `deposit-paid`, `disputed`,
/// `retry`, `failed`, `paid`, `auto-paid`), Sage Accounting (`Draft`, `Pro-Forma`,
/// `Unpaid`, `Part Paid`, `Paid`, `Void`, `Disputed`), KashFlow (`Unpaid`, `Part Paid`,
/// `Paid`, `Overdue`) and FreeAgent (`Draft`, `Scheduled To Email`, `Open`, `Overdue`,
/// `Paid`, `Zero Value`, `Cancelled`, `Written-off`, `Refunded`). Partly paid and overdue
/// documents are open (`sent`, `awaiting_payment`); what was paid comes from the amount
/// columns.
pub fn parse_doc_status(cell: &str, entity: EntityType) -> Result<DocStatus, String> {
    let open = match entity {
        EntityType::Bills => DocStatus::AwaitingPayment,
        EntityType::CreditNotes | EntityType::SupplierCredits => DocStatus::Posted,
        _ => DocStatus::Sent,
    };
    if open == DocStatus::Posted {
        // A credit is draft, posted or void: the states a source has in between (sent,
        // paid, applied, refunded) are posted.
        let key = words(cell).replace(' ', "");
        if matches!(key.as_str(), "posted" | "applied" | "refunded" | "credited") {
            return Ok(DocStatus::Posted);
        }
        return match parse_doc_status(cell, EntityType::Invoices) {
            Ok(DocStatus::Draft) => Ok(DocStatus::Draft),
            Ok(DocStatus::Void) => Ok(DocStatus::Void),
            Ok(_) => Ok(DocStatus::Posted),
            Err(_) => Err(format!("`{}` is not a credit status", cell.trim())),
        };
    }
    let key = words(cell).replace(' ', "");
    // QuickBooks writes the days with the status: `Overdue 12 days`, `Due in 3 days`.
    let dated = |prefix: &str| {
        key.strip_prefix(prefix).is_some_and(|rest| {
            let n = rest.trim_end_matches("days").trim_end_matches("day");
            !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())
        })
    };
    if dated("overdue") || dated("duein") {
        return Ok(open);
    }
    match key.as_str() {
        "draft"
        | "created"
        | "awaitingapproval"
        | "submitted"
        | "submittedforapproval"
        | "pending"
        | "pendingapproval"
        | "rejected"
        | "scheduled"
        | "scheduledtoemail"
        | "notsent"
        | "unsent"
        | "saved"
        | "proforma" => Ok(DocStatus::Draft),
        "sent" | "resent" | "awaitingpayment" | "authorised" | "authorized" | "approved"
        | "open" | "unpaid" | "overdue" | "viewed" | "partiallypaid" | "partpaid"
        | "partlypaid" | "partial" | "partialpayment" | "depositpartial" | "depositpaid"
        | "outstanding" | "due" | "disputed" | "retry" | "failed" | "zerovalue" => Ok(open),
        "paid" | "closed" | "autopaid" | "overpaid" | "complete" | "completed" | "deposited" => {
            Ok(DocStatus::Paid)
        }
        "void" | "voided" | "deleted" | "cancelled" | "canceled" | "writtenoff" | "writeoff"
        | "refunded" => Ok(DocStatus::Void),
        _ => Err(format!(
            "`{}` is not an {} status",
            cell.trim(),
            match entity {
                EntityType::Bills => "bill",
                _ => "invoice",
            }
        )),
    }
}

/// Project status into `active | completed | archived`.
pub fn parse_project_status(cell: &str) -> Result<ProjectStatus, String> {
    match words(cell).as_str() {
        "active" | "open" | "in progress" | "ongoing" | "live" => Ok(ProjectStatus::Active),
        "completed" | "complete" | "closed" | "done" | "finished" => Ok(ProjectStatus::Completed),
        "archived" | "cancelled" | "canceled" | "hidden" | "inactive" => {
            Ok(ProjectStatus::Archived)
        }
        _ => Err(format!("`{}` is not a project status", cell.trim())),
    }
}

/// Recurring template status into `active | paused | cancelled`.
/// A product's status as the platforms write it: whether it is active
/// (docs/import.md#fields). Xero items `Active`/`Archived`, FreshBooks and Zoho Books
/// `Active`/`Inactive`, WooCommerce `publish` (any other WooCommerce status, `draft`,
/// `pending`, `private`, is not for sale), or a yes/no.
pub fn parse_product_status(cell: &str) -> Result<bool, String> {
    match words(cell).as_str() {
        "active" | "publish" | "published" | "enabled" | "yes" | "true" | "y" | "1" => Ok(true),
        "archived" | "inactive" | "deleted" | "disabled" | "draft" | "pending" | "private"
        | "trash" | "hidden" | "no" | "false" | "n" | "0" => Ok(false),
        _ => Err(format!("`{}` is not a product status", cell.trim())),
    }
}

pub fn parse_template_status(cell: &str) -> Result<TemplateStatus, String> {
    match words(cell).as_str() {
        "active" | "live" | "trialing" | "trial" | "past due" => Ok(TemplateStatus::Active),
        "paused" | "on hold" | "suspended" | "draft" => Ok(TemplateStatus::Paused),
        "cancelled" | "canceled" | "ended" | "inactive" | "expired" | "stopped" | "finished" => {
            Ok(TemplateStatus::Cancelled)
        }
        _ => Err(format!("`{}` is not a subscription status", cell.trim())),
    }
}

/// A recurrence: `week | month | year` and, when the word carries one, a count
/// (`Quarterly` = every 3 months, `Fortnightly` = every 2 weeks, `every 6 months` …).
pub fn parse_interval(cell: &str) -> Result<(Interval, Option<u32>), String> {
    let w = words(cell);
    let unit = |s: &str| -> Option<Interval> {
        match s {
            "week" | "weeks" | "weekly" | "w" => Some(Interval::Week),
            "month" | "months" | "monthly" | "m" => Some(Interval::Month),
            "year" | "years" | "yearly" | "annually" | "annual" | "y" => Some(Interval::Year),
            _ => None,
        }
    };
    let number = |s: &str| -> Option<u32> {
        match s {
            "two" | "bi" => Some(2),
            "three" => Some(3),
            "four" => Some(4),
            "six" => Some(6),
            _ => s.parse().ok().filter(|n| *n > 0),
        }
    };
    let found = match w.as_str() {
        "fortnight" | "fortnightly" | "biweekly" => Some((Interval::Week, Some(2))),
        "quarter" | "quarterly" => Some((Interval::Month, Some(3))),
        "bimonthly" => Some((Interval::Month, Some(2))),
        "biannually" | "biannual" | "half yearly" | "semiannually" | "semi annually" => {
            Some((Interval::Month, Some(6)))
        }
        "biennially" | "biennial" => Some((Interval::Year, Some(2))),
        other => {
            let tokens: Vec<&str> = other.split(' ').filter(|t| *t != "every").collect();
            match tokens.as_slice() {
                [u] => unit(u).map(|i| (i, None)),
                [n, u] => match (number(n), unit(u)) {
                    (Some(n), Some(i)) => Some((i, Some(n))),
                    _ => None,
                },
                _ => None,
            }
        }
    };
    found.ok_or_else(|| format!("`{}` is not an interval (week, month or year)", cell.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    fn dmy(s: &str) -> Result<Date, String> {
        parse_date(s, DateOrder::DayMonth)
    }

    #[test]
    fn uk_dates_read_day_first_and_us_dates_month_first() {
        assert_eq!(dmy("05/01/2024"), Ok(date!(2024 - 01 - 05)));
        assert_eq!(dmy("5/1/2024"), Ok(date!(2024 - 01 - 05)));
        assert_eq!(dmy("31.12.23"), Ok(date!(2023 - 12 - 31)));
        assert_eq!(
            parse_date("01/05/2024", DateOrder::MonthDay),
            Ok(date!(2024 - 01 - 05))
        );
        assert!(dmy("01/25/2024").unwrap_err().contains("DD/MM/YYYY"));
        assert!(dmy("31/02/2024").is_err());
    }

    #[test]
    fn iso_and_month_name_dates_do_not_depend_on_the_order() {
        for order in [DateOrder::DayMonth, DateOrder::MonthDay] {
            assert_eq!(parse_date("2024-01-05", order), Ok(date!(2024 - 01 - 05)));
            assert_eq!(
                parse_date("2024-01-05 13:45:10", order),
                Ok(date!(2024 - 01 - 05))
            );
            assert_eq!(
                parse_date("2024-01-05T13:45:10Z", order),
                Ok(date!(2024 - 01 - 05))
            );
            assert_eq!(parse_date("05-Jan-2024", order), Ok(date!(2024 - 01 - 05)));
            assert_eq!(
                parse_date("5 January 2024", order),
                Ok(date!(2024 - 01 - 05))
            );
            assert_eq!(parse_date("Jan 5, 2024", order), Ok(date!(2024 - 01 - 05)));
            assert_eq!(parse_date("5-Sept-24", order), Ok(date!(2024 - 09 - 05)));
        }
        assert!(dmy("yesterday").is_err());
        assert!(dmy("2024-02-30").is_err());
    }

    #[test]
    fn the_order_is_decided_from_the_whole_file_and_defaults_to_uk() {
        let mut e = DateEvidence::default();
        e.observe("01/02/2024", 2);
        e.observe("2024-03-04", 3);
        let (order, note) = e.decide();
        assert_eq!(order, DateOrder::DayMonth);
        assert!(note.unwrap().contains("DD/MM/YYYY (UK)"));

        let mut e = DateEvidence::default();
        e.observe("01/02/2024", 2);
        e.observe("01/25/2024", 3);
        let (order, note) = e.decide();
        assert_eq!(order, DateOrder::MonthDay);
        assert!(note.unwrap().contains("row 3"));

        let mut e = DateEvidence::default();
        e.observe("25/01/2024", 2);
        assert_eq!(e.decide(), (DateOrder::DayMonth, None));

        let mut e = DateEvidence::default();
        e.observe("2024-01-25", 2);
        assert_eq!(e.decide(), (DateOrder::DayMonth, None));
    }

    fn amount(s: &str) -> String {
        parse_amount(s)
            .map(|d| d.normalize().to_string())
            .unwrap_or_else(|e| e)
    }

    #[test]
    fn money_takes_pounds_thousands_separators_and_both_negative_styles() {
        assert_eq!(amount("£1,234.50"), "1234.5");
        assert_eq!(amount(" 1234.5 "), "1234.5");
        assert_eq!(amount("1,234,567"), "1234567");
        assert_eq!(amount("(1,234.50)"), "-1234.5");
        assert_eq!(amount("(£12.00)"), "-12");
        assert_eq!(amount("-£12.00"), "-12");
        assert_eq!(amount("£-12.00"), "-12");
        assert_eq!(amount("12.00-"), "-12");
        assert_eq!(amount("GBP 99.99"), "99.99");
        assert_eq!(amount(".5"), "0.5");
        assert_eq!(amount("1 234.50"), "1234.5");
        for bad in ["12,5", "1,23,456", "£", "abc", "1.2.3", "--5", "12a"] {
            assert!(parse_amount(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn money_kinds_refuse_extra_places_instead_of_rounding() {
        assert_eq!(
            parse_money("£1,234.50").unwrap().value(),
            Decimal::new(123450, 2)
        );
        assert!(parse_money("1.005")
            .unwrap_err()
            .contains("2 decimal places"));
        assert_eq!(
            parse_price("1.0005").unwrap().value(),
            Decimal::new(10005, 4)
        );
        assert_eq!(parse_qty("10.00000000").unwrap().value(), Decimal::from(10));
        assert!(parse_qty("1.0005").is_err());
    }

    #[test]
    fn vat_rates_come_from_every_platforms_wording() {
        let rate = |s: &str| parse_vat_rate(s).map(|p| p.value().normalize().to_string());
        for (text, want) in [
            ("20", "20"),
            ("20%", "20"),
            ("17.5", "17.5"),
            ("20% (VAT on Income)", "20"),
            ("20% (VAT on Expenses)", "20"),
            ("Standard 20%", "20"),
            ("Standard 20.00%", "20"),
            ("20.0% S", "20"),
            ("5.0% R", "5"),
            ("0.0% Z", "0"),
            ("Reverse Charge Expenses (20%)", "20"),
            ("Standard", "20"),
            ("Lower Rate", "5"),
            ("Zero Rated Income", "0"),
            ("Zero Rated", "0"),
            ("Exempt Income", "0"),
            ("No VAT", "0"),
            ("-2", "0"),
            ("T1", "20"),
            ("T0", "0"),
            ("T5", "5"),
            ("t9", "0"),
        ] {
            assert_eq!(rate(text), Ok(want.to_owned()), "{text}");
        }
        assert!(parse_vat_rate("T3").is_err());
        assert!(parse_vat_rate("VAT").is_err());
        assert!(parse_vat_rate("120%").is_err());
    }

    #[test]
    fn booleans_statuses_and_intervals_map_to_the_value_sets() {
        assert_eq!(parse_bool("Yes"), Ok(true));
        assert_eq!(parse_bool("non-billable"), Ok(false));
        assert_eq!(parse_bool("1"), Ok(true));
        assert!(parse_bool("maybe").is_err());

        let inv = |s| parse_doc_status(s, EntityType::Invoices);
        let bill = |s| parse_doc_status(s, EntityType::Bills);
        assert_eq!(inv("Awaiting Payment"), Ok(DocStatus::Sent));
        assert_eq!(bill("Awaiting Payment"), Ok(DocStatus::AwaitingPayment));
        assert_eq!(bill("sent"), Ok(DocStatus::AwaitingPayment));
        assert_eq!(inv("PAID"), Ok(DocStatus::Paid));
        assert_eq!(inv("Draft"), Ok(DocStatus::Draft));
        assert_eq!(inv("Voided"), Ok(DocStatus::Void));
        assert_eq!(inv("Written-off"), Ok(DocStatus::Void));
        assert!(inv("lost").is_err());
        for word in [
            "PartiallyPaid",
            "partially_paid",
            "Partially Paid",
            "Overdue",
            "Unpaid",
            "Viewed",
            "Part Paid",
            "PART_PAID",
            "Overdue 12 days",
            "Due in 3 days",
            "deposit-partial",
            "resent",
            "Zero Value",
        ] {
            assert_eq!(inv(word), Ok(DocStatus::Sent), "{word}");
            assert_eq!(bill(word), Ok(DocStatus::AwaitingPayment), "{word}");
        }
        for word in [
            "PendingApproval",
            "Pro-Forma",
            "Scheduled To Email",
            "created",
        ] {
            assert_eq!(inv(word), Ok(DocStatus::Draft), "{word}");
        }
        assert_eq!(inv("Deposited"), Ok(DocStatus::Paid));
        assert_eq!(inv("auto-paid"), Ok(DocStatus::Paid));
        assert_eq!(bill("Void"), Ok(DocStatus::Void));
        assert_eq!(inv("WriteOff"), Ok(DocStatus::Void));
        assert!(inv("Overdue soon").is_err());

        assert_eq!(parse_contact_type("Vendor"), Ok(ContactType::Supplier));
        assert_eq!(
            parse_project_status("In Progress"),
            Ok(ProjectStatus::Active)
        );
        assert_eq!(
            parse_template_status("canceled"),
            Ok(TemplateStatus::Cancelled)
        );

        assert_eq!(parse_interval("Monthly"), Ok((Interval::Month, None)));
        assert_eq!(parse_interval("quarterly"), Ok((Interval::Month, Some(3))));
        assert_eq!(
            parse_interval("every 2 weeks"),
            Ok((Interval::Week, Some(2)))
        );
        assert_eq!(parse_interval("2-Yearly"), Ok((Interval::Year, Some(2))));
        assert_eq!(parse_interval("Annually"), Ok((Interval::Year, None)));
        assert!(parse_interval("daily").is_err());
        assert_eq!(parse_count("3"), Ok(3));
        assert!(parse_count("0").is_err());
    }
}
