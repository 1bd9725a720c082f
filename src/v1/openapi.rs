//! The public API in the OpenAPI document (docs/public-api.md). Its records and bodies
//! are the session API's (the accounting and inventory schemas).

use crate::http::openapi::*;
use Auth::ApiKey as K;
use Shape::{Create, V1List};

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
    ]
}
