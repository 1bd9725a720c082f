//! Property test of the VAT return (docs/vat.md#the-computation,
//! docs/vat.md#the-drill-down, docs/vat.md#cash-accounting-scheme).
//!
//! Random books (invoices, credit notes, bills and supplier credits with lines of every
//! treatment, posted or not, in pounds or euros, paid in parts or not; expenses;
//! adjustments), then on each scheme and over a quarter, the next and both:
//!
//! - every box equals the total of its drill-down lines: boxes 1, 2 and 4 exactly, boxes 6
//!   to 9 with the total's pence dropped;
//! - box 3 = box 1 + box 2 and box 5 = |box 3 − box 4|;
//! - when every posted document was paid in full inside the span, the cash scheme's
//!   boxes are the standard scheme's.

mod common;

use common::invariants::dec;
use common::{app_with_entity, TestApp};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use time::{Date, Duration, Month};

const PATHS: [&str; 4] = [
    "/api/invoices",
    "/api/credit-notes",
    "/api/bills",
    "/api/supplier-credits",
];
const TREATMENTS: [&str; 6] = [
    "standard",
    "reduced",
    "zero",
    "exempt",
    "outside_scope",
    "reverse_charge",
];
const BOXES: [&str; 9] = [
    "vatDueSales",
    "vatDueAcquisitions",
    "totalVatDue",
    "vatReclaimedCurrPeriod",
    "netVatDue",
    "totalValueSalesExVAT",
    "totalValuePurchasesExVAT",
    "totalValueGoodsSuppliedExVAT",
    "totalAcquisitionsExVAT",
];

#[derive(Debug, Clone)]
struct Doc {
    kind: usize,
    /// Days after 1 January 2025.
    day: i64,
    /// 0: posted, 1: draft, 2: void (after posting).
    state: usize,
    /// `(treatment, price in pence, quantity, capital goods)`.
    lines: Vec<(usize, i64, i64, bool)>,
    /// Euros at this rate (millionths), else pounds.
    eur: Option<i64>,
    /// Parts of a payment in full (each a share of the total), days after the issue date;
    /// empty: unpaid.
    payments: Vec<(u8, i64)>,
}

#[derive(Debug, Clone)]
struct Expense {
    day: i64,
    /// pence; VAT pence (when `treatment` is standard).
    amount: i64,
    vat: i64,
    treatment: usize,
    reclaimable: bool,
    capital: bool,
}

#[derive(Debug, Clone)]
struct Book {
    docs: Vec<Doc>,
    expenses: Vec<Expense>,
    /// `(day, box, pence)`.
    adjustments: Vec<(i64, u8, i64)>,
    /// Flat rate in hundredths.
    flat: i64,
    /// Every posted document paid (on its date when it has no payments of its own).
    pay_all: bool,
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        0..4_usize,
        0..170_i64,
        prop_oneof![6 => Just(0_usize), 1 => Just(1), 1 => Just(2)],
        prop::collection::vec(
            (
                0..6_usize,
                1..300_000_i64,
                1..4_i64,
                prop::bool::weighted(0.2),
            ),
            1..4,
        ),
        prop::option::weighted(0.25, 500_000..1_500_000_i64),
        prop::collection::vec((1..4_u8, 0..10_i64), 0..4),
    )
        .prop_map(|(kind, day, state, lines, eur, payments)| Doc {
            kind,
            day,
            state,
            lines,
            eur,
            payments,
        })
}

fn expense() -> impl Strategy<Value = Expense> {
    (
        0..170_i64,
        1..400_000_i64,
        0..6_usize,
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(day, amount, treatment, reclaimable, capital)| Expense {
            day,
            amount,
            // A sixth of the amount as VAT on standard and reduced expenses.
            vat: if treatment <= 1 {
                (amount / 6).max(1)
            } else {
                0
            },
            treatment,
            reclaimable,
            capital,
        })
}

fn book() -> impl Strategy<Value = Book> {
    (
        prop::collection::vec(doc(), 0..8),
        prop::collection::vec(expense(), 0..4),
        prop::collection::vec(
            (
                0..170_i64,
                prop::sample::select(vec![1_u8, 2, 4, 6, 7, 8, 9]),
                (-50_000..50_000_i64).prop_filter("not 0", |a| *a != 0),
            ),
            0..3,
        ),
        (0..34_i64).prop_map(|h| h * 50),
        any::<bool>(),
    )
        .prop_map(|(docs, expenses, adjustments, flat, pay_all)| Book {
            docs,
            expenses,
            adjustments,
            flat,
            pay_all,
        })
}

fn day(d: i64) -> String {
    (Date::from_calendar_date(2025, Month::January, 1).unwrap() + Duration::days(d)).to_string()
}

/// A decimal as a JSON number.
fn num(d: Decimal) -> Value {
    serde_json::from_str(&d.normalize().to_string()).expect("a decimal is a JSON number")
}

fn pounds(pence: i64) -> Value {
    num(Decimal::new(pence, 2))
}

fn ok(t: (Status, Value), what: &str) -> Result<Value, TestCaseError> {
    prop_assert!(
        t.0 == Status::Ok || t.0 == Status::Created,
        "{what}: {} {}",
        t.0,
        t.1
    );
    Ok(t.1)
}

/// Builds the book; answers whether every posted document is paid in full.
fn build(t: &TestApp, e: &str, b: &Book) -> Result<bool, TestCaseError> {
    let customer = ok(
        t.post(
            "/api/contacts",
            json!({ "name": "Customer", "type": "customer", "entity_id": e }),
        ),
        "customer",
    )?["data"]["id"]
        .clone();
    let supplier = ok(
        t.post(
            "/api/contacts",
            json!({ "name": "Supplier", "type": "supplier", "entity_id": e }),
        ),
        "supplier",
    )?["data"]["id"]
        .clone();
    let mut all_paid = true;
    for d in &b.docs {
        let purchase = d.kind >= 2;
        let lines: Vec<Value> = d
            .lines
            .iter()
            .map(|&(tr, price, qty, capital)| {
                // Sales lines may not be reverse charge: those become standard.
                let tr = if !purchase && tr == 5 { 0 } else { tr };
                let mut l = json!({ "description": "Item", "unit_price": pounds(price),
                    "quantity": qty, "vat_treatment": TREATMENTS[tr] });
                if purchase {
                    l["capital_goods"] = json!(capital);
                }
                l
            })
            .collect();
        let status = match (d.state, d.kind) {
            (1, _) => "draft",
            (_, 0) => "sent",
            (_, 2) => "awaiting_payment",
            _ => "posted",
        };
        let mut body = json!({ "contact_id": if purchase { &supplier } else { &customer },
            "issue_date": day(d.day), "due_date": day(d.day), "status": status, "lines": lines });
        if let Some(rate) = d.eur {
            body["currency"] = json!("EUR");
            body["exchange_rate"] = num(Decimal::new(rate, 6));
        }
        let v = ok(t.post(PATHS[d.kind], body), "document")?;
        let id = v["data"]["id"].clone();
        let total = dec(&v["data"]["total"]);
        if d.state == 1 {
            continue;
        }
        // Paid in full in parts (shares of the total, the last taking the rest).
        let payments = if b.pay_all && d.payments.is_empty() {
            vec![(1, 0)]
        } else {
            d.payments.clone()
        };
        let shares: u32 = payments.iter().map(|p| u32::from(p.0)).sum();
        let mut left = total;
        let mut date = d.day;
        for (i, &(share, after)) in payments.iter().enumerate() {
            date += after;
            let amount = if i + 1 == payments.len() {
                left
            } else {
                (total * Decimal::from(share) / Decimal::from(shares)).round_dp(2)
            };
            left -= amount;
            if amount > Decimal::ZERO {
                ok(
                    t.post(
                        "/api/payments",
                        json!({ "document_id": id, "amount": num(amount), "date": day(date) }),
                    ),
                    "payment",
                )?;
            }
        }
        if payments.is_empty() || date > 180 {
            all_paid = false;
        }
        if d.state == 2 {
            ok(
                t.put(PATHS[d.kind], json!({ "id": id, "status": "void" })),
                "void",
            )?;
        }
    }
    for x in &b.expenses {
        ok(
            t.post(
                "/api/expenses",
                json!({ "entity_id": e, "description": "Expense", "date": day(x.day),
                    "amount": pounds(x.amount), "vat_amount": pounds(x.vat),
                    "vat_treatment": TREATMENTS[x.treatment],
                    "vat_reclaimable": x.reclaimable, "capital_goods": x.capital }),
            ),
            "expense",
        )?;
    }
    for &(d, bx, amount) in &b.adjustments {
        ok(
            t.post(
                "/api/vat/adjustments",
                json!({ "entity_id": e, "date": day(d), "box": bx, "amount": pounds(amount),
                    "description": "Adjustment" }),
            ),
            "adjustment",
        )?;
    }
    Ok(all_paid)
}

fn boxes(t: &TestApp, e: &str, span: &str) -> Result<Vec<Decimal>, TestCaseError> {
    let v = ok(
        t.get(&format!("/api/vat/return?entityId={e}&{span}")),
        "return",
    )?;
    Ok(BOXES.iter().map(|k| dec(&v["data"]["boxes"][k])).collect())
}

fn check_span(
    t: &TestApp,
    e: &str,
    span: &str,
    scheme: &str,
) -> Result<Vec<Decimal>, TestCaseError> {
    let b = boxes(t, e, span)?;
    for n in [1_usize, 2, 4, 6, 7, 8, 9] {
        let v = ok(
            t.get(&format!(
                "/api/vat/return/lines?entityId={e}&{span}&box={n}"
            )),
            "lines",
        )?;
        let sum: Decimal = v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| dec(&l["amount"]))
            .sum();
        prop_assert_eq!(sum, dec(&v["total"]), "{} box {}: total", scheme, n);
        let expected = if n >= 6 { sum.trunc() } else { sum };
        prop_assert_eq!(b[n - 1], expected, "{} {} box {}: {}", scheme, span, n, v);
    }
    prop_assert_eq!(b[2], b[0] + b[1], "{} box 3", scheme);
    prop_assert_eq!(b[4], (b[2] - b[3]).abs(), "{} box 5", scheme);
    Ok(b)
}

fn run(b: &Book) -> Result<(), TestCaseError> {
    let (t, e) = app_with_entity();
    let all_paid = build(&t, &e, b)?;
    let spans = [
        "from=2025-01-01&to=2025-03-31",
        "from=2025-04-01&to=2025-06-30",
        "from=2025-01-01&to=2025-06-30",
    ];
    let mut results = Vec::new();
    for (scheme, settings) in [
        ("standard", json!({ "vat_scheme": "standard" })),
        ("cash", json!({ "vat_scheme": "cash" })),
        (
            "flat_rate",
            json!({ "vat_scheme": "flat_rate", "flat_rate_percent": num(Decimal::new(b.flat, 2)),
                "vat_registered_from": "2024-03-01" }),
        ),
    ] {
        let mut s = settings;
        s["id"] = json!(e);
        ok(t.put("/api/entities", s), "settings")?;
        let mut per_span = Vec::new();
        for span in spans {
            per_span.push(check_span(&t, &e, span, scheme)?);
        }
        results.push(per_span);
    }
    if all_paid {
        // Everything was paid inside the first half-year (payments end by day 180).
        prop_assert_eq!(&results[1][2], &results[0][2], "cash vs standard");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        max_shrink_iters: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_box_is_its_lines_and_cash_equals_standard_when_all_is_paid(b in book()) {
        run(&b)?;
    }
}
