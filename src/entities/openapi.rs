//! The entities in the OpenAPI document (docs/auth.md#entities).

use serde_json::{json, Value};

use super::vat_settings::SCHEMES;
use crate::http::openapi::*;
use Auth::Session as S;
use Shape::{Create, Delete, PlainList, Update};

/// The operations of `/api/entities`.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/entities", "Entities", "listEntities", "List entities", S, PlainList("Entity")),
        op("post", "/api/entities", "Entities", "createEntity", "Create an entity (with the standard expense categories)", S, Create { body: "EntityCreate", record: "Entity" }),
        op("put", "/api/entities", "Entities", "updateEntity", "Update an entity", S, Update { body: "EntityUpdate", record: "Entity" }),
        op("delete", "/api/entities", "Entities", "deleteEntity", "Delete an entity without records", S, Delete),
    ]
}

/// The entity record and its bodies.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("Entity", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("vat_number", nullable(string())),
            ("address", nullable(string())),
            ("currency", json!({ "type": "string", "const": "GBP" })),
            ("default_location_id", nullable(id_of("A location of this entity: new invoices and bills without location_id take it."))),
            ("lock_date", nullable(date())),
            ("vat_registered_from", nullable(date())),
            ("vat_scheme", one_of_values(SCHEMES, "The VAT accounting scheme (docs/vat.md).")),
            ("flat_rate_percent", nullable(percent("The flat-rate percentage; required on the flat rate scheme."))),
            ("require_2fa", json!({ "type": "boolean", "description": "Members must sign in with a second factor (docs/auth.md#requiring-two-factor)." })),
            ("created_at", timestamp()),
        ])),
        ("EntityCreate", object(&["name"], vec![
            ("name", name_text("")),
            ("vat_number", nullable(json!({ "type": "string", "description": "A UK VAT registration number: nine digits, optionally after GB, passing HMRC's check digits (400 otherwise); stored as GB and the digits." }))),
            ("address", nullable(string())),
            ("vat_registered_from", json!({ "anyOf": [date(), blank(), { "type": "null" }], "description": "YYYY-MM-DD: the date of VAT registration. Null or blank: none." })),
            ("vat_scheme", one_of_values(SCHEMES, "The VAT accounting scheme; default standard.")),
            ("flat_rate_percent", nullable(percent("The flat-rate percentage (0 to 100, 2 dp); required on the flat rate scheme (400)."))),
        ])),
        ("EntityUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("name", name_text("")),
            ("vat_number", nullable(json!({ "type": "string", "description": "A UK VAT registration number: nine digits, optionally after GB, passing HMRC's check digits (400 otherwise); stored as GB and the digits." }))),
            ("address", nullable(string())),
            ("default_location_id", opt_ref("A location of this entity (another entity's: 400; unknown or foreign: 404).")),
            ("vat_registered_from", json!({ "anyOf": [date(), blank(), { "type": "null" }], "description": "YYYY-MM-DD: the date of VAT registration. Null or blank: none." })),
            ("vat_scheme", one_of_values(SCHEMES, "The VAT accounting scheme; default standard.")),
            ("flat_rate_percent", nullable(percent("The flat-rate percentage (0 to 100, 2 dp); required on the flat rate scheme (400)."))),
            ("lock_date", json!({ "anyOf": [date(), blank(), { "type": "null" }], "description": "YYYY-MM-DD: nothing dated on or before it may be created, changed or deleted (409). Not after today (400). Null or blank: no lock date." })),
            ("require_2fa", json!({ "type": "boolean", "description": "Require members to sign in with a second factor; turning it on needs the owner's own two-factor sign-in (409 otherwise)." })),
        ])),
    ]
}
