//! The pure CSV half of import: every fixture of `tests/fixtures/import/` is detected as
//! its platform and data type, mapped, parsed to exact values and grouped; and the
//! file-level rules (dates decided once per file, row errors, header tolerance, generic
//! fallback, remapping) hold.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rust_decimal::Decimal;
use stockbook::import::csv::{DateOrder, Document, MappedRow, ParsedFile};
use stockbook::import::records::{
    ContactType, DocStatus, Interval, LineRow, ProjectStatus, TemplateStatus,
};
use stockbook::import::{parse, EntityType, Field, ImportError, Platform};
use time::macros::date;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(fixtures().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Parses a fixture with no hints at all: detection alone.
fn fixture(path: &str) -> ParsedFile {
    parse(&read(path), None, None, None).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn dec(s: &str) -> Decimal {
    Decimal::from_str_exact(s).unwrap()
}

fn field(f: &ParsedFile, header: &str) -> Option<&'static str> {
    f.mapping.field_of(header).map(Field::as_str)
}

fn line(f: &ParsedFile, i: usize) -> &LineRow {
    f.rows[i].data.as_line().expect("an invoice or bill line")
}

fn doc<'a>(f: &'a ParsedFile, number: &str) -> &'a Document {
    f.documents
        .iter()
        .find(|d| d.number.as_deref() == Some(number))
        .unwrap_or_else(|| panic!("no document {number}"))
}

fn doc_lines<'a>(f: &'a ParsedFile, number: &str) -> Vec<&'a LineRow> {
    f.lines(doc(f, number))
        .map(|r| r.data.as_line().unwrap())
        .collect()
}

fn assert_clean(f: &ParsedFile) {
    assert!(f.errors.is_empty(), "errors: {:?}", f.errors);
    assert!(
        f.missing_required.is_empty(),
        "missing: {:?}",
        f.missing_required
    );
}

// ---------------------------------------------------------------------------------------
// Every fixture

fn all_fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            all_fixtures(&p, out);
        } else if p.extension().is_some_and(|x| x == "csv") {
            out.push(p);
        }
    }
}

#[test]
fn every_fixture_is_detected_as_the_platform_and_type_its_path_names() {
    let mut paths = Vec::new();
    all_fixtures(&fixtures(), &mut paths);
    assert!(paths.len() >= 23, "fixtures: {}", paths.len());
    for p in paths {
        let platform: Platform = p
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let stem = p.file_stem().unwrap().to_str().unwrap();
        // `time_entries.csv`, or a variant such as `contacts_suppliers.csv`.
        let entity: EntityType = stem
            .parse()
            .or_else(|_| stem.split('_').next().unwrap().parse())
            .unwrap();
        let f = parse(&std::fs::read_to_string(&p).unwrap(), None, None, None).unwrap();
        let name = p.display();
        assert_eq!(f.entity_type, entity, "{name}");
        if platform == Platform::Quickbooks && entity == EntityType::Contacts {
            // No established export layout: the name-based mapping, by design.
            assert_eq!(
                (f.platform, f.detected),
                (Platform::Generic, false),
                "{name}"
            );
        } else {
            assert_eq!((f.platform, f.detected), (platform, true), "{name}");
        }
        assert_clean(&f);
        assert!(!f.rows.is_empty(), "{name}");
        // With the platform and type given, the same file reads the same way.
        let hinted = parse(
            &std::fs::read_to_string(&p).unwrap(),
            Some(entity),
            Some(platform.as_str()),
            None,
        )
        .unwrap();
        assert_eq!(hinted.rows, f.rows, "{name}");
    }
}

// ---------------------------------------------------------------------------------------
// Xero

#[test]
fn xero_contacts_map_names_addresses_vat_numbers_and_account_numbers() {
    let f = fixture("xero/contacts.csv");
    assert_eq!(f.layout, Some("Xero contacts export"));
    assert_eq!(f.headers[0], "*ContactName", "the byte-order mark is gone");
    assert_eq!(field(&f, "*ContactName"), Some("name"));
    assert_eq!(field(&f, "AccountNumber"), Some("provider_ref"));
    assert_eq!(field(&f, "POAddressLine1"), Some("address"));
    assert_eq!(field(&f, "POPostalCode"), Some("address"));
    assert_eq!(field(&f, "SAAddressLine1"), None);
    assert_eq!(field(&f, "TaxNumber"), Some("vat_number"));
    assert_eq!(f.rows.len(), 4);
    let hartley = f.rows[0].data.as_contact().unwrap();
    assert_eq!(f.rows[0].row, 2);
    assert_eq!(hartley.name, "Hartley & Sons Joinery Ltd");
    assert_eq!(
        hartley.address.as_deref(),
        Some("Unit 4, Riverside Trading Estate, Hunslet, Leeds, West Yorkshire, LS11 5QB, United Kingdom")
    );
    assert_eq!(hartley.vat_number.as_deref(), Some("GB123456789"));
    assert_eq!(hartley.provider_ref.as_deref(), Some("HART01"));
    let cafe = f.rows[1].data.as_contact().unwrap();
    assert_eq!(cafe.name, "Bramble Café");
    assert_eq!(
        cafe.phone.as_deref(),
        Some("07700 900123"),
        "the mobile stands in for a missing phone"
    );
    assert_eq!(cafe.provider_ref, None);
}

#[test]
fn xero_sales_export_groups_lines_into_invoices_and_leaves_out_credit_notes() {
    let f = fixture("xero/invoices.csv");
    assert_eq!(f.layout, Some("Xero sales invoices export"));
    assert_eq!(f.date_order, DateOrder::DayMonth);
    assert_eq!(field(&f, "InvoiceNumber"), Some("number"));
    assert_eq!(field(&f, "ContactName"), Some("contact_name"));
    assert_eq!(field(&f, "UnitAmount"), Some("line_unit_price"));
    assert_eq!(field(&f, "TaxType"), Some("line_vat_rate"));
    assert_eq!(field(&f, "InvoiceAmountPaid"), Some("amount_paid"));
    assert_eq!((f.total_rows, f.rows.len(), f.left_out), (7, 6, 1));
    assert!(f.notes.iter().any(|n| n.contains("Sales credit note")));

    assert_eq!(f.documents.len(), 3);
    let inv = doc(&f, "INV-0041");
    assert_eq!(inv.contact_name, "Hartley & Sons Joinery Ltd");
    assert_eq!(inv.issue_date, date!(2024 - 03 - 05));
    assert_eq!(inv.due_date, Some(date!(2024 - 04 - 04)));
    assert_eq!(inv.status, Some(DocStatus::Sent));
    assert_eq!(inv.total.unwrap().value(), dec("1234.50"));
    assert_eq!(inv.amount_paid.unwrap().value(), Decimal::ZERO);
    let lines = doc_lines(&f, "INV-0041");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].line_description, "Oak worktop, 3m");
    assert_eq!(lines[0].line_quantity.unwrap().value(), dec("2"));
    assert_eq!(lines[0].line_unit_price.value(), dec("412.50"));
    assert_eq!(lines[0].line_vat_rate.unwrap().value(), dec("20"));
    assert_eq!(lines[0].line_sku.as_deref(), Some("OAK-WT-3M"));
    assert_eq!(lines[1].line_unit_price.value(), dec("203.75"));

    let paid = doc(&f, "INV-0042");
    assert_eq!(paid.status, Some(DocStatus::Paid));
    assert_eq!(paid.amount_paid.unwrap().value(), dec("408"));
    let draft = doc_lines(&f, "INV-0043");
    assert_eq!(draft.len(), 3);
    assert_eq!(doc(&f, "INV-0043").status, Some(DocStatus::Draft));
    assert_eq!(
        draft[1].line_vat_rate.unwrap().value(),
        Decimal::ZERO,
        "Zero Rated Income"
    );
    assert_eq!(draft[2].line_description, "Photo book, A4 (printed matter)");
}

#[test]
fn xero_bills_are_told_from_invoices_by_type_and_grouped_by_supplier_and_number() {
    let f = fixture("xero/bills.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::Xero, EntityType::Bills)
    );
    assert_eq!(f.documents.len(), 3, "two suppliers' bill 1001 stay apart");
    let print = doc_lines(&f, "7781");
    assert_eq!(print.len(), 2);
    assert_eq!(doc(&f, "7781").status, Some(DocStatus::AwaitingPayment));
    assert_eq!(print[1].line_unit_price.value(), dec("90"));
    let water = f
        .documents
        .iter()
        .find(|d| d.contact_name == "Yorkshire Water")
        .unwrap();
    assert_eq!(water.number.as_deref(), Some("1001"));
    assert_eq!(
        f.lines(water)
            .next()
            .unwrap()
            .data
            .as_line()
            .unwrap()
            .line_vat_rate
            .unwrap()
            .value(),
        Decimal::ZERO,
        "No VAT"
    );
    assert_eq!(water.status, Some(DocStatus::Paid));

    // The same file asked for as invoices has no invoice rows.
    let as_invoices = parse(
        &read("xero/bills.csv"),
        Some(EntityType::Invoices),
        None,
        None,
    )
    .unwrap();
    assert_eq!((as_invoices.rows.len(), as_invoices.left_out), (0, 4));
}

#[test]
fn xero_items_give_prices_and_vat_rates() {
    let f = fixture("xero/products.csv");
    assert_eq!(field(&f, "*ItemCode"), Some("sku"));
    assert_eq!(field(&f, "SalesUnitPrice"), Some("unit_price"));
    assert_eq!(field(&f, "PurchasesUnitPrice"), Some("cost_price"));
    assert_eq!(field(&f, "SalesTaxRate"), Some("vat_rate"));
    let oak = f.rows[0].data.as_product().unwrap();
    assert_eq!(
        (oak.name.as_str(), oak.sku.as_deref()),
        ("Oak worktop 3m", Some("OAK-WT-3M"))
    );
    assert_eq!(oak.unit_price.unwrap().value(), dec("412.50"));
    assert_eq!(oak.cost_price.unwrap().value(), dec("280"));
    assert_eq!(oak.vat_rate.unwrap().value(), dec("20"));
    let book = f.rows[2].data.as_product().unwrap();
    assert_eq!(book.vat_rate.unwrap().value(), Decimal::ZERO);
}

// ---------------------------------------------------------------------------------------
// QuickBooks Online

#[test]
fn quickbooks_products_take_pound_signs_and_thousands_separators() {
    let f = fixture("quickbooks/products.csv");
    assert_eq!(field(&f, "Product/Service Name"), Some("name"));
    assert_eq!(field(&f, "Sales Price / Rate"), Some("unit_price"));
    assert_eq!(field(&f, "Purchase Cost"), Some("cost_price"));
    assert_eq!(
        f.total_rows, 3,
        "the trailing empty spreadsheet row is not a row"
    );
    let survey = f.rows[1].data.as_product().unwrap();
    assert_eq!(survey.name, "Site survey");
    assert_eq!(survey.unit_price.unwrap().value(), dec("1250.00"));
    assert_eq!(survey.sku, None);
}

#[test]
fn quickbooks_invoice_lines_without_a_rate_take_it_from_the_amount() {
    let f = fixture("quickbooks/invoices.csv");
    assert_eq!(field(&f, "*InvoiceNo"), Some("number"));
    assert_eq!(field(&f, "*Customer"), Some("contact_name"));
    assert_eq!(field(&f, "ItemRate"), Some("line_unit_price"));
    assert_eq!(field(&f, "*ItemTaxCode"), Some("line_vat_rate"));
    let lines = doc_lines(&f, "1043");
    assert_eq!(lines.len(), 2);
    assert_eq!(doc(&f, "1043").issue_date, date!(2024 - 03 - 06));
    assert_eq!(
        lines[1].line_description, "Site survey",
        "the item name stands in for a missing description"
    );
    assert_eq!(lines[1].line_unit_price.value(), dec("1250"));
    assert_eq!(lines[1].line_vat_rate.unwrap().value(), dec("20"));
    assert_eq!(lines[1].source_vat.unwrap().value(), dec("250"));
    let menus = doc_lines(&f, "1044");
    assert_eq!(menus[0].line_quantity.unwrap().value(), dec("40"));
    assert_eq!(menus[0].line_unit_price.value(), dec("1.85"));
    assert_eq!(
        menus[0].line_vat_rate.unwrap().value(),
        Decimal::ZERO,
        "0.0% Z"
    );
}

#[test]
fn quickbooks_customer_lists_go_through_the_name_based_mapping() {
    let text = read("quickbooks/contacts.csv");
    let f = parse(&text, Some(EntityType::Contacts), Some("quickbooks"), None).unwrap();
    assert_eq!(
        (f.platform, f.detected, f.layout),
        (Platform::Quickbooks, false, None)
    );
    assert_eq!(field(&f, "Full Name"), Some("name"));
    assert_eq!(field(&f, "Company"), None);
    assert_eq!(field(&f, "Email"), Some("email"));
    assert_eq!(field(&f, "Street"), Some("address"));
    assert_eq!(field(&f, "County/Region"), Some("address"));
    assert_eq!(field(&f, "Opening Balance"), None);
    assert_clean(&f);
    let priya = f.rows[1].data.as_contact().unwrap();
    assert_eq!(priya.name, "Priya Shah");
    assert_eq!(
        priya.phone.as_deref(),
        Some("07700 900789"),
        "Mobile is the phone when there is no other"
    );
    assert_eq!(
        priya.address.as_deref(),
        Some("3 Mount Pleasant, Ilkley, West Yorkshire, LS29 8AA, United Kingdom")
    );
}

// ---------------------------------------------------------------------------------------
// Sage Accounting

#[test]
fn sage_accounting_contacts_use_the_reference_and_main_address() {
    let f = fixture("sage_accounting/contacts.csv");
    assert_eq!(field(&f, "Reference"), Some("provider_ref"));
    assert_eq!(field(&f, "Company Name"), Some("name"));
    assert_eq!(field(&f, "Main Address Post Code"), Some("address"));
    assert_eq!(
        field(&f, "Address 2 Line 1"),
        None,
        "the delivery address is not the contact's"
    );
    let c = f.rows[0].data.as_contact().unwrap();
    assert_eq!(c.provider_ref.as_deref(), Some("HART01"));
    assert_eq!(
        c.address.as_deref(),
        Some("Unit 4, Riverside Trading Estate, Hunslet, Leeds, West Yorkshire, LS11 5QB, GB")
    );
    assert_eq!(c.email.as_deref(), Some("accounts@hartleyjoinery.co.uk"));
}

#[test]
fn sage_accounting_outstanding_invoices_read_pounds_and_worded_vat_rates() {
    let f = fixture("sage_accounting/invoices.csv");
    assert_eq!(field(&f, "Net"), Some("line_unit_price"));
    assert_eq!(field(&f, "VAT Rate"), Some("line_vat_rate"));
    assert_eq!(f.left_out, 1, "the credit note");
    let one = doc_lines(&f, "SI-1001");
    assert_eq!(one[0].line_unit_price.value(), dec("1028.75"));
    assert_eq!(one[0].line_vat_rate.unwrap().value(), dec("20"));
    assert_eq!(doc(&f, "SI-1001").total.unwrap().value(), dec("1234.50"));
    assert_eq!(doc(&f, "SI-1001").issue_date, date!(2024 - 02 - 29));
    let two = doc_lines(&f, "SI-1002");
    assert_eq!(two.len(), 2);
    assert_eq!(two[1].line_vat_rate.unwrap().value(), Decimal::ZERO);
    // Each quick entry row carries its own total; the invoice's is their sum.
    assert_eq!(field(&f, "Total"), None, "an auxiliary column");
    assert_eq!(two[0].line_total.unwrap().value(), dec("408.00"));
    assert_eq!(two[1].line_total.unwrap().value(), dec("36.00"));
    assert_eq!(doc(&f, "SI-1002").total.unwrap().value(), dec("444.00"));
}

#[test]
fn sage_accounting_rows_that_share_a_reference_make_one_document_totalling_their_rows() {
    let csv = "Type,Customer Reference,Date,Customer Name,Reference,Ledger Account,Details,\
               Net,VAT Rate,VAT,Total,Analysis Type 1,Analysis Type 2,Analysis Type 3\n\
               Invoice,HART01,04/03/2024,Hartley & Sons,SI-2001,4000,Fitting,100.00,Standard,\
               20.00,120.00,,,\n\
               Invoice,HART01,04/03/2024,Hartley & Sons,SI-2001,4000,Delivery,50.00,Standard,\
               10.00,60.00,,,\n\
               Invoice,HART01,04/03/2024,Hartley & Sons,SI-2001,4000,Fixings,5.00,Standard,\
               1.00,6.00,,,\n\
               Invoice,BRAM01,05/03/2024,Bramble Cafe,SI-2002,4000,Shelving,80.00,Standard,\
               16.00,96.00,,,\n\
               Invoice,BRAM01,05/03/2024,Bramble Cafe,SI-2002,4000,Menus,30.00,Zero Rated,\
               0.00,,,,\n";
    let f = parse(csv, None, None, None).unwrap();
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::SageAccounting, EntityType::Invoices)
    );
    assert_clean(&f);
    assert_eq!(f.documents.len(), 2);
    let one = doc(&f, "SI-2001");
    assert_eq!(one.rows.len(), 3);
    assert_eq!(one.total.unwrap().value(), dec("186.00"), "120 + 60 + 6");
    // A row without its total leaves the document without one to check against.
    assert_eq!(doc(&f, "SI-2002").total, None);

    // The purchases file reads the same way.
    let bills = fixture("sage_accounting/bills.csv");
    let paper = doc(&bills, "INV 7781");
    assert_eq!(paper.rows.len(), 2);
    assert_eq!(paper.total.unwrap().value(), dec("438.00"), "294 + 144");
}

// ---------------------------------------------------------------------------------------
// Sage 50

#[test]
fn sage50_headerless_customer_records_are_read_by_position() {
    let f = fixture("sage50/contacts.csv");
    assert!(f.headerless);
    assert_eq!(f.layout, Some("Sage 50 customer record"));
    assert_eq!(&f.headers[..3], ["A/C", "Name", "Address Line 1"]);
    assert_eq!(field(&f, "A/C"), Some("provider_ref"));
    assert_eq!(field(&f, "E-mail"), Some("email"));
    assert_eq!(f.rows[0].row, 1, "no header: the first row is data");
    let c = f.rows[0].data.as_contact().unwrap();
    assert_eq!(
        (c.name.as_str(), c.provider_ref.as_deref()),
        ("Hartley & Sons Joinery Ltd", Some("HART01"))
    );
    assert_eq!(c.vat_number.as_deref(), Some("GB123456789"));
    assert_eq!(c.email.as_deref(), Some("accounts@hartleyjoinery.co.uk"));
    assert_eq!(
        f.rows[1].data.as_contact().unwrap().phone.as_deref(),
        Some("07700 900123")
    );
}

#[test]
fn sage50_headerless_product_records_read_tax_codes_as_rates() {
    let f = fixture("sage50/products.csv");
    assert!(f.headerless);
    let oak = f.rows[0].data.as_product().unwrap();
    assert_eq!(oak.sku.as_deref(), Some("OAK-WT-3M"));
    assert_eq!(oak.vat_rate.unwrap().value(), dec("20"), "T1");
    assert_eq!(oak.unit_price.unwrap().value(), dec("412.50"));
    assert_eq!(oak.barcode.as_deref(), Some("5012345678900"));
    assert_eq!(oak.unit.as_deref(), Some("Each"));
    assert_eq!(
        f.rows[2]
            .data
            .as_product()
            .unwrap()
            .vat_rate
            .unwrap()
            .value(),
        Decimal::ZERO,
        "T0"
    );
}

#[test]
fn sage50_audit_trail_sales_invoices_are_grouped_by_reference() {
    let f = fixture("sage50/invoices.csv");
    assert!(f.headerless && f.contact_codes);
    assert_eq!((f.rows.len(), f.left_out), (5, 1));
    let lines = doc_lines(&f, "1001");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].contact_name, "HART01");
    assert_eq!(lines[0].line_unit_price.value(), dec("825"));
    assert_eq!(lines[0].line_quantity, None);
    assert_eq!(lines[1].source_vat.unwrap().value(), dec("40.75"));
    assert_eq!(doc(&f, "1003").issue_date, date!(2024 - 03 - 25));
    assert_eq!(
        doc_lines(&f, "1003")[1].line_vat_rate.unwrap().value(),
        Decimal::ZERO
    );
}

#[test]
fn sage50_audit_trail_with_a_header_row_gives_purchase_invoices_as_bills() {
    let f = fixture("sage50/bills.csv");
    assert!(!f.headerless);
    assert_eq!(f.entity_type, EntityType::Bills);
    assert_eq!(f.left_out, 1, "the payment on account");
    assert_eq!(doc_lines(&f, "7781").len(), 2);
    assert_eq!(
        doc_lines(&f, "YW-22019")[0].line_vat_rate.unwrap().value(),
        Decimal::ZERO,
        "T9"
    );
}

#[test]
fn sage50_headerless_project_records_name_customers_by_account_code() {
    let f = fixture("sage50/projects.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::Sage50, EntityType::Projects)
    );
    assert!(f.detected && f.headerless && f.contact_codes);
    assert_clean(&f);
    assert_eq!(f.headers[6], "Customer A/C Ref");
    assert_eq!(field(&f, "Name"), Some("name"));
    assert_eq!(field(&f, "Customer A/C Ref"), Some("contact_name"));
    assert_eq!(
        field(&f, "Status ID"),
        None,
        "a number into the company's own list"
    );
    assert_eq!(field(&f, "Price Quoted"), None);
    assert_eq!(f.rows.len(), 3);
    let hartley = f.rows[0].data.as_project().unwrap();
    assert_eq!(hartley.name, "Hartley kitchen fit-out");
    assert_eq!(hartley.contact_name.as_deref(), Some("HART001"));
    assert_eq!((hartley.status, hartley.budget), (None, None));
    let workshop = f.rows[2].data.as_project().unwrap();
    assert_eq!(workshop.contact_name, None);
}

#[test]
fn sage50_bank_cash_and_card_payments_are_expenses_gross_of_vat() {
    let f = fixture("sage50/expenses.csv");
    assert_eq!(f.entity_type, EntityType::Expenses);
    assert_eq!((f.rows.len(), f.left_out), (3, 1));
    let e = f.rows[0].data.as_expense().unwrap();
    assert_eq!(e.date, date!(2024 - 03 - 18));
    assert_eq!(e.description, "Stationery, Ryman Leeds");
    assert_eq!(e.amount.value(), dec("50.00"), "net 41.67 + VAT 8.33");
    assert_eq!(e.vat_amount.unwrap().value(), dec("8.33"));
    assert_eq!(e.category.as_deref(), Some("7500"));
}

// ---------------------------------------------------------------------------------------
// FreeAgent, KashFlow, Zoho Books, FreshBooks

#[test]
fn freeagent_contacts_without_a_company_are_named_after_the_person() {
    let f = fixture("freeagent/contacts.csv");
    assert_eq!(field(&f, "Company"), Some("name"));
    assert_eq!(field(&f, "E-mail Address"), Some("email"));
    assert_eq!(field(&f, "Business Postal Code"), Some("address"));
    let priya = f.rows[1].data.as_contact().unwrap();
    assert_eq!(priya.name, "Priya Shah");
    assert_eq!(priya.phone.as_deref(), Some("07700 900789"));
    assert_eq!(
        f.rows[0].data.as_contact().unwrap().phone.as_deref(),
        Some("0113 496 0321")
    );
}

#[test]
fn kashflow_customers_and_suppliers_are_typed_by_their_file() {
    let customers = fixture("kashflow/contacts.csv");
    assert_eq!(customers.layout, Some("KashFlow customers file"));
    let c = customers.rows[0].data.as_contact().unwrap();
    assert_eq!(
        (c.contact_type, c.provider_ref.as_deref()),
        (Some(ContactType::Customer), Some("HART0001"))
    );
    let suppliers = fixture("kashflow/contacts_suppliers.csv");
    let s = suppliers.rows[0].data.as_contact().unwrap();
    assert_eq!(s.contact_type, Some(ContactType::Supplier));
    assert_eq!(s.name, "Northern Print Supplies Ltd");
    assert_eq!(s.vat_number.as_deref(), Some("GB987654321"));
}

#[test]
fn kashflow_invoices_and_receipts_read_hyphenated_and_spaced_line_columns() {
    let inv = fixture("kashflow/invoices.csv");
    assert_eq!(field(&inv, "Line-Rate"), Some("line_unit_price"));
    assert_eq!(field(&inv, "Line-VAT Rate"), Some("line_vat_rate"));
    assert!(inv.contact_codes);
    assert_eq!(doc_lines(&inv, "101").len(), 2);
    assert_eq!(doc(&inv, "102").issue_date, date!(2024 - 03 - 13));
    assert_eq!(
        doc_lines(&inv, "103")[0].line_vat_rate.unwrap().value(),
        Decimal::ZERO,
        "-2 is no VAT"
    );
    let bills = fixture("kashflow/bills.csv");
    assert_eq!(field(&bills, "Line Rate"), Some("line_unit_price"));
    let paper = doc_lines(&bills, "501");
    assert_eq!(paper.len(), 2);
    assert_eq!(paper[0].contact_name, "NPS00001");
    assert_eq!(paper[0].line_quantity.unwrap().value(), dec("10"));
}

#[test]
fn zoho_contacts_take_the_contact_type_and_customer_id() {
    let f = fixture("zoho_books/contacts.csv");
    assert_eq!(field(&f, "Display Name"), Some("name"));
    assert_eq!(field(&f, "Contact Type"), Some("type"));
    assert_eq!(field(&f, "Shipping Address"), None);
    let hartley = f.rows[0].data.as_contact().unwrap();
    assert_eq!(hartley.provider_ref.as_deref(), Some("2520018000000073035"));
    assert_eq!(hartley.contact_type, Some(ContactType::Customer));
    let print = f.rows[2].data.as_contact().unwrap();
    assert_eq!(print.contact_type, Some(ContactType::Supplier), "vendor");
}

#[test]
fn zoho_invoices_read_iso_dates_and_work_out_the_amount_paid() {
    let f = fixture("zoho_books/invoices.csv");
    assert_eq!(field(&f, "Invoice ID"), Some("provider_ref"));
    assert_eq!(field(&f, "Item Price"), Some("line_unit_price"));
    assert_eq!(field(&f, "Item Tax %"), Some("line_vat_rate"));
    let hartley = doc_lines(&f, "INV-000041");
    assert_eq!(
        hartley[1].line_description, "Fitting labour",
        "item name when the description is empty"
    );
    assert_eq!(doc(&f, "INV-000041").issue_date, date!(2024 - 03 - 05));
    assert_eq!(
        doc(&f, "INV-000041").provider_ref.as_deref(),
        Some("2520018000000073144")
    );
    let cafe = doc(&f, "INV-000042");
    assert_eq!(cafe.status, Some(DocStatus::Sent), "Partially Paid");
    assert_eq!(
        cafe.amount_paid.unwrap().value(),
        dec("200"),
        "total 444.00 less balance 244.00"
    );
    assert_eq!(
        doc_lines(&f, "INV-000042")[1]
            .line_vat_rate
            .unwrap()
            .value(),
        Decimal::ZERO
    );
}

// Zoho Books items, bills, expenses, projects, timesheets and recurring invoices.

#[test]
fn zoho_items_take_rate_purchase_rate_tax_percentage_and_item_id() {
    let f = fixture("zoho_books/products.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::ZohoBooks, EntityType::Products)
    );
    assert!(f.detected);
    assert_clean(&f);
    assert_eq!(field(&f, "Item ID"), Some("provider_ref"));
    assert_eq!(field(&f, "Purchase Rate"), Some("cost_price"));
    assert_eq!(field(&f, "Purchase Description"), None);
    let oak = f.rows[0].data.as_product().unwrap();
    assert_eq!(oak.name, "Oak worktop 3m");
    assert_eq!(oak.sku.as_deref(), Some("OAK-WT-3M"));
    assert_eq!(
        oak.description.as_deref(),
        Some("Solid oak worktop, 3 metre")
    );
    assert_eq!(oak.unit_price.unwrap().value(), dec("412.50"));
    assert_eq!(oak.cost_price.unwrap().value(), dec("265.00"));
    assert_eq!(oak.vat_rate.unwrap().value(), dec("20"));
    assert_eq!(oak.unit.as_deref(), Some("pcs"));
    assert_eq!(oak.provider_ref.as_deref(), Some("2520018000000071001"));
    let labour = f.rows[1].data.as_product().unwrap();
    assert_eq!((labour.sku.as_deref(), labour.cost_price), (None, None));
    let menus = f.rows[2].data.as_product().unwrap();
    assert_eq!(menus.vat_rate.unwrap().value(), Decimal::ZERO);
    let shelf = f.rows[3].data.as_product().unwrap();
    assert_eq!(shelf.cost_price.unwrap().value(), dec("1234.50"));
}

#[test]
fn zoho_bills_group_lines_by_bill_and_work_out_the_amount_paid() {
    let f = fixture("zoho_books/bills.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::ZohoBooks, EntityType::Bills)
    );
    assert!(f.detected);
    assert_clean(&f);
    assert_eq!(f.date_order, DateOrder::DayMonth);
    assert_eq!(field(&f, "Vendor Name"), Some("contact_name"));
    assert_eq!(field(&f, "Bill ID"), Some("provider_ref"));
    assert_eq!(field(&f, "Tax Percentage"), Some("line_vat_rate"));
    assert_eq!(field(&f, "Customer Name"), None);
    assert_eq!((f.total_rows, f.documents.len()), (5, 3));
    let dales = doc(&f, "DTM/22-0193");
    assert_eq!(dales.contact_name, "Dales Timber Merchants Ltd");
    assert_eq!(dales.issue_date, date!(2024 - 03 - 15));
    assert_eq!(dales.due_date, Some(date!(2024 - 04 - 14)));
    assert_eq!(
        dales.status,
        Some(DocStatus::AwaitingPayment),
        "Partially Paid"
    );
    assert_eq!(dales.total.unwrap().value(), dec("1234.50"));
    assert_eq!(
        dales.amount_paid.unwrap().value(),
        dec("1000"),
        "total 1234.50 less balance 234.50"
    );
    assert_eq!(dales.provider_ref.as_deref(), Some("2520018000000081007"));
    let lines = doc_lines(&f, "DTM/22-0193");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].line_description, "Oak worktop, 3m, unfinished");
    assert_eq!(lines[0].line_quantity.unwrap().value(), dec("3"));
    assert_eq!(lines[0].line_unit_price.value(), dec("331.25"));
    assert_eq!(lines[0].line_vat_rate.unwrap().value(), dec("20"));
    assert_eq!(lines[0].line_sku.as_deref(), Some("OAK-WT-3M"));
    assert_eq!(lines[0].source_vat.unwrap().value(), dec("198.75"));
    let rates = doc_lines(&f, "BR-2024-0411");
    assert_eq!(
        rates[0].line_description, "Business rates, April 2024",
        "item name when the description is empty"
    );
    assert_eq!(rates[0].line_vat_rate.unwrap().value(), Decimal::ZERO);
    assert_eq!(doc(&f, "BR-2024-0411").status, Some(DocStatus::Paid));
    assert_eq!(
        doc(&f, "NPS-4471").amount_paid.unwrap().value(),
        Decimal::ZERO
    );
}

#[test]
fn zoho_expenses_are_gross_totals_with_the_expense_account_as_category() {
    let f = fixture("zoho_books/expenses.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::ZohoBooks, EntityType::Expenses)
    );
    assert!(f.detected);
    assert_clean(&f);
    assert_eq!(field(&f, "Total"), Some("amount"));
    assert_eq!(field(&f, "Expense Amount"), None);
    assert_eq!(f.rows.len(), 4);
    let fuel = f.rows[2].data.as_expense().unwrap();
    assert_eq!(fuel.date, date!(2024 - 03 - 19));
    assert_eq!(fuel.description, "Van fuel, diesel (March)");
    assert_eq!(
        fuel.amount.value(),
        dec("1234.50"),
        "1028.75 entered without VAT + 205.75"
    );
    assert_eq!(fuel.vat_amount.unwrap().value(), dec("205.75"));
    assert_eq!(fuel.category.as_deref(), Some("Fuel/Mileage Expenses"));
    assert_eq!(fuel.provider_ref.as_deref(), Some("2520018000000090023"));
    let ink = f.rows[1].data.as_expense().unwrap();
    assert_eq!(
        (ink.amount.value(), ink.vat_amount.unwrap().value()),
        (dec("45.00"), dec("7.50")),
        "entered VAT-inclusive"
    );
    let train = f.rows[0].data.as_expense().unwrap();
    assert_eq!(
        train.project_name.as_deref(),
        Some("Hartley kitchen fit-out")
    );
    assert_eq!(train.date, date!(2024 - 03 - 04));
}

#[test]
fn zoho_projects_take_customer_budget_and_status() {
    let f = fixture("zoho_books/projects.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::ZohoBooks, EntityType::Projects)
    );
    assert!(f.detected);
    assert_clean(&f);
    assert_eq!(field(&f, "Project Cost"), None);
    let hartley = f.rows[0].data.as_project().unwrap();
    assert_eq!(hartley.name, "Hartley kitchen fit-out");
    assert_eq!(
        hartley.contact_name.as_deref(),
        Some("Hartley & Sons Joinery Ltd")
    );
    assert_eq!(hartley.status, Some(ProjectStatus::Active));
    assert_eq!(hartley.budget.unwrap().value(), dec("12500"));
    assert_eq!(hartley.hourly_rate, None);
    let cafe = f.rows[1].data.as_project().unwrap();
    assert_eq!(cafe.status, Some(ProjectStatus::Archived), "Inactive");
    assert_eq!(cafe.budget, None);
    let workshop = f.rows[2].data.as_project().unwrap();
    assert_eq!(workshop.contact_name, None);
}

#[test]
fn zoho_timesheets_name_their_project_and_read_hh_mm_durations() {
    let f = fixture("zoho_books/time_entries.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::ZohoBooks, EntityType::TimeEntries)
    );
    assert!(f.detected);
    assert_clean(&f);
    assert_eq!(field(&f, "Project Name"), Some("project_name"));
    assert_eq!(field(&f, "Time Spent"), Some("hours"));
    let survey = f.rows[0].data.as_time_entry().unwrap();
    assert_eq!(survey.project_name, "Hartley kitchen fit-out");
    assert_eq!(survey.date, date!(2024 - 03 - 04));
    assert_eq!(survey.hours.value(), dec("1.75"), "01:45");
    assert_eq!(survey.description.as_deref(), Some("Measure-up, Roundhay"));
    assert_eq!(survey.billable, Some(true));
    assert_eq!(survey.hourly_rate.unwrap().value(), dec("45"));
    let tidy = f.rows[3].data.as_time_entry().unwrap();
    assert_eq!(tidy.hours.value(), dec("2.25"));
    assert_eq!(tidy.billable, Some(false), "Non-Billable");
    assert_eq!(tidy.hourly_rate, None);
}

#[test]
fn zoho_recurring_invoices_group_their_lines_into_templates() {
    let f = fixture("zoho_books/subscriptions.csv");
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::ZohoBooks, EntityType::Subscriptions)
    );
    assert!(f.detected);
    assert_clean(&f);
    assert_eq!(field(&f, "Recurring Invoice ID"), Some("provider_ref"));
    assert_eq!(field(&f, "Repeat Every"), Some("interval_count"));
    assert_eq!((f.total_rows, f.templates.len()), (4, 3));
    let hartley = &f.templates[0];
    assert_eq!(hartley.provider_ref, "2520018000000099001");
    assert_eq!(hartley.contact_name, "Hartley & Sons Joinery Ltd");
    assert_eq!(
        (hartley.interval, hartley.interval_count, hartley.rows.len()),
        (Interval::Month, Some(1), 2)
    );
    assert_eq!(hartley.next_date, Some(date!(2024 - 04 - 01)));
    assert_eq!(hartley.status, Some(TemplateStatus::Active));
    let line = f.rows[1].data.as_subscription().unwrap();
    assert_eq!(
        line.line_description.as_deref(),
        Some("Consumables, per visit")
    );
    assert_eq!(line.line_unit_price.unwrap().value(), dec("24.50"));
    let cafe = &f.templates[1];
    assert_eq!(
        (cafe.interval, cafe.interval_count),
        (Interval::Month, Some(3))
    );
    assert_eq!(cafe.next_date, Some(date!(2024 - 04 - 15)));
    let survey = &f.templates[2];
    assert_eq!(
        (survey.interval, survey.status, survey.next_date),
        (Interval::Year, Some(TemplateStatus::Cancelled), None)
    );
    assert_eq!(
        f.rows[3]
            .data
            .as_subscription()
            .unwrap()
            .line_description
            .as_deref(),
        Some("Annual survey"),
        "item name when the description is empty"
    );
}

#[test]
fn freshbooks_clients_and_invoices_derive_vat_rates_from_tax_amounts() {
    let clients = fixture("freshbooks/contacts.csv");
    assert_eq!(
        clients.rows[1].data.as_contact().unwrap().name,
        "Priya Shah"
    );
    let f = fixture("freshbooks/invoices.csv");
    assert_eq!(field(&f, "Invoice #"), Some("number"));
    assert_eq!(field(&f, "Rate"), Some("line_unit_price"));
    assert_eq!(field(&f, "Discount Percentage"), Some("line_discount"));
    let lines = doc_lines(&f, "0000041");
    assert_eq!(
        lines[0].line_quantity.unwrap().value(),
        dec("2"),
        "2.00000000"
    );
    assert_eq!(
        lines[0].line_vat_rate.unwrap().value(),
        dec("20"),
        "165.00 on 825.00"
    );
    assert_eq!(lines[1].line_discount.unwrap().value(), dec("10"));
    assert_eq!(
        lines[1].line_vat_rate.unwrap().value(),
        dec("20"),
        "36.45 on 182.25"
    );
    assert_eq!(doc(&f, "0000042").status, Some(DocStatus::Paid));
    assert_eq!(doc(&f, "0000043").status, Some(DocStatus::Draft));
    assert_eq!(
        doc_lines(&f, "0000043")[0].line_vat_rate.unwrap().value(),
        Decimal::ZERO
    );
}

// FreshBooks expense and time entry reports

#[test]
fn freshbooks_expense_details_are_gross_amounts_with_vat_from_tax_1() {
    let f = fixture("freshbooks/expenses.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::Freshbooks, EntityType::Expenses, true)
    );
    assert_clean(&f);
    assert_eq!(field(&f, "Amount"), Some("amount"));
    assert_eq!(field(&f, "Tax 1 Amount"), Some("vat_amount"));
    assert_eq!(field(&f, "Parent Category"), Some("category"));
    assert_eq!(field(&f, "Subcategory"), None);
    assert_eq!(field(&f, "Merchant"), None, "a fallback, not a field");
    assert_eq!(f.total_rows, 5, "blank trailing lines are not rows");
    let fuel = f.rows[2].data.as_expense().unwrap();
    assert_eq!(fuel.date, date!(2024 - 03 - 19));
    assert_eq!(fuel.description, "Van fuel, diesel (March)");
    assert_eq!(fuel.amount.value(), dec("1234.50"), "VAT included");
    assert_eq!(fuel.vat_amount.unwrap().value(), dec("205.75"));
    assert_eq!(fuel.category.as_deref(), Some("Car & Truck"));
    assert_eq!(fuel.project_name, None);
    assert_eq!(fuel.provider_ref, None);
    let train = f.rows[0].data.as_expense().unwrap();
    assert_eq!(train.description, "Train to York, client visit");
    assert_eq!(
        (train.amount.value(), train.vat_amount.unwrap().value()),
        (dec("38.60"), Decimal::ZERO)
    );
    assert_eq!(
        train.project_name.as_deref(),
        Some("Hartley kitchen fit-out")
    );
    let advert = f.rows[3].data.as_expense().unwrap();
    assert_eq!(
        advert.description, "Yorkshire Post, Leeds",
        "the merchant when the description is empty"
    );
    assert_eq!(advert.amount.value(), dec("180.00"));
}

#[test]
fn freshbooks_time_entries_take_their_hours_from_the_seconds() {
    let f = fixture("freshbooks/time_entries.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::Freshbooks, EntityType::TimeEntries, true)
    );
    assert_clean(&f);
    assert_eq!(field(&f, "Project"), Some("project_name"));
    assert_eq!(field(&f, "Note"), Some("description"));
    assert_eq!(field(&f, "Hours"), None);
    assert_eq!(field(&f, "Status"), None, "billed or not, not billable");
    assert_eq!(f.total_rows, 4);
    let survey = f.rows[0].data.as_time_entry().unwrap();
    assert_eq!(survey.project_name, "Hartley kitchen fit-out");
    assert_eq!(survey.date, date!(2024 - 03 - 04));
    assert_eq!(survey.hours.value(), dec("1.75"), "6300 seconds");
    assert_eq!(survey.description.as_deref(), Some("Measure-up, Roundhay"));
    assert_eq!((survey.billable, survey.hourly_rate), (None, None));
    let drawings = f.rows[2].data.as_time_entry().unwrap();
    assert_eq!(drawings.project_name, "Bramble Café shelving");
    assert_eq!(
        drawings.hours.value(),
        dec("1.33"),
        "4800 seconds: Hours says 1.3333, more places than hours keep"
    );
}

#[test]
fn a_seconds_cell_that_is_not_whole_seconds_is_a_row_error() {
    let csv = "Date,Client,Project,Service,Note,Team Member,Status,Hours,Seconds\n\
               2024-03-04,Hartley,Fit-out,Fitting,Day 1,Sam,unbilled,1.5,5400\n\
               2024-03-05,Hartley,Fit-out,Fitting,Day 2,Sam,unbilled,1.5,1h30\n";
    let f = parse(csv, None, None, None).unwrap();
    assert_eq!(f.entity_type, EntityType::TimeEntries);
    assert_eq!(f.rows.len(), 1);
    assert_eq!(f.errors[0].row, 3, "the file's third line");
    assert_eq!(f.errors[0].column.as_deref(), Some("Seconds"));
    assert!(f.errors[0].message.contains("not a number of seconds"));
}

#[test]
fn freshbooks_vendors_are_suppliers_and_newer_client_exports_keep_their_street() {
    let f = fixture("freshbooks/contacts_suppliers.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.layout),
        (
            Platform::Freshbooks,
            EntityType::Contacts,
            Some("FreshBooks vendors export")
        )
    );
    assert_clean(&f);
    assert_eq!(field(&f, "Account Number"), None);
    let tp = f.rows[0].data.as_contact().unwrap();
    assert_eq!(tp.name, "Travis Perkins Trading Co Ltd");
    assert_eq!(tp.contact_type, Some(ContactType::Supplier));
    assert_eq!(
        tp.address.as_deref(),
        Some("Unit 4, Kirkstall Road, Leeds, West Yorkshire, United Kingdom, LS4 2AZ")
    );
    let sam = f.rows[2].data.as_contact().unwrap();
    assert_eq!(sam.name, "Sam Okafor", "first and last name");
    assert_eq!(sam.contact_type, Some(ContactType::Supplier));
    // A clients export with the newer address columns is still the clients layout.
    let csv = "Organization,First Name,Last Name,Email,Phone,Address Line 1,Address Line 2,\
               City,Province/State,Country,Postal Code,Notes\n\
               Bramble Café Ltd,Priya,Shah,priya@bramble.example,0113 496 0555,\
               \"2 Otley Road, Far Headingley\",,Leeds,West Yorkshire,United Kingdom,LS6 4BD,\n";
    let clients = parse(csv, None, None, None).unwrap();
    assert_eq!(clients.layout, Some("FreshBooks clients export"));
    let c = clients.rows[0].data.as_contact().unwrap();
    assert_ne!(c.contact_type, Some(ContactType::Supplier));
    assert_eq!(
        c.address.as_deref(),
        Some("2 Otley Road, Far Headingley, Leeds, West Yorkshire, United Kingdom, LS6 4BD")
    );
}

#[test]
fn newer_freshbooks_invoice_exports_give_the_due_date() {
    // The header of a newer real export: `Date Due` after `Date Issued` (README).
    let csv = "Client Name,Invoice #,Date Issued,Date Due,Invoice Status,Date Paid,Item Name,\
               Item Description,Rate,Quantity,Discount Percentage,Line Subtotal,Tax 1 Type,\
               Tax 1 Amount,Tax 2 Type,Tax 2 Amount,Line Total,Currency\n\
               Hartley & Sons Joinery Ltd,0000044,2024-03-05,2024-04-04,sent,,Survey,\
               \"Site survey, Roundhay\",95.00,1.00000000,0.0000,95.00,VAT,19.00,,0.00,114.00,GBP\n";
    let f = parse(csv, None, None, None).unwrap();
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::Freshbooks, EntityType::Invoices)
    );
    assert_clean(&f);
    assert_eq!(field(&f, "Date Due"), Some("due_date"));
    let d = doc(&f, "0000044");
    assert_eq!(d.due_date, Some(date!(2024 - 04 - 04)));
    assert_eq!(line(&f, 0).line_vat_rate.unwrap().value(), dec("20"));
}

#[test]
fn freshbooks_items_and_services_take_their_rate_as_the_price() {
    let f = fixture("freshbooks/products.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::Freshbooks, EntityType::Products, true)
    );
    assert_clean(&f);
    assert_eq!(field(&f, "Rate"), Some("unit_price"));
    assert_eq!(field(&f, "Income Account"), None);
    assert_eq!(f.rows.len(), 4);
    let survey = f.rows[1].data.as_product().unwrap();
    assert_eq!(survey.name, "Site survey, measure and quote");
    assert_eq!(survey.unit_price.unwrap().value(), dec("95"));
    assert_eq!(
        (survey.sku.as_deref(), survey.vat_rate, survey.cost_price),
        (None, None, None)
    );
    let oak = f.rows[2].data.as_product().unwrap();
    assert_eq!(oak.unit_price.unwrap().value(), dec("1234.50"));
}

// ---------------------------------------------------------------------------------------
// Dates: decided once per file

const INVOICE_HEADER: &str = "Invoice No,Customer,Date,Description,Qty,Unit Price,VAT %\n";

#[test]
fn a_us_style_date_file_is_read_month_first_on_every_row() {
    let csv = format!(
        "{INVOICE_HEADER}A1,Acme Ltd,02/03/2024,Widgets,1,10.00,20\n\
         A2,Acme Ltd,01/25/2024,Widgets,1,10.00,20\n\
         A3,Acme Ltd,04/05/2024,Widgets,1,10.00,20\n"
    );
    let f = parse(&csv, Some(EntityType::Invoices), None, None).unwrap();
    assert_clean(&f);
    assert_eq!(f.date_order, DateOrder::MonthDay);
    assert!(
        f.notes
            .iter()
            .any(|n| n.contains("MM/DD/YYYY") && n.contains("row 3")),
        "{:?}",
        f.notes
    );
    let dates: Vec<_> = (0..3).map(|i| line(&f, i).issue_date).collect();
    assert_eq!(
        dates,
        [
            date!(2024 - 02 - 03),
            date!(2024 - 01 - 25),
            date!(2024 - 04 - 05)
        ]
    );
}

#[test]
fn a_file_whose_dates_are_all_ambiguous_is_read_as_uk_dates_and_says_so() {
    let csv = format!(
        "{INVOICE_HEADER}A1,Acme Ltd,02/03/2024,Widgets,1,10.00,20\n\
         A2,Acme Ltd,11/12/2024,Widgets,1,10.00,20\n"
    );
    let f = parse(&csv, Some(EntityType::Invoices), None, None).unwrap();
    assert_eq!(f.date_order, DateOrder::DayMonth);
    assert!(
        f.notes.iter().any(|n| n.contains("DD/MM/YYYY (UK)")),
        "{:?}",
        f.notes
    );
    assert_eq!(line(&f, 0).issue_date, date!(2024 - 03 - 02));
    assert_eq!(line(&f, 1).issue_date, date!(2024 - 12 - 11));
}

#[test]
fn a_uk_date_anywhere_in_the_file_settles_the_order_for_earlier_rows_too() {
    let csv = format!(
        "{INVOICE_HEADER}A1,Acme Ltd,02/03/2024,Widgets,1,10.00,20\n\
         A2,Acme Ltd,28/03/2024,Widgets,1,10.00,20\n"
    );
    let f = parse(&csv, Some(EntityType::Invoices), None, None).unwrap();
    assert_eq!(f.date_order, DateOrder::DayMonth);
    assert!(
        f.notes.iter().all(|n| !n.contains("DD/MM/YYYY (UK)")),
        "not ambiguous: {:?}",
        f.notes
    );
    assert_eq!(line(&f, 0).issue_date, date!(2024 - 03 - 02));
}

// ---------------------------------------------------------------------------------------
// Row errors

#[test]
fn bad_dates_and_amounts_are_reported_by_row_and_column_while_good_rows_parse() {
    let csv = "\u{feff}*ContactName,*InvoiceNumber,*InvoiceDate,*DueDate,Description,*Quantity,*UnitAmount,*AccountCode,*TaxType\r\n\
        Acme Ltd,INV-1,05/03/2024,04/04/2024,Widgets,2,£1,234.50,200,20% (VAT on Income)\r\n\
        Acme Ltd,INV-2,31/02/2024,04/04/2024,Widgets,1,10.00,200,20% (VAT on Income)\r\n\
        Acme Ltd,INV-3,14/03/2024,13/04/2024,Widgets,1,12.34567,200,20% (VAT on Income)\r\n\
        Acme Ltd,INV-4,15/03/2024,14/04/2024,Gadgets,1,\"£1,234.50\",200,20% (VAT on Income)\r\n\
        ,INV-5,16/03/2024,,Gadgets,1,abc,200,Zero Rated Income\r\n";
    let f = parse(csv, None, None, None).unwrap();
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::Xero, EntityType::Invoices)
    );
    // Row 2 has an unquoted `£1,234.50`: its cells shift, so its rate is not a rate.
    let rows: Vec<usize> = f.rows.iter().map(|r| r.row).collect();
    assert_eq!(rows, [5], "only INV-4 is good");
    assert_eq!(line(&f, 0).line_unit_price.value(), dec("1234.50"));

    let at = |row: usize| f.errors.iter().filter(|e| e.row == row).collect::<Vec<_>>();
    let bad_date = at(3);
    assert_eq!(bad_date.len(), 1);
    assert_eq!(bad_date[0].column.as_deref(), Some("*InvoiceDate"));
    assert!(
        bad_date[0].message.contains("`*InvoiceDate`")
            && bad_date[0].message.contains("31/02/2024"),
        "{}",
        bad_date[0].message
    );
    let bad_price = at(4);
    assert_eq!(bad_price[0].column.as_deref(), Some("*UnitAmount"));
    assert!(
        bad_price[0].message.contains("12.34567")
            && bad_price[0].message.contains("4 decimal places"),
        "{}",
        bad_price[0].message
    );
    let both = at(6);
    let cols: Vec<_> = both.iter().map(|e| e.column.as_deref().unwrap()).collect();
    assert_eq!(
        cols,
        ["*ContactName", "*UnitAmount"],
        "every problem of the row: {both:?}"
    );
    assert!(both[0].message.contains("required field `contact_name`"));
    assert!(!at(2).is_empty());
}

#[test]
fn more_decimal_places_than_a_money_field_allows_is_an_error_not_a_rounding() {
    let csv = "Date,Description,Amount,VAT\n18/03/2024,Stationery,50.005,8.33\n19/03/2024,Parking,6.50,\n";
    let f = parse(csv, Some(EntityType::Expenses), None, None).unwrap();
    assert_eq!(f.rows.len(), 1);
    assert_eq!(f.errors[0].row, 2);
    assert_eq!(f.errors[0].column.as_deref(), Some("Amount"));
    assert!(f.errors[0].message.contains("2 decimal places"));
}

// ---------------------------------------------------------------------------------------
// Header tolerance

#[test]
fn odd_case_spacing_bom_extra_and_reordered_columns_still_detect() {
    let csv = "\u{feff} line total ,CURRENCY,internal note,invoice status, Invoice # ,client name,\
               date issued,item name,item description,QUANTITY,rate,line subtotal,tax 1 amount\n\
               990.00,GBP,call first,sent,0000041,Hartley & Sons Joinery Ltd,2024-03-05,Oak,\
               \"Worktop, oak\",2.00000000,412.50,825.00,165.00\n\n\n";
    let f = parse(csv, None, None, None).unwrap();
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::Freshbooks, EntityType::Invoices, true)
    );
    assert_clean(&f);
    assert_eq!(f.headers[4], "Invoice #");
    assert_eq!(field(&f, "internal note"), None);
    let l = line(&f, 0);
    assert_eq!(
        (l.number.as_deref(), l.contact_name.as_str()),
        (Some("0000041"), "Hartley & Sons Joinery Ltd")
    );
    assert_eq!(l.line_description, "Worktop, oak");
    assert_eq!(l.line_vat_rate.unwrap().value(), dec("20"));
    assert_eq!(f.total_rows, 1, "blank trailing lines are not rows");
}

#[test]
fn report_title_rows_above_the_header_are_skipped() {
    let csv = format!(
        "Hartley Joinery Ltd,,\r\nProduct/Service List,,\r\n,,\r\n{}",
        read("quickbooks/products.csv").trim_start_matches('\u{feff}')
    );
    let f = parse(&csv, None, None, None).unwrap();
    assert_eq!(
        (f.platform, f.entity_type),
        (Platform::Quickbooks, EntityType::Products)
    );
    assert_eq!(f.rows[0].row, 5);
    assert!(f.notes.iter().any(|n| n.contains("row 4")), "{:?}", f.notes);
}

#[test]
fn semicolon_separated_files_are_read() {
    let f = parse(
        "Name;Email;Phone\nAcme Ltd;sales@acme.co.uk;0113 000 0000\n",
        Some(EntityType::Contacts),
        None,
        None,
    )
    .unwrap();
    assert_eq!(
        f.rows[0].data.as_contact().unwrap().email.as_deref(),
        Some("sales@acme.co.uk")
    );
}

// ---------------------------------------------------------------------------------------
// Generic fallback and remapping

#[test]
fn an_undetectable_file_falls_to_generic_with_a_suggested_mapping() {
    let csv = "Customer,E-mail address,Tel,Street,Town,Post code,Ship-to city,VAT Reg No,Notes\n\
               Hartley & Sons Joinery Ltd,accounts@hartleyjoinery.co.uk,0113 496 0321,\"Unit 4, Riverside\",Leeds,LS11 5QB,York,GB123456789,\n";
    let f = parse(csv, None, None, None).unwrap();
    assert_eq!(
        (f.platform, f.detected, f.entity_type),
        (Platform::Generic, false, EntityType::Contacts)
    );
    assert!(f.notes[0].contains("suggested from the header names"));
    let expected: HashMap<&str, Option<&str>> = [
        ("Customer", Some("name")),
        ("E-mail address", Some("email")),
        ("Tel", Some("phone")),
        ("Street", Some("address")),
        ("Town", Some("address")),
        ("Post code", Some("address")),
        ("Ship-to city", None),
        ("VAT Reg No", Some("vat_number")),
        ("Notes", None),
    ]
    .into();
    for (h, want) in expected {
        assert_eq!(field(&f, h), want, "{h}");
    }
    let c = f.rows[0].data.as_contact().unwrap();
    assert_eq!(
        c.address.as_deref(),
        Some("Unit 4, Riverside, Leeds, LS11 5QB")
    );
}

#[test]
fn a_generic_file_without_a_column_for_a_required_field_parses_no_rows_and_says_which() {
    let f = parse(
        "Email,Phone\na@b.co.uk,0113\n",
        Some(EntityType::Contacts),
        None,
        None,
    )
    .unwrap();
    assert_eq!(f.missing_required, [Field::Name]);
    assert!(f.rows.is_empty() && f.errors.is_empty());
    assert_eq!(f.total_rows, 1);
    assert!(f.notes.iter().any(|n| n.contains("`name`")));
}

#[test]
fn a_file_whose_type_cannot_be_told_asks_for_it() {
    assert_eq!(
        parse("Colour,Size\nRed,L\n", None, None, None).unwrap_err(),
        ImportError::EntityTypeNeeded
    );
}

#[test]
fn a_caller_supplied_mapping_overrides_detection() {
    let text = read("xero/contacts.csv");
    let over: HashMap<String, Option<String>> = [
        ("EmailAddress".to_owned(), Some("provider_ref".to_owned())),
        ("taxnumber".to_owned(), None),
        ("SAAddressLine1".to_owned(), Some("address".to_owned())),
    ]
    .into();
    let f = parse(&text, None, None, Some(&over)).unwrap();
    assert!(f.detected, "the platform is still known");
    assert_eq!(field(&f, "EmailAddress"), Some("provider_ref"));
    assert_eq!(
        field(&f, "AccountNumber"),
        None,
        "the field went to another column"
    );
    assert_eq!(field(&f, "TaxNumber"), None);
    assert_eq!(
        field(&f, "POAddressLine1"),
        Some("address"),
        "address may come from many columns"
    );
    let c = f.rows[0].data.as_contact().unwrap();
    assert_eq!(
        c.provider_ref.as_deref(),
        Some("accounts@hartleyjoinery.co.uk")
    );
    assert_eq!((c.email.as_deref(), c.vat_number.as_deref()), (None, None));
    // The preview's mapping, sent back unchanged, changes nothing.
    let same = parse(
        &text,
        None,
        None,
        Some(&fixture("xero/contacts.csv").mapping.to_request()),
    )
    .unwrap();
    assert_eq!(same.rows, fixture("xero/contacts.csv").rows);
}

#[test]
fn a_mapping_naming_an_unknown_column_or_field_or_a_field_twice_is_refused() {
    let text = read("xero/contacts.csv");
    let one = |h: &str, f: &str| -> HashMap<String, Option<String>> {
        [(h.to_owned(), Some(f.to_owned()))].into()
    };
    assert_eq!(
        parse(&text, None, None, Some(&one("Nickname", "name"))).unwrap_err(),
        ImportError::UnknownColumn("Nickname".into())
    );
    assert_eq!(
        parse(&text, None, None, Some(&one("EmailAddress", "line_sku")))
            .unwrap_err()
            .to_string(),
        "`line_sku` is not a field of contacts"
    );
    let twice: HashMap<String, Option<String>> = [
        ("EmailAddress".to_owned(), Some("phone".to_owned())),
        ("FaxNumber".to_owned(), Some("phone".to_owned())),
    ]
    .into();
    assert_eq!(
        parse(&text, None, None, Some(&twice)).unwrap_err(),
        ImportError::DuplicateField(Field::Phone)
    );
}

// ---------------------------------------------------------------------------------------
// Hints

#[test]
fn a_file_of_another_type_than_asked_is_refused() {
    let err = parse(
        &read("xero/contacts.csv"),
        Some(EntityType::Invoices),
        None,
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "The file looks like a Xero contacts export (contacts), not invoices"
    );
}

#[test]
fn platform_hints_are_checked() {
    let text = read("xero/contacts.csv");
    assert_eq!(
        parse(&text, None, Some("myob"), None).unwrap_err(),
        ImportError::UnknownPlatform("myob".into())
    );
    assert_eq!(
        parse(&text, None, Some("stripe"), None)
            .unwrap_err()
            .to_string(),
        "`stripe` has no CSV import"
    );
    assert_eq!(
        parse(&text, Some(EntityType::Invoices), Some("freeagent"), None)
            .unwrap_err()
            .to_string(),
        "`freeagent` exports cannot supply `invoices`"
    );
    // `generic` skips detection even for a file it would recognise.
    let g = parse(&text, Some(EntityType::Contacts), Some("generic"), None).unwrap();
    assert_eq!((g.platform, g.detected), (Platform::Generic, false));
    assert_eq!(field(&g, "*ContactName"), Some("name"));
}

#[test]
fn an_empty_file_is_refused() {
    assert_eq!(parse("", None, None, None).unwrap_err(), ImportError::Empty);
    assert_eq!(
        parse("\u{feff}\r\n,,\r\n", None, None, None).unwrap_err(),
        ImportError::Empty
    );
}

// ---------------------------------------------------------------------------------------
// The other data types, through the generic mapping

#[test]
fn invoice_rows_without_numbers_are_grouped_by_contact_and_date() {
    let csv = format!(
        "{INVOICE_HEADER},Acme Ltd,14/03/2024,Widgets,1,10.00,20\n\
         ,acme ltd,14/03/2024,Gadgets,2,5.00,20\n\
         ,Acme Ltd,15/03/2024,Widgets,1,10.00,20\n"
    );
    let f = parse(&csv, Some(EntityType::Invoices), None, None).unwrap();
    assert_eq!(f.documents.len(), 2);
    assert_eq!(
        (f.documents[0].number.as_deref(), f.documents[0].rows.len()),
        (None, 2)
    );
}

#[test]
fn subscriptions_are_grouped_by_provider_reference() {
    let csv = "Subscription ID,Customer,Frequency,Next billing date,Status,Plan,Qty,Price\n\
               SB001,Bramble Café,Quarterly,01/04/2024,active,Shelf care plan,1,£45.00\n\
               SB001,Bramble Café,Quarterly,01/04/2024,active,Extra visit,2,£15.00\n\
               SB002,Hartley & Sons Joinery Ltd,every 2 weeks,15/03/2024,paused,Tool hire,1,£120.00\n";
    let f = parse(csv, Some(EntityType::Subscriptions), None, None).unwrap();
    assert_clean(&f);
    assert_eq!(f.templates.len(), 2);
    let t = &f.templates[0];
    assert_eq!(
        (
            t.provider_ref.as_str(),
            t.interval,
            t.interval_count,
            t.rows.len()
        ),
        ("SB001", Interval::Month, Some(3), 2)
    );
    assert_eq!(t.next_date, Some(date!(2024 - 04 - 01)));
    assert_eq!(t.status, Some(TemplateStatus::Active));
    let row = f.rows[1].data.as_subscription().unwrap();
    assert_eq!(row.line_unit_price.unwrap().value(), dec("15"));
    assert_eq!(f.templates[1].interval, Interval::Week);
    assert_eq!(f.templates[1].interval_count, Some(2));
}

#[test]
fn time_entries_projects_and_expenses_parse_through_the_generic_mapping() {
    let t = parse(
        "Project,Date,Hours,Notes,Billable,Rate\nKitchen refit,18/03/2024,1:30,Site visit,Yes,£45.00\nKitchen refit,19/03/2024,2.25,Drawings,no,\n",
        None,
        None,
        None,
    )
    .unwrap();
    assert_eq!(t.entity_type, EntityType::TimeEntries);
    let e = t.rows[0].data.as_time_entry().unwrap();
    assert_eq!((e.hours.value(), e.billable), (dec("1.5"), Some(true)));
    assert_eq!(
        t.rows[1].data.as_time_entry().unwrap().billable,
        Some(false)
    );

    let p = parse("Project name,Client,Status,Hourly rate,Budget\nKitchen refit,Hartley & Sons Joinery Ltd,In progress,45,\"£2,500.00\"\n", Some(EntityType::Projects), None, None).unwrap();
    let pr = p.rows[0].data.as_project().unwrap();
    assert_eq!(
        (pr.status, pr.budget.unwrap().value()),
        (Some(ProjectStatus::Active), dec("2500"))
    );

    let x = parse("Date,Description,Amount,VAT,Category\n18/03/2024,\"Stationery, Ryman\",(£50.00),£8.33,Office costs\n", Some(EntityType::Expenses), None, None).unwrap();
    let ex = x.rows[0].data.as_expense().unwrap();
    assert_eq!(
        (ex.amount.value(), ex.vat_amount.unwrap().value()),
        (dec("-50"), dec("8.33"))
    );
}

// ---------------------------------------------------------------------------------------
// The shape the preview will serialise

#[test]
fn the_parsed_file_serialises_with_an_ordered_mapping_and_flat_rows() {
    let f = fixture("xero/invoices.csv");
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(v["platform"], "xero");
    assert_eq!(v["entityType"], "invoices");
    assert_eq!(v["mapping"]["TaxType"], "line_vat_rate");
    assert_eq!(v["mapping"]["Reference"], serde_json::Value::Null);
    assert_eq!(
        v["fields"][1],
        serde_json::json!({"name": "contact_name", "required": true})
    );
    assert_eq!(v["rows"][0]["row"], 2);
    assert_eq!(v["rows"][0]["issue_date"], "2024-03-05");
    assert_eq!(v["rows"][0]["line_unit_price"].to_string(), "412.5");
    assert_eq!(v["documents"][0]["total"].to_string(), "1234.5");
    assert_eq!(v["date_order"], "DD/MM/YYYY");
    let rows: Vec<&MappedRow> = f.rows.iter().collect();
    assert_eq!(rows.len(), 6);
}

// ---------------------------------------------------------------------------------------
// QuickBooks Online bills, Sage Accounting purchase invoices

#[test]
fn quickbooks_bills_group_lines_by_number_and_take_the_line_amount_as_the_price() {
    let f = fixture("quickbooks/bills.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::Quickbooks, EntityType::Bills, true)
    );
    assert_clean(&f);
    assert_eq!(field(&f, "Bill no."), Some("number"));
    assert_eq!(field(&f, "Supplier"), Some("contact_name"));
    assert_eq!(field(&f, "Bill Date"), Some("issue_date"));
    assert_eq!(field(&f, "Line Tax Code"), Some("line_vat_rate"));
    assert_eq!(field(&f, "Line Amount"), None, "an auxiliary column");
    assert_eq!(f.total_rows, 5, "the blank trailing line is not a row");
    assert_eq!(f.documents.len(), 3);

    let lease = doc(&f, "HL-3391");
    assert_eq!(lease.contact_name, "Hartley Leasing Ltd");
    assert_eq!(lease.issue_date, date!(2024 - 03 - 01));
    assert_eq!(lease.due_date, Some(date!(2024 - 03 - 31)));
    assert_eq!(lease.total, None, "the layout has no total column");
    let lines = doc_lines(&f, "HL-3391");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].line_description, "Transit van lease, March");
    assert_eq!(lines[0].line_quantity, None);
    assert_eq!(lines[0].line_unit_price.value(), dec("1028.75"));
    assert_eq!(
        lines[0].line_vat_rate.unwrap().value(),
        dec("20"),
        "20.0% S"
    );
    assert_eq!(lines[0].source_vat.unwrap().value(), dec("205.75"));
    assert_eq!(lines[1].line_unit_price.value(), dec("24.50"));
    assert_eq!(
        lines[1].line_vat_rate.unwrap().value(),
        Decimal::ZERO,
        "No VAT"
    );

    let paper = doc_lines(&f, "INV-7781");
    assert_eq!(paper.len(), 2);
    assert_eq!(paper[0].line_description, "Paper, A4 80gsm (10 boxes)");
    assert_eq!(paper[1].line_unit_price.value(), dec("180"));
    let water = doc_lines(&f, "YW-22019");
    assert_eq!(
        water[0].line_vat_rate.unwrap().value(),
        Decimal::ZERO,
        "0.0% Z"
    );
}

#[test]
fn sage_accounting_purchase_quick_entries_are_bills_with_dashed_dates_and_worded_rates() {
    let f = fixture("sage_accounting/bills.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::SageAccounting, EntityType::Bills, true)
    );
    assert_clean(&f);
    assert_eq!(field(&f, "Supplier Name"), Some("contact_name"));
    assert_eq!(field(&f, "Supplier Reference"), None);
    assert_eq!(field(&f, "Reference"), Some("number"));
    assert_eq!(field(&f, "Net"), Some("line_unit_price"));
    assert_eq!(field(&f, "VAT Rate"), Some("line_vat_rate"));
    assert_eq!(f.left_out, 1, "the credit note");
    assert_eq!((f.total_rows, f.rows.len()), (6, 5));
    assert_eq!(f.documents.len(), 4);
    assert_eq!(f.date_order, DateOrder::DayMonth);

    let lease = doc(&f, "HL-3391");
    assert_eq!(lease.contact_name, "Hartley Leasing Ltd");
    assert_eq!(lease.issue_date, date!(2024 - 03 - 01), "DD-MM-YYYY");
    assert_eq!(lease.total.unwrap().value(), dec("1234.50"));
    let l = doc_lines(&f, "HL-3391");
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].line_description, "Van lease, March");
    assert_eq!(l[0].line_unit_price.value(), dec("1028.75"));
    assert_eq!(l[0].line_vat_rate.unwrap().value(), dec("20"), "Standard");
    assert_eq!(l[0].source_vat.unwrap().value(), dec("205.75"));
    let water = doc_lines(&f, "YW-22019");
    assert_eq!(water[0].line_vat_rate.unwrap().value(), Decimal::ZERO);
    let gas = doc_lines(&f, "BG-55120");
    assert_eq!(
        gas[0].line_vat_rate.unwrap().value(),
        dec("5"),
        "Lower Rate"
    );

    // The sales twin of this file is not confused with it.
    let sales = fixture("sage_accounting/invoices.csv");
    assert_eq!(sales.entity_type, EntityType::Invoices);
}

// ---------------------------------------------------------------------------------------
// FreeAgent expenses and projects

#[test]
fn freeagent_expenses_are_payments_with_vat_worked_out_of_the_gross_value() {
    let f = fixture("freeagent/expenses.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::Freeagent, EntityType::Expenses, true)
    );
    assert_eq!(f.layout, Some("FreeAgent expenses import template"));
    assert_clean(&f);
    assert_eq!(f.headers[0], "claimant_name", "the byte-order mark is gone");
    assert_eq!(field(&f, "claimant_name"), None, "a user, not a contact");
    assert_eq!(field(&f, "category"), Some("category"));
    assert_eq!(field(&f, "DD/MM/YYYY"), Some("date"));
    assert_eq!(field(&f, "gross_value"), Some("amount"));
    assert_eq!(field(&f, "description"), Some("description"));
    assert_eq!(field(&f, "receipt_reference"), None);
    assert_eq!(field(&f, "sales_tax_rate"), None, "an auxiliary column");
    assert_eq!(f.date_order, DateOrder::DayMonth);
    assert_eq!(
        (f.total_rows, f.rows.len(), f.left_out),
        (5, 4, 1),
        "the refund is left out, the blank line is not a row"
    );

    let e = |i: usize| f.rows[i].data.as_expense().unwrap();
    let dinner = e(0);
    assert_eq!(dinner.date, date!(2024 - 03 - 05));
    assert_eq!(dinner.description, "Dinner with client, Leeds");
    assert_eq!(dinner.category.as_deref(), Some("Accommodation and Meals"));
    assert_eq!(dinner.amount.value(), dec("27.99"));
    assert_eq!(
        dinner.vat_amount.unwrap().value(),
        dec("4.67"),
        "27.99 × 20 ÷ 120 = 4.665"
    );
    assert_eq!(dinner.provider_ref, None, "a receipt number is not unique");
    let train = e(1);
    assert_eq!(train.amount.value(), dec("64.80"));
    assert_eq!(train.vat_amount.unwrap().value(), Decimal::ZERO);
    let laptop = e(2);
    assert_eq!(
        laptop.amount.value(),
        dec("1249.00"),
        "a thousands separator"
    );
    assert_eq!(laptop.vat_amount.unwrap().value(), dec("208.17"));
    let postage = e(3);
    assert_eq!(postage.date, date!(2024 - 03 - 14));
    assert_eq!(postage.vat_amount, None, "`Auto`: FreeAgent's own rate");
}

#[test]
fn a_freeagent_expense_rate_that_is_not_a_rate_names_its_row_and_column() {
    let csv = "claimant_name,category,DD/MM/YYYY,currency,type,gross_value,description,\
               receipt_reference,sales_tax_rate\n\
               Nathan Barley,Travel,05/03/2024,GBP,Payment,12.00,Taxi,,20\n\
               Nathan Barley,Travel,06/03/2024,GBP,Payment,12.00,Taxi,,twenty\n";
    let f = parse(csv, None, None, None).unwrap();
    assert_eq!(f.rows.len(), 1);
    assert_eq!(
        f.rows[0]
            .data
            .as_expense()
            .unwrap()
            .vat_amount
            .unwrap()
            .value(),
        dec("2.00")
    );
    assert_eq!(f.errors.len(), 1);
    assert_eq!(f.errors[0].row, 3);
    assert_eq!(f.errors[0].column.as_deref(), Some("sales_tax_rate"));
}

#[test]
fn freeagent_projects_name_the_organisation_else_the_person_as_the_contact() {
    let f = fixture("freeagent/projects.csv");
    assert_eq!(
        (f.platform, f.entity_type, f.detected),
        (Platform::Freeagent, EntityType::Projects, true)
    );
    assert_eq!(f.layout, Some("FreeAgent projects import template"));
    assert_clean(&f);
    assert_eq!(field(&f, "project_name"), Some("name"));
    assert_eq!(field(&f, "organisation_name"), Some("contact_name"));
    assert_eq!(field(&f, "contact_name"), None, "an auxiliary column");
    assert_eq!(field(&f, "status"), Some("status"));
    assert_eq!(field(&f, "contract_po_reference"), None);
    assert_eq!(f.total_rows, 4, "the blank trailing line is not a row");

    let p = |i: usize| f.rows[i].data.as_project().unwrap();
    let refit = p(0);
    assert_eq!(refit.name, "Showroom refit, Leeds");
    assert_eq!(
        refit.contact_name.as_deref(),
        Some("Hartley & Sons Joinery Ltd")
    );
    assert_eq!(refit.status, Some(ProjectStatus::Active));
    assert_eq!((refit.hourly_rate, refit.budget), (None, None));
    let brand = p(1);
    assert_eq!(
        brand.contact_name.as_deref(),
        Some("Priya Shah"),
        "no organisation: the person"
    );
    assert_eq!(p(2).status, Some(ProjectStatus::Completed));
    let menus = p(3);
    assert_eq!(menus.contact_name.as_deref(), Some("Bramble Café"));
    assert_eq!(menus.status, Some(ProjectStatus::Archived), "Hidden");
}
