//! The `generic` path: a mapping suggested from header names alone, for files no layout
//! recognises (and for QuickBooks customer lists, whose export has no fixed layout).
//!
//! Each field has synonyms, compared with header keys (see [`normalise`]). A first pass
//! takes exact matches; a second lets a longer header contain a distinctive synonym
//! (`Customer E-mail Address` → `email`). A column serves one field; a field takes one
//! column, except `address`, which joins every address-like column in file order.

use crate::import::fields::{EntityType, Field};

use super::layouts::Aux;

use super::header::normalise;

fn synonyms(entity: EntityType, field: Field) -> &'static [&'static str] {
    use EntityType as E;
    use Field as F;
    match (entity, field) {
        (E::Contacts, F::Name) => &[
            "name",
            "contact name",
            "display name",
            "full name",
            "customer name",
            "supplier name",
            "vendor name",
            "company name",
            "company",
            "organisation",
            "organization",
            "business name",
            "client name",
            "client",
            "customer",
            "account name",
        ],
        (E::Contacts, F::Type) => &["type", "contact type", "relationship"],
        (E::Contacts, F::Email) => &[
            "email",
            "email address",
            "emailid",
            "e-mail",
            "primary email",
            "contact email",
        ],
        (E::Contacts, F::Phone) => &[
            "phone",
            "telephone",
            "phone number",
            "tel",
            "business phone",
            "work phone",
            "mobile",
            "mobile phone",
            "mobile number",
        ],
        (E::Contacts, F::Address) => &[
            "address",
            "street",
            "street 2",
            "street address",
            "address line 1",
            "address line 2",
            "address line 3",
            "address line 4",
            "address 1",
            "address 2",
            "address 3",
            "address 4",
            "billing address",
            "billing street",
            "billing street2",
            "billing city",
            "billing state",
            "billing county",
            "billing postcode",
            "billing code",
            "billing country",
            "city",
            "town",
            "city/town",
            "county",
            "county/region",
            "region",
            "state",
            "province",
            "province/state",
            "state/province/region",
            "postcode",
            "post code",
            "postal code",
            "zip",
            "zip code",
            "postal code/zip code",
            "country",
        ],
        (E::Contacts, F::VatNumber) => &[
            "vat number",
            "vat registration number",
            "vat reg no",
            "vat no",
            "vat reg",
            "tax number",
            "tax id",
            "tax registration number",
            "vat registration",
            "sales tax registration number",
        ],
        (E::Contacts, F::ProviderRef) => &[
            "id",
            "reference",
            "ref",
            "account number",
            "account reference",
            "customer id",
            "contact id",
            "customer code",
            "supplier code",
            "account code",
            "a/c",
            "external id",
            "provider ref",
        ],
        (E::Products, F::Name) => &[
            "name",
            "product name",
            "item name",
            "product/service name",
            "product",
            "item",
            "title",
            "service name",
            "product/service",
        ],
        (E::Products, F::Sku) => &[
            "sku",
            "code",
            "item code",
            "product code",
            "stock code",
            "part number",
        ],
        (E::Products, F::Description) => &[
            "description",
            "sales description",
            "item description",
            "details",
            "long description",
        ],
        (E::Products, F::Category) => &[
            "category",
            "product category",
            "group",
            "product group",
            "stock category",
        ],
        (E::Products, F::UnitPrice) => &[
            "price",
            "unit price",
            "sales price",
            "sale price",
            "sales price/rate",
            "rate",
            "selling price",
            "sales unit price",
            "retail price",
            "list price",
        ],
        (E::Products, F::CostPrice) => &[
            "cost",
            "cost price",
            "purchase price",
            "purchase cost",
            "purchases unit price",
            "buy price",
            "last cost price",
            "unit cost",
        ],
        (E::Products, F::VatRate) => &[
            "vat",
            "vat rate",
            "tax rate",
            "vat %",
            "tax",
            "tax code",
            "vat code",
            "sales tax rate",
            "tax %",
            "sales vat rate",
        ],
        (E::Products, F::Unit) => &[
            "unit",
            "uom",
            "unit of measure",
            "unit of sale",
            "usage unit",
        ],
        (E::Products, F::Barcode) => &["barcode", "bar code", "ean", "upc", "gtin"],
        (E::Products, F::Status) => &["status", "active", "item status", "product status"],
        (E::Products, F::Notes) => &["notes", "note"],
        (E::Products, F::ProviderRef) => {
            &["id", "product id", "item id", "external id", "provider ref"]
        }
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::Number) => &[
            "number",
            "invoice number",
            "invoice no",
            "invoice #",
            "invoice",
            "bill number",
            "bill no",
            "bill #",
            "document number",
            "doc number",
            "reference",
            "ref",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::ContactName) => &[
            "contact name",
            "customer",
            "customer name",
            "client",
            "client name",
            "supplier",
            "supplier name",
            "vendor",
            "vendor name",
            "contact",
            "name",
            "company",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::IssueDate) => &[
            "date",
            "invoice date",
            "issue date",
            "bill date",
            "date issued",
            "transaction date",
            "txn date",
            "document date",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::DueDate) => {
            &["due date", "payment due", "due", "date due"]
        }
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::Status) => {
            &["status", "invoice status", "bill status", "state"]
        }
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::LineDescription) => &[
            "description",
            "line description",
            "item description",
            "details",
            "item",
            "item name",
            "product",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::LineQuantity) => {
            &["quantity", "qty", "line quantity", "item quantity", "units"]
        }
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::LineUnitPrice) => &[
            "unit price",
            "price",
            "rate",
            "unit amount",
            "item rate",
            "line unit price",
            "item price",
            "unit cost",
            "line rate",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::LineDiscount) => &[
            "discount",
            "discount %",
            "discount percent",
            "discount percentage",
            "line discount",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::LineVatRate) => &[
            "vat rate",
            "tax rate",
            "vat",
            "vat %",
            "tax code",
            "vat code",
            "tax type",
            "line vat rate",
            "item tax %",
            "tax %",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::LineSku) => &[
            "sku",
            "item code",
            "product code",
            "code",
            "inventory item code",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::Total) => &[
            "total",
            "invoice total",
            "bill total",
            "grand total",
            "total amount",
        ],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::AmountPaid) => {
            &["amount paid", "paid", "paid amount", "invoice amount paid"]
        }
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::ProviderRef) => {
            &["id", "invoice id", "bill id", "external id", "provider ref"]
        }
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::LineVatTreatment) => &[
            "vat treatment",
            "tax treatment",
            "line vat treatment",
            "treatment",
        ],
        (
            E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits | E::Expenses,
            F::Currency,
        ) => &["currency", "currency code", "currency name"],
        (
            E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits | E::Expenses,
            F::ExchangeRate,
        ) => &["exchange rate", "currency rate", "fx rate", "rate to gbp"],
        (E::Invoices | E::Bills | E::CreditNotes | E::SupplierCredits, F::PaidDate) => {
            &["paid date", "date paid", "payment date", "paid on"]
        }
        (E::CreditNotes | E::SupplierCredits, F::OriginalNumber) => &[
            "original number",
            "original invoice",
            "original invoice number",
            "original bill",
            "original bill number",
            "credited invoice",
            "credited bill",
        ],
        (E::CreditNotes | E::SupplierCredits, F::OriginalRef) => &[
            "original ref",
            "original id",
            "original invoice id",
            "original bill id",
        ],
        (E::Expenses, F::VatTreatment) => &["vat treatment", "tax treatment", "treatment"],
        (E::Payments, F::DocumentNumber) => &[
            "document number",
            "invoice number",
            "bill number",
            "credit note number",
            "number",
        ],
        (E::Payments, F::DocumentRef) => &["document ref", "document id", "invoice id", "bill id"],
        (E::Payments, F::DocumentType) => &["document type", "type"],
        (E::Payments, F::Date) => &["date", "payment date", "paid on", "date paid"],
        (E::Payments, F::Amount) => &["amount", "payment amount", "amount paid", "paid"],
        (E::Payments, F::Method) => &["method", "payment method", "paid by"],
        (E::Payments, F::Reference) => &["reference", "payment reference"],
        (E::Payments, F::ProviderRef) => &["id", "payment id", "provider ref"],
        (E::Expenses, F::Date) => &[
            "date",
            "expense date",
            "transaction date",
            "date incurred",
            "dated on",
        ],
        (E::Expenses, F::Description) => &[
            "description",
            "details",
            "memo",
            "narrative",
            "notes",
            "payee",
            "merchant",
        ],
        (E::Expenses, F::Amount) => &[
            "amount",
            "total",
            "gross",
            "gross amount",
            "gross value",
            "value",
            "amount inc vat",
            "total amount",
        ],
        (E::Expenses, F::VatAmount) => {
            &["vat", "vat amount", "tax", "tax amount", "sales tax value"]
        }
        (E::Expenses, F::Category) => &[
            "category",
            "expense category",
            "account",
            "nominal",
            "nominal code",
        ],
        (E::Expenses, F::ProjectName) => &["project", "project name"],
        (E::Expenses, F::ProviderRef) => &[
            "id",
            "reference",
            "receipt reference",
            "external id",
            "provider ref",
        ],
        (E::Projects, F::Name) => &["name", "project", "project name", "title"],
        (E::Projects, F::ContactName) => &[
            "client",
            "customer",
            "contact",
            "contact name",
            "client name",
            "customer name",
        ],
        (E::Projects, F::Status) => &["status"],
        (E::Projects, F::HourlyRate) => {
            &["hourly rate", "rate", "billing rate", "normal billing rate"]
        }
        (E::Projects, F::Budget) => &["budget"],
        (E::TimeEntries, F::ProjectName) => &["project", "project name"],
        (E::TimeEntries, F::Date) => &["date", "dated on", "day", "work date"],
        (E::TimeEntries, F::Hours) => &["hours", "duration", "time", "hours worked", "quantity"],
        (E::TimeEntries, F::Description) => &["description", "notes", "comment", "task", "details"],
        (E::TimeEntries, F::Billable) => &["billable", "is billable", "chargeable"],
        (E::TimeEntries, F::HourlyRate) => &["hourly rate", "rate", "billing rate"],
        (E::Subscriptions, F::ContactName) => &[
            "customer",
            "customer name",
            "contact",
            "contact name",
            "client",
            "name",
        ],
        (E::Subscriptions, F::Interval) => &[
            "interval",
            "frequency",
            "billing period",
            "period",
            "recurrence",
            "billing frequency",
            "interval unit",
        ],
        (E::Subscriptions, F::IntervalCount) => {
            &["interval count", "count", "every", "billing interval"]
        }
        (E::Subscriptions, F::NextDate) => &[
            "next date",
            "next billing date",
            "next invoice date",
            "next payment date",
            "next recurs on",
            "next run",
        ],
        (E::Subscriptions, F::Status) => &["status"],
        (E::Subscriptions, F::LineDescription) => {
            &["description", "plan", "plan name", "item", "product"]
        }
        (E::Subscriptions, F::LineQuantity) => &["quantity", "qty"],
        (E::Subscriptions, F::LineUnitPrice) => {
            &["price", "amount", "unit price", "rate", "plan amount"]
        }
        (E::Subscriptions, F::ProviderRef) => {
            &["id", "subscription id", "reference", "provider ref"]
        }
        _ => &[],
    }
}

/// Header keys never taken by the second (containment) pass for an address: shipping
/// and delivery addresses are not the contact's address.
fn is_secondary_address(key: &str) -> bool {
    [
        "ship",
        "delivery",
        "secondary",
        "address2type",
        "mainaddresstype",
    ]
    .iter()
    .any(|p| key.starts_with(p))
}

/// Suggests a field for each header key (same order) for the given type.
pub fn suggest(keys: &[String], entity: EntityType) -> Vec<Option<Field>> {
    let mut out: Vec<Option<Field>> = vec![None; keys.len()];
    let fields: Vec<Field> = entity.fields().iter().map(|f| f.field).collect();
    let taken = |out: &Vec<Option<Field>>, f: Field| f != Field::Address && out.contains(&Some(f));
    // Pass 1: exact synonyms, in the synonym list's order of preference.
    for &field in &fields {
        let syns: Vec<String> = synonyms(entity, field)
            .iter()
            .map(|s| normalise(s))
            .collect();
        if field == Field::Address {
            for (i, k) in keys.iter().enumerate() {
                if out[i].is_none() && syns.contains(k) {
                    out[i] = Some(field);
                }
            }
            continue;
        }
        for syn in &syns {
            if taken(&out, field) {
                break;
            }
            if let Some(i) = keys
                .iter()
                .enumerate()
                .position(|(i, k)| out[i].is_none() && k == syn)
            {
                out[i] = Some(field);
            }
        }
    }
    // Pass 2: a header containing a distinctive synonym (5 characters or more); the
    // longest synonym found wins, so `Customer E-mail Address` is an email, not a name.
    let mut candidates: Vec<(usize, usize, Field)> = Vec::new();
    for &field in &fields {
        if field == Field::Address {
            continue;
        }
        for syn in synonyms(entity, field)
            .iter()
            .map(|s| normalise(s))
            .filter(|s| s.len() >= 5)
        {
            for (i, k) in keys.iter().enumerate() {
                if k.contains(syn.as_str()) && !is_secondary_address(k) {
                    candidates.push((syn.len(), i, field));
                }
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i, field) in candidates {
        if out[i].is_none() && !taken(&out, field) {
            out[i] = Some(field);
        }
    }
    // Pass 3: the address parts no synonym named (`POAddressLine1`, `Billing Town`,
    // `Address Line1 (Invoice)`) join the address, when nothing else took them
    // (docs/import.md#the-wizard).
    if fields.contains(&Field::Address) {
        for (i, k) in keys.iter().enumerate() {
            if out[i].is_none() && is_address_part(k) && !is_second_copy(k, keys) {
                out[i] = Some(Field::Address);
            }
        }
    }
    out
}

/// A header key that names a part of an address (a line, the street, town, region,
/// postcode or country), not a shipping one, an email or a web address.
fn is_address_part(key: &str) -> bool {
    const PARTS: &[&str] = &[
        "addressline",
        "address1",
        "address2",
        "address3",
        "address4",
        "street",
        "city",
        "town",
        "postcode",
        "postalcode",
        "zip",
        "county",
        "region",
        "province",
        "country",
    ];
    const NOT: &[&str] = &["email", "web", "url", "type", "ship", "delivery", "phone"];
    PARTS.iter().any(|p| key.contains(p))
        && !NOT.iter().any(|n| key.contains(n))
        && !is_secondary_address(key)
}

/// Xero's street address (`SA…`) beside its postal address (`PO…`): one address, the
/// postal one, so the two are not run together.
fn is_second_copy(key: &str, keys: &[String]) -> bool {
    key.strip_prefix("sa")
        .is_some_and(|rest| keys.iter().any(|k| k.strip_prefix("po") == Some(rest)))
}

/// Helper uses of columns the suggestion left unmapped: first and last names give a
/// contact's name when the name is empty, a mobile gives the phone; an item name gives
/// a line's description.
pub fn helpers(keys: &[String], fields: &[Option<Field>], entity: EntityType) -> Vec<Option<Aux>> {
    keys.iter()
        .zip(fields)
        .map(|(k, f)| {
            if f.is_some() {
                return None;
            }
            match (entity, k.as_str()) {
                (EntityType::Contacts, "firstname" | "forename" | "givenname") => {
                    Some(Aux::FirstName)
                }
                (EntityType::Contacts, "lastname" | "surname" | "familyname") => {
                    Some(Aux::LastName)
                }
                (EntityType::Contacts, "mobile" | "mobilephone" | "mobilenumber") => {
                    Some(Aux::PhoneFallback)
                }
                (
                    EntityType::Invoices
                    | EntityType::Bills
                    | EntityType::CreditNotes
                    | EntityType::SupplierCredits,
                    "itemname" | "item" | "product",
                ) => Some(Aux::DescriptionFallback),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(headers: &[&str]) -> Vec<String> {
        headers.iter().map(|h| normalise(h)).collect()
    }

    fn names(s: &[Option<Field>]) -> Vec<&str> {
        s.iter().map(|f| f.map_or("-", |f| f.as_str())).collect()
    }

    #[test]
    fn contacts_are_suggested_from_common_names() {
        let k = keys(&[
            "Customer Name",
            "Customer E-mail Address",
            "Tel",
            "Street",
            "Town",
            "Postcode",
            "Ship-to City",
            "VAT Reg No",
            "Notes",
        ]);
        assert_eq!(
            names(&suggest(&k, EntityType::Contacts)),
            [
                "name",
                "email",
                "phone",
                "address",
                "address",
                "address",
                "-",
                "vat_number",
                "-"
            ]
        );
    }

    #[test]
    fn address_parts_no_synonym_names_join_the_address_but_not_a_second_copy() {
        let k = keys(&[
            "*ContactName",
            "EmailAddress",
            "POAddressLine1",
            "POAddressLine2",
            "POCity",
            "PORegion",
            "POPostalCode",
            "POCountry",
            "SAAddressLine1",
            "SACity",
            "Billing Town",
            "Delivery Postcode",
            "Web Address",
        ]);
        assert_eq!(
            names(&suggest(&k, EntityType::Contacts)),
            [
                "name", "email", "address", "address", "address", "address", "address", "address",
                "-", "-", "address", "-", "-"
            ]
        );
        // Only contacts have an address.
        let k = keys(&["Name", "City"]);
        assert_eq!(names(&suggest(&k, EntityType::Products)), ["name", "-"]);
    }

    #[test]
    fn each_field_takes_one_column_and_the_preferred_one() {
        let k = keys(&["Phone", "Mobile", "Name", "Company"]);
        assert_eq!(
            names(&suggest(&k, EntityType::Contacts)),
            ["phone", "-", "name", "-"]
        );
    }

    #[test]
    fn invoice_lines_are_suggested_from_common_names() {
        let k = keys(&[
            "Invoice No",
            "Client",
            "Date",
            "Item",
            "Qty",
            "Unit Price",
            "VAT %",
            "Total",
        ]);
        assert_eq!(
            names(&suggest(&k, EntityType::Invoices)),
            [
                "number",
                "contact_name",
                "issue_date",
                "line_description",
                "line_quantity",
                "line_unit_price",
                "line_vat_rate",
                "total"
            ]
        );
    }
}
