//! The OpenAPI 3.1 document of both surfaces, served at `GET /api/openapi.json`.
//!
//! It is hand-written data: [`OPERATIONS`] has one entry per mounted route (method,
//! path, shape of request and answer) and [`schemas`] one entry per record or body
//! schema. Adding a route is one entry in [`OPERATIONS`] (plus its schemas when new),
//! with its rules (`.rules(..)`) and business refusals (`.refused(..)`, the 409 text) when
//! the summary does not say them; `tests/v1.rs` compares [`OPERATIONS`] with the mounted
//! routes in both directions, so the document cannot drift from the server, and checks
//! real answers against the schemas (no undocumented field).
//!
//! Decimals are JSON numbers (`type: number` with `multipleOf` for their places), never
//! strings. Every operation lists its error answers with the error body
//! (docs/conventions.md#errors).

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
    /// Query parameters `(name, required, description)` → 200 `{data: record}`.
    Query {
        params: &'static [(&'static str, bool, &'static str)],
        record: &'static str,
    },
    /// Query parameters `(name, required, description)` → 303 to the web app
    /// (a browser navigation, not a JSON call).
    Redirect(&'static [(&'static str, bool, &'static str)]),
    /// Session list with its own filters: `filters`, `limit`, `offset` →
    /// `{data: [schema]}`.
    FilteredList(&'static str, &'static [Filter]),
    /// A report: `filters` → `{data: schema}`.
    Report(&'static str, &'static [Filter]),
    /// A report of rows, not paged: `filters` → `{data: [schema]}`.
    ReportList(&'static str, &'static [Filter]),
    /// A report with its own envelope: `filters` → the schema itself.
    BareReport(&'static str, &'static [Filter]),
    /// A report with its own envelope that may also be asked for a page at a time:
    /// `filters` → `whole`; with `limit` or `offset` → `page`.
    PagedReport {
        whole: &'static str,
        page: &'static str,
        filters: &'static [Filter],
    },
    /// JSON body → 201 `{data: record}` when it created the record, 200 when it updated
    /// the existing one.
    Upsert {
        body: &'static str,
        record: &'static str,
    },
}

/// A query parameter of a filtered read (besides `limit` and `offset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// `entityId`
    Entity,
    /// `productId`
    Product,
    /// `locationId`
    Location,
    /// `type`: a movement type.
    MovementType,
    /// `dateFrom`, inclusive.
    DateFrom,
    /// `dateTo`, inclusive.
    DateTo,
    /// `q`: text contained in the name, SKU or barcode.
    Search,
    /// `category`
    Category,
    /// `active`
    Active,
    /// `documentId`: the invoice or bill a movement was written for.
    Document,
    /// `format`: `json` (default) or `csv`.
    Format,
    /// `asOf`: a past day.
    AsOf,
    /// `dateFrom` on an invoice's issue date, inclusive.
    IssuedFrom,
    /// `dateTo` on an invoice's issue date, inclusive.
    IssuedTo,
    /// `id`: one record of a list.
    RecordId,
    /// `lines`: `false` lists documents without their lines.
    Lines,
}

/// What an operation documents as its 409 answer.
#[derive(Debug, Clone, Copy)]
pub enum Conflict {
    /// Writes: the generic business-rule refusal; reads: none.
    Default,
    /// The refusals of this operation.
    Because(&'static str),
    /// A write no business rule refuses.
    Never,
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
    /// The rules of the operation, when the summary is not enough.
    pub description: Option<&'static str>,
    pub conflict: Conflict,
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
        description: None,
        conflict: Conflict::Default,
    }
}

impl Operation {
    /// Adds the operation's rules.
    const fn rules(self, description: &'static str) -> Self {
        Self {
            description: Some(description),
            ..self
        }
    }

    /// Names the business rules that refuse it (409).
    const fn refused(self, why: &'static str) -> Self {
        Self {
            conflict: Conflict::Because(why),
            ..self
        }
    }

    /// A write no business rule refuses: no 409.
    const fn never_refused(self) -> Self {
        Self {
            conflict: Conflict::Never,
            ..self
        }
    }
}

use Auth::{ApiKey as K, None as Open, Session as S};
use Filter::{
    Active, AsOf, Category, DateFrom, DateTo, Document as ByDocument, Entity as ByEntity, Format,
    IssuedFrom, IssuedTo, Lines as WithLines, Location as ByLocation, MovementType as ByType,
    Product as ByProduct, RecordId as ById, Search,
};
use Shape::{
    Action, Bare, BareReport, Create, Delete, FilteredList, Get, List, PagedReport, PlainList,
    Query, Redirect, Report, ReportList, Update, Upsert, V1List,
};

const OAUTH_START: &[(&str, bool, &str)] = &[
    ("platform", true, "`freeagent`, the one OAuth platform."),
    ("entityId", true, "The entity the connection is for."),
];
const OAUTH_CALLBACK: &[(&str, bool, &str)] = &[
    ("state", true, "The state of the authorize URL: unknown, used, expired (15 minutes) or another user's is 400."),
    ("code", false, "The authorisation code to exchange."),
    ("error", false, "The provider's refusal (`access_denied`): redirected with `?error=`."),
];

const DELIVERY_QUERY: &[(&str, bool, &str)] = &[
    ("webhookId", false, "Only this webhook's deliveries."),
    ("limit", false, "At most this many (default 100)."),
    ("offset", false, "Skip this many."),
];

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
    op("post", "/api/auth/logout-all", "Sign-in", "logoutAll", "Sign out everywhere: end every session of the user", S, Action { body: "EmptyBody", record: "Success" }),
    op("get", "/api/auth/me", "Sign-in", "me", "The signed-in user", S, Get("User")),
    // Entities
    op("get", "/api/entities", "Entities", "listEntities", "List entities", S, PlainList("Entity")),
    op("post", "/api/entities", "Entities", "createEntity", "Create an entity (with the standard expense categories)", S, Create { body: "EntityCreate", record: "Entity" }),
    op("put", "/api/entities", "Entities", "updateEntity", "Update an entity", S, Update { body: "EntityUpdate", record: "Entity" }),
    op("delete", "/api/entities", "Entities", "deleteEntity", "Delete an entity without records", S, Delete),
    // Inventory (docs/inventory.md, docs/ledger.md, docs/documents.md)
    op("get", "/api/products", "Products", "listProducts", "List products with their stock levels", S, FilteredList("Product", &[ByEntity, Search, Category, Active]))
        .rules("By name, ignoring case. Each product carries its stock rows as `stock_levels`."),
    op("post", "/api/products", "Products", "createProduct", "Create a product", S, Create { body: "ProductCreate", record: "Product" })
        .rules("Only `name` is required. `stock_qty` is opening stock: an `adjustment` movement without location.")
        .refused("The SKU is taken in the entity, ignoring case"),
    op("put", "/api/products", "Products", "updateProduct", "Update a product", S, Update { body: "ProductUpdate", record: "Product" })
        .rules("Changes the fields sent. A new `stock_qty` records an `adjustment` movement without location for the difference. `active: false` deactivates the product: it keeps its stock and movement history, raises no low-stock alerts, is left out of new stock takes and cannot go on transfer order lines.")
        .refused("The SKU is taken in the entity, or `stock_qty` is below the quantity held at locations"),
    op("delete", "/api/products", "Products", "deleteProduct", "Delete a product without history", S, Delete)
        .refused("The product has stock movements or document lines: deactivate it instead"),
    op("get", "/api/warehouse-locations", "Warehouse locations", "listWarehouseLocations", "List warehouse locations", S, List("WarehouseLocation"))
        .rules("By name, ignoring case; inactive locations included."),
    op("post", "/api/warehouse-locations", "Warehouse locations", "createWarehouseLocation", "Create a warehouse location", S, Create { body: "WarehouseLocationCreate", record: "WarehouseLocation" })
        .never_refused(),
    op("put", "/api/warehouse-locations", "Warehouse locations", "updateWarehouseLocation", "Update or (de)activate a warehouse location", S, Update { body: "WarehouseLocationUpdate", record: "WarehouseLocation" })
        .rules("An inactive location takes no new movements, stock quantity changes, transfer orders or stock takes (409); its stock still counts in reports, and transfer orders already in transit and stock takes already under way there still complete or cancel.")
        .never_refused(),
    op("delete", "/api/warehouse-locations", "Warehouse locations", "deleteWarehouseLocation", "Delete an unused warehouse location", S, Delete)
        .refused("Stock rows, movements, transfer orders or stock takes reference the location: deactivate it instead"),
    op("get", "/api/warehouse-stock", "Warehouse stock", "listWarehouseStock", "List stock rows", S, FilteredList("WarehouseStock", &[ByProduct, ByLocation, ByEntity]))
        .rules("One row per product and location, by location name then product name."),
    op("post", "/api/warehouse-stock", "Warehouse stock", "upsertWarehouseStock", "Create or update the stock row of a product at a location", S, Upsert { body: "WarehouseStockUpsert", record: "WarehouseStock" })
        .rules("When the product already has a row at the location it is updated (200), otherwise one is created (201): never a duplicate. A `quantity` records an `adjustment` movement at the location for the difference.")
        .refused("A quantity change at an inactive location, or one that would take the stock below zero"),
    op("put", "/api/warehouse-stock", "Warehouse stock", "updateWarehouseStock", "Update a stock row", S, Update { body: "WarehouseStockUpdate", record: "WarehouseStock" })
        .rules("A `quantity` records an `adjustment` movement at the location for the difference. `reserved_quantity` is what in-transit transfer orders hold plus any reservation set here; the hand-set part is information only.")
        .refused("A quantity change at an inactive location or below zero, or a `reserved_quantity` below what in-transit transfer orders hold"),
    op("get", "/api/stock-movements", "Stock movements", "listStockMovements", "List stock movements (the ledger)", S, FilteredList("StockMovement", &[ByProduct, ByEntity, ByLocation, ByType, DateFrom, DateTo, ByDocument, Format]))
        .rules("Newest first: by date, then by creation. With `format=csv` the same rows come as `text/csv` (columns date, type, product_id, product_sku, product_name, qty, location_id, location_name, unit_cost, reference, notes, document_id, entity_id, id, created_at), streamed; text a spreadsheet would read as a formula is prefixed with `'`."),
    op("post", "/api/stock-movements", "Stock movements", "createStockMovement", "Record a stock movement", S, Create { body: "StockMovementCreate", record: "StockMovement" })
        .rules("With `location_id` the stock row there changes (created when absent) and the product's `stock_qty` with it; without, the product's unallocated stock. `purchase` and `transfer_in` must be positive, `sale` and `transfer_out` negative, and 0 is refused (400). Movements are never changed or deleted.")
        .refused("Insufficient stock (the movement would take the location's stock, or the unallocated stock, below zero), or an inactive location"),
    op("get", "/api/transfer-orders", "Transfer orders", "listTransferOrders", "List transfer orders with lines", S, FilteredList("TransferOrder", &[ByEntity, ById, WithLines]))
        .rules("Newest first."),
    op("post", "/api/transfer-orders", "Transfer orders", "createTransferOrder", "Create a draft transfer order", S, Create { body: "TransferOrderCreate", record: "TransferOrder" })
        .rules("The order gets the entity's next number (TO-001, TO-002, ...). No stock moves until it is shipped.")
        .refused("Source and destination are the same location, there are no lines, or a location is inactive"),
    op("put", "/api/transfer-orders", "Transfer orders", "updateTransferOrder", "Ship, receive or cancel a transfer order; edit a draft", S, Update { body: "TransferOrderUpdate", record: "TransferOrder" })
        .rules("`status` moves the order: draft → in_transit ships it (the source's quantity goes down and its reserved_quantity up, with `transfer_out` movements); in_transit → completed receives it (the destination's quantity goes up, the reservation is released, `transfer_in` movements; `lines: [{id, received_quantity}]` records a short receipt); draft → cancelled changes no stock; in_transit → cancelled gives the units back to the source with `transfer_cancelled` movements. While draft, `lines` (`[{product_id, quantity}]`, replacing every line) and `notes` may change.")
        .refused("A transition not listed (a completed order cannot be cancelled), not enough stock at the source to ship (naming the product, the quantity needed and the quantity available), an inactive location when shipping, or lines or notes changed after draft"),
    op("delete", "/api/transfer-orders", "Transfer orders", "deleteTransferOrder", "Delete a draft transfer order", S, Delete)
        .refused("The order is not a draft"),
    op("get", "/api/stock-takes", "Stock takes", "listStockTakes", "List stock takes with lines", S, FilteredList("StockTake", &[ByEntity, ById, WithLines]))
        .rules("Newest first."),
    op("post", "/api/stock-takes", "Stock takes", "createStockTake", "Start a stock take of a location", S, Create { body: "StockTakeCreate", record: "StockTake" })
        .rules("A draft with the entity's next number (ST-001, ST-002, ...) and one line per stock row of an active product at the location, `system_quantity` being the row's quantity now.")
        .refused("The location is inactive"),
    op("put", "/api/stock-takes", "Stock takes", "updateStockTake", "Enter counts; start, complete or cancel a stock take", S, Update { body: "StockTakeUpdate", record: "StockTake" })
        .rules("`lines: [{id, counted_quantity}]` records counts (null blanks one) while draft or in_progress. `status`: draft → in_progress; in_progress → completed writes, per counted line, a `stock_take` movement of the count minus the quantity at completion, so the row then holds the count (uncounted lines change nothing); draft or in_progress → cancelled changes no stock. Counts, notes and the transition apply together or not at all.")
        .refused("A transition not listed (completing needs in_progress; a completed stock take cannot be cancelled), or counts or notes after counting ended"),
    op("delete", "/api/stock-takes", "Stock takes", "deleteStockTake", "Delete a draft or cancelled stock take", S, Delete)
        .refused("The stock take is neither draft nor cancelled"),
    op("get", "/api/reports/stock-valuation", "Reports", "stockValuation", "Stock valuation report", S, PagedReport { whole: "StockValuation", page: "StockValuationPage", filters: &[ByEntity, ByLocation, AsOf, Format] })
        .rules("With `asOf`: the same shape as of the end of that day (a future day is 400), without the summary's in-transit figures. One row per stock row with a non-zero quantity and, without `locationId`, one per product with non-zero unallocated stock (`location_id` null, `location_name` Unallocated). Inactive products and locations are included. Row values are rounded half away from zero to 2 places; summary totals are sums of the unrounded values, rounded once. `locationId` restricts rows and summary to that location; one of another entity than `entityId` is 400. Without `limit`, `offset` or `format=csv` the answer is the whole report (`StockValuation`). With `limit` or `offset` it is one page of the same rows in the same order (`StockValuationPage`), with the summary of every row, the totals of every row per location (in row order, unallocated last) and per category (by name, ignoring case), and `total`, the number of rows. With `format=csv` the rows come as `text/csv` (columns product_sku, product_name, category, location, quantity, cost_price, unit_price, total_cost, total_retail, margin_percent; the money and the margin with exactly 2 decimals), streamed, a page of them with `limit` or `offset`; text a spreadsheet would read as a formula is prefixed with `'`."),
    op("get", "/api/reports/gross-margin", "Reports", "grossMargin", "Gross margin per product over posted invoices", S, BareReport("GrossMargin", &[ByEntity, IssuedFrom, IssuedTo]))
        .rules("Posted invoices (sent, paid) issued in the range. One row per product with invoice lines, by product name: quantity and sales (line nets) from the lines, cost_of_sales from the invoices' stock movements, gross_margin = sales − cost_of_sales, margin = gross_margin / sales × 100 (0 without sales). Money rounded half away from zero to 2 places, once."),
    op("get", "/api/inventory/summary", "Reports", "inventorySummary", "Dashboard figures", S, Report("InventorySummary", &[ByEntity])),
    op("get", "/api/inventory/alerts", "Reports", "inventoryAlerts", "Low-stock alerts", S, ReportList("InventoryAlert", &[ByEntity, ByLocation]))
        .rules("Active products only. Global alerts (a product's `stock_qty` at or below its `low_stock_threshold`) by product name, then location alerts (a stock row's `quantity` at or below its `reorder_point`) by location and product name. With `locationId`, that location's alerts only; one of another entity than `entityId` is 400."),
    op("get", "/api/inventory/locations", "Reports", "inventoryLocations", "Figures per warehouse location", S, ReportList("LocationFigures", &[ByEntity]))
        .rules("Every location, inactive ones included, by name."),
    // Accounting records (session)
    op("get", "/api/contacts", "Contacts", "listContacts", "List contacts", S, FilteredList("Contact", &[ByEntity, ById])),
    op("post", "/api/contacts", "Contacts", "createContact", "Create a contact", S, Create { body: "ContactCreate", record: "Contact" }),
    op("put", "/api/contacts", "Contacts", "updateContact", "Update a contact", S, Update { body: "ContactUpdate", record: "Contact" }),
    op("delete", "/api/contacts", "Contacts", "deleteContact", "Delete a contact no record uses", S, Delete),
    op("get", "/api/invoices", "Invoices", "listInvoices", "List invoices with lines", S, FilteredList("Invoice", &[ByEntity, ById])),
    op("post", "/api/invoices", "Invoices", "createInvoice", "Create an invoice", S, Create { body: "InvoiceCreate", record: "Invoice" })
        .rules("Posted (sent or paid) with a location, an invoice's product lines are taken out of stock there as `sale` movements (unit_cost: the product's cost price then, the cost of sales); every change of status, lines or location writes the difference (stock back is a `return`), dated today, referencing the document (`document_id`). Imported invoices never move stock.")
        .refused("Not enough stock at the location for what the change takes out (naming the product, the quantity needed and the quantity available), or a line's product is inactive on a document being posted"),
    op("put", "/api/invoices", "Invoices", "updateInvoice", "Update an invoice", S, Update { body: "InvoiceUpdate", record: "Invoice" })
        .rules("Posted (sent or paid) with a location, an invoice's product lines are taken out of stock there as `sale` movements (unit_cost: the product's cost price then, the cost of sales); every change of status, lines or location writes the difference (stock back is a `return`), dated today, referencing the document (`document_id`). Imported invoices never move stock.")
        .refused("Not enough stock at the location for what the change takes out (naming the product, the quantity needed and the quantity available), or a line's product is inactive on a document being posted"),
    op("delete", "/api/invoices", "Invoices", "deleteInvoice", "Delete an invoice", S, Delete)
        .refused("The invoice is posted and has moved stock: void it first"),
    op("get", "/api/bills", "Bills", "listBills", "List bills with lines", S, FilteredList("Bill", &[ByEntity, ById])),
    op("post", "/api/bills", "Bills", "createBill", "Create a bill", S, Create { body: "BillCreate", record: "Bill" })
        .rules("Posted (awaiting_payment or paid) with a location, a bill's product lines are brought into stock there as `purchase` movements whose unit_cost is the line's net over its quantity (4 places), so the weighted average cost follows; every change of status, lines or location writes the difference (stock taken back is a `return`), dated today, referencing the document (`document_id`). Imported bills never move stock.")
        .refused("Not enough stock at the location for what the change takes out (naming the product, the quantity needed and the quantity available), or a line's product is inactive on a document being posted"),
    op("put", "/api/bills", "Bills", "updateBill", "Update a bill", S, Update { body: "BillUpdate", record: "Bill" })
        .rules("Posted (awaiting_payment or paid) with a location, a bill's product lines are brought into stock there as `purchase` movements whose unit_cost is the line's net over its quantity (4 places), so the weighted average cost follows; every change of status, lines or location writes the difference (stock taken back is a `return`), dated today, referencing the document (`document_id`). Imported bills never move stock.")
        .refused("Not enough stock at the location for what the change takes out (naming the product, the quantity needed and the quantity available), or a line's product is inactive on a document being posted"),
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
    // API keys (session only)
    op("get", "/api/api-keys", "API keys", "listApiKeys", "List API keys (never the key itself)", S, PlainList("ApiKey")),
    op("post", "/api/api-keys", "API keys", "createApiKey", "Create an API key; raw_key is shown this once", S, Create { body: "ApiKeyCreate", record: "ApiKeyCreated" }),
    op("delete", "/api/api-keys", "API keys", "revokeApiKey", "Revoke an API key", S, Delete),
    // Webhooks (session only)
    op("get", "/api/webhooks", "Webhooks", "listWebhooks", "List webhooks (never their secrets)", S, PlainList("Webhook")),
    op("post", "/api/webhooks", "Webhooks", "createWebhook", "Create a webhook; its secret is shown this once", S, Create { body: "WebhookCreate", record: "WebhookCreated" })
        .rules("`url` must be https:// unless the installation sets `webhooks_allow_http`, and its host must not resolve to a loopback, private or link-local address unless it sets `webhooks_allow_private` (400 naming the rule). `events` lists event types, or [\"*\"] for all.")
        .refused("a user holds at most 50 webhooks"),
    op("put", "/api/webhooks", "Webhooks", "updateWebhook", "Update a webhook (its url, events, entity scope or active flag); the secret never changes", S, Update { body: "WebhookUpdate", record: "Webhook" }).never_refused(),
    op("delete", "/api/webhooks", "Webhooks", "deleteWebhook", "Delete a webhook and its deliveries", S, Delete).never_refused(),
    op("get", "/api/webhooks/deliveries", "Webhooks", "listWebhookDeliveries", "The latest deliveries, newest first (100 unless `limit` says otherwise)", S, Query { params: DELIVERY_QUERY, record: "WebhookDeliveryList" }),
    op("post", "/api/webhooks/redeliver", "Webhooks", "redeliverWebhookEvent", "Queue an event again for every webhook that had it, with a fresh retry window", S, Action { body: "WebhookRedeliverBody", record: "WebhookDeliveryList" }).never_refused(),
    op("post", "/api/webhooks/test", "Webhooks", "testWebhook", "Queue a `ping` event for one webhook", S, Create { body: "WebhookTestBody", record: "WebhookDelivery" })
        .refused("the webhook is inactive"),
    // Import (session, Pro plan)
    op("post", "/api/import/preview", "Import", "importPreview", "Detect, map and dry-run a CSV export (changes nothing)", S, Action { body: "ImportPreviewBody", record: "ImportPreview" }),
    op("post", "/api/import/csv", "Import", "importCsv", "Import a CSV export in one transaction", S, Action { body: "ImportCsvBody", record: "ImportOutcome" }),
    op("get", "/api/import/connections", "Import", "listImportConnections", "List platform connections (never their credentials)", S, List("ImportConnection")),
    op("post", "/api/import/connections", "Import", "createImportConnection", "Connect an API platform (201; 200 when it replaces the entity's connection to that platform)", S, Create { body: "ImportConnectionCreate", record: "ImportConnection" }),
    op("delete", "/api/import/connections", "Import", "deleteImportConnection", "Delete a connection and its credentials", S, Delete),
    op("get", "/api/import/oauth/start", "Import", "startImportOAuth", "Start connecting FreeAgent over OAuth: the URL to send the browser to", S, Query { params: OAUTH_START, record: "ImportOAuthStart" }),
    op("get", "/api/import/oauth/callback", "Import", "importOAuthCallback", "The provider's redirect back (browser): stores the grant, then 303 to /#/import?connected=freeagent or ?error=", S, Redirect(OAUTH_CALLBACK)),
    op("post", "/api/import/migrate", "Import", "importMigrate", "Pull every page of one data type, or all, from a connected platform and import it in one transaction", S, Action { body: "ImportMigrateBody", record: "ImportMigrateOutcome" }),
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

/// Text the server trims: what it counts as white space (Rust's `char::is_whitespace`),
/// spelled out so that every regex engine agrees with the server.
const SPACE: &str = r"\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// Text without NUL, which the server refuses anywhere (docs/limits.md#text).
const NO_NUL: &str = r"^[^\u0000]*$";

/// Every free text in `schema`, at any depth, keys of objects included, is without NUL.
fn no_nul(schema: &mut Value) {
    if !schema.is_object() {
        return;
    }
    let has = |s: &Value, t: &str| {
        s["type"] == t || s["type"].as_array().is_some_and(|a| a.contains(&json!(t)))
    };
    let free = ["pattern", "format", "enum", "const"]
        .iter()
        .all(|k| schema.get(*k).is_none())
        && schema.get("maxLength") != Some(&json!(0));
    if has(schema, "string") && free {
        schema["pattern"] = json!(NO_NUL);
    }
    if has(schema, "object") {
        schema["propertyNames"] = json!({ "pattern": NO_NUL });
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(a) = schema.get_mut(k).and_then(Value::as_array_mut) {
            a.iter_mut().for_each(no_nul);
        }
    }
    if let Some(items) = schema.get_mut("items") {
        no_nul(items);
    }
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.values_mut().for_each(no_nul);
    }
    if let Some(extra) = schema.get_mut("additionalProperties") {
        no_nul(extra);
    }
}

/// A required text field the server trims: at least one character that is not white space.
fn name_text(description: &str) -> Value {
    json!({
        "type": "string",
        "pattern": format!("^[^\\u0000]*[^{SPACE}\\u0000][^\\u0000]*$"),
        "description": format!("{description} Trimmed; blank is refused (400).").trim_start(),
    })
}

/// Only white space (or nothing): what the server reads as "none" where it trims.
fn blank() -> Value {
    json!({ "type": "string", "pattern": format!("^[{SPACE}]*$") })
}

/// An optional reference the server reads as none when null or blank (accounting).
fn opt_ref(description: &str) -> Value {
    json!({
        "anyOf": [uuid(), blank(), { "type": "null" }],
        "description": format!("{description} Null or blank: none.").trim_start(),
    })
}

/// An optional reference the server reads as none when null or `""` (inventory, keys).
fn opt_id(description: &str) -> Value {
    json!({
        "anyOf": [uuid(), { "type": "string", "maxLength": 0 }, { "type": "null" }],
        "description": format!("{description} Null or \"\": none.").trim_start(),
    })
}

/// An optional date the server reads as its default when null or blank.
fn opt_date(description: &str) -> Value {
    json!({
        "anyOf": [date(), blank(), { "type": "null" }],
        "description": format!("YYYY-MM-DD. {description} Null or blank: the default.").trim_end(),
    })
}

/// A decimal that must not be negative.
fn non_negative(mut v: Value) -> Value {
    v["minimum"] = json!(0);
    v
}

/// A decimal that must be above 0.
fn positive(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("minimum");
    }
    v["exclusiveMinimum"] = json!(0);
    v
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
    json!({
        "type": "number",
        "multipleOf": step(places),
        "maximum": 1_000_000_000_000_i64,
        "minimum": -1_000_000_000_000_i64,
        "description": format!("{description} Exact decimal with up to {places} decimal places, sent and received as a JSON number."),
    })
}

/// `0.01` for 2 places, as an exact JSON number.
fn step(places: u32) -> Value {
    let step = format!("0.{}1", "0".repeat(places as usize - 1));
    serde_json::from_str::<Value>(&step).unwrap_or(json!(0.01))
}

/// A computed figure of a report: a JSON number with at most `places` decimal places
/// (no magnitude bound: it may be a sum or a product of stored values).
fn figure(places: u32, description: &str) -> Value {
    json!({
        "type": "number",
        "multipleOf": step(places),
        "description": format!("{description} A JSON number with at most {places} decimal places."),
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

/// A document whose `lines` a list asked for with `lines=false` leaves out.
fn listed_without_lines(mut v: Value) -> Value {
    if let Some(required) = v["required"].as_array_mut() {
        required.retain(|n| n != "lines");
    }
    v["properties"]["lines"]["description"] =
        json!("Always present except in a list asked for with `lines=false`.");
    v
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
            ("vat_rate", percent("Percentage, 0 to 100; default the product's rate, else 20.")),
        ],
    );
    // Without a product, the line needs its own description and price.
    v["anyOf"] = json!([
        { "required": ["product_id"], "properties": { "product_id": uuid() } },
        {
            "required": ["description", "unit_price"],
            "properties": { "description": name_text(""), "unit_price": { "type": "number" } },
        },
    ]);
    v
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
                non_negative(money("Not negative; default 0.")),
            ),
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
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("location_id", opt_ref("A location of the document's entity. Moving a posted document moves its stock.")),
        ],
    )
}

/// Every schema the operations name.
#[rustfmt::skip]
/// The fields of a webhook as every answer shows it.
fn webhook_fields() -> Vec<(&'static str, Value)> {
    vec![
        ("id", uuid()),
        ("url", string()),
        ("events", array(one_of_values(&WEBHOOK_EVENTS, "An event type, or * for all."))),
        ("entity_id", nullable(uuid())),
        ("active", boolean()),
        ("created_at", timestamp()),
    ]
}

pub fn schemas() -> Map<String, Value> {
    use crate::accounting::contacts::TYPES as CONTACT_TYPES;
    use crate::accounting::documents::{BILL_STATUSES, INVOICE_STATUSES};
    use crate::accounting::projects::STATUSES as PROJECT_STATUSES;
    use crate::accounting::recurring_invoices::{INTERVALS, STATUSES as RECURRING_STATUSES};

    const IMPORT_API_PLATFORMS: [&str; 7] = [
        "stripe",
        "shopify",
        "square",
        "paypal",
        "gocardless",
        "woocommerce",
        "freeagent",
    ];
    const IMPORT_TYPES: [&str; 8] = [
        "contacts",
        "products",
        "invoices",
        "bills",
        "expenses",
        "projects",
        "time_entries",
        "subscriptions",
    ];
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
        ("AnyValue", any_value()),
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
            ("default_location_id", nullable(id_of("A location of this entity: new invoices and bills without location_id take it."))),
            ("created_at", timestamp()),
        ])),
        ("EntityCreate", object(&["name"], vec![
            ("name", name_text("")),
            ("vat_number", nullable(string())),
            ("address", nullable(string())),
        ])),
        ("EntityUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
            ("vat_number", nullable(string())),
            ("address", nullable(string())),
            ("default_location_id", opt_ref("A location of this entity (another entity's: 400; unknown or foreign: 404).")),
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
            ("date", opt_date("Default today.")),
            ("description", name_text("")),
            ("amount", non_negative(money("Not negative."))),
            ("vat_amount", non_negative(money("Not negative; default 0."))),
            ("category_id", opt_ref("")),
            ("project_id", opt_ref("")),
            ("provider", nullable(string())),
            ("provider_ref", nullable(string())),
            ("entity_id", entity_field()),
        ])),
        ("ExpenseUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("date", date()),
            ("description", name_text("")),
            ("amount", non_negative(money("Not negative."))),
            ("vat_amount", non_negative(money("Not negative."))),
            ("category_id", opt_ref("")),
            ("project_id", opt_ref("")),
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
            ("name", name_text("Unique per entity, ignoring case (409).")),
            ("code", nullable(string())),
            ("entity_id", entity_field()),
        ])),
        ("ExpenseCategoryUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
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
        ("ImportPreviewBody", object(&["csv"], vec![
            ("mode", json!({ "type": "string", "enum": ["csv"], "default": "csv" })),
            ("entityType", nullable(one_of_values(&IMPORT_TYPES, "Detected from the header when omitted."))),
            ("csv", text("The CSV text, header row included (Sage 50 reports may have none).")),
            ("platform", nullable(text("A CSV platform (xero, quickbooks, sage_accounting, sage50, freeagent, kashflow, zoho_books, freshbooks) to detect among its layouts only, or `generic` to skip detection."))),
            ("mapping", json!({
                "type": ["object", "null"],
                "additionalProperties": { "type": ["string", "null"] },
                "description": "The remap step: header → import field (or null to ignore the column); overrides detection.",
            })),
            ("entity_id", nullable(text("With an entity the preview dry-runs the import (rolled back): `duplicates` and `errors` are what the run would report."))),
        ])),
        ("ImportCsvBody", object(&["entityType", "csv", "entity_id"], vec![
            ("entityType", one_of_values(&IMPORT_TYPES, "The kind of data the file holds.")),
            ("csv", string()),
            ("platform", nullable(string())),
            ("mapping", json!({ "type": ["object", "null"], "additionalProperties": { "type": ["string", "null"] } })),
            ("entity_id", uuid()),
        ])),
        ("ImportRowError", object(&["row", "message"], vec![
            ("row", json!({ "type": "integer", "description": "Spreadsheet row number (the header is row 1)." })),
            ("column", text("The column to blame, when one is: its header, cut to 40 characters.")),
            ("columnIndex", json!({ "type": "integer", "description": "The 1-based position of that column." })),
            ("message", string()),
        ])),
        ("ImportOutcome", object(&["imported", "skipped", "failed", "errorCount"], vec![
            ("imported", json!({ "type": "integer", "description": "Records created (a document or template counts once)." })),
            ("skipped", json!({ "type": "integer", "description": "Records skipped as duplicates of stored records or of earlier rows." })),
            ("failed", array(reference("ImportRowError"))),
            ("errorCount", json!({ "type": "integer", "description": "Every row error; `failed` lists the first 1,000." })),
        ])),
        ("ImportPreview", object(
            &["platform", "detected", "entityType", "headers", "mapping", "fields", "rows", "totalRows", "duplicates", "errors", "errorCount"],
            vec![
                ("platform", string()),
                ("detected", json!({ "type": "boolean", "description": "A known export layout was recognised (false: the mapping is a suggestion from header names)." })),
                ("entityType", one_of_values(&IMPORT_TYPES, "")),
                ("headers", array(string())),
                ("mapping", json!({ "type": "object", "additionalProperties": { "type": ["string", "null"] } })),
                ("fields", array(object(&["name", "required"], vec![("name", string()), ("required", boolean())]))),
                ("rows", array(json!({ "type": "object", "description": "The first 20 rows, mapped, each with its `row` number." }))),
                ("totalRows", integer()),
                ("duplicates", json!({ "type": "integer", "description": "Records the run would skip as duplicates (0 without entity_id)." })),
                ("errors", array(reference("ImportRowError"))),
                ("errorCount", json!({ "type": "integer", "description": "Every row error; `errors` lists the first 1,000." })),
                ("layout", nullable(string())),
                ("missingRequired", array(string())),
                ("leftOut", json!({ "type": "integer", "description": "Rows of other transaction types left out." })),
                ("notes", array(string())),
            ],
        )),
        ("ImportConnection", record(vec![
            ("id", uuid()),
            ("platform", one_of_values(&IMPORT_API_PLATFORMS, "")),
            ("entity_id", uuid()),
            ("created_at", timestamp()),
            ("last_used_at", nullable(timestamp())),
            ("status", one_of_values(&["connected", "reconnect_required"], "`reconnect_required` once FreeAgent refused the stored grant: connect again over OAuth.")),
        ])),
        ("ImportConnectionCreate", object(&["platform", "entity_id", "credentials"], vec![
            ("platform", one_of_values(&IMPORT_API_PLATFORMS[..6], "FreeAgent connects over OAuth instead.")),
            ("entity_id", uuid()),
            ("credentials", json!({
                "type": "object",
                "additionalProperties": { "type": "string" },
                "description": "Stored for the pulls, never returned. stripe {api_key}; shopify {shop, access_token}; square {access_token}; paypal {client_id, client_secret}; gocardless {access_token}; woocommerce {url, consumer_key, consumer_secret}. Other fields are dropped.",
            })),
        ])),
        ("ImportOAuthStart", object(&["authorize_url"], vec![
            ("authorize_url", json!({ "type": "string", "format": "uri", "description": "The provider's consent page, with client_id, response_type=code, redirect_uri and a fresh state." })),
        ])),
        ("ImportMigrateBody", object(&["mode", "platform", "entityType", "entity_id"], vec![
            ("mode", one_of_values(&["api", "oauth"], "`oauth` for freeagent, `api` for the others.")),
            ("platform", one_of_values(&IMPORT_API_PLATFORMS, "")),
            ("entityType", one_of_values(&[
                "contacts", "products", "invoices", "bills", "expenses", "projects", "time_entries", "subscriptions", "all",
            ], "`all`: every type the platform supplies. A type it cannot supply is 400.")),
            ("entity_id", uuid()),
        ])),
        ("ImportMigrateOutcome", json!({
            "type": "object",
            "description": "One entry per data type pulled. With `all`, a type this account does not offer (a WooCommerce site without Subscriptions) is `{unavailable: message}`.",
            "additionalProperties": { "oneOf": [
                reference("ImportOutcome"),
                object(&["unavailable"], vec![("unavailable", string())]),
            ] },
        })),
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
            ("name", name_text("")),
            ("entity_id", opt_id("Scopes the key to this entity.")),
        ])),
        ("Webhook", record(webhook_fields())),
        ("WebhookCreated", {
            let mut fields = webhook_fields();
            fields.push(
                ("secret", json!({
                    "type": "string",
                    "pattern": "^whsec_[0-9A-Za-z]{32}$",
                    "description": "Signs every delivery (`Stockbook-Signature`); shown this once."
                })),
            );
            let mut v = record(fields);
            v["description"] = json!("The new webhook with its secret.");
            v
        }),
        ("WebhookCreate", object(&["url", "events"], vec![
            ("url", text("An https:// URL (see the operation's rules).")),
            ("events", array(one_of_values(&WEBHOOK_EVENTS, "An event type, or * for all."))),
            ("entity_id", opt_id("Scopes the webhook to this entity's events.")),
            ("active", boolean()),
        ])),
        ("WebhookUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("url", text("An https:// URL.")),
            ("events", array(one_of_values(&WEBHOOK_EVENTS, "An event type, or * for all."))),
            ("entity_id", opt_id("Scopes the webhook to this entity's events.")),
            ("active", boolean()),
        ])),
        ("WebhookDelivery", record(vec![
            ("webhook_id", uuid()),
            ("event_id", uuid()),
            ("type", text("The event type, or `ping`.")),
            ("status", one_of_values(&["pending", "delivered", "failed"], "")),
            ("attempts", integer()),
            ("last_status_code", nullable(integer())),
            ("last_error", nullable(string())),
            ("last_attempt_at", nullable(timestamp())),
            ("next_attempt_at", nullable(timestamp())),
            ("created_at", timestamp()),
        ])),
        ("WebhookDeliveryList", array(reference("WebhookDelivery"))),
        ("WebhookRedeliverBody", object(&["event_id"], vec![("event_id", uuid())])),
        ("WebhookTestBody", object(&["id"], vec![("id", uuid())])),
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
    ];
    entries
        .into_iter()
        .chain(inventory_schemas())
        .map(|(k, v)| {
            let v = if is_input(k) { input(v) } else { v };
            (k.to_owned(), v)
        })
        .collect()
}

/// The values of a webhook's `events`.
const WEBHOOK_EVENTS: [&str; 8] = [
    "*",
    crate::webhooks::outbox::STOCK_MOVEMENT_CREATED,
    crate::webhooks::outbox::STOCK_LOW,
    crate::webhooks::outbox::TRANSFER_ORDER_UPDATED,
    crate::webhooks::outbox::STOCK_TAKE_COMPLETED,
    crate::webhooks::outbox::INVOICE_UPDATED,
    crate::webhooks::outbox::BILL_UPDATED,
    crate::webhooks::outbox::IMPORT_FINISHED,
];

/// A schema a client sends (a request body or a part of one).
fn is_input(name: &str) -> bool {
    ["Create", "Update", "Upsert", "Body", "Input", "Count"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// The rules every request body follows (docs/conventions.md): an optional field sent as null is
/// the same as the field left out, and unknown fields are ignored.
fn input(mut schema: Value) -> Value {
    let required: Vec<String> = schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if let Some(props) = schema["properties"].as_object_mut() {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) && !accepts_null(prop) {
                *prop = nullable(prop.take());
            }
        }
    }
    no_nul(&mut schema);
    if schema.get("properties").is_some() {
        schema["additionalProperties"] = reference("AnyValue");
    }
    schema
}

/// Any JSON value without NUL in its text or keys: what an unknown body field may hold
/// (it is ignored, but a NUL anywhere in a body is refused, docs/limits.md#text).
fn any_value() -> Value {
    let any = reference("AnyValue");
    json!({
        "description": "Any JSON value without NUL in its text or keys.",
        "anyOf": [
            { "type": "string", "pattern": NO_NUL },
            { "type": ["number", "boolean", "null"] },
            { "type": "array", "items": any },
            { "type": "object", "propertyNames": { "pattern": NO_NUL }, "additionalProperties": any },
        ],
    })
}

fn accepts_null(schema: &Value) -> bool {
    let t = &schema["type"];
    t == "null"
        || t.as_array().is_some_and(|a| a.contains(&json!("null")))
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema[*k]
                .as_array()
                .is_some_and(|a| a.iter().any(accepts_null))
        })
}

const LOCATION_STATUSES: &[&str] = &["active", "inactive"];
const TRANSFER_STATUSES: &[&str] = &["draft", "in_transit", "completed", "cancelled"];
const STOCK_TAKE_STATUSES: &[&str] = &["draft", "in_progress", "completed", "cancelled"];

/// A reference a client sends, with what makes it refused.
fn id_of(description: &str) -> Value {
    let mut v = uuid();
    v["description"] = json!(description);
    v
}

/// The schemas of the inventory (docs/inventory.md, docs/conventions.md, docs/ledger.md,
/// docs/documents.md).
#[rustfmt::skip]
fn inventory_schemas() -> Vec<(&'static str, Value)> {
    use crate::inventory::ledger::MovementType;
    let all_types: Vec<&str> = MovementType::ALL.iter().map(|t| t.as_str()).collect();
    let client_types: Vec<&str> = MovementType::ALL
        .iter()
        .filter(|t| **t != MovementType::TransferCancelled)
        .map(|t| t.as_str())
        .collect();
    let opt_text = || nullable(string());
    vec![
        ("ProductBrief", {
            let mut v = record(vec![("id", uuid()), ("name", string()), ("sku", string())]);
            v["description"] = json!("A product, expanded where a record references it.");
            v
        }),
        ("LocationBrief", {
            let mut v = record(vec![("id", uuid()), ("name", string())]);
            v["description"] = json!("A warehouse location, expanded where a record references it.");
            v
        }),
        ("Product", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("sku", text("Unique per entity, ignoring case.")),
            ("description", opt_text()),
            ("category", text("Grouping for reports and filters; empty when none.")),
            ("unit_price", price("Selling price per unit.")),
            ("cost_price", price("Cost per unit; a purchase with a unit_cost sets it to the weighted average cost.")),
            ("vat_rate", percent("")),
            ("stock_qty", qty("Aggregate stock: the stock at every location plus the unallocated stock (movements without location). Units in transit are in neither.")),
            ("low_stock_threshold", qty("A global alert is raised when stock_qty is at or below it.")),
            ("unit", text("Unit of measure.")),
            ("notes", opt_text()),
            ("barcode", opt_text()),
            ("active", json!({ "type": "boolean", "description": "False: deactivated." })),
            ("provider", nullable(text("Where the product came from (an import or an integration)."))),
            ("provider_ref", nullable(text("The product's id there."))),
            ("entity_id", nullable(uuid())),
            ("created_at", timestamp()),
            ("updated_at", timestamp()),
            ("stock_levels", {
                let mut v = array(reference("WarehouseStock"));
                v["description"] = json!("The product's stock rows, by location name.");
                v
            }),
        ])),
        ("ProductCreate", object(&["name"], vec![
            ("name", name_text("")),
            ("sku", text("Unique per entity ignoring case (409); generated SKU-00001, ... (the next free number) when omitted.")),
            ("description", opt_text()),
            ("category", string()),
            ("unit_price", non_negative(price("Not negative; default 0."))),
            ("cost_price", non_negative(price("Not negative; default 0."))),
            ("vat_rate", percent("Default 20.")),
            ("stock_qty", non_negative(qty("Opening stock, not negative: recorded as an adjustment movement without location."))),
            ("low_stock_threshold", non_negative(qty("Not negative; default 5."))),
            ("unit", text("Default pcs.")),
            ("notes", opt_text()),
            ("barcode", opt_text()),
            ("active", json!({ "type": "boolean", "description": "Default true." })),
            ("provider", opt_text()),
            ("provider_ref", opt_text()),
            ("entity_id", opt_id("Default none.")),
        ])),
        ("ProductUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
            ("sku", name_text("Unique per entity ignoring case (409).")),
            ("description", opt_text()),
            ("category", string()),
            ("unit_price", non_negative(price("Not negative."))),
            ("cost_price", non_negative(price("Not negative."))),
            ("vat_rate", percent("")),
            ("stock_qty", qty("The new aggregate stock: an adjustment movement without location records the difference; below the quantity held at locations is 409.")),
            ("low_stock_threshold", non_negative(qty("Not negative."))),
            ("unit", name_text("")),
            ("active", boolean()),
            ("notes", opt_text()),
            ("barcode", opt_text()),
        ])),
        ("WarehouseLocation", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("address", opt_text()),
            ("status", one_of_values(LOCATION_STATUSES, "")),
            ("entity_id", uuid()),
            ("created_at", timestamp()),
        ])),
        ("WarehouseLocationCreate", object(&["name", "entity_id"], vec![
            ("name", name_text("")),
            ("address", opt_text()),
            ("status", one_of_values(LOCATION_STATUSES, "Default active.")),
            ("entity_id", id_of("The entity the location belongs to (unknown or foreign: 404).")),
        ])),
        ("WarehouseLocationUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
            ("address", opt_text()),
            ("status", one_of_values(LOCATION_STATUSES, "")),
        ])),
        ("WarehouseStock", {
            let mut v = record(vec![
                ("id", uuid()),
                ("product_id", reference("ProductBrief")),
                ("location_id", reference("LocationBrief")),
                ("quantity", qty("Stock on hand at the location.")),
                ("reorder_point", qty("A location alert is raised when quantity is at or below it.")),
                ("reserved_quantity", qty("Held by in-transit transfer orders from this location, plus any reservation set by hand.")),
                ("entity_id", nullable(uuid())),
            ]);
            v["description"] = json!("The stock of one product at one location.");
            v
        }),
        ("WarehouseStockUpsert", object(&["product_id", "location_id"], vec![
            ("product_id", id_of("Unknown or foreign: 404.")),
            ("location_id", id_of("Unknown or foreign: 404; of another entity than the product: 400.")),
            ("quantity", qty("The row's new quantity: an adjustment movement at the location records the difference.")),
            ("reorder_point", non_negative(qty("Not negative; default 0 for a new row."))),
            ("entity_id", opt_id("When sent, the location's entity (400 otherwise).")),
        ])),
        ("WarehouseStockUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("quantity", qty("The row's new quantity: an adjustment movement at the location records the difference.")),
            ("reorder_point", non_negative(qty("Not negative."))),
            ("reserved_quantity", non_negative(qty("Not negative, and not below what in-transit transfer orders hold (409)."))),
        ])),
        ("StockMovement", {
            let mut v = record(vec![
                ("id", uuid()),
                ("product_id", reference("ProductBrief")),
                ("qty", qty("Positive for an increase, negative for a decrease.")),
                ("type", one_of_values(&all_types, "transfer_cancelled is made by the system when an in-transit transfer order is cancelled.")),
                ("location_id", {
                    let mut v = nullable(uuid());
                    v["description"] = json!("A plain id; null for unallocated stock.");
                    v
                }),
                ("reference", opt_text()),
                ("notes", opt_text()),
                ("date", date()),
                ("unit_cost", nullable(price("A purchase's cost per unit; on a sale or return written for an invoice, the cost of sales per unit."))),
                ("entity_id", nullable(uuid())),
                ("document_id", {
                    let mut v = nullable(uuid());
                    v["description"] = json!("The invoice or bill the movement was written for; null otherwise.");
                    v
                }),
                ("created_at", timestamp()),
            ]);
            v["description"] = json!("An immutable ledger entry.");
            v
        }),
        ("StockMovementCreate", object(&["product_id", "qty", "type"], vec![
            ("product_id", id_of("Unknown or foreign: 404.")),
            ("qty", qty("Not 0. purchase and transfer_in positive; sale and transfer_out negative; adjustment, return and stock_take either.")),
            ("type", one_of_values(&client_types, "transfer_cancelled is the system's only (400).")),
            ("location_id", opt_id("Where the stock changes (unknown or foreign: 404; inactive: 409). Omitted: the product's unallocated stock.")),
            ("reference", opt_text()),
            ("notes", opt_text()),
            ("date", opt_date("Default today (UTC).")),
            ("unit_cost", non_negative(price("A purchase only, not negative: cost_price becomes the weighted average (old_qty × old_cost + qty × unit_cost) / (old_qty + qty), or unit_cost without stock before."))),
            ("entity_id", opt_id("Default the product's entity; when sent, it must be the product's (400).")),
        ])),
        ("TransferOrder", listed_without_lines(record(vec![
            ("id", uuid()),
            ("number", text("TO-001, TO-002, ... per entity.")),
            ("source_location_id", reference("LocationBrief")),
            ("destination_location_id", reference("LocationBrief")),
            ("status", one_of_values(TRANSFER_STATUSES, "")),
            ("notes", opt_text()),
            ("entity_id", uuid()),
            ("date_created", timestamp()),
            ("date_completed", nullable(timestamp())),
            ("lines", array(reference("TransferOrderLine"))),
            ("line_count", non_negative(integer())),
            ("total_quantity", figure(3, "The sum of the lines' quantity.")),
        ]))),
        ("TransferOrderLine", record(vec![
            ("id", uuid()),
            ("product_id", reference("ProductBrief")),
            ("quantity", qty("")),
            ("received_quantity", qty("0 until the order is completed; then what arrived.")),
        ])),
        ("TransferLineInput", object(&["product_id", "quantity"], vec![
            ("product_id", id_of("An active product of the order's entity (unknown or foreign: 404; deactivated or of another entity: 400).")),
            ("quantity", positive(qty("Above 0."))),
        ])),
        ("TransferOrderCreate", object(&["source_location_id", "destination_location_id"], vec![
            ("source_location_id", id_of("An active location (unknown or foreign: 404).")),
            ("destination_location_id", id_of("An active location other than the source (unknown or foreign: 404).")),
            ("entity_id", opt_id("Default the source location's entity; both locations must belong to it (400).")),
            ("notes", opt_text()),
            ("lines", {
                let mut v = array(reference("TransferLineInput"));
                v["description"] = json!("At least one (409 otherwise).");
                v
            }),
        ])),
        ("TransferLineUpdate", object(&[], vec![
            ("id", id_of("With status completed: a line of this order (400 otherwise).")),
            ("received_quantity", non_negative(qty("With status completed: 0 to the line's quantity; lines not named arrive in full."))),
            ("product_id", id_of("While draft: as on create.")),
            ("quantity", positive(qty("While draft: above 0."))),
        ])),
        ("TransferOrderUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("status", one_of_values(&TRANSFER_STATUSES[1..], "The transition asked for (see the operation).")),
            ("lines", {
                let mut v = array(reference("TransferLineUpdate"));
                v["description"] = json!("With status completed: `[{id, received_quantity}]`, a short receipt. Otherwise `[{product_id, quantity}]`, replacing every line of a draft.");
                v
            }),
            ("notes", nullable(text("While draft only."))),
        ])),
        ("StockTake", listed_without_lines(record(vec![
            ("id", uuid()),
            ("number", text("ST-001, ST-002, ... per entity.")),
            ("location_id", reference("LocationBrief")),
            ("status", one_of_values(STOCK_TAKE_STATUSES, "")),
            ("notes", opt_text()),
            ("entity_id", uuid()),
            ("date_created", timestamp()),
            ("date_completed", nullable(timestamp())),
            ("lines", array(reference("StockTakeLine"))),
            ("line_count", non_negative(integer())),
            ("counted_count", non_negative(integer())),
        ]))),
        ("StockTakeLine", record(vec![
            ("id", uuid()),
            ("product_id", reference("ProductBrief")),
            ("system_quantity", qty("The location's quantity when the stock take was created.")),
            ("counted_quantity", nullable(qty("Null until counted."))),
            ("variance", nullable(qty("counted_quantity − system_quantity; null while uncounted."))),
        ])),
        ("StockTakeCreate", object(&["location_id", "entity_id"], vec![
            ("location_id", id_of("An active location of the entity (unknown or foreign: 404; of another entity: 400; inactive: 409).")),
            ("entity_id", uuid()),
            ("notes", opt_text()),
        ])),
        ("StockTakeCount", object(&["id", "counted_quantity"], vec![
            ("id", id_of("A line of this stock take (400 otherwise).")),
            ("counted_quantity", non_negative(nullable(qty("0 or more; null blanks the count.")))),
        ])),
        ("StockTakeUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("status", one_of_values(&STOCK_TAKE_STATUSES[1..], "The transition asked for (see the operation).")),
            ("lines", array(reference("StockTakeCount"))),
            ("notes", nullable(text("While draft or in progress only."))),
        ])),
        ("StockValuation", object(&["data", "summary"], vec![
            ("data", array(reference("StockValuationRow"))),
            ("summary", reference("StockValuationSummary")),
        ])),
        ("StockValuationRow", record(vec![
            ("product_id", uuid()),
            ("product_name", string()),
            ("product_sku", string()),
            ("category", string()),
            ("location_id", {
                let mut v = nullable(uuid());
                v["description"] = json!("Null on the row of a product's unallocated stock.");
                v
            }),
            ("location_name", text("Unallocated on the row of a product's unallocated stock.")),
            ("quantity", qty("")),
            ("cost_price", price("")),
            ("unit_price", price("")),
            ("total_cost", figure(2, "quantity × cost_price, rounded half away from zero.")),
            ("total_retail", figure(2, "quantity × unit_price, rounded half away from zero.")),
            ("margin", figure(2, "Percentage: (unit_price − cost_price) / unit_price × 100, 0 when unit_price is 0; rounded half away from zero.")),
        ])),
        ("StockValuationPage", object(&["data", "summary", "byLocation", "byCategory", "total", "limit", "offset"], vec![
            ("data", array(reference("StockValuationRow"))),
            ("summary", reference("StockValuationSummary")),
            ("byLocation", array(object(&["locationId", "locationName", "rows", "totalUnits", "totalCostValue", "totalRetailValue"], vec![
                ("locationId", {
                    let mut v = nullable(uuid());
                    v["description"] = json!("Null for the unallocated stock.");
                    v
                }),
                ("locationName", text("Unallocated for the unallocated stock.")),
                ("rows", integer()),
                ("totalUnits", figure(3, "Σ quantity over the location's rows.")),
                ("totalCostValue", figure(2, "Σ quantity × cost_price over its rows, rounded once.")),
                ("totalRetailValue", figure(2, "Σ quantity × unit_price over its rows, rounded once.")),
            ]))),
            ("byCategory", array(object(&["category", "rows", "totalUnits", "totalCostValue", "totalRetailValue"], vec![
                ("category", text("The products' category; empty for none.")),
                ("rows", integer()),
                ("totalUnits", figure(3, "Σ quantity over the category's rows.")),
                ("totalCostValue", figure(2, "Σ quantity × cost_price over its rows, rounded once.")),
                ("totalRetailValue", figure(2, "Σ quantity × unit_price over its rows, rounded once.")),
            ]))),
            ("total", json!({ "type": "integer", "description": "Rows of the whole report." })),
            ("limit", {
                let mut v = nullable(integer());
                v["description"] = json!("The page size asked for; null without one.");
                v
            }),
            ("offset", integer()),
        ])),
        ("StockValuationSummary", {
            let mut v = record(vec![
            ("totalCostValue", figure(2, "Σ quantity × cost_price over the rows, rounded once.")),
            ("totalRetailValue", figure(2, "Σ quantity × unit_price over the rows, rounded once.")),
            ("totalUnits", figure(3, "Σ quantity over the rows.")),
            ("avgMargin", figure(2, "Percentage: the mean of the unrounded margins of the distinct products with a row, rounded; 0 without rows.")),
            ("inTransitUnits", figure(3, "Units in in-transit transfer orders (from the location, with locationId): in no row. Absent with asOf.")),
            ("inTransitCostValue", figure(2, "Their value at cost, rounded. Absent with asOf.")),
            ]);
            // Without asOf every figure is present; with it, the in-transit ones are not.
            v["required"] = json!(["totalCostValue", "totalRetailValue", "totalUnits", "avgMargin"]);
            v
        }),
        ("GrossMargin", object(&["data", "summary"], vec![
            ("data", array(reference("GrossMarginRow"))),
            ("summary", reference("GrossMarginSummary")),
        ])),
        ("GrossMarginRow", record(vec![
            ("product_id", uuid()),
            ("product_name", string()),
            ("product_sku", string()),
            ("quantity", figure(3, "Σ line quantities.")),
            ("sales", figure(2, "Σ line nets, rounded.")),
            ("cost_of_sales", figure(2, "Σ −qty × unit_cost of the invoices' movements, rounded.")),
            ("gross_margin", figure(2, "sales − cost_of_sales, rounded.")),
            ("margin", figure(2, "Percentage: gross_margin / sales × 100, 0 without sales; rounded.")),
        ])),
        ("GrossMarginSummary", record(vec![
            ("sales", figure(2, "Σ over the rows, unrounded, rounded once.")),
            ("costOfSales", figure(2, "")),
            ("grossMargin", figure(2, "")),
            ("margin", figure(2, "Percentage of the sums.")),
        ])),
        ("InventorySummary", record(vec![
            ("totalProducts", json!({ "type": "integer", "description": "Active products." })),
            ("stockValue", figure(2, "Stock at cost: the valuation's totalCostValue (in-transit units excluded).")),
            ("warehouseCount", json!({ "type": "integer", "description": "Active locations." })),
            ("lowStockAlertCount", json!({ "type": "integer", "description": "Alerts of both levels." })),
            ("inTransitUnits", figure(3, "Units in in-transit transfer orders.")),
            ("stockValueByCategory", json!({
                "type": "array",
                "description": "stockValue per product category (empty string: none), largest first; categories without stock are left out.",
                "items": record(vec![
                    ("category", string()),
                    ("stockValue", figure(2, "Σ stock_qty × cost_price of the category, rounded once.")),
                ]),
            })),
        ])),
        ("InventoryAlert", record(vec![
            ("level", one_of_values(&["global", "location"], "")),
            ("product_id", reference("ProductBrief")),
            ("location_id", {
                let mut v = nullable(reference("LocationBrief"));
                v["description"] = json!("Null on a global alert.");
                v
            }),
            ("quantity", qty("Global: the product's stock_qty; location: the row's quantity.")),
            ("threshold", qty("Global: low_stock_threshold; location: reorder_point.")),
        ])),
        ("LocationFigures", record(vec![
            ("location", record(vec![
                ("id", uuid()),
                ("name", string()),
                ("status", one_of_values(LOCATION_STATUSES, "")),
            ])),
            ("productCount", json!({ "type": "integer", "description": "Active products with a non-zero quantity there." })),
            ("totalUnits", figure(3, "Σ quantity there.")),
            ("costValue", figure(2, "Σ quantity × cost_price there, rounded once.")),
            ("retailValue", figure(2, "Σ quantity × unit_price there, rounded once.")),
            ("alertCount", json!({ "type": "integer", "description": "Location alerts of active products there." })),
        ])),
    ]
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

fn query_param(name: &str, description: &str, mut schema: Value) -> Value {
    no_nul(&mut schema);
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

/// A parameter of the OAuth routes: never empty (400), and `platform` is `freeagent`.
fn required_param((name, required, description): (&str, bool, &str)) -> Value {
    let schema = match name {
        "platform" => one_of_values(&["freeagent"], ""),
        "entityId" => uuid(),
        _ if required => json!({ "type": "string", "minLength": 1 }),
        _ => string(),
    };
    let mut p = query_param(name, description, schema);
    p["required"] = json!(required);
    p
}

fn entity_param() -> Value {
    query_param(
        "entityId",
        "Only this entity's records (an unknown or foreign entity is 404; a key scoped elsewhere 403).",
        uuid(),
    )
}

/// The session API's `limit` and `offset`.
fn session_paging() -> [Value; 2] {
    [
        query_param(
            "limit",
            "Page size (whole number from 1); no limit when omitted.",
            json!({ "type": "integer", "minimum": 1, "maximum": i64::MAX }),
        ),
        query_param(
            "offset",
            "Records to skip (default 0).",
            json!({ "type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0 }),
        ),
    ]
}

fn filter_param(f: Filter) -> Value {
    use crate::inventory::ledger::MovementType;
    match f {
        Filter::Entity => entity_param(),
        Filter::Product => query_param(
            "productId",
            "Only this product's records (an unknown or foreign product is 404).",
            uuid(),
        ),
        Filter::Location => query_param(
            "locationId",
            "Only this location's records (an unknown or foreign location is 404).",
            uuid(),
        ),
        Filter::MovementType => {
            let types: Vec<&str> = MovementType::ALL.iter().map(|t| t.as_str()).collect();
            query_param(
                "type",
                "Only movements of this type (`transfer_cancelled` included).",
                one_of_values(&types, ""),
            )
        }
        Filter::DateFrom => query_param(
            "dateFrom",
            "Only movements dated on or after this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::DateTo => query_param(
            "dateTo",
            "Only movements dated on or before this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::Search => query_param(
            "q",
            "Only products whose name, SKU or barcode contains this text, ignoring case.",
            string(),
        ),
        Filter::Category => query_param(
            "category",
            "Only products of this category, ignoring case.",
            string(),
        ),
        Filter::Active => query_param(
            "active",
            "true: active products only; false: deactivated products only.",
            boolean(),
        ),
        Filter::Document => query_param(
            "documentId",
            "Only the movements written for this invoice or bill.",
            uuid(),
        ),
        Filter::Format => query_param(
            "format",
            "`json` (default) or `csv`: the same rows as `text/csv` with a header row, streamed, for download.",
            one_of_values(&["json", "csv"], ""),
        ),
        Filter::AsOf => query_param(
            "asOf",
            "The valuation as of the end of this day (YYYY-MM-DD, not in the future): quantities from the movements dated up to it, cost prices in force then, current unit prices; no in-transit figures in the summary.",
            date(),
        ),
        Filter::IssuedFrom => query_param(
            "dateFrom",
            "Only invoices issued on or after this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::IssuedTo => query_param(
            "dateTo",
            "Only invoices issued on or before this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::RecordId => query_param(
            "id",
            "Only this record: a list of one, or of none when it is not the caller's (or not of `entityId`).",
            uuid(),
        ),
        Filter::Lines => query_param(
            "lines",
            "`false`: each document without its `lines` (its line figures are still there), for a list page; default `true`.",
            boolean(),
        ),
    }
}

fn operation(o: &Operation) -> Value {
    let mut responses = Map::new();
    let mut parameters: Vec<Value> = Vec::new();
    let mut body: Option<&str> = None;
    let (code, success) = match o.shape {
        List(s) => {
            parameters.push(entity_param());
            parameters.extend(session_paging());
            ("200", data_of(array(reference(s))))
        }
        PlainList(s) => {
            parameters.extend(session_paging());
            ("200", data_of(array(reference(s))))
        }
        FilteredList(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            parameters.extend(session_paging());
            ("200", data_of(array(reference(s))))
        }
        Report(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            ("200", data_of(reference(s)))
        }
        ReportList(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            ("200", data_of(array(reference(s))))
        }
        BareReport(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            ("200", reference(s))
        }
        PagedReport {
            whole,
            page,
            filters,
        } => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            parameters.extend(session_paging());
            (
                "200",
                // anyOf, not oneOf: a page carries every field of the whole report too,
                // so under JSON Schema's open objects it is valid under both.
                json!({ "anyOf": [reference(whole), reference(page)] }),
            )
        }
        V1List(s) => {
            parameters.push(entity_param());
            parameters.push(query_param("limit", "Page size: default 50; above 200 is served as 200; below 1 or not a whole number is 400.", json!({ "type": "integer", "minimum": 1, "maximum": i64::MAX, "default": 50 })));
            parameters.push(query_param("offset", "Records to skip: default 0; negative is 400. Pages follow creation order, so paging never skips or repeats a record.", json!({ "type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0 })));
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
        Upsert { body: b, record } => {
            body = Some(b);
            responses.insert(
                "200".into(),
                json!({
                    "description": "The existing record, updated",
                    "content": json_content(data_of(reference(record))),
                }),
            );
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
        Query { params, record } => {
            parameters.extend(params.iter().map(|p| required_param(*p)));
            ("200", data_of(reference(record)))
        }
        Redirect(params) => {
            parameters.extend(params.iter().map(|p| required_param(*p)));
            ("303", Value::Null)
        }
    };
    let mut ok = if code == "303" {
        json!({
            "description": "See Other: to the web app's import page",
            "headers": { "Location": { "schema": { "type": "string" }, "description": "`/#/import?connected=<platform>` or `/#/import?error=<message>`" } },
        })
    } else {
        json!({
            "description": if code == "201" { "Created" } else { "OK" },
            "content": json_content(success),
        })
    };
    if o.auth == K {
        ok["headers"] = rate_headers();
    }
    // `format=csv` answers the same list as a spreadsheet.
    if let FilteredList(_, filters) | PagedReport { filters, .. } = &o.shape {
        if filters.contains(&Format) {
            ok["content"]["text/csv"] = json!({ "schema": { "type": "string" } });
        }
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
    if body.is_some() {
        match o.conflict {
            Conflict::Default => {
                responses.insert(
                    "409".into(),
                    error("A business rule refused the change (duplicate number or SKU, record in use, insufficient stock)"),
                );
            }
            Conflict::Because(why) => {
                responses.insert("409".into(), error(why));
            }
            Conflict::Never => {}
        }
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
    if o.id == "importMigrate" {
        responses.insert(
            "503".into(),
            error("The platform stopped answering (5xx or 429 beyond the retries, unreachable, a malformed page); nothing of the run was kept"),
        );
    }
    if o.id == "startImportOAuth" {
        responses.insert(
            "503".into(),
            error("FreeAgent's OAuth client is not configured on this server"),
        );
    }
    if o.path.starts_with("/api/import/") {
        responses.insert(
            "403".into(),
            error("Import requires the Pro plan (an `essential` installation)"),
        );
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
    if let Some(d) = o.description {
        v["description"] = json!(d);
    }
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
