//! The building blocks of the OpenAPI 3.1 document (`GET /api/openapi.json`): the
//! [`Operation`] a feature writes for each of its routes, the schema helpers its
//! `openapi.rs` builds its records and bodies with, and the rendering of both into JSON.
//!
//! This sits at the bottom of the module graph with the rest of `http`: it imports no
//! feature. Each feature describes its own operations and schemas beside its `routes()`
//! (`src/<feature>/openapi.rs`); `crate::openapi` assembles them into the document.
//!
//! Decimals are JSON numbers (`type: number`, `format: decimal`, their places in
//! `x-decimal-places`); request bodies also take them as strings holding the decimal. Every operation lists its error answers with the error body
//! (docs/conventions.md#errors).

use serde_json::{json, Map, Value};

use Auth::{ApiKey as K, None as Open, Session as S};
use Shape::{
    Action, Bare, BareReport, Create, Delete, File, FilteredList, Get, List, PagedReport,
    PlainList, PlainListBare, Query, RecordDelete, RecordGet, RecordUpdate, Redirect, Remove,
    Report, ReportList, Update, Upload, Upsert, V1FilteredList, V1List,
};

/// Who may call an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    None,
    Session,
    ApiKey,
}

/// The request and answer of an operation. Schema names refer to the document's
/// `components.schemas` (each feature's `schemas()`, assembled by `crate::openapi`).
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// Session list: `entityId`, `limit`, `offset` → `{data: [schema]}`.
    List(&'static str),
    /// Session list without an entity filter: `limit`, `offset` → `{data: [schema]}`.
    PlainList(&'static str),
    /// Session list without an entity filter whose answer has its own envelope: `limit`,
    /// `offset` → the schema itself (`{data: [...], ...}`).
    PlainListBare(&'static str),
    /// Public list: `entityId`, `limit` (default 50, at most 200), `offset` →
    /// `{data: [schema], limit, offset}`.
    V1List(&'static str),
    /// Public list with the session list's filters: `filters`, `limit`, `offset` →
    /// `{data: [schema], limit, offset, has_more}`.
    V1FilteredList(&'static str, &'static [Filter]),
    /// JSON body → 201 `{data: record}`.
    Create {
        body: &'static str,
        record: &'static str,
    },
    /// JSON body → 200 `{data: record}`.
    Action {
        body: &'static str,
        record: &'static str,
    },
    /// JSON body with `id` → 200 `{data: record}` (the whole record).
    Update {
        body: &'static str,
        record: &'static str,
    },
    /// `{id}` → 200 `{data: {success: true}}`.
    Delete,
    /// No body → 200 `{data: record}`.
    Get(&'static str),
    /// No body → 200 with the schema itself (no envelope).
    Bare(&'static str),
    /// A record path (`.../{id}`): no body → 200 `{data: record}`.
    RecordGet(&'static str),
    /// A record path: a partial JSON body (no `id`) → 200 `{data: record}`.
    RecordUpdate {
        body: &'static str,
        record: &'static str,
    },
    /// A record path: no body → 200 `{data: {success: true}}`.
    RecordDelete,
    /// No body → 200 with a file of this media type (a PDF, an image), not JSON.
    File(&'static str),
    /// A body of one of these media types (an image), not JSON → 200 `{data: record}`.
    Upload {
        types: &'static [&'static str],
        record: &'static str,
    },
    /// No body → 200 `{data: {success: true}}` (the record is named by the path).
    Remove,
    /// Query parameters → 200 `{data: record}`.
    Query {
        params: &'static [Param],
        record: &'static str,
    },
    /// Query parameters → 303 to the web app (a browser navigation, not a JSON call).
    Redirect(&'static [Param]),
    /// Session list with its own filters: `filters`, `limit`, `offset` →
    /// `{data: [schema]}`.
    FilteredList(&'static str, &'static [Filter]),
    /// A report: `filters` → `{data: schema}`.
    Report(&'static str, &'static [Filter]),
    /// A report of rows, not paged: `filters` → `{data: [schema]}`.
    ReportList(&'static str, &'static [Filter]),
    /// A report with its own envelope: `filters` → the schema itself.
    BareReport(&'static str, &'static [Filter]),
    /// A report with its own envelope that may also be asked for a page at a time:
    /// `filters` → `whole`; with `limit` or `offset` → `page`.
    PagedReport {
        whole: &'static str,
        page: &'static str,
        filters: &'static [Filter],
    },
    /// JSON body → 201 `{data: record}` when it created the record, 200 when it updated
    /// the existing one.
    Upsert {
        body: &'static str,
        record: &'static str,
    },
}

/// A query parameter of a filtered read (besides `limit` and `offset`).
#[derive(Debug, Clone, Copy)]
pub enum Filter {
    /// `entityId`
    Entity,
    /// `productId`
    Product,
    /// `locationId`
    Location,
    /// `dateFrom`, inclusive.
    DateFrom,
    /// `dateTo`, inclusive.
    DateTo,
    /// `q`: text contained in the name, SKU or barcode.
    Search,
    /// `category`
    Category,
    /// `active`
    Active,
    /// `documentId`: the invoice or bill a movement was written for.
    Document,
    /// `format`: `json` (default) or `csv`.
    Format,
    /// `asOf`: a past day.
    AsOf,
    /// `dateFrom` on an invoice's issue date, inclusive.
    IssuedFrom,
    /// `dateTo` on an invoice's issue date, inclusive.
    IssuedTo,
    /// `id`: one record of a list.
    RecordId,
    /// `lines`: `false` lists documents without their lines.
    Lines,
    /// A parameter of the feature's own: the whole parameter object (see
    /// [`query_param`]).
    Own(fn() -> Value),
}

/// A query parameter of a [`Shape::Query`] or [`Shape::Redirect`] operation.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub required: bool,
    pub description: &'static str,
    /// The parameter's schema.
    pub schema: fn() -> Value,
}

/// A query parameter: its name, whether it is required, what it means and its schema.
pub const fn param(
    name: &'static str,
    required: bool,
    description: &'static str,
    schema: fn() -> Value,
) -> Param {
    Param {
        name,
        required,
        description,
        schema,
    }
}

/// What an operation documents as its 409 answer.
#[derive(Debug, Clone, Copy)]
pub enum Conflict {
    /// Writes: the generic business-rule refusal; reads: none.
    Default,
    /// The refusals of this operation.
    Because(&'static str),
    /// A write no business rule refuses.
    Never,
}

#[derive(Debug, Clone, Copy)]
pub struct Operation {
    pub method: &'static str,
    pub path: &'static str,
    pub tag: &'static str,
    pub id: &'static str,
    pub summary: &'static str,
    pub auth: Auth,
    pub shape: Shape,
    /// Where the rules of the operation are written (`docs/<page>.md#<heading>`), when
    /// the summary is not enough.
    pub rules: &'static [&'static str],
    /// What the summary and the docs do not say (an order, a column list).
    pub note: Option<&'static str>,
    pub conflict: Conflict,
    /// Answers of this operation only, `(status, description)`, each with the error
    /// body; they replace the generic answer of the same status.
    pub answers: &'static [(&'static str, &'static str)],
}

/// An operation with the generic answers of its shape and authentication.
pub const fn op(
    method: &'static str,
    path: &'static str,
    tag: &'static str,
    id: &'static str,
    summary: &'static str,
    auth: Auth,
    shape: Shape,
) -> Operation {
    Operation {
        method,
        path,
        tag,
        id,
        summary,
        auth,
        shape,
        rules: &[],
        note: None,
        conflict: Conflict::Default,
        answers: &[],
    }
}

impl Operation {
    /// Links the operation to the docs headings that hold its rules
    /// (`docs/<page>.md#<heading>`, checked by `tests/docs_citations.rs`), instead of
    /// restating them.
    #[must_use]
    pub const fn rules(self, headings: &'static [&'static str]) -> Self {
        Self {
            rules: headings,
            ..self
        }
    }

    /// Adds what neither the summary nor the docs say.
    #[must_use]
    pub const fn note(self, note: &'static str) -> Self {
        Self {
            note: Some(note),
            ..self
        }
    }

    /// Names the business rules that refuse it (409).
    #[must_use]
    pub const fn refused(self, why: &'static str) -> Self {
        Self {
            conflict: Conflict::Because(why),
            ..self
        }
    }

    /// A write no business rule refuses: no 409.
    #[must_use]
    pub const fn never_refused(self) -> Self {
        Self {
            conflict: Conflict::Never,
            ..self
        }
    }

    /// Answers of this operation only (a 503 of its own, a 401 that means something
    /// else), `(status, description)`.
    #[must_use]
    pub const fn answers(self, answers: &'static [(&'static str, &'static str)]) -> Self {
        Self { answers, ..self }
    }
}

// ---------------------------------------------------------------------------------
// Schema building blocks

pub fn string() -> Value {
    json!({ "type": "string" })
}

pub fn text(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

pub fn uuid() -> Value {
    json!({ "type": "string", "format": "uuid" })
}

pub fn date() -> Value {
    json!({ "type": "string", "format": "date", "description": "YYYY-MM-DD" })
}

pub fn timestamp() -> Value {
    json!({ "type": "string", "format": "date-time", "description": "RFC 3339, UTC" })
}

/// Text the server trims: what it counts as white space (Rust's `char::is_whitespace`),
/// spelled out so that every regex engine agrees with the server.
const SPACE: &str = r"\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// Text without NUL, which the server refuses anywhere (docs/limits.md#text).
const NO_NUL: &str = r"^[^\u0000]*$";

/// Every free text in `schema`, at any depth, keys of objects included, is without NUL.
pub fn no_nul(schema: &mut Value) {
    if !schema.is_object() {
        return;
    }
    let has = |s: &Value, t: &str| {
        s["type"] == t || s["type"].as_array().is_some_and(|a| a.contains(&json!(t)))
    };
    let free = ["pattern", "format", "enum", "const"]
        .iter()
        .all(|k| schema.get(*k).is_none())
        && schema.get("maxLength") != Some(&json!(0));
    if has(schema, "string") && free {
        schema["pattern"] = json!(NO_NUL);
    }
    if has(schema, "object") {
        schema["propertyNames"] = json!({ "pattern": NO_NUL });
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(a) = schema.get_mut(k).and_then(Value::as_array_mut) {
            a.iter_mut().for_each(no_nul);
        }
    }
    if let Some(items) = schema.get_mut("items") {
        no_nul(items);
    }
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.values_mut().for_each(no_nul);
    }
    if let Some(extra) = schema.get_mut("additionalProperties") {
        no_nul(extra);
    }
}

/// A required text field the server trims: at least one character that is not white space.
pub fn name_text(description: &str) -> Value {
    json!({
        "type": "string",
        "pattern": format!("^[^\\u0000]*[^{SPACE}\\u0000][^\\u0000]*$"),
        "description": format!("{description} Trimmed; blank is refused (400).").trim_start(),
    })
}

/// Only white space (or nothing): what the server reads as "none" where it trims.
pub fn blank() -> Value {
    json!({ "type": "string", "pattern": format!("^[{SPACE}]*$") })
}

/// An optional reference the server reads as none when null or blank (accounting).
pub fn opt_ref(description: &str) -> Value {
    json!({
        "anyOf": [uuid(), blank(), { "type": "null" }],
        "description": format!("{description} Null or blank: none.").trim_start(),
    })
}

/// An optional reference the server reads as none when null or `""` (inventory, keys).
pub fn opt_id(description: &str) -> Value {
    json!({
        "anyOf": [uuid(), { "type": "string", "maxLength": 0 }, { "type": "null" }],
        "description": format!("{description} Null or \"\": none.").trim_start(),
    })
}

/// An optional date the server reads as its default when null or blank.
pub fn opt_date(description: &str) -> Value {
    json!({
        "anyOf": [date(), blank(), { "type": "null" }],
        "description": format!("YYYY-MM-DD. {description} Null or blank: the default.").trim_end(),
    })
}

/// A decimal that must not be negative.
pub fn non_negative(mut v: Value) -> Value {
    v["minimum"] = json!(0);
    v
}

/// A decimal that must be above 0.
pub fn positive(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("minimum");
    }
    v["exclusiveMinimum"] = json!(0);
    v
}

pub fn boolean() -> Value {
    json!({ "type": "boolean" })
}

pub fn integer() -> Value {
    json!({ "type": "integer" })
}

/// A decimal: a JSON number with at most `places` decimal places (more is a 400, not a
/// rounding) and a magnitude of at most 10^12. It is described as `format: decimal` with
/// its places in `x-decimal-places`, not as a float `multipleOf`, which standard
/// validators check in binary floating point (and so refuse 19.99); request bodies also
/// take the decimal as a string ([`accept_decimal_strings`]).
pub fn decimal(places: u32, description: &str) -> Value {
    json!({
        "type": "number",
        "format": "decimal",
        "x-decimal-places": places,
        "maximum": 1_000_000_000_000_i64,
        "minimum": -1_000_000_000_000_i64,
        "description": format!("{description} Exact decimal with up to {places} decimal places, answered as a JSON number; a request may send it as a JSON number or as a string holding it (\"19.99\")."),
    })
}

/// A computed figure of a report: a JSON number with at most `places` decimal places
/// (no magnitude bound: it may be a sum or a product of stored values).
pub fn figure(places: u32, description: &str) -> Value {
    json!({
        "type": "number",
        "format": "decimal",
        "x-decimal-places": places,
        "description": format!("{description} A JSON number with at most {places} decimal places."),
    })
}

/// Rewrites every decimal of a request body's schema to take a string holding the decimal
/// too (docs/public-api.md#exact-amounts): `type` gains `string` and a `pattern` states
/// what the server parses (`crate::db::decimal::is_plain_decimal`: up to twelve integer
/// digits, then the places; trailing zeros beyond them are the same value). Answers keep
/// numbers, so only schemas reached from request bodies are rewritten.
pub fn accept_decimal_strings(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            if o.get("format").and_then(Value::as_str) == Some("decimal") {
                let places = o
                    .get("x-decimal-places")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let nullable = o
                    .get("type")
                    .is_some_and(|t| t.as_array().is_some_and(|a| a.contains(&json!("null"))));
                o.insert(
                    "type".into(),
                    if nullable {
                        json!(["number", "string", "null"])
                    } else {
                        json!(["number", "string"])
                    },
                );
                let fraction = if places == 0 {
                    "0+".to_owned()
                } else {
                    format!("[0-9]{{1,{places}}}0*")
                };
                o.insert(
                    "pattern".into(),
                    json!(format!("^-?[0-9]{{1,12}}(\\.{fraction})?$")),
                );
                return;
            }
            for v in o.values_mut() {
                accept_decimal_strings(v);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(accept_decimal_strings),
        _ => {}
    }
}

pub fn money(description: &str) -> Value {
    decimal(2, description)
}

pub fn price(description: &str) -> Value {
    decimal(4, description)
}

pub fn qty(description: &str) -> Value {
    decimal(3, description)
}

pub fn percent(description: &str) -> Value {
    let mut v = decimal(2, description);
    v["minimum"] = json!(0);
    v["maximum"] = json!(100);
    v
}

pub fn one_of_values(values: &[&str], description: &str) -> Value {
    json!({ "type": "string", "enum": values, "description": description })
}

/// `schema` or null (OpenAPI 3.1 type arrays).
pub fn nullable(schema: Value) -> Value {
    let mut s = schema;
    if let Some(t) = s.get("type").cloned() {
        if let Some(t) = t.as_str() {
            s["type"] = json!([t, "null"]);
            if let Some(e) = s.get("enum").cloned() {
                let mut e = e.as_array().cloned().unwrap_or_default();
                e.push(Value::Null);
                s["enum"] = Value::Array(e);
            }
            return s;
        }
    }
    json!({ "oneOf": [s, { "type": "null" }] })
}

pub fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

pub fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

pub fn object(required: &[&str], props: Vec<(&str, Value)>) -> Value {
    let mut p = Map::new();
    for (k, v) in props {
        p.insert(k.to_owned(), v);
    }
    json!({ "type": "object", "required": required, "properties": p })
}

/// A record: every listed property is always present (nullable ones may be null).
pub fn record(props: Vec<(&str, Value)>) -> Value {
    let names: Vec<String> = props.iter().map(|(k, _)| (*k).to_owned()).collect();
    let mut v = object(&[], props);
    v["required"] = json!(names);
    v
}

/// A document whose `lines` a list asked for with `lines=false` leaves out.
pub fn listed_without_lines(mut v: Value) -> Value {
    if let Some(required) = v["required"].as_array_mut() {
        required.retain(|n| n != "lines");
    }
    v["properties"]["lines"]["description"] =
        json!("Always present except in a list asked for with `lines=false`.");
    v
}

/// A reference a client sends, with what makes it refused.
pub fn id_of(description: &str) -> Value {
    let mut v = uuid();
    v["description"] = json!(description);
    v
}

/// A schema a client sends (a request body or a part of one).
pub fn is_input(name: &str) -> bool {
    ["Create", "Update", "Upsert", "Body", "Input", "Count"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// The rules every request body follows (docs/conventions.md): an optional field sent as null is
/// the same as the field left out, and unknown fields are ignored.
pub fn input(mut schema: Value) -> Value {
    let required: Vec<String> = schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    // `get_mut`, not `schema["properties"]`: indexing a map mutably inserts a null where
    // the key is missing, and a body without properties (EmptyBody) was served with
    // `"properties": null`, which validators and generators refuse.
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) && !accepts_null(prop) {
                *prop = nullable(prop.take());
            }
        }
    }
    no_nul(&mut schema);
    super::text_limits::describe(&mut schema);
    // Unknown fields are ignored: any value. `{}`, not a recursive "any value without NUL"
    // schema, which client generators cannot handle (issue 30); the NUL refusal
    // (docs/limits.md#text) is written on every known field and key.
    if schema["type"] == "object" {
        schema["additionalProperties"] = json!({});
    }
    schema
}

pub fn accepts_null(schema: &Value) -> bool {
    let t = &schema["type"];
    t == "null"
        || t.as_array().is_some_and(|a| a.contains(&json!("null")))
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema[*k]
                .as_array()
                .is_some_and(|a| a.iter().any(accepts_null))
        })
}

// ---------------------------------------------------------------------------------
// Operations

pub fn error(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": reference("Error") } }
    })
}

pub fn rate_headers() -> Value {
    json!({
        "X-RateLimit-Limit": { "$ref": "#/components/headers/X-RateLimit-Limit" },
        "X-RateLimit-Remaining": { "$ref": "#/components/headers/X-RateLimit-Remaining" },
        "X-RateLimit-Reset": { "$ref": "#/components/headers/X-RateLimit-Reset" },
    })
}

pub fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

pub fn data_of(schema: Value) -> Value {
    object(&["data"], vec![("data", schema)])
}

/// A query parameter, optional, its free text without NUL.
pub fn query_param(name: &str, description: &str, mut schema: Value) -> Value {
    no_nul(&mut schema);
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

/// A session API update body as a record path's PUT body: the same fields without `id`,
/// which the path carries, and none required (docs/public-api.md#record-paths).
pub fn fields_of(update: &Value) -> Value {
    let mut v = update.clone();
    if let Some(props) = v["properties"].as_object_mut() {
        props.remove("id");
    }
    if let Some(o) = v.as_object_mut() {
        o.remove("required");
    }
    v
}

/// A [`Param`] as the document writes it.
fn required_param(p: Param) -> Value {
    let mut v = query_param(p.name, p.description, (p.schema)());
    v["required"] = json!(p.required);
    v
}

/// Text that may not be empty (400).
pub fn non_empty_text() -> Value {
    json!({ "type": "string", "minLength": 1 })
}

fn entity_param() -> Value {
    query_param(
        "entityId",
        "Only this entity's records (an unknown or foreign entity is 404; a key scoped elsewhere 403).",
        uuid(),
    )
}

/// The session API's `limit` and `offset`.
fn session_paging() -> [Value; 2] {
    [
        query_param(
            "limit",
            "Page size (whole number from 1); no limit when omitted.",
            json!({ "type": "integer", "minimum": 1, "maximum": i64::MAX }),
        ),
        query_param(
            "offset",
            "Records to skip (default 0).",
            json!({ "type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0 }),
        ),
    ]
}

fn filter_param(f: Filter) -> Value {
    match f {
        Filter::Entity => entity_param(),
        Filter::Product => query_param(
            "productId",
            "Only this product's records (an unknown or foreign product is 404).",
            uuid(),
        ),
        Filter::Location => query_param(
            "locationId",
            "Only this location's records (an unknown or foreign location is 404).",
            uuid(),
        ),
        Filter::DateFrom => query_param(
            "dateFrom",
            "Only movements dated on or after this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::DateTo => query_param(
            "dateTo",
            "Only movements dated on or before this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::Search => query_param(
            "q",
            "Only products whose name, SKU or barcode contains this text, ignoring case.",
            string(),
        ),
        Filter::Category => query_param(
            "category",
            "Only products of this category, ignoring case.",
            string(),
        ),
        Filter::Active => query_param(
            "active",
            "true: active products only; false: deactivated products only.",
            boolean(),
        ),
        Filter::Document => query_param(
            "documentId",
            "Only the movements written for this invoice or bill.",
            uuid(),
        ),
        Filter::Format => query_param(
            "format",
            "`json` (default) or `csv`: the same rows as `text/csv` with a header row, streamed, for download.",
            one_of_values(&["json", "csv"], ""),
        ),
        Filter::AsOf => query_param(
            "asOf",
            "The valuation as of the end of this day (YYYY-MM-DD, not in the future): quantities from the movements dated up to it, cost prices in force then, current unit prices; no in-transit figures in the summary.",
            date(),
        ),
        Filter::IssuedFrom => query_param(
            "dateFrom",
            "Only invoices issued on or after this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::IssuedTo => query_param(
            "dateTo",
            "Only invoices issued on or before this day (YYYY-MM-DD).",
            date(),
        ),
        Filter::RecordId => query_param(
            "id",
            "Only this record: a list of one, or of none when it is not the caller's (or not of `entityId`).",
            uuid(),
        ),
        Filter::Lines => query_param(
            "lines",
            "`false`: each document without its `lines` (its line figures are still there), for a list page; default `true`.",
            boolean(),
        ),
        Filter::Own(param) => param(),
    }
}

/// The OpenAPI operation object of `o`.
/// The `Idempotency-Key` header every POST of a signed-in caller takes
/// (docs/idempotency.md#the-key).
fn idempotency_key_param() -> Value {
    json!({
        "name": "Idempotency-Key",
        "in": "header",
        "required": false,
        "description": "Makes a repeated request do its work once: the same key and request within 24 hours answer the first answer again (with `Idempotent-Replayed: true`); another request with the key is 422; while the first runs, 409. Per user, or per API key. At most 255 characters; an empty value is no key.",
        "schema": { "type": "string", "maxLength": 255 },
    })
}

pub fn operation(o: &Operation) -> Value {
    let mut responses = Map::new();
    let mut parameters: Vec<Value> = Vec::new();
    let mut body: Option<&str> = None;
    // `/api/x/{id}/y`: each `{name}` of the path is a UUID.
    for segment in o.path.split('/') {
        if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            parameters.push(json!({
                "name": name,
                "in": "path",
                "required": true,
                "schema": { "type": "string", "format": "uuid" },
            }));
        }
    }
    let mut file: Option<&str> = None;
    let mut upload: Option<&[&str]> = None;
    let (code, success) = match o.shape {
        List(s) => {
            parameters.push(entity_param());
            parameters.extend(session_paging());
            ("200", data_of(array(reference(s))))
        }
        PlainList(s) => {
            parameters.extend(session_paging());
            ("200", data_of(array(reference(s))))
        }
        PlainListBare(s) => {
            parameters.extend(session_paging());
            ("200", reference(s))
        }
        FilteredList(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            parameters.extend(session_paging());
            ("200", data_of(array(reference(s))))
        }
        Report(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            ("200", data_of(reference(s)))
        }
        ReportList(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            ("200", data_of(array(reference(s))))
        }
        BareReport(s, filters) => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            ("200", reference(s))
        }
        PagedReport {
            whole,
            page,
            filters,
        } => {
            parameters.extend(filters.iter().map(|f| filter_param(*f)));
            parameters.extend(session_paging());
            (
                "200",
                // anyOf, not oneOf: a page carries every field of the whole report too,
                // so under JSON Schema's open objects it is valid under both.
                json!({ "anyOf": [reference(whole), reference(page)] }),
            )
        }
        V1List(s) | V1FilteredList(s, _) => {
            match o.shape {
                V1FilteredList(_, filters) => {
                    parameters.extend(filters.iter().map(|f| filter_param(*f)));
                }
                _ => parameters.push(entity_param()),
            }
            parameters.push(query_param("updated_since", "Only records changed at or after this time (RFC 3339 with its offset; inclusive, to the second): pass the largest `updated_at` already read to fetch what changed since (docs/public-api.md#incremental-sync).", json!({ "type": "string", "format": "date-time" })));
            parameters.push(query_param("limit", "Page size: default 50; above 200 is served as 200; below 1 or not a whole number is 400.", json!({ "type": "integer", "minimum": 1, "maximum": i64::MAX, "default": 50 })));
            parameters.push(query_param("offset", "Records to skip: default 0; negative is 400. Pages follow creation order, so paging never skips or repeats a record.", json!({ "type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0 })));
            (
                "200",
                object(
                    &["data", "limit", "offset", "has_more"],
                    vec![
                        ("data", array(reference(s))),
                        (
                            "limit",
                            json!({ "type": "integer", "description": "The page size served." }),
                        ),
                        ("offset", integer()),
                        (
                            "has_more",
                            json!({ "type": "boolean", "description": "Whether a record follows this page: ask again with offset + limit while true." }),
                        ),
                    ],
                ),
            )
        }
        Create { body: b, record } => {
            body = Some(b);
            ("201", data_of(reference(record)))
        }
        Upsert { body: b, record } => {
            body = Some(b);
            responses.insert(
                "200".into(),
                json!({
                    "description": "The existing record, updated",
                    "content": json_content(data_of(reference(record))),
                }),
            );
            ("201", data_of(reference(record)))
        }
        Action { body: b, record } | Update { body: b, record } => {
            body = Some(b);
            ("200", data_of(reference(record)))
        }
        Delete => {
            body = Some("IdBody");
            ("200", data_of(reference("Success")))
        }
        Get(s) => ("200", data_of(reference(s))),
        Bare(s) => ("200", reference(s)),
        RecordGet(s) => ("200", data_of(reference(s))),
        RecordUpdate { body: b, record } => {
            body = Some(b);
            ("200", data_of(reference(record)))
        }
        RecordDelete => ("200", data_of(reference("Success"))),
        File(mime) => {
            file = Some(mime);
            ("200", Value::Null)
        }
        Upload { types, record } => {
            upload = Some(types);
            ("200", data_of(reference(record)))
        }
        Remove => ("200", data_of(reference("Success"))),
        Query { params, record } => {
            parameters.extend(params.iter().map(|p| required_param(*p)));
            ("200", data_of(reference(record)))
        }
        Redirect(params) => {
            parameters.extend(params.iter().map(|p| required_param(*p)));
            ("303", Value::Null)
        }
    };
    let mut ok = if let Some(mime) = file {
        json!({
            "description": "OK",
            "content": { mime: { "schema": { "type": "string", "format": "binary" } } },
        })
    } else if code == "303" {
        json!({
            "description": "See Other: to the web app's import page",
            "headers": { "Location": { "schema": { "type": "string" }, "description": "`/#/import?connected=<platform>` or `/#/import?error=<message>`" } },
        })
    } else {
        json!({
            "description": if code == "201" { "Created" } else { "OK" },
            "content": json_content(success),
        })
    };
    if o.auth == K {
        ok["headers"] = rate_headers();
    }
    // `format=csv` answers the same list as a spreadsheet.
    if let FilteredList(_, filters)
    | PagedReport { filters, .. }
    | Report(_, filters)
    | ReportList(_, filters)
    | BareReport(_, filters) = &o.shape
    {
        if filters.iter().any(|f| matches!(f, Filter::Format)) {
            ok["content"]["text/csv"] = json!({ "schema": { "type": "string" } });
        }
    }
    responses.insert(code.to_owned(), ok);

    let keyed = o.method == "post" && o.auth != Open;
    if keyed {
        parameters.push(idempotency_key_param());
    }
    let has_input = body.is_some() || upload.is_some() || !parameters.is_empty();
    if has_input {
        responses.insert(
            "400".into(),
            error("Malformed JSON, a wrong type, a missing required field (`Missing required field: <field>`), an invalid value or a malformed UUID"),
        );
    }
    if o.auth != Open {
        responses.insert(
            "401".into(),
            error(match o.auth {
                K => "Missing, unknown or revoked API key (a session cookie is not accepted here)",
                _ => "No valid session (an API key is not accepted here)",
            }),
        );
    }
    if o.auth == K {
        responses.insert(
            "403".into(),
            error("The key is scoped to another entity than the one named"),
        );
    }
    if o.auth != Open && has_input {
        responses.insert(
            "404".into(),
            error("Unknown id, or a record of another user"),
        );
    }
    if body.is_some() {
        match o.conflict {
            Conflict::Default => {
                responses.insert(
                    "409".into(),
                    error("A business rule refused the change (duplicate number or SKU, record in use, insufficient stock)"),
                );
            }
            Conflict::Because(why) => {
                responses.insert("409".into(), error(why));
            }
            Conflict::Never => {}
        }
        responses.insert("413".into(), error("Request body too large"));
        responses.insert(
            "415".into(),
            error("The request body is not application/json"),
        );
    }
    if keyed {
        responses
            .entry("409")
            .or_insert_with(|| error("A request with this Idempotency-Key is still running"));
        responses.insert(
            "422".into(),
            error("The Idempotency-Key was used for another request in the last 24 hours"),
        );
    }
    if o.auth == K {
        let mut too_many = error(
            "More than 60 requests in a rolling minute for this key and endpoint; not counted",
        );
        let mut headers = rate_headers();
        headers["Retry-After"] = json!({ "$ref": "#/components/headers/Retry-After" });
        too_many["headers"] = headers;
        responses.insert("429".into(), too_many);
    }
    for (status, description) in o.answers {
        responses.insert((*status).to_owned(), error(description));
    }
    responses.insert("500".into(), error("Internal error (no details are sent)"));

    let mut v = json!({
        "operationId": o.id,
        "summary": o.summary,
        "tags": [o.tag],
        "security": match o.auth {
            Open => json!([]),
            S => json!([{ "sessionCookie": [] }]),
            K => json!([{ "bearerKey": [] }]),
        },
        "responses": responses,
    });
    let mut description: Vec<String> = o.note.iter().map(|n| (*n).to_owned()).collect();
    if !o.rules.is_empty() {
        description.push(format!("The rules: {}.", o.rules.join(", ")));
    }
    if !description.is_empty() {
        v["description"] = json!(description.join(" "));
    }
    if !parameters.is_empty() {
        v["parameters"] = Value::Array(parameters);
    }
    if let Some(b) = body {
        v["requestBody"] = json!({
            "required": true,
            "content": json_content(reference(b)),
        });
    }
    if let Some(types) = upload {
        let binary = json!({ "schema": { "type": "string", "format": "binary" } });
        v["requestBody"] = json!({
            "required": true,
            "content": types.iter().map(|t| ((*t).to_owned(), binary.clone())).collect::<Map<_, _>>(),
        });
    }
    v
}

/// The schema `name` as the document serves it: a request body (or a part of one) gets the
/// rules every body follows (see [`input`]).
pub fn component(name: &str, schema: Value) -> Value {
    if is_input(name) {
        input(schema)
    } else {
        schema
    }
}
