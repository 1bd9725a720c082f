//! The OpenAPI document (docs/limits.md): every mounted route documented and every
//! documented route mounted, decimals documented as numbers, an integration written
//! from the document alone, and the answers of both APIs matching their documented
//! schemas.

use super::common;

use std::collections::BTreeSet;

use common::*;
use rocket::http::{ContentType, Header, Status};
use serde_json::{json, Value};

pub(super) fn openapi(t: &TestApp) -> Value {
    let res = t.client.get("/api/openapi.json").dispatch();
    assert_eq!(res.status(), Status::Ok);
    res.into_json().unwrap()
}

/// `/api/x/<id>` → `/api/x/{id}`.
fn openapi_path(rocket_path: &str) -> String {
    rocket_path
        .split('/')
        .map(|s| {
            if s.starts_with('<') && s.ends_with('>') {
                format!("{{{}}}", s.trim_matches(|c| c == '<' || c == '>'))
            } else {
                s.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn every_mounted_route_is_documented_and_every_documented_route_is_mounted() {
    let t = app();
    let doc = openapi(&t);
    assert_eq!(doc["openapi"], "3.1.0");
    let mounted: BTreeSet<(String, String)> = t
        .client
        .rocket()
        .routes()
        // The web app's assets and the /api/v1 fallback are catch-alls, not API routes.
        .filter(|r| !r.uri.path().ends_with("..>"))
        .map(|r| (r.method.as_str().to_lowercase(), openapi_path(r.uri.path())))
        .collect();
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.insert((method.clone(), path.clone()));
        }
    }
    let undocumented: Vec<_> = mounted.difference(&documented).collect();
    let unmounted: Vec<_> = documented.difference(&mounted).collect();
    assert!(
        undocumented.is_empty() && unmounted.is_empty(),
        "routes missing from the OpenAPI document (add them to operations() in the feature's openapi.rs): {undocumented:?}\n\
         documented routes that are not mounted: {unmounted:?}"
    );
    assert!(mounted.len() > 50, "{}", mounted.len());
}

#[test]
fn the_document_is_served_without_a_session_and_documents_decimals_as_numbers() {
    let t = app();
    let doc = openapi(&t);
    let schemas = &doc["components"]["schemas"];
    let requests = stockbook::openapi::request_schemas(
        doc["paths"].as_object().unwrap(),
        schemas.as_object().unwrap(),
    );
    for (schema, field) in [
        ("Invoice", "total"),
        ("Line", "unit_price"),
        ("Line", "quantity"),
        ("Expense", "amount"),
        ("Product", "stock_qty"),
        ("Transaction", "amount"),
        ("WarehouseStock", "reserved_quantity"),
        ("StockMovement", "qty"),
        ("StockMovementCreate", "unit_cost"),
        ("TransferOrderLine", "received_quantity"),
        ("StockTakeCount", "counted_quantity"),
        ("StockValuationRow", "margin"),
        ("StockValuationSummary", "totalCostValue"),
        ("InventorySummary", "stockValue"),
    ] {
        let ty = &schemas[schema]["properties"][field]["type"];
        // A request body's decimal also takes a string (docs/public-api.md#exact-amounts).
        let request = requests.iter().any(|r| r == schema);
        assert!(
            ty == "number"
                || *ty == json!(["number", "null"])
                || (request
                    && (*ty == json!(["number", "string"])
                        || *ty == json!(["number", "string", "null"]))),
            "{schema}.{field}: {ty}"
        );
    }
    assert_eq!(
        schemas["Line"]["properties"]["unit_price"]["x-decimal-places"],
        4
    );
    // Every $ref resolves.
    let text = doc.to_string();
    for part in text.split("\"#/components/schemas/").skip(1) {
        let name = &part[..part.find('"').unwrap()];
        assert!(schemas.get(name).is_some(), "dangling $ref {name}");
    }
    // Every operation documents the error body (docs/conventions.md#errors) and the v1 ones their
    // rate limit.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let r = &op["responses"];
            assert!(r.get("500").is_some(), "{method} {path}");
            if path.starts_with("/api/v1/") {
                assert!(
                    r.get("401").is_some() && r.get("429").is_some(),
                    "{method} {path}"
                );
                assert!(r["429"]["headers"].get("Retry-After").is_some());
            }
        }
    }
}

/// Where the document holds a JSON Schema keyword whose value must be a schema (an object,
/// or a boolean where JSON Schema allows one) or a list of them, and it is not; and where it
/// holds a null outside an `enum` list (where null is one of the values).
fn malformed(v: &Value, at: &str, found: &mut Vec<String>) {
    match v {
        Value::Null => found.push(format!("{at}: null")),
        Value::Array(items) => {
            let in_enum = at.ends_with("/enum");
            for (i, item) in items.iter().enumerate() {
                if !(in_enum && item.is_null()) {
                    malformed(item, &format!("{at}/{i}"), found);
                }
            }
        }
        Value::Object(map) => {
            for (key, value) in map {
                let here = format!("{at}/{key}");
                let ok = match key.as_str() {
                    "properties" => value
                        .as_object()
                        .is_some_and(|p| p.values().all(Value::is_object)),
                    "items" | "additionalProperties" | "propertyNames" | "not" => {
                        value.is_object() || value.is_boolean()
                    }
                    "anyOf" | "oneOf" | "allOf" => value
                        .as_array()
                        .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_object)),
                    _ => true,
                };
                if !ok {
                    found.push(format!("{here}: {value}"));
                }
                malformed(value, &here, found);
            }
        }
        _ => {}
    }
}

#[test]
fn no_schema_in_the_document_holds_a_null_where_json_schema_wants_an_object_or_a_list() {
    let t = app();
    let doc = openapi(&t);
    let mut found = Vec::new();
    malformed(&doc, "#", &mut found);
    assert!(found.is_empty(), "{found:#?}");
    // The logout body in particular (issue 30): an object with no properties at all.
    let empty = &doc["components"]["schemas"]["EmptyBody"];
    assert_eq!(empty["type"], "object");
    assert!(empty.get("properties").is_none(), "{empty}");
    // The checker finds what it is for.
    let mut found = Vec::new();
    malformed(
        &json!({ "a": { "properties": null, "anyOf": [], "enum": [1, null] } }),
        "#",
        &mut found,
    );
    assert_eq!(found.len(), 3, "{found:?}");
}

/// The schema names `schema` refers to, at any depth.
fn refs_in(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                out.push(r.trim_start_matches("#/components/schemas/").to_owned());
            }
            map.values().for_each(|v| refs_in(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs_in(v, out)),
        _ => {}
    }
}

#[test]
fn unknown_body_fields_are_allowed_as_any_value_and_no_schema_refers_to_itself() {
    let (t, entity) = app_with_entity();
    let doc = openapi(&t);
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    // No schema reaches itself through its references: client generators drop or
    // mistype every operation that touches a recursive one (issue 30).
    for name in schemas.keys() {
        let mut seen = BTreeSet::new();
        let mut next = vec![name.clone()];
        while let Some(at) = next.pop() {
            let mut refs = Vec::new();
            refs_in(&schemas[&at], &mut refs);
            for r in refs {
                assert!(r != *name, "{name} refers to itself (through {at})");
                if seen.insert(r.clone()) {
                    next.push(r);
                }
            }
        }
    }
    assert!(schemas.get("AnyValue").is_none());
    // Every request body still allows unknown fields, as any value.
    let mut bodies = 0;
    for item in doc["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            let Some(r) =
                op["requestBody"]["content"]["application/json"]["schema"]["$ref"].as_str()
            else {
                continue;
            };
            let name = r.trim_start_matches("#/components/schemas/");
            assert_eq!(schemas[name]["additionalProperties"], json!({}), "{name}");
            bodies += 1;
        }
    }
    assert!(bodies > 40, "{bodies}");
    // And the server ignores them, whatever they hold.
    let (status, v) = t.post(
        "/api/contacts",
        json!({ "name": "C", "entity_id": entity, "extra": { "nested": [1, "x", null, { "k": true }] } }),
    );
    assert_eq!(status, Status::Created, "{v}");
    assert!(v["data"].get("extra").is_none(), "{v}");
}

/// A small JSON Schema check (the subset the document uses): types, enums, required
/// properties, arrays, `$ref`, `oneOf` and `anyOf`; an object with documented properties may have
/// no others.
fn conforms(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/components/schemas/");
        return conforms(doc, &doc["components"]["schemas"][name], v, at);
    }
    if let Some(alts) = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)
    {
        return if alts.iter().any(|s| conforms(doc, s, v, at).is_ok()) {
            Ok(())
        } else {
            Err(format!("{at}: {v} matches no alternative"))
        };
    }
    if let Some(ty) = schema.get("type") {
        let types: Vec<&str> = match ty {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let ok = types.iter().any(|t| match *t {
            "string" => v.is_string(),
            "number" => v.is_number(),
            "integer" => v.is_i64() || v.is_u64(),
            "boolean" => v.is_boolean(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            "null" => v.is_null(),
            _ => false,
        });
        if !ok {
            return Err(format!("{at}: {v} is not {types:?}"));
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            return Err(format!("{at}: {v} not in {e:?}"));
        }
    }
    if let Some(obj) = v.as_object() {
        if let Some(req) = schema.get("required").and_then(Value::as_array) {
            for r in req {
                let r = r.as_str().unwrap();
                if !obj.contains_key(r) {
                    return Err(format!("{at}: missing {r}"));
                }
            }
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (k, s) in props {
                if let Some(x) = obj.get(k) {
                    conforms(doc, s, x, &format!("{at}.{k}"))?;
                }
            }
            // Nothing undocumented.
            if let Some(k) = obj.keys().find(|k| !props.contains_key(*k)) {
                return Err(format!("{at}: {k} is not documented"));
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            conforms(doc, items, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

/// The (method, path) of a documented operation.
fn operation<'d>(doc: &'d Value, id: &str) -> (String, String, &'d Value) {
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op["operationId"] == id {
                return (method.clone(), path.clone(), op);
            }
        }
    }
    panic!("operation {id} is not documented");
}

fn success_schema(op: &Value) -> (u16, Value) {
    let r = op["responses"].as_object().unwrap();
    let (code, resp) = r
        .iter()
        .find(|(c, _)| c.starts_with('2'))
        .expect("a success response");
    (
        code.parse().unwrap(),
        resp["content"]["application/json"]["schema"].clone(),
    )
}

#[test]
fn an_integration_written_from_the_openapi_document_alone_lists_pages_and_creates() {
    let t = app();
    let doc = openapi(&t);
    let schemas = doc["components"]["schemas"].clone();
    let required = |schema: &str| -> Vec<String> {
        schemas[schema]["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let body_schema = |op: &Value| -> String {
        op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("#/components/schemas/")
            .to_owned()
    };

    // Sign up and make an entity: the session surface, as documented.
    let (m, path, op) = operation(&doc, "signup");
    assert_eq!(m, "post");
    assert_eq!(required(&body_schema(op)), ["email", "password"]);
    let res = t
        .client
        .post(path)
        .header(ContentType::JSON)
        .body(json!({ "email": "dev@example.com", "password": "long enough" }).to_string())
        .dispatch();
    assert_eq!(res.status(), Status::Created);
    let cookie_name = doc["components"]["securitySchemes"]["sessionCookie"]["name"]
        .as_str()
        .unwrap();
    let session = res.cookies().get(cookie_name).unwrap().value().to_owned();
    let session_post = |id: &str, body: Value| -> Value {
        let (m, path, op) = operation(&doc, id);
        assert_eq!(m, "post");
        for f in required(&body_schema(op)) {
            assert!(body.get(&f).is_some(), "{id} requires {f}");
        }
        let res = t
            .client
            .post(path)
            .cookie(rocket::http::Cookie::new(
                cookie_name.to_owned(),
                session.clone(),
            ))
            .header(ContentType::JSON)
            .body(body.to_string())
            .dispatch();
        let (code, schema) = success_schema(op);
        assert_eq!(res.status().code, code, "{id}");
        let v: Value = res.into_json().unwrap();
        conforms(&doc, &schema, &v, id).unwrap();
        v
    };
    let entity = session_post("createEntity", json!({ "name": "Integration Ltd" }));
    let entity_id = entity["data"]["id"].as_str().unwrap().to_owned();
    let created = session_post(
        "createApiKey",
        json!({ "name": "integration", "entity_id": entity_id }),
    );
    let raw_key = created["data"]["raw_key"].as_str().unwrap().to_owned();
    assert_eq!(
        doc["components"]["securitySchemes"]["bearerKey"]["scheme"],
        "bearer"
    );

    // From here on, only the public API, through the documented operations.
    let call = |id: &str, query: &str, body: Option<Value>| -> Value {
        let (m, path, op) = operation(&doc, id);
        assert!(op["security"][0].get("bearerKey").is_some(), "{id}");
        let uri = format!("{path}{query}");
        let auth = Header::new("Authorization", format!("Bearer {raw_key}"));
        let res = match (m.as_str(), body) {
            ("get", None) => t.client.get(uri).header(auth).dispatch(),
            ("post", Some(b)) => {
                for f in required(&body_schema(op)) {
                    assert!(b.get(&f).is_some(), "{id} requires {f}");
                }
                t.client
                    .post(uri)
                    .header(auth)
                    .header(ContentType::JSON)
                    .body(b.to_string())
                    .dispatch()
            }
            other => panic!("unexpected {other:?}"),
        };
        let (code, schema) = success_schema(op);
        assert_eq!(res.status().code, code, "{id}");
        for h in op["responses"][code.to_string()]["headers"]
            .as_object()
            .map(|h| h.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
        {
            assert!(res.headers().get_one(&h).is_some(), "{id}: header {h}");
        }
        let v: Value = res.into_json().unwrap();
        conforms(&doc, &schema, &v, id).unwrap_or_else(|e| panic!("{e}"));
        v
    };

    // Create contacts.
    let mut contact_ids = Vec::new();
    for i in 0..7 {
        let v = call(
            "v1CreateContact",
            "",
            Some(json!({ "name": format!("Customer {i}") })),
        );
        contact_ids.push(v["data"]["id"].as_str().unwrap().to_owned());
    }

    // Page through them with the documented parameters.
    let (_, _, list_op) = operation(&doc, "v1ListContacts");
    let params: Vec<&str> = list_op["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(params.contains(&"limit") && params.contains(&"offset"));
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let page = call("v1ListContacts", &format!("?limit=3&offset={offset}"), None);
        let rows = page["data"].as_array().unwrap();
        seen.extend(rows.iter().map(|c| c["id"].as_str().unwrap().to_owned()));
        if rows.len() < 3 {
            break;
        }
        offset += 3;
    }
    assert_eq!(seen, contact_ids);

    // Create an invoice with lines, then find it in the list.
    let line_fields: Vec<String> = schemas["LineInput"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert!(line_fields.contains(&"unit_price".to_owned()));
    let inv = call(
        "v1CreateInvoice",
        "",
        Some(json!({
            "contact_id": contact_ids[0],
            "lines": [
                { "description": "Consulting", "quantity": 2, "unit_price": 99.995, "vat_rate": 20 },
                { "description": "Books", "quantity": 1, "unit_price": 10, "vat_rate": 0 }
            ]
        })),
    );
    // 2 × 99.995 = 199.99; VAT 39.998 → 40.00
    assert_eq!(inv["data"]["subtotal"].to_string(), "209.99");
    assert_eq!(inv["data"]["total"].to_string(), "249.99");
    let list = call("v1ListInvoices", "", None);
    assert_eq!(list["data"][0]["id"], inv["data"]["id"]);
    assert_eq!(list["data"][0]["lines"].as_array().unwrap().len(), 2);

    // The other documented lists answer in the documented shape too.
    call(
        "v1CreateBill",
        "",
        Some(
            json!({ "contact_id": contact_ids[1], "lines": [{ "description": "Stock", "unit_price": 5 }] }),
        ),
    );
    call(
        "v1CreateProduct",
        "",
        Some(json!({ "name": "Mug", "stock_qty": 3 })),
    );
    for id in [
        "v1ListTransactions",
        "v1ListBills",
        "v1ListProducts",
        "v1ListEmployees",
        "v1ListCategories",
    ] {
        call(id, "", None);
    }
}

#[test]
fn session_list_answers_match_their_documented_schemas() {
    let (t, e) = app_with_entity();
    let doc = openapi(&t);
    let c = session_contact(&t, Some(&e), "Client");
    let (_, p) = t.post("/api/projects", json!({ "name": "P", "contact_id": c }));
    let p = p["data"]["id"].as_str().unwrap().to_owned();
    for (path, body) in [
        (
            "/api/invoices",
            json!({ "contact_id": c, "lines": [{ "description": "x", "unit_price": 1 }] }),
        ),
        ("/api/bills", json!({ "contact_id": c })),
        (
            "/api/expenses",
            json!({ "description": "x", "amount": 1, "project_id": p }),
        ),
        ("/api/employees", json!({ "name": "E" })),
        ("/api/transactions", json!({ "amount": 1 })),
        ("/api/time-entries", json!({ "project_id": p, "hours": 2 })),
        (
            "/api/recurring-invoices",
            json!({ "contact_id": c, "interval": "week" }),
        ),
        ("/api/api-keys", json!({ "name": "k" })),
    ] {
        let (s, v) = t.post(path, body);
        assert_eq!(s, Status::Created, "{path}: {v}");
        let (_, _, op) = operation(
            &doc,
            &format!(
                "create{}",
                match path {
                    "/api/invoices" => "Invoice",
                    "/api/bills" => "Bill",
                    "/api/expenses" => "Expense",
                    "/api/employees" => "Employee",
                    "/api/transactions" => "Transaction",
                    "/api/time-entries" => "TimeEntry",
                    "/api/recurring-invoices" => "RecurringInvoice",
                    _ => "ApiKey",
                }
            ),
        );
        conforms(&doc, &success_schema(op).1, &v, path).unwrap();
    }
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(op) = item.get("get") else { continue };
        if path.starts_with("/api/v1/") || path == "/api/openapi.json" {
            continue;
        }
        // Operations that need query parameters (the OAuth steps) are not plain lists.
        let needs_query = op["parameters"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p["required"] == json!(true)));
        if needs_query {
            continue;
        }
        let (s, v) = t.get(path);
        assert_eq!(s, Status::Ok, "{path}");
        conforms(&doc, &success_schema(op).1, &v, path).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Checks an answer against the schema the operation documents for its status.
pub(super) fn answers_as_documented(doc: &Value, id: &str, status: Status, v: &Value) {
    let (_, _, op) = operation(doc, id);
    let schema = &op["responses"][status.code.to_string()]["content"]["application/json"]["schema"];
    assert!(!schema.is_null(), "{id}: {status} is not documented: {v}");
    conforms(doc, schema, v, id).unwrap_or_else(|e| panic!("{e}"));
}

fn id_of(v: &Value) -> String {
    v["data"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id: {v}"))
        .to_owned()
}

#[test]
fn inventory_answers_match_their_documented_schemas() {
    let (t, e) = app_with_entity();
    let doc = openapi(&t);
    let check = |id: &str, (s, v): (Status, Value)| -> Value {
        assert!(s.code < 300, "{id}: {s} {v}");
        answers_as_documented(&doc, id, s, &v);
        v
    };

    let a = id_of(&check(
        "createWarehouseLocation",
        t.post(
            "/api/warehouse-locations",
            json!({ "name": "Main", "entity_id": e }),
        ),
    ));
    let b = id_of(&check(
        "createWarehouseLocation",
        t.post(
            "/api/warehouse-locations",
            json!({ "name": "Shop", "entity_id": e, "address": "1 High St" }),
        ),
    ));
    check(
        "updateWarehouseLocation",
        t.put(
            "/api/warehouse-locations",
            json!({ "id": b, "address": null }),
        ),
    );
    let p = id_of(&check(
        "createProduct",
        t.post(
            "/api/products",
            json!({ "name": "Bolt", "entity_id": e, "category": "Fasteners",
                    "unit_price": 2.5, "cost_price": 1.25, "stock_qty": 3 }),
        ),
    ));
    check(
        "updateProduct",
        t.put(
            "/api/products",
            json!({ "id": p, "name": "Bolt M6", "barcode": "5012345678900" }),
        ),
    );
    // The upsert creates (201), then updates (200): both answers are documented.
    let created = t.post(
        "/api/warehouse-stock",
        json!({ "product_id": p, "location_id": a, "quantity": 10 }),
    );
    assert_eq!(created.0, Status::Created);
    let row = id_of(&check("upsertWarehouseStock", created));
    let updated = t.post(
        "/api/warehouse-stock",
        json!({ "product_id": p, "location_id": a, "reorder_point": 2 }),
    );
    assert_eq!(updated.0, Status::Ok);
    check("upsertWarehouseStock", updated);
    check(
        "updateWarehouseStock",
        t.put(
            "/api/warehouse-stock",
            json!({ "id": row, "reorder_point": 20 }),
        ),
    );
    check(
        "createStockMovement",
        t.post(
            "/api/stock-movements",
            json!({ "product_id": p, "qty": 5, "type": "purchase", "location_id": a,
                    "unit_cost": 1.5, "reference": "PO-1" }),
        ),
    );
    let order = id_of(&check(
        "createTransferOrder",
        t.post(
            "/api/transfer-orders",
            json!({ "source_location_id": a, "destination_location_id": b,
                    "lines": [{ "product_id": p, "quantity": 4 }] }),
        ),
    ));
    let shipped = check(
        "updateTransferOrder",
        t.put(
            "/api/transfer-orders",
            json!({ "id": order, "status": "in_transit" }),
        ),
    );
    assert_eq!(shipped["data"]["status"], "in_transit");
    let draft = id_of(&check(
        "createTransferOrder",
        t.post(
            "/api/transfer-orders",
            json!({ "source_location_id": b, "destination_location_id": a,
                    "lines": [{ "product_id": p, "quantity": 1 }] }),
        ),
    ));
    check(
        "deleteTransferOrder",
        t.delete("/api/transfer-orders", json!({ "id": draft })),
    );
    let take = check(
        "createStockTake",
        t.post(
            "/api/stock-takes",
            json!({ "location_id": a, "entity_id": e }),
        ),
    );
    let line = take["data"]["lines"][0]["id"].clone();
    let counted = check(
        "updateStockTake",
        t.put(
            "/api/stock-takes",
            json!({ "id": id_of(&take), "status": "in_progress",
                    "lines": [{ "id": line, "counted_quantity": 10.5 }] }),
        ),
    );
    assert_eq!(counted["data"]["lines"][0]["variance"], json!(-0.5));
    // A posted bill and invoice at `a`: movements with a document, and a gross margin.
    let bill = id_of(&check(
        "createBill",
        t.post(
            "/api/bills",
            json!({ "contact_id": session_contact(&t, Some(&e), "Supplier"), "status": "paid",
                "location_id": a, "lines": [{ "product_id": p, "quantity": 2 }] }),
        ),
    ));
    check(
        "createInvoice",
        t.post(
            "/api/invoices",
            json!({ "contact_id": session_contact(&t, Some(&e), "Customer"), "status": "sent",
                "location_id": a, "lines": [{ "product_id": p, "quantity": 1 }] }),
        ),
    );

    // A webhook with a queued test event: its log is one of the reads below.
    let hook = id_of(&check(
        "createWebhook",
        t.post(
            "/api/webhooks",
            json!({ "url": "https://hooks.example.com/in", "events": ["*"] }),
        ),
    ));
    check(
        "testWebhook",
        t.post("/api/webhooks/test", json!({ "id": hook })),
    );

    // Every documented read, with every documented parameter, answers as documented; the
    // inventory ones have something to show.
    let take_id = id_of(&take);
    let value_of = |path: &str, param: &str| -> String {
        match param {
            // One document of the list, without its lines.
            "id" if path == "/api/transfer-orders" => order.clone(),
            "id" if path == "/api/stock-takes" => take_id.clone(),
            // Any other list: a record that is not there answers an empty list.
            "id" => uuid::Uuid::new_v4().to_string(),
            "lines" => "false".into(),
            "entityId" => e.clone(),
            "productId" => p.clone(),
            "ids" => p.clone(),
            "locationId" => a.clone(),
            "type" => "purchase".into(),
            "dateFrom" => "2000-01-01".into(),
            "dateTo" => "2999-12-31".into(),
            "q" => "bolt".into(),
            "category" => "fasteners".into(),
            "active" => "true".into(),
            "limit" => "50".into(),
            "offset" => "0".into(),
            "documentId" => bill.clone(),
            "format" => "json".into(),
            "asOf" => t.clock.today().to_string(),
            "webhookId" => hook.clone(),
            "recordId" | "userId" => uuid::Uuid::new_v4().to_string(),
            other => panic!("a documented parameter this test does not know: {other}"),
        }
    };
    let inventory_tags = [
        "Products",
        "Warehouse locations",
        "Warehouse stock",
        "Stock movements",
        "Transfer orders",
        "Stock takes",
        "Reports",
    ];
    let mut reads = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(op) = item.get("get") else { continue };
        if path.starts_with("/api/v1/") || path == "/api/openapi.json" {
            continue;
        }
        // Browser steps with required parameters (the OAuth start and callback) are
        // exercised by tests/import_api.rs.
        let required = op["parameters"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p["required"] == json!(true)));
        if required {
            continue;
        }
        let query: Vec<String> = op["parameters"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        let name = p["name"].as_str().unwrap();
                        format!("{name}={}", value_of(path, name))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let uri = format!("{path}?{}", query.join("&"));
        let (s, v) = t.get(&uri);
        assert_eq!(s, Status::Ok, "{uri}: {v}");
        conforms(&doc, &success_schema(op).1, &v, &uri).unwrap_or_else(|e| panic!("{e}"));
        if inventory_tags.contains(&op["tags"][0].as_str().unwrap()) {
            reads += 1;
            let shown = match &v["data"] {
                Value::Array(rows) => !rows.is_empty(),
                Value::Object(o) => !o.is_empty(),
                _ => false,
            };
            assert!(shown, "{uri} shows nothing: {v}");
        }
    }
    assert_eq!(reads, 12);

    // The valuation without a location: a row at the location and the unallocated one.
    let (_, v) = t.get("/api/reports/stock-valuation");
    answers_as_documented(&doc, "stockValuation", Status::Ok, &v);
    let names: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["location_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Main", "Unallocated"]);
    assert!(v["data"][1]["location_id"].is_null());
}

/// Every operation that takes `format` (`json` or `csv`) documents the `text/csv` answer
/// beside the JSON one, so a client (or Schemathesis) reading the document expects it.
#[test]
fn every_operation_with_a_csv_format_documents_its_csv_answer() {
    let t = app();
    let doc = openapi(&t);
    let mut seen = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let takes_format = op["parameters"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p["name"] == "format"));
            if !takes_format {
                continue;
            }
            seen += 1;
            assert!(
                op["responses"]["200"]["content"]["text/csv"].is_object(),
                "{method} {path} takes format=csv but documents no text/csv answer"
            );
        }
    }
    assert!(
        seen >= 3,
        "the valuation, the movements and the VAT lines take format"
    );
}

/// Issue 30 point 3: no request body schema is an `anyOf`/`oneOf` of partial schemas
/// beside its own properties, the construct that made openapi-generator's `python`
/// client choose one partial schema and drop the other fields (a line's quantity and
/// discount). Conditions between fields are written with `if`/`then`/`else`.
#[test]
fn no_request_schema_mixes_its_properties_with_a_choice_of_partial_schemas() {
    let t = app();
    let (_, doc) = t.get("/api/openapi.json");
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let requests = stockbook::openapi::request_schemas(doc["paths"].as_object().unwrap(), schemas);
    let line = &schemas["LineInput"];
    assert!(line["if"].is_object() && line["else"].is_object(), "{line}");
    for name in requests {
        let s = &schemas[&name];
        if s["properties"].is_object() {
            for k in ["anyOf", "oneOf"] {
                assert!(
                    s.get(k).is_none(),
                    "{name} has properties and a top-level {k}"
                );
            }
        }
    }
}
