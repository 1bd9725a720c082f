//! The OpenAPI 3.1 document of both surfaces, served at `GET /api/openapi.json`.
//!
//! It is hand-written data: [`OPERATIONS`] has one entry per mounted route (method,
//! path, shape of request and answer) and [`schemas`] one entry per record or body
//! schema. Adding a route is one entry in [`OPERATIONS`] (plus its schemas when new);
//! `tests/v1.rs` compares [`OPERATIONS`] with the mounted routes in both directions, so
//! the document cannot drift from the server.
//!
//! Decimals are JSON numbers (`type: number` with `multipleOf` for their places), never
//! strings. Every operation lists its error answers with the §7 body.

use rocket::serde::json::Json;
use rocket::{get, routes, Route};
use serde_json::{json, Map, Value};

pub fn routes() -> Vec<Route> {
    routes![serve]
}

/// `GET /api/openapi.json`: no session needed.
#[get("/openapi.json")]
fn serve() -> Json<Value> {
    Json(build())
}

/// Who may call an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    None,
    Session,
    ApiKey,
}

/// The request and answer of an operation. Schema names refer to [`schemas`].
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// Session list: `entityId`, `limit`, `offset` → `{data: [schema]}`.
    List(&'static str),
    /// Session list without an entity filter: `limit`, `offset` → `{data: [schema]}`.
    PlainList(&'static str),
    /// Public list: `entityId`, `limit` (default 50, at most 200), `offset` →
    /// `{data: [schema], limit, offset}`.
    V1List(&'static str),
    /// JSON body → 201 `{data: record}`.
    Create {
        body: &'static str,
        record: &'static str,
    },
    /// JSON body → 200 `{data: record}`.
    Action {
        body: &'static str,
        record: &'static str,
    },
    /// JSON body with `id` → 200 `{data: record}` (the whole record).
    Update {
        body: &'static str,
        record: &'static str,
    },
    /// `{id}` → 200 `{data: {success: true}}`.
    Delete,
    /// No body → 200 `{data: record}`.
    Get(&'static str),
    /// No body → 200 with the schema itself (no envelope).
    Bare(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub struct Operation {
    pub method: &'static str,
    pub path: &'static str,
    pub tag: &'static str,
    pub id: &'static str,
    pub summary: &'static str,
    pub auth: Auth,
    pub shape: Shape,
}

const fn op(
    method: &'static str,
    path: &'static str,
    tag: &'static str,
    id: &'static str,
    summary: &'static str,
    auth: Auth,
    shape: Shape,
) -> Operation {
    Operation {
        method,
        path,
        tag,
        id,
        summary,
        auth,
        shape,
    }
}

use Auth::{ApiKey as K, None as Open, Session as S};
use Shape::{Action, Bare, Create, Delete, Get, List, PlainList, Update, V1List};

/// Every route of the service. One entry per mounted route.
#[rustfmt::skip]
pub const OPERATIONS: &[Operation] = &[
    // Service
    op("get", "/api/health", "Service", "health", "Service status", Open, Get("Health")),
    op("get", "/api/openapi.json", "Service", "openapi", "This document", Open, Bare("OpenApiDocument")),
    // Sign-in
    op("post", "/api/auth/signup", "Sign-in", "signup", "Create an account and sign in", Open, Create { body: "SignupBody", record: "User" }),
    op("post", "/api/auth/login", "Sign-in", "login", "Sign in (sets the session cookie)", Open, Action { body: "LoginBody", record: "User" }),
    op("post", "/api/auth/logout", "Sign-in", "logout", "Sign out", S, Action { body: "EmptyBody", record: "Success" }),
    op("get", "/api/auth/me", "Sign-in", "me", "The signed-in user", S, Get("User")),
    // Entities
    op("get", "/api/entities", "Entities", "listEntities", "List entities", S, PlainList("Entity")),
    op("post", "/api/entities", "Entities", "createEntity", "Create an entity (with the standard expense categories)", S, Create { body: "EntityCreate", record: "Entity" }),
    op("put", "/api/entities", "Entities", "updateEntity", "Update an entity", S, Update { body: "EntityUpdate", record: "Entity" }),
    op("delete", "/api/entities", "Entities", "deleteEntity", "Delete an entity without records", S, Delete),
    // Accounting records (session)
    op("get", "/api/contacts", "Contacts", "listContacts", "List contacts", S, List("Contact")),
    op("post", "/api/contacts", "Contacts", "createContact", "Create a contact", S, Create { body: "ContactCreate", record: "Contact" }),
    op("put", "/api/contacts", "Contacts", "updateContact", "Update a contact", S, Update { body: "ContactUpdate", record: "Contact" }),
    op("delete", "/api/contacts", "Contacts", "deleteContact", "Delete a contact no record uses", S, Delete),
    op("get", "/api/invoices", "Invoices", "listInvoices", "List invoices with lines", S, List("Invoice")),
    op("post", "/api/invoices", "Invoices", "createInvoice", "Create an invoice", S, Create { body: "InvoiceCreate", record: "Invoice" }),
    op("put", "/api/invoices", "Invoices", "updateInvoice", "Update an invoice", S, Update { body: "InvoiceUpdate", record: "Invoice" }),
    op("delete", "/api/invoices", "Invoices", "deleteInvoice", "Delete an invoice", S, Delete),
    op("get", "/api/bills", "Bills", "listBills", "List bills with lines", S, List("Bill")),
    op("post", "/api/bills", "Bills", "createBill", "Create a bill", S, Create { body: "BillCreate", record: "Bill" }),
    op("put", "/api/bills", "Bills", "updateBill", "Update a bill", S, Update { body: "BillUpdate", record: "Bill" }),
    op("delete", "/api/bills", "Bills", "deleteBill", "Delete a bill", S, Delete),
    op("get", "/api/expenses", "Expenses", "listExpenses", "List expenses", S, List("Expense")),
    op("post", "/api/expenses", "Expenses", "createExpense", "Create an expense", S, Create { body: "ExpenseCreate", record: "Expense" }),
    op("put", "/api/expenses", "Expenses", "updateExpense", "Update an expense", S, Update { body: "ExpenseUpdate", record: "Expense" }),
    op("delete", "/api/expenses", "Expenses", "deleteExpense", "Delete an expense", S, Delete),
    op("get", "/api/expense-categories", "Expense categories", "listExpenseCategories", "List expense categories", S, List("ExpenseCategory")),
    op("post", "/api/expense-categories", "Expense categories", "createExpenseCategory", "Create an expense category", S, Create { body: "ExpenseCategoryCreate", record: "ExpenseCategory" }),
    op("put", "/api/expense-categories", "Expense categories", "updateExpenseCategory", "Update an expense category", S, Update { body: "ExpenseCategoryUpdate", record: "ExpenseCategory" }),
    op("delete", "/api/expense-categories", "Expense categories", "deleteExpenseCategory", "Delete an unused expense category", S, Delete),
    op("get", "/api/employees", "Employees", "listEmployees", "List employees", S, List("Employee")),
    op("post", "/api/employees", "Employees", "createEmployee", "Create an employee", S, Create { body: "EmployeeCreate", record: "Employee" }),
    op("put", "/api/employees", "Employees", "updateEmployee", "Update an employee", S, Update { body: "EmployeeUpdate", record: "Employee" }),
    op("delete", "/api/employees", "Employees", "deleteEmployee", "Delete an employee", S, Delete),
    op("get", "/api/transactions", "Transactions", "listTransactions", "List bank transactions", S, List("Transaction")),
    op("post", "/api/transactions", "Transactions", "createTransaction", "Create a bank transaction", S, Create { body: "TransactionCreate", record: "Transaction" }),
    op("put", "/api/transactions", "Transactions", "updateTransaction", "Update a bank transaction", S, Update { body: "TransactionUpdate", record: "Transaction" }),
    op("delete", "/api/transactions", "Transactions", "deleteTransaction", "Delete a bank transaction", S, Delete),
    op("get", "/api/projects", "Projects", "listProjects", "List projects", S, List("Project")),
    op("post", "/api/projects", "Projects", "createProject", "Create a project", S, Create { body: "ProjectCreate", record: "Project" }),
    op("put", "/api/projects", "Projects", "updateProject", "Update a project", S, Update { body: "ProjectUpdate", record: "Project" }),
    op("delete", "/api/projects", "Projects", "deleteProject", "Delete a project without time entries or expenses", S, Delete),
    op("get", "/api/time-entries", "Time entries", "listTimeEntries", "List time entries", S, List("TimeEntry")),
    op("post", "/api/time-entries", "Time entries", "createTimeEntry", "Create a time entry", S, Create { body: "TimeEntryCreate", record: "TimeEntry" }),
    op("put", "/api/time-entries", "Time entries", "updateTimeEntry", "Update a time entry", S, Update { body: "TimeEntryUpdate", record: "TimeEntry" }),
    op("delete", "/api/time-entries", "Time entries", "deleteTimeEntry", "Delete a time entry", S, Delete),
    op("get", "/api/recurring-invoices", "Recurring invoices", "listRecurringInvoices", "List recurring invoice templates", S, List("RecurringInvoice")),
    op("post", "/api/recurring-invoices", "Recurring invoices", "createRecurringInvoice", "Create a recurring invoice template", S, Create { body: "RecurringInvoiceCreate", record: "RecurringInvoice" }),
    op("put", "/api/recurring-invoices", "Recurring invoices", "updateRecurringInvoice", "Update a recurring invoice template", S, Update { body: "RecurringInvoiceUpdate", record: "RecurringInvoice" }),
    op("delete", "/api/recurring-invoices", "Recurring invoices", "deleteRecurringInvoice", "Delete a recurring invoice template", S, Delete),
    // API keys (session only)
    op("get", "/api/api-keys", "API keys", "listApiKeys", "List API keys (never the key itself)", S, PlainList("ApiKey")),
    op("post", "/api/api-keys", "API keys", "createApiKey", "Create an API key; raw_key is shown this once", S, Create { body: "ApiKeyCreate", record: "ApiKeyCreated" }),
    op("delete", "/api/api-keys", "API keys", "revokeApiKey", "Revoke an API key", S, Delete),
    // Public API v1
    op("get", "/api/v1/transactions", "Public API", "v1ListTransactions", "List bank transactions", K, V1List("Transaction")),
    op("get", "/api/v1/invoices", "Public API", "v1ListInvoices", "List invoices with line items", K, V1List("Invoice")),
    op("post", "/api/v1/invoices", "Public API", "v1CreateInvoice", "Create an invoice", K, Create { body: "InvoiceCreate", record: "Invoice" }),
    op("get", "/api/v1/bills", "Public API", "v1ListBills", "List bills with line items", K, V1List("Bill")),
    op("post", "/api/v1/bills", "Public API", "v1CreateBill", "Create a bill", K, Create { body: "BillCreate", record: "Bill" }),
    op("get", "/api/v1/contacts", "Public API", "v1ListContacts", "List contacts", K, V1List("Contact")),
    op("post", "/api/v1/contacts", "Public API", "v1CreateContact", "Create a contact", K, Create { body: "ContactCreate", record: "Contact" }),
    op("get", "/api/v1/products", "Public API", "v1ListProducts", "List products with stock levels", K, V1List("Product")),
    op("post", "/api/v1/products", "Public API", "v1CreateProduct", "Create a product", K, Create { body: "ProductCreate", record: "Product" }),
    op("get", "/api/v1/employees", "Public API", "v1ListEmployees", "List employees", K, V1List("Employee")),
    op("get", "/api/v1/categories", "Public API", "v1ListCategories", "List expense categories", K, V1List("ExpenseCategory")),
];

// ---------------------------------------------------------------------------------
// Schema building blocks

fn string() -> Value {
    json!({ "type": "string" })
}

fn text(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

fn uuid() -> Value {
    json!({ "type": "string", "format": "uuid" })
}

fn date() -> Value {
    json!({ "type": "string", "format": "date", "description": "YYYY-MM-DD" })
}

fn timestamp() -> Value {
    json!({ "type": "string", "format": "date-time", "description": "RFC 3339, UTC" })
}

fn boolean() -> Value {
    json!({ "type": "boolean" })
}

fn integer() -> Value {
    json!({ "type": "integer" })
}

/// A decimal: a JSON number with at most `places` decimal places (more is a 400, not a
/// rounding) and a magnitude of at most 10^12.
fn decimal(places: u32, description: &str) -> Value {
    let step = format!("0.{}1", "0".repeat(places as usize - 1));
    json!({
        "type": "number",
        "multipleOf": serde_json::from_str::<Value>(&step).unwrap_or(json!(0.01)),
        "maximum": 1_000_000_000_000_i64,
        "minimum": -1_000_000_000_000_i64,
        "description": format!("{description} Exact decimal with up to {places} decimal places, sent and received as a JSON number."),
    })
}

fn money(description: &str) -> Value {
    decimal(2, description)
}

fn price(description: &str) -> Value {
    decimal(4, description)
}

fn qty(description: &str) -> Value {
    decimal(3, description)
}

fn percent(description: &str) -> Value {
    let mut v = decimal(2, description);
    v["minimum"] = json!(0);
    v["maximum"] = json!(100);
    v
}

fn one_of_values(values: &[&str], description: &str) -> Value {
    json!({ "type": "string", "enum": values, "description": description })
}

/// `schema` or null (OpenAPI 3.1 type arrays).
fn nullable(schema: Value) -> Value {
    let mut s = schema;
    if let Some(t) = s.get("type").cloned() {
        if let Some(t) = t.as_str() {
            s["type"] = json!([t, "null"]);
            if let Some(e) = s.get("enum").cloned() {
                let mut e = e.as_array().cloned().unwrap_or_default();
                e.push(Value::Null);
                s["enum"] = Value::Array(e);
            }
            return s;
        }
    }
    json!({ "oneOf": [s, { "type": "null" }] })
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

fn object(required: &[&str], props: Vec<(&str, Value)>) -> Value {
    let mut p = Map::new();
    for (k, v) in props {
        p.insert(k.to_owned(), v);
    }
    json!({ "type": "object", "required": required, "properties": p })
}

/// A record: every listed property is always present (nullable ones may be null).
fn record(props: Vec<(&str, Value)>) -> Value {
    let names: Vec<String> = props.iter().map(|(k, _)| (*k).to_owned()).collect();
    let mut v = object(&[], props);
    v["required"] = json!(names);
    v
}

fn entity_field() -> Value {
    let mut v = nullable(uuid());
    v["description"] = json!("Entity (business). Omitted: a scoped key's entity, else the entity of the record referenced (contact, project, category), else none. A key scoped to another entity gets 403; an unknown or foreign entity 404.");
    v
}

fn line_input() -> Value {
    object(
        &[],
        vec![
            ("description", text("Required unless product_id gives the product's name.")),
            ("product_id", nullable(uuid())),
            ("quantity", qty("Above 0; default 1.")),
            ("unit_price", price("Required unless product_id gives the product's price (selling price on invoices, cost price on bills); may be negative for a credit line.")),
            ("discount", percent("Percentage off the line, 0 to 100; default 0.")),
            ("vat_rate", percent("Percentage, 0 to 100; default the product's rate, else 20.")),
        ],
    )
}

fn line() -> Value {
    record(vec![
        ("id", uuid()),
        ("description", string()),
        ("product_id", nullable(uuid())),
        ("quantity", qty("")),
        ("unit_price", price("")),
        ("discount", percent("")),
        ("vat_rate", percent("")),
        (
            "net",
            money("round(quantity × unit_price × (1 − discount/100), 2), half away from zero."),
        ),
        (
            "vat",
            money("round(net × vat_rate/100, 2), half away from zero."),
        ),
        ("total", money("net + vat.")),
    ])
}

fn document(statuses: &[&str], number: &str) -> Value {
    record(vec![
        ("id", uuid()),
        ("number", {
            let mut v = nullable(string());
            v["description"] = json!(number);
            v
        }),
        ("contact_id", uuid()),
        ("contact_name", string()),
        ("issue_date", date()),
        ("due_date", date()),
        ("status", one_of_values(statuses, "")),
        ("notes", nullable(string())),
        ("lines", array(reference("Line"))),
        ("subtotal", money("Sum of the lines' net.")),
        ("vat_total", money("Sum of the lines' VAT.")),
        ("total", money("subtotal + vat_total.")),
        ("amount_paid", money("")),
        ("provider", nullable(string())),
        ("provider_ref", nullable(string())),
        ("entity_id", nullable(uuid())),
        ("created_at", timestamp()),
        ("updated_at", timestamp()),
    ])
}

fn document_create(statuses: &[&str], number: &str) -> Value {
    object(
        &["contact_id"],
        vec![
            ("number", text(number)),
            ("contact_id", uuid()),
            ("issue_date", date()),
            ("due_date", {
                let mut v = date();
                v["description"] = json!("Default issue_date + 30 days; not before issue_date.");
                v
            }),
            ("status", one_of_values(statuses, "Default draft.")),
            ("notes", nullable(string())),
            ("lines", array(reference("LineInput"))),
            ("amount_paid", money("Not negative; default 0.")),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
        ],
    )
}

fn document_update(statuses: &[&str]) -> Value {
    object(
        &["id"],
        vec![
            ("id", uuid()),
            ("number", nullable(string())),
            ("contact_id", uuid()),
            ("issue_date", date()),
            ("due_date", date()),
            ("status", one_of_values(statuses, "")),
            ("notes", nullable(string())),
            ("lines", {
                let mut v = array(reference("LineInput"));
                v["description"] = json!("When present, replaces every line.");
                v
            }),
            ("amount_paid", money("")),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
        ],
    )
}

/// Every schema the operations name.
pub fn schemas() -> Map<String, Value> {
    use crate::accounting::contacts::TYPES as CONTACT_TYPES;
    use crate::accounting::documents::{BILL_STATUSES, INVOICE_STATUSES};
    use crate::accounting::projects::STATUSES as PROJECT_STATUSES;
    use crate::accounting::recurring_invoices::{INTERVALS, STATUSES as RECURRING_STATUSES};

    let inv_number =
        "INV-0001, INV-0002, ... per entity when omitted; unique per entity ignoring case (409).";
    let bill_number =
        "The supplier's number; null when omitted; unique per entity and supplier (409).";
    let entries: Vec<(&str, Value)> = vec![
        ("Error", object(
            &["statusCode", "statusMessage", "message"],
            vec![
                ("statusCode", integer()),
                ("statusMessage", text("HTTP reason phrase")),
                ("message", text("The cause, naming the field or rule")),
            ],
        )),
        ("Success", object(&["success"], vec![("success", json!({ "type": "boolean", "const": true }))])),
        ("IdBody", object(&["id"], vec![("id", uuid())])),
        ("EmptyBody", json!({ "type": "object" })),
        ("OpenApiDocument", json!({ "type": "object", "description": "This OpenAPI 3.1 document." })),
        ("Health", object(&["status", "version"], vec![("status", string()), ("version", string())])),
        ("SignupBody", object(&["email", "password"], vec![
            ("email", json!({ "type": "string", "format": "email" })),
            ("password", json!({ "type": "string", "minLength": 8 })),
            ("name", nullable(string())),
        ])),
        ("LoginBody", object(&["email", "password"], vec![("email", string()), ("password", string())])),
        ("User", object(&["id", "email"], vec![
            ("id", uuid()),
            ("email", string()),
            ("name", nullable(string())),
            ("created_at", timestamp()),
        ])),
        ("Entity", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("vat_number", nullable(string())),
            ("address", nullable(string())),
            ("currency", json!({ "type": "string", "const": "GBP" })),
            ("created_at", timestamp()),
        ])),
        ("EntityCreate", object(&["name"], vec![
            ("name", string()),
            ("vat_number", nullable(string())),
            ("address", nullable(string())),
        ])),
        ("EntityUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", string()),
            ("vat_number", nullable(string())),
            ("address", nullable(string())),
        ])),
        ("Contact", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("type", one_of_values(CONTACT_TYPES, "")),
            ("email", nullable(string())),
            ("phone", nullable(string())),
            ("address", nullable(string())),
            ("vat_number", nullable(string())),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
        ])),
        ("ContactCreate", object(&["name"], vec![
            ("name", string()),
            ("type", one_of_values(CONTACT_TYPES, "Default customer.")),
            ("email", nullable(string())),
            ("phone", nullable(string())),
            ("address", nullable(string())),
            ("vat_number", nullable(string())),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
        ])),
        ("ContactUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", string()),
            ("type", one_of_values(CONTACT_TYPES, "")),
            ("email", nullable(string())),
            ("phone", nullable(string())),
            ("address", nullable(string())),
            ("vat_number", nullable(string())),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
        ])),
        ("LineInput", line_input()),
        ("Line", line()),
        ("Invoice", document(INVOICE_STATUSES, inv_number)),
        ("InvoiceCreate", document_create(INVOICE_STATUSES, inv_number)),
        ("InvoiceUpdate", document_update(INVOICE_STATUSES)),
        ("Bill", document(BILL_STATUSES, bill_number)),
        ("BillCreate", document_create(BILL_STATUSES, bill_number)),
        ("BillUpdate", document_update(BILL_STATUSES)),
        ("Expense", record(vec![
            ("id", uuid()),
            ("date", date()),
            ("description", string()),
            ("amount", money("")),
            ("vat_amount", money("")),
            ("category_id", nullable(uuid())),
            ("project_id", nullable(uuid())),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
        ])),
        ("ExpenseCreate", object(&["description", "amount"], vec![
            ("date", date()),
            ("description", string()),
            ("amount", money("Not negative.")),
            ("vat_amount", money("Not negative; default 0.")),
            ("category_id", nullable(uuid())),
            ("project_id", nullable(uuid())),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
        ])),
        ("ExpenseUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("date", date()),
            ("description", string()),
            ("amount", money("Not negative.")),
            ("vat_amount", money("Not negative.")),
            ("category_id", nullable(uuid())),
            ("project_id", nullable(uuid())),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
        ])),
        ("ExpenseCategory", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("code", nullable(string())),
            ("standard", json!({ "type": "boolean", "description": "Created with the entity." })),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
        ])),
        ("ExpenseCategoryCreate", object(&["name"], vec![
            ("name", text("Unique per entity, ignoring case (409).")),
            ("code", nullable(string())),
            ("entity_id", entity_field()),
        ])),
        ("ExpenseCategoryUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", string()),
            ("code", nullable(string())),
        ])),
        ("Employee", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("email", nullable(string())),
            ("role", nullable(string())),
            ("active", boolean()),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
        ])),
        ("EmployeeCreate", object(&["name"], vec![
            ("name", string()),
            ("email", nullable(string())),
            ("role", nullable(string())),
            ("active", json!({ "type": "boolean", "description": "Default true." })),
            ("entity_id", entity_field()),
        ])),
        ("EmployeeUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", string()),
            ("email", nullable(string())),
            ("role", nullable(string())),
            ("active", boolean()),
        ])),
        ("Transaction", record(vec![
            ("id", uuid()),
            ("date", date()),
            ("description", string()),
            ("amount", money("Signed: money in positive, money out negative.")),
            ("account", nullable(string())),
            ("reference", nullable(string())),
            ("category_id", nullable(uuid())),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
        ])),
        ("TransactionCreate", object(&["amount"], vec![
            ("date", date()),
            ("description", string()),
            ("amount", money("Signed.")),
            ("account", nullable(string())),
            ("reference", nullable(string())),
            ("category_id", nullable(uuid())),
            ("entity_id", entity_field()),
        ])),
        ("TransactionUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("date", date()),
            ("description", string()),
            ("amount", money("Signed.")),
            ("account", nullable(string())),
            ("reference", nullable(string())),
            ("category_id", nullable(uuid())),
        ])),
        ("Project", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("contact_id", nullable(uuid())),
            ("status", one_of_values(PROJECT_STATUSES, "")),
            ("hourly_rate", nullable(money(""))),
            ("budget", nullable(money(""))),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
        ])),
        ("ProjectCreate", object(&["name"], vec![
            ("name", string()),
            ("contact_id", nullable(uuid())),
            ("status", one_of_values(PROJECT_STATUSES, "Default active.")),
            ("hourly_rate", nullable(money("Not negative."))),
            ("budget", nullable(money("Not negative."))),
            ("entity_id", entity_field()),
        ])),
        ("ProjectUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", string()),
            ("contact_id", nullable(uuid())),
            ("status", one_of_values(PROJECT_STATUSES, "")),
            ("hourly_rate", nullable(money("Not negative."))),
            ("budget", nullable(money("Not negative."))),
        ])),
        ("TimeEntry", record(vec![
            ("id", uuid()),
            ("project_id", uuid()),
            ("date", date()),
            ("hours", money("Hours, up to 2 decimal places.")),
            ("description", nullable(string())),
            ("billable", boolean()),
            ("hourly_rate", nullable(money(""))),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
        ])),
        ("TimeEntryCreate", object(&["project_id", "hours"], vec![
            ("project_id", uuid()),
            ("date", date()),
            ("hours", money("Above 0.")),
            ("description", nullable(string())),
            ("billable", json!({ "type": "boolean", "description": "Default true." })),
            ("hourly_rate", nullable(money("Not negative."))),
            ("entity_id", entity_field()),
        ])),
        ("TimeEntryUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("project_id", uuid()),
            ("date", date()),
            ("hours", money("Above 0.")),
            ("description", nullable(string())),
            ("billable", boolean()),
            ("hourly_rate", nullable(money("Not negative."))),
        ])),
        ("RecurringInvoice", record(vec![
            ("id", uuid()),
            ("contact_id", uuid()),
            ("contact_name", string()),
            ("interval", one_of_values(INTERVALS, "")),
            ("interval_count", json!({ "type": "integer", "minimum": 1 })),
            ("next_date", date()),
            ("status", one_of_values(RECURRING_STATUSES, "")),
            ("lines", array(reference("Line"))),
            ("subtotal", money("")),
            ("vat_total", money("")),
            ("total", money("")),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
        ])),
        ("RecurringInvoiceCreate", object(&["contact_id", "interval"], vec![
            ("contact_id", uuid()),
            ("interval", one_of_values(INTERVALS, "")),
            ("interval_count", json!({ "type": "integer", "minimum": 1, "description": "Default 1." })),
            ("next_date", date()),
            ("status", one_of_values(RECURRING_STATUSES, "Default active.")),
            ("lines", array(reference("LineInput"))),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
        ])),
        ("RecurringInvoiceUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("contact_id", uuid()),
            ("interval", one_of_values(INTERVALS, "")),
            ("interval_count", json!({ "type": "integer", "minimum": 1 })),
            ("next_date", date()),
            ("status", one_of_values(RECURRING_STATUSES, "")),
            ("lines", array(reference("LineInput"))),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
        ])),
        ("ApiKey", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("entity_id", nullable(uuid())),
            ("prefix", text("The first 12 characters of the key.")),
            ("created_at", timestamp()),
            ("last_used_at", nullable(timestamp())),
            ("revoked_at", nullable(timestamp())),
        ])),
        ("ApiKeyCreate", object(&["name"], vec![
            ("name", string()),
            ("entity_id", {
                let mut v = nullable(uuid());
                v["description"] = json!("Scopes the key to this entity.");
                v
            }),
        ])),
        ("ApiKeyCreated", {
            let mut v = record(vec![
                ("id", uuid()),
                ("name", string()),
                ("entity_id", nullable(uuid())),
                ("prefix", string()),
                ("created_at", timestamp()),
                ("last_used_at", nullable(timestamp())),
                ("revoked_at", nullable(timestamp())),
                ("raw_key", json!({
                    "type": "string",
                    "pattern": "^sbk_[0-9A-Za-z]{40}$",
                    "description": "The key, shown this once: send it as `Authorization: Bearer <raw_key>` on /api/v1."
                })),
            ]);
            v["description"] = json!("The new key record with its raw key.");
            v
        }),
        ("StockLevel", record(vec![
            ("id", uuid()),
            ("product_id", object(&["id", "name", "sku"], vec![("id", uuid()), ("name", string()), ("sku", string())])),
            ("location_id", object(&["id", "name"], vec![("id", uuid()), ("name", string())])),
            ("quantity", qty("")),
            ("reorder_point", qty("")),
            ("reserved_quantity", qty("")),
            ("entity_id", nullable(uuid())),
        ])),
        ("Product", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("sku", string()),
            ("description", nullable(string())),
            ("category", string()),
            ("unit_price", price("Selling price per unit.")),
            ("cost_price", price("Cost per unit.")),
            ("vat_rate", percent("")),
            ("stock_qty", qty("Aggregate stock across all locations.")),
            ("low_stock_threshold", qty("")),
            ("unit", string()),
            ("notes", nullable(string())),
            ("barcode", nullable(string())),
            ("active", boolean()),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
            ("stock_levels", array(reference("StockLevel"))),
        ])),
        ("ProductCreate", object(&["name"], vec![
            ("name", string()),
            ("sku", text("Unique per entity ignoring case (409); generated SKU-00001, ... when omitted.")),
            ("description", nullable(string())),
            ("category", string()),
            ("unit_price", price("Not negative; default 0.")),
            ("cost_price", price("Not negative; default 0.")),
            ("vat_rate", percent("Default 20.")),
            ("stock_qty", qty("Opening stock, recorded as an unallocated adjustment movement.")),
            ("low_stock_threshold", qty("Not negative; default 5.")),
            ("unit", text("Default pcs.")),
            ("notes", nullable(string())),
            ("barcode", nullable(string())),
            ("active", json!({ "type": "boolean", "description": "Default true." })),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
        ])),
    ];
    entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}

// ---------------------------------------------------------------------------------
// Operations

fn error(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": reference("Error") } }
    })
}

fn rate_headers() -> Value {
    json!({
        "X-RateLimit-Limit": { "$ref": "#/components/headers/X-RateLimit-Limit" },
        "X-RateLimit-Remaining": { "$ref": "#/components/headers/X-RateLimit-Remaining" },
        "X-RateLimit-Reset": { "$ref": "#/components/headers/X-RateLimit-Reset" },
    })
}

fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

fn data_of(schema: Value) -> Value {
    object(&["data"], vec![("data", schema)])
}

fn query_param(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

fn entity_param() -> Value {
    query_param(
        "entityId",
        "Only this entity's records (an unknown or foreign entity is 404; a key scoped elsewhere 403).",
        uuid(),
    )
}

fn operation(o: &Operation) -> Value {
    let mut responses = Map::new();
    let mut parameters: Vec<Value> = Vec::new();
    let mut body: Option<&str> = None;
    let (code, success) = match o.shape {
        List(s) => {
            parameters.push(entity_param());
            parameters.push(query_param(
                "limit",
                "Page size (whole number from 1); no limit when omitted.",
                json!({ "type": "integer", "minimum": 1 }),
            ));
            parameters.push(query_param(
                "offset",
                "Records to skip (default 0).",
                json!({ "type": "integer", "minimum": 0, "default": 0 }),
            ));
            ("200", data_of(array(reference(s))))
        }
        PlainList(s) => {
            parameters.push(query_param(
                "limit",
                "Page size (whole number from 1); no limit when omitted.",
                json!({ "type": "integer", "minimum": 1 }),
            ));
            parameters.push(query_param(
                "offset",
                "Records to skip (default 0).",
                json!({ "type": "integer", "minimum": 0, "default": 0 }),
            ));
            ("200", data_of(array(reference(s))))
        }
        V1List(s) => {
            parameters.push(entity_param());
            parameters.push(query_param("limit", "Page size: default 50; above 200 is served as 200; below 1 or not a whole number is 400.", json!({ "type": "integer", "minimum": 1, "default": 50 })));
            parameters.push(query_param("offset", "Records to skip: default 0; negative is 400. Pages follow creation order, so paging never skips or repeats a record.", json!({ "type": "integer", "minimum": 0, "default": 0 })));
            (
                "200",
                object(
                    &["data", "limit", "offset"],
                    vec![
                        ("data", array(reference(s))),
                        (
                            "limit",
                            json!({ "type": "integer", "description": "The page size served." }),
                        ),
                        ("offset", integer()),
                    ],
                ),
            )
        }
        Create { body: b, record } => {
            body = Some(b);
            ("201", data_of(reference(record)))
        }
        Action { body: b, record } | Update { body: b, record } => {
            body = Some(b);
            ("200", data_of(reference(record)))
        }
        Delete => {
            body = Some("IdBody");
            ("200", data_of(reference("Success")))
        }
        Get(s) => ("200", data_of(reference(s))),
        Bare(s) => ("200", reference(s)),
    };
    let mut ok = json!({
        "description": if code == "201" { "Created" } else { "OK" },
        "content": json_content(success),
    });
    if o.auth == K {
        ok["headers"] = rate_headers();
    }
    responses.insert(code.to_owned(), ok);

    let has_input = body.is_some() || !parameters.is_empty();
    if has_input {
        responses.insert(
            "400".into(),
            error("Malformed JSON, a wrong type, a missing required field (`Missing required field: <field>`), an invalid value or a malformed UUID"),
        );
    }
    if o.auth != Open {
        responses.insert(
            "401".into(),
            error(match o.auth {
                K => "Missing, unknown or revoked API key (a session cookie is not accepted here)",
                _ => "No valid session (an API key is not accepted here)",
            }),
        );
    }
    if o.auth == K {
        responses.insert(
            "403".into(),
            error("The key is scoped to another entity than the one named"),
        );
    }
    if o.auth != Open && has_input {
        responses.insert(
            "404".into(),
            error("Unknown id, or a record of another user"),
        );
    }
    if matches!(
        o.shape,
        Create { .. } | Update { .. } | Delete | Action { .. }
    ) {
        responses.insert(
            "409".into(),
            error("A business rule refused the change (duplicate number or SKU, record in use, insufficient stock)"),
        );
        responses.insert("413".into(), error("Request body too large"));
        responses.insert(
            "415".into(),
            error("The request body is not application/json"),
        );
    }
    if o.auth == K {
        let mut too_many = error(
            "More than 60 requests in a rolling minute for this key and endpoint; not counted",
        );
        let mut headers = rate_headers();
        headers["Retry-After"] = json!({ "$ref": "#/components/headers/Retry-After" });
        too_many["headers"] = headers;
        responses.insert("429".into(), too_many);
    }
    if o.id == "login" {
        responses.insert("401".into(), error("Wrong email or password"));
        responses.insert(
            "429".into(),
            error("Too many failed attempts for this email"),
        );
    }
    if o.id == "signup" {
        responses.insert("403".into(), error("Sign-up is closed"));
        responses.insert("409".into(), error("The email is taken"));
    }
    responses.insert("500".into(), error("Internal error (no details are sent)"));

    let mut v = json!({
        "operationId": o.id,
        "summary": o.summary,
        "tags": [o.tag],
        "security": match o.auth {
            Open => json!([]),
            S => json!([{ "sessionCookie": [] }]),
            K => json!([{ "bearerKey": [] }]),
        },
        "responses": responses,
    });
    if !parameters.is_empty() {
        v["parameters"] = Value::Array(parameters);
    }
    if let Some(b) = body {
        v["requestBody"] = json!({
            "required": true,
            "content": json_content(reference(b)),
        });
    }
    v
}

/// The whole document.
pub fn build() -> Value {
    let mut paths = Map::new();
    for o in OPERATIONS {
        let entry = paths.entry(o.path.to_owned()).or_insert_with(|| json!({}));
        entry[o.method] = operation(o);
    }
    let mut tags: Vec<&str> = Vec::new();
    for o in OPERATIONS {
        if !tags.contains(&o.tag) {
            tags.push(o.tag);
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Stockbook",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Inventory and small-business accounting. The session API (/api) is used by the web app with a session cookie; the public API (/api/v1) takes an API key as `Authorization: Bearer <key>` (create one with POST /api/api-keys). Amounts are in pounds sterling, exact decimals carried as JSON numbers. Every error has the body {statusCode, statusMessage, message}.",
        },
        "servers": [{ "url": "/" }],
        "tags": tags.iter().map(|t| json!({ "name": t })).collect::<Vec<_>>(),
        "paths": paths,
        "components": {
            "schemas": schemas(),
            "securitySchemes": {
                "sessionCookie": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": crate::auth::SESSION_COOKIE,
                    "description": "Set by POST /api/auth/login or /api/auth/signup. Mutating requests must be application/json.",
                },
                "bearerKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key (`sbk_` + 40 characters). A key scoped to an entity sees that entity only; an unscoped key sees every entity of its creator. 60 requests per rolling minute per key and endpoint.",
                },
            },
            "headers": {
                "X-RateLimit-Limit": { "description": "Requests allowed per minute for this key and endpoint (60).", "schema": integer() },
                "X-RateLimit-Remaining": { "description": "Requests left in the current window.", "schema": integer() },
                "X-RateLimit-Reset": { "description": "Whole seconds until the oldest counted request leaves the window.", "schema": integer() },
                "Retry-After": { "description": "Seconds to wait before retrying (at least 1).", "schema": integer() },
            },
        },
    })
}
