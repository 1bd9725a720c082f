//! Printing and sending invoices and credit notes in the OpenAPI document
//! (docs/accounting.md#printing-and-sending-invoices).

use serde_json::{json, Value};

use crate::http::openapi::*;
use crate::vat::TREATMENTS;
use Auth::Session as S;
use Shape::{Action, Bare, File};

const RULES: &[&str] = &["docs/accounting.md#printing-and-sending-invoices"];
const SEND_RULES: &[&str] = &["docs/accounting.md#sending-by-email"];
const SEND_ANSWERS: &[(&str, &str)] = &[
    ("400", "Malformed JSON, a wrong type, or no recipient: `to` is not an email address, or it is left out and the customer has none"),
    ("409", "Mail is not configured (`smtp`), the document is a draft or void, or a request with this Idempotency-Key is still running"),
    ("502", "The mail server refused the message or could not be reached: the message names the server and its answer; nothing is recorded"),
];

/// The print, PDF and send operations of invoices and credit notes.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/invoices/{id}/print", "Invoices", "printInvoice", "What the printed invoice shows (HMRC's full VAT invoice), and whether mail is configured", S, Bare("PrintAnswer")).rules(RULES),
        op("get", "/api/invoices/{id}/pdf", "Invoices", "invoicePdf", "The invoice as a PDF to download", S, File("application/pdf")).rules(RULES),
        op("post", "/api/invoices/{id}/send", "Invoices", "sendInvoice", "Email the invoice with its PDF attached", S, Action { body: "SendBody", record: "DocumentSent" }).rules(SEND_RULES).answers(SEND_ANSWERS),
        op("get", "/api/credit-notes/{id}/print", "Credit notes", "printCreditNote", "What the printed credit note shows, and whether mail is configured", S, Bare("PrintAnswer")).rules(RULES),
        op("get", "/api/credit-notes/{id}/pdf", "Credit notes", "creditNotePdf", "The credit note as a PDF to download", S, File("application/pdf")).rules(RULES),
        op("post", "/api/credit-notes/{id}/send", "Credit notes", "sendCreditNote", "Email the credit note with its PDF attached", S, Action { body: "SendBody", record: "DocumentSent" }).rules(SEND_RULES).answers(SEND_ANSWERS),
    ]
}

fn party() -> Value {
    let mut v = record(vec![
        ("name", string()),
        ("address", nullable(string())),
        ("vat_number", nullable(string())),
    ]);
    v["properties"]["email"] = json!({ "anyOf": [string(), { "type": "null" }], "description": "The customer's email (the default recipient); absent for the seller." });
    v
}

/// The printed document, its answer, the send body and its answer.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("PrintParty", party()),
        ("PrintLine", record(vec![
            ("description", string()),
            ("quantity", qty("")),
            ("unit_price", price("")),
            ("discount", percent("")),
            ("vat_rate", percent("")),
            ("vat_treatment", one_of_values(TREATMENTS, "")),
            ("vat_label", text("The rate as printed: `20%`, `0% (zero-rated)`, `Exempt`, `Outside the scope of VAT`.")),
            ("net", money("")),
            ("vat", money("")),
        ])),
        ("PrintRateTotal", record(vec![
            ("vat_label", string()),
            ("vat_rate", percent("")),
            ("net", money("The net of the lines at this rate.")),
            ("vat", money("Their VAT.")),
        ])),
        ("DocumentSent", record(vec![
            ("sent_at", timestamp()),
            ("recipient", string()),
        ])),
        ("PrintDocument", record(vec![
            ("id", uuid()),
            ("kind", one_of_values(&["invoice", "credit_note"], "")),
            ("title", one_of_values(&["VAT invoice", "Invoice", "Credit note"], "`VAT invoice` when the seller has a VAT number.")),
            ("number", nullable(string())),
            ("status", string()),
            ("issue_date", date()),
            ("time_of_supply", json!({ "type": "string", "format": "date", "description": "The tax point: the issue date." })),
            ("due_date", date()),
            ("currency", string()),
            ("seller", reference("PrintParty")),
            ("logo_url", nullable(text("`/api/entities/<id>/logo` when the seller has a logo."))),
            ("customer", reference("PrintParty")),
            ("lines", array(reference("PrintLine"))),
            ("vat_by_rate", array(reference("PrintRateTotal"))),
            ("subtotal", money("")),
            ("vat_total", money("")),
            ("total", money("")),
            ("vat_total_gbp", nullable(money("In another currency than GBP: the VAT in pounds."))),
            ("amount_due", money("")),
            ("reverse_charge_note", nullable(string())),
            ("credited_invoice", nullable(record(vec![("id", uuid()), ("number", nullable(string())), ("issue_date", date())]))),
            ("reason", nullable(text("Credit notes: the reason (the note's `notes`)."))),
            ("notes", nullable(text("Invoices: the notes printed under the lines."))),
            ("sends", array(reference("DocumentSent"))),
        ])),
        ("PrintAnswer", object(&["data", "mail_configured"], vec![
            ("data", reference("PrintDocument")),
            ("mail_configured", json!({ "type": "boolean", "description": "Whether the operator configured `smtp`: the web app shows its send button only then." })),
        ])),
        ("SendBody", object(&[], vec![
            ("to", nullable(text("The recipient; default the customer's email."))),
            ("subject", nullable(text("Default `<title> <number> from <seller>`."))),
            ("message", nullable(text("The text of the email; default a line naming the document, its total and due date."))),
        ])),
    ]
}
