//! The dashboard's money figures (docs/accounting.md#the-dashboard): summed on the server
//! in pounds, per document at its exchange rate, counting only what each figure says.

use super::common;

use common::*;
use rocket::http::Status;
use serde_json::{json, Value};

fn document(t: &TestApp, path: &str, c: &str, price: Value, extra: Value) -> String {
    let mut body = json!({ "contact_id": c,
        "lines": [{ "description": "Work", "unit_price": price }] });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (s, v) = t.post(path, body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["id"].as_str().unwrap().to_owned()
}

#[test]
fn the_money_figures_sum_what_each_says_in_pounds() {
    let (t, e) = app_with_entity();
    let (_, m) = t.get(&format!("/api/dashboard/money?entityId={e}"));
    assert_eq!(m["data"]["documents"], json!(false), "{m}");
    assert_eq!(m["data"]["owed"], json!(0));

    let (s, c) = t.post(
        "/api/contacts",
        json!({ "name": "Jane", "type": "both", "entity_id": e }),
    );
    assert_eq!(s, Status::Created);
    let c = c["data"]["id"].as_str().unwrap().to_owned();
    let today = time::OffsetDateTime::now_utc().date();
    let long_ago = (today - time::Duration::days(70)).to_string();
    let overdue_on = (today - time::Duration::days(40)).to_string();
    let due_later = (today + time::Duration::days(30)).to_string();

    // This month: a sent invoice of 100 + VAT, 20 paid; a paid one of 50 + VAT; a draft.
    let a = document(
        &t,
        "/api/invoices",
        &c,
        json!(100),
        json!({ "status": "sent", "due_date": due_later }),
    );
    let (s, _) = t.post("/api/payments", json!({ "document_id": a, "amount": 20 }));
    assert_eq!(s, Status::Created);
    document(
        &t,
        "/api/invoices",
        &c,
        json!(50),
        json!({ "status": "paid" }),
    );
    document(&t, "/api/invoices", &c, json!(999), json!({}));
    // Long ago and overdue: 10.05 EUR at 0.85 (12.06 EUR gross → 10.251 → £10.25).
    document(
        &t,
        "/api/invoices",
        &c,
        json!(10.05),
        json!({ "status": "sent", "issue_date": long_ago, "due_date": overdue_on,
                "currency": "EUR", "exchange_rate": 0.85 }),
    );
    // Bills: one awaiting payment and overdue (60 + VAT), one draft.
    document(
        &t,
        "/api/bills",
        &c,
        json!(60),
        json!({ "status": "awaiting_payment", "issue_date": long_ago, "due_date": overdue_on }),
    );
    document(&t, "/api/bills", &c, json!(500), json!({}));

    let (s, m) = t.get(&format!("/api/dashboard/money?entityId={e}"));
    assert_eq!(s, Status::Ok, "{m}");
    let d = &m["data"];
    assert_eq!(d["documents"], json!(true));
    // 100 + 50 (net), the draft and the old invoice left out.
    assert_eq!(
        (d["sales_this_month"].clone(), d["sales_count"].clone()),
        (json!(150), json!(2))
    );
    // 120 - 20 = 100 and £10.25 owed; the overdue part is the EUR invoice's.
    assert_eq!(
        (d["owed"].clone(), d["owed_count"].clone()),
        (json!(110.25), json!(2))
    );
    assert_eq!(
        (d["overdue"].clone(), d["overdue_count"].clone()),
        (json!(10.25), json!(1))
    );
    assert_eq!(
        (d["bills_due"].clone(), d["bills_count"].clone()),
        (json!(72), json!(1))
    );
    assert_eq!(d["bills_overdue"], json!(72));

    // Another user's entity is not found; without entityId, every business of the caller.
    let (_, all) = t.get("/api/dashboard/money");
    assert_eq!(all["data"], m["data"]);
    // Signed in as someone else on the same server.
    t.signup("other@example.com");
    let (s, _) = t.get(&format!("/api/dashboard/money?entityId={e}"));
    assert_eq!(s, Status::NotFound);
}
