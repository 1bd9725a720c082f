//! The inventory in the OpenAPI document: products, locations, stock rows, the ledger,
//! transfer orders, stock takes and the reports (docs/inventory.md, docs/ledger.md,
//! docs/documents.md, docs/documents-stock.md).

use serde_json::{json, Value};

use super::ledger::MovementType;
use crate::http::openapi::*;
use crate::vat::TREATMENTS;
use Auth::Session as S;
use Filter::{
    Active, AsOf, Category, DateFrom, DateTo, Document as ByDocument, Entity as ByEntity, Format,
    IssuedFrom, IssuedTo, Lines as WithLines, Location as ByLocation, Product as ByProduct,
    RecordId as ById, Search,
};
use Shape::{
    BareReport, Create, Delete, FilteredList, List, PagedReport, Report, ReportList, Update, Upsert,
};

const LOCATION_STATUSES: &[&str] = &["active", "inactive"];
const TRANSFER_STATUSES: &[&str] = &["draft", "in_transit", "completed", "cancelled"];
const STOCK_TAKE_STATUSES: &[&str] = &["draft", "in_progress", "completed", "cancelled"];

/// `type`: a movement type, `transfer_cancelled` included.
fn product_ids() -> Value {
    query_param(
        "ids",
        "Only these products: comma-separated ids, at most 500.",
        json!({ "type": "string" }),
    )
}

pub fn movement_type() -> Value {
    let types: Vec<&str> = MovementType::ALL.iter().map(|t| t.as_str()).collect();
    query_param(
        "type",
        "Only movements of this type (`transfer_cancelled` included).",
        one_of_values(&types, ""),
    )
}

/// The operations of the inventory.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/products", "Products", "listProducts", "List products with their stock levels", S, FilteredList("Product", &[ByEntity, Search, Category, Active, Filter::Own(product_ids)]))
            .rules(&["docs/inventory.md#products", "docs/conventions.md#ordering"]),
        op("post", "/api/products", "Products", "createProduct", "Create a product", S, Create { body: "ProductCreate", record: "Product" })
            .rules(&["docs/inventory.md#products", "docs/inventory.md#product-stock"])
            .refused("The SKU is taken in the entity, ignoring case"),
        op("put", "/api/products", "Products", "updateProduct", "Update a product", S, Update { body: "ProductUpdate", record: "Product" })
            .rules(&["docs/conventions.md#request-bodies", "docs/inventory.md#product-stock", "docs/inventory.md#deactivated-products"])
            .refused("The SKU is taken in the entity, or `stock_qty` is below the quantity held at locations"),
        op("delete", "/api/products", "Products", "deleteProduct", "Delete a product without history", S, Delete)
            .refused("The product has stock movements or document lines: deactivate it instead"),
        op("get", "/api/warehouse-locations", "Warehouse locations", "listWarehouseLocations", "List warehouse locations", S, List("WarehouseLocation"))
            .rules(&["docs/inventory.md#locations", "docs/conventions.md#ordering"])
            .note("Inactive locations included."),
        op("post", "/api/warehouse-locations", "Warehouse locations", "createWarehouseLocation", "Create a warehouse location", S, Create { body: "WarehouseLocationCreate", record: "WarehouseLocation" })
            .never_refused(),
        op("put", "/api/warehouse-locations", "Warehouse locations", "updateWarehouseLocation", "Update or (de)activate a warehouse location", S, Update { body: "WarehouseLocationUpdate", record: "WarehouseLocation" })
            .rules(&["docs/inventory.md#inactive-locations"])
            .never_refused(),
        op("delete", "/api/warehouse-locations", "Warehouse locations", "deleteWarehouseLocation", "Delete an unused warehouse location", S, Delete)
            .refused("Stock rows, movements, transfer orders or stock takes reference the location: deactivate it instead"),
        op("get", "/api/warehouse-stock", "Warehouse stock", "listWarehouseStock", "List stock rows", S, FilteredList("WarehouseStock", &[ByProduct, ByLocation, ByEntity]))
            .rules(&["docs/inventory.md#stock-rows"])
            .note("By location name, then product name."),
        op("post", "/api/warehouse-stock", "Warehouse stock", "upsertWarehouseStock", "Create or update the stock row of a product at a location", S, Upsert { body: "WarehouseStockUpsert", record: "WarehouseStock" })
            .rules(&["docs/inventory.md#stock-rows"])
            .refused("A quantity change at an inactive location, or one that would take the stock below zero"),
        op("put", "/api/warehouse-stock", "Warehouse stock", "updateWarehouseStock", "Update a stock row", S, Update { body: "WarehouseStockUpdate", record: "WarehouseStock" })
            .rules(&["docs/inventory.md#stock-rows", "docs/ledger.md#invariants"])
            .refused("A quantity change at an inactive location or below zero, or a `reserved_quantity` below what in-transit transfer orders hold"),
        op("get", "/api/stock-movements", "Stock movements", "listStockMovements", "List stock movements (the ledger)", S, FilteredList("StockMovement", &[ByProduct, ByEntity, ByLocation, Filter::Own(movement_type), DateFrom, DateTo, ByDocument, Format]))
            .rules(&["docs/ledger.md#movements-endpoint", "docs/documents-stock.md#the-movement-history-as-a-spreadsheet"])
            .note("With `format=csv` the columns are date, type, product_id, product_sku, product_name, qty, location_id, location_name, unit_cost, reference, notes, document_id, entity_id, id, created_at."),
        op("post", "/api/stock-movements", "Stock movements", "createStockMovement", "Record a stock movement", S, Create { body: "StockMovementCreate", record: "StockMovement" })
            .rules(&["docs/ledger.md#movements-endpoint", "docs/ledger.md#sign-rules", "docs/ledger.md#negative-stock", "docs/ledger.md#stock-over-time", "docs/ledger.md#weighted-average-cost"])
            .refused("Insufficient stock (the movement would take the location's stock, or the unallocated stock, below zero at the end of its date or of a later one), or an inactive location"),
        op("post", "/api/stock/put-away", "Stock movements", "putAwayStock", "Put unallocated stock away into a location", S, Create { body: "PutAwayCreate", record: "PutAway" })
            .rules(&["docs/inventory.md#put-away", "docs/ledger.md#stock-over-time"])
            .refused("Not enough unallocated stock (at the end of the date or of a later one), whatever allow_negative_stock says, or an inactive location"),
        op("get", "/api/transfer-orders", "Transfer orders", "listTransferOrders", "List transfer orders with lines", S, FilteredList("TransferOrder", &[ByEntity, ById, WithLines]))
            .rules(&["docs/documents.md#lists", "docs/conventions.md#ordering"]),
        op("post", "/api/transfer-orders", "Transfer orders", "createTransferOrder", "Create a draft transfer order", S, Create { body: "TransferOrderCreate", record: "TransferOrder" })
            .rules(&["docs/documents.md#numbering", "docs/documents.md#transfer-orders"])
            .refused("Source and destination are the same location, there are no lines, or a location is inactive"),
        op("put", "/api/transfer-orders", "Transfer orders", "updateTransferOrder", "Ship, receive or cancel a transfer order; edit a draft", S, Update { body: "TransferOrderUpdate", record: "TransferOrder" })
            .rules(&["docs/documents.md#transfer-order-states", "docs/documents.md#transfer-stock-effects"])
            .refused("A transition not listed (a completed order cannot be cancelled), not enough stock at the source to ship (naming the product, the quantity needed and the quantity available), an inactive location when shipping, or lines or notes changed after draft"),
        op("delete", "/api/transfer-orders", "Transfer orders", "deleteTransferOrder", "Delete a draft transfer order", S, Delete)
            .refused("The order is not a draft"),
        op("get", "/api/stock-takes", "Stock takes", "listStockTakes", "List stock takes with lines", S, FilteredList("StockTake", &[ByEntity, ById, WithLines]))
            .rules(&["docs/documents.md#lists", "docs/conventions.md#ordering"]),
        op("post", "/api/stock-takes", "Stock takes", "createStockTake", "Start a stock take of a location", S, Create { body: "StockTakeCreate", record: "StockTake" })
            .rules(&["docs/documents.md#numbering", "docs/documents.md#stock-takes"])
            .refused("The location is inactive"),
        op("put", "/api/stock-takes", "Stock takes", "updateStockTake", "Enter counts; start, complete or cancel a stock take", S, Update { body: "StockTakeUpdate", record: "StockTake" })
            .rules(&["docs/documents.md#stock-take-states", "docs/documents.md#counts-and-completion"])
            .refused("A transition not listed (completing needs in_progress; a completed stock take cannot be cancelled), or counts or notes after counting ended"),
        op("delete", "/api/stock-takes", "Stock takes", "deleteStockTake", "Delete a draft or cancelled stock take", S, Delete)
            .refused("The stock take is neither draft nor cancelled"),
        op("get", "/api/reports/stock-valuation", "Reports", "stockValuation", "Stock valuation report", S, PagedReport { whole: "StockValuation", page: "StockValuationPage", filters: &[ByEntity, ByLocation, AsOf, Format] })
            .rules(&["docs/inventory.md#valuation-report", "docs/inventory.md#valuation-report-by-the-page", "docs/inventory.md#valuation-report-as-a-spreadsheet", "docs/documents-stock.md#stock-as-at-a-date"])
            .note("A `locationId` of another entity than `entityId` is 400."),
        op("get", "/api/reports/gross-margin", "Reports", "grossMargin", "Gross margin per product over posted invoices", S, BareReport("GrossMargin", &[ByEntity, IssuedFrom, IssuedTo]))
            .rules(&["docs/documents-stock.md#costs", "docs/conventions.md#decimals-and-rounding"]),
        op("get", "/api/inventory/summary", "Reports", "inventorySummary", "Dashboard figures", S, Report("InventorySummary", &[ByEntity])),
        op("get", "/api/inventory/alerts", "Reports", "inventoryAlerts", "Low-stock alerts", S, ReportList("InventoryAlert", &[ByEntity, ByLocation]))
            .rules(&["docs/inventory.md#low-stock-alerts"])
            .note("Global alerts by product name, then location alerts by location and product name. A `locationId` of another entity than `entityId` is 400."),
        op("get", "/api/inventory/locations", "Reports", "inventoryLocations", "Figures per warehouse location", S, ReportList("LocationFigures", &[ByEntity]))
            .rules(&["docs/inventory.md#per-location-figures"])
            .note("By name."),
    ]
}

/// The schemas of the inventory.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
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
            ("vat_treatment", one_of_values(TREATMENTS, "docs/accounting.md#vat-treatment; what a line naming the product takes when it gives neither rate nor treatment.")),
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
            ("vat_rate", percent("Default the treatment's rate (standard and reverse_charge 20, reduced 5, others 0), else 20.")),
            ("vat_treatment", one_of_values(TREATMENTS, "Default: follows vat_rate (0 zero, 5 reduced, else standard). zero, exempt and outside_scope with a non-zero vat_rate are 400.")),
            ("stock_qty", non_negative(qty("Opening stock, not negative: recorded as an adjustment movement at stock_location_id, or without location when that is omitted."))),
            ("stock_location_id", opt_ref("Where the opening stock_qty is: an active location of the product's entity (another entity's: 400; inactive: 409; unknown or foreign: 404). Omitted or null: unallocated.")),
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
            ("vat_rate", percent("Sent without vat_treatment: a reverse_charge treatment stays, a no-VAT one stays at 0, others follow the rate.")),
            ("vat_treatment", one_of_values(TREATMENTS, "Sent without vat_rate: the rate becomes the treatment's (standard and reverse_charge 20, reduced 5, others 0).")),
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
            ("updated_at", timestamp()),
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
                ("updated_at", json!({ "type": "string", "format": "date-time", "description": "RFC 3339, UTC: the last change of its quantities or reorder point." })),
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
                ("updated_at", json!({ "type": "string", "format": "date-time", "description": "RFC 3339, UTC. Never changed after it is recorded: the same as created_at." })),
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
            ("date", opt_date("Default today (UTC); a date after today is refused (400).")),
            ("unit_cost", non_negative(price("A purchase only, not negative: cost_price becomes the weighted average (old_qty × old_cost + qty × unit_cost) / (old_qty + qty), or unit_cost without stock before."))),
            ("entity_id", opt_id("Default the product's entity; when sent, it must be the product's (400).")),
        ])),
        ("PutAwayCreate", object(&["product_id", "location_id", "qty"], vec![
            ("product_id", id_of("Unknown or foreign: 404.")),
            ("location_id", id_of("Where the units go (unknown or foreign: 404; another entity's: 400; inactive: 409).")),
            ("qty", positive(qty("The units to move out of the unallocated stock: above 0."))),
            ("date", opt_date("Default today (UTC); a date after today is refused (400).")),
            ("notes", opt_text()),
        ])),
        ("PutAway", {
            let mut v = record(vec![
                ("reference", text("PA- and twelve hex digits: the reference both movements carry.")),
                ("movements", array(reference("StockMovement"))),
            ]);
            v["description"] = json!("The linked pair: a transfer_out without location, then a transfer_in at the location, of the same quantity.");
            v
        }),
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
            ("retailMargin", nullable(figure(2, "Percentage: the margin of the stock at retail value, Σ(quantity × (unit_price − cost_price)) / Σ(quantity × unit_price) × 100 over the rows of products with a unit_price above 0, rounded once; null when they hold no retail value."))),
            ("unpricedProducts", json!({ "type": "integer", "description": "Distinct products with a row and no unit_price (0): left out of retailMargin." })),
            ("inTransitUnits", figure(3, "Units in in-transit transfer orders (from the location, with locationId): in no row. Absent with asOf.")),
            ("inTransitCostValue", figure(2, "Their value at cost, rounded. Absent with asOf.")),
            ]);
            // Without asOf every figure is present; with it, the in-transit ones are not.
            v["required"] = json!(["totalCostValue", "totalRetailValue", "totalUnits", "avgMargin", "retailMargin", "unpricedProducts"]);
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
