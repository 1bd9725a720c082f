//! [`CsvJson`]: the body of the CSV endpoints, read without copies of the file.
//!
//! `JsonBody<T>` with a `csv: String` field would hold the request bytes, serde_json's
//! unescaping scratch buffer and the final `String` at once: three to four times the
//! body. Here the body is read once into a buffer sized by `Content-Length`; the other
//! fields are parsed from it (the `csv` string is skipped, not copied), the `csv` string
//! is located as raw JSON and unescaped in place (an unescaped string is never longer
//! than its JSON form), and the buffer becomes the `String`. Peak memory is the body.
//!
//! The rules of `JsonBody` hold: JSON content type (415), `limits.json` (413), an empty
//! body reads as `{}`, field-naming 400s (`Missing required field: csv`).

use rocket::data::{self, Data, FromData, ToByteUnit};
use rocket::request::Request;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::{AppError, AppResult};
use crate::http::body::{check_body, parse_json, require_json};
use crate::http::stash::stash;

/// The fields `T` (which must not declare `csv`) and the `csv` string.
pub struct CsvJson<T> {
    pub fields: T,
    pub csv: String,
}

#[rocket::async_trait]
impl<'r, T: DeserializeOwned + Send + 'static> FromData<'r> for CsvJson<T> {
    type Error = ();

    async fn from_data(req: &'r Request<'_>, data: Data<'r>) -> data::Outcome<'r, Self> {
        match read(req, data).await {
            Ok(v) => data::Outcome::Success(v),
            Err(e) => {
                let status = e.status();
                stash(req, e);
                data::Outcome::Error((status, ()))
            }
        }
    }
}

async fn read<T: DeserializeOwned + Send + 'static>(
    req: &Request<'_>,
    data: Data<'_>,
) -> AppResult<CsvJson<T>> {
    require_json(req)?;
    let limit = req.limits().get("json").unwrap_or_else(|| 32.mebibytes());
    let hint = req
        .headers()
        .get_one("Content-Length")
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(0, |n| n.min(limit.as_u64()));
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    let n = data
        .open(limit)
        .stream_to(&mut bytes)
        .await
        .map_err(|e| AppError::bad_request(format!("Could not read the request body: {e}")))?;
    if !n.complete {
        return Err(AppError::PayloadTooLarge(format!(
            "Request body is larger than the limit of {limit}"
        )));
    }
    check_body(req, &bytes).await?;
    rocket::tokio::task::spawn_blocking(move || split(bytes))
        .await
        .map_err(|e| AppError::internal(format!("blocking task failed: {e}")))?
}

/// Parses the fields, then turns the buffer into the unescaped `csv` string.
pub fn split<T: DeserializeOwned>(mut bytes: Vec<u8>) -> AppResult<CsvJson<T>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        bytes = b"{}".to_vec();
    }
    let fields: T = parse_json(&bytes)?;
    #[derive(Deserialize)]
    struct Csv<'a> {
        #[serde(borrow, default)]
        csv: Option<&'a RawValue>,
    }
    let (start, len) = {
        let raw: Csv<'_> = serde_json::from_slice(&bytes)
            .map_err(|e| AppError::bad_request(format!("Malformed JSON: {e}")))?;
        let Some(raw) = raw.csv else {
            return Err(AppError::missing("csv"));
        };
        let text = raw.get();
        if !text.starts_with('"') {
            return Err(AppError::invalid("csv", "must be a string"));
        }
        (text.as_ptr() as usize - bytes.as_ptr() as usize, text.len())
    };
    let end = unescape_in_place(&mut bytes, start, len)?;
    bytes.truncate(end);
    bytes.drain(..start);
    let csv =
        String::from_utf8(bytes).map_err(|_| AppError::invalid("csv", "is not valid UTF-8"))?;
    Ok(CsvJson { fields, csv })
}

fn bad_escape() -> AppError {
    AppError::invalid("csv", "has an invalid escape")
}

fn hex4(b: &[u8]) -> AppResult<u32> {
    let s = std::str::from_utf8(b.get(..4).ok_or_else(bad_escape)?).map_err(|_| bad_escape())?;
    u32::from_str_radix(s, 16).map_err(|_| bad_escape())
}

/// Unescapes the JSON string literal at `buf[start..start + len]` (quotes included) into
/// `buf[start..]`; returns the end of the unescaped text. The writer never overtakes the
/// reader: every escape is at least as long as what it stands for.
fn unescape_in_place(buf: &mut [u8], start: usize, len: usize) -> AppResult<usize> {
    let stop = start + len - 1; // the closing quote
    let mut r = start + 1;
    let mut w = start;
    while r < stop {
        // Copy the run up to the next backslash in one move.
        let run = buf[r..stop]
            .iter()
            .position(|&b| b == b'\\')
            .unwrap_or(stop - r);
        buf.copy_within(r..r + run, w);
        r += run;
        w += run;
        if r >= stop {
            break;
        }
        let simple = match buf.get(r + 1).copied().ok_or_else(bad_escape)? {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            _ => return Err(bad_escape()),
        };
        if let Some(b) = simple {
            buf[w] = b;
            w += 1;
            r += 2;
            continue;
        }
        let hi = hex4(buf.get(r + 2..stop).ok_or_else(bad_escape)?)?;
        r += 6;
        let code = if (0xD800..0xDC00).contains(&hi) {
            if buf.get(r..r + 2) != Some(b"\\u") {
                return Err(bad_escape());
            }
            let lo = hex4(buf.get(r + 2..stop).ok_or_else(bad_escape)?)?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(bad_escape());
            }
            r += 6;
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else {
            hi
        };
        let c = char::from_u32(code).ok_or_else(bad_escape)?;
        let mut tmp = [0u8; 4];
        let s = c.encode_utf8(&mut tmp);
        buf[w..w + s.len()].copy_from_slice(s.as_bytes());
        w += s.len();
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Fields {
        #[serde(rename = "entityType")]
        entity_type: String,
    }

    fn split_value(v: serde_json::Value) -> AppResult<CsvJson<Fields>> {
        split(serde_json::to_vec(&v).unwrap())
    }

    #[test]
    fn the_csv_string_is_unescaped_exactly_as_serde_json_would() {
        let text = "name,note\r\n\"Bramble Café\",\"says \"\"hi\"\"\\/ \u{1F600} \t tab\"\n\
                    \u{feff}£1,234.50,\u{0001}\u{001f}\u{2028}\n";
        let body = json!({"entityType": "contacts", "csv": text, "after": [1, "x\ny"]});
        let got = split_value(body).unwrap();
        assert_eq!(got.csv, text);
        assert_eq!(got.fields.entity_type, "contacts");
        // Escapes serde_json does not produce itself.
        let raw = br#"{"csv": "a\/b\u00e9\ud83d\ude00\b\f", "entityType": "x"}"#.to_vec();
        let got: CsvJson<Fields> = split(raw).unwrap();
        assert_eq!(got.csv, "a/bé\u{1F600}\u{8}\u{c}");
    }

    #[test]
    fn a_missing_null_or_non_string_csv_is_a_400_naming_it() {
        let e = split_value(json!({"entityType": "x"})).err().unwrap();
        assert_eq!(e.to_string(), "Missing required field: csv");
        let e = split_value(json!({"entityType": "x", "csv": null}))
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "Missing required field: csv");
        let e = split_value(json!({"entityType": "x", "csv": 5}))
            .err()
            .unwrap();
        assert!(e.to_string().contains("`csv`"), "{e}");
        let e = split_value(json!({"csv": "a"})).err().unwrap();
        assert_eq!(e.to_string(), "Missing required field: entityType");
        let e = split::<Fields>(vec![b' ', b' ']).err().unwrap();
        assert_eq!(e.to_string(), "Missing required field: entityType");
        let e = split::<Fields>(Vec::from(&br#"{"csv": "\ud800", "entityType": "x"}"#[..]))
            .err()
            .unwrap();
        assert!(e.to_string().contains("escape"), "{e}");
    }
}
