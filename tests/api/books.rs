//! How the parts of the books meet (docs/accounting.md): payments and refunds on credits,
//! credits and payments settling an invoice together (docs/accounting.md#status-follows-money),
//! VAT treatment on credit lines (docs/accounting.md#vat-treatment), credits in another
//! currency (docs/accounting.md#currencies), the lock date on credits and refunds
//! (docs/accounting.md#lock-date), a posted bill re-costed by a change of its rate
//! (docs/documents-stock.md#costs) and credit notes in the gross margin.

use super::common;

use common::invariants::{check_all, dec};
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
        let (s, v) = self.t.get(&format!("{path}?id={}", doc["id"].as_str().unwrap()));
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
    let (s, v) = b.t.put("/api/bills", json!({ "id": bill["id"], "exchange_rate": 0.9 }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(b.valuation_cost(&p), (d("18"), d("180")));
    assert_eq!(qty_at(&b.t, &p, &b.floor), d("10"));
    // Back to pounds: £20 a unit.
    let (s, v) = b.t.put("/api/bills", json!({ "id": bill["id"], "currency": "GBP" }));
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
    let res = b.t.put("/api/bills", json!({ "id": bill["id"], "exchange_rate": 0.9 }));
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
    let (s, v) = b.t.put("/api/credit-notes", json!({ "id": void["id"], "status": "void" }));
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
