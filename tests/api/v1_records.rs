//! The public API's record paths (docs/public-api.md#record-paths): GET, PUT (the fields
//! sent) and DELETE of `/api/v1/<resource>/{id}`, with the session API's rules and the
//! key's scope.

use super::common;

use common::*;
use rocket::http::{ContentType, Header, Status};
use serde_json::{json, Value};

fn key(t: &TestApp, entity: Option<&str>) -> String {
    let body = match entity {
        Some(e) => json!({ "name": "sync", "entity_id": e }),
        None => json!({ "name": "sync" }),
    };
    let (s, v) = t.post("/api/api-keys", body);
    assert_eq!(s, Status::Created, "{v}");
    v["data"]["raw_key"].as_str().unwrap().to_owned()
}

fn send(t: &TestApp, method: &str, path: &str, key: &str, v: Option<Value>) -> (Status, Value) {
    let req = match method {
        "PUT" => t.client.put(path.to_owned()),
        "DELETE" => t.client.delete(path.to_owned()),
        _ => t.client.get(path.to_owned()),
    };
    let req = req.header(Header::new("Authorization", format!("Bearer {key}")));
    let req = match v {
        Some(v) => req.header(ContentType::JSON).body(v.to_string()),
        None => req,
    };
    body(req.dispatch())
}

fn created(res: (Status, Value)) -> Value {
    assert_eq!(res.0, Status::Created, "{}", res.1);
    res.1["data"].clone()
}

#[test]
fn an_invoice_is_read_updated_in_part_and_deleted_by_its_path() {
    let (t, e) = app_with_entity();
    let k = key(&t, Some(&e));
    let c = created(t.post_with_key("/api/v1/contacts", &k, json!({ "name": "Customer" })));
    let inv = created(t.post_with_key(
        "/api/v1/invoices",
        &k,
        json!({ "contact_id": c["id"], "notes": "first",
                "lines": [{ "description": "Work", "quantity": "3", "unit_price": "19.99" }] }),
    ));
    let path = format!("/api/v1/invoices/{}", inv["id"].as_str().unwrap());
    let (s, v) = send(&t, "GET", &path, &k, None);
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"], inv, "the same record the create answered");

    // A PUT changes only what it sends.
    let (s, v) = send(&t, "PUT", &path, &k, Some(json!({ "notes": "second" })));
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["notes"], "second");
    assert_eq!(v["data"]["lines"][0]["quantity"].to_string(), "3");
    assert_eq!(v["data"]["total"], inv["total"]);
    let (_, read) = send(&t, "GET", &path, &k, None);
    assert_eq!(read["data"], v["data"]);
    // Marked paid through the key: the session API's rules (a payment on a sent invoice).
    let (s, v) = send(&t, "PUT", &path, &k, Some(json!({ "status": "sent" })));
    assert_eq!(s, Status::Ok, "{v}");
    let pay = created(t.post_with_key(
        "/api/v1/payments",
        &k,
        json!({ "document_id": inv["id"], "amount": v["data"]["total"] }),
    ));
    let (_, v) = send(&t, "GET", &path, &k, None);
    assert_eq!(v["data"]["status"], "paid", "{v}");
    let pay_path = format!("/api/v1/payments/{}", pay["id"].as_str().unwrap());
    let (s, p) = send(&t, "GET", &pay_path, &k, None);
    assert_eq!((s, &p["data"]), (Status::Ok, &pay));
    let (s, _) = send(&t, "DELETE", &pay_path, &k, None);
    assert_eq!(s, Status::Ok);
    assert_error(&send(&t, "GET", &pay_path, &k, None), Status::NotFound);

    // An id in the body must be the path's.
    let other = "00000000-0000-4000-8000-000000000000";
    let r = send(
        &t,
        "PUT",
        &path,
        &k,
        Some(json!({ "id": other, "notes": "x" })),
    );
    let msg = assert_error(&r, Status::BadRequest);
    assert!(msg.contains("`id`"), "{msg}");
    // The session API's validation, naming the field.
    let r = send(&t, "PUT", &path, &k, Some(json!({ "due_date": "soon" })));
    assert_eq!(r.1["field"], "due_date", "{}", r.1);

    // A sent invoice is voided before it is deleted, as in the session API.
    let (s, _) = send(&t, "PUT", &path, &k, Some(json!({ "status": "void" })));
    assert_eq!(s, Status::Ok);
    let (s, v) = send(&t, "DELETE", &path, &k, None);
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(v["data"]["success"], true);
    let r = send(&t, "GET", &path, &k, None);
    assert_eq!(
        assert_error(&r, Status::NotFound),
        format!("Invoice not found: {}", inv["id"].as_str().unwrap())
    );
}

#[test]
fn record_paths_see_only_what_the_key_sees() {
    let (t, e) = app_with_entity();
    let e2 = t.entity("Other shop");
    let scoped = key(&t, Some(&e));
    let unscoped = key(&t, None);
    let c2 = session_contact(&t, Some(&e2), "Elsewhere");
    let path = format!("/api/v1/contacts/{c2}");
    for (method, body) in [
        ("GET", None),
        ("PUT", Some(json!({ "name": "x" }))),
        ("DELETE", None),
    ] {
        assert_error(&send(&t, method, &path, &scoped, body), Status::NotFound);
    }
    let (s, v) = send(&t, "GET", &path, &unscoped, None);
    assert_eq!(
        (s, v["data"]["name"].as_str()),
        (Status::Ok, Some("Elsewhere"))
    );
    // Another user's key sees nothing of it.
    t.signup("second@example.com");
    let theirs = key(&t, None);
    assert_error(&send(&t, "GET", &path, &theirs, None), Status::NotFound);
    // A path that holds no id names no record: 404; an unknown query parameter is refused.
    let r = send(&t, "GET", "/api/v1/contacts/not-a-uuid", &unscoped, None);
    assert_eq!(
        assert_error(&r, Status::NotFound),
        "Contact not found: not-a-uuid"
    );
    let r = send(&t, "GET", &format!("{path}?expand=1"), &unscoped, None);
    assert_eq!(r.1["code"], "unknown_parameter", "{}", r.1);
}

#[test]
fn products_and_the_other_documents_have_record_paths_too() {
    let (t, e) = app_with_entity();
    let k = key(&t, None);
    let p = created(t.post_with_key(
        "/api/v1/products",
        &k,
        json!({ "entity_id": e, "name": "Bolt", "unit_price": "0.25" }),
    ));
    let path = format!("/api/v1/products/{}", p["id"].as_str().unwrap());
    let (s, v) = send(
        &t,
        "PUT",
        &path,
        &k,
        Some(json!({ "unit_price": "0.3000", "name": "Bolt M6" })),
    );
    assert_eq!(s, Status::Ok, "{v}");
    assert_eq!(
        (
            v["data"]["unit_price"].to_string(),
            v["data"]["sku"].clone()
        ),
        ("0.3".to_owned(), p["sku"].clone())
    );
    let (s, _) = send(&t, "DELETE", &path, &k, None);
    assert_eq!(s, Status::Ok);
    assert_error(&send(&t, "GET", &path, &k, None), Status::NotFound);

    let c = session_contact(&t, Some(&e), "Supplier");
    for list in ["bills", "credit-notes", "supplier-credits"] {
        let doc = created(t.post_with_key(
            &format!("/api/v1/{list}"),
            &k,
            json!({ "entity_id": e, "contact_id": c, "lines": [{ "description": "x", "unit_price": 1 }] }),
        ));
        let path = format!("/api/v1/{list}/{}", doc["id"].as_str().unwrap());
        let (s, v) = send(&t, "GET", &path, &k, None);
        assert_eq!((s, &v["data"]), (Status::Ok, &doc), "{list}");
        let (s, v) = send(&t, "PUT", &path, &k, Some(json!({ "notes": "n" })));
        assert_eq!(
            (s, v["data"]["notes"].as_str()),
            (Status::Ok, Some("n")),
            "{list}: {v}"
        );
        let (s, _) = send(&t, "DELETE", &path, &k, None);
        assert_eq!(s, Status::Ok, "{list}");
        let (_, v) = t.get_with_key(&format!("/api/v1/{list}"), &k);
        assert_eq!(v["data"], json!([]), "{list}");
    }
}
