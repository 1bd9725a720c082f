//! The import pipeline keeps what the sources say about the books
//! (docs/import.md#fields, docs/import.md#tax-codes, docs/import.md#credit-notes,
//! docs/import.md#payments, docs/import.md#imported-documents): treatments from tax codes
//! and treatment columns, currencies and rates, dated paid amounts, credit notes linked
//! to what they credit, dated payments with dedup, and a document's VAT from its own
//! totals when the source has no tax column.

use super::common;

use common::{app_with_entity, TestApp};
use rocket::http::Status;
use serde_json::{json, Value};

fn run(t: &TestApp, entity: &str, entity_type: &str, csv: &str) -> Value {
    let (status, v) = t.post(
        "/api/import/csv",
        json!({"entityType": entity_type, "platform": "generic", "csv": csv,
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

/// `skippedRows` (the skipped records listed) holds one entry per skipped record.
fn clean(r: &Value, imported: usize, skipped: usize) {
    let mut counts = r.clone();
    let listed = counts
        .as_object_mut()
        .unwrap()
        .remove("skippedRows")
        .unwrap_or(json!([]));
    assert_eq!(listed.as_array().unwrap().len(), skipped, "{r}");
    assert_eq!(
        counts,
        json!({"imported": imported, "skipped": skipped, "failed": [], "errorCount": 0}),
        "{r}"
    );
}

#[test]
fn tax_codes_and_treatment_columns_become_the_lines_treatments() {
    let (t, entity) = app_with_entity();
    let csv = "number,contact_name,issue_date,line_description,line_unit_price,tax code,\
               line_vat_treatment\n\
               INV-1,Alpha Ltd,01/03/2024,Books,10,T0,\n\
               INV-1,Alpha Ltd,01/03/2024,Insurance,10,T2,\n\
               INV-1,Alpha Ltd,01/03/2024,Wages recharge,10,T9,\n\
               INV-1,Alpha Ltd,01/03/2024,Fuel,10,T5,\n\
               INV-1,Alpha Ltd,01/03/2024,Widgets,10,OUTPUT2,\n\
               INV-1,Alpha Ltd,01/03/2024,Postage,10,No VAT,\n\
               INV-1,Alpha Ltd,01/03/2024,Training,10,0,exempt\n\
               INV-1,Alpha Ltd,01/03/2024,Printing,10,20.0% S,\n";
    clean(&run(&t, &entity, "invoices", csv), 1, 0);
    let inv = &list(&t, "invoices", &entity)[0];
    assert_eq!(
        treatments(inv),
        [
            "Books 0 zero",
            "Insurance 0 exempt",
            "Wages recharge 0 outside_scope",
            "Fuel 5 reduced",
            "Widgets 20 standard",
            "Postage 0 outside_scope",
            "Training 0 exempt",
            "Printing 20 standard",
        ]
    );
}

#[test]
fn a_reverse_charge_code_on_a_bill_is_kept_and_on_an_invoice_is_a_row_error() {
    let (t, entity) = app_with_entity();
    let bill = "number,contact_name,issue_date,line_description,line_unit_price,tax type\n\
                B-1,Cloud Inc,01/03/2024,Hosting,100,Reverse Charge Expenses (20%)\n";
    clean(&run(&t, &entity, "bills", bill), 1, 0);
    let b = &list(&t, "bills", &entity)[0];
    assert_eq!(treatments(b), ["Hosting 20 reverse_charge"]);
    assert_eq!(b["total"], json!(100), "{b}");

    let inv = "number,contact_name,issue_date,line_description,line_unit_price,tax type\n\
               I-1,Alpha Ltd,01/03/2024,Consulting,100,REVERSECHARGES\n";
    let r = run(&t, &entity, "invoices", inv);
    assert_eq!(r["imported"], json!(0), "{r}");
    assert_eq!(r["failed"][0]["row"], json!(2), "{r}");
}

#[test]
fn currency_rate_and_the_date_of_the_paid_amount_are_kept() {
    let (t, entity) = app_with_entity();
    let csv = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
               total,amount_paid,paid_date,currency,exchange_rate,status\n\
               EU-1,Berlin GmbH,01/03/2024,Design,1000,0,1000,400,15/03/2024,eur,0.8567,sent\n";
    clean(&run(&t, &entity, "invoices", csv), 1, 0);
    let inv = &list(&t, "invoices", &entity)[0];
    assert_eq!(inv["currency"], json!("EUR"), "{inv}");
    assert_eq!(inv["exchange_rate"], json!(0.8567), "{inv}");
    assert_eq!(inv["amount_paid"], json!(400), "{inv}");
    let pays = list(&t, "payments", &entity);
    assert_eq!(pays.len(), 1, "{pays:#?}");
    assert_eq!(pays[0]["date"], json!("2024-03-15"));
    assert_eq!(pays[0]["amount"], json!(400));
}

#[test]
fn expenses_keep_their_treatment_currency_and_rate() {
    let (t, entity) = app_with_entity();
    let csv = "date,description,amount,vat_amount,vat_treatment,currency,exchange_rate\n\
               01/03/2024,Insurance,120,0,Exempt,GBP,\n\
               02/03/2024,Hotel,200,0,outside_scope,USD,0.79\n";
    clean(&run(&t, &entity, "expenses", csv), 2, 0);
    let ex = list(&t, "expenses", &entity);
    let of = |d: &str| ex.iter().find(|e| e["description"] == json!(d)).unwrap();
    assert_eq!(of("Insurance")["vat_treatment"], json!("exempt"));
    assert_eq!(of("Hotel")["vat_treatment"], json!("outside_scope"));
    assert_eq!(of("Hotel")["currency"], json!("USD"));
    assert_eq!(of("Hotel")["exchange_rate"], json!(0.79));
}

#[test]
fn credit_notes_link_to_their_invoice_by_number_or_import_unlinked_and_dedup() {
    let (t, entity) = app_with_entity();
    let inv = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
               status\n\
               INV-1,Alpha Ltd,01/03/2024,Widgets,100,20,sent\n";
    clean(&run(&t, &entity, "invoices", inv), 1, 0);
    let csv = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
               status,original_number\n\
               CN-9,Alpha Ltd,05/03/2024,Widgets back,10,20,posted,INV-1\n\
               CN-10,Alpha Ltd,06/03/2024,Goodwill,5,0,posted,INV-404\n";
    clean(&run(&t, &entity, "credit_notes", csv), 2, 0);
    clean(&run(&t, &entity, "credit_notes", csv), 0, 2);
    let cns = list(&t, "credit-notes", &entity);
    let invoice = &list(&t, "invoices", &entity)[0];
    assert_eq!(by_number(&cns, "CN-9")["invoice_id"], invoice["id"]);
    assert_eq!(by_number(&cns, "CN-9")["status"], json!("posted"));
    assert_eq!(by_number(&cns, "CN-10")["invoice_id"], Value::Null);
    assert_eq!(invoice["amount_credited"], json!(12), "{invoice}");
}

#[test]
fn supplier_credits_link_to_the_suppliers_bill() {
    let (t, entity) = app_with_entity();
    let bills = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
                 status\n\
                 77,Parts Co,01/03/2024,Bolts,50,20,awaiting_payment\n";
    clean(&run(&t, &entity, "bills", bills), 1, 0);
    let csv = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
               status,original_number\n\
               SC-1,Parts Co,03/03/2024,Bolts returned,10,20,posted,77\n";
    clean(&run(&t, &entity, "supplier_credits", csv), 1, 0);
    let bill = &list(&t, "bills", &entity)[0];
    let sc = &list(&t, "supplier-credits", &entity)[0];
    assert_eq!(sc["bill_id"], bill["id"], "{sc}");
}

#[test]
fn payments_import_dated_several_per_document_once_and_fail_for_unknown_documents() {
    let (t, entity) = app_with_entity();
    let inv = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
               status\n\
               INV-1,Alpha Ltd,01/03/2024,Widgets,100,20,sent\n";
    clean(&run(&t, &entity, "invoices", inv), 1, 0);
    let csv = "document_number,document_type,date,amount,method,reference\n\
               INV-1,invoice,05/03/2024,20,bank,first\n\
               INV-1,invoice,10/03/2024,100,card,second\n\
               INV-404,invoice,10/03/2024,5,card,\n";
    let r = run(&t, &entity, "payments", csv);
    assert_eq!(r["imported"], json!(2), "{r}");
    assert_eq!(r["failed"][0]["row"], json!(4), "{r}");
    assert!(
        r["failed"][0]["message"]
            .as_str()
            .unwrap()
            .contains("INV-404"),
        "{r}"
    );
    let again = run(&t, &entity, "payments", csv);
    assert_eq!(again["skipped"], json!(2), "{again}");
    assert_eq!(again["imported"], json!(0), "{again}");
    let mut dates: Vec<String> = list(&t, "payments", &entity)
        .iter()
        .map(|p| format!("{} {}", p["date"].as_str().unwrap(), p["amount"]))
        .collect();
    dates.sort();
    assert_eq!(dates, ["2024-03-05 20", "2024-03-10 100"]);
    let invoice = &list(&t, "invoices", &entity)[0];
    assert_eq!(invoice["amount_paid"], json!(120));
    assert_eq!(invoice["status"], json!("paid"));
}

#[test]
fn without_a_tax_column_the_vat_is_what_the_documents_own_totals_say() {
    let (t, entity) = app_with_entity();
    // INV-1: 100 net, total 105 → 5 %. INV-2: total equals net → 0 %, not 20 %.
    // INV-3: three lines of 0.01, total 0.04: no single rate gives 0.01 of VAT, so the
    // lines take the nearest and an outside-the-scope adjustment makes up the rest.
    // INV-4: no total at all → 0 %.
    let csv = "number,contact_name,issue_date,line_description,line_unit_price,total\n\
               INV-1,Alpha Ltd,01/03/2024,Fuel,100,105\n\
               INV-2,Alpha Ltd,01/03/2024,Books,50,50\n\
               INV-3,Alpha Ltd,01/03/2024,Odd,0.01,0.04\n\
               INV-3,Alpha Ltd,01/03/2024,Odd,0.01,0.04\n\
               INV-3,Alpha Ltd,01/03/2024,Odd,0.01,0.04\n\
               INV-4,Alpha Ltd,01/03/2024,Unknown,10,\n";
    clean(&run(&t, &entity, "invoices", csv), 4, 0);
    let docs = list(&t, "invoices", &entity);
    assert_eq!(treatments(by_number(&docs, "INV-1")), ["Fuel 5 reduced"]);
    assert_eq!(treatments(by_number(&docs, "INV-2")), ["Books 0 zero"]);
    let inv3 = by_number(&docs, "INV-3");
    assert_eq!(inv3["total"], json!(0.04), "{inv3}");
    let t3 = treatments(inv3);
    assert_eq!(t3.len(), 4, "{t3:?}");
    assert!(t3[3].ends_with(" 0 outside_scope"), "{t3:?}");
    assert_eq!(treatments(by_number(&docs, "INV-4")), ["Unknown 0 zero"]);
    assert_eq!(by_number(&docs, "INV-4")["total"], json!(10));
}

#[test]
fn credits_and_payments_find_their_document_by_the_sources_reference() {
    let (t, entity) = app_with_entity();
    let inv = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
               status,provider_ref\n\
               INV-1,Alpha Ltd,01/03/2024,Widgets,100,0,sent,src-inv-1\n";
    clean(&run(&t, &entity, "invoices", inv), 1, 0);
    // The numbers name nothing the entity holds; the references do.
    let cn = "number,contact_name,issue_date,line_description,line_unit_price,line_vat_rate,\
              status,original_number,original_ref\n\
              CN-1,Alpha Ltd,02/03/2024,Widgets back,10,0,posted,NOPE,src-inv-1\n";
    clean(&run(&t, &entity, "credit_notes", cn), 1, 0);
    let pay = "document_ref,document_number,date,amount,provider_ref\n\
               src-inv-1,NOPE,03/03/2024,30,pay-1\n";
    clean(&run(&t, &entity, "payments", pay), 1, 0);
    // The same payment id again, on another date: the same payment.
    let moved = "document_ref,date,amount,provider_ref\n\
                 src-inv-1,04/03/2024,30,pay-1\n";
    clean(&run(&t, &entity, "payments", moved), 0, 1);
    let invoice = &list(&t, "invoices", &entity)[0];
    assert_eq!(
        list(&t, "credit-notes", &entity)[0]["invoice_id"],
        invoice["id"]
    );
    assert_eq!(invoice["amount_paid"], json!(30), "{invoice}");
    assert_eq!(invoice["amount_credited"], json!(10), "{invoice}");
    let p = &list(&t, "payments", &entity)[0];
    assert_eq!(p["reference"], json!("pay-1"), "{p}");
}
