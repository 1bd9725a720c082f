//! Secrets at rest (docs/operations.md#the-key-file): webhook secrets and platform
//! credentials are kept in the database encrypted with XChaCha20-Poly1305 under a key that
//! lives in a file beside the database (`<database>.key`), never inside it, so a copy of
//! the database alone (a backup, a replica) carries no live secret.
//!
//! Every pooled connection has two SQL functions bound to the key:
//! `seal(text, label)` gives `enc:v1:<base64 of nonce and ciphertext>`, and
//! `unseal(value, label)` gives the text back (a value without the prefix is returned as
//! it is: only a database from before this version holds one, and the start seals those).
//! The label (`webhooks.secret`) is authenticated with the text, so a sealed value copied
//! into another column does not open. A value that does not open is an error, never a
//! silent blank. Rules write `seal(?1, 'webhooks.secret')` in their SQL and read
//! `unseal(secret, 'webhooks.secret')`; nothing else changes.
//!
//! At start ([`Key::for_database`], then [`prepare`] once migrated): an existing key file is
//! read; without one, a new random key is written (mode 0600) unless the database already
//! holds sealed values, which is an error naming the missing file. One sealed value is
//! opened to prove the key is the right one, then every clear value is sealed in one
//! transaction. An in-memory database has a random key of its own, in memory only.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;
use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

/// What a sealed value starts with.
pub const PREFIX: &str = "enc:v1:";

/// The columns that hold secrets, each with the label it is sealed under. A new secret is
/// one more row here and `seal`/`unseal` in its SQL.
pub const COLUMNS: &[(&str, &str, &str)] = &[
    ("webhooks", "secret", "webhooks.secret"),
    (
        "import_connections",
        "credentials",
        "import_connections.credentials",
    ),
    ("users", "totp_secret", "users.totp_secret"),
    ("hmrc_connections", "tokens", "hmrc_connections.tokens"),
    (
        "hmrc_oauth_states",
        "code_verifier",
        "hmrc_oauth_states.code_verifier",
    ),
];

const NONCE_LEN: usize = 24;

/// The key, and whether it is still to be written to its file.
#[derive(Clone)]
pub struct Key {
    cipher: Arc<XChaCha20Poly1305>,
    /// Where the key is kept; `None` for an in-memory database.
    file: Option<PathBuf>,
    /// A new key, not yet in its file (written by [`prepare`] when the database holds no
    /// sealed value).
    new: bool,
    bytes: [u8; 32],
}

/// The key file of the database at `path`: `<path>.key`.
pub fn key_file(path: &str) -> PathBuf {
    PathBuf::from(format!("{path}.key"))
}

impl Key {
    /// The key of the database at `path` (`:memory:`: a random one, kept in memory).
    pub fn for_database(path: &str) -> Result<Self, String> {
        if path == ":memory:" {
            return Ok(Self::random(None));
        }
        let file = key_file(path);
        match std::fs::read_to_string(&file) {
            Ok(text) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text.trim())
                    .ok()
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .ok_or_else(|| {
                        format!(
                            "the key file {} is not a Stockbook key (32 bytes in base64)",
                            file.display()
                        )
                    })?;
                Ok(Self::from_bytes(bytes, Some(file), false))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut key = Self::random(Some(file));
                key.new = true;
                Ok(key)
            }
            Err(e) => Err(format!("cannot read the key file {}: {e}", file.display())),
        }
    }

    fn random(file: Option<PathBuf>) -> Self {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self::from_bytes(bytes, file, false)
    }

    fn from_bytes(bytes: [u8; 32], file: Option<PathBuf>, new: bool) -> Self {
        Self {
            cipher: Arc::new(XChaCha20Poly1305::new(&bytes.into())),
            file,
            new,
            bytes,
        }
    }

    /// `text` sealed under `label`.
    pub fn seal(&self, text: &str, label: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: text.as_bytes(),
                    aad: label.as_bytes(),
                },
            )
            .expect("XChaCha20-Poly1305 encrypts any length a database holds");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(out)
        )
    }

    /// The text of a value sealed under `label`; a value without [`PREFIX`] as it is.
    pub fn unseal(&self, value: &str, label: &str) -> Result<String, String> {
        let Some(b64) = value.strip_prefix(PREFIX) else {
            return Ok(value.to_owned());
        };
        let bad = || format!("a {label} does not open with this database's key file");
        let raw = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|_| bad())?;
        if raw.len() < NONCE_LEN {
            return Err(bad());
        }
        let (nonce, sealed) = raw.split_at(NONCE_LEN);
        let text = self
            .cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: label.as_bytes(),
                },
            )
            .map_err(|_| bad())?;
        String::from_utf8(text).map_err(|_| bad())
    }

    /// Binds `seal` and `unseal` on `conn` (every pooled connection, in its init).
    pub fn register(&self, conn: &Connection) -> rusqlite::Result<()> {
        let flags = FunctionFlags::SQLITE_UTF8;
        let key = self.clone();
        conn.create_scalar_function("seal", 2, flags, move |ctx| {
            let text: Option<String> = ctx.get(0)?;
            let label: String = ctx.get(1)?;
            Ok(text.map(|t| key.seal(&t, &label)))
        })?;
        let key = self.clone();
        conn.create_scalar_function(
            "unseal",
            2,
            flags | FunctionFlags::SQLITE_DETERMINISTIC,
            move |ctx| {
                let value: Option<String> = ctx.get(0)?;
                let label: String = ctx.get(1)?;
                value
                    .map(|v| key.unseal(&v, &label))
                    .transpose()
                    .map_err(|e| rusqlite::Error::UserFunctionError(e.into()))
            },
        )
    }

    fn write_file(&self, file: &Path) -> Result<(), String> {
        use std::io::Write as _;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let text = base64::engine::general_purpose::STANDARD.encode(self.bytes);
        options
            .open(file)
            .and_then(|mut f| {
                f.write_all(format!("{text}\n").as_bytes())?;
                f.sync_all()
            })
            .map_err(|e| format!("cannot write the key file {}: {e}", file.display()))
    }
}

/// The start's step, on the migrated database: refuses a database holding sealed values
/// without its key file, writes a new key file, proves the key opens a sealed value, and
/// seals every clear one (docs/operations.md#the-key-file).
pub fn prepare(conn: &mut Connection, key: &Key, read_only: bool) -> Result<(), String> {
    let any_sealed = |conn: &Connection| -> Result<Option<(String, &str)>, String> {
        for (table, column, label) in COLUMNS {
            let sql =
                format!("SELECT {column} FROM {table} WHERE {column} LIKE '{PREFIX}%' LIMIT 1");
            match conn.query_row(&sql, [], |r| r.get::<_, String>(0)) {
                Ok(v) => return Ok(Some((v, label))),
                Err(rusqlite::Error::QueryReturnedNoRows) => {}
                Err(e) => return Err(format!("cannot read {table}.{column}: {e}")),
            }
        }
        Ok(None)
    };
    let sealed = any_sealed(conn)?;
    if key.new {
        let file = key.file.as_deref().expect("a new key of a file database");
        if sealed.is_some() {
            return Err(format!(
                "the database holds encrypted secrets (webhook secrets, platform \
                 credentials) but their key file {} is missing: put back the key file kept \
                 with this database (docs/operations.md#the-key-file); without it they \
                 cannot be read",
                file.display()
            ));
        }
        if read_only {
            // Nothing is sealed yet and a server serving read-only writes nothing, not
            // even a key file beside the database.
            return Ok(());
        }
        key.write_file(file)?;
    } else if let Some((value, label)) = sealed {
        key.unseal(&value, label).map_err(|_| {
            format!(
                "the key file {} does not open this database's secrets: it belongs to \
                 another database (docs/operations.md#the-key-file)",
                key.file
                    .as_deref()
                    .map_or_else(|| "(in memory)".into(), |f| f.display().to_string())
            )
        })?;
    }
    if read_only {
        // Clear values left by an older version stay as they are until a server that
        // may write starts; they read back as they are.
        return Ok(());
    }
    // The clear text's old cells are overwritten with zeros, not left in free space.
    conn.pragma_update(None, "secure_delete", "ON")
        .map_err(|e| format!("cannot seal secrets: {e}"))?;
    let tx = conn
        .transaction()
        .map_err(|e| format!("cannot seal secrets: {e}"))?;
    for (table, column, label) in COLUMNS {
        tx.execute(
            &format!(
                "UPDATE {table} SET {column} = seal({column}, '{label}')
                 WHERE {column} NOT LIKE '{PREFIX}%'"
            ),
            [],
        )
        .map_err(|e| format!("cannot seal {table}.{column}: {e}"))?;
    }
    super::audit::flush(&tx)
        .and_then(|()| tx.commit())
        .and_then(|()| conn.pragma_update(None, "secure_delete", "OFF"))
        .map_err(|e| format!("cannot seal secrets: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_text_opens_only_under_its_label_and_key() {
        let key = Key::random(None);
        let sealed = key.seal("whsec_abc", "webhooks.secret");
        assert!(sealed.starts_with(PREFIX));
        assert!(!sealed.contains("whsec_abc"));
        assert_ne!(
            sealed,
            key.seal("whsec_abc", "webhooks.secret"),
            "a fresh nonce"
        );
        assert_eq!(key.unseal(&sealed, "webhooks.secret").unwrap(), "whsec_abc");
        assert!(key
            .unseal(&sealed, "import_connections.credentials")
            .is_err());
        assert!(Key::random(None)
            .unseal(&sealed, "webhooks.secret")
            .is_err());
        assert_eq!(key.unseal("clear", "webhooks.secret").unwrap(), "clear");
    }
}
