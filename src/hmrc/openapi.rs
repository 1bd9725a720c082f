//! Filing with HMRC in the OpenAPI document (docs/hmrc.md): the connection, the
//! obligations, a submitted return, liabilities and payments. (`POST /api/vat/returns`
//! is described with the filed returns, in `vat_return::openapi`.)

use serde_json::{json, Value};

use crate::http::openapi::*;
use Auth::Session as S;
use Filter::Own;
use Shape::{Action, Query, Redirect, ReportList};

const ENTITY: &[Param] = &[param("entityId", true, "The entity.", uuid)];
const CALLBACK: &[Param] = &[
    param("state", true, "The state of the authorize URL: unknown, used, expired (15 minutes) or another user's is 400.", non_empty_text),
    param("code", false, "The authorisation code to exchange.", string),
    param("error", false, "HMRC's refusal (`access_denied`): redirected with `?hmrc_error=`.", string),
];
const SUBMITTED: &[Param] = &[
    param("entityId", true, "The entity.", uuid),
    param(
        "periodKey",
        true,
        "HMRC's period key of the obligation (four characters).",
        non_empty_text,
    ),
];

fn entity() -> Value {
    let mut p = query_param(
        "entityId",
        "The entity (its VAT number is the one asked about).",
        uuid(),
    );
    p["required"] = json!(true);
    p
}
fn from() -> Value {
    query_param(
        "from",
        "From this day (HMRC's rules on the range apply).",
        date(),
    )
}
fn to() -> Value {
    query_param("to", "To this day.", date())
}
fn status() -> Value {
    query_param(
        "status",
        "`O` open or `F` fulfilled; both when omitted.",
        json!({ "type": "string", "enum": ["O", "F"] }),
    )
}

const HMRC_ANSWERS: &[(&str, &str)] = &[
    ("409", "Not connected to HMRC, filing with HMRC not configured on this server, the connection's authority has run out, or HMRC refused by its rules (its code named)"),
    ("503", "HMRC answered 5xx or could not be reached"),
];

const SUBMITTED_ANSWERS: &[(&str, &str)] = &[
    (
        "404",
        "HMRC holds no return for that period key (its code named)",
    ),
    HMRC_ANSWERS[0],
    HMRC_ANSWERS[1],
];

/// The operations of `/api/hmrc` and HMRC's VAT API.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/hmrc/connect", "HMRC", "startHmrcConnection", "Start connecting an entity to HMRC: the URL to send the browser to", S, Query { params: ENTITY, record: "HmrcConnect" })
            .rules(&["docs/hmrc.md#connecting"])
            .answers(&[("409", "Filing with HMRC is not configured on this server (`code: not_configured`)")]),
        op("get", "/api/hmrc/callback", "HMRC", "hmrcCallback", "HMRC's redirect back (browser): keeps the tokens, then 303 to /#/vat?hmrc=connected or ?hmrc_error=", S, Redirect(CALLBACK))
            .rules(&["docs/hmrc.md#connecting"]),
        op("get", "/api/hmrc/connection", "HMRC", "getHmrcConnection", "Whether an entity is connected to HMRC, and until when its authority lasts", S, Query { params: ENTITY, record: "HmrcConnection" })
            .rules(&["docs/hmrc.md#connecting"]),
        op("delete", "/api/hmrc/connection", "HMRC", "deleteHmrcConnection", "Forget an entity's HMRC tokens", S, Action { body: "HmrcConnectionBody", record: "Success" })
            .rules(&["docs/hmrc.md#connecting"])
            .never_refused(),
        op("get", "/api/vat/obligations", "HMRC", "listVatObligations", "HMRC's VAT obligations for the entity's VAT number", S, ReportList("VatObligation", &[Own(entity), Own(from), Own(to), Own(status)]))
            .rules(&["docs/hmrc.md#the-vat-api"])
            .answers(HMRC_ANSWERS),
        op("get", "/api/vat/liabilities", "HMRC", "listVatLiabilities", "HMRC's VAT liabilities for the entity, as HMRC answers them", S, ReportList("HmrcRecord", &[Own(entity), Own(from), Own(to)]))
            .rules(&["docs/hmrc.md#the-vat-api"])
            .answers(HMRC_ANSWERS),
        op("get", "/api/vat/payments", "HMRC", "listVatPayments", "HMRC's record of VAT payments for the entity, as HMRC answers them", S, ReportList("HmrcRecord", &[Own(entity), Own(from), Own(to)]))
            .rules(&["docs/hmrc.md#the-vat-api"])
            .answers(HMRC_ANSWERS),
        op("get", "/api/vat/submitted", "HMRC", "getSubmittedVatReturn", "The return HMRC holds for a period key, as HMRC answers it", S, Query { params: SUBMITTED, record: "HmrcRecord" })
            .rules(&["docs/hmrc.md#the-vat-api"])
            .answers(SUBMITTED_ANSWERS),
    ]
}

/// The schemas of the HMRC operations.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("HmrcConnect", record(vec![("authorize_url", text("HMRC's authorisation page, with the scopes `read:vat write:vat`, a single-use state and a PKCE challenge."))])),
        ("HmrcConnection", record(vec![
            ("connected", boolean()),
            ("connected_at", nullable(timestamp())),
            ("refresh_expires_at", nullable(json!({ "type": "string", "format": "date-time", "description": "18 months after authority was granted: connect again before then." }))),
        ])),
        ("HmrcConnectionBody", object(&["entity_id"], vec![("entity_id", uuid())])),
        ("VatObligation", record(vec![
            ("period_key", string()),
            ("start", date()),
            ("end", date()),
            ("due", date()),
            ("status", one_of_values(&["O", "F"], "`O` open, `F` fulfilled.")),
            ("received", nullable(date())),
        ])),
        ("HmrcRecord", json!({ "type": "object", "description": "HMRC's own JSON, passed on as it is (docs/hmrc.md#the-vat-api)." })),
    ]
}
