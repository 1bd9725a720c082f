//! The data types an import can bring in and the fields each of them maps to
//! (docs/import.md#data-types and docs/import.md#fields).
//!
//! These are the targets of a column `mapping`; `required` is the `*` of
//! docs/import.md#fields.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// A kind of data (`entityType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityType {
    Contacts,
    Products,
    Invoices,
    Bills,
    Expenses,
    Projects,
    TimeEntries,
    Subscriptions,
    CreditNotes,
    SupplierCredits,
    Payments,
}

impl EntityType {
    pub const ALL: [EntityType; 11] = [
        Self::Contacts,
        Self::Products,
        Self::Invoices,
        Self::Bills,
        Self::Expenses,
        Self::Projects,
        Self::TimeEntries,
        Self::Subscriptions,
        Self::CreditNotes,
        Self::SupplierCredits,
        Self::Payments,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Contacts => "contacts",
            Self::Products => "products",
            Self::Invoices => "invoices",
            Self::Bills => "bills",
            Self::Expenses => "expenses",
            Self::Projects => "projects",
            Self::TimeEntries => "time_entries",
            Self::Subscriptions => "subscriptions",
            Self::CreditNotes => "credit_notes",
            Self::SupplierCredits => "supplier_credits",
            Self::Payments => "payments",
        }
    }

    /// The mapping targets of this type, in the order of docs/import.md#fields.
    pub fn fields(self) -> &'static [FieldSpec] {
        match self {
            Self::Contacts => CONTACT_FIELDS,
            Self::Products => PRODUCT_FIELDS,
            Self::Invoices | Self::Bills => DOCUMENT_FIELDS,
            Self::Expenses => EXPENSE_FIELDS,
            Self::Projects => PROJECT_FIELDS,
            Self::TimeEntries => TIME_ENTRY_FIELDS,
            Self::Subscriptions => SUBSCRIPTION_FIELDS,
            Self::CreditNotes | Self::SupplierCredits => CREDIT_FIELDS,
            Self::Payments => PAYMENT_FIELDS,
        }
    }

    /// Whether `field` is a mapping target of this type.
    pub fn has_field(self, field: Field) -> bool {
        self.fields().iter().any(|f| f.field == field)
    }

    /// Whether `field` is required for this type.
    pub fn requires(self, field: Field) -> bool {
        self.fields().iter().any(|f| f.field == field && f.required)
    }

    /// Looks a field up by its name among this type's fields.
    pub fn field(self, name: &str) -> Option<Field> {
        let name = name.trim();
        self.fields()
            .iter()
            .map(|f| f.field)
            .find(|f| f.as_str().eq_ignore_ascii_case(name))
    }

    /// Invoices, bills and the credits: one row per line, grouped into documents.
    pub fn is_document(self) -> bool {
        matches!(
            self,
            Self::Invoices | Self::Bills | Self::CreditNotes | Self::SupplierCredits
        )
    }

    /// Bills and supplier credits: the supplier's own numbers, unique per supplier.
    pub fn numbered_by_supplier(self) -> bool {
        matches!(self, Self::Bills | Self::SupplierCredits)
    }
}

impl fmt::Display for EntityType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EntityType {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        let s = s.trim();
        Self::ALL
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(s))
            .ok_or(())
    }
}

impl Serialize for EntityType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A mapping target. The names are those of docs/import.md#fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    Name,
    Type,
    Email,
    Phone,
    Address,
    VatNumber,
    ProviderRef,
    Sku,
    Description,
    Category,
    UnitPrice,
    CostPrice,
    VatRate,
    Unit,
    Barcode,
    Notes,
    Number,
    ContactName,
    IssueDate,
    DueDate,
    Status,
    LineDescription,
    LineQuantity,
    LineUnitPrice,
    LineDiscount,
    LineVatRate,
    LineSku,
    Total,
    AmountPaid,
    Date,
    Amount,
    VatAmount,
    ProjectName,
    HourlyRate,
    Budget,
    Hours,
    Billable,
    Interval,
    IntervalCount,
    NextDate,
    LineVatTreatment,
    Currency,
    ExchangeRate,
    PaidDate,
    OriginalNumber,
    OriginalRef,
    DocumentNumber,
    DocumentRef,
    DocumentType,
    Method,
    Reference,
    VatTreatment,
}

impl Field {
    /// Number of fields (the size of per-field tables).
    pub const COUNT: usize = Self::VatTreatment as usize + 1;

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Type => "type",
            Self::Email => "email",
            Self::Phone => "phone",
            Self::Address => "address",
            Self::VatNumber => "vat_number",
            Self::ProviderRef => "provider_ref",
            Self::Sku => "sku",
            Self::Description => "description",
            Self::Category => "category",
            Self::UnitPrice => "unit_price",
            Self::CostPrice => "cost_price",
            Self::VatRate => "vat_rate",
            Self::Unit => "unit",
            Self::Barcode => "barcode",
            Self::Notes => "notes",
            Self::Number => "number",
            Self::ContactName => "contact_name",
            Self::IssueDate => "issue_date",
            Self::DueDate => "due_date",
            Self::Status => "status",
            Self::LineDescription => "line_description",
            Self::LineQuantity => "line_quantity",
            Self::LineUnitPrice => "line_unit_price",
            Self::LineDiscount => "line_discount",
            Self::LineVatRate => "line_vat_rate",
            Self::LineSku => "line_sku",
            Self::Total => "total",
            Self::AmountPaid => "amount_paid",
            Self::Date => "date",
            Self::Amount => "amount",
            Self::VatAmount => "vat_amount",
            Self::ProjectName => "project_name",
            Self::HourlyRate => "hourly_rate",
            Self::Budget => "budget",
            Self::Hours => "hours",
            Self::Billable => "billable",
            Self::Interval => "interval",
            Self::IntervalCount => "interval_count",
            Self::NextDate => "next_date",
            Self::LineVatTreatment => "line_vat_treatment",
            Self::Currency => "currency",
            Self::ExchangeRate => "exchange_rate",
            Self::PaidDate => "paid_date",
            Self::OriginalNumber => "original_number",
            Self::OriginalRef => "original_ref",
            Self::DocumentNumber => "document_number",
            Self::DocumentRef => "document_ref",
            Self::DocumentType => "document_type",
            Self::Method => "method",
            Self::Reference => "reference",
            Self::VatTreatment => "vat_treatment",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One entry of a type's field list: `{name, required}` in the preview answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FieldSpec {
    #[serde(rename = "name")]
    pub field: Field,
    pub required: bool,
}

const fn req(field: Field) -> FieldSpec {
    FieldSpec {
        field,
        required: true,
    }
}

const fn opt(field: Field) -> FieldSpec {
    FieldSpec {
        field,
        required: false,
    }
}

use Field as F;

const CONTACT_FIELDS: &[FieldSpec] = &[
    req(F::Name),
    opt(F::Type),
    opt(F::Email),
    opt(F::Phone),
    opt(F::Address),
    opt(F::VatNumber),
    opt(F::ProviderRef),
];

const PRODUCT_FIELDS: &[FieldSpec] = &[
    req(F::Name),
    opt(F::Sku),
    opt(F::Description),
    opt(F::Category),
    opt(F::UnitPrice),
    opt(F::CostPrice),
    opt(F::VatRate),
    opt(F::Unit),
    opt(F::Barcode),
    opt(F::Status),
    opt(F::Notes),
    opt(F::ProviderRef),
];

const DOCUMENT_FIELDS: &[FieldSpec] = &[
    opt(F::Number),
    req(F::ContactName),
    req(F::IssueDate),
    opt(F::DueDate),
    opt(F::Status),
    req(F::LineDescription),
    opt(F::LineQuantity),
    req(F::LineUnitPrice),
    opt(F::LineDiscount),
    opt(F::LineVatRate),
    opt(F::LineVatTreatment),
    opt(F::LineSku),
    opt(F::Total),
    opt(F::AmountPaid),
    opt(F::PaidDate),
    opt(F::Currency),
    opt(F::ExchangeRate),
    opt(F::ProviderRef),
];

const CREDIT_FIELDS: &[FieldSpec] = &[
    opt(F::Number),
    req(F::ContactName),
    req(F::IssueDate),
    opt(F::DueDate),
    opt(F::Status),
    req(F::LineDescription),
    opt(F::LineQuantity),
    req(F::LineUnitPrice),
    opt(F::LineDiscount),
    opt(F::LineVatRate),
    opt(F::LineVatTreatment),
    opt(F::LineSku),
    opt(F::Total),
    opt(F::AmountPaid),
    opt(F::PaidDate),
    opt(F::Currency),
    opt(F::ExchangeRate),
    opt(F::OriginalNumber),
    opt(F::OriginalRef),
    opt(F::ProviderRef),
];

const PAYMENT_FIELDS: &[FieldSpec] = &[
    opt(F::DocumentNumber),
    opt(F::DocumentRef),
    opt(F::DocumentType),
    req(F::Date),
    req(F::Amount),
    opt(F::Method),
    opt(F::Reference),
    opt(F::ProviderRef),
];

const EXPENSE_FIELDS: &[FieldSpec] = &[
    req(F::Date),
    req(F::Description),
    req(F::Amount),
    opt(F::VatAmount),
    opt(F::VatTreatment),
    opt(F::Currency),
    opt(F::ExchangeRate),
    opt(F::Category),
    opt(F::ProjectName),
    opt(F::ProviderRef),
];

const PROJECT_FIELDS: &[FieldSpec] = &[
    req(F::Name),
    opt(F::ContactName),
    opt(F::Status),
    opt(F::HourlyRate),
    opt(F::Budget),
];

const TIME_ENTRY_FIELDS: &[FieldSpec] = &[
    req(F::ProjectName),
    req(F::Date),
    req(F::Hours),
    opt(F::Description),
    opt(F::Billable),
    opt(F::HourlyRate),
];

const SUBSCRIPTION_FIELDS: &[FieldSpec] = &[
    req(F::ContactName),
    req(F::Interval),
    opt(F::IntervalCount),
    opt(F::NextDate),
    opt(F::Status),
    opt(F::LineDescription),
    opt(F::LineQuantity),
    opt(F::LineUnitPrice),
    opt(F::LineVatRate),
    opt(F::LineVatTreatment),
    req(F::ProviderRef),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The web import page offers every data type the endpoints take.
    #[test]
    fn the_import_page_lists_every_data_type() {
        let page = include_str!("../../static/js/pages/import.js");
        let start = page.find("export const DATA_TYPES").expect("DATA_TYPES");
        let list = &page[start..start + page[start..].find("];").expect("end of DATA_TYPES")];
        for e in EntityType::ALL {
            assert!(list.contains(&format!("[\"{}\", \"", e.as_str())), "{e:?}");
        }
    }

    fn listed(e: EntityType) -> Vec<String> {
        e.fields()
            .iter()
            .map(|f| format!("{}{}", f.field, if f.required { "*" } else { "" }))
            .collect()
    }

    #[test]
    fn field_lists_are_those_of_decisions_12() {
        assert_eq!(
            listed(EntityType::Contacts).join(", "),
            "name*, type, email, phone, address, vat_number, provider_ref"
        );
        assert_eq!(
            listed(EntityType::Products).join(", "),
            "name*, sku, description, category, unit_price, cost_price, vat_rate, unit, \
             barcode, status, notes, provider_ref"
        );
        let docs = "number, contact_name*, issue_date*, due_date, status, line_description*, \
                    line_quantity, line_unit_price*, line_discount, line_vat_rate, \
                    line_vat_treatment, line_sku, total, amount_paid, paid_date, currency, \
                    exchange_rate, provider_ref";
        assert_eq!(listed(EntityType::Invoices).join(", "), docs);
        assert_eq!(listed(EntityType::Bills).join(", "), docs);
        assert_eq!(
            listed(EntityType::Expenses).join(", "),
            "date*, description*, amount*, vat_amount, vat_treatment, currency, exchange_rate, \
             category, project_name, provider_ref"
        );
        let credits = "number, contact_name*, issue_date*, due_date, status, \
                       line_description*, line_quantity, line_unit_price*, line_discount, \
                       line_vat_rate, line_vat_treatment, line_sku, total, amount_paid, \
                       paid_date, currency, exchange_rate, original_number, original_ref, \
                       provider_ref";
        assert_eq!(listed(EntityType::CreditNotes).join(", "), credits);
        assert_eq!(listed(EntityType::SupplierCredits).join(", "), credits);
        assert_eq!(
            listed(EntityType::Payments).join(", "),
            "document_number, document_ref, document_type, date*, amount*, method, reference, \
             provider_ref"
        );
        assert_eq!(
            listed(EntityType::Projects).join(", "),
            "name*, contact_name, status, hourly_rate, budget"
        );
        assert_eq!(
            listed(EntityType::TimeEntries).join(", "),
            "project_name*, date*, hours*, description, billable, hourly_rate"
        );
        assert_eq!(
            listed(EntityType::Subscriptions).join(", "),
            "contact_name*, interval*, interval_count, next_date, status, line_description, \
             line_quantity, line_unit_price, line_vat_rate, line_vat_treatment, provider_ref*"
        );
    }

    #[test]
    fn entity_types_and_fields_parse_from_their_names() {
        for e in EntityType::ALL {
            assert_eq!(e.as_str().parse::<EntityType>(), Ok(e));
        }
        assert_eq!(
            "Time_Entries".parse::<EntityType>(),
            Ok(EntityType::TimeEntries)
        );
        assert!("all".parse::<EntityType>().is_err());
        assert_eq!(
            EntityType::Invoices.field("line_vat_rate"),
            Some(Field::LineVatRate)
        );
        assert_eq!(EntityType::Contacts.field("line_vat_rate"), None);
    }
}
