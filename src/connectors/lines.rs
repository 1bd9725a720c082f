//! Documents (invoices, orders, bills) to import rows, one per line, with lines fitted so
//! that the importer's arithmetic reproduces the source's own total
//! (docs/import.md#imported-documents).
//!
//! The importer computes, per line, net = round(qty × unit_price × (1 − discount/100), 2)
//! and VAT = round(net × rate/100, 2), and the document total as the sum. A platform gives
//! us, per line, its own net (VAT-exclusive, after discounts) and VAT amount, exact to the
//! penny; [`fit_line`] chooses (quantity, unit_price, discount, rate) that give exactly
//! those two amounts where the importer's places allow it:
//!
//! 1. price: the source's VAT-exclusive unit price if `qty × price` rounds to the net; else
//!    that price with the discount percentage that does; else net / qty to 4 places; else
//!    quantity 1 at the net (only for quantities whose 4-place price cannot round back);
//! 2. rate: the source's nominal rate if it reproduces the source's VAT; else the 2-place
//!    rate nearest to it that does (VAT-inclusive prices rounded per line can need
//!    20.02 % where the nominal rate is 20 %); else the rate nearest the source's VAT
//!    amount (the platform's amount wins over a nominal rate that contradicts it);
//! 3. if the fitted lines still do not add up to the source total (no rate fits, or the
//!    platform's total holds something no line shows, such as an invoice-level discount
//!    PayPal does not allocate to items), a last line (quantity 1, VAT 0) carries the
//!    difference: "Rounding adjustment" under £1, "Adjustment to the source total" above;
//!    a document without lines gets one "Imported total" line. `total` is always the
//!    source's total. A difference beyond rounding ([`PENCE_PER_LINE`] a line) makes the
//!    document a row error instead ([`contradiction`], docs/import.md#imported-documents).

use rust_decimal::Decimal;

use super::{dec_text, ImportRow, Row};
use crate::db::decimal::round;

/// A line as the platform states it.
#[derive(Debug, Clone, Default)]
pub struct SourceLine {
    pub description: String,
    pub quantity: Decimal,
    /// The VAT-exclusive unit price before discount, when the platform states one.
    pub unit_price: Option<Decimal>,
    /// VAT-exclusive amount after discounts (2 dp).
    pub net: Decimal,
    /// VAT amount (2 dp).
    pub vat: Decimal,
    /// The platform's nominal VAT rate in percent, when it states one.
    pub vat_rate: Option<Decimal>,
    pub sku: Option<String>,
    /// What the platform says of the line's tax: `Some(true)` when it has a tax line or
    /// a taxable flag, `Some(false)` when it says the line is not taxable, `None` when it
    /// says nothing. A line at 0 % is `zero` when taxable, else `outside_scope`
    /// ([`treatment`]).
    pub taxable: Option<bool>,
    /// The treatment when the platform names it exactly (it wins over [`treatment`]).
    pub vat_treatment: Option<&'static str>,
}

impl SourceLine {
    /// A line known only by amounts (shipping, fees, tips): quantity 1.
    pub fn amount(description: impl Into<String>, net: Decimal, vat: Decimal) -> Self {
        Self {
            description: description.into(),
            quantity: Decimal::ONE,
            unit_price: Some(net),
            net,
            vat,
            ..Self::default()
        }
    }
}

/// A document as the platform states it: an invoice (an order), or a credit note (a
/// refund) naming the invoice it credits by `original_ref` / `original_number`.
#[derive(Debug, Clone, Default)]
pub struct SourceDoc {
    pub number: Option<String>,
    pub contact_name: Option<String>,
    pub issue_date: Option<String>,
    pub due_date: Option<String>,
    pub status: Option<String>,
    pub total: Decimal,
    pub amount_paid: Option<Decimal>,
    /// The date of `amount_paid` (one payment), when the platform says when it was paid.
    pub paid_date: Option<String>,
    /// ISO 4217, as the platform writes it (stored in capitals).
    pub currency: Option<String>,
    /// Pounds per unit of `currency`, when the platform gives a rate or a settlement in
    /// GBP; left out for GBP.
    pub exchange_rate: Option<Decimal>,
    /// A credit note's invoice: the platform's id of it (its `provider_ref`).
    pub original_ref: Option<String>,
    /// A credit note's invoice: its number.
    pub original_number: Option<String>,
    pub provider_ref: Option<String>,
    pub lines: Vec<SourceLine>,
    /// Why the platform's record cannot be imported (it could not be read whole): every
    /// row of it is then a row error with this message.
    pub error: Option<String>,
}

/// One dated payment as the platform states it: a payment of an invoice (an order's
/// sale or capture) or a refund paid on a credit note.
#[derive(Debug, Clone, Default)]
pub struct SourcePayment {
    /// `invoice` or `credit_note`.
    pub document_type: &'static str,
    /// The document's `provider_ref`.
    pub document_ref: Option<String>,
    pub document_number: Option<String>,
    pub date: Option<String>,
    pub amount: Decimal,
    pub method: Option<String>,
    pub reference: Option<String>,
    pub provider_ref: Option<String>,
}

/// What a platform's orders come to: the invoices, the credit notes of their refunds and
/// the dated payments (of orders paid on several days, and of every refund), as the
/// `invoices`, `credit_notes` and `payments` rows of one pull (docs/import.md#connectors).
#[derive(Debug, Default)]
pub struct Orders {
    pub invoices: Vec<SourceDoc>,
    pub credits: Vec<SourceDoc>,
    pub payments: Vec<SourcePayment>,
}

impl Orders {
    pub fn invoice_rows(&self) -> Vec<ImportRow> {
        self.invoices.iter().flat_map(fit_document).collect()
    }

    pub fn credit_rows(&self) -> Vec<ImportRow> {
        self.credits.iter().flat_map(fit_document).collect()
    }

    pub fn payment_rows(&self) -> Vec<ImportRow> {
        self.payments.iter().map(SourcePayment::row).collect()
    }
}

impl SourcePayment {
    /// The `payments` import row (docs/import.md#fields).
    pub fn row(&self) -> ImportRow {
        Row::new()
            .set("document_type", Some(self.document_type.to_owned()))
            .text("document_ref", self.document_ref.as_deref())
            .text("document_number", self.document_number.as_deref())
            .text("date", self.date.as_deref())
            .set("amount", Some(dec_text(self.amount)))
            .text("method", self.method.as_deref())
            .text("reference", self.reference.as_deref())
            .text("provider_ref", self.provider_ref.as_deref())
            .build()
    }
}

/// Where an invoice's dated payments go (docs/import.md#connectors): when they all fall
/// on one day they are the document's `amount_paid` (their sum) and `paid_date`, and no
/// payment row; when they fall on several days the document carries no `amount_paid`
/// (and is `sent`, a bill `awaiting_payment`, rather than `paid`: its status follows the
/// payments) and each is a payment row. Without dated payments the document keeps the
/// amount it has.
pub fn settle(doc: &mut SourceDoc, payments: Vec<SourcePayment>) -> Vec<SourcePayment> {
    let Some(first) = payments.first() else {
        return payments;
    };
    if payments.iter().all(|p| p.date == first.date) {
        let sum: Decimal = payments.iter().map(|p| p.amount).sum();
        doc.amount_paid = Some(sum.min(doc.total));
        doc.paid_date.clone_from(&first.date);
        return Vec::new();
    }
    doc.amount_paid = None;
    doc.paid_date = None;
    if doc.status.as_deref() == Some("paid") {
        let unpaid = if first.document_type == "bill" {
            "awaiting_payment"
        } else {
            "sent"
        };
        doc.status = Some(unpaid.to_owned());
    }
    payments
}

/// The VAT treatment of a fitted line (docs/import.md#connectors): a positive rate is
/// `reduced` below 12.5 % and `standard` from it; a line at 0 % is `zero` when the
/// platform taxes it (a tax line of 0, or a taxable flag) and `outside_scope` when it
/// says the line is not taxable or says nothing of tax.
pub fn treatment(rate: Decimal, taxable: Option<bool>) -> &'static str {
    if rate > Decimal::ZERO {
        if rate < Decimal::new(125, 1) {
            "reduced"
        } else {
            "standard"
        }
    } else if taxable == Some(true) {
        "zero"
    } else {
        "outside_scope"
    }
}

/// A line in the importer's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FittedLine {
    pub description: String,
    pub quantity: Decimal,
    pub unit_price: Decimal,
    pub discount: Decimal,
    pub vat_rate: Decimal,
    pub vat_treatment: &'static str,
    pub sku: Option<String>,
}

impl FittedLine {
    /// The importer's net for this line.
    pub fn net(&self) -> Decimal {
        round(
            self.quantity * self.unit_price * (Decimal::ONE - self.discount / Decimal::ONE_HUNDRED),
            2,
        )
    }

    /// The importer's VAT for this line.
    pub fn vat(&self) -> Decimal {
        round(self.net() * self.vat_rate / Decimal::ONE_HUNDRED, 2)
    }
}

fn r2(d: Decimal) -> Decimal {
    round(d, 2)
}

fn fit_price(line: &SourceLine) -> (Decimal, Decimal, Decimal) {
    let q = line.quantity;
    let net = r2(line.net);
    if q <= Decimal::ZERO {
        return (Decimal::ONE, net, Decimal::ZERO);
    }
    if let Some(p) = line.unit_price.filter(|p| p.normalize().scale() <= 4) {
        if r2(q * p) == net {
            return (q, p, Decimal::ZERO);
        }
        let gross = q * p;
        if !gross.is_zero() && (gross.is_sign_positive() == net.is_sign_positive()) {
            let d = r2((Decimal::ONE - net / gross) * Decimal::ONE_HUNDRED);
            if d > Decimal::ZERO
                && d <= Decimal::ONE_HUNDRED
                && r2(gross * (Decimal::ONE - d / Decimal::ONE_HUNDRED)) == net
            {
                return (q, p, d);
            }
        }
    }
    let p = round(net / q, 4);
    if r2(q * p) == net {
        return (q, p, Decimal::ZERO);
    }
    (Decimal::ONE, net, Decimal::ZERO)
}

fn fit_rate(net: Decimal, vat: Decimal, nominal: Option<Decimal>) -> Decimal {
    let hundred = Decimal::ONE_HUNDRED;
    let valid = |r: Decimal| r >= Decimal::ZERO && r <= hundred;
    let gives = |r: Decimal| r2(net * r / hundred) == vat;
    let nominal = nominal.map(|r| round(r, 2)).filter(|r| valid(*r));
    if let Some(r) = nominal {
        if gives(r) {
            return r;
        }
    }
    if net.is_zero() {
        return nominal.unwrap_or(Decimal::ZERO);
    }
    if vat.is_zero() {
        return Decimal::ZERO;
    }
    let r0 = r2(vat / net * hundred);
    let target = nominal.unwrap_or(r0);
    let step = Decimal::new(1, 2);
    let mut best: Option<Decimal> = None;
    for k in -60i64..=60 {
        let r = r0 + step * Decimal::from(k);
        if valid(r) && gives(r) && best.is_none_or(|b| (r - target).abs() < (b - target).abs()) {
            best = Some(r);
        }
    }
    // No rate gives the platform's VAT to the penny: the one nearest to it, never a
    // nominal rate the platform's own tax amount contradicts.
    best.unwrap_or_else(|| r0.clamp(Decimal::ZERO, hundred))
}

/// Fits one source line to the importer's arithmetic (see the module doc).
pub fn fit_line(line: &SourceLine) -> FittedLine {
    let (quantity, unit_price, discount) = fit_price(line);
    let mut fitted = FittedLine {
        description: line.description.clone(),
        quantity,
        unit_price,
        discount,
        vat_rate: Decimal::ZERO,
        vat_treatment: "outside_scope",
        sku: line.sku.clone(),
    };
    fitted.vat_rate = fit_rate(fitted.net(), r2(line.vat), line.vat_rate);
    fitted.vat_treatment = line
        .vat_treatment
        .unwrap_or_else(|| treatment(fitted.vat_rate, line.taxable));
    fitted
}

/// Fits every line and adds the adjustment line when the sum still differs from the
/// source total. That line only matches the source's total, so it is `outside_scope`
/// (docs/accounting.md#vat-treatment).
pub fn fit_lines(lines: &[SourceLine], total: Decimal) -> Vec<FittedLine> {
    let mut out: Vec<FittedLine> = lines.iter().map(fit_line).collect();
    let sum: Decimal = out.iter().map(|l| l.net() + l.vat()).sum();
    let diff = r2(total) - sum;
    if !diff.is_zero() || out.is_empty() {
        out.push(FittedLine {
            description: if out.is_empty() {
                "Imported total".to_owned()
            } else if diff.abs() < Decimal::ONE {
                "Rounding adjustment".to_owned()
            } else {
                "Adjustment to the source total".to_owned()
            },
            quantity: Decimal::ONE,
            unit_price: diff,
            discount: Decimal::ZERO,
            vat_rate: Decimal::ZERO,
            vat_treatment: "outside_scope",
            sku: None,
        });
    }
    out
}

/// What an adjustment line may absorb: rounding, [`PENCE_PER_LINE`] pence for each of
/// the source's lines (docs/import.md#imported-documents).
pub const PENCE_PER_LINE: i64 = 2;

/// Why the fitted lines cannot stand for the source's document: its lines and its total
/// differ by more than rounding (the platform contradicts itself, or its total holds
/// something no line shows). `None` when an adjustment line may make up the difference.
pub fn contradiction(
    lines: &[SourceLine],
    fitted: &[FittedLine],
    total: Decimal,
) -> Option<String> {
    if lines.is_empty() || fitted.len() == lines.len() {
        return None;
    }
    let sum: Decimal = fitted[..lines.len()]
        .iter()
        .map(|l| l.net() + l.vat())
        .sum();
    let diff = r2(total) - sum;
    let ceiling = Decimal::new(PENCE_PER_LINE, 2) * Decimal::from(lines.len());
    (diff.abs() > ceiling).then(|| {
        format!(
            "its lines come to {} (net {} + VAT {}) but the platform's total is {}: {} \
             more than rounding; nothing of it was imported",
            dec_text(sum),
            dec_text(fitted[..lines.len()].iter().map(FittedLine::net).sum()),
            dec_text(fitted[..lines.len()].iter().map(FittedLine::vat).sum()),
            dec_text(r2(total)),
            dec_text(diff.abs()),
        )
    })
}

/// The import rows of one document: one per fitted line, document fields repeated. A
/// document whose lines contradict its total ([`contradiction`]) is a row error on each
/// of its rows ([`super::ROW_ERROR`]), not an adjustment line.
pub fn fit_document(doc: &SourceDoc) -> Vec<ImportRow> {
    let fitted = fit_lines(&doc.lines, doc.total);
    let error = doc
        .error
        .clone()
        .or_else(|| contradiction(&doc.lines, &fitted, doc.total));
    fitted
        .into_iter()
        .map(|l| {
            let mut row = Row::new();
            row.text("number", doc.number.as_deref())
                .text("contact_name", doc.contact_name.as_deref())
                .text("issue_date", doc.issue_date.as_deref())
                .text("due_date", doc.due_date.as_deref())
                .text("status", doc.status.as_deref())
                .set("line_description", Some(l.description.clone()))
                .set("line_quantity", Some(dec_text(l.quantity)))
                .set("line_unit_price", Some(dec_text(l.unit_price)))
                .set("line_discount", Some(dec_text(l.discount)))
                .set("line_vat_rate", Some(dec_text(l.vat_rate)))
                .set("line_vat_treatment", Some(l.vat_treatment.to_owned()))
                .text("line_sku", l.sku.as_deref())
                .set("total", Some(dec_text(doc.total)))
                .dec("amount_paid", doc.amount_paid)
                .text("paid_date", doc.paid_date.as_deref())
                .set(
                    "currency",
                    doc.currency.as_deref().map(str::to_ascii_uppercase),
                )
                .dec("exchange_rate", doc.exchange_rate)
                .text("original_ref", doc.original_ref.as_deref())
                .text("original_number", doc.original_number.as_deref())
                .text("provider_ref", doc.provider_ref.as_deref());
            if l.description.trim().is_empty() {
                row.set("line_description", Some("Item".to_owned()));
            }
            row.set(super::ROW_ERROR, error.clone());
            row.build()
        })
        .collect()
}

/// The importer's total for rows made by [`fit_document`] (tests and checks use it).
pub fn rows_total(rows: &[ImportRow]) -> Decimal {
    let get = |r: &ImportRow, k: &str| {
        r.get(k)
            .and_then(|v| crate::db::decimal::parse_decimal(v))
            .unwrap_or(Decimal::ZERO)
    };
    rows.iter()
        .map(|r| {
            let l = FittedLine {
                description: String::new(),
                quantity: get(r, "line_quantity"),
                unit_price: get(r, "line_unit_price"),
                discount: get(r, "line_discount"),
                vat_rate: get(r, "line_vat_rate"),
                vat_treatment: "standard",
                sku: None,
            };
            l.net() + l.vat()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn an_exclusive_line_keeps_its_price_and_rate() {
        let l = fit_line(&SourceLine {
            description: "Mug".into(),
            quantity: d("3"),
            unit_price: Some(d("4.50")),
            net: d("13.50"),
            vat: d("2.70"),
            vat_rate: Some(d("20")),
            sku: None,
            taxable: Some(true),
            vat_treatment: None,
        });
        assert_eq!(
            (l.quantity, l.unit_price, l.discount, l.vat_rate),
            (d("3"), d("4.50"), d("0"), d("20"))
        );
    }

    #[test]
    fn a_discounted_line_keeps_its_list_price_with_a_percentage() {
        let l = fit_line(&SourceLine {
            quantity: d("2"),
            unit_price: Some(d("10")),
            net: d("18"),
            vat: d("3.60"),
            vat_rate: Some(d("20")),
            ..SourceLine::default()
        });
        assert_eq!((l.unit_price, l.discount), (d("10"), d("10")));
        assert_eq!(l.net(), d("18"));
    }

    #[test]
    fn an_inclusive_price_that_rounds_awkwardly_gets_the_nearest_exact_rate() {
        // 9.99 including 20 % VAT: the platform says VAT 1.67, net 8.32.
        let l = fit_line(&SourceLine {
            quantity: d("1"),
            unit_price: None,
            net: d("8.32"),
            vat: d("1.67"),
            vat_rate: Some(d("20")),
            ..SourceLine::default()
        });
        assert_eq!(l.net() + l.vat(), d("9.99"));
        assert_eq!(l.vat_rate, d("20.02"));
    }

    #[test]
    fn the_adjustment_line_closes_any_remaining_gap() {
        let lines = vec![SourceLine::amount("Thing", d("1000.00"), d("200.01"))];
        let fitted = fit_lines(&lines, d("1200.01"));
        let sum: Decimal = fitted.iter().map(|l| l.net() + l.vat()).sum();
        assert_eq!(sum, d("1200.01"));
    }

    #[test]
    fn a_rate_names_its_treatment_and_zero_is_zero_only_when_the_platform_taxes_it() {
        assert_eq!(treatment(d("20"), Some(true)), "standard");
        assert_eq!(treatment(d("20.02"), None), "standard");
        assert_eq!(treatment(d("5"), Some(true)), "reduced");
        assert_eq!(treatment(d("0"), Some(true)), "zero");
        assert_eq!(treatment(d("0"), Some(false)), "outside_scope");
        assert_eq!(treatment(d("0"), None), "outside_scope");
        let fitted = fit_lines(&[SourceLine::amount("Thing", d("10"), d("0"))], d("10.50"));
        assert_eq!(
            fitted[1].vat_treatment, "outside_scope",
            "the adjustment line"
        );
    }

    #[test]
    fn payments_of_one_day_are_the_documents_and_of_several_days_are_rows() {
        let pay = |date: &str, amount: &str| SourcePayment {
            document_type: "invoice",
            date: Some(date.to_owned()),
            amount: d(amount),
            ..SourcePayment::default()
        };
        let mut doc = SourceDoc {
            total: d("10"),
            status: Some("paid".to_owned()),
            amount_paid: Some(d("10")),
            ..SourceDoc::default()
        };
        let rows = settle(
            &mut doc,
            vec![pay("2024-01-02", "4"), pay("2024-01-02", "6")],
        );
        assert!(rows.is_empty());
        assert_eq!(
            (doc.amount_paid, doc.paid_date.as_deref()),
            (Some(d("10")), Some("2024-01-02"))
        );
        let rows = settle(
            &mut doc,
            vec![pay("2024-01-02", "4"), pay("2024-01-05", "6")],
        );
        assert_eq!(rows.len(), 2);
        assert_eq!((doc.amount_paid, doc.paid_date), (None, None));
        assert_eq!(
            doc.status.as_deref(),
            Some("sent"),
            "its payments make it paid"
        );
        let mut bill = SourceDoc {
            total: d("10"),
            status: Some("paid".to_owned()),
            ..SourceDoc::default()
        };
        let bill_pay = |date: &str| SourcePayment {
            document_type: "bill",
            ..pay(date, "5")
        };
        settle(
            &mut bill,
            vec![bill_pay("2024-01-02"), bill_pay("2024-01-05")],
        );
        assert_eq!(bill.status.as_deref(), Some("awaiting_payment"));
    }
}
