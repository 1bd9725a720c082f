//! HTTP helpers shared by every feature: answers (`{data: ...}`, 201), the JSON body guard,
//! paging, streaming, the JSON catchers and the embedded static files. This module sits at
//! the bottom of the module graph: it imports no feature; the application (`crate::app`)
//! mounts the features.

pub mod assets;
pub mod body;
pub mod catchers;
pub mod paging;
pub mod query;
pub mod stash;
pub mod stream;

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
