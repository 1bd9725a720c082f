//! The import in the OpenAPI document (docs/import.md).

use serde_json::{json, Value};

use super::fields::EntityType;
use crate::http::openapi::*;
use Auth::Session as S;
use Shape::{Action, Create, Delete, List, Query, Redirect};

/// Every import route answers 403 below the Pro plan (docs/import.md#plan).
const PRO_ONLY: (&str, &str) = (
    "403",
    "Import requires the Pro plan (an `essential` installation)",
);
const PRO: &[(&str, &str)] = &[PRO_ONLY];

/// A parameter that names FreeAgent, the one OAuth platform.
fn freeagent() -> Value {
    one_of_values(&["freeagent"], "")
}

const OAUTH_START: &[Param] = &[
    param(
        "platform",
        true,
        "`freeagent`, the one OAuth platform.",
        freeagent,
    ),
    param("entityId", true, "The entity the connection is for.", uuid),
];
const OAUTH_CALLBACK: &[Param] = &[
    param("state", true, "The state of the authorize URL: unknown, used, expired (15 minutes) or another user's is 400.", non_empty_text),
    param("code", false, "The authorisation code to exchange.", string),
    param("error", false, "The provider's refusal (`access_denied`): redirected with `?error=`.", string),
];

/// The operations of `/api/import` (session, Pro plan).
#[rustfmt::skip]
pub fn operations() -> Vec<Operation> {
    vec![
        op("post", "/api/import/preview", "Import", "importPreview", "Detect, map and dry-run a CSV export (changes nothing)", S, Action { body: "ImportPreviewBody", record: "ImportPreview" }).answers(PRO),
        op("post", "/api/import/csv", "Import", "importCsv", "Import a CSV export in one transaction", S, Action { body: "ImportCsvBody", record: "ImportOutcome" }).answers(PRO),
        op("get", "/api/import/connections", "Import", "listImportConnections", "List platform connections (never their credentials)", S, List("ImportConnection")).answers(PRO),
        op("post", "/api/import/connections", "Import", "createImportConnection", "Connect an API platform (201; 200 when it replaces the entity's connection to that platform)", S, Create { body: "ImportConnectionCreate", record: "ImportConnection" }).answers(PRO),
        op("delete", "/api/import/connections", "Import", "deleteImportConnection", "Delete a connection and its credentials", S, Delete).answers(PRO),
        op("get", "/api/import/oauth/start", "Import", "startImportOAuth", "Start connecting FreeAgent over OAuth: the URL to send the browser to", S, Query { params: OAUTH_START, record: "ImportOAuthStart" })
            .answers(&[PRO_ONLY, ("503", "FreeAgent's OAuth client is not configured on this server")]),
        op("get", "/api/import/oauth/callback", "Import", "importOAuthCallback", "The provider's redirect back (browser): stores the grant, then 303 to /#/import?connected=freeagent or ?error=", S, Redirect(OAUTH_CALLBACK)).answers(PRO),
        op("post", "/api/import/migrate", "Import", "importMigrate", "Pull every page of one data type, or all, from a connected platform and import it in one transaction", S, Action { body: "ImportMigrateBody", record: "ImportMigrateOutcome" })
            .answers(&[PRO_ONLY, ("503", "The platform stopped answering (5xx or 429 beyond the retries, unreachable, a malformed page); nothing of the run was kept")]),
    ]
}

/// The API platforms a connection may be for (FreeAgent last: it connects over OAuth).
const IMPORT_API_PLATFORMS: [&str; 7] = [
    "stripe",
    "shopify",
    "square",
    "paypal",
    "gocardless",
    "woocommerce",
    "freeagent",
];

/// The import bodies and outcomes.
#[rustfmt::skip]
pub fn schemas() -> Vec<(&'static str, Value)> {
    let import_types: Vec<&str> = EntityType::ALL.iter().map(|t| t.as_str()).collect();
    let migrate_types: Vec<&str> = crate::connectors::DataType::ALL
        .iter()
        .map(|t| t.as_str())
        .chain(["all"])
        .collect();
    vec![
        ("ImportPreviewBody", object(&["csv"], vec![
            ("mode", json!({ "type": "string", "enum": ["csv"], "default": "csv" })),
            ("entityType", nullable(one_of_values(&import_types, "Detected from the header when omitted."))),
            ("csv", text("The CSV text, header row included (Sage 50 reports may have none).")),
            ("platform", nullable(text("A CSV platform (xero, quickbooks, sage_accounting, sage50, freeagent, kashflow, zoho_books, freshbooks) to detect among its layouts only, or `generic` to skip detection."))),
            ("mapping", json!({
                "type": ["object", "null"],
                "additionalProperties": { "type": ["string", "null"] },
                "description": "The remap step: header → import field (or null to ignore the column); overrides detection.",
            })),
            ("entity_id", nullable(text("With an entity the preview dry-runs the import (rolled back): `duplicates` and `errors` are what the run would report."))),
        ])),
        ("ImportCsvBody", object(&["entityType", "csv", "entity_id"], vec![
            ("entityType", one_of_values(&import_types, "The kind of data the file holds.")),
            ("csv", string()),
            ("platform", nullable(string())),
            ("mapping", json!({ "type": ["object", "null"], "additionalProperties": { "type": ["string", "null"] } })),
            ("entity_id", uuid()),
        ])),
        ("ImportRowError", object(&["row", "message"], vec![
            ("row", json!({ "type": "integer", "description": "Spreadsheet row number (the header is row 1)." })),
            ("column", text("The column to blame, when one is: its header, cut to 40 characters.")),
            ("columnIndex", json!({ "type": "integer", "description": "The 1-based position of that column." })),
            ("message", string()),
        ])),
        ("ImportOutcome", object(&["imported", "skipped", "failed", "errorCount"], vec![
            ("imported", json!({ "type": "integer", "description": "Records created (a document or template counts once)." })),
            ("skipped", json!({ "type": "integer", "description": "Records skipped as duplicates of stored records or of earlier rows." })),
            ("failed", array(reference("ImportRowError"))),
            ("errorCount", json!({ "type": "integer", "description": "Every row error; `failed` lists the first 1,000." })),
            ("updated", json!({ "type": "integer", "description": "With `fillBlanks`: existing records whose blank fields the run filled." })),
            ("skippedRows", array(object(&["row", "reason"], vec![("row", integer()), ("reason", string())]))),
        ])),
        ("ImportPreview", object(
            &["platform", "detected", "entityType", "headers", "mapping", "fields", "rows", "totalRows", "duplicates", "errors", "errorCount"],
            vec![
                ("platform", string()),
                ("detected", json!({ "type": "boolean", "description": "A known export layout was recognised (false: the mapping is a suggestion from header names)." })),
                ("entityType", one_of_values(&import_types, "")),
                ("headers", array(string())),
                ("mapping", json!({ "type": "object", "additionalProperties": { "type": ["string", "null"] } })),
                ("fields", array(object(&["name", "required"], vec![("name", string()), ("required", boolean())]))),
                ("rows", array(json!({ "type": "object", "description": "The first 20 rows, mapped, each with its `row` number." }))),
                ("totalRows", integer()),
                ("duplicates", json!({ "type": "integer", "description": "Records the run would skip as duplicates (0 without entity_id)." })),
                ("errors", array(reference("ImportRowError"))),
                ("errorCount", json!({ "type": "integer", "description": "Every row error; `errors` lists the first 1,000." })),
                ("layout", nullable(string())),
                ("missingRequired", array(string())),
                ("leftOut", json!({ "type": "integer", "description": "Rows of other transaction types left out." })),
                ("notes", array(string())),
            ],
        )),
        ("ImportConnection", record(vec![
            ("id", uuid()),
            ("platform", one_of_values(&IMPORT_API_PLATFORMS, "")),
            ("entity_id", uuid()),
            ("created_at", timestamp()),
            ("last_used_at", nullable(timestamp())),
            ("status", one_of_values(&["connected", "reconnect_required"], "`reconnect_required` once FreeAgent refused the stored grant: connect again over OAuth.")),
        ])),
        ("ImportConnectionCreate", object(&["platform", "entity_id", "credentials"], vec![
            ("platform", one_of_values(&IMPORT_API_PLATFORMS[..6], "FreeAgent connects over OAuth instead.")),
            ("entity_id", uuid()),
            ("credentials", json!({
                "type": "object",
                "additionalProperties": { "type": "string" },
                "description": "Stored for the pulls, never returned. stripe {api_key}; shopify {shop, access_token}; square {access_token}; paypal {client_id, client_secret}; gocardless {access_token}; woocommerce {url, consumer_key, consumer_secret}. Other fields are dropped.",
            })),
        ])),
        ("ImportOAuthStart", object(&["authorize_url"], vec![
            ("authorize_url", json!({ "type": "string", "format": "uri", "description": "The provider's consent page, with client_id, response_type=code, redirect_uri and a fresh state." })),
        ])),
        ("ImportMigrateBody", object(&["mode", "platform", "entityType", "entity_id"], vec![
            ("mode", one_of_values(&["api", "oauth"], "`oauth` for freeagent, `api` for the others.")),
            ("platform", one_of_values(&IMPORT_API_PLATFORMS, "")),
            ("entityType", one_of_values(&migrate_types, "`all`: every type the platform supplies. A type it cannot supply is 400.")),
            ("entity_id", uuid()),
        ])),
        ("ImportMigrateOutcome", json!({
            "type": "object",
            "description": "One entry per data type pulled. With `all`, a type this account does not offer (a WooCommerce site without Subscriptions) is `{unavailable: message}`.",
            "additionalProperties": { "oneOf": [
                reference("ImportOutcome"),
                object(&["unavailable"], vec![("unavailable", string())]),
            ] },
        })),
    ]
}
