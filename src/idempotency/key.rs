//! The `Idempotency-Key` header's rule (docs/idempotency.md#the-key).

use crate::error::{AppError, AppResult};

pub const HEADER: &str = "Idempotency-Key";
/// The longest key, in characters (Stripe's limit too).
pub const MAX_LEN: usize = 255;

/// The key sent, or 400: one header of 1 to 255 printable ASCII characters other than
/// space (`!` to `~`).
pub fn parse_key<'a>(mut values: impl Iterator<Item = &'a str>) -> AppResult<Option<String>> {
    let Some(raw) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(AppError::bad_request(format!(
            "Send one {HEADER} header, not several"
        )));
    }
    let printable = raw.bytes().all(|b| (b'!'..=b'~').contains(&b));
    if raw.is_empty() || raw.len() > MAX_LEN || !printable {
        return Err(AppError::bad_request(format!(
            "The {HEADER} header must be 1 to {MAX_LEN} printable ASCII characters without spaces"
        )));
    }
    Ok(Some(raw.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::parse_key;

    #[test]
    fn a_key_is_one_header_of_1_to_255_printable_ascii_characters() {
        assert_eq!(parse_key([].into_iter()).unwrap(), None);
        let uuid = "0b5f3f0e-8f4c-4c38-9a53-2f0d9c3b1a77";
        assert_eq!(
            parse_key([uuid].into_iter()).unwrap().as_deref(),
            Some(uuid)
        );
        assert!(parse_key(["x".repeat(255).as_str()].into_iter()).is_ok());
        for bad in ["", "has space", "caf\u{e9}", "tab\there", &"x".repeat(256)] {
            assert!(parse_key([bad].into_iter()).is_err(), "{bad:?}");
        }
        assert!(parse_key(["a", "b"].into_iter()).is_err());
    }
}
