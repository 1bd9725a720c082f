//! Typed records an import produces, one per source row, before anything is stored.
//!
//! Values are already validated: decimals fit their kind
//! (docs/conventions.md#decimals-and-rounding: places and magnitudes), dates are
//! real dates, statuses are in the value sets of docs/accounting.md#value-sets.
//! Optional fields the source left empty are `None`; defaults (contact type
//! `customer`, quantity 1, status `draft` …) are the storing step's business.

use serde::{Serialize, Serializer};
use time::Date;

use crate::db::decimal::{Money, Percent, Price, Qty, Rate};
use crate::vat::Treatment;

/// Serialises a date as `YYYY-MM-DD`.
pub fn ser_date<S: Serializer>(d: &Date, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!(
        "{:04}-{:02}-{:02}",
        d.year(),
        u8::from(d.month()),
        d.day()
    ))
}

/// Serialises an optional date as `YYYY-MM-DD` or null.
pub fn ser_opt_date<S: Serializer>(d: &Option<Date>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => ser_date(d, s),
        None => s.serialize_none(),
    }
}

/// Contact `type` (docs/accounting.md#contacts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactType {
    Customer,
    Supplier,
    Both,
}

/// Invoice and bill `status` (docs/accounting.md#value-sets). Invoices use
/// `Draft | Sent | Paid | Void`, bills `Draft | AwaitingPayment | Paid | Void`; the parser picks
/// per type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DocStatus {
    Draft,
    Sent,
    AwaitingPayment,
    Paid,
    Void,
    /// Credit notes and supplier credits only.
    Posted,
}

/// Which kind of document a payment row pays (`document_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PaidDocument {
    Invoice,
    Bill,
    CreditNote,
    SupplierCredit,
}

/// Project `status` (docs/accounting.md#value-sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectStatus {
    Active,
    Completed,
    Archived,
}

/// Recurring `interval` (docs/accounting.md#value-sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Interval {
    Week,
    Month,
    Year,
}

/// Recurring invoice template `status`. docs/accounting.md#recurring-invoices names the field
/// without a value set; these three are this module's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TemplateStatus {
    Active,
    Paused,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContactRow {
    pub name: String,
    #[serde(rename = "type")]
    pub contact_type: Option<ContactType>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<String>,
    pub vat_number: Option<String>,
    pub provider_ref: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProductRow {
    pub name: String,
    pub sku: Option<String>,
    pub description: Option<String>,
    pub category: Option<String>,
    pub unit_price: Option<Price>,
    pub cost_price: Option<Price>,
    pub vat_rate: Option<Percent>,
    pub unit: Option<String>,
    pub barcode: Option<String>,
    /// `false` for an archived or inactive item (the source's status).
    pub active: Option<bool>,
    pub notes: Option<String>,
    pub provider_ref: Option<String>,
}

/// One line of an invoice or bill, with the document's own fields repeated as the
/// source repeats them. [`crate::import::csv::Document`] groups lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineRow {
    pub number: Option<String>,
    pub contact_name: String,
    #[serde(serialize_with = "ser_date")]
    pub issue_date: Date,
    #[serde(serialize_with = "ser_opt_date")]
    pub due_date: Option<Date>,
    pub status: Option<DocStatus>,
    pub line_description: String,
    pub line_quantity: Option<Qty>,
    pub line_unit_price: Price,
    pub line_discount: Option<Percent>,
    pub line_vat_rate: Option<Percent>,
    /// From a treatment column, else from the tax code in the rate column
    /// (docs/import.md#tax-codes).
    pub line_vat_treatment: Option<Treatment>,
    pub line_sku: Option<String>,
    pub total: Option<Money>,
    pub amount_paid: Option<Money>,
    #[serde(serialize_with = "ser_opt_date")]
    pub paid_date: Option<Date>,
    pub currency: Option<String>,
    pub exchange_rate: Option<Rate>,
    /// Credit notes and supplier credits: the invoice or bill they credit, by number or
    /// by the source's reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_ref: Option<String>,
    pub provider_ref: Option<String>,
    /// The line's VAT as the source states it (not a mapping target; kept so the
    /// storing step can check its computed VAT against the source's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_vat: Option<Money>,
    /// The row's own gross total, when the file gives one per row rather than per
    /// document (Sage Accounting quick entries): the document's total is their sum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_total: Option<Money>,
}

/// An expense. `amount` is what was paid, VAT included; `vat_amount` is its VAT part.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpenseRow {
    #[serde(serialize_with = "ser_date")]
    pub date: Date,
    pub description: String,
    pub amount: Money,
    pub vat_amount: Option<Money>,
    pub vat_treatment: Option<Treatment>,
    pub currency: Option<String>,
    pub exchange_rate: Option<Rate>,
    pub category: Option<String>,
    pub project_name: Option<String>,
    pub provider_ref: Option<String>,
}

/// A dated payment of a document the run or the entity holds (docs/import.md#payments).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaymentRow {
    pub document_number: Option<String>,
    pub document_ref: Option<String>,
    /// Omitted: `invoice`.
    pub document_type: Option<PaidDocument>,
    #[serde(serialize_with = "ser_date")]
    pub date: Date,
    pub amount: Money,
    pub method: Option<String>,
    pub reference: Option<String>,
    pub provider_ref: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProjectRow {
    pub name: String,
    pub contact_name: Option<String>,
    pub status: Option<ProjectStatus>,
    pub hourly_rate: Option<Money>,
    pub budget: Option<Money>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeEntryRow {
    pub project_name: String,
    #[serde(serialize_with = "ser_date")]
    pub date: Date,
    /// Hours, up to 2 decimal places (`hours` counts as money:
    /// docs/conventions.md#decimals-and-rounding).
    pub hours: Money,
    pub description: Option<String>,
    pub billable: Option<bool>,
    pub hourly_rate: Option<Money>,
}

/// One line of a recurring invoice template, with the template's fields repeated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubscriptionRow {
    pub contact_name: String,
    pub interval: Interval,
    pub interval_count: Option<u32>,
    #[serde(serialize_with = "ser_opt_date")]
    pub next_date: Option<Date>,
    pub status: Option<TemplateStatus>,
    pub line_description: Option<String>,
    pub line_quantity: Option<Qty>,
    pub line_unit_price: Option<Price>,
    pub line_vat_rate: Option<Percent>,
    pub line_vat_treatment: Option<Treatment>,
    pub provider_ref: String,
}

/// A parsed row of any type; serialises as the flat record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RowData {
    Contact(ContactRow),
    Product(ProductRow),
    Line(LineRow),
    Expense(ExpenseRow),
    Project(ProjectRow),
    TimeEntry(TimeEntryRow),
    Subscription(SubscriptionRow),
    Payment(PaymentRow),
}

impl RowData {
    pub fn as_contact(&self) -> Option<&ContactRow> {
        match self {
            Self::Contact(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_product(&self) -> Option<&ProductRow> {
        match self {
            Self::Product(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_line(&self) -> Option<&LineRow> {
        match self {
            Self::Line(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_expense(&self) -> Option<&ExpenseRow> {
        match self {
            Self::Expense(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_project(&self) -> Option<&ProjectRow> {
        match self {
            Self::Project(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_time_entry(&self) -> Option<&TimeEntryRow> {
        match self {
            Self::TimeEntry(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_payment(&self) -> Option<&PaymentRow> {
        match self {
            Self::Payment(r) => Some(r),
            _ => None,
        }
    }
    pub fn as_subscription(&self) -> Option<&SubscriptionRow> {
        match self {
            Self::Subscription(r) => Some(r),
            _ => None,
        }
    }
}
