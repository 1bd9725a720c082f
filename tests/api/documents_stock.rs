//! Invoices and bills move stock (docs/documents-stock.md#the-one-rule), cost of sales and the
//! gross-margin report (docs/documents-stock.md#costs), stock as at a date
//! (docs/documents-stock.md#costs) and the movement history as CSV, over HTTP.

use super::common;

use common::invariants::{check_all, dec};
use common::stock_fixtures::{
    cost_price, location, moved, movements, product_with, qty_at, stock_qty,
};
use common::{app_with, app_with_entity, assert_error, TestApp};
use rocket::http::Status;
use rust_decimal::Decimal;
use serde_json::{json, Value};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// An entity with two locations (the first its default), a customer and a supplier.
struct Shop {
    t: TestApp,
    entity: String,
    floor: String,
    back: String,
    customer: String,
    supplier: String,
}

fn contact(t: &TestApp, entity: &str, name: &str, kind: &str) -> String {
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": name, "type": kind, "entity_id": entity }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

fn shop_from(t: TestApp, entity: String) -> Shop {
    let floor = location(&t, &entity, "Shop floor");
    let back = location(&t, &entity, "Back room");
    let (s, v) = t.put(
        "/api/entities",
        json!({ "id": entity, "default_location_id": floor }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["default_location_id"], json!(floor));
    let customer = contact(&t, &entity, "Ann Buyer", "customer");
    let supplier = contact(&t, &entity, "Mug Supplies Ltd", "supplier");
    Shop {
        t,
        entity,
        floor,
        back,
        customer,
        supplier,
    }
}

fn shop() -> Shop {
    let (t, entity) = app_with_entity();
    shop_from(t, entity)
}

impl Shop {
    /// A product with `qty` in stock at the shop floor, at cost `cost`.
    fn stocked(&self, name: &str, qty: i64, cost: &str) -> String {
        let p = product_with(
            &self.t,
            &self.entity,
            name,
            json!({ "unit_price": 10, "cost_price": common::stock_fixtures::num(cost) }),
        )["id"]
            .as_str()
            .unwrap()
            .to_owned();
        if qty > 0 {
            moved(&self.t, &p, Some(&self.floor), "adjustment", json!(qty));
        }
        p
    }

    fn invoice(&self, status: &str, lines: Value) -> (Status, Value) {
        self.t.post(
            "/api/invoices",
            json!({ "contact_id": self.customer, "entity_id": self.entity, "status": status,
                    "lines": lines }),
        )
    }

    fn created_invoice(&self, status: &str, lines: Value) -> Value {
        let (s, v) = self.invoice(status, lines);
        assert_eq!(s, Status::Created, "{v}");
        v["data"].clone()
    }

    fn bill(&self, status: &str, lines: Value) -> Value {
        let (s, v) = self.t.post(
            "/api/bills",
            json!({ "contact_id": self.supplier, "entity_id": self.entity, "status": status,
                    "lines": lines }),
        );
        assert_eq!(s, Status::Created, "{v}");
        v["data"].clone()
    }

    fn put_invoice(&self, body: Value) -> (Status, Value) {
        self.t.put("/api/invoices", body)
    }

    fn doc_movements(&self, id: &str) -> Vec<Value> {
        movements(&self.t, &format!("?documentId={id}"))
    }

    fn check(&self) {
        check_all(&self.t, Some(&self.entity));
    }
}

fn line(product: &str, qty: i64) -> Value {
    json!({ "product_id": product, "quantity": qty, "unit_price": 10 })
}

// ---------------------------------------------------------------------------------------
// Locations of entities and documents

#[test]
fn a_document_takes_its_entitys_default_location_unless_it_names_one_or_null() {
    let s = shop();
    let inv = s.created_invoice("draft", json!([]));
    assert_eq!(inv["location_id"], json!(s.floor));
    let (st, v) = s.t.post(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "location_id": s.back }),
    );
    assert_eq!(st, Status::Created, "{v}");
    assert_eq!(v["data"]["location_id"], json!(s.back));
    let (st, v) = s.t.post(
        "/api/bills",
        json!({ "contact_id": s.supplier, "entity_id": s.entity, "location_id": null }),
    );
    assert_eq!(st, Status::Created, "{v}");
    assert_eq!(v["data"]["location_id"], Value::Null);
}

#[test]
fn a_default_or_document_location_of_another_entity_is_refused() {
    let s = shop();
    let other = s.t.entity("Other Ltd");
    let foreign = location(&s.t, &other, "Elsewhere");
    let r = s.t.put(
        "/api/entities",
        json!({ "id": s.entity, "default_location_id": foreign }),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("default_location_id"));
    let r = s.t.post(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "location_id": foreign }),
    );
    assert!(assert_error(&r, Status::BadRequest).contains("location_id"));
    let unknown = "00000000-0000-4000-8000-000000000000";
    let r = s.t.put(
        "/api/entities",
        json!({ "id": s.entity, "default_location_id": unknown }),
    );
    assert_error(&r, Status::NotFound);
    // Clearing it is allowed.
    let (st, v) = s.t.put(
        "/api/entities",
        json!({ "id": s.entity, "default_location_id": null }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(v["data"]["default_location_id"], Value::Null);
}

// ---------------------------------------------------------------------------------------
// Each transition by hand

#[test]
fn sending_an_invoice_takes_its_lines_out_of_stock_as_sales() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("draft", json!([line(&mug, 3)]));
    assert!(s.doc_movements(inv["id"].as_str().unwrap()).is_empty());
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));

    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "status": "sent" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("7"));
    assert_eq!(stock_qty(&s.t, &mug), d("7"));
    let ms = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0]["type"], json!("sale"));
    assert_eq!(dec(&ms[0]["qty"]), d("-3"));
    assert_eq!(ms[0]["reference"], inv["number"]);
    assert_eq!(ms[0]["location_id"], json!(s.floor));
    assert_eq!(ms[0]["document_id"], inv["id"]);
    assert_eq!(dec(&ms[0]["unit_cost"]), d("4"));
    assert_eq!(
        ms[0]["date"],
        json!(s.t.clock.today().to_string()),
        "dated the day it is written"
    );
    assert_eq!(dec(&v["data"]["cost_of_sales"]), d("12"));
    s.check();
}

#[test]
fn marking_a_sent_invoice_paid_moves_nothing() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "status": "paid" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("7"));
    assert_eq!(s.doc_movements(inv["id"].as_str().unwrap()).len(), 1);
    assert_eq!(dec(&v["data"]["cost_of_sales"]), d("12"));
    s.check();
}

#[test]
fn voiding_a_paid_invoice_brings_its_stock_back_as_a_return() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("paid", json!([line(&mug, 3)]));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("7"));
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "status": "void" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(v["data"]["cost_of_sales"], Value::Null);
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    let ms = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(ms.len(), 2);
    // Newest first.
    assert_eq!(ms[0]["type"], json!("return"));
    assert_eq!(dec(&ms[0]["qty"]), d("3"));
    s.check();
}

#[test]
fn editing_a_line_quantity_of_a_posted_invoice_moves_the_difference_only() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "lines": [line(&mug, 5)] }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("5"));
    let ms = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(ms.len(), 2);
    assert_eq!(dec(&ms[0]["qty"]), d("-2"));
    assert_eq!(ms[0]["type"], json!("sale"));
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "lines": [line(&mug, 1)] }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("9"));
    let ms = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(dec(&ms[0]["qty"]), d("4"));
    assert_eq!(ms[0]["type"], json!("return"));
    assert_eq!(dec(&v["data"]["cost_of_sales"]), d("4"));
    s.check();
}

#[test]
fn moving_a_posted_invoice_to_another_location_moves_its_effect() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    moved(&s.t, &mug, Some(&s.back), "adjustment", json!(6));
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "location_id": s.back }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(v["data"]["location_id"], json!(s.back));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    assert_eq!(qty_at(&s.t, &mug, &s.back), d("3"));
    let ms = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(ms.len(), 3);
    s.check();
}

#[test]
fn a_posted_document_that_moved_stock_cannot_be_deleted() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    let r = s.t.delete("/api/invoices", json!({ "id": inv["id"] }));
    assert!(assert_error(&r, Status::Conflict).contains("void"));
    let bill = s.bill("awaiting_payment", json!([line(&mug, 2)]));
    let r = s.t.delete("/api/bills", json!({ "id": bill["id"] }));
    assert_error(&r, Status::Conflict);
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("9"));
    // Once void, it may go.
    let (st, _) = s.put_invoice(json!({ "id": inv["id"], "status": "void" }));
    assert_eq!(st, Status::Ok);
    let (st, v) = s.t.delete("/api/invoices", json!({ "id": inv["id"] }));
    assert_eq!(st, Status::Ok, "{v}");
    s.check();
}

#[test]
fn deleting_a_draft_writes_no_movement() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("draft", json!([line(&mug, 3)]));
    let before = movements(&s.t, "").len();
    let (st, v) = s.t.delete("/api/invoices", json!({ "id": inv["id"] }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(movements(&s.t, "").len(), before);
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    s.check();
}

#[test]
fn an_invoice_needing_more_than_the_location_holds_is_refused_and_writes_nothing() {
    let s = shop();
    let mug = s.stocked("Blue mug", 2, "4");
    let plate = s.stocked("Plate", 10, "1");
    let before = movements(&s.t, "").len();
    let invoices_before = s.t.get("/api/invoices").1["data"].as_array().unwrap().len();
    let r = s.invoice("sent", json!([line(&plate, 1), line(&mug, 3)]));
    let msg = assert_error(&r, Status::Conflict);
    assert!(msg.contains("Insufficient stock"), "{msg}");
    let sku = common::stock_fixtures::get_product(&s.t, &mug)["sku"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        msg.contains(&sku) && msg.contains("needs 3") && msg.contains("has 2"),
        "{msg}"
    );
    assert_eq!(movements(&s.t, "").len(), before);
    assert_eq!(
        s.t.get("/api/invoices").1["data"].as_array().unwrap().len(),
        invoices_before
    );
    assert_eq!(qty_at(&s.t, &plate, &s.floor), d("10"));

    // A draft is fine; posting it is refused the same way and leaves it a draft.
    let inv = s.created_invoice("draft", json!([line(&mug, 3)]));
    let r = s.put_invoice(json!({ "id": inv["id"], "status": "sent" }));
    assert_error(&r, Status::Conflict);
    let (_, v) = s.t.get("/api/invoices");
    let again = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == inv["id"])
        .unwrap()
        .clone();
    assert_eq!(again["status"], json!("draft"));
    s.check();
}

#[test]
fn with_negative_stock_allowed_an_invoice_may_oversell() {
    let t = app_with(&[("allow_negative_stock", json!(true))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let s = shop_from(t, entity);
    let mug = s.stocked("Blue mug", 2, "4");
    s.created_invoice("sent", json!([line(&mug, 3)]));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("-1"));
    s.check();
}

#[test]
fn an_inactive_product_on_a_line_cannot_be_posted() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let (st, v) =
        s.t.put("/api/products", json!({ "id": mug, "active": false }));
    assert_eq!(st, Status::Ok, "{v}");
    let r = s.invoice("sent", json!([line(&mug, 1)]));
    assert!(assert_error(&r, Status::Conflict).contains("inactive"));
    let inv = s.created_invoice("draft", json!([line(&mug, 1)]));
    let r = s.put_invoice(json!({ "id": inv["id"], "status": "sent" }));
    assert_error(&r, Status::Conflict);
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    s.check();
}

#[test]
fn an_imported_invoice_moves_no_stock() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let sku = common::stock_fixtures::get_product(&s.t, &mug)["sku"]
        .as_str()
        .unwrap()
        .to_owned();
    let csv = format!(
        "number,contact_name,issue_date,status,line_description,line_quantity,line_unit_price,line_sku\n\
         X-1,Ann Buyer,01/03/2024,paid,Blue mug,3,10,{sku}\n"
    );
    let mapping: serde_json::Map<String, Value> = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(|h| (h.to_owned(), json!(h)))
        .collect();
    let (st, v) = s.t.post(
        "/api/import/csv",
        json!({"entityType": "invoices", "platform": "generic", "csv": csv, "entity_id": s.entity,
               "mapping": mapping}),
    );
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(v["data"]["imported"], json!(1), "{v}");
    let (_, v) = s.t.get("/api/invoices");
    let inv = v["data"][0].clone();
    assert_eq!(inv["status"], json!("paid"));
    assert_eq!(inv["lines"][0]["product_id"], json!(mug), "{inv}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    // Even given a location afterwards, it stays history.
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "location_id": s.floor }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    assert!(s.doc_movements(inv["id"].as_str().unwrap()).is_empty());
}

#[test]
fn a_v1_invoice_created_sent_takes_stock() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let (st, v) = s.t.post(
        "/api/api-keys",
        json!({ "name": "till", "entity_id": s.entity }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let key = v["data"]["raw_key"].as_str().unwrap().to_owned();
    let (st, v) = s.t.post_with_key(
        "/api/v1/invoices",
        &key,
        json!({ "contact_id": s.customer, "status": "sent", "lines": [line(&mug, 4)] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    assert_eq!(v["data"]["location_id"], json!(s.floor));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("6"));
    s.check();
}

#[test]
fn an_invoice_without_location_or_product_lines_moves_nothing() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let (st, v) = s.t.post(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "sent",
                "location_id": null, "lines": [line(&mug, 3)] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    assert_eq!(v["data"]["cost_of_sales"], Value::Null);
    let inv = s.created_invoice(
        "sent",
        json!([{ "description": "Consulting", "unit_price": 100 }]),
    );
    assert!(s.doc_movements(inv["id"].as_str().unwrap()).is_empty());
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    s.check();
}

// ---------------------------------------------------------------------------------------
// Bills, weighted average cost and cost of sales

#[test]
fn two_bills_give_the_weighted_average_cost_and_a_later_invoice_books_it() {
    let s = shop();
    let mug = s.stocked("Blue mug", 0, "0");
    // 10 at 4.00, then 30 at 6.00 less 10% (5.40): (10 × 4 + 30 × 5.4) / 40 = 5.05.
    let b1 = s.bill(
        "awaiting_payment",
        json!([{ "product_id": mug, "quantity": 10, "unit_price": 4 }]),
    );
    assert_eq!(cost_price(&s.t, &mug), d("4"));
    let ms = s.doc_movements(b1["id"].as_str().unwrap());
    assert_eq!(ms[0]["type"], json!("purchase"));
    assert_eq!(dec(&ms[0]["unit_cost"]), d("4"));
    s.bill(
        "paid",
        json!([{ "product_id": mug, "quantity": 30, "unit_price": 6, "discount": 10 }]),
    );
    assert_eq!(cost_price(&s.t, &mug), d("5.05"));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("40"));

    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    assert_eq!(dec(&inv["cost_of_sales"]), d("15.15"));
    let ms = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(dec(&ms[0]["unit_cost"]), d("5.05"));
    s.check();
}

#[test]
fn voiding_a_bill_takes_its_stock_back_out_and_refuses_when_it_was_sold() {
    let s = shop();
    let mug = s.stocked("Blue mug", 0, "0");
    let bill = s.bill("awaiting_payment", json!([line(&mug, 5)]));
    s.created_invoice("sent", json!([line(&mug, 4)]));
    let r =
        s.t.put("/api/bills", json!({ "id": bill["id"], "status": "void" }));
    assert_error(&r, Status::Conflict);
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("1"));
    moved(&s.t, &mug, Some(&s.floor), "adjustment", json!(4));
    let (st, v) =
        s.t.put("/api/bills", json!({ "id": bill["id"], "status": "void" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("0"));
    let ms = s.doc_movements(bill["id"].as_str().unwrap());
    assert_eq!(ms[0]["type"], json!("return"));
    assert_eq!(dec(&ms[0]["qty"]), d("-5"));
    s.check();
}

#[test]
fn the_gross_margin_report_sums_sales_and_cost_of_sales_per_product() {
    let s = shop();
    let mug = s.stocked("Blue mug", 100, "4");
    let plate = s.stocked("Plate", 100, "1.5");
    s.created_invoice(
        "sent",
        json!([line(&mug, 3), { "product_id": plate, "quantity": 2, "unit_price": 2.5 }]),
    );
    s.created_invoice("paid", json!([line(&mug, 1)]));
    // Not posted: not counted.
    s.created_invoice("draft", json!([line(&mug, 50)]));
    let (st, v) =
        s.t.get(&format!("/api/reports/gross-margin?entityId={}", s.entity));
    assert_eq!(st, Status::Ok, "{v}");
    let rows = v["data"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(rows[0]["product_name"], json!("Blue mug"));
    assert_eq!(dec(&rows[0]["quantity"]), d("4"));
    assert_eq!(dec(&rows[0]["sales"]), d("40"));
    assert_eq!(dec(&rows[0]["cost_of_sales"]), d("16"));
    assert_eq!(dec(&rows[0]["gross_margin"]), d("24"));
    assert_eq!(dec(&rows[0]["margin"]), d("60"));
    assert_eq!(rows[1]["product_name"], json!("Plate"));
    assert_eq!(dec(&rows[1]["margin"]), d("40"));
    let sum = &v["summary"];
    assert_eq!(dec(&sum["sales"]), d("45"));
    assert_eq!(dec(&sum["costOfSales"]), d("19"));
    assert_eq!(dec(&sum["grossMargin"]), d("26"));
    assert_eq!(dec(&sum["margin"]), d("57.78"));

    // Dates filter on the issue date, inclusive.
    let tomorrow = (s.t.clock.today() + time::Duration::days(1)).to_string();
    let (_, v) = s.t.get(&format!(
        "/api/reports/gross-margin?entityId={}&dateFrom={tomorrow}",
        s.entity
    ));
    assert!(v["data"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(dec(&v["summary"]["margin"]), d("0"));
    let r = s.t.get("/api/reports/gross-margin?dateFrom=yesterday");
    assert_error(&r, Status::BadRequest);
}

// ---------------------------------------------------------------------------------------
// Movement filter and CSV

#[test]
fn the_movement_list_filters_by_document_and_every_movement_shows_its_document() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 2)]));
    let all = movements(&s.t, "");
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|m| m.get("document_id").is_some()));
    assert_eq!(all[1]["document_id"], Value::Null);
    let only = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(only.len(), 1);
    let r = s.t.get("/api/stock-movements?documentId=nope");
    assert_error(&r, Status::BadRequest);
}

#[test]
fn the_movement_history_downloads_as_csv_with_the_same_filters() {
    let s = shop();
    let mug = s.stocked("Blue mug, large", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 2)]));
    let res =
        s.t.with_session(
            s.t.client
                .get(format!("/api/stock-movements?format=csv&productId={mug}")),
        )
        .dispatch();
    assert_eq!(res.status(), Status::Ok);
    let ct = res.content_type().unwrap();
    assert_eq!((ct.top().as_str(), ct.sub().as_str()), ("text", "csv"));
    let text = res.into_string().unwrap();
    let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("date,type,product_id,product_sku,product_name,qty"));
    assert!(lines[1].contains(",sale,") && lines[1].contains("\"Blue mug, large\""));
    assert!(lines[1].contains(",-2,") && lines[1].contains(inv["id"].as_str().unwrap()));
    assert!(lines[1].contains("Shop floor"));
    let res =
        s.t.with_session(s.t.client.get(format!(
            "/api/stock-movements?format=csv&type=sale&documentId={}",
            inv["id"].as_str().unwrap()
        )))
        .dispatch();
    let text = res.into_string().unwrap();
    assert_eq!(text.split("\r\n").filter(|l| !l.is_empty()).count(), 2);
    let r = s.t.get("/api/stock-movements?format=xml");
    assert_error(&r, Status::BadRequest);
}

// ---------------------------------------------------------------------------------------
// Stock as at a date

#[test]
fn the_valuation_as_at_a_past_day_uses_that_days_quantities_and_cost() {
    let s = shop();
    s.t.clock.freeze();
    let mug = s.stocked("Blue mug", 0, "0");
    s.bill(
        "paid",
        json!([{ "product_id": mug, "quantity": 10, "unit_price": 4 }]),
    );
    let day1 = s.t.clock.today();
    s.t.clock.advance(86_400);
    s.bill(
        "paid",
        json!([{ "product_id": mug, "quantity": 10, "unit_price": 6 }]),
    );
    s.created_invoice("sent", json!([line(&mug, 5)]));
    let (_, now) = s.t.get("/api/reports/stock-valuation");
    assert_eq!(dec(&now["data"][0]["quantity"]), d("15"));
    assert_eq!(dec(&now["data"][0]["cost_price"]), d("5"));

    let (st, v) =
        s.t.get(&format!("/api/reports/stock-valuation?asOf={day1}"));
    assert_eq!(st, Status::Ok, "{v}");
    let rows = v["data"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v}");
    assert_eq!(dec(&rows[0]["quantity"]), d("10"));
    assert_eq!(dec(&rows[0]["cost_price"]), d("4"));
    assert_eq!(dec(&rows[0]["total_cost"]), d("40"));
    assert_eq!(rows[0]["location_name"], json!("Shop floor"));
    assert_eq!(dec(&v["summary"]["totalCostValue"]), d("40"));
    assert!(v["summary"].get("inTransitUnits").is_none(), "{v}");

    // Before anything: no rows. Tomorrow: 400.
    let before = (day1 - time::Duration::days(1)).to_string();
    let (_, v) =
        s.t.get(&format!("/api/reports/stock-valuation?asOf={before}"));
    assert!(v["data"].as_array().unwrap().is_empty(), "{v}");
    let future = (s.t.clock.today() + time::Duration::days(1)).to_string();
    let r =
        s.t.get(&format!("/api/reports/stock-valuation?asOf={future}"));
    assert!(assert_error(&r, Status::BadRequest).contains("asOf"));
    let r = s.t.get("/api/reports/stock-valuation?asOf=31/03/2024");
    assert_error(&r, Status::BadRequest);
}

#[test]
fn the_valuation_as_of_today_equals_the_current_valuation() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let plate = s.stocked("Plate", 3, "2");
    moved(&s.t, &plate, None, "adjustment", json!(2));
    moved(&s.t, &mug, Some(&s.back), "purchase", json!(5));
    s.created_invoice("sent", json!([line(&mug, 1)]));
    let today = s.t.clock.today();
    for q in ["", &format!("?locationId={}", s.back)] {
        let (_, now) = s.t.get(&format!("/api/reports/stock-valuation{q}"));
        let sep = if q.is_empty() { "?" } else { "&" };
        let (_, asof) =
            s.t.get(&format!("/api/reports/stock-valuation{q}{sep}asOf={today}"));
        assert_eq!(now["data"], asof["data"], "{q}");
        for k in [
            "totalCostValue",
            "totalRetailValue",
            "totalUnits",
            "avgMargin",
            "retailMargin",
            "unpricedProducts",
        ] {
            assert_eq!(now["summary"][k], asof["summary"][k], "{k}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// The ledger check

#[test]
fn the_ledger_check_passes_a_good_database_and_names_each_hand_made_breach() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    s.bill("awaiting_payment", json!([line(&mug, 2)]));
    let conn = s.t.db.conn().unwrap();
    let breaches = stockbook::inventory::check::ledger_breaches(&conn, false).unwrap();
    assert!(breaches.is_empty(), "{breaches:?}");

    // A stock row that disagrees with its movements (invariants 1 and 2: the product's
    // stock_qty is untouched, so only the row is wrong).
    conn.execute(
        "UPDATE warehouse_stock SET quantity = quantity + 1000 WHERE product_id = ?1",
        [&mug],
    )
    .unwrap();
    let breaches = stockbook::inventory::check::ledger_breaches(&conn, false).unwrap();
    assert_eq!(breaches.len(), 1, "{breaches:?}");
    assert!(breaches[0].message.contains("stock row"), "{breaches:?}");
    conn.execute(
        "UPDATE warehouse_stock SET quantity = quantity - 1000 WHERE product_id = ?1",
        [&mug],
    )
    .unwrap();

    // A stock_qty that disagrees (invariant 2), a reservation below what in-transit
    // orders hold is covered by the test below; a movement of the invoice written by hand
    // (docs/documents-stock.md#the-one-rule).
    conn.execute(
        "UPDATE products SET stock_qty = stock_qty + 500 WHERE id = ?1",
        [&mug],
    )
    .unwrap();
    let breaches = stockbook::inventory::check::ledger_breaches(&conn, false).unwrap();
    assert_eq!(breaches.len(), 1, "{breaches:?}");
    assert!(breaches[0].message.contains("stock_qty"), "{breaches:?}");
    conn.execute(
        "UPDATE products SET stock_qty = stock_qty - 500 WHERE id = ?1",
        [&mug],
    )
    .unwrap();

    conn.execute(
        "UPDATE invoices SET status = 'draft' WHERE id = ?1",
        [inv["id"].as_str().unwrap()],
    )
    .unwrap();
    let breaches = stockbook::inventory::check::ledger_breaches(&conn, false).unwrap();
    assert_eq!(breaches.len(), 1, "{breaches:?}");
    assert!(
        breaches[0]
            .message
            .contains(inv["number"].as_str().unwrap()),
        "{breaches:?}"
    );
}

#[test]
fn the_ledger_check_finds_a_reservation_below_what_transfers_hold() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let (st, v) = s.t.post(
        "/api/transfer-orders",
        json!({ "entity_id": s.entity, "source_location_id": s.floor,
                "destination_location_id": s.back,
                "lines": [{ "product_id": mug, "quantity": 4 }] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let (st, v) = s.t.put(
        "/api/transfer-orders",
        json!({ "id": v["data"]["id"], "status": "in_transit" }),
    );
    assert_eq!(st, Status::Ok, "{v}");
    let conn = s.t.db.conn().unwrap();
    assert!(stockbook::inventory::check::ledger_breaches(&conn, false)
        .unwrap()
        .is_empty());
    conn.execute(
        "UPDATE warehouse_stock SET reserved_quantity = 1000 WHERE product_id = ?1",
        [&mug],
    )
    .unwrap();
    let breaches = stockbook::inventory::check::ledger_breaches(&conn, false).unwrap();
    assert_eq!(breaches.len(), 1, "{breaches:?}");
    assert!(breaches[0].message.contains("reserved"), "{breaches:?}");
}

// ---------------------------------------------------------------------------------------
// Concurrency on a real file

/// A database file in its own temporary directory, removed on drop.
struct TempDb {
    dir: std::path::PathBuf,
    path: String,
}

impl TempDb {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "stockbook-{tag}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("stockbook.db").to_string_lossy().into_owned();
        Self { dir, path }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn invoices_posted_by_16_clients_against_limited_stock_never_oversell() {
    use rocket::http::{ContentType, Cookie};
    use rocket::local::asynchronous::Client;
    use rocket::tokio;
    use std::sync::Arc;

    let db = TempDb::new("invoices");
    let t = app_with(&[("database", json!(db.path))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let s = shop_from(t, entity);
    // 50 mugs; 16 clients × 4 invoices × 2 mugs asks for 128.
    let mug = s.stocked("Blue mug", 50, "4");
    let session = s.t.session.borrow().clone().unwrap();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(16)
        .enable_all()
        .build()
        .unwrap();
    let figment = common::test_figment(&[("database", json!(db.path))]);
    let body = json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "sent",
                       "lines": [line(&mug, 2)] })
    .to_string();
    let answers: Vec<Status> = rt.block_on(async move {
        let app = stockbook::App::from_figment(&figment).unwrap();
        let client = Arc::new(
            Client::untracked(stockbook::build_rocket(figment, app))
                .await
                .unwrap(),
        );
        let start = Arc::new(tokio::sync::Barrier::new(16));
        let mut tasks = Vec::new();
        for _ in 0..16 {
            let (client, start, session, body) =
                (client.clone(), start.clone(), session.clone(), body.clone());
            tasks.push(tokio::spawn(async move {
                start.wait().await;
                let mut out = Vec::new();
                for _ in 0..4 {
                    let res = client
                        .post("/api/invoices")
                        .header(ContentType::JSON)
                        .cookie(Cookie::new("stockbook_session", session.clone()))
                        .body(body.clone())
                        .dispatch()
                        .await;
                    out.push(res.status());
                }
                out
            }));
        }
        let mut all = Vec::new();
        for task in tasks {
            all.extend(task.await.unwrap());
        }
        all
    });

    let posted = answers.iter().filter(|a| **a == Status::Created).count();
    assert_eq!(posted, 25, "exactly the stock is invoiced: {answers:?}");
    assert!(answers
        .iter()
        .all(|a| *a == Status::Created || *a == Status::Conflict));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("0"));
    assert_eq!(
        s.t.get("/api/invoices").1["data"].as_array().unwrap().len(),
        25
    );
    s.check();
}

fn plan(t: &TestApp, sql: &str, args: &[&str]) -> Vec<String> {
    let conn = t.db.conn().unwrap();
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn the_as_of_sums_and_the_cost_history_are_read_from_covering_indexes_without_a_sort() {
    let (t, _) = app_with_entity();
    use stockbook::inventory::valuation::as_of;
    assert_eq!(
        plan(&t, as_of::ALL, &["2024-03-31"]),
        ["SCAN stock_movements USING COVERING INDEX stock_movements_as_of"]
    );
    // The two ranges read on two threads on a database file.
    assert_eq!(
        plan(&t, as_of::BELOW, &["2024-03-31", "8"]),
        ["SEARCH stock_movements USING COVERING INDEX stock_movements_as_of (product_id<?)"]
    );
    assert_eq!(
        plan(&t, as_of::FROM, &["2024-03-31", "8"]),
        ["SEARCH stock_movements USING COVERING INDEX stock_movements_as_of (product_id>?)"]
    );
    assert_eq!(
        plan(&t, stockbook::inventory::valuation::COST_HISTORY, &[]),
        ["SCAN product_cost_history"]
    );
}

#[test]
fn a_product_on_a_draft_invoice_or_bill_line_still_cannot_be_deleted_without_the_line_index() {
    // V14 dropped the lines' product indexes; the foreign key still holds, read from the
    // lines table.
    let s = shop();
    for on_bill in [false, true] {
        let p = s.stocked(if on_bill { "Bolt" } else { "Nut" }, 0, "1");
        let line = json!([{ "product_id": p, "quantity": 1, "unit_price": 2 }]);
        if on_bill {
            s.bill("draft", line);
        } else {
            s.created_invoice("draft", line);
        }
        let msg = assert_error(
            &s.t.delete("/api/products", json!({ "id": p })),
            Status::Conflict,
        );
        assert!(msg.contains("used on documents"), "{msg}");
        common::stock_fixtures::get_product(&s.t, &p);
    }
}

#[test]
fn the_next_invoice_number_is_one_index_descent_not_a_read_of_every_invoice() {
    let (t, _) = app_with_entity();
    assert_eq!(
        plan(
            &t,
            &stockbook::accounting::documents::highest_number_sql(
                stockbook::accounting::documents::DocKind::Invoice
            ),
            &["owner", "entity"]
        ),
        ["SEARCH invoices USING COVERING INDEX invoices_number_seq (owner_id=? AND <expr>=?)"]
    );
}

#[test]
fn reducing_a_posted_invoice_takes_back_the_cost_it_booked_not_todays_cost() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    assert_eq!(dec(&inv["cost_of_sales"]), d("12"));
    // The weighted average rises: (7 × 4 + 7 × 18) / 14 = 11.
    s.bill(
        "paid",
        json!([{ "product_id": mug, "quantity": 7, "unit_price": 18 }]),
    );
    assert_eq!(cost_price(&s.t, &mug), d("11"));
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "lines": [line(&mug, 1)] }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(dec(&v["data"]["cost_of_sales"]), d("4"));
    let ms = s.doc_movements(inv["id"].as_str().unwrap());
    assert_eq!(ms[0]["type"], json!("return"));
    assert_eq!(dec(&ms[0]["unit_cost"]), d("4"));
    // Selling more books today's cost.
    let (_, v) = s.put_invoice(json!({ "id": inv["id"], "lines": [line(&mug, 2)] }));
    assert_eq!(dec(&v["data"]["cost_of_sales"]), d("15"));
    s.check();
}

#[test]
fn an_inactive_location_takes_no_new_sale_but_a_void_still_brings_stock_back_there() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    common::stock_fixtures::set_location_status(&s.t, &s.floor, "inactive");
    let r = s.invoice("sent", json!([line(&mug, 1)]));
    assert!(assert_error(&r, Status::Conflict).contains("inactive"));
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "status": "void" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    s.check();
}

#[test]
fn a_credit_line_on_a_bill_brings_stock_in_without_touching_the_cost_price() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let bill = s.bill(
        "awaiting_payment",
        json!([{ "product_id": mug, "quantity": 1, "unit_price": -5 }]),
    );
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("11"));
    assert_eq!(cost_price(&s.t, &mug), d("4"));
    let ms = s.doc_movements(bill["id"].as_str().unwrap());
    assert_eq!(ms[0]["unit_cost"], Value::Null);
    s.check();
}

#[test]
fn a_posted_document_with_an_inactive_product_cannot_move_to_another_location() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    moved(&s.t, &mug, Some(&s.back), "adjustment", json!(5));
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    let (st, _) =
        s.t.put("/api/products", json!({ "id": mug, "active": false }));
    assert_eq!(st, Status::Ok);
    let r = s.put_invoice(json!({ "id": inv["id"], "location_id": s.back }));
    assert!(assert_error(&r, Status::Conflict).contains("inactive"));
    // Marking it paid, or voiding it, still works.
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "status": "paid" }));
    assert_eq!(st, Status::Ok, "{v}");
    let (st, v) = s.put_invoice(json!({ "id": inv["id"], "status": "void" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    s.check();
}

#[test]
fn a_location_that_a_document_or_a_default_names_cannot_be_deleted() {
    let s = shop();
    let (st, v) = s.t.post(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "location_id": s.back }),
    );
    assert_eq!(st, Status::Created, "{v}");
    for l in [&s.floor, &s.back] {
        let r = s.t.delete("/api/warehouse-locations", json!({ "id": l }));
        assert_error(&r, Status::Conflict);
    }
}

// ---------------------------------------------------------------------------------------
// Dates (docs/documents-stock.md#dates)

fn days_ago(t: &TestApp, n: i64) -> String {
    (t.clock.today() - time::Duration::days(n)).to_string()
}

/// The quantity of a product at the shop floor in the valuation as at `day` (0 if absent).
fn floor_at(s: &Shop, product: &str, day: &str) -> Decimal {
    let (st, v) = s.t.get(&format!(
        "/api/reports/stock-valuation?asOf={day}&locationId={}",
        s.floor
    ));
    assert_eq!(st, Status::Ok, "{v}");
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["product_id"] == json!(product))
        .map_or(Decimal::ZERO, |r| dec(&r["quantity"]))
}

#[test]
fn a_bill_entered_today_with_last_weeks_issue_date_counts_from_last_week() {
    let s = shop();
    let mug = s.stocked("Blue mug", 0, "0");
    let week_ago = days_ago(&s.t, 7);
    let (st, v) = s.t.post(
        "/api/bills",
        json!({ "contact_id": s.supplier, "entity_id": s.entity, "status": "awaiting_payment",
                "issue_date": week_ago,
                "lines": [{ "product_id": mug, "quantity": 10, "unit_price": 4 }] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let moved = s.doc_movements(v["data"]["id"].as_str().unwrap());
    assert_eq!(moved.len(), 1);
    assert_eq!(moved[0]["date"], json!(week_ago));
    assert_eq!(floor_at(&s, &mug, &week_ago), d("10"));
    assert_eq!(floor_at(&s, &mug, &days_ago(&s.t, 8)), d("0"));
    s.check();
}

#[test]
fn an_invoice_dated_before_its_stock_arrived_is_refused_naming_the_date() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let yesterday = days_ago(&s.t, 1);
    let (st, v) = s.t.post(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "sent",
                "issue_date": yesterday, "lines": [line(&mug, 2)] }),
    );
    assert_eq!(st, Status::Conflict, "{v}");
    assert_eq!(
        v["message"],
        json!(format!(
            "Insufficient stock at Shop floor on {yesterday}: SKU-00001 needs 2, has 0"
        ))
    );
    assert!(s.t.get("/api/invoices").1["data"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    // Dated today it goes through.
    s.created_invoice("sent", json!([line(&mug, 2)]));
    s.check();
}

#[test]
fn changing_a_posted_invoices_issue_date_moves_its_effect_to_the_new_date() {
    let s = shop();
    let mug = s.stocked("Blue mug", 0, "4");
    let (d0, d1, d2) = (days_ago(&s.t, 10), days_ago(&s.t, 5), days_ago(&s.t, 2));
    let (st, v) = s.t.post(
        "/api/stock-movements",
        json!({ "product_id": mug, "location_id": s.floor, "type": "purchase", "qty": 10,
                "date": d0 }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let (st, v) = s.t.post(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "sent",
                "issue_date": d2, "lines": [line(&mug, 3)] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let inv = v["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(floor_at(&s, &mug, &d1), d("10"));
    assert_eq!(floor_at(&s, &mug, &d2), d("7"));

    let (st, v) = s.put_invoice(json!({ "id": inv, "issue_date": d1 }));
    assert_eq!(st, Status::Ok, "{v}");
    // Newest first: the sale at d2, then its reversal at d2 and the sale at d1.
    let moved: Vec<(String, String, Decimal)> = s
        .doc_movements(&inv)
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap().to_owned(),
                m["date"].as_str().unwrap().to_owned(),
                dec(&m["qty"]),
            )
        })
        .collect();
    assert_eq!(
        moved,
        vec![
            ("return".to_owned(), d2.clone(), d("3")),
            ("sale".to_owned(), d2.clone(), d("-3")),
            ("sale".to_owned(), d1.clone(), d("-3")),
        ]
    );
    assert_eq!(floor_at(&s, &mug, &d1), d("7"));
    assert_eq!(floor_at(&s, &mug, &days_ago(&s.t, 6)), d("10"));
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("7"));

    // Before the stock arrived: refused, naming that day, and nothing changes.
    let early = days_ago(&s.t, 11);
    let (st, v) = s.put_invoice(json!({ "id": inv, "issue_date": early }));
    assert_eq!(st, Status::Conflict, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains(&format!("on {early}")),
        "{v}"
    );
    assert_eq!(s.doc_movements(&inv).len(), 3);
    assert_eq!(
        s.t.get("/api/invoices").1["data"][0]["issue_date"],
        json!(d1)
    );

    // A void invoice holds nothing: changing its date writes nothing.
    let (st, v) = s.put_invoice(json!({ "id": inv, "status": "void" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(s.doc_movements(&inv).len(), 4);
    let (st, v) = s.put_invoice(json!({ "id": inv, "issue_date": d2 }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(s.doc_movements(&inv).len(), 4);
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    s.check();
    let conn = s.t.db.conn().unwrap();
    let found = stockbook::inventory::check::ledger_breaches(&conn, false).unwrap();
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_bill_moved_to_an_earlier_date_brings_its_stock_from_then() {
    let s = shop();
    let mug = s.stocked("Blue mug", 0, "4");
    let bill = s.bill(
        "awaiting_payment",
        json!([{ "product_id": mug, "quantity": 5, "unit_price": 4 }]),
    );
    let id = bill["id"].as_str().unwrap();
    let week_ago = days_ago(&s.t, 7);
    // Sell two a few days ago: there is nothing then until the bill is back-dated.
    let (st, _) = s.t.post(
        "/api/stock-movements",
        json!({ "product_id": mug, "location_id": s.floor, "type": "sale", "qty": -2,
                "date": days_ago(&s.t, 3) }),
    );
    assert_eq!(st, Status::Conflict);
    let (st, v) =
        s.t.put("/api/bills", json!({ "id": id, "issue_date": week_ago }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(floor_at(&s, &mug, &week_ago), d("5"));
    let (st, v) = s.t.post(
        "/api/stock-movements",
        json!({ "product_id": mug, "location_id": s.floor, "type": "sale", "qty": -2,
                "date": days_ago(&s.t, 3) }),
    );
    assert_eq!(st, Status::Created, "{v}");
    // Moving the bill back to today would leave that sale without stock.
    let today = s.t.clock.today().to_string();
    let (st, v) =
        s.t.put("/api/bills", json!({ "id": id, "issue_date": today }));
    assert_eq!(st, Status::Conflict, "{v}");
    s.check();
}

#[test]
fn a_posted_document_that_moves_stock_may_not_be_dated_after_today() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let tomorrow = (s.t.clock.today() + time::Duration::days(1)).to_string();
    for (path, status, contact) in [
        ("/api/invoices", "sent", &s.customer),
        ("/api/bills", "awaiting_payment", &s.supplier),
    ] {
        let (st, v) = s.t.post(
            path,
            json!({ "contact_id": contact, "entity_id": s.entity, "status": status,
                    "issue_date": tomorrow, "lines": [line(&mug, 1)] }),
        );
        assert_eq!(st, Status::BadRequest, "{path}: {v}");
        let msg = v["message"].as_str().unwrap();
        assert!(
            msg.contains("issue_date") && msg.contains("after today"),
            "{msg}"
        );
    }
    // A draft may be dated tomorrow; posting it before then is refused.
    let (st, v) = s.t.post(
        "/api/invoices",
        json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "draft",
                "issue_date": tomorrow, "lines": [line(&mug, 1)] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let draft = v["data"]["id"].clone();
    let (st, v) = s.put_invoice(json!({ "id": draft, "status": "sent" }));
    assert_eq!(st, Status::BadRequest, "{v}");
    // Once the day comes it posts, at its date.
    s.t.clock.advance(86_400);
    let (st, v) = s.put_invoice(json!({ "id": draft, "status": "sent" }));
    assert_eq!(st, Status::Ok, "{v}");
    assert_eq!(
        s.doc_movements(draft.as_str().unwrap())[0]["date"],
        json!(tomorrow)
    );
    // Documents that move no stock may be dated ahead: no location, or no product.
    let later = (s.t.clock.today() + time::Duration::days(30)).to_string();
    for body in [
        json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "sent",
                "issue_date": later, "location_id": null, "lines": [line(&mug, 1)] }),
        json!({ "contact_id": s.customer, "entity_id": s.entity, "status": "sent",
                "issue_date": later,
                "lines": [{ "description": "Delivery", "quantity": 1, "unit_price": 5 }] }),
    ] {
        let (st, v) = s.t.post("/api/invoices", body);
        assert_eq!(st, Status::Created, "{v}");
    }
    s.check();
}

#[test]
fn a_v1_bill_follows_the_same_date_rules() {
    let s = shop();
    let mug = s.stocked("Blue mug", 0, "4");
    let (st, v) = s.t.post(
        "/api/api-keys",
        json!({ "name": "books", "entity_id": s.entity }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let key = v["data"]["raw_key"].as_str().unwrap().to_owned();
    let tomorrow = (s.t.clock.today() + time::Duration::days(1)).to_string();
    let (st, v) = s.t.post_with_key(
        "/api/v1/bills",
        &key,
        json!({ "contact_id": s.supplier, "status": "awaiting_payment",
                "issue_date": tomorrow, "lines": [line(&mug, 4)] }),
    );
    assert_eq!(st, Status::BadRequest, "{v}");
    assert!(v["message"].as_str().unwrap().contains("issue_date"), "{v}");
    let week_ago = days_ago(&s.t, 7);
    let (st, v) = s.t.post_with_key(
        "/api/v1/bills",
        &key,
        json!({ "contact_id": s.supplier, "status": "awaiting_payment",
                "issue_date": week_ago, "lines": [line(&mug, 4)] }),
    );
    assert_eq!(st, Status::Created, "{v}");
    let moved = s.doc_movements(v["data"]["id"].as_str().unwrap());
    assert_eq!(moved[0]["date"], json!(week_ago));
    assert_eq!(floor_at(&s, &mug, &week_ago), d("4"));
    s.check();
}

#[test]
fn a_posted_invoice_dated_ahead_before_the_rule_can_still_be_voided() {
    let s = shop();
    let mug = s.stocked("Blue mug", 10, "4");
    let inv = s.created_invoice("sent", json!([line(&mug, 3)]));
    let id = inv["id"].as_str().unwrap().to_owned();
    // As the service wrote it before documents' movements followed their date: the sale
    // dated the day it was written, the invoice dated next month.
    let later = (s.t.clock.today() + time::Duration::days(30)).to_string();
    {
        let conn = s.t.db.conn().unwrap();
        conn.execute(
            "UPDATE invoices SET issue_date = ?1, due_date = ?1 WHERE id = ?2",
            [&later, &id],
        )
        .unwrap();
    }
    // Changing its lines would move stock on its date: not yet.
    let (st, v) = s.put_invoice(json!({ "id": id, "lines": [line(&mug, 4)] }));
    assert_eq!(st, Status::BadRequest, "{v}");
    // Voiding it takes the sale back on the day it was written.
    let (st, v) = s.put_invoice(json!({ "id": id, "status": "void" }));
    assert_eq!(st, Status::Ok, "{v}");
    let moved = s.doc_movements(&id);
    assert_eq!(moved.len(), 2);
    let today = s.t.clock.today().to_string();
    assert!(moved.iter().all(|m| m["date"] == json!(today)), "{moved:?}");
    assert_eq!(qty_at(&s.t, &mug, &s.floor), d("10"));
    s.check();
}
