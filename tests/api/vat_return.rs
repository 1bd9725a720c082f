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

// ----------------------------------------------------------------------------------
// Cash accounting scheme

/// Notice 731 (cash accounting): VAT is accounted for on the date a payment is received
/// or made; a part payment carries the VAT fraction of the whole, and a payment on a
/// mixed-rate invoice is apportioned across its rates in proportion to their values.
#[test]
fn cash_scheme_part_payments_across_a_mixed_rate_invoice() {
    let (t, e) = app_with_entity();
    settings(&t, &e, json!({ "vat_scheme": "cash" }));
    let cust = contact(&t, &e, "customer");
    // 100 standard (VAT 20) + 100 zero-rated: total 220.
    let inv = doc(
        &t,
        "/api/invoices",
        &cust,
        "2024-12-20",
        "sent",
        json!([line(100.0, "standard"), line(100.0, "zero")]),
    );
    pay(&t, &inv, 110.0, "2025-01-10");
    let v = vat_return(&t, &e, Q);
    assert_eq!(v["scheme"], "cash");
    let b = nine(&v["boxes"]);
    // VAT share = round(110 × 20 / 220, 2) = 10.00; standard part 110 × 120/220 = 60.00
    // (net 50.00), zero-rated part 50.00: box 1 = 10, box 6 = 100.
    assert_eq!(b, [10.0, 0.0, 10.0, 0.0, 10.0, 100.0, 0.0, 0.0, 0.0]);
    assert_boxes_are_their_lines(&t, &e, Q);
    let l = lines(&t, &e, Q, 6);
    let rows = l["data"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{l}");
    assert!(rows
        .iter()
        .all(|r| r["source_type"] == "invoice_payment" && r["number"] == "INV-0001"));
    assert_eq!(rows[0]["treatment"], "standard");
    assert_eq!(rows[0]["amount"], json!(50));
    assert_eq!(rows[1]["treatment"], "zero");
    assert_eq!(rows[1]["amount"], json!(50));

    // The rest paid next quarter counts there, not here; the standard scheme counted
    // the whole invoice in December (its tax point).
    pay(&t, &inv, 110.0, "2025-04-02");
    assert_eq!(nine(&boxes(&t, &e, Q))[0], 10.0);
    assert_eq!(
        nine(&boxes(&t, &e, "from=2025-04-01&to=2025-06-30"))[0],
        10.0
    );
    assert_eq!(
        nine(&boxes(&t, &e, "from=2024-10-01&to=2024-12-31"))[0],
        0.0
    );
    settings(&t, &e, json!({ "vat_scheme": "standard" }));
    assert_eq!(
        nine(&boxes(&t, &e, "from=2024-10-01&to=2024-12-31"))[0],
        20.0
    );
}

/// Notice 731: on a credit note refunded or a bill paid, VAT counts when the money moves;
/// refunds count negative; expenses count on their date.
#[test]
fn cash_scheme_bills_refunds_and_expenses() {
    let (t, e) = app_with_entity();
    settings(&t, &e, json!({ "vat_scheme": "cash" }));
    let cust = contact(&t, &e, "customer");
    let supp = contact(&t, &e, "supplier");
    let inv = doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-05",
        "sent",
        json!([line(300.0, "standard")]),
    );
    pay(&t, &inv, 360.0, "2025-01-06");
    let cn = doc_with(
        &t,
        "/api/credit-notes",
        &cust,
        "2025-02-01",
        "posted",
        json!([line(50.0, "standard")]),
        json!({}),
    );
    pay(&t, &cn, 60.0, "2025-02-02");
    let bill = doc(
        &t,
        "/api/bills",
        &supp,
        "2025-01-10",
        "awaiting_payment",
        json!([line(100.0, "standard")]),
    );
    pay(&t, &bill, 60.0, "2025-02-10");
    // Unpaid: counts nothing.
    doc(
        &t,
        "/api/bills",
        &supp,
        "2025-01-11",
        "awaiting_payment",
        json!([line(900.0, "standard")]),
    );
    expense(
        &t,
        &e,
        "2025-03-01",
        json!({ "amount": 24, "vat_amount": 4 }),
    );
    let b = nine(&boxes(&t, &e, Q));
    // Box 1: 60 − 10 = 50. Box 4: round(60 × 20 / 120, 2) = 10 + 4 = 14.
    // Box 6: 300 − 50 = 250. Box 7: 50 + 20 = 70.
    assert_eq!(b, [50.0, 0.0, 50.0, 14.0, 36.0, 250.0, 70.0, 0.0, 0.0]);
    assert_boxes_are_their_lines(&t, &e, Q);
    let refund = lines(&t, &e, Q, 1)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["source_type"] == "credit_note_refund")
        .cloned()
        .unwrap();
    assert_eq!(refund["amount"], json!(-10));
}

/// Reverse charge (Notice 700/12 section 4: "reverse charge" VAT goes in box 1 and, when
/// it may be reclaimed, box 4; the value in box 7): on the cash scheme it counts on the
/// document's date, not when paid.
#[test]
fn reverse_charge_counts_on_the_document_date_on_every_scheme() {
    let (t, e) = app_with_entity();
    let supp = contact(&t, &e, "supplier");
    doc(
        &t,
        "/api/bills",
        &supp,
        "2025-01-10",
        "awaiting_payment",
        json!([line(1000.0, "reverse_charge")]),
    );
    let standard = nine(&boxes(&t, &e, Q));
    assert_eq!(
        standard,
        [200.0, 0.0, 200.0, 200.0, 0.0, 0.0, 1000.0, 0.0, 0.0]
    );
    settings(&t, &e, json!({ "vat_scheme": "cash" }));
    assert_eq!(nine(&boxes(&t, &e, Q)), standard);
    assert_boxes_are_their_lines(&t, &e, Q);
}

// ----------------------------------------------------------------------------------
// Flat rate scheme

/// Notice 733: "if your flat rate turnover is £10,000 and your flat rate is 8 %, the VAT
/// you pay is £800" (box 1); box 6 holds the flat rate turnover, VAT included.
#[test]
fn flat_rate_hmrc_figure_ten_thousand_at_eight_percent() {
    let (t, e) = app_with_entity();
    settings(
        &t,
        &e,
        json!({ "vat_scheme": "flat_rate", "flat_rate_percent": 8,
        "vat_registered_from": "2020-01-01" }),
    );
    let cust = contact(&t, &e, "customer");
    // 10,000 VAT-inclusive: 8,000 standard-rated + 1,600 VAT, and 400 exempt.
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-02-01",
        "sent",
        json!([
            line(8000.0, "standard"),
            line(400.0, "exempt"),
            line(999.0, "outside_scope")
        ]),
    );
    // Ordinary purchases are not reclaimed on the flat rate scheme.
    let supp = contact(&t, &e, "supplier");
    doc(
        &t,
        "/api/bills",
        &supp,
        "2025-02-02",
        "awaiting_payment",
        json!([line(500.0, "standard")]),
    );
    expense(
        &t,
        &e,
        "2025-02-03",
        json!({ "amount": 120, "vat_amount": 20 }),
    );
    let v = vat_return(&t, &e, Q);
    assert_eq!(v["scheme"], "flat_rate");
    assert_eq!(
        nine(&v["boxes"]),
        [800.0, 0.0, 800.0, 0.0, 800.0, 10000.0, 0.0, 0.0, 0.0]
    );
    assert_boxes_are_their_lines(&t, &e, Q);
}

/// Notice 733: in the first year of VAT registration the flat rate is one percentage point
/// lower, until the day before the first anniversary of registration.
#[test]
fn flat_rate_is_one_point_lower_in_the_first_year() {
    let (t, e) = app_with_entity();
    settings(
        &t,
        &e,
        json!({ "vat_scheme": "flat_rate", "flat_rate_percent": 8,
        "vat_registered_from": "2024-02-15" }),
    );
    let cust = contact(&t, &e, "customer");
    // 1,200 gross before the anniversary (7 %: 84.00), 1,200 on it (8 %: 96.00).
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-02-14",
        "sent",
        json!([line(1000.0, "standard")]),
    );
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-02-15",
        "sent",
        json!([line(1000.0, "standard")]),
    );
    let b = nine(&boxes(&t, &e, Q));
    assert_eq!(b[0], 180.0);
    assert_eq!(b[5], 2400.0);
}

/// The flat rate box 1 is rounded once: three sales of 10.01 gross at 8.5 % are
/// 30.03 × 8.5 % = 2.55255 → 2.55, and the rounding is a line of its own.
#[test]
fn flat_rate_box_1_is_rounded_once_with_a_rounding_line() {
    let (t, e) = app_with_entity();
    settings(
        &t,
        &e,
        json!({ "vat_scheme": "flat_rate", "flat_rate_percent": 8.5 }),
    );
    let cust = contact(&t, &e, "customer");
    for d in ["2025-01-10", "2025-01-11", "2025-01-12"] {
        doc(
            &t,
            "/api/invoices",
            &cust,
            d,
            "sent",
            json!([line(10.01, "zero")]),
        );
    }
    let b = nine(&boxes(&t, &e, Q));
    assert_eq!(b[0], 2.55);
    let l = lines(&t, &e, Q, 1);
    let rows = l["data"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{l}");
    assert_eq!(rows[0]["amount"], json!(0.85085));
    assert_eq!(rows[3]["source_type"], "rounding");
    assert_eq!(rows[3]["amount"], json!(-0.00255));
    assert_eq!(l["total"], json!(2.55));
    assert_boxes_are_their_lines(&t, &e, Q);
}

/// Notice 733 (capital expenditure goods): on the flat rate scheme, input tax is
/// reclaimed only on a single purchase of capital goods costing £2,000 or more including
/// VAT (box 4 the VAT, box 7 the net); below that, nothing is reclaimed.
#[test]
fn flat_rate_capital_purchases_above_and_below_two_thousand_pounds() {
    let (t, e) = app_with_entity();
    settings(
        &t,
        &e,
        json!({ "vat_scheme": "flat_rate", "flat_rate_percent": 10 }),
    );
    let supp = contact(&t, &e, "supplier");
    let capital = |net: f64| {
        json!({ "description": "Machine", "unit_price": net,
        "vat_treatment": "standard", "capital_goods": true })
    };
    // 1,700 + 340 VAT = 2,040 gross: reclaimed. 1,600 + 320 = 1,920: not. A 3,000 line
    // not marked capital: not.
    doc(
        &t,
        "/api/bills",
        &supp,
        "2025-01-10",
        "awaiting_payment",
        json!([capital(1700.0), capital(1600.0), line(3000.0, "standard")]),
    );
    // An expense of 2,400 with 400 VAT, a capital good: reclaimed; one of 1,200: not.
    expense(
        &t,
        &e,
        "2025-01-11",
        json!({ "amount": 2400, "vat_amount": 400, "capital_goods": true }),
    );
    expense(
        &t,
        &e,
        "2025-01-12",
        json!({ "amount": 1200, "vat_amount": 200, "capital_goods": true }),
    );
    let b = nine(&boxes(&t, &e, Q));
    assert_eq!(b, [0.0, 0.0, 0.0, 740.0, 740.0, 0.0, 3700.0, 0.0, 0.0]);
    assert_boxes_are_their_lines(&t, &e, Q);
    // On the standard scheme every purchase counts, capital or not.
    settings(&t, &e, json!({ "vat_scheme": "standard" }));
    assert_eq!(
        nine(&boxes(&t, &e, Q))[3],
        340.0 + 320.0 + 600.0 + 400.0 + 200.0
    );
}

// ----------------------------------------------------------------------------------
// capital_goods on lines and expenses

#[test]
fn capital_goods_is_kept_on_purchase_lines_and_expenses_and_refused_on_sales_lines() {
    let (t, e) = app_with_entity();
    let supp = contact(&t, &e, "supplier");
    let cust = contact(&t, &e, "customer");
    let (s, v) = t.post(
        "/api/bills",
        json!({ "contact_id": supp, "lines": [
        { "description": "Van", "unit_price": 20000, "capital_goods": true },
        { "description": "Fuel", "unit_price": 50 }] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["lines"][0]["capital_goods"], json!(true));
    assert_eq!(v["data"]["lines"][1]["capital_goods"], json!(false));
    let bill = v["data"]["id"].as_str().unwrap().to_owned();
    let (_, v) = t.get(&format!("/api/bills?id={bill}"));
    assert_eq!(v["data"][0]["lines"][0]["capital_goods"], json!(true));
    let (s, v) = t.post(
        "/api/supplier-credits",
        json!({ "contact_id": supp, "lines": [
        { "description": "Van", "unit_price": 100, "capital_goods": true }] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["lines"][0]["capital_goods"], json!(true));

    for path in ["/api/invoices", "/api/credit-notes"] {
        let r = t.post(
            path,
            json!({ "contact_id": cust, "lines": [
            { "description": "Van", "unit_price": 100, "capital_goods": true }] }),
        );
        let msg = assert_error(&r, Status::BadRequest);
        assert!(msg.contains("capital_goods"), "{msg}");
        let (s, v) = t.post(
            path,
            json!({ "contact_id": cust, "lines": [
            { "description": "Van", "unit_price": 100 }] }),
        );
        assert_eq!(s, Status::Created, "{v}");
        assert!(v["data"]["lines"][0].get("capital_goods").is_none(), "{v}");
    }

    let x = expense(
        &t,
        &e,
        "2025-01-11",
        json!({ "amount": 2400, "capital_goods": true }),
    );
    let (_, v) = t.get(&format!("/api/expenses?id={x}"));
    assert_eq!(v["data"][0]["capital_goods"], json!(true));
    let (s, v) = t.put("/api/expenses", json!({ "id": x, "description": "Laptop" }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["capital_goods"], json!(true));
    let (s, v) = t.put("/api/expenses", json!({ "id": x, "capital_goods": false }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["capital_goods"], json!(false));
    let y = expense(&t, &e, "2025-01-11", json!({ "amount": 10 }));
    let (_, v) = t.get(&format!("/api/expenses?id={y}"));
    assert_eq!(v["data"][0]["capital_goods"], json!(false));
}

// ----------------------------------------------------------------------------------
// Currencies

/// Figures in pounds, converted per line and rounded to the penny
/// (docs/accounting.md#currencies).
#[test]
fn foreign_currency_lines_are_converted_per_line() {
    let (t, e) = app_with_entity();
    let cust = contact(&t, &e, "customer");
    // Two lines of 10.01 EUR (VAT 2.00 each) at 0.855: net 8.56 each, VAT 1.71 each.
    doc_with(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-10",
        "sent",
        json!([line(10.01, "standard"), line(10.01, "standard")]),
        json!({ "currency": "EUR", "exchange_rate": 0.855 }),
    );
    let b = nine(&boxes(&t, &e, Q));
    assert_eq!(b[0], 3.42);
    assert_eq!(lines(&t, &e, Q, 6)["total"], json!(17.12));
}

// ----------------------------------------------------------------------------------
// Adjustments

fn adjust(t: &TestApp, e: &str, date: &str, b: u8, amount: f64, what: &str) -> (Status, Value) {
    t.post(
        "/api/vat/adjustments",
        json!({ "entity_id": e, "date": date, "box": b, "amount": amount, "description": what }),
    )
}

/// gov.uk "Complete your VAT return to account for import VAT": postponed import VAT from
/// the monthly statement goes in box 1 and (reclaimable) box 4, the goods' value in box 7.
/// Notice 700/18 (bad debt relief): the VAT on a debt written off is claimed in box 4.
#[test]
fn postponed_import_vat_and_bad_debt_relief_through_adjustments() {
    let (t, e) = app_with_entity();
    for (b, amount, what) in [
        (1, 1000.0, "Postponed import VAT, January statement"),
        (4, 1000.0, "Postponed import VAT, January statement"),
        (7, 5000.0, "Imported goods, January statement"),
        (4, 40.0, "Bad debt relief on INV-0009"),
    ] {
        let (s, v) = adjust(&t, &e, "2025-02-15", b, amount, what);
        assert_eq!(s, Status::Created, "{v}");
        assert_eq!(v["data"]["box"], json!(b));
        assert_eq!(v["data"]["entity_id"], json!(e));
    }
    let b = nine(&boxes(&t, &e, Q));
    // Box 1: 1,000; box 4: 1,040; box 5: 40 (a repayment); box 7: 5,000.
    assert_eq!(
        b,
        [1000.0, 0.0, 1000.0, 1040.0, 40.0, 0.0, 5000.0, 0.0, 0.0]
    );
    assert_boxes_are_their_lines(&t, &e, Q);
    let l = lines(&t, &e, Q, 4);
    let rows = l["data"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["source_type"] == "adjustment"), "{l}");
    assert_eq!(rows[1]["number"], "Bad debt relief on INV-0009");
    // Outside the period: not counted.
    assert_eq!(
        nine(&boxes(&t, &e, "from=2025-04-01&to=2025-06-30")),
        [0.0; 9]
    );
}

#[test]
fn adjustments_are_listed_changed_and_deleted_and_refuse_bad_fields() {
    let (t, e) = app_with_entity();
    let (s, v) = adjust(
        &t,
        &e,
        "2025-02-15",
        2,
        -12.5,
        "Correction of an error in Q4",
    );
    assert_eq!(s, Status::Created, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(v["data"]["amount"], json!(-12.5));
    adjust(&t, &e, "2025-05-15", 8, 100.0, "NI goods to the EU");

    let (s, v) = t.get(&format!("/api/vat/adjustments?entityId={e}&{Q}"));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    let (_, v) = t.get(&format!("/api/vat/adjustments?entityId={e}"));
    assert_eq!(v["data"].as_array().unwrap().len(), 2);
    assert_error(&t.get("/api/vat/adjustments"), Status::BadRequest);

    let (s, v) = t.put(
        "/api/vat/adjustments",
        json!({ "id": id, "box": 9, "amount": 3 }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["box"], json!(9));
    assert_eq!(v["data"]["description"], "Correction of an error in Q4");
    assert_eq!(nine(&boxes(&t, &e, Q))[8], 3.0);

    for (b, amount, what) in [
        (3, 1.0, "x"),
        (5, 1.0, "x"),
        (0, 1.0, "x"),
        (1, 0.0, "x"),
        (1, 1.001, "x"),
        (1, 1.0, "  "),
    ] {
        assert_error(
            &adjust(&t, &e, "2025-02-15", b, amount, what),
            Status::BadRequest,
        );
    }
    assert_error(
        &adjust(&t, &e, "2025-02-30", 1, 1.0, "x"),
        Status::BadRequest,
    );

    let (s, v) = t.delete("/api/vat/adjustments", json!({ "id": id }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(nine(&boxes(&t, &e, Q))[8], 0.0);
    assert_error(
        &t.delete("/api/vat/adjustments", json!({ "id": id })),
        Status::NotFound,
    );

    // Another user sees none of it.
    t.signup("other@example.com");
    assert_error(&adjust(&t, &e, "2025-02-15", 1, 1.0, "x"), Status::NotFound);
    assert_error(
        &t.get(&format!("/api/vat/adjustments?entityId={e}")),
        Status::NotFound,
    );
}

#[test]
fn adjustments_on_or_before_the_lock_date_refuse_every_write() {
    let (t, e) = app_with_entity();
    let (_, v) = adjust(&t, &e, "2025-03-31", 1, 10.0, "Before the lock");
    let locked = v["data"]["id"].as_str().unwrap().to_owned();
    let (_, v) = adjust(&t, &e, "2025-04-01", 1, 10.0, "After the lock");
    let open = v["data"]["id"].as_str().unwrap().to_owned();
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": e, "lock_date": "2025-03-31" }),
    );
    assert_eq!(s, Status::Ok, "{v}");

    let msg = assert_error(
        &adjust(&t, &e, "2025-03-31", 1, 10.0, "x"),
        Status::Conflict,
    );
    assert!(msg.contains("locked up to 2025-03-31"), "{msg}");
    assert_error(
        &t.put("/api/vat/adjustments", json!({ "id": locked, "amount": 5 })),
        Status::Conflict,
    );
    assert_error(
        &t.delete("/api/vat/adjustments", json!({ "id": locked })),
        Status::Conflict,
    );
    // Moving an open one into the locked days is refused too.
    assert_error(
        &t.put(
            "/api/vat/adjustments",
            json!({ "id": open, "date": "2025-03-01" }),
        ),
        Status::Conflict,
    );
    let (s, v) = t.put("/api/vat/adjustments", json!({ "id": open, "amount": 5 }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(nine(&boxes(&t, &e, Q))[0], 10.0);
}

// ----------------------------------------------------------------------------------
// The drill-down as CSV

#[test]
fn the_csv_holds_every_box_with_a_box_column_or_one_box() {
    let (t, e) = app_with_entity();
    let cust = contact(&t, &e, "customer");
    doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-15",
        "sent",
        json!([line(100.0, "standard")]),
    );
    expense(
        &t,
        &e,
        "2025-01-16",
        json!({ "amount": 12, "vat_amount": 2, "description": "Paper, A4" }),
    );
    let get = |q: &str| {
        let res = t
            .with_session(
                t.client
                    .get(format!("/api/vat/return/lines?entityId={e}&{Q}{q}")),
            )
            .dispatch();
        assert_eq!(res.status(), Status::Ok);
        let ct = res.content_type().unwrap();
        assert_eq!((ct.top().as_str(), ct.sub().as_str()), ("text", "csv"));
        let disposition = res
            .headers()
            .get_one("Content-Disposition")
            .unwrap()
            .to_owned();
        (disposition, res.into_string().unwrap())
    };
    let (disposition, text) = get("&format=csv");
    assert!(
        disposition.contains("vat-2025-01-01-2025-03-31-all.csv"),
        "{disposition}"
    );
    let rows: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        rows[0],
        "box,source_type,source_id,number,date,contact_name,treatment,net,vat,amount"
    );
    // Invoice: boxes 1 and 6; expense: boxes 4 and 7.
    assert_eq!(rows.len(), 5, "{text}");
    assert!(
        rows[1].starts_with("1,invoice,")
            && rows[1].ends_with(",INV-0001,2025-01-15,A customer,standard,100.00,20.00,20.00"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].starts_with("6,invoice,") && rows[2].ends_with(",100.00,20.00,100.00"),
        "{}",
        rows[2]
    );
    assert!(
        rows[3].starts_with("4,expense,") && rows[3].contains(",\"Paper, A4\",2025-01-16,"),
        "{}",
        rows[3]
    );
    assert!(
        rows[4].starts_with("7,expense,") && rows[4].ends_with(",10.00,2.00,10.00"),
        "{}",
        rows[4]
    );
    let (disposition, text) = get("&format=csv&box=4");
    assert!(disposition.contains("box4"), "{disposition}");
    assert_eq!(
        text.split("\r\n").filter(|l| !l.is_empty()).count(),
        2,
        "{text}"
    );
    assert_error(
        &t.get(&format!(
            "/api/vat/return/lines?entityId={e}&{Q}&format=xml"
        )),
        Status::BadRequest,
    );
}

/// docs/vat.md#cash-accounting-scheme: the rounding is on the running total, so the
/// payments of a document paid in full carry exactly its VAT. 0.05 + 0.01 VAT paid in
/// three payments of 0.02: 0.00, 0.01 (round(0.04 × 0.01 / 0.06) − 0) and 0.00.
#[test]
fn cash_scheme_part_payments_add_up_to_the_documents_vat() {
    let (t, e) = app_with_entity();
    settings(&t, &e, json!({ "vat_scheme": "cash" }));
    let cust = contact(&t, &e, "customer");
    let inv = doc(
        &t,
        "/api/invoices",
        &cust,
        "2025-01-05",
        "sent",
        json!([{ "description": "Tiny", "unit_price": 0.05, "vat_rate": 20 }]),
    );
    for d in ["2025-01-10", "2025-02-10", "2025-03-10"] {
        pay(&t, &inv, 0.02, d);
    }
    assert_eq!(
        nine(&boxes(&t, &e, "from=2025-01-01&to=2025-01-31"))[0],
        0.0
    );
    assert_eq!(
        nine(&boxes(&t, &e, "from=2025-02-01&to=2025-02-28"))[0],
        0.01
    );
    assert_eq!(
        nine(&boxes(&t, &e, "from=2025-03-01&to=2025-03-31"))[0],
        0.0
    );
    assert_eq!(nine(&boxes(&t, &e, Q))[0], 0.01);
    assert_eq!(lines(&t, &e, Q, 6)["total"], json!(0.05));
}
