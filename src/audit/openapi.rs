//! The audit trail in the OpenAPI document (docs/audit.md#reading-the-trail).

use serde_json::{json, Value};

use crate::http::openapi::*;
use Auth::Session as S;
use Filter::{DateFrom, DateTo, Entity, Format, Own};
use Shape::FilteredList;

fn record_id() -> Value {
    query_param(
        "recordId",
        "Only the entries of this record (its id).",
        uuid(),
    )
}

fn user_id() -> Value {
    query_param("userId", "Only what this user did.", uuid())
}

/// The operation of `/api/audit`.
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/audit", "Audit trail", "listAudit", "The audit trail: who changed what, newest first (at most 1000 a page, 100 unless `limit` says; format=csv: every match unless `limit` says)", S, FilteredList("AuditEntry", &[Entity, Own(record_id), Own(user_id), DateFrom, DateTo, Format]))
            .rules(&["docs/audit.md#reading-the-trail"]),
    ]
}

/// The entry.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    let side = json!({ "description": "The field's value as stored (text, number or null)" });
    vec![
        ("AuditEntry", object(&["id", "at", "user_id", "user_email", "action", "record_type", "record_id", "entity_id", "changes"], vec![
            ("id", json!({ "type": "integer", "minimum": 1, "description": "The entry's place in the chain" })),
            ("at", timestamp()),
            ("user_id", nullable(uuid())),
            ("user_email", nullable(string())),
            ("action", one_of_values(&["create", "update", "delete", "sign_in", "sign_in_failed", "role_change"], "What happened")),
            ("record_type", text("The kind of record: product, invoice, movement, entity, user, member, ...")),
            ("record_id", nullable(string())),
            ("entity_id", nullable(uuid())),
            ("changes", json!({
                "type": "object",
                "description": "Per field: `before` (update, delete) and `after` (create, update); an update lists only the fields it changed",
                "additionalProperties": { "type": "object", "properties": { "before": side, "after": side } },
            })),
        ])),
    ]
}
