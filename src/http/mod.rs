//! HTTP helpers shared by every feature: answers (`{data: ...}`, 201), the JSON body guard,
//! paging, streaming, the JSON catchers and the embedded static files. This module sits at
//! the bottom of the module graph: it imports no feature; the application (`crate::app`)
//! mounts the features.

pub mod assets;
pub mod body;
pub mod catchers;
pub mod list_sql;
pub mod nul;
pub mod openapi;
pub mod paging;
pub mod query;
pub mod routing;
pub mod stash;
pub mod stream;
pub mod text_limits;

use rocket::http::{ContentType, Status};
use rocket::response::{self, Responder, Response};
use rocket::serde::json::Json;
use rocket::Request;
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{AppError, AppResult};

/// A 201 answer: `{data: record}`.
pub struct Created<T>(pub T);

impl<'r, T: Serialize> Responder<'r, 'static> for Created<T> {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        let mut res = data_bytes(&self.0)
            .map_err(|_| Status::InternalServerError)?
            .respond_to(req)?;
        res.set_status(Status::Created);
        Ok(res)
    }
}

/// `{data: value}` with 200.
pub fn data<T: Serialize>(value: T) -> Json<Value> {
    Json(json!({ "data": value }))
}

/// `{data: value}` serialised straight to bytes, without an intermediate
/// `serde_json::Value` tree: for lists that may hold a whole catalogue.
pub struct JsonBytes(Vec<u8>);

impl<'r> Responder<'r, 'static> for JsonBytes {
    fn respond_to(self, _req: &'r Request<'_>) -> response::Result<'static> {
        Response::build()
            .header(ContentType::JSON)
            .sized_body(self.0.len(), std::io::Cursor::new(self.0))
            .ok()
    }
}

/// [`data`] for large answers: see [`JsonBytes`].
pub fn data_bytes<T: Serialize>(value: &T) -> AppResult<JsonBytes> {
    #[derive(Serialize)]
    struct Envelope<'a, T> {
        data: &'a T,
    }
    serde_json::to_vec(&Envelope { data: value })
        .map(JsonBytes)
        .map_err(|e| AppError::internal(format!("serialising a response: {e}")))
}

/// A required, non-blank text field; trimmed.
pub fn required_text(field: &str, s: &str) -> AppResult<String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(AppError::missing(field));
    }
    Ok(t.to_owned())
}

/// An optional integer field of a body: a JSON number without a fractional part, `3` or
/// `3.0` alike (JSON Schema's `integer`, which the OpenAPI document promises), within
/// `i64`. `3.5`, `"3"` or a number beyond `i64` is refused.
pub fn whole_number<'de, D>(d: D) -> Result<Option<i64>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error;
    use serde::Deserialize;
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(i) = n.as_i64() {
        return Ok(Some(i));
    }
    let whole = rust_decimal::Decimal::from_str_exact(&n.to_string())
        .or_else(|_| rust_decimal::Decimal::from_scientific(&n.to_string()))
        .ok()
        .filter(|v| v.fract().is_zero())
        .and_then(|v| rust_decimal::prelude::ToPrimitive::to_i64(&v));
    whole
        .map(Some)
        .ok_or_else(|| D::Error::custom(format!("expected a whole number, got {n}")))
}

#[cfg(test)]
mod tests {
    #[derive(Debug, serde::Deserialize)]
    struct Counted {
        #[serde(default, deserialize_with = "crate::http::whole_number")]
        n: Option<i64>,
    }

    fn n(json: &str) -> Result<Option<i64>, String> {
        serde_json::from_str::<Counted>(json)
            .map(|c| c.n)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_whole_number_may_be_written_with_a_zero_fraction_but_not_as_text_or_a_fraction() {
        assert_eq!(n(r#"{"n": 3}"#), Ok(Some(3)));
        assert_eq!(n(r#"{"n": 15722.0}"#), Ok(Some(15722)));
        assert_eq!(n(r#"{"n": 1e3}"#), Ok(Some(1000)));
        assert_eq!(n(r#"{}"#), Ok(None));
        assert_eq!(n(r#"{"n": null}"#), Ok(None));
        assert!(n(r#"{"n": 3.5}"#).is_err());
        assert!(n(r#"{"n": "3"}"#).is_err());
        assert!(n(r#"{"n": 9223372036854775808}"#).is_err());
    }
}
