//! VAT treatment over the session API (docs/accounting.md#vat-treatment): every default
//! and every refusal, on document and template lines, products, expenses and expense
//! categories, and reverse-charge VAT kept out of the totals.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

fn contact(t: &TestApp, e: &str, kind: &str) -> String {
    let (s, v) = t.post(
        "/api/contacts",
        json!({ "name": format!("A {kind}"), "type": kind, "entity_id": e }),
    );
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

fn document(t: &TestApp, path: &str, e: &str, lines: Value) -> (Status, Value) {
    let kind = if path == "/api/bills" {
        "supplier"
    } else {
        "customer"
    };
    let c = contact(t, e, kind);
    t.post(path, json!({ "contact_id": c, "lines": lines }))
}

/// `(vat_rate, vat_treatment)` of each line, as text.
fn pairs(doc: &Value) -> Vec<(String, String)> {
    doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["vat_rate"].to_string(),
                l["vat_treatment"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pair(rate: &str, treatment: &str) -> (String, String) {
    (rate.to_owned(), treatment.to_owned())
}

fn line(price: i64, extra: Value) -> Value {
    let mut l = json!({ "description": "Item", "unit_price": price });
    for (k, v) in extra.as_object().unwrap() {
        l[k] = v.clone();
    }
    l
}

// ----------------------------------------------------------------------------------
// Lines

#[test]
fn a_line_without_a_treatment_takes_the_one_its_rate_implies() {
    let (t, e) = app_with_entity();
    let (s, v) = document(
        &t,
        "/api/invoices",
        &e,
        json!([
            line(10, json!({ "vat_rate": 0 })),
            line(10, json!({ "vat_rate": 5 })),
            line(10, json!({ "vat_rate": 20 })),
            line(10, json!({ "vat_rate": 12.5 })),
            line(10, json!({})),
        ]),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(
        pairs(&v["data"]),
        [
            pair("0", "zero"),
            pair("5", "reduced"),
            pair("20", "standard"),
            pair("12.5", "standard"),
            pair("20", "standard"),
        ]
    );
    for l in v["data"]["lines"].as_array().unwrap() {
        assert_eq!(l["reverse_charge_vat"], json!(0));
    }
}

#[test]
fn a_treatment_without_a_rate_takes_the_treatments_rate() {
    let (t, e) = app_with_entity();
    let (s, v) = document(
        &t,
        "/api/bills",
        &e,
        json!([
            line(10, json!({ "vat_treatment": "standard" })),
            line(10, json!({ "vat_treatment": "reduced" })),
            line(10, json!({ "vat_treatment": "zero" })),
            line(10, json!({ "vat_treatment": "exempt" })),
            line(10, json!({ "vat_treatment": "outside_scope" })),
            line(10, json!({ "vat_treatment": "reverse_charge" })),
        ]),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(
        pairs(&v["data"]),
        [
            pair("20", "standard"),
            pair("5", "reduced"),
            pair("0", "zero"),
            pair("0", "exempt"),
            pair("0", "outside_scope"),
            pair("20", "reverse_charge"),
        ]
    );
}

#[test]
fn a_line_naming_a_product_takes_its_rate_and_treatment_unless_it_gives_one() {
    let (t, e) = app_with_entity();
    let (s, p) = t.post(
        "/api/products",
        json!({ "name": "Training course", "unit_price": 100, "vat_treatment": "exempt",
                "entity_id": e }),
    );
    assert_eq!(s, Status::Created, "{p}");
    assert_eq!(p["data"]["vat_rate"], json!(0));
    let pid = p["data"]["id"].as_str().unwrap();
    let (s, v) = document(
        &t,
        "/api/invoices",
        &e,
        json!([
            { "product_id": pid },
            { "product_id": pid, "vat_rate": 20 },
            { "product_id": pid, "vat_treatment": "zero" },
        ]),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(
        pairs(&v["data"]),
        [
            pair("0", "exempt"),
            pair("20", "standard"),
            pair("0", "zero")
        ]
    );
}

#[test]
fn a_treatment_without_vat_and_a_non_zero_rate_is_refused() {
    let (t, e) = app_with_entity();
    for treatment in ["zero", "exempt", "outside_scope"] {
        let res = document(
            &t,
            "/api/invoices",
            &e,
            json!([
                line(10, json!({})),
                line(10, json!({ "vat_rate": 20, "vat_treatment": treatment }))
            ]),
        );
        let msg = assert_error(&res, Status::BadRequest);
        assert!(
            msg.contains("`lines[1].vat_treatment`") && msg.contains("must be 0"),
            "{msg}"
        );
    }
    // With a rate of 0 each is fine.
    let (s, v) = document(
        &t,
        "/api/invoices",
        &e,
        json!([line(
            10,
            json!({ "vat_rate": 0, "vat_treatment": "outside_scope" })
        )]),
    );
    assert_eq!(s, Status::Created, "{v}");
}

#[test]
fn a_treatment_outside_the_set_is_refused() {
    let (t, e) = app_with_entity();
    let res = document(
        &t,
        "/api/invoices",
        &e,
        json!([line(10, json!({ "vat_treatment": "Exempt" }))]),
    );
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.contains("must be one of standard, reduced"), "{msg}");
    let res = t.post(
        "/api/products",
        json!({ "name": "P", "vat_treatment": "none", "entity_id": e }),
    );
    assert_error(&res, Status::BadRequest);
}

#[test]
fn reverse_charge_is_refused_on_invoice_and_template_lines_and_taken_on_bill_lines() {
    let (t, e) = app_with_entity();
    let rc = json!([line(10, json!({ "vat_treatment": "reverse_charge" }))]);
    let msg = assert_error(
        &document(&t, "/api/invoices", &e, rc.clone()),
        Status::BadRequest,
    );
    assert!(
        msg.contains("`lines[0].vat_treatment`") && msg.contains("an invoice line"),
        "{msg}"
    );
    let c = contact(&t, &e, "customer");
    let res = t.post(
        "/api/recurring-invoices",
        json!({ "contact_id": c, "interval": "month", "lines": rc.clone() }),
    );
    assert_error(&res, Status::BadRequest);
    let (s, v) = document(&t, "/api/bills", &e, rc);
    assert_eq!(s, Status::Created, "{v}");
}

#[test]
fn a_reverse_charge_lines_vat_is_shown_on_the_line_and_kept_out_of_the_totals() {
    let (t, e) = app_with_entity();
    let (s, v) = document(
        &t,
        "/api/bills",
        &e,
        json!([
            line(100, json!({})),
            { "description": "Design services from abroad", "quantity": 3,
              "unit_price": 33.335, "vat_treatment": "reverse_charge" },
        ]),
    );
    assert_eq!(s, Status::Created, "{v}");
    let d = &v["data"];
    let rc = &d["lines"][1];
    // 3 × 33.335 = 100.005 → 100.01; 20 % = 20.002 → 20.00.
    assert_eq!(rc["net"].to_string(), "100.01");
    assert_eq!(rc["vat"], json!(0));
    assert_eq!(rc["total"].to_string(), "100.01");
    assert_eq!(rc["reverse_charge_vat"].to_string(), "20");
    assert_eq!(d["subtotal"].to_string(), "200.01");
    assert_eq!(d["vat_total"].to_string(), "20");
    assert_eq!(d["total"].to_string(), "220.01");
    assert_eq!(d["amount_due"].to_string(), "220.01");

    // Read back the same.
    let id = d["id"].as_str().unwrap();
    let (_, v) = t.get(&format!("/api/bills?id={id}"));
    let back = &v["data"][0];
    assert_eq!(back["lines"][1]["reverse_charge_vat"].to_string(), "20");
    assert_eq!(back["lines"][1]["vat_treatment"], "reverse_charge");
    assert_eq!(back["total"].to_string(), "220.01");
}

#[test]
fn the_public_api_takes_and_answers_the_treatment_too() {
    let (t, e) = app_with_entity();
    let (s, k) = t.post("/api/api-keys", json!({ "name": "k" }));
    assert_eq!(s, Status::Created, "{k}");
    let key = k["data"]["raw_key"].as_str().unwrap();
    let c = contact(&t, &e, "customer");
    let (s, v) = t.post_with_key(
        "/api/v1/invoices",
        key,
        json!({ "contact_id": c, "lines": [line(10, json!({ "vat_treatment": "exempt" }))] }),
    );
    assert_eq!(s, Status::Created, "{v}");
    assert_eq!(v["data"]["lines"][0]["vat_treatment"], "exempt");
    let res = t.post_with_key(
        "/api/v1/invoices",
        key,
        json!({ "contact_id": c, "lines": [line(10, json!({ "vat_treatment": "reverse_charge" }))] }),
    );
    assert_error(&res, Status::BadRequest);
}

// ----------------------------------------------------------------------------------
// Products

#[test]
fn a_product_takes_the_treatment_its_rate_implies_and_refuses_a_broken_pair() {
    let (t, e) = app_with_entity();
    for (body, rate, treatment) in [
        (json!({}), "20", "standard"),
        (json!({ "vat_rate": 0 }), "0", "zero"),
        (json!({ "vat_rate": 5 }), "5", "reduced"),
        (json!({ "vat_treatment": "reduced" }), "5", "reduced"),
        (
            json!({ "vat_treatment": "outside_scope" }),
            "0",
            "outside_scope",
        ),
    ] {
        let mut b = body.clone();
        b["name"] = json!(format!("P {treatment} {rate}"));
        b["entity_id"] = json!(e);
        let (s, v) = t.post("/api/products", b);
        assert_eq!(s, Status::Created, "{v}");
        assert_eq!(v["data"]["vat_rate"].to_string(), rate, "{body}");
        assert_eq!(v["data"]["vat_treatment"], treatment, "{body}");
    }
    let res = t.post(
        "/api/products",
        json!({ "name": "Bad", "vat_rate": 20, "vat_treatment": "exempt", "entity_id": e }),
    );
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.contains("`vat_treatment`"), "{msg}");
}

#[test]
fn a_products_rate_changed_alone_keeps_a_treatment_that_still_fits() {
    let (t, e) = app_with_entity();
    let (_, v) = t.post(
        "/api/products",
        json!({ "name": "Course", "vat_treatment": "exempt", "entity_id": e }),
    );
    let id = v["data"]["id"].as_str().unwrap().to_owned();
    let put = |b: Value| {
        let mut b = b;
        b["id"] = json!(id);
        let (s, v) = t.put("/api/products", b);
        assert_eq!(s, Status::Ok, "{v}");
        (
            v["data"]["vat_rate"].to_string(),
            v["data"]["vat_treatment"].as_str().unwrap().to_owned(),
        )
    };
    assert_eq!(put(json!({ "vat_rate": 0 })), pair("0", "exempt"));
    assert_eq!(put(json!({ "name": "Course 2" })), pair("0", "exempt"));
    assert_eq!(put(json!({ "vat_rate": 20 })), pair("20", "standard"));
    assert_eq!(put(json!({ "vat_rate": 5 })), pair("5", "reduced"));
    assert_eq!(
        put(json!({ "vat_treatment": "standard" })),
        pair("20", "standard")
    );
    assert_eq!(
        put(json!({ "vat_treatment": "reverse_charge" })),
        pair("20", "reverse_charge")
    );
    assert_eq!(put(json!({ "vat_rate": 5 })), pair("5", "reverse_charge"));
    let res = t.put(
        "/api/products",
        json!({ "id": id, "vat_rate": 5, "vat_treatment": "zero" }),
    );
    assert_error(&res, Status::BadRequest);
}

// ----------------------------------------------------------------------------------
// Expenses and categories

fn category(t: &TestApp, e: &str, name: &str) -> Value {
    let (_, v) = t.get(&format!("/api/expense-categories?entityId={e}&limit=100"));
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no category {name}"))
        .clone()
}

fn expense(t: &TestApp, e: &str, body: Value) -> (Status, Value) {
    let mut b = json!({ "description": "Spent", "amount": 120, "entity_id": e });
    for (k, v) in body.as_object().unwrap() {
        b[k] = v.clone();
    }
    t.post("/api/expenses", b)
}

fn created(res: (Status, Value)) -> Value {
    assert_eq!(res.0, Status::Created, "{}", res.1);
    res.1["data"].clone()
}

#[test]
fn the_standard_categories_carry_their_treatments() {
    let (t, e) = app_with_entity();
    for (name, treatment) in [
        ("Staff costs", json!("outside_scope")),
        ("Rent", Value::Null),
        ("Business rates", json!("outside_scope")),
        ("Other taxes and duties", json!("outside_scope")),
        ("Insurance", json!("exempt")),
        ("Bank charges and interest", json!("exempt")),
        ("Office costs and stationery", Value::Null),
    ] {
        assert_eq!(category(&t, &e, name)["vat_treatment"], treatment, "{name}");
    }
}

#[test]
fn a_category_takes_and_changes_its_treatment_and_refuses_one_outside_the_set() {
    let (t, e) = app_with_entity();
    let c = created(t.post(
        "/api/expense-categories",
        json!({ "name": "Postage", "vat_treatment": "exempt", "entity_id": e }),
    ));
    assert_eq!(c["vat_treatment"], "exempt");
    let (s, v) = t.put(
        "/api/expense-categories",
        json!({ "id": c["id"], "vat_treatment": null }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert!(v["data"]["vat_treatment"].is_null());
    let res = t.put(
        "/api/expense-categories",
        json!({ "id": c["id"], "vat_treatment": "free" }),
    );
    assert_error(&res, Status::BadRequest);
}

#[test]
fn an_expense_takes_its_categorys_treatment_else_one_by_its_vat() {
    let (t, e) = app_with_entity();
    let plain = created(expense(&t, &e, json!({})));
    assert_eq!(plain["vat_treatment"], "zero");
    assert_eq!(plain["vat_reclaimable"], true);
    assert_eq!(plain["reverse_charge_vat"], json!(0));
    assert!(plain["contact_id"].is_null());
    let taxed = created(expense(&t, &e, json!({ "vat_amount": 20 })));
    assert_eq!(taxed["vat_treatment"], "standard");

    let insurance = category(&t, &e, "Insurance")["id"].clone();
    let x = created(expense(&t, &e, json!({ "category_id": insurance })));
    assert_eq!(x["vat_treatment"], "exempt");
    // A category's treatment that the VAT contradicts is no default.
    let x = created(expense(
        &t,
        &e,
        json!({ "category_id": insurance, "vat_amount": 20 }),
    ));
    assert_eq!(x["vat_treatment"], "standard");
    let x = created(expense(
        &t,
        &e,
        json!({ "category_id": insurance, "vat_treatment": "zero" }),
    ));
    assert_eq!(x["vat_treatment"], "zero");
}

#[test]
fn an_expense_without_vat_by_its_treatment_refuses_a_vat_amount() {
    let (t, e) = app_with_entity();
    for treatment in ["zero", "exempt", "outside_scope", "reverse_charge"] {
        let res = expense(
            &t,
            &e,
            json!({ "vat_treatment": treatment, "vat_amount": 1 }),
        );
        let msg = assert_error(&res, Status::BadRequest);
        assert!(msg.contains("`vat_amount`"), "{msg}");
    }
    let res = expense(&t, &e, json!({ "vat_treatment": "reverse" }));
    assert_error(&res, Status::BadRequest);
}

#[test]
fn a_reverse_charge_expense_shows_its_vat_apart_from_what_was_paid() {
    let (t, e) = app_with_entity();
    let x = created(expense(
        &t,
        &e,
        json!({ "amount": 99.99, "vat_treatment": "reverse_charge" }),
    ));
    assert_eq!(x["amount"].to_string(), "99.99");
    assert_eq!(x["vat_amount"], json!(0));
    // 20 % of 99.99 = 19.998 → 20.00.
    assert_eq!(x["reverse_charge_vat"].to_string(), "20");
    let given = created(expense(
        &t,
        &e,
        json!({ "amount": 100, "vat_treatment": "reverse_charge", "reverse_charge_vat": 5 }),
    ));
    assert_eq!(given["reverse_charge_vat"].to_string(), "5");
    let res = expense(&t, &e, json!({ "reverse_charge_vat": 5 }));
    let msg = assert_error(&res, Status::BadRequest);
    assert!(msg.contains("`reverse_charge_vat`"), "{msg}");

    // An amount changed recomputes it; a treatment changed away drops it.
    let id = x["id"].clone();
    let (s, v) = t.put("/api/expenses", json!({ "id": id, "amount": 50 }));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["reverse_charge_vat"].to_string(), "10");
    let (_, v) = t.put("/api/expenses", json!({ "id": id, "description": "Again" }));
    assert_eq!(v["data"]["reverse_charge_vat"].to_string(), "10");
    let (_, v) = t.put(
        "/api/expenses",
        json!({ "id": id, "vat_treatment": "standard" }),
    );
    assert_eq!(v["data"]["reverse_charge_vat"], json!(0));
}

#[test]
fn an_expenses_treatment_follows_a_changed_vat_amount_or_category() {
    let (t, e) = app_with_entity();
    let x = created(expense(&t, &e, json!({ "vat_amount": 20 })));
    let id = x["id"].clone();
    let put = |b: Value| {
        let mut b = b;
        b["id"] = id.clone();
        let (s, v) = t.put("/api/expenses", b);
        assert_eq!(s, Status::Ok, "{v}");
        v["data"]["vat_treatment"].as_str().unwrap().to_owned()
    };
    assert_eq!(put(json!({ "vat_amount": 10 })), "standard");
    assert_eq!(put(json!({ "vat_amount": 0 })), "zero");
    assert_eq!(put(json!({ "vat_treatment": "exempt" })), "exempt");
    assert_eq!(put(json!({ "amount": 10 })), "exempt");
    assert_eq!(put(json!({ "vat_amount": 2 })), "standard");
    let staff = category(&t, &e, "Staff costs")["id"].clone();
    assert_eq!(
        put(json!({ "category_id": staff, "vat_amount": 0 })),
        "outside_scope"
    );
    let res = t.put(
        "/api/expenses",
        json!({ "id": id, "vat_treatment": "exempt", "vat_amount": 3 }),
    );
    assert_error(&res, Status::BadRequest);
}

#[test]
fn an_expense_names_a_supplier_of_the_caller_and_says_whether_its_vat_is_reclaimable() {
    let (t, e) = app_with_entity();
    let supplier = contact(&t, &e, "supplier");
    let both = contact(&t, &e, "both");
    let customer = contact(&t, &e, "customer");
    let x = created(expense(
        &t,
        &e,
        json!({ "contact_id": supplier, "vat_amount": 20, "vat_reclaimable": false }),
    ));
    assert_eq!(x["contact_id"], json!(supplier));
    assert_eq!(x["vat_reclaimable"], false);
    created(expense(&t, &e, json!({ "contact_id": both })));
    let msg = assert_error(
        &expense(&t, &e, json!({ "contact_id": customer })),
        Status::BadRequest,
    );
    assert!(msg.contains("`contact_id`"), "{msg}");
    let unknown = "00000000-0000-4000-8000-000000000000";
    assert_error(
        &expense(&t, &e, json!({ "contact_id": unknown })),
        Status::NotFound,
    );

    let id = x["id"].clone();
    let (s, v) = t.put(
        "/api/expenses",
        json!({ "id": id, "contact_id": null, "vat_reclaimable": true }),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert!(v["data"]["contact_id"].is_null());
    assert_eq!(v["data"]["vat_reclaimable"], true);
    let res = t.put("/api/expenses", json!({ "id": id, "contact_id": customer }));
    assert_error(&res, Status::BadRequest);
}
