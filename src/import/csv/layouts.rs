//! The export layouts of the eight platforms: which header columns fingerprint each one,
//! and which field each of its columns fills.
//!
//! Header names are written as the platforms write them and compared after
//! [`normalise`](super::header::normalise), so case, spacing, punctuation and `*`
//! markers never matter, nor do column order and extra columns. Sources and confidence
//! of every layout: `tests/fixtures/import/README.md` and
//! `../shared/research/import-formats.md` §C.

use csv::StringRecord;

use crate::import::fields::{EntityType, Field};
use crate::import::platform::Platform;
use crate::import::records::{ContactType, DocStatus};

use super::header::normalise;
use super::values::{parse_amount, parse_date, DateOrder};

/// What a column is used for besides (or instead of) a mapping target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aux {
    /// The row's transaction kind (Xero `Type`, Sage 50 `SI`/`PI`/`BP` …): rows of other
    /// kinds than the file's data type are left out.
    Kind,
    /// A line's VAT amount: gives the VAT rate when no rate column exists (several such
    /// columns add up, e.g. FreshBooks `Tax 1 Amount` + `Tax 2 Amount`).
    LineVat,
    /// A line's net amount: gives the unit price (amount ÷ quantity) when none is given.
    LineAmount,
    /// The document's amount still due: gives `amount_paid` = `total` − due.
    AmountDue,
    /// First and last names: give a contact's `name` when the name column is empty.
    FirstName,
    LastName,
    /// An item name: gives the line description when the description is empty (and a
    /// FreshBooks expense's merchant gives the expense's description).
    DescriptionFallback,
    /// A mobile number: gives the phone when the phone column is empty.
    PhoneFallback,
    /// An expense's net amount: `amount` = net + `vat_amount`.
    NetAmount,
    /// A row's own gross total (Sage Accounting quick entries): the total of the document
    /// its rows make up is the sum of theirs.
    LineTotal,
    /// The VAT rate of a VAT-inclusive expense amount (FreeAgent `sales_tax_rate`): gives
    /// `vat_amount` = amount × rate ÷ (100 + rate) when no VAT amount is given.
    GrossVatRate,
    /// A person's name: gives the contact when the organisation column is empty
    /// (FreeAgent projects' `contact_name` beside `organisation_name`).
    ContactFallback,
    /// A duration in seconds (FreshBooks `Seconds`): gives the hours, to 2 decimal places
    /// as an `h:mm` duration does, when there is no hours column.
    DurationSeconds,
    /// A second document number (Xero payments' `CreditNoteNumber` beside
    /// `InvoiceNumber`): gives a payment's `document_number` when the first is empty.
    DocumentNumberFallback,
    /// A document's gross amount as a transaction report prints it, signed by its effect
    /// on the ledger (QuickBooks prints a credit memo as a negative amount): its absolute
    /// value is the document's total and, when no price is given, its one line's amount.
    SignedGross,
}

impl Aux {
    pub const COUNT: usize = Self::SignedGross as usize + 1;

    /// How the preview describes the column's use.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Kind => "transaction type: rows of other types are left out",
            Self::LineVat => "line VAT amount: gives the VAT rate when there is no rate",
            Self::LineAmount => "line amount: gives the unit price when there is none",
            Self::AmountDue => "amount due: gives amount_paid as total minus amount due",
            Self::FirstName => "first name: gives the name when it is empty",
            Self::LastName => "last name: gives the name when it is empty",
            Self::DescriptionFallback => "item or merchant name: gives the description when empty",
            Self::PhoneFallback => "mobile: gives the phone when it is empty",
            Self::NetAmount => "net amount: amount is net plus VAT",
            Self::LineTotal => "row total: the document's total is the sum of its rows' totals",
            Self::GrossVatRate => "VAT rate of the gross amount: gives the VAT amount",
            Self::ContactFallback => "person's name: gives the contact when it is empty",
            Self::DurationSeconds => "duration in seconds: gives the hours",
            Self::DocumentNumberFallback => {
                "second document number: gives the document number when it is empty"
            }
            Self::SignedGross => {
                "document amount, either sign: gives the total and the line amount"
            }
        }
    }
}

/// What a layout column feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    F(Field),
    A(Aux),
    /// Known column, not imported.
    Skip,
}

use Aux as X;
use Field as F;
use Target::{Skip, A, F as T};

/// One export layout of one platform, for one data type.
pub struct Layout {
    pub platform: Platform,
    pub entity: EntityType,
    /// Human name, shown in the preview notes.
    pub name: &'static str,
    /// Alternative fingerprints; a layout matches when every column of one of them is
    /// present.
    pub signatures: &'static [&'static [&'static str]],
    /// Header name → use. For positional layouts, every column in file order.
    pub columns: &'static [(&'static str, Target)],
    /// Headerless files of this layout are recognised by the shape of their first row.
    pub shape: Option<fn(&StringRecord) -> bool>,
    /// Reads the kind column: which data type a row belongs to.
    pub kind: Option<fn(&str) -> Option<EntityType>>,
    /// The contact type every row of the file has (supplier lists).
    pub contact_type: Option<ContactType>,
    /// The contact column holds account codes (Sage 50 `A/C`, KashFlow codes), not names.
    pub contact_codes: bool,
    /// The status of a document whose rows give none: an export of issued documents
    /// without a status column (KashFlow) is not a file of drafts.
    pub status: Option<DocStatus>,
}

impl Layout {
    /// Number of this layout's named columns among `keys` (the detection score), or
    /// `None` when no fingerprint is complete.
    pub fn score(&self, keys: &[String]) -> Option<usize> {
        let has = |name: &str| {
            let k = normalise(name);
            keys.contains(&k)
        };
        if !self.signatures.iter().any(|sig| sig.iter().all(|c| has(c))) {
            return None;
        }
        Some(self.columns.iter().filter(|(name, _)| has(name)).count())
    }

    /// The use of a header (by key) in this layout.
    pub fn target(&self, key: &str) -> Option<Target> {
        self.columns
            .iter()
            .find(|(name, _)| normalise(name) == key)
            .map(|(_, t)| *t)
    }

    /// Layouts that read the same file and differ by data type (chosen by the kind
    /// column or the caller's type).
    pub fn same_shape(&self, other: &Layout) -> bool {
        self.platform == other.platform
            && self.signatures == other.signatures
            && self.shape.is_some() == other.shape.is_some()
    }
}

fn words(s: &str) -> String {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Xero's `Type`: the export's names and the API's (`ACCREC`, `ACCPAY`, and the credit
/// notes' `ACCRECCREDIT`, `ACCPAYCREDIT`).
fn xero_kind(s: &str) -> Option<EntityType> {
    match words(s).as_str() {
        "sales invoice" | "invoice" | "accrec" => Some(EntityType::Invoices),
        "bill" | "purchase invoice" | "purchase bill" | "accpay" => Some(EntityType::Bills),
        "sales credit note" | "credit note" | "accreccredit" => Some(EntityType::CreditNotes),
        "bill credit note" | "purchase credit note" | "supplier credit" | "accpaycredit" => {
            Some(EntityType::SupplierCredits)
        }
        _ => None,
    }
}

/// Sage 50 audit trail types: SI sales invoice, PI purchase invoice, SC sales credit, PC
/// purchase credit; BP/CP/VP bank, cash and credit card payments are expenses. Receipts
/// and payments (their rows do not say which invoice they settle), payments on account
/// and journals are not imported.
fn sage50_kind(s: &str) -> Option<EntityType> {
    match s.trim().to_ascii_uppercase().as_str() {
        "SI" => Some(EntityType::Invoices),
        "PI" => Some(EntityType::Bills),
        "SC" => Some(EntityType::CreditNotes),
        "PC" => Some(EntityType::SupplierCredits),
        "BP" | "CP" | "VP" => Some(EntityType::Expenses),
        _ => None,
    }
}

/// QuickBooks Online's `Transaction Type` in its transaction list reports: a credit memo
/// (UK companies: credit note) is a credit note; every other type (invoices, payments,
/// sales and refund receipts, journals …) is left out of that report's import.
fn quickbooks_kind(s: &str) -> Option<EntityType> {
    match words(s).as_str() {
        "credit memo" | "credit note" => Some(EntityType::CreditNotes),
        _ => None,
    }
}

/// Sales quick entries are `Invoice` or `Cr Note` (a credit note to the customer).
fn sage_accounting_kind(s: &str) -> Option<EntityType> {
    match words(s).as_str() {
        "invoice" | "sales invoice" | "si" => Some(EntityType::Invoices),
        "cr note" | "credit note" | "sales credit note" | "sc" => Some(EntityType::CreditNotes),
        _ => None,
    }
}

const SAGE50_TYPES: [&str; 20] = [
    "SI", "SC", "SA", "SD", "SR", "SP", "PI", "PC", "PA", "PD", "PP", "PR", "JD", "JC", "BP", "BR",
    "CP", "CR", "VP", "VR",
];

fn is_tax_code(s: &str) -> bool {
    let s = s.trim();
    let rest = s.strip_prefix(['T', 't']).unwrap_or("");
    !rest.is_empty() && rest.len() <= 2 && rest.bytes().all(|c| c.is_ascii_digit())
}

fn is_amount_or_empty(s: &str) -> bool {
    s.trim().is_empty() || parse_amount(s).is_ok()
}

fn is_account_ref(s: &str) -> bool {
    let s = s.trim();
    (1..=8).contains(&s.len()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// A headerless Sage 50 audit trail row: a transaction type, a date, a `T` tax code.
fn sage50_audit_shape(r: &StringRecord) -> bool {
    r.len() >= 10
        && SAGE50_TYPES.contains(&r[0].trim().to_ascii_uppercase().as_str())
        && parse_date(&r[4], DateOrder::DayMonth).is_ok()
        && is_tax_code(&r[8])
        && is_amount_or_empty(&r[7])
}

/// A headerless Sage 50 product record: a stock code, a tax code third, a price fourth.
fn sage50_product_shape(r: &StringRecord) -> bool {
    (10..=40).contains(&r.len())
        && !r[0].trim().is_empty()
        && !r[0].trim().contains(' ')
        && is_tax_code(&r[2])
        && is_amount_or_empty(&r[3])
        && is_amount_or_empty(&r[4])
}

/// A headerless Sage 50 customer (or supplier) record: an account reference of up to 8
/// characters, then turnover and credit-limit figures in columns P–S.
fn sage50_contact_shape(r: &StringRecord) -> bool {
    r.len() >= 19
        && is_account_ref(&r[0])
        && !r[1].trim().is_empty()
        && (15..19).all(|i| is_amount_or_empty(&r[i]))
}

/// Defaults of the optional layout parts.
const BASE: Layout = Layout {
    platform: Platform::Generic,
    entity: EntityType::Contacts,
    name: "",
    signatures: &[],
    columns: &[],
    shape: None,
    kind: None,
    contact_type: None,
    contact_codes: false,
    status: None,
};

macro_rules! layout {
    ($platform:ident, $entity:ident, $name:expr, sig: $sig:expr, cols: $cols:expr $(, $k:ident: $v:expr)* $(,)?) => {
        Layout {
            platform: Platform::$platform,
            entity: EntityType::$entity,
            name: $name,
            signatures: $sig,
            columns: $cols,
            $($k: $v,)*
            ..BASE
        }
    };
}

// --- Xero -------------------------------------------------------------------------------

const XERO_CONTACTS: &[(&str, Target)] = &[
    ("*ContactName", T(F::Name)),
    ("AccountNumber", T(F::ProviderRef)),
    ("EmailAddress", T(F::Email)),
    ("FirstName", A(X::FirstName)),
    ("LastName", A(X::LastName)),
    ("POAttentionTo", Skip),
    ("POAddressLine1", T(F::Address)),
    ("POAddressLine2", T(F::Address)),
    ("POAddressLine3", T(F::Address)),
    ("POAddressLine4", T(F::Address)),
    ("POCity", T(F::Address)),
    ("PORegion", T(F::Address)),
    ("POPostalCode", T(F::Address)),
    ("POCountry", T(F::Address)),
    ("PhoneNumber", T(F::Phone)),
    ("MobileNumber", A(X::PhoneFallback)),
    ("TaxNumber", T(F::VatNumber)),
    ("AccountsReceivableTaxCodeName", Skip),
    ("AccountsPayableTaxCodeName", Skip),
];

/// The sales invoices export and the bills export share one layout, told apart by
/// `Type`; the template of the import screens has no `Type`.
const XERO_DOCUMENTS: &[(&str, Target)] = &[
    ("*ContactName", T(F::ContactName)),
    ("*InvoiceNumber", T(F::Number)),
    ("Reference", Skip),
    ("*InvoiceDate", T(F::IssueDate)),
    ("*DueDate", T(F::DueDate)),
    ("PlannedDate", Skip),
    ("Total", T(F::Total)),
    ("TaxTotal", Skip),
    ("InvoiceAmountPaid", T(F::AmountPaid)),
    ("InvoiceAmountDue", A(X::AmountDue)),
    ("InventoryItemCode", T(F::LineSku)),
    ("*Description", T(F::LineDescription)),
    ("*Quantity", T(F::LineQuantity)),
    ("*UnitAmount", T(F::LineUnitPrice)),
    ("Discount", T(F::LineDiscount)),
    ("LineAmount", A(X::LineAmount)),
    ("*AccountCode", Skip),
    ("*TaxType", T(F::LineVatRate)),
    ("TaxAmount", A(X::LineVat)),
    ("Currency", T(F::Currency)),
    // Not in Xero's own export (which has no rate): the API's name, for a file that
    // adds the rate of a document in another currency.
    ("CurrencyRate", T(F::ExchangeRate)),
    ("Type", A(X::Kind)),
    ("Sent", Skip),
    ("Status", T(F::Status)),
];

/// Xero's credit note import template (Business ▸ Credit notes ▸ Import): the invoice
/// template with `CreditNoteNumber` and `CreditNoteDate`, no due date.
const XERO_CREDIT_NOTES: &[(&str, Target)] = &[
    ("*ContactName", T(F::ContactName)),
    ("*CreditNoteNumber", T(F::Number)),
    ("Reference", Skip),
    ("*CreditNoteDate", T(F::IssueDate)),
    ("InventoryItemCode", T(F::LineSku)),
    ("*Description", T(F::LineDescription)),
    ("*Quantity", T(F::LineQuantity)),
    ("*UnitAmount", T(F::LineUnitPrice)),
    ("Discount", T(F::LineDiscount)),
    ("*AccountCode", Skip),
    ("*TaxType", T(F::LineVatRate)),
    ("TaxAmount", A(X::LineVat)),
    ("Currency", T(F::Currency)),
    ("CurrencyRate", T(F::ExchangeRate)),
];

const XERO_CREDIT_NOTE_SIG: &[&[&str]] = &[&[
    "ContactName",
    "CreditNoteNumber",
    "CreditNoteDate",
    "UnitAmount",
    "TaxType",
]];

/// Xero payments by the Payments API's field names (`Date`, `Amount`, `Reference`,
/// `PaymentType`, the invoice's or credit note's number and id, `CurrencyRate`): Xero's
/// own screens export no payments file, so a payments list is written with these names.
const XERO_PAYMENTS: &[(&str, Target)] = &[
    ("PaymentID", T(F::ProviderRef)),
    ("Date", T(F::Date)),
    ("Amount", T(F::Amount)),
    ("Reference", T(F::Reference)),
    ("PaymentType", T(F::DocumentType)),
    ("InvoiceNumber", T(F::DocumentNumber)),
    ("CreditNoteNumber", A(X::DocumentNumberFallback)),
    ("InvoiceID", T(F::DocumentRef)),
    ("CreditNoteID", Skip),
    ("CurrencyRate", Skip),
    ("AccountCode", Skip),
    ("Status", Skip),
    ("IsReconciled", Skip),
];

const XERO_EXPORT_SIG: &[&[&str]] =
    &[&["InvoiceNumber", "InvoiceAmountDue", "PlannedDate", "Type"]];
const XERO_TEMPLATE_SIG: &[&[&str]] = &[&[
    "ContactName",
    "InvoiceNumber",
    "InvoiceDate",
    "UnitAmount",
    "AccountCode",
    "TaxType",
]];

const XERO_ITEMS: &[(&str, Target)] = &[
    ("*ItemCode", T(F::Sku)),
    ("ItemName", T(F::Name)),
    ("Quantity", Skip),
    ("PurchasesDescription", Skip),
    ("PurchasesUnitPrice", T(F::CostPrice)),
    ("PurchasesAccount", Skip),
    ("PurchasesTaxRate", Skip),
    ("SalesDescription", T(F::Description)),
    ("SalesUnitPrice", T(F::UnitPrice)),
    ("SalesAccount", Skip),
    ("SalesTaxRate", T(F::VatRate)),
    ("InventoryAssetAccount", Skip),
    ("CostOfGoodsSoldAccount", Skip),
    // An archived item is exported with `Status` `Archived`.
    ("Status", T(F::Status)),
];

// --- QuickBooks Online ------------------------------------------------------------------

const QBO_PRODUCTS: &[(&str, Target)] = &[
    ("Product/Service Name", T(F::Name)),
    ("Sales Description", T(F::Description)),
    ("SKU", T(F::Sku)),
    ("Type", Skip),
    ("Sales Price / Rate", T(F::UnitPrice)),
    ("Taxable", Skip),
    ("Income Account", Skip),
    ("Purchase Description", Skip),
    ("Purchase Cost", T(F::CostPrice)),
    ("Expense Account", Skip),
    ("Quantity On Hand", Skip),
    ("Reorder Point", Skip),
    ("Inventory Asset Account", Skip),
    ("Quantity as-of Date", Skip),
];

/// The invoice import layout, in both spellings Intuit uses (`*InvoiceNo` in the sample
/// file, `Invoice number` in the auto-mapped header list).
const QBO_INVOICES: &[(&str, Target)] = &[
    ("*InvoiceNo", T(F::Number)),
    ("Invoice number", T(F::Number)),
    ("*Customer", T(F::ContactName)),
    ("*InvoiceDate", T(F::IssueDate)),
    ("*DueDate", T(F::DueDate)),
    ("Terms", Skip),
    ("Location", Skip),
    ("Memo", Skip),
    ("Item(Product/Service)", A(X::DescriptionFallback)),
    ("ItemDescription", T(F::LineDescription)),
    ("ItemQuantity", T(F::LineQuantity)),
    ("ItemRate", T(F::LineUnitPrice)),
    ("*ItemAmount", A(X::LineAmount)),
    ("*ItemTaxCode", T(F::LineVatRate)),
    ("ItemTaxAmount", A(X::LineVat)),
    ("Service Date", Skip),
    // A multicurrency company's columns, when the file has them [I]: the currency and its
    // rate in home currency per unit.
    ("Currency Code", T(F::Currency)),
    ("Exchange Rate", T(F::ExchangeRate)),
];

/// The "Transaction List by Date" (and "by Customer") report, exported to CSV: one row per
/// transaction with its gross amount and no lines or tax. Newer exports write
/// `Transaction date` and `No.`, older ones `Date` and `Num`. The description falls back to
/// `Split` (the income account, `-Split-` for several).
const QBO_TRANSACTION_LIST: &[(&str, Target)] = &[
    ("Date", T(F::IssueDate)),
    ("Transaction date", T(F::IssueDate)),
    ("Transaction Type", A(X::Kind)),
    ("Num", T(F::Number)),
    ("No.", T(F::Number)),
    ("Posting", Skip),
    ("Name", T(F::ContactName)),
    ("Customer", T(F::ContactName)),
    ("Memo/Description", T(F::LineDescription)),
    ("Account", Skip),
    ("Split", A(X::DescriptionFallback)),
    ("Amount", A(X::SignedGross)),
    ("Balance", Skip),
    ("Open Balance", Skip),
];

// --- Sage Accounting (Business Cloud) ---------------------------------------------------

const SAGE_ACCOUNTING_CONTACTS: &[(&str, Target)] = &[
    ("Reference", T(F::ProviderRef)),
    ("Company Name", T(F::Name)),
    ("Currency", Skip),
    ("Credit Limit", Skip),
    ("Main Address Type", Skip),
    ("Main Address Line 1", T(F::Address)),
    ("Main Address Line 2", T(F::Address)),
    ("Main Address Town", T(F::Address)),
    ("Main Address County", T(F::Address)),
    ("Main Address Post Code", T(F::Address)),
    ("Main Address Country", T(F::Address)),
    ("Main Contact Name", Skip),
    ("Main Contact Phone", T(F::Phone)),
    ("Main Contact Type", Skip),
    ("Main Contact Mobile", A(X::PhoneFallback)),
    ("Main Contact Email", T(F::Email)),
    ("Main Contact Fax", Skip),
    ("VAT Number", T(F::VatNumber)),
];

/// Each row is one quick entry with its own Net, VAT and Total; rows that share a
/// `Reference` make one invoice, whose total is the sum of theirs.
const SAGE_ACCOUNTING_INVOICES: &[(&str, Target)] = &[
    ("Type", A(X::Kind)),
    ("Customer Reference", Skip),
    ("Date", T(F::IssueDate)),
    ("Customer Name", T(F::ContactName)),
    ("Reference", T(F::Number)),
    ("Ledger Account", Skip),
    ("Details", T(F::LineDescription)),
    ("Net", T(F::LineUnitPrice)),
    ("VAT Rate", T(F::LineVatRate)),
    ("VAT", A(X::LineVat)),
    ("Total", A(X::LineTotal)),
    ("Analysis Type 1", Skip),
    ("Analysis Type 2", Skip),
    ("Analysis Type 3", Skip),
];

// --- Sage 50 Accounts (desktop): reports in import order, usually without headers -------

const SAGE50_CUSTOMER: &[(&str, Target)] = &[
    ("A/C", T(F::ProviderRef)),
    ("Name", T(F::Name)),
    ("Address Line 1", T(F::Address)),
    ("Address Line 2", T(F::Address)),
    ("Address Line 3", T(F::Address)),
    ("Address Line 4", T(F::Address)),
    ("Address Line 5", T(F::Address)),
    ("Contact Name", Skip),
    ("Telephone", T(F::Phone)),
    ("Fax", Skip),
    ("Analysis 1", Skip),
    ("Analysis 2", Skip),
    ("Analysis 3", Skip),
    ("Department", Skip),
    ("VAT Number", T(F::VatNumber)),
    ("M.T.D.", Skip),
    ("Y.T.D.", Skip),
    ("Prior Y.T.D.", Skip),
    ("Credit Limit", Skip),
    ("Trading Terms Text", Skip),
    ("Settlement Due Days", Skip),
    ("Sett. Discount (%)", Skip),
    ("Default Nominal Code", Skip),
    ("Tax Code", Skip),
    ("Trade Contact", Skip),
    ("Telephone 2", A(X::PhoneFallback)),
    ("E-mail", T(F::Email)),
    ("Web Address", Skip),
];

const SAGE50_PRODUCT: &[(&str, Target)] = &[
    ("Stock Code", T(F::Sku)),
    ("Description", T(F::Name)),
    ("Tax Code", T(F::VatRate)),
    ("Sales Price", T(F::UnitPrice)),
    ("Last Cost Price (Standard)", T(F::CostPrice)),
    ("Unit of Sale", T(F::Unit)),
    ("Location", Skip),
    ("Nominal A/C Ref", Skip),
    ("Stock Category", T(F::Category)),
    ("Bar Code", T(F::Barcode)),
    ("Department", Skip),
    ("Supplier A/C Ref", Skip),
    ("Supplier Part No.", Skip),
    ("Re-order Level", Skip),
];

/// Audit trail transactions as sales or purchase invoice lines (SI, PI).
const SAGE50_AUDIT_DOCUMENTS: &[(&str, Target)] = &[
    ("Type", A(X::Kind)),
    ("Account Reference", T(F::ContactName)),
    ("Nominal A/C Ref", Skip),
    ("Department Code", Skip),
    ("Date", T(F::IssueDate)),
    ("Reference", T(F::Number)),
    ("Details", T(F::LineDescription)),
    ("Net Amount", T(F::LineUnitPrice)),
    ("Tax Code", T(F::LineVatRate)),
    ("Tax Amount", A(X::LineVat)),
    ("Exchange Rate", Skip),
    ("Extra Reference", Skip),
    ("User Name", Skip),
    ("Project Refn", Skip),
    ("Cost Code Refn", Skip),
];

/// Audit trail transactions as expenses (BP, CP, VP): the nominal code is the category.
const SAGE50_AUDIT_EXPENSES: &[(&str, Target)] = &[
    ("Type", A(X::Kind)),
    ("Account Reference", Skip),
    ("Nominal A/C Ref", T(F::Category)),
    ("Department Code", Skip),
    ("Date", T(F::Date)),
    ("Reference", T(F::ProviderRef)),
    ("Details", T(F::Description)),
    ("Net Amount", A(X::NetAmount)),
    ("Tax Code", Skip),
    ("Tax Amount", T(F::VatAmount)),
    ("Exchange Rate", Skip),
    ("Extra Reference", Skip),
    ("User Name", Skip),
    ("Project Refn", Skip),
    ("Cost Code Refn", Skip),
];

const SAGE50_AUDIT_SIG: &[&[&str]] = &[&[
    "Type",
    "Account Reference",
    "Nominal A/C Ref",
    "Net Amount",
    "Tax Code",
]];

// --- Sage 50 Accounts: project records --------------------------------------------------

/// The project record of the import and of the "Project CSV Report", columns A–S in file
/// order. `Status ID` numbers the company's own status list, so it is not read as a
/// status; `Price Quoted` is the price quoted to the customer, not a budget.
const SAGE50_PROJECT: &[(&str, Target)] = &[
    ("Project Ref", Skip),
    ("Name", T(F::Name)),
    ("Status ID", Skip),
    ("Start Date", Skip),
    ("End Date", Skip),
    ("Description", Skip),
    ("Customer A/C Ref", T(F::ContactName)),
    ("Order Number", Skip),
    ("Contact Name", Skip),
    ("Street 1", Skip),
    ("Street 2", Skip),
    ("Town", Skip),
    ("County", Skip),
    ("Post Code", Skip),
    ("Telephone", Skip),
    ("Fax", Skip),
    ("E-Mail", Skip),
    ("Country Code", Skip),
    ("Price Quoted", Skip),
];

fn is_date_or_empty(s: &str) -> bool {
    s.trim().is_empty() || parse_date(s, DateOrder::DayMonth).is_ok()
}

/// A headerless Sage 50 project record: a project reference of up to 12 characters, a
/// status number from 1 to 99 third, start and end dates (or blanks) fourth and fifth, a
/// customer account reference (or a blank) seventh.
fn sage50_project_shape(r: &StringRecord) -> bool {
    let reference = r.get(0).unwrap_or("").trim();
    (7..=30).contains(&r.len())
        && (1..=12).contains(&reference.len())
        && !reference.contains(' ')
        && r[2]
            .trim()
            .parse::<u8>()
            .is_ok_and(|n| (1..=99).contains(&n))
        && is_date_or_empty(&r[3])
        && is_date_or_empty(&r[4])
        && (r[6].trim().is_empty() || is_account_ref(&r[6]))
}

// --- FreeAgent --------------------------------------------------------------------------

const FREEAGENT_CONTACTS: &[(&str, Target)] = &[
    ("First Name", A(X::FirstName)),
    ("Last Name", A(X::LastName)),
    ("Company", T(F::Name)),
    ("E-mail Address", T(F::Email)),
    ("E-mail 2 Address", Skip),
    ("Business Street", T(F::Address)),
    ("Business Street 2", T(F::Address)),
    ("Business Street 3", T(F::Address)),
    ("Business City", T(F::Address)),
    ("Business State", T(F::Address)),
    ("Business Postal Code", T(F::Address)),
    ("Business Phone", T(F::Phone)),
    ("Mobile Phone", A(X::PhoneFallback)),
];

// --- KashFlow (IRIS): mapped by hand, so names are known and order is not ---------------

const KASHFLOW_CUSTOMERS: &[(&str, Target)] = &[
    ("Customer Code", T(F::ProviderRef)),
    ("Title", Skip),
    ("First Name", A(X::FirstName)),
    ("Last Name", A(X::LastName)),
    ("Name", T(F::Name)),
    ("Contact Name", Skip),
    ("Telephone", T(F::Phone)),
    ("Mobile", A(X::PhoneFallback)),
    ("Fax", Skip),
    ("Email", T(F::Email)),
    ("Address 1", T(F::Address)),
    ("Address 2", T(F::Address)),
    ("Address 3", T(F::Address)),
    ("Address 4", T(F::Address)),
    ("Postcode", T(F::Address)),
    ("Website", Skip),
    ("Trade Border Type", Skip),
    ("EC", Skip),
    ("Notes", Skip),
    ("Source", Skip),
    ("VAT Number", T(F::VatNumber)),
];

const KASHFLOW_SUPPLIERS: &[(&str, Target)] = &[
    ("Supplier Code", T(F::ProviderRef)),
    ("Supplier Name", T(F::Name)),
    ("Name", T(F::Name)),
    ("Contact Name", Skip),
    ("Telephone", T(F::Phone)),
    ("Mobile", A(X::PhoneFallback)),
    ("Fax", Skip),
    ("Email", T(F::Email)),
    ("Address 1", T(F::Address)),
    ("Address 2", T(F::Address)),
    ("Address 3", T(F::Address)),
    ("Address 4", T(F::Address)),
    ("Postcode", T(F::Address)),
    ("Website", Skip),
    ("Trade Border Type", Skip),
    ("EC", Skip),
    ("Notes", Skip),
    ("VAT Number", T(F::VatNumber)),
];

const KASHFLOW_INVOICES: &[(&str, Target)] = &[
    ("Customer Code", T(F::ContactName)),
    ("Invoice Number", T(F::Number)),
    ("Invoice Date", T(F::IssueDate)),
    ("Due Date", T(F::DueDate)),
    ("Customer Reference", Skip),
    ("Line-Quantity", T(F::LineQuantity)),
    ("Line-Description", T(F::LineDescription)),
    ("Line-Charge Type/Sales Code", Skip),
    ("Line-Rate", T(F::LineUnitPrice)),
    ("Line Rate (ex VAT)", T(F::LineUnitPrice)),
    ("Line-VAT Amount", A(X::LineVat)),
    ("Line-VAT Rate", T(F::LineVatRate)),
    ("Project Number", Skip),
    ("Currency Code", T(F::Currency)),
];

const KASHFLOW_RECEIPTS: &[(&str, Target)] = &[
    ("Supplier Code", T(F::ContactName)),
    ("Receipt Number", T(F::Number)),
    ("Receipt Date", T(F::IssueDate)),
    ("Due Date", T(F::DueDate)),
    ("Supplier Reference", Skip),
    ("Line Quantity", T(F::LineQuantity)),
    ("Line Description", T(F::LineDescription)),
    ("Line Charge Type/Purchase Code", Skip),
    ("Line Rate", T(F::LineUnitPrice)),
    ("Line VAT Amount", A(X::LineVat)),
    ("Line VAT Rate", T(F::LineVatRate)),
    ("Project Number", Skip),
    ("Currency Code", T(F::Currency)),
];

/// KashFlow's invoice payments file ("Import Invoice Payments CSV"): one dated payment per
/// row against an invoice number. `Paid Account` is the bank's nominal code, not imported;
/// the note is kept as the payment's reference.
const KASHFLOW_INVOICE_PAYMENTS: &[(&str, Target)] = &[
    ("Invoice Number", T(F::DocumentNumber)),
    ("Paid Date", T(F::Date)),
    ("Paid Amount", T(F::Amount)),
    ("Paid Account", Skip),
    ("Payment Note", T(F::Reference)),
    ("Payment Method", T(F::Method)),
];

// --- Zoho Books -------------------------------------------------------------------------

const ZOHO_CONTACTS: &[(&str, Target)] = &[
    ("Display Name", T(F::Name)),
    ("Company Name", Skip),
    ("First Name", A(X::FirstName)),
    ("Last Name", A(X::LastName)),
    ("Phone", T(F::Phone)),
    ("Billing Address", T(F::Address)),
    ("Billing Street2", T(F::Address)),
    ("Billing City", T(F::Address)),
    ("Billing State", T(F::Address)),
    ("Billing Code", T(F::Address)),
    ("Billing Country", T(F::Address)),
    ("EmailID", T(F::Email)),
    ("MobilePhone", A(X::PhoneFallback)),
    ("Customer ID", T(F::ProviderRef)),
    ("Contact Type", T(F::Type)),
    ("Customer Sub Type", Skip),
    ("VAT Registration Number", T(F::VatNumber)),
    ("Tax Registration Number", T(F::VatNumber)),
];

const ZOHO_INVOICES: &[(&str, Target)] = &[
    ("Invoice Date", T(F::IssueDate)),
    ("Invoice ID", T(F::ProviderRef)),
    ("Invoice Number", T(F::Number)),
    ("Invoice Status", T(F::Status)),
    ("Customer Name", T(F::ContactName)),
    ("Due Date", T(F::DueDate)),
    ("Item Name", A(X::DescriptionFallback)),
    ("Item Desc", T(F::LineDescription)),
    ("Quantity", T(F::LineQuantity)),
    ("Item Price", T(F::LineUnitPrice)),
    ("Item Total", A(X::LineAmount)),
    ("SubTotal", Skip),
    ("Total", T(F::Total)),
    ("Balance", A(X::AmountDue)),
    ("SKU", T(F::LineSku)),
    ("Item Tax", T(F::LineVatTreatment)),
    ("Item Tax %", T(F::LineVatRate)),
    ("Item Tax Amount", A(X::LineVat)),
    ("Currency Code", T(F::Currency)),
    ("Exchange Rate", T(F::ExchangeRate)),
    ("Last Payment Date", T(F::PaidDate)),
];

/// Credit notes (`Credit_Note.csv`), one row per line like the invoices export;
/// `Applied Invoice Number` names the invoice the credit was applied to. `Balance` is
/// the credit not yet used, applied or refunded alike, so it gives no refund.
const ZOHO_CREDIT_NOTES: &[(&str, Target)] = &[
    ("Credit Note Date", T(F::IssueDate)),
    ("CreditNotes ID", T(F::ProviderRef)),
    ("Credit Note Number", T(F::Number)),
    ("Credit Note Status", T(F::Status)),
    ("Customer Name", T(F::ContactName)),
    ("Customer ID", Skip),
    ("Currency Code", T(F::Currency)),
    ("Exchange Rate", T(F::ExchangeRate)),
    ("Reference#", Skip),
    ("Applied Invoice Number", T(F::OriginalNumber)),
    ("Item Name", A(X::DescriptionFallback)),
    ("Item Desc", T(F::LineDescription)),
    ("Quantity", T(F::LineQuantity)),
    ("Usage unit", Skip),
    ("Item Price", T(F::LineUnitPrice)),
    ("Item Total", A(X::LineAmount)),
    ("SubTotal", Skip),
    ("Total", T(F::Total)),
    ("Balance", Skip),
    ("Item Tax", T(F::LineVatTreatment)),
    ("Item Tax %", T(F::LineVatRate)),
    ("Item Tax Amount", A(X::LineVat)),
    ("Notes", Skip),
];

/// Customer payments (`Customer_Payment.csv`), one row per invoice a payment was applied
/// to: the amount applied to that invoice, on the payment's date. The payment's own
/// `Amount` (split over its invoices) and its rate are not imported: a payment is in its
/// invoice's currency.
const ZOHO_CUSTOMER_PAYMENTS: &[(&str, Target)] = &[
    ("CustomerPayment ID", Skip),
    ("Payment Number", Skip),
    ("Date", T(F::Date)),
    ("Mode", T(F::Method)),
    ("Reference Number", T(F::Reference)),
    ("Customer Name", Skip),
    ("Customer ID", Skip),
    ("Currency Code", Skip),
    ("Exchange Rate", Skip),
    ("Amount", Skip),
    ("Bank Charges", Skip),
    ("Description", Skip),
    ("Invoice Number", T(F::DocumentNumber)),
    ("Invoice Date", Skip),
    ("Amount Applied to Invoice", T(F::Amount)),
    ("InvoicePayment ID", T(F::ProviderRef)),
    ("Deposit To", Skip),
];

// --- Zoho Books: items, bills, expenses, projects, timesheets, recurring invoices -------
//
// Header names of a real Zoho Books backup (`Item.csv`, `Bill.csv`, `Expense.csv`,
// `Projects.csv`, `Timesheet.csv`, `Recurring_Invoice.csv`); sources in the fixtures README.

const ZOHO_ITEMS: &[(&str, Target)] = &[
    ("Item ID", T(F::ProviderRef)),
    ("Item Name", T(F::Name)),
    ("SKU", T(F::Sku)),
    ("Description", T(F::Description)),
    ("Rate", T(F::UnitPrice)),
    ("Account", Skip),
    ("Account Code", Skip),
    ("Tax Name", Skip),
    ("Tax Percentage", T(F::VatRate)),
    ("Tax Type", Skip),
    ("Purchase Tax Name", Skip),
    ("Purchase Tax Percentage", Skip),
    ("Purchase Tax Type", Skip),
    ("Product Type", Skip),
    ("Parent Category", Skip),
    ("Status", T(F::Status)),
    ("Usage unit", T(F::Unit)),
    ("Unit Name", Skip),
    ("Purchase Rate", T(F::CostPrice)),
    ("Purchase Account", Skip),
    ("Purchase Account Code", Skip),
    ("Purchase Description", Skip),
    ("Inventory Account", Skip),
    ("Inventory Account Code", Skip),
    ("Inventory Valuation Method", Skip),
    ("Reorder Point", Skip),
    ("Vendor", Skip),
    ("Opening Stock", Skip),
    ("Opening Stock Value", Skip),
    ("Stock On Hand", Skip),
    ("Item Type", Skip),
    ("Sellable", Skip),
    ("Purchasable", Skip),
    ("Track Inventory", Skip),
];

/// Bills, one row per line with the bill's fields repeated (like the invoices export).
const ZOHO_BILLS: &[(&str, Target)] = &[
    ("Bill Date", T(F::IssueDate)),
    ("Due Date", T(F::DueDate)),
    ("Bill ID", T(F::ProviderRef)),
    ("Accounts Payable", Skip),
    ("Vendor Name", T(F::ContactName)),
    ("Payment Terms", Skip),
    ("Payment Terms Label", Skip),
    ("Bill Number", T(F::Number)),
    ("PurchaseOrder", Skip),
    ("Currency Code", T(F::Currency)),
    ("Exchange Rate", T(F::ExchangeRate)),
    ("SubTotal", Skip),
    ("Total", T(F::Total)),
    ("Balance", A(X::AmountDue)),
    ("Vendor Notes", Skip),
    ("Bill Type", Skip),
    ("Is Inclusive Tax", Skip),
    ("Bill Status", T(F::Status)),
    ("Product ID", Skip),
    ("Item Name", A(X::DescriptionFallback)),
    ("Account", Skip),
    ("Account Code", Skip),
    ("Description", T(F::LineDescription)),
    ("Quantity", T(F::LineQuantity)),
    ("Usage unit", Skip),
    ("Tax Amount", A(X::LineVat)),
    ("Item Total", A(X::LineAmount)),
    ("Is Billable", Skip),
    ("SKU", T(F::LineSku)),
    ("Rate", T(F::LineUnitPrice)),
    ("Tax ID", Skip),
    ("Tax Name", T(F::LineVatTreatment)),
    ("Tax Percentage", T(F::LineVatRate)),
    ("Tax Type", Skip),
    ("Customer Name", Skip),
    ("Project Name", Skip),
];

/// Expenses: `Total` is the gross amount (`Expense Amount` is as entered, with or without
/// VAT as `Is Inclusive Tax` says); the expense account is the category.
const ZOHO_EXPENSES: &[(&str, Target)] = &[
    ("Expense Date", T(F::Date)),
    ("Expense Description", T(F::Description)),
    ("Expense Account", T(F::Category)),
    ("Expense Account Code", Skip),
    ("Paid Through", Skip),
    ("Paid Through Account Code", Skip),
    ("Vendor", Skip),
    ("Project Name", T(F::ProjectName)),
    ("Entry Number", Skip),
    ("Currency Code", T(F::Currency)),
    ("Exchange Rate", T(F::ExchangeRate)),
    ("Is Inclusive Tax", Skip),
    ("Mileage Type", Skip),
    ("Tax Name", T(F::VatTreatment)),
    ("Tax Percentage", Skip),
    ("Tax Type", Skip),
    ("Tax Amount", T(F::VatAmount)),
    ("Expense Amount", Skip),
    ("Total", T(F::Amount)),
    ("Reference#", Skip),
    ("Is Billable", Skip),
    ("Customer Name", Skip),
    ("Expense Reference ID", T(F::ProviderRef)),
];

/// Projects. `Project Cost` is the fixed cost or the rate depending on `Billing Type`, so it
/// is not taken as an hourly rate.
const ZOHO_PROJECTS: &[(&str, Target)] = &[
    ("Project ID", Skip),
    ("Project Name", T(F::Name)),
    ("Project Code", Skip),
    ("Description", Skip),
    ("Billing Type", Skip),
    ("Project Cost", Skip),
    ("Customer Name", T(F::ContactName)),
    ("Currency Code", Skip),
    ("Budget Type", Skip),
    ("Budget Amount", T(F::Budget)),
    ("Project Status", T(F::Status)),
];

/// Time entries name their project by `Project Name`; `Time Spent` is `hh:mm`.
const ZOHO_TIMESHEET: &[(&str, Target)] = &[
    ("Timesheet ID", Skip),
    ("Project Name", T(F::ProjectName)),
    ("Task Name", Skip),
    ("Staff Name", Skip),
    ("Email", Skip),
    ("Staff Rate", T(F::HourlyRate)),
    ("Notes", T(F::Description)),
    ("Time Spent", T(F::Hours)),
    ("Begin time", Skip),
    ("End time", Skip),
    ("Date", T(F::Date)),
    ("Billable Status", T(F::Billable)),
    ("Billed Status", Skip),
];

/// Recurring invoices, one row per line, grouped by `Recurring Invoice ID`.
const ZOHO_RECURRING_INVOICES: &[(&str, Target)] = &[
    ("Recurring Invoice ID", T(F::ProviderRef)),
    ("Recurring Invoice Name", Skip),
    ("Start Date", Skip),
    ("End Date", Skip),
    ("Last Sent Date", Skip),
    ("Next Invoice Date", T(F::NextDate)),
    ("Recurrence Profile Status", T(F::Status)),
    ("Recurrence Frequency", T(F::Interval)),
    ("Repeat Every", T(F::IntervalCount)),
    ("Customer Name", T(F::ContactName)),
    ("Customer ID", Skip),
    ("Item Name", A(X::DescriptionFallback)),
    ("SKU", Skip),
    ("Item Desc", T(F::LineDescription)),
    ("Quantity", T(F::LineQuantity)),
    ("Item Price", T(F::LineUnitPrice)),
    ("Item Tax", T(F::LineVatTreatment)),
    ("Item Tax %", T(F::LineVatRate)),
    ("Item Tax Amount", Skip),
    ("Item Total", Skip),
    ("SubTotal", Skip),
    ("Total", Skip),
];

// --- FreshBooks -------------------------------------------------------------------------

const FRESHBOOKS_CLIENTS: &[(&str, Target)] = &[
    ("Organization", T(F::Name)),
    ("First Name", A(X::FirstName)),
    ("Last Name", A(X::LastName)),
    ("Email", T(F::Email)),
    ("Phone", T(F::Phone)),
    ("Street", T(F::Address)),
    // Newer exports: `Address Line 1`, `Address Line 2` instead of `Street`.
    ("Address Line 1", T(F::Address)),
    ("Address Line 2", T(F::Address)),
    ("City", T(F::Address)),
    ("Province/State", T(F::Address)),
    ("Country", T(F::Address)),
    ("Postal Code", T(F::Address)),
    ("Notes", Skip),
];

const FRESHBOOKS_INVOICES: &[(&str, Target)] = &[
    ("Client Name", T(F::ContactName)),
    ("Invoice #", T(F::Number)),
    ("Date Issued", T(F::IssueDate)),
    // Newer exports have `Date Due` after `Date Issued`.
    ("Date Due", T(F::DueDate)),
    ("Invoice Status", T(F::Status)),
    ("Date Paid", T(F::PaidDate)),
    ("Item Name", A(X::DescriptionFallback)),
    ("Item Description", T(F::LineDescription)),
    ("Rate", T(F::LineUnitPrice)),
    ("Quantity", T(F::LineQuantity)),
    ("Discount Percentage", T(F::LineDiscount)),
    ("Line Subtotal", A(X::LineAmount)),
    ("Tax 1 Type", T(F::LineVatTreatment)),
    ("Tax 1 Amount", A(X::LineVat)),
    ("Tax 2 Type", Skip),
    ("Tax 2 Amount", A(X::LineVat)),
    ("Line Total", Skip),
    ("Currency", T(F::Currency)),
];

// --- QuickBooks Online bills, Sage Accounting purchase invoices ---

/// QuickBooks Online's "Import bills" spreadsheet (Settings ▸ Import data ▸ Bills), one row
/// per line with the bill's number, supplier and dates repeated. UK and Canadian QBO say
/// `Supplier`. There is no quantity or rate column: the line amount is the line's net.
const QBO_BILLS: &[(&str, Target)] = &[
    ("Bill no.", T(F::Number)),
    ("Supplier", T(F::ContactName)),
    ("Bill Date", T(F::IssueDate)),
    ("Due Date", T(F::DueDate)),
    ("Memo", Skip),
    ("Account", Skip),
    ("Line Description", T(F::LineDescription)),
    ("Line Amount", A(X::LineAmount)),
    ("Line Tax Code", T(F::LineVatRate)),
    ("Line Tax Amount", A(X::LineVat)),
    ("Currency Code", T(F::Currency)),
    // A multicurrency company's rate (home currency per unit), when the file has it [I].
    ("Exchange Rate", T(F::ExchangeRate)),
];

/// Sage Accounting's purchases quick entry file: the purchase twin of the sales file read
/// by `SAGE_ACCOUNTING_INVOICES`, with `Supplier Reference` and `Supplier Name`.
const SAGE_ACCOUNTING_PURCHASES: &[(&str, Target)] = &[
    ("Type", A(X::Kind)),
    ("Supplier Reference", Skip),
    ("Date", T(F::IssueDate)),
    ("Supplier Name", T(F::ContactName)),
    ("Reference", T(F::Number)),
    ("Ledger Account", Skip),
    ("Details", T(F::LineDescription)),
    ("Net", T(F::LineUnitPrice)),
    ("VAT Rate", T(F::LineVatRate)),
    ("VAT", A(X::LineVat)),
    ("Total", A(X::LineTotal)),
    ("Analysis Type 1", Skip),
    ("Analysis Type 2", Skip),
    ("Analysis Type 3", Skip),
];

/// Purchases quick entries are `Invoice` or `Cr Note` (a supplier credit).
fn sage_accounting_purchase_kind(s: &str) -> Option<EntityType> {
    match words(s).as_str() {
        "invoice" | "purchase invoice" | "pi" => Some(EntityType::Bills),
        "cr note" | "credit note" | "purchase credit note" | "pc" => {
            Some(EntityType::SupplierCredits)
        }
        _ => None,
    }
}

// --- FreeAgent expenses and projects -----------------------------

/// FreeAgent's expenses import template ("How to bulk import expenses"). The claimant is a
/// FreeAgent user, not a contact, and has no expense field; `currency` and
/// `receipt_reference` (a receipt number, not unique) are not imported either. The date
/// column's heading shows as `DD/MM/YYYY` in the article; `dated_on` (the API's name)
/// and `date` are read too.
const FREEAGENT_EXPENSES: &[(&str, Target)] = &[
    ("claimant_name", Skip),
    ("category", T(F::Category)),
    ("DD/MM/YYYY", T(F::Date)),
    ("dated_on", T(F::Date)),
    ("date", T(F::Date)),
    ("currency", Skip),
    ("type", A(X::Kind)),
    ("gross_value", T(F::Amount)),
    ("description", T(F::Description)),
    ("receipt_reference", Skip),
    ("sales_tax_rate", A(X::GrossVatRate)),
];

/// Expenses are of type `Payment` or `Refund`; refunds (money paid back by the claimant)
/// are not imported.
fn freeagent_expense_kind(s: &str) -> Option<EntityType> {
    match words(s).as_str() {
        "payment" => Some(EntityType::Expenses),
        _ => None,
    }
}

/// FreeAgent's projects import template ("Import projects"): the contact is the
/// organisation, else the person, as FreeAgent names contacts.
const FREEAGENT_PROJECTS: &[(&str, Target)] = &[
    ("contact_name", A(X::ContactFallback)),
    ("organisation_name", T(F::ContactName)),
    ("project_name", T(F::Name)),
    ("status", T(F::Status)),
    ("contract_po_reference", Skip),
    ("uses_project_invoice_sequence", Skip),
];

// --- FreshBooks expenses and time entries ------------------------

/// FreshBooks' Expense Details report. `Amount` is the expense's total with its taxes
/// (FreshBooks: "expense amounts include taxes"); a UK business has one tax, VAT, in
/// `Tax 1`. `Parent Category` is the category (`Subcategory` is often "<parent>
/// (general)"); the merchant gives the description when it is empty.
const FRESHBOOKS_EXPENSES: &[(&str, Target)] = &[
    ("Date", T(F::Date)),
    ("Account Sub Type", Skip),
    ("Parent Category", T(F::Category)),
    ("Subcategory", Skip),
    ("Source", Skip),
    ("Merchant", A(X::DescriptionFallback)),
    ("Project", T(F::ProjectName)),
    ("Client", Skip),
    ("Description", T(F::Description)),
    ("Tax 1 Amount", T(F::VatAmount)),
    ("Tax 1 Type", Skip),
    ("Tax 2 Amount", Skip),
    ("Tax 2 Type", Skip),
    ("Amount", T(F::Amount)),
    ("Currency", Skip),
];

/// FreshBooks' Time Entry Details report. `Hours` has four decimal places (`1.3333` for
/// 1h20m), so the hours come from `Seconds`. `Status` (`billed`/`unbilled`) says whether
/// the time was invoiced, not whether it is billable.
const FRESHBOOKS_TIME_ENTRIES: &[(&str, Target)] = &[
    ("Date", T(F::Date)),
    ("Client", Skip),
    ("Project", T(F::ProjectName)),
    ("Service", Skip),
    ("Note", T(F::Description)),
    ("Team Member", Skip),
    ("Status", Skip),
    ("Hours", Skip),
    ("Seconds", A(X::DurationSeconds)),
];

/// FreshBooks' vendors export: the clients columns with `Account Number` (the business's
/// account with the vendor, not an id) and `Website`; every row is a supplier.
const FRESHBOOKS_VENDORS: &[(&str, Target)] = &[
    ("Organization", T(F::Name)),
    ("First Name", A(X::FirstName)),
    ("Last Name", A(X::LastName)),
    ("Account Number", Skip),
    ("Email", T(F::Email)),
    ("Website", Skip),
    ("Phone", T(F::Phone)),
    ("Address Line 1", T(F::Address)),
    ("Address Line 2", T(F::Address)),
    ("City", T(F::Address)),
    ("Province/State", T(F::Address)),
    ("Country", T(F::Address)),
    ("Postal Code", T(F::Address)),
];

/// FreshBooks' items and services export. `Rate` is the selling price as FreshBooks shows
/// it (`$125.00`); `Income Account` is not imported; `Status` (`Active`, else archived)
/// says whether the item is active.
const FRESHBOOKS_SERVICES: &[(&str, Target)] = &[
    ("Name", T(F::Name)),
    ("Type", Skip),
    ("Rate", T(F::UnitPrice)),
    ("Income Account", Skip),
    ("Status", T(F::Status)),
];

/// Every known layout. Order matters only between equal scores of the same shape
/// (the first is the default type).
pub static LAYOUTS: &[Layout] = &[
    layout!(Xero, Contacts, "Xero contacts export",
        sig: &[&["ContactName", "POAddressLine1", "AccountsReceivableTaxCodeName"]],
        cols: XERO_CONTACTS),
    layout!(Xero, Invoices, "Xero sales invoices export",
        sig: XERO_EXPORT_SIG, cols: XERO_DOCUMENTS, kind: Some(xero_kind)),
    layout!(Xero, Bills, "Xero bills export",
        sig: XERO_EXPORT_SIG, cols: XERO_DOCUMENTS, kind: Some(xero_kind)),
    layout!(Xero, Invoices, "Xero invoice import template",
        sig: XERO_TEMPLATE_SIG, cols: XERO_DOCUMENTS),
    layout!(Xero, Bills, "Xero bill import template",
        sig: XERO_TEMPLATE_SIG, cols: XERO_DOCUMENTS),
    layout!(Xero, CreditNotes, "Xero sales credit notes export",
        sig: XERO_EXPORT_SIG, cols: XERO_DOCUMENTS, kind: Some(xero_kind)),
    layout!(Xero, SupplierCredits, "Xero bill credit notes export",
        sig: XERO_EXPORT_SIG, cols: XERO_DOCUMENTS, kind: Some(xero_kind)),
    layout!(Xero, CreditNotes, "Xero credit note import template",
        sig: XERO_CREDIT_NOTE_SIG, cols: XERO_CREDIT_NOTES),
    layout!(Xero, SupplierCredits, "Xero credit note import template",
        sig: XERO_CREDIT_NOTE_SIG, cols: XERO_CREDIT_NOTES),
    layout!(Xero, Payments, "Xero payments (Payments API fields)",
        sig: &[&["PaymentType", "Date", "Amount"]], cols: XERO_PAYMENTS),
    layout!(Xero, Products, "Xero inventory items export",
        sig: &[&["ItemCode", "PurchasesUnitPrice", "SalesUnitPrice"]],
        cols: XERO_ITEMS),
    layout!(Quickbooks, Products, "QuickBooks products and services list",
        sig: &[&["Product/Service Name", "Sales Price / Rate"]],
        cols: QBO_PRODUCTS),
    layout!(Quickbooks, Invoices, "QuickBooks invoice import layout",
        sig: &[&["Item(Product/Service)", "ItemAmount"]],
        cols: QBO_INVOICES),
    layout!(Quickbooks, CreditNotes, "QuickBooks transaction list report",
        sig: &[&["Transaction Type", "Num", "Name", "Amount"],
               &["Transaction Type", "No.", "Name", "Amount"]],
        cols: QBO_TRANSACTION_LIST, kind: Some(quickbooks_kind),
        status: Some(DocStatus::Posted)),
    layout!(SageAccounting, Contacts, "Sage Accounting customers and suppliers file",
        sig: &[&["Main Address Post Code", "Main Contact Name"]],
        cols: SAGE_ACCOUNTING_CONTACTS),
    layout!(SageAccounting, Invoices, "Sage Accounting outstanding invoices file",
        sig: &[&["Customer Reference", "Analysis Type 1"]],
        cols: SAGE_ACCOUNTING_INVOICES, kind: Some(sage_accounting_kind)),
    layout!(SageAccounting, CreditNotes, "Sage Accounting outstanding invoices file",
        sig: &[&["Customer Reference", "Analysis Type 1"]],
        cols: SAGE_ACCOUNTING_INVOICES, kind: Some(sage_accounting_kind)),
    // Sage 50 project records: before the customer record, whose shape a project row
    // with no e-mail and no country code also has.
    layout!(Sage50, Projects, "Sage 50 project record",
        sig: &[&["Project Ref", "Status ID", "Customer A/C Ref"]],
        cols: SAGE50_PROJECT, shape: Some(sage50_project_shape), contact_codes: true),
    layout!(Sage50, Contacts, "Sage 50 customer record",
        sig: &[&["A/C", "Name", "Address Line 1", "Trading Terms Text"]],
        cols: SAGE50_CUSTOMER, shape: Some(sage50_contact_shape)),
    layout!(Sage50, Products, "Sage 50 product record",
        sig: &[&["Stock Code", "Description", "Tax Code", "Sales Price"]],
        cols: SAGE50_PRODUCT, shape: Some(sage50_product_shape)),
    layout!(Sage50, Invoices, "Sage 50 audit trail transactions",
        sig: SAGE50_AUDIT_SIG, cols: SAGE50_AUDIT_DOCUMENTS,
        shape: Some(sage50_audit_shape), kind: Some(sage50_kind), contact_codes: true),
    layout!(Sage50, Bills, "Sage 50 audit trail transactions",
        sig: SAGE50_AUDIT_SIG, cols: SAGE50_AUDIT_DOCUMENTS,
        shape: Some(sage50_audit_shape), kind: Some(sage50_kind), contact_codes: true),
    layout!(Sage50, CreditNotes, "Sage 50 audit trail transactions",
        sig: SAGE50_AUDIT_SIG, cols: SAGE50_AUDIT_DOCUMENTS,
        shape: Some(sage50_audit_shape), kind: Some(sage50_kind), contact_codes: true),
    layout!(Sage50, SupplierCredits, "Sage 50 audit trail transactions",
        sig: SAGE50_AUDIT_SIG, cols: SAGE50_AUDIT_DOCUMENTS,
        shape: Some(sage50_audit_shape), kind: Some(sage50_kind), contact_codes: true),
    layout!(Sage50, Expenses, "Sage 50 audit trail transactions",
        sig: SAGE50_AUDIT_SIG, cols: SAGE50_AUDIT_EXPENSES,
        shape: Some(sage50_audit_shape), kind: Some(sage50_kind)),
    layout!(Freeagent, Contacts, "FreeAgent contacts file",
        sig: &[&["E-mail 2 Address", "Business Street 3"]],
        cols: FREEAGENT_CONTACTS),
    layout!(Kashflow, Contacts, "KashFlow customers file",
        sig: &[&["Customer Code", "Trade Border Type"], &["Customer Code", "Address 1", "Postcode"]],
        cols: KASHFLOW_CUSTOMERS, contact_type: Some(ContactType::Customer)),
    layout!(Kashflow, Contacts, "KashFlow suppliers file",
        sig: &[&["Supplier Code", "Trade Border Type"], &["Supplier Code", "Address 1", "Postcode"]],
        cols: KASHFLOW_SUPPLIERS, contact_type: Some(ContactType::Supplier)),
    layout!(Kashflow, Invoices, "KashFlow invoices file",
        sig: &[&["Customer Code", "Invoice Number", "Invoice Date"]],
        cols: KASHFLOW_INVOICES, contact_codes: true, status: Some(DocStatus::Sent)),
    layout!(Kashflow, Bills, "KashFlow purchase receipts file",
        sig: &[&["Supplier Code", "Receipt Number", "Receipt Date"]],
        cols: KASHFLOW_RECEIPTS, contact_codes: true,
        status: Some(DocStatus::AwaitingPayment)),
    layout!(Kashflow, Payments, "KashFlow invoice payments file",
        sig: &[&["Invoice Number", "Paid Date", "Paid Amount"]],
        cols: KASHFLOW_INVOICE_PAYMENTS),
    layout!(ZohoBooks, Contacts, "Zoho Books contacts export",
        sig: &[&["Display Name", "Contact Type", "Customer Sub Type"]],
        cols: ZOHO_CONTACTS),
    layout!(ZohoBooks, Invoices, "Zoho Books invoices export",
        sig: &[&["Invoice ID", "Invoice Status", "Item Total"]],
        cols: ZOHO_INVOICES),
    layout!(ZohoBooks, CreditNotes, "Zoho Books credit notes export",
        sig: &[&["CreditNotes ID", "Credit Note Number", "Credit Note Date"]],
        cols: ZOHO_CREDIT_NOTES),
    layout!(ZohoBooks, Payments, "Zoho Books customer payments export",
        sig: &[&["CustomerPayment ID", "Invoice Number", "Amount Applied to Invoice"]],
        cols: ZOHO_CUSTOMER_PAYMENTS),
    // Zoho Books items, bills, expenses, projects, timesheets, recurring invoices.
    layout!(ZohoBooks, Products, "Zoho Books items export",
        sig: &[&["Item ID", "Item Name", "Purchase Rate"]],
        cols: ZOHO_ITEMS),
    layout!(ZohoBooks, Bills, "Zoho Books bills export",
        sig: &[&["Bill ID", "Bill Number", "Vendor Name"]],
        cols: ZOHO_BILLS),
    layout!(ZohoBooks, Expenses, "Zoho Books expenses export",
        sig: &[&["Expense Date", "Expense Account", "Paid Through"]],
        cols: ZOHO_EXPENSES),
    layout!(ZohoBooks, Projects, "Zoho Books projects export",
        sig: &[&["Project ID", "Billing Type", "Project Status"]],
        cols: ZOHO_PROJECTS),
    layout!(ZohoBooks, TimeEntries, "Zoho Books timesheet export",
        sig: &[&["Timesheet ID", "Time Spent"]],
        cols: ZOHO_TIMESHEET),
    layout!(ZohoBooks, Subscriptions, "Zoho Books recurring invoices export",
        sig: &[&["Recurring Invoice ID", "Recurrence Frequency"]],
        cols: ZOHO_RECURRING_INVOICES),
    layout!(Freshbooks, Contacts, "FreshBooks clients export",
        sig: &[&["Organization", "Province/State"]],
        cols: FRESHBOOKS_CLIENTS),
    layout!(Freshbooks, Invoices, "FreshBooks invoices export",
        sig: &[&["Invoice #", "Date Issued", "Line Subtotal"]],
        cols: FRESHBOOKS_INVOICES),
    // QuickBooks Online bills, Sage Accounting purchase invoices.
    layout!(Quickbooks, Bills, "QuickBooks bill import layout",
        sig: &[&["Bill no.", "Supplier", "Bill Date", "Line Amount"]],
        cols: QBO_BILLS),
    layout!(SageAccounting, Bills, "Sage Accounting purchases quick entry file",
        sig: &[&["Supplier Reference", "Supplier Name", "Analysis Type 1"]],
        cols: SAGE_ACCOUNTING_PURCHASES, kind: Some(sage_accounting_purchase_kind)),
    layout!(SageAccounting, SupplierCredits, "Sage Accounting purchases quick entry file",
        sig: &[&["Supplier Reference", "Supplier Name", "Analysis Type 1"]],
        cols: SAGE_ACCOUNTING_PURCHASES, kind: Some(sage_accounting_purchase_kind)),
    // FreeAgent expenses and projects.
    layout!(Freeagent, Expenses, "FreeAgent expenses import template",
        sig: &[&["claimant_name", "gross_value"]],
        cols: FREEAGENT_EXPENSES, kind: Some(freeagent_expense_kind)),
    layout!(Freeagent, Projects, "FreeAgent projects import template",
        sig: &[&["project_name", "contract_po_reference"]],
        cols: FREEAGENT_PROJECTS),
    // FreshBooks expenses and time entries.
    layout!(Freshbooks, Expenses, "FreshBooks expense details report",
        sig: &[&["Account Sub Type", "Parent Category", "Merchant"]],
        cols: FRESHBOOKS_EXPENSES),
    layout!(Freshbooks, TimeEntries, "FreshBooks time entry details report",
        sig: &[&["Team Member", "Hours", "Seconds"]],
        cols: FRESHBOOKS_TIME_ENTRIES),
    layout!(Freshbooks, Contacts, "FreshBooks vendors export",
        sig: &[&["Organization", "Account Number", "Province/State"]],
        cols: FRESHBOOKS_VENDORS, contact_type: Some(ContactType::Supplier)),
    layout!(Freshbooks, Products, "FreshBooks items and services export",
        sig: &[&["Name", "Rate", "Income Account", "Status"]],
        cols: FRESHBOOKS_SERVICES),
];

/// The data types a platform's CSV exports can supply. QuickBooks customer lists have no
/// established layout and go through the name-based mapping.
pub fn csv_data_types(platform: Platform) -> Vec<EntityType> {
    if platform == Platform::Generic {
        return EntityType::ALL.to_vec();
    }
    let mut types: Vec<EntityType> = LAYOUTS
        .iter()
        .filter(|l| l.platform == platform)
        .map(|l| l.entity)
        .collect();
    if platform == Platform::Quickbooks {
        types.push(EntityType::Contacts);
    }
    types.sort();
    types.dedup();
    types
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layout_column_targets_a_field_of_its_type() {
        for l in LAYOUTS {
            for (name, t) in l.columns {
                if let T(f) = t {
                    assert!(l.entity.has_field(*f), "{}: {name} → {f}", l.name);
                }
            }
            for sig in l.signatures {
                for c in *sig {
                    assert!(
                        l.target(&normalise(c)).is_some(),
                        "{}: signature {c}",
                        l.name
                    );
                }
            }
        }
    }

    #[test]
    fn platforms_supply_the_types_the_research_found() {
        let names = |p| {
            csv_data_types(p)
                .iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(Platform::Xero),
            [
                "contacts",
                "products",
                "invoices",
                "bills",
                "credit_notes",
                "supplier_credits",
                "payments"
            ]
        );
        assert_eq!(
            names(Platform::Quickbooks),
            ["contacts", "products", "invoices", "bills", "credit_notes"]
        );
        assert_eq!(
            names(Platform::SageAccounting),
            [
                "contacts",
                "invoices",
                "bills",
                "credit_notes",
                "supplier_credits"
            ]
        );
        assert_eq!(
            names(Platform::Sage50),
            [
                "contacts",
                "products",
                "invoices",
                "bills",
                "expenses",
                "projects",
                "credit_notes",
                "supplier_credits"
            ]
        );
        assert_eq!(
            names(Platform::Freeagent),
            ["contacts", "expenses", "projects"]
        );
        assert_eq!(
            names(Platform::Kashflow),
            ["contacts", "invoices", "bills", "payments"]
        );
        assert_eq!(
            names(Platform::ZohoBooks),
            [
                "contacts",
                "products",
                "invoices",
                "bills",
                "expenses",
                "projects",
                "time_entries",
                "subscriptions",
                "credit_notes",
                "payments"
            ]
        );
        assert_eq!(
            names(Platform::Freshbooks),
            [
                "contacts",
                "products",
                "invoices",
                "expenses",
                "time_entries"
            ]
        );
    }

    #[test]
    fn headerless_sage50_rows_are_told_apart_by_shape() {
        let rec = |s: &str| StringRecord::from(s.split(',').collect::<Vec<_>>());
        let audit = rec("SI,ACME01,4000,0,05/01/2024,1001,Consultancy,500.00,T1,100.00,1,,MANAGER");
        assert!(sage50_audit_shape(&audit));
        assert!(!sage50_product_shape(&audit));
        let product =
            rec("MUG-12OZ,Enamel mug 12oz,T1,8.50,3.20,Each,,4000,1,5012345678900,0,,,10");
        assert!(sage50_product_shape(&product));
        assert!(!sage50_audit_shape(&product));
        let mut cust = vec![
            "ACME01",
            "Acme Ltd",
            "1 High St",
            "",
            "",
            "",
            "",
            "Jo",
            "0113",
            "",
        ];
        cust.extend([
            "", "", "", "0", "GB123", "0.00", "0.00", "0.00", "5000.00", "30 days",
        ]);
        assert!(sage50_contact_shape(&StringRecord::from(cust.clone())));
        assert!(!sage50_contact_shape(&product));
        assert!(!sage50_project_shape(&StringRecord::from(cust)));
        assert!(!sage50_project_shape(&audit) && !sage50_project_shape(&product));
        let project =
            rec("HARTLEY01,Kitchen fit-out,1,04/03/2024,,Kitchen,HART01,,,,,,,,,,,,12500.00");
        assert!(sage50_project_shape(&project));
        assert!(!sage50_audit_shape(&project) && !sage50_product_shape(&project));
    }
}
