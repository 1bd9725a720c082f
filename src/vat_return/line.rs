//! One line of the drill-down (docs/vat.md#the-drill-down): one record's contribution to
//! one box. A leaf: the record and its two written forms (JSON and a CSV row).

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::accounting::documents::DocKind;
use crate::db::decimal::{scaled_decimal, ser_decimal};
use crate::db::raw::csv_cell;

/// What a line comes from; its `source_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Invoice,
    CreditNote,
    Bill,
    SupplierCredit,
    /// A payment received on an invoice (cash scheme).
    InvoicePayment,
    /// A refund paid on a credit note (cash scheme).
    CreditNoteRefund,
    /// A payment made on a bill (cash scheme).
    BillPayment,
    /// A refund received on a supplier credit (cash scheme).
    SupplierCreditRefund,
    Expense,
    Adjustment,
    /// The flat rate scheme's rounding of box 1 to the penny.
    Rounding,
}

impl Source {
    pub const fn name(self) -> &'static str {
        match self {
            Self::Invoice => "invoice",
            Self::CreditNote => "credit_note",
            Self::Bill => "bill",
            Self::SupplierCredit => "supplier_credit",
            Self::InvoicePayment => "invoice_payment",
            Self::CreditNoteRefund => "credit_note_refund",
            Self::BillPayment => "bill_payment",
            Self::SupplierCreditRefund => "supplier_credit_refund",
            Self::Expense => "expense",
            Self::Adjustment => "adjustment",
            Self::Rounding => "rounding",
        }
    }

    /// The document kind of a document source.
    pub const fn kind(self) -> Option<DocKind> {
        match self {
            Self::Invoice => Some(DocKind::Invoice),
            Self::CreditNote => Some(DocKind::CreditNote),
            Self::Bill => Some(DocKind::Bill),
            Self::SupplierCredit => Some(DocKind::SupplierCredit),
            _ => None,
        }
    }

    /// The source of a payment on a document of this source.
    pub const fn payment(self) -> Self {
        match self {
            Self::Invoice => Self::InvoicePayment,
            Self::CreditNote => Self::CreditNoteRefund,
            Self::Bill => Self::BillPayment,
            Self::SupplierCredit => Self::SupplierCreditRefund,
            other => other,
        }
    }

    /// Sales (invoices, credit notes): boxes 1 and 6; purchases: boxes 4 and 7.
    pub const fn is_sale(self) -> bool {
        matches!(self, Self::Invoice | Self::CreditNote)
    }

    /// Credits count negative.
    pub const fn is_credit(self) -> bool {
        matches!(self, Self::CreditNote | Self::SupplierCredit)
    }
}

/// One contribution. Money in millionths of a pound; the text is borrowed from the row
/// being read, so a line costs no allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    pub box_no: u8,
    pub source: Source,
    pub source_id: &'a str,
    /// The document's number (a payment: its document's), an expense's or adjustment's
    /// description.
    pub number: Option<&'a str>,
    pub date: &'a str,
    pub contact_name: Option<&'a str>,
    pub treatment: Option<&'a str>,
    /// The line's net and VAT in pounds, negative on credits and refunds.
    pub net: i128,
    pub vat: i128,
    /// The contribution to the box, before any pence are dropped.
    pub amount: i128,
}

impl<'a> Line<'a> {
    /// The flat rate scheme's rounding of box 1 to the penny, dated the period's last day.
    pub fn rounding(date: &'a str, amount: i128) -> Self {
        Self {
            box_no: 1,
            source: Source::Rounding,
            source_id: "",
            number: None,
            date,
            contact_name: None,
            treatment: None,
            net: 0,
            vat: 0,
            amount,
        }
    }
}

/// Millionths of a pound as a JSON number.
struct Amount(i128);

impl Serialize for Amount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_decimal(&scaled_decimal(self.0, 6), s)
    }
}

impl Serialize for Line<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(10))?;
        m.serialize_entry("box", &self.box_no)?;
        m.serialize_entry("source_type", self.source.name())?;
        m.serialize_entry("source_id", &Some(self.source_id).filter(|s| !s.is_empty()))?;
        m.serialize_entry("number", &self.number)?;
        m.serialize_entry("date", &self.date)?;
        m.serialize_entry("contact_name", &self.contact_name)?;
        m.serialize_entry("treatment", &self.treatment)?;
        m.serialize_entry("net", &Amount(self.net))?;
        m.serialize_entry("vat", &Amount(self.vat))?;
        m.serialize_entry("amount", &Amount(self.amount))?;
        m.end()
    }
}

/// The header row of the drill-down as CSV.
pub const CSV_HEADER: &str =
    "box,source_type,source_id,number,date,contact_name,treatment,net,vat,amount";

/// Appends `l` as one CSV row (RFC 4180, `\r\n`).
pub fn push_csv(out: &mut Vec<u8>, l: &Line) {
    out.extend_from_slice(l.box_no.to_string().as_bytes());
    out.push(b',');
    out.extend_from_slice(l.source.name().as_bytes());
    out.push(b',');
    csv_cell(out, l.source_id);
    out.push(b',');
    csv_cell(out, l.number.unwrap_or(""));
    out.push(b',');
    csv_cell(out, l.date);
    out.push(b',');
    csv_cell(out, l.contact_name.unwrap_or(""));
    out.push(b',');
    csv_cell(out, l.treatment.unwrap_or(""));
    for v in [l.net, l.vat, l.amount] {
        out.push(b',');
        // Money with its pence (12.50), a flat-rate share with up to six places.
        let mut d = scaled_decimal(v, 6);
        if d.scale() < 2 {
            d.rescale(2);
        }
        out.extend_from_slice(d.to_string().as_bytes());
    }
    out.extend_from_slice(b"\r\n");
}
