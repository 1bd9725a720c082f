//! The API keys in the OpenAPI document (docs/public-api.md#api-keys).

use serde_json::{json, Value};

use crate::http::openapi::*;
use Auth::Session as S;
use Shape::{Create, Delete, PlainList};

/// The operations of `/api/api-keys` (session only).
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/api-keys", "API keys", "listApiKeys", "List API keys (never the key itself)", S, PlainList("ApiKey")),
        op("post", "/api/api-keys", "API keys", "createApiKey", "Create an API key; raw_key is shown this once", S, Create { body: "ApiKeyCreate", record: "ApiKeyCreated" }),
        op("delete", "/api/api-keys", "API keys", "revokeApiKey", "Revoke an API key", S, Delete),
    ]
}

/// The key records and the create body.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("ApiKey", record(vec![
            ("id", uuid()),
            ("name", string()),
            ("entity_id", nullable(uuid())),
            ("prefix", text("The first 12 characters of the key.")),
            ("created_at", timestamp()),
            ("last_used_at", nullable(timestamp())),
            ("revoked_at", nullable(timestamp())),
        ])),
        ("ApiKeyCreate", object(&["name"], vec![
            ("name", name_text("")),
            ("entity_id", opt_id("Scopes the key to this entity.")),
        ])),
        ("ApiKeyCreated", {
            let mut v = record(vec![
                ("id", uuid()),
                ("name", string()),
                ("entity_id", nullable(uuid())),
                ("prefix", string()),
                ("created_at", timestamp()),
                ("last_used_at", nullable(timestamp())),
                ("revoked_at", nullable(timestamp())),
                ("raw_key", json!({
                    "type": "string",
                    "pattern": "^sbk_[0-9A-Za-z]{40}$",
                    "description": "The key, shown this once: send it as `Authorization: Bearer <raw_key>` on /api/v1."
                })),
            ]);
            v["description"] = json!("The new key record with its raw key.");
            v
        }),
    ]
}
