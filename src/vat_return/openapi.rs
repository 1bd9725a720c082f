//! The VAT return in the OpenAPI document (docs/vat.md): the operations and schemas of
//! `/api/vat/...`.

use serde_json::{json, Value};

use crate::http::openapi::*;
use Auth::Session as S;
use Filter::{Format, Own};
use Shape::{BareReport, Create, Delete, FilteredList, Query, Update};

/// The period of a return: `entityId`, `from`, `to`, all required.
const PERIOD: &[Param] = &[
    param("entityId", true, "The entity.", uuid),
    param("from", true, "The period's first day (inclusive).", date),
    param(
        "to",
        true,
        "The period's last day (inclusive): on or after `from`, at most 366 days on.",
        date,
    ),
];

fn entity_param() -> Value {
    let mut p = query_param("entityId", "The entity.", uuid());
    p["required"] = json!(true);
    p
}

fn from_param() -> Value {
    let mut p = query_param("from", "The period's first day (inclusive).", date());
    p["required"] = json!(true);
    p
}

fn to_param() -> Value {
    let mut p = query_param(
        "to",
        "The period's last day (inclusive): on or after `from`, at most 366 days on.",
        date(),
    );
    p["required"] = json!(true);
    p
}

fn box_param() -> Value {
    query_param(
        "box",
        "The box: 1, 2, 4, 6, 7, 8 or 9. Required for JSON; omitted with format=csv, every box.",
        json!({ "type": "integer", "enum": [1, 2, 4, 6, 7, 8, 9] }),
    )
}

/// Where the computation's rules are written.
pub const RULES: &[&str] = &[
    "docs/vat.md#the-computation",
    "docs/vat.md#standard-scheme",
    "docs/vat.md#cash-accounting-scheme",
    "docs/vat.md#flat-rate-scheme",
];

/// The operations of the computation and the drill-down.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        // The return and its drill-down.
        op("get", "/api/vat/return", "VAT", "getVatReturn", "The nine boxes of a VAT return for a period, on the entity's scheme", S, Query { params: PERIOD, record: "VatReturn" })
            .rules(RULES),
        op("get", "/api/vat/return/lines", "VAT", "getVatReturnLines", "The lines that make up a box of the VAT return (format=csv: every box, with a box column)", S, BareReport("VatReturnLines", &[Own(entity_param), Own(from_param), Own(to_param), Own(box_param), Format]))
            .rules(&["docs/vat.md#the-drill-down"]),
        op("get", "/api/vat/adjustments", "VAT", "listVatAdjustments", "List an entity's VAT adjustments, oldest first", S, FilteredList("VatAdjustment", &[Own(entity_param), Own(adj_from), Own(adj_to)]))
            .rules(ADJUSTMENTS),
        op("post", "/api/vat/adjustments", "VAT", "createVatAdjustment", "Record a VAT adjustment (postponed import VAT, bad debt relief, a correction)", S, Create { body: "VatAdjustmentCreate", record: "VatAdjustment" })
            .rules(ADJUSTMENTS)
            .refused(LOCKED),
        op("put", "/api/vat/adjustments", "VAT", "updateVatAdjustment", "Change a VAT adjustment", S, Update { body: "VatAdjustmentUpdate", record: "VatAdjustment" })
            .rules(ADJUSTMENTS)
            .refused(LOCKED),
        op("delete", "/api/vat/adjustments", "VAT", "deleteVatAdjustment", "Delete a VAT adjustment", S, Delete)
            .rules(ADJUSTMENTS)
            .refused(LOCKED),
    ]
}

const ADJUSTMENTS: &[&str] = &["docs/vat.md#adjustments"];
const LOCKED: &str = "The adjustment is dated (or moved) on or before the entity's lock date";

fn adj_from() -> Value {
    query_param(
        "from",
        "Only adjustments dated on or after this day.",
        date(),
    )
}

fn adj_to() -> Value {
    query_param(
        "to",
        "Only adjustments dated on or before this day.",
        date(),
    )
}

fn adjustment_box() -> Value {
    json!({ "type": "integer", "enum": [1, 2, 4, 6, 7, 8, 9], "description": "The box it counts in (3 and 5 are computed)." })
}

fn adjustment_amount() -> Value {
    money("Signed; not 0.")
}

fn boxes() -> Value {
    // Sums of many records: a computed figure, no per-record magnitude bound.
    let money2 = |d: &str| figure(2, d);
    let pounds = |d: &str| json!({ "type": "integer", "description": d });
    object(
        &[
            "vatDueSales",
            "vatDueAcquisitions",
            "totalVatDue",
            "vatReclaimedCurrPeriod",
            "netVatDue",
            "totalValueSalesExVAT",
            "totalValuePurchasesExVAT",
            "totalValueGoodsSuppliedExVAT",
            "totalAcquisitionsExVAT",
        ],
        vec![
            (
                "vatDueSales",
                money2("Box 1: VAT due on sales and other outputs."),
            ),
            (
                "vatDueAcquisitions",
                money2("Box 2: VAT due on acquisitions (adjustments only)."),
            ),
            ("totalVatDue", money2("Box 3: box 1 + box 2.")),
            (
                "vatReclaimedCurrPeriod",
                money2("Box 4: VAT reclaimed on purchases and other inputs."),
            ),
            ("netVatDue", non_negative(money2("Box 5: |box 3 − box 4|."))),
            (
                "totalValueSalesExVAT",
                pounds("Box 6: whole pounds, the pence dropped."),
            ),
            (
                "totalValuePurchasesExVAT",
                pounds("Box 7: whole pounds, the pence dropped."),
            ),
            (
                "totalValueGoodsSuppliedExVAT",
                pounds("Box 8: whole pounds (adjustments only)."),
            ),
            (
                "totalAcquisitionsExVAT",
                pounds("Box 9: whole pounds (adjustments only)."),
            ),
        ],
    )
}

/// The schemas of the computation and the drill-down.
pub fn schemas() -> Vec<(&'static str, Value)> {
    // Computed from records (a line's gross may pass one record's bound): no bound.
    let amount = |d: &str| figure(6, d);
    vec![
        ("VatBoxes", boxes()),
        (
            "VatReturn",
            record(vec![
                ("entity_id", uuid()),
                ("from", date()),
                ("to", date()),
                ("scheme", one_of_values(&["standard", "cash", "flat_rate"], "The entity's scheme.")),
                ("boxes", reference("VatBoxes")),
                ("filed", nullable(reference("VatFiledReturn"))),
            ]),
        ),
        (
            "VatReturnLine",
            record(vec![
                ("box", integer()),
                (
                    "source_type",
                    one_of_values(
                        &[
                            "invoice", "credit_note", "bill", "supplier_credit",
                            "invoice_payment", "credit_note_refund", "bill_payment",
                            "supplier_credit_refund", "expense", "adjustment", "rounding",
                        ],
                        "What the line comes from.",
                    ),
                ),
                ("source_id", nullable(uuid())),
                ("number", nullable(text("The document's number (a payment: its document's); an expense's or adjustment's description."))),
                ("date", date()),
                ("contact_name", nullable(string())),
                ("treatment", nullable(string())),
                ("net", amount("The line's net in pounds; negative on credits and refunds.")),
                ("vat", amount("The line's VAT in pounds; negative on credits and refunds.")),
                ("amount", amount("The contribution to the box, before any pence are dropped.")),
            ]),
        ),
        (
            "VatAdjustment",
            record(vec![
                ("id", uuid()),
                ("entity_id", uuid()),
                ("date", date()),
                ("box", adjustment_box()),
                ("amount", adjustment_amount()),
                ("description", string()),
                ("created_at", timestamp()),
                ("updated_at", timestamp()),
            ]),
        ),
        (
            "VatAdjustmentCreate",
            object(
                &["entity_id", "date", "box", "amount", "description"],
                vec![
                    ("entity_id", uuid()),
                    ("date", date()),
                    ("box", adjustment_box()),
                    ("amount", adjustment_amount()),
                    ("description", name_text("What it is: postponed import VAT for a month, bad debt relief on an invoice, a correction.")),
                ],
            ),
        ),
        (
            "VatAdjustmentUpdate",
            object(
                &["id"],
                vec![
                    ("id", uuid()),
                    ("date", date()),
                    ("box", adjustment_box()),
                    ("amount", adjustment_amount()),
                    ("description", name_text("")),
                ],
            ),
        ),
        (
            "VatReturnLines",
            object(
                &["data", "total"],
                vec![
                    ("data", array(reference("VatReturnLine"))),
                    ("total", amount("The lines' sum: the box before its pence are dropped.")),
                ],
            ),
        ),
    ]
}

// Filed returns and the periods.

/// `entityId`, required.
fn required_entity() -> Value {
    let mut v = query_param(
        "entityId",
        "The entity (required: 400 without; an unknown or foreign entity is 404).",
        uuid(),
    );
    v["required"] = json!(true);
    v
}

/// The operations of filed returns and periods.
#[rustfmt::skip]
pub fn returns_operations() -> Vec<Operation> {
    vec![
        op("get", "/api/vat/returns", "VAT", "listVatReturns", "The VAT returns filed for an entity, newest period first", S, Shape::ReportList("VatFiledReturn", &[Filter::Own(required_entity)]))
            .rules(&["docs/vat.md#filed-returns"]),
        op("post", "/api/vat/returns", "VAT", "recordVatReturn", "Record a VAT return filed elsewhere (no period_key), or submit it to HMRC (with period_key, declaration and client): its nine boxes computed now and kept, the lock date moved to its end", S, Shape::Create { body: "VatFiledReturnCreate", record: "VatFiledReturn" })
            .rules(&["docs/vat.md#filed-returns", "docs/hmrc.md#submitting-a-return"])
            .refused("A return is already filed (or being filed) for a period sharing a day with this one or for its period key; HMRC refused it by its rules (DUPLICATE_SUBMISSION, TAX_PERIOD_NOT_ENDED, …, named); not connected to HMRC")
            .answers(&[("503", "HMRC answered 5xx or could not be reached (nothing recorded), or filing with HMRC is not configured on this server")]),
        op("get", "/api/vat/periods", "VAT", "listVatPeriods", "The entity's VAT periods (quarters), newest first, each with the return filed for it", S, Shape::ReportList("VatPeriod", &[Filter::Own(required_entity)]))
            .rules(&["docs/vat.md#periods"]),
    ]
}

/// `VatFiledReturn`, `VatFiledReturnCreate` and `VatPeriod`.
pub fn returns_schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "VatFiledReturn",
            record(vec![
                ("id", uuid()),
                ("entity_id", uuid()),
                ("from", date()),
                ("to", date()),
                ("period_key", nullable(text("HMRC's key of the obligation; null for a recorded return."))),
                ("scheme", one_of_values(&["standard", "cash", "flat_rate"], "The entity's scheme the boxes were computed on.")),
                ("boxes", reference("VatBoxes")),
                ("filed_at", timestamp()),
                ("filed_by", id_of("The user who filed or recorded it.")),
                ("method", one_of_values(&["recorded", "hmrc"], "`recorded`: filed elsewhere; `hmrc`: submitted through Making Tax Digital.")),
                ("receipt", json!({ "description": "HMRC's receipt; null for a recorded return." })),
            ]),
        ),
        (
            "VatFiledReturnCreate",
            object(
                &["entity_id", "from", "to"],
                vec![
                    ("entity_id", uuid()),
                    ("from", date()),
                    ("to", json!({ "type": "string", "format": "date", "description": "YYYY-MM-DD, not before `from`, at most 366 days after it, and, for a return filed elsewhere, before today (400)." })),
                    ("period_key", json!({ "type": "string", "minLength": 4, "maxLength": 4, "description": "HMRC's key of the obligation: submits the return to HMRC (docs/hmrc.md#submitting-a-return)." })),
                    ("declaration", json!({ "type": "boolean", "description": "With period_key: must be true, the user's declaration in HMRC's words." })),
                    ("client", reference("HmrcClient")),
                ],
            ),
        ),
        (
            "HmrcClient",
            object(
                &[],
                vec![
                    ("js_user_agent", string()),
                    ("screens", array(object(&["width", "height"], vec![
                        ("width", integer()),
                        ("height", integer()),
                        ("scaling_factor", json!({ "type": "number" })),
                        ("colour_depth", integer()),
                    ]))),
                    ("window_size", object(&["width", "height"], vec![("width", integer()), ("height", integer())])),
                    ("timezone", text("Like `UTC+01:00`.")),
                    ("do_not_track", boolean()),
                    ("plugins", array(string())),
                    ("device_id", uuid()),
                ],
            ),
        ),
        (
            "VatPeriod",
            record(vec![
                ("from", date()),
                ("to", date()),
                ("filed", nullable(id_of("The return filed for exactly this period, else null."))),
            ]),
        ),
    ]
}
