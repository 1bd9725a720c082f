//! Payments in the OpenAPI document (docs/accounting.md#payments): the session
//! operations and the record and body both APIs share.

use serde_json::{json, Value};

use crate::accounting::documents::DocKind;
use crate::http::openapi::*;
use Auth::Session as S;
use Filter::{Entity as ByEntity, Own, RecordId as ById};
use Shape::{Create, Delete, FilteredList};

/// Where the rules of payments are written.
pub const RULES: &[&str] = &[
    "docs/accounting.md#payments",
    "docs/accounting.md#status-follows-money",
];

/// What refuses a payment (409).
pub const REFUSED: &str =
    "The document is draft or void, or the amount is more than its amount_due";

fn by_document() -> Value {
    query_param(
        "documentId",
        "Only the payments of this document (invoice or bill).",
        uuid(),
    )
}

/// The session operations of `/api/payments`.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/payments", "Payments", "listPayments", "List payments, newest date first", S, FilteredList("Payment", &[ByEntity, ById, Own(by_document)])),
        op("post", "/api/payments", "Payments", "createPayment", "Record a payment on an invoice or bill", S, Create { body: "PaymentCreate", record: "Payment" })
            .rules(RULES)
            .refused(REFUSED),
        op("delete", "/api/payments", "Payments", "deletePayment", "Delete a payment (a payment is corrected by deleting it and recording another)", S, Delete)
            .rules(RULES)
            .never_refused(),
    ]
}

/// `Payment` and `PaymentCreate`.
pub fn schemas() -> Vec<(&'static str, Value)> {
    let types: Vec<&str> = DocKind::ALL.iter().map(|k| k.document_type()).collect();
    vec![
        (
            "Payment",
            record(vec![
                ("id", uuid()),
                ("entity_id", nullable(uuid())),
                ("document_id", uuid()),
                (
                    "document_type",
                    json!({ "type": "string", "enum": types, "description": "What document_id names." }),
                ),
                ("date", date()),
                ("amount", money("Above 0.")),
                ("method", nullable(string())),
                ("reference", nullable(string())),
                ("created_at", timestamp()),
                (
                    "updated_at",
                    json!({ "type": "string", "format": "date-time", "description": "RFC 3339, UTC. Never changed after it is recorded: the same as created_at." }),
                ),
            ]),
        ),
        (
            "PaymentCreate",
            object(
                &["document_id", "amount"],
                vec![
                    ("document_id", uuid()),
                    ("date", opt_date("Default today; not in the future.")),
                    (
                        "amount",
                        positive(money(
                            "Above 0; not more than the document's amount_due (409).",
                        )),
                    ),
                    ("method", nullable(text("Free text: bank, card, cash, ..."))),
                    ("reference", nullable(string())),
                ],
            ),
        ),
    ]
}
