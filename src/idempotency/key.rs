//! The `Idempotency-Key` header's rule (docs/idempotency.md#the-key).

use crate::error::{AppError, AppResult};

pub const HEADER: &str = "Idempotency-Key";
/// The longest key, in characters (Stripe's limit too).
pub const MAX_LEN: usize = 255;

/// The key sent: `None` without the header or with an empty one; 400 for a key longer
/// than 255 characters or for two headers. Any other text is a key (it is only ever
/// compared, never read).
pub fn parse_key<'a>(mut values: impl Iterator<Item = &'a str>) -> AppResult<Option<String>> {
    let Some(raw) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(AppError::bad_request(format!(
            "Send one {HEADER} header, not several"
        )));
    }
    if raw.chars().count() > MAX_LEN {
        return Err(AppError::bad_request(format!(
            "The {HEADER} header must be at most {MAX_LEN} characters"
        )));
    }
    Ok((!raw.is_empty()).then(|| raw.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::parse_key;

    #[test]
    fn a_key_is_one_header_of_at_most_255_characters_and_an_empty_one_is_none() {
        assert_eq!(parse_key([].into_iter()).unwrap(), None);
        assert_eq!(parse_key([""].into_iter()).unwrap(), None);
        let uuid = "0b5f3f0e-8f4c-4c38-9a53-2f0d9c3b1a77";
        assert_eq!(
            parse_key([uuid].into_iter()).unwrap().as_deref(),
            Some(uuid)
        );
        assert!(parse_key(["é".repeat(255).as_str()].into_iter())
            .unwrap()
            .is_some());
        assert!(parse_key(["x".repeat(256).as_str()].into_iter()).is_err());
        assert!(parse_key(["a", "b"].into_iter()).is_err());
    }
}
