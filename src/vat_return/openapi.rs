//! The VAT return in the OpenAPI document (docs/vat.md).

use serde_json::{json, Value};

use crate::http::openapi::*;
use Auth::Session as S;
use Shape::{Create, ReportList};

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
        op("get", "/api/vat/returns", "VAT", "listVatReturns", "The VAT returns filed for an entity, newest period first", S, ReportList("VatReturn", &[Filter::Own(required_entity)]))
            .rules(&["docs/vat.md#filed-returns"]),
        op("post", "/api/vat/returns", "VAT", "recordVatReturn", "Record a VAT return filed elsewhere: its nine boxes computed now and kept, the lock date moved to its end", S, Create { body: "VatReturnCreate", record: "VatReturn" })
            .rules(&["docs/vat.md#filed-returns"])
            .refused("A return is already filed for a period sharing a day with this one"),
        op("get", "/api/vat/periods", "VAT", "listVatPeriods", "The entity's VAT periods (quarters), newest first, each with the return filed for it", S, ReportList("VatPeriod", &[Filter::Own(required_entity)]))
            .rules(&["docs/vat.md#periods"]),
    ]
}

/// The nine boxes, as HMRC's VAT API names them (docs/vat.md).
pub fn boxes_schema() -> Value {
    let money = |d: &str| figure(2, d);
    let pounds = |d: &str| json!({ "type": "integer", "description": format!("{d} Whole pounds (the pence of the exact sum dropped).") });
    record(vec![
        (
            "vatDueSales",
            money("Box 1: VAT due on sales and other outputs."),
        ),
        (
            "vatDueAcquisitions",
            money("Box 2: VAT due on acquisitions of goods from the EU (Northern Ireland)."),
        ),
        ("totalVatDue", money("Box 3: box 1 + box 2.")),
        (
            "vatReclaimedCurrPeriod",
            money("Box 4: VAT reclaimed on purchases and other inputs."),
        ),
        ("netVatDue", money("Box 5: |box 3 − box 4|.")),
        (
            "totalValueSalesExVAT",
            pounds("Box 6: total value of sales, excluding VAT."),
        ),
        (
            "totalValuePurchasesExVAT",
            pounds("Box 7: total value of purchases, excluding VAT."),
        ),
        (
            "totalValueGoodsSuppliedExVAT",
            pounds("Box 8: goods supplied to the EU (Northern Ireland)."),
        ),
        (
            "totalAcquisitionsExVAT",
            pounds("Box 9: acquisitions of goods from the EU (Northern Ireland)."),
        ),
    ])
}

/// `VatReturn`, `VatReturnCreate` and `VatPeriod`.
pub fn returns_schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "VatReturn",
            record(vec![
                ("id", uuid()),
                ("entity_id", uuid()),
                ("from", date()),
                ("to", date()),
                ("period_key", nullable(text("HMRC's key of the obligation; null for a recorded return."))),
                ("boxes", boxes_schema()),
                ("filed_at", timestamp()),
                ("filed_by", id_of("The user who filed or recorded it.")),
                ("method", one_of_values(&["recorded", "hmrc"], "`recorded`: filed elsewhere; `hmrc`: submitted through Making Tax Digital.")),
                ("receipt", json!({ "description": "HMRC's receipt; null for a recorded return." })),
            ]),
        ),
        (
            "VatReturnCreate",
            object(
                &["entity_id", "from", "to"],
                vec![
                    ("entity_id", uuid()),
                    ("from", date()),
                    ("to", json!({ "type": "string", "format": "date", "description": "YYYY-MM-DD, not before `from`, at most 366 days after it, and before today (400)." })),
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
