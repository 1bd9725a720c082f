//! Property test of payments (docs/accounting.md#payments,
//! docs/accounting.md#status-follows-money,
//! docs/accounting.md#amount_paid-and-status-paid-on-documents).
//!
//! Random sequences of invoice and bill creates (with and without `amount_paid`), status
//! changes (with and without `amount_paid`), `amount_paid` PUTs, line edits, payments
//! recorded and deleted, and document deletes. After EACH step, for every document:
//! `amount_paid` equals the sum of its payments (and `stockbook check`'s payment check
//! finds nothing), `amount_due` = total − paid − credited is never negative
//! (`common::invariants::try_check_money`, which the documents and stock property test
//! in documents_stock_props.rs also runs, with credits, refunds and stock), a `paid`
//! document owes nothing and a posted one that owes nothing after a payment is `paid`;
//! every answer is a success or a 409, and a refused request changed nothing at all.

mod common;

use common::invariants::{dec, try_check_money};
use common::{app_with, TestApp};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};

const INVOICE_STATUSES: [&str; 4] = ["draft", "sent", "paid", "void"];
const BILL_STATUSES: [&str; 4] = ["draft", "awaiting_payment", "paid", "void"];

#[derive(Debug, Clone)]
enum Op {
    /// A document of one line at `price` pence (+ 20 % VAT), maybe sent with `amount_paid`.
    Create {
        bill: bool,
        status: usize,
        price: i64,
        paid: Option<i64>,
    },
    /// A PUT of the status, maybe with `amount_paid` (pence).
    Status {
        doc: usize,
        status: usize,
        paid: Option<i64>,
    },
    /// A PUT of `amount_paid` alone.
    AmountPaid {
        doc: usize,
        paid: i64,
    },
    /// A PUT replacing the line with one at `price` pence.
    Lines {
        doc: usize,
        price: i64,
    },
    /// A payment of `amount` pence; None: of exactly what is due.
    Pay {
        doc: usize,
        amount: Option<i64>,
    },
    /// Deletes the `nth` payment of the document.
    Unpay {
        doc: usize,
        nth: usize,
    },
    Delete {
        doc: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let pence = 1..20_000_i64;
    prop_oneof![
        2 => (any::<bool>(), 0..4_usize, pence.clone(), prop::option::of(0..25_000_i64))
            .prop_map(|(bill, status, price, paid)| Op::Create { bill, status, price, paid }),
        2 => (0..6_usize, 0..4_usize, prop::option::of(0..25_000_i64))
            .prop_map(|(doc, status, paid)| Op::Status { doc, status, paid }),
        1 => (0..6_usize, 0..25_000_i64).prop_map(|(doc, paid)| Op::AmountPaid { doc, paid }),
        1 => (0..6_usize, pence.clone()).prop_map(|(doc, price)| Op::Lines { doc, price }),
        4 => (0..6_usize, prop::option::of(1..15_000_i64))
            .prop_map(|(doc, amount)| Op::Pay { doc, amount }),
        2 => (0..6_usize, 0..4_usize).prop_map(|(doc, nth)| Op::Unpay { doc, nth }),
        1 => (0..6_usize).prop_map(|doc| Op::Delete { doc }),
    ]
}

fn money(pence: i64) -> Value {
    serde_json::from_str(&Decimal::new(pence, 2).to_string()).unwrap()
}

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

struct World {
    t: TestApp,
    customer: String,
    supplier: String,
    /// (is a bill, id) of every document created and not deleted.
    docs: Vec<(bool, String)>,
}

impl World {
    fn new() -> Self {
        let t = app_with(&[]);
        t.signup("owner@example.com");
        let entity = t.entity("Acme Ltd");
        let contact = |name: &str, kind: &str| {
            let (s, v) = t.post(
                "/api/contacts",
                json!({ "name": name, "type": kind, "entity_id": entity }),
            );
            assert_eq!(s, Status::Created, "{v}");
            v["data"]["id"].as_str().unwrap().to_owned()
        };
        let customer = contact("Customer", "customer");
        let supplier = contact("Supplier", "supplier");
        Self {
            t,
            customer,
            supplier,
            docs: Vec::new(),
        }
    }

    fn doc(&self, i: usize) -> Option<(bool, String)> {
        if self.docs.is_empty() {
            None
        } else {
            Some(self.docs[i % self.docs.len()].clone())
        }
    }

    fn path(bill: bool) -> &'static str {
        if bill {
            "/api/bills"
        } else {
            "/api/invoices"
        }
    }

    fn statuses(bill: bool) -> [&'static str; 4] {
        if bill {
            BILL_STATUSES
        } else {
            INVOICE_STATUSES
        }
    }

    fn lines(price: i64) -> Value {
        json!([{ "description": "Work", "unit_price": money(price) }])
    }

    /// Everything a refused request must leave as it was.
    fn fingerprint(&self) -> Vec<Value> {
        ["/api/invoices", "/api/bills", "/api/payments"]
            .iter()
            .map(|p| self.t.get(p).1)
            .collect()
    }

    /// Sends one request; a refusal must be a 409 and change nothing.
    fn send(
        &self,
        what: &Op,
        send: impl FnOnce(&TestApp) -> (Status, Value),
    ) -> Result<Option<Value>, TestCaseError> {
        let before = self.fingerprint();
        let (s, v) = send(&self.t);
        if s.code < 300 {
            return Ok(Some(v));
        }
        if s != Status::Conflict {
            return Err(fail(format!("{what:?}: unexpected {s}: {v}")));
        }
        if self.fingerprint() != before {
            return Err(fail(format!(
                "{what:?} was refused ({v}) yet changed something"
            )));
        }
        Ok(None)
    }
}

fn step(w: &mut World, op: &Op) -> Result<(), TestCaseError> {
    match op {
        Op::Create {
            bill,
            status,
            price,
            paid,
        } => {
            let mut body = json!({
                "contact_id": if *bill { &w.supplier } else { &w.customer },
                "status": World::statuses(*bill)[*status],
                "lines": World::lines(*price),
            });
            if let Some(p) = paid {
                body["amount_paid"] = money(*p);
            }
            if let Some(v) = w.send(op, |t| t.post(World::path(*bill), body))? {
                w.docs
                    .push((*bill, v["data"]["id"].as_str().unwrap().to_owned()));
            }
        }
        Op::Status { doc, status, paid } => {
            let Some((bill, id)) = w.doc(*doc) else {
                return Ok(());
            };
            let mut body = json!({ "id": id, "status": World::statuses(bill)[*status] });
            if let Some(p) = paid {
                body["amount_paid"] = money(*p);
            }
            w.send(op, |t| t.put(World::path(bill), body))?;
        }
        Op::AmountPaid { doc, paid } => {
            let Some((bill, id)) = w.doc(*doc) else {
                return Ok(());
            };
            let body = json!({ "id": id, "amount_paid": money(*paid) });
            w.send(op, |t| t.put(World::path(bill), body))?;
        }
        Op::Lines { doc, price } => {
            let Some((bill, id)) = w.doc(*doc) else {
                return Ok(());
            };
            let body = json!({ "id": id, "lines": World::lines(*price) });
            w.send(op, |t| t.put(World::path(bill), body))?;
        }
        Op::Pay { doc, amount } => {
            let Some((bill, id)) = w.doc(*doc) else {
                return Ok(());
            };
            let amount = match amount {
                Some(a) => money(*a),
                None => {
                    let (_, v) = w.t.get(&format!("{}?id={id}", World::path(bill)));
                    let due = v["data"][0]["amount_due"].clone();
                    if dec(&due) <= Decimal::ZERO {
                        return Ok(());
                    }
                    due
                }
            };
            let body = json!({ "document_id": id, "amount": amount });
            w.send(op, |t| t.post("/api/payments", body))?;
        }
        Op::Unpay { doc, nth } => {
            let Some((_, id)) = w.doc(*doc) else {
                return Ok(());
            };
            let (_, v) = w.t.get(&format!("/api/payments?documentId={id}"));
            let list = v["data"].as_array().unwrap();
            if list.is_empty() {
                return Ok(());
            }
            let p = list[nth % list.len()]["id"].clone();
            w.send(op, |t| t.delete("/api/payments", json!({ "id": p })))?;
        }
        Op::Delete { doc } => {
            let Some((bill, id)) = w.doc(*doc) else {
                return Ok(());
            };
            if w.send(op, |t| t.delete(World::path(bill), json!({ "id": id })))?
                .is_some()
            {
                w.docs.retain(|(_, d)| *d != id);
            }
        }
    }
    Ok(())
}

/// The money invariants of every document, read through the API
/// (`common::invariants::try_check_money`), and what status follows from them.
fn check(w: &World, after: &Op) -> Result<(), TestCaseError> {
    try_check_money(&w.t, None).map_err(|e| fail(format!("after {after:?}: {e}")))?;
    for path in ["/api/invoices", "/api/bills"] {
        let (_, v) = w.t.get(path);
        for d in v["data"].as_array().unwrap() {
            let (paid, due) = (dec(&d["amount_paid"]), dec(&d["amount_due"]));
            if d["status"] == "paid" {
                prop_assert!(due.is_zero(), "paid yet owing after {:?}: {}", after, d);
            }
            let posted = d["status"] != "draft" && d["status"] != "void";
            if posted && due.is_zero() && !paid.is_zero() {
                prop_assert_eq!(
                    &d["status"],
                    "paid",
                    "settled yet not paid after {:?}",
                    after
                );
            }
        }
    }
    let conn = w.t.db.conn().unwrap();
    let breaches = stockbook::accounting::payments::breaches(&conn).unwrap();
    prop_assert!(
        breaches.is_empty(),
        "check after {:?}: {:?}",
        after,
        breaches
    );
    Ok(())
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut w = World::new();
    for op in ops {
        step(&mut w, op)?;
        check(&w, op)?;
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
    fn amount_paid_is_the_sum_of_payments_and_nothing_is_ever_overpaid(
        ops in prop::collection::vec(op(), 1..24),
    ) {
        run(&ops)?;
    }
}
