//! The accounting records in the OpenAPI document (docs/accounting.md,
//! docs/documents-stock.md).

use serde_json::{json, Value};

use super::contacts::TYPES as CONTACT_TYPES;
use super::currency;
use super::documents::DocKind;
use super::projects::STATUSES as PROJECT_STATUSES;
use super::recurring_invoices::{INTERVALS, STATUSES as RECURRING_STATUSES};
use crate::http::openapi::*;
use crate::vat::TREATMENTS;
use Auth::Session as S;
use Filter::{Entity as ByEntity, RecordId as ById};
use Shape::{Create, Delete, FilteredList, Update};

/// Where the stock an invoice or bill moves is written.
const MOVES_STOCK: &[&str] = &[
    "docs/documents-stock.md#the-one-rule",
    "docs/documents-stock.md#costs",
    "docs/documents-stock.md#imported-documents",
];
/// What refuses a change of an invoice or bill that moves stock.
const STOCK_REFUSED: &str = "Not enough stock at the location for what the change takes out (naming the product, the quantity needed and the quantity available), or a line's product is inactive on a document being posted";

/// The operations of the accounting records (session API).
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    let mut ops = vec![
        op("get", "/api/dashboard/money", "Reports", "dashboardMoney", "The dashboard's money figures, in pounds", S, Shape::Report("MoneySummary", &[ByEntity]))
            .rules(&["docs/accounting.md#the-dashboard"]),
        op("get", "/api/contacts", "Contacts", "listContacts", "List contacts", S, FilteredList("Contact", &[ByEntity, ById])),
        op("post", "/api/contacts", "Contacts", "createContact", "Create a contact", S, Create { body: "ContactCreate", record: "Contact" }),
        op("put", "/api/contacts", "Contacts", "updateContact", "Update a contact", S, Update { body: "ContactUpdate", record: "Contact" }),
        op("delete", "/api/contacts", "Contacts", "deleteContact", "Delete a contact no record uses", S, Delete),
        op("get", "/api/invoices", "Invoices", "listInvoices", "List invoices with lines", S, FilteredList("Invoice", &[ByEntity, ById])),
        op("post", "/api/invoices", "Invoices", "createInvoice", "Create an invoice", S, Create { body: "InvoiceCreate", record: "Invoice" })
            .rules(MOVES_STOCK)
            .refused(STOCK_REFUSED),
        op("put", "/api/invoices", "Invoices", "updateInvoice", "Update an invoice", S, Update { body: "InvoiceUpdate", record: "Invoice" })
            .rules(MOVES_STOCK)
            .refused(STOCK_REFUSED),
        op("delete", "/api/invoices", "Invoices", "deleteInvoice", "Delete an invoice", S, Delete)
            .refused("The invoice is posted and has moved stock: void it first"),
        op("get", "/api/bills", "Bills", "listBills", "List bills with lines", S, FilteredList("Bill", &[ByEntity, ById])),
        op("post", "/api/bills", "Bills", "createBill", "Create a bill", S, Create { body: "BillCreate", record: "Bill" })
            .rules(MOVES_STOCK)
            .refused(STOCK_REFUSED),
        op("put", "/api/bills", "Bills", "updateBill", "Update a bill", S, Update { body: "BillUpdate", record: "Bill" })
            .rules(MOVES_STOCK)
            .refused(STOCK_REFUSED),
        op("delete", "/api/bills", "Bills", "deleteBill", "Delete a bill", S, Delete)
            .refused("The bill is posted and has moved stock: void it first"),
        op("get", "/api/expenses", "Expenses", "listExpenses", "List expenses", S, FilteredList("Expense", &[ByEntity, ById])),
        op("post", "/api/expenses", "Expenses", "createExpense", "Create an expense", S, Create { body: "ExpenseCreate", record: "Expense" }),
        op("put", "/api/expenses", "Expenses", "updateExpense", "Update an expense", S, Update { body: "ExpenseUpdate", record: "Expense" }),
        op("delete", "/api/expenses", "Expenses", "deleteExpense", "Delete an expense", S, Delete),
        op("get", "/api/expense-categories", "Expense categories", "listExpenseCategories", "List expense categories", S, FilteredList("ExpenseCategory", &[ByEntity, ById])),
        op("post", "/api/expense-categories", "Expense categories", "createExpenseCategory", "Create an expense category", S, Create { body: "ExpenseCategoryCreate", record: "ExpenseCategory" }),
        op("put", "/api/expense-categories", "Expense categories", "updateExpenseCategory", "Update an expense category", S, Update { body: "ExpenseCategoryUpdate", record: "ExpenseCategory" }),
        op("delete", "/api/expense-categories", "Expense categories", "deleteExpenseCategory", "Delete an unused expense category", S, Delete),
        op("get", "/api/employees", "Employees", "listEmployees", "List employees", S, FilteredList("Employee", &[ByEntity, ById])),
        op("post", "/api/employees", "Employees", "createEmployee", "Create an employee", S, Create { body: "EmployeeCreate", record: "Employee" }),
        op("put", "/api/employees", "Employees", "updateEmployee", "Update an employee", S, Update { body: "EmployeeUpdate", record: "Employee" }),
        op("delete", "/api/employees", "Employees", "deleteEmployee", "Delete an employee", S, Delete),
        op("get", "/api/transactions", "Transactions", "listTransactions", "List bank transactions", S, FilteredList("Transaction", &[ByEntity, ById])),
        op("post", "/api/transactions", "Transactions", "createTransaction", "Create a bank transaction", S, Create { body: "TransactionCreate", record: "Transaction" }),
        op("put", "/api/transactions", "Transactions", "updateTransaction", "Update a bank transaction", S, Update { body: "TransactionUpdate", record: "Transaction" }),
        op("delete", "/api/transactions", "Transactions", "deleteTransaction", "Delete a bank transaction", S, Delete),
        op("get", "/api/projects", "Projects", "listProjects", "List projects", S, FilteredList("Project", &[ByEntity, ById])),
        op("post", "/api/projects", "Projects", "createProject", "Create a project", S, Create { body: "ProjectCreate", record: "Project" }),
        op("put", "/api/projects", "Projects", "updateProject", "Update a project", S, Update { body: "ProjectUpdate", record: "Project" }),
        op("delete", "/api/projects", "Projects", "deleteProject", "Delete a project without time entries or expenses", S, Delete),
        op("get", "/api/time-entries", "Time entries", "listTimeEntries", "List time entries", S, FilteredList("TimeEntry", &[ByEntity, ById])),
        op("post", "/api/time-entries", "Time entries", "createTimeEntry", "Create a time entry", S, Create { body: "TimeEntryCreate", record: "TimeEntry" }),
        op("put", "/api/time-entries", "Time entries", "updateTimeEntry", "Update a time entry", S, Update { body: "TimeEntryUpdate", record: "TimeEntry" }),
        op("delete", "/api/time-entries", "Time entries", "deleteTimeEntry", "Delete a time entry", S, Delete),
        op("get", "/api/recurring-invoices", "Recurring invoices", "listRecurringInvoices", "List recurring invoice templates", S, FilteredList("RecurringInvoice", &[ByEntity, ById])),
        op("post", "/api/recurring-invoices", "Recurring invoices", "createRecurringInvoice", "Create a recurring invoice template", S, Create { body: "RecurringInvoiceCreate", record: "RecurringInvoice" }),
        op("put", "/api/recurring-invoices", "Recurring invoices", "updateRecurringInvoice", "Update a recurring invoice template", S, Update { body: "RecurringInvoiceUpdate", record: "RecurringInvoice" }),
        op("delete", "/api/recurring-invoices", "Recurring invoices", "deleteRecurringInvoice", "Delete a recurring invoice template", S, Delete),
    ];
    ops.extend(CREDIT_KINDS.iter().flat_map(credit_operations));
    ops.extend(super::documents::openapi::operations());
    ops
}

fn entity_field() -> Value {
    opt_ref("Entity (business). Omitted: a scoped key's entity, else the entity of the record referenced (contact, project, category), else none. A key scoped to another entity gets 403; an unknown or foreign entity 404.")
}

fn line_input() -> Value {
    let mut v = object(
        &[],
        vec![
            ("description", text("Required unless product_id gives the product's name.")),
            ("product_id", opt_ref("")),
            ("quantity", positive(qty("Above 0; default 1."))),
            ("unit_price", price("Required unless product_id gives the product's price (selling price on invoices, cost price on bills); may be negative for a credit line.")),
            ("discount", percent("Percentage off the line, 0 to 100; default 0.")),
            ("vat_rate", percent("Percentage, 0 to 100; default the treatment's rate (standard and reverse_charge 20, reduced 5, others 0), else the product's rate, else 20.")),
            ("vat_treatment", one_of_values(TREATMENTS, "docs/accounting.md#vat-treatment. Default: follows vat_rate (0 zero, 5 reduced, else standard), else the product's, else standard. zero, exempt and outside_scope with a non-zero vat_rate are 400; reverse_charge is 400 on an invoice or recurring template line.")),
            ("capital_goods", json!({ "type": "boolean", "description": "Bought as a capital asset (docs/vat.md#capital-goods): bill and supplier-credit lines only, default false; true on an invoice, credit-note or recurring template line is 400." })),
        ],
    );
    // Without a product, the line needs its own description and price. Said with
    // `if`/`else`, not an `anyOf` of partial schemas: client generators turn such an
    // `anyOf` into a choice between the two partial schemas and drop every other field
    // (openapi-generator's `python` sent a line without its quantity and discount).
    v["if"] = json!({ "required": ["product_id"], "properties": { "product_id": uuid() } });
    v["else"] = json!({
        "required": ["description", "unit_price"],
        "properties": { "description": name_text("") },
    });
    v
}

fn line() -> Value {
    let mut v = record(vec![
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
        ("vat_treatment", one_of_values(TREATMENTS, "")),
        (
            "vat",
            money("round(net × vat_rate/100, 2), half away from zero; 0 on a reverse_charge line."),
        ),
        ("total", money("net + vat.")),
        (
            "reverse_charge_vat",
            money("A reverse_charge line's VAT, round(net × vat_rate/100, 2), which the buyer accounts for: not in vat, total or the document's totals. 0 on other lines."),
        ),
    ]);
    // Present on bill and supplier-credit lines only.
    v["properties"]["capital_goods"] = json!({ "type": "boolean", "description": "Bought as a capital asset (docs/vat.md#capital-goods): on bill and supplier-credit lines only." });
    v
}

/// A priced document of `kind` as answers show it; its `status` carries the kind's
/// statuses and, as `x-posted-statuses`, those in which it moves stock; its `lines`, as
/// `x-reverse-charge`, whether a line may be `reverse_charge` (the web app reads them:
/// static/js/vocab.js).
fn document(kind: DocKind, number: &str) -> Value {
    let statuses = kind.statuses();
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
        ("status", {
            let mut v = one_of_values(statuses, "");
            v["x-posted-statuses"] = json!(kind.posted_statuses());
            v
        }),
        ("notes", nullable(string())),
        ("lines", {
            // Whether a line may be reverse_charge (DocKind::allows_reverse_charge).
            let mut v = array(reference("Line"));
            v["x-reverse-charge"] = json!(kind.allows_reverse_charge());
            v
        }),
        ("subtotal", money("Sum of the lines' net.")),
        ("vat_total", money("Sum of the lines' VAT.")),
        ("total", money("subtotal + vat_total.")),
        (
            "amount_paid",
            money("The sum of the document's payments (GET /api/payments?documentId=...)."),
        ),
        (
            "amount_credited",
            money("Sum of the posted credits linked to this document."),
        ),
        (
            "amount_due",
            money("total − amount_paid − amount_credited; never negative."),
        ),
        currency::code_schema(true),
        currency::rate_schema(true),
        ("provider", nullable(string())),
        ("provider_ref", nullable(string())),
        ("entity_id", nullable(uuid())),
        ("location_id", {
            let mut v = nullable(uuid());
            v["description"] = json!("Where the document takes (invoice) or brings (bill) stock once posted (invoice sent or paid, bill awaiting_payment or paid).");
            v
        }),
        ("cost_of_sales", {
            let mut v = nullable(money(""));
            v["description"] = json!("Invoices posted with a location: Σ −qty × unit_cost of their movements, rounded to 2 places. Null otherwise, and on bills.");
            v
        }),
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
            ("issue_date", opt_date("Default today.")),
            (
                "due_date",
                opt_date("Default issue_date + 30 days; not before issue_date."),
            ),
            ("status", one_of_values(statuses, "Default draft.")),
            ("notes", nullable(string())),
            ("lines", array(reference("LineInput"))),
            (
                "amount_paid",
                non_negative(money("Not negative; default 0. Above 0: recorded as one payment (docs/accounting.md#amount_paid-and-status-paid-on-documents).")),
            ),
            currency::code_schema(false),
            currency::rate_schema(false),
            ("paid_date", opt_date("The date of that payment. Default today; not in the future.")),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
            ("location_id", opt_ref("A location of the document's entity (another entity's: 400). Omitted: the entity's default_location_id.")),
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
            ("amount_paid", non_negative(money("Not negative."))),
            currency::code_schema(false),
            currency::rate_schema(false),
            ("amount_paid", non_negative(money("Not negative; not below the payments' sum (409). Higher: the difference is recorded as one payment."))),
            ("paid_date", opt_date("The date of that payment. Default today; not in the future.")),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("location_id", opt_ref("A location of the document's entity. Moving a posted document moves its stock.")),
        ],
    )
}

/// The accounting records and their bodies.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    let mut all = documented_schemas();
    all.push(("MoneySummary", money_summary_schema()));
    all.extend(CREDIT_KINDS.iter().flat_map(credit_schemas));
    all.extend(super::documents::openapi::schemas());
    all
}

#[rustfmt::skip]
fn documented_schemas() -> Vec<(&'static str, Value)> {
    let inv_number =
        "INV-0001, INV-0002, ... per entity when omitted; unique per entity ignoring case (409).";
    let bill_number =
        "The supplier's number; null when omitted; unique per entity and supplier (409).";
    vec![
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
            ("name", name_text("")),
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
            ("name", name_text("")),
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
        ("Invoice", document(DocKind::Invoice, inv_number)),
        ("InvoiceCreate", document_create(DocKind::Invoice.statuses(), inv_number)),
        ("InvoiceUpdate", document_update(DocKind::Invoice.statuses())),
        ("Bill", document(DocKind::Bill, bill_number)),
        ("BillCreate", document_create(DocKind::Bill.statuses(), bill_number)),
        ("BillUpdate", document_update(DocKind::Bill.statuses())),
        ("Expense", record(vec![
            ("id", uuid()),
            ("date", date()),
            ("description", string()),
            ("amount", money("")),
            ("vat_amount", money("")),
            ("category_id", nullable(uuid())),
            ("project_id", nullable(uuid())),
            currency::code_schema(true),
            currency::rate_schema(true),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
            ("vat_treatment", one_of_values(TREATMENTS, "")),
            ("vat_reclaimable", boolean()),
            ("reverse_charge_vat", money("The VAT a reverse_charge expense accounts for itself, not in amount; 0 otherwise.")),
            ("contact_id", nullable(uuid())),
            ("capital_goods", json!({ "type": "boolean", "description": "Bought as a capital asset (docs/vat.md#capital-goods)." })),
        ])),
        ("ExpenseCreate", object(&["description", "amount"], vec![
            ("date", opt_date("Default today.")),
            ("description", name_text("")),
            ("amount", non_negative(money("Not negative."))),
            ("vat_amount", non_negative(money("Not negative; default 0."))),
            ("category_id", opt_ref("")),
            ("project_id", opt_ref("")),
            currency::code_schema(false),
            currency::rate_schema(false),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
            ("vat_treatment", one_of_values(TREATMENTS, "Default: the category's when it fits vat_amount, else standard with VAT and zero without. zero, exempt, outside_scope and reverse_charge with a non-zero vat_amount are 400.")),
            ("vat_reclaimable", json!({ "type": "boolean", "description": "Default true; false for blocked input tax (business entertainment)." })),
            ("reverse_charge_vat", non_negative(money("reverse_charge expenses only (400 otherwise); default 20 % of amount."))),
            ("contact_id", opt_ref("The supplier: a contact of type supplier or both (400 otherwise).")),
            ("capital_goods", json!({ "type": "boolean", "description": "Bought as a capital asset (docs/vat.md#capital-goods); default false (an update: kept)." })),
        ])),
        ("ExpenseUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("date", date()),
            ("description", name_text("")),
            ("amount", non_negative(money("Not negative."))),
            ("vat_amount", non_negative(money("Not negative."))),
            ("category_id", opt_ref("")),
            ("project_id", opt_ref("")),
            currency::code_schema(false),
            currency::rate_schema(false),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("vat_treatment", one_of_values(TREATMENTS, "Omitted: kept while it fits vat_amount; a new category_id gives the category's default anew.")),
            ("vat_reclaimable", boolean()),
            ("reverse_charge_vat", non_negative(money("reverse_charge expenses only (400 otherwise); default 20 % of amount."))),
            ("contact_id", opt_ref("The supplier: a contact of type supplier or both (400 otherwise).")),
            ("capital_goods", json!({ "type": "boolean", "description": "Bought as a capital asset (docs/vat.md#capital-goods); default false (an update: kept)." })),
        ])),
        ("ExpenseCategory", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("code", nullable(string())),
            ("standard", json!({ "type": "boolean", "description": "Created with the entity." })),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("vat_treatment", nullable(one_of_values(TREATMENTS, "The default treatment of the category's expenses; null: none."))),
            ("updated_at", timestamp()),
        ])),
        ("ExpenseCategoryCreate", object(&["name"], vec![
            ("name", name_text("Unique per entity, ignoring case (409).")),
            ("code", nullable(string())),
            ("entity_id", entity_field()),
            ("vat_treatment", nullable(one_of_values(TREATMENTS, "Default none."))),
        ])),
        ("ExpenseCategoryUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
            ("code", nullable(string())),
            ("vat_treatment", nullable(one_of_values(TREATMENTS, ""))),
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
            ("name", name_text("")),
            ("email", nullable(string())),
            ("role", nullable(string())),
            ("active", json!({ "type": "boolean", "description": "Default true." })),
            ("entity_id", entity_field()),
        ])),
        ("EmployeeUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
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
            ("date", opt_date("Default today.")),
            ("description", string()),
            ("amount", money("Signed.")),
            ("account", nullable(string())),
            ("reference", nullable(string())),
            ("category_id", opt_ref("")),
            ("entity_id", entity_field()),
        ])),
        ("TransactionUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("date", date()),
            ("description", string()),
            ("amount", money("Signed.")),
            ("account", nullable(string())),
            ("reference", nullable(string())),
            ("category_id", opt_ref("")),
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
            ("name", name_text("")),
            ("contact_id", opt_ref("")),
            ("status", one_of_values(PROJECT_STATUSES, "Default active.")),
            ("hourly_rate", non_negative(nullable(money("Not negative.")))),
            ("budget", non_negative(nullable(money("Not negative.")))),
            ("entity_id", entity_field()),
        ])),
        ("ProjectUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
            ("contact_id", opt_ref("")),
            ("status", one_of_values(PROJECT_STATUSES, "")),
            ("hourly_rate", non_negative(nullable(money("Not negative.")))),
            ("budget", non_negative(nullable(money("Not negative.")))),
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
            ("date", opt_date("Default today.")),
            ("hours", positive(money("Above 0."))),
            ("description", nullable(string())),
            ("billable", json!({ "type": "boolean", "description": "Default true." })),
            ("hourly_rate", non_negative(nullable(money("Not negative.")))),
            ("entity_id", entity_field()),
        ])),
        ("TimeEntryUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("project_id", uuid()),
            ("date", date()),
            ("hours", positive(money("Above 0."))),
            ("description", nullable(string())),
            ("billable", boolean()),
            ("hourly_rate", non_negative(nullable(money("Not negative.")))),
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
            ("interval_count", json!({ "type": "integer", "minimum": 1, "maximum": i64::MAX, "description": "Default 1." })),
            ("next_date", opt_date("Default today.")),
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
            ("interval_count", json!({ "type": "integer", "minimum": 1, "maximum": i64::MAX })),
            ("next_date", date()),
            ("status", one_of_values(RECURRING_STATUSES, "")),
            ("lines", array(reference("LineInput"))),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
        ])),
    ]
}

/// What the OpenAPI document calls a kind of credit; everything else about it comes from
/// its [`DocKind`] facts (docs/accounting.md#credit-notes-and-supplier-credits).
struct CreditNames {
    kind: DocKind,
    path: &'static str,
    tag: &'static str,
    record: &'static str,
    create: &'static str,
    update: &'static str,
    /// list, create, update, delete
    ids: [&'static str; 4],
    summaries: [&'static str; 4],
    number: &'static str,
}

const CREDIT_KINDS: [CreditNames; 2] = [
    CreditNames {
        kind: DocKind::CreditNote,
        path: "/api/credit-notes",
        tag: "Credit notes",
        record: "CreditNote",
        create: "CreditNoteCreate",
        update: "CreditNoteUpdate",
        ids: [
            "listCreditNotes",
            "createCreditNote",
            "updateCreditNote",
            "deleteCreditNote",
        ],
        summaries: [
            "List credit notes with lines",
            "Create a credit note",
            "Update a credit note",
            "Delete a credit note",
        ],
        number:
            "CN-0001, CN-0002, ... per entity when omitted; unique per entity ignoring case (409).",
    },
    CreditNames {
        kind: DocKind::SupplierCredit,
        path: "/api/supplier-credits",
        tag: "Supplier credits",
        record: "SupplierCredit",
        create: "SupplierCreditCreate",
        update: "SupplierCreditUpdate",
        ids: [
            "listSupplierCredits",
            "createSupplierCredit",
            "updateSupplierCredit",
            "deleteSupplierCredit",
        ],
        summaries: [
            "List supplier credits with lines",
            "Create a supplier credit",
            "Update a supplier credit",
            "Delete a supplier credit",
        ],
        number: "The supplier's number; null when omitted; unique per entity and supplier (409).",
    },
];

/// Where a credit's rules are written.
const CREDIT_RULES: &[&str] = &[
    "docs/accounting.md#credit-notes-and-supplier-credits",
    "docs/documents-stock.md#the-one-rule",
    "docs/documents-stock.md#costs",
];

/// The four session operations of a kind of credit.
fn credit_operations(n: &CreditNames) -> Vec<Operation> {
    let [list, create, update, delete] = n.ids;
    let [list_s, create_s, update_s, delete_s] = n.summaries;
    let refused = "The credited document is not posted, the credit goes beyond what it has due, or not enough stock / an inactive product as on invoices and bills";
    vec![
        op("get", n.path, n.tag, list, list_s, S, FilteredList(n.record, &[ByEntity, ById])),
        op("post", n.path, n.tag, create, create_s, S, Create { body: n.create, record: n.record })
            .rules(CREDIT_RULES)
            .refused(refused),
        op("put", n.path, n.tag, update, update_s, S, Update { body: n.update, record: n.record })
            .rules(CREDIT_RULES)
            .refused(refused),
        op("delete", n.path, n.tag, delete, delete_s, S, Delete)
            .rules(CREDIT_RULES)
            .refused("The credit is posted against a document, or posted and has moved stock: void it first"),
    ]
}

/// The record, create and update schemas of a kind of credit: a document's, with the
/// link to the credited document.
fn credit_schemas(n: &CreditNames) -> Vec<(&'static str, Value)> {
    let Some((original, field)) = n.kind.credits() else {
        return Vec::new();
    };
    let what = format!(
        "The {} credited: {} of the caller of the same entity and contact (400), posted (409).",
        original.label().to_lowercase(),
        original.a_noun()
    );
    let mut rec = document(n.kind, n.number);
    rec["properties"][field] = {
        let mut v = nullable(uuid());
        v["description"] = json!(format!("{what} Null when unlinked."));
        v
    };
    if let Some(r) = rec["required"].as_array_mut() {
        r.push(json!(field));
    }
    rec["properties"]["amount_credited"] = money("The part of this credit applied to the document it credits: its total while posted and linked, else 0.");
    rec["properties"]["amount_due"] =
        money("total − amount_paid (refunds) − amount_credited: what is left to refund.");
    let mut create = document_create(n.kind.statuses(), n.number);
    create["properties"][field] = opt_ref(&what);
    let mut update = document_update(n.kind.statuses());
    update["properties"][field] = opt_ref(&format!("{what} Unlinks when"));
    vec![(n.record, rec), (n.create, create), (n.update, update)]
}

/// `GET /api/dashboard/money` (docs/accounting.md#the-dashboard).
#[rustfmt::skip]
fn money_summary_schema() -> Value {
    let count = |d: &str| json!({ "type": "integer", "description": d });
    record(vec![
        ("documents", json!({ "type": "boolean", "description": "Whether the business has any invoice or bill, in any status." })),
        ("sales_this_month", figure(2, "The net (subtotal) of invoices sent or paid issued in the current calendar month, in pounds.")),
        ("sales_count", count("The invoices sales_this_month sums.")),
        ("owed", figure(2, "The amount_due of invoices sent, in pounds.")),
        ("owed_count", count("The invoices owed sums.")),
        ("overdue", figure(2, "The part of owed on invoices whose due date is before today.")),
        ("overdue_count", count("The invoices overdue sums.")),
        ("bills_due", figure(2, "The amount_due of bills awaiting payment, in pounds.")),
        ("bills_count", count("The bills bills_due sums.")),
        ("bills_overdue", figure(2, "The part of bills_due on bills whose due date is before today.")),
    ])
}
