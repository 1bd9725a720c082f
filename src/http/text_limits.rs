//! How long each text of a request body may be (docs/limits.md#text-lengths). One table,
//! [`max_chars`], read by the body parser ([`check`], from `body::parse_json`: a longer
//! string is a 400 naming the field and its limit) and by the OpenAPI document
//! ([`describe`]: `maxLength` on each string of an input schema), so the two agree.
//!
//! A text's limit follows the name of the field that holds it, at any depth (the
//! `description` of `lines[3]` is a description); a string in a list takes its list's name.
//! Lengths are counted in characters (Unicode scalar values), as JSON Schema counts them.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{json, Value};

use crate::error::AppError;

/// Any text not named in [`max_chars`]: notes, descriptions, addresses, ...
pub const DEFAULT: usize = 10_000;

/// The smallest limit of the table: a body whose every string is at most this long (in
/// bytes, so in characters too) is not walked.
const SMALLEST: usize = 100;

/// The most characters a text in a field named `field` may hold; `None` where another
/// bound applies (the `csv` of an import, bounded by `limits.json` and per cell).
pub fn max_chars(field: &str) -> Option<usize> {
    Some(match field {
        "csv" => return None,
        // Codes and references.
        "sku" | "product_sku" | "barcode" | "reference" | "number" | "prefix" | "code"
        | "phone" | "vat_number" | "unit" | "currency" | "provider_ref" => SMALLEST,
        // Names.
        "name" | "contact_name" | "location_name" | "product_name" | "category" | "account" => 200,
        "email" => 254,
        "url" => 2048,
        _ => DEFAULT,
    })
}

/// 400 naming the first string of the JSON `bytes` longer than its field's limit.
/// Malformed JSON passes: the real parse reports it.
pub fn check(bytes: &[u8]) -> Result<(), AppError> {
    if longest_string(bytes) <= SMALLEST {
        return Ok(());
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut track = serde_path_to_error::Track::new();
    let walk = Walk { field: None };
    match walk.deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let why = e.to_string();
            let Some(why) = why.strip_prefix(TOO_LONG) else {
                return Ok(());
            };
            let why = strip_position(why);
            let path = track.path().to_string();
            if path.is_empty() || path == "." {
                Err(AppError::bad_request(format!(
                    "Invalid request body: {why}"
                )))
            } else {
                Err(AppError::invalid(&path, why))
            }
        }
    }
}

const TOO_LONG: &str = "too long: ";

fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

/// The longest run of bytes inside one JSON string of `bytes` (escapes counted as sent).
fn longest_string(bytes: &[u8]) -> usize {
    let (mut longest, mut run, mut inside, mut escaped) = (0, 0, false, false);
    for &b in bytes {
        if !inside {
            if b == b'"' {
                inside = true;
                run = 0;
            }
        } else if escaped {
            escaped = false;
            run += 1;
        } else if b == b'\\' {
            escaped = true;
            run += 1;
        } else if b == b'"' {
            inside = false;
            longest = longest.max(run);
        } else {
            run += 1;
        }
    }
    longest.max(run)
}

/// Any JSON value; an error at the first string longer than its field's limit.
struct Walk<'a> {
    field: Option<&'a str>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
        let max = self.field.map_or(Some(DEFAULT), max_chars);
        match max {
            Some(max) if s.len() > max && s.chars().count() > max => Err(E::custom(format!(
                "{TOO_LONG}must be at most {max} characters (docs/limits.md#text-lengths)"
            ))),
            _ => Ok(()),
        }
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Walk { field: self.field })?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if max_chars(&key).is_none() {
                map.next_value::<IgnoredAny>()?;
            } else {
                map.next_value_seed(Walk { field: Some(&key) })?;
            }
        }
        Ok(())
    }
}

/// Writes `maxLength` on every free text of an input schema, at any depth, by the name of
/// the property that holds it (what [`check`] enforces).
pub fn describe(schema: &mut Value) {
    describe_as(schema, None);
}

fn describe_as(schema: &mut Value, field: Option<&str>) {
    if !schema.is_object() {
        return;
    }
    let is_string = schema["type"] == "string"
        || schema["type"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("string")));
    let free = ["format", "enum", "const", "maxLength"]
        .iter()
        .all(|k| schema.get(*k).is_none());
    if is_string && free {
        if let Some(max) = field.map_or(Some(DEFAULT), max_chars) {
            schema["maxLength"] = json!(max);
        }
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(a) = schema.get_mut(k).and_then(Value::as_array_mut) {
            a.iter_mut().for_each(|s| describe_as(s, field));
        }
    }
    if let Some(items) = schema.get_mut("items") {
        describe_as(items, field);
    }
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, prop) in props.iter_mut() {
            describe_as(prop, Some(name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_string_counts_escapes_and_ignores_what_is_outside_strings() {
        assert_eq!(longest_string(br#"{"a": 12345678, "bc": "de\"f"}"#), 5);
        assert_eq!(longest_string(b"[]"), 0);
    }

    #[test]
    fn a_text_is_measured_by_its_field_at_any_depth() {
        let long = "é".repeat(201);
        let body = json!({ "lines": [{ "name": "x" }, { "name": long }] }).to_string();
        let e = check(body.as_bytes()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid value for field `lines[1].name`: must be at most 200 characters \
             (docs/limits.md#text-lengths)"
        );
        let fits = json!({ "name": "é".repeat(200), "csv": "x".repeat(20_000) }).to_string();
        assert!(check(fits.as_bytes()).is_ok());
    }
}
