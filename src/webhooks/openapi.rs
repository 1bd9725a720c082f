//! The webhooks in the OpenAPI document (docs/webhooks.md).

use serde_json::{json, Value};

use super::outbox::{EVENT_TYPES, PING, SUBSCRIBABLE};
use crate::http::openapi::*;
use Auth::Session as S;
use Shape::{Action, Create, Delete, PlainListBare, Query, Update};

const DELIVERY_QUERY: &[Param] = &[
    param(
        "webhookId",
        false,
        "Only this webhook's deliveries.",
        string,
    ),
    param("limit", false, "At most this many (default 100).", string),
    param("offset", false, "Skip this many.", string),
];

/// The operations of `/api/webhooks` (session only).
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("get", "/api/webhooks", "Webhooks", "listWebhooks", "List webhooks (never their secrets), with every event type a webhook may subscribe to", S, PlainListBare("WebhookList")),
        op("post", "/api/webhooks", "Webhooks", "createWebhook", "Create a webhook; its secret is shown this once", S, Create { body: "WebhookCreate", record: "WebhookCreated" })
            .rules(&["docs/webhooks.md#the-resource", "docs/webhooks.md#urls"])
            .refused("a user holds at most 50 webhooks"),
        op("put", "/api/webhooks", "Webhooks", "updateWebhook", "Update a webhook (its url, events, entity scope or active flag); the secret never changes", S, Update { body: "WebhookUpdate", record: "Webhook" }).never_refused(),
        op("delete", "/api/webhooks", "Webhooks", "deleteWebhook", "Delete a webhook and its deliveries", S, Delete).never_refused(),
        op("get", "/api/webhooks/deliveries", "Webhooks", "listWebhookDeliveries", "The latest deliveries, newest first (100 unless `limit` says otherwise)", S, Query { params: DELIVERY_QUERY, record: "WebhookDeliveryList" }),
        op("post", "/api/webhooks/redeliver", "Webhooks", "redeliverWebhookEvent", "Queue an event again for every webhook that had it, with a fresh retry window", S, Action { body: "WebhookRedeliverBody", record: "WebhookDeliveryList" }).never_refused(),
        op("post", "/api/webhooks/test", "Webhooks", "testWebhook", "Queue a `ping` event for one webhook", S, Create { body: "WebhookTestBody", record: "WebhookDelivery" })
            .refused("the webhook is inactive"),
    ]
}

/// The fields of a webhook as every answer shows it.
fn webhook_fields() -> Vec<(&'static str, Value)> {
    vec![
        ("id", uuid()),
        ("url", string()),
        ("events", events()),
        ("entity_id", nullable(uuid())),
        ("active", boolean()),
        ("created_at", timestamp()),
    ]
}

/// A webhook's `events`: event types, or `*` for all ([`SUBSCRIBABLE`]).
fn events() -> Value {
    array(one_of_values(&SUBSCRIBABLE, "An event type, or * for all."))
}

/// The webhook records, the delivery log and the bodies.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("Webhook", record(webhook_fields())),
        ("WebhookList", record(vec![
            ("data", array(reference("Webhook"))),
            ("event_types", array(reference("WebhookEventType"))),
        ])),
        ("WebhookEventType", record(vec![
            ("type", one_of_values(&EVENT_TYPES, "")),
            ("description", string()),
        ])),
        ("WebhookCreated", {
            let mut fields = webhook_fields();
            fields.push(
                ("secret", json!({
                    "type": "string",
                    "pattern": "^whsec_[0-9A-Za-z]{32}$",
                    "description": "Signs every delivery (`Stockbook-Signature`); shown this once."
                })),
            );
            let mut v = record(fields);
            v["description"] = json!("The new webhook with its secret.");
            v
        }),
        ("WebhookCreate", object(&["url", "events"], vec![
            ("url", text("An https:// URL (see the operation's rules).")),
            ("events", events()),
            ("entity_id", opt_id("Scopes the webhook to this entity's events.")),
            ("active", boolean()),
        ])),
        ("WebhookUpdate", object(&["id"], vec![
            ("id", uuid()),
            ("url", text("An https:// URL.")),
            ("events", events()),
            ("entity_id", opt_id("Scopes the webhook to this entity's events.")),
            ("active", boolean()),
        ])),
        ("WebhookDelivery", record(vec![
            ("webhook_id", uuid()),
            ("event_id", uuid()),
            ("type", text(&format!("The event type, or `{PING}`."))),
            ("status", one_of_values(&["pending", "delivered", "failed"], "")),
            ("attempts", integer()),
            ("last_status_code", nullable(integer())),
            ("last_error", nullable(string())),
            ("last_attempt_at", nullable(timestamp())),
            ("next_attempt_at", nullable(timestamp())),
            ("created_at", timestamp()),
        ])),
        ("WebhookDeliveryList", array(reference("WebhookDelivery"))),
        ("WebhookRedeliverBody", object(&["event_id"], vec![("event_id", uuid())])),
        ("WebhookTestBody", object(&["id"], vec![("id", uuid())])),
    ]
}
