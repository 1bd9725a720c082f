//! The VAT return over HTTP (docs/vat.md): the nine boxes on each scheme, the drill-down
//! and its CSV, adjustments, and capital goods. Each expected figure names its source: a
//! rule of HMRC's guidance (VAT Notice 700/12 "How to fill in and submit your VAT
//! return", Notice 731 "Cash accounting scheme", Notice 733 "Flat Rate Scheme", gov.uk
//! "Complete your VAT return to account for import VAT") applied to the books built here,
//! worked by hand in the comments.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

const Q: &str = "from=2025-01-01&to=2025-03-31";

fn contact(t: &TestApp, e: &str, kind: &str) -> String {
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": format!("A {kind}"), "type": kind, "entity_id": e }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

/// A line of `net` at `treatment` (and its default rate unless `rate` is given).
fn line(net: f64, treatment: &str) -> Value {
    json!({ "description": format!("{treatment} item"), "unit_price": net, "vat_treatment": treatment })
}

/// A document posted (or in `status`) on `date`; returns its id.
fn doc(t: &TestApp, path: &str, c: &str, date: &str, status: &str, lines: Value) -> String {
    doc_with(t, path, c, date, status, lines, json!({}))
}

fn doc_with(
    t: &TestApp,
    path: &str,
    c: &str,
    date: &str,
    status: &str,
    lines: Value,
    extra: Value,
) -> String {
    let mut body = json!({ "contact_id": c, "issue_date": date, "due_date": date,
        "status": status, "lines": lines });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (s, v) = t.post(path, body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

fn expense(t: &TestApp, e: &str, date: &str, extra: Value) -> String {
    let mut body = json!({ "entity_id": e, "description": "Expense", "date": date });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (s, v) = t.post("/api/expenses", body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

fn pay(t: &TestApp, doc: &str, amount: f64, date: &str) {
    let (s, v) = t.post(
        "/api/payments",
        json!({ "document_id": doc, "amount": amount, "date": date }),
    );
    assert_eq!(s, Status::Created, "{v}");
}

fn settings(t: &TestApp, e: &str, body: Value) {
    let mut b = body;
    b["id"] = json!(e);
    let (s, v) = t.put("/api/entities", b);
    assert_eq!(s, Status::Ok, "{v}");
}

fn vat_return(t: &TestApp, e: &str, q: &str) -> Value {
    let (s, v) = t.get(&format!("/api/vat/return?entityId={e}&{q}"));
    assert_eq!(s, Status::Ok, "{v}");
    v["data"].clone()
}

fn boxes(t: &TestApp, e: &str, q: &str) -> Value {
    vat_return(t, e, q)["boxes"].clone()
}

fn lines(t: &TestApp, e: &str, q: &str, b: u8) -> Value {
    let (s, v) = t.get(&format!("/api/vat/return/lines?entityId={e}&{q}&box={b}"));
    assert_eq!(s, Status::Ok, "{v}");
    v
}

/// The nine boxes as numbers, in order.
fn nine(b: &Value) -> [f64; 9] {
    [
        "vatDueSales",
        "vatDueAcquisitions",
        "totalVatDue",
        "vatReclaimedCurrPeriod",
        "netVatDue",
        "totalValueSalesExVAT",
        "totalValuePurchasesExVAT",
        "totalValueGoodsSuppliedExVAT",
        "totalAcquisitionsExVAT",
    ]
    .map(|k| b[k].as_f64().unwrap_or_else(|| panic!("{k} in {b}")))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.000_001
}

/// Every line box's drill-down adds up to the box (boxes 6-9 before the pence are dropped).
fn assert_boxes_are_their_lines(t: &TestApp, e: &str, q: &str) {
    let b = nine(&boxes(t, e, q));
    for n in [1_u8, 2, 4, 6, 7, 8, 9] {
        let l = lines(t, e, q, n);
        let sum: f64 = l["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["amount"].as_f64().unwrap())
            .sum();
        assert!(close(sum, l["total"].as_f64().unwrap()), "box {n}: {l}");
        let shown = b[usize::from(n) - 1];
        if n >= 6 {
            assert!(close(shown, sum.trunc()), "box {n}: {shown} vs {sum}");
        } else {
            assert!(
                close(shown, (sum * 100.0).round() / 100.0),
                "box {n}: {shown} vs {sum}"
            );
        }
    }
}

// ----------------------------------------------------------------------------------
// The period and the entity

#[test]
fn the_period_is_required_ordered_and_at_most_366_days() {
    let (t, e) = app_with_entity();
    for q in [
        format!("entityId={e}&to=2025-03-31"),
        format!("entityId={e}&from=2025-01-01"),
        "from=2025-01-01&to=2025-03-31".to_owned(),
        format!("entityId={e}&from=2025-04-01&to=2025-03-31"),
        format!("entityId={e}&from=2024-01-01&to=2025-01-01"),
        format!("entityId={e}&from=2025-01-01&to=2025-02-30"),
    ] {
        let r = t.get(&format!("/api/vat/return?{q}"));
        assert_error(&r, Status::BadRequest);
        let r = t.get(&format!("/api/vat/return/lines?{q}&box=1"));
        assert_error(&r, Status::BadRequest);
    }
    // 366 days (a leap year) is allowed.
    let v = vat_return(&t, &e, "from=2024-01-01&to=2024-12-31");
    assert_eq!(v["from"], "2024-01-01");
    assert_eq!(v["to"], "2024-12-31");
    assert_eq!(v["scheme"], "standard");
    assert_eq!(v["filed"], Value::Null);
    assert_eq!(v["entity_id"], json!(e));
}

#[test]
fn another_users_entity_is_not_found() {
    let (t, e) = app_with_entity();
    t.signup("other@example.com");
    assert_error(
        &t.get(&format!("/api/vat/return?entityId={e}&{Q}")),
        Status::NotFound,
    );
    assert_error(
        &t.get(&format!("/api/vat/return/lines?entityId={e}&{Q}&box=1")),
        Status::NotFound,
    );
}

#[test]
fn the_drill_down_takes_one_box_of_the_seven_a_line_can_be_in() {
    let (t, e) = app_with_entity();
    for b in ["3", "5", "0", "10", "x"] {
        assert_error(
            &t.get(&format!("/api/vat/return/lines?entityId={e}&{Q}&box={b}")),
            Status::BadRequest,
        );
    }
    assert_error(
        &t.get(&format!("/api/vat/return/lines?entityId={e}&{Q}")),
        Status::BadRequest,
    );
    let l = lines(&t, &e, Q, 1);
    assert_eq!(l["data"], json!([]));
    assert_eq!(l["total"], json!(0));
}

// ----------------------------------------------------------------------------------
// Standard scheme

/// Notice 700/12 section 4 (boxes 1, 4, 6, 7): box 1 the VAT on sales less the VAT on credit
/// notes issued; box 4 the VAT on purchases less credits received; box 6 the value of
/// sales excluding VAT, including zero-rated and exempt supplies, "minus any credit
/// notes"; box 7 purchases and expenses excluding VAT, including zero-rated and exempt,
/// not including wages, rates and other items outside the scope of VAT.
#[test]
fn standard_scheme_mixed_rates_with_a_credit_note_and_exempt_and_outside_scope_costs() {
    let (t, e) = app_with_entity();
    let cust = contact(&t, &e, "customer");
    let supp = contact(&t, &e, "supplier");
    // Sales: 1,000 standard (VAT 200), 400 reduced (VAT 20), 300 zero, 100 exempt, and
    // 50 outside the scope (a recharge of a disbursement).
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-15",
        "sent",
        json!([
            line(1000.0, "standard"),
            line(400.0, "reduced"),
            line(300.0, "zero"),
            line(100.0, "exempt"),
            line(50.0, "outside_scope")
        ]),
    );
    // A credit note of 200 standard (VAT 40).
    doc(
        &t,
        "/api/credit-notes",
        &cust,
        "2025-02-01",
        "posted",
        json!([line(200.0, "standard")]),
    );
    // Purchases: a bill of 500 standard (VAT 100) and 80 exempt; a supplier credit of 50
    // standard (VAT 10).
    doc(
        &t,
        "/api/bills",
        &supp,
        "2025-01-20",
        "awaiting_payment",
        json!([line(500.0, "standard"), line(80.0, "exempt")]),
    );
    doc(
        &t,
        "/api/supplier-credits",
        &supp,
        "2025-02-10",
        "posted",
        json!([line(50.0, "standard")]),
    );
    // Expenses: 120 with 20 VAT; insurance 30 exempt; wages 2,000 outside the scope.
    expense(
        &t,
        &e,
        "2025-03-01",
        json!({ "amount": 120, "vat_amount": 20 }),
    );
    expense(
        &t,
        &e,
        "2025-03-02",
        json!({ "amount": 30, "vat_treatment": "exempt" }),
    );
    expense(
        &t,
        &e,
        "2025-03-03",
        json!({ "amount": 2000, "vat_treatment": "outside_scope" }),
    );

    let b = nine(&boxes(&t, &e, Q));
    // Box 1: 200 + 20 − 40 = 180.
    // Box 4: 100 − 10 + 20 = 110.
    // Box 3 = 180 + 0; box 5 = |180 − 110| = 70.
    // Box 6: 1,000 + 400 + 300 + 100 − 200 = 1,600 (the 50 outside the scope left out).
    // Box 7: 500 + 80 − 50 + 100 + 30 = 660 (the wages left out).
    assert_eq!(b, [180.0, 0.0, 180.0, 110.0, 70.0, 1600.0, 660.0, 0.0, 0.0]);
    assert_boxes_are_their_lines(&t, &e, Q);

    let l = lines(&t, &e, Q, 1);
    let rows = l["data"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{l}");
    let cn = rows
        .iter()
        .find(|r| r["source_type"] == "credit_note")
        .unwrap();
    assert_eq!(cn["amount"], json!(-40));
    assert_eq!(cn["net"], json!(-200));
    assert_eq!(cn["treatment"], "standard");
    assert_eq!(cn["contact_name"], "A customer");
    assert_eq!(cn["date"], "2025-02-01");
    assert_eq!(cn["number"], "CN-0001");
}

/// Notice 700/12 section 4: boxes 6 to 9 are whole pounds (the pence left out); boxes 1 to 5
/// keep them. Line VAT is rounded per line (docs/accounting.md#line-totals).
#[test]
fn per_line_rounding_and_the_pence_dropped_from_boxes_6_to_9() {
    let (t, e) = app_with_entity();
    let cust = contact(&t, &e, "customer");
    // Three lines of 10.99: VAT 2.198 → 2.20 each, so 6.60 (not round(32.97 × 20 %) = 6.59).
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-15",
        "sent",
        json!([
            line(10.99, "standard"),
            line(10.99, "standard"),
            line(10.99, "standard")
        ]),
    );
    let b = nine(&boxes(&t, &e, Q));
    assert_eq!(b[0], 6.6);
    // Box 6: 32.97 → 32.
    assert_eq!(b[5], 32.0);
    assert_boxes_are_their_lines(&t, &e, Q);
    assert_eq!(lines(&t, &e, Q, 6)["total"], json!(32.97));
}

#[test]
fn drafts_voids_other_periods_and_other_entities_never_count() {
    let (t, e) = app_with_entity();
    let other = t.entity("Other Ltd");
    let cust = contact(&t, &e, "customer");
    let other_cust = contact(&t, &other, "customer");
    let supp = contact(&t, &e, "supplier");
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-15",
        "draft",
        json!([line(100.0, "standard")]),
    );
    let v = doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-15",
        "sent",
        json!([line(100.0, "standard")]),
    );
    let (s, r) = t.put("/api/invoices", json!({ "id": v, "status": "void" }));
    assert_eq!(s, Status::Ok, "{r}");
    doc(
        &t,
        "/api/bills",
        &supp,
        "2025-01-15",
        "draft",
        json!([line(100.0, "standard")]),
    );
    doc(
        &t,
        "/api/credit-notes",
        &cust,
        "2025-01-15",
        "draft",
        json!([line(100.0, "standard")]),
    );
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2024-12-31",
        "sent",
        json!([line(100.0, "standard")]),
    );
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-04-01",
        "sent",
        json!([line(100.0, "standard")]),
    );
    expense(
        &t,
        &e,
        "2025-04-01",
        json!({ "amount": 120, "vat_amount": 20 }),
    );
    doc(
        &t,
        "/api/invoices",
        &other_cust,
        "2025-01-15",
        "sent",
        json!([line(100.0, "standard")]),
    );
    expense(
        &t,
        &other,
        "2025-01-15",
        json!({ "amount": 120, "vat_amount": 20 }),
    );
    // Another user's books on the same days.
    t.signup("other@example.com");
    let e2 = t.entity("Theirs");
    let c2 = contact(&t, &e2, "customer");
    doc(
        &t,
        "/api/invoices",
        &c2,
        "2025-01-15",
        "sent",
        json!([line(100.0, "standard")]),
    );
    t.login("owner@example.com");
    assert_eq!(nine(&boxes(&t, &e, Q)), [0.0; 9]);
    // The entity's own invoice on the period's last day counts.
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-03-31",
        "paid",
        json!([line(100.0, "standard")]),
    );
    assert_eq!(nine(&boxes(&t, &e, Q))[0], 20.0);
}
