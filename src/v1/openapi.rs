//! The public API in the OpenAPI document (docs/public-api.md). Its records and bodies
//! are the session API's (the accounting and inventory schemas).

use crate::http::openapi::*;
use serde_json::Value;
use Auth::ApiKey as K;
use Filter::{
    DateFrom, DateTo, Document as ByDocument, Entity as ByEntity, Location as ByLocation,
    Product as ByProduct,
};
use Shape::{Create, RecordDelete, RecordGet, RecordUpdate, V1FilteredList, V1List};

/// The operations of `/api/v1`.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/v1/transactions", "Public API", "v1ListTransactions", "List bank transactions", K, V1List("Transaction")),
        op("get", "/api/v1/invoices", "Public API", "v1ListInvoices", "List invoices with line items", K, V1List("Invoice")),
        op("post", "/api/v1/invoices", "Public API", "v1CreateInvoice", "Create an invoice", K, Create { body: "InvoiceCreate", record: "Invoice" }),
        op("get", "/api/v1/bills", "Public API", "v1ListBills", "List bills with line items", K, V1List("Bill")),
        op("post", "/api/v1/bills", "Public API", "v1CreateBill", "Create a bill", K, Create { body: "BillCreate", record: "Bill" }),
        op("get", "/api/v1/payments", "Public API", "v1ListPayments", "List payments", K, V1List("Payment")),
        op("post", "/api/v1/payments", "Public API", "v1CreatePayment", "Record a payment on an invoice or bill", K, Create { body: "PaymentCreate", record: "Payment" })
            .rules(crate::accounting::payments::openapi::RULES)
            .refused(crate::accounting::payments::openapi::REFUSED),
        op("get", "/api/v1/credit-notes", "Public API", "v1ListCreditNotes", "List credit notes with line items", K, V1List("CreditNote")),
        op("post", "/api/v1/credit-notes", "Public API", "v1CreateCreditNote", "Create a credit note", K, Create { body: "CreditNoteCreate", record: "CreditNote" }),
        op("get", "/api/v1/contacts", "Public API", "v1ListContacts", "List contacts", K, V1List("Contact")),
        op("post", "/api/v1/contacts", "Public API", "v1CreateContact", "Create a contact", K, Create { body: "ContactCreate", record: "Contact" }),
        op("get", "/api/v1/products", "Public API", "v1ListProducts", "List products with stock levels", K, V1List("Product")),
        op("post", "/api/v1/products", "Public API", "v1CreateProduct", "Create a product", K, Create { body: "ProductCreate", record: "Product" }),
        op("get", "/api/v1/employees", "Public API", "v1ListEmployees", "List employees", K, V1List("Employee")),
        op("get", "/api/v1/categories", "Public API", "v1ListCategories", "List expense categories", K, V1List("ExpenseCategory")),
        op("get", "/api/v1/supplier-credits", "Public API", "v1ListSupplierCredits", "List supplier credits with line items", K, V1List("SupplierCredit")),
        op("get", "/api/v1/warehouse-locations", "Public API", "v1ListWarehouseLocations", "List warehouse locations", K, V1List("WarehouseLocation")),
        op("get", "/api/v1/warehouse-stock", "Public API", "v1ListWarehouseStock", "List stock levels by product and location", K, V1FilteredList("WarehouseStock", &[ByProduct, ByLocation, ByEntity])),
        op("get", "/api/v1/stock-movements", "Public API", "v1ListStockMovements", "List stock movements (the ledger), oldest first", K, V1FilteredList("StockMovement", &[ByProduct, ByEntity, ByLocation, Filter::Own(crate::inventory::openapi::movement_type), DateFrom, DateTo, ByDocument])),
        op("post", "/api/v1/supplier-credits", "Public API", "v1CreateSupplierCredit", "Create a supplier credit", K, Create { body: "SupplierCreditCreate", record: "SupplierCredit" }),
    ]
    .into_iter()
    .chain(record_operations())
    .collect()
}

/// The record paths (docs/public-api.md#record-paths): `GET`, `PUT` and `DELETE` of
/// `/api/v1/<resource>/{id}`; payments have no PUT, as in the session API.
#[rustfmt::skip]
fn record_operations() -> Vec<Operation> {
    macro_rules! record {
        ($path:literal, $name:literal, $words:literal) => {
            [
                op("get", concat!("/api/v1/", $path, "/{id}"), "Public API", concat!("v1Get", $name), concat!("Read one ", $words), K, RecordGet($name)),
                op("put", concat!("/api/v1/", $path, "/{id}"), "Public API", concat!("v1Update", $name), concat!("Update a ", $words, " (the fields sent)"), K, RecordUpdate { body: concat!($name, "RecordUpdate"), record: $name }),
                op("delete", concat!("/api/v1/", $path, "/{id}"), "Public API", concat!("v1Delete", $name), concat!("Delete a ", $words), K, RecordDelete),
            ]
        };
    }
    [
        record!("invoices", "Invoice", "invoice"),
        record!("bills", "Bill", "bill"),
        record!("credit-notes", "CreditNote", "credit note"),
        record!("supplier-credits", "SupplierCredit", "supplier credit"),
        record!("contacts", "Contact", "contact"),
        record!("products", "Product", "product"),
    ]
    .concat()
    .into_iter()
    .chain([
        op("get", "/api/v1/payments/{id}", "Public API", "v1GetPayment", "Read one payment", K, RecordGet("Payment")),
        op("delete", "/api/v1/payments/{id}", "Public API", "v1DeletePayment", "Delete a payment", K, RecordDelete),
    ])
    .collect()
}

/// The record types whose v1 PUT body `<Name>RecordUpdate` is derived from the session
/// API's `<Name>Update`.
const UPDATABLE: &[(&str, &str)] = &[
    ("InvoiceRecordUpdate", "InvoiceUpdate"),
    ("BillRecordUpdate", "BillUpdate"),
    ("CreditNoteRecordUpdate", "CreditNoteUpdate"),
    ("SupplierCreditRecordUpdate", "SupplierCreditUpdate"),
    ("ContactRecordUpdate", "ContactUpdate"),
    ("ProductRecordUpdate", "ProductUpdate"),
];

/// The record paths' PUT bodies: the session API's update bodies without `id`.
pub fn schemas() -> Vec<(&'static str, Value)> {
    let sources: Vec<(&'static str, Value)> = [
        crate::accounting::openapi::schemas(),
        crate::inventory::openapi::schemas(),
    ]
    .concat();
    UPDATABLE
        .iter()
        .filter_map(|&(body, session)| {
            let (_, update) = sources.iter().find(|(n, _)| *n == session)?;
            Some((body, fields_of(update)))
        })
        .collect()
}
