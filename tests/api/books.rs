//! How the parts of the books meet (docs/accounting.md): payments and refunds on credits,
//! credits and payments settling an invoice together (docs/accounting.md#status-follows-money),
//! VAT treatment on credit lines (docs/accounting.md#vat-treatment), credits in another
//! currency (docs/accounting.md#currencies), the lock date on credits and refunds
//! (docs/accounting.md#lock-date), a posted bill re-costed by a change of its rate
//! (docs/documents-stock.md#costs) and credit notes in the gross margin.

use super::common;

use common::invariants::{check_all, dec, try_check_money};
use common::stock_fixtures::{cost_price, id, location, product_with, qty_at};
use common::{app_with_entity, assert_error, session_contact, TestApp};
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use time::Duration;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

struct Books {
    t: TestApp,
    entity: String,
    floor: String,
    customer: String,
    supplier: String,
}

/// An entity whose documents default to its shop floor, with a customer and a supplier;
/// the clock stopped.
fn books() -> Books {
    let (t, entity) = app_with_entity();
    t.clock.freeze();
    let floor = location(&t, &entity, "Shop floor");
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": entity, "default_location_id": floor }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let customer = session_contact(&t, Some(&entity), "Ann Buyer");
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": "Mug Supplies Ltd", "type": "supplier", "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    let supplier = id(&v["data"]);
    Books {
        t,
        entity,
        floor,
        customer,
        supplier,
    }
}

/// A line of `qty` × £`price` at `vat_rate` %.
fn line(product: Option<&str>, qty: i64, price: &str, vat_rate: i64) -> Value {
    let mut l = json!({ "description": "Item", "quantity": qty,
                        "unit_price": common::stock_fixtures::num(price), "vat_rate": vat_rate });
    if let Some(p) = product {
        l["product_id"] = json!(p);
    }
    l
}

impl Books {
    fn day(&self, days: i64) -> String {
        (self.t.clock.today() + Duration::days(days)).to_string()
    }

    fn product(&self, name: &str, cost: &str) -> String {
        id(&product_with(
            &self.t,
            &self.entity,
            name,
            json!({ "unit_price": 10, "cost_price": common::stock_fixtures::num(cost) }),
        ))
    }

    /// `qty` units of `product` on the shop floor, `days` from today.
    fn stock(&self, product: &str, qty: i64, days: i64) {
        let (s, v) = self.t.post(
            "/api/stock-movements",
            json!({ "product_id": product, "location_id": self.floor, "type": "adjustment",
                    "qty": qty, "date": self.day(days) }),
        );
        assert_eq!(s, Status::Created, "{v}");
    }

    fn post(&self, path: &str, mut body: Value) -> (Status, Value) {
        let party = if path.contains("bills") || path.contains("supplier") {
            &self.supplier
        } else {
            &self.customer
        };
        body["contact_id"] = json!(party);
        body["entity_id"] = json!(self.entity);
        self.t.post(path, body)
    }

    fn create(&self, path: &str, body: Value) -> Value {
        let (s, v) = self.post(path, body);
        assert_eq!(s, Status::Created, "{v}");
        v["data"].clone()
    }

    fn get(&self, path: &str, doc: &Value) -> Value {
        let (s, v) = self
            .t
            .get(&format!("{path}?id={}", doc["id"].as_str().unwrap()));
        assert_eq!(s, Status::Ok, "{v}");
        v["data"][0].clone()
    }

    fn pay(&self, doc: &Value, amount: &str) -> (Status, Value) {
        self.t.post(
            "/api/payments",
            json!({ "document_id": doc["id"], "amount": common::stock_fixtures::num(amount) }),
        )
    }

    fn valuation_cost(&self, product: &str) -> (Decimal, Decimal) {
        let (s, v) = self.t.get(&format!(
            "/api/reports/stock-valuation?entityId={}",
            self.entity
        ));
        assert_eq!(s, Status::Ok, "{v}");
        let row = v["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["product_id"] == json!(product))
            .unwrap_or_else(|| panic!("no valuation row for {product}: {v}"))
            .clone();
        (dec(&row["cost_price"]), dec(&row["total_cost"]))
    }

    fn check(&self) {
        check_all(&self.t, Some(&self.entity));
        try_check_money(&self.t, Some(&self.entity)).unwrap();
        let conn = self.t.db.conn().unwrap();
        let found = stockbook::accounting::documents::credited_breaches(&conn).unwrap();
        assert!(found.is_empty(), "{found:?}");
        let found = stockbook::accounting::payments::breaches(&conn).unwrap();
        assert!(found.is_empty(), "{found:?}");
    }
}

// ---------------------------------------------------------------------------------------
// A posted bill's rate

#[test]
fn changing_a_posted_bills_exchange_rate_re_costs_its_stock() {
    let b = books();
    let p = b.product("Mug", "0");
    // 10 × €20 at 0.85: £170, £17 a unit.
    let bill = b.create(
        "/api/bills",
        json!({ "status": "awaiting_payment", "currency": "EUR", "exchange_rate": 0.85,
                "lines": [line(Some(&p), 10, "20", 20)] }),
    );
    assert_eq!(b.valuation_cost(&p), (d("17"), d("170")));
    let (s, v) = b.t.put(
        "/api/bills",
        json!({ "id": bill["id"], "exchange_rate": 0.9 }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(b.valuation_cost(&p), (d("18"), d("180")));
    assert_eq!(qty_at(&b.t, &p, &b.floor), d("10"));
    // Back to pounds: £20 a unit.
    let (s, v) =
        b.t.put("/api/bills", json!({ "id": bill["id"], "currency": "GBP" }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(b.valuation_cost(&p), (d("20"), d("200")));
    assert_eq!(cost_price(&b.t, &p), d("20"));
    b.check();
}

#[test]
fn changing_a_posted_bills_line_price_re_costs_its_stock() {
    let b = books();
    let p = b.product("Mug", "0");
    let bill = b.create(
        "/api/bills",
        json!({ "status": "awaiting_payment", "lines": [line(Some(&p), 10, "20", 20)] }),
    );
    assert_eq!(b.valuation_cost(&p), (d("20"), d("200")));
    let (s, v) = b.t.put(
        "/api/bills",
        json!({ "id": bill["id"], "lines": [line(Some(&p), 10, "25", 20)] }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(b.valuation_cost(&p), (d("25"), d("250")));
    b.check();
}

#[test]
fn a_bill_whose_goods_were_sold_is_not_re_costed_and_nothing_changes() {
    let b = books();
    let p = b.product("Mug", "0");
    let bill = b.create(
        "/api/bills",
        json!({ "status": "awaiting_payment", "currency": "EUR", "exchange_rate": 0.85,
                "lines": [line(Some(&p), 10, "20", 20)] }),
    );
    b.create(
        "/api/invoices",
        json!({ "status": "sent", "lines": [line(Some(&p), 10, "30", 20)] }),
    );
    let before = b.t.get("/api/stock-movements").1;
    let res = b.t.put(
        "/api/bills",
        json!({ "id": bill["id"], "exchange_rate": 0.9 }),
    );
    assert_error(&res, Status::Conflict);
    assert_eq!(b.t.get("/api/stock-movements").1, before);
    assert_eq!(dec(&b.get("/api/bills", &bill)["exchange_rate"]), d("0.85"));
    b.check();
}

// ---------------------------------------------------------------------------------------
// The gross margin

fn margin(b: &Books, query: &str) -> (Value, Value) {
    let (s, v) = b.t.get(&format!(
        "/api/reports/gross-margin?entityId={}{query}",
        b.entity
    ));
    assert_eq!(s, Status::Ok, "{v}");
    (v["data"][0].clone(), v["summary"].clone())
}

#[test]
fn posted_credit_notes_take_back_sales_and_cost_of_sales_on_their_issue_date() {
    let b = books();
    let p = b.product("Mug", "4");
    b.stock(&p, 20, -7);
    // 5 sold at £10 three days ago: sales £50, cost £20.
    let inv = b.create(
        "/api/invoices",
        json!({ "status": "sent", "issue_date": b.day(-3),
                "lines": [line(Some(&p), 5, "10", 20)] }),
    );
    // 2 credited back today at the invoice's cost (£4): −£20 sales, −£8 cost.
    b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "invoice_id": inv["id"],
                "lines": [line(Some(&p), 2, "10", 20)] }),
    );
    // 1 credited in euros, unlinked, at €10 × 0.8: −£8 sales, −£4 (the cost price).
    b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "currency": "EUR", "exchange_rate": 0.8,
                "lines": [line(Some(&p), 1, "10", 20)] }),
    );
    // Drafts and voided credit notes count for nothing.
    b.create(
        "/api/credit-notes",
        json!({ "status": "draft", "lines": [line(Some(&p), 1, "10", 20)] }),
    );
    let void = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "lines": [line(Some(&p), 1, "10", 20)] }),
    );
    let (s, v) = b.t.put(
        "/api/credit-notes",
        json!({ "id": void["id"], "status": "void" }),
    );
    assert_eq!(s, Status::Ok, "{v}");

    let (row, summary) = margin(&b, "");
    assert_eq!(dec(&row["quantity"]), d("2"), "{row}");
    assert_eq!(dec(&row["sales"]), d("22"), "{row}");
    assert_eq!(dec(&row["cost_of_sales"]), d("8"), "{row}");
    assert_eq!(dec(&row["gross_margin"]), d("14"), "{row}");
    assert_eq!(dec(&summary["sales"]), d("22"));
    assert_eq!(dec(&summary["costOfSales"]), d("8"));
    // Up to yesterday the credits are not yet issued.
    let (row, _) = margin(&b, &format!("&dateTo={}", b.day(-1)));
    assert_eq!(dec(&row["quantity"]), d("5"), "{row}");
    assert_eq!(dec(&row["sales"]), d("50"), "{row}");
    assert_eq!(dec(&row["cost_of_sales"]), d("20"), "{row}");
    // Today alone: only the credits, a negative margin row.
    let (row, _) = margin(&b, &format!("&dateFrom={}", b.day(0)));
    assert_eq!(dec(&row["quantity"]), d("-3"), "{row}");
    assert_eq!(dec(&row["sales"]), d("-28"), "{row}");
    assert_eq!(dec(&row["cost_of_sales"]), d("-12"), "{row}");
    b.check();
}

// ---------------------------------------------------------------------------------------
// Refunds, credits and payments together

fn money(v: &Value, field: &str) -> Decimal {
    dec(&v[field])
}

#[test]
fn an_unlinked_credit_note_is_refunded_up_to_its_total_and_a_linked_one_takes_no_refund() {
    let b = books();
    // £10 + 20 % VAT: £12 owed back.
    let cn = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "lines": [line(None, 1, "10", 20)] }),
    );
    assert_eq!(money(&cn, "amount_due"), d("12"));
    let (s, v) = b.pay(&cn, "5");
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["document_type"], "credit_note");
    let cn_now = b.get("/api/credit-notes", &cn);
    assert_eq!(money(&cn_now, "amount_paid"), d("5"));
    assert_eq!(money(&cn_now, "amount_due"), d("7"));
    // A credit's status never follows money.
    assert_eq!(cn_now["status"], "posted");
    // Beyond what is left: 409, nothing written.
    let before = b.t.get("/api/payments").1;
    assert_error(&b.pay(&cn, "7.01"), Status::Conflict);
    assert_eq!(b.t.get("/api/payments").1, before);
    let (s, v) = b.pay(&cn, "7");
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(b.get("/api/credit-notes", &cn)["status"], "posted");

    // A credit note applied to an invoice has nothing left to refund.
    let inv = b.create(
        "/api/invoices",
        json!({ "status": "sent", "lines": [line(None, 1, "100", 20)] }),
    );
    let linked = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "invoice_id": inv["id"], "lines": [line(None, 1, "10", 20)] }),
    );
    assert_eq!(money(&linked, "amount_due"), d("0"));
    let before = b.t.get("/api/payments").1;
    assert_error(&b.pay(&linked, "1"), Status::Conflict);
    assert_eq!(b.t.get("/api/payments").1, before);
    assert_eq!(
        money(&b.get("/api/credit-notes", &linked), "amount_paid"),
        d("0")
    );

    // A supplier credit is refunded by the supplier the same way.
    let sc = b.create(
        "/api/supplier-credits",
        json!({ "status": "posted", "lines": [line(None, 1, "50", 20)] }),
    );
    let (s, v) = b.pay(&sc, "60");
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["document_type"], "supplier_credit");
    assert_error(&b.pay(&sc, "0.01"), Status::Conflict);
    b.check();
}

#[test]
fn a_linked_credit_note_settles_an_invoice_and_voiding_it_makes_the_invoice_owe_again() {
    let b = books();
    let inv = b.create(
        "/api/invoices",
        json!({ "status": "sent", "lines": [line(None, 2, "50", 20)] }),
    );
    assert_eq!(money(&inv, "total"), d("120"));
    let cn = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "invoice_id": inv["id"], "lines": [line(None, 2, "50", 20)] }),
    );
    let now = b.get("/api/invoices", &inv);
    assert_eq!(now["status"], "paid", "{now}");
    assert_eq!(money(&now, "amount_credited"), d("120"));
    assert_eq!(money(&now, "amount_due"), d("0"));
    assert_eq!(money(&now, "amount_paid"), d("0"));
    // Nothing is owed, so nothing more may be paid.
    assert_error(&b.pay(&inv, "1"), Status::Conflict);
    // The invoice cannot be voided under its credit: the credit goes first.
    let before = b.get("/api/invoices", &inv);
    let r = b.t.put(
        "/api/invoices",
        json!({ "id": inv["id"], "status": "void" }),
    );
    assert_error(&r, Status::Conflict);
    assert_eq!(b.get("/api/invoices", &inv), before);
    let (s, v) = b.t.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "status": "void" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let now = b.get("/api/invoices", &inv);
    assert_eq!(now["status"], "sent", "{now}");
    assert_eq!(money(&now, "amount_credited"), d("0"));
    assert_eq!(money(&now, "amount_due"), d("120"));
    // Now the invoice may be voided.
    let (s, v) = b.t.put(
        "/api/invoices",
        json!({ "id": inv["id"], "status": "void" }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    b.check();
}

#[test]
fn a_part_payment_and_a_credit_note_together_settle_an_invoice() {
    let b = books();
    let p = b.product("Mug", "4");
    b.stock(&p, 10, -7);
    // 5 mugs at £10 + VAT: £60.
    let inv = b.create(
        "/api/invoices",
        json!({ "status": "sent", "issue_date": b.day(-2), "lines": [line(Some(&p), 5, "10", 20)] }),
    );
    let (s, v) = b.pay(&inv, "36");
    assert_eq!(s, Status::Created, "{v}");
    let now = b.get("/api/invoices", &inv);
    assert_eq!(now["status"], "sent");
    assert_eq!(money(&now, "amount_due"), d("24"));
    // A credit beyond what is left due is refused: 3 mugs are £36, £24 is due.
    let before = b.get("/api/invoices", &inv);
    let r = b.post(
        "/api/credit-notes",
        json!({ "status": "posted", "invoice_id": inv["id"], "lines": [line(Some(&p), 3, "10", 20)] }),
    );
    assert_error(&r, Status::Conflict);
    assert_eq!(b.get("/api/invoices", &inv), before);
    assert_eq!(qty_at(&b.t, &p, &b.floor), d("5"));
    // Two mugs back: £24, the rest.
    let cn = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "invoice_id": inv["id"], "lines": [line(Some(&p), 2, "10", 20)] }),
    );
    let now = b.get("/api/invoices", &inv);
    assert_eq!(now["status"], "paid", "{now}");
    assert_eq!(money(&now, "amount_paid"), d("36"));
    assert_eq!(money(&now, "amount_credited"), d("24"));
    assert_eq!(money(&now, "amount_due"), d("0"));
    assert_eq!(qty_at(&b.t, &p, &b.floor), d("7"));
    // Deleting the payment makes it owe again, what the credit does not cover.
    let (_, list) = b.t.get(&format!(
        "/api/payments?documentId={}",
        inv["id"].as_str().unwrap()
    ));
    let (s, v) =
        b.t.delete("/api/payments", json!({ "id": list["data"][0]["id"] }));
    assert_eq!(s, Status::Ok, "{v}");
    let now = b.get("/api/invoices", &inv);
    assert_eq!(now["status"], "sent", "{now}");
    assert_eq!(money(&now, "amount_due"), d("36"));
    assert_eq!(
        money(&b.get("/api/credit-notes", &cn), "amount_credited"),
        d("24")
    );
    b.check();
}

// ---------------------------------------------------------------------------------------
// VAT treatment and currencies on credits

#[test]
fn reverse_charge_is_taken_on_supplier_credit_lines_and_refused_on_credit_note_lines() {
    let b = books();
    let rc = json!({ "description": "Consulting from abroad", "quantity": 1, "unit_price": 100,
                     "vat_treatment": "reverse_charge" });
    let sc = b.create(
        "/api/supplier-credits",
        json!({ "status": "posted", "lines": [rc] }),
    );
    assert_eq!(sc["lines"][0]["vat_treatment"], "reverse_charge");
    assert_eq!(dec(&sc["lines"][0]["reverse_charge_vat"]), d("20"));
    assert_eq!(money(&sc, "vat_total"), d("0"));
    assert_eq!(money(&sc, "total"), d("100"));
    let before = b.t.get("/api/credit-notes").1;
    let r = b.post("/api/credit-notes", json!({ "lines": [rc] }));
    assert_error(&r, Status::BadRequest);
    assert_eq!(b.t.get("/api/credit-notes").1, before);
    // Nor may a PUT give a credit note's line the treatment.
    let cn = b.create(
        "/api/credit-notes",
        json!({ "lines": [line(None, 1, "10", 20)] }),
    );
    let r = b.t.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "lines": [rc] }),
    );
    assert_error(&r, Status::BadRequest);
    assert_eq!(
        b.get("/api/credit-notes", &cn)["lines"][0]["vat_treatment"],
        "standard"
    );
    b.check();
}

#[test]
fn a_eur_credit_note_keeps_its_amounts_in_euros_and_needs_its_rate() {
    let b = books();
    let r = b.post(
        "/api/credit-notes",
        json!({ "currency": "EUR", "lines": [line(None, 1, "100", 20)] }),
    );
    assert_error(&r, Status::BadRequest);
    let inv = b.create(
        "/api/invoices",
        json!({ "status": "sent", "currency": "EUR", "exchange_rate": 0.85,
                "lines": [line(None, 1, "200", 20)] }),
    );
    let cn = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "currency": "eur", "exchange_rate": 0.86,
                "invoice_id": inv["id"], "lines": [line(None, 1, "100", 20)] }),
    );
    assert_eq!(cn["currency"], "EUR");
    assert_eq!(dec(&cn["exchange_rate"]), d("0.86"));
    assert_eq!(money(&cn, "total"), d("120"));
    let now = b.get("/api/invoices", &inv);
    assert_eq!(money(&now, "amount_credited"), d("120"));
    assert_eq!(money(&now, "amount_due"), d("120"));
    // A credit in pounds against the euro invoice would take £ off a € debt: 400, and the
    // invoice keeps its currency while the credit stands (409).
    let before = b.t.get("/api/credit-notes").1;
    let r = b.post(
        "/api/credit-notes",
        json!({ "status": "posted", "invoice_id": inv["id"], "lines": [line(None, 1, "10", 20)] }),
    );
    let m = assert_error(&r, Status::BadRequest);
    assert!(m.contains("invoice_id") && m.contains("EUR"), "{m}");
    assert_eq!(b.t.get("/api/credit-notes").1, before);
    let r = b.t.put(
        "/api/invoices",
        json!({ "id": inv["id"], "currency": "GBP" }),
    );
    assert!(assert_error(&r, Status::Conflict).contains("currency"));
    assert_eq!(b.get("/api/invoices", &inv)["currency"], "EUR");
    // An unlinked one is refunded in its own currency.
    let cn = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "currency": "EUR", "exchange_rate": 0.86,
                "lines": [line(None, 1, "10", 0)] }),
    );
    let (s, v) = b.pay(&cn, "10");
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(
        money(&b.get("/api/credit-notes", &cn), "amount_due"),
        d("0")
    );
    b.check();
}

// ---------------------------------------------------------------------------------------
// The lock date

#[test]
fn a_credit_or_a_refund_on_a_locked_day_is_refused_naming_the_date() {
    let b = books();
    let locked_day = b.day(-2);
    let inv = b.create(
        "/api/invoices",
        json!({ "status": "sent", "issue_date": b.day(-5), "lines": [line(None, 1, "100", 20)] }),
    );
    let cn = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "issue_date": b.day(-4), "lines": [line(None, 1, "10", 20)] }),
    );
    let open_cn = b.create(
        "/api/credit-notes",
        json!({ "status": "posted", "issue_date": b.day(-1), "lines": [line(None, 1, "10", 20)] }),
    );
    let (s, v) = b.t.put(
        "/api/entities",
        json!({ "id": b.entity, "lock_date": locked_day }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    let message = format!("The books are locked up to {locked_day}");
    let before = (b.t.get("/api/credit-notes").1, b.t.get("/api/payments").1);
    // A credit note dated on the locked day.
    let r = b.post(
        "/api/credit-notes",
        json!({ "status": "posted", "issue_date": locked_day, "lines": [line(None, 1, "10", 20)] }),
    );
    assert_eq!(assert_error(&r, Status::Conflict), message);
    // A change to one dated before it, even to link it to an open invoice.
    let r = b.t.put(
        "/api/credit-notes",
        json!({ "id": cn["id"], "invoice_id": inv["id"] }),
    );
    assert_eq!(assert_error(&r, Status::Conflict), message);
    // A refund dated on the locked day, on a credit note that is itself open.
    let r = b.t.post(
        "/api/payments",
        json!({ "document_id": open_cn["id"], "amount": 1, "date": locked_day }),
    );
    assert_eq!(assert_error(&r, Status::Conflict), message);
    // A payment on the invoice dated on the locked day.
    let r = b.t.post(
        "/api/payments",
        json!({ "document_id": inv["id"], "amount": 1, "date": locked_day }),
    );
    assert_eq!(assert_error(&r, Status::Conflict), message);
    assert_eq!(
        (b.t.get("/api/credit-notes").1, b.t.get("/api/payments").1),
        before
    );
    // The day after is open.
    let (s, v) = b.t.post(
        "/api/payments",
        json!({ "document_id": open_cn["id"], "amount": 1, "date": b.day(-1) }),
    );
    assert_eq!(s, Status::Created, "{v}");
    b.check();
}
