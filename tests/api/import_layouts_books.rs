//! The Xero, QuickBooks, Sage Accounting and Sage 50 layouts keep what their exports say
//! about the books (docs/import.md#tax-codes, docs/import.md#credit-notes,
//! docs/import.md#payments): each tax code's treatment, credit notes and supplier credits
//! as credits, Xero's dated payments, and a document's currency and rate.

use super::common;

use common::{app_with_entity, TestApp};
use rocket::http::Status;
use serde_json::{json, Value};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("tests/fixtures/import/{path}")).unwrap()
}

fn run(t: &TestApp, entity: &str, platform: &str, entity_type: &str, csv: &str) -> Value {
    let (status, v) = t.post(
        "/api/import/csv",
        json!({"entityType": entity_type, "platform": platform, "csv": csv,
               "entity_id": entity}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].clone()
}

fn list(t: &TestApp, resource: &str, entity: &str) -> Vec<Value> {
    let (status, v) = t.get(&format!("/api/{resource}?entityId={entity}"));
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

fn by_number<'a>(docs: &'a [Value], number: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["number"] == json!(number))
        .unwrap_or_else(|| panic!("no {number} in {docs:#?}"))
}

/// Each line as `description rate treatment`.
fn treatments(doc: &Value) -> Vec<String> {
    doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} {} {}",
                l["description"].as_str().unwrap(),
                l["vat_rate"],
                l["vat_treatment"].as_str().unwrap()
            )
        })
        .collect()
}

fn imported(r: &Value, n: usize) {
    assert_eq!(r["imported"], json!(n), "{r}");
    assert_eq!(r["errorCount"], json!(0), "{r}");
}

/// The five lines every fixture's first sales document has, one per treatment.
const FIVE: [&str; 5] = [
    "Oak shelf brackets 20 standard",
    "Joinery handbook 0 zero",
    "Site safety training 0 exempt",
    "Courier recharge 0 outside_scope",
    "Wood stove fuel 5 reduced",
];

#[test]
fn xero_sales_export_keeps_tax_types_the_euro_rate_and_its_credit_notes() {
    let (t, entity) = app_with_entity();
    let csv = fixture("xero/invoices_books.csv");
    imported(&run(&t, &entity, "xero", "invoices", &csv), 2);
    imported(&run(&t, &entity, "xero", "credit_notes", &csv), 1);
    let invoices = list(&t, "invoices", &entity);
    let inv = by_number(&invoices, "INV-0101");
    assert_eq!(treatments(inv), FIVE);
    assert_eq!(inv["total"], json!(252), "{inv}");
    let eur = by_number(&invoices, "INV-0102");
    assert_eq!(eur["currency"], json!("EUR"), "{eur}");
    assert_eq!(eur["exchange_rate"], json!(0.8567), "{eur}");
    assert_eq!(treatments(eur), ["Staircase design 0 zero"]);
    let cns = list(&t, "credit-notes", &entity);
    assert_eq!(cns.len(), 1, "{cns:#?}");
    let cn = by_number(&cns, "CN-0007");
    assert_eq!(cn["status"], json!("posted"), "{cn}");
    assert_eq!(cn["total"], json!(24), "{cn}");
    assert_eq!(treatments(cn), ["Brackets returned 20 standard"]);
    // The export names no invoice a credit note credits: it is imported unlinked.
    assert_eq!(cn["invoice_id"], Value::Null);
    assert!(list(&t, "supplier-credits", &entity).is_empty());
}

#[test]
fn xero_payments_import_dated_part_payments_and_refunds_once() {
    let (t, entity) = app_with_entity();
    let csv = fixture("xero/invoices_books.csv");
    imported(&run(&t, &entity, "xero", "invoices", &csv), 2);
    imported(&run(&t, &entity, "xero", "credit_notes", &csv), 1);
    let payments = fixture("xero/payments.csv");
    imported(&run(&t, &entity, "xero", "payments", &payments), 4);
    let again = run(&t, &entity, "xero", "payments", &payments);
    assert_eq!(again["skipped"], json!(4), "{again}");

    let invoices = list(&t, "invoices", &entity);
    let inv = by_number(&invoices, "INV-0101");
    assert_eq!(inv["amount_paid"], json!(152), "{inv}");
    assert_eq!(inv["amount_due"], json!(100), "{inv}");
    assert_eq!(by_number(&invoices, "INV-0102")["amount_paid"], json!(500));
    let mut dated: Vec<String> = list(&t, "payments", &entity)
        .iter()
        .map(|p| {
            format!(
                "{} {} {} {}",
                p["document_type"].as_str().unwrap(),
                p["date"].as_str().unwrap(),
                p["amount"],
                p["reference"].as_str().unwrap_or("")
            )
        })
        .collect();
    dated.sort();
    assert_eq!(
        dated,
        [
            "credit_note 2024-03-26 24 Refund brackets",
            "invoice 2024-03-10 100 BACS HARTLEY",
            "invoice 2024-03-20 52 BACS HARTLEY",
            "invoice 2024-03-25 500 SEPA BERLIN",
        ]
    );
}

#[test]
fn sage50_audit_trail_keeps_t_codes_and_imports_sc_and_pc_rows_as_credits() {
    let (t, entity) = app_with_entity();
    let csv = fixture("sage50/invoices_books.csv");
    imported(&run(&t, &entity, "sage50", "invoices", &csv), 1);
    imported(&run(&t, &entity, "sage50", "bills", &csv), 2);
    imported(&run(&t, &entity, "sage50", "credit_notes", &csv), 1);
    imported(&run(&t, &entity, "sage50", "supplier_credits", &csv), 1);
    let inv = &list(&t, "invoices", &entity)[0];
    assert_eq!(treatments(inv), FIVE);
    let bills = list(&t, "bills", &entity);
    let rc = by_number(&bills, "F-5521");
    assert_eq!(treatments(rc), ["Lathe parts from Lyon 20 reverse_charge"]);
    // T8: the buyer accounts for the (notional) VAT the row states, so it is not owed
    // to the supplier.
    assert_eq!(rc["total"], json!(200), "{rc}");
    assert_eq!(rc["lines"][0]["reverse_charge_vat"], json!(40), "{rc}");
    let cn = &list(&t, "credit-notes", &entity)[0];
    assert_eq!(cn["number"], json!("CN5"));
    assert_eq!(cn["total"], json!(24), "{cn}");
    let sc = &list(&t, "supplier-credits", &entity)[0];
    assert_eq!(sc["number"], json!("CR-12"));
    assert_eq!(sc["total"], json!(12), "{sc}");
    assert_eq!(treatments(sc), ["Paper returned (1 box) 20 standard"]);
}

#[test]
fn sage_accounting_rate_names_keep_their_treatments_and_cr_notes_become_credit_notes() {
    let (t, entity) = app_with_entity();
    let csv = fixture("sage_accounting/invoices_books.csv");
    imported(&run(&t, &entity, "sage_accounting", "invoices", &csv), 1);
    imported(
        &run(&t, &entity, "sage_accounting", "credit_notes", &csv),
        1,
    );
    let inv = &list(&t, "invoices", &entity)[0];
    assert_eq!(treatments(inv), FIVE);
    assert_eq!(inv["total"], json!(252), "{inv}");
    let cn = &list(&t, "credit-notes", &entity)[0];
    assert_eq!(cn["number"], json!("SCN-7"));
    assert_eq!(cn["total"], json!(24), "{cn}");
}

#[test]
fn quickbooks_tax_codes_keep_their_treatments_and_a_multicurrency_invoice_its_rate() {
    let (t, entity) = app_with_entity();
    let csv = fixture("quickbooks/invoices_books.csv");
    imported(&run(&t, &entity, "quickbooks", "invoices", &csv), 2);
    let invoices = list(&t, "invoices", &entity);
    let inv = by_number(&invoices, "2001");
    assert_eq!(treatments(inv), FIVE);
    assert_eq!(inv["total"], json!(252), "{inv}");
    let eur = by_number(&invoices, "2002");
    assert_eq!(eur["currency"], json!("EUR"), "{eur}");
    assert_eq!(eur["exchange_rate"], json!(0.8567), "{eur}");
}

#[test]
fn sage_accounting_purchase_cr_notes_become_supplier_credits() {
    let (t, entity) = app_with_entity();
    let csv = fixture("sage_accounting/bills.csv");
    imported(&run(&t, &entity, "sage_accounting", "bills", &csv), 4);
    imported(
        &run(&t, &entity, "sage_accounting", "supplier_credits", &csv),
        1,
    );
    let sc = &list(&t, "supplier-credits", &entity)[0];
    assert_eq!(sc["number"], json!("CN-0112"), "{sc}");
    assert_eq!(sc["total"], json!(29.4), "{sc}");
    assert_eq!(treatments(sc), ["Damaged box 20 standard"]);
}

/// QuickBooks Online's transaction list report: its credit notes (`Credit Note` in UK
/// companies, `Credit Memo` in others) import as posted credit notes at the report's
/// gross amount, whatever its sign; invoices, payments and refund receipts are left out.
/// The report has no tax column, so the credit's VAT is what its totals say: none.
#[test]
fn quickbooks_transaction_list_credit_notes_import_as_credit_notes() {
    let (t, entity) = app_with_entity();
    let csv = fixture("quickbooks/credit_notes.csv");
    let (status, v) = t.post(
        "/api/import/preview",
        json!({"mode": "csv", "csv": csv, "entity_id": entity}),
    );
    assert_eq!(status, Status::Ok, "{v}");
    assert_eq!(
        (&v["data"]["platform"], &v["data"]["entityType"]),
        (&json!("quickbooks"), &json!("credit_notes")),
        "{v}"
    );
    let out = run(&t, &entity, "quickbooks", "credit_notes", &csv);
    imported(&out, 2);
    let cns = list(&t, "credit-notes", &entity);
    assert_eq!(cns.len(), 2, "{cns:#?}");
    let cn = by_number(&cns, "1002");
    assert_eq!(cn["status"], json!("posted"), "{cn}");
    assert_eq!(cn["issue_date"], json!("2024-03-12"), "{cn}");
    assert_eq!(cn["contact_name"], json!("Acme Retail Ltd"), "{cn}");
    assert_eq!(cn["total"], json!(240), "{cn}");
    assert_eq!(cn["vat_total"], json!(0), "{cn}");
    assert_eq!(treatments(cn), ["Damaged worktop returned 0 zero"]);
    let split = by_number(&cns, "1004");
    assert_eq!(split["total"], json!(120), "{split}");
    assert_eq!(treatments(split), ["-Split- 0 zero"]);
    assert_eq!(cn["invoice_id"], Value::Null);
    // Nothing else of the report is imported.
    assert!(list(&t, "invoices", &entity).is_empty());
}
