//! `JsonBody<T>`: the one way a request body enters the service.
//!
//! It enforces the JSON-only rule for mutations (415), the `limits.body` size (413, and
//! never above `limits.json`; only the CSV import endpoints read bodies up to
//! `limits.json`, with `import::body`),
//! and turns every serde failure into an error message (docs/conventions.md#errors)
//! that names the field: `Missing required field: <field>` or ``Invalid value for field
//! `x`: ...``. An empty body reads as `{}`, so a missing body reports the first missing
//! field.
//!
//! Also the small checks every body field goes through: [`IdBody`] (the body of every
//! DELETE), [`parse_id`], [`clean`] (optional text) and [`parse_date`].

use rocket::data::{self, Data, FromData, ToByteUnit};
use rocket::request::Request;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use time::Date;

use crate::error::{AppError, AppResult};
use crate::http::stash::stash;

pub struct JsonBody<T>(pub T);

impl<T> JsonBody<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for JsonBody<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Rejects a request whose content type is not JSON (the CSRF rule of
/// docs/conventions.md#request-bodies).
pub fn require_json(req: &Request<'_>) -> Result<(), AppError> {
    match req.content_type() {
        Some(ct) if ct.is_json() => Ok(()),
        _ => Err(AppError::UnsupportedMediaType(
            "Request body must be application/json".into(),
        )),
    }
}

#[rocket::async_trait]
impl<'r, T: DeserializeOwned> FromData<'r> for JsonBody<T> {
    type Error = ();

    async fn from_data(req: &'r Request<'_>, data: Data<'r>) -> data::Outcome<'r, Self> {
        match read(req, data).await {
            Ok(v) => data::Outcome::Success(Self(v)),
            Err(e) => {
                let status = e.status();
                stash(req, e);
                data::Outcome::Error((status, ()))
            }
        }
    }
}

/// A check of the raw body bytes that a route wrapper installs for one request (the
/// `Idempotency-Key`, docs/idempotency.md): every body guard ([`JsonBody`] and the CSV
/// import's) calls [`check_body`] once it has read the body, before parsing it. An error
/// refuses the request before its handler runs.
#[rocket::async_trait]
pub trait BodyCheck: Send + Sync {
    async fn check(&self, body: &[u8]) -> AppResult<()>;
}

/// The request's [`BodyCheck`], in its local cache.
#[derive(Default)]
pub struct BodyChecks(pub Option<std::sync::Arc<dyn BodyCheck>>);

/// Runs the request's [`BodyCheck`], if it has one.
pub async fn check_body(req: &Request<'_>, body: &[u8]) -> AppResult<()> {
    match &req.local_cache(BodyChecks::default).0 {
        Some(check) => check.check(body).await,
        None => Ok(()),
    }
}

async fn read<T: DeserializeOwned>(req: &Request<'_>, data: Data<'_>) -> Result<T, AppError> {
    require_json(req)?;
    // `limits.json` is the ceiling of every body; `limits.body` the smaller one of every
    // endpoint but the CSV imports (`import::body`), anonymous ones included.
    let limit = req
        .limits()
        .get("body")
        .unwrap_or_else(|| 4.mebibytes())
        .min(req.limits().get("json").unwrap_or_else(|| 32.mebibytes()));
    let bytes = data
        .open(limit)
        .into_bytes()
        .await
        .map_err(|e| AppError::bad_request(format!("Could not read the request body: {e}")))?;
    if !bytes.is_complete() {
        return Err(AppError::PayloadTooLarge(format!(
            "Request body is larger than the limit of {limit}"
        )));
    }
    check_body(req, &bytes).await?;
    parse_json(&bytes)
}

/// Parses a JSON body into `T` with field-naming error messages.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        bytes
    };
    // serde lets a struct be read from an array, field by field in order; a body that
    // stands for one record must be an object.
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') && expects_struct::<T>() {
        return Err(AppError::bad_request(
            "Invalid request body: expected a JSON object",
        ));
    }
    refuse_nul(bytes)?;
    super::text_limits::check(bytes)?;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        describe(&path, e.inner())
    })?;
    de.end()
        .map_err(|e| AppError::bad_request(format!("Malformed JSON: {e}")))?;
    Ok(value)
}

/// The message of a text with a NUL character (docs/limits.md#text).
pub const NUL_MESSAGE: &str = "must not contain a NUL character";
const NUL_KEY_MESSAGE: &str = "has a key with a NUL character";

/// 400 naming the field when any string of the body, at any depth, keys included, holds
/// U+0000. JSON can only carry one as the escape `\u0000` (a raw control character is
/// malformed JSON), so bodies without that escape are not walked at all.
fn refuse_nul(bytes: &[u8]) -> Result<(), AppError> {
    const ESCAPE: &[u8] = br"\u0000";
    if !bytes.windows(ESCAPE.len()).any(|w| w == ESCAPE) {
        return Ok(());
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, NoNul>(&mut de) {
        Ok(NoNul) => Ok(()),
        Err(e) => {
            let why = strip_position(&e.inner().to_string());
            if why != NUL_MESSAGE && why != NUL_KEY_MESSAGE {
                // Malformed JSON: the real parse reports it.
                return Ok(());
            }
            // A bad key is the path's last segment: name the object that holds it, and
            // never echo the NUL.
            let segments: Vec<_> = e.path().iter().collect();
            let keep = if why == NUL_KEY_MESSAGE {
                segments.len().saturating_sub(1)
            } else {
                segments.len()
            };
            let path = path_text(&segments[..keep]);
            if path.is_empty() {
                Err(AppError::bad_request(format!(
                    "Invalid request body: {why}"
                )))
            } else {
                Err(AppError::invalid(&path, why))
            }
        }
    }
}

/// `lines[1].description`, as `serde_path_to_error` writes a path.
fn path_text(segments: &[&serde_path_to_error::Segment]) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for s in segments {
        match s {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Unknown => out.push('?'),
        }
    }
    out
}

/// Any JSON value; an error at the first string or key that holds U+0000.
struct NoNul;

impl<'de> Deserialize<'de> for NoNul {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoNulVisitor)
    }
}

struct NoNulKey;

impl<'de> Deserialize<'de> for NoNulKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(NoNulVisitor)
            .map(|_| NoNulKey)
            .map_err(|e: D::Error| {
                if e.to_string().starts_with(NUL_MESSAGE) {
                    serde::de::Error::custom(NUL_KEY_MESSAGE)
                } else {
                    e
                }
            })
    }
}

struct NoNulVisitor;

impl<'de> serde::de::Visitor<'de> for NoNulVisitor {
    type Value = NoNul;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<NoNul, E> {
        if s.contains('\0') {
            return Err(E::custom(NUL_MESSAGE));
        }
        Ok(NoNul)
    }

    fn visit_bool<E>(self, _: bool) -> Result<NoNul, E> {
        Ok(NoNul)
    }
    fn visit_i64<E>(self, _: i64) -> Result<NoNul, E> {
        Ok(NoNul)
    }
    fn visit_u64<E>(self, _: u64) -> Result<NoNul, E> {
        Ok(NoNul)
    }
    fn visit_f64<E>(self, _: f64) -> Result<NoNul, E> {
        Ok(NoNul)
    }
    fn visit_unit<E>(self) -> Result<NoNul, E> {
        Ok(NoNul)
    }
    fn visit_none<E>(self) -> Result<NoNul, E> {
        Ok(NoNul)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<NoNul, A::Error> {
        while seq.next_element::<NoNul>()?.is_some() {}
        Ok(NoNul)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<NoNul, A::Error> {
        // (`arbitrary_precision` numbers arrive as one-entry maps too: harmless here.)
        while map.next_key::<NoNulKey>()?.is_some() {
            map.next_value::<NoNul>()?;
        }
        Ok(NoNul)
    }
}

/// Does `T` deserialise as a struct? Asks `T` to deserialise from a probe that notes which
/// shape is requested and then refuses.
fn expects_struct<T: DeserializeOwned>() -> bool {
    use std::cell::Cell;

    struct Probe<'a>(&'a Cell<bool>);

    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = serde::de::value::Error;

        fn deserialize_any<V: serde::de::Visitor<'de>>(
            self,
            _: V,
        ) -> Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("probe"))
        }

        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.set(true);
            Err(serde::de::Error::custom("probe"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }

    let is_struct = Cell::new(false);
    let _ = T::deserialize(Probe(&is_struct));
    is_struct.get()
}

fn describe(path: &str, e: &serde_json::Error) -> AppError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => {
            AppError::bad_request(format!("Malformed JSON: {e}"))
        }
        Category::Data => {
            let msg = strip_position(&e.to_string());
            let join = |field: &str| {
                if path.is_empty() || path == "." {
                    field.to_owned()
                } else {
                    format!("{path}.{field}")
                }
            };
            if let Some(rest) = msg.strip_prefix("missing field `") {
                let field = rest.trim_end_matches('`');
                return AppError::missing(&join(field));
            }
            if path.is_empty() || path == "." {
                return AppError::bad_request(format!("Invalid request body: {msg}"));
            }
            if msg.starts_with("invalid type: null") {
                return AppError::missing(path);
            }
            AppError::invalid(path, msg)
        }
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

/// For PUT fields that may be set to null: absent is `None`, null is `Some(None)`.
pub fn nullable<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `{id}`: the body of every DELETE.
#[derive(Debug, Deserialize)]
pub struct IdBody {
    pub id: String,
}

impl IdBody {
    /// The id, parsed ([`parse_id`]: 400 when not a UUID).
    pub fn id(&self) -> AppResult<String> {
        parse_id("id", &self.id)
    }
}

/// Optional text as stored: trimmed, and blank becomes `None`.
pub fn clean(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

/// For nullable PUT fields: absent stays absent; null or blank clears.
pub fn clean_nullable(s: Option<Option<String>>) -> Option<Option<String>> {
    s.map(clean)
}

/// Parses a `YYYY-MM-DD` date sent by a client: exactly that shape (no sign, no blanks:
/// a body field is trimmed by its caller, a query parameter is taken as sent) and a real
/// calendar day; 400 naming `field` and the value otherwise.
pub fn parse_date(field: &str, s: &str) -> AppResult<Date> {
    let b = s.as_bytes();
    let shape_ok = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    let bad = || AppError::invalid(field, format!("`{s}` is not a date in the form YYYY-MM-DD"));
    if !shape_ok {
        return Err(bad());
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().map_err(|_| bad());
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let month = u8::try_from(m)
        .ok()
        .and_then(|m| time::Month::try_from(m).ok())
        .ok_or_else(bad)?;
    let year = i32::try_from(y).map_err(|_| bad())?;
    let day = u8::try_from(d).map_err(|_| bad())?;
    Date::from_calendar_date(year, month, day).map_err(|_| bad())
}

/// Most lines a document (invoice, bill, recurring invoice, transfer order) or a list of
/// stock-take counts may have (docs/limits.md#lists).
pub const MAX_LINES: usize = 10_000;

/// 400 unless `n` is at most [`MAX_LINES`]: for lines that do not come through
/// [`at_most_lines`] (imports).
pub fn check_line_count(field: &str, n: usize) -> Result<(), AppError> {
    if n > MAX_LINES {
        return Err(AppError::invalid(field, too_many_lines()));
    }
    Ok(())
}

fn too_many_lines() -> String {
    format!("at most {MAX_LINES} lines")
}

/// For an optional list of lines (`#[serde(default, deserialize_with = "at_most_lines")]`):
/// refuses the body (400 naming the field) at the first line beyond [`MAX_LINES`], without
/// reading the rest into memory.
pub fn at_most_lines<'de, D, T>(d: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Lines<T>(Vec<T>);

    impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lines<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V<T>(std::marker::PhantomData<T>);

            impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
                type Value = Lines<T>;

                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    write!(f, "a list of at most {MAX_LINES} lines")
                }

                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Self::Value, A::Error> {
                    let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1_024));
                    while let Some(line) = seq.next_element()? {
                        if out.len() == MAX_LINES {
                            return Err(serde::de::Error::custom(too_many_lines()));
                        }
                        out.push(line);
                    }
                    Ok(Lines(out))
                }
            }

            d.deserialize_seq(V(std::marker::PhantomData))
        }
    }

    Option::<Lines<T>>::deserialize(d).map(|o| o.map(|l| l.0))
}

/// Parses an identifier sent by a client (body field or query parameter): 400 when it is
/// not a UUID. Returns the canonical lower-case hyphenated form.
pub fn parse_id(field: &str, s: &str) -> Result<String, AppError> {
    uuid::Uuid::parse_str(s.trim())
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| AppError::invalid(field, "not a UUID"))
}

/// Parses an optional flag query parameter: `true`/`1` or `false`/`0`, anything else 400.
pub fn parse_flag(field: &str, s: Option<&str>) -> Result<Option<bool>, AppError> {
    match s {
        None | Some("") => Ok(None),
        Some("true" | "1") => Ok(Some(true)),
        Some("false" | "0") => Ok(Some(false)),
        Some(_) => Err(AppError::invalid(field, "must be true or false")),
    }
}

/// Parses an optional UUID query parameter.
/// A record's id taken from the path (`/api/v1/invoices/{id}`): a value that is not a UUID
/// names no record, so it is the 404 of an unknown one (`<label> not found: <value>`), not
/// a 400 (docs/conventions.md#collection-paths).
pub fn path_id(label: &str, raw: &str) -> Result<String, AppError> {
    uuid::Uuid::parse_str(raw.trim())
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| {
            let shown: String = raw.chars().take(100).collect();
            AppError::not_found(format!("{label} not found: {shown}"))
        })
}

pub fn parse_opt_id(field: &str, s: Option<&str>) -> Result<Option<String>, AppError> {
    match s {
        None | Some("") => Ok(None),
        Some(s) => parse_id(field, s).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::{parse_date, parse_json};

    #[derive(Debug, Deserialize)]
    struct Named {
        #[allow(dead_code)]
        name: String,
    }

    #[test]
    fn an_array_is_not_read_as_a_record() {
        let e = parse_json::<Named>(br#" ["Acme"] "#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid request body: expected a JSON object"
        );
        assert!(parse_json::<Named>(br#"{"name": "Acme"}"#).is_ok());
    }

    #[test]
    fn a_body_that_is_a_list_may_still_be_an_array() {
        let v = parse_json::<Vec<u32>>(b"[1, 2]").unwrap();
        assert_eq!(v, [1, 2]);
        let v = parse_json::<Vec<Named>>(br#"[{"name": "a"}]"#).unwrap();
        assert_eq!(v.len(), 1);
    }

    #[test]
    fn an_empty_body_reports_the_first_missing_field() {
        let e = parse_json::<Named>(b"").unwrap_err();
        assert_eq!(e.to_string(), "Missing required field: name");
    }

    #[test]
    fn a_date_is_exactly_year_month_day() {
        assert_eq!(
            parse_date("date", "2024-02-29").unwrap().to_string(),
            "2024-02-29"
        );
        for bad in [
            " 2024-01-02",
            "2023-02-29",
            "2024-1-02",
            "+2024-01-02",
            "20240102",
            "2024-01-02T00:00:00Z",
        ] {
            let e = parse_date("date", bad).unwrap_err().to_string();
            assert!(e.contains("`date`") && e.contains(bad), "{bad}: {e}");
        }
    }
}
