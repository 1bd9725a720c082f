//! The role matrix of docs/auth.md#members-and-roles, generated from the served OpenAPI
//! document: every operation of both APIs, asked by a member of each role. The
//! expectations are this file's own reading of the table ([`expected`]); an operation it
//! has no expectation for fails the test, so a new endpoint cannot be forgotten.
//!
//! For each role a fresh app: the owner creates one record of every kind the document
//! can create from its own schemas (the ids fill the later bodies), invites
//! `sam@example.com` with the role, and Sam then asks every operation about that entity
//! (lists with `entityId`, bodies naming `entity_id` or a record's `id`), on the session
//! API with a session and on the public API with a key of his own. A role that may do
//! what the operation does is never refused (403); one that may not is refused with 403
//! naming the role, or, for a list that names no entity, answered without the entity's
//! records; and whatever the owner's own run managed, a refused role never succeeds.

use std::collections::BTreeMap;

use super::common;
use common::*;
use rocket::http::{ContentType, Header, Status};
use serde_json::{json, Map, Value};

/// What an operation needs, read from the table of docs/auth.md#members-and-roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// No role (sign-in, the entity list, the document itself): not asked here.
    Any,
    ReadStock,
    WriteStock,
    ReadBooks,
    WriteBooks,
    Vat,
    Admin,
    Owner,
}

/// The table's columns.
fn may(role: &str, need: Need) -> bool {
    match need {
        Need::Any | Need::ReadStock => true,
        Need::WriteStock => ["owner", "manager", "staff"].contains(&role),
        Need::ReadBooks => ["owner", "manager", "accountant", "viewer"].contains(&role),
        Need::WriteBooks => ["owner", "manager", "accountant"].contains(&role),
        Need::Vat => ["owner", "accountant"].contains(&role),
        Need::Admin => ["owner", "manager"].contains(&role),
        Need::Owner => role == "owner",
    }
}

const STOCK: &[&str] = &[
    "/api/products",
    "/api/warehouse-locations",
    "/api/warehouse-stock",
    "/api/stock-movements",
    "/api/stock-takes",
    "/api/transfer-orders",
    "/api/stock/put-away",
    "/api/inventory/alerts",
    "/api/v1/products",
    "/api/v1/products/{id}",
    "/api/v1/warehouse-locations",
    "/api/v1/warehouse-stock",
    "/api/v1/stock-movements",
];

const BOOKS: &[&str] = &[
    "/api/bills",
    "/api/contacts",
    "/api/credit-notes",
    "/api/employees",
    "/api/expense-categories",
    "/api/expenses",
    "/api/invoices",
    "/api/payments",
    "/api/projects",
    "/api/recurring-invoices",
    "/api/supplier-credits",
    "/api/time-entries",
    "/api/transactions",
    "/api/v1/bills",
    "/api/v1/categories",
    "/api/v1/contacts",
    "/api/v1/credit-notes",
    "/api/v1/employees",
    "/api/v1/invoices",
    "/api/v1/payments",
    "/api/v1/transactions",
    "/api/v1/bills/{id}",
    "/api/v1/contacts/{id}",
    "/api/v1/credit-notes/{id}",
    "/api/v1/invoices/{id}",
    "/api/v1/payments/{id}",
    "/api/v1/supplier-credits",
    "/api/v1/supplier-credits/{id}",
    // Printing reads the books; sending by email is a change of them (it is recorded).
    "/api/invoices/{id}/print",
    "/api/invoices/{id}/pdf",
    "/api/invoices/{id}/send",
    "/api/credit-notes/{id}/print",
    "/api/credit-notes/{id}/pdf",
    "/api/credit-notes/{id}/send",
];

/// Reports of the books: read only.
const BOOK_REPORTS: &[&str] = &[
    "/api/dashboard/money",
    "/api/reports/gross-margin",
    "/api/reports/stock-valuation",
    "/api/inventory/locations",
    "/api/inventory/summary",
    "/api/vat/return",
    "/api/vat/return/lines",
    "/api/vat/periods",
];

const VAT: &[&str] = &["/api/vat/adjustments", "/api/vat/returns"];

/// The HMRC connection and what is read through it (docs/hmrc.md): the VAT role's, read
/// or write.
const HMRC: &[&str] = &[
    "/api/hmrc/connect",
    "/api/hmrc/callback",
    "/api/hmrc/connection",
    "/api/vat/obligations",
    "/api/vat/liabilities",
    "/api/vat/payments",
    "/api/vat/submitted",
];

const ADMIN: &[&str] = &[
    "/api/api-keys",
    "/api/webhooks",
    "/api/webhooks/deliveries",
    "/api/webhooks/redeliver",
    "/api/webhooks/test",
    "/api/import/connections",
    "/api/import/csv",
    "/api/import/migrate",
    "/api/import/preview",
    "/api/import/oauth/start",
    "/api/import/oauth/callback",
];

const ANY: &[&str] = &[
    // The trail's own rule: an entity's to its owners and accountants, anyone's own
    // sign-ins (tests/api/audit.rs).
    "/api/audit",
    "/api/auth/2fa",
    "/api/auth/2fa/setup",
    "/api/auth/2fa/enable",
    "/api/auth/2fa/disable",
    "/api/auth/me",
    "/api/auth/status",
    "/api/auth/login",
    "/api/auth/logout",
    "/api/auth/logout-all",
    "/api/auth/signup",
    "/api/health",
    "/api/openapi.json",
];

/// The expectation for one operation; `None` for one this file does not know.
fn expected(method: &str, path: &str) -> Option<Need> {
    let read = method == "get";
    let rw = |r, w| Some(if read { r } else { w });
    if ANY.contains(&path) {
        return Some(Need::Any);
    }
    if STOCK.contains(&path) {
        return rw(Need::ReadStock, Need::WriteStock);
    }
    if BOOKS.contains(&path) {
        return rw(Need::ReadBooks, Need::WriteBooks);
    }
    if BOOK_REPORTS.contains(&path) && read {
        return Some(Need::ReadBooks);
    }
    if VAT.contains(&path) {
        // Reading filed returns and adjustments is reading the books.
        return rw(Need::ReadBooks, Need::Vat);
    }
    if HMRC.contains(&path) {
        return Some(Need::Vat);
    }
    if ADMIN.contains(&path) {
        return Some(Need::Admin);
    }
    match (method, path) {
        ("get" | "post", "/api/entities") => Some(Need::Any),
        // Sent with `lock_date` alone, as this test does: the accountant's too.
        ("put", "/api/entities") => Some(Need::Vat),
        ("delete", "/api/entities") => Some(Need::Owner),
        (_, "/api/members") => Some(Need::Owner),
        // Printed on every invoice: any member reads it; the owner sets it.
        ("get", "/api/entities/{id}/logo") => Some(Need::ReadStock),
        (_, "/api/entities/{id}/logo") => Some(Need::Owner),
        _ => None,
    }
}

/// `path` with its `{id}` filled: the entity for `/api/entities/{id}/...`, otherwise the
/// record the owner created on the session API's collection of the same name
/// (`/api/v1/invoices/{id}` and `/api/invoices/{id}/print` both take the invoice).
fn fill_path(path: &str, ids: &Ids) -> String {
    if !path.contains("{id}") {
        return path.to_owned();
    }
    let collection = path
        .replace("/api/v1/", "/api/")
        .split("/{id}")
        .next()
        .unwrap_or("")
        .to_owned();
    let id = if collection == "/api/entities" {
        Some(ids.entity.clone())
    } else {
        ids.by_path.get(&collection).cloned()
    };
    path.replace(
        "{id}",
        &id.unwrap_or_else(|| "00000000-0000-4000-8000-000000000000".into()),
    )
}

/// Creates go in this order, so references find their records.
const FIRST: &[&str] = &[
    "/api/warehouse-locations",
    "/api/products",
    "/api/contacts",
    "/api/employees",
    "/api/projects",
    "/api/expense-categories",
    "/api/invoices",
    "/api/bills",
];

struct Doc {
    doc: Value,
}

impl Doc {
    fn schema(&self, s: &Value) -> Value {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                self.schema(&self.doc["components"]["schemas"][r.rsplit('/').next().unwrap()])
            }
            None => s.clone(),
        }
    }

    /// A value for property `name` of schema `s`.
    fn sample(&self, name: &str, s: &Value, ids: &Ids) -> Value {
        let s = self.schema(s);
        if let Some(alts) = s
            .get("anyOf")
            .or_else(|| s.get("oneOf"))
            .and_then(Value::as_array)
        {
            let alt = alts
                .iter()
                .map(|a| self.schema(a))
                .find(|a| a["type"] != "null" && a.get("maxLength") != Some(&json!(0)))
                .unwrap_or(Value::Null);
            return self.sample(name, &alt, ids);
        }
        if let Some(v) = s.get("const") {
            return v.clone();
        }
        if let Some(e) = s.get("enum").and_then(Value::as_array) {
            return e
                .iter()
                .find(|v| !v.is_null())
                .cloned()
                .unwrap_or(Value::Null);
        }
        let ty = match &s["type"] {
            Value::Array(ts) => ts
                .iter()
                .find(|t| *t != "null")
                .cloned()
                .unwrap_or(Value::Null),
            t => t.clone(),
        };
        match ty.as_str().unwrap_or("") {
            "string" => match s["format"].as_str() {
                Some("uuid") => json!(ids.for_field(name)),
                Some("date") => json!("2026-06-15"),
                Some("date-time") => json!("2026-06-15T10:00:00Z"),
                Some("email") => json!("someone@example.com"),
                _ if name == "url" => json!("https://example.com/hook"),
                _ => json!("Sample"),
            },
            "integer" | "number" => {
                let min = s["minimum"]
                    .as_f64()
                    .or(s["exclusiveMinimum"].as_f64().map(|m| m + 1.0));
                json!(min.map_or(1.0, |m| m.max(1.0)) as i64)
            }
            "boolean" => json!(true),
            "array" => {
                if s["minItems"].as_u64().unwrap_or(0) > 0 {
                    json!([self.sample(name, &s["items"], ids)])
                } else {
                    json!([])
                }
            }
            "object" => {
                let mut o = Map::new();
                let required: Vec<&str> = s["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (k, v) in s["properties"].as_object().into_iter().flatten() {
                    if required.contains(&k.as_str()) || k == "entity_id" {
                        o.insert(k.clone(), self.sample(k, v, ids));
                    }
                }
                Value::Object(o)
            }
            _ => Value::Null,
        }
    }

    fn body(&self, op: &Value, path: &str, ids: &Ids) -> Option<Value> {
        let s = &op["requestBody"]["content"]["application/json"]["schema"];
        if s.is_null() {
            return None;
        }
        let mut b = self.sample("", s, ids);
        if let Some(o) = b.as_object_mut() {
            if o.contains_key("id") {
                o.insert("id".into(), json!(ids.for_path(path)));
            }
        }
        if path == "/api/entities" {
            b = json!({ "id": ids.entity, "lock_date": "2026-01-31" });
        }
        Some(b)
    }

    fn query(&self, op: &Value, ids: &Ids) -> String {
        let mut q = Vec::new();
        for p in op["parameters"].as_array().into_iter().flatten() {
            let p = self.schema(p);
            let name = p["name"].as_str().unwrap();
            if p["in"] != "query" {
                continue;
            }
            if name == "entityId" {
                q.push(format!("entityId={}", ids.entity));
            } else if p["required"] == true {
                let v = match name {
                    "from" => json!("2026-01-01"),
                    "to" => json!("2026-03-31"),
                    _ => self.sample(name, &p["schema"], ids),
                };
                let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                q.push(format!("{name}={v}"));
            }
        }
        if q.is_empty() {
            String::new()
        } else {
            format!("?{}", q.join("&"))
        }
    }
}

/// The ids the owner's creates answered, by path.
struct Ids {
    entity: String,
    by_path: BTreeMap<String, String>,
}

impl Ids {
    fn for_path(&self, path: &str) -> String {
        let path = path.replace("/api/v1/", "/api/");
        match path.as_str() {
            "/api/entities" => self.entity.clone(),
            p => self
                .by_path
                .get(p)
                .cloned()
                .unwrap_or_else(|| "018f0000-0000-7000-8000-00000000dead".into()),
        }
    }

    fn for_field(&self, name: &str) -> String {
        let path = match name {
            "entity_id" => return self.entity.clone(),
            n if n.ends_with("location_id") => "/api/warehouse-locations",
            "product_id" => "/api/products",
            "contact_id" => "/api/contacts",
            "project_id" => "/api/projects",
            "employee_id" => "/api/employees",
            "category_id" | "expense_category_id" => "/api/expense-categories",
            "document_id" | "invoice_id" | "credits_id" => "/api/invoices",
            _ => "",
        };
        self.for_path(path)
    }
}

fn send(
    t: &TestApp,
    method: &str,
    path: &str,
    body: Option<&Value>,
    key: Option<&str>,
) -> (Status, Value) {
    let mut req = match method {
        "get" => t.client.get(path.to_owned()),
        "post" => t.client.post(path.to_owned()),
        "put" => t.client.put(path.to_owned()),
        _ => t.client.delete(path.to_owned()),
    };
    req = match key {
        Some(k) => req.header(Header::new("Authorization", format!("Bearer {k}"))),
        None => t.with_session(req),
    };
    if let Some(b) = body {
        req = req.header(ContentType::JSON).body(b.to_string());
    }
    body_of(req.dispatch())
}

fn body_of(res: rocket::local::blocking::LocalResponse<'_>) -> (Status, Value) {
    body(res)
}

/// Every operation with its expectation, in the order they are asked: reads, then
/// creates (in [`FIRST`]'s order), updates, deletes. Fails for an operation this file
/// does not know.
fn operations(doc: &Value) -> Vec<(String, String, Need)> {
    let mut ops = Vec::new();
    let mut unknown = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            match expected(method, path) {
                Some(need) => ops.push((method.clone(), path.clone(), need)),
                None => unknown.push(format!("{} {path}", method.to_uppercase())),
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "operations without an expectation in the role matrix: {unknown:?}"
    );
    let rank = |m: &str, p: &str| {
        let m = ["get", "post", "put", "delete"]
            .iter()
            .position(|x| *x == m)
            .unwrap_or(9);
        let p = FIRST.iter().position(|x| *x == p).unwrap_or(FIRST.len());
        (m, p)
    };
    ops.sort_by(|a, b| rank(&a.0, &a.1).cmp(&rank(&b.0, &b.1)).then(a.1.cmp(&b.1)));
    ops
}

/// An app whose owner has made one record of every kind it could, and Sam a member with
/// `role`, signed in, with an unscoped API key of his own.
fn team(role: &str, doc: &Doc) -> (TestApp, Ids, String, Vec<String>) {
    let t = app_with(&[("plan", json!("pro"))]);
    t.signup("owner@example.com");
    let entity = t.entity("Acme Ltd");
    let mut ids = Ids {
        entity: entity.clone(),
        by_path: BTreeMap::new(),
    };
    for (method, path, _) in operations(&doc.doc) {
        if method != "post" || path.starts_with("/api/v1/") || path.starts_with("/api/auth") {
            continue;
        }
        if ["/api/entities", "/api/members", "/api/webhooks/test"].contains(&path.as_str()) {
            continue;
        }
        let op = &doc.doc["paths"][&path]["post"];
        let Some(b) = doc.body(op, &path, &ids) else {
            continue;
        };
        let (s, v) = send(&t, "post", &path, Some(&b), None);
        if s == Status::Created {
            if let Some(id) = v["data"]["id"].as_str() {
                ids.by_path
                    .entry(path.clone())
                    .or_insert_with(|| id.to_owned());
            }
        }
    }
    // A second invitation, for the member operations to change and remove.
    let (s, v) = t.post(
        "/api/members",
        json!({ "entity_id": entity, "email": "lee@example.com", "role": "viewer" }),
    );
    assert_eq!(s, Status::Created, "{v}");
    ids.by_path.insert(
        "/api/members".into(),
        v["data"]["id"].as_str().unwrap().to_owned(),
    );
    let (_, v) = t.post(
        "/api/members",
        json!({ "entity_id": entity, "email": "sam@example.com", "role": role }),
    );
    let url = v["data"]["invite_url"].as_str().unwrap();
    let token = url.split_once("token=").unwrap().1;
    *t.session.borrow_mut() = None;
    let (s, v) = body(
        t.client
            .post("/api/auth/signup")
            .header(ContentType::JSON)
            .body(
                json!({ "email": "sam@example.com", "password": PASSWORD, "invite_token": token })
                    .to_string(),
            )
            .dispatch(),
    );
    assert_eq!(s, Status::Created, "{v}");
    t.login("sam@example.com");
    // Sam's own key, made by hand: staff, accountants and viewers may not make one.
    let raw = stockbook::api_keys::generate_key();
    let digest = stockbook::auth::token::digest(&raw);
    t.db.write_sync(|tx| {
        tx.execute(
            "INSERT INTO api_keys (id, owner_id, name, prefix, key_hash, created_at)
             SELECT ?1, id, 'Sam', substr(?2, 1, 12), ?3, '2026-01-01T00:00:00Z'
             FROM users WHERE email = 'sam@example.com'",
            [uuid::Uuid::new_v4().to_string(), raw.clone(), digest],
        )?;
        Ok(())
    })
    .unwrap();
    let fixtures = ids.by_path.values().cloned().collect();
    (t, ids, raw, fixtures)
}

#[test]
fn every_operation_of_both_apis_answers_each_role_as_the_role_table_says() {
    let t = app();
    let doc = Doc {
        doc: t
            .client
            .get("/api/openapi.json")
            .dispatch()
            .into_json()
            .unwrap(),
    };
    let ops = operations(&doc.doc);
    let mut owner_ok: BTreeMap<String, Status> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut refused = 0;
    for role in ["owner", "manager", "staff", "accountant", "viewer"] {
        let (t, ids, key, fixtures) = team(role, &doc);
        for (method, path, need) in &ops {
            if *need == Need::Any {
                continue;
            }
            let op = &doc.doc["paths"][path][method];
            let url = format!("{}{}", fill_path(path, &ids), doc.query(op, &ids));
            let b = doc.body(op, path, &ids);
            let key = path.starts_with("/api/v1/").then_some(key.as_str());
            let (s, v) = send(&t, method, &url, b.as_ref(), key);
            let case = format!(
                "{role} {} {url} {}",
                method.to_uppercase(),
                b.map(|b| b.to_string()).unwrap_or_default()
            );
            if role == "owner" {
                owner_ok.insert(format!("{method} {path}"), s);
            }
            if may(role, *need) {
                if s == Status::Forbidden {
                    failures.push(format!("{case}: refused, may: {v}"));
                }
                continue;
            }
            let owner = owner_ok[&format!("{method} {path}")];
            let text = v.to_string();
            let leaks = fixtures.iter().any(|id| text.contains(id.as_str()));
            match s {
                Status::Forbidden => {
                    refused += 1;
                    let message = v["message"].as_str().unwrap_or("");
                    if !message.contains(&format!("Your role ({role})")) {
                        failures.push(format!("{case}: 403 not naming the role: {message}"));
                    }
                }
                s if s.code < 300 && method == "get" && !leaks => {}
                s if s.code < 300 => failures.push(format!("{case}: {s} beyond the role: {v}")),
                // Refused before the role could be read (a body this test could not
                // make valid); the owner could not do it either.
                s if s == owner || owner.code >= 400 => {}
                s => failures.push(format!("{case}: {s}, the owner got {owner}: {v}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The matrix asks enough to mean something.
    assert!(refused > 100, "only {refused} refusals");
}
