//! One error type for the whole service, rendered as the error body
//! (docs/conventions.md#errors): `{statusCode, statusMessage, message}`.
//!
//! Internal causes (SQLite, I/O) are logged and never sent to the client.

use std::io::Cursor;

use rocket::http::{ContentType, Header, Status};
use rocket::request::Request;
use rocket::response::{self, Responder, Response};
use serde::Serialize;

pub type AppResult<T> = Result<T, AppError>;

#[derive(Debug, Clone, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    /// The database stayed locked past the busy timeout: the client may retry.
    #[error("{0}")]
    Unavailable(String),
    /// Anything unexpected. The text is logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

impl AppError {
    pub fn bad_request(msg: impl Into<String>) -> Self {
        Self::BadRequest(msg.into())
    }
    pub fn not_found(msg: impl Into<String>) -> Self {
        Self::NotFound(msg.into())
    }
    pub fn conflict(msg: impl Into<String>) -> Self {
        Self::Conflict(msg.into())
    }
    pub fn forbidden(msg: impl Into<String>) -> Self {
        Self::Forbidden(msg.into())
    }
    pub fn internal(msg: impl Into<String>) -> Self {
        Self::Internal(msg.into())
    }
    pub fn missing(field: &str) -> Self {
        Self::BadRequest(format!("Missing required field: {field}"))
    }
    pub fn invalid(field: &str, why: impl std::fmt::Display) -> Self {
        Self::BadRequest(format!("Invalid value for field `{field}`: {why}"))
    }

    pub fn status(&self) -> Status {
        match self {
            Self::BadRequest(_) => Status::BadRequest,
            Self::Unauthorized(_) => Status::Unauthorized,
            Self::Forbidden(_) => Status::Forbidden,
            Self::NotFound(_) => Status::NotFound,
            Self::Conflict(_) => Status::Conflict,
            Self::PayloadTooLarge(_) => Status::PayloadTooLarge,
            Self::UnsupportedMediaType(_) => Status::UnsupportedMediaType,
            Self::TooManyRequests { .. } => Status::TooManyRequests,
            Self::Unavailable(_) => Status::ServiceUnavailable,
            Self::Internal(_) => Status::InternalServerError,
        }
    }

    /// The message a client may see.
    pub fn public_message(&self) -> String {
        match self {
            Self::Internal(_) => "Internal server error".to_owned(),
            other => other.to_string(),
        }
    }
}

/// A computed value (a stock total, a document total) that does not fit the 64-bit scaled
/// integer SQLite stores. Writing one fails the statement; [`AppError`]
/// turns it into a 409: the request is refused rather than the value saturated, which
/// would silently break the ledger's sums (docs/ledger.md). (Defined here, not in `db`, so `error`
/// imports no module.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("The {kind} {value} is too large: the ledger stores at most {max}")]
pub struct TooLarge {
    pub kind: &'static str,
    pub value: String,
    pub max: String,
}

/// The error body (docs/conventions.md#errors).
#[derive(Serialize)]
pub struct ErrorBody {
    #[serde(rename = "statusCode")]
    pub status_code: u16,
    #[serde(rename = "statusMessage")]
    pub status_message: String,
    pub message: String,
}

impl ErrorBody {
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Self {
            status_code: status.code,
            status_message: status.reason_lossy().to_owned(),
            message: message.into(),
        }
    }
}

/// Builds the JSON error response for a status and message.
pub fn error_response<'r>(status: Status, message: String) -> Response<'r> {
    let body = serde_json::to_vec(&ErrorBody::new(status, message)).unwrap_or_default();
    Response::build()
        .status(status)
        .header(ContentType::JSON)
        .sized_body(body.len(), Cursor::new(body))
        .finalize()
}

impl<'r> Responder<'r, 'static> for AppError {
    fn respond_to(self, _req: &'r Request<'_>) -> response::Result<'static> {
        if let Self::Internal(cause) = &self {
            eprintln!("stockbook: internal error: {cause}");
        }
        let mut res = error_response(self.status(), self.public_message());
        match &self {
            Self::TooManyRequests { retry_after, .. } => {
                res.set_header(Header::new("Retry-After", retry_after.max(&1).to_string()));
            }
            Self::Unavailable(_) => {
                res.set_header(Header::new("Retry-After", "1"));
            }
            _ => {}
        }
        Ok(res)
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ffi::ErrorCode;
        if let rusqlite::Error::ToSqlConversionFailure(cause) = &e {
            if let Some(big) = cause.downcast_ref::<TooLarge>() {
                return Self::Conflict(big.to_string());
            }
        }
        if let rusqlite::Error::SqliteFailure(code, msg) = &e {
            match code.code {
                ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                    return Self::Unavailable("The database is busy; retry the request".into());
                }
                ErrorCode::ConstraintViolation => {
                    let detail = msg.clone().unwrap_or_default();
                    return match code.extended_code {
                        // SQLITE_CONSTRAINT_UNIQUE / PRIMARYKEY
                        2067 | 1555 => Self::Conflict(format!("Duplicate value: {detail}")),
                        // SQLITE_CONSTRAINT_FOREIGNKEY
                        787 => Self::Conflict("The record is in use by other records".into()),
                        // SQLITE_CONSTRAINT_CHECK / NOTNULL
                        275 | 1299 => Self::BadRequest(format!("Invalid value: {detail}")),
                        _ => Self::Internal(e.to_string()),
                    };
                }
                // A SQL SUM beyond 64 bits: SQLite refuses rather than wraps.
                ErrorCode::Unknown if msg.as_deref() == Some("integer overflow") => {
                    return Self::Conflict(
                        "A total is too large: the ledger stores at most 64-bit amounts".into(),
                    );
                }
                _ => {}
            }
        }
        Self::Internal(e.to_string())
    }
}

impl From<r2d2::Error> for AppError {
    fn from(e: r2d2::Error) -> Self {
        eprintln!("stockbook: connection pool: {e}");
        Self::Unavailable("The database is busy; retry the request".into())
    }
}

#[cfg(test)]
mod tests {
    use rocket::http::Status;
    use rocket::local::blocking::Client;
    use rocket::{get, routes};
    use serde_json::{json, Value};

    use super::{AppError, AppResult};

    #[get("/boom")]
    fn boom() -> AppResult<()> {
        Err(AppError::internal(
            "SQLITE_CORRUPT at /srv/secret/stockbook.db: table users",
        ))
    }

    fn client() -> Client {
        let rocket = rocket::custom(rocket::Config::debug_default()).mount("/api", routes![boom]);
        Client::untracked(rocket).expect("valid rocket")
    }

    #[test]
    fn an_internal_error_is_a_500_in_the_error_body_without_its_cause() {
        let client = client();
        let res = client.get("/api/boom").dispatch();
        assert_eq!(res.status(), Status::InternalServerError);
        let text = res.into_string().unwrap();
        let body: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            body,
            json!({
                "statusCode": 500,
                "statusMessage": "Internal Server Error",
                "message": "Internal server error",
            })
        );
        assert!(!text.contains("SQLITE"), "{text}");
        assert!(!text.contains("secret"), "{text}");
    }

    #[test]
    fn a_busy_database_is_a_503_not_a_500() {
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        );
        let e = AppError::from(busy);
        assert_eq!(e.status(), Status::ServiceUnavailable);
    }

    #[test]
    fn constraint_violations_map_to_client_errors() {
        let failure = |extended: i32| {
            AppError::from(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(extended),
                Some("detail".into()),
            ))
            .status()
        };
        assert_eq!(failure(2067), Status::Conflict); // UNIQUE
        assert_eq!(failure(787), Status::Conflict); // FOREIGN KEY
        assert_eq!(failure(275), Status::BadRequest); // CHECK
        assert_eq!(failure(1299), Status::BadRequest); // NOT NULL
    }

    #[test]
    fn a_sql_sum_beyond_64_bits_is_a_409_not_a_500() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let e = conn
            .query_row(
                "SELECT SUM(x) FROM (SELECT 9223372036854775807 AS x UNION ALL SELECT 1)",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap_err();
        assert_eq!(AppError::from(e).status(), Status::Conflict);
    }
}
