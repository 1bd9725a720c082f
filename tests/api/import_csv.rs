//! Import runs (docs/import.md#preview, docs/import.md#plan,
//! docs/import.md#imported-documents): every fixture detected, previewed, imported with
//! exact values and re-imported with nothing new; dedup on every type and across CSV and
//! API; row failures with their row and column; a run that fails midway keeps nothing;
//! the remap step; the generic mapping; plan gating.

use super::common;

use common::{app, app_with, app_with_entity, assert_error, TestApp};
use rocket::http::Status;
use serde_json::{json, Value};
use stockbook::connectors::ImportRow;
use stockbook::import::{self, EntityType};
use stockbook::scope::Scope;

// ---------------------------------------------------------------------------------------
// Helpers

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("tests/fixtures/import/{path}")).unwrap()
}

fn preview(t: &TestApp, body: Value) -> Value {
    let (status, v) = t.post("/api/import/preview", body);
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].clone()
}

/// The run's answer without `skippedRows`, after checking that it lists one row and
/// reason per skipped record (import_fill.rs checks the rows and reasons themselves).
fn run(t: &TestApp, body: Value) -> Value {
    let (status, v) = t.post("/api/import/csv", body);
    assert_eq!(status, Status::Ok, "{v}");
    let mut data = v["data"].clone();
    let listed = data
        .as_object_mut()
        .unwrap()
        .remove("skippedRows")
        .unwrap_or(json!([]));
    let listed = listed.as_array().unwrap();
    assert_eq!(json!(listed.len()), data["skipped"], "{v}");
    assert!(
        listed
            .iter()
            .all(|s| s["row"].is_u64() && s["reason"].is_string()),
        "{v}"
    );
    data
}

fn run_csv(t: &TestApp, entity: &str, entity_type: &str, csv: &str) -> Value {
    run(
        t,
        json!({"entityType": entity_type, "csv": csv, "entity_id": entity}),
    )
}

fn list(t: &TestApp, resource: &str, entity: &str) -> Vec<Value> {
    let (status, v) = t.get(&format!("/api/{resource}?entityId={entity}"));
    assert_eq!(status, Status::Ok, "{v}");
    v["data"].as_array().unwrap().clone()
}

/// The record whose `key` is `value`.
fn find<'a>(records: &'a [Value], key: &str, value: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r[key] == json!(value))
        .unwrap_or_else(|| panic!("no record with {key} = {value} in {records:#?}"))
}

fn outcome(imported: usize, skipped: usize) -> Value {
    json!({"imported": imported, "skipped": skipped, "failed": [], "errorCount": 0})
}

fn n(v: &Value) -> String {
    v.to_string()
}

/// Lines as `description | qty | price | discount | rate | net | vat`.
fn lines(doc: &Value) -> Vec<String> {
    doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} | {} | {} | {} | {} | {} | {}",
                l["description"].as_str().unwrap(),
                l["quantity"],
                l["unit_price"],
                l["discount"],
                l["vat_rate"],
                l["net"],
                l["vat"]
            )
        })
        .collect()
}

fn totals(doc: &Value) -> String {
    format!(
        "{} + {} = {} (paid {})",
        doc["subtotal"], doc["vat_total"], doc["total"], doc["amount_paid"]
    )
}

fn resource(entity_type: &str) -> &'static str {
    match entity_type {
        "contacts" => "contacts",
        "products" => "products",
        "invoices" => "invoices",
        "bills" => "bills",
        "expenses" => "expenses",
        "projects" => "projects",
        "time_entries" => "time-entries",
        "subscriptions" => "recurring-invoices",
        other => panic!("no resource for {other}"),
    }
}

/// A fixture and what detection must make of it.
struct Case {
    file: &'static str,
    platform: &'static str,
    entity_type: &'static str,
    detected: bool,
    total_rows: usize,
    /// Records the file holds (documents for invoices and bills).
    records: usize,
    /// Some of the mapping: header → field.
    mapping: &'static [(&'static str, Option<&'static str>)],
}

/// Detects and previews the file through the API, imports it, imports it again (nothing
/// new, everything skipped) and previews it once more (everything a duplicate). Returns
/// the app, the entity and the imported records as the type's GET endpoint lists them.
fn round_trip(c: &Case) -> (TestApp, String, Vec<Value>) {
    let (t, entity) = app_with_entity();
    let csv = fixture(c.file);

    // Detection and preview, without and with an entity.
    let p = preview(&t, json!({"mode": "csv", "csv": csv}));
    assert_eq!(p["platform"], json!(c.platform), "{}", c.file);
    assert_eq!(p["detected"], json!(c.detected), "{}", c.file);
    assert_eq!(p["entityType"], json!(c.entity_type), "{}", c.file);
    assert_eq!(p["totalRows"], json!(c.total_rows), "{}", c.file);
    assert_eq!(p["errors"], json!([]), "{}", c.file);
    assert_eq!(p["duplicates"], json!(0), "{}", c.file);
    for (header, field) in c.mapping {
        assert_eq!(
            p["mapping"][header],
            json!(field),
            "{}: mapping of {header} in {}",
            c.file,
            p["mapping"]
        );
    }
    let fields: Vec<&str> = p["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(!fields.is_empty());
    let rows = p["rows"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= 20, "{}", c.file);
    assert!(rows.iter().all(|r| r["row"].as_u64().unwrap() >= 1));
    let with_entity = preview(&t, json!({"mode": "csv", "csv": csv, "entity_id": entity}));
    assert_eq!(with_entity["duplicates"], json!(0), "{}", c.file);
    assert_eq!(with_entity["errors"], json!([]), "{}", c.file);
    for r in [resource(c.entity_type), "contacts"] {
        assert!(
            list(&t, r, &entity).is_empty(),
            "{}: the preview's dry run kept {r}",
            c.file
        );
    }

    // The run, then the same file again.
    assert_eq!(
        run_csv(&t, &entity, c.entity_type, &csv),
        outcome(c.records, 0),
        "{}",
        c.file
    );
    assert_eq!(
        run_csv(&t, &entity, c.entity_type, &csv),
        outcome(0, c.records),
        "{}: a re-import imports nothing",
        c.file
    );
    let again = preview(&t, json!({"mode": "csv", "csv": csv, "entity_id": entity}));
    assert_eq!(again["duplicates"], json!(c.records), "{}", c.file);
    let records = list(&t, resource(c.entity_type), &entity);
    assert_eq!(records.len(), c.records, "{}", c.file);
    (t, entity, records)
}

// ---------------------------------------------------------------------------------------
// Every fixture

#[test]
fn xero_contacts_import_with_addresses_account_numbers_and_vat_numbers() {
    let (_, _, records) = round_trip(&Case {
        file: "xero/contacts.csv",
        platform: "xero",
        entity_type: "contacts",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("*ContactName", Some("name")),
            ("AccountNumber", Some("provider_ref")),
            ("TaxNumber", Some("vat_number")),
            ("POCity", Some("address")),
            ("SACity", None),
        ],
    });
    let h = find(&records, "name", "Hartley & Sons Joinery Ltd");
    assert_eq!(h["type"], json!("customer"));
    assert_eq!(h["email"], json!("accounts@hartleyjoinery.co.uk"));
    assert_eq!(h["phone"], json!("0113 496 0321"));
    assert_eq!(
        h["address"],
        json!("Unit 4, Riverside Trading Estate, Hunslet, Leeds, West Yorkshire, LS11 5QB, United Kingdom")
    );
    assert_eq!(h["vat_number"], json!("GB123456789"));
    assert_eq!(h["provider"], json!("xero"));
    assert_eq!(h["provider_ref"], json!("HART01"));
    let f = find(&records, "name", "Fiona O'Neill Photography");
    assert_eq!(
        f["address"],
        json!("Flat 2, 7 Castle Row, Harrogate, HG1 2RD")
    );
    assert_eq!(f["provider_ref"], Value::Null);
}

#[test]
fn xero_invoices_import_with_their_lines_statuses_and_source_totals() {
    let (t, entity, records) = round_trip(&Case {
        file: "xero/invoices.csv",
        platform: "xero",
        entity_type: "invoices",
        detected: true,
        total_rows: 7,
        records: 3,
        mapping: &[
            ("InvoiceNumber", Some("number")),
            ("ContactName", Some("contact_name")),
            ("UnitAmount", Some("line_unit_price")),
            ("TaxType", Some("line_vat_rate")),
            ("Total", Some("total")),
            ("TaxAmount", None),
        ],
    });
    let a = find(&records, "number", "INV-0041");
    assert_eq!(a["contact_name"], json!("Hartley & Sons Joinery Ltd"));
    assert_eq!(a["issue_date"], json!("2024-03-05"));
    assert_eq!(a["due_date"], json!("2024-04-04"));
    assert_eq!(a["status"], json!("sent"));
    assert_eq!(a["provider"], json!("xero"));
    assert_eq!(
        lines(a),
        [
            "Oak worktop, 3m | 2 | 412.5 | 0 | 20 | 825 | 165",
            "Fitting labour, 9 hours | 1 | 203.75 | 0 | 20 | 203.75 | 40.75"
        ]
    );
    assert_eq!(totals(a), "1028.75 + 205.75 = 1234.5 (paid 0)");
    let b = find(&records, "number", "INV-0042");
    assert_eq!(b["status"], json!("paid"));
    assert_eq!(totals(b), "340 + 68 = 408 (paid 408)");
    let c = find(&records, "number", "INV-0043");
    assert_eq!(c["status"], json!("draft"));
    assert_eq!(
        lines(c),
        [
            "Framing, A3 oak | 3 | 45 | 0 | 20 | 135 | 27",
            "Delivery | 1 | 12.5 | 0 | 0 | 12.5 | 0",
            "Photo book, A4 (printed matter) | 2 | 18 | 0 | 0 | 36 | 0"
        ]
    );
    assert_eq!(totals(c), "183.5 + 27 = 210.5 (paid 0)");
    // The contacts the invoices named were created once, as customers.
    let contacts = list(&t, "contacts", &entity);
    assert_eq!(contacts.len(), 3);
    assert_eq!(
        find(&contacts, "name", "Bramble Café")["type"],
        json!("customer")
    );
}

#[test]
fn xero_bills_import_per_supplier_even_when_two_suppliers_share_a_number() {
    let (t, entity, records) = round_trip(&Case {
        file: "xero/bills.csv",
        platform: "xero",
        entity_type: "bills",
        detected: true,
        total_rows: 4,
        records: 3,
        mapping: &[
            ("InvoiceNumber", Some("number")),
            ("InvoiceAmountPaid", Some("amount_paid")),
        ],
    });
    let ones: Vec<&Value> = records
        .iter()
        .filter(|b| b["number"] == json!("1001"))
        .collect();
    assert_eq!(ones.len(), 2, "supplier + number is the key");
    let water = find(&records, "contact_name", "Yorkshire Water");
    assert_eq!(water["status"], json!("paid"));
    assert_eq!(totals(water), "96.4 + 0 = 96.4 (paid 96.4)");
    let print = find(&records, "number", "7781");
    assert_eq!(print["status"], json!("awaiting_payment"));
    assert_eq!(
        lines(print),
        [
            "Paper, A4 80gsm (10 boxes) | 10 | 24.5 | 0 | 20 | 245 | 49",
            "Toner cartridges | 2 | 90 | 0 | 20 | 180 | 36"
        ]
    );
    assert_eq!(totals(print), "425 + 85 = 510 (paid 0)");
    let suppliers = list(&t, "contacts", &entity);
    assert!(suppliers.iter().all(|c| c["type"] == json!("supplier")));
}

#[test]
fn xero_products_import_with_prices_and_vat_rates_but_no_stock() {
    let (t, entity, records) = round_trip(&Case {
        file: "xero/products.csv",
        platform: "xero",
        entity_type: "products",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("*ItemCode", Some("sku")),
            ("ItemName", Some("name")),
            ("SalesUnitPrice", Some("unit_price")),
            ("PurchasesUnitPrice", Some("cost_price")),
            ("Quantity", None),
        ],
    });
    let oak = find(&records, "sku", "OAK-WT-3M");
    assert_eq!(oak["name"], json!("Oak worktop 3m"));
    assert_eq!(
        oak["description"],
        json!("Solid oak worktop, 3 metre, oiled")
    );
    assert_eq!(n(&oak["unit_price"]), "412.5");
    assert_eq!(n(&oak["cost_price"]), "280");
    assert_eq!(n(&oak["vat_rate"]), "20");
    assert_eq!(n(&oak["stock_qty"]), "0");
    assert_eq!(n(&find(&records, "sku", "BOOK-A4")["vat_rate"]), "0");
    assert!(list(&t, "stock-movements", &entity).is_empty());
}

#[test]
fn quickbooks_contacts_go_through_the_name_based_mapping() {
    let (_, _, records) = round_trip(&Case {
        file: "quickbooks/contacts.csv",
        platform: "generic",
        entity_type: "contacts",
        detected: false,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Full Name", Some("name")),
            ("Email", Some("email")),
            ("Phone", Some("phone")),
            ("Opening Balance", None),
        ],
    });
    let p = find(&records, "name", "Priya Shah");
    assert_eq!(p["email"], json!("priya@shahdesign.co.uk"));
    assert_eq!(
        p["address"],
        json!("3 Mount Pleasant, Ilkley, West Yorkshire, LS29 8AA, United Kingdom")
    );
    assert_eq!(p["provider"], json!("generic"));
}

#[test]
fn quickbooks_invoices_import_with_tax_codes_read_as_rates() {
    let (_, _, records) = round_trip(&Case {
        file: "quickbooks/invoices.csv",
        platform: "quickbooks",
        entity_type: "invoices",
        detected: true,
        total_rows: 3,
        records: 2,
        mapping: &[
            ("*InvoiceNo", Some("number")),
            ("*Customer", Some("contact_name")),
            ("*ItemTaxCode", Some("line_vat_rate")),
        ],
    });
    let a = find(&records, "number", "1043");
    assert_eq!(a["issue_date"], json!("2024-03-06"));
    assert_eq!(a["due_date"], json!("2024-04-05"));
    assert_eq!(
        lines(a),
        [
            "Solid oak worktop, 3 metre | 2 | 412.5 | 0 | 20 | 825 | 165",
            "Site survey | 1 | 1250 | 0 | 20 | 1250 | 250"
        ]
    );
    assert_eq!(totals(a), "2075 + 415 = 2490 (paid 0)");
    let b = find(&records, "number", "1044");
    assert_eq!(
        lines(b),
        ["Printed menus, A4, laminated | 40 | 1.85 | 0 | 0 | 74 | 0"]
    );
}

#[test]
fn quickbooks_products_import_pound_prices_and_get_a_generated_sku_when_none() {
    let (_, _, records) = round_trip(&Case {
        file: "quickbooks/products.csv",
        platform: "quickbooks",
        entity_type: "products",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Product/Service Name", Some("name")),
            ("SKU", Some("sku")),
            ("Sales Price / Rate", Some("unit_price")),
            ("Quantity On Hand", None),
        ],
    });
    let survey = find(&records, "name", "Site survey");
    assert_eq!(n(&survey["unit_price"]), "1250");
    assert_eq!(survey["sku"], json!("SKU-00001"));
    let mug = find(&records, "sku", "MUG-12OZ");
    assert_eq!(n(&mug["unit_price"]), "8.5");
    assert_eq!(n(&mug["cost_price"]), "3.2");
    assert_eq!(n(&mug["stock_qty"]), "0");
}

#[test]
fn sage_accounting_contacts_import_with_their_references() {
    let (_, _, records) = round_trip(&Case {
        file: "sage_accounting/contacts.csv",
        platform: "sage_accounting",
        entity_type: "contacts",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Company Name", Some("name")),
            ("Reference", Some("provider_ref")),
            ("Main Address Town", Some("address")),
            ("Address 2 Town", None),
        ],
    });
    let l = find(&records, "name", "Liffey Frames Ltd");
    assert_eq!(l["provider_ref"], json!("DUBL01"));
    assert_eq!(l["vat_number"], json!("IE1234567T"));
    assert_eq!(l["phone"], json!("+353 1 555 0101"));
    assert_eq!(l["address"], json!("22 Ormond Quay, Dublin, D07 X2Y3, IE"));
}

#[test]
fn sage_accounting_invoices_import_with_the_default_terms() {
    let (_, _, records) = round_trip(&Case {
        file: "sage_accounting/invoices.csv",
        platform: "sage_accounting",
        entity_type: "invoices",
        detected: true,
        total_rows: 4,
        records: 2,
        mapping: &[
            ("Reference", Some("number")),
            ("Net", Some("line_unit_price")),
            ("VAT Rate", Some("line_vat_rate")),
            ("Total", None),
        ],
    });
    let b = find(&records, "number", "SI-1002");
    assert_eq!(b["contact_name"], json!("Bramble Café"));
    assert_eq!(b["issue_date"], json!("2024-02-15"));
    assert_eq!(b["due_date"], json!("2024-03-16"), "issue date + 30 days");
    assert_eq!(
        lines(b),
        [
            "Counter shelving | 1 | 340 | 0 | 20 | 340 | 68",
            "Printed menus | 1 | 36 | 0 | 0 | 36 | 0"
        ]
    );
    assert_eq!(totals(b), "376 + 68 = 444 (paid 0)");
    assert_eq!(
        totals(find(&records, "number", "SI-1001")),
        "1028.75 + 205.75 = 1234.5 (paid 0)"
    );
}

#[test]
fn sage50_headerless_contacts_import_by_position() {
    let (_, _, records) = round_trip(&Case {
        file: "sage50/contacts.csv",
        platform: "sage50",
        entity_type: "contacts",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("A/C", Some("provider_ref")),
            ("Name", Some("name")),
            ("VAT Number", Some("vat_number")),
            ("Credit Limit", None),
        ],
    });
    let h = find(&records, "provider_ref", "HART01");
    assert_eq!(h["name"], json!("Hartley & Sons Joinery Ltd"));
    assert_eq!(h["vat_number"], json!("GB123456789"));
    assert_eq!(h["provider"], json!("sage50"));
}

#[test]
fn sage50_products_import_tax_codes_as_rates() {
    let (_, _, records) = round_trip(&Case {
        file: "sage50/products.csv",
        platform: "sage50",
        entity_type: "products",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Stock Code", Some("sku")),
            ("Description", Some("name")),
            ("Tax Code", Some("vat_rate")),
            ("Re-order Level", None),
        ],
    });
    let book = find(&records, "sku", "BOOK-A4");
    assert_eq!(book["name"], json!("Photo book A4, 40 pages"));
    assert_eq!(n(&book["unit_price"]), "18");
    assert_eq!(n(&book["cost_price"]), "9.4");
    assert_eq!(n(&book["vat_rate"]), "0");
    assert_eq!(book["unit"], json!("Each"));
    assert_eq!(book["category"], json!("3"));
    let mug = find(&records, "sku", "MUG-12OZ");
    assert_eq!(mug["barcode"], json!("5012345678917"));
    assert_eq!(n(&mug["vat_rate"]), "20");
}

#[test]
fn sage50_audit_trail_invoices_name_contacts_by_account_code() {
    let (t, entity, records) = round_trip(&Case {
        file: "sage50/invoices.csv",
        platform: "sage50",
        entity_type: "invoices",
        detected: true,
        total_rows: 6,
        records: 3,
        mapping: &[
            ("Account Reference", Some("contact_name")),
            ("Reference", Some("number")),
            ("Net Amount", Some("line_unit_price")),
            ("Tax Code", Some("line_vat_rate")),
        ],
    });
    let a = find(&records, "number", "1001");
    assert_eq!(a["contact_name"], json!("HART01"));
    assert_eq!(totals(a), "1028.75 + 205.75 = 1234.5 (paid 0)");
    let c = find(&records, "number", "1003");
    assert_eq!(
        lines(c),
        [
            "Framing, A3 oak | 1 | 135 | 0 | 20 | 135 | 27",
            "Delivery | 1 | 12.5 | 0 | 0 | 12.5 | 0"
        ]
    );
    // A contact named by code and not found is created with the code as its reference.
    let contacts = list(&t, "contacts", &entity);
    assert_eq!(
        find(&contacts, "name", "HART01")["provider_ref"],
        json!("HART01")
    );
}

#[test]
fn sage50_bills_import_the_purchase_invoice_rows_only() {
    let (_, _, records) = round_trip(&Case {
        file: "sage50/bills.csv",
        platform: "sage50",
        entity_type: "bills",
        detected: true,
        total_rows: 4,
        records: 2,
        mapping: &[
            ("Account Reference", Some("contact_name")),
            ("Reference", Some("number")),
            ("Type", None),
        ],
    });
    let print = find(&records, "number", "7781");
    assert_eq!(print["contact_name"], json!("NPS01"));
    assert_eq!(totals(print), "425 + 85 = 510 (paid 0)");
    assert_eq!(
        totals(find(&records, "number", "YW-22019")),
        "96.4 + 0 = 96.4 (paid 0)"
    );
}

#[test]
fn sage50_expenses_import_into_the_standard_categories_of_their_nominal_codes() {
    let (t, entity, records) = round_trip(&Case {
        file: "sage50/expenses.csv",
        platform: "sage50",
        entity_type: "expenses",
        detected: true,
        total_rows: 4,
        records: 3,
        mapping: &[
            ("Date", Some("date")),
            ("Details", Some("description")),
            ("Tax Amount", Some("vat_amount")),
            ("Nominal A/C Ref", Some("category")),
        ],
    });
    let categories = list(&t, "expense-categories", &entity);
    let stationery = find(&records, "description", "Stationery, Ryman Leeds");
    assert_eq!(stationery["date"], json!("2024-03-18"));
    assert_eq!(n(&stationery["amount"]), "50");
    assert_eq!(n(&stationery["vat_amount"]), "8.33");
    assert_eq!(stationery["provider_ref"], json!("CHQ104"));
    assert_eq!(
        stationery["category_id"],
        find(&categories, "code", "7500")["id"]
    );
    let train = find(&records, "description", "Train tickets, York to Leeds");
    assert_eq!(n(&train["amount"]), "24.8");
    assert_eq!(
        train["category_id"],
        find(&categories, "name", "Travel and subsistence")["id"]
    );
    assert!(
        categories.iter().all(|c| c["standard"] == json!(true)),
        "no category was made up: {categories:#?}"
    );
}

#[test]
fn sage50_headerless_projects_import_with_customers_named_by_account_code() {
    let (t, entity, records) = round_trip(&Case {
        file: "sage50/projects.csv",
        platform: "sage50",
        entity_type: "projects",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Name", Some("name")),
            ("Customer A/C Ref", Some("contact_name")),
            ("Status ID", None),
            ("Price Quoted", None),
        ],
    });
    let contacts = list(&t, "contacts", &entity);
    assert_eq!(contacts.len(), 2);
    let hartley = find(&contacts, "provider_ref", "HART001");
    assert_eq!(hartley["type"], json!("customer"));
    let kitchen = find(&records, "name", "Hartley kitchen fit-out");
    assert_eq!(kitchen["contact_id"], hartley["id"]);
    assert_eq!(kitchen["status"], json!("active"), "the default");
    assert_eq!(
        find(&records, "name", "Workshop refit")["contact_id"],
        Value::Null
    );
}

#[test]
fn freeagent_contacts_import_with_joined_addresses() {
    let (_, _, records) = round_trip(&Case {
        file: "freeagent/contacts.csv",
        platform: "freeagent",
        entity_type: "contacts",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Company", Some("name")),
            ("E-mail Address", Some("email")),
            ("Business Street", Some("address")),
            ("Mobile Phone", None),
        ],
    });
    let b = find(&records, "name", "Bramble Café");
    assert_eq!(
        b["address"],
        json!("12 High Street, York, North Yorkshire, YO1 8RS")
    );
    assert_eq!(b["phone"], json!("01904 555 210"));
    assert_eq!(b["provider"], json!("freeagent"));
}

#[test]
fn kashflow_customers_import_with_their_codes() {
    let (_, _, records) = round_trip(&Case {
        file: "kashflow/contacts.csv",
        platform: "kashflow",
        entity_type: "contacts",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Customer Code", Some("provider_ref")),
            ("Name", Some("name")),
            ("Telephone", Some("phone")),
            ("Notes", None),
        ],
    });
    let h = find(&records, "provider_ref", "HART0001");
    assert_eq!(h["name"], json!("Hartley & Sons Joinery Ltd"));
    assert_eq!(h["type"], json!("customer"));
    assert_eq!(h["phone"], json!("01134960321"));
}

#[test]
fn kashflow_suppliers_import_as_suppliers() {
    let (_, _, records) = round_trip(&Case {
        file: "kashflow/contacts_suppliers.csv",
        platform: "kashflow",
        entity_type: "contacts",
        detected: true,
        total_rows: 2,
        records: 2,
        mapping: &[
            ("Supplier Name", Some("name")),
            ("Supplier Code", Some("provider_ref")),
            ("VAT Number", Some("vat_number")),
        ],
    });
    let p = find(&records, "provider_ref", "NPS00001");
    assert_eq!(p["name"], json!("Northern Print Supplies Ltd"));
    assert_eq!(p["type"], json!("supplier"));
    assert_eq!(p["vat_number"], json!("GB987654321"));
}

#[test]
fn kashflow_invoices_import_and_find_customers_by_code() {
    let (t, entity, records) = round_trip(&Case {
        file: "kashflow/invoices.csv",
        platform: "kashflow",
        entity_type: "invoices",
        detected: true,
        total_rows: 4,
        records: 3,
        mapping: &[
            ("Invoice Number", Some("number")),
            ("Customer Code", Some("contact_name")),
            ("Line-Rate", Some("line_unit_price")),
            ("Line-VAT Rate", Some("line_vat_rate")),
        ],
    });
    let a = find(&records, "number", "101");
    assert_eq!(totals(a), "1028.75 + 205.75 = 1234.5 (paid 0)");
    let l = find(&records, "number", "103");
    assert_eq!(
        lines(l),
        ["Frame mouldings, oak | 4 | 22 | 0 | 0 | 88 | 0"],
        "KashFlow's -2 is no VAT"
    );
    // With the customers imported first, a fresh entity's invoices name them.
    let other = t.entity("Second Ltd");
    run_csv(&t, &other, "contacts", &fixture("kashflow/contacts.csv"));
    run_csv(&t, &other, "invoices", &fixture("kashflow/invoices.csv"));
    let invoices = list(&t, "invoices", &other);
    assert_eq!(
        find(&invoices, "number", "101")["contact_name"],
        json!("Hartley & Sons Joinery Ltd")
    );
    assert_eq!(
        list(&t, "contacts", &other).len(),
        3,
        "no contact was added"
    );
    assert_eq!(list(&t, "invoices", &entity).len(), 3);
}

#[test]
fn kashflow_purchase_receipts_import_as_bills() {
    let (_, _, records) = round_trip(&Case {
        file: "kashflow/bills.csv",
        platform: "kashflow",
        entity_type: "bills",
        detected: true,
        total_rows: 3,
        records: 2,
        mapping: &[
            ("Receipt Number", Some("number")),
            ("Supplier Code", Some("contact_name")),
            ("Line Rate", Some("line_unit_price")),
        ],
    });
    let b = find(&records, "number", "501");
    assert_eq!(b["contact_name"], json!("NPS00001"));
    assert_eq!(b["due_date"], json!("2024-03-20"));
    // No status column: a KashFlow purchase receipt is an issued bill, not a draft.
    assert_eq!(b["status"], json!("awaiting_payment"));
    assert_eq!(
        lines(b),
        [
            "Paper, A4 80gsm (box) | 10 | 24.5 | 0 | 20 | 245 | 49",
            "Toner cartridges | 2 | 90 | 0 | 20 | 180 | 36"
        ]
    );
}

#[test]
fn zoho_books_contacts_import_with_their_types_and_ids() {
    let (_, _, records) = round_trip(&Case {
        file: "zoho_books/contacts.csv",
        platform: "zoho_books",
        entity_type: "contacts",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Display Name", Some("name")),
            ("Contact Type", Some("type")),
            ("Customer ID", Some("provider_ref")),
        ],
    });
    let n = find(&records, "name", "Northern Print Supplies Ltd");
    assert_eq!(n["type"], json!("supplier"));
    assert_eq!(n["provider_ref"], json!("2520018000000073048"));
}

#[test]
fn zoho_books_invoices_import_with_partial_payments() {
    let (_, _, records) = round_trip(&Case {
        file: "zoho_books/invoices.csv",
        platform: "zoho_books",
        entity_type: "invoices",
        detected: true,
        total_rows: 4,
        records: 2,
        mapping: &[
            ("Invoice Number", Some("number")),
            ("Invoice ID", Some("provider_ref")),
            ("Item Tax %", Some("line_vat_rate")),
            ("Total", Some("total")),
        ],
    });
    let b = find(&records, "number", "INV-000042");
    assert_eq!(b["provider_ref"], json!("2520018000000073164"));
    assert_eq!(b["status"], json!("sent"));
    assert_eq!(
        lines(b),
        [
            "Counter shelving, painted | 1 | 340 | 0 | 20 | 340 | 68",
            "Printed menus, A4 | 20 | 1.8 | 0 | 0 | 36 | 0"
        ]
    );
    assert_eq!(totals(b), "376 + 68 = 444 (paid 200)");
}

#[test]
fn zoho_books_invoices_import_in_every_status_zoho_documents() {
    let (_, _, records) = round_trip(&Case {
        file: "zoho_books/invoices_statuses.csv",
        platform: "zoho_books",
        entity_type: "invoices",
        detected: true,
        total_rows: 8,
        records: 8,
        mapping: &[("Invoice Status", Some("status"))],
    });
    let doc = |number: &str| {
        let d = find(&records, "number", number);
        format!("{} {}", d["status"].as_str().unwrap(), totals(d))
    };
    assert_eq!(doc("INV-000051"), "sent 250 + 50 = 300 (paid 180)");
    assert_eq!(doc("INV-000052"), "sent 200 + 40 = 240 (paid 0)");
    assert_eq!(doc("INV-000053"), "sent 412.5 + 82.5 = 495 (paid 0)");
    assert_eq!(doc("INV-000054"), "sent 18 + 0 = 18 (paid 0)");
    assert_eq!(doc("INV-000055"), "void 9 + 0 = 9 (paid 0)");
    assert_eq!(doc("INV-000056"), "draft 50 + 10 = 60 (paid 0)");
    assert_eq!(doc("INV-000057"), "sent 75 + 15 = 90 (paid 0)");
    assert_eq!(doc("INV-000058"), "paid 100 + 20 = 120 (paid 120)");
}

#[test]
fn zoho_books_bills_import_in_every_status_zoho_documents() {
    let (_, _, records) = round_trip(&Case {
        file: "zoho_books/bills_statuses.csv",
        platform: "zoho_books",
        entity_type: "bills",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[("Bill Status", Some("status"))],
    });
    let doc = |number: &str| {
        let d = find(&records, "number", number);
        format!("{} {}", d["status"].as_str().unwrap(), totals(d))
    };
    assert_eq!(
        doc("NPS-4502"),
        "awaiting_payment 100 + 20 = 120 (paid 100)"
    );
    assert_eq!(doc("NPS-4503"), "awaiting_payment 50 + 10 = 60 (paid 0)");
    assert_eq!(doc("NPS-4504"), "void 25 + 5 = 30 (paid 0)");
    assert_eq!(doc("NPS-4505"), "draft 25 + 5 = 30 (paid 0)");
}

// Zoho Books items, bills, expenses, projects, timesheets and recurring invoices.

#[test]
fn zoho_books_items_import_with_sales_and_purchase_rates() {
    let (t, entity, records) = round_trip(&Case {
        file: "zoho_books/products.csv",
        platform: "zoho_books",
        entity_type: "products",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("Item Name", Some("name")),
            ("Rate", Some("unit_price")),
            ("Purchase Rate", Some("cost_price")),
            ("Tax Percentage", Some("vat_rate")),
            ("Stock On Hand", None),
        ],
    });
    let oak = find(&records, "sku", "OAK-WT-3M");
    assert_eq!(oak["name"], json!("Oak worktop 3m"));
    assert_eq!(oak["description"], json!("Solid oak worktop, 3 metre"));
    assert_eq!(n(&oak["unit_price"]), "412.5");
    assert_eq!(n(&oak["cost_price"]), "265");
    assert_eq!(n(&oak["vat_rate"]), "20");
    assert_eq!(n(&oak["stock_qty"]), "0", "stock is not imported");
    assert_eq!(n(&find(&records, "sku", "MENU-A4")["vat_rate"]), "0");
    assert_eq!(
        n(&find(&records, "name", "Counter shelving, painted")["cost_price"]),
        "1234.5"
    );
    assert!(list(&t, "stock-movements", &entity).is_empty());
}

#[test]
fn zoho_books_bills_import_with_lines_vat_and_part_payments() {
    let (t, entity, records) = round_trip(&Case {
        file: "zoho_books/bills.csv",
        platform: "zoho_books",
        entity_type: "bills",
        detected: true,
        total_rows: 5,
        records: 3,
        mapping: &[
            ("Bill Number", Some("number")),
            ("Vendor Name", Some("contact_name")),
            ("Bill ID", Some("provider_ref")),
            ("Rate", Some("line_unit_price")),
            ("Tax Percentage", Some("line_vat_rate")),
            ("Customer Name", None),
        ],
    });
    let dales = find(&records, "number", "DTM/22-0193");
    assert_eq!(dales["contact_name"], json!("Dales Timber Merchants Ltd"));
    assert_eq!(dales["issue_date"], json!("2024-03-15"));
    assert_eq!(dales["due_date"], json!("2024-04-14"));
    assert_eq!(dales["provider_ref"], json!("2520018000000081007"));
    assert_eq!(dales["status"], json!("awaiting_payment"));
    assert_eq!(
        lines(dales),
        [
            "Oak worktop, 3m, unfinished | 3 | 331.25 | 0 | 20 | 993.75 | 198.75",
            "Delivery, Leeds LS5 | 1 | 35 | 0 | 20 | 35 | 7"
        ]
    );
    assert_eq!(totals(dales), "1028.75 + 205.75 = 1234.5 (paid 1000)");
    let rates = find(&records, "number", "BR-2024-0411");
    assert_eq!(rates["status"], json!("paid"));
    assert_eq!(totals(rates), "312 + 0 = 312 (paid 312)");
    assert_eq!(
        totals(find(&records, "number", "NPS-4471")),
        "425 + 85 = 510 (paid 0)"
    );
    let suppliers = list(&t, "contacts", &entity);
    assert_eq!(suppliers.len(), 3);
    assert!(suppliers.iter().all(|c| c["type"] == json!("supplier")));
}

#[test]
fn zoho_books_expenses_import_gross_with_categories_and_projects() {
    let (t, entity, records) = round_trip(&Case {
        file: "zoho_books/expenses.csv",
        platform: "zoho_books",
        entity_type: "expenses",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("Expense Date", Some("date")),
            ("Expense Description", Some("description")),
            ("Total", Some("amount")),
            ("Tax Amount", Some("vat_amount")),
            ("Expense Account", Some("category")),
            ("Expense Reference ID", Some("provider_ref")),
            ("Expense Amount", None),
        ],
    });
    let fuel = find(&records, "description", "Van fuel, diesel (March)");
    assert_eq!(fuel["date"], json!("2024-03-19"));
    assert_eq!(n(&fuel["amount"]), "1234.5");
    assert_eq!(n(&fuel["vat_amount"]), "205.75");
    assert_eq!(fuel["provider_ref"], json!("2520018000000090023"));
    let categories = list(&t, "expense-categories", &entity);
    assert_eq!(
        fuel["category_id"],
        find(&categories, "name", "Fuel/Mileage Expenses")["id"]
    );
    let train = find(&records, "description", "Train to York, client visit");
    let projects = list(&t, "projects", &entity);
    assert_eq!(
        train["project_id"],
        find(&projects, "name", "Hartley kitchen fit-out")["id"]
    );
    assert_eq!(
        n(&find(&records, "description", "Printer ink, office")["amount"]),
        "45"
    );
}

#[test]
fn zoho_books_projects_import_with_customers_budgets_and_statuses() {
    let (t, entity, records) = round_trip(&Case {
        file: "zoho_books/projects.csv",
        platform: "zoho_books",
        entity_type: "projects",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Project Name", Some("name")),
            ("Customer Name", Some("contact_name")),
            ("Budget Amount", Some("budget")),
            ("Project Status", Some("status")),
            ("Project Cost", None),
        ],
    });
    let contacts = list(&t, "contacts", &entity);
    let hartley = find(&records, "name", "Hartley kitchen fit-out");
    assert_eq!(
        hartley["contact_id"],
        find(&contacts, "name", "Hartley & Sons Joinery Ltd")["id"]
    );
    assert_eq!(n(&hartley["budget"]), "12500");
    assert_eq!(hartley["status"], json!("active"));
    assert_eq!(
        find(&records, "name", "Bramble Café shelving")["status"],
        json!("archived")
    );
    assert_eq!(
        find(&records, "name", "Workshop refit")["contact_id"],
        Value::Null
    );
}

#[test]
fn zoho_books_timesheets_import_into_their_projects() {
    let (t, entity, records) = round_trip(&Case {
        file: "zoho_books/time_entries.csv",
        platform: "zoho_books",
        entity_type: "time_entries",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("Project Name", Some("project_name")),
            ("Time Spent", Some("hours")),
            ("Notes", Some("description")),
            ("Billable Status", Some("billable")),
            ("Staff Rate", Some("hourly_rate")),
            ("Task Name", None),
        ],
    });
    let projects = list(&t, "projects", &entity);
    assert_eq!(projects.len(), 3, "each named project is created once");
    let fitting = find(&records, "description", "Worktop fitting, day 1");
    assert_eq!(
        fitting["project_id"],
        find(&projects, "name", "Hartley kitchen fit-out")["id"]
    );
    assert_eq!(fitting["date"], json!("2024-03-05"));
    assert_eq!(n(&fitting["hours"]), "7.5");
    assert_eq!(fitting["billable"], json!(true));
    assert_eq!(n(&fitting["hourly_rate"]), "45");
    let tidy = find(&records, "description", "Sweep, tidy and re-rack timber");
    assert_eq!(n(&tidy["hours"]), "2.25");
    assert_eq!(tidy["billable"], json!(false));
}

#[test]
fn freshbooks_expense_details_import_gross_with_categories_and_projects() {
    let (t, entity, records) = round_trip(&Case {
        file: "freshbooks/expenses.csv",
        platform: "freshbooks",
        entity_type: "expenses",
        detected: true,
        total_rows: 5,
        records: 5,
        mapping: &[
            ("Date", Some("date")),
            ("Description", Some("description")),
            ("Amount", Some("amount")),
            ("Tax 1 Amount", Some("vat_amount")),
            ("Parent Category", Some("category")),
            ("Project", Some("project_name")),
            ("Merchant", None),
            ("Subcategory", None),
        ],
    });
    let fuel = find(&records, "description", "Van fuel, diesel (March)");
    assert_eq!(fuel["date"], json!("2024-03-19"));
    assert_eq!(n(&fuel["amount"]), "1234.5");
    assert_eq!(n(&fuel["vat_amount"]), "205.75");
    let categories = list(&t, "expense-categories", &entity);
    assert_eq!(
        fuel["category_id"],
        find(&categories, "name", "Car & Truck")["id"]
    );
    let projects = list(&t, "projects", &entity);
    assert_eq!(projects.len(), 1, "the one named project, created once");
    assert_eq!(
        find(&records, "description", "Oak worktop, 3m")["project_id"],
        projects[0]["id"]
    );
    assert_eq!(
        n(&find(&records, "description", "Yorkshire Post, Leeds")["vat_amount"]),
        "30"
    );
}

#[test]
fn freshbooks_time_entries_import_into_their_projects() {
    let (t, entity, records) = round_trip(&Case {
        file: "freshbooks/time_entries.csv",
        platform: "freshbooks",
        entity_type: "time_entries",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("Project", Some("project_name")),
            ("Date", Some("date")),
            ("Note", Some("description")),
            ("Hours", None),
            ("Seconds", None),
            ("Status", None),
        ],
    });
    let projects = list(&t, "projects", &entity);
    assert_eq!(projects.len(), 2, "each named project is created once");
    let fitting = find(&records, "description", "Worktop fitting, day 1");
    assert_eq!(
        fitting["project_id"],
        find(&projects, "name", "Hartley kitchen fit-out")["id"]
    );
    assert_eq!(fitting["date"], json!("2024-03-05"));
    assert_eq!(n(&fitting["hours"]), "7.5");
    assert_eq!(
        n(&find(&records, "description", "Shelf drawings, two options")["hours"]),
        "1.33"
    );
}

#[test]
fn freshbooks_vendors_import_as_suppliers() {
    let (_, _, records) = round_trip(&Case {
        file: "freshbooks/contacts_suppliers.csv",
        platform: "freshbooks",
        entity_type: "contacts",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[
            ("Organization", Some("name")),
            ("Address Line 1", Some("address")),
            ("Account Number", None),
        ],
    });
    assert!(records.iter().all(|c| c["type"] == json!("supplier")));
    let tp = find(&records, "name", "Travis Perkins Trading Co Ltd");
    assert_eq!(tp["email"], json!("accounts@travisperkins.example"));
    assert_eq!(
        find(&records, "name", "Sam Okafor")["type"],
        json!("supplier")
    );
}

#[test]
fn freshbooks_items_and_services_import_with_their_rates() {
    let (_, _, records) = round_trip(&Case {
        file: "freshbooks/products.csv",
        platform: "freshbooks",
        entity_type: "products",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("Name", Some("name")),
            ("Rate", Some("unit_price")),
            ("Income Account", None),
            ("Status", Some("status")),
        ],
    });
    let oak = find(&records, "name", "Oak worktop supply and fit");
    assert_eq!(n(&oak["unit_price"]), "1234.5");
    assert_eq!(
        n(&find(&records, "name", "Design consultation")["unit_price"]),
        "0"
    );
}

#[test]
fn zoho_books_recurring_invoices_import_as_templates() {
    let (_, _, records) = round_trip(&Case {
        file: "zoho_books/subscriptions.csv",
        platform: "zoho_books",
        entity_type: "subscriptions",
        detected: true,
        total_rows: 4,
        records: 3,
        mapping: &[
            ("Recurring Invoice ID", Some("provider_ref")),
            ("Recurrence Frequency", Some("interval")),
            ("Repeat Every", Some("interval_count")),
            ("Next Invoice Date", Some("next_date")),
            ("Item Price", Some("line_unit_price")),
            ("Start Date", None),
        ],
    });
    let hartley = find(&records, "provider_ref", "2520018000000099001");
    assert_eq!(hartley["interval"], json!("month"));
    assert_eq!(hartley["interval_count"], json!(1));
    assert_eq!(hartley["next_date"], json!("2024-04-01"));
    assert_eq!(hartley["status"], json!("active"));
    assert_eq!(hartley["lines"].as_array().unwrap().len(), 2);
    assert_eq!(n(&hartley["subtotal"]), "204.5");
    let cafe = find(&records, "provider_ref", "2520018000000099004");
    assert_eq!(cafe["interval_count"], json!(3));
    assert_eq!(n(&cafe["subtotal"]), "130");
    let survey = find(&records, "provider_ref", "2520018000000099007");
    assert_eq!(survey["interval"], json!("year"));
    assert_eq!(survey["status"], json!("cancelled"));
    assert_eq!(survey["lines"][0]["description"], json!("Annual survey"));
}

#[test]
fn freshbooks_contacts_import_organisations() {
    let (_, _, records) = round_trip(&Case {
        file: "freshbooks/contacts.csv",
        platform: "freshbooks",
        entity_type: "contacts",
        detected: true,
        total_rows: 3,
        records: 3,
        mapping: &[("Organization", Some("name")), ("Email", Some("email"))],
    });
    let h = find(&records, "name", "Hartley & Sons Joinery Ltd");
    assert_eq!(
        h["address"],
        json!("Unit 4, Riverside Trading Estate, Leeds, West Yorkshire, United Kingdom, LS11 5QB")
    );
}

#[test]
fn freshbooks_invoices_import_discounts_and_rates_derived_from_tax_amounts() {
    let (_, _, records) = round_trip(&Case {
        file: "freshbooks/invoices.csv",
        platform: "freshbooks",
        entity_type: "invoices",
        detected: true,
        total_rows: 4,
        records: 3,
        mapping: &[
            ("Invoice #", Some("number")),
            ("Discount Percentage", Some("line_discount")),
            ("Rate", Some("line_unit_price")),
        ],
    });
    let a = find(&records, "number", "0000041");
    assert_eq!(
        lines(a),
        [
            "Solid oak worktop, 3 metre | 2 | 412.5 | 0 | 20 | 825 | 165",
            "Fitting, per hour | 9 | 22.5 | 10 | 20 | 182.25 | 36.45"
        ]
    );
    assert_eq!(totals(a), "1007.25 + 201.45 = 1208.7 (paid 0)");
    // A paid document without an amount paid is paid in full.
    assert_eq!(
        totals(find(&records, "number", "0000042")),
        "340 + 68 = 408 (paid 408)"
    );
}

// ---------------------------------------------------------------------------------------
// Rows that fail, runs that fail

#[test]
fn a_file_with_a_bad_row_imports_the_good_rows_and_reports_the_bad_one() {
    let (t, entity) = app_with_entity();
    let csv = "*ItemCode,ItemName,SalesUnitPrice,SalesTaxRate\n\
               A-1,Alpha,10.00,20%\n\
               B-2,Bravo,£12.3x,20%\n\
               C-3,Charlie,£1,234.50,20%\n";
    // The quoted-comma-less `£1,234.50` shifts the columns: the rate reads `234.50`.
    let r = run_csv(&t, &entity, "products", csv);
    assert_eq!(r["imported"], json!(1), "{r}");
    assert_eq!(r["skipped"], json!(0));
    let failed = r["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 2, "{r}");
    assert_eq!(failed[0]["row"], json!(3));
    assert_eq!(failed[0]["column"], json!("SalesUnitPrice"));
    let m = failed[0]["message"].as_str().unwrap();
    assert!(m.contains("SalesUnitPrice") && m.contains("£12.3x"), "{m}");
    assert_eq!(failed[1]["row"], json!(4));
    let products = list(&t, "products", &entity);
    assert_eq!(products.len(), 1);
    assert_eq!(products[0]["sku"], json!("A-1"));
    // The preview reports the same rows.
    let p = preview(&t, json!({"csv": csv, "entityType": "products"}));
    let rows: Vec<&Value> = p["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["row"])
        .collect();
    assert_eq!(rows, [&json!(3), &json!(4)]);
    // Failed rows are not skipped rows: a re-run skips the good one, fails the bad ones.
    let again = run_csv(&t, &entity, "products", csv);
    assert_eq!(again["imported"], json!(0));
    assert_eq!(again["skipped"], json!(1));
    assert_eq!(again["failed"].as_array().unwrap().len(), 2);
}

#[test]
fn a_record_the_accounting_rules_refuse_is_a_failed_row_and_nothing_of_it_is_kept() {
    let (t, entity) = app_with_entity();
    // Row 3's document is due before it is issued; its contact is not kept either.
    let csv = "number,contact_name,issue_date,due_date,line_description,line_unit_price\n\
               A-1,Alpha Ltd,01/03/2024,31/03/2024,Work,100\n\
               B-1,Bravo Ltd,01/03/2024,01/02/2024,Work,100\n";
    let r = run(
        &t,
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": entity}),
    );
    assert_eq!(r["imported"], json!(1), "{r}");
    let failed = r["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["row"], json!(3));
    let m = failed[0]["message"].as_str().unwrap();
    assert!(
        m.starts_with("Invoice B-1: ") && m.contains("due_date"),
        "{m}"
    );
    let contacts = list(&t, "contacts", &entity);
    assert_eq!(contacts.len(), 1);
    assert_eq!(contacts[0]["name"], json!("Alpha Ltd"));
}

#[test]
fn a_document_whose_lines_miss_the_source_total_fails_every_one_of_its_rows() {
    let (t, entity) = app_with_entity();
    // INV-2's lines come to 120.00 with 20% VAT, the source says 100.00.
    let csv =
        "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,total\n\
               INV-1,Alpha Ltd,01/03/2024,Work,100,20,120.00\n\
               INV-2,Alpha Ltd,02/03/2024,Part one,50,20,100.00\n\
               INV-2,Alpha Ltd,02/03/2024,Part two,50,20,100.00\n";
    let r = run(
        &t,
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": entity}),
    );
    assert_eq!(r["imported"], json!(1), "{r}");
    let failed = r["failed"].as_array().unwrap();
    let rows: Vec<&Value> = failed.iter().map(|f| &f["row"]).collect();
    assert_eq!(rows, [&json!(3), &json!(4)]);
    assert_eq!(failed[0]["column"], json!("total"));
    let m = failed[0]["message"].as_str().unwrap();
    assert!(
        m.contains("INV-2") && m.contains("120.00") && m.contains("100.00"),
        "{m}"
    );
    let invoices = list(&t, "invoices", &entity);
    assert_eq!(invoices.len(), 1);
    assert_eq!(n(&invoices[0]["total"]), "120");
}

#[test]
fn a_run_that_fails_midway_leaves_the_database_as_it_was() {
    let (t, entity) = app_with_entity();
    // The database refuses the second document's contact at the moment it is written,
    // after the first document and its contact were: a failure only the writer meets
    // (as a full disk or an I/O error would be), not a row the rules refuse.
    t.db.write_sync(|tx| {
        tx.execute_batch(
            "CREATE TRIGGER refuse_boom BEFORE INSERT ON contacts WHEN NEW.name = 'Boom Ltd'
             BEGIN SELECT RAISE(ABORT, 'simulated storage failure'); END;",
        )?;
        Ok(())
    })
    .unwrap();
    let csv = "number,contact_name,issue_date,line_description,line_unit_price\n\
               INV-1,Alpha Ltd,01/03/2024,Work,100\n\
               INV-2,Boom Ltd,02/03/2024,Work,50\n\
               INV-3,Charlie Ltd,03/03/2024,Work,70\n";
    let body =
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": entity});
    let res = t.post("/api/import/csv", body.clone());
    assert_error(&res, Status::InternalServerError);
    assert!(list(&t, "invoices", &entity).is_empty(), "INV-1 was kept");
    assert!(
        list(&t, "contacts", &entity).is_empty(),
        "Alpha Ltd was kept"
    );
    // Once the database accepts it, the same run imports everything.
    t.db.write_sync(|tx| {
        tx.execute_batch("DROP TRIGGER refuse_boom")?;
        Ok(())
    })
    .unwrap();
    assert_eq!(run(&t, body), outcome(3, 0));
}

// ---------------------------------------------------------------------------------------
// Dedup

#[test]
fn duplicates_within_one_file_are_skipped_by_name_ignoring_case() {
    let (t, entity) = app_with_entity();
    let csv = "name,email\nAcme Ltd,a@acme.test\nACME LTD,b@acme.test\nBeta,\n";
    let r = run(
        &t,
        json!({"entityType": "contacts", "platform": "generic", "csv": csv, "entity_id": entity}),
    );
    assert_eq!(r, outcome(2, 1));
    let acme = find(&list(&t, "contacts", &entity), "name", "Acme Ltd").clone();
    assert_eq!(acme["email"], json!("a@acme.test"), "the first one wins");
}

#[test]
fn dedup_compares_with_records_made_by_hand() {
    let (t, entity) = app_with_entity();
    let c = t.post(
        "/api/contacts",
        json!({"name": "Hartley & Sons Joinery Ltd", "entity_id": entity}),
    );
    assert_eq!(c.0, Status::Created);
    let p = t.post(
        "/api/products",
        json!({"name": "Something else", "sku": "oak-wt-3m", "entity_id": entity}),
    );
    assert_eq!(p.0, Status::Created);
    let contacts = run_csv(&t, &entity, "contacts", &fixture("xero/contacts.csv"));
    assert_eq!(contacts, outcome(3, 1));
    let products = run_csv(&t, &entity, "products", &fixture("xero/products.csv"));
    assert_eq!(products, outcome(3, 1), "SKUs compare ignoring case");
    // Another entity is not compared with.
    let other = t.entity("Other Ltd");
    assert_eq!(
        run_csv(&t, &other, "contacts", &fixture("xero/contacts.csv")),
        outcome(4, 0)
    );
}

#[test]
fn products_without_a_sku_are_deduplicated_by_name() {
    let (t, entity) = app_with_entity();
    let csv = "name,unit_price\nSite survey,1250\nsite SURVEY,1300\n";
    let body =
        json!({"entityType": "products", "platform": "generic", "csv": csv, "entity_id": entity});
    assert_eq!(run(&t, body.clone()), outcome(1, 1));
    assert_eq!(run(&t, body), outcome(0, 2));
}

#[test]
fn invoices_without_a_number_keep_a_null_number_and_dedup_by_client_date_and_total() {
    let (t, entity) = app_with_entity();
    let csv = "contact_name,issue_date,line_description,line_unit_price,line_vat_rate\n\
               Alpha Ltd,01/03/2024,Design,100,20\n\
               Alpha Ltd,01/03/2024,Print,50,0\n\
               Alpha Ltd,02/03/2024,Design,100,20\n";
    let body =
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": entity});
    assert_eq!(run(&t, body.clone()), outcome(2, 0));
    let invoices = list(&t, "invoices", &entity);
    assert!(
        invoices.iter().all(|i| i["number"].is_null()),
        "{invoices:#?}"
    );
    let first = find(&invoices, "issue_date", "2024-03-01");
    assert_eq!(totals(first), "150 + 20 = 170 (paid 0)");
    assert_eq!(run(&t, body), outcome(0, 2));
    // The numbering of invoices made by hand is untouched.
    let contact = &first["contact_id"];
    let (s, inv) = t.post(
        "/api/invoices",
        json!({"contact_id": contact, "entity_id": entity, "lines": [{"description": "x", "unit_price": 1}]}),
    );
    assert_eq!(s, Status::Created);
    assert_eq!(inv["data"]["number"], json!("INV-0001"));
}

#[test]
fn imported_invoices_link_products_by_sku_but_never_move_stock() {
    let (t, entity) = app_with_entity();
    run_csv(&t, &entity, "products", &fixture("xero/products.csv"));
    let before = list(&t, "products", &entity);
    run_csv(&t, &entity, "invoices", &fixture("xero/invoices.csv"));
    let invoices = list(&t, "invoices", &entity);
    let a = find(&invoices, "number", "INV-0041");
    assert_eq!(
        a["lines"][0]["product_id"],
        find(&before, "sku", "OAK-WT-3M")["id"]
    );
    assert_eq!(list(&t, "products", &entity), before, "stock unchanged");
    assert!(list(&t, "stock-movements", &entity).is_empty());
}

#[test]
fn every_other_type_imports_once_through_the_generic_mapping() {
    let (t, entity) = app_with_entity();
    let cases = [
        (
            "projects",
            "name,contact_name,status,hourly_rate,budget\n\
             Kitchen refit,Hartley & Sons,active,45,5000\n\
             Shop front,,completed,,\n",
            2,
        ),
        (
            "time_entries",
            "project_name,date,hours,description,billable\n\
             Kitchen refit,05/03/2024,7.5,Fitting,yes\n\
             Kitchen refit,06/03/2024,1:30,Snagging,no\n\
             Loft conversion,07/03/2024,2,Survey,yes\n",
            3,
        ),
        (
            "expenses",
            "date,description,amount,vat_amount,category,project_name\n\
             18/03/2024,Timber,120.00,20.00,Materials,Kitchen refit\n\
             19/03/2024,Parking,6.50,,Vehicle and travel,\n",
            2,
        ),
        (
            "subscriptions",
            "provider_ref,contact_name,interval,next_date,line_description,line_quantity,line_unit_price\n\
             sub_1,Bramble Café,monthly,01/04/2024,Maintenance,1,30\n\
             sub_1,Bramble Café,monthly,01/04/2024,Support,2,5\n\
             sub_2,Priya Shah,quarterly,,Hosting,1,12\n",
            2,
        ),
    ];
    for (entity_type, csv, records) in cases {
        let body = json!({"entityType": entity_type, "csv": csv, "entity_id": entity});
        let p = preview(&t, body.clone());
        assert_eq!(p["platform"], json!("generic"));
        assert_eq!(p["errors"], json!([]), "{entity_type}");
        assert_eq!(run(&t, body.clone()), outcome(records, 0), "{entity_type}");
        assert_eq!(run(&t, body), outcome(0, records), "{entity_type}");
    }
    let projects = list(&t, "projects", &entity);
    assert_eq!(projects.len(), 3, "a time entry's project is created");
    let kitchen = find(&projects, "name", "Kitchen refit");
    assert_eq!(n(&kitchen["hourly_rate"]), "45");
    assert_eq!(n(&kitchen["budget"]), "5000");
    let contacts = list(&t, "contacts", &entity);
    assert_eq!(
        kitchen["contact_id"],
        find(&contacts, "name", "Hartley & Sons")["id"]
    );
    let entries = list(&t, "time-entries", &entity);
    let snag = find(&entries, "description", "Snagging");
    assert_eq!(n(&snag["hours"]), "1.5");
    assert_eq!(snag["billable"], json!(false));
    let expenses = list(&t, "expenses", &entity);
    let timber = find(&expenses, "description", "Timber");
    assert_eq!(timber["project_id"], kitchen["id"]);
    let categories = list(&t, "expense-categories", &entity);
    assert_eq!(
        timber["category_id"],
        find(&categories, "name", "Materials")["id"]
    );
    assert_eq!(
        find(&expenses, "description", "Parking")["category_id"],
        find(&categories, "name", "Vehicle and travel")["id"]
    );
    let templates = list(&t, "recurring-invoices", &entity);
    let one = find(&templates, "provider_ref", "sub_1");
    assert_eq!(one["interval"], json!("month"));
    assert_eq!(one["next_date"], json!("2024-04-01"));
    assert_eq!(one["lines"].as_array().unwrap().len(), 2);
    assert_eq!(n(&one["subtotal"]), "40");
    let two = find(&templates, "provider_ref", "sub_2");
    assert_eq!(two["interval_count"], json!(3));
}

#[test]
fn the_same_record_arriving_by_csv_and_by_api_is_imported_once() {
    let (t, entity) = app_with_entity();
    let csv = "name,email,provider_ref\nAlpha Trading Ltd,hi@alpha.test,cus_123\n";
    let body =
        json!({"entityType": "contacts", "platform": "generic", "csv": csv, "entity_id": entity});
    assert_eq!(run(&t, body), outcome(1, 0));
    let invoices_csv =
        "number,contact_name,issue_date,line_description,line_unit_price,provider_ref\n\
                        1001,Alpha Trading Ltd,01/03/2024,Widgets,10,in_1\n";
    run(
        &t,
        json!({"entityType": "invoices", "platform": "generic", "csv": invoices_csv, "entity_id": entity}),
    );

    let row = |pairs: &[(&str, &str)]| -> ImportRow {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let apply = |entity_type: EntityType, rows: Vec<ImportRow>| {
        let parsed = import::parsed_from_rows("stripe", entity_type, &rows).unwrap();
        let (_, me) = t.get("/api/auth/me");
        let scope = Scope::user(me["data"]["id"].as_str().unwrap());
        let clock = t.clock.clone();
        let entity = entity.clone();
        t.db.write_sync(move |tx| import::apply_parsed(tx, &scope, &entity, &parsed, &clock))
            .unwrap()
    };
    // Another name, the same provider reference: the same customer.
    let contacts = apply(
        EntityType::Contacts,
        vec![
            row(&[
                ("name", "Alpha Trading Limited"),
                ("provider_ref", "cus_123"),
            ]),
            row(&[("name", "Beta Ltd"), ("provider_ref", "cus_456")]),
        ],
    );
    assert_eq!((contacts.imported, contacts.skipped), (1, 1));
    // A Stripe invoice, two lines grouped by provider reference, without a number: the
    // one already imported by CSV (same provider reference) and a new one.
    let line = |id: &str, desc: &str, price: &str, total: &str| {
        row(&[
            ("provider_ref", id),
            ("contact_name", "Beta Ltd"),
            ("issue_date", "2024-03-02"),
            ("status", "paid"),
            ("line_description", desc),
            ("line_quantity", "1"),
            ("line_unit_price", price),
            ("line_discount", "0"),
            ("line_vat_rate", "20"),
            ("total", total),
            ("amount_paid", total),
        ])
    };
    let invoices = apply(
        EntityType::Invoices,
        vec![
            line("in_1", "Widgets", "10", "12"),
            line("in_2", "Setup", "100", "180"),
            line("in_2", "Support", "50", "180"),
        ],
    );
    assert_eq!(
        (invoices.imported, invoices.skipped),
        (1, 1),
        "{invoices:?}"
    );
    assert!(invoices.failed.is_empty());
    let stored = list(&t, "invoices", &entity);
    assert_eq!(stored.len(), 2);
    let new = find(&stored, "provider_ref", "in_2");
    assert!(new["number"].is_null());
    assert_eq!(new["provider"], json!("stripe"));
    assert_eq!(totals(new), "150 + 30 = 180 (paid 180)");
    // What it shows as paid is one payment dated its issue date (docs/accounting.md#payments).
    let (_, paid) = t.get(&format!(
        "/api/payments?documentId={}",
        new["id"].as_str().unwrap()
    ));
    assert_eq!(
        (
            paid["data"][0]["date"].clone(),
            paid["data"][0]["amount"].clone()
        ),
        (json!("2024-03-02"), json!(180))
    );
    assert_eq!(list(&t, "contacts", &entity).len(), 2);
}

// ---------------------------------------------------------------------------------------
// The remap step and the generic mapping

#[test]
fn a_mapping_in_the_preview_body_changes_what_is_imported() {
    let (t, entity) = app_with_entity();
    let csv = fixture("xero/contacts.csv");
    let mapping = json!({"AccountNumber": null, "TaxNumber": "provider_ref"});
    let p = preview(&t, json!({"csv": csv, "mapping": mapping}));
    assert_eq!(p["mapping"]["TaxNumber"], json!("provider_ref"));
    assert_eq!(p["mapping"]["AccountNumber"], Value::Null);
    let hartley = p["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == json!("Hartley & Sons Joinery Ltd"))
        .unwrap();
    assert_eq!(hartley["provider_ref"], json!("GB123456789"));
    assert_eq!(hartley["vat_number"], Value::Null);
    let r = run(
        &t,
        json!({"entityType": "contacts", "csv": csv, "mapping": mapping, "entity_id": entity}),
    );
    assert_eq!(r, outcome(4, 0));
    let stored = list(&t, "contacts", &entity);
    let h = find(&stored, "name", "Hartley & Sons Joinery Ltd");
    assert_eq!(h["provider_ref"], json!("GB123456789"));
    assert!(h["vat_number"].is_null());
    // A mapping naming a column the file lacks, or a field the type lacks: 400.
    let bad = t.post(
        "/api/import/preview",
        json!({"csv": csv, "mapping": {"Nope": "name"}}),
    );
    assert!(assert_error(&bad, Status::BadRequest).contains("Nope"));
    let bad = t.post(
        "/api/import/preview",
        json!({"csv": csv, "mapping": {"TaxNumber": "hours"}}),
    );
    assert!(assert_error(&bad, Status::BadRequest).contains("hours"));
}

#[test]
fn a_generic_file_is_imported_with_a_manual_mapping() {
    let (t, entity) = app_with_entity();
    let csv = "Who,Reach,Ring,Ref\nAlpha Ltd,alpha@example.test,0113 000 0001,C-1\n\
               Beta Ltd,beta@example.test,0113 000 0002,C-2\n";
    let p = preview(&t, json!({"csv": csv, "entityType": "contacts"}));
    assert_eq!(p["platform"], json!("generic"));
    assert_eq!(p["detected"], json!(false));
    assert_eq!(p["missingRequired"], json!(["name"]));
    assert_eq!(p["rows"], json!([]));
    // Without a name column the run is refused.
    let refused = t.post(
        "/api/import/csv",
        json!({"entityType": "contacts", "csv": csv, "entity_id": entity}),
    );
    assert!(assert_error(&refused, Status::BadRequest).contains("`name`"));
    let mapping = json!({"Who": "name", "Reach": "email", "Ring": "phone", "Ref": "provider_ref"});
    let p = preview(
        &t,
        json!({"csv": csv, "entityType": "contacts", "platform": "generic", "mapping": mapping, "entity_id": entity}),
    );
    assert_eq!(p["rows"][1]["email"], json!("beta@example.test"));
    assert_eq!(p["rows"][1]["row"], json!(3));
    assert_eq!(p["duplicates"], json!(0));
    let r = run(
        &t,
        json!({"entityType": "contacts", "csv": csv, "platform": "generic", "mapping": mapping, "entity_id": entity}),
    );
    assert_eq!(r, outcome(2, 0));
    let a = find(&list(&t, "contacts", &entity), "name", "Alpha Ltd").clone();
    assert_eq!(a["phone"], json!("0113 000 0001"));
    assert_eq!(a["provider_ref"], json!("C-1"));
    assert_eq!(a["provider"], json!("generic"));
}

// ---------------------------------------------------------------------------------------
// Requests the endpoints refuse

#[test]
fn every_import_endpoint_answers_403_on_the_essential_plan() {
    let t = app_with(&[("plan", json!("essential"))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let csv = fixture("xero/contacts.csv");
    for (path, body) in [
        ("/api/import/preview", json!({"mode": "csv", "csv": csv})),
        (
            "/api/import/csv",
            json!({"entityType": "contacts", "csv": csv, "entity_id": entity}),
        ),
    ] {
        let res = t.post(path, body);
        assert_eq!(
            assert_error(&res, Status::Forbidden),
            "Import requires the Pro plan"
        );
    }
    assert!(list(&t, "contacts", &entity).is_empty());
}

#[test]
fn the_import_endpoints_need_a_session() {
    let t = app();
    for path in ["/api/import/preview", "/api/import/csv"] {
        let res = t.post(path, json!({"csv": "name\nA\n"}));
        assert_error(&res, Status::Unauthorized);
    }
}

#[test]
fn a_type_the_platform_cannot_supply_is_a_400_naming_both() {
    let (t, entity) = app_with_entity();
    let csv = fixture("xero/contacts.csv");
    let res = t.post(
        "/api/import/csv",
        json!({"entityType": "expenses", "platform": "xero", "csv": csv, "entity_id": entity}),
    );
    let m = assert_error(&res, Status::BadRequest);
    assert!(m.contains("xero") && m.contains("expenses"), "{m}");
    let res = t.post(
        "/api/import/preview",
        json!({"entityType": "contacts", "platform": "stripe", "csv": csv}),
    );
    let m = assert_error(&res, Status::BadRequest);
    assert!(m.contains("stripe"), "{m}");
    // A file that is another type than the one asked for.
    let res = t.post(
        "/api/import/csv",
        json!({"entityType": "invoices", "csv": csv, "entity_id": entity}),
    );
    let m = assert_error(&res, Status::BadRequest);
    assert!(m.contains("contacts") && m.contains("invoices"), "{m}");
}

#[test]
fn malformed_requests_are_refused_with_the_field_named() {
    let (t, entity) = app_with_entity();
    let csv = fixture("xero/contacts.csv");
    let cases = [
        (
            "/api/import/csv",
            json!({"csv": csv, "entity_id": entity}),
            Status::BadRequest,
            "Missing required field: entityType",
        ),
        (
            "/api/import/csv",
            json!({"entityType": "contacts", "csv": csv}),
            Status::BadRequest,
            "Missing required field: entity_id",
        ),
        (
            "/api/import/csv",
            json!({"entityType": "contacts", "entity_id": entity}),
            Status::BadRequest,
            "Missing required field: csv",
        ),
        (
            "/api/import/csv",
            json!({"entityType": "people", "csv": csv, "entity_id": entity}),
            Status::BadRequest,
            "entityType",
        ),
        (
            "/api/import/preview",
            json!({"mode": "api", "csv": csv}),
            Status::BadRequest,
            "mode",
        ),
        (
            "/api/import/preview",
            json!({"csv": "", "entityType": "contacts"}),
            Status::BadRequest,
            "empty",
        ),
        (
            "/api/import/csv",
            json!({"entityType": "contacts", "csv": csv, "entity_id": "not-a-uuid"}),
            Status::BadRequest,
            "entity_id",
        ),
        (
            "/api/import/csv",
            json!({"entityType": "contacts", "csv": csv, "entity_id": "7d8b4f0e-3a43-4c55-9d1c-2a3b4c5d6e7f"}),
            Status::NotFound,
            "Entity not found",
        ),
    ];
    for (path, body, status, needle) in cases {
        let res = t.post(path, body);
        let m = assert_error(&res, status);
        assert!(m.contains(needle), "{path}: {m}");
    }
}

#[test]
fn another_users_entity_is_not_found() {
    let (t, entity) = app_with_entity();
    t.signup("someone@example.com");
    let csv = fixture("xero/contacts.csv");
    let res = t.post(
        "/api/import/csv",
        json!({"entityType": "contacts", "csv": csv, "entity_id": entity}),
    );
    assert_error(&res, Status::NotFound);
    let res = t.post(
        "/api/import/preview",
        json!({"csv": csv, "entity_id": entity}),
    );
    assert_error(&res, Status::NotFound);
}

#[test]
fn a_body_over_the_json_limit_is_413_and_a_body_that_is_not_json_is_415() {
    let t = app_with(&[("limits.json", json!("1 KiB"))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let small = "name\nAlpha Ltd\n";
    assert_eq!(
        run_csv(&t, &entity, "contacts", small),
        outcome(1, 0),
        "under the limit"
    );
    let big = format!("name\n{}", "Alpha Ltd\n".repeat(200));
    let res = t.post(
        "/api/import/csv",
        json!({"entityType": "contacts", "csv": big, "entity_id": entity}),
    );
    assert_error(&res, Status::PayloadTooLarge);
    let cookie = t.session.borrow().clone().unwrap();
    let res = t
        .client
        .post("/api/import/preview")
        .cookie(rocket::http::Cookie::new("stockbook_session", cookie))
        .header(rocket::http::ContentType::Form)
        .body("csv=name")
        .dispatch();
    assert_error(&common::body(res), Status::UnsupportedMediaType);
}

#[test]
fn a_document_with_a_line_that_cannot_be_read_is_not_imported_at_all() {
    let (t, entity) = app_with_entity();
    // INV-2's second line has a bad price: INV-2 is not imported with one line only.
    let csv = "number,contact_name,issue_date,line_description,line_unit_price\n\
               INV-1,Alpha Ltd,01/03/2024,Work,100\n\
               INV-2,Beta Ltd,02/03/2024,Part one,50\n\
               INV-2,Beta Ltd,02/03/2024,Part two,fifty\n\
               INV-3,Gamma Ltd,03/03/2024,Work,70\n";
    let body =
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": entity});
    let p = preview(&t, body.clone());
    let r = run(&t, body);
    assert_eq!(r["imported"], json!(2), "{r}");
    let failed = r["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 2, "{r}");
    assert_eq!(failed[0]["row"], json!(3));
    assert_eq!(
        failed[0]["message"],
        json!("Invoice INV-2: row 4 of it could not be read, so nothing of it was imported")
    );
    assert_eq!(failed[1]["row"], json!(4));
    assert_eq!(failed[1]["column"], json!("line_unit_price"));
    assert_eq!(
        p["errors"], r["failed"],
        "the preview's dry run says the same"
    );
    let invoices = list(&t, "invoices", &entity);
    let numbers: Vec<&Value> = invoices.iter().map(|i| &i["number"]).collect();
    assert_eq!(numbers.len(), 2);
    assert!(!numbers.contains(&&json!("INV-2")));
    assert!(
        list(&t, "contacts", &entity)
            .iter()
            .all(|c| c["name"] != json!("Beta Ltd")),
        "the failed document's contact is not kept"
    );

    // The same through the API path: a subscription item that cannot be read.
    let row = |pairs: &[(&str, &str)]| -> ImportRow {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let rows = vec![
        row(&[
            ("provider_ref", "sub_1"),
            ("contact_name", "Alpha Ltd"),
            ("interval", "month"),
            ("line_unit_price", "10"),
        ]),
        row(&[
            ("provider_ref", "sub_1"),
            ("contact_name", "Alpha Ltd"),
            ("interval", "day"),
            ("line_unit_price", "5"),
        ]),
        row(&[
            ("provider_ref", "sub_2"),
            ("contact_name", "Alpha Ltd"),
            ("interval", "year"),
            ("line_unit_price", "99"),
        ]),
    ];
    let parsed = import::parsed_from_rows("gocardless", EntityType::Subscriptions, &rows).unwrap();
    let (_, me) = t.get("/api/auth/me");
    let scope = Scope::user(me["data"]["id"].as_str().unwrap());
    let clock = t.clock.clone();
    let e = entity.clone();
    let out =
        t.db.write_sync(move |tx| import::apply_parsed(tx, &scope, &e, &parsed, &clock))
            .unwrap();
    assert_eq!((out.imported, out.skipped), (1, 0), "{out:?}");
    let rows: Vec<usize> = out.failed.iter().map(|f| f.row).collect();
    assert_eq!(rows, [1, 2], "{out:?}");
    let templates = list(&t, "recurring-invoices", &entity);
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0]["provider_ref"], json!("sub_2"));
    assert_eq!(templates[0]["provider"], json!("gocardless"));
}

// ---------------------------------------------------------------------------------------
// QuickBooks Online bills, Sage Accounting purchase invoices

#[test]
fn quickbooks_bills_import_their_lines_at_the_line_amount() {
    let (_, _, records) = round_trip(&Case {
        file: "quickbooks/bills.csv",
        platform: "quickbooks",
        entity_type: "bills",
        detected: true,
        total_rows: 5,
        records: 3,
        mapping: &[
            ("Bill no.", Some("number")),
            ("Supplier", Some("contact_name")),
            ("Bill Date", Some("issue_date")),
            ("Due Date", Some("due_date")),
            ("Line Description", Some("line_description")),
            ("Line Tax Code", Some("line_vat_rate")),
            ("Line Amount", None),
            ("Memo", None),
        ],
    });
    let b = find(&records, "number", "HL-3391");
    assert_eq!(b["contact_name"], json!("Hartley Leasing Ltd"));
    assert_eq!(b["issue_date"], json!("2024-03-01"));
    assert_eq!(b["due_date"], json!("2024-03-31"));
    assert_eq!(b["provider"], json!("quickbooks"));
    assert_eq!(
        lines(b),
        [
            "Transit van lease, March | 1 | 1028.75 | 0 | 20 | 1028.75 | 205.75",
            "Road fund licence | 1 | 24.5 | 0 | 0 | 24.5 | 0"
        ]
    );
    assert_eq!(totals(b), "1053.25 + 205.75 = 1259 (paid 0)");
    assert_eq!(
        totals(find(&records, "number", "INV-7781")),
        "425 + 85 = 510 (paid 0)"
    );
}

#[test]
fn sage_accounting_purchase_quick_entries_import_as_bills_without_the_credit_note() {
    let (_, _, records) = round_trip(&Case {
        file: "sage_accounting/bills.csv",
        platform: "sage_accounting",
        entity_type: "bills",
        detected: true,
        total_rows: 6,
        records: 4,
        mapping: &[
            ("Reference", Some("number")),
            ("Supplier Name", Some("contact_name")),
            ("Supplier Reference", None),
            ("Net", Some("line_unit_price")),
            ("VAT Rate", Some("line_vat_rate")),
            ("Total", None),
        ],
    });
    let b = find(&records, "number", "HL-3391");
    assert_eq!(b["contact_name"], json!("Hartley Leasing Ltd"));
    assert_eq!(b["issue_date"], json!("2024-03-01"));
    assert_eq!(b["provider"], json!("sage_accounting"));
    assert_eq!(
        lines(b),
        ["Van lease, March | 1 | 1028.75 | 0 | 20 | 1028.75 | 205.75"]
    );
    assert_eq!(totals(b), "1028.75 + 205.75 = 1234.5 (paid 0)");
    assert_eq!(
        totals(find(&records, "number", "BG-55120")),
        "180 + 9 = 189 (paid 0)"
    );
    // Two quick entries with one reference: one bill, the sum of their totals.
    let paper = find(&records, "number", "INV 7781");
    assert_eq!(
        lines(paper),
        [
            "Paper, A4 80gsm | 1 | 245 | 0 | 20 | 245 | 49",
            "Toner, black | 1 | 120 | 0 | 20 | 120 | 24"
        ]
    );
    assert_eq!(totals(paper), "365 + 73 = 438 (paid 0)");
    assert!(records.iter().all(|r| r["number"] != json!("CN-0112")));
}

// ---------------------------------------------------------------------------------------
// FreeAgent expenses and projects

#[test]
fn freeagent_expenses_import_payments_with_their_vat_and_categories() {
    let (t, entity, records) = round_trip(&Case {
        file: "freeagent/expenses.csv",
        platform: "freeagent",
        entity_type: "expenses",
        detected: true,
        total_rows: 5,
        records: 4,
        mapping: &[
            ("claimant_name", None),
            ("category", Some("category")),
            ("DD/MM/YYYY", Some("date")),
            ("gross_value", Some("amount")),
            ("description", Some("description")),
            ("receipt_reference", None),
            ("sales_tax_rate", None),
        ],
    });
    let dinner = find(&records, "description", "Dinner with client, Leeds");
    assert_eq!(dinner["date"], json!("2024-03-05"));
    assert_eq!(n(&dinner["amount"]), "27.99");
    assert_eq!(n(&dinner["vat_amount"]), "4.67");
    assert_eq!(dinner["provider"], json!("freeagent"));
    let laptop = find(&records, "description", "Laptop, 14 inch, for the studio");
    assert_eq!(n(&laptop["amount"]), "1249");
    assert_eq!(n(&laptop["vat_amount"]), "208.17");
    let postage = find(&records, "description", "Recorded delivery to HMRC");
    assert_eq!(
        n(&postage["vat_amount"]),
        "0",
        "`Auto` gives no VAT amount: the expense's default"
    );
    assert!(
        records
            .iter()
            .all(|r| r["description"] != json!("Unused train ticket, York to London")),
        "the refund is left out"
    );
    let categories = list(&t, "expense-categories", &entity);
    assert_eq!(
        dinner["category_id"],
        find(&categories, "name", "Accommodation and Meals")["id"]
    );
}

#[test]
fn freeagent_projects_import_with_their_customers() {
    let (t, entity, records) = round_trip(&Case {
        file: "freeagent/projects.csv",
        platform: "freeagent",
        entity_type: "projects",
        detected: true,
        total_rows: 4,
        records: 4,
        mapping: &[
            ("project_name", Some("name")),
            ("organisation_name", Some("contact_name")),
            ("contact_name", None),
            ("status", Some("status")),
            ("contract_po_reference", None),
        ],
    });
    let contacts = list(&t, "contacts", &entity);
    assert_eq!(contacts.len(), 3, "one contact per organisation or person");
    let refit = find(&records, "name", "Showroom refit, Leeds");
    assert_eq!(refit["status"], json!("active"));
    assert_eq!(
        refit["contact_id"],
        find(&contacts, "name", "Hartley & Sons Joinery Ltd")["id"]
    );
    let brand = find(&records, "name", "Brand refresh");
    assert_eq!(
        brand["contact_id"],
        find(&contacts, "name", "Priya Shah")["id"]
    );
    assert_eq!(
        find(&records, "name", "Website photography")["status"],
        json!("completed")
    );
    assert_eq!(
        find(&records, "name", "Menu boards, spring")["status"],
        json!("archived")
    );
}

/// docs/import.md#the-wizard: a Xero contacts export the layouts do not recognise (here
/// without its tax-code columns) still gets its postal address columns joined into the
/// address, without the street address run in beside it, with nothing mapped by hand.
#[test]
fn address_parts_of_an_unrecognised_export_join_the_address_by_default() {
    let (t, entity) = app_with_entity();
    let csv = "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POCity,POPostalCode,\
               POCountry,SAAddressLine1,SACity\n\
               Bramble Café,hello@bramble.test,12 High Street,Micklegate,York,YO1 8RS,\
               United Kingdom,Yard 3,Leeds\n";
    let body = json!({"entityType": "contacts", "csv": csv, "entity_id": entity});
    let p = preview(&t, body.clone());
    assert_eq!(p["detected"], json!(false), "{p}");
    assert_eq!(p["missingRequired"], json!([]), "{p}");
    assert_eq!(run(&t, body), outcome(1, 0));
    let c = find(&list(&t, "contacts", &entity), "name", "Bramble Café").clone();
    let address = c["address"].as_str().unwrap().to_owned();
    for part in [
        "12 High Street",
        "Micklegate",
        "York",
        "YO1 8RS",
        "United Kingdom",
    ] {
        assert!(address.contains(part), "{address}");
    }
    assert!(
        !address.contains("Leeds") && !address.contains("Yard 3"),
        "{address}"
    );
}
