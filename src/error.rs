//! One error type for the whole service, rendered as the error body
//! (docs/conventions.md#errors): `{statusCode, statusMessage, message, code, field}`.
//!
//! Internal causes (SQLite, I/O) are logged and never sent to the client; that includes
//! SQLite's own text when a write breaks a constraint (see `From<rusqlite::Error>`).

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
    /// A business refusal (409) with its stable `code` (docs/conventions.md#error-codes).
    #[error("{0}")]
    Conflict(Refusal),
    #[error("{0}")]
    PayloadTooLarge(String),
    /// A well-formed request that contradicts an earlier one (an `Idempotency-Key` sent
    /// again with another body, docs/idempotency.md).
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// A server Stockbook relays to refused or failed (the mail server of
    /// docs/accounting.md#sending-by-email): the message names it and its answer.
    #[error("{0}")]
    BadGateway(String),
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    /// The database stayed locked past the busy timeout: the client may retry.
    #[error("{0}")]
    Unavailable(String),
    /// The storage under the database failed: a full disk, a read-only file, an I/O
    /// error, a damaged or vanished file (docs/operations.md#storage-faults). The
    /// operator's to fix, not a bug: 503 with `Retry-After`, and a message that says
    /// what happened. `cause` is SQLite's own text, for the log only.
    #[error("{}", fault.message())]
    Storage { fault: StorageFault, cause: String },
    /// Anything unexpected. The text is logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

/// What went wrong with the storage under the database
/// (docs/operations.md#storage-faults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageFault {
    /// `SQLITE_FULL`: the disk (or the file's size limit) is full.
    Full,
    /// `SQLITE_READONLY`: the file, its folder or its mount cannot be written.
    ReadOnly,
    /// The server was started with `read_only = true`.
    ServedReadOnly,
    /// `SQLITE_IOERR`: the disk failed to read or write.
    Io,
    /// `SQLITE_CANTOPEN`: a file of the database cannot be opened.
    CantOpen,
    /// `SQLITE_CORRUPT`, `SQLITE_NOTADB`: the file is damaged.
    Damaged,
    /// The database file was deleted or replaced while the server ran.
    Replaced,
}

impl StorageFault {
    /// The message a client sees (and the `reason` of `GET /api/health`).
    pub fn message(self) -> &'static str {
        match self {
            Self::Full => "The disk holding the database is full: nothing was saved.",
            Self::ReadOnly => {
                "The database file cannot be written (the file, its folder or its disk is read-only): nothing was saved."
            }
            Self::ServedReadOnly => {
                "The server is serving the database read-only (read_only = true): nothing was saved."
            }
            Self::Io => "The disk holding the database failed to read or write: nothing was saved.",
            Self::CantOpen => "A file of the database cannot be opened: nothing was saved.",
            Self::Damaged => {
                "The database file is damaged (`stockbook check` lists the damage): nothing was saved."
            }
            Self::Replaced => {
                "The database file was deleted or replaced while the server ran: nothing was saved, and the server takes no more writes until it is restarted."
            }
        }
    }

    /// The fault a SQLite error code names, if it names one.
    pub fn of(code: rusqlite::ffi::ErrorCode) -> Option<Self> {
        use rusqlite::ffi::ErrorCode;
        match code {
            ErrorCode::DiskFull => Some(Self::Full),
            ErrorCode::ReadOnly => Some(Self::ReadOnly),
            ErrorCode::SystemIoFailure => Some(Self::Io),
            ErrorCode::CannotOpen => Some(Self::CantOpen),
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Some(Self::Damaged),
            _ => None,
        }
    }
}

/// A business refusal's stable code and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// How long a client is told to wait after a storage fault: the operator has to act.
pub const STORAGE_RETRY_AFTER_SECS: u64 = 30;

impl AppError {
    pub fn bad_request(msg: impl Into<String>) -> Self {
        Self::BadRequest(msg.into())
    }
    pub fn not_found(msg: impl Into<String>) -> Self {
        Self::NotFound(msg.into())
    }
    /// A 409 without a more particular code (`conflict`).
    pub fn conflict(msg: impl Into<String>) -> Self {
        Self::Conflict(Refusal {
            code: "conflict",
            message: msg.into(),
        })
    }
    /// A 409 naming its kind with a stable code (docs/conventions.md#error-codes).
    pub fn refused(code: &'static str, msg: impl Into<String>) -> Self {
        Self::Conflict(Refusal {
            code,
            message: msg.into(),
        })
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
            Self::Unprocessable(_) => Status::UnprocessableEntity,
            Self::UnsupportedMediaType(_) => Status::UnsupportedMediaType,
            Self::BadGateway(_) => Status::BadGateway,
            Self::TooManyRequests { .. } => Status::TooManyRequests,
            Self::Unavailable(_) | Self::Storage { .. } => Status::ServiceUnavailable,
            Self::Internal(_) => Status::InternalServerError,
        }
    }

    /// The stable code of this error (docs/conventions.md#error-codes): a business
    /// refusal's own, a storage fault's, or the one its status and message give.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Conflict(r) => r.code,
            Self::Storage { .. } => "storage_fault",
            Self::Unprocessable(_) => "idempotency_key_reused",
            other => describe(other.status(), &other.public_message()).0,
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

/// A stored value the server cannot read back as its column's type: text that is not
/// UTF-8, a number stored as text, a status outside its set. A row reader that knows its
/// table (`crate::db::damage`) puts one inside the conversion failure, so the answer
/// names the record; [`AppError`] turns either into a 503 that points to `stockbook check`
/// (docs/operations.md#damaged-records). (Defined here, not in `db`, so `error` imports
/// no module.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the record {id} of `{table}` is damaged: column `{column}` holds {what}")]
pub struct DamagedRecord {
    pub table: String,
    pub id: String,
    pub column: String,
    pub what: String,
}

/// When `e` is a stored value that could not be converted (damage, not a bug in the
/// statement): the column's index, its name when the error knows it, and what is wrong
/// in words. A `NULL` read into a non-optional value is left out: SQLite keeps `NOT NULL`
/// columns from holding one, so that is an aggregate over no rows, a bug.
pub fn conversion_failure(e: &rusqlite::Error) -> Option<(usize, Option<&str>, String)> {
    use rusqlite::types::Type;
    match e {
        rusqlite::Error::Utf8Error(i, _) => Some((*i, None, "text that is not valid UTF-8".into())),
        rusqlite::Error::IntegralValueOutOfRange(i, v) => {
            Some((*i, None, format!("the number {v}, out of its range")))
        }
        rusqlite::Error::InvalidColumnType(_, _, Type::Null) => None,
        rusqlite::Error::InvalidColumnType(i, name, ty) => Some((
            *i,
            Some(name.as_str()),
            format!("a value of the wrong type ({ty})"),
        )),
        rusqlite::Error::FromSqlConversionFailure(i, _, cause) => {
            Some((*i, None, cause.to_string()))
        }
        _ => None,
    }
}

/// The error body (docs/conventions.md#errors).
#[derive(Serialize)]
pub struct ErrorBody {
    #[serde(rename = "statusCode")]
    pub status_code: u16,
    #[serde(rename = "statusMessage")]
    pub status_message: String,
    pub message: String,
    /// A stable snake_case word for the kind of refusal (docs/conventions.md#error-codes).
    pub code: &'static str,
    /// The field at fault, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ErrorBody {
    /// The body of a status and message, its code read from them ([`describe`]).
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        let message = message.into();
        let (code, field) = describe(status, &message);
        Self::coded(status, code, field, message)
    }

    pub fn coded(
        status: Status,
        code: &'static str,
        field: Option<String>,
        message: String,
    ) -> Self {
        Self {
            status_code: status.code,
            status_message: status.reason_lossy().to_owned(),
            message,
            code,
            field,
        }
    }
}

/// The code and field of an answer from its status and message: the message formats of
/// docs/conventions.md#errors name the field (`Missing required field: <field>`,
/// ``Invalid value for field `<field>`: ...``, ``Unknown query parameter `<field>` ``,
/// or a message that starts with the field in backticks); otherwise the status gives the
/// code. Business refusals carry their own code ([`AppError::refused`]).
pub fn describe(status: Status, message: &str) -> (&'static str, Option<String>) {
    let quoted = |rest: &str| -> Option<String> {
        let rest = rest.strip_prefix('`')?;
        let end = rest.find('`')?;
        Some(rest[..end].to_owned())
    };
    let field = message
        .strip_prefix("Missing required field: ")
        .map(|f| f.split_whitespace().next().unwrap_or(f).to_owned())
        .or_else(|| {
            message
                .strip_prefix("Invalid value for field ")
                .and_then(quoted)
        })
        .or_else(|| {
            message
                .strip_prefix("Unknown query parameter ")
                .and_then(quoted)
        })
        .or_else(|| quoted(message));
    let code = match status.code {
        400 if message.starts_with("Missing required field: ") => "missing_field",
        400 if message.starts_with("Invalid value for field ") => "invalid_value",
        400 if message.starts_with("Unknown query parameter ") => "unknown_parameter",
        400 if message.starts_with("Malformed JSON") || message.starts_with("Invalid JSON") => {
            "malformed_json"
        }
        400 => "bad_request",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        409 => "conflict",
        413 => "payload_too_large",
        415 => "unsupported_media_type",
        422 => "idempotency_key_reused",
        429 => "rate_limited",
        502 => "bad_gateway",
        503 => "unavailable",
        500 => "internal_error",
        _ => "error",
    };
    (code, field)
}

/// Builds the JSON error response for a status and message.
pub fn error_response<'r>(status: Status, message: String) -> Response<'r> {
    body_response(status, &ErrorBody::new(status, message))
}

fn body_response<'r>(status: Status, body: &ErrorBody) -> Response<'r> {
    let body = serde_json::to_vec(body).unwrap_or_default();
    Response::build()
        .status(status)
        .header(ContentType::JSON)
        .sized_body(body.len(), Cursor::new(body))
        .finalize()
}

impl<'r> Responder<'r, 'static> for AppError {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        if let Self::Internal(cause) = &self {
            let id = crate::request_id::of(req);
            eprintln!("stockbook: request {id}: internal error: {cause}");
        }
        let status = self.status();
        let message = self.public_message();
        let (_, field) = describe(status, &message);
        let mut res = body_response(
            status,
            &ErrorBody::coded(status, self.code(), field, message),
        );
        match &self {
            Self::TooManyRequests { retry_after, .. } => {
                res.set_header(Header::new("Retry-After", retry_after.max(&1).to_string()));
            }
            Self::Unavailable(_) => {
                res.set_header(Header::new("Retry-After", "1"));
            }
            Self::Storage { .. } => {
                res.set_header(Header::new(
                    "Retry-After",
                    STORAGE_RETRY_AFTER_SECS.to_string(),
                ));
            }
            _ => {}
        }
        Ok(res)
    }
}

/// The kind of schema constraint (migrations/*.sql) a failed statement broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constraint {
    /// `UNIQUE`, a unique index or a primary key.
    Unique,
    ForeignKey,
    Check,
    NotNull,
}

impl Constraint {
    /// The constraint `e` broke, when a constraint is why the statement failed.
    pub fn of(e: &rusqlite::Error) -> Option<Self> {
        let rusqlite::Error::SqliteFailure(code, _) = e else {
            return None;
        };
        if code.code != rusqlite::ffi::ErrorCode::ConstraintViolation {
            return None;
        }
        match code.extended_code {
            rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
            | rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY => Some(Self::Unique),
            rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY => Some(Self::ForeignKey),
            rusqlite::ffi::SQLITE_CONSTRAINT_CHECK => Some(Self::Check),
            rusqlite::ffi::SQLITE_CONSTRAINT_NOTNULL => Some(Self::NotNull),
            _ => None,
        }
    }
}

impl AppError {
    /// A failed `DELETE`: the foreign keys refusing it (the record is still used) are a 409,
    /// which the caller usually renames to say what uses it; any other failure is
    /// [`AppError::from`]'s.
    pub fn in_use(e: rusqlite::Error) -> Self {
        match Constraint::of(&e) {
            Some(Constraint::ForeignKey) => {
                Self::refused("in_use", "The record is in use by other records")
            }
            _ => Self::from(e),
        }
    }
}

/// A statement that failed. A constraint the client can break is checked before the write
/// (or mapped where the write is, as [`AppError::in_use`] does) and answered with a field
/// message there: one that reaches this conversion is a rule missing at its call site, so
/// it is an internal error, logged with SQLite's text, which the client never sees.
impl From<rusqlite::Error> for AppError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ffi::ErrorCode;
        if let rusqlite::Error::ToSqlConversionFailure(cause) = &e {
            if let Some(big) = cause.downcast_ref::<TooLarge>() {
                return Self::refused("too_large", big.to_string());
            }
        }
        if let rusqlite::Error::SqliteFailure(code, _) = &e {
            // A storage fault is logged once when it starts, by the database layer
            // (docs/operations.md#storage-faults), not here per request.
            if let Some(fault) = StorageFault::of(code.code) {
                return Self::Storage {
                    fault,
                    cause: e.to_string(),
                };
            }
        }
        if let rusqlite::Error::FromSqlConversionFailure(_, _, cause) = &e {
            if let Some(record) = cause.downcast_ref::<DamagedRecord>() {
                eprintln!("stockbook: {record}");
                return Self::Unavailable(format!(
                    "The database holds a damaged record, which cannot be read: {record}. \
                     Nothing was changed; `stockbook check` lists every damaged record"
                ));
            }
        }
        if let Some((_, column, what)) = conversion_failure(&e) {
            let column = column.map_or_else(|| "a column".to_owned(), |c| format!("column `{c}`"));
            eprintln!("stockbook: a damaged record: {e}");
            return Self::Unavailable(format!(
                "The database holds a damaged record, which cannot be read: {column} holds \
                 {what}. Nothing was changed; `stockbook check` names the record"
            ));
        }
        if let rusqlite::Error::SqliteFailure(code, msg) = &e {
            match code.code {
                ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                    return Self::Unavailable("The database is busy; retry the request".into());
                }
                ErrorCode::ConstraintViolation => {
                    return Self::Internal(format!(
                        "a write broke a constraint no rule checked ({:?}): {}",
                        Constraint::of(&e),
                        msg.as_deref().unwrap_or("no detail")
                    ));
                }
                // A SQL SUM beyond 64 bits: SQLite refuses rather than wraps.
                ErrorCode::Unknown if msg.as_deref() == Some("integer overflow") => {
                    return Self::refused(
                        "too_large",
                        "A total is too large: the ledger stores at most 64-bit amounts",
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

    use super::{AppError, AppResult, Constraint, StorageFault};

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
                "code": "internal_error",
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

    fn failure(extended: i32) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(extended),
            Some("UNIQUE constraint failed: products.owner_id, products.sku".into()),
        )
    }

    #[test]
    fn constraint_violations_are_told_apart_for_their_call_sites() {
        assert_eq!(Constraint::of(&failure(2067)), Some(Constraint::Unique));
        assert_eq!(Constraint::of(&failure(1555)), Some(Constraint::Unique)); // PRIMARY KEY
        assert_eq!(Constraint::of(&failure(787)), Some(Constraint::ForeignKey));
        assert_eq!(Constraint::of(&failure(275)), Some(Constraint::Check));
        assert_eq!(Constraint::of(&failure(1299)), Some(Constraint::NotNull));
        assert_eq!(Constraint::of(&failure(rusqlite::ffi::SQLITE_BUSY)), None);
        // A delete the foreign keys refuse is the client's 409.
        assert_eq!(AppError::in_use(failure(787)).status(), Status::Conflict);
    }

    #[test]
    fn a_constraint_no_rule_checked_is_a_500_that_sends_no_sqlite_text() {
        for extended in [2067, 1555, 787, 275, 1299] {
            let e = AppError::from(failure(extended));
            assert_eq!(e.status(), Status::InternalServerError, "{extended}");
            assert_eq!(e.public_message(), "Internal server error");
            assert!(e.to_string().contains("products.sku"), "logged: {e}");
        }
    }

    #[test]
    fn a_stored_value_that_cannot_be_read_is_a_503_pointing_to_check_not_a_500() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = |sql: &str| {
            let e = conn
                .query_row(sql, [], |r| r.get::<_, String>(0))
                .unwrap_err();
            AppError::from(e)
        };
        for e in [
            read("SELECT CAST(x'fffe' AS TEXT)"),
            read("SELECT 12"),
            AppError::from(rusqlite::Error::IntegralValueOutOfRange(0, 1 << 40)),
        ] {
            assert_eq!(e.status(), Status::ServiceUnavailable, "{e}");
            assert!(e.public_message().contains("`stockbook check`"), "{e}");
        }
        // A NULL where a value must be is an aggregate over no rows: a bug, not damage.
        assert_eq!(read("SELECT NULL").status(), Status::InternalServerError);
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

    #[test]
    fn storage_faults_are_503s_that_say_what_happened_and_log_sqlites_text() {
        use rusqlite::ffi;
        for (code, fault) in [
            (ffi::SQLITE_FULL, StorageFault::Full),
            (ffi::SQLITE_READONLY, StorageFault::ReadOnly),
            (ffi::SQLITE_IOERR_WRITE, StorageFault::Io),
            (ffi::SQLITE_IOERR_FSYNC, StorageFault::Io),
            (ffi::SQLITE_CANTOPEN, StorageFault::CantOpen),
            (ffi::SQLITE_CORRUPT, StorageFault::Damaged),
            (ffi::SQLITE_NOTADB, StorageFault::Damaged),
        ] {
            let e = AppError::from(rusqlite::Error::SqliteFailure(
                ffi::Error::new(code),
                Some("disk I/O error at /srv/secret/stockbook.db".into()),
            ));
            assert_eq!(e.status(), Status::ServiceUnavailable, "{code}");
            assert_eq!(e.public_message(), fault.message(), "{code}");
            assert!(fault.message().ends_with("nothing was saved."), "{code}");
            let AppError::Storage { cause, .. } = &e else {
                panic!("{code}: {e:?}");
            };
            assert!(
                cause.contains("secret"),
                "the log keeps SQLite's text: {cause}"
            );
        }
    }

    #[get("/full")]
    fn full() -> AppResult<()> {
        Err(AppError::from(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            Some("database or disk is full".into()),
        )))
    }

    #[test]
    fn a_full_disk_answers_503_with_retry_after_in_the_error_body() {
        let rocket = rocket::custom(rocket::Config::debug_default()).mount("/api", routes![full]);
        let client = Client::untracked(rocket).expect("valid rocket");
        let res = client.get("/api/full").dispatch();
        assert_eq!(res.status(), Status::ServiceUnavailable);
        assert_eq!(res.headers().get_one("Retry-After"), Some("30"));
        let body: Value = serde_json::from_str(&res.into_string().unwrap()).unwrap();
        assert_eq!(
            body,
            json!({
                "statusCode": 503,
                "statusMessage": "Service Unavailable",
                "message": "The disk holding the database is full: nothing was saved.",
                "code": "storage_fault",
            })
        );
    }
}
