//! The entities in the OpenAPI document (docs/auth.md#entities).

use serde_json::{json, Value};

use super::vat_settings::SCHEMES;
use crate::http::openapi::*;
use Auth::Session as S;
use Shape::{Create, Delete, File, PlainList, Remove, Update, Upload};

/// The operations of `/api/entities`.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/entities", "Entities", "listEntities", "List entities", S, PlainList("Entity")),
        op("post", "/api/entities", "Entities", "createEntity", "Create an entity (with the standard expense categories)", S, Create { body: "EntityCreate", record: "Entity" }),
        op("put", "/api/entities", "Entities", "updateEntity", "Update an entity", S, Update { body: "EntityUpdate", record: "Entity" }),
        op("delete", "/api/entities", "Entities", "deleteEntity", "Delete an entity without records", S, Delete),
        op("put", "/api/entities/{id}/logo", "Entities", "setEntityLogo", "Set the entity's logo: the PNG or JPEG image as the body", S, Upload { types: &["image/png", "image/jpeg"], record: "LogoInfo" })
            .rules(&["docs/accounting.md#the-logo"])
            .answers(&[("413", "The image is larger than 512 KiB"), ("415", "The bytes are not a PNG or JPEG image, or not the type the Content-Type says")]),
        op("get", "/api/entities/{id}/logo", "Entities", "getEntityLogo", "The entity's logo as stored (404 when none is set)", S, File("image/*")).rules(&["docs/accounting.md#the-logo"]),
        op("delete", "/api/entities/{id}/logo", "Entities", "deleteEntityLogo", "Remove the entity's logo", S, Remove).rules(&["docs/accounting.md#the-logo"]),
    ]
}

/// The entity record and its bodies.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    let roles: Vec<&str> = crate::scope::Role::ALL.iter().map(|r| r.as_str()).collect();
    let mut entity = record(vec![
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
        ]);
    // Not required: only the list carries it.
    entity["properties"]["role"] = one_of_values(&roles, "The caller's role in the entity, in the list (docs/auth.md#members-and-roles).");
    vec![
        ("Entity", entity),
        ("LogoInfo", record(vec![
            ("content_type", one_of_values(&["image/png", "image/jpeg"], "Read from the bytes.")),
            ("width", integer()),
            ("height", integer()),
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
