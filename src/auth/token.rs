//! Random secrets (session tokens, API keys) and their stored SHA-256 digests.

use rand::distributions::Alphanumeric;
use rand::Rng;
use sha2::{Digest, Sha256};

/// A random string of `len` base62 characters (5.95 bits each: 32 characters > 190 bits).
pub fn random_base62(len: usize) -> String {
    rand::rngs::OsRng
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// Lower-case hex SHA-256 digest: the only form in which secrets are stored.
pub fn digest(secret: &str) -> String {
    let d = Sha256::digest(secret.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}
